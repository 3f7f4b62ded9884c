//! Thread-block clusters on the emulator: launch validation, and misuse of `barrier.cluster`,
//! `mapa` and `ld.shared::cluster` reported as typed errors (the working path is the
//! `cluster_gather` sample, checked in `emu_samples.rs`).

use humming_core::ir::builder::KernelBuilder;
use humming_core::ir::emu::{EmuError, Emulator};
use humming_core::ir::samples::{CLUSTER_THREADS, check_cluster_gather};
use humming_core::ir::{Addr, Cmp, Executor, Inst, Kernel, KernelArg, LaunchDims, ParamTy, RegClass, Space, SpecialReg, Ty};

/// What to get wrong in [`kernel`].
#[derive(Clone, Copy, PartialEq)]
enum Bug {
    None,
    /// No cluster barrier after the reads: a CTA exits while another still reads its memory.
    NoFinalSync,
    /// `mapa` to rank `%cluster_nctarank` (one past the last).
    RankPastEnd,
    /// Warp 1 exits before the first cluster barrier.
    EarlyExit,
    /// The CTA of rank 1 exits before the first cluster barrier.
    RankExits,
    /// The first cluster barrier under a guard.
    Guarded,
}

/// Each CTA stores its rank to shared memory, syncs the cluster, reads its right neighbour's
/// rank (`(rank + 1) % n`) and writes it to `out[cta * 64 + tid]`, syncs again.
fn kernel(bug: Bug) -> Kernel {
    let mut b = KernelBuilder::new("cluster_misuse", 64);
    let out = b.param("out", ParamTy::Ptr);
    let slot = b.shared("slot", 4, 4);
    let tid = b.special(SpecialReg::TidX);
    let cta = b.special(SpecialReg::CtaidX);
    let rank = b.special(SpecialReg::ClusterCtaRank);
    let n = b.special(SpecialReg::ClusterNctaRank);
    let base = b.shared_addr(slot);
    b.st(Space::Shared, Ty::U32, base, rank);
    if bug == Bug::EarlyExit {
        let warp1 = b.setp(Cmp::Ge, Ty::U32, tid, 32u32);
        b.if_then(warp1, |b| b.ret());
    }
    if bug == Bug::RankExits {
        let one = b.setp(Cmp::Eq, Ty::U32, rank, 1u32);
        b.if_then(one, |b| b.ret());
    }
    if bug == Bug::Guarded {
        let t = b.setp(Cmp::Lt, Ty::U32, tid, 64u32);
        b.guarded(t, false, |b| b.emit(Inst::ClusterSync));
    } else {
        b.emit(Inst::ClusterSync);
    }
    let next = b.add(Ty::U32, rank, 1u32);
    let next = if bug == Bug::RankPastEnd { n } else { b.bin(humming_core::ir::BinOp::Rem, Ty::U32, next, n) };
    let remote = b.reg(RegClass::B32);
    b.emit(Inst::Mapa { dst: remote, addr: base, rank: next.into() });
    let got = b.reg(RegClass::B32);
    b.emit(Inst::LdCluster { ty: Ty::U32, dst: vec![got], addr: Addr::reg(remote) });
    if bug != Bug::NoFinalSync {
        b.emit(Inst::ClusterSync);
    }
    let i = b.mad(Ty::U32, cta, 64u32, tid);
    let at = b.index_addr(out, i, 4);
    b.st(Space::Global, Ty::U32, at, got);
    b.finish()
}

fn run(bug: Bug, grid: u32, cluster: u32) -> Result<Vec<u32>, EmuError> {
    let mut emu = Emulator::new();
    let out = emu.alloc(grid as usize * 64 * 4)?;
    let dims = LaunchDims { cluster: (cluster, 1, 1), ..LaunchDims::linear(grid, 64) };
    emu.launch(&kernel(bug), dims, &[KernelArg::Ptr(out)])?;
    emu.download_vec(out, grid as usize * 64)
}

#[test]
fn neighbours_ranks_are_read_across_the_cluster() {
    for (grid, cluster) in [(8, 4), (6, 2), (8, 8), (3, 1)] {
        let got = run(Bug::None, grid, cluster).unwrap();
        for (i, &v) in got.iter().enumerate() {
            let rank = (i as u32 / 64) % cluster;
            assert_eq!(v, (rank + 1) % cluster, "grid {grid} cluster {cluster} out[{i}]");
        }
    }
    // The sample over several seeds (clusters of 2, 4, 8).
    for seed in 0..6 {
        check_cluster_gather(&mut Emulator::new(), seed).unwrap();
    }
    assert_eq!(CLUSTER_THREADS, 64);
}

#[test]
fn cluster_shapes_must_tile_the_grid() {
    for (grid, cluster, want) in [(6, 4, "does not divide"), (16, 16, "at most 8"), (4, 0, "does not divide")] {
        let err = run(Bug::None, grid, cluster).unwrap_err();
        assert!(matches!(err, EmuError::InvalidLaunch { .. }), "{err}");
        assert!(err.to_string().contains(want), "{err}");
    }
}

#[test]
fn cluster_misuse_is_reported() {
    let err = run(Bug::NoFinalSync, 4, 2).unwrap_err();
    assert!(matches!(err, EmuError::UndefinedBehavior { .. }) && err.to_string().contains("has exited"), "{err}");
    let err = run(Bug::RankPastEnd, 4, 2).unwrap_err();
    assert!(matches!(err, EmuError::UndefinedBehavior { .. }) && err.to_string().contains("the cluster has 2 CTAs"), "{err}");
    let err = run(Bug::EarlyExit, 4, 2).unwrap_err();
    assert!(matches!(err, EmuError::UndefinedBehavior { .. }) && err.to_string().contains("exited while"), "{err}");
    let err = run(Bug::RankExits, 4, 2).unwrap_err();
    assert!(matches!(err, EmuError::UndefinedBehavior { .. }) && err.to_string().contains("CTA rank 1 of the cluster exited"), "{err}");
    let err = run(Bug::Guarded, 4, 2).unwrap_err();
    assert!(matches!(err, EmuError::InvalidKernel { .. }) && err.to_string().contains("no guard"), "{err}");
}
