//! [`EmuError`]: every way a launch (or a host-side memory call) can fail, with the statement
//! and the thread that caused it.

use std::fmt;

use crate::ir::{KernelArg, ParamTy, Space};

/// A statement of the kernel: its index in a pre-order walk of [`crate::ir::Kernel::body`]
/// (every [`crate::ir::Stmt`] counts: instructions, loops, ifs, returns) and a short PTX-like
/// rendering of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    pub index: usize,
    pub text: String,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stmt #{} `{}`", self.index, self.text)
    }
}

/// One thread of a launch: its CTA `(x, y, z)`, its warp in the CTA and its lane in the warp
/// (`%tid.x = warp * 32 + lane`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThreadRef {
    pub cta: (u32, u32, u32),
    pub warp: u32,
    pub lane: u32,
}

impl ThreadRef {
    /// `%tid.x` of the thread.
    pub fn tid(&self) -> u32 {
        self.warp * 32 + self.lane
    }
}

impl fmt::Display for ThreadRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (x, y, z) = self.cta;
        write!(
            f,
            "CTA ({x},{y},{z}) warp {} lane {} (tid {})",
            self.warp,
            self.lane,
            self.tid()
        )
    }
}

/// What kind of memory access faulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Load,
    Store,
    Atomic,
    /// The global source of a `cp.async`.
    CpAsyncSrc,
    /// The shared destination of a `cp.async`.
    CpAsyncDst,
    /// A row read by `ldmatrix`.
    Ldmatrix,
    /// An element of the B matrix a `wgmma` reads through its descriptor.
    WgmmaB,
    /// The global source of a `cp.async.bulk`.
    BulkSrc,
    /// The shared destination of a `cp.async.bulk`.
    BulkDst,
    /// An `mbarrier` object.
    Mbarrier,
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Access::Load => "load",
            Access::Store => "store",
            Access::Atomic => "atomic",
            Access::CpAsyncSrc => "cp.async source read",
            Access::CpAsyncDst => "cp.async destination write",
            Access::Ldmatrix => "ldmatrix row read",
            Access::WgmmaB => "wgmma B read",
            Access::BulkSrc => "cp.async.bulk source read",
            Access::BulkDst => "cp.async.bulk destination write",
            Access::Mbarrier => "mbarrier access",
        })
    }
}

fn space_name(s: &Space) -> &'static str {
    match s {
        Space::Global => "global",
        Space::Shared => "shared",
    }
}

