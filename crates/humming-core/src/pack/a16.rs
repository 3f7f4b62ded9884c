//! [`PackedA16`]: quantized weights repacked for the 16-bit-activation kernels: fragment-ordered
//! codes ([`super::fragment`]), scales and zero points permuted per 64-column block and padded
//! to the layout, ready to upload.

use super::fragment::{A16Layout, BitPlacement, permute_group_values, repack_a16};
use crate::quant::{QuantError, QuantizedWeights};
use crate::{ScaleFormat, ScaleGroup, WeightFormat};

/// Weights in the layout the A16 kernels read.
#[derive(Clone, Debug, PartialEq)]
pub struct PackedA16 {
    pub layout: A16Layout,
    pub format: WeightFormat,
    /// Where each code's bits sit in its words (4-bit floats: placed for one activation type).
    pub placement: BitPlacement,
    /// Format of the stored scale codes.
    pub scale_format: ScaleFormat,
    /// Scale granularity along K.
    pub group: ScaleGroup,
    /// Fragment-ordered codes.
    pub words: Vec<u32>,
    /// Scale codes, `[k_pad / group][n_pad]` permuted, little-endian, 1 or 2 bytes each.
    pub scales: Vec<u8>,
    /// Dynamic zero points, same order as the scales, one byte each.
    pub zeros: Option<Vec<u8>>,
    /// The global scale, when the weights have one.
    pub global_scale: Option<f32>,
    /// `log2(group)`; 31 for per-channel scales (every k < 2^31 is in group 0).
    pub group_shift: u32,
}

/// Why weights cannot be packed for the A16 kernels.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PackA16Error {
    #[error(transparent)]
    Invalid(#[from] QuantError),
    #[error("K = {k} is not a multiple of 8: activation rows must be 16-byte aligned")]
    KAlignment { k: usize },
    /// The A16 kernels read f16 or bf16 activations; weights are packed for one of them.
    #[error("weights for the A16 kernels are packed for f16 or bf16 activations, not {act}")]
    Act { act: crate::ActFormat },
    /// A weight value times its block scale beyond the activation type's range: the kernel
    /// forms that product in the activation's precision, so it would become infinite.
    #[error(
        "row {n}, group {group}: weight value {value} x block scale {scale} = {product:e} exceeds the largest {act} ({max:e}); \
         use bf16 activations or smaller block scales (a global scale carries the rest)"
    )]
    ActRange { n: usize, group: usize, value: f64, scale: f64, product: f64, act: crate::ActFormat, max: f64 },
}

/// Checks that every weight value times its block scale is finite in the 16-bit activation
/// type `act` (the A16 kernels multiply them in that precision). One pass over the codes.
pub fn check_act_range(w: &QuantizedWeights, act: crate::ActFormat) -> Result<(), PackA16Error> {
    w.validate()?;
    let max = match act {
        crate::ActFormat::F16 => 65504.0,
        crate::ActFormat::Bf16 => f64::from(half::bf16::MAX.to_f32()),
        _ => return Ok(()),
    };
    let fmt = w.format.scalar();
    let table: Vec<f64> = (0..1u32 << w.format.bits()).map(|c| f64::from(fmt.decode(c))).collect();
    let (groups, glen) = (w.groups_along_k(), w.group_len());
    for n in 0..w.n {
        for g in 0..groups {
            let zero = f64::from(w.zero(n, g));
            let scale = f64::from(w.scale(n, g));
            let row = &w.codes[n * w.k + g * glen..n * w.k + ((g + 1) * glen).min(w.k)];
            let value = row.iter().map(|&c| (table[c as usize] - zero).abs()).fold(0.0, f64::max);
            if value * scale.abs() > max {
                return Err(PackA16Error::ActRange { n, group: g, value, scale, product: value * scale.abs(), act, max });
            }
        }
    }
    Ok(())
}

impl PackedA16 {
    /// Repacks validated quantized weights for the kernels whose activation type is `act` (f16
    /// or bf16; it decides where 4-bit float codes place their bits, [`BitPlacement`]).
    pub fn from_quantized(w: &QuantizedWeights, act: crate::ActFormat) -> Result<PackedA16, PackA16Error> {
        w.validate()?;
        if !act.is_16bit_float() {
            return Err(PackA16Error::Act { act });
        }
        if w.k % 8 != 0 {
            return Err(PackA16Error::KAlignment { k: w.k });
        }
        let group = match w.group {
            ScaleGroup::PerChannel => None,
            ScaleGroup::Group(g) => Some(g as usize),
        };
        let bits = w.format.bits();
        let layout = A16Layout::new(bits, w.n, w.k, group);
        // Padding codes decode to zero (their activations are zero-filled anyway).
        let pad_code = match w.format {
            WeightFormat::UInt(b) | WeightFormat::SInt(b) => 1u8 << (b - 1),
            WeightFormat::Float(_) => 0,
        };
        let placement = BitPlacement::new(w.format, act);
        let words = repack_a16(&w.codes, &layout, w.format, placement, pad_code);
        let groups = w.groups_along_k();
        let groups_pad = group.map_or(1, |g| layout.k_pad / g);
        let one = w.scale_format.scalar().encode(1.0);
        let mut perm = permute_group_values(&w.scales, w.n, groups, layout.n_pad, one);
        perm.resize(groups_pad * layout.n_pad, one);
        let sbytes = w.scale_format.bits() as usize / 8;
        let scales = perm.iter().flat_map(|&c| c.to_le_bytes().into_iter().take(sbytes)).collect();
        let zeros = w.zero_points.as_ref().map(|z| {
            let mut p = permute_group_values(z, w.n, groups, layout.n_pad, 0u8);
            p.resize(groups_pad * layout.n_pad, 0);
            p
        });
        Ok(PackedA16 {
            layout,
            format: w.format,
            placement,
            scale_format: w.scale_format,
            group: w.group,
            words,
            scales,
            zeros,
            global_scale: w.global_scale,
            group_shift: group.map_or(31, |g| g.trailing_zeros()),
        })
    }
}
