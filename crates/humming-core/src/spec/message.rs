//! The `Display` of [`SpecError`]: what is wrong, why, and what would be valid. The lists of
//! valid alternatives are computed from the rule tables, so they never disagree with the rules.

use super::SpecError;
use super::rules::{
    MAX_GROUP, MIN_GROUP, act_float_layout, act_min_arch, float_weight_fits, int_weight_fits,
};
use crate::{ActFormat, Arch, WeightFormat, ZeroPoint};
use std::fmt;

/// `a`, `a or b`, `a, b or c`.
fn or_list<T: fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    let items: Vec<String> = items.into_iter().map(|t| t.to_string()).collect();
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// `32, 64, ..., 1024 or per-channel`.
fn groups_from(min: u32) -> String {
    let groups = std::iter::successors(Some(min.max(MIN_GROUP)), |g| Some(g * 2))
        .take_while(|&g| g <= MAX_GROUP);
    or_list(
        groups
            .map(|g| g.to_string())
            .chain(["per-channel".to_string()]),
    )
}

fn arches_from(min: Arch) -> String {
    or_list(Arch::ALL.into_iter().filter(|&a| a >= min))
}

fn zp_name(zp: ZeroPoint) -> &'static str {
    match zp {
        ZeroPoint::Implicit => "implicit",
        ZeroPoint::Dynamic => "dynamic",
    }
}

/// The widest unsigned and signed weights whose values fit `act` with zero point `zp`.
fn widest_int_weights(zp: ZeroPoint, act: ActFormat) -> String {
    let widest = |make: fn(u8) -> WeightFormat, zp| {
        (1..=8).map(make).rfind(|&w| int_weight_fits(w, zp, act))
    };
    let mut parts = Vec::new();
    if let Some(u) = widest(WeightFormat::UInt, zp) {
        parts.push(format!("{u} with {} zero point", zp_name(zp)));
    }
    if let Some(i) =
        widest(WeightFormat::SInt, ZeroPoint::Implicit).filter(|_| zp == ZeroPoint::Implicit)
    {
        parts.push(i.to_string());
    }
    format!("at most {}", or_list(parts))
}

