//! [`QuantConfig`]: what a weight quantization produces.

use super::QuantError;
use crate::{FloatFormat, ScaleFormat, ScaleGroup, WeightFormat, ZeroPoint};

/// How to quantize a weight matrix: element format, scale format and grouping, zero points,
/// global scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QuantConfig {
    pub weight: WeightFormat,
    pub scale: ScaleFormat,
    pub group: ScaleGroup,
    pub zero_point: ZeroPoint,
    /// An extra per-tensor `f32` scale multiplying every block scale (NVFP4).
    pub global_scale: bool,
}

impl QuantConfig {
    /// Symmetric (implicit zero point) quantization without a global scale.
    pub fn new(weight: WeightFormat, scale: ScaleFormat, group: ScaleGroup) -> Self {
        QuantConfig {
            weight,
            scale,
            group,
            zero_point: ZeroPoint::Implicit,
            global_scale: false,
        }
    }

    /// The same config with the given zero-point handling.
    pub fn with_zero_point(self, zero_point: ZeroPoint) -> Self {
        QuantConfig { zero_point, ..self }
    }

    /// The same config with or without a global scale.
    pub fn with_global_scale(self, global_scale: bool) -> Self {
        QuantConfig {
            global_scale,
            ..self
        }
    }

    /// OCP MXFP4: e2m1 elements, one ue8m0 (power-of-two) scale per 32 elements.
    pub fn mxfp4() -> Self {
        QuantConfig::new(
            WeightFormat::Float(FloatFormat::E2M1),
            ScaleFormat::Ue8m0,
            ScaleGroup::Group(32),
        )
    }

    /// NVFP4: e2m1 elements, one e4m3 scale per 16 elements, one f32 global scale.
    pub fn nvfp4() -> Self {
        QuantConfig::new(
            WeightFormat::Float(FloatFormat::E2M1),
            ScaleFormat::E4m3,
            ScaleGroup::Group(16),
        )
        .with_global_scale(true)
    }

    /// Checks what a quantization needs: a valid weight width, a group that is a power of two
    /// >= 16, a dynamic zero point only for unsigned weights, no global scale over ue8m0.
    pub fn validate(&self) -> Result<(), QuantError> {
        check_weight_format(self.weight)?;
        check_group(self.group)?;
        if self.zero_point == ZeroPoint::Dynamic && !matches!(self.weight, WeightFormat::UInt(_)) {
            return Err(QuantError::DynamicZeroPoint(self.weight));
        }
        if self.global_scale && self.scale == ScaleFormat::Ue8m0 {
            return Err(QuantError::GlobalScale(self.scale));
        }
        Ok(())
    }
}

/// Integer widths within the format's range (the enum's fields are public, so a
/// `WeightFormat::UInt(0)` can be built without the checked constructors).
pub(crate) fn check_weight_format(w: WeightFormat) -> Result<(), QuantError> {
    let checked = match w {
        WeightFormat::UInt(b) => WeightFormat::uint(b),
        WeightFormat::SInt(b) => WeightFormat::sint(b),
        WeightFormat::Float(_) => Ok(w),
    };
    checked
        .map(|_| ())
        .map_err(|e| QuantError::invalid("weight format", e.to_string()))
}

/// `Group(G)` needs `G` a power of two >= 16.
pub(crate) fn check_group(group: ScaleGroup) -> Result<(), QuantError> {
    match group {
        ScaleGroup::Group(g) if g < 16 || !g.is_power_of_two() => Err(QuantError::GroupSize(g)),
        _ => Ok(()),
    }
}
