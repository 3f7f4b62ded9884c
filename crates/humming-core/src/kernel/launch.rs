//! Running generated GEMM kernels on any [`Executor`] (the CPU emulator or a GPU): weight
//! upload, argument validation, and the main + split-K reduce launches.

use super::GemmKernels;
use super::a16::REDUCE_THREADS;
use crate::ir::{DevPtr, Executor, KernelArg, LaunchDims};
use crate::pack::a16::PackedA16;

/// Packed weights resident in an executor's memory.
#[derive(Clone, Debug)]
pub struct DeviceWeights {
    pub packed_meta: PackedA16Meta,
    pub words: DevPtr,
    pub scales: DevPtr,
    /// Dynamic zero points; the scale buffer stands in when there are none (never read).
    pub zeros: DevPtr,
}

/// What a launch needs to know of packed weights, without their data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PackedA16Meta {
    pub layout: crate::pack::fragment::A16Layout,
    pub format: crate::WeightFormat,
    pub global_scale: f32,
    pub group_shift: u32,
    pub dynamic_zero: bool,
}

/// A launch that cannot be made, or an executor failure.
#[derive(Debug, thiserror::Error)]
pub enum GemmError<E: std::error::Error + 'static> {
    #[error("invalid GEMM launch: {0}")]
    Invalid(String),
    #[error(transparent)]
    Exec(E),
}

/// Uploads packed weights.
pub fn upload_weights<E: Executor>(ex: &mut E, p: &PackedA16) -> Result<DeviceWeights, E::Error> {
    let words = ex.upload_new(&p.words)?;
    let scales = ex.upload_new(&p.scales)?;
    let zeros = match &p.zeros {
        Some(z) => ex.upload_new(z)?,
        None => scales,
    };
    Ok(DeviceWeights {
        packed_meta: PackedA16Meta {
            layout: p.layout,
            format: p.format,
            global_scale: p.global_scale,
            group_shift: p.group_shift,
            dynamic_zero: p.zeros.is_some(),
        },
        words,
        scales,
        zeros,
    })
}

/// Bytes of f32 workspace a launch with `split` K-splits needs (0 without a split).
pub fn workspace_bytes(w: &DeviceWeights, m: usize, split: u32) -> usize {
    if split > 1 { split as usize * m * w.packed_meta.layout.n_pad * 4 } else { 0 }
}

/// `out[m, n] = a[m, k] x W^T`: `a` holds `m * k` 16-bit activations, `out` room for `m * n`
/// 16-bit outputs. `split` CTAs share K (1 = no split; >1 adds the reduce launch and an f32
/// workspace of [`workspace_bytes`], allocated here; see [`run_gemm_in`] to bring one).
pub fn run_gemm<E: Executor>(
    ex: &mut E,
    kernels: &GemmKernels,
    w: &DeviceWeights,
    a: DevPtr,
    out: DevPtr,
    m: usize,
    split: u32,
) -> Result<(), GemmError<E::Error>> {
    let bytes = workspace_bytes(w, m, split);
    let ws = if bytes > 0 { Some(ex.alloc(bytes).map_err(GemmError::Exec)?) } else { None };
    run_gemm_in(ex, kernels, w, a, out, m, split, ws)
}

/// [`run_gemm`] with a caller-provided workspace of at least [`workspace_bytes`] (required when
/// `split > 1`).
#[allow(clippy::too_many_arguments)]
pub fn run_gemm_in<E: Executor>(
    ex: &mut E,
    kernels: &GemmKernels,
    w: &DeviceWeights,
    a: DevPtr,
    out: DevPtr,
    m: usize,
    split: u32,
    ws: Option<DevPtr>,
) -> Result<(), GemmError<E::Error>> {
    let meta = &w.packed_meta;
    let l = meta.layout;
    let spec = &kernels.spec;
    if meta.format != spec.weight() {
        return Err(GemmError::Invalid(format!(
            "weights are packed as {}, kernel {} expects {}",
            meta.format,
            kernels.main.name,
            spec.weight()
        )));
    }
    if meta.dynamic_zero != (spec.zero_point() == crate::ZeroPoint::Dynamic) {
        return Err(GemmError::Invalid("zero-point mode of the weights differs from the kernel's".into()));
    }
    if m == 0 || m > u32::MAX as usize / 2 {
        return Err(GemmError::Invalid(format!("M = {m} out of range")));
    }
    let plan = kernels.plan;
    let stages = (l.k_pad as u32) / plan.bk;
    if l.k_pad as u32 % plan.bk != 0 {
        return Err(GemmError::Invalid(format!("padded K {} is not a multiple of the plan's bk {}", l.k_pad, plan.bk)));
    }
    if split == 0 || split > stages.max(1) {
        return Err(GemmError::Invalid(format!("split {split} out of 1..={} (K stages)", stages.max(1))));
    }
    if split > 1 && ws.is_none() {
        return Err(GemmError::Invalid(format!("split {split} needs a workspace")));
    }
    let ws = if split > 1 { ws } else { None };
    let gs = if spec.global_scale() { meta.global_scale } else { 1.0 };
    let dims = LaunchDims {
        grid: ((l.n_pad as u32).div_ceil(plan.bn()), (m as u32).div_ceil(plan.bm()), split),
        block: plan.threads(),
        dynamic_shared_bytes: plan.smem_bytes(l.bits),
    };
    let args = [
        KernelArg::Ptr(a),
        KernelArg::Ptr(w.words),
        KernelArg::Ptr(w.scales),
        KernelArg::Ptr(w.zeros),
        KernelArg::Ptr(out),
        KernelArg::Ptr(ws.unwrap_or(out)),
        KernelArg::F32(gs),
        KernelArg::U32(m as u32),
        KernelArg::U32(l.n as u32),
        KernelArg::U32(l.k as u32),
        KernelArg::U32(l.n_pad as u32),
        KernelArg::U32(l.k_pad as u32),
        KernelArg::U32(meta.group_shift),
    ];
    ex.launch(&kernels.main, dims, &args).map_err(GemmError::Exec)?;
    if let Some(ws) = ws {
        let total = (m * l.n) as u32;
        let rargs = [
            KernelArg::Ptr(ws),
            KernelArg::Ptr(out),
            KernelArg::F32(gs),
            KernelArg::U32(m as u32),
            KernelArg::U32(l.n as u32),
            KernelArg::U32(l.n_pad as u32),
            KernelArg::U32(split),
        ];
        ex.launch(&kernels.reduce, LaunchDims::linear(total.div_ceil(REDUCE_THREADS), REDUCE_THREADS), &rargs)
            .map_err(GemmError::Exec)?;
    }
    Ok(())
}