/// Activations that would hold every value of the (integer) weight exactly.
fn acts_holding(w: WeightFormat, zp: ZeroPoint) -> String {
    or_list(
        ActFormat::ALL
            .iter()
            .filter(|&&a| int_weight_fits(w, zp, a)),
    )
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SpecError::WeightWidth { weight } => write!(
                f,
                "weight {weight} has an invalid width: unsigned integer weights have 1..=8 bits and signed \
                 ones 2..=8 bits; valid weights: u1..u8, i2..i8 or a float e{{E}}m{{M}}"
            ),
            SpecError::GroupSize { group } => {
                if !group.is_power_of_two() {
                    write!(
                        f,
                        "group {group} is not a power of two, so it cannot tile the kernel's power-of-two K blocks"
                    )?;
                } else if group < MIN_GROUP {
                    write!(
                        f,
                        "group {group} is smaller than {MIN_GROUP}, the k-step of one f16 mma"
                    )?;
                } else {
                    write!(
                        f,
                        "group {group} is larger than {MAX_GROUP}, the largest group the kernels support"
                    )?;
                }
                write!(f, "; valid groups: {}", groups_from(MIN_GROUP))
            }
            SpecError::GroupTooSmallForAct { group, act, min } => write!(
                f,
                "group {group} is too small for act {act}: with quantized activations the weight scales are \
                 applied on a second accumulator once per mma k-step ({min} for {act}), so a group must span at \
                 least {min}; valid groups for act {act}: {}",
                groups_from(min)
            ),
            SpecError::ActNeedsArch { act, arch, min } => {
                let why = act_min_arch(act).map_or("", |(_, why)| why);
                let here = ActFormat::ALL
                    .iter()
                    .filter(|&&a| act_min_arch(a).is_none_or(|(m, _)| m <= arch));
                write!(
                    f,
                    "act {act} needs {min} or newer ({why}), but the target is {arch}; use arch {}, or an \
                     activation that {arch} supports: {}",
                    arches_from(min),
                    or_list(here)
                )
            }
            SpecError::ScaleNeedsArch { scale, arch, min } => write!(
                f,
                "scale {scale} needs {min} or newer (native {scale} conversions arrived with {min}), but the \
                 target is {arch}; use arch {}, or scale f16, e4m3 or e5m2",
                arches_from(min)
            ),
            SpecError::OutNeedsArch { out, arch, min } => write!(
                f,
                "out {out} needs {min} or newer (native {out} conversions arrived with {min}), but the target \
                 is {arch}; use arch {}, or out f16",
                arches_from(min)
            ),
            SpecError::DynamicZeroPointNeedsUInt { weight } => {
                let (what, alt) = match weight {
                    WeightFormat::SInt(b) => (
                        "is signed: its codes are already centred on zero",
                        format!("u{b}"),
                    ),
                    WeightFormat::Float(_) => (
                        "is a float format, which has no zero point",
                        "u1..u8".to_string(),
                    ),
                    WeightFormat::UInt(b) => ("is unsigned", format!("u{b}")),
                };
                write!(
                    f,
                    "a dynamic zero point needs unsigned integer weights, but weight {weight} {what}; use \
                     zero_point = implicit, or weight {alt} for asymmetric quantization"
                )
            }
            SpecError::FloatWeightWithIntAct { weight, act } => write!(
                f,
                "float weight {weight} cannot be used with integer act {act}: the integer mma multiplies \
                 integers only; use f16/bf16/fp8 activations (act f16, bf16, e4m3 or e5m2) or an integer \
                 weight of {}",
                widest_int_weights(ZeroPoint::Implicit, act)
            ),
            SpecError::WeightRangeExceedsAct {
                weight,
                zero_point,
                act,
                lo,
                hi,
                act_lo,
                act_hi,
            } => {
                // Signed weights have no zero point (a dynamic one is rule 3's error).
                let (with, zp) = match weight {
                    WeightFormat::UInt(_) => (
                        format!(" with {} zero point", zp_name(zero_point)),
                        zero_point,
                    ),
                    _ => (String::new(), ZeroPoint::Implicit),
                };
                write!(
                    f,
                    "weight {weight}{with} gives values in [{lo}, {hi}], but act {act} holds integers exactly \
                     only in [{act_lo}, {act_hi}], so the products would be rounded; use a weight of {}, or act {}",
                    widest_int_weights(zp, act),
                    acts_holding(weight, zp)
                )
            }
            SpecError::ZeroPointRangeExceedsAct {
                weight,
                act,
                lo,
                hi,
                act_lo,
                act_hi,
            } => write!(
                f,
                "weight {weight} with dynamic zero point gives (code - zero) in [{lo}, {hi}], but act {act} \
                 holds integers exactly only in [{act_lo}, {act_hi}], so the products would be rounded; use \
                 zero_point = implicit, a weight of {}, or act {}",
                widest_int_weights(ZeroPoint::Dynamic, act),
                acts_holding(weight, ZeroPoint::Dynamic)
            ),
            SpecError::FloatWeightExceedsAct { weight, act } => {
                let (e, m) = act_float_layout(act).unwrap_or((0, 0));
                let acts = ActFormat::ALL
                    .iter()
                    .filter(|&&a| float_weight_fits(weight, a));
                write!(
                    f,
                    "float weight {weight} is not exactly representable in act {act}: {act} has {e} exponent and \
                     {m} mantissa bits, so a float weight needs E <= {e} and M <= {m} (the exponent offset is \
                     folded into the scale), but {weight} has E = {}, M = {}; use a float weight within those \
                     limits, or act {}",
                    weight.exp_bits(),
                    weight.man_bits(),
                    or_list(acts)
                )
            }
            SpecError::Ue8m0ScaleNeedsWideAct { act } => write!(
                f,
                "scale ue8m0 (powers of two 2^-127..2^127) cannot be used with act {act}: {act} activations \
                 apply the scales in f16, whose range (about 2^-24..65504) cannot hold them; use act = bf16 \
                 or scale = e4m3/f16 (quantized activations int8/int4/e4m3/e5m2 apply scales in f32 and \
                 also take ue8m0)"
            ),
            SpecError::GlobalScaleWithUe8m0 => write!(
                f,
                "global_scale cannot be used with scale = ue8m0: MX block scales are powers of two that \
                 carry the whole range themselves (OCP MX defines no tensor scale); use global_scale = false, \
                 or scale = e4m3 with a global scale (NVFP4 style)"
            ),
            SpecError::ScaleMixes16Bit { scale, act } => write!(
                f,
                "scale {scale} cannot be used with act {act}: 16-bit activations apply the group scales to the \
                 weights in the activation's own precision, and converting {scale} to {act} would round the \
                 scale before the product is rounded; use scale = {act}, e4m3 or e5m2{}",
                if act == ActFormat::Bf16 { " or ue8m0" } else { "" }
            ),
        }
    }
}
