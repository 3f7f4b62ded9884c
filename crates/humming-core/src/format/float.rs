//! Signed minifloats `e{E}m{M}` of at most 8 bits.

use super::FormatError;
use std::fmt;

/// How a minifloat spends its special encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatSpecials {
    /// IEEE 754 style: the all-ones exponent holds ±inf (mantissa 0) and NaN (mantissa != 0).
    /// Used by e5m2 (OCP FP8 E5M2).
    Ieee,
    /// OCP FP8 E4M3 ("fn"): no infinities; only `S.1111.111` is NaN, every other code is finite.
    FiniteNan,
    /// Every code is a finite number (OCP MX FP6/FP4: e2m1, e3m2, e2m3, and every other custom layout).
    Finite,
}

/// A signed minifloat `e{E}m{M}`: 1 sign bit, `E >= 1` exponent bits, `M >= 0` mantissa bits,
/// `1 + E + M <= 8`, exponent bias `2^(E-1) - 1`, subnormals at exponent field 0.
///
/// The special-value convention follows the OCP standards: e5m2 is IEEE-like, e4m3 is the
/// finite "fn" variant, every other layout has no specials at all ([`FloatSpecials`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FloatFormat {
    exp: u8,
    man: u8,
}

impl FloatFormat {
    /// FP4 (OCP MX E2M1): values ±{0, 0.5, 1, 1.5, 2, 3, 4, 6}.
    pub const E2M1: FloatFormat = FloatFormat { exp: 2, man: 1 };
    /// FP6 (OCP MX E3M2), max 28.
    pub const E3M2: FloatFormat = FloatFormat { exp: 3, man: 2 };
    /// FP6 (OCP MX E2M3), max 7.5.
    pub const E2M3: FloatFormat = FloatFormat { exp: 2, man: 3 };
    /// FP8 E4M3 ("fn"), max 448.
    pub const E4M3: FloatFormat = FloatFormat { exp: 4, man: 3 };
    /// FP8 E5M2, IEEE-like, max 57344.
    pub const E5M2: FloatFormat = FloatFormat { exp: 5, man: 2 };

    /// Checked constructor: `E >= 1`, `1 + E + M <= 8`.
    pub const fn new(exp: u8, man: u8) -> Result<Self, FormatError> {
        if Self::layout_ok(exp, man) {
            Ok(FloatFormat { exp, man })
        } else {
            Err(FormatError::FloatLayout { exp, man })
        }
    }

    /// [`FloatFormat::new`] for `static` and `const` initializers (where the error of `new`
    /// cannot be dropped): panics on an invalid layout, which in a constant is a compile error.
    /// `#[humming_gemm]` writes float weights with it.
    pub const fn new_const(exp: u8, man: u8) -> Self {
        assert!(Self::layout_ok(exp, man), "invalid float layout: need E >= 1 and 1 + E + M <= 8");
        FloatFormat { exp, man }
    }

    const fn layout_ok(exp: u8, man: u8) -> bool {
        exp >= 1 && 1 + exp as u32 + man as u32 <= 8
    }

    /// Every valid layout, ordered by (bits, E).
    pub fn all() -> Vec<FloatFormat> {
        let mut v = Vec::new();
        for bits in 2..=8u8 {
            for exp in 1..bits {
                v.push(FloatFormat {
                    exp,
                    man: bits - 1 - exp,
                });
            }
        }
        v
    }

    /// Exponent bits E.
    pub fn exp_bits(self) -> u8 {
        self.exp
    }

    /// Mantissa bits M.
    pub fn man_bits(self) -> u8 {
        self.man
    }

    /// Total width `1 + E + M`.
    pub fn bits(self) -> u8 {
        1 + self.exp + self.man
    }

    /// Exponent bias `2^(E-1) - 1`.
    pub fn bias(self) -> i32 {
        (1 << (self.exp - 1)) - 1
    }

    /// Special-value convention of this layout.
    pub fn specials(self) -> FloatSpecials {
        match (self.exp, self.man) {
            (5, 2) => FloatSpecials::Ieee,
            (4, 3) => FloatSpecials::FiniteNan,
            _ => FloatSpecials::Finite,
        }
    }

    /// Mask of the `bits()` low bits that make up a code.
    fn code_mask(self) -> u32 {
        (1u32 << self.bits()) - 1
    }

    /// The sign bit of a code, `1 << (bits - 1)`.
    pub fn sign_mask(self) -> u8 {
        1 << (self.bits() - 1)
    }

