//! Generated kernels as data: a [`GemmBundle`] holds, for one spec and target, the PTX of the
//! GEMM for each M bucket and of its split-K reduce. The `#[humming_gemm]` macro builds bundles
//! at compile time and embeds them as `static`s (every `Cow` borrowed); the runtime builds them
//! for specs known only at run time ([`super::cache`] keeps their PTX on disk). One generator,
//! [`GemmBundle::build`], serves both. Bundles of the default buckets also carry the plans that
//! differ on a GPU with less DRAM bandwidth ([`GemmBundle::lean`]); the launch picks them by the
//! device's profile ([`GemmBundle::variant_for_device`]).

use super::{DeviceProfile, GemmKernels, KernelError, KernelPlan, generate};
use crate::ir::ptx::{self, PtxVersion};
use crate::ir::Kernel;
use crate::spec::{Spec, SpecErrors, SpecParts};
use crate::Arch;
use std::borrow::Cow;

/// Identifies the code generator: bundles (and cached PTX) from another version are rebuilt.
/// Bump the last number whenever generated code changes (20: swapped plans sum per scale group,
/// its length fixed at generation and in the kernel's name where it changes the code; e4m3 /
/// e5m2 scales to f16 with the sm_89 conversion; 19: ue8m0 scales through a byte permute, a
/// shift and a max; 18: 4-bit floats in their own bit placement, rebuilt with rotations and
/// masks; 17: warp-specialized tiles of one math warpgroup take half the register file, two
/// CTAs an SM; 16: the warp-specialized producer's bulk weight copies and their L2 hint, B
/// descriptors at the stage's top; 15 was a reverted build's).
pub const GENERATOR_VERSION: &str = concat!("humming-core ", env!("CARGO_PKG_VERSION"), " a16/20");

/// One kernel as PTX text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledKernel {
    /// The `.entry` name.
    pub name: Cow<'static, str>,
    /// The complete PTX module.
    pub ptx: Cow<'static, str>,
    /// The module's `.version`: the driver must support it.
    pub ptx_version: PtxVersion,
    /// Threads per CTA the entry requires (`.reqntid`).
    pub threads: u32,
    /// [`CompiledKernel::id_of`] the PTX, computed once where the kernel is made: the runtime's
    /// module cache keys on it (hashing the PTX, ~100 KB, on every launch cost tens of
    /// microseconds).
    pub ptx_id: u64,
}

impl CompiledKernel {
    /// A 64-bit FNV-1a hash of `ptx` (the same on every platform and toolchain, so the macro can
    /// compute it at build time).
    pub fn id_of(ptx: &str) -> u64 {
        ptx.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
    }

    /// Prints `kernel` for `arch`.
    pub fn print(kernel: &Kernel, arch: Arch) -> Result<CompiledKernel, KernelError> {
        let text = ptx::print(kernel, arch).map_err(|e| KernelError::Ptx(e.to_string()))?;
        let ptx_version = ptx::required_version(kernel, arch).map_err(|e| KernelError::Ptx(e.to_string()))?;
        let ptx_id = CompiledKernel::id_of(&text);
        Ok(CompiledKernel { name: kernel.name.clone().into(), ptx: text.into(), ptx_version, threads: kernel.block_threads, ptx_id })
    }

    /// Whether the kernel waits for the grids before it (`griddepcontrol.wait`, the A16 GEMMs on
    /// sm_90+) before touching memory an earlier kernel may write: only such kernels may be
    /// launched with programmatic dependent launch.
    pub fn waits_for_prior_grid(&self) -> bool {
        self.ptx.contains("griddepcontrol.wait;")
    }
}

/// The GEMM for the M values of one bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GemmVariant {
    /// Largest M this variant is chosen for (the last variant takes every larger M too).
    pub max_m: u32,
    pub plan: KernelPlan,
    pub main: CompiledKernel,
}

/// Every kernel of one spec on one target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GemmBundle {
    /// The spec (valid when built; [`GemmBundle::spec`] re-validates).
    pub spec: SpecParts,
    /// [`GENERATOR_VERSION`] of the generator that built it.
    pub generator: Cow<'static, str>,
    /// By ascending `max_m`; never empty.
    pub variants: Cow<'static, [GemmVariant]>,
    /// Replacements of some `variants` on a GPU with less DRAM bandwidth than the H200
    /// ([`DeviceProfile::lean_dram`]), each with the `max_m` of the variant it replaces
    /// ([`KernelPlan::lean_buckets_spec`] for the default buckets); empty where the plans are the
    /// same, and in bundles built for explicit buckets alone.
    pub lean: Cow<'static, [GemmVariant]>,
    /// The split-K reduction.
    pub reduce: CompiledKernel,
}

