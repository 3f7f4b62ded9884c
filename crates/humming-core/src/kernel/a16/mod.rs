//! The W{1..8}A16 GEMM kernel: `out[M, N] = act[M, K] (f16/bf16) x dequant(W)[N, K]^T`, built
//! from the components of this module. One CTA computes a `BM x BN` tile over a range of K
//! stages (split-K across `gridDim.z`); warps own 64-column blocks (or, half-width, 32 columns
//! of one: [`KernelPlan::halves`]) and share k16 steps.
//!
//! Data path per stage: activations and packed weights go global -> shared (cp.async pipeline
//! or plain loads), activations shared -> registers by `ldmatrix.x4` from an XOR-swizzled tile,
//! weights by one vector load per lane per (k16, n64) block, dequantized in registers with the
//! group scale applied, then 8 MMAs per m16 tile. Swapped plans ([`KernelPlan::swap`], small
//! M) make the dequantized block the A operand (four m16 tiles of columns) and the activations
//! the B operand (n8 tiles of rows, `ldmatrix.x2` for one), so a step takes 4 MMAs per 8 rows;
//! their fragments stay unscaled and each warp adds its k range's f32 sums times the group
//! scales (one FFMA per accumulator per stage when the group spans the range, else per step).
//!
//! Partial sums of the k warps are reduced in shared memory; with one split the epilogue
//! converts and stores, otherwise every CTA writes its f32 partial and the last CTA of the tile
//! to arrive sums them in split order (deterministic) with all its threads (`reduce::reduce_tile`).

use super::dequant::{Dequant, TileQuant};
use super::emit::Emit;
use super::loader::{CpAsyncLoader, G2sLoader, PlainLoader};
use super::mma::MmaOp;
use super::plan::KernelPlan;
use super::scales::ScaleSource;
use crate::format::OutFormat;
use crate::ScaleGroup;
use crate::ir::builder::KernelBuilder;
use super::plan::FLAG_BYTES;
use crate::ir::{
    Addr, AtomOp, BinOp, Cmp, Inst, Kernel, L2Evict, Operand, ParamTy, Reg, RegClass, Rnd, SpecialReg, Space, Ty,
};

mod reduce;
mod smem;
mod window;
mod ws;

pub use reduce::{REDUCE_PARAMS, REDUCE_THREADS, build_reduce};
use reduce::{ReduceTile, reduce_tile};
use smem::{a_chunk_of, a_chunk_offset, gcd, load_words};
use window::TileWindow;
use ws::{WsLoop, warp_specialized_loop};

/// Everything the generator needs to know, derived from a spec and a plan.
#[derive(Clone, Copy, Debug)]
pub struct A16Config {
    pub plan: KernelPlan,
    pub dequant: Dequant,
    pub scales: ScaleSource,
    pub mma: MmaOp,
    pub out: OutFormat,
    pub global_scale: bool,
    /// The scale group the weights are packed with (the launch checks it): how many k16 steps
    /// share one group is known when the kernel is generated.
    pub group: ScaleGroup,
    /// cp.async pipeline (sm_80+) or plain loads.
    pub cp_async: bool,
    /// L2 evict-first cache policy on the weight and scale copies (with `cp_async`). Off in
    /// [`super::configure`]: ptxas (12.9 here, and the 13.0 driver JIT on the H200) miscompiles
    /// it in this kernel: the LDGSTS read their cache descriptor from a uniform register that
    /// nothing writes (`desc[UR1]`, visible in the SASS), an illegal instruction at run time.
    /// Known ptxas bug (IST-DASLab/marlin#44, triton-lang/triton#11660); the small IR sample
    /// `cp_async_hint_copy` compiles correctly and passes on the GPU.
    pub evict_first: bool,
    /// The same policy on the warp-specialized producer's bulk weight copies (`cp.async.bulk`
    /// with `.L2::cache_hint`, no LDGSTS involved), where `evict_first` is off.
    pub bulk_evict_first: bool,
    /// Programmatic dependent launch (sm_90+): weights of the first stages are requested
    /// before `griddepcontrol.wait`, and `griddepcontrol.launch_dependents` follows that wait
    /// (so the next grid's CTAs start where an SM has room, v22). Without the launch attribute
    /// both are no-ops.
    pub pdl: bool,
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
    // Stage layout: [A: bm x bk halves][B: bk x bn codes][scales: s_rows x bn][zeros: s_rows x bn].
    let sb = cfg.scales.scale_bytes();
    let qb = cfg.scales.qbytes();
    let a_bytes = bm * bk * 2;
    let b_bytes = bk * bn * bits / 8;
    let s_rows = plan.k_steps(); // group rows a stage can touch (group size >= 16)
    let s_row_bytes = bn * sb;
    let s_off = a_bytes + b_bytes;
    let z_off = s_off + s_rows * s_row_bytes;
    let stage_bytes = plan.stage_bytes_q(bits as u8, qb);
    let used = plan.smem_bytes_q(bits as u8, qb) - plan.smem_align_pad();
    let flag_off = used - FLAG_BYTES - plan.mbar_bytes();
    // Warp-specialized plans: the `full` mbarriers of the ring slots, then the `empty` ones.
    let mbar_off = used - plan.mbar_bytes();
    let blk_bytes = 128 * bits; // one (k16, n64) block
    let spw = plan.k_steps() / plan.k_warps; // k16 steps per warp per stage

    let mut b = KernelBuilder::new(name, threads);
    // One CTA per SM is enough for these tiles (two for the warp-specialized ones of one math
    // warpgroup, whose `.maxnreg` is half the register file): let ptxas use the registers instead
    // of spilling to fit more CTAs (it caps registers for occupancy on sm_86/sm_89 otherwise).
    b.set_min_ctas_per_sm(plan.ws_ctas_per_sm());
    // Warp-specialized plans: registers at launch, of the producer and of the math warps
    // (`validate` rejects the plans that have none).
    let ws_regs = plan.ws.then(|| plan.ws_registers(bits as u8)).flatten();
    if let Some((launch, _, _)) = ws_regs {
        b.set_max_regs(launch);
    }
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
    let smem_base = match plan.smem_align_pad() {
        0 => smem_base,
        pad => {
            let up = b.add_u32(smem_base, pad - 1);
            b.and32(up, !(pad - 1))
        }
    };
    // Weights and their scales are read once: evict them from L2 first (activations, reused by
    // every CTA along N, keep the normal policy).
    let policy = (cfg.cp_async && cfg.evict_first).then(|| b.create_policy(L2Evict::First, 1.0));
    let bulk_policy = policy.or_else(|| (plan.ws && cfg.bulk_evict_first).then(|| b.create_policy(L2Evict::First, 1.0)));

    let tid = b.special(SpecialReg::TidX);
    // The threads that copy stages, and this thread's index among them: all of them, or with
    // warp specialization the producer warpgroup after the math warps (`prod`).
    let prod = plan.ws.then(|| b.setp(Cmp::Ge, Ty::U32, tid, plan.math_threads()));
    let (ltid, lthreads) = if plan.ws { (b.add_u32(tid, plan.math_threads().wrapping_neg()), 128) } else { (tid, threads) };
    // A predicate of the copying threads' setup stores (the producer's alone when specialized).
    let copier_only = |b: &mut KernelBuilder, p: Reg| match prod {
        Some(q) => b.and_pred(p, q),
        None => p,
    };
    let lane = b.and32(tid, 31u32);
    let warp = b.shr32(tid, 5);
    // wgmma plans: warpgroup `wn` owns n64 block `wn`, its warp `w4` the m16 tile `w4` of it.
    // Otherwise warp `wcol` of k slice `wk` owns n64 block `wn`, or with half-width warps its
    // columns `32 half .. 32 half + 32`.
    let (wcol, wn, wk) = if plan.wgmma {
        let wn = b.shr32(warp, 2);
        (wn, wn, b.mov(Ty::U32, 0u32))
    } else {
        let wcol = b.op(BinOp::Rem, Ty::U32, warp, plan.col_warps());
        let wn = if plan.halves { b.shr32(wcol, 1) } else { wcol };
        (wcol, wn, b.op(BinOp::Div, Ty::U32, warp, plan.col_warps()))
    };
    let half = plan.halves.then(|| b.and32(wcol, 1u32));
    let w4 = if plan.wgmma { b.and32(warp, 3u32) } else { warp };
    let g = b.shr32(lane, 2);
    let t = b.and32(lane, 3u32);
    let cx = b.special(SpecialReg::CtaidX);
    let cy = b.special(SpecialReg::CtaidY);
    let cz = b.special(SpecialReg::CtaidZ);
    let nz = b.special(SpecialReg::NctaidZ);
    let nb0 = b.mul_u32(cx, plan.n_warps);
    let m0 = b.mul_u32(cy, bm);
    let n_blocks = b.shr32(pnpad, 6);
    // Stages of K; the last one may be partial (K padded to 64 or the group, not to bk): its
    // weight rows past k_pad are zero-filled, its activations past K too.
    let kpad_r = b.add_u32(pkpad, bk - 1);
    let total = b.shr32(kpad_r, bk.trailing_zeros());
    let kpad16 = b.shr32(pkpad, 4);
    let kq_max = b.add_u32(pkpad, u32::MAX - 15); // k_pad - 16: the last k16 step's k
    let zt = b.mul_u32(cz, total);
    let s_begin = b.op(BinOp::Div, Ty::U32, zt, nz);
    let zt1 = b.add_u32(zt, total);
    let s_end = b.op(BinOp::Div, Ty::U32, zt1, nz);
    let n_iter = b.op(BinOp::Sub, Ty::U32, s_end, s_begin);

