//! Activations: [`ActTensor`] and [`quantize_act`].

use super::grid::{Grid, round_up_f32};
use super::{QuantError, check_finite, check_shape};
use crate::ActFormat;

/// Granularity of the `f32` scales of quantized activations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActGranularity {
    /// One scale per row (token).
    PerToken,
    /// One scale per row and per run of this many consecutive elements along K (the last run
    /// may be partial).
    PerGroup(usize),
}

/// The `f32` scales of quantized activations.
#[derive(Clone, Debug, PartialEq)]
pub enum ActScales {
    /// One scale per row, `[m]`.
    PerToken(Vec<f32>),
    /// Row-major `[m, ceil(k / group)]`.
    PerGroup { group: usize, scales: Vec<f32> },
}

impl ActScales {
    /// Elements along K that share a scale.
    pub fn group_len(&self, k: usize) -> usize {
        match self {
            ActScales::PerToken(_) => k,
            ActScales::PerGroup { group, .. } => *group,
        }
    }

    /// Scales per row.
    pub fn groups_along_k(&self, k: usize) -> usize {
        k.div_ceil(self.group_len(k).max(1))
    }

    /// All scales, row-major.
    pub fn values(&self) -> &[f32] {
        match self {
            ActScales::PerToken(s) | ActScales::PerGroup { scales: s, .. } => s,
        }
    }
}

/// Activations `A[M, K]`: codes of `format`, row-major, and, for quantized formats, scales.
///
/// Element `(m, k)` is `value(codes[m*K + k]) * scale(m, k)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ActTensor {
    pub m: usize,
    pub k: usize,
    pub format: ActFormat,
    /// One code per element in the low `format.bits()` bits (f16/bf16 bit patterns, two's
    /// complement for int8/int4, the fp8 bit patterns).
    pub codes: Vec<u32>,
    /// `Some` exactly for quantized formats ([`ActFormat::is_quantized`]).
    pub scales: Option<ActScales>,
}

impl ActTensor {
    /// The scale of element `(m, k)`; 1 for 16-bit float activations.
    pub fn scale(&self, m: usize, k: usize) -> f32 {
        match &self.scales {
            None => 1.0,
            Some(s) => {
                let group = s.group_len(self.k);
                s.values()[m * s.groups_along_k(self.k) + k / group]
            }
        }
    }

    /// Checks every invariant: nonzero shape, code count, codes that fit the width and are
    /// finite (no inf/NaN codes), scales present exactly for quantized formats, with the
    /// right count and finite.
    pub fn validate(&self) -> Result<(), QuantError> {
        check_shape("activation codes", self.codes.len(), self.m, self.k)?;
        let s = self.format.scalar();
        let limit = 1u64 << s.bits();
        for (i, &c) in self.codes.iter().enumerate() {
            if u64::from(c) >= limit || !s.decode(c).is_finite() {
                let reason = format!("code {c:#x} at {i} is not a finite {}", self.format);
                return Err(QuantError::invalid("activation codes", reason));
            }
        }
        match (&self.scales, self.format.is_quantized()) {
            (None, false) => return Ok(()),
            (None, true) => {
                let reason = format!("{} activations need scales", self.format);
                return Err(QuantError::invalid("activation scales", reason));
            }
            (Some(_), false) => {
                let reason = format!("{} activations carry no scales", self.format);
                return Err(QuantError::invalid("activation scales", reason));
            }
            (Some(_), true) => {}
        }
        let scales = self.scales.as_ref().expect("checked above");
        if let ActScales::PerGroup { group: 0, .. } = scales {
            return Err(QuantError::ActGroupSize);
        }
        check_shape(
            "activation scales",
            scales.values().len(),
            self.m,
            scales.groups_along_k(self.k),
        )?;
        if let Some(i) = scales.values().iter().position(|v| !v.is_finite()) {
            let reason = format!("{} at {i} is not finite", scales.values()[i]);
            return Err(QuantError::invalid("activation scales", reason));
        }
        Ok(())
    }
}

/// Quantizes the row-major `[m, k]` activations `x`.
///
/// * `f16`/`bf16`: each value rounded to the format (round to nearest even, saturating to
///   `±max`); no scales, `granularity` is ignored.
/// * `int8`/`int4`/`e4m3`/`e5m2`: symmetric absmax per token or per group: scale
///   `absmax / qmax` (qmax 127, 7, 448, 57344) rounded up to the next `f32`, so no element
///   saturates; code = the value nearest to `x / scale` (ties to even); all-zero runs get the
///   scale 1.
///
/// Errors: `x.len() != m * k`, `m` or `k` zero, a NaN or infinite value, a group of 0.
pub fn quantize_act(
    x: &[f32],
    m: usize,
    k: usize,
    format: ActFormat,
    granularity: ActGranularity,
) -> Result<ActTensor, QuantError> {
    check_shape("activations", x.len(), m, k)?;
    check_finite(x)?;
    let scalar = format.scalar();
    if format.is_16bit_float() {
        let codes = x.iter().map(|&v| scalar.encode(v)).collect();
        return Ok(ActTensor {
            m,
            k,
            format,
            codes,
            scales: None,
        });
    }

    let group = match granularity {
        ActGranularity::PerToken => k,
        ActGranularity::PerGroup(0) => return Err(QuantError::ActGroupSize),
        ActGranularity::PerGroup(g) => g,
    };
    let grid = Grid::new(scalar, 0.0);
    let qmax = grid.symmetric_max();
    let mut codes = Vec::with_capacity(m * k);
    let mut scales = Vec::with_capacity(m * k.div_ceil(group));
    for row in x.chunks_exact(k) {
        for run in row.chunks(group) {
            let absmax = run.iter().fold(0.0f64, |a, &v| a.max(f64::from(v).abs()));
            let scale = if absmax > 0.0 {
                round_up_f32(absmax / qmax)
            } else {
                1.0
            };
            scales.push(scale);
            let s = f64::from(scale);
            codes.extend(run.iter().map(|&v| grid.nearest(f64::from(v) / s)));
        }
    }
    let scales = match granularity {
        ActGranularity::PerToken => ActScales::PerToken(scales),
        ActGranularity::PerGroup(group) => ActScales::PerGroup { group, scales },
    };
    let t = ActTensor {
        m,
        k,
        format,
        codes,
        scales: Some(scales),
    };
    debug_assert_eq!(t.validate(), Ok(()));
    Ok(t)
}
