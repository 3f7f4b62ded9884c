//! The instruction set: PTX-shaped, typed, one variant per instruction family.
//!
//! Semantics are PTX's (see the PTX ISA); the emulator implements exactly these meanings and
//! the printer prints exactly these instructions. Vector forms carry 1, 2 or 4 registers.

use super::types::{Addr, CacheOp, Cmp, Operand, Reg, Rnd, SpecialReg, Space, Ty};

/// Two-operand arithmetic and logic (`op.ty d, a, b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    /// `mul` for floats, `mul.lo` for integers.
    Mul,
    /// `mul.hi` (integers).
    MulHi,
    /// `mul.wide` (16->32 or 32->64 integers; `ty` is the source type).
    MulWide,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

/// One-operand arithmetic and logic (`op.ty d, a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Not,
    Abs,
    /// Population count (`popc.b32`/`.b64`, result u32).
    Popc,
}

/// Shuffle mode of `shfl.sync`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

/// `cp.async` cache operator: `.ca` (L1+L2; 4, 8 or 16 bytes) or `.cg` (L2 only; 16 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpAsyncCache {
    Ca,
    Cg,
}

/// L2 eviction priority of a cache policy made by `createpolicy`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L2Evict {
    /// `L2::evict_first`: lines go first (data streamed once).
    First,
    /// `L2::evict_last`: lines stay longest.
    Last,
    /// `L2::evict_normal`.
    Normal,
    /// `L2::evict_unchanged`.
    Unchanged,
}

impl L2Evict {
    /// The PTX spelling (`evict_first`, ...).
    pub fn ptx(self) -> &'static str {
        match self {
            L2Evict::First => "evict_first",
            L2Evict::Last => "evict_last",
            L2Evict::Normal => "evict_normal",
            L2Evict::Unchanged => "evict_unchanged",
        }
    }
}

/// Scope of a memory barrier (`membar.cta`, `membar.gl`, `membar.sys`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MembarLevel {
    Cta,
    /// The whole device (`membar.gl`, CUDA's `__threadfence()`).
    Gl,
    Sys,
}

impl MembarLevel {
    /// The PTX spelling (`cta`, `gl`, `sys`).
    pub fn ptx(self) -> &'static str {
        match self {
            MembarLevel::Cta => "cta",
            MembarLevel::Gl => "gl",
            MembarLevel::Sys => "sys",
        }
    }
}

/// Atomic / reduction operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exch,
    /// Compare-and-swap (`atom` only; takes `b` = compare, `c` = new value).
    Cas,
}

/// Shapes of `mma.sync.aligned`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaShape {
    /// m16n8k16: f16/bf16 (sm_80+).
    M16N8K16,
    /// m16n8k8: f16 (sm_75+), bf16 (sm_80+).
    M16N8K8,
    /// m16n8k32: s8/u8 (sm_80+), e4m3/e5m2 (sm_89+).
    M16N8K32,
    /// m16n8k64: s4/u4 (sm_80+).
    M16N8K64,
    /// m8n8k16: s8/u8 (sm_75+).
    M8N8K16,
    /// m8n8k32: s4/u4 (sm_75+).
    M8N8K32,
}

impl MmaShape {
    /// (m, n, k).
    pub fn mnk(self) -> (u32, u32, u32) {
        match self {
            MmaShape::M16N8K16 => (16, 8, 16),
            MmaShape::M16N8K8 => (16, 8, 8),
            MmaShape::M16N8K32 => (16, 8, 32),
            MmaShape::M16N8K64 => (16, 8, 64),
            MmaShape::M8N8K16 => (8, 8, 16),
            MmaShape::M8N8K32 => (8, 8, 32),
        }
    }
}

/// Element types of an `mma.sync`: `mma.sync.aligned.{shape}.row.col.{d}.{a}.{b}.{c}`.
/// A and B fragments are packed in `.b32` registers; C/D are `.f32` registers (f32
/// accumulators), `.b32` (f16x2 accumulators) or `.b32` holding `s32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaType {
    F16,
    Bf16,
    S8,
    U8,
    S4,
    U4,
    E4m3,
    E5m2,
    F32,
    S32,
}

impl MmaType {
    /// PTX spelling.
    pub fn ptx(self) -> &'static str {
        match self {
            MmaType::F16 => "f16",
            MmaType::Bf16 => "bf16",
            MmaType::S8 => "s8",
            MmaType::U8 => "u8",
            MmaType::S4 => "s4",
            MmaType::U4 => "u4",
            MmaType::E4m3 => "e4m3",
            MmaType::E5m2 => "e5m2",
            MmaType::F32 => "f32",
            MmaType::S32 => "s32",
        }
    }
}

