//! A small tensor-core tile GEMM for the emulator: one CTA of 4 warps; warp `w` computes rows
//! `16w..16w+16` and columns `0..32` of `C = A * B` (f16 inputs, f32 accumulators) with
//! `ldmatrix.x4` + `mma.sync.m16n8k16`, looping over `k_total` (a multiple of 16). The shared
//! tiles hold 64 k-columns; iteration `k` reads k-column `k mod 64`, so the result is
//! `k_total / 64` times the 64-wide product. Shared by the speed example and a test.
#![allow(dead_code)]

use humming_core::ir::builder::KernelBuilder;
use humming_core::ir::{
    Addr, BinOp, CacheOp, Inst, Kernel, MmaShape, MmaType, Operand, ParamTy, Reg, RegClass, Space,
    SpecialReg, Ty,
};

/// M x K (K = 64) tile of A, row-major f16.
pub const M: usize = 64;
/// N x K tile of B stored transposed (`bt[n][k]`), f16.
pub const N: usize = 32;
pub const K: usize = 64;

fn ld_st_copy(
    b: &mut KernelBuilder,
    src: Reg,
    dst: humming_core::ir::SharedId,
    words: u32,
    tid: Reg,
) {
    // 128 threads copy `words` 32-bit words, `words / 128` each.
    b.for_range(0u32, words / 128, 1, |b, i| {
        let w = b.mul(Ty::U32, i, 128u32);
        let w = b.add(Ty::U32, w, tid);
        let g = b.mul_wide_u32(w, 4);
        let ga = b.add(Ty::U64, src, g);
        let v = b.reg(RegClass::B32);
        b.emit(Inst::Ld {
            space: Space::Global,
            cache: CacheOp::Default,
            ty: Ty::B32,
            dst: vec![v],
            addr: Addr::reg(ga),
        });
        let s = b.mul(Ty::U32, w, 4u32);
        let sa = b.add(Ty::U32, s, Operand::SharedAddr(dst));
        b.emit(Inst::St {
            space: Space::Shared,
            cache: CacheOp::Default,
            ty: Ty::B32,
            src: vec![v.into()],
            addr: Addr::reg(sa),
        });
    });
}

