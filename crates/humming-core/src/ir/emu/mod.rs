//! [`Emulator`]: runs IR kernels on the CPU with PTX semantics, and reports misuse (races on
//! `cp.async` destinations, divergent uniform branches, barrier deadlocks, out-of-bounds or
//! misaligned accesses) as typed [`EmuError`]s naming the statement and the thread.
//!
//! # Execution model
//! - **Lowering.** At each launch the structured body is lowered once into a flat list of
//!   pre-decoded operations (operands resolved to register slots or immediates, parameters and
//!   shared symbols folded in, types checked against register classes). `Loop` becomes
//!   init / test / body / step / jump, `If` a branch and a jump. Loop bounds and `If`
//!   conditions must be uniform over the warp's active lanes ([`EmuError::Divergent`]).
//! - **Grid.** CTAs run one after another, x fastest, then y, then z.
//! - **Warps.** `ceil(block / 32)` warps per CTA; a warp is a pc plus the mask of its valid
//!   lanes (the tail lanes of the last warp are inactive). Structured control flow is uniform,
//!   so the mask never shrinks; guards (`@p`) predicate single instructions per lane.
//!   `Return` ends the warp.
//! - **Scheduling.** Cooperative: a warp runs until it reaches `bar.sync` or exits, then the
//!   next ready warp (round robin). A barrier completes when its thread count has arrived (all
//!   of the CTA's threads, counted per warp as 32, when `bar.sync` gives no count); exited
//!   warps never arrive, so a CTA where some warps wait while the others have exited is an
//!   [`EmuError::BarrierDeadlock`]. `bar.sync` must be executed by all active lanes of a warp
//!   or none, and, being `.aligned`, by every warp of a barrier phase at the same instruction
//!   ([`EmuError::BarrierMismatch`] otherwise); `barrier.sync` (not aligned) may be reached by
//!   different warps from different instructions.
//! - **Registers.** Every register is a `u64` per lane (slot `id * 32 + lane`), holding the
//!   value zero-extended to its class width; at CTA start registers are poisoned with
//!   all-ones (an uninitialized f32 reads as NaN) and predicates with false.
//!
//! # Memory
//! - **Global memory** is a set of allocations at 256-byte aligned addresses from
//!   `0x7f00_0000_0000`, each followed by an unmapped gap, never reused after
//!   [`Emulator::free`]. Fresh allocations are filled with `0xFF` bytes (f32/f16 NaN). Every
//!   access must lie entirely inside one live allocation.
//! - **Shared memory** is per CTA, a window `[1024, end)` of 32-bit addresses (`[0, 1024)` is
//!   unmapped so that a null shared pointer faults): static arrays in declaration order, each
//!   aligned to its alignment, then the dynamic array (aligned to at least 16) of
//!   `dims.dynamic_shared_bytes`. Filled with `0xFF` at CTA start. `Operand::SharedAddr(id)` is
//!   the array's address in the window.
//! - **Alignment.** Accesses must be aligned to their full size (`ld.v4.b32`: 16 bytes), as on
//!   the GPU ([`EmuError::Misaligned`]).
//! - **`cp.async`.** The global source is read when the instruction issues; the shared
//!   destination is written only when the issuing thread's `cp.async.wait_group n` retires the
//!   copy's group (groups are formed per thread by `commit_group`; copies not yet committed stay
//!   pending). Until then any shared access by any thread of the CTA overlapping the
//!   destination (load, store, atomic, `ldmatrix`, another `cp.async`) is an
//!   [`EmuError::PendingCpAsync`] naming both instructions.
//! - **`cp.async.bulk` and mbarriers.** An mbarrier is modelled per CTA at its shared address
//!   (arrivals per phase, arrivals and transaction bytes outstanding, phases completed). A bulk
//!   copy reads its global source when it issues and stays pending (as a `cp.async` does, with
//!   the same error on a touch of its destination) until a thread's wait observes the phase it
//!   completed in; then its bytes land. `mbarrier.arrive.expect_tx` adds its bytes and arrives;
//!   a phase completes when neither arrivals nor bytes are outstanding. `mbarrier.arrive` is one
//!   arrival; `cp.async.mbarrier.arrive.noinc` is one too, and the thread's pending `cp.async`
//!   copies then complete with that phase like bulk copies. A warp at a wait whose phase has not
//!   completed is suspended until another warp completes it; a wait that nothing can complete
//!   any more (every other warp waits or has exited) is an [`EmuError::UndefinedBehavior`]
//!   naming the outstanding arrivals and bytes, never a hang.
//!
//! # Arithmetic
//! Integer operations wrap at the type width; shifts clamp the amount at the width; division by
//! zero is an error. f32/f64 operations round to nearest even as IEEE; `fma.rz/.rm/.rp.f32` are
//! computed exactly with an error-free transformation and rounded in the requested direction
//! (`fma.f64` with directed rounding is [`EmuError::Unsupported`]). f16/bf16 (and x2) add, sub,
//! mul, fma are computed exactly in `f64` and rounded once (correctly rounded). NaN results are
//! canonical (f32 `0x7fffffff`, f16/bf16 `0x7fff`, f64 `0x7fff_ffff_ffff_ffff`; PTX specifies
//! only the first two). `neg`/`abs` on floats flip/clear the sign bit. `atom.add.f32` on
//! global memory flushes subnormal inputs and results to zero, as the GPU does; on shared
//! memory it does not.
//!
//! # Warp collectives
//! `shfl.sync` follows the ISA pseudocode (clamp in `c[4:0]`, segment mask in `c[12:8]`); the
//! executing lanes must equal the membermask's non-exited lanes and no lane may read from a
//! lane that does not execute ([`EmuError::Shfl`]). `ldmatrix` and `mma.sync` are `.aligned`:
//! all 32 lanes must execute them ([`EmuError::NotConverged`]). `mma` gathers A, B and C from
//! the fragment registers per the ISA layouts, computes `D = C + sum_k A[i][k] * B[k][j]` in
//! `f64` and rounds once to the accumulator type. Every product of the input types is exact in
//! `f64`, so integer results are exact (wrapped to 32 bits, like the GPU's wrapping `s32`
//! accumulation) and float sums are exact unless they span more than 53 bits. **The tensor
//! cores accumulate floats in their own order and internal precision, so GPU f32 results can
//! differ from the emulator's by a few f32 ulps** (more under heavy cancellation); compare
//! float mma results with a tolerance.
//!
//! `wgmma.mma_async` (sm_90a; A from registers, B through a no-swizzle shared-memory
//! descriptor) is a warpgroup collective: a warp stops at it like at a barrier, and when the
//! four warps of its warpgroup are there it runs for all of them at once (same arithmetic as
//! `mma`); its B reads stay in flight until every warp of the warpgroup has retired its group
//! (`commit_group` forms groups, `wait_group n` retires all but the newest `n`), and a shared
//! write over them is [`EmuError::WgmmaReadInFlight`] (the hardware may read B until then). A
//! warp whose mbarrier arrival completes a phase yields to the warps waiting for it. A CTA
//! without whole warpgroups, descriptors or accumulate predicates that differ between threads,
//! swizzled descriptors, partial warps and B reads outside the window or under a pending
//! `cp.async` are errors.

