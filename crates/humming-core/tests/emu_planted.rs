//! Planted bugs: each kernel is wrong in one way and the emulator must report it with its own
//! typed error naming the instruction and the thread.

mod emu_util;

use emu_util::{launch, ld, shared_thread_addr, st, thread_addr};
use humming_core::ir::builder::KernelBuilder;
use humming_core::ir::emu::{Access, EmuError, Emulator};
use humming_core::ir::{
    Addr, CacheOp, Cmp, CpAsyncCache, Executor, Inst, Kernel, KernelArg, LaunchDims, Operand,
    ParamTy, Reg, RegClass, ShflMode, Space, SpecialReg, Ty,
};

fn setp(b: &mut KernelBuilder, cmp: Cmp, a: impl Into<Operand>, c: impl Into<Operand>) -> Reg {
    let p = b.reg(RegClass::Pred);
    b.emit(Inst::Setp {
        cmp,
        ty: Ty::U32,
        dst: p,
        a: a.into(),
        b: c.into(),
    });
    p
}

/// Asserts that the error names a statement whose rendering contains `inst` and the given thread.
fn names(err: &EmuError, inst: &str, warp: u32, lane: u32) {
    let msg = err.to_string();
    let site = err.site().unwrap_or_else(|| panic!("no site in {msg}"));
    assert!(
        site.text.contains(inst),
        "site `{}` should show `{inst}`: {msg}",
        site.text
    );
    assert!(msg.contains(&format!("stmt #{}", site.index)), "{msg}");
    let t = err.thread().unwrap_or_else(|| panic!("no thread in {msg}"));
    assert_eq!((t.warp, t.lane), (warp, lane), "{msg}");
    assert!(msg.contains(&format!("warp {warp} lane {lane}")), "{msg}");
    assert!(msg.contains("CTA (0,0,0)"), "{msg}");
}

fn run(k: &Kernel, args: &[KernelArg]) -> EmuError {
    launch(&mut Emulator::new(), k, 1, args).unwrap_err()
}

#[test]
fn out_of_bounds_global_store() {
    // 64 threads store into a 63-element buffer: thread 63 (warp 1, lane 31) writes past the end.
    let mut b = KernelBuilder::new("oob_store", 64);
    let out = b.param("out", ParamTy::Ptr);
    let tid = b.special(SpecialReg::TidX);
    let a = thread_addr(&mut b, out, 4);
    st(&mut b, Space::Global, Ty::U32, Addr::reg(a), tid);
    let k = b.finish();
    let mut emu = Emulator::new();
    let buf = emu.alloc(63 * 4).unwrap();
    let err = launch(&mut emu, &k, 1, &[KernelArg::Ptr(buf)]).unwrap_err();
    match &err {
        EmuError::GlobalOutOfBounds {
            access: Access::Store,
            addr,
            bytes: 4,
            ..
        } => assert_eq!(*addr, buf.0 + 252),
        e => panic!("wrong error: {e}"),
    }
    names(&err, "st.global.u32", 1, 31);
    // Everything before the fault was stored (warp 0 ran first).
    let got: Vec<u32> = emu.download_vec(buf, 32).unwrap();
    assert_eq!(got, (0..32).collect::<Vec<u32>>());
}

#[test]
fn out_of_bounds_shared_load() {
    // A 128-byte shared array read at tid * 4 by 64 threads: warp 1 reads past the window.
    let mut b = KernelBuilder::new("oob_shared", 64);
    let out = b.param("out", ParamTy::Ptr);
    let smem = b.shared("tile", 128, 16);
    let sa = shared_thread_addr(&mut b, smem, 4);
    let v = ld(&mut b, Space::Shared, Ty::U32, Addr::reg(sa));
    let a = thread_addr(&mut b, out, 4);
    st(&mut b, Space::Global, Ty::U32, Addr::reg(a), v);
    let k = b.finish();
    let mut emu = Emulator::new();
    let buf = emu.alloc(256).unwrap();
    let err = launch(&mut emu, &k, 1, &[KernelArg::Ptr(buf)]).unwrap_err();
    assert!(
        matches!(
            err,
            EmuError::SharedOutOfBounds {
                access: Access::Load,
                bytes: 4,
                ..
            }
        ),
        "{err}"
    );
    names(&err, "ld.shared.u32", 1, 0);
}

