//! [`Scalar`]: the one exact codec behind every format role.

use super::FloatFormat;

/// An element format with an exact codec between codes and `f32` values.
///
/// Codes are the format's bit pattern in the low `bits()` bits of a `u32`
/// (two's complement for `SInt`, IEEE binary16 for `F16`, ...).
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
}