mod error;
mod float;
mod lower;
mod mma;
mod run;
mod wgmma;

pub use error::{Access, EmuError, Site, ThreadRef};

use crate::ir::{DevPtr, Executor, Kernel, KernelArg, LaunchDims, ParamTy};

/// The first global address handed out.
const GLOBAL_BASE: u64 = 0x7f00_0000_0000;
/// Largest shared window a CTA may use (227 KiB, the sm_90 per-block maximum).
const MAX_SHARED: u64 = 227 * 1024;

/// Counters of the last launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// CTAs executed.
    pub ctas: u64,
    /// Warp-instructions executed (lowered operations, including loop and branch bookkeeping).
    pub warp_instructions: u64,
    /// Lane-instructions: each warp-instruction counts the warp's active (non-exited) lanes,
    /// whether or not a guard predicates some of them off.
    pub lane_instructions: u64,
    /// `mma.sync` operations (per warp).
    pub mma: u64,
    /// Completed barriers.
    pub barriers: u64,
}

struct Alloc {
    base: u64,
    data: Vec<u8>,
}

/// The emulator's global memory: live allocations sorted by address.
#[derive(Default)]
pub(crate) struct GlobalMem {
    allocs: Vec<Alloc>,
    next: u64,
    /// Under [`Emulator::set_pre_wait_params`]: the `[start, end)` allocations a warp may touch
    /// before its `griddepcontrol.wait` in the current launch.
    pre_wait: Option<Vec<(u64, u64)>>,
}