/// Each thread cp.asyncs 16 bytes into its slot; `before_read` runs before thread t reads the
/// slot of thread t + 1.
fn cp_async_then_read(before_read: impl FnOnce(&mut KernelBuilder)) -> EmuError {
    let mut b = KernelBuilder::new("cp_race", 32);
    let src = b.param("src", ParamTy::Ptr);
    let out = b.param("out", ParamTy::Ptr);
    let smem = b.shared("stage", 32 * 16, 16);
    let ga = thread_addr(&mut b, src, 16);
    let sa = shared_thread_addr(&mut b, smem, 16);
    b.emit(Inst::CpAsync {
        cache: CpAsyncCache::Cg,
        bytes: 16,
        dst: Addr::reg(sa),
        src: Addr::reg(ga),
        src_size: None,
        policy: None,
    });
    before_read(&mut b);
    let tid = b.special(SpecialReg::TidX);
    let next = b.add(Ty::U32, tid, 1u32);
    let next = b.bin(humming_core::ir::BinOp::And, Ty::B32, next, 31u32);
    let no = b.mul(Ty::U32, next, 16u32);
    let na = b.add(Ty::U32, no, Operand::SharedAddr(smem));
    let v = ld(&mut b, Space::Shared, Ty::U32, Addr::reg_off(na, 4));
    let oa = thread_addr(&mut b, out, 4);
    st(&mut b, Space::Global, Ty::U32, Addr::reg(oa), v);
    let k = b.finish();
    let mut emu = Emulator::new();
    let ps = emu.alloc(512).unwrap();
    let po = emu.alloc(128).unwrap();
    launch(&mut emu, &k, 1, &[KernelArg::Ptr(ps), KernelArg::Ptr(po)]).unwrap_err()
}

#[test]
fn reading_a_cp_async_destination_before_wait_group() {
    // Committed and synchronized with bar.sync, but never waited for: still pending.
    let err = cp_async_then_read(|b| {
        b.emit(Inst::CpAsyncCommit);
        b.emit(Inst::BarSync {
            id: 0,
            threads: None,
            aligned: true,
        });
    });
    match &err {
        EmuError::PendingCpAsync {
            access: Access::Load,
            copy_site,
            copy_thread,
            addr,
            bytes: 4,
            ..
        } => {
            assert!(
                copy_site.text.contains("cp.async.cg.shared.global"),
                "{err}"
            );
            assert_eq!(
                (copy_thread.warp, copy_thread.lane),
                (0, 1),
                "lane 0 reads lane 1's destination"
            );
            assert_eq!(*addr % 16, 4);
        }
        e => panic!("wrong error: {e}"),
    }
    names(&err, "ld.shared.u32", 0, 0);
    let msg = err.to_string();
    assert!(
        msg.contains("cp.async.cg") && msg.contains("ld.shared"),
        "names both instructions: {msg}"
    );

    // wait_group only waits for committed groups: an uncommitted copy stays pending.
    let err = cp_async_then_read(|b| b.emit(Inst::CpAsyncWait { n: 0 }));
    assert!(matches!(err, EmuError::PendingCpAsync { .. }), "{err}");

    // With the wait (and a barrier so other threads' copies have landed too) it is fine.
    let mut b = KernelBuilder::new("cp_ok", 32);
    let smem = b.shared("stage", 32 * 16, 16);
    let src = b.param("src", ParamTy::Ptr);
    let ga = thread_addr(&mut b, src, 16);
    let sa = shared_thread_addr(&mut b, smem, 16);
    b.emit(Inst::CpAsync {
        cache: CpAsyncCache::Cg,
        bytes: 16,
        dst: Addr::reg(sa),
        src: Addr::reg(ga),
        src_size: None,
        policy: None,
    });
    b.emit(Inst::CpAsyncCommit);
    b.emit(Inst::CpAsyncWait { n: 0 });
    b.emit(Inst::BarSync {
        id: 0,
        threads: None,
        aligned: true,
    });
    ld(&mut b, Space::Shared, Ty::U32, Addr::reg(sa));
    let k = b.finish();
    let mut emu = Emulator::new();
    let ps = emu.alloc(512).unwrap();
    launch(&mut emu, &k, 1, &[KernelArg::Ptr(ps)]).unwrap();
}

