//! `cluster_gather`: thread-block clusters (sm_90). Each CTA stages its slice of the input in
//! shared memory, the cluster synchronizes (`barrier.cluster` arrive.release / wait.acquire),
//! and every thread reads the other CTAs' slices through `mapa` + `ld.shared::cluster`. A last
//! cluster barrier keeps each CTA's shared memory alive until the others have read it.
//! Checked exactly (wrapping u32 arithmetic) against plain Rust, on the emulator and on a GPU.

use super::{SplitMix64, alloc_out, check_untouched, download, launch, upload};
use crate::arch::Arch;
use crate::ir::builder::KernelBuilder;
use crate::ir::exec::{Executor, KernelArg, LaunchDims};
use crate::ir::inst::{BinOp, Inst};
use crate::ir::kernel::{Kernel, ParamTy};
use crate::ir::types::{Addr, Reg, RegClass, Space, SpecialReg, Ty};

/// Threads per CTA of [`cluster_gather`] (and values per CTA slice).
pub const CLUSTER_THREADS: u32 = 64;

/// `cluster_gather(x, out, info)`: CTA `c` (cluster rank `r` of `n`) thread `t` writes
/// `out[64 c + t] = sum over ranks q of (q + 1) * s_q[(t + q) % 64]`, where `s_q` is the slice
/// `x[64 c_q ..]` of the cluster's CTA of rank `q` (wrapping u32), and thread 0 writes
/// `info[c] = r | n << 8`. One-dimensional grid of 64-thread CTAs, clusters along x.
pub fn cluster_gather() -> Kernel {
    let mut b = KernelBuilder::new("cluster_gather", CLUSTER_THREADS);
    let x = b.param("x", ParamTy::Ptr);
    let out = b.param("out", ParamTy::Ptr);
    let info = b.param("info", ParamTy::Ptr);
    let slice = b.shared("slice", CLUSTER_THREADS * 4, 16);
    let tid = b.special(SpecialReg::TidX);
    let cta = b.special(SpecialReg::CtaidX);
    let rank = b.special(SpecialReg::ClusterCtaRank);
    let nrank = b.special(SpecialReg::ClusterNctaRank);
    let i = b.mad(Ty::U32, cta, CLUSTER_THREADS, tid);
    let src = b.index_addr(x, i, 4);
    let v = b.ld(Space::Global, Ty::U32, src);
    let base = b.shared_addr(slice);
    let mine = b.mad(Ty::U32, tid, 4u32, base);
    b.st(Space::Shared, Ty::U32, mine, v);
    b.emit(Inst::ClusterSync);
    let acc = b.mov(Ty::U32, 0u32);
    b.for_range(0u32, nrank, 1, |b, q| {
        let j = b.add(Ty::U32, tid, q);
        let j = b.and(Ty::U32, j, CLUSTER_THREADS - 1);
        let local = b.mad(Ty::U32, j, 4u32, base);
        let remote: Reg = b.reg(RegClass::B32);
        b.emit(Inst::Mapa { dst: remote, addr: local, rank: q.into() });
        let got = b.reg(RegClass::B32);
        b.emit(Inst::LdCluster { ty: Ty::U32, dst: vec![got], addr: Addr::reg(remote) });
        let w = b.add(Ty::U32, q, 1u32);
        let term = b.bin(BinOp::Mul, Ty::U32, got, w);
        b.bin_to(BinOp::Add, Ty::U32, acc, acc, term);
    });
    b.emit(Inst::ClusterSync);
    let dst = b.index_addr(out, i, 4);
    b.st(Space::Global, Ty::U32, dst, acc);
    let first = b.setp(crate::ir::types::Cmp::Eq, Ty::U32, tid, 0u32);
    b.guarded(first, false, |b| {
        let hi = b.shl(Ty::U32, nrank, 8u32);
        let word = b.bin(BinOp::Or, Ty::U32, rank, hi);
        let at = b.index_addr(info, cta, 4);
        b.st(Space::Global, Ty::U32, at, word);
    });
    b.finish()
}

/// sm_90 and newer (clusters).
pub(super) const SM90: &[Arch] = &[Arch::Sm90, Arch::Sm90a];

/// Runs [`cluster_gather`] on a random grid of clusters of 2, 4 or 8 CTAs.
pub fn check_cluster_gather<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    let mut rng = SplitMix64::new(seed);
    let n = 1u32 << (1 + rng.below(3));
    let clusters = 1 + rng.below(5);
    let ctas = n * clusters;
    let t = CLUSTER_THREADS as usize;
    let x: Vec<u32> = (0..ctas as usize * t).map(|_| rng.next_u32()).collect();
    let mut want = vec![0u32; x.len()];
    for c in 0..ctas as usize {
        let first = c / n as usize * n as usize;
        for (tid, w) in want[c * t..(c + 1) * t].iter_mut().enumerate() {
            *w = (0..n as usize).fold(0u32, |acc, q| acc.wrapping_add((q as u32 + 1).wrapping_mul(x[(first + q) * t + (tid + q) % t])));
        }
    }
    let px = upload(ex, &x)?;
    let (po, poison) = alloc_out::<E, u32>(ex, x.len() + 8)?;
    let (pi, ipoison) = alloc_out::<E, u32>(ex, ctas as usize + 8)?;
    let dims = LaunchDims { cluster: (n, 1, 1), ..LaunchDims::linear(ctas, CLUSTER_THREADS) };
    launch(ex, &cluster_gather(), dims, &[KernelArg::Ptr(px), KernelArg::Ptr(po), KernelArg::Ptr(pi)])?;
    let got: Vec<u32> = download(ex, po, x.len() + 8)?;
    if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
        return Err(format!("out[{i}] = {:#x}, expected {:#x} (clusters of {n})", got[i], want[i]));
    }
    check_untouched("out", &got, &poison, want.len())?;
    let info: Vec<u32> = download(ex, pi, ctas as usize + 8)?;
    if let Some(c) = (0..ctas).find(|&c| info[c as usize] != ((c % n) | (n << 8))) {
        return Err(format!("info[{c}] = {:#x}: expected rank {} of {n}", info[c as usize], c % n));
    }
    check_untouched("info", &info, &ipoison, ctas as usize)
}