    // ---- per-thread loader state (independent of the stage) ----
    let loader: &dyn G2sLoader = if cfg.cp_async { &CpAsyncLoader } else { &PlainLoader };
    let zero_word = b.mov(Ty::B32, 0u32);
    let cpr_a = bk / 8; // 16-byte chunks per A row
    let total_a = bm * cpr_a;
    struct AChunk {
        gbase: Reg,
        dst: Reg,
        row_ok: Reg,
        c8: Reg,
        issue: Reg,
    }
    // Regular tiles (the usual case): every thread copies the same 16-byte column chunk of rows
    // row0, row0 + rpr, ...: one 64-bit source per stage advanced by a fixed step, shared
    // destinations from at most 8 swizzle phases plus immediates, and the row test against M
    // from one register. (Separate address sets per chunk cost up to 96 registers at M = 64.)
    let a_regular_ok = lthreads % cpr_a == 0 && total_a % lthreads == 0;
    // Shared bytes between consecutive rows of the A tile (wgmma: rows of a 128-byte slice).
    let a_pitch = if plan.wgmma { 128 } else { bk * 2 };
    let a_regular = a_regular_ok.then(|| {
        let rpr = lthreads / cpr_a;
        let (row0, c) = a_chunk_of(&mut b, ltid, cpr_a);
        let c8 = b.shl32(c, 3);
        let grow0 = b.add_u32(m0, row0);
        // Rows of this thread's column left inside M: row r is copied iff r * rpr < rows_left.
        let top = b.op(BinOp::Max, Ty::U32, pm, grow0);
        let rows_left = b.op(BinOp::Sub, Ty::U32, top, grow0);
        let elem = b.mad_u32(grow0, pk, c8);
        let gbase = b.addr64(pa, elem, 2u32);
        let step = b.mul_u32(pk, 2 * rpr);
        // Swizzled rows repeat their pattern every `phases` rounds.
        let phases = 8 / gcd(rpr, 8);
        let dsts: Vec<Reg> = (0..phases.min(total_a / lthreads))
            .map(|ph| {
                let row = b.add_u32(row0, ph * rpr);
                a_chunk_offset(&mut b, row, c, bm, bk, plan.wgmma)
            })
            .collect();
        let rounds = total_a / lthreads;
        // (phase register, immediate offset) of round r.
        let dst_of = move |r: u32| (r % phases, (r / phases) * phases * rpr * a_pitch);
        for r in 0..rounds {
            let out = b.setp(Cmp::Le, Ty::U32, rows_left, r * rpr);
            let out = copier_only(&mut b, out);
            let (ph, imm) = dst_of(r);
            let d0 = b.add_u32(smem_base, dsts[ph as usize]);
            b.guarded(out, false, |b| {
                for st in 0..plan.stages {
                    b.st_vec(Space::Shared, Ty::B32, Addr::reg_off(d0, (imm + st * stage_bytes) as i64), &[zero_word; 4]);
                }
            });
        }
        (gbase, step, c8, rows_left, dsts, rounds, rpr, dst_of)
    });
    let mut a_chunks = Vec::new();
    for r in 0..if a_regular.is_some() { 0 } else { total_a.div_ceil(lthreads) } {
        let i = b.add_u32(ltid, r * lthreads);
        let (row, c) = a_chunk_of(&mut b, i, cpr_a);
        let grow = b.add_u32(m0, row);
        let row_ok = b.setp(Cmp::Lt, Ty::U32, grow, pm);
        // Chunks past the tile (when threads do not divide it) must not be issued at all: a
        // zero-filled copy would still write its destination, which lies in the next region.
        let inb = (total_a % lthreads != 0).then(|| b.setp(Cmp::Lt, Ty::U32, i, total_a));
        let rowc = b.selp(Ty::U32, grow, 0u32, row_ok);
        let c8 = b.shl32(c, 3);
        let elem = b.mad_u32(rowc, pk, c8);
        let gbase = b.addr64(pa, elem, 2u32);
        let dst = a_chunk_offset(&mut b, row, c, bm, bk, plan.wgmma);
        // Rows past M are never copied: they are zeroed once here, in every stage.
        let row_out = b.setp(Cmp::Ge, Ty::U32, grow, pm);
        let (issue, zero) = match inb {
            Some(inb) => (b.and_pred(row_ok, inb), b.and_pred(row_out, inb)),
            None => (row_ok, row_out),
        };
        let zero = copier_only(&mut b, zero);
        let d0 = b.add_u32(smem_base, dst);
        b.guarded(zero, false, |b| {
            for st in 0..plan.stages {
                b.st_vec(Space::Shared, Ty::B32, Addr::reg_off(d0, (st * stage_bytes) as i64), &[zero_word; 4]);
            }
        });
        a_chunks.push(AChunk { gbase, dst, row_ok, c8, issue });
    }
    let cpr_b = bn * bits / 8; // 16-byte chunks per k16 row of the B tile
    let total_b = (bk / 16) * cpr_b;
    let row_bytes = b.mul_u32(n_blocks, blk_bytes); // one k16 row of the whole matrix
    let b_stage_stride = b.mul_u32(row_bytes, bk / 16);
    let nb0_bytes = b.mul_u32(nb0, blk_bytes);
    let mut b_chunks = Vec::new();
    // Regular tiles (the usual case): every thread copies the same column chunk of rows
    // row0, row0 + rpr, ...: one 64-bit base per stage, one add per further row, immediate shared
    // offsets, and no copy at all for columns past n_pad (their warps do not compute).
    let regular = lthreads % cpr_b == 0 && total_b % lthreads == 0;
    let b_regular = regular.then(|| {
        let rpr = lthreads / cpr_b;
        let row0 = b.op(BinOp::Div, Ty::U32, ltid, cpr_b);
        let c = b.op(BinOp::Rem, Ty::U32, ltid, cpr_b);
        let c16 = b.shl32(c, 4);
        let off = b.add_u32(nb0_bytes, c16);
        let ok = b.setp(Cmp::Lt, Ty::U32, off, row_bytes);
        let goff = b.mad_u32(row0, row_bytes, off);
        let gbase = b.addr64(pb, goff, 1u32);
        let step = b.mul_u32(row_bytes, rpr);
        let dst = b.mad_u32(row0, 2 * bn * bits, c16);
        let dst = b.add_u32(dst, a_bytes);
        (gbase, step, dst, ok, total_b / lthreads, rpr * 2 * bn * bits, row0, rpr)
    });
    for r in 0..if regular { 0 } else { total_b.div_ceil(lthreads) } {
        let i = b.add_u32(ltid, r * lthreads);
        let row = b.op(BinOp::Div, Ty::U32, i, cpr_b);
        let c = b.op(BinOp::Rem, Ty::U32, i, cpr_b);
        let c16 = b.shl32(c, 4);
        let off = b.add_u32(nb0_bytes, c16);
        let mut ok = b.setp(Cmp::Lt, Ty::U32, off, row_bytes);
        let inb = (total_b % lthreads != 0).then(|| b.setp(Cmp::Lt, Ty::U32, i, total_b));
        if let Some(inb) = inb {
            ok = b.and_pred(ok, inb);
        }
        let goff = b.mad_u32(row, row_bytes, off);
        let goff = b.selp(Ty::U32, goff, 0u32, ok);
        let gbase = b.addr64(pb, goff, 1u32);
        let dst = b.mad_u32(row, 2 * bn * bits, c16);
        let dst = b.add_u32(dst, a_bytes);
        b_chunks.push((gbase, dst, ok, inb, row));
    }
    // Scale (and zero-point) rows: chunk slot i of the stage's `s_rows` group rows of the
    // tile's columns; a slot is copied when its row is among the groups the stage touches and
    // its columns lie inside n_pad.
    let q_chunks = |b: &mut KernelBuilder, row_bytes_t: u32, elem_bytes: u32, region: u32, table: Reg| {
        let cps = row_bytes_t / 16;
        let total_q = s_rows * cps;
        let npad_bytes = b.mul_u32(pnpad, elem_bytes);
        let col0 = b.mul_u32(nb0, 64 * elem_bytes);
        (0..total_q.div_ceil(lthreads))
            .map(|r| {
                let i = b.add_u32(ltid, r * lthreads);
                let row = b.op(BinOp::Div, Ty::U32, i, cps);
                let c = b.op(BinOp::Rem, Ty::U32, i, cps);
                let c16 = b.shl32(c, 4);
                let gcol = b.add_u32(col0, c16);
                let mut ok = b.setp(Cmp::Lt, Ty::U32, gcol, npad_bytes);
                if total_q % lthreads != 0 {
                    let inb = b.setp(Cmp::Lt, Ty::U32, i, total_q);
                    ok = b.and_pred(ok, inb);
                }
                let dst = b.mad_u32(row, row_bytes_t, c16);
                let dst = b.add_u32(dst, region);
                (row, gcol, dst, ok, npad_bytes, table)
            })
            .collect::<Vec<_>>()
    };
    let mut s_chunks = q_chunks(&mut b, s_row_bytes, sb, s_off, ps);
    if cfg.scales.dynamic_zero {
        s_chunks.extend(q_chunks(&mut b, bn, 1, z_off, pz));
    }