#[test]
fn a_store_or_a_second_copy_into_a_pending_destination() {
    let err = cp_async_then_read(|b| {
        b.emit(Inst::CpAsyncCommit);
        let tid = b.special(SpecialReg::TidX);
        let zero = b.mov(Ty::U32, 0u32);
        let p = setp(b, Cmp::Eq, tid, 5u32);
        b.guarded(p, false, |b| {
            st(
                b,
                Space::Shared,
                Ty::U32,
                Addr {
                    base: Operand::SharedAddr(humming_core::ir::SharedId(0)),
                    offset: 0,
                },
                zero,
            )
        });
    });
    assert!(
        matches!(
            err,
            EmuError::PendingCpAsync {
                access: Access::Store,
                ..
            }
        ),
        "{err}"
    );
    names(&err, "st.shared.u32", 0, 5);
    assert_eq!(err.thread().unwrap().lane, 5);
}

#[test]
fn divergent_if_on_a_per_lane_predicate() {
    let mut b = KernelBuilder::new("divergent", 32);
    let out = b.param("out", ParamTy::Ptr);
    let tid = b.special(SpecialReg::TidX);
    let p = setp(&mut b, Cmp::Lt, tid, 5u32);
    let a = thread_addr(&mut b, out, 4);
    b.if_then(p, |b| st(b, Space::Global, Ty::U32, Addr::reg(a), tid));
    let k = b.finish();
    let mut emu = Emulator::new();
    let buf = emu.alloc(128).unwrap();
    let err = launch(&mut emu, &k, 1, &[KernelArg::Ptr(buf)]).unwrap_err();
    assert!(
        matches!(
            err,
            EmuError::Divergent {
                what: "if condition",
                ..
            }
        ),
        "{err}"
    );
    names(&err, "if %p", 0, 5);
    // The same thing written as a guard is fine: guards are per lane.
    let mut b = KernelBuilder::new("guarded", 32);
    let out = b.param("out", ParamTy::Ptr);
    let tid = b.special(SpecialReg::TidX);
    let p = setp(&mut b, Cmp::Lt, tid, 5u32);
    let a = thread_addr(&mut b, out, 4);
    b.guarded(p, false, |b| {
        st(b, Space::Global, Ty::U32, Addr::reg(a), tid)
    });
    let k = b.finish();
    launch(&mut emu, &k, 1, &[KernelArg::Ptr(buf)]).unwrap();
}

#[test]
fn divergent_loop_bound() {
    let mut b = KernelBuilder::new("divergent_loop", 32);
    let lane = b.special(SpecialReg::LaneId);
    b.for_range(0u32, lane, 1, |_, _| {});
    let k = b.finish();
    let err = run(&k, &[]);
    assert!(
        matches!(
            err,
            EmuError::Divergent {
                what: "loop end",
                ..
            }
        ),
        "{err}"
    );
    names(&err, "loop %r", 0, 1);
}

