//! [`KernelBuilder`]: builds a [`Kernel`] so that the Rust reads like the PTX it emits.
//!
//! ```
//! use humming_core::ir::{builder::KernelBuilder, ParamTy, SpecialReg, Ty};
//! let mut b = KernelBuilder::new("copy", 128);
//! let src = b.param("src", ParamTy::Ptr);
//! let tid = b.special(SpecialReg::TidX);
//! let off = b.mul_wide_u32(tid, 4);
//! let addr = b.add(Ty::U64, src, off);
//! # let _ = addr;
//! let k = b.finish();
//! assert_eq!(k.params.len(), 1);
//! ```

use super::inst::{BinOp, Inst};
use super::kernel::{Guard, Kernel, Param, ParamTy, SharedDecl, Stmt};
use super::types::{Operand, Reg, RegClass, SharedId, SpecialReg, Ty};

/// Builds a kernel: allocates registers, declares parameters and shared memory, and appends
/// statements to the current block (nested blocks for loops and branches).
#[derive(Debug)]
pub struct KernelBuilder {
    name: String,
    params: Vec<Param>,
    regs: Vec<RegClass>,
    shared: Vec<SharedDecl>,
    dynamic_shared: Option<u32>,
    block_threads: u32,
    /// Stack of open blocks; the last is where statements go.
    blocks: Vec<Vec<Stmt>>,
    guard: Option<Guard>,
}

/// Register class that holds a value of type `ty`.
pub fn class_of(ty: Ty) -> RegClass {
    match ty {
        Ty::Pred => RegClass::Pred,
        Ty::F32 => RegClass::F32,
        Ty::F64 => RegClass::F64,
        _ => match ty.bits() {
            8 | 16 => RegClass::B16,
            32 => RegClass::B32,
            _ => RegClass::B64,
        },
    }
}

impl KernelBuilder {
    /// A new kernel named `name` for CTAs of `block_threads` threads (x only).
    pub fn new(name: &str, block_threads: u32) -> Self {
        KernelBuilder {
            name: name.to_string(),
            params: Vec::new(),
            regs: Vec::new(),
            shared: Vec::new(),
            dynamic_shared: None,
            block_threads,
            blocks: vec![Vec::new()],
            guard: None,
        }
    }

    /// A fresh register of class `class`.
    pub fn reg(&mut self, class: RegClass) -> Reg {
        let id = self.regs.len() as u32;
        self.regs.push(class);
        Reg { id, class }
    }

    /// A fresh register able to hold type `ty`.
    pub fn reg_for(&mut self, ty: Ty) -> Reg {
        self.reg(class_of(ty))
    }

    /// Declares parameter `name` and loads it into a register.
    pub fn param(&mut self, name: &str, ty: ParamTy) -> Reg {
        let idx = self.params.len() as u32;
        self.params.push(Param { name: name.to_string(), ty });
        let lty = match ty {
            ParamTy::U32 => Ty::U32,
            ParamTy::S32 => Ty::S32,
            ParamTy::F32 => Ty::F32,
            ParamTy::U64 | ParamTy::Ptr => Ty::U64,
        };
        let dst = self.reg_for(lty);
        self.emit(Inst::LdParam { ty: lty, dst, param: idx });
        dst
    }

    /// Declares a static shared array of `bytes` bytes aligned to `align`.
    pub fn shared(&mut self, name: &str, bytes: u32, align: u32) -> SharedId {
        assert!(self.dynamic_shared.is_none(), "declare static shared arrays before the dynamic one");
        self.shared.push(SharedDecl { name: name.to_string(), bytes, align });
        SharedId(self.shared.len() as u32 - 1)
    }

    /// Declares the dynamic (extern) shared array; its size is given at launch.
    pub fn dynamic_shared(&mut self, align: u32) -> SharedId {
        self.dynamic_shared = Some(align);
        SharedId(self.shared.len() as u32)
    }

    /// Reads a special register into a fresh `.b32` register.
    pub fn special(&mut self, sreg: SpecialReg) -> Reg {
        let dst = self.reg(RegClass::B32);
        self.emit(Inst::ReadSpecial { dst, sreg });
        dst
    }

