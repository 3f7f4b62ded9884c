//! Running generated GEMM kernels on any [`Executor`] (the CPU emulator or a GPU): weight
//! upload, validation of every launch operand against the kernel, and the grid and argument
//! list of the main and split-K reduce launches. [`prepare`] is the one place that turns
//! operands into launches; the emulator path ([`run_gemm_in`]) and the typed GPU runtime
//! (humming-cuda) both go through it.

use super::a16::REDUCE_THREADS;
use super::{GemmKernels, KernelPlan};
use crate::ir::{DevPtr, Executor, KernelArg, LaunchDims};
use crate::pack::a16::PackedA16;
use crate::pack::fragment::A16Layout;
use crate::{ScaleFormat, ScaleGroup, Spec, WeightFormat, ZeroPoint};

/// What identifies packed weights to a kernel, without their data: formats, scale scheme and
/// layout. A launch checks it against the kernel's spec field by field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightsDesc {
    pub layout: A16Layout,
    pub format: WeightFormat,
    pub scale_format: ScaleFormat,
    pub group: ScaleGroup,
    pub zero_point: ZeroPoint,
    /// The global scale, when the weights have one.
    pub global_scale: Option<f32>,
}

impl WeightsDesc {
    /// The description of packed weights.
    pub fn of(p: &PackedA16) -> WeightsDesc {
        WeightsDesc {
            layout: p.layout,
            format: p.format,
            scale_format: p.scale_format,
            group: p.group,
            zero_point: if p.zeros.is_some() { ZeroPoint::Dynamic } else { ZeroPoint::Implicit },
            global_scale: p.global_scale,
        }
    }

    /// `log2(group)` as the kernel takes it; 31 for per-channel scales.
    pub fn group_shift(&self) -> u32 {
        match self.group {
            ScaleGroup::Group(g) => g.trailing_zeros(),
            ScaleGroup::PerChannel => 31,
        }
    }

    /// Checks that a kernel built for `spec` reads these weights correctly: same weight and
    /// scale formats, group, zero-point mode and global-scale presence.
    pub fn check_matches(&self, spec: &Spec) -> Result<(), LaunchError> {
        let mismatch = |field: &'static str, weights: String, kernel: String| {
            Err(LaunchError::WeightsMismatch { field, weights, kernel, spec: spec.id() })
        };
        if self.format != spec.weight() {
            return mismatch("weight format", self.format.to_string(), spec.weight().to_string());
        }
        if self.scale_format != spec.scale() {
            return mismatch("scale format", self.scale_format.to_string(), spec.scale().to_string());
        }
        if self.group != spec.group() {
            return mismatch("scale group", format!("{:?}", self.group), format!("{:?}", spec.group()));
        }
        if self.zero_point != spec.zero_point() {
            return mismatch("zero point", format!("{:?}", self.zero_point), format!("{:?}", spec.zero_point()));
        }
        if self.global_scale.is_some() != spec.global_scale() {
            let says = |b: bool| if b { "a global scale" } else { "no global scale" }.to_string();
            return mismatch("global scale", says(self.global_scale.is_some()), says(spec.global_scale()));
        }
        Ok(())
    }
}

/// Packed weights resident in an executor's memory.
#[derive(Clone, Debug)]
pub struct DeviceWeights {
    pub desc: WeightsDesc,
    pub words: DevPtr,
    pub scales: DevPtr,
    /// Dynamic zero points; the scale buffer stands in when there are none (never read).
    pub zeros: DevPtr,
}