#[test]
fn barrier_deadlock_after_a_warp_exits() {
    // Warp 1 returns early; warp 0 waits at bar.sync for all 64 threads forever.
    let mut b = KernelBuilder::new("deadlock", 64);
    let warp = b.special(SpecialReg::WarpId);
    let p = setp(&mut b, Cmp::Eq, warp, 1u32);
    b.if_then(p, |b| b.ret());
    b.emit(Inst::BarSync {
        id: 0,
        threads: None,
        aligned: true,
    });
    let k = b.finish();
    let err = run(&k, &[]);
    match &err {
        EmuError::BarrierDeadlock {
            waiting, exited, ..
        } => {
            assert_eq!(waiting, &[0]);
            assert_eq!(exited, &[1]);
        }
        e => panic!("wrong error: {e}"),
    }
    names(&err, "bar.sync 0", 0, 0);
    // A named barrier waiting for more threads than ever arrive deadlocks too.
    let mut b = KernelBuilder::new("deadlock2", 64);
    b.emit(Inst::BarSync {
        id: 3,
        threads: Some(96),
        aligned: true,
    });
    let err = run(&b.finish(), &[]);
    assert!(matches!(err, EmuError::BarrierDeadlock { .. }), "{err}");
}

/// Warp 0 stores 7 to shared memory and each warp meets the other at a barrier of `aligned` form
/// from its own branch of `warp == 0`; then warp 1 copies the word to `out`.
fn barrier_from_two_branches(aligned: bool) -> (Result<(), EmuError>, Vec<u32>) {
    let mut b = KernelBuilder::new("two_branch_barrier", 64);
    let out = b.param("out", ParamTy::Ptr);
    let smem = b.shared("word", 4, 4);
    let at = b.shared_addr(smem);
    let warp = b.special(SpecialReg::WarpId);
    let w0 = setp(&mut b, Cmp::Eq, warp, 0u32);
    let bar = Inst::BarSync { id: 0, threads: None, aligned };
    b.if_else(
        w0,
        |b| {
            st(b, Space::Shared, Ty::U32, Addr::reg(at), 7u32);
            b.emit(bar.clone());
        },
        |b| {
            b.emit(bar.clone());
            let v = ld(b, Space::Shared, Ty::U32, Addr::reg(at));
            let a = thread_addr(b, out, 0);
            st(b, Space::Global, Ty::U32, Addr::reg(a), v);
        },
    );
    let k = b.finish();
    let mut emu = Emulator::new();
    let buf = emu.alloc(4).unwrap();
    let r = launch(&mut emu, &k, 1, &[KernelArg::Ptr(buf)]);
    (r, emu.download_vec(buf, 1).unwrap())
}

#[test]
fn aligned_barrier_reached_from_two_instructions() {
    // PTX: every thread executes the same aligned barrier (`bar.sync`) instruction; warp 1
    // arrives at another one than warp 0 did (the v13 warp-specialized split-K tail did this).
    let (r, _) = barrier_from_two_branches(true);
    let err = r.unwrap_err();
    assert!(matches!(err, EmuError::BarrierMismatch { .. }), "{err}");
    assert!(err.to_string().contains("different instructions need barrier.sync"), "{err}");
    names(&err, "bar.sync 0", 1, 0);
    // `barrier.sync` may be reached from different instructions, and orders the shared store.
    let (r, got) = barrier_from_two_branches(false);
    r.unwrap();
    assert_eq!(got, [7]);
}

#[test]
fn bar_sync_by_part_of_a_warp() {
    let mut b = KernelBuilder::new("partial_bar", 32);
    let tid = b.special(SpecialReg::TidX);
    let p = setp(&mut b, Cmp::Lt, tid, 16u32);
    b.guarded(p, false, |b| {
        b.emit(Inst::BarSync {
            id: 0,
            threads: None,
            aligned: true,
        })
    });
    let err = run(&b.finish(), &[]);
    assert!(matches!(err, EmuError::Divergent { .. }), "{err}");
    names(&err, "@%p", 0, 16);
}

