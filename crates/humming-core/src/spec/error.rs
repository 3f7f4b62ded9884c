//! [`SpecError`] (one variant per rule), [`SpecField`] (the argument to blame) and
//! [`SpecErrors`] (every violation of one spec). The messages are in `message.rs`.

use super::SpecParts;
use super::rules::act_float_layout;
use crate::{ActFormat, Arch, FloatFormat, OutFormat, ScaleFormat, WeightFormat, ZeroPoint};
use std::fmt;

/// The spec argument a [`SpecError`] blames, so that a macro can point its error at it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SpecField {
    Weight,
    Act,
    Scale,
    Group,
    ZeroPoint,
    GlobalScale,
    Out,
    Arch,
}

impl SpecField {
    /// Every field, in [`super::SpecParts`] order.
    pub const ALL: [SpecField; 8] = [
        SpecField::Weight,
        SpecField::Act,
        SpecField::Scale,
        SpecField::Group,
        SpecField::ZeroPoint,
        SpecField::GlobalScale,
        SpecField::Out,
        SpecField::Arch,
    ];

    /// The argument's name as written in a spec: `weight`, `act`, `scale`, `group`,
    /// `zero_point`, `global_scale`, `out`, `arch`.
    pub fn name(self) -> &'static str {
        match self {
            SpecField::Weight => "weight",
            SpecField::Act => "act",
            SpecField::Scale => "scale",
            SpecField::Group => "group",
            SpecField::ZeroPoint => "zero_point",
            SpecField::GlobalScale => "global_scale",
            SpecField::Out => "out",
            SpecField::Arch => "arch",
        }
    }
}

impl fmt::Display for SpecField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One violated spec rule, with the offending values. The rule table is in the
/// [module docs](super); `Display` says what is wrong, why, and what would be valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecError {
    /// Rule 0: an integer weight width outside `u1..=u8` / `i2..=i8`.
    WeightWidth { weight: WeightFormat },
    /// Rule 1: `Group(group)` is not a power of two in `16..=1024`.
    GroupSize { group: u32 },
    /// Rule 1: `Group(group)` is shorter than the mma k-step `min` of quantized activations.
    GroupTooSmallForAct {
        group: u32,
        act: ActFormat,
        min: u32,
    },
    /// Rule 2: the activation type has no mma before `min`.
    ActNeedsArch {
        act: ActFormat,
        arch: Arch,
        min: Arch,
    },
    /// Rule 2: the scale type has no native conversions before `min`.
    ScaleNeedsArch {
        scale: ScaleFormat,
        arch: Arch,
        min: Arch,
    },
    /// Rule 2: the output type has no native conversions before `min`.
    OutNeedsArch {
        out: OutFormat,
        arch: Arch,
        min: Arch,
    },
    /// Rule 3: a dynamic zero point on a signed or float weight.
    DynamicZeroPointNeedsUInt { weight: WeightFormat },
    /// Rule 4: a float weight with integer activations.
    FloatWeightWithIntAct { weight: FloatFormat, act: ActFormat },
    /// Rules 4, 5: integer weight values `[lo, hi]` exceed the integers `[act_lo, act_hi]` that
    /// the activation type holds exactly.
    WeightRangeExceedsAct {
        weight: WeightFormat,
        zero_point: ZeroPoint,
        act: ActFormat,
        lo: i32,
        hi: i32,
        act_lo: i32,
        act_hi: i32,
    },
    /// Rules 4, 5: as [`SpecError::WeightRangeExceedsAct`], but only because the dynamic zero
    /// point widens `(code - zero)` to `[lo, hi]`; the implicit zero point would fit.
    ZeroPointRangeExceedsAct {
        weight: WeightFormat,
        act: ActFormat,
        lo: i32,
        hi: i32,
        act_lo: i32,
        act_hi: i32,
    },
    /// Rules 5, 6: a float weight whose exponent or mantissa is wider than the float activation's.
    FloatWeightExceedsAct { weight: FloatFormat, act: ActFormat },
    /// Rule 7: ue8m0 scales with activations that apply scales in f16.
    Ue8m0ScaleNeedsWideAct { act: ActFormat },
    /// Rule 9: a global scale over ue8m0 (MX) block scales.
    GlobalScaleWithUe8m0,
    /// Rule 7: a 16-bit scale of the other 16-bit type than the 16-bit activation
    /// (f16 scales with bf16 activations or the reverse).
    ScaleMixes16Bit { scale: ScaleFormat, act: ActFormat },
}

