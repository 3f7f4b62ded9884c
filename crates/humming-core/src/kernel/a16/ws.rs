//! The main loop of warp-specialized plans: a producer warpgroup fills a ring of stages and
//! signals them on mbarriers; the wgmma warpgroups wait, compute and free the slots.

use crate::ir::builder::KernelBuilder;
use crate::ir::{Addr, BinOp, Cmp, Inst, Operand, Reg, Ty};
use crate::kernel::emit::Emit;

/// What the warp-specialized main loop needs from [`build_main`].
pub(super) struct WsLoop {
    /// The stage's last wgmma groups stay pending into the next stage, which frees the slot
    /// (`ws_carry` in [`super::build_main`]); otherwise each stage ends with them retired and
    /// frees its own slot.
    pub(super) carry: bool,
    pub(super) stages: u32,
    pub(super) stage_bytes: u32,
    /// Window offset of the `full` mbarriers (`stages` of them, then the `empty` ones).
    pub(super) mbar: u32,
    pub(super) smem_base: Reg,
    pub(super) tid: Reg,
    pub(super) lane: Reg,
    /// The producer warpgroup's threads.
    pub(super) prod: Reg,
    pub(super) math_warps: u32,
    /// Arrivals that complete a `full` barrier's phase: the producer threads'
    /// `cp.async.mbarrier.arrive.noinc` (128) and one more with the stage's bulk-copy bytes
    /// (`load_stage`'s `full_bar`).
    pub(super) full_arrivals: u32,
    /// The math warps' accumulators (and the registers of `wg_sums`), zeroed in their branch:
    /// no register of the producer's branch holds them (the epilogue, which reads them, runs in
    /// the math branch too).
    pub(super) acc: Vec<Reg>,
    pub(super) n_iter: Reg,
    pub(super) s_begin: Reg,
    pub(super) pdl: bool,
    /// [`KernelPlan::ws_registers`].
    pub(super) regs: (u32, u32, u32),
}

/// The producer's copy of one stage: (stage index, slot offset, activations?, weights?, the
/// `full` barrier its copies arrive on).
pub(super) type LoadStage<'a> = dyn Fn(&mut KernelBuilder, Reg, Reg, bool, bool, Option<Reg>) + 'a;

/// The math warps' work on one stage: (stage index, slot offset, the release of the previous
/// stage's slot, run once its wgmmas have retired).
pub(super) type Compute<'a> = dyn Fn(&mut KernelBuilder, Reg, Reg, Option<&dyn Fn(&mut KernelBuilder)>) + 'a;