#[test]
fn misaligned_vector_load() {
    let mut b = KernelBuilder::new("misaligned", 32);
    let src = b.param("src", ParamTy::Ptr);
    let a = thread_addr(&mut b, src, 16);
    let d: Vec<Reg> = (0..4).map(|_| b.reg(RegClass::B32)).collect();
    b.emit(Inst::Ld {
        space: Space::Global,
        cache: CacheOp::Default,
        ty: Ty::U32,
        dst: d,
        addr: Addr::reg_off(a, 8),
    });
    let k = b.finish();
    let mut emu = Emulator::new();
    let buf = emu.alloc(1024).unwrap();
    let err = launch(&mut emu, &k, 1, &[KernelArg::Ptr(buf)]).unwrap_err();
    match &err {
        EmuError::Misaligned {
            space: Space::Global,
            access: Access::Load,
            addr,
            align: 16,
            ..
        } => {
            assert_eq!(*addr, buf.0 + 8)
        }
        e => panic!("wrong error: {e}"),
    }
    names(&err, "ld.global.v4.u32", 0, 0);
}

#[test]
fn shfl_membermask_violations() {
    let shfl = |mask: u32, guard_below: Option<u32>| {
        let mut b = KernelBuilder::new("shfl_bad", 32);
        let tid = b.special(SpecialReg::TidX);
        let d = b.reg(RegClass::B32);
        let inst = Inst::Shfl {
            mode: ShflMode::Bfly,
            dst: d,
            a: tid.into(),
            b: Operand::Imm(16),
            c: Operand::Imm(0x1f),
            mask,
        };
        match guard_below {
            Some(n) => {
                let p = setp(&mut b, Cmp::Lt, tid, n);
                b.guarded(p, false, |b| b.emit(inst));
            }
            None => b.emit(inst),
        }
        run(&b.finish(), &[])
    };
    // Lane 31 executes but is not in the mask.
    let err = shfl(0x7fff_ffff, None);
    assert!(matches!(err, EmuError::Shfl { .. }), "{err}");
    names(&err, "shfl.sync.bfly", 0, 31);
    // The mask names lanes 16..31, which a guard switched off.
    let err = shfl(u32::MAX, Some(16));
    assert!(matches!(err, EmuError::Shfl { .. }), "{err}");
    // Mask matches the executing lanes, but lane 0 reads lane 16, which does not execute.
    let err = shfl(0xffff, Some(16));
    assert!(err.to_string().contains("reads lane 16"), "{err}");
}

#[test]
fn integer_division_by_zero() {
    let mut b = KernelBuilder::new("div0", 32);
    let lane = b.special(SpecialReg::LaneId);
    let d = b.bin(humming_core::ir::BinOp::Sub, Ty::U32, lane, 7u32);
    b.bin(humming_core::ir::BinOp::Div, Ty::U32, 100u32, d);
    let err = run(&b.finish(), &[]);
    assert!(matches!(err, EmuError::DivideByZero { .. }), "{err}");
    names(&err, "div.u32", 0, 7);
}

#[test]
fn launch_mismatches_are_typed() {
    let mut b = KernelBuilder::new("args", 64);
    b.param("n", ParamTy::U32);
    b.param("p", ParamTy::Ptr);
    let k = b.finish();
    let mut emu = Emulator::new();
    let err = launch(&mut emu, &k, 1, &[KernelArg::U32(1)]).unwrap_err();
    assert!(
        matches!(
            err,
            EmuError::ArgCount {
                expected: 2,
                got: 1,
                ..
            }
        ),
        "{err}"
    );
    let err = launch(
        &mut emu,
        &k,
        1,
        &[
            KernelArg::S32(1),
            KernelArg::Ptr(humming_core::ir::DevPtr(0)),
        ],
    )
    .unwrap_err();
    assert!(matches!(err, EmuError::ArgType { index: 0, .. }), "{err}");
    let args = [
        KernelArg::U32(1),
        KernelArg::Ptr(humming_core::ir::DevPtr(0)),
    ];
    let err = emu
        .launch(&k, LaunchDims::linear(1, 32), &args)
        .unwrap_err();
    assert!(
        matches!(
            err,
            EmuError::BlockSize {
                expected: 64,
                got: 32,
                ..
            }
        ),
        "{err}"
    );
    let err = emu
        .launch(
            &k,
            LaunchDims {
                grid: (0, 1, 1),
                block: 64,
                dynamic_shared_bytes: 0,
                cluster: humming_core::ir::NO_CLUSTER,
            },
            &args,
        )
        .unwrap_err();
    assert!(matches!(err, EmuError::InvalidLaunch { .. }), "{err}");
    launch(&mut emu, &k, 2, &args).unwrap();
}

