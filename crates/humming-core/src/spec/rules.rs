//! The validation rules, each written once, and the small tables they read.
//!
//! The rule table with reasons is in the [module docs](super). The tables here are also used by
//! the error messages to list valid alternatives, so a message never disagrees with a rule.

use super::{SpecError, SpecParts};
use crate::{
    ActFormat, Arch, FloatFormat, OutFormat, ScaleFormat, ScaleGroup, WeightFormat, ZeroPoint,
};

/// One rule: pushes every violation of it that it finds in the parts.
type Rule = fn(&SpecParts, &mut Vec<SpecError>);

/// Every rule, in the order of the module's table.
const RULES: [Rule; 8] = [
    weight_width,
    group_size,
    arch_support,
    dynamic_zero_point,
    float_weight_int_act,
    int_weight_exact,
    float_weight_layout,
    ue8m0_scale,
];

/// Every violated rule of `p`, in table order; empty when `p` is valid.
pub(super) fn check(p: &SpecParts) -> Vec<SpecError> {
    let mut errors = Vec::new();
    for rule in RULES {
        rule(p, &mut errors);
    }
    errors
}

/// Smallest valid `Group(G)`.
pub(crate) const MIN_GROUP: u32 = 16;
/// Largest valid `Group(G)`.
pub(crate) const MAX_GROUP: u32 = 1024;

/// `G` is a power of two in `MIN_GROUP..=MAX_GROUP`.
pub(crate) fn group_well_formed(g: u32) -> bool {
    g.is_power_of_two() && (MIN_GROUP..=MAX_GROUP).contains(&g)
}

/// Smallest group for `act`: quantized activations apply the weight scales once per mma k-step.
pub(crate) fn act_min_group(act: ActFormat) -> u32 {
    match act {
        ActFormat::F16 | ActFormat::Bf16 => MIN_GROUP,
        ActFormat::Int8 | ActFormat::E4m3 | ActFormat::E5m2 => 32,
        ActFormat::Int4 => 64,
    }
}

/// Oldest target with an mma for `act`, with the reason.
pub(crate) fn act_min_arch(act: ActFormat) -> Option<(Arch, &'static str)> {
    match act {
        ActFormat::Bf16 => Some((Arch::Sm80, "bf16 mma arrived with sm_80")),
        ActFormat::E4m3 | ActFormat::E5m2 => {
            Some((Arch::Sm89, "fp8 e4m3/e5m2 mma arrived with sm_89"))
        }
        ActFormat::F16 | ActFormat::Int8 | ActFormat::Int4 => None,
    }
}

/// Oldest target able to convert `scale` natively.
pub(crate) fn scale_min_arch(scale: ScaleFormat) -> Option<Arch> {
    match scale {
        ScaleFormat::Bf16 => Some(Arch::Sm80),
        _ => None,
    }
}

/// Oldest target able to convert to `out` natively.
pub(crate) fn out_min_arch(out: OutFormat) -> Option<Arch> {
    match out {
        OutFormat::Bf16 => Some(Arch::Sm80),
        OutFormat::F16 => None,
    }
}

/// Widths the integer weight formats allow (the checked constructors' ranges).
pub(crate) fn weight_width_ok(w: WeightFormat) -> bool {
    match w {
        WeightFormat::UInt(b) => (1..=8).contains(&b),
        WeightFormat::SInt(b) => (2..=8).contains(&b),
        WeightFormat::Float(_) => true,
    }
}

/// The integers an integer weight feeds the mma, `(code - zero point)`, as `[lo, hi]`;
/// `None` for floats and malformed widths. Signed weights ignore the zero point (rule 3).
pub(crate) fn int_weight_range(w: WeightFormat, zp: ZeroPoint) -> Option<(i32, i32)> {
    if !weight_width_ok(w) {
        return None;
    }
    match (w, zp) {
        (WeightFormat::UInt(b), ZeroPoint::Dynamic) => {
            let m = (1i32 << b) - 1;
            Some((-m, m))
        }
        (WeightFormat::UInt(b) | WeightFormat::SInt(b), _) => {
            let h = 1i32 << (b - 1);
            Some((-h, h - 1))
        }
        (WeightFormat::Float(_), _) => None,
    }
}

/// `(E, M)` of a float activation; `None` for integer activations.
pub(crate) fn act_float_layout(act: ActFormat) -> Option<(u8, u8)> {
    let f = match act {
        ActFormat::F16 => return Some((5, 10)),
        ActFormat::Bf16 => return Some((8, 7)),
        ActFormat::E4m3 => FloatFormat::E4M3,
        ActFormat::E5m2 => FloatFormat::E5M2,
        ActFormat::Int8 | ActFormat::Int4 => return None,
    };
    Some((f.exp_bits(), f.man_bits()))
}

/// The contiguous run of integers `act` represents exactly, `[lo, hi]`:
/// two's complement for integer activations, `|v| <= 2^(M+1)` for floats.
pub(crate) fn act_exact_ints(act: ActFormat) -> (i32, i32) {
    match act_float_layout(act) {
        Some((_, m)) => {
            let l = 1i32 << (m + 1);
            (-l, l)
        }
        None => {
            let h = 1i32 << (act.bits() - 1);
            (-h, h - 1)
        }
    }
}

/// Whether the integer weight's values all fit `act` exactly (`true` for non-integer weights).
pub(crate) fn int_weight_fits(w: WeightFormat, zp: ZeroPoint, act: ActFormat) -> bool {
    match int_weight_range(w, zp) {
        Some((lo, hi)) => {
            let (alo, ahi) = act_exact_ints(act);
            lo >= alo && hi <= ahi
        }
        None => true,
    }
}

