//! Floating-point helpers of the emulator: exact rounding of an `f64` (plus the sign of a
//! residual the `f64` could not hold) into f16 / bf16 / f32 / f64 / e4m3 / e5m2 with any IEEE
//! rounding direction, the FP8 decoders, and the canonical NaNs the emulator produces.
//!
//! The key primitive is [`round`]: `x + residual` is the exact value (the residual is smaller
//! than half an `f64` ulp of `x`, only its sign matters). Every arithmetic helper computes an
//! exact or error-free (`x`, residual) pair in `f64` and rounds once, so results are correctly
//! rounded in the target format, including ties and directed modes.

/// Rounding direction of a floating-point result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum FRnd {
    /// To nearest, ties to even.
    Rn,
    /// Toward zero.
    Rz,
    /// Toward -inf.
    Rm,
    /// Toward +inf.
    Rp,
}

/// Integer rounding direction (`.rni .rzi .rmi .rpi`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum IRnd {
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

impl IRnd {
    pub(crate) fn apply(self, x: f64) -> f64 {
        match self {
            IRnd::Rni => x.round_ties_even(),
            IRnd::Rzi => x.trunc(),
            IRnd::Rmi => x.floor(),
            IRnd::Rpi => x.ceil(),
        }
    }
}

/// A binary floating-point format the emulator rounds into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Fmt {
    F16,
    Bf16,
    F32,
    F64,
    E4m3,
    E5m2,
}

impl Fmt {
    /// (exponent bits, mantissa bits).
    fn layout(self) -> (u32, u32) {
        match self {
            Fmt::F16 => (5, 10),
            Fmt::Bf16 => (8, 7),
            Fmt::F32 => (8, 23),
            Fmt::F64 => (11, 52),
            Fmt::E4m3 => (4, 3),
            Fmt::E5m2 => (5, 2),
        }
    }

    /// Width in bits.
    pub(crate) fn bits(self) -> u32 {
        let (e, m) = self.layout();
        1 + e + m
    }

    /// The NaN the emulator produces in this format: PTX's canonical NaN for f32 (`0x7fffffff`)
    /// and f16/bf16 (`0x7fff`), `0x7f` for the FP8 formats, and (the emulator's choice; PTX
    /// does not specify it) `0x7fff_ffff_ffff_ffff` for f64.
    pub(crate) fn nan(self) -> u64 {
        match self {
            Fmt::F16 | Fmt::Bf16 => 0x7fff,
            Fmt::F32 => 0x7fff_ffff,
            Fmt::F64 => 0x7fff_ffff_ffff_ffff,
            Fmt::E4m3 | Fmt::E5m2 => 0x7f,
        }
    }

    fn max_finite(self) -> u64 {
        match self {
            Fmt::E4m3 => 0x7e,
            _ => {
                let (e, m) = self.layout();
                (((1u64 << e) - 2) << m) | ((1u64 << m) - 1)
            }
        }
    }

    fn inf(self) -> Option<u64> {
        match self {
            Fmt::E4m3 => None,
            _ => {
                let (e, m) = self.layout();
                Some(((1u64 << e) - 1) << m)
            }
        }
    }

    /// Decodes `bits` (the low [`Fmt::bits`] bits) to an exact `f64`.
    pub(crate) fn decode(self, bits: u64) -> f64 {
        match self {
            Fmt::F16 => half::f16::from_bits(bits as u16).to_f64(),
            Fmt::Bf16 => half::bf16::from_bits(bits as u16).to_f64(),
            Fmt::F32 => f32::from_bits(bits as u32) as f64,
            Fmt::F64 => f64::from_bits(bits),
            Fmt::E4m3 => e4m3_to_f64(bits as u8),
            Fmt::E5m2 => e5m2_to_f64(bits as u8),
        }
    }
}

/// `2^k` for `-1022 <= k <= 1023`.
fn pow2(k: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&k));
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// Sign of a residual: -1, 0 or 1.
pub(crate) fn sign_of(r: f64) -> i32 {
    if r > 0.0 {
        1
    } else if r < 0.0 {
        -1
    } else {
        0
    }
}