    /// Appends an instruction to the current block (under the current guard, if any).
    pub fn emit(&mut self, inst: Inst) {
        let guard = self.guard;
        self.blocks.last_mut().expect("open block").push(Stmt::Inst { guard, inst });
    }

    /// Emits the instructions built by `f` guarded by `@p` (or `@!p` when `negate`).
    pub fn guarded(&mut self, pred: Reg, negate: bool, f: impl FnOnce(&mut Self)) {
        assert_eq!(pred.class, RegClass::Pred, "guard must be a predicate");
        let saved = self.guard.replace(Guard { pred, negate });
        f(self);
        self.guard = saved;
    }

    fn block(&mut self, f: impl FnOnce(&mut Self)) -> Vec<Stmt> {
        assert!(self.guard.is_none(), "structured control flow cannot be guarded");
        self.blocks.push(Vec::new());
        f(self);
        self.blocks.pop().expect("block")
    }

    /// `for i in start..end (step)`: `f` receives the counter register (`.b32`, unsigned compare).
    pub fn for_range(
        &mut self,
        start: impl Into<Operand>,
        end: impl Into<Operand>,
        step: i64,
        f: impl FnOnce(&mut Self, Reg),
    ) {
        let counter = self.reg(RegClass::B32);
        let (start, end) = (start.into(), end.into());
        let body = self.block(|b| f(b, counter));
        self.blocks.last_mut().expect("open block").push(Stmt::Loop { counter, start, end, step, signed: false, body });
    }

    /// `if cond { then } else { els }` with a warp-uniform `cond`.
    pub fn if_else(&mut self, cond: Reg, then: impl FnOnce(&mut Self), els: impl FnOnce(&mut Self)) {
        let then = self.block(then);
        let els = self.block(els);
        self.blocks.last_mut().expect("open block").push(Stmt::If { cond, negate: false, then, els });
    }

    /// `if cond { then }` with a warp-uniform `cond`.
    pub fn if_then(&mut self, cond: Reg, then: impl FnOnce(&mut Self)) {
        self.if_else(cond, then, |_| {});
    }

    /// `ret` (uniform).
    pub fn ret(&mut self) {
        self.blocks.last_mut().expect("open block").push(Stmt::Return);
    }

    /// `op.ty d, a, b` into a fresh register.
    pub fn bin(&mut self, op: BinOp, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let dst_ty = if op == BinOp::MulWide { widen(ty) } else { ty };
        let dst = self.reg_for(dst_ty);
        self.emit(Inst::Bin { op, ty, dst, a: a.into(), b: b.into() });
        dst
    }

    /// `add.ty`.
    pub fn add(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.bin(BinOp::Add, ty, a, b)
    }

    /// `mul.lo.ty` / `mul.ty`.
    pub fn mul(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.bin(BinOp::Mul, ty, a, b)
    }

    /// `mul.wide.u32` (u32 x u32 -> u64), the usual index-to-byte-offset step.
    pub fn mul_wide_u32(&mut self, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.bin(BinOp::MulWide, Ty::U32, a, b)
    }

    /// `mov.ty d, a` into a fresh register.
    pub fn mov(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        let dst = self.reg_for(ty);
        self.emit(Inst::Mov { ty, dst, src: a.into() });
        dst
    }

    /// The finished kernel.
    pub fn finish(mut self) -> Kernel {
        assert_eq!(self.blocks.len(), 1, "unclosed block");
        Kernel {
            name: self.name,
            params: self.params,
            regs: self.regs,
            shared: self.shared,
            dynamic_shared: self.dynamic_shared,
            block_threads: self.block_threads,
            body: self.blocks.pop().expect("body"),
        }
    }
}

/// The result type of `mul.wide` on `ty`.
fn widen(ty: Ty) -> Ty {
    match ty {
        Ty::U16 => Ty::U32,
        Ty::S16 => Ty::S32,
        Ty::U32 => Ty::U64,
        Ty::S32 => Ty::S64,
        other => other,
    }
}
