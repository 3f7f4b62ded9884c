//! A validated GEMM specification: [`Spec`] is built only from [`SpecParts`] that pass every
//! rule below; otherwise [`Spec::new`] returns [`SpecErrors`] listing *every* violated rule, each
//! a [`SpecError`] naming the argument to blame ([`SpecError::field`]).
//!
//! # Rules
//!
//! Each rule is written once, as one function in `rules.rs`. `M_act`/`E_act` are the activation
//! type's mantissa/exponent bits; a weight's *values* are what it feeds the mma: `code - 2^(b-1)`
//! for `u{b}` with the implicit zero point, `code - zero` (in `[-(2^b-1), 2^b-1]`) with a dynamic
//! one, the code itself for `i{b}`.
//!
//! | # | Rule | Reason | Error (blamed field) |
//! |---|------|--------|----------------------|
//! | 0 | `u{b}` has `1 <= b <= 8`, `i{b}` has `2 <= b <= 8` | the enum variants are public, so widths are rechecked | `WeightWidth` (weight) |
//! | 1 | `Group(G)`: `G` a power of two, `16 <= G <= 1024` | groups tile the power-of-two K blocks; 16 is the f16 mma k | `GroupSize` (group) |
//! | 1 | int8/e4m3/e5m2 acts need `G >= 32`, int4 acts `G >= 64` | quantized activations apply weight scales per mma k-step (k = 32 / 64) on a second accumulator | `GroupTooSmallForAct` (group) |
//! | 2 | act bf16 needs sm_80+, act e4m3/e5m2 sm_89+ | bf16 mma arrived with sm_80, fp8 mma with sm_89 | `ActNeedsArch` (act) |
//! | 2 | scale bf16 needs sm_80+ | native bf16 conversions arrived with sm_80 | `ScaleNeedsArch` (scale) |
//! | 2 | out bf16 needs sm_80+ | native bf16 conversions arrived with sm_80 | `OutNeedsArch` (out) |
//! | 3 | a dynamic zero point needs `u{b}` weights (global scale is fine) | signed codes are already centred; floats have no zero point | `DynamicZeroPointNeedsUInt` (zero_point) |
//! | 4 | int8/int4 acts take no float weights | the integer mma multiplies integers only | `FloatWeightWithIntAct` (weight) |
//! | 4 | int8/int4 acts (`A` = 8 / 4 bits): weight values within the two's-complement range of `A` bits (`u{b}`: `b <= A`, with dynamic zero point `b + 1 <= A`; `i{b}`: `b <= A`) | the weights are fed to the mma as act-typed integers | `WeightRangeExceedsAct` (weight), or `ZeroPointRangeExceedsAct` (zero_point) when the implicit zero point would fit |
//! | 5 | e4m3/e5m2 acts: integer weight values within `\|v\| <= 2^(M_act+1)` (16 / 8) | the run of integers an fp8 type holds exactly | as rule 4 |
//! | 5 | e4m3/e5m2 acts: float weights `e{E}m{M}` need `M <= M_act`, `E <= E_act` | exact conversion; the exponent offset is folded into the scale, so `E <= E_act` keeps the dynamic range | `FloatWeightExceedsAct` (weight) |
//! | 6 | f16 acts: float weights need `E <= 5`; bf16 acts take every weight | f16 has a 5-bit exponent; 16-bit acts hold every integer weight value | `FloatWeightExceedsAct` (weight) |
//! | 5, 6 | float weights with `E = E_act` and no special values (e5m0, e5m1) not with IEEE-like acts (f16, bf16, e5m2) | their finite top binade would re-align onto the activation's infinities | `FloatWeightExceedsAct` (weight) |
//! | 7 | scale ue8m0 not with act f16 | ue8m0 spans 2^-127..2^127, beyond f16; bf16 and quantized activations (scales applied in f32) hold it | `Ue8m0ScaleNeedsWideAct` (scale) |
//! | 7 | scale f16 not with act bf16, scale bf16 not with act f16 | 16-bit activations apply group scales in their own precision; converting the scale would round it before the product | `ScaleMixes16Bit` (scale) |
//! | 8 | scale e4m3/e5m2 with any activation | decoded in registers | — |
//! | 9 | global scale with any block-scale format but ue8m0 | one f32 factor in the epilogue; MX (ue8m0) block scales are powers of two that carry the range themselves, and OCP MX defines no tensor scale | `GlobalScaleWithUe8m0` (global_scale) |
//! | 10 | out is f16 or bf16 | enforced by [`OutFormat`] | — |
//!
//! A malformed group (rule 1, first row) is reported once, without the k-step row. Rules 4 and 5
//! for integer weights are one check: the weight's values must lie in the run of integers that
//! the activation type holds exactly; for 16-bit activations that check always passes.
//! No rule blames `arch`: a format that needs a newer target is blamed, and the
//! message lists both the targets and the formats that would do.