impl std::fmt::Debug for GlobalMem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bytes: usize = self.allocs.iter().map(|a| a.data.len()).sum();
        f.debug_struct("GlobalMem")
            .field("allocations", &self.allocs.len())
            .field("bytes", &bytes)
            .finish()
    }
}

impl GlobalMem {
    /// Faults an access to memory of an earlier grid by a warp not yet past its
    /// `griddepcontrol.wait`.
    #[inline]
    pub(crate) fn check_prior(&self, waited: bool, access: Access, addr: u64, bytes: u32) -> Result<(), run::Fault> {
        match &self.pre_wait {
            Some(ok) if !waited && !ok.iter().any(|&(s, e)| addr >= s && addr + bytes as u64 <= e) => {
                Err(run::Fault::BeforeGridDepWait { access, addr, bytes })
            }
            _ => Ok(()),
        }
    }

    fn alloc(&mut self, bytes: usize) -> u64 {
        if self.next == 0 {
            self.next = GLOBAL_BASE;
        }
        let base = self.next;
        self.next = (base + bytes.max(1) as u64).div_ceil(256) * 256 + 256;
        self.allocs.push(Alloc {
            base,
            data: vec![0xff; bytes],
        });
        base
    }

    /// (allocation index, offset) of `[addr, addr + len)` if it lies inside one allocation.
    #[inline]
    fn locate(&self, addr: u64, len: u64) -> Option<(usize, usize)> {
        let i = self.allocs.partition_point(|a| a.base <= addr);
        if i == 0 {
            return None;
        }
        let a = &self.allocs[i - 1];
        let off = addr - a.base;
        let end = off.checked_add(len)?;
        (end <= a.data.len() as u64).then_some((i - 1, off as usize))
    }

    #[inline]
    pub(crate) fn bytes(&self, addr: u64, len: u64) -> Option<&[u8]> {
        let (i, off) = self.locate(addr, len)?;
        Some(&self.allocs[i].data[off..off + len as usize])
    }

    #[inline]
    pub(crate) fn bytes_mut(&mut self, addr: u64, len: u64) -> Option<&mut [u8]> {
        let (i, off) = self.locate(addr, len)?;
        Some(&mut self.allocs[i].data[off..off + len as usize])
    }
}

/// The CPU emulator. See the [module docs](self) for the execution and memory model.
///
/// ```
/// use humming_core::ir::{builder::KernelBuilder, emu::Emulator, Addr, CacheOp, Executor, Inst};
/// use humming_core::ir::{KernelArg, LaunchDims, ParamTy, Space, SpecialReg, Ty};
/// let mut b = KernelBuilder::new("iota", 64);
/// let out = b.param("out", ParamTy::Ptr);
/// let tid = b.special(SpecialReg::TidX);
/// let off = b.mul_wide_u32(tid, 4);
/// let addr = b.add(Ty::U64, out, off);
/// b.emit(Inst::St { space: Space::Global, cache: CacheOp::Default, ty: Ty::U32, src: vec![tid.into()], addr: Addr::reg(addr) });
/// let k = b.finish();
///
/// let mut emu = Emulator::new();
/// let buf = emu.alloc(64 * 4).unwrap();
/// emu.launch(&k, LaunchDims::linear(1, 64), &[KernelArg::Ptr(buf)]).unwrap();
/// let v: Vec<u32> = emu.download_vec(buf, 64).unwrap();
/// assert_eq!(v, (0..64).collect::<Vec<u32>>());
/// assert_eq!(emu.last_stats().lane_instructions, 6 * 64);
/// ```
#[derive(Debug, Default)]
pub struct Emulator {
    mem: GlobalMem,
    stats: Stats,
    step_limit: Option<u64>,
    pre_wait_params: Option<Vec<String>>,
    dynamic_shared_skew: u32,
}

