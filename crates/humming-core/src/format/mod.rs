//! The quantization vocabulary: element formats of weights, activations, scales and outputs.
//!
//! Every format knows its bit width, range and exact value set. [`Scalar`] is the one codec
//! shared by all of them: [`WeightFormat`], [`ActFormat`], [`ScaleFormat`] and [`OutFormat`]
//! each name a role and map onto a `Scalar` with `.scalar()`.

mod float;
mod scalar;

pub use float::{FloatFormat, FloatSpecials};
pub use scalar::Scalar;

use std::fmt;

/// Errors constructing or parsing a format.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    /// Integer width outside what the role allows.
    #[error("integer width {bits} is out of range {min}..={max}")]
    IntWidth { bits: u8, min: u8, max: u8 },
    /// Float layout outside `e{E}m{M}` with `E >= 1` and `1 + E + M <= 8`.
    #[error("float format e{exp}m{man} is invalid: need E >= 1 and 1 + E + M <= 8")]
    FloatLayout { exp: u8, man: u8 },
    /// A name that no format has.
    #[error("unknown {role} format `{name}`; valid: {valid}")]
    Unknown { role: &'static str, name: String, valid: &'static str },
}

/// Format of the stored weight codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WeightFormat {
    /// Unsigned integer of 1..=8 bits. Its zero point is implicit (`2^(bits-1)`) unless the
    /// spec gives per-group dynamic zero points.
    UInt(u8),
    /// Two's-complement signed integer of 2..=8 bits.
    SInt(u8),
    /// Signed minifloat `e{E}m{M}`.
    Float(FloatFormat),
}

/// Format of the activations (the A operand).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActFormat {
    F16,
    Bf16,
    E4m3,
    E5m2,
    Int8,
    Int4,
}

/// Format of the stored scales.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScaleFormat {
    F16,
    Bf16,
    E4m3,
    E5m2,
    /// Unsigned power of two `2^(e-127)`, the OCP MX shared scale; `0xFF` is NaN.
    Ue8m0,
}

/// Format of the GEMM output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutFormat {
    F16,
    Bf16,
}

impl WeightFormat {
    /// Width of one stored code in bits.
    pub fn bits(self) -> u8 {
        self.scalar().bits()
    }

    /// The codec of the raw code (no zero point, no scale).
    pub fn scalar(self) -> Scalar {
        match self {
            WeightFormat::UInt(b) => Scalar::UInt(b),
            WeightFormat::SInt(b) => Scalar::SInt(b),
            WeightFormat::Float(f) => Scalar::Float(f),
        }
    }

    /// Checked constructor for unsigned integers (1..=8 bits).
    pub fn uint(bits: u8) -> Result<Self, FormatError> {
        if (1..=8).contains(&bits) {
            Ok(WeightFormat::UInt(bits))
        } else {
            Err(FormatError::IntWidth { bits, min: 1, max: 8 })
        }
    }

    /// Checked constructor for signed integers (2..=8 bits).
    pub fn sint(bits: u8) -> Result<Self, FormatError> {
        if (2..=8).contains(&bits) {
            Ok(WeightFormat::SInt(bits))
        } else {
            Err(FormatError::IntWidth { bits, min: 2, max: 8 })
        }
    }

    /// Every weight format the library defines: uint1..8, int2..8, every e{E}m{M}.
    pub fn all() -> Vec<WeightFormat> {
        let mut v: Vec<_> = (1..=8).map(WeightFormat::UInt).collect();
        v.extend((2..=8).map(WeightFormat::SInt));
        v.extend(FloatFormat::all().into_iter().map(WeightFormat::Float));
        v
    }

    /// The implicit zero point of an unsigned format without dynamic zero points (`2^(bits-1)`),
    /// `None` for signed and float formats.
    pub fn implicit_zero_point(self) -> Option<u32> {
        match self {
            WeightFormat::UInt(b) => Some(1 << (b - 1)),
            _ => None,
        }
    }

    /// Parses `u4`, `uint4`, `i8`, `int8`, `e2m1`, `fp4`, `fp8_e4m3`, `e4m3`, `fp6_e3m2`, ...
    pub fn parse(s: &str) -> Result<Self, FormatError> {
        let t = s.trim().to_ascii_lowercase();
        let unknown = || FormatError::Unknown {
            role: "weight",
            name: s.to_string(),
            valid: "u1..u8 (uint1..uint8), i2..i8 (int2..int8), e{E}m{M} with E>=1 and 1+E+M<=8, fp4, fp8_e4m3, fp8_e5m2, fp6_e3m2, fp6_e2m3",
        };
        if let Some(n) = t.strip_prefix("uint").or_else(|| t.strip_prefix('u')) {
            let b: u8 = n.parse().map_err(|_| unknown())?;
            return WeightFormat::uint(b);
        }
        if let Some(n) = t.strip_prefix("int").or_else(|| t.strip_prefix('i')) {
            let b: u8 = n.parse().map_err(|_| unknown())?;
            return WeightFormat::sint(b);
        }
        if t == "fp4" || t == "nvfp4" || t == "mxfp4" {
            return Ok(WeightFormat::Float(FloatFormat::E2M1));
        }
        let body = t
            .strip_prefix("fp8_")
            .or_else(|| t.strip_prefix("fp6_"))
            .or_else(|| t.strip_prefix("fp4_"))
            .unwrap_or(&t);
        FloatFormat::parse(body).map(WeightFormat::Float).map_err(|e| match e {
            FormatError::Unknown { .. } => unknown(),
            other => other,
        })
    }
}