impl GemmBundle {
    /// Generates `spec`'s kernels with one plan per M bucket (`(largest M, plan)`, ascending;
    /// see [`KernelPlan::buckets`] for the default).
    pub fn build(spec: &Spec, buckets: &[(u32, KernelPlan)]) -> Result<GemmBundle, KernelError> {
        if buckets.is_empty() || buckets.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(KernelError::Unsupported { spec: spec.id(), reason: "M buckets must be non-empty and ascending".into() });
        }
        let mut variants = Vec::with_capacity(buckets.len());
        let mut reduce = None;
        for &(max_m, plan) in buckets {
            let (v, k) = GemmBundle::variant(spec, max_m, plan)?;
            variants.push(v);
            if reduce.is_none() {
                reduce = Some(CompiledKernel::print(&k.reduce, spec.arch())?);
            }
        }
        Ok(GemmBundle {
            spec: spec.parts(),
            generator: GENERATOR_VERSION.into(),
            variants: variants.into(),
            lean: Cow::Borrowed(&[]),
            reduce: reduce.expect("at least one bucket"),
        })
    }

    /// The variant of `plan` for the bucket up to `max_m`, and the kernels it was printed from.
    fn variant(spec: &Spec, max_m: u32, plan: KernelPlan) -> Result<(GemmVariant, GemmKernels), KernelError> {
        let k = generate(spec, &plan)?;
        Ok((GemmVariant { max_m, plan, main: CompiledKernel::print(&k.main, spec.arch())? }, k))
    }

    /// [`GemmBundle::build`], with `lean`'s plans as [`GemmBundle::lean`]: each replaces the
    /// bucket of the same largest M on a lean-DRAM GPU, so each must name one of `buckets`.
    pub fn build_with_lean(spec: &Spec, buckets: &[(u32, KernelPlan)], lean: &[(u32, KernelPlan)]) -> Result<GemmBundle, KernelError> {
        if let Some((m, _)) = lean.iter().find(|(m, _)| !buckets.iter().any(|(b, _)| b == m)) {
            return Err(KernelError::Unsupported { spec: spec.id(), reason: format!("a lean-DRAM plan for M <= {m} replaces no bucket") });
        }
        let mut b = GemmBundle::build(spec, buckets)?;
        let lean = lean.iter().map(|&(max_m, plan)| GemmBundle::variant(spec, max_m, plan).map(|(v, _)| v)).collect::<Result<Vec<_>, KernelError>>()?;
        b.lean = lean.into();
        Ok(b)
    }

    /// [`GemmBundle::build`] with [`KernelPlan::buckets_spec`], and the lean-DRAM GPUs'
    /// replacements of [`KernelPlan::lean_buckets_spec`] in [`GemmBundle::lean`].
    pub fn build_default(spec: &Spec) -> Result<GemmBundle, KernelError> {
        GemmBundle::build_with_lean(spec, &KernelPlan::buckets_spec(spec), &KernelPlan::lean_buckets_spec(spec))
    }

    /// The `(largest M, plan)` buckets of [`GemmBundle::variants`].
    pub fn buckets(&self) -> Vec<(u32, KernelPlan)> {
        self.variants.iter().map(|v| (v.max_m, v.plan)).collect()
    }

    /// The `(largest M, plan)` replacements of [`GemmBundle::lean`].
    pub fn lean_buckets(&self) -> Vec<(u32, KernelPlan)> {
        self.lean.iter().map(|v| (v.max_m, v.plan)).collect()
    }

    /// The validated spec.
    pub fn spec(&self) -> Result<Spec, SpecErrors> {
        Spec::new(self.spec)
    }

    /// The variant for runtime `m`: the first whose bucket holds it, else the last.
    pub fn variant_for(&self, m: usize) -> &GemmVariant {
        self.variants.iter().find(|v| m <= v.max_m as usize).unwrap_or_else(|| self.variants.last().expect("bundles are never empty"))
    }

    /// [`GemmBundle::variant_for`] on the GPU `device` describes: on a lean-DRAM one, the
    /// bucket's replacement in [`GemmBundle::lean`] where there is one.
    pub fn variant_for_device(&self, m: usize, device: Option<&DeviceProfile>) -> &GemmVariant {
        let v = self.variant_for(m);
        match device {
            Some(d) if d.lean_dram() => self.lean.iter().find(|l| l.max_m == v.max_m).unwrap_or(v),
            _ => v,
        }
    }

    /// Every GEMM kernel of the bundle: the variants, then the lean GPUs' replacements.
    pub fn all_variants(&self) -> impl Iterator<Item = &GemmVariant> {
        self.variants.iter().chain(self.lean.iter())
    }

    /// The highest PTX version among the bundle's modules.
    pub fn ptx_version(&self) -> PtxVersion {
        self.all_variants().map(|v| v.main.ptx_version).fold(self.reduce.ptx_version, PtxVersion::max)
    }

    /// Regenerates the IR of `variant` (for the CPU emulator) and checks that it prints to the
    /// PTX the bundle carries: a bundle from another generator version is an error, not a
    /// silently different kernel.
    pub fn kernels(&self, variant: &GemmVariant) -> Result<GemmKernels, KernelError> {
        let spec = self.spec().map_err(|e| KernelError::Unsupported { spec: self.spec.id(), reason: e.to_string() })?;
        let k = generate(&spec, &variant.plan)?;
        let again = CompiledKernel::print(&k.main, spec.arch())?;
        if again != variant.main || self.generator != GENERATOR_VERSION {
            return Err(KernelError::Stale { kernel: variant.main.name.to_string(), bundle: self.generator.to_string(), generator: GENERATOR_VERSION.into() });
        }
        Ok(k)
    }
}

/// Of bundles for several targets of one spec, the one to run on a device of compute
/// capability `cc`: the newest target the device runs.
pub fn select(bundles: &[GemmBundle], cc: (u32, u32)) -> Option<&GemmBundle> {
    bundles.iter().filter(|b| b.spec.arch.runs_on(cc)).max_by_key(|b| b.spec.arch)
}
