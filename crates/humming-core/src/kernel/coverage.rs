//! The coverage matrix of the W{1..8}A16 kernel family: every spec the generator claims, so
//! tests can sweep it and its size can be stated.
//!
//! Activations f16 and bf16; weights uint1..8 (implicit zero point), uint1..8 with dynamic
//! zero points, int2..8, every float `e{E}m{M}` the spec accepts for the activation (E <= 5
//! without e5m0/e5m1 for f16, all for bf16); scales of the activation's own 16-bit type, e4m3,
//! e5m2, and ue8m0 (bf16 only); groups 16..256 and per-channel; with and without a global scale;
//! outputs f16 and bf16; targets sm_75 (f16 only), sm_80, sm_86, sm_89, sm_90. Every spec here is
//! validated by [`Spec::new`]; invalid combinations are not part of the matrix.

use crate::format::{ActFormat, FloatFormat, OutFormat, ScaleFormat, WeightFormat};
use crate::{Arch, ScaleGroup, Spec, SpecParts, ZeroPoint};

/// Targets the A16 family claims.
pub const A16_ARCHS: [Arch; 5] = [Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90];

/// Scale groups of the matrix.
pub const A16_GROUPS: [ScaleGroup; 6] = [
    ScaleGroup::Group(16),
    ScaleGroup::Group(32),
    ScaleGroup::Group(64),
    ScaleGroup::Group(128),
    ScaleGroup::Group(256),
    ScaleGroup::PerChannel,
];

/// Weight formats with their zero-point modes.
pub fn a16_weights() -> Vec<(WeightFormat, ZeroPoint)> {
    let mut v: Vec<_> = (1..=8).map(|b| (WeightFormat::UInt(b), ZeroPoint::Implicit)).collect();
    v.extend((1..=8).map(|b| (WeightFormat::UInt(b), ZeroPoint::Dynamic)));
    v.extend((2..=8).map(|b| (WeightFormat::SInt(b), ZeroPoint::Implicit)));
    v.extend(FloatFormat::all().into_iter().map(|f| (WeightFormat::Float(f), ZeroPoint::Implicit)));
    v
}

/// Every spec of the family, in a fixed order.
pub fn a16_matrix() -> Vec<Spec> {
    let mut out = Vec::new();
    for act in [ActFormat::F16, ActFormat::Bf16] {
        for arch in A16_ARCHS {
            for (weight, zero_point) in a16_weights() {
                for scale in [ScaleFormat::F16, ScaleFormat::Bf16, ScaleFormat::E4m3, ScaleFormat::E5m2, ScaleFormat::Ue8m0] {
                    for group in A16_GROUPS {
                        for global_scale in [false, true] {
                            for out_fmt in [OutFormat::F16, OutFormat::Bf16] {
                                let parts = SpecParts {
                                    weight,
                                    act,
                                    scale,
                                    group,
                                    zero_point,
                                    global_scale,
                                    out: out_fmt,
                                    arch,
                                };
                                if let Ok(spec) = Spec::new(parts) {
                                    out.push(spec);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    out
}