/// A launch that cannot be made: every operand is checked before anything runs.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LaunchError {
    /// The weights were packed for a different spec than the kernel's.
    #[error("weights do not match kernel {spec}: {field} is {weights} in the weights, {kernel} in the kernel")]
    WeightsMismatch { field: &'static str, weights: String, kernel: String, spec: String },
    /// M is zero or beyond what the kernel indexes.
    #[error("M = {m} out of range 1..={max}")]
    M { m: usize, max: usize },
    /// A buffer too short for the shape.
    #[error("{operand}: {needed} elements needed for {shape}, the buffer has {got}")]
    TooShort { operand: &'static str, needed: usize, got: usize, shape: String },
    /// A buffer whose length is not a whole number of rows.
    #[error("{operand}: {len} elements is not a whole number of rows of {row}")]
    NotWholeRows { operand: &'static str, len: usize, row: usize },
    /// A device address without the alignment the kernel's vector accesses need.
    #[error("{operand}: address {addr:#x} is not {align}-byte aligned")]
    Misaligned { operand: &'static str, addr: u64, align: u64 },
    /// A split of K the plan cannot do, or one without a workspace.
    #[error("split-K {split}: {reason}")]
    Split { split: u32, reason: String },
    /// The weights' layout does not fit the kernel's plan.
    #[error("plan {plan}: {reason}")]
    Plan { plan: String, reason: String },
}

/// A launch that cannot be made, or an executor failure.
#[derive(Debug, thiserror::Error)]
pub enum GemmError<E: std::error::Error + 'static> {
    #[error(transparent)]
    Invalid(#[from] LaunchError),
    #[error(transparent)]
    Exec(E),
}

/// A device buffer as a launch sees it: address and length in elements (or bytes for the
/// workspace).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buf {
    pub ptr: DevPtr,
    pub len: usize,
}

/// The operands of one GEMM `out[m, n] = a[m, k] x W^T`.
#[derive(Clone, Copy, Debug)]
pub struct GemmOperands<'w> {
    pub weights: &'w DeviceWeights,
    /// `m * k` 16-bit activations, row-major.
    pub a: Buf,
    /// Room for `m * n` 16-bit outputs, row-major.
    pub out: Buf,
    /// f32 workspace in bytes ([`workspace_bytes`]); needed when `split > 1`.
    pub workspace: Option<Buf>,
    pub m: usize,
    /// CTAs sharing K (1 = no split).
    pub split: u32,
}

/// One kernel launch: its grid and arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Launch {
    pub dims: LaunchDims,
    pub args: Vec<KernelArg>,
}

/// The launches of one GEMM: the main kernel, then the reduce when K is split.
#[derive(Clone, Debug, PartialEq)]
pub struct GemmLaunches {
    pub main: Launch,
    pub reduce: Option<Launch>,
}

/// Largest M a launch takes (row indices and `m * n` stay within 32 bits in the kernel).
pub const MAX_M: usize = (i32::MAX / 2) as usize;

/// Bytes of f32 workspace a launch with `split` K-splits needs (0 without a split).
pub fn workspace_bytes(layout: &A16Layout, m: usize, split: u32) -> usize {
    if split > 1 { split as usize * m * layout.n_pad * 4 } else { 0 }
}

/// Alignment of activation, output and workspace addresses (16-byte vector copies).
pub const OPERAND_ALIGN: u64 = 16;