/// Rounds the exact value `x + residual` (only `sign(residual)` = `sticky` matters; it must be
/// 0 when `x` is 0, inf or NaN) into `fmt` with direction `rnd`. With `satfinite`, results
/// that would be infinite (or, for e4m3, NaN by overflow) become the signed largest finite
/// value; infinite inputs too. NaN gives [`Fmt::nan`]. Returns the bit pattern.
pub(crate) fn round(x: f64, sticky: i32, fmt: Fmt, rnd: FRnd, satfinite: bool) -> u64 {
    let (ebits, mbits) = fmt.layout();
    let sign_bit = 1u64 << (ebits + mbits);
    if x.is_nan() {
        return fmt.nan();
    }
    let neg = x.is_sign_negative();
    let s = if neg { sign_bit } else { 0 };
    if fmt == Fmt::F64 {
        return round_f64(x, sticky, rnd, satfinite);
    }
    // Direction in terms of magnitude.
    #[derive(PartialEq)]
    enum Mag {
        Nearest,
        Down,
        Up,
    }
    let mag = match (rnd, neg) {
        (FRnd::Rn, _) => Mag::Nearest,
        (FRnd::Rz, _) | (FRnd::Rm, false) | (FRnd::Rp, true) => Mag::Down,
        (FRnd::Rm, true) | (FRnd::Rp, false) => Mag::Up,
    };
    let overflow = |s: u64| -> u64 {
        if satfinite || mag == Mag::Down {
            s | fmt.max_finite()
        } else {
            match fmt.inf() {
                Some(inf) => s | inf,
                None => fmt.nan(),
            }
        }
    };
    if x.is_infinite() {
        return if satfinite {
            s | fmt.max_finite()
        } else {
            match fmt.inf() {
                Some(inf) => s | inf,
                None => fmt.nan(),
            }
        };
    }
    let a = x.abs();
    if a == 0.0 {
        debug_assert_eq!(sticky, 0);
        return s;
    }
    let sticky_mag = if neg { -sticky } else { sticky };
    let bias = (1i32 << (ebits - 1)) - 1;
    let emin = 1 - bias;
    let field = ((a.to_bits() >> 52) & 0x7ff) as i32;
    let mut e = if field == 0 { -1075 } else { field - 1023 };
    if e < emin {
        e = emin;
    }
    let one = 1u64 << mbits; // the implicit bit at exponent e
    let q = a * pow2(mbits as i32 - e);
    let qf = q.floor();
    let frac = q - qf;
    let mut qi = qf as u64;
    match mag {
        Mag::Nearest => {
            let up =
                frac > 0.5 || (frac == 0.5 && (sticky_mag > 0 || (sticky_mag == 0 && qi & 1 == 1)));
            if up {
                qi += 1;
            }
        }
        Mag::Up => {
            if frac > 0.0 || sticky_mag > 0 {
                qi += 1;
            }
        }
        Mag::Down => {
            if frac == 0.0 && sticky_mag < 0 {
                // The exact magnitude is just below qi * quantum.
                if qi == one && e > emin {
                    // ... which lies in the binade below, with half the quantum.
                    e -= 1;
                    qi = 2 * one - 1;
                } else {
                    qi -= 1;
                }
            }
        }
    }
    if qi == 2 * one {
        qi = one;
        e += 1;
    }
    if qi == 0 {
        return s;
    }
    let bits = if qi < one {
        // Subnormal (e == emin).
        qi
    } else {
        (((e - emin + 1) as u64) << mbits) | (qi - one)
    };
    let limit = match fmt {
        Fmt::E4m3 => 0x7e,
        _ => fmt.max_finite(),
    };
    if bits > limit {
        return overflow(s);
    }
    s | bits
}

fn round_f64(x: f64, sticky: i32, rnd: FRnd, satfinite: bool) -> u64 {
    if x.is_infinite() {
        return if satfinite {
            f64::MAX.copysign(x).to_bits()
        } else {
            x.to_bits()
        };
    }
    let r = match rnd {
        FRnd::Rn => x,
        FRnd::Rz => {
            if (x > 0.0 && sticky < 0) || (x < 0.0 && sticky > 0) {
                x.next_toward_zero()
            } else {
                x
            }
        }
        FRnd::Rm => {
            if sticky < 0 {
                next_down(x)
            } else {
                x
            }
        }
        FRnd::Rp => {
            if sticky > 0 {
                next_up(x)
            } else {
                x
            }
        }
    };
    r.to_bits()
}