/// One instruction. Registers in `dst`-like fields are written; everything else is read.
#[derive(Clone, Debug, PartialEq)]
pub enum Inst {
    /// `mov.ty d, a`.
    Mov { ty: Ty, dst: Reg, src: Operand },
    /// `mov.u32 d, %tid.x` etc.
    ReadSpecial { dst: Reg, sreg: SpecialReg },
    /// `ld.param.ty d, [param_i]`.
    LdParam { ty: Ty, dst: Reg, param: u32 },
    /// `ld{.space}{.cache}{.vN}.ty {d..}, [addr]` with 1, 2 or 4 destinations.
    Ld { space: Space, cache: CacheOp, ty: Ty, dst: Vec<Reg>, addr: Addr },
    /// `st{.space}{.cache}{.vN}.ty [addr], {a..}` with 1, 2 or 4 sources.
    St { space: Space, cache: CacheOp, ty: Ty, src: Vec<Operand>, addr: Addr },
    /// `op.ty d, a, b` (see [`BinOp`]).
    Bin { op: BinOp, ty: Ty, dst: Reg, a: Operand, b: Operand },
    /// `op.ty d, a` (see [`UnOp`]).
    Un { op: UnOp, ty: Ty, dst: Reg, a: Operand },
    /// `fma.rnd.ty d, a, b, c` (f32, f64, f16, f16x2, bf16, bf16x2).
    Fma { ty: Ty, rnd: Rnd, dst: Reg, a: Operand, b: Operand, c: Operand },
    /// `mad.lo.ty` (or `mad.wide.ty` when `wide`) `d, a, b, c` for integers.
    Mad { ty: Ty, wide: bool, dst: Reg, a: Operand, b: Operand, c: Operand },
    /// `lop3.b32 d, a, b, c, lut`.
    Lop3 { dst: Reg, a: Operand, b: Operand, c: Operand, lut: u8 },
    /// `prmt.b32 d, a, b, sel` (default mode).
    Prmt { dst: Reg, a: Operand, b: Operand, sel: Operand },
    /// `shf.{l|r}.{wrap|clamp}.b32 d, lo, hi, shift` (funnel shift).
    Shf { left: bool, wrap: bool, dst: Reg, lo: Operand, hi: Operand, shift: Operand },
    /// `bfe.{u32|s32|u64|s64} d, a, pos, len`.
    Bfe { ty: Ty, dst: Reg, a: Operand, pos: Operand, len: Operand },
    /// `cvt{.rnd}{.sat}.dty.sty d, a` (scalar conversions; also `cvt.rn.f16x2.e4m3x2` unpacking,
    /// where `dst_ty = F16x2` and `src_ty = E4m3x2`).
    Cvt { dst_ty: Ty, src_ty: Ty, rnd: Option<Rnd>, sat: bool, dst: Reg, src: Operand },
    /// Packing conversion of two f32: `cvt.rn{.satfinite}.{f16x2|bf16x2|e4m3x2|e5m2x2}.f32 d, hi, lo`
    /// (`hi` goes to the upper half of `d`).
    CvtPack { dst_ty: Ty, satfinite: bool, dst: Reg, hi: Operand, lo: Operand },
    /// `setp.cmp.ty p, a, b`.
    Setp { cmp: Cmp, ty: Ty, dst: Reg, a: Operand, b: Operand },
    /// `selp.ty d, a, b, p` (`d = p ? a : b`).
    Selp { ty: Ty, dst: Reg, a: Operand, b: Operand, pred: Reg },
    /// `cp.async.{ca|cg}.shared.global{.L2::cache_hint} [dst], [src], bytes{, src_size}{, policy}`:
    /// copies `bytes` (4, 8, 16) from global to shared, zero-filling past `src_size` bytes; with
    /// `policy` (a `.b64` register from [`Inst::CreatePolicy`]; sm_80, PTX 7.4) the L2 lines
    /// follow that cache policy (a hint: the copied values are the same).
    CpAsync { cache: CpAsyncCache, bytes: u32, dst: Addr, src: Addr, src_size: Option<Operand>, policy: Option<Reg> },
    /// `createpolicy.fractional.L2::{evict}.b64 dst, fraction`: an L2 cache policy (an opaque
    /// 64-bit value) applying `evict` to `fraction` (in (0, 1]) of the accesses that use it
    /// (sm_80, PTX 7.4).
    CreatePolicy { dst: Reg, evict: L2Evict, fraction: f32 },
    /// `mov.b32 dst, {lo, hi}`: two `.b16` registers packed into a 32-bit register, `lo` in
    /// bits 0..16. ptxas folds a pack of one value twice into the half-swizzle operand of packed
    /// f16 arithmetic (`HMUL2 .., R.H0_H0`).
    MovPack { dst: Reg, lo: Reg, hi: Reg },
    /// `mov.b32 {lo, hi}, src`: the two halves of a 32-bit register into `.b16` registers.
    MovUnpack { lo: Reg, hi: Reg, src: Reg },
    /// `membar.{cta|gl|sys}`: orders this thread's memory accesses before and after it, as seen
    /// by the threads of the level.
    Membar { level: MembarLevel },
    /// `fence.acq_rel.gpu` (sm_70, PTX 6.0): with a relaxed atomic after it a release pattern,
    /// before it an acquire pattern, at GPU scope (cumulative: it also orders the writes of other
    /// threads this one has synchronized with, e.g. through `bar.sync`). Lighter than
    /// `membar.gl` (`fence.sc.gpu`).
    FenceAcqRelGpu,
    /// `griddepcontrol.wait` (sm_90, PTX 7.8): blocks until the grids this one depends on
    /// (under programmatic dependent launch) have completed and their memory is visible; a no-op
    /// in a grid launched without that attribute.
    GridDepWait,
    /// `griddepcontrol.launch_dependents` (sm_90, PTX 7.8): lets a grid launched after this one
    /// with programmatic dependent launch start before this one ends (it still waits for this
    /// grid's memory at its own [`Inst::GridDepWait`]).
    GridDepLaunch,
    /// `cp.async.commit_group`.
    CpAsyncCommit,
    /// `cp.async.wait_group n`: wait until at most `n` committed groups are pending.
    CpAsyncWait { n: u32 },
    /// `ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16 {d..}, [addr]`; the number of
    /// destination registers (1, 2, 4) selects x1/x2/x4.
    Ldmatrix { trans: bool, dst: Vec<Reg>, addr: Addr },
    /// `mma.sync.aligned.shape.row.col.dty.aty.bty.cty {d..}, {a..}, {b..}, {c..}`.
    Mma {
        shape: MmaShape,
        d_ty: MmaType,
        a_ty: MmaType,
        b_ty: MmaType,
        c_ty: MmaType,
        d: Vec<Reg>,
        a: Vec<Reg>,
        b: Vec<Reg>,
        c: Vec<Reg>,
    },
    /// `wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{ab}.{ab} {d..}, {a..}, b_desc, scale_d, 1, 1, 0`
    /// (sm_90a, PTX 8.0): one warpgroup-wide (4 aligned warps) `D[64 x n] = A[64 x 16] x
    /// B[16 x n] (+ D)`. `a`: 4 `.b32` registers per thread, the `mma.m16n8k16` A fragment of
    /// rows `16 w..16 w + 16` for warp `w` of the warpgroup; `d`: `n / 2` f32 registers, the
    /// m16n8 accumulator fragment of each n8 block in turn; `b_desc`: a 64-bit shared-memory
    /// matrix descriptor of B stored K-major (start, leading byte offset between core matrices
    /// along K, stride byte offset between 8-row groups along N, no swizzle); `accumulate`: a
    /// predicate or the immediate 1 or 0 (false, 0: `D = A x B`). Asynchronous: `d` and `a` may be
    /// touched only after a [`Inst::WgmmaWait`] covering it, and a [`Inst::WgmmaFence`] must
    /// precede the first wgmma and follow register writes it reads.
    Wgmma { n: u32, ab: MmaType, d: Vec<Reg>, a: Vec<Reg>, b_desc: Reg, accumulate: Operand },
    /// `wgmma.fence.sync.aligned` (sm_90a, PTX 8.0).
    WgmmaFence,
    /// `wgmma.commit_group.sync.aligned` (sm_90a, PTX 8.0).
    WgmmaCommit,
    /// `wgmma.wait_group.sync.aligned n` (sm_90a, PTX 8.0): at most `n` groups still pending.
    WgmmaWait { n: u32 },
    /// `fence.proxy.async.shared::cta` (sm_90, PTX 8.0): orders this thread's earlier generic
    /// shared-memory writes before later reads by the async proxy (wgmma's B operand).
    FenceProxyAsync,
    /// `mbarrier.init.shared::cta.b64 [addr], count` (sm_80, PTX 7.0): an 8-byte shared-memory
    /// barrier expecting `count` arrivals per phase, in phase 0.
    MbarrierInit { addr: Addr, count: u32 },
    /// `fence.mbarrier_init.release.cluster` (sm_90, PTX 8.0): makes this thread's earlier
    /// `mbarrier.init`s visible to the async proxy (bulk copies completing on them).
    FenceMbarrierInit,
    /// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [addr], bytes` (sm_90, PTX 8.0): the
    /// current phase also waits for `bytes` more bytes of [`Inst::CpAsyncBulk`] transactions,
    /// then one arrival.
    MbarrierArriveExpectTx { addr: Addr, bytes: Operand },
    /// `mbarrier.arrive.shared::cta.b64 _, [addr]` (sm_80, PTX 7.8): one arrival on the
    /// barrier's current phase.
    MbarrierArrive { addr: Addr },
    /// `cp.async.mbarrier.arrive.noinc.shared::cta.b64 [addr]` (sm_80, PTX 7.8): one arrival on
    /// the barrier at `addr` once every `cp.async` this thread issued before has landed (the
    /// arrival is counted in the barrier's expected count: `.noinc`).
    CpAsyncMbarrierArrive { addr: Addr },
    /// Blocks until the phase of parity `parity` (0 or 1) of the barrier at `addr` has
    /// completed: a loop of `mbarrier.try_wait.parity.shared::cta.b64` (sm_90, PTX 7.8). Takes no
    /// guard.
    MbarrierWait { addr: Addr, parity: Operand },
    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], bytes,
    /// [mbar]` (sm_90, PTX 8.0): copies `bytes` (a multiple of 16; both addresses 16-byte
    /// aligned) from global to shared memory; each byte that lands counts as one transaction on
    /// the barrier at `mbar` (whose phase the data is read after). `policy`: an L2 cache policy
    /// (`.L2::cache_hint`, from [`Inst::CreatePolicy`]; a hint).
    CpAsyncBulk { dst: Addr, src: Addr, bytes: Operand, mbar: Addr, policy: Option<Reg> },
    /// `elect.sync _|dst, 0xffffffff` (sm_90, PTX 8.0): the predicate `dst` is true in one lane
    /// of the warp (the lowest), false in the others; all 32 lanes execute it. A single-thread
    /// action under it (a bulk copy) keeps its operands in uniform registers, where under a
    /// per-thread guard ptxas wraps it in a loop over the lanes the guard may hold.
    ElectSync { dst: Reg },
    /// `shfl.sync.mode.b32 d, a, b, c, membermask`.
    Shfl { mode: ShflMode, dst: Reg, a: Operand, b: Operand, c: Operand, mask: u32 },
    /// `bar.sync id{, threads}` (`aligned`: every participating thread executes this same
    /// instruction, as PTX requires of `bar.sync`), or `barrier.sync id{, threads}` (not
    /// `aligned`, sm_70+: warps may reach the barrier from different instructions, e.g. a
    /// warp-specialized kernel's producer and math warps from their own branches).
    BarSync { id: u32, threads: Option<u32>, aligned: bool },
    /// `setmaxnreg.{inc|dec}.sync.aligned.u32 count` (sm_90a, PTX 8.0): the warpgroup's threads
    /// take (`inc`, waiting until the CTA's pool has them) or give back registers so that each
    /// has `count` (24..=256, a multiple of 8); the code after it is allocated within `count`.
    /// Executed by all threads of a warpgroup; the kernel's launch register count is its
    /// `.maxnreg` ([`crate::ir::Kernel::max_regs`]).
    SetMaxNReg { inc: bool, count: u32 },
    /// `barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;` (sm_90,
    /// PTX 8.0 with these qualifiers): every thread of every CTA of the cluster arrives before any goes on, and the
    /// shared-memory writes of each before it are visible to the others' reads after it
    /// ([`Inst::LdCluster`]). A CTA launched without a cluster is a cluster of one.
    ClusterSync,
    /// `mapa.shared::cluster.u32 dst, addr, rank` (sm_90, PTX 7.8): the shared::cluster address
    /// of the location at shared address `addr` (of this CTA's window) in the CTA of rank
    /// `rank` of the cluster.
    Mapa { dst: Reg, addr: Reg, rank: Operand },
    /// `ld.shared::cluster{.v2,.v4}.ty {d..}, [addr]` (sm_90, PTX 7.8): a load from the shared
    /// memory of a CTA of the cluster, at an address from [`Inst::Mapa`] (or one of this CTA's
    /// own shared addresses).
    LdCluster { ty: Ty, dst: Vec<Reg>, addr: Addr },
    /// `atom{.space}.op.ty d, [addr], b{, c}`.
    Atom { space: Space, op: AtomOp, ty: Ty, dst: Reg, addr: Addr, b: Operand, c: Option<Operand> },
    /// `red{.space}.op.ty [addr], b`.
    Red { space: Space, op: AtomOp, ty: Ty, addr: Addr, b: Operand },
}
