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
    pub fn new(exp: u8, man: u8) -> Result<Self, FormatError> {
        if exp >= 1 && 1 + exp as u32 + man as u32 <= 8 {
            Ok(FloatFormat { exp, man })
        } else {
            Err(FormatError::FloatLayout { exp, man })
        }
    }

    /// Every valid layout, ordered by (bits, E).
    pub fn all() -> Vec<FloatFormat> {
        let mut v = Vec::new();
        for bits in 2..=8u8 {
            for exp in 1..bits {
                v.push(FloatFormat { exp, man: bits - 1 - exp });
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