impl fmt::Display for WeightFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightFormat::UInt(b) => write!(f, "u{b}"),
            WeightFormat::SInt(b) => write!(f, "i{b}"),
            WeightFormat::Float(x) => write!(f, "{x}"),
        }
    }
}

macro_rules! named_enum {
    ($ty:ident, $role:literal, [$(($var:ident, $name:literal, [$($alias:literal),*])),* $(,)?]) => {
        impl $ty {
            /// Every variant.
            pub const ALL: &'static [$ty] = &[$($ty::$var),*];

            /// Canonical lower-case name.
            pub fn name(self) -> &'static str {
                match self { $($ty::$var => $name),* }
            }

            /// Parses the canonical name or an alias (case-insensitive).
            pub fn parse(s: &str) -> Result<Self, FormatError> {
                let t = s.trim().to_ascii_lowercase();
                $( if t == $name $(|| t == $alias)* { return Ok($ty::$var); } )*
                Err(FormatError::Unknown {
                    role: $role,
                    name: s.to_string(),
                    valid: concat!($($name, " "),*),
                })
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

named_enum!(ActFormat, "activation", [
    (F16, "f16", ["fp16", "half", "float16"]),
    (Bf16, "bf16", ["bfloat16"]),
    (E4m3, "e4m3", ["fp8_e4m3", "fp8", "float8_e4m3fn"]),
    (E5m2, "e5m2", ["fp8_e5m2", "float8_e5m2"]),
    (Int8, "i8", ["int8", "s8"]),
    (Int4, "i4", ["int4", "s4"]),
]);

named_enum!(ScaleFormat, "scale", [
    (F16, "f16", ["fp16", "half", "float16"]),
    (Bf16, "bf16", ["bfloat16"]),
    (E4m3, "e4m3", ["fp8_e4m3", "float8_e4m3fn"]),
    (E5m2, "e5m2", ["fp8_e5m2", "float8_e5m2"]),
    (Ue8m0, "ue8m0", ["e8m0", "float8_e8m0fnu"]),
]);

named_enum!(OutFormat, "output", [
    (F16, "f16", ["fp16", "half", "float16"]),
    (Bf16, "bf16", ["bfloat16"]),
]);

impl ActFormat {
    /// The activation codec.
    pub fn scalar(self) -> Scalar {
        match self {
            ActFormat::F16 => Scalar::F16,
            ActFormat::Bf16 => Scalar::Bf16,
            ActFormat::E4m3 => Scalar::Float(FloatFormat::E4M3),
            ActFormat::E5m2 => Scalar::Float(FloatFormat::E5M2),
            ActFormat::Int8 => Scalar::SInt(8),
            ActFormat::Int4 => Scalar::SInt(4),
        }
    }

    /// Width in bits.
    pub fn bits(self) -> u8 {
        self.scalar().bits()
    }

    /// 16-bit float activations (no activation scales needed).
    pub fn is_16bit_float(self) -> bool {
        matches!(self, ActFormat::F16 | ActFormat::Bf16)
    }

    /// Quantized activations, which carry per-token (or per-group) f32 scales.
    pub fn is_quantized(self) -> bool {
        !self.is_16bit_float()
    }
}

impl ScaleFormat {
    /// The scale codec.
    pub fn scalar(self) -> Scalar {
        match self {
            ScaleFormat::F16 => Scalar::F16,
            ScaleFormat::Bf16 => Scalar::Bf16,
            ScaleFormat::E4m3 => Scalar::Float(FloatFormat::E4M3),
            ScaleFormat::E5m2 => Scalar::Float(FloatFormat::E5M2),
            ScaleFormat::Ue8m0 => Scalar::Ue8m0,
        }
    }

    /// Width in bits.
    pub fn bits(self) -> u8 {
        self.scalar().bits()
    }
}

impl OutFormat {
    /// The output codec.
    pub fn scalar(self) -> Scalar {
        match self {
            OutFormat::F16 => Scalar::F16,
            OutFormat::Bf16 => Scalar::Bf16,
        }
    }
}