/// Params: `a` (M x K f16), `bt` (N x K f16), `c` (M x N f32 out), `k_total` (u32).
pub fn tile_gemm_kernel() -> Kernel {
    let mut b = KernelBuilder::new("tile_gemm", 128);
    let pa = b.param("a", ParamTy::Ptr);
    let pb = b.param("bt", ParamTy::Ptr);
    let pc = b.param("c", ParamTy::Ptr);
    let k_total = b.param("k_total", ParamTy::U32);
    let sa = b.shared("a_tile", (M * K * 2) as u32, 128);
    let sb = b.shared("b_tile", (N * K * 2) as u32, 128);
    let tid = b.special(SpecialReg::TidX);
    ld_st_copy(&mut b, pa, sa, (M * K / 2) as u32, tid);
    ld_st_copy(&mut b, pb, sb, (N * K / 2) as u32, tid);
    b.emit(Inst::BarSync {
        id: 0,
        threads: None,
        aligned: true,
    });

    let warp = b.special(SpecialReg::WarpId);
    let lane = b.special(SpecialReg::LaneId);
    let r8 = b.bin(BinOp::And, Ty::B32, lane, 7u32);
    let q = b.bin(BinOp::Shr, Ty::U32, lane, 3u32);
    let q_lo = b.bin(BinOp::And, Ty::B32, q, 1u32);
    let q_hi = b.bin(BinOp::Shr, Ty::U32, q, 1u32);
    // A: matrix q covers rows 8 * (q & 1) .. and k 8 * (q >> 1) ..
    let row = b.mul(Ty::U32, warp, 16u32);
    let row = b.add(Ty::U32, row, r8);
    let q8 = b.mul(Ty::U32, q_lo, 8u32);
    let row = b.add(Ty::U32, row, q8);
    let a_el = b.mul(Ty::U32, row, K as u32);
    let kq = b.mul(Ty::U32, q_hi, 8u32);
    let a_el = b.add(Ty::U32, a_el, kq);
    let a_by = b.mul(Ty::U32, a_el, 2u32);
    let a_row = b.add(Ty::U32, a_by, Operand::SharedAddr(sa));
    // B (transposed in memory): matrix q covers n 8 * (q >> 1) .. and k 8 * (q & 1) ..
    let n = b.mul(Ty::U32, q_hi, 8u32);
    let n = b.add(Ty::U32, n, r8);
    let b_el = b.mul(Ty::U32, n, K as u32);
    let kq = b.mul(Ty::U32, q_lo, 8u32);
    let b_el = b.add(Ty::U32, b_el, kq);
    let b_by = b.mul(Ty::U32, b_el, 2u32);
    let b_row = b.add(Ty::U32, b_by, Operand::SharedAddr(sb));

    let acc: Vec<Vec<Reg>> = (0..4)
        .map(|_| (0..4).map(|_| b.mov(Ty::F32, Operand::f32(0.0))).collect())
        .collect();
    b.for_range(0u32, k_total, 16, |b, k| {
        let kl = b.bin(BinOp::And, Ty::B32, k, (K - 1) as u32);
        let koff = b.bin(BinOp::Shl, Ty::B32, kl, 1u32);
        let aa = b.add(Ty::U32, a_row, koff);
        let ba = b.add(Ty::U32, b_row, koff);
        let af: Vec<Reg> = (0..4).map(|_| b.reg(RegClass::B32)).collect();
        let b0: Vec<Reg> = (0..4).map(|_| b.reg(RegClass::B32)).collect();
        let b1: Vec<Reg> = (0..4).map(|_| b.reg(RegClass::B32)).collect();
        b.emit(Inst::Ldmatrix {
            trans: false,
            dst: af.clone(),
            addr: Addr::reg(aa),
        });
        b.emit(Inst::Ldmatrix {
            trans: false,
            dst: b0.clone(),
            addr: Addr::reg(ba),
        });
        b.emit(Inst::Ldmatrix {
            trans: false,
            dst: b1.clone(),
            addr: Addr::reg_off(ba, (16 * K * 2) as i64),
        });
        for (j, d) in acc.iter().enumerate() {
            let bf = if j < 2 { &b0 } else { &b1 };
            let pair = vec![bf[2 * (j % 2)], bf[2 * (j % 2) + 1]];
            b.emit(Inst::Mma {
                shape: MmaShape::M16N8K16,
                d_ty: MmaType::F32,
                a_ty: MmaType::F16,
                b_ty: MmaType::F16,
                c_ty: MmaType::F32,
                d: d.clone(),
                a: af.clone(),
                b: pair,
                c: d.clone(),
            });
        }
    });
    // Store: accumulator j holds columns 8j..8j+8; element r of lane l sits at
    // row g + 8 (r >> 1), column 2t + (r & 1).
    let g = b.bin(BinOp::Shr, Ty::U32, lane, 2u32);
    let t = b.bin(BinOp::And, Ty::B32, lane, 3u32);
    let row = b.mul(Ty::U32, warp, 16u32);
    let row = b.add(Ty::U32, row, g);
    let el = b.mul(Ty::U32, row, N as u32);
    let t2 = b.mul(Ty::U32, t, 2u32);
    let el = b.add(Ty::U32, el, t2);
    let off = b.mul_wide_u32(el, 4);
    let base = b.add(Ty::U64, pc, off);
    for (j, d) in acc.iter().enumerate() {
        for (r, reg) in d.iter().enumerate() {
            let o = (8 * (r >> 1) * N + 8 * j + (r & 1)) * 4;
            b.emit(Inst::St {
                space: Space::Global,
                cache: CacheOp::Default,
                ty: Ty::F32,
                src: vec![(*reg).into()],
                addr: Addr::reg_off(base, o as i64),
            });
        }
    }
    b.finish()
}

/// Deterministic small-integer inputs (exact in f16, every sum exact in f32): `(a, bt)` as f16 bits.
pub fn inputs() -> (Vec<u16>, Vec<u16>) {
    let f = |i: usize| half::f16::from_f32(((i * 7 + 3) % 5) as f32 - 2.0).to_bits();
    let a: Vec<u16> = (0..M * K).map(f).collect();
    let bt: Vec<u16> = (0..N * K).map(|i| f(i * 3 + 1)).collect();
    (a, bt)
}

/// The expected C for `k_total`.
pub fn reference(a: &[u16], bt: &[u16], k_total: usize) -> Vec<f32> {
    let h = |x: u16| half::f16::from_bits(x).to_f32();
    let mut c = vec![0f32; M * N];
    for m in 0..M {
        for n in 0..N {
            let s: f32 = (0..K).map(|k| h(a[m * K + k]) * h(bt[n * K + k])).sum();
            c[m * N + n] = s * (k_total / K) as f32;
        }
    }
    c
}