    /// Code of `+inf` (exponent all ones, mantissa 0) for [`FloatSpecials::Ieee`] layouts,
    /// `None` for layouts without infinities. `-inf` is this code with [`Self::sign_mask`] set.
    pub fn inf_code(self) -> Option<u8> {
        match self.specials() {
            FloatSpecials::Ieee => Some(((1u8 << self.exp) - 1) << self.man),
            FloatSpecials::FiniteNan | FloatSpecials::Finite => None,
        }
    }

    /// Code of the largest finite value (positive). Every code of smaller magnitude is finite.
    pub fn max_code(self) -> u8 {
        let all_ones = self.sign_mask() - 1;
        match self.specials() {
            FloatSpecials::Ieee => (((1 << self.exp) - 1) << self.man) - 1, // just below +inf
            FloatSpecials::FiniteNan => all_ones - 1,                       // just below NaN
            FloatSpecials::Finite => all_ones,
        }
    }

    /// The canonical NaN code: `0x7E` (positive quiet NaN, `0.11111.10`) for e5m2, `0x7F`
    /// (`0.1111.111`) for e4m3; `None` for layouts without NaN.
    pub fn nan_code(self) -> Option<u8> {
        match self.specials() {
            // Exponent all ones, mantissa MSB set (Ieee layouts have M >= 1).
            FloatSpecials::Ieee => self.inf_code().map(|inf| inf | (1 << (self.man - 1))),
            FloatSpecials::FiniteNan => Some(self.sign_mask() - 1),
            FloatSpecials::Finite => None,
        }
    }

    /// Whether `code` (low `bits()` bits; higher bits ignored) is a NaN of either sign.
    pub fn is_nan_code(self, code: u8) -> bool {
        let mag = code & (self.sign_mask() - 1);
        match self.specials() {
            FloatSpecials::Ieee => self.inf_code().is_some_and(|inf| mag > inf),
            FloatSpecials::FiniteNan => mag == self.sign_mask() - 1,
            FloatSpecials::Finite => false,
        }
    }

    /// The largest finite value (e2m1: 6, e3m2: 28, e2m3: 7.5, e4m3: 448, e5m2: 57344).
    pub fn max_finite(self) -> f32 {
        self.decode(self.max_code())
    }

    /// The smallest positive value, `2^(1 - bias - M)` (the value of code 1). With `M = 0`
    /// there are no subnormals and this is the smallest normal `2^(1 - bias)`.
    pub fn min_subnormal(self) -> f32 {
        self.decode(1)
    }

    /// Exact value of `code` (low `bits()` bits; higher bits ignored). NaN codes decode to a
    /// NaN, e5m2's infinity codes to `±inf`, the negative-zero code to `-0.0`.
    pub fn decode(self, code: u8) -> f32 {
        let code = u32::from(code) & self.code_mask();
        let sign = u32::from(self.sign_mask());
        let man_bits = u32::from(self.man);
        let mag = code & (sign - 1);
        let (field, man) = (mag >> man_bits, mag & ((1 << man_bits) - 1));
        let value = if self.is_nan_code(code as u8) {
            f32::NAN
        } else if self.inf_code().is_some_and(|inf| u32::from(inf) == mag) {
            f32::INFINITY
        } else {
            // Subnormal (field 0): 0.m * 2^(1-bias); normal: 1.m * 2^(field-bias).
            let significand = if field == 0 {
                man
            } else {
                (1 << man_bits) | man
            };
            let exp = field.max(1) as i32 - self.bias() - man_bits as i32;
            (f64::from(significand) * exp2(exp)) as f32
        };
        if code & sign != 0 { -value } else { value }
    }

    /// Nearest code to `x`; see [`Scalar`](super::Scalar) for the policy: round to
    /// nearest with ties to the even code (the code whose mantissa LSB is 0), saturation of
    /// finite out-of-range values to `±max_finite`, `±inf` to `±inf` where the layout has it
    /// (else saturation), NaN to [`Self::nan_code`] (or `+0` where the layout has no NaN),
    /// the sign of zero (and of values that round to zero) kept.
    pub fn encode(self, x: f32) -> u8 {
        if x.is_nan() {
            return self.nan_code().unwrap_or(0);
        }
        let sign = if x.is_sign_negative() {
            self.sign_mask()
        } else {
            0
        };
        let a = f64::from(x.abs());
        let mag = if a.is_infinite() {
            self.inf_code().unwrap_or(self.max_code())
        } else if a >= f64::from(self.max_finite()) {
            self.max_code()
        } else {
            // The magnitude codes are monotone: ((e - e_min) << M) + significand.
            nearest_code(a, u32::from(self.man), 1 - self.bias()) as u8
        };
        sign | mag
    }

