//! [`Scalar`]: the one exact codec behind every format role.
//!
//! The rounding, saturation and special-value policy of every format is documented on
//! [`Scalar`].

use super::FloatFormat;
use super::float::{exp2, floor_log2, grid_step};
use half::{bf16, f16};

/// An element format with an exact codec between codes and `f32` values.
///
/// # Codes
///
/// A code is the format's bit pattern in the low `bits()` bits of a `u32`; [`Scalar::decode`]
/// ignores any higher bits. `UInt(b)`: the value itself. `SInt(b)`: `b`-bit two's complement
/// (`SInt(4)` code `0xF` is `-1`). `Float`: sign, exponent, mantissa ([`FloatFormat`]).
/// `F16`/`Bf16`: the IEEE binary16 / bfloat16 bits. `Ue8m0`: `2^(code - 127)`, `0xFF` is NaN.
///
/// # Decoding
///
/// [`Scalar::decode`] is exact: every value of every format is an `f32` (integer formats up to
/// 24 bits; the library's integer formats have at most 8).
///
/// # Encoding policy ([`Scalar::encode`])
///
/// * **Rounding**: to nearest, ties to even. Integers: ties to the even integer. Floats: ties to
///   the code whose mantissa LSB is 0, which is the even code, correctly across the
///   subnormal/normal boundary and exponent steps (a carry out of the mantissa is the next
///   binade's first code). Formats without mantissa bits (`e{E}m0`, `Ue8m0`) round by value
///   (the midpoint of `2^e` and `2^(e+1)` is `1.5 * 2^e`) with ties to the even code.
/// * **Saturation**: finite values beyond the range saturate to `±max_finite` (integers clamp
///   to `[min_finite, max_finite]`); this includes values that IEEE rounding would send to
///   infinity (e5m2 above 57344, f16 above 65504, bf16 above its max).
/// * **Infinities**: `±inf` encodes to `±inf` in the formats that have infinities (e5m2, f16,
///   bf16), so that every non-NaN code round-trips, and saturates to `±max_finite` (integers:
///   clamps) elsewhere.
/// * **NaN** encodes to the canonical NaN code where the format has one: e4m3 `0x7F`, e5m2 `0x7E`
///   (positive quiet NaN), f16 `0x7E00`, bf16 `0x7FC0`, ue8m0 `0xFF`; and to code 0 (`+0`) in
///   formats without NaN (integers and the all-finite minifloats). The codec never fails:
///   **quantizers must reject non-finite input themselves**.
/// * **Signed zero**: `-0.0` (and negative values that round to zero) encodes to the
///   negative-zero code of the signed floats, to 0 for integers.
/// * **Ue8m0** (unsigned, no zero): `x <= 2^-127` (including 0, negatives and `-inf`) encodes
///   to code 0 (`2^-127`), `x >= 2^127` (including `+inf`) to 254 (`2^127`, saturation),
///   NaN to `0xFF`; in between to the nearest power of two by value as above.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// Unsigned integer code `0..2^b`, value = code.
    UInt(u8),
    /// Two's-complement integer, value in `-2^(b-1)..2^(b-1)`.
    SInt(u8),
    /// Signed minifloat.
    Float(FloatFormat),
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// Unsigned power of two `2^(code-127)`; code `0xFF` is NaN.
    Ue8m0,
}

/// Canonical f16 NaN (positive quiet NaN).
const F16_NAN: u32 = 0x7E00;
/// Canonical bf16 NaN (positive quiet NaN).
const BF16_NAN: u32 = 0x7FC0;
/// The Ue8m0 NaN code.
const UE8M0_NAN: u32 = 0xFF;

impl Scalar {
    /// Width of a code in bits.
    pub fn bits(self) -> u8 {
        match self {
            Scalar::UInt(b) | Scalar::SInt(b) => b,
            Scalar::Float(f) => f.bits(),
            Scalar::F16 | Scalar::Bf16 => 16,
            Scalar::Ue8m0 => 8,
        }
    }

    /// Explicit mantissa bits of a float format (f16 10, bf16 7, `e{E}m{M}` M); 0 for integers and
    /// `Ue8m0`.
    pub fn mantissa_bits(self) -> u8 {
        match self {
            Scalar::Float(f) => f.man_bits(),
            Scalar::F16 => 10,
            Scalar::Bf16 => 7,
            Scalar::UInt(_) | Scalar::SInt(_) | Scalar::Ue8m0 => 0,
        }
    }

    /// Whether this is a floating-point format (everything but `UInt` and `SInt`;
    /// `Ue8m0` counts as a float with no mantissa).
    pub fn is_float(self) -> bool {
        !matches!(self, Scalar::UInt(_) | Scalar::SInt(_))
    }

    /// Every code `0..2^bits`, in order. Panics for formats wider than 16 bits.
    pub fn codes(self) -> impl ExactSizeIterator<Item = u32> + DoubleEndedIterator + Clone {
        assert!(self.bits() <= 16, "{self:?}: too many codes to enumerate");
        0..1u32 << self.bits()
    }

    /// Mask of the low `bits()` bits.
    fn mask(self) -> u32 {
        (1u64 << self.bits()).wrapping_sub(1) as u32
    }

