//! A kernel: parameters, registers, shared memory and a structured body.

use super::inst::Inst;
use super::types::{Operand, Reg, RegClass, SharedId};

/// Type of a kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamTy {
    U32,
    S32,
    F32,
    U64,
    /// A 64-bit global pointer (`.u64` with `.ptr.global` semantics).
    Ptr,
}

/// A kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    pub ty: ParamTy,
}

/// A static shared-memory array; the dynamic one (if any) is [`Kernel::dynamic_shared`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedDecl {
    pub name: String,
    pub bytes: u32,
    pub align: u32,
}

/// An execution guard `@p` / `@!p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    pub pred: Reg,
    pub negate: bool,
}

/// A statement of the structured body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// An instruction, optionally guarded by a predicate (per-lane predication).
    Inst { guard: Option<Guard>, inst: Inst },
    /// `for counter = start; counter < end; counter += step { body }` over `.u32`/`.s32`
    /// (`signed` picks the comparison). `start`, `end` must be warp-uniform (the emulator checks).
    Loop { counter: Reg, start: Operand, end: Operand, step: i64, signed: bool, body: Vec<Stmt> },
    /// `if cond (!negate) { then } else { els }`: `cond` must be warp-uniform (emulator checks);
    /// printed with `bra.uni`.
    If { cond: Reg, negate: bool, then: Vec<Stmt>, els: Vec<Stmt> },
    /// `ret` for the whole warp (must be reached uniformly).
    Return,
}

/// A complete kernel. Build it with [`super::builder::KernelBuilder`].
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub params: Vec<Param>,
    /// Class of every register, indexed by `Reg::id`.
    pub regs: Vec<RegClass>,
    pub shared: Vec<SharedDecl>,
    /// Alignment of the `extern` dynamic shared array, when the kernel uses one.
    pub dynamic_shared: Option<u32>,
    /// Threads per CTA the kernel is written for (`.reqntid` / `.maxntid`), x only.
    pub block_threads: u32,
    /// `.minnctapersm`: CTAs per multiprocessor the register allocator must leave room for.
    /// `Some(1)` tells ptxas not to cap registers for occupancy (it otherwise may, and spill).
    pub min_ctas_per_sm: Option<u32>,
    /// `.maxnreg`: registers a thread gets at launch (kernels with [`crate::ir::Inst::SetMaxNReg`]
    /// need it: the CTA's register pool is `block_threads` times this).
    pub max_regs: Option<u32>,
    pub body: Vec<Stmt>,
}

impl Kernel {
    /// The id of the dynamic shared array, which comes after the static ones.
    pub fn dynamic_shared_id(&self) -> Option<SharedId> {
        self.dynamic_shared.map(|_| SharedId(self.shared.len() as u32))
    }
}