mod error;
mod message;
mod parse;
mod rules;

pub use error::{SpecError, SpecErrors, SpecField};
pub use parse::{SPEC_KEYS, SpecParseError};

use crate::{ActFormat, Arch, OutFormat, ScaleFormat, ScaleGroup, WeightFormat, ZeroPoint};
use std::fmt;

/// The unchecked arguments of a [`Spec`]. Build one with [`SpecParts::new`] and struct update
/// syntax, then validate it with [`Spec::new`] (or [`SpecParts::validate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpecParts {
    /// Stored weight codes.
    pub weight: WeightFormat,
    /// Activations (the A operand).
    pub act: ActFormat,
    /// Stored weight scales.
    pub scale: ScaleFormat,
    /// Scale granularity along K.
    pub group: ScaleGroup,
    /// Zero point of unsigned integer weights.
    pub zero_point: ZeroPoint,
    /// Whether one extra f32 scale multiplies the whole output.
    pub global_scale: bool,
    /// Output element type.
    pub out: OutFormat,
    /// Target architecture.
    pub arch: Arch,
}

impl SpecParts {
    /// `weight` and `act` with defaults: scale and out f16 (bf16 when `act` is bf16),
    /// `Group(128)`, implicit zero point, no global scale, sm_80.
    pub fn new(weight: WeightFormat, act: ActFormat) -> SpecParts {
        let bf16 = act == ActFormat::Bf16;
        SpecParts {
            weight,
            act,
            scale: if bf16 {
                ScaleFormat::Bf16
            } else {
                ScaleFormat::F16
            },
            group: ScaleGroup::Group(128),
            zero_point: ZeroPoint::Implicit,
            global_scale: false,
            out: if bf16 {
                OutFormat::Bf16
            } else {
                OutFormat::F16
            },
            arch: Arch::Sm80,
        }
    }

    /// Every rule these parts violate, in rule order; empty when they are valid.
    pub fn violations(&self) -> Vec<SpecError> {
        rules::check(self)
    }

    /// Same as [`Spec::new`].
    pub fn validate(self) -> Result<Spec, SpecErrors> {
        Spec::new(self)
    }

    /// The identity string these parts would have as a [`Spec`] (see [`Spec::id`]).
    pub fn id(&self) -> String {
        let group = match self.group {
            ScaleGroup::PerChannel => "gpc".to_string(),
            ScaleGroup::Group(g) => format!("g{g}"),
        };
        let zp = match self.zero_point {
            ZeroPoint::Implicit => "implicit",
            ZeroPoint::Dynamic => "dynamic",
        };
        let gs = if self.global_scale { "-gs" } else { "" };
        format!(
            "w_{}-a_{}-s_{}-{group}-zp_{zp}-o_{}-{}{gs}",
            self.weight, self.act, self.scale, self.out, self.arch
        )
    }
}

/// A GEMM specification that passed every rule of the [module](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Spec {
    parts: SpecParts,
}

impl Spec {
    /// Validates `parts`; on failure the error lists every violated rule.
    pub fn new(parts: SpecParts) -> Result<Spec, SpecErrors> {
        match SpecErrors::new(parts, rules::check(&parts)) {
            None => Ok(Spec { parts }),
            Some(errors) => Err(errors),
        }
    }

    /// The validated parts.
    pub fn parts(&self) -> SpecParts {
        self.parts
    }

    pub fn weight(&self) -> WeightFormat {
        self.parts.weight
    }

    pub fn act(&self) -> ActFormat {
        self.parts.act
    }

    pub fn scale(&self) -> ScaleFormat {
        self.parts.scale
    }

    pub fn group(&self) -> ScaleGroup {
        self.parts.group
    }

    pub fn zero_point(&self) -> ZeroPoint {
        self.parts.zero_point
    }

    pub fn global_scale(&self) -> bool {
        self.parts.global_scale
    }

    pub fn out(&self) -> OutFormat {
        self.parts.out
    }

    pub fn arch(&self) -> Arch {
        self.parts.arch
    }

    /// The stable kernel identity, e.g. `w_u4-a_f16-s_f16-g128-zp_implicit-o_f16-sm_80`
    /// (`gpc` for per-channel scales, `-gs` appended with a global scale). Distinct specs have
    /// distinct ids.
    pub fn id(&self) -> String {
        self.parts.id()
    }
}

impl TryFrom<SpecParts> for Spec {
    type Error = SpecErrors;

    fn try_from(parts: SpecParts) -> Result<Spec, SpecErrors> {
        Spec::new(parts)
    }
}

impl From<Spec> for SpecParts {
    fn from(spec: Spec) -> SpecParts {
        spec.parts
    }
}

/// Writes [`Spec::id`].
impl fmt::Display for Spec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id())
    }
}