impl Emulator {
    /// An emulator with empty global memory.
    pub fn new() -> Self {
        Self::default()
    }

    /// Counters of the last launch (also of a failed one, up to the fault).
    pub fn last_stats(&self) -> Stats {
        self.stats
    }

    /// Models programmatic dependent launch: every later launch may start while an earlier
    /// grid still runs, so before its `griddepcontrol.wait` a warp may only touch the
    /// allocations passed to the kernel parameters named here (e.g. the GEMM's weights, which no
    /// kernel writes); any other global access before the wait fails with
    /// [`EmuError::BeforeGridDepWait`]. `None` (the default) checks nothing.
    pub fn set_pre_wait_params(&mut self, params: Option<&[&str]>) {
        self.pre_wait_params = params.map(|p| p.iter().map(|s| s.to_string()).collect());
    }

    /// Places the dynamic shared array `bytes` (a multiple of 16) past the first address of its
    /// declared alignment, as a GPU whose reserved shared memory or static arrays shift it would;
    /// 0 (the default) places it at that address. Kernels that need a coarser alignment than
    /// they declare (e.g. 1 KB for swizzled wgmma tiles) must align it themselves.
    pub fn set_dynamic_shared_skew(&mut self, bytes: u32) {
        assert!(bytes % 16 == 0, "the shared window is 16-byte aligned");
        self.dynamic_shared_skew = bytes;
    }

    /// Limits the warp-instructions one launch may execute (`None`: no limit, the default);
    /// past it the launch fails with [`EmuError::StepLimit`] (catches endless loops).
    pub fn set_step_limit(&mut self, limit: Option<u64>) {
        self.step_limit = limit;
    }

    /// Frees the allocation that starts at `ptr`; its addresses are never handed out again,
    /// so later accesses through stale pointers fault.
    pub fn free(&mut self, ptr: DevPtr) -> Result<(), EmuError> {
        match self.mem.allocs.iter().position(|a| a.base == ptr.0) {
            Some(i) => {
                self.mem.allocs.remove(i);
                Ok(())
            }
            None => Err(EmuError::HostAccess {
                op: "free",
                addr: ptr.0,
                bytes: 0,
                reason: "not the start of a live allocation".into(),
            }),
        }
    }

    /// Bytes held by live allocations.
    pub fn allocated_bytes(&self) -> usize {
        self.mem.allocs.iter().map(|a| a.data.len()).sum()
    }

