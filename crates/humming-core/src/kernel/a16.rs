//! The W{1..8}A16 GEMM kernel: `out[M, N] = act[M, K] (f16/bf16) x dequant(W)[N, K]^T`, built
//! from the components of this module. One CTA computes a `BM x BN` tile over a range of K
//! stages (split-K across `gridDim.z`); warps own 64-column blocks and share k16 steps.
//!
//! Data path per stage: activations and packed weights go global -> shared (cp.async pipeline
//! or plain loads), activations shared -> registers by `ldmatrix.x4` from an XOR-swizzled tile,
//! weights by one vector load per lane per (k16, n64) block, dequantized in registers with the
//! group scale applied, then 8 MMAs per m16 tile. Partial sums of the k warps are reduced in
//! shared memory; with one split the epilogue converts and stores, otherwise it writes f32
//! partials that the reduce kernel ([`build_reduce`]) sums in split order (deterministic).

use super::dequant::Dequant;
use super::emit::Emit;
use super::loader::{CpAsyncLoader, G2sLoader, PlainLoader};
use super::mma::MmaOp;
use super::plan::KernelPlan;
use super::scales::ScaleSource;
use crate::format::OutFormat;
use crate::ir::builder::KernelBuilder;
use crate::ir::{Addr, BinOp, Cmp, Inst, Kernel, Operand, ParamTy, Reg, RegClass, SpecialReg, Space, Ty};

/// Everything the generator needs to know, derived from a spec and a plan.
#[derive(Clone, Copy, Debug)]
pub struct A16Config {
    pub plan: KernelPlan,
    pub dequant: Dequant,
    pub scales: ScaleSource,
    pub mma: MmaOp,
    pub out: OutFormat,
    pub global_scale: bool,
    /// cp.async pipeline (sm_80+) or plain loads.
    pub cp_async: bool,
}

/// Parameter order of the main kernel.
pub const MAIN_PARAMS: [&str; 13] =
    ["a", "b", "scales", "zeros", "out", "workspace", "global_scale", "m", "n", "k", "n_pad", "k_pad", "group_shift"];

fn out_ty(out: OutFormat) -> Ty {
    match out {
        OutFormat::F16 => Ty::F16,
        OutFormat::Bf16 => Ty::Bf16,
    }
}

