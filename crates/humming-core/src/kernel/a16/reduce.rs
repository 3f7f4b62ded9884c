//! Split-K reduction: the in-kernel sum of a tile's partials by its last CTA, and the
//! standalone reduce kernel.

use crate::format::OutFormat;
use crate::ir::builder::KernelBuilder;
use super::out_ty;
use crate::ir::{Addr, BinOp, CacheOp, Cmp, Inst, Kernel, Operand, ParamTy, Reg, RegClass, SpecialReg, Space, Ty};
use crate::kernel::emit::Emit;

/// Where the last CTA of a split-K tile finds the tile's f32 partials: slice `z` of the
/// workspace holds `m x n_pad` floats, row-major; the tile covers rows `m0..m0 + bm` and the
/// columns from n64 block `nb0` on, `bn` wide.
pub(super) struct ReduceTile {
    pub(super) threads: u32,
    pub(super) bm: u32,
    pub(super) bn: u32,
    pub(super) tid: Reg,
    pub(super) m0: Reg,
    pub(super) nb0: Reg,
    pub(super) pm: Reg,
    pub(super) pnpad: Reg,
    pub(super) nz: Reg,
    pub(super) slice: Reg,
    pub(super) pws: Reg,
}

/// Sums the tile's partials over the splits, in split order (so the result does not depend on
/// which CTA arrives last), with every thread of the CTA on 4-column chunks, taken four at a
/// time with the loads of up to four splits in flight before their sums;
/// `store(row, col, [f32; 4])` gets each chunk of a row below M and a column below n_pad.
pub(super) fn reduce_tile(b: &mut KernelBuilder, t: &ReduceTile, mut store: impl FnMut(&mut KernelBuilder, Reg, Reg, [Reg; 4])) {
    let c4 = t.bn / 4;
    let total = t.bm * c4;
    let rounds = total.div_ceil(t.threads);
    let col_t = b.mul_u32(t.nb0, 64u32);
    struct Chunk {
        row: Reg,
        col: Reg,
        ok: Reg,
        e0: Reg,
        sum: [Reg; 4],
    }
    // Rounds in batches of at most four, each with at most 8 chunk loads in flight: the
    // kernel's register count is its peak, and a whole tile's loads in flight would set it
    // (up to 130 registers at bm 64 x bn 128), not the main loop.
    for r0 in (0..rounds).step_by(4) {
        let batch = (rounds - r0).min(4);
        let unroll = (8 / batch).clamp(1, 4);
        let chunks: Vec<Chunk> = (r0..r0 + batch)
            .map(|r| {
                let i = b.add_u32(t.tid, r * t.threads);
                let rl = b.op(BinOp::Div, Ty::U32, i, c4);
                let cl = b.op(BinOp::Rem, Ty::U32, i, c4);
                let row = b.add_u32(t.m0, rl);
                let col = b.mad_u32(cl, 4u32, col_t);
                let row_ok = b.setp(Cmp::Lt, Ty::U32, row, t.pm);
                let col_ok = b.setp(Cmp::Lt, Ty::U32, col, t.pnpad);
                let mut ok = b.and_pred(row_ok, col_ok);
                if total % t.threads != 0 {
                    let inb = b.setp(Cmp::Lt, Ty::U32, i, total);
                    ok = b.and_pred(ok, inb);
                }
                let rowc = b.selp(Ty::U32, row, 0u32, ok);
                let e0 = b.mad_u32(rowc, t.pnpad, col);
                let sum = [0; 4].map(|_| b.mov_as(RegClass::F32, Operand::f32(0.0)));
                Chunk { row, col, ok, e0, sum }
            })
            .collect();
        b.for_range(0u32, t.nz, unroll as i64, |b, z0| {
            let mut loaded = Vec::new();
            for u in 0..unroll {
                let z = b.add_u32(z0, u);
                let zin = b.setp(Cmp::Lt, Ty::U32, z, t.nz);
                let zoff = b.mul_u32(z, t.slice);
                for ch in &chunks {
                    let go = b.and_pred(ch.ok, zin);
                    let e = b.add_u32(zoff, ch.e0);
                    let addr = b.addr64(t.pws, e, 4u32);
                    let x = [0; 4].map(|_| b.reg(RegClass::F32));
                    b.guarded(go, false, |b| {
                        b.emit(Inst::Ld { space: Space::Global, cache: CacheOp::Cg, ty: Ty::F32, dst: x.to_vec(), addr: Addr::reg(addr) });
                    });
                    loaded.push((go, x));
                }
            }
            for (i, (go, x)) in loaded.into_iter().enumerate() {
                let ch = &chunks[i % chunks.len()];
                b.guarded(go, false, |b| {
                    for (&sum, &v) in ch.sum.iter().zip(&x) {
                        b.emit(Inst::Bin { op: BinOp::Add, ty: Ty::F32, dst: sum, a: sum.into(), b: v.into() });
                    }
                });
            }
        });
        for ch in &chunks {
            // `store` checks rows against M and columns against N itself; rows past M were
            // never loaded.
            let row = b.selp(Ty::U32, ch.row, u32::MAX, ch.ok);
            store(b, row, ch.col, ch.sum);
        }
    }
}

