//! Misuse of the warpgroup MMA on the emulator: each is a typed error naming the wgmma, never a
//! silent result. (Correct use: the `wgmma_tile_*` samples, on the emulator and the GPU.)

use humming_core::ir::builder::KernelBuilder;
use humming_core::ir::emu::{EmuError, Emulator};
use humming_core::ir::{BinOp, Executor, Inst, Kernel, LaunchDims, MmaType, Operand, SpecialReg, Ty};

#[derive(Clone, Copy, PartialEq)]
enum Misuse {
    /// A CTA of 96 threads: no whole warpgroup.
    ThreeWarps,
    /// Warp 1's descriptor points elsewhere.
    SplitDescriptor,
    /// A 64-byte-swizzle descriptor (the emulator models no swizzle and the 128-byte one).
    Swizzled,
    /// Lanes 0..16 of every warp only.
    HalfWarp,
    /// B read past the shared window.
    OutOfWindow,
    /// Thread 0 stores into B after `commit_group`, before `wait_group` (the wgmma may still
    /// read it).
    StoreBeforeWait,
    /// The same store after every warp's `wait_group 0` and a barrier (correct).
    StoreAfterWait,
}

/// One m64n8k16 wgmma from zero registers, B described at the start of a 256-byte array.
fn kernel(misuse: Misuse) -> Kernel {
    let threads = if misuse == Misuse::ThreeWarps { 96 } else { 128 };
    let mut b = KernelBuilder::new("wgmma_misuse", threads);
    let tile = b.shared("tile", 256, 128);
    let sb = b.shared_addr(tile);
    let tid = b.special(SpecialReg::TidX);
    // Zeros in B, so any read of it is defined.
    let off = b.mul(Ty::U32, tid, 2u32);
    let dst = b.add(Ty::U32, sb, off);
    let ok = b.setp(humming_core::ir::Cmp::Lt, Ty::U32, tid, 128u32);
    b.guarded(ok, false, |b| b.st(humming_core::ir::Space::Shared, Ty::U16, dst, 0u32));
    b.emit(Inst::FenceProxyAsync);
    b.bar_sync(0);
    let start = match misuse {
        Misuse::OutOfWindow => b.add(Ty::U32, sb, 4096u32),
        Misuse::SplitDescriptor => {
            let w = b.shr(Ty::U32, tid, 5u32);
            let one = b.setp(humming_core::ir::Cmp::Eq, Ty::U32, w, 1u32);
            let moved = b.add(Ty::U32, sb, 16u32);
            b.selp(Ty::U32, moved, sb, one)
        }
        _ => sb,
    };
    let desc = b.wgmma_desc(start, 128, 256);
    let desc = if misuse == Misuse::Swizzled { b.bin(BinOp::Or, Ty::B64, desc, Operand::Imm(2i64 << 62)) } else { desc };
    let a: Vec<_> = (0..4).map(|_| b.mov(Ty::B32, 0u32)).collect();
    let d: Vec<_> = (0..4).map(|_| b.mov(Ty::F32, Operand::f32(0.0))).collect();
    let first = b.setp(humming_core::ir::Cmp::Eq, Ty::U32, tid, 0u32);
    let wgmma = |b: &mut KernelBuilder| {
        b.emit(Inst::WgmmaFence);
        b.emit(Inst::Wgmma { n: 8, ab: MmaType::F16, d: d.clone(), a: a.clone(), b_desc: desc, accumulate: Operand::Imm(1) });
        b.emit(Inst::WgmmaCommit);
        let store = |b: &mut KernelBuilder| b.guarded(first, false, |b| b.st(humming_core::ir::Space::Shared, Ty::U16, sb, 0u32));
        if misuse == Misuse::StoreBeforeWait {
            store(b);
        }
        b.emit(Inst::WgmmaWait { n: 0 });
        if misuse == Misuse::StoreAfterWait {
            // Every warp's wait, then the store (one warp's wait does not retire the others'
            // share of the warpgroup's wgmma).
            b.bar_sync(0);
            store(b);
        }
    };
    if misuse == Misuse::HalfWarp {
        let lane = b.and(Ty::U32, tid, 31u32);
        let low = b.setp(humming_core::ir::Cmp::Lt, Ty::U32, lane, 16u32);
        b.guarded(low, false, wgmma);
    } else {
        wgmma(&mut b);
    }
    b.finish()
}

fn launch(misuse: Misuse) -> Result<(), EmuError> {
    let k = kernel(misuse);
    let mut ex = Emulator::new();
    let dims = LaunchDims::linear(1, k.block_threads);
    ex.launch(&k, dims, &[]).map(|_| ())
}

fn run(misuse: Misuse) -> EmuError {
    launch(misuse).expect_err("misuse must fail")
}

