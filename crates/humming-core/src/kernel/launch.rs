//! Running generated GEMM kernels on any [`Executor`] (the CPU emulator or a GPU): weight
//! upload, validation of every launch operand against the kernel, and the grid and argument
//! list of the launch. [`prepare`] is the one place that turns operands into launches; the
//! emulator path ([`run_gemm_in`]) and the typed GPU runtime (humming-cuda) both go through it.
//!
//! Split K is reduced inside the GEMM launch (the last CTA of each output tile sums the f32
//! partials in split order), so [`GemmLaunches::reduce`] is `None` for the kernels generated
//! now; it stays in the type for runtimes that handle it.

use super::{GemmKernels, KernelPlan, qbytes};
use crate::ir::{DevPtr, Executor, KernelArg, LaunchDims};
use crate::pack::a16::PackedA16;
use crate::pack::fragment::{A16Layout, BitPlacement};
use crate::{ScaleFormat, ScaleGroup, Spec, WeightFormat, ZeroPoint};

/// What identifies packed weights to a kernel, without their data: formats, scale scheme and
/// layout. A launch checks it against the kernel's spec field by field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightsDesc {
    pub layout: A16Layout,
    pub format: WeightFormat,
    /// Where the codes' bits sit in their words (4-bit floats: placed for one activation type).
    pub placement: BitPlacement,
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
            placement: p.placement,
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
    /// scale formats, bit placement, group, zero-point mode and global-scale presence.
    pub fn check_matches(&self, spec: &Spec) -> Result<(), LaunchError> {
        let mismatch = |field: &'static str, weights: String, kernel: String| {
            Err(LaunchError::WeightsMismatch { field, weights, kernel, spec: spec.id() })
        };
        if self.format != spec.weight() {
            return mismatch("weight format", self.format.to_string(), spec.weight().to_string());
        }
        let placement = BitPlacement::new(spec.weight(), spec.act());
        if self.placement != placement {
            return mismatch("bit placement", self.placement.to_string(), placement.to_string());
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
    /// Workspace of [`workspace_bytes`] bytes, needed when `split > 1`: f32 partials and the
    /// per-tile arrival counters of the in-kernel split-K reduction. **It must be zero-filled
    /// before its first launch**; every launch leaves it zero-filled again (the counters are
    /// reset by the CTA that reduces), so one zeroing at allocation is enough. Launches sharing
    /// a workspace must not run concurrently.
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

/// The launches of one GEMM: the main kernel, then the reduce when K is split and the kernel
/// does not reduce it itself (never, for the kernels generated now: `reduce` is `None`).
#[derive(Clone, Debug, PartialEq)]
pub struct GemmLaunches {
    pub main: Launch,
    pub reduce: Option<Launch>,
}

impl GemmLaunches {
    /// The same launches with their split-K workspace at `ptr` instead: for a caller that
    /// validated them ([`prepare`]) before the workspace existed (with a placeholder address
    /// of the same size), so that only the new address needs checking.
    pub fn with_workspace(mut self, ptr: DevPtr) -> Result<GemmLaunches, LaunchError> {
        if ptr.0 % OPERAND_ALIGN != 0 {
            return Err(LaunchError::Misaligned { operand: "workspace", addr: ptr.0, align: OPERAND_ALIGN });
        }
        let slot = |params: &[&str]| params.iter().position(|&p| p == "workspace").expect("a workspace parameter");
        self.main.args[slot(&super::a16::MAIN_PARAMS)] = KernelArg::Ptr(ptr);
        if let Some(r) = &mut self.reduce {
            r.args[slot(&super::a16::REDUCE_PARAMS)] = KernelArg::Ptr(ptr);
        }
        Ok(self)
    }
}

/// Largest K split a launch takes (the grid's z dimension).
pub const MAX_SPLIT: u32 = 65535;

/// Largest M a launch takes (row indices and `m * n` stay within 32 bits in the kernel).
pub const MAX_M: usize = (i32::MAX / 2) as usize;

/// Bytes of workspace a launch with `split` K-splits needs (0 without a split): `split` slices
/// of `m x n_pad` f32 partials, then one u32 arrival counter per output tile (room for the
/// smallest tile, 8 x 64 of a swapped plan, so any plan fits). Zero-filled before first use (see
/// [`GemmOperands::workspace`]).
pub fn workspace_bytes(layout: &A16Layout, m: usize, split: u32) -> usize {
    if split > 1 { workspace_counters(layout, m, split).end } else { 0 }
}

/// The byte range of the arrival counters inside a workspace of [`workspace_bytes`] (what must
/// be zero when a split launch starts; every launch leaves it zero again).
pub fn workspace_counters(layout: &A16Layout, m: usize, split: u32) -> std::ops::Range<usize> {
    let start = split as usize * m * layout.n_pad * 4;
    start..start + if split > 1 { counter_bytes(layout, m) } else { 0 }
}

fn counter_bytes(layout: &A16Layout, m: usize) -> usize {
    (layout.n_pad / 64) * m.div_ceil(8) * 4
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
    // Any split works: CTAs share the K stages as evenly as possible, and a CTA left without a
    // stage (split > stages) contributes a zero partial. Bounded by the grid's z limit.
    let split = ops.split;
    if split == 0 || split > MAX_SPLIT {
        return Err(LaunchError::Split { split, reason: format!("must be in 1..={MAX_SPLIT}") });
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
            dynamic_shared_bytes: plan.smem_bytes_q(l.bits, qbytes(spec)),
            cluster: crate::ir::NO_CLUSTER,
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
    Ok(GemmLaunches { main, reduce: None })
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

/// Allocates the workspace of a launch with `split` K-splits ([`workspace_bytes`]), zero-filled
/// as the kernels require; `None` without a split.
pub fn alloc_workspace<E: Executor>(ex: &mut E, layout: &A16Layout, m: usize, split: u32) -> Result<Option<Buf>, E::Error> {
    let bytes = workspace_bytes(layout, m, split);
    if bytes == 0 {
        return Ok(None);
    }
    let ptr = ex.alloc(bytes)?;
    ex.upload(ptr, &vec![0u8; bytes])?;
    Ok(Some(Buf { ptr, len: bytes }))
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
    let ws = alloc_workspace(ex, &w.desc.layout, m, split).map_err(GemmError::Exec)?;
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