/// Builds the main GEMM kernel.
pub fn build_main(name: &str, cfg: &A16Config) -> Kernel {
    let plan = cfg.plan;
    let bits = cfg.dequant.bits() as u32;
    let threads = plan.threads();
    let (bm, bn, bk) = (plan.bm(), plan.bn(), plan.bk);
    let a_bytes = bm * bk * 2;
    let stage_bytes = plan.stage_bytes(bits as u8);
    let blk_bytes = 128 * bits; // one (k16, n64) block
    let spw = plan.k_steps() / plan.k_warps; // k16 steps per warp per stage

    let mut b = KernelBuilder::new(name, threads);
    // One CTA per SM is enough for these tiles: let ptxas use the registers instead of spilling
    // to fit more CTAs (it caps registers for occupancy on sm_86/sm_89 otherwise).
    b.set_min_ctas_per_sm(1);
    let p: Vec<Reg> = MAIN_PARAMS
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let ty = match i {
                0..=5 => ParamTy::Ptr,
                6 => ParamTy::F32,
                _ => ParamTy::U32,
            };
            b.param(n, ty)
        })
        .collect();
    let (pa, pb, ps, pz, pout, pws, pgs) = (p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
    let (pm, pn, pk, pnpad, pkpad, pgshift) = (p[7], p[8], p[9], p[10], p[11], p[12]);
    let smem = b.dynamic_shared(128);
    let smem_base = b.mov(Ty::U32, Operand::SharedAddr(smem));

    let tid = b.special(SpecialReg::TidX);
    let lane = b.and32(tid, 31u32);
    let warp = b.shr32(tid, 5);
    let wn = b.op(BinOp::Rem, Ty::U32, warp, plan.n_warps);
    let wk = b.op(BinOp::Div, Ty::U32, warp, plan.n_warps);
    let g = b.shr32(lane, 2);
    let t = b.and32(lane, 3u32);
    let cx = b.special(SpecialReg::CtaidX);
    let cy = b.special(SpecialReg::CtaidY);
    let cz = b.special(SpecialReg::CtaidZ);
    let nz = b.special(SpecialReg::NctaidZ);
    let nb0 = b.mul_u32(cx, plan.n_warps);
    let m0 = b.mul_u32(cy, bm);
    let n_blocks = b.shr32(pnpad, 6);
    let total = b.shr32(pkpad, bk.trailing_zeros());
    let zt = b.mul_u32(cz, total);
    let s_begin = b.op(BinOp::Div, Ty::U32, zt, nz);
    let zt1 = b.add_u32(zt, total);
    let s_end = b.op(BinOp::Div, Ty::U32, zt1, nz);
    let n_iter = b.op(BinOp::Sub, Ty::U32, s_end, s_begin);

    // ---- per-thread loader state (independent of the stage) ----
    let loader: &dyn G2sLoader = if cfg.cp_async { &CpAsyncLoader } else { &PlainLoader };
    let cpr_a = bk / 8; // 16-byte chunks per A row
    let total_a = bm * cpr_a;
    let mut a_chunks = Vec::new();
    for r in 0..total_a.div_ceil(threads) {
        let i = b.add_u32(tid, r * threads);
        let row = b.shr32(i, cpr_a.trailing_zeros());
        let c = b.and32(i, cpr_a - 1);
        let grow = b.add_u32(m0, row);
        let mut ok = b.setp(Cmp::Lt, Ty::U32, grow, pm);
        // Chunks past the tile (when threads do not divide it) must not be issued at all: a
        // zero-filled copy would still write its destination, which lies in the next region.
        let inb = (total_a % threads != 0).then(|| b.setp(Cmp::Lt, Ty::U32, i, total_a));
        if let Some(inb) = inb {
            ok = b.and_pred(ok, inb);
        }
        let rowc = b.selp(Ty::U32, grow, 0u32, ok);
        let c8 = b.shl32(c, 3);
        let elem = b.mad_u32(rowc, pk, c8);
        let gbase = b.addr64(pa, elem, 2u32);
        let r7 = b.and32(row, 7u32);
        let sw = b.xor(c, r7);
        let sw = b.shl32(sw, 4);
        let dst = b.mad_u32(row, bk * 2, sw);
        let dst = b.add_u32(dst, 0u32);
        a_chunks.push((gbase, dst, ok, c8, inb));
    }
    let cpr_b = bn * bits / 8; // 16-byte chunks per k16 row of the B tile
    let total_b = (bk / 16) * cpr_b;
    let row_bytes = b.mul_u32(n_blocks, blk_bytes); // one k16 row of the whole matrix
    let b_stage_stride = b.mul_u32(row_bytes, bk / 16);
    let nb0_bytes = b.mul_u32(nb0, blk_bytes);
    let mut b_chunks = Vec::new();
    for r in 0..total_b.div_ceil(threads) {
        let i = b.add_u32(tid, r * threads);
        let row = b.op(BinOp::Div, Ty::U32, i, cpr_b);
        let c = b.op(BinOp::Rem, Ty::U32, i, cpr_b);
        let c16 = b.shl32(c, 4);
        let off = b.add_u32(nb0_bytes, c16);
        let mut ok = b.setp(Cmp::Lt, Ty::U32, off, row_bytes);
        let inb = (total_b % threads != 0).then(|| b.setp(Cmp::Lt, Ty::U32, i, total_b));
        if let Some(inb) = inb {
            ok = b.and_pred(ok, inb);
        }
        let goff = b.mad_u32(row, row_bytes, off);
        let goff = b.selp(Ty::U32, goff, 0u32, ok);
        let gbase = b.addr64(pb, goff, 1u32);
        let dst = b.mad_u32(row, 2 * bn * bits, c16);
        let dst = b.add_u32(dst, a_bytes);
        b_chunks.push((gbase, dst, ok, inb));
    }

    let load_stage = |b: &mut KernelBuilder, st: Reg, buf: Reg| {
        let sbase = b.mad_u32(buf, stage_bytes, smem_base);
        let k0 = b.mul_u32(st, bk);
        let k0_bytes = b.shl32(k0, 1);
        let issue = |b: &mut KernelBuilder, inb: Option<Reg>, d: Reg, src: Reg, valid: Reg| match inb {
            Some(p) => b.guarded(p, false, |b| loader.chunk(b, d, src, valid)),
            None => loader.chunk(b, d, src, valid),
        };
        for &(gbase, dst, ok, c8, inb) in &a_chunks {
            let gk = b.add_u32(k0, c8);
            let kin = b.setp(Cmp::Lt, Ty::U32, gk, pk);
            let valid = b.and_pred(ok, kin);
            let src = b.addr64(gbase, k0_bytes, 1u32);
            let src = b.selp(Ty::B64, src, pa, valid);
            let d = b.add_u32(sbase, dst);
            issue(b, inb, d, src, valid);
        }
        for &(gbase, dst, ok, inb) in &b_chunks {
            let src = b.addr64(gbase, st, b_stage_stride);
            let src = b.selp(Ty::B64, src, pb, ok);
            let d = b.add_u32(sbase, dst);
            issue(b, inb, d, src, ok);
        }
    };

    // ---- per-lane compute state ----
    let nb = b.add_u32(nb0, wn);
    let nb_ok = b.setp(Cmp::Lt, Ty::U32, nb, n_blocks);
    let r8 = b.and32(lane, 7u32);
    let h = b.shr32(lane, 4);
    let q = b.xor(h, r8);
    let l8 = b.bfe(lane, 3, 1);
    let arow = b.mad_u32(l8, 8u32, r8);
    let row_off: Vec<Reg> = (0..plan.m_tiles)
        .map(|mt| {
            let r = b.add_u32(arow, mt * 16);
            b.mul_u32(r, bk * 2)
        })
        .collect();
    let ewk = b.mul_u32(wk, 2 * spw);
    let wsteps = b.mul_u32(wk, spw);
    let b_lane_a = b.mad_u32(wsteps, plan.n_warps, wn);
    let b_lane_b = b.mul_u32(b_lane_a, blk_bytes);
    let b_lane_off = b.mad_u32(lane, 4 * bits, b_lane_b);
    let col_base = b.mad_u32(nb, 64u32, 0u32);
    let sidx_base = b.mad_u32(g, 8u32, col_base);
    let acc: Vec<Vec<Vec<Reg>>> = (0..plan.m_tiles)
        .map(|_| (0..8).map(|_| (0..4).map(|_| b.mov_as(RegClass::F32, Operand::f32(0.0))).collect()).collect())
        .collect();

    let compute = |b: &mut KernelBuilder, st: Reg, buf: Reg| {
        b.if_then(nb_ok, |b| {
            let sa = b.mad_u32(buf, stage_bytes, smem_base);
            let sb = b.add_u32(sa, a_bytes + 0);
            let sb = b.add_u32(sb, b_lane_off);
            let kst = b.mul_u32(st, bk);
            let kw = b.mad_u32(wsteps, 16u32, kst);
            for i in 0..spw {
                let waddr = b.add_u32(sb, i * plan.n_warps * blk_bytes);
                let words = load_words(b, waddr, bits);
                let kglob = b.add_u32(kw, i * 16);
                let grp = b.op(BinOp::Shr, Ty::U32, kglob, pgshift);
                let sidx = b.mad_u32(grp, pnpad, sidx_base);
                let tiles = cfg.scales.load(b, ps, pz, sidx);
                let frag = cfg.dequant.fragment(b, &words, &tiles);
                let e = b.add_u32(ewk, 2 * i);
                let x = b.xor(e, q);
                let x = b.shl32(x, 4);
                let abase = b.add_u32(sa, x);
                for (mt, ro) in row_off.iter().enumerate() {
                    let addr = b.add_u32(abase, *ro);
                    let afrag = b.ldmatrix(4, false, Addr::reg(addr));
                    for j in 0..8 {
                        cfg.mma.emit(b, &acc[mt][j], &afrag, &frag[2 * j..2 * j + 2]);
                    }
                }
            }
        });
    };

    // ---- main loop ----
    if cfg.cp_async {
        let s = plan.stages;
        for pre in 0..s - 1 {
            let has = b.setp(Cmp::Gt, Ty::U32, n_iter, pre);
            b.if_then(has, |b| {
                let st = b.add_u32(s_begin, pre);
                let buf = b.mov(Ty::U32, pre);
                load_stage(b, st, buf);
            });
            loader.end_stage(&mut b);
        }
        b.for_range(0u32, n_iter, 1, |b, it| {
            loader.wait(b, s - 2);
            b.emit(Inst::BarSync { id: 0, threads: None });
            let nxt = b.add_u32(it, s - 1);
            let has = b.setp(Cmp::Lt, Ty::U32, nxt, n_iter);
            b.if_then(has, |b| {
                let st = b.add_u32(s_begin, nxt);
                let buf = b.op(BinOp::Rem, Ty::U32, nxt, s);
                load_stage(b, st, buf);
            });
            loader.end_stage(b);
            let st = b.add_u32(s_begin, it);
            let buf = b.op(BinOp::Rem, Ty::U32, it, s);
            compute(b, st, buf);
        });
        loader.wait(&mut b, 0);
    } else {
        b.for_range(0u32, n_iter, 1, |b, it| {
            b.emit(Inst::BarSync { id: 0, threads: None });
            let st = b.add_u32(s_begin, it);
            let buf = b.mov(Ty::U32, 0u32);
            load_stage(b, st, buf);
            b.emit(Inst::BarSync { id: 0, threads: None });
            compute(b, st, buf);
        });
    }
    b.emit(Inst::BarSync { id: 0, threads: None });

    // ---- k-warp reduction through shared memory (fixed order: deterministic) ----
    let flat: Vec<Reg> = acc.iter().flatten().flatten().copied().collect();
    let nacc = flat.len() as u32;
    if plan.k_warps > 1 {
        let is_lead = b.setp(Cmp::Eq, Ty::U32, wk, 0u32);
        let lane4 = b.shl32(lane, 2);
        b.if_else(
            is_lead,
            |_| {},
            |b| {
                let slot = b.add_u32(wk, u32::MAX); // wk - 1
                let slot = b.mad_u32(slot, plan.n_warps, wn);
                let base = b.mul_u32(slot, nacc * 128);
                let base = b.add_u32(base, lane4);
                let base = b.add_u32(base, smem_base);
                for (r, &v) in flat.iter().enumerate() {
                    b.st_vec(Space::Shared, Ty::F32, Addr::reg_off(base, r as i64 * 128), &[v]);
                }
            },
        );
        b.emit(Inst::BarSync { id: 0, threads: None });
        b.if_then(is_lead, |b| {
            for w in 1..plan.k_warps {
                let slot = b.mad_u32(wn, 1u32, (w - 1) * plan.n_warps);
                let base = b.mul_u32(slot, nacc * 128);
                let base = b.add_u32(base, lane4);
                let base = b.add_u32(base, smem_base);
                for (r, &v) in flat.iter().enumerate() {
                    let x = b.reg(RegClass::F32);
                    b.emit(Inst::Ld {
                        space: Space::Shared,
                        cache: crate::ir::CacheOp::Default,
                        ty: Ty::F32,
                        dst: vec![x],
                        addr: Addr::reg_off(base, r as i64 * 128),
                    });
                    b.emit(Inst::Bin { op: BinOp::Add, ty: Ty::F32, dst: v, a: v.into(), b: x.into() });
                }
            }
        });
    }

    // ---- epilogue ----
    let is_lead = b.setp(Cmp::Eq, Ty::U32, wk, 0u32);
    let store = b.and_pred(is_lead, nb_ok);
    let single = b.setp(Cmp::Eq, Ty::U32, nz, 1u32);
    // rows: (mt, half); cols: (j, c)
    let rows: Vec<Vec<Reg>> = (0..plan.m_tiles)
        .map(|mt| (0..2).map(|hh| {
            let r = b.add_u32(m0, mt * 16 + hh * 8);
            b.add_u32(r, g)
        }).collect())
        .collect();
    let t2 = b.shl32(t, 1);
    let col0 = b.add_u32(col_base, t2);
    b.if_then(store, |b| {
        b.if_else(
            single,
            |b| {
                let oty = out_ty(cfg.out);
                for (mt, rr) in rows.iter().enumerate() {
                    for (hh, &row) in rr.iter().enumerate() {
                        let row_ok = b.setp(Cmp::Lt, Ty::U32, row, pm);
                        let rbase = b.mul_u32(row, pn);
                        for j in 0..8u32 {
                            for c in 0..2u32 {
                                let col = b.add_u32(col0, j * 8 + c);
                                let col_ok = b.setp(Cmp::Lt, Ty::U32, col, pn);
                                let ok = b.and_pred(row_ok, col_ok);
                                let mut v = acc[mt][j as usize][hh * 2 + c as usize];
                                if cfg.global_scale {
                                    v = b.op(BinOp::Mul, Ty::F32, v, pgs);
                                }
                                let hv = b.cvt_f32_to(oty, v);
                                let e = b.add_u32(rbase, col);
                                let addr = b.addr64(pout, e, 2u32);
                                b.guarded(ok, false, |b| {
                                    b.st_vec(Space::Global, Ty::B16, Addr::reg(addr), &[hv]);
                                });
                            }
                        }
                    }
                }
            },
            |b| {
                let zm = b.mul_u32(cz, pm);
                for (mt, rr) in rows.iter().enumerate() {
                    for (hh, &row) in rr.iter().enumerate() {
                        let row_ok = b.setp(Cmp::Lt, Ty::U32, row, pm);
                        let wrow = b.add_u32(zm, row);
                        let rbase = b.mul_u32(wrow, pnpad);
                        for j in 0..8u32 {
                            let col = b.add_u32(col0, j * 8);
                            let e = b.add_u32(rbase, col);
                            let addr = b.addr64(pws, e, 4u32);
                            let v0 = acc[mt][j as usize][hh * 2];
                            let v1 = acc[mt][j as usize][hh * 2 + 1];
                            b.guarded(row_ok, false, |b| {
                                b.st_vec(Space::Global, Ty::F32, Addr::reg(addr), &[v0, v1]);
                            });
                        }
                    }
                }
            },
        );
    });
    b.finish()
}

/// `bits` consecutive 32-bit words at shared address `addr`, in the widest aligned vectors.
fn load_words(b: &mut KernelBuilder, addr: Reg, bits: u32) -> Vec<Reg> {
    let bytes = 4 * bits;
    let vec = if bytes % 16 == 0 { 4 } else if bytes % 8 == 0 { 2 } else { 1 };
    let mut words = Vec::new();
    for v in 0..bits / vec {
        words.extend(b.ld_vec(Space::Shared, Ty::B32, vec as usize, Addr::reg_off(addr, (v * vec * 4) as i64)));
    }
    words
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