    // Copies stage `st` into the ring slot at `off`: its activations (`act`) and its weights,
    // scales and zero points (`weights`; they never depend on an earlier grid).
    // Warp-specialized plans copy a stage's weights with one `cp.async.bulk` a k16 row (the
    // tile's columns of a row are contiguous in the packed layout and in the stage), completing
    // on the slot's `full` barrier (`full_bar`): producer warp w's lane that `elect.sync` picks
    // copies rows w, w + 4, ..; warp 0's also adds the stage's bytes to the barrier with its
    // arrival (the barrier's 129th). Under a per-thread guard instead ptxas wraps each bulk copy
    // in a loop over the lanes the guard may hold. The partial last stage (rows past k_pad
    // zero-filled) keeps the per-thread copies, with a plain arrival instead.
    // Bytes of a k16 row of the tile inside n_pad (columns past it are neither copied nor read).
    let bulk_row = plan.ws.then(|| {
        let left = b.op(BinOp::Sub, Ty::U32, row_bytes, nb0_bytes);
        b.op(BinOp::Min, Ty::U32, left, 2 * bn * bits)
    });
    let bulk_warp = bulk_row.map(|_| {
        let w = b.shr32(ltid, 5);
        let first = b.setp(Cmp::Eq, Ty::U32, w, 0u32);
        (w, first)
    });
    let load_stage = |b: &mut KernelBuilder, st: Reg, off: Reg, act: bool, weights: bool, full_bar: Option<Reg>| {
        let sbase = b.add_u32(off, smem_base);
        let k0 = b.mul_u32(st, bk);
        let k0_bytes = b.shl32(k0, 1);
        if act {
            // Activations: whole chunks while the stage lies inside K, zero-filled past K in the
            // stage that crosses it.
            let k_end = b.add_u32(k0, bk);
            let a_full = b.setp(Cmp::Le, Ty::U32, k_end, pk);
            if let Some((gbase, step, c8, rows_left, dsts, rounds, rpr, dst_of)) = &a_regular {
                let base = b.addr64(*gbase, k0_bytes, 1u32);
                let d: Vec<Reg> = dsts.iter().map(|&x| b.add_u32(sbase, x)).collect();
                // Rounds of this thread's column; in the stage that crosses K (`partial`) the
                // chunks past K are zero-filled.
                let rounds_of = |b: &mut KernelBuilder, partial: bool| {
                    let kin = partial.then(|| {
                        let gk = b.add_u32(k0, *c8);
                        b.setp(Cmp::Lt, Ty::U32, gk, pk)
                    });
                    let mut src = base;
                    for r in 0..*rounds {
                        if r > 0 {
                            src = b.addr64(src, *step, 1u32);
                        }
                        let go = b.setp(Cmp::Gt, Ty::U32, *rows_left, r * rpr);
                        let (ph, imm) = dst_of(r);
                        match kin {
                            None => b.guarded(go, false, |b| loader.chunk_full(b, d[ph as usize], imm as i64, src, None)),
                            Some(kin) => {
                                let valid = b.and_pred(go, kin);
                                let s = b.selp(Ty::B64, src, pa, valid);
                                let dr = b.add_u32(d[ph as usize], imm);
                                b.guarded(go, false, |b| loader.chunk(b, dr, s, valid, None));
                            }
                        }
                    }
                };
                b.if_else(a_full, |b| rounds_of(b, false), |b| rounds_of(b, true));
            }
            if !a_chunks.is_empty() {
                b.if_else(
                    a_full,
                    |b| {
                        for ch in &a_chunks {
                            let src = b.addr64(ch.gbase, k0_bytes, 1u32);
                            let d = b.add_u32(sbase, ch.dst);
                            b.guarded(ch.issue, false, |b| loader.chunk_full(b, d, 0, src, None));
                        }
                    },
                    |b| {
                        for ch in &a_chunks {
                            let gk = b.add_u32(k0, ch.c8);
                            let kin = b.setp(Cmp::Lt, Ty::U32, gk, pk);
                            let valid = b.and_pred(ch.row_ok, kin);
                            let src = b.addr64(ch.gbase, k0_bytes, 1u32);
                            let src = b.selp(Ty::B64, src, pa, valid);
                            let d = b.add_u32(sbase, ch.dst);
                            b.guarded(ch.issue, false, |b| loader.chunk(b, d, src, valid, None));
                        }
                    },
                );
            }
        }
        if weights {
            // k16 rows of this stage inside k_pad (all of them but in a partial last stage).
            let r0 = b.mul_u32(st, bk / 16);
            let lim = b.op(BinOp::Sub, Ty::U32, kpad16, r0);
            // The per-thread copies of the stage's weights (all of them, or with bulk copies the
            // partial last stage's).
            let per_thread = |b: &mut KernelBuilder| {
                if let Some((gbase, step, dst, ok, rounds, dstep, row0, rpr)) = b_regular {
                    let full = b.setp(Cmp::Ge, Ty::U32, lim, bk / 16);
                    let base = b.addr64(gbase, st, b_stage_stride);
                    let d = b.add_u32(sbase, dst);
                    // Addresses unpredicated (predicated updates cost selects), copies guarded; in
                    // the partial last stage (`partial`) rows past k_pad become zeros.
                    let rounds_of = |b: &mut KernelBuilder, partial: bool| {
                        let mut src = base;
                        for r in 0..rounds {
                            if r > 0 {
                                src = b.addr64(src, step, 1u32);
                            }
                            if partial {
                                let row = b.add_u32(row0, r * rpr);
                                let kin = b.setp(Cmp::Lt, Ty::U32, row, lim);
                                let valid = b.and_pred(ok, kin);
                                let s = b.selp(Ty::B64, src, pb, valid);
                                let dr = b.add_u32(d, r * dstep);
                                b.guarded(ok, false, |b| loader.chunk(b, dr, s, valid, policy));
                            } else {
                                b.guarded(ok, false, |b| loader.chunk_full(b, d, (r * dstep) as i64, src, policy));
                            }
                        }
                    };
                    b.if_else(full, |b| rounds_of(b, false), |b| rounds_of(b, true));
                }
                for &(gbase, dst, ok, inb, row) in &b_chunks {
                    let kin = b.setp(Cmp::Lt, Ty::U32, row, lim);
                    let ok = b.and_pred(ok, kin);
                    let src = b.addr64(gbase, st, b_stage_stride);
                    let src = b.selp(Ty::B64, src, pb, ok);
                    let d = b.add_u32(sbase, dst);
                    match inb {
                        Some(p) => b.guarded(p, false, |b| loader.chunk(b, d, src, ok, policy)),
                        None => loader.chunk(b, d, src, ok, policy),
                    }
                }
            };
            match (bulk_row, bulk_warp, full_bar) {
                (Some(row_n), Some((w, warp0)), Some(bar)) => {
                    let full = b.setp(Cmp::Ge, Ty::U32, lim, bk / 16);
                    b.if_else(
                        full,
                        |b| {
                            let lead = b.elect_sync();
                            let first_lead = b.and_pred(lead, warp0);
                            b.guarded(first_lead, false, |b| {
                                let total = b.mul_u32(row_n, bk / 16);
                                b.mbarrier_arrive_expect_tx(Addr::reg(bar), total);
                            });
                            // Row w of the stage, then every fourth.
                            let row0 = b.mad_u32(st, bk / 16, w);
                            let first = b.mad_u32(row0, row_bytes, nb0_bytes);
                            let mut src = b.addr64(pb, first, 1u32);
                            let d = b.mad_u32(w, 2 * bn * bits, a_bytes);
                            let d = b.add_u32(sbase, d);
                            let step = b.shl32(row_bytes, 2);
                            b.guarded(lead, false, |b| {
                                for r in 0..bk / 64 {
                                    if r > 0 {
                                        src = b.addr64(src, step, 1u32);
                                    }
                                    let dst = Addr::reg_off(d, (r * 8 * bn * bits) as i64);
                                    match bulk_policy {
                                        Some(p) => b.cp_async_bulk_hint(dst, Addr::reg(src), row_n, Addr::reg(bar), p),
                                        None => b.cp_async_bulk(dst, Addr::reg(src), row_n, Addr::reg(bar)),
                                    }
                                }
                            });
                        },
                        |b| {
                            let lead = b.elect_sync();
                            let first_lead = b.and_pred(lead, warp0);
                            b.guarded(first_lead, false, |b| b.mbarrier_arrive(Addr::reg(bar)));
                            per_thread(b);
                        },
                    );
                }
                _ => per_thread(b),
            }
            if !s_chunks.is_empty() {
                let g0 = b.op(BinOp::Shr, Ty::U32, k0, pgshift);
                let k1 = b.add_u32(k0, bk - 1);
                let k1 = b.op(BinOp::Min, Ty::U32, k1, kq_max); // inside k_pad
                let g1 = b.op(BinOp::Shr, Ty::U32, k1, pgshift);
                let nrows = b.op(BinOp::Sub, Ty::U32, g1, g0);
                for &(row, gcol, dst, ok, npad_bytes, table) in &s_chunks {
                    let in_rows = b.setp(Cmp::Le, Ty::U32, row, nrows);
                    let go = b.and_pred(ok, in_rows);
                    let grow = b.add_u32(g0, row);
                    let goff = b.mad_u32(grow, npad_bytes, gcol);
                    let src = b.addr64(table, goff, 1u32);
                    let d = b.add_u32(sbase, dst);
                    // Rows not copied are never read (compute reads the stage's group rows only).
                    b.guarded(go, false, |b| loader.chunk_full(b, d, 0, src, policy));
                }
            }
        }
    };