#[test]
fn endless_loops_hit_the_step_limit() {
    let mut b = KernelBuilder::new("spin", 32);
    // counter < 1 with a step that wraps the counter back below 1 every time: 0, 0, 0, ...
    let k = {
        b.for_range(0u32, 1u32, 1, |b, i| {
            b.emit(Inst::Mov {
                ty: Ty::U32,
                dst: i,
                src: Operand::Imm(-1),
            })
        });
        b.finish()
    };
    let mut emu = Emulator::new();
    emu.set_step_limit(Some(10_000));
    let err = launch(&mut emu, &k, 1, &[]).unwrap_err();
    assert!(
        matches!(err, EmuError::StepLimit { limit: 10_000, .. }),
        "{err}"
    );
}

/// Lane 0 copies 512 bytes with `cp.async.bulk` onto an mbarrier (after `expect_tx` of
/// `expect` bytes); `between` runs before every thread reads the word at byte `4 * tid`.
fn bulk_then_read(expect: u32, between: impl FnOnce(&mut KernelBuilder, Reg)) -> Result<(), EmuError> {
    let mut b = KernelBuilder::new("bulk_race", 32);
    let src = b.param("src", ParamTy::Ptr);
    let smem = b.shared("stage", 512, 128);
    let bar = b.shared("bar", 8, 8);
    let base = b.shared_addr(smem);
    let bar_at = b.shared_addr(bar);
    let tid = b.special(SpecialReg::TidX);
    let lead = setp(&mut b, Cmp::Eq, tid, 0u32);
    b.guarded(lead, false, |b| {
        b.mbarrier_init(Addr::reg(bar_at), 1);
        b.emit(Inst::FenceMbarrierInit);
        b.mbarrier_arrive_expect_tx(Addr::reg(bar_at), expect);
        b.cp_async_bulk(Addr::reg(base), Addr::reg(src), 512u32, Addr::reg(bar_at));
    });
    b.bar_sync(0);
    between(&mut b, bar_at);
    let sa = shared_thread_addr(&mut b, smem, 4);
    ld(&mut b, Space::Shared, Ty::U32, Addr::reg(sa));
    let k = b.finish();
    let mut emu = Emulator::new();
    let ps = emu.alloc(512).unwrap();
    launch(&mut emu, &k, 1, &[KernelArg::Ptr(ps)])
}

#[test]
fn bulk_copies_land_at_the_mbarrier_wait() {
    // Read without waiting for the barrier's phase: the bytes are still in flight.
    let err = bulk_then_read(512, |_, _| {}).unwrap_err();
    assert!(matches!(err, EmuError::PendingCpAsync { access: Access::Load, .. }), "{err}");
    // Waiting for the wrong parity (phase 1 has not even begun): reported, not a hang.
    let err = bulk_then_read(512, |b, bar| b.mbarrier_wait(Addr::reg(bar), 1u32)).unwrap_err();
    assert!(matches!(&err, EmuError::UndefinedBehavior { reason, .. } if reason.contains("has not completed")), "{err}");
    // More bytes expected than copied: the phase never completes.
    let err = bulk_then_read(1024, |b, bar| b.mbarrier_wait(Addr::reg(bar), 0u32)).unwrap_err();
    assert!(err.to_string().contains("512 transaction bytes outstanding"), "{err}");
    // The right wait: the copy has landed for every thread.
    bulk_then_read(512, |b, bar| b.mbarrier_wait(Addr::reg(bar), 0u32)).unwrap();
}