    /// The largest finite value (uint: `2^b - 1`, int: `2^(b-1) - 1`, f16: 65504,
    /// ue8m0: `2^127`).
    pub fn max_finite(self) -> f32 {
        match self {
            Scalar::UInt(b) => (exp2(i32::from(b)) - 1.0) as f32,
            Scalar::SInt(b) => (exp2(i32::from(b) - 1) - 1.0) as f32,
            Scalar::Float(f) => f.max_finite(),
            Scalar::F16 => f16::MAX.to_f32(),
            Scalar::Bf16 => bf16::MAX.to_f32(),
            Scalar::Ue8m0 => exp2(127) as f32,
        }
    }

    /// The smallest finite value: the most negative one for signed formats, 0 for `UInt`,
    /// `2^-127` for `Ue8m0` (which has no zero).
    pub fn min_finite(self) -> f32 {
        match self {
            Scalar::UInt(_) => 0.0,
            Scalar::SInt(b) => -exp2(i32::from(b) - 1) as f32,
            Scalar::Float(_) | Scalar::F16 | Scalar::Bf16 => -self.max_finite(),
            Scalar::Ue8m0 => exp2(-127) as f32,
        }
    }

    /// Whether `code` (low `bits()` bits) is a NaN.
    pub fn is_nan_code(self, code: u32) -> bool {
        let code = code & self.mask();
        match self {
            Scalar::UInt(_) | Scalar::SInt(_) => false,
            Scalar::Float(f) => f.is_nan_code(code as u8),
            Scalar::F16 => f16::from_bits(code as u16).is_nan(),
            Scalar::Bf16 => bf16::from_bits(code as u16).is_nan(),
            Scalar::Ue8m0 => code == UE8M0_NAN,
        }
    }

    /// Exact value of `code` (low `bits()` bits; higher bits ignored).
    pub fn decode(self, code: u32) -> f32 {
        let code = code & self.mask();
        match self {
            Scalar::UInt(_) => code as f32,
            Scalar::SInt(b) => {
                let half = 1i64 << (b - 1);
                (((i64::from(code) + half) & i64::from(self.mask())) - half) as f32
            }
            Scalar::Float(f) => f.decode(code as u8),
            Scalar::F16 => f16::from_bits(code as u16).to_f32(),
            Scalar::Bf16 => bf16::from_bits(code as u16).to_f32(),
            Scalar::Ue8m0 if code == UE8M0_NAN => f32::NAN,
            Scalar::Ue8m0 => exp2(code as i32 - 127) as f32,
        }
    }

    /// Nearest code to `x` under the rounding, saturation and special-value policy of [`Scalar`].
    pub fn encode(self, x: f32) -> u32 {
        match self {
            Scalar::UInt(_) | Scalar::SInt(_) => {
                if x.is_nan() {
                    return 0;
                }
                let (lo, hi) = (f64::from(self.min_finite()), f64::from(self.max_finite()));
                let v = f64::from(x).clamp(lo, hi).round_ties_even() as i64;
                v as u32 & self.mask()
            }
            Scalar::Float(f) => u32::from(f.encode(x)),
            Scalar::F16 if x.is_nan() => F16_NAN,
            Scalar::Bf16 if x.is_nan() => BF16_NAN,
            // half rounds to nearest even but overflows to inf: clamp finite values first.
            Scalar::F16 => f16::from_f32(self.saturate(x)).to_bits().into(),
            Scalar::Bf16 => bf16::from_f32(self.saturate(x)).to_bits().into(),
            Scalar::Ue8m0 => encode_ue8m0(x),
        }
    }

    /// Clamps a finite `x` to `[min_finite, max_finite]`; leaves infinities alone.
    fn saturate(self, x: f32) -> f32 {
        if x.is_finite() {
            x.clamp(self.min_finite(), self.max_finite())
        } else {
            x
        }
    }

    /// Distance between the two adjacent representable values that bracket `|x|` (the lower
    /// one included), so that for `|x|` in range the round-to-nearest error is at most half of
    /// it. Beyond `max_finite` (and for infinities): the last gap below `max_finite`.
    ///
    /// Integers: always 1. `Ue8m0`: `2^e` for `|x|` in `[2^e, 2^(e+1))`, and `2^-127` below
    /// `2^-127` (the gap from 0 to the smallest code; there the encoding saturates and the
    /// error is bounded by the step, not half of it). NaN for NaN.
    pub fn step_at(self, x: f32) -> f32 {
        let a = f64::from(x.abs());
        let beyond = !x.is_nan() && a >= f64::from(self.max_finite());
        match self {
            _ if x.is_nan() => f32::NAN,
            Scalar::UInt(_) | Scalar::SInt(_) => 1.0,
            Scalar::Float(f) => f.step_at(x),
            Scalar::F16 if beyond => exp2(15 - 10) as f32,
            Scalar::F16 => grid_step(a, 10, -14),
            Scalar::Bf16 if beyond => exp2(127 - 7) as f32,
            Scalar::Bf16 => grid_step(a, 7, -126),
            Scalar::Ue8m0 if beyond => exp2(126) as f32,
            Scalar::Ue8m0 => grid_step(a, 0, -127),
        }
    }
}

/// Ue8m0 encoding: nearest power of two by value, ties to the even code, saturating.
fn encode_ue8m0(x: f32) -> u32 {
    if x.is_nan() {
        return UE8M0_NAN;
    }
    let x = f64::from(x);
    if x <= exp2(-127) {
        return 0;
    }
    if x >= exp2(127) {
        return 254;
    }
    let e = floor_log2(x); // -127..=126
    let r = x * exp2(-e); // in [1, 2), exact
    let code = (e + 127) as u32;
    let up = r > 1.5 || (r == 1.5 && code % 2 == 1);
    code + u32::from(up)
}