    // ---- per-lane compute state ----
    let nb = b.add_u32(nb0, wn);
    let nb_ok = b.setp(Cmp::Lt, Ty::U32, nb, n_blocks);
    // A warp-specialized plan's producer computes and stores nothing.
    let nb_ok = if plan.ws {
        let math = b.setp(Cmp::Lt, Ty::U32, tid, plan.math_threads());
        b.and_pred(nb_ok, math)
    } else {
        nb_ok
    };
    // ldmatrix lanes: x4 over 16 rows (lanes 8-15 the rows 8..16, lanes 16-31 the upper k half:
    // the A fragment's order), or, swapped, over the n8 tiles of M in B-fragment order (lanes
    // 8-15 the upper k half of rows 0..8, lanes 16-31 rows 8..16: each tile's two registers come
    // out adjacent, as the MMA takes them, with no moves); x2 for one n8 tile.
    let x2 = plan.swap && plan.m_tiles == 1;
    let r8 = b.and32(lane, 7u32);
    let l8 = b.bfe(lane, 3, 1);
    let l16 = b.shr32(lane, 4);
    let (khalf, rtile) = if plan.swap { (l8, l16) } else { (l16, l8) };
    let q = b.xor(khalf, r8);
    let arow = if x2 { r8 } else { b.mad_u32(rtile, 8u32, r8) };
    let row_off: Vec<Reg> = (0..if plan.swap { 1 } else { plan.m_tiles })
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
    // This lane group's 8 columns inside the tile's scale / zero rows.
    let qcol = b.mad_u32(wn, 64u32, 0u32);
    let qcol = b.mad_u32(g, 8u32, qcol);
    // Half-width warps: the half's `bits / 2` words of the lane's block (pairs 8 half ..
    // 8 half + 8, whole words for even widths), columns 32 half .. 32 half + 32, and the lane
    // group's tiles 4 half .. 4 half + 4.
    let (b_lane_off, col_base, qcol) = match half {
        Some(h) => (b.mad_u32(h, 2 * bits, b_lane_off), b.mad_u32(h, 32u32, col_base), b.mad_u32(h, 4u32, qcol)),
        None => (b_lane_off, col_base, qcol),
    };
    // Words, pairs and n8 tiles of the block a warp dequantizes.
    let (lane_words, npairs, ntiles) = if plan.halves { (bits / 2, 8, 4) } else { (bits, 16, 8) };
    let s_lane = b.mad_u32(qcol, sb, s_off);
    let z_lane = b.add_u32(qcol, z_off);
    // Accumulators acc[row tile][column tile][4]: (m16 tile, n8 tile) or, swapped, (n8 tile of
    // M, m16 tile of the warp's 64 columns).
    let (row_tiles, col_tiles) = if plan.wgmma {
        (bm / 8, 1) // one n8 block of M each: wgmma's D, 4 registers per 8 columns of N = BM
    } else if plan.swap {
        (plan.m_tiles, if plan.halves { 2 } else { 4 })
    } else {
        (plan.m_tiles, if plan.halves { 4 } else { 8 })
    };
    let acc_set = |b: &mut KernelBuilder| -> Vec<Vec<Vec<Reg>>> {
        (0..row_tiles)
            .map(|_| (0..col_tiles).map(|_| (0..4).map(|_| b.mov_as(RegClass::F32, Operand::f32(0.0))).collect()).collect())
            .collect()
    };
    let acc = acc_set(&mut b);
    // Swapped plans scale f32 sums: each warp's k range of a stage is summed unscaled into `tmp`
    // and added to `acc` times its group's scales. When the group spans the range (the usual
    // case: group >= 16 * spw) that is once per stage; shorter groups take the same code with a
    // sum per group (`group_steps` k16 steps: groups and ranges are aligned powers of two).
    // Integer codes with an implicit zero point leave their offsets in the fragments
    // ([`Dequant::fold_offsets`]) in plans with one n8 tile of M: the sums of an m16 tile start
    // at `corr` of its pattern (minus the offsets times the range's activations: one MMA per
    // step and pattern with the pattern's constant A fragment). Two tiles (M = 9..16) subtract
    // per pair instead: their MMAs bind the tensor pipe, and the fold's are a fifth of them (v55:
    // u4 f16 2-4% faster at M = 9..16 without it, bf16 within 1%).
    // Per-group zero points fold as well (`FoldOffsets::dynamic_zero`) with f16 activations and
    // codes under 8 bits: v50-v51 measured u4 3-6% faster there, but 1-4% slower with bf16 and
    // up to 4% for u8 (already at the copy bandwidth): the per-range sums and corrections cost
    // more than the per-pair subtractions they save.
    let zero_fold = cfg.scales.act == super::dequant::Act16::F16 && bits < 8;
    let fold = cfg.dequant.fold_offsets().filter(|f| plan.swap && !plan.wgmma && plan.m_tiles == 1 && (!f.dynamic_zero || zero_fold));
    // A half-width warp's tiles 0 and 1 are the block's tiles 2 half and 2 half + 1, whose
    // offsets repeat those of tiles 0 and 1 (even widths: pair p + 8 sits where pair p does, in
    // the next `bits / 2` words).
    if let (Some(f), true) = (&fold, plan.halves) {
        assert!(f.of_tile[0] == f.of_tile[2] && f.of_tile[1] == f.of_tile[3], "offset patterns of the two halves differ");
    }
    let group_steps = plan.group_steps(cfg.group).unwrap_or(spw);
    let late = (plan.swap && !plan.wgmma).then(|| {
        let zero = b.mov_as(RegClass::F32, Operand::f32(0.0));
        let consts: Vec<[Reg; 4]> = fold.iter().flat_map(|f| f.patterns.iter()).map(|c| c.map(|x| b.mov(Ty::B32, x))).collect();
        let corr: Vec<Vec<[Reg; 4]>> = (0..plan.m_tiles)
            .map(|_| consts.iter().map(|_| [(); 4].map(|_| b.reg(RegClass::F32))).collect())
            .collect();
        // Per-group zero points folded too: each n8 tile of M's activation sums over the range
        // (an MMA with an all-ones A fragment per step: every row of its result is the sums of
        // the lane's two rows of M), `-z` times them added per column before the scales.
        let zsums = fold.as_ref().filter(|f| f.dynamic_zero).map(|_| {
            let one = b.mov(Ty::B32, cfg.scales.act.pair_imm(1.0));
            let sums: Vec<[Reg; 4]> = (0..plan.m_tiles).map(|_| [(); 4].map(|_| b.reg(RegClass::F32))).collect();
            ([one; 4], sums)
        });
        (zero, acc_set(&mut b), consts, corr, zsums)
    });