impl SpecError {
    /// The spec argument to blame.
    pub fn field(&self) -> SpecField {
        match self {
            SpecError::WeightWidth { .. }
            | SpecError::FloatWeightWithIntAct { .. }
            | SpecError::WeightRangeExceedsAct { .. }
            | SpecError::FloatWeightExceedsAct { .. } => SpecField::Weight,
            SpecError::GroupSize { .. } | SpecError::GroupTooSmallForAct { .. } => SpecField::Group,
            SpecError::ActNeedsArch { .. } => SpecField::Act,
            SpecError::ScaleNeedsArch { .. }
            | SpecError::Ue8m0ScaleNeedsWideAct { .. }
            | SpecError::ScaleMixes16Bit { .. } => {
                SpecField::Scale
            }
            SpecError::OutNeedsArch { .. } => SpecField::Out,
            SpecError::GlobalScaleWithUe8m0 => SpecField::GlobalScale,
            SpecError::DynamicZeroPointNeedsUInt { .. }
            | SpecError::ZeroPointRangeExceedsAct { .. } => SpecField::ZeroPoint,
        }
    }

    /// The rule number in the module's table.
    pub fn rule(&self) -> u8 {
        match self {
            SpecError::WeightWidth { .. } => 0,
            SpecError::GroupSize { .. } | SpecError::GroupTooSmallForAct { .. } => 1,
            SpecError::ActNeedsArch { .. }
            | SpecError::ScaleNeedsArch { .. }
            | SpecError::OutNeedsArch { .. } => 2,
            SpecError::DynamicZeroPointNeedsUInt { .. } => 3,
            SpecError::FloatWeightWithIntAct { .. } => 4,
            SpecError::WeightRangeExceedsAct { act, .. }
            | SpecError::ZeroPointRangeExceedsAct { act, .. } => {
                if act_float_layout(*act).is_some() {
                    5
                } else {
                    4
                }
            }
            SpecError::FloatWeightExceedsAct { act, .. } => {
                if act.is_quantized() {
                    5
                } else {
                    6
                }
            }
            SpecError::Ue8m0ScaleNeedsWideAct { .. } | SpecError::ScaleMixes16Bit { .. } => 7,
            SpecError::GlobalScaleWithUe8m0 => 9,
        }
    }
}

impl std::error::Error for SpecError {}

/// Every rule a [`SpecParts`] violates (never empty), returned by [`super::Spec::new`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecErrors {
    parts: SpecParts,
    errors: Vec<SpecError>,
}

impl SpecErrors {
    /// `None` when `errors` is empty.
    pub(super) fn new(parts: SpecParts, errors: Vec<SpecError>) -> Option<SpecErrors> {
        (!errors.is_empty()).then_some(SpecErrors { parts, errors })
    }

    /// The rejected parts.
    pub fn parts(&self) -> &SpecParts {
        &self.parts
    }

    /// Every violation, in rule order; never empty.
    pub fn errors(&self) -> &[SpecError] {
        &self.errors
    }

    /// The first violation.
    pub fn first(&self) -> &SpecError {
        &self.errors[0]
    }

    /// Iterates the violations.
    pub fn iter(&self) -> std::slice::Iter<'_, SpecError> {
        self.errors.iter()
    }

    /// The blamed fields, sorted, without repeats.
    pub fn fields(&self) -> Vec<SpecField> {
        let mut v: Vec<_> = self.errors.iter().map(SpecError::field).collect();
        v.sort();
        v.dedup();
        v
    }

    /// The violations.
    pub fn into_vec(self) -> Vec<SpecError> {
        self.errors
    }
}

impl<'a> IntoIterator for &'a SpecErrors {
    type Item = &'a SpecError;
    type IntoIter = std::slice::Iter<'a, SpecError>;
    fn into_iter(self) -> Self::IntoIter {
        self.errors.iter()
    }
}

impl IntoIterator for SpecErrors {
    type Item = SpecError;
    type IntoIter = std::vec::IntoIter<SpecError>;
    fn into_iter(self) -> Self::IntoIter {
        self.errors.into_iter()
    }
}

impl fmt::Display for SpecErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid spec {}: ", self.parts.id())?;
        match self.errors.as_slice() {
            [one] => write!(f, "{}: {one}", one.field()),
            many => {
                write!(f, "{} problems", many.len())?;
                for e in many {
                    write!(f, "\n  - {}: {e}", e.field())?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for SpecErrors {}
