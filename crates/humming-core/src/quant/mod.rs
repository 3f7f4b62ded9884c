//! Host-side quantizers: weights ([`quantize`]) and activations ([`quantize_act`]).
//!
//! # Weights
//!
//! [`quantize`] turns an `f32` matrix `W[N, K]` into [`QuantizedWeights`]: one logical code per
//! element, one scale per (row, group along K) stored as a code of the scale format, optional
//! per-group zero points, and an optional `f32` global scale. An element dequantizes to
//! `(value(code) - zero) * scale * global` (see [`crate::reference::dequantize`]).
//!
//! ## Methods
//!
//! * **Symmetric absmax** (`SInt(b)`, `UInt(b)` with the implicit zero point `2^(b-1)`, every
//!   float format): the ideal scale is `absmax / qmax`, where `qmax` is the largest magnitude
//!   the format represents with both signs: `2^(b-1) - 1` for integers (the extra negative code
//!   `-2^(b-1)` is never produced), `max_finite` for floats (e2m1: 6).
//! * **Asymmetric min/max** (`UInt(b)` with [`crate::ZeroPoint::Dynamic`]): the group's range is
//!   widened to contain 0, `[lo, hi] = [min(min w, 0), max(max w, 0)]`, so that the zero point
//!   is an in-range integer; ideal scale `(hi - lo) / (2^b - 1)`, zero point
//!   `round(-lo / scale)` (ties to even) clamped to `[0, 2^b - 1]`, computed from the *stored*
//!   scale.
//! * **Global scale** (NVFP4 and any config with `global_scale`): `global = (largest ideal
//!   block scale) / cap`, with `cap` the scale format's largest value but at most the largest
//!   power of two that keeps `value * block scale` within f16's range (`block_scale_cap`),
//!   i.e. for NVFP4 `absmax(W) / (6 * 448)`, stored
//!   as `f32` rounded up; each block's ideal scale is then divided by the global scale before
//!   it is stored. Not defined for `ue8m0` block scales ([`QuantError::GlobalScale`]).
//!
//! ## Scale rounding (the stored scale is the one that counts)
//!
//! The ideal scale is rounded **up** to the next value representable in the scale format (the
//! smallest representable scale `>= ideal`; the global scale likewise to the next `f32`), and
//! the codes are computed from the stored scale times the stored global scale. Rounding up
//! guarantees that no element of the group leaves the format's range because of the scale's
//! own rounding, so every element rounds to its nearest representable value: the error is at
//! most half a step of the weight format at the element's scaled magnitude. For `ue8m0` (MX)
//! this makes the power-of-two scale `2^ceil(log2(absmax / qmax))`; note that the OCP MX
//! recipe's `2^(floor(log2 absmax) - emax)` can instead saturate the largest elements.
//!
//! ## Edge cases
//!
//! * **All-zero groups** get the scale 1.0 (exactly representable in every scale format), a
//!   zero point of 0 and codes whose value is 0 (the `+0` code for floats, `2^(b-1)` for
//!   implicit-zero-point unsigned formats, 0 with a dynamic zero point). An all-zero matrix
//!   gets the global scale 1.0.
//! * **Scale underflow**: an ideal scale below the smallest positive value of the scale format
//!   rounds up to that value; nothing saturates, the group is merely represented with fewer
//!   significant codes (the half-step error bound still holds).
//! * **Scale overflow** (forced saturation): an ideal scale above `max_finite` of the scale
//!   format saturates to `max_finite`, and elements beyond `qmax * scale` saturate to the
//!   format's extreme values. Only possible without a global scale, for groups with
//!   `absmax / qmax` above e.g. 448 (e4m3), 57344 (e5m2) or 65504 (f16).
//! * **uint1 with the implicit zero point** (forced saturation): its values are `code - 1`,
//!   i.e. `{-1, 0}`, so there is no symmetric range (`qmax` would be 0). The quantizer uses
//!   `qmax = 1` (scale = absmax): negative elements round to the nearest of `{-scale, 0}`
//!   (half-step error), positive elements saturate to 0 (error up to one step, `scale`).
//! * Zero is always stored as the `+0` code (never `-0`).
//!
//! # Activations
//!
//! [`quantize_act`]: `f16`/`bf16` activations are rounded to the format (the codec's
//! round-to-nearest-even, saturating) and carry no scales; `int8`/`int4`/`e4m3`/`e5m2`
//! activations are quantized symmetrically per token or per group along K with `f32` scales
//! `absmax / qmax` (qmax: 127, 7, 448, 57344), rounded up to the next `f32`, all-zero runs
//! getting the scale 1.0.

mod act;
mod config;
mod grid;
mod quantize;
mod weights;

pub use act::{ActGranularity, ActScales, ActTensor, quantize_act};
pub use config::QuantConfig;
pub use quantize::quantize;
pub use weights::QuantizedWeights;

use crate::{ScaleFormat, WeightFormat};

/// Errors of the quantizers and of the validation of quantized tensors.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum QuantError {
    /// A buffer whose length does not match the shape.
    #[error("{what} holds {got} values, {expected} expected")]
    Length {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    /// A shape with a zero dimension.
    #[error("shape [{rows}, {cols}] is empty: both dimensions must be nonzero")]
    EmptyShape { rows: usize, cols: usize },
    /// A NaN or infinite input value.
    #[error("input value {value} at index {index} is not finite")]
    NonFinite { index: usize, value: f32 },
    /// A weight scale group that is not a power of two >= 16.
    #[error("scale group {0} is not a power of two >= 16")]
    GroupSize(u32),
    /// An activation scale group of size 0.
    #[error("activation scale group must be at least 1 element long")]
    ActGroupSize,
    /// A dynamic zero point for a weight format other than `UInt`.
    #[error("a dynamic zero point needs an unsigned integer weight format, not {0}")]
    DynamicZeroPoint(WeightFormat),
    /// A global scale over block scales that cannot use it (`ue8m0`).
    #[error("a global scale is not supported with {0} block scales")]
    GlobalScale(ScaleFormat),
    /// A quantized tensor that breaks one of its invariants.
    #[error("invalid {field}: {reason}")]
    Invalid { field: &'static str, reason: String },
}

impl QuantError {
    pub(crate) fn invalid(field: &'static str, reason: impl Into<String>) -> Self {
        QuantError::Invalid {
            field,
            reason: reason.into(),
        }
    }
}

/// `rows * cols` values expected in `what`, or a typed error.
pub(crate) fn check_shape(
    what: &'static str,
    got: usize,
    rows: usize,
    cols: usize,
) -> Result<(), QuantError> {
    if rows == 0 || cols == 0 {
        return Err(QuantError::EmptyShape { rows, cols });
    }
    let expected = rows.saturating_mul(cols);
    if got != expected {
        return Err(QuantError::Length {
            what,
            expected,
            got,
        });
    }
    Ok(())
}

/// The first non-finite value, as a typed error.
pub(crate) fn check_finite(x: &[f32]) -> Result<(), QuantError> {
    match x.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(QuantError::NonFinite {
            index,
            value: x[index],
        }),
        None => Ok(()),
    }
}
