//! Helpers shared by the emulator tests: small kernel-building shorthands and a per-lane
//! harness that runs one operation on 32 lanes of inputs.
#![allow(dead_code)]

use humming_core::ir::builder::{KernelBuilder, class_of};
use humming_core::ir::emu::{EmuError, Emulator};
use humming_core::ir::{
    Addr, CacheOp, Executor, Inst, Kernel, KernelArg, LaunchDims, Operand, ParamTy, Reg, Space,
    SpecialReg, Ty,
};

/// `ld.space.ty d, [addr]` into a fresh register (wide enough for the type).
pub fn ld(b: &mut KernelBuilder, space: Space, ty: Ty, addr: Addr) -> Reg {
    let d = b.reg_for(ty);
    b.emit(Inst::Ld {
        space,
        cache: CacheOp::Default,
        ty,
        dst: vec![d],
        addr,
    });
    d
}

/// `st.space.ty [addr], src`.
pub fn st(b: &mut KernelBuilder, space: Space, ty: Ty, addr: Addr, src: impl Into<Operand>) {
    b.emit(Inst::St {
        space,
        cache: CacheOp::Default,
        ty,
        src: vec![src.into()],
        addr,
    });
}

/// `base + %tid.x * bytes` as a 64-bit global address.
pub fn thread_addr(b: &mut KernelBuilder, base: Reg, bytes: u32) -> Reg {
    let tid = b.special(SpecialReg::TidX);
    let off = b.mul_wide_u32(tid, bytes);
    b.add(Ty::U64, base, off)
}

/// `base + (%ctaid.x * %ntid.x + %tid.x) * bytes` as a 64-bit global address.
pub fn global_thread_addr(b: &mut KernelBuilder, base: Reg, bytes: u32) -> Reg {
    let tid = b.special(SpecialReg::TidX);
    let cta = b.special(SpecialReg::CtaidX);
    let ntid = b.special(SpecialReg::NtidX);
    let g = b.mul(Ty::U32, cta, ntid);
    let g = b.add(Ty::U32, g, tid);
    let off = b.mul_wide_u32(g, bytes);
    b.add(Ty::U64, base, off)
}

/// `%tid.x * bytes + smem` as a 32-bit shared address.
pub fn shared_thread_addr(
    b: &mut KernelBuilder,
    smem: humming_core::ir::SharedId,
    bytes: u32,
) -> Reg {
    let tid = b.special(SpecialReg::TidX);
    let off = b.mul(Ty::U32, tid, bytes);
    b.add(Ty::U32, off, Operand::SharedAddr(smem))
}

pub fn launch(
    emu: &mut Emulator,
    k: &Kernel,
    ctas: u32,
    args: &[KernelArg],
) -> Result<(), EmuError> {
    emu.launch(k, LaunchDims::linear(ctas, k.block_threads), args)
}

fn bytes_of(ty: Ty) -> usize {
    (ty.bits() as usize).div_ceil(8)
}

fn pack(ty: Ty, vals: &[u64]) -> Vec<u8> {
    let w = bytes_of(ty);
    vals.iter()
        .flat_map(|v| v.to_le_bytes()[..w].to_vec())
        .collect()
}

/// Runs `body` on 32 lanes: input `i` (of type `in_tys[i]`, 32 values) is loaded per lane into
/// a register of the type's class, `body` returns the output register, stored as `out_ty`.
/// Returns the 32 outputs, zero-extended to u64.
pub fn lanes_op(
    in_tys: &[Ty],
    inputs: &[Vec<u64>],
    out_ty: Ty,
    body: impl FnOnce(&mut KernelBuilder, &[Reg]) -> Reg,
) -> Vec<u64> {
    try_lanes_op(in_tys, inputs, out_ty, body).unwrap()
}

pub fn try_lanes_op(
    in_tys: &[Ty],
    inputs: &[Vec<u64>],
    out_ty: Ty,
    body: impl FnOnce(&mut KernelBuilder, &[Reg]) -> Reg,
) -> Result<Vec<u64>, EmuError> {
    let mut b = KernelBuilder::new("lanes_op", 32);
    let ptrs: Vec<Reg> = (0..in_tys.len())
        .map(|i| b.param(&format!("in{i}"), ParamTy::Ptr))
        .collect();
    let out = b.param("out", ParamTy::Ptr);
    let mut regs = Vec::new();
    for (i, ty) in in_tys.iter().enumerate() {
        let a = thread_addr(&mut b, ptrs[i], bytes_of(*ty) as u32);
        regs.push(ld(&mut b, Space::Global, *ty, Addr::reg(a)));
    }
    let r = body(&mut b, &regs);
    let oa = thread_addr(&mut b, out, bytes_of(out_ty) as u32);
    st(&mut b, Space::Global, out_ty, Addr::reg(oa), r);
    let k = b.finish();

    let mut emu = Emulator::new();
    let mut args = Vec::new();
    for (i, ty) in in_tys.iter().enumerate() {
        assert_eq!(inputs[i].len(), 32);
        let p = emu.upload_new(&pack(*ty, &inputs[i]))?;
        args.push(KernelArg::Ptr(p));
    }
    let w = bytes_of(out_ty);
    let o = emu.alloc(32 * w)?;
    args.push(KernelArg::Ptr(o));
    launch(&mut emu, &k, 1, &args)?;
    let raw: Vec<u8> = emu.download_vec(o, 32 * w)?;
    Ok(raw
        .chunks(w)
        .map(|c| {
            let mut x = [0u8; 8];
            x[..w].copy_from_slice(c);
            u64::from_le_bytes(x)
        })
        .collect())
}

/// A fresh register for type `ty` with `inst` built from it.
pub fn emit_to(b: &mut KernelBuilder, ty: Ty, f: impl FnOnce(Reg) -> Inst) -> Reg {
    let d = b.reg(class_of(ty));
    b.emit(f(d));
    d
}

/// A deterministic xorshift stream.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub fn vec(&mut self, n: usize, mask: u64) -> Vec<u64> {
        (0..n).map(|_| self.next() & mask).collect()
    }
}