/// Parameter order of the split-K reduce kernel.
pub const REDUCE_PARAMS: [&str; 7] = ["workspace", "out", "global_scale", "m", "n", "n_pad", "splits"];

/// Threads per CTA of the reduce kernel.
pub const REDUCE_THREADS: u32 = 256;

/// The split-K reduction: `out[m, n] = round(global_scale * sum_z ws[z, m, n])`, summing the
/// splits in order (deterministic), one output per thread.
pub fn build_reduce(name: &str, out: OutFormat, global_scale: bool) -> Kernel {
    let mut b = KernelBuilder::new(name, REDUCE_THREADS);
    let pws = b.param("workspace", ParamTy::Ptr);
    let pout = b.param("out", ParamTy::Ptr);
    let pgs = b.param("global_scale", ParamTy::F32);
    let pm = b.param("m", ParamTy::U32);
    let pn = b.param("n", ParamTy::U32);
    let pnpad = b.param("n_pad", ParamTy::U32);
    let psplits = b.param("splits", ParamTy::U32);
    let tid = b.special(SpecialReg::TidX);
    let cx = b.special(SpecialReg::CtaidX);
    let i = b.mad_u32(cx, REDUCE_THREADS, tid);
    let row = b.op(BinOp::Div, Ty::U32, i, pn);
    let col = b.op(BinOp::Rem, Ty::U32, i, pn);
    let ok = b.setp(Cmp::Lt, Ty::U32, row, pm);
    let rowc = b.selp(Ty::U32, row, 0u32, ok);
    let sum = b.mov_as(RegClass::F32, Operand::f32(0.0));
    b.for_range(0u32, psplits, 1, |b, z| {
        let zr = b.mad_u32(z, pm, rowc);
        let e = b.mad_u32(zr, pnpad, col);
        let addr = b.addr64(pws, e, 4u32);
        let x = b.reg(RegClass::F32);
        b.emit(Inst::Ld { space: Space::Global, cache: crate::ir::CacheOp::Default, ty: Ty::F32, dst: vec![x], addr: Addr::reg(addr) });
        b.emit(Inst::Bin { op: BinOp::Add, ty: Ty::F32, dst: sum, a: sum.into(), b: x.into() });
    });
    let v = if global_scale { b.op(BinOp::Mul, Ty::F32, sum, pgs) } else { sum };
    let hv = b.cvt_f32_to(out_ty(out), v);
    let e = b.mad_u32(row, pn, col);
    let addr = b.addr64(pout, e, 2u32);
    b.guarded(ok, false, |b| b.st_vec(Space::Global, Ty::B16, Addr::reg(addr), &[hv]));
    b.finish()
}