fn warps(v: &[u32]) -> String {
    let parts: Vec<String> = v.iter().map(|w| w.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// Errors of the emulator. Launch-time faults name the statement ([`Site`]) and the thread
/// ([`ThreadRef`]); the `Display` text contains both.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EmuError {
    /// `args.len()` differs from `kernel.params.len()`.
    #[error("kernel `{kernel}` takes {expected} arguments, launch gave {got}")]
    ArgCount {
        kernel: String,
        expected: usize,
        got: usize,
    },

    /// An argument does not match its parameter's type.
    #[error("kernel `{kernel}` argument {index} (`{param}`) is {expected:?}, launch gave {got:?}")]
    ArgType {
        kernel: String,
        index: usize,
        param: String,
        expected: ParamTy,
        got: KernelArg,
    },

    /// `dims.block` differs from `kernel.block_threads`.
    #[error("kernel `{kernel}` is written for {expected} threads per CTA, launch gave {got}")]
    BlockSize {
        kernel: String,
        expected: u32,
        got: u32,
    },

    /// Any other malformed launch (empty grid, too much shared memory, ...).
    #[error("invalid launch of `{kernel}`: {reason}")]
    InvalidLaunch { kernel: String, reason: String },

    /// The kernel is not valid PTX as the emulator understands it (wrong register class for the
    /// type, missing rounding modifier, bad operand, ...). Found before anything runs.
    #[error("invalid kernel at {site}: {reason}")]
    InvalidKernel { site: Site, reason: String },

    /// A valid instruction form the emulator does not implement (rather than guessing).
    #[error("unsupported by the emulator at {site}: {what}")]
    Unsupported { site: Site, what: String },

    /// A host-side `upload`/`download`/`free` outside a live allocation.
    #[error("host {op} of {bytes} bytes at {addr:#x}: {reason}")]
    HostAccess {
        op: &'static str,
        addr: u64,
        bytes: usize,
        reason: String,
    },

    /// A global access outside every live allocation (or straddling an allocation's end).
    #[error("out-of-bounds global {access} of {bytes} bytes at {addr:#x} by {thread} at {site}")]
    GlobalOutOfBounds {
        site: Site,
        thread: ThreadRef,
        access: Access,
        addr: u64,
        bytes: u32,
    },

    /// A shared access outside the CTA's shared window `[window.0, window.1)`.
    #[error(
        "out-of-bounds shared {access} of {bytes} bytes at {addr:#x} (window {:#x}..{:#x}) by {thread} at {site}",
        window.0, window.1
    )]
    SharedOutOfBounds {
        site: Site,
        thread: ThreadRef,
        access: Access,
        addr: u64,
        bytes: u32,
        window: (u32, u32),
    },

    /// An access not aligned to its size (vector accesses: to the whole vector).
    #[error(
        "misaligned {} {access} at {addr:#x} (needs {align}-byte alignment) by {thread} at {site}",
        space_name(space)
    )]
    Misaligned {
        site: Site,
        thread: ThreadRef,
        space: Space,
        access: Access,
        addr: u64,
        align: u32,
    },

    /// A shared access overlapping the destination of a `cp.async` whose group has not been
    /// retired by `cp.async.wait_group` yet.
    #[error(
        "shared {access} of {bytes} bytes at {addr:#x} by {thread} at {site} overlaps the pending \
         destination of cp.async at {copy_site} issued by {copy_thread} (not yet retired by cp.async.wait_group)"
    )]
    PendingCpAsync {
        site: Site,
        thread: ThreadRef,
        access: Access,
        addr: u32,
        bytes: u32,
        copy_site: Site,
        copy_thread: ThreadRef,
    },

    /// A shared write (store, `cp.async` or bulk-copy destination) overlapping the B operand of a
    /// `wgmma` whose group its warpgroup has not retired with `wgmma.wait_group` yet: the
    /// asynchronous wgmma may read the new bytes.
    #[error(
        "shared {access} of {bytes} bytes at {addr:#x} by {thread} at {site} overlaps the B operand of the wgmma at \
         {wgmma_site} of warpgroup {warpgroup}, not yet retired by wgmma.wait_group"
    )]
    WgmmaReadInFlight {
        site: Site,
        thread: ThreadRef,
        access: Access,
        addr: u32,
        bytes: u32,
        wgmma_site: Site,
        warpgroup: u32,
    },

    /// A value that must be warp-uniform (loop bounds, `If` condition) differs between active
    /// lanes, or a `bar.sync` is executed by only part of a warp. `thread` is the first lane
    /// that disagrees with the warp's first active lane.
    #[error("divergent {what} at {site}: {thread} disagrees with the warp's first active lane")]
    Divergent {
        site: Site,
        thread: ThreadRef,
        what: &'static str,
    },

    /// Warps wait at a barrier that can never complete (the others exited, or wait elsewhere).
    /// `site`/`thread` name the first waiting warp's `bar.sync`.
    #[error(
        "barrier deadlock at {site}: {thread} waits, warps waiting {}, warps exited {}",
        warps(waiting),
        warps(exited)
    )]
    BarrierDeadlock {
        site: Site,
        thread: ThreadRef,
        waiting: Vec<u32>,
        exited: Vec<u32>,
    },

    /// Warps arrive at one barrier with different thread counts, or a bad count.
    #[error("barrier misuse at {site} by {thread}: {reason}")]
    BarrierMismatch {
        site: Site,
        thread: ThreadRef,
        reason: String,
    },

    /// Integer division or remainder by zero.
    #[error("integer division by zero at {site} by {thread}")]
    DivideByZero { site: Site, thread: ThreadRef },

    /// A `.sync.aligned` warp collective (`mma`, `ldmatrix`) executed with some of the 32 lanes
    /// inactive or predicated off. `thread` is the first missing lane.
    #[error(
        "{what} needs all 32 lanes of the warp, lane mask is {mask:#010x}; missing {thread} at {site}"
    )]
    NotConverged {
        site: Site,
        thread: ThreadRef,
        what: &'static str,
        mask: u32,
    },

    /// `shfl.sync` membermask or source-lane violation.
    #[error("shfl.sync at {site} by {thread}: {reason}")]
    Shfl {
        site: Site,
        thread: ThreadRef,
        reason: String,
    },

    /// A run-time condition PTX leaves undefined (e.g. a `cp.async` src-size larger than its
    /// cp-size), reported instead of guessing.
    #[error("undefined behavior at {site} by {thread}: {reason}")]
    UndefinedBehavior {
        site: Site,
        thread: ThreadRef,
        reason: String,
    },

    /// A global access before the thread's `griddepcontrol.wait` outside the allocations that
    /// [`super::Emulator::set_pre_wait_params`] allows (memory an earlier grid may still use
    /// under programmatic dependent launch).
    #[error("global {access} of {bytes} bytes at {addr:#x} before griddepcontrol.wait, outside the memory allowed before it, by {thread} at {site}")]
    BeforeGridDepWait {
        site: Site,
        thread: ThreadRef,
        access: Access,
        addr: u64,
        bytes: u32,
    },

    /// The launch executed more warp-instructions than [`super::Emulator::set_step_limit`] allows.
    #[error("step limit of {limit} warp-instructions exceeded at {site} by {thread}")]
    StepLimit {
        site: Site,
        thread: ThreadRef,
        limit: u64,
    },
}

