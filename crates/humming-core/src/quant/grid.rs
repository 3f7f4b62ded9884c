//! Exact nearest-value search and round-up over a format's value set, in `f64`.
//!
//! The quantizers divide in `f64` and must round that quotient to the format once. The codec
//! ([`Scalar::encode`]) takes an `f32`, and going through `f32` first would round twice, so the
//! quantizers search the format's decoded value set instead. Ties go to the code whose least
//! significant bit is 0, which is the codec's ties-to-even rule for every weight and
//! activation format (integers: the even integer; minifloats: mantissa LSB 0).

use crate::Scalar;

/// The finite values of a format, shifted by an offset, sorted ascending with their codes.
#[derive(Clone, Debug)]
pub(crate) struct Grid {
    values: Vec<f64>,
    codes: Vec<u32>,
}

impl Grid {
    /// Every finite value `decode(code) - offset` of `scalar` (at most 8 bits wide). Equal
    /// values (`+0` and `-0`) keep the smaller code.
    pub(crate) fn new(scalar: Scalar, offset: f64) -> Grid {
        debug_assert!(
            scalar.bits() <= 8,
            "{scalar:?}: grids are for formats of <= 8 bits"
        );
        let mut pairs: Vec<(f64, u32)> = scalar
            .codes()
            .map(|c| (f64::from(scalar.decode(c)), c))
            .filter(|(v, _)| v.is_finite())
            .map(|(v, c)| (v - offset, c))
            .collect();
        // Finite values: `partial_cmp` is total here and ranks -0.0 equal to +0.0, so the
        // code order puts +0 (code 0) first among the zeros.
        pairs.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap().then(a.1.cmp(&b.1)));
        pairs.dedup_by(|later, earlier| later.0 == earlier.0);
        let (values, codes) = pairs.into_iter().unzip();
        Grid { values, codes }
    }

    /// The largest value.
    pub(crate) fn max(&self) -> f64 {
        self.values[self.values.len() - 1]
    }

    /// The smallest value.
    pub(crate) fn min(&self) -> f64 {
        self.values[0]
    }

    /// The largest magnitude available with both signs, `min(max, -min)`; where the grid has
    /// no symmetric range (uint1 with its implicit zero point: `{-1, 0}`), the larger one-sided
    /// magnitude instead.
    pub(crate) fn symmetric_max(&self) -> f64 {
        let sym = self.max().min(-self.min());
        if sym > 0.0 {
            sym
        } else {
            self.max().max(-self.min())
        }
    }

    /// Code of the value nearest to `x` (ties to the even code); values beyond the ends go to
    /// the end values (saturation).
    pub(crate) fn nearest(&self, x: f64) -> u32 {
        let i = self.values.partition_point(|&v| v < x);
        if i == 0 {
            return self.codes[0];
        }
        if i == self.values.len() {
            return self.codes[i - 1];
        }
        let (below, above) = (x - self.values[i - 1], self.values[i] - x);
        if below < above || (below == above && self.codes[i - 1] % 2 == 0) {
            self.codes[i - 1]
        } else {
            self.codes[i]
        }
    }
}

/// Code of the smallest positive value of the scale format `fmt` that is `>= target`
/// (`target > 0`), saturating to the largest finite value when `target` exceeds it.
///
/// Relies on the positive codes of the scale formats (f16, bf16, e4m3, e5m2, ue8m0) being
/// ordered by value, from code 0 up to the code of `max_finite`.
pub(crate) fn round_up_code(fmt: Scalar, target: f64) -> u32 {
    debug_assert!(target > 0.0);
    let max_code = fmt.encode(fmt.max_finite());
    if target >= f64::from(fmt.max_finite()) {
        return max_code;
    }
    let value = |c: u32| f64::from(fmt.decode(c));
    // The codec's nearest code is at most one step from the answer.
    let mut c = fmt.encode(target as f32);
    while value(c) < target && c < max_code {
        c += 1;
    }
    while c > 0 && value(c - 1) >= target {
        c -= 1;
    }
    c
}

/// The smallest `f32 >= x` for finite `x > 0` below `f32::MAX` (so never 0 or infinite).
pub(crate) fn round_up_f32(x: f64) -> f32 {
    debug_assert!(x > 0.0 && x <= f64::from(f32::MAX));
    let y = x as f32;
    if f64::from(y) < x {
        // The next f32 up from a non-negative finite value (0 -> the smallest subnormal).
        f32::from_bits(y.to_bits() + 1)
    } else {
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FloatFormat;

    #[test]
    fn nearest_breaks_ties_to_even_codes() {
        let g = Grid::new(Scalar::SInt(4), 0.0);
        assert_eq!(g.nearest(0.5), 0);
        assert_eq!(g.nearest(1.5), 2);
        assert_eq!(g.nearest(-0.5), 0);
        assert_eq!(g.nearest(-1.5), 0xE); // -2
        assert_eq!(g.nearest(100.0), 7);
        assert_eq!(g.nearest(-100.0), 8); // -8
        let e2m1 = Grid::new(Scalar::Float(FloatFormat::E2M1), 0.0);
        assert_eq!(e2m1.nearest(5.0), 0b0110); // between 4 (0110) and 6 (0111)
        assert_eq!(e2m1.nearest(2.5), 0b0100); // between 2 (0100) and 3 (0101)
        assert_eq!(e2m1.nearest(-0.1), 0); // +0, never -0
        assert_eq!(e2m1.symmetric_max(), 6.0);
    }

    #[test]
    fn uint1_implicit_grid_has_no_symmetric_range() {
        let g = Grid::new(Scalar::UInt(1), 1.0);
        assert_eq!((g.min(), g.max()), (-1.0, 0.0));
        assert_eq!(g.symmetric_max(), 1.0);
    }

    #[test]
    fn round_up_picks_the_next_representable_value() {
        let e4m3 = Scalar::Float(FloatFormat::E4M3);
        assert_eq!(e4m3.decode(round_up_code(e4m3, 1.0)), 1.0);
        assert_eq!(e4m3.decode(round_up_code(e4m3, 1.0 + 1e-9)), 1.125);
        assert_eq!(e4m3.decode(round_up_code(e4m3, 1e-9)), 2f32.powi(-9));
        assert_eq!(e4m3.decode(round_up_code(e4m3, 1e9)), 448.0);
        assert_eq!(Scalar::Ue8m0.decode(round_up_code(Scalar::Ue8m0, 0.3)), 0.5);
        assert_eq!(
            Scalar::Ue8m0.decode(round_up_code(Scalar::Ue8m0, 1e-60)),
            2f32.powi(-127)
        );
        assert_eq!(
            Scalar::F16.decode(round_up_code(Scalar::F16, 1e300)),
            65504.0
        );
        assert_eq!(
            round_up_f32(1.0 + 1e-12),
            f32::from_bits(1.0f32.to_bits() + 1)
        );
        assert_eq!(round_up_f32(1e-50), f32::from_bits(1));
    }
}