    // wgmma steps are dequantized `wg_unroll` at a time (independent chains a warp interleaves;
    // v31: 1-4% at M <= 64) and their wgmmas committed as one group. `wg_depth`: the groups left
    // pending after each commit (at most two steps' worth, four in warp-specialized tiles of 128
    // rows or more, v67-v68; fewer groups than a stage has), and whether they stay pending
    // across stages (with four stages or more: one fewer stage is then in flight, see the main
    // loop).
    let wg_unroll = if spw % 2 == 0 { 2 } else { 1 };
    let wg_depth = (spw / wg_unroll - 1).min(if plan.ws && bm >= 128 { 4 } else { 2 } / wg_unroll);
    let wg_carry = plan.wgmma && !plan.ws && cfg.cp_async && plan.stages >= 4 && wg_depth > 0;
    // Warp-specialized plans keep the stage's last groups pending too (`ws_carry`, v63) and free
    // its slot in the next stage, once the first wait there has retired them (`compute`'s
    // `release`): the math warps no longer drain the tensor pipe at every stage's end.
    let ws_carry = plan.ws && wg_depth > 0;
    // wgmma plans with several steps a stage: whether the group spans the stage.
    let wg_whole = (plan.wgmma && spw > 1).then(|| b.setp(Cmp::Ge, Ty::U32, pgshift, bk.trailing_zeros()));
    // Warp-specialized tiles of at most 32 rows scale f32 sums when the group spans the stage
    // (`wg_sums`): the stage's wgmmas sum unscaled fragments into `t` (the first one overwrites
    // it), and the next stage, once they have retired, adds `t` times the stage's scales (`s`:
    // rows g and g + 8 of the warp's m16 tile) to the accumulators; the last stage's in the
    // epilogue. That takes the scale's multiply off every pair (4 a k16 step for 4-bit codes)
    // for `bm / 2` fmas a stage, a saving up to 32 rows (32 multiplies against 16 fmas a stage);
    // `t` costs `bm / 2` registers, which the four-warpgroup tiles have only up to 32 rows.
    // Shorter groups sum scaled fragments into `t` over the whole loop (no folds; the epilogue's
    // adds `t` once). The accumulators are then never a wgmma's: ptxas serializes every wgmma
    // of a kernel where other instructions write a wgmma accumulator inside its loop (C7515).
    // All start at zero, so the fold before the first stage adds nothing.
    let wg_sums = (ws_carry && bm <= 32 && !cfg.dequant.f32_scales() && wg_whole.is_some()).then(|| {
        let t: Vec<Reg> = (0..bm / 2).map(|_| b.reg(RegClass::F32)).collect();
        (t, [b.reg(RegClass::F32), b.reg(RegClass::F32)])
    });
    let acc_flat: Vec<Reg> = acc.iter().flatten().flatten().copied().collect();
    // `acc += t x s` (`acc` and `t` in wgmma D order: pairs of rows g, g + 8 in turn).
    let fold_sums = |b: &mut KernelBuilder, s: [Reg; 2]| {
        let (t, _) = wg_sums.as_ref().expect("wg_sums");
        for (i, (&a, &x)) in acc_flat.iter().zip(t).enumerate() {
            let v = b.fma(Ty::F32, x, s[(i >> 1) & 1], a);
            b.mov_to(Ty::F32, a, v);
        }
    };
    // `release` (warp-specialized plans with `ws_carry`): code that frees the previous stage's
    // slot, run once by every math warp per stage: after the stage's first wgmma wait (which
    // leaves at most the newest group pending, so the previous stage's groups have retired), or
    // at once where the warp has no columns to compute.
    let compute = |b: &mut KernelBuilder, st: Reg, off: Reg, release: Option<&dyn Fn(&mut KernelBuilder)>| {
        let columns = |b: &mut KernelBuilder| {
            let sa = b.add_u32(off, smem_base);
            let sb_w = b.add_u32(sa, a_bytes);
            let sb_w = b.add_u32(sb_w, b_lane_off);
            let s_base = b.add_u32(sa, s_lane);
            let z_base = b.add_u32(sa, z_lane);
            let kst = b.mul_u32(st, bk);
            let g0 = b.op(BinOp::Shr, Ty::U32, kst, pgshift);
            let kw = b.mad_u32(wsteps, 16u32, kst);
            // Shared addresses of the scales and zero points of k16 step i's group.
            let qaddr = |b: &mut KernelBuilder, i: u32| {
                let kglob = b.add_u32(kw, i * 16);
                // Steps past k_pad (partial last stage) take the last group's scales: their
                // weights are finite and their activations zeros, so any finite scale will do.
                let kglob = b.op(BinOp::Min, Ty::U32, kglob, kq_max);
                let grp = b.op(BinOp::Shr, Ty::U32, kglob, pgshift);
                let qrow = b.op(BinOp::Sub, Ty::U32, grp, g0);
                let saddr = b.mad_u32(qrow, s_row_bytes, s_base);
                let zaddr = cfg.scales.dynamic_zero.then(|| b.mad_u32(qrow, bn, z_base));
                (saddr, zaddr)
            };
            // The lane's ldmatrix address of k16 step i.
            let a_addr = |b: &mut KernelBuilder, i: u32, ro: Reg| {
                let e = b.add_u32(ewk, 2 * i);
                let x = b.xor(e, q);
                let x = b.shl32(x, 4);
                let abase = b.add_u32(sa, x);
                b.add_u32(abase, ro)
            };
            let words_of = |b: &mut KernelBuilder, i: u32| {
                let waddr = b.add_u32(sb_w, i * plan.n_warps * blk_bytes);
                load_words(b, waddr, lane_words, if plan.halves { 2 * bits } else { 4 * bits })
            };
            if plan.wgmma {
                // Warp w4's m16 tile: pairs 4 w4 .. 4 w4 + 4 of the lane's block (`window`).
                let window = TileWindow::new(b, bits, w4);
                let d: Vec<Reg> = match &wg_sums {
                    Some((t, _)) => t.clone(),
                    None => acc_flat.clone(),
                };
                // Steps i .. i + wg_unroll are dequantized while the `wg_depth` groups before
                // them run: after each commit at most `wg_depth` groups stay pending, which frees
                // the registers of older fragments (a group's registers are rewritten
                // `spw / wg_unroll > wg_depth` groups later). The next group's words (and
                // scales) are read before that wait. With `wg_carry` the groups stay pending
                // across stages (the slot they read is refilled two iterations later); otherwise
                // the stage's last group is waited for before its slot is refilled in the next
                // iteration.
                // The group's scales are read once per stage when the group spans the stage
                // (`whole`, the usual case), else once per step.
                let body = |b: &mut KernelBuilder, every_step: bool| {
                    let sums = wg_sums.as_ref().filter(|_| !every_step);
                    let scales_of = |b: &mut KernelBuilder, i: u32| {
                        let (saddr, zaddr) = qaddr(b, i);
                        let s2 = b.mad_u32(w4, 2 * sb, saddr);
                        let z2 = zaddr.map(|z| b.mad_u32(w4, 2u32, z));
                        cfg.scales.load_two(b, s2, z2)
                    };
                    // The warp's words of step i: its m16 tile's share of the lane's block.
                    let tile_words = |b: &mut KernelBuilder, i: u32| {
                        let block = b.add_u32(sb_w, i * plan.n_warps * blk_bytes);
                        window.load(b, block)
                    };
                    let u = wg_unroll;
                    // The stage's B descriptors are offsets from one base (uniform adds).
                    let desc_lo = b.wgmma_desc_sw128_lo(sa);
                    // B of step s: 32 bytes into a row of 128-byte slice s / 4 (`a_chunk_offset`),
                    // 8-row groups 1 KB apart; all of the stage's made here, at its top.
                    let descs: Vec<Reg> =
                        (0..spw).map(|s| b.wgmma_desc_sw128_at(desc_lo, (s / 4) * bm * 128 + (s % 4) * 32, 1024)).collect();
                    let mut tiles: Vec<_> = (0..if every_step { u } else { 1 }).map(|j| scales_of(b, j)).collect();
                    let mut words: Vec<_> = (0..u).map(|j| tile_words(b, j)).collect();
                    // With `sums` the fragments keep their zero points and lose their scales.
                    let unscaled = |q: &[TileQuant; 2]| q.map(|q| TileQuant { scale: None, ..q });
                    for i in (0..spw).step_by(u as usize) {
                        let frags: Vec<Vec<Reg>> = (0..u as usize)
                            .map(|j| {
                                let q = &tiles[if every_step { j } else { 0 }];
                                let f = match sums {
                                    Some(_) => cfg.dequant.pairs(b, &words[j], &unscaled(q), 4),
                                    None => cfg.dequant.pairs(b, &words[j], q, 4),
                                };
                                vec![f[0], f[2], f[1], f[3]]
                            })
                            .collect();
                        if let (Some((_, sc)), 0) = (sums, i) {
                            // The previous stage's sums, retired (its slot with them), times its
                            // scales into `acc`; then this stage's scales as f32.
                            b.emit(Inst::WgmmaWait { n: 0 });
                            if let Some(rel) = release {
                                rel(b);
                            }
                            fold_sums(b, *sc);
                            for (r, q) in sc.iter().zip(&tiles[0]) {
                                let f = cfg.scales.act.pair_to_f32(b, q.scale.expect("scaled tiles"));
                                b.mov_to(Ty::F32, *r, f);
                            }
                        }
                        b.emit(Inst::WgmmaFence);
                        for (j, a) in frags.into_iter().enumerate() {
                            let s = i + j as u32;
                            let desc = descs[s as usize];
                            let accumulate = Operand::Imm((sums.is_none() || s > 0) as i64);
                            b.emit(Inst::Wgmma { n: bm, ab: cfg.mma.ab_type(), d: d.clone(), a, b_desc: desc, accumulate });
                        }
                        b.emit(Inst::WgmmaCommit);
                        let last = i + u == spw;
                        if !last {
                            words = (0..u).map(|j| tile_words(b, i + u + j)).collect();
                            if every_step {
                                tiles = (0..u).map(|j| scales_of(b, i + u + j)).collect();
                            }
                        }
                        let carry = wg_carry || release.is_some();
                        b.emit(Inst::WgmmaWait { n: if last && !carry { 0 } else { wg_depth } });
                        // After the stage's first `wg_depth` groups, at most that many are
                        // pending and all are this stage's: the previous stage's have retired.
                        if let Some(rel) = release.filter(|_| sums.is_none() && i / u + 1 == wg_depth) {
                            rel(b);
                        }
                    }
                };
                match wg_whole {
                    Some(whole) => b.if_else(whole, |b| body(b, false), |b| body(b, true)),
                    None => body(b, true),
                }
                return;
            }
            debug_assert!(release.is_none(), "only wgmma stages carry groups");
            match &late {
                None => {
                    for i in 0..spw {
                        let words = words_of(b, i);
                        let (saddr, zaddr) = qaddr(b, i);
                        let tiles = cfg.scales.load_shared(b, Some(saddr), zaddr, ntiles);
                        let frag = cfg.dequant.pairs(b, &words, &tiles, npairs);
                        for (mt, ro) in row_off.iter().enumerate() {
                            let addr = a_addr(b, i, *ro);
                            let afrag = b.ldmatrix(4, false, Addr::reg(addr));
                            for j in 0..col_tiles {
                                cfg.mma.emit(b, &acc[mt][j], &afrag, &frag[2 * j..2 * j + 2]);
                            }
                        }
                    }
                }
                Some((zero, tmp, consts, corr, zsums)) => {
                    // A range of k16 steps shares one group (the stage's steps when the group
                    // spans them, else each group's): its B fragments first, the offset
                    // corrections summed over them (folded fragments), then the weights' MMAs
                    // starting from them, and the sums times the group's scales into `acc`.
                    for range in (0..spw).step_by(group_steps as usize).map(|i| i..i + group_steps) {
                        let (saddr, zaddr) = qaddr(b, range.start);
                        // Folded zero points: `-z` per tile as f32; else the dequantizer's.
                        let (tiles, neg_z) = match zsums {
                            Some(_) => (Vec::new(), cfg.scales.load_neg_zeros_f32(b, zaddr.expect("dynamic zero points"), ntiles)),
                            None => (cfg.scales.load_shared(b, None, zaddr, ntiles), Vec::new()),
                        };
                        let scales = cfg.scales.load_f32(b, saddr, ntiles);
                        // B fragments of the n8 tiles of M (rows 0..8, 8..16, and with four
                        // tiles 16..24, 24..32: one x4 a pair, the same swizzle 16 rows on)
                        // of every step.
                        let bfr: Vec<Vec<[Reg; 2]>> = range
                            .clone()
                            .map(|i| {
                                let addr = a_addr(b, i, row_off[0]);
                                if x2 {
                                    let r = b.ldmatrix(2, false, Addr::reg(addr));
                                    vec![[r[0], r[1]]]
                                } else {
                                    (0..plan.m_tiles / 2)
                                        .flat_map(|p| {
                                            let r = b.ldmatrix(4, false, Addr::reg_off(addr, (p * 16 * bk * 2) as i64));
                                            [[r[0], r[1]], [r[2], r[3]]]
                                        })
                                        .collect()
                                }
                            })
                            .collect();
                        // The offset corrections of the range (before the weights' MMAs, which
                        // start from them: summing them afterwards measured more instructions
                        // and registers in the SASS).
                        for (u, corr) in corr.iter().enumerate() {
                            for (c, d) in consts.iter().zip(corr) {
                                for (s, bf) in bfr.iter().enumerate() {
                                    let from = if s == 0 { [*zero; 4] } else { *d };
                                    cfg.mma.emit_to(b, d, &from, c, &bf[u]);
                                }
                            }
                            if let Some((ones, sums)) = zsums {
                                for (s, bf) in bfr.iter().enumerate() {
                                    let from = if s == 0 { [*zero; 4] } else { sums[u] };
                                    cfg.mma.emit_to(b, &sums[u], &from, ones, &bf[u]);
                                }
                            }
                        }
                        for (s, i) in range.clone().enumerate() {
                            let words = words_of(b, i);
                            let frag = match &fold {
                                Some(_) => cfg.dequant.fragment_folded(b, &words, npairs),
                                None => cfg.dequant.pairs(b, &words, &tiles, npairs),
                            };
                            for (u, bf) in bfr[s].iter().enumerate() {
                                for i4 in 0..col_tiles {
                                    // m16 tile i4 = columns 16 i4 .. 16 i4 + 16 (of the warp's
                                    // half): n8 tiles 2 i4 (rows g) and 2 i4 + 1 (rows g + 8).
                                    let a = [frag[4 * i4], frag[4 * i4 + 2], frag[4 * i4 + 1], frag[4 * i4 + 3]];
                                    let d = &tmp[u][i4];
                                    if s > 0 {
                                        cfg.mma.emit(b, d, &a, bf);
                                    } else {
                                        let start = match &fold {
                                            Some(f) => corr[u][f.of_tile[i4]],
                                            None => [*zero; 4],
                                        };
                                        cfg.mma.emit_to(b, d, &start, &a, bf);
                                    }
                                }
                            }
                        }
                        if let Some((_, sums)) = zsums {
                            // Sum (q - z) a = sum q a - z sum a: element r of m16 tile i4 is
                            // column tile 2 i4 + r / 2 (rows g, g + 8), row of M r % 2.
                            for (u, row) in tmp.iter().enumerate() {
                                for (i4, tile) in row.iter().enumerate() {
                                    for (r, &x) in tile.iter().enumerate() {
                                        let (z, s) = (neg_z[2 * i4 + r / 2], sums[u][r % 2]);
                                        b.emit(Inst::Fma { ty: Ty::F32, rnd: Rnd::Rn, dst: x, a: z.into(), b: s.into(), c: x.into() });
                                    }
                                }
                            }
                        }
                        for (u, row) in acc.iter().enumerate() {
                            for (i4, tile) in row.iter().enumerate() {
                                for (r, &x) in tile.iter().enumerate() {
                                    let sc = scales[2 * i4 + r / 2];
                                    b.emit(Inst::Fma { ty: Ty::F32, rnd: Rnd::Rn, dst: x, a: tmp[u][i4][r].into(), b: sc.into(), c: x.into() });
                                }
                            }
                        }
                    }
                }
            }
        };
        match release {
            Some(rel) => b.if_else(nb_ok, |b| columns(b), |b| rel(b)),
            None => b.if_then(nb_ok, |b| columns(b)),
        }
    };