/// The next `f64` toward +inf (finite, non-NaN input; MSRV-safe stand-in for `f64::next_up`).
pub(crate) fn next_up(x: f64) -> f64 {
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

/// The next `f64` toward -inf (finite, non-NaN input).
pub(crate) fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

trait NextTowardZero {
    fn next_toward_zero(self) -> Self;
}

impl NextTowardZero for f64 {
    fn next_toward_zero(self) -> f64 {
        if self > 0.0 {
            next_down(self)
        } else {
            next_up(self)
        }
    }
}

/// Error-free sum: `a + b == s + err` exactly (when `s` is finite).
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    if !s.is_finite() {
        return (s, 0.0);
    }
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

/// Correctly rounded `a + b` of two values exactly representable in `f64`.
pub(crate) fn add_round(a: f64, b: f64, fmt: Fmt, rnd: FRnd) -> u64 {
    let (s, e) = two_sum(a, b);
    round(s, sign_of(e), fmt, rnd, false)
}

/// Correctly rounded `a * b + c` where `a * b` is exact in `f64` (operands of at most 26
/// significant bits: f16, bf16, f32, FP8) and `c` is an `f64`.
pub(crate) fn fma_round(a: f64, b: f64, c: f64, fmt: Fmt, rnd: FRnd) -> u64 {
    let p = a * b;
    let (s, e) = two_sum(p, c);
    round(s, sign_of(e), fmt, rnd, false)
}

/// f32 result bits with NaN canonicalized to PTX's `0x7fffffff`.
pub(crate) fn canon_f32(x: f32) -> u32 {
    if x.is_nan() { 0x7fff_ffff } else { x.to_bits() }
}

/// f64 result bits with NaN canonicalized (see [`Fmt::nan`]).
pub(crate) fn canon_f64(x: f64) -> u64 {
    if x.is_nan() {
        Fmt::F64.nan()
    } else {
        x.to_bits()
    }
}

/// PTX `min`/`max` on floats: a NaN operand is ignored unless both are NaN (then the
/// canonical NaN); `-0.0 < +0.0`. Returns the bits of the chosen operand.
pub(crate) fn min_max(a: f64, ab: u64, b: f64, bb: u64, max: bool, fmt: Fmt) -> u64 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => fmt.nan(),
        (true, false) => bb,
        (false, true) => ab,
        (false, false) => {
            let a_less =
                a < b || (a == 0.0 && b == 0.0 && a.is_sign_negative() && !b.is_sign_negative());
            let b_less =
                b < a || (a == 0.0 && b == 0.0 && b.is_sign_negative() && !a.is_sign_negative());
            if max {
                if a_less { bb } else { ab }
            } else if b_less {
                bb
            } else {
                ab
            }
        }
    }
}

/// OCP FP8 E4M3 ("fn": no infinities, `S.1111.111` is NaN) to `f64`.
pub(crate) fn e4m3_to_f64(b: u8) -> f64 {
    let neg = b & 0x80 != 0;
    let e = ((b >> 3) & 0xf) as i32;
    let m = (b & 7) as f64;
    let v = if e == 15 && b & 7 == 7 {
        return f64::NAN;
    } else if e == 0 {
        m / 8.0 * pow2(-6)
    } else {
        (1.0 + m / 8.0) * pow2(e - 7)
    };
    if neg { -v } else { v }
}

/// OCP FP8 E5M2 (IEEE-like) to `f64`.
pub(crate) fn e5m2_to_f64(b: u8) -> f64 {
    let neg = b & 0x80 != 0;
    let e = ((b >> 2) & 0x1f) as i32;
    let m = (b & 3) as f64;
    let v = if e == 31 {
        if b & 3 == 0 {
            f64::INFINITY
        } else {
            return f64::NAN;
        }
    } else if e == 0 {
        m / 4.0 * pow2(-14)
    } else {
        (1.0 + m / 4.0) * pow2(e - 15)
    };
    if neg { -v } else { v }
}