/// Warp 1 (the producer) cp.asyncs 16 bytes a lane into shared memory and arrives on a `full`
/// mbarrier with `cp.async.mbarrier.arrive.noinc`; warp 0 (the consumer, which the emulator runs
/// first) runs `wait` and then reads lane `l`'s first word into `out[l]`. The mbarrier expects
/// `count` arrivals.
fn producer_consumer(count: u32, wait: impl FnOnce(&mut KernelBuilder, Reg)) -> Result<Vec<u32>, EmuError> {
    let mut b = KernelBuilder::new("ring", 64);
    let src = b.param("src", ParamTy::Ptr);
    let out = b.param("out", ParamTy::Ptr);
    let smem = b.shared("stage", 32 * 16, 16);
    let bar = b.shared("full", 8, 8);
    let bar_at = b.shared_addr(bar);
    let tid = b.special(SpecialReg::TidX);
    let lead = setp(&mut b, Cmp::Eq, tid, 0u32);
    b.guarded(lead, false, |b| b.mbarrier_init(Addr::reg(bar_at), count));
    b.bar_sync(0);
    let lane = b.bin(humming_core::ir::BinOp::And, Ty::B32, tid, 31u32);
    let off = b.mul(Ty::U32, lane, 16u32);
    let sa = b.add(Ty::U32, off, Operand::SharedAddr(smem));
    let producer = setp(&mut b, Cmp::Ge, tid, 32u32);
    b.if_else(
        producer,
        |b| {
            let goff = b.cvt(Ty::U64, Ty::U32, None, off);
            let ga = b.add(Ty::U64, src, goff);
            b.emit(Inst::CpAsync { cache: CpAsyncCache::Cg, bytes: 16, dst: Addr::reg(sa), src: Addr::reg(ga), src_size: None, policy: None });
            b.cp_async_mbarrier_arrive(Addr::reg(bar_at));
        },
        |b| {
            wait(b, bar_at);
            let v = ld(b, Space::Shared, Ty::U32, Addr::reg(sa));
            let oa = thread_addr(b, out, 4);
            st(b, Space::Global, Ty::U32, Addr::reg(oa), v);
        },
    );
    let k = b.finish();
    let mut emu = Emulator::new();
    let data: Vec<u8> = (0..512u32).map(|i| (i * 7 + 3) as u8).collect();
    let ps = emu.upload_new(&data).unwrap();
    let po = emu.alloc(128).unwrap();
    launch(&mut emu, &k, 1, &[KernelArg::Ptr(ps), KernelArg::Ptr(po)])?;
    let raw = emu.download_vec(po, 128).unwrap();
    Ok(raw.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

#[test]
fn cp_async_copies_land_at_the_full_barrier_wait() {
    // The consumer reaches its wait first and is suspended until the producer's 32 arrivals
    // complete the phase; then every lane reads its own 16 bytes.
    let got = producer_consumer(32, |b, bar| b.mbarrier_wait(Addr::reg(bar), 0u32)).unwrap();
    let want: Vec<u32> = (0..32u32).map(|l| u32::from_le_bytes([0, 1, 2, 3].map(|j| ((16 * l + j) * 7 + 3) as u8))).collect();
    assert_eq!(got, want);
    // No wait: the consumer reads before the producer has even issued (shared memory holds the
    // emulator's fill, not the data).
    let got = producer_consumer(32, |_, _| {}).unwrap();
    assert_ne!(got, want);
    // More arrivals expected than the producer makes: the phase never completes.
    let err = producer_consumer(33, |b, bar| b.mbarrier_wait(Addr::reg(bar), 0u32)).unwrap_err();
    assert!(err.to_string().contains("1 arrivals and 0 transaction bytes outstanding"), "{err}");
    // Fewer: arrivals 17..32 complete phase 1 as well, and the wait for parity 0 now waits for
    // phase 2, which nothing completes (on the GPU, a hang).
    let err = producer_consumer(16, |b, bar| b.mbarrier_wait(Addr::reg(bar), 0u32)).unwrap_err();
    assert!(err.to_string().contains("16 arrivals and 0 transaction bytes outstanding"), "{err}");
}