    // ---- main loop ----
    // The first `count` stages (those that exist) into ring slots 0.., ending each with a
    // commit group or not. With programmatic dependent launch the grid may start while the
    // previous one still runs: the first stages' weights (never written by a kernel) are
    // requested before waiting for it, the activations after.
    let first_stages = |b: &mut KernelBuilder, count: u32, act: bool, weights: bool, commit: bool| {
        for pre in 0..count {
            let has = b.setp(Cmp::Gt, Ty::U32, n_iter, pre);
            b.if_then(has, |b| {
                let st = b.add_u32(s_begin, pre);
                let off = b.mov(Ty::U32, pre * stage_bytes);
                let bar = plan.ws.then(|| b.add_u32(smem_base, mbar_off + 8 * pre));
                load_stage(b, st, off, act, weights, bar);
            });
            if commit {
                loader.end_stage(b);
            }
        }
    };
    // ---- epilogue (after the main loop; a warp-specialized plan's math warps alone, in their
    // branch, so that no code after the producer's loop needs the accumulators' registers) ----
    let bar_all = |b: &mut KernelBuilder| b.emit(Inst::BarSync { id: 0, threads: None, aligned: true });
    let oty = out_ty(cfg.out);
    // Converts and stores the pair (v0, v1) at (row, col) and (row, col + 1), or (row + 1, col)
    // when `down`.
    let store_pair = |b: &mut KernelBuilder, row: Reg, col: Reg, v: [Reg; 2], down: bool| {
        for (c, &x) in v.iter().enumerate() {
            let (r, cc) = match (c, down) {
                (0, _) => (row, col),
                (_, true) => (b.add_u32(row, 1u32), col),
                (_, false) => (row, b.add_u32(col, 1u32)),
            };
            let row_ok = b.setp(Cmp::Lt, Ty::U32, r, pm);
            let col_ok = b.setp(Cmp::Lt, Ty::U32, cc, pn);
            let ok = b.and_pred(row_ok, col_ok);
            let x = if cfg.global_scale { b.op(BinOp::Mul, Ty::F32, x, pgs) } else { x };
            let hv = b.cvt_f32_to(oty, x);
            let e = b.mad_u32(r, pn, cc);
            let addr = b.addr64(pout, e, 2u32);
            b.guarded(ok, false, |b| {
                b.st_vec(Space::Global, Ty::B16, Addr::reg(addr), &[hv]);
            });
        }
    };
    // The split-K tail (a uniform branch on the split), after the CTA's partials are stored:
    // every thread of the CTA counts the CTA in and, in the tile's last CTA, sums the slices. A
    // warp-specialized plan runs it after its branches join, so the producer takes part (a
    // third more threads shorten the last CTA's sum, v58) from the same instructions as the
    // math warps: an aligned `bar.sync` reached from both branches is undefined (PTX; v13's
    // racecheck hazards and synccheck's divergent-thread errors, v61), and the accumulators are
    // dead by then, so the join costs the producer no registers.
    let split_tail = |b: &mut KernelBuilder| {
        let split = b.setp(Cmp::Ne, Ty::U32, nz, 1u32);
        b.if_then(split, |b| {
            bar_all(b);
            // Counter of tile (cx, cy) after the nz slices of m x n_pad partials.
            let slice = b.mul_u32(pm, pnpad);
            let slices = b.mul_u32(slice, nz);
            let ncx = b.special(SpecialReg::NctaidX);
            let tile = b.mad_u32(cy, ncx, cx);
            let cidx = b.add_u32(slices, tile);
            let caddr = b.addr64(pws, cidx, 4u32);
            let flag = b.add_u32(smem_base, flag_off);
            let first = b.setp(Cmp::Eq, Ty::U32, tid, 0u32);
            b.guarded(first, false, |b| {
                let old = b.reg(RegClass::B32);
                b.emit(Inst::FenceAcqRelGpu);
                b.emit(Inst::Atom { space: Space::Global, op: AtomOp::Add, ty: Ty::U32, dst: old, addr: Addr::reg(caddr), b: 1u32.into(), c: None });
                b.emit(Inst::FenceAcqRelGpu);
                b.st(Space::Shared, Ty::U32, Addr::reg(flag), old);
            });
            bar_all(b);
            let arrived = b.ld(Space::Shared, Ty::U32, Addr::reg(flag));
            let last_n = b.add_u32(nz, u32::MAX);
            let last = b.setp(Cmp::Eq, Ty::U32, arrived, last_n);
            b.if_then(last, |b| {
                reduce_tile(b, &ReduceTile { threads, bm, bn, tid, m0, nb0, pm, pnpad, nz, slice, pws }, |b, row, col, v| {
                    store_pair(b, row, col, [v[0], v[1]], false);
                    let col2 = b.add_u32(col, 2u32);
                    store_pair(b, row, col2, [v[2], v[3]], false);
                });
                b.guarded(first, false, |b| b.st(Space::Global, Ty::U32, Addr::reg(caddr), 0u32));
            });
        });
    };
    let epilogue = |b: &mut KernelBuilder| {
        // The k-warp reduction reuses the ring. A warp-specialized plan has one k warp and its
        // epilogue touches no shared memory: no barrier (a math-warp `bar.sync 1, n` here was
        // the one barrier the producer does not execute, and racecheck then reported the
        // split-K tail's flag between thread 0's store and the barrier after it, v61).
        if !plan.ws {
            bar_all(b);
        }
        // The last stage's sums (`wg_sums`; its wgmmas have retired), or with shorter groups
        // the whole loop's (times 1).
        if let (Some((_, s)), Some(whole)) = (&wg_sums, wg_whole) {
            let s = s.map(|s| b.selp(Ty::F32, s, Operand::f32(1.0), whole));
            fold_sums(b, s);
        }

        // ---- k-warp reduction through shared memory (fixed order: deterministic) ----
        let flat = &acc_flat;
        let nacc = flat.len() as u32;
        if plan.k_warps > 1 {
            let is_lead = b.setp(Cmp::Eq, Ty::U32, wk, 0u32);
            let lane4 = b.shl32(lane, 2);
            b.if_else(
                is_lead,
                |_| {},
                |b| {
                    let slot = b.add_u32(wk, u32::MAX); // wk - 1
                    let slot = b.mad_u32(slot, plan.col_warps(), wcol);
                    let base = b.mul_u32(slot, nacc * 128);
                    let base = b.add_u32(base, lane4);
                    let base = b.add_u32(base, smem_base);
                    for (r, &v) in flat.iter().enumerate() {
                        b.st_vec(Space::Shared, Ty::F32, Addr::reg_off(base, r as i64 * 128), &[v]);
                    }
                },
            );
            bar_all(b);
            b.if_then(is_lead, |b| {
                for w in 1..plan.k_warps {
                    let slot = b.add_u32(wcol, (w - 1) * plan.col_warps());
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
        // Where the accumulators go: pairs of adjacent outputs, along a row (c0, c1 of an n8 tile)
        // or, swapped, down a column (rows 2t, 2t + 1 of an n8 tile of M).
        struct OutPair {
            row: Reg,
            col: Reg,
            v: [Reg; 2],
            down: bool,
        }
        let t2 = b.shl32(t, 1);
        let mut pairs = Vec::new();
        for (u, tiles) in acc.iter().enumerate() {
            let u = u as u32;
            for hh in 0..2u32 {
                for (j, a) in tiles.iter().enumerate() {
                    let j = j as u32;
                    let v = [a[2 * hh as usize], a[2 * hh as usize + 1]];
                    pairs.push(if plan.swap || plan.wgmma {
                        // Pair hh of tile (u, j): rows (tokens) 8u + 2t and 8u + 2t + 1, column
                        // 16 i + 8hh + g of m16 tile i (j, or the warp's w4 in a wgmma plan).
                        let row = b.add_u32(m0, 8 * u);
                        let row = b.add_u32(row, t2);
                        let col = if plan.wgmma {
                            let col = b.mad_u32(w4, 16u32, col_base);
                            b.add_u32(col, 8 * hh)
                        } else {
                            b.add_u32(col_base, 16 * j + 8 * hh)
                        };
                        let col = b.add_u32(col, g);
                        OutPair { row, col, v, down: true }
                    } else {
                        let row = b.add_u32(m0, 16 * u + 8 * hh);
                        let row = b.add_u32(row, g);
                        let col = b.add_u32(col_base, 8 * j);
                        let col = b.add_u32(col, t2);
                        OutPair { row, col, v, down: false }
                    });
                }
            }
        }
        b.if_else(
            single,
            |b| {
                b.if_then(store, |b| {
                    for p in &pairs {
                        store_pair(b, p.row, p.col, p.v, p.down);
                    }
                });
            },
            |b| {
                // Split K: every CTA writes its f32 partial to workspace slice z; the last CTA of
                // the tile to arrive (counted in the workspace's per-tile counter) sums the slices
                // in z order (deterministic: the same order whichever CTA arrives last), writes the
                // output and resets the counter to zero for the next launch. Ordering: the CTA's
                // stores, a CTA barrier, then thread 0's counter increment between two
                // `fence.acq_rel.gpu` (a release of everything the barrier ordered before it, and an
                // acquire of the other slices for the last CTA, passed on by the next barrier): one
                // thread's fences instead of `membar.gl` in every thread (v28: the reduction cost
                // 1.0-1.3 us at M <= 16, 3.5-5 us at M = 64).
                let zm = b.mul_u32(cz, pm);
                b.if_then(store, |b| {
                    for p in &pairs {
                        // One f32 pair store along a row, two single stores down a column.
                        let parts: Vec<(u32, &[Reg])> =
                            if p.down { vec![(0, &p.v[..1]), (1, &p.v[1..])] } else { vec![(0, &p.v[..])] };
                        for (dr, v) in parts {
                            let r = b.add_u32(p.row, dr);
                            let row_ok = b.setp(Cmp::Lt, Ty::U32, r, pm);
                            let wrow = b.add_u32(zm, r);
                            let e = b.mad_u32(wrow, pnpad, p.col);
                            let addr = b.addr64(pws, e, 4u32);
                            b.guarded(row_ok, false, |b| b.st_vec(Space::Global, Ty::F32, Addr::reg(addr), v));
                        }
                    }
                });
            },
        );
    };
    if plan.ws {
        let l = WsLoop { carry: ws_carry, stages: plan.stages, stage_bytes, mbar: mbar_off, smem_base, tid, lane, prod: prod.expect("ws"), math_warps: plan.math_threads() / 32, full_arrivals: 129, acc: acc.iter().flatten().flatten().chain(wg_sums.iter().flat_map(|(t, s)| t.iter().chain(s))).copied().collect(), n_iter, s_begin, pdl: cfg.pdl, regs: ws_regs.expect("validated ws plan") };
        warp_specialized_loop(&mut b, &l, &load_stage, &|b| first_stages(b, plan.stages, false, true, false), &compute, &epilogue);
    } else if cfg.cp_async {
        let s = plan.stages;
        // Stages requested ahead of the one computed: all other slots of the ring, or, when
        // wgmma groups stay pending across stages (`wg_carry`), one fewer: the slot of the stage
        // before may still be read by them.
        let ahead = if wg_carry { s - 2 } else { s - 1 };
        // With PDL the weights requested before the dependency wait land in the first commit
        // group, which the first wait covers.
        if cfg.pdl {
            first_stages(&mut b, ahead, false, true, false);
            b.emit(Inst::GridDepWait);
            // The previous grid is done: the next one may start (its CTAs take the SMs' free
            // registers and shared memory and request their first weight stages while this
            // grid streams; they wait for its end before touching anything it writes).
            b.emit(Inst::GridDepLaunch);
        }
        first_stages(&mut b, ahead, true, !cfg.pdl, true);
        // Ring offsets of the stage computed and the stage loaded in this iteration.
        let rd = b.mov(Ty::U32, 0u32);
        let wr = b.mov(Ty::U32, ahead * stage_bytes);
        let ring = s * stage_bytes;
        b.for_range(0u32, n_iter, 1, |b, it| {
            loader.wait(b, ahead - 1);
            if plan.wgmma {
                // The stage's activations were written by cp.async (generic proxy); wgmma
                // reads them through the async proxy.
                b.emit(Inst::FenceProxyAsync);
            }
            b.emit(Inst::BarSync { id: 0, threads: None, aligned: true });
            let nxt = b.add_u32(it, ahead);
            let has = b.setp(Cmp::Lt, Ty::U32, nxt, n_iter);
            b.if_then(has, |b| {
                let st = b.add_u32(s_begin, nxt);
                load_stage(b, st, wr, true, true, None);
            });
            loader.end_stage(b);
            let st = b.add_u32(s_begin, it);
            compute(b, st, rd, None);
            for r in [rd, wr] {
                let n = b.add_u32(r, stage_bytes);
                let wrap = b.setp(Cmp::Eq, Ty::U32, n, ring);
                let n = b.selp(Ty::U32, 0u32, n, wrap);
                b.mov_to(Ty::U32, r, n);
            }
        });
        loader.wait(&mut b, 0);
        if wg_carry {
            b.emit(Inst::WgmmaWait { n: 0 });
        }
    } else {
        b.for_range(0u32, n_iter, 1, |b, it| {
            b.emit(Inst::BarSync { id: 0, threads: None, aligned: true });
            let st = b.add_u32(s_begin, it);
            let off = b.mov(Ty::U32, 0u32);
            load_stage(b, st, off, true, true, None);
            b.emit(Inst::BarSync { id: 0, threads: None, aligned: true });
            compute(b, st, off, None);
        });
    }
    if !plan.ws {
        epilogue(&mut b);
    }
    split_tail(&mut b);
    b.finish()
}
