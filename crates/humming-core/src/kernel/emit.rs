//! Short emitters for the instructions the GEMM components use, on top of [`KernelBuilder`].
//! Each returns the fresh destination register(s), so component code reads like its PTX.

use crate::ir::builder::KernelBuilder;
use crate::ir::{
    Addr, BinOp, CacheOp, Cmp, CpAsyncCache, Inst, MmaShape, MmaType, Operand, Reg, RegClass, Rnd, Space, Ty,
};

/// Emitters used by the kernel components.
pub(crate) trait Emit {
    fn b(&mut self) -> &mut KernelBuilder;

    /// `op.ty d, a, b`.
    fn op(&mut self, op: BinOp, ty: Ty, a: impl Into<Operand>, c: impl Into<Operand>) -> Reg {
        self.b().bin(op, ty, a, c)
    }
    fn shl(&mut self, a: impl Into<Operand>, n: u32) -> Reg {
        self.op(BinOp::Shl, Ty::B32, a, n)
    }
    fn shr(&mut self, a: impl Into<Operand>, n: u32) -> Reg {
        self.op(BinOp::Shr, Ty::U32, a, n)
    }
    fn and(&mut self, a: impl Into<Operand>, m: impl Into<Operand>) -> Reg {
        self.op(BinOp::And, Ty::B32, a, m)
    }
    fn xor(&mut self, a: impl Into<Operand>, m: impl Into<Operand>) -> Reg {
        self.op(BinOp::Xor, Ty::B32, a, m)
    }
    fn add_u32(&mut self, a: impl Into<Operand>, c: impl Into<Operand>) -> Reg {
        self.op(BinOp::Add, Ty::U32, a, c)
    }
    fn mul_u32(&mut self, a: impl Into<Operand>, c: impl Into<Operand>) -> Reg {
        self.op(BinOp::Mul, Ty::U32, a, c)
    }
    /// `mad.lo.u32 d, a, b, c`.
    fn mad_u32(&mut self, a: impl Into<Operand>, m: impl Into<Operand>, c: impl Into<Operand>) -> Reg {
        let dst = self.b().reg(RegClass::B32);
        self.b().emit(Inst::Mad { ty: Ty::U32, wide: false, dst, a: a.into(), b: m.into(), c: c.into() });
        dst
    }
    /// 64-bit address `base + idx * scale` (`mad.wide.u32`).
    fn addr64(&mut self, base: Reg, idx: impl Into<Operand>, scale: impl Into<Operand>) -> Reg {
        let dst = self.b().reg(RegClass::B64);
        self.b().emit(Inst::Mad { ty: Ty::U32, wide: true, dst, a: idx.into(), b: scale.into(), c: base.into() });
        dst
    }
    /// `and.pred d, a, b`.
    fn and_pred(&mut self, a: Reg, c: Reg) -> Reg {
        self.op(BinOp::And, Ty::Pred, a, c)
    }
    /// `cvt.rn.{f16|bf16}.f32`: an f32 rounded to a 16-bit float in a `.b16` register.
    fn cvt_f32_to(&mut self, ty: Ty, a: Reg) -> Reg {
        let dst = self.b().reg(RegClass::B16);
        self.b().emit(Inst::Cvt { dst_ty: ty, src_ty: Ty::F32, rnd: Some(Rnd::Rn), sat: false, dst, src: a.into() });
        dst
    }
    /// `lop3.b32 d, a, b, c, lut`.
    fn lop3(&mut self, a: impl Into<Operand>, m: impl Into<Operand>, c: impl Into<Operand>, lut: u8) -> Reg {
        let dst = self.b().reg(RegClass::B32);
        self.b().emit(Inst::Lop3 { dst, a: a.into(), b: m.into(), c: c.into(), lut });
        dst
    }
    /// `prmt.b32 d, a, b, sel`.
    fn prmt(&mut self, a: impl Into<Operand>, c: impl Into<Operand>, sel: u32) -> Reg {
        let dst = self.b().reg(RegClass::B32);
        self.b().emit(Inst::Prmt { dst, a: a.into(), b: c.into(), sel: sel.into() });
        dst
    }
    /// `bfe.u32 d, a, pos, len`.
    fn bfe(&mut self, a: impl Into<Operand>, pos: u32, len: u32) -> Reg {
        let dst = self.b().reg(RegClass::B32);
        self.b().emit(Inst::Bfe { ty: Ty::U32, dst, a: a.into(), pos: pos.into(), len: len.into() });
        dst
    }
    /// `fma.rn.ty d, a, b, c` on packed 16-bit pairs or f32.
    fn fma(&mut self, ty: Ty, a: impl Into<Operand>, m: impl Into<Operand>, c: impl Into<Operand>) -> Reg {
        let dst = self.b().reg_for(ty);
        self.b().emit(Inst::Fma { ty, rnd: Rnd::Rn, dst, a: a.into(), b: m.into(), c: c.into() });
        dst
    }
    /// `setp.cmp.ty p, a, b`.
    fn setp(&mut self, cmp: Cmp, ty: Ty, a: impl Into<Operand>, c: impl Into<Operand>) -> Reg {
        let dst = self.b().reg(RegClass::Pred);
        self.b().emit(Inst::Setp { cmp, ty, dst, a: a.into(), b: c.into() });
        dst
    }
    /// `selp.ty d, a, b, p`.
    fn selp(&mut self, ty: Ty, a: impl Into<Operand>, c: impl Into<Operand>, pred: Reg) -> Reg {
        let dst = self.b().reg_for(ty);
        self.b().emit(Inst::Selp { ty, dst, a: a.into(), b: c.into(), pred });
        dst
    }
    /// `mov.b32 d, a` (also reinterprets between `.b32` and `.f32` registers).
    fn mov_to(&mut self, class: RegClass, a: impl Into<Operand>) -> Reg {
        let dst = self.b().reg(class);
        let ty = if class == RegClass::F32 { Ty::F32 } else { Ty::B32 };
        self.b().emit(Inst::Mov { ty, dst, src: a.into() });
        dst
    }
    /// `ld{.space}.v{n}.b32` of `n` words.
    fn ld_words(&mut self, space: Space, addr: Addr, n: usize) -> Vec<Reg> {
        let dst: Vec<Reg> = (0..n).map(|_| self.b().reg(RegClass::B32)).collect();
        self.b().emit(Inst::Ld { space, cache: CacheOp::Default, ty: Ty::B32, dst: dst.clone(), addr });
        dst
    }
    /// `st{.space}{.vN}.ty [addr], {src..}`.
    fn st(&mut self, space: Space, ty: Ty, addr: Addr, src: Vec<Operand>) {
        self.b().emit(Inst::St { space, cache: CacheOp::Default, ty, src, addr });
    }
    /// `cp.async.cg.shared.global [dst], [src], 16, src_size`.
    fn cp_async16(&mut self, dst: Addr, src: Addr, src_size: Operand) {
        self.b().emit(Inst::CpAsync { cache: CpAsyncCache::Cg, bytes: 16, dst, src, src_size: Some(src_size) });
    }
    /// `ldmatrix.sync.aligned.m8n8.x4.shared.b16`.
    fn ldmatrix_x4(&mut self, addr: Addr) -> Vec<Reg> {
        let dst: Vec<Reg> = (0..4).map(|_| self.b().reg(RegClass::B32)).collect();
        self.b().emit(Inst::Ldmatrix { trans: false, dst: dst.clone(), addr });
        dst
    }
    /// `mma.sync` accumulating in place into `acc` (f32 accumulators).
    fn mma_f32(&mut self, shape: MmaShape, ab: MmaType, acc: &[Reg], a: &[Reg], bfrag: &[Reg]) {
        self.b().emit(Inst::Mma {
            shape,
            d_ty: MmaType::F32,
            a_ty: ab,
            b_ty: ab,
            c_ty: MmaType::F32,
            d: acc.to_vec(),
            a: a.to_vec(),
            b: bfrag.to_vec(),
            c: acc.to_vec(),
        });
    }
}

impl Emit for KernelBuilder {
    fn b(&mut self) -> &mut KernelBuilder {
        self
    }
}