impl EmuError {
    /// The statement the error names, when it names one.
    pub fn site(&self) -> Option<&Site> {
        use EmuError::*;
        match self {
            InvalidKernel { site, .. }
            | Unsupported { site, .. }
            | GlobalOutOfBounds { site, .. }
            | SharedOutOfBounds { site, .. }
            | Misaligned { site, .. }
            | PendingCpAsync { site, .. }
            | WgmmaReadInFlight { site, .. }
            | Divergent { site, .. }
            | BarrierDeadlock { site, .. }
            | BarrierMismatch { site, .. }
            | DivideByZero { site, .. }
            | NotConverged { site, .. }
            | Shfl { site, .. }
            | UndefinedBehavior { site, .. }
            | StepLimit { site, .. }
            | BeforeGridDepWait { site, .. } => Some(site),
            ArgCount { .. }
            | ArgType { .. }
            | BlockSize { .. }
            | InvalidLaunch { .. }
            | HostAccess { .. } => None,
        }
    }

    /// The thread the error names, when it names one.
    pub fn thread(&self) -> Option<ThreadRef> {
        use EmuError::*;
        match self {
            BeforeGridDepWait { thread, .. }
            | GlobalOutOfBounds { thread, .. }
            | SharedOutOfBounds { thread, .. }
            | Misaligned { thread, .. }
            | PendingCpAsync { thread, .. }
            | WgmmaReadInFlight { thread, .. }
            | Divergent { thread, .. }
            | BarrierDeadlock { thread, .. }
            | BarrierMismatch { thread, .. }
            | DivideByZero { thread, .. }
            | NotConverged { thread, .. }
            | Shfl { thread, .. }
            | UndefinedBehavior { thread, .. }
            | StepLimit { thread, .. } => Some(*thread),
            _ => None,
        }
    }
}