/// Whether float weight `f` converts exactly to float activation `act` (exponent offset folded
/// into the scale); `false` for integer activations.
///
/// A weight with as many exponent bits as an IEEE-like activation (f16, bf16, e5m2) but no special
/// values (e5m0, e5m1) does not fit: its top binade is finite, and re-aligned into the activation
/// it would land on infinity.
pub(crate) fn float_weight_fits(f: FloatFormat, act: ActFormat) -> bool {
    let ieee_act = matches!(act, ActFormat::F16 | ActFormat::Bf16 | ActFormat::E5m2);
    act_float_layout(act).is_some_and(|(e, m)| {
        let top_binade_clash = ieee_act && f.exp_bits() == e && f.specials() == crate::format::FloatSpecials::Finite;
        f.exp_bits() <= e && f.man_bits() <= m && !top_binade_clash
    })
}

// ---------------------------------------------------------------------------------------------
// The rules.

/// Rule 0: integer weight widths as the checked constructors allow them.
fn weight_width(p: &SpecParts, out: &mut Vec<SpecError>) {
    if !weight_width_ok(p.weight) {
        out.push(SpecError::WeightWidth { weight: p.weight });
    }
}

/// Rule 1: power-of-two groups in 16..=1024, at least one mma k-step of quantized activations.
fn group_size(p: &SpecParts, out: &mut Vec<SpecError>) {
    let ScaleGroup::Group(group) = p.group else {
        return;
    };
    let min = act_min_group(p.act);
    if !group_well_formed(group) {
        out.push(SpecError::GroupSize { group });
    } else if group < min {
        out.push(SpecError::GroupTooSmallForAct {
            group,
            act: p.act,
            min,
        });
    }
}

/// Rule 2: activation, scale and output types the target supports natively.
fn arch_support(p: &SpecParts, out: &mut Vec<SpecError>) {
    let arch = p.arch;
    if let Some((min, _)) = act_min_arch(p.act).filter(|&(min, _)| arch < min) {
        out.push(SpecError::ActNeedsArch {
            act: p.act,
            arch,
            min,
        });
    }
    if let Some(min) = scale_min_arch(p.scale).filter(|&min| arch < min) {
        out.push(SpecError::ScaleNeedsArch {
            scale: p.scale,
            arch,
            min,
        });
    }
    if let Some(min) = out_min_arch(p.out).filter(|&min| arch < min) {
        out.push(SpecError::OutNeedsArch {
            out: p.out,
            arch,
            min,
        });
    }
}

/// Rule 3: dynamic zero points only for unsigned integer weights.
fn dynamic_zero_point(p: &SpecParts, out: &mut Vec<SpecError>) {
    if p.zero_point == ZeroPoint::Dynamic && !matches!(p.weight, WeightFormat::UInt(_)) {
        out.push(SpecError::DynamicZeroPointNeedsUInt { weight: p.weight });
    }
}

/// Rule 4 (floats): integer activations take integer weights only.
fn float_weight_int_act(p: &SpecParts, out: &mut Vec<SpecError>) {
    match p.weight {
        WeightFormat::Float(weight) if act_float_layout(p.act).is_none() => {
            out.push(SpecError::FloatWeightWithIntAct { weight, act: p.act });
        }
        _ => {}
    }
}

/// Rules 4 and 5 (integers): every `(code - zero)` value is exact in the activation type.
/// Blames the zero point when the implicit one would fit.
fn int_weight_exact(p: &SpecParts, out: &mut Vec<SpecError>) {
    let Some((lo, hi)) = int_weight_range(p.weight, p.zero_point) else {
        return;
    };
    if int_weight_fits(p.weight, p.zero_point, p.act) {
        return;
    }
    let (act_lo, act_hi) = act_exact_ints(p.act);
    let (weight, act) = (p.weight, p.act);
    let implicit_fits = int_weight_fits(weight, ZeroPoint::Implicit, act);
    out.push(match (weight, p.zero_point) {
        (WeightFormat::UInt(_), ZeroPoint::Dynamic) if implicit_fits => {
            SpecError::ZeroPointRangeExceedsAct {
                weight,
                act,
                lo,
                hi,
                act_lo,
                act_hi,
            }
        }
        _ => SpecError::WeightRangeExceedsAct {
            weight,
            zero_point: p.zero_point,
            act,
            lo,
            hi,
            act_lo,
            act_hi,
        },
    });
}

/// Rules 5 and 6 (floats): float weights convert exactly to float activations.
fn float_weight_layout(p: &SpecParts, out: &mut Vec<SpecError>) {
    match p.weight {
        WeightFormat::Float(weight)
            if act_float_layout(p.act).is_some() && !float_weight_fits(weight, p.act) =>
        {
            out.push(SpecError::FloatWeightExceedsAct { weight, act: p.act });
        }
        _ => {}
    }
}

/// Rule 7: scales only where the precision that applies them holds them exactly: ue8m0 not in
/// f16, and no f16 scale on bf16 activations or the reverse.
fn ue8m0_scale(p: &SpecParts, out: &mut Vec<SpecError>) {
    if p.scale == ScaleFormat::Ue8m0 && p.act == ActFormat::F16 {
        out.push(SpecError::Ue8m0ScaleNeedsWideAct { act: p.act });
    }
    if p.global_scale && p.scale == ScaleFormat::Ue8m0 {
        out.push(SpecError::GlobalScaleWithUe8m0);
    }
    let mixed = matches!(
        (p.scale, p.act),
        (ScaleFormat::Bf16, ActFormat::F16) | (ScaleFormat::F16, ActFormat::Bf16)
    );
    if mixed {
        out.push(SpecError::ScaleMixes16Bit { scale: p.scale, act: p.act });
    }
}