/// Validates every operand of a GEMM for the kernel of `spec` with `plan` and builds its
/// launches. Nothing is launched.
pub fn prepare(spec: &Spec, plan: &KernelPlan, ops: &GemmOperands) -> Result<GemmLaunches, LaunchError> {
    let w = ops.weights;
    w.desc.check_matches(spec)?;
    let l = w.desc.layout;
    let m = ops.m;
    if m == 0 || m > MAX_M {
        return Err(LaunchError::M { m, max: MAX_M });
    }
    let shape = || format!("M x N x K = {m} x {} x {}", l.n, l.k);
    let need = |operand, needed: usize, got: usize| {
        if got < needed { Err(LaunchError::TooShort { operand, needed, got, shape: shape() }) } else { Ok(()) }
    };
    need("activations", m * l.k, ops.a.len)?;
    need("output", m * l.n, ops.out.len)?;
    let mut ptrs = vec![("activations", ops.a.ptr), ("output", ops.out.ptr), ("weights", w.words), ("scales", w.scales)];
    if l.k_pad as u32 % plan.bk != 0 {
        return Err(LaunchError::Plan { plan: plan.to_string(), reason: format!("padded K {} is not a multiple of bk {}", l.k_pad, plan.bk) });
    }
    let stages = (l.k_pad as u32 / plan.bk).max(1);
    let split = ops.split;
    if split == 0 || split > stages {
        return Err(LaunchError::Split { split, reason: format!("must be in 1..={stages} (the K stages of bk {})", plan.bk) });
    }
    let ws = if split > 1 {
        let Some(ws) = ops.workspace else {
            return Err(LaunchError::Split { split, reason: "needs a workspace".into() });
        };
        let bytes = workspace_bytes(&l, m, split);
        if ws.len < bytes {
            return Err(LaunchError::TooShort { operand: "workspace (bytes)", needed: bytes, got: ws.len, shape: shape() });
        }
        ptrs.push(("workspace", ws.ptr));
        Some(ws.ptr)
    } else {
        None
    };
    for (operand, p) in ptrs {
        if p.0 % OPERAND_ALIGN != 0 {
            return Err(LaunchError::Misaligned { operand, addr: p.0, align: OPERAND_ALIGN });
        }
    }
    let gs = w.desc.global_scale.unwrap_or(1.0);
    let main = Launch {
        dims: LaunchDims {
            grid: ((l.n_pad as u32).div_ceil(plan.bn()), (m as u32).div_ceil(plan.bm()), split),
            block: plan.threads(),
            dynamic_shared_bytes: plan.smem_bytes(l.bits),
        },
        args: vec![
            KernelArg::Ptr(ops.a.ptr),
            KernelArg::Ptr(w.words),
            KernelArg::Ptr(w.scales),
            KernelArg::Ptr(w.zeros),
            KernelArg::Ptr(ops.out.ptr),
            KernelArg::Ptr(ws.unwrap_or(ops.out.ptr)),
            KernelArg::F32(gs),
            KernelArg::U32(m as u32),
            KernelArg::U32(l.n as u32),
            KernelArg::U32(l.k as u32),
            KernelArg::U32(l.n_pad as u32),
            KernelArg::U32(l.k_pad as u32),
            KernelArg::U32(w.desc.group_shift()),
        ],
    };
    let reduce = ws.map(|ws| {
        let total = (m * l.n) as u32;
        Launch {
            dims: LaunchDims::linear(total.div_ceil(REDUCE_THREADS), REDUCE_THREADS),
            args: vec![
                KernelArg::Ptr(ws),
                KernelArg::Ptr(ops.out.ptr),
                KernelArg::F32(gs),
                KernelArg::U32(m as u32),
                KernelArg::U32(l.n as u32),
                KernelArg::U32(l.n_pad as u32),
                KernelArg::U32(split),
            ],
        }
    });
    Ok(GemmLaunches { main, reduce })
}

/// Uploads packed weights.
pub fn upload_weights<E: Executor>(ex: &mut E, p: &PackedA16) -> Result<DeviceWeights, E::Error> {
    let words = ex.upload_new(&p.words)?;
    let scales = ex.upload_new(&p.scales)?;
    let zeros = match &p.zeros {
        Some(z) => ex.upload_new(z)?,
        None => scales,
    };
    Ok(DeviceWeights { desc: WeightsDesc::of(p), words, scales, zeros })
}

/// `out[m, n] = a[m, k] x W^T` on `ex`, allocating the workspace a split needs (see
/// [`run_gemm_in`] to bring one). Buffer lengths are taken as exactly `m * k` and `m * n`.
pub fn run_gemm<E: Executor>(
    ex: &mut E,
    kernels: &GemmKernels,
    w: &DeviceWeights,
    a: DevPtr,
    out: DevPtr,
    m: usize,
    split: u32,
) -> Result<(), GemmError<E::Error>> {
    let bytes = workspace_bytes(&w.desc.layout, m, split);
    let ws = if bytes > 0 { Some(Buf { ptr: ex.alloc(bytes).map_err(GemmError::Exec)?, len: bytes }) } else { None };
    let l = w.desc.layout;
    let ops = GemmOperands {
        weights: w,
        a: Buf { ptr: a, len: m * l.k },
        out: Buf { ptr: out, len: m * l.n },
        workspace: ws,
        m,
        split,
    };
    run_gemm_in(ex, kernels, &ops)
}

/// Validates `ops` against `kernels` and launches the GEMM (and its reduce) on `ex`.
pub fn run_gemm_in<E: Executor>(ex: &mut E, kernels: &GemmKernels, ops: &GemmOperands) -> Result<(), GemmError<E::Error>> {
    let launches = prepare(&kernels.spec, &kernels.plan, ops)?;
    ex.launch(&kernels.main, launches.main.dims, &launches.main.args).map_err(GemmError::Exec)?;
    if let Some(r) = launches.reduce {
        ex.launch(&kernels.reduce, r.dims, &r.args).map_err(GemmError::Exec)?;
    }
    Ok(())
}