    fn check_launch(kernel: &Kernel, dims: LaunchDims, args: &[KernelArg]) -> Result<(), EmuError> {
        let name = || kernel.name.clone();
        if args.len() != kernel.params.len() {
            return Err(EmuError::ArgCount {
                kernel: name(),
                expected: kernel.params.len(),
                got: args.len(),
            });
        }
        for (index, (p, a)) in kernel.params.iter().zip(args).enumerate() {
            let ok = matches!(
                (p.ty, a),
                (ParamTy::U32, KernelArg::U32(_))
                    | (ParamTy::S32, KernelArg::S32(_))
                    | (ParamTy::F32, KernelArg::F32(_))
                    | (ParamTy::U64, KernelArg::U64(_))
                    | (ParamTy::Ptr, KernelArg::Ptr(_))
            );
            if !ok {
                return Err(EmuError::ArgType {
                    kernel: name(),
                    index,
                    param: p.name.clone(),
                    expected: p.ty,
                    got: *a,
                });
            }
        }
        if dims.block != kernel.block_threads {
            return Err(EmuError::BlockSize {
                kernel: name(),
                expected: kernel.block_threads,
                got: dims.block,
            });
        }
        let bad = |reason: String| {
            Err(EmuError::InvalidLaunch {
                kernel: name(),
                reason,
            })
        };
        if dims.block == 0 || dims.block > 1024 {
            return bad(format!("{} threads per CTA (1..=1024)", dims.block));
        }
        let (x, y, z) = dims.grid;
        if x == 0 || y == 0 || z == 0 {
            return bad(format!("empty grid ({x}, {y}, {z})"));
        }
        if y > 65535 || z > 65535 {
            return bad(format!("grid ({x}, {y}, {z}): y and z are at most 65535"));
        }
        let (cx, cy, cz) = dims.cluster;
        if cx == 0 || cy == 0 || cz == 0 || x % cx != 0 || y % cy != 0 || z % cz != 0 {
            return bad(format!("cluster ({cx}, {cy}, {cz}) does not divide the grid ({x}, {y}, {z})"));
        }
        if dims.cluster_size() > crate::ir::MAX_CLUSTER {
            return bad(format!("cluster ({cx}, {cy}, {cz}) of {} CTAs (at most {})", dims.cluster_size(), crate::ir::MAX_CLUSTER));
        }
        Ok(())
    }
}

impl Executor for Emulator {
    type Error = EmuError;

    fn name(&self) -> String {
        "emulator".into()
    }

    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, EmuError> {
        Ok(DevPtr(self.mem.alloc(bytes)))
    }

    fn upload(&mut self, dst: DevPtr, data: &[u8]) -> Result<(), EmuError> {
        match self.mem.bytes_mut(dst.0, data.len() as u64) {
            Some(b) => {
                b.copy_from_slice(data);
                Ok(())
            }
            None => Err(EmuError::HostAccess {
                op: "upload",
                addr: dst.0,
                bytes: data.len(),
                reason: "not inside one live allocation".into(),
            }),
        }
    }

    fn download(&mut self, src: DevPtr, out: &mut [u8]) -> Result<(), EmuError> {
        match self.mem.bytes(src.0, out.len() as u64) {
            Some(b) => {
                out.copy_from_slice(b);
                Ok(())
            }
            None => Err(EmuError::HostAccess {
                op: "download",
                addr: src.0,
                bytes: out.len(),
                reason: "not inside one live allocation".into(),
            }),
        }
    }

    fn launch(
        &mut self,
        kernel: &Kernel,
        dims: LaunchDims,
        args: &[KernelArg],
    ) -> Result<(), EmuError> {
        self.stats = Stats::default();
        Self::check_launch(kernel, dims, args)?;
        let prog = lower::lower(kernel, args, dims.dynamic_shared_bytes, self.dynamic_shared_skew)?;
        self.mem.pre_wait = self.pre_wait_params.as_ref().map(|names| {
            kernel
                .params
                .iter()
                .zip(args)
                .filter(|(p, _)| names.contains(&p.name))
                .filter_map(|(_, a)| match *a {
                    KernelArg::Ptr(ptr) => self.mem.locate(ptr.0, 1).map(|(i, _)| {
                        let a = &self.mem.allocs[i];
                        (a.base, a.base + a.data.len() as u64)
                    }),
                    _ => None,
                })
                .collect()
        });
        let window = (prog.shared_end - lower::SHARED_BASE) as u64;
        if window > MAX_SHARED {
            return Err(EmuError::InvalidLaunch {
                kernel: kernel.name.clone(),
                reason: format!("{window} bytes of shared memory per CTA (at most {MAX_SHARED})"),
            });
        }
        let mut runner = run::Runner::new(&prog, dims, self.step_limit);
        let result = runner.run(&mut self.mem);
        self.stats = runner.stats;
        result
    }
}