    /// Distance between the two adjacent representable values that bracket `|x|` (the lower
    /// one included): `2^(max(floor(log2|x|), 1-bias) - M)`; beyond `max_finite` the last gap
    /// `max_finite - (next lower value)`. NaN for NaN.
    pub fn step_at(self, x: f32) -> f32 {
        let a = f64::from(x.abs());
        if x.is_nan() {
            f32::NAN
        } else if a >= f64::from(self.max_finite()) {
            self.max_finite() - self.decode(self.max_code() - 1)
        } else {
            grid_step(a, u32::from(self.man), 1 - self.bias())
        }
    }

    /// Parses `e{E}m{M}` (case-insensitive).
    pub fn parse(s: &str) -> Result<Self, FormatError> {
        let t = s.trim().to_ascii_lowercase();
        let unknown = || FormatError::Unknown {
            role: "float",
            name: s.to_string(),
            valid: "e{E}m{M} with E >= 1 and 1 + E + M <= 8",
        };
        let rest = t.strip_prefix('e').ok_or_else(unknown)?;
        let (e, m) = rest.split_once('m').ok_or_else(unknown)?;
        let e: u8 = e.parse().map_err(|_| unknown())?;
        let m: u8 = m.parse().map_err(|_| unknown())?;
        FloatFormat::new(e, m)
    }
}

impl fmt::Display for FloatFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}m{}", self.exp, self.man)
    }
}

/// `2^k` as an exact `f64`, for `k` in the normal range `-1022..=1023`.
pub(super) fn exp2(k: i32) -> f64 {
    debug_assert!(
        (-1022..=1023).contains(&k),
        "2^{k} is outside the f64 normal range"
    );
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `floor(log2(a))` of a positive normal `f64` (every nonzero `f32` is normal as an `f64`).
pub(super) fn floor_log2(a: f64) -> i32 {
    debug_assert!(a.is_normal() && a > 0.0);
    ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// Binade of `a >= 0` clamped below to `e_min` (the subnormal binade).
fn binade(a: f64, e_min: i32) -> i32 {
    if a > 0.0 {
        floor_log2(a).max(e_min)
    } else {
        e_min
    }
}

/// Nearest magnitude code of a finite `a >= 0` below the format's max, on the grid of a
/// binary float with `man` mantissa bits and smallest normal exponent `e_min`, where code
/// `((e - e_min) << man) + n` holds `n * 2^(e - man)` (`n` the integer significand, `e` the
/// binade clamped to `e_min`; a carry into the next binade is the next code). Ties go to the
/// even code.
pub(super) fn nearest_code(a: f64, man: u32, e_min: i32) -> u32 {
    let e = binade(a, e_min);
    let n = a * exp2(man as i32 - e); // exact: scaling by a power of two
    let lo = n.floor();
    let code_lo = (((e - e_min) as u32) << man) + lo as u32;
    let frac = n - lo;
    let up = frac > 0.5 || (frac == 0.5 && code_lo % 2 == 1);
    code_lo + u32::from(up)
}

/// Spacing of the grid of [`nearest_code`] in the binade of `a >= 0`.
pub(super) fn grid_step(a: f64, man: u32, e_min: i32) -> f32 {
    exp2(binade(a, e_min) - man as i32) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp2_and_floor_log2_are_exact() {
        for k in -149..=127 {
            let p = exp2(k);
            assert_eq!(p, 2f64.powi(k));
            assert_eq!(floor_log2(p), k);
            assert_eq!(floor_log2(p * 1.999), k);
        }
    }

    #[test]
    fn nearest_code_carries_into_the_next_binade() {
        // e2m1 grid (M = 1, e_min = 0): codes 0..=7 hold 0, 0.5, 1, 1.5, 2, 3, 4, 6.
        let cases = [
            (0.0, 0),
            (0.25, 0), // tie 0 / 0.5: even code 0
            (0.75, 2), // tie 0.5 / 1 (subnormal to normal): even code 2
            (1.25, 2), // tie 1 / 1.5: even code 2
            (1.75, 4), // tie 1.5 / 2 (carry into the next binade): even code 4
            (2.5, 4),
            (3.5, 6),
            (5.0, 6),
            (5.0001, 7),
        ];
        for (a, code) in cases {
            assert_eq!(nearest_code(a, 1, 0), code, "{a}");
        }
        // M = 0 (e3m0, e_min = -2): codes 0, 1, 2, 3 hold 0, 0.25, 0.5, 1; ties to the even code.
        assert_eq!(nearest_code(0.125, 0, -2), 0);
        assert_eq!(nearest_code(0.375, 0, -2), 2);
        assert_eq!(nearest_code(0.75, 0, -2), 2);
        assert_eq!(nearest_code(0.7501, 0, -2), 3);
    }
}
