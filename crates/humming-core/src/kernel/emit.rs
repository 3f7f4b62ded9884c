//! Short emitters for the instructions the GEMM components use, on top of [`KernelBuilder`].
//! Each returns the fresh destination register(s), so component code reads like its PTX.

use crate::ir::builder::KernelBuilder;
use crate::ir::{
    BinOp, Inst, MmaShape, MmaType, Operand, Reg, RegClass, Rnd, Ty,
};

/// Emitters used by the kernel components.
pub(crate) trait Emit {
    fn b(&mut self) -> &mut KernelBuilder;

    /// `op.ty d, a, b`.
    fn op(&mut self, op: BinOp, ty: Ty, a: impl Into<Operand>, c: impl Into<Operand>) -> Reg {
        self.b().bin(op, ty, a, c)
    }
    fn shl32(&mut self, a: impl Into<Operand>, n: u32) -> Reg {
        self.op(BinOp::Shl, Ty::B32, a, n)
    }
    fn shr32(&mut self, a: impl Into<Operand>, n: u32) -> Reg {
        self.op(BinOp::Shr, Ty::U32, a, n)
    }
    fn and32(&mut self, a: impl Into<Operand>, m: impl Into<Operand>) -> Reg {
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
    /// `shf.l.wrap.b32 d, a, a, n`: `a` rotated left by `n` (mod 32).
    fn rotl32(&mut self, a: Reg, n: u32) -> Reg {
        let dst = self.b().reg(RegClass::B32);
        self.b().emit(Inst::Shf { left: true, wrap: true, dst, lo: a.into(), hi: a.into(), shift: (n % 32).into() });
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
    /// `fma.rn.ty d, a, b, c` on packed 16-bit pairs or f32 (immediates of packed types are
    /// moved into registers first: PTX has no f16x2/bf16x2 immediates).
    fn fma(&mut self, ty: Ty, a: impl Into<Operand>, m: impl Into<Operand>, c: impl Into<Operand>) -> Reg {
        let (a, m, c) = (self.packed(ty, a), self.packed(ty, m), self.packed(ty, c));
        let dst = self.b().reg_for(ty);
        self.b().emit(Inst::Fma { ty, rnd: Rnd::Rn, dst, a, b: m, c });
        dst
    }
    /// `op.ty` on packed 16-bit pairs (`add`/`sub`/`mul`/`max`), immediates moved into registers.
    fn op_pk(&mut self, op: BinOp, ty: Ty, a: impl Into<Operand>, c: impl Into<Operand>) -> Reg {
        let (a, c) = (self.packed(ty, a), self.packed(ty, c));
        self.b().bin(op, ty, a, c)
    }
    /// `x` as an operand of a `ty` instruction: integer immediates of packed 16-bit types become
    /// a `mov.b32` into a register.
    fn packed(&mut self, ty: Ty, x: impl Into<Operand>) -> Operand {
        match (ty, x.into()) {
            (Ty::F16x2 | Ty::Bf16x2 | Ty::F16 | Ty::Bf16, Operand::Imm(v)) => {
                Operand::Reg(self.b().mov(Ty::B32, Operand::Imm(v)))
            }
            (_, x) => x,
        }
    }
    /// `mov.b32 d, a` (also reinterprets between `.b32` and `.f32` registers).
    fn mov_as(&mut self, class: RegClass, a: impl Into<Operand>) -> Reg {
        let dst = self.b().reg(class);
        let ty = if class == RegClass::F32 { Ty::F32 } else { Ty::B32 };
        self.b().emit(Inst::Mov { ty, dst, src: a.into() });
        dst
    }
    /// `mma.sync` with f32 accumulators: `d = c + a * b`.
    fn mma_to(&mut self, shape: MmaShape, ab: MmaType, d: &[Reg], c: &[Reg], a: &[Reg], bfrag: &[Reg]) {
        self.b().emit(Inst::Mma {
            shape,
            d_ty: MmaType::F32,
            a_ty: ab,
            b_ty: ab,
            c_ty: MmaType::F32,
            d: d.to_vec(),
            a: a.to_vec(),
            b: bfrag.to_vec(),
            c: c.to_vec(),
        });
    }
}

impl Emit for KernelBuilder {
    fn b(&mut self) -> &mut KernelBuilder {
        self
    }
}