/// The main loop of a warp-specialized plan ([`KernelPlan::ws`]). Stage `it` lives in ring slot
/// `it % stages`, whose `full` barrier (`full_arrivals`: the producer threads' `cp.async.mbarrier.
/// arrive.noinc`, each once its copies have landed, and one arrival with the bytes of the
/// stage's bulk weight copies, which complete on it too) completes phase `it / stages` when the
/// stage is in shared memory, and whose `empty` barrier (one arrival a math warp, after its wgmmas of
/// the stage have retired) completes that phase when the slot may be refilled. The producer
/// waits on `empty` before refilling a slot (not in the first round), the math warps on `full`
/// before computing; no CTA barrier in between. With PDL the producer requests the first
/// stages' weights before the dependency wait, as the other plans do. The math warps run the
/// `epilogue` in their branch; the producer's ends with its loop, so no code it runs needs
/// the math warps' registers and `setmaxnreg` can leave it few. The branches join for the
/// split-K tail ([`build_main`]), which needs no accumulators.
pub(super) fn warp_specialized_loop(
    b: &mut KernelBuilder,
    l: &WsLoop,
    load_stage: &LoadStage<'_>,
    first_weights: &dyn Fn(&mut KernelBuilder),
    compute: &Compute<'_>,
    epilogue: &dyn Fn(&mut KernelBuilder),
) {
    let s = l.stages;
    let bar_of = |b: &mut KernelBuilder, first: u32, slot: Reg| {
        let a = b.mad_u32(slot, 8u32, l.smem_base);
        Addr::reg_off(a, (l.mbar + 8 * first) as i64)
    };
    let lead = b.setp(Cmp::Eq, Ty::U32, l.tid, 0u32);
    b.guarded(lead, false, |b| {
        for slot in 0..s {
            let a = b.add_u32(l.smem_base, l.mbar + 8 * slot);
            b.mbarrier_init(Addr::reg(a), l.full_arrivals);
            b.mbarrier_init(Addr::reg_off(a, 8 * s as i64), l.math_warps);
        }
        b.emit(Inst::FenceMbarrierInit);
    });
    // The producer's zero rows (past M) were written by the generic proxy; wgmma reads them
    // through the async one.
    b.emit(Inst::FenceProxyAsync);
    b.emit(Inst::BarSync { id: 0, threads: None, aligned: true });
    // The ring position of iteration `it` (slot `it % stages`, phase parity `it / stages & 1`),
    // carried from iteration to iteration in registers: ptxas 12.9 lowers `div.u32` / `rem.u32`
    // even by an immediate 4 to the general reciprocal sequence (I2F, MUFU.RCP, F2I, fix-up),
    // which sat at the top of every stage of both branches (v68: 4-7% of the ws kernels' time).
    let ring = |b: &mut KernelBuilder| (b.mov(Ty::U32, 0u32), b.mov(Ty::U32, 0u32));
    let offset_of = |b: &mut KernelBuilder, slot: Reg| b.mul_u32(slot, l.stage_bytes);
    let advance = |b: &mut KernelBuilder, (slot, parity): (Reg, Reg)| {
        let next = b.add_u32(slot, 1u32);
        let wrap = b.setp(Cmp::Eq, Ty::U32, next, s);
        let next = b.selp(Ty::U32, 0u32, next, wrap);
        b.mov_to(Ty::U32, slot, next);
        let flip = b.selp(Ty::U32, 1u32, 0u32, wrap);
        let p = b.xor(parity, flip);
        b.mov_to(Ty::U32, parity, p);
    };
    let (_, prod_regs, math_regs) = l.regs;
    b.if_else(
        l.prod,
        |b| {
            b.emit(Inst::SetMaxNReg { inc: false, count: prod_regs });
            if l.pdl {
                first_weights(b);
                b.emit(Inst::GridDepWait);
                b.emit(Inst::GridDepLaunch);
            }
            let pos = ring(b);
            b.for_range(0u32, l.n_iter, 1, |b, it| {
                let (slot, parity) = pos;
                let off = offset_of(b, slot);
                // The slot's `full` barrier in one register (the bulk copies name it); its
                // `empty` barrier lies `8 * stages` bytes above.
                let fa = b.mad_u32(slot, 8u32, l.smem_base);
                let fa = b.add_u32(fa, l.mbar);
                let refill = b.setp(Cmp::Ge, Ty::U32, it, s);
                b.if_then(refill, |b| {
                    // Phase `it / stages - 1` of the slot's `empty` barrier.
                    let p = b.xor(parity, 1u32);
                    b.mbarrier_wait(Addr::reg_off(fa, 8 * s as i64), p);
                });
                let st = b.add_u32(l.s_begin, it);
                if l.pdl {
                    // The first round's weights were requested before the dependency wait.
                    b.if_else(refill, |b| load_stage(b, st, off, true, true, Some(fa)), |b| load_stage(b, st, off, true, false, Some(fa)));
                } else {
                    load_stage(b, st, off, true, true, Some(fa));
                }
                b.cp_async_mbarrier_arrive(Addr::reg(fa));
                advance(b, pos);
            });
        },
        |b| {
            b.emit(Inst::SetMaxNReg { inc: true, count: math_regs });
            if l.pdl {
                b.emit(Inst::GridDepWait);
                b.emit(Inst::GridDepLaunch);
            }
            for &r in &l.acc {
                b.mov_to(Ty::F32, r, Operand::f32(0.0));
            }
            let first = b.setp(Cmp::Eq, Ty::U32, l.lane, 0u32);
            let pos = ring(b);
            b.for_range(0u32, l.n_iter, 1, |b, it| {
                let (slot, parity) = pos;
                let off = offset_of(b, slot);
                let f = bar_of(b, 0, slot);
                b.mbarrier_wait(f, parity);
                // The stage was written by cp.async (generic proxy); wgmma reads it through the
                // async proxy.
                b.emit(Inst::FenceProxyAsync);
                let st = b.add_u32(l.s_begin, it);
                if l.carry {
                    // The stage's last groups stay pending; `compute` frees the previous
                    // stage's slot once they have retired (none before the first stage).
                    let first_slot = b.setp(Cmp::Eq, Ty::U32, slot, 0u32);
                    let before = b.op(BinOp::Sub, Ty::U32, slot, 1u32);
                    let prev = b.selp(Ty::U32, s - 1, before, first_slot);
                    let e = bar_of(b, s, prev);
                    let has_prev = b.setp(Cmp::Gt, Ty::U32, it, 0u32);
                    let lead_prev = b.and_pred(first, has_prev);
                    compute(b, st, off, Some(&|b: &mut KernelBuilder| b.guarded(lead_prev, false, |b| b.mbarrier_arrive(e))));
                } else {
                    // Ends with every wgmma group of the stage retired.
                    compute(b, st, off, None);
                    let e = bar_of(b, s, slot);
                    b.guarded(first, false, |b| b.mbarrier_arrive(e));
                }
                advance(b, pos);
            });
            if l.carry {
                // The last stage's groups, before the epilogue reads the sums.
                b.emit(Inst::WgmmaWait { n: 0 });
            }
            epilogue(b);
        },
    );
}
