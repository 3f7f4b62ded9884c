//! [`quantize`]: `f32` weights to [`QuantizedWeights`] (methods and policies: module docs of
//! [`crate::quant`]).

use super::grid::{Grid, round_up_code, round_up_f32};
use super::{QuantConfig, QuantError, QuantizedWeights, check_finite, check_shape};
use crate::{WeightFormat, ZeroPoint};

/// Quantizes the row-major `[n, k]` matrix `w` as `cfg` says.
///
/// Errors: an invalid config ([`QuantConfig::validate`]), `w.len() != n * k`, `n` or `k` zero,
/// a NaN or infinite weight.
pub fn quantize(
    w: &[f32],
    n: usize,
    k: usize,
    cfg: &QuantConfig,
) -> Result<QuantizedWeights, QuantError> {
    cfg.validate()?;
    check_shape("weights", w.len(), n, k)?;
    check_finite(w)?;

    let groups = cfg.group.groups_along_k(k);
    let glen = cfg.group.len(k);
    let block = |i: usize| {
        let (row, g) = (i / groups, i % groups);
        &w[row * k + g * glen..row * k + ((g + 1) * glen).min(k)]
    };
    let method = Method::new(cfg.weight, cfg.zero_point);

    // Ideal (unrounded) block scales before the global scale; 0 for all-zero blocks.
    let ideal: Vec<f64> = (0..n * groups)
        .map(|i| method.ideal_scale(block(i)))
        .collect();
    let global = cfg
        .global_scale
        .then(|| global_scale(&ideal, block_scale_cap(cfg)));
    let global64 = global.map_or(1.0, f64::from);

    let sfmt = cfg.scale.scalar();
    let mut codes = Vec::with_capacity(n * k);
    let mut scales = Vec::with_capacity(n * groups);
    let mut zero_points = Vec::new();
    for (i, &ideal) in ideal.iter().enumerate() {
        let scale = if ideal > 0.0 {
            round_up_code(sfmt, ideal / global64)
        } else {
            sfmt.encode(1.0)
        };
        scales.push(scale);
        // The codes follow from the stored scale and the stored global scale.
        let eff = f64::from(sfmt.decode(scale)) * global64;
        let zero = method.zero_point(block(i), eff);
        if let Method::Asymmetric { .. } = method {
            zero_points.push(zero as u8);
        }
        codes.extend(block(i).iter().map(|&x| method.code(x, eff, zero)));
    }

    let q = QuantizedWeights {
        n,
        k,
        format: cfg.weight,
        scale_format: cfg.scale,
        group: cfg.group,
        codes,
        scales,
        zero_points: (cfg.zero_point == ZeroPoint::Dynamic).then_some(zero_points),
        global_scale: global,
    };
    debug_assert_eq!(q.validate(), Ok(()));
    Ok(q)
}

/// The global scale: the largest ideal block scale over [`block_scale_cap`], rounded up to an
/// `f32` (so that no block scale exceeds the cap); 1 for an all-zero matrix.
fn global_scale(ideal: &[f64], cap: f64) -> f32 {
    let max = ideal.iter().copied().fold(0.0, f64::max);
    if max > 0.0 { round_up_f32(max / cap) } else { 1.0 }
}

/// The largest block scale stored next to a global scale: the scale format's largest value,
/// but at most the largest power of two `c` (possibly below 1) with `c * wmax <= 65504`
/// (f16's largest value),
/// where `wmax` is the largest magnitude a code of the weight format can feed the mma
/// (`2^(b-1)` for integers with the implicit zero point, `2^b - 1` with a dynamic one,
/// `max_finite` for floats). The 16-bit-activation kernels apply block scales in the
/// activation's precision and the global scale in f32 afterwards, so this keeps every
/// dequantized value finite in f16 and far from overflowing the f32 accumulators with bf16
/// (formats wider than f16, e5m0..e7m0, get caps below 1; a scale format that cannot go that
/// low stores its smallest value instead). NVFP4 (e2m1, e4m3 scales) is unaffected: 448 * 6
/// fits.
pub fn block_scale_cap(cfg: &QuantConfig) -> f64 {
    let wmax = match (cfg.weight, cfg.zero_point) {
        (WeightFormat::UInt(b), ZeroPoint::Dynamic) => f64::from((1u32 << b) - 1),
        (WeightFormat::UInt(b) | WeightFormat::SInt(b), _) => f64::from(1u32 << (b - 1)),
        (WeightFormat::Float(f), _) => f64::from(f.max_finite()),
    };
    let pow2 = 2f64.powi((65504.0 / wmax).log2().floor() as i32);
    f64::from(cfg.scale.scalar().max_finite()).min(pow2)
}

/// How one group's codes follow from its values and its stored scale.
enum Method {
    /// `code = nearest(w / scale)` on the format's values (minus the implicit zero point),
    /// ideal scale `absmax / qmax`.
    Symmetric { grid: Grid, qmax: f64 },
    /// `code = nearest(w / scale + zero)` on `0..=levels`, ideal scale `(hi - lo) / levels`.
    Asymmetric { grid: Grid, levels: f64 },
}

impl Method {
    fn new(format: WeightFormat, zero_point: ZeroPoint) -> Method {
        let scalar = format.scalar();
        match (format, zero_point) {
            (WeightFormat::UInt(b), ZeroPoint::Dynamic) => Method::Asymmetric {
                grid: Grid::new(scalar, 0.0),
                levels: f64::from((1u32 << b) - 1),
            },
            _ => {
                let offset = format.implicit_zero_point().map_or(0.0, f64::from);
                let grid = Grid::new(scalar, offset);
                let qmax = grid.symmetric_max();
                Method::Symmetric { grid, qmax }
            }
        }
    }

    fn ideal_scale(&self, block: &[f32]) -> f64 {
        match self {
            Method::Symmetric { qmax, .. } => {
                let absmax = block.iter().fold(0.0f64, |m, &x| m.max(f64::from(x).abs()));
                absmax / qmax
            }
            Method::Asymmetric { levels, .. } => {
                let (lo, hi) = range_with_zero(block);
                (hi - lo) / levels
            }
        }
    }

    /// The integer zero point of a group from its stored scale: `round(-lo / scale)` clamped
    /// to `[0, levels]`; 0 for symmetric methods and all-zero groups.
    fn zero_point(&self, block: &[f32], eff: f64) -> f64 {
        match self {
            Method::Symmetric { .. } => 0.0,
            Method::Asymmetric { levels, .. } => {
                let (lo, _) = range_with_zero(block);
                (-lo / eff).round_ties_even().clamp(0.0, *levels)
            }
        }
    }

    fn code(&self, x: f32, eff: f64, zero: f64) -> u8 {
        let q = f64::from(x) / eff;
        let code = match self {
            Method::Symmetric { grid, .. } => grid.nearest(q),
            Method::Asymmetric { grid, .. } => grid.nearest(q + zero),
        };
        code as u8
    }
}

/// `[min(min x, 0), max(max x, 0)]`: the group's range widened to contain 0.
fn range_with_zero(block: &[f32]) -> (f64, f64) {
    block.iter().fold((0.0f64, 0.0f64), |(lo, hi), &x| {
        (lo.min(f64::from(x)), hi.max(f64::from(x)))
    })
}