/// A 65536-entry table of f16 -> f32 (exact), for the hot mma path.
pub(crate) fn f16_table() -> &'static [f32] {
    use std::sync::OnceLock;
    static T: OnceLock<Vec<f32>> = OnceLock::new();
    T.get_or_init(|| {
        (0..=u16::MAX)
            .map(|b| half::f16::from_bits(b).to_f32())
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_rounding_matches_half() {
        // Every f32 in a spread of bit patterns rounds like half's correctly rounded cvt.
        let mut x: u32 = 0x1234_5678;
        for _ in 0..200_000 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let f = f32::from_bits(x);
            if f.is_nan() {
                continue;
            }
            let ours = round(f as f64, 0, Fmt::F16, FRnd::Rn, false) as u16;
            assert_eq!(ours, half::f16::from_f32(f).to_bits(), "{f:e}");
            let ours = round(f as f64, 0, Fmt::Bf16, FRnd::Rn, false) as u16;
            assert_eq!(ours, half::bf16::from_f32(f).to_bits(), "{f:e}");
        }
    }

    #[test]
    fn f64_to_f32_all_modes() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            // Keep exponents in and around the f32 range.
            let e = 1023 - 160 + (x >> 55) as u64 % 320;
            let d = f64::from_bits((x & 0x800f_ffff_ffff_ffff) | (e << 52));
            let rn = round(d, 0, Fmt::F32, FRnd::Rn, false) as u32;
            assert_eq!(rn, (d as f32).to_bits(), "{d:e}");
            let rz = f32::from_bits(round(d, 0, Fmt::F32, FRnd::Rz, false) as u32) as f64;
            let rm = f32::from_bits(round(d, 0, Fmt::F32, FRnd::Rm, false) as u32) as f64;
            let rp = f32::from_bits(round(d, 0, Fmt::F32, FRnd::Rp, false) as u32) as f64;
            assert!(rm <= d && d <= rp, "{d:e} {rm:e} {rp:e}");
            assert!(rz.abs() <= d.abs());
            if (d as f32) as f64 == d {
                assert!(rm == d && rp == d && rz == d);
            } else if rp.is_finite() && rm.is_finite() {
                let r = rm as f32;
                let up = if r == 0.0 {
                    f32::from_bits(1)
                } else if r > 0.0 {
                    f32::from_bits(r.to_bits() + 1)
                } else {
                    f32::from_bits(r.to_bits() - 1)
                };
                assert_eq!((rp as f32).to_bits(), up.to_bits(), "{d:e}");
            }
        }
    }

    #[test]
    fn sticky_breaks_ties_and_directed_edges() {
        // 1 + 2^-11 is a tie between 1 and 1 + 2^-10 in f16.
        let t = 1.0 + pow2(-11);
        assert_eq!(round(t, 0, Fmt::F16, FRnd::Rn, false), 0x3c00);
        assert_eq!(round(t, 1, Fmt::F16, FRnd::Rn, false), 0x3c01);
        assert_eq!(round(t, -1, Fmt::F16, FRnd::Rn, false), 0x3c00);
        // Exactly 1.0 minus a hair, toward zero: the largest f16 below 1.
        assert_eq!(round(1.0, -1, Fmt::F16, FRnd::Rz, false), 0x3bff);
        assert_eq!(round(1.0, 1, Fmt::F16, FRnd::Rp, false), 0x3c01);
        assert_eq!(round(-1.0, 1, Fmt::F16, FRnd::Rp, false), 0xbbff);
        // Overflow.
        assert_eq!(round(1e6, 0, Fmt::F16, FRnd::Rn, false), 0x7c00);
        assert_eq!(round(1e6, 0, Fmt::F16, FRnd::Rz, false), 0x7bff);
        assert_eq!(round(-1e6, 0, Fmt::F16, FRnd::Rp, false), 0xfbff);
        assert_eq!(round(-1e6, 0, Fmt::F16, FRnd::Rm, false), 0xfc00);
        // Subnormals.
        assert_eq!(round(pow2(-24), 0, Fmt::F16, FRnd::Rn, false), 1);
        assert_eq!(round(pow2(-25), 0, Fmt::F16, FRnd::Rn, false), 0);
        assert_eq!(round(pow2(-25), 1, Fmt::F16, FRnd::Rn, false), 1);
    }

    #[test]
    fn fp8_codecs_round_trip() {
        for b in 0..=255u8 {
            let v = e4m3_to_f64(b);
            if v.is_nan() {
                assert_eq!(b & 0x7f, 0x7f);
                continue;
            }
            let back = round(v, 0, Fmt::E4m3, FRnd::Rn, true) as u8;
            assert_eq!(back, b, "e4m3 {b:#x} {v}");
        }
        for b in 0..=255u8 {
            let v = e5m2_to_f64(b);
            if v.is_nan() {
                continue;
            }
            let back = round(v, 0, Fmt::E5m2, FRnd::Rn, false) as u8;
            assert_eq!(back, b, "e5m2 {b:#x} {v}");
        }
        assert_eq!(e4m3_to_f64(0x7e), 448.0);
        assert_eq!(e5m2_to_f64(0x7b), 57344.0);
        assert_eq!(round(1000.0, 0, Fmt::E4m3, FRnd::Rn, true), 0x7e);
        assert_eq!(round(-1e9, 0, Fmt::E5m2, FRnd::Rn, true), 0xfb);
        assert_eq!(round(f64::INFINITY, 0, Fmt::E4m3, FRnd::Rn, true), 0x7e);
        // 464 is the tie between 448 and (unrepresentable) 480: satfinite keeps 448.
        assert_eq!(round(464.0, 0, Fmt::E4m3, FRnd::Rn, true), 0x7e);
    }
}
