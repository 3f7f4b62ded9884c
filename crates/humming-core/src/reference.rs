//! The `f64` reference GEMM: what every kernel is measured against.
//!
//! `out[m, n] = sum_k act[m, k] * W[n, k]`, with both operands dequantized exactly to `f64`
//! and the sum accumulated in `f64` in order of `k`; [`gemm`] then rounds each sum **once** to
//! the output format.
//!
//! # Rounding to the output format
//!
//! [`round_to_out`] rounds an `f64` to the nearest f16/bf16 value, ties to even, overflowing
//! to `±inf` like IEEE 754 (and like the GPU's `cvt.rn.f16.f32`). It does not use `half`'s
//! `from_f64`: half 2.7 converts through `f32` on x86 CPUs with F16C (double rounding), and its
//! software path drops the low 32 bits of the `f64` mantissa before deciding a tie, so both
//! misround sums just above a halfway point (e.g. `1 + 2^-11 + 2^-40` becomes 1 instead of
//! `1 + 2^-10` in f16).

use crate::OutFormat;
use crate::quant::{ActTensor, QuantError, QuantizedWeights};

/// Errors of the reference GEMM.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReferenceError {
    /// The operands disagree on K.
    #[error("activations have K = {act_k}, weights have K = {weight_k}")]
    KMismatch { act_k: usize, weight_k: usize },
    /// An operand that fails its own validation.
    #[error(transparent)]
    Invalid(#[from] QuantError),
}

/// The weights as `f64`, row-major `[n, k]`: `(value(code) - zero) * scale * global`.
pub fn dequantize(w: &QuantizedWeights) -> Result<Vec<f64>, QuantError> {
    w.validate()?;
    let fmt = w.format.scalar();
    let global = f64::from(w.global());
    let mut out = Vec::with_capacity(w.n * w.k);
    for n in 0..w.n {
        for k in 0..w.k {
            let g = w.group_of(k);
            let v = f64::from(fmt.decode(u32::from(w.codes[n * w.k + k])));
            let zero = f64::from(w.zero(n, g));
            out.push((v - zero) * f64::from(w.scale(n, g)) * global);
        }
    }
    Ok(out)
}

/// The activations as `f64`, row-major `[m, k]`: `value(code) * scale`.
pub fn act_values(a: &ActTensor) -> Result<Vec<f64>, QuantError> {
    a.validate()?;
    let fmt = a.format.scalar();
    let mut out = Vec::with_capacity(a.m * a.k);
    for m in 0..a.m {
        for k in 0..a.k {
            let v = f64::from(fmt.decode(a.codes[m * a.k + k]));
            out.push(v * f64::from(a.scale(m, k)));
        }
    }
    Ok(out)
}

/// `out[m, n] = sum_k act[m, k] * W[n, k]` in `f64`, row-major `[m, n]`.
pub fn gemm_f64(act: &ActTensor, w: &QuantizedWeights) -> Result<Vec<f64>, ReferenceError> {
    let a = act_values(act)?;
    let b = dequantize(w)?;
    if act.k != w.k {
        return Err(ReferenceError::KMismatch {
            act_k: act.k,
            weight_k: w.k,
        });
    }
    let k = w.k;
    let mut out = Vec::with_capacity(act.m * w.n);
    for a_row in a.chunks_exact(k) {
        for b_row in b.chunks_exact(k) {
            out.push(a_row.iter().zip(b_row).map(|(x, y)| x * y).sum());
        }
    }
    Ok(out)
}

/// [`gemm_f64`] with every sum rounded once to `out` (see [`round_to_out`]), as `f32` values.
pub fn gemm(
    act: &ActTensor,
    w: &QuantizedWeights,
    out: OutFormat,
) -> Result<Vec<f32>, ReferenceError> {
    Ok(gemm_f64(act, w)?
        .into_iter()
        .map(|x| round_to_out(x, out))
        .collect())
}

/// `x` rounded once to the nearest value of `out` (ties to even), `±inf` beyond the range
/// (from `max + ulp/2` on, as IEEE 754), NaN for NaN; returned as the exactly equal `f32`.
pub fn round_to_out(x: f64, out: OutFormat) -> f32 {
    // Mantissa bits, smallest normal exponent, largest finite value.
    let (man, e_min, max) = match out {
        OutFormat::F16 => (10, -14, f64::from(half::f16::MAX)),
        OutFormat::Bf16 => (7, -126, f64::from(half::bf16::MAX)),
    };
    if !x.is_finite() {
        return x as f32;
    }
    let a = x.abs();
    // The binade of `a`; subnormals share the smallest normal one. `a >= 2^e_min` is a normal
    // f64, whose exponent field is `floor(log2 a) + 1023`.
    let binade = if a < 2f64.powi(e_min) {
        e_min
    } else {
        ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023
    };
    let ulp = 2f64.powi(binade - man);
    // `a / ulp` is exact (ulp is a power of two); rounding it to an integer is the one rounding.
    let r = (a / ulp).round_ties_even() * ulp;
    // IEEE overflow: a result above the largest finite value (after rounding) is infinite.
    let r = if r > max { f64::INFINITY } else { r };
    r.copysign(x) as f32
}