/// The hardware may read a wgmma's B until its group is retired: a shared write there before
/// `wgmma.wait_group` is a typed error naming both instructions; after every warp's wait (and
/// a barrier), none.
#[test]
fn writing_b_before_the_wgmma_is_retired() {
    match run(Misuse::StoreBeforeWait) {
        EmuError::WgmmaReadInFlight { access, warpgroup, thread, site, wgmma_site, .. } => {
            assert_eq!(access, humming_core::ir::emu::Access::Store);
            assert_eq!((warpgroup, thread.warp, thread.lane), (0, 0, 0));
            assert!(site.text.contains("st.shared"), "{}", site.text);
            assert!(wgmma_site.text.contains("wgmma"), "{}", wgmma_site.text);
        }
        e => panic!("store before wait: {e}"),
    }
    launch(Misuse::StoreAfterWait).expect("a store after wait_group 0 is fine");
}

#[test]
fn wgmma_misuse_is_a_typed_error() {
    match run(Misuse::ThreeWarps) {
        EmuError::UndefinedBehavior { reason, .. } => assert!(reason.contains("4 full warps"), "{reason}"),
        e => panic!("three warps: {e}"),
    }
    match run(Misuse::SplitDescriptor) {
        EmuError::UndefinedBehavior { reason, thread, .. } => {
            assert!(reason.contains("descriptor"), "{reason}");
            assert_eq!(thread.warp, 1, "the first thread whose descriptor differs is in warp 1");
        }
        e => panic!("split descriptor: {e}"),
    }
    match run(Misuse::Swizzled) {
        EmuError::UndefinedBehavior { reason, .. } => assert!(reason.contains("swizzle"), "{reason}"),
        e => panic!("swizzled: {e}"),
    }
    assert!(matches!(run(Misuse::HalfWarp), EmuError::NotConverged { .. }), "half warp");
    assert!(matches!(run(Misuse::OutOfWindow), EmuError::SharedOutOfBounds { .. }), "out of window");
}

/// A consumer warpgroup that frees its B slot on an mbarrier before `wgmma.wait_group` (the
/// mistake a lagged slot release can make) and a producer warp that refills it once the phase
/// completes: the emulator lets the producer run at that completion, before the last consumer
/// warp's wait, and reports the refill as a write over an unretired wgmma's B. Freed after the
/// wait, the same kernel runs.
fn free_slot(before_wait: bool) -> Result<(), EmuError> {
    use humming_core::ir::{Addr, Cmp, Space};
    let mut b = KernelBuilder::new("wgmma_free_slot", 160);
    let tile = b.shared("tile", 256, 128);
    let bar = b.shared("empty", 8, 8);
    let sb = b.shared_addr(tile);
    let eb = b.shared_addr(bar);
    let tid = b.special(SpecialReg::TidX);
    let off = b.mul(Ty::U32, tid, 2u32);
    let dst = b.add(Ty::U32, sb, off);
    let ok = b.setp(Cmp::Lt, Ty::U32, tid, 128u32);
    b.guarded(ok, false, |b| b.st(Space::Shared, Ty::U16, dst, 0u32));
    let first = b.setp(Cmp::Eq, Ty::U32, tid, 0u32);
    // One arrival a consumer warp.
    b.guarded(first, false, |b| b.mbarrier_init(Addr::reg(eb), 4));
    b.emit(Inst::FenceMbarrierInit);
    b.emit(Inst::FenceProxyAsync);
    b.bar_sync(0);
    let lane = b.and(Ty::U32, tid, 31u32);
    let lead = b.setp(Cmp::Eq, Ty::U32, lane, 0u32);
    b.if_else(
        ok,
        |b| {
            let desc = b.wgmma_desc(sb, 128, 256);
            let a: Vec<_> = (0..4).map(|_| b.mov(Ty::B32, 0u32)).collect();
            let d: Vec<_> = (0..4).map(|_| b.mov(Ty::F32, Operand::f32(0.0))).collect();
            b.emit(Inst::WgmmaFence);
            b.emit(Inst::Wgmma { n: 8, ab: MmaType::F16, d, a, b_desc: desc, accumulate: Operand::Imm(1) });
            b.emit(Inst::WgmmaCommit);
            let free = |b: &mut KernelBuilder| b.guarded(lead, false, |b| b.mbarrier_arrive(Addr::reg(eb)));
            if before_wait {
                free(b);
            }
            b.emit(Inst::WgmmaWait { n: 0 });
            if !before_wait {
                free(b);
            }
        },
        |b| {
            // The producer warp: the slot's phase 0, then a refill.
            b.mbarrier_wait(Addr::reg(eb), 0u32);
            b.guarded(lead, false, |b| b.st(Space::Shared, Ty::U16, sb, 0u32));
        },
    );
    let k = b.finish();
    Emulator::new().launch(&k, LaunchDims::linear(1, 160), &[]).map(|_| ())
}

#[test]
fn freeing_a_b_slot_before_the_wgmma_is_retired() {
    match free_slot(true) {
        Err(EmuError::WgmmaReadInFlight { thread, .. }) => assert_eq!(thread.warp, 4, "the producer's refill"),
        r => panic!("freed before wait_group: {r:?}"),
    }
    free_slot(false).expect("freed after wait_group");
}
