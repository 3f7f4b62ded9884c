//! [`QuantizedWeights`]: logical codes, scales, zero points and global scale of `W[N, K]`.

use super::config::{check_group, check_weight_format};
use super::{QuantError, check_shape};
use crate::{ScaleFormat, ScaleGroup, WeightFormat};

/// A quantized weight matrix `W[N, K]` in logical (unpacked, row-major) form.
///
/// Element `(n, k)` dequantizes to `(value(codes[n*K + k]) - zero) * scale(n, g) * global`
/// with `g = group_of(k)`, where `zero` is the dynamic zero point of `(n, g)`, or the implicit
/// `2^(b-1)` for `UInt(b)` without dynamic zero points, or 0 (signed and float formats), and
/// `global` is the global scale or 1.
///
/// The fields are public so that checkpoints can be loaded and tests can corrupt them; every
/// consumer calls [`QuantizedWeights::validate`] first.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantizedWeights {
    /// Rows (output channels).
    pub n: usize,
    /// Columns (the reduction dimension).
    pub k: usize,
    pub format: WeightFormat,
    pub scale_format: ScaleFormat,
    pub group: ScaleGroup,
    /// One code per element, row-major `[n, k]`, in the low `format.bits()` bits.
    pub codes: Vec<u8>,
    /// Scale codes in `scale_format`, row-major `[n, groups_along_k]`.
    pub scales: Vec<u32>,
    /// Dynamic zero points (unsigned codes of the weight width), same shape as `scales`.
    pub zero_points: Option<Vec<u8>>,
    /// Per-tensor scale multiplying every block scale.
    pub global_scale: Option<f32>,
}

impl QuantizedWeights {
    /// Number of scale groups along K.
    pub fn groups_along_k(&self) -> usize {
        self.group.groups_along_k(self.k)
    }

    /// Length of a scale group along K (the last one may be partial).
    pub fn group_len(&self) -> usize {
        self.group.len(self.k)
    }

    /// The scale group of column `k`.
    pub fn group_of(&self, k: usize) -> usize {
        k / self.group_len()
    }

    /// Value of the block scale of row `n`, group `g` (without the global scale).
    pub fn scale(&self, n: usize, g: usize) -> f32 {
        let code = self.scales[n * self.groups_along_k() + g];
        self.scale_format.scalar().decode(code)
    }

    /// The value subtracted from the decoded codes of row `n`, group `g`: the dynamic zero
    /// point, the implicit `2^(b-1)` of unsigned formats, or 0.
    pub fn zero(&self, n: usize, g: usize) -> f32 {
        match (&self.zero_points, self.format.implicit_zero_point()) {
            (Some(z), _) => f32::from(z[n * self.groups_along_k() + g]),
            (None, Some(z)) => z as f32,
            (None, None) => 0.0,
        }
    }

    /// The global scale, 1 when there is none.
    pub fn global(&self) -> f32 {
        self.global_scale.unwrap_or(1.0)
    }

    /// Checks every invariant: nonzero shape, valid format widths and group, buffer lengths,
    /// codes that fit their widths, finite weight codes (no NaN/inf codes of e4m3/e5m2),
    /// finite scales, zero points only for unsigned weights, a finite global scale.
    ///
    /// Scales are not required to be positive: a zero or negative scale still dequantizes to
    /// a well-defined value (the quantizer itself only produces positive scales).
    pub fn validate(&self) -> Result<(), QuantError> {
        check_weight_format(self.format)?;
        check_group(self.group)?;
        check_shape("weight codes", self.codes.len(), self.n, self.k)?;
        let groups = self.groups_along_k();
        check_shape("weight scales", self.scales.len(), self.n, groups)?;

        let w = self.format.scalar();
        let code_limit = 1u32 << self.format.bits();
        for (i, &c) in self.codes.iter().enumerate() {
            if u32::from(c) >= code_limit {
                let reason = format!(
                    "code {c} at {i} does not fit in {} bits",
                    self.format.bits()
                );
                return Err(QuantError::invalid("weight codes", reason));
            }
            if !w.decode(u32::from(c)).is_finite() {
                let reason = format!("code {c:#x} at {i} is not a finite {}", self.format);
                return Err(QuantError::invalid("weight codes", reason));
            }
        }

        let s = self.scale_format.scalar();
        let scale_limit = 1u64 << s.bits();
        for (i, &c) in self.scales.iter().enumerate() {
            if u64::from(c) >= scale_limit || !s.decode(c).is_finite() {
                let reason = format!("code {c:#x} at {i} is not a finite {}", self.scale_format);
                return Err(QuantError::invalid("weight scales", reason));
            }
        }

        if let Some(z) = &self.zero_points {
            if !matches!(self.format, WeightFormat::UInt(_)) {
                return Err(QuantError::DynamicZeroPoint(self.format));
            }
            if z.len() != self.scales.len() {
                return Err(QuantError::Length {
                    what: "zero points",
                    expected: self.scales.len(),
                    got: z.len(),
                });
            }
            if let Some(i) = z.iter().position(|&c| u32::from(c) >= code_limit) {
                let reason = format!(
                    "{} at {i} does not fit in {} bits",
                    z[i],
                    self.format.bits()
                );
                return Err(QuantError::invalid("zero points", reason));
            }
        }

        match self.global_scale {
            Some(g) if !g.is_finite() => Err(QuantError::invalid(
                "global scale",
                format!("{g} is not finite"),
            )),
            _ => Ok(()),
        }
    }
}
