//! GEMM kernels generated from components (shared/design.md section 4): global->shared loaders
//! ([`loader`]), dequantizers ([`dequant`]), scale/zero-point sources ([`scales`]), MMA op
//! selection ([`mma`]), and the kernel that composes them with an epilogue and a split-K
//! scheduler ([`a16`]). A [`KernelPlan`] (a value) fixes tile shapes and pipeline depth.

pub mod a16;
pub mod check;
pub mod coverage;
pub mod dequant;
mod emit;
pub mod launch;
pub mod loader;
pub mod mma;
pub mod plan;
pub mod scales;

pub use plan::{KernelPlan, PlanError};

use crate::format::{ActFormat, WeightFormat};
use crate::ir::Kernel;
use crate::spec::Spec;
use crate::{Arch, ZeroPoint};
use a16::A16Config;
use dequant::{Act16, Dequant};
use mma::MmaOp;
use scales::ScaleSource;

/// Why a kernel cannot be generated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    /// The spec is valid but this generator does not build it yet.
    #[error("spec {spec}: {reason}")]
    Unsupported { spec: String, reason: String },
    #[error(transparent)]
    Plan(#[from] PlanError),
}

/// The kernels of one (spec, plan): the GEMM and its split-K reduction.
#[derive(Clone, Debug)]
pub struct GemmKernels {
    pub spec: Spec,
    pub plan: KernelPlan,
    pub config: A16Config,
    /// The GEMM (parameters [`a16::MAIN_PARAMS`]).
    pub main: Kernel,
    /// The split-K reduction (parameters [`a16::REDUCE_PARAMS`]).
    pub reduce: Kernel,
}

/// The component configuration for a spec and plan.
pub fn configure(spec: &Spec, plan: &KernelPlan) -> Result<A16Config, KernelError> {
    let unsupported = |reason: &str| KernelError::Unsupported { spec: spec.id(), reason: reason.to_string() };
    let act = match spec.act() {
        ActFormat::F16 => Act16::F16,
        ActFormat::Bf16 => Act16::Bf16,
        _ => return Err(unsupported("only 16-bit activations (f16, bf16) are generated so far")),
    };
    let dynamic = spec.zero_point() == ZeroPoint::Dynamic;
    let dequant = match spec.weight() {
        WeightFormat::UInt(bits) | WeightFormat::SInt(bits) => {
            let implicit_zero = if dynamic { None } else { Some(1u32 << (bits - 1)) };
            if act == Act16::Bf16 && bits == 8 {
                Dequant::IntF32 { implicit_zero }
            } else {
                Dequant::IntMagic { act, bits, implicit_zero }
            }
        }
        WeightFormat::Float(format) => Dequant::FloatRealign { act, format },
    };
    let arch = spec.arch();
    plan.validate(arch, dequant.bits())?;
    Ok(A16Config {
        plan: *plan,
        scales: ScaleSource { format: spec.scale(), act, f32_scales: dequant.f32_scales(), dynamic_zero: dynamic },
        dequant,
        mma: MmaOp::select(arch, act),
        out: spec.out(),
        global_scale: spec.global_scale(),
        cp_async: arch >= Arch::Sm80,
    })
}

/// Generates the kernels of `spec` with `plan`.
pub fn generate(spec: &Spec, plan: &KernelPlan) -> Result<GemmKernels, KernelError> {
    let config = configure(spec, plan)?;
    let main = a16::build_main(&kernel_name(spec, plan), &config);
    let reduce = a16::build_reduce(&format!("hm_reduce_{}_{}", spec.out(), spec.global_scale() as u8), spec.out(), spec.global_scale());
    Ok(GemmKernels { spec: *spec, plan: *plan, config, main, reduce })
}

/// The entry name of the GEMM of `spec` with `plan`: everything that changes the code (formats,
/// zero-point mode, global scale, output, target, plan) and nothing that does not (the group size
/// is a launch argument, so specs that differ only in it share one kernel).
pub fn kernel_name(spec: &Spec, plan: &KernelPlan) -> String {
    format!(
        "hm_a16_w{}_a{}_s{}_{}{}_o{}_{}_{plan}",
        spec.weight(),
        spec.act(),
        spec.scale(),
        if spec.zero_point() == ZeroPoint::Dynamic { "zpd" } else { "zpi" },
        if spec.global_scale() { "_gs" } else { "" },
        spec.out(),
        spec.arch().name(),
    )
}
