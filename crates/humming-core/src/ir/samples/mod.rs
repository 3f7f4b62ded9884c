//! Hand-built sample kernels: small, complete programs that exercise each part of the IR
//! (predicated memory access, loops, shared memory and barriers, shuffles, `ldmatrix` and
//! `mma`, `cp.async` pipelines, warpgroup `wgmma` on sm_90a, thread-block clusters on sm_90). Each comes with the targets it claims, a plain-Rust
//! expected computation, and a checker written once against [`Executor`], so the same test
//! runs on the CPU emulator and on a GPU.
//!
//! A checker makes fresh random inputs from `seed`, uploads them, launches, downloads, and
//! compares every output element (exactly for integer kernels and for float kernels whose
//! order of operations is fixed; within a rounding bound for `mma`). Outputs are allocated
//! with room past the end, and the checker also verifies that nothing past the valid
//! outputs was written (the executor fills fresh memory with poison).

mod cluster;
mod wgmma;

pub use cluster::{CLUSTER_THREADS, check_cluster_gather, cluster_gather};
pub use wgmma::{WGMMA_N, check_wgmma_tile_bf16, check_wgmma_tile_f16, check_wgmma_tile_sw128_f16, wgmma_tile_bf16, wgmma_tile_f16, wgmma_tile_sw128_f16};

use std::fmt::Display;

use half::{bf16, f16};

use crate::arch::Arch;
use crate::ir::builder::KernelBuilder;
use crate::ir::exec::{DevPtr, Executor, KernelArg, LaunchDims};
use crate::ir::inst::{BinOp, CpAsyncCache, L2Evict, MembarLevel, MmaShape, MmaType, ShflMode};
use crate::ir::kernel::{Kernel, ParamTy};
use crate::ir::types::{Addr, Cmp, Operand, Reg, Space, SpecialReg, Ty};

/// Every target.
const FROM_SM75: &[Arch] = &Arch::ALL;
/// sm_80 and newer (`cp.async`, `m16n8k16`, `m16n8k32`, bf16 `mma`).
const FROM_SM80: &[Arch] = &[Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Sm90a];
/// sm_90 and newer (`cp.async.bulk`, mbarrier transaction counts).
const FROM_SM90: &[Arch] = &[Arch::Sm90, Arch::Sm90a];

/// Which sample (for dispatching its checker).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SampleId {
    VectorAdd,
    BlockReduce,
    ShflReduce,
    MmaTileF16,
    MmaTileBf16,
    MmaTileF16Sm75,
    MmaTileS8,
    CpAsyncCopy,
    CpAsyncHintCopy,
    BulkCopy,
    WgmmaTileF16,
    WgmmaTileBf16,
    WgmmaTileSw128F16,
    ClusterGather,
}

/// A sample kernel: its name (also the kernel's name), the targets it claims, and its builder.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub id: SampleId,
    pub name: &'static str,
    claims: &'static [Arch],
    pub build: fn() -> Kernel,
}

impl Sample {
    /// The targets this kernel is written for (printed, assembled and run on each).
    pub fn claims(&self) -> &[Arch] {
        self.claims
    }

    /// Builds the kernel.
    pub fn kernel(&self) -> Kernel {
        (self.build)()
    }

    /// Runs the sample's checker on `ex` with inputs from `seed`.
    pub fn check<E: Executor>(&self, ex: &mut E, seed: u64) -> Result<(), String> {
        match self.id {
            SampleId::VectorAdd => check_vector_add(ex, seed),
            SampleId::BlockReduce => check_block_reduce(ex, seed),
            SampleId::ShflReduce => check_shfl_reduce(ex, seed),
            SampleId::MmaTileF16 => check_mma_tile_f16(ex, seed),
            SampleId::MmaTileBf16 => check_mma_tile_bf16(ex, seed),
            SampleId::MmaTileF16Sm75 => check_mma_tile_f16_sm75(ex, seed),
            SampleId::MmaTileS8 => check_mma_tile_s8(ex, seed),
            SampleId::CpAsyncCopy => check_cp_async_copy(ex, seed),
            SampleId::CpAsyncHintCopy => check_cp_async_hint_copy(ex, seed),
            SampleId::BulkCopy => check_bulk_copy(ex, seed),
            SampleId::WgmmaTileF16 => wgmma::check_wgmma_tile_f16(ex, seed),
            SampleId::WgmmaTileBf16 => wgmma::check_wgmma_tile_bf16(ex, seed),
            SampleId::WgmmaTileSw128F16 => wgmma::check_wgmma_tile_sw128_f16(ex, seed),
            SampleId::ClusterGather => cluster::check_cluster_gather(ex, seed),
        }
    }
}

/// Every sample, simplest first.
pub fn all_samples() -> Vec<Sample> {
    let s = |id, name, claims, build| Sample {
        id,
        name,
        claims,
        build,
    };
    vec![
        s(
            SampleId::VectorAdd,
            "vector_add",
            FROM_SM75,
            vector_add as fn() -> Kernel,
        ),
        s(
            SampleId::BlockReduce,
            "block_reduce",
            FROM_SM75,
            block_reduce,
        ),
        s(SampleId::ShflReduce, "shfl_reduce", FROM_SM75, shfl_reduce),
        s(
            SampleId::MmaTileF16,
            "mma_tile_f16",
            FROM_SM80,
            mma_tile_f16,
        ),
        s(
            SampleId::MmaTileBf16,
            "mma_tile_bf16",
            FROM_SM80,
            mma_tile_bf16,
        ),
        s(
            SampleId::MmaTileF16Sm75,
            "mma_tile_f16_sm75",
            FROM_SM75,
            mma_tile_f16_sm75,
        ),
        s(SampleId::MmaTileS8, "mma_tile_s8", FROM_SM80, mma_tile_s8),
        s(
            SampleId::CpAsyncCopy,
            "cp_async_copy",
            FROM_SM80,
            cp_async_copy,
        ),
        s(
            SampleId::CpAsyncHintCopy,
            "cp_async_hint_copy",
            FROM_SM80,
            cp_async_hint_copy,
        ),
        s(SampleId::BulkCopy, "bulk_copy", FROM_SM90, bulk_copy),
        s(SampleId::WgmmaTileF16, "wgmma_tile_f16", wgmma::SM90A, wgmma::wgmma_tile_f16),
        s(SampleId::WgmmaTileBf16, "wgmma_tile_bf16", wgmma::SM90A, wgmma::wgmma_tile_bf16),
        s(SampleId::WgmmaTileSw128F16, "wgmma_tile_sw128_f16", wgmma::SM90A, wgmma::wgmma_tile_sw128_f16),
        s(SampleId::ClusterGather, "cluster_gather", cluster::SM90, cluster::cluster_gather),
    ]
}

// ---------------------------------------------------------------------------------------
// Deterministic random inputs.

pub use crate::rng::SplitMix64;

// ---------------------------------------------------------------------------------------
// Executor plumbing.

fn fail<X: Display>(what: &'static str) -> impl FnOnce(X) -> String {
    move |e| format!("{what}: {e}")
}

fn upload<E: Executor, T: bytemuck::Pod>(ex: &mut E, data: &[T]) -> Result<DevPtr, String> {
    ex.upload_new(data).map_err(fail("upload"))
}

/// A fresh output buffer of `n` values and the poison it holds.
fn alloc_out<E: Executor, T: bytemuck::Pod + Default + Clone>(
    ex: &mut E,
    n: usize,
) -> Result<(DevPtr, Vec<T>), String> {
    let p = ex
        .alloc(n * std::mem::size_of::<T>())
        .map_err(fail("alloc"))?;
    let poison = ex.download_vec(p, n).map_err(fail("download"))?;
    Ok((p, poison))
}

fn launch<E: Executor>(
    ex: &mut E,
    k: &Kernel,
    dims: LaunchDims,
    args: &[KernelArg],
) -> Result<(), String> {
    ex.launch(k, dims, args)
        .map_err(|e| format!("launch {}: {e}", k.name))
}

fn download<E: Executor, T: bytemuck::Pod + Default + Clone>(
    ex: &mut E,
    p: DevPtr,
    n: usize,
) -> Result<Vec<T>, String> {
    ex.download_vec(p, n).map_err(fail("download"))
}

/// Elements past `valid` must still hold the poison they were allocated with.
fn check_untouched<T: PartialEq + std::fmt::Debug>(
    what: &str,
    got: &[T],
    poison: &[T],
    valid: usize,
) -> Result<(), String> {
    match (valid..got.len()).find(|&i| got[i] != poison[i]) {
        Some(i) => Err(format!(
            "{what}[{i}] past the {valid} valid elements was written: {:?}",
            got[i]
        )),
        None => Ok(()),
    }
}

/// Checks an f32 matrix of `n` columns element by element: `expect(i)` is element i's exact
/// value and tolerance; the first miss (or NaN) is reported with its row and column.
fn check_close(
    what: &str,
    n: usize,
    got: &[f32],
    expect: impl Fn(usize) -> (f64, f64),
) -> Result<(), String> {
    for (i, &g) in got.iter().enumerate() {
        let (want, tol) = expect(i);
        let err = (f64::from(g) - want).abs();
        if err.is_nan() || err > tol {
            return Err(format!(
                "{what}: D[{}][{}] = {g}, expected {want} (|error| {err:e} > {tol:e})",
                i / n,
                i % n
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// a. vector_add

/// Threads per CTA of [`vector_add`].
pub const VECTOR_ADD_THREADS: u32 = 128;

/// `vector_add(a, b, c, n)`: `c[i] = a[i] + b[i]` (f32) for `i < n`, one element per thread,
/// `i = ctaid.x * ntid.x + tid.x`; threads with `i >= n` (the ragged tail of the last CTA)
/// load and store nothing (`setp` + predicated `ld`/`st`). Launch `ceil(n / 128)` CTAs of 128.
pub fn vector_add() -> Kernel {
    let mut b = KernelBuilder::new("vector_add", VECTOR_ADD_THREADS);
    let pa = b.param("a", ParamTy::Ptr);
    let pb = b.param("b", ParamTy::Ptr);
    let pc = b.param("c", ParamTy::Ptr);
    let n = b.param("n", ParamTy::U32);
    let tid = b.special(SpecialReg::TidX);
    let cta = b.special(SpecialReg::CtaidX);
    let ntid = b.special(SpecialReg::NtidX);
    let i = b.mad(Ty::U32, cta, ntid, tid);
    let inside = b.setp(Cmp::Lt, Ty::U32, i, n);
    let xa = b.index_addr(pa, i, 4);
    let xb = b.index_addr(pb, i, 4);
    let xc = b.index_addr(pc, i, 4);
    b.guarded(inside, false, |b| {
        let x = b.ld(Space::Global, Ty::F32, xa);
        let y = b.ld(Space::Global, Ty::F32, xb);
        let z = b.add(Ty::F32, x, y);
        b.st(Space::Global, Ty::F32, xc, z);
    });
    b.finish()
}

/// What [`vector_add`] computes.
pub fn expected_vector_add(a: &[f32], b: &[f32]) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| x + y).collect()
}

/// Checks [`vector_add`] on a ragged `n` (never a multiple of 128).
pub fn check_vector_add<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    let mut rng = SplitMix64::new(seed);
    let mut n = 1000 + rng.below(4000);
    if n % VECTOR_ADD_THREADS == 0 {
        n += 1;
    }
    let ctas = n.div_ceil(VECTOR_ADD_THREADS);
    let a: Vec<f32> = (0..n).map(|_| rng.unit_f32() * 100.0).collect();
    let bv: Vec<f32> = (0..n).map(|_| rng.unit_f32() * 100.0).collect();
    let want = expected_vector_add(&a, &bv);
    let pa = upload(ex, &a)?;
    let pb = upload(ex, &bv)?;
    let cap = (ctas * VECTOR_ADD_THREADS) as usize;
    let (pc, poison) = alloc_out::<E, u32>(ex, cap)?;
    let args = [
        KernelArg::Ptr(pa),
        KernelArg::Ptr(pb),
        KernelArg::Ptr(pc),
        KernelArg::U32(n),
    ];
    launch(
        ex,
        &vector_add(),
        LaunchDims::linear(ctas, VECTOR_ADD_THREADS),
        &args,
    )?;
    let got: Vec<u32> = download(ex, pc, cap)?;
    for (i, w) in want.iter().enumerate() {
        if got[i] != w.to_bits() {
            return Err(format!(
                "c[{i}] = {} ({:#010x}), expected {w}",
                f32::from_bits(got[i]),
                got[i]
            ));
        }
    }
    check_untouched("c", &got, &poison, n as usize)
}

// ---------------------------------------------------------------------------------------
// b. block_reduce

/// Threads per CTA of [`block_reduce`].
pub const BLOCK_REDUCE_THREADS: u32 = 256;

/// `block_reduce(x, out, n, iters)`: CTA `c` sums (wrapping u32) the elements
/// `x[c*chunk .. min((c+1)*chunk, n)]`, `chunk = iters * 256`, into `out[c]`.
/// Each thread accumulates `iters` elements in a uniform loop (predicated loads past `n`),
/// stores its partial sum to shared memory, then a tree of 8 halving steps (each followed by
/// `bar.sync 0`) adds the upper half onto the lower; thread 0 writes `out[c]`.
/// Launch `ceil(n / chunk)` CTAs of 256.
pub fn block_reduce() -> Kernel {
    let mut b = KernelBuilder::new("block_reduce", BLOCK_REDUCE_THREADS);
    let x = b.param("x", ParamTy::Ptr);
    let out = b.param("out", ParamTy::Ptr);
    let n = b.param("n", ParamTy::U32);
    let iters = b.param("iters", ParamTy::U32);
    let partial = b.shared("partial", BLOCK_REDUCE_THREADS * 4, 16);
    let tid = b.special(SpecialReg::TidX);
    let cta = b.special(SpecialReg::CtaidX);
    let chunk = b.shl(Ty::U32, iters, 8u32);
    let base = b.mad(Ty::U32, cta, chunk, tid);
    let acc = b.mov(Ty::U32, 0u32);
    let v = b.reg_for(Ty::U32);
    b.for_range(0u32, iters, 1, |b, k| {
        let i = b.mad(Ty::U32, k, BLOCK_REDUCE_THREADS, base);
        let inside = b.setp(Cmp::Lt, Ty::U32, i, n);
        let addr = b.index_addr(x, i, 4);
        b.mov_to(Ty::U32, v, 0u32);
        b.guarded(inside, false, |b| b.ld_to(Space::Global, Ty::U32, v, addr));
        b.bin_to(BinOp::Add, Ty::U32, acc, acc, v);
    });
    let s = b.shared_addr(partial);
    let mine = b.mad(Ty::U32, tid, 4u32, s);
    b.st(Space::Shared, Ty::U32, mine, acc);
    b.bar_sync(0);
    let mut half = BLOCK_REDUCE_THREADS / 2;
    while half > 0 {
        let active = b.setp(Cmp::Lt, Ty::U32, tid, half);
        b.guarded(active, false, |b| {
            let lo = b.ld(Space::Shared, Ty::U32, mine);
            let hi = b.ld(
                Space::Shared,
                Ty::U32,
                Addr::reg_off(mine, i64::from(half) * 4),
            );
            let sum = b.add(Ty::U32, lo, hi);
            b.st(Space::Shared, Ty::U32, mine, sum);
        });
        b.bar_sync(0);
        half /= 2;
    }
    let first = b.setp(Cmp::Eq, Ty::U32, tid, 0u32);
    b.guarded(first, false, |b| {
        let total = b.ld(
            Space::Shared,
            Ty::U32,
            Addr {
                base: Operand::SharedAddr(partial),
                offset: 0,
            },
        );
        let dst = b.index_addr(out, cta, 4);
        b.st(Space::Global, Ty::U32, dst, total);
    });
    b.finish()
}

/// What [`block_reduce`] computes: wrapping sums of consecutive chunks of `chunk` elements.
pub fn expected_block_reduce(x: &[u32], chunk: usize) -> Vec<u32> {
    x.chunks(chunk)
        .map(|c| c.iter().fold(0u32, |s, &v| s.wrapping_add(v)))
        .collect()
}

/// Checks [`block_reduce`] with 1 to 4 loop iterations and a ragged `n`.
pub fn check_block_reduce<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    let mut rng = SplitMix64::new(seed);
    let iters = 1 + rng.below(4);
    let chunk = iters * BLOCK_REDUCE_THREADS;
    let mut n = 2000 + rng.below(20000);
    if n % chunk == 0 {
        n += 1;
    }
    let ctas = n.div_ceil(chunk);
    let x: Vec<u32> = (0..n).map(|_| rng.next_u32()).collect();
    let want = expected_block_reduce(&x, chunk as usize);
    let px = upload(ex, &x)?;
    let cap = ctas as usize + 4;
    let (po, poison) = alloc_out::<E, u32>(ex, cap)?;
    let args = [
        KernelArg::Ptr(px),
        KernelArg::Ptr(po),
        KernelArg::U32(n),
        KernelArg::U32(iters),
    ];
    launch(
        ex,
        &block_reduce(),
        LaunchDims::linear(ctas, BLOCK_REDUCE_THREADS),
        &args,
    )?;
    let got: Vec<u32> = download(ex, po, cap)?;
    for (c, w) in want.iter().enumerate() {
        if got[c] != *w {
            return Err(format!(
                "out[{c}] = {:#x}, expected {w:#x} (n {n}, iters {iters})",
                got[c]
            ));
        }
    }
    check_untouched("out", &got, &poison, want.len())
}

// ---------------------------------------------------------------------------------------
// g. shfl_reduce

/// Threads per CTA of [`shfl_reduce`].
pub const SHFL_REDUCE_THREADS: u32 = 128;

/// `shfl_reduce(x, out, n)`: warp `w` (global warp index, 4 per CTA) sums the f32 values
/// `x[32w .. 32w+32]` (0.0 past `n`) with five `shfl.sync.bfly` steps (offsets 16, 8, 4, 2, 1;
/// each lane adds its partner's value) and lane 0 writes `out[w]`. The butterfly fixes the
/// order of additions, so [`expected_shfl_reduce`] reproduces the result bit for bit.
/// Launch `ceil(n / 128)` CTAs of 128; `out` has 4 entries per CTA.
pub fn shfl_reduce() -> Kernel {
    let mut b = KernelBuilder::new("shfl_reduce", SHFL_REDUCE_THREADS);
    let x = b.param("x", ParamTy::Ptr);
    let out = b.param("out", ParamTy::Ptr);
    let n = b.param("n", ParamTy::U32);
    let tid = b.special(SpecialReg::TidX);
    let cta = b.special(SpecialReg::CtaidX);
    let i = b.mad(Ty::U32, cta, SHFL_REDUCE_THREADS, tid);
    let inside = b.setp(Cmp::Lt, Ty::U32, i, n);
    let v = b.mov(Ty::F32, Operand::f32(0.0));
    let addr = b.index_addr(x, i, 4);
    b.guarded(inside, false, |b| b.ld_to(Space::Global, Ty::F32, v, addr));
    for offset in [16u32, 8, 4, 2, 1] {
        let other = b.shfl(ShflMode::Bfly, v, offset, 0x1fu32, 0xffff_ffff);
        b.bin_to(BinOp::Add, Ty::F32, v, v, other);
    }
    let lane = b.special(SpecialReg::LaneId);
    let first = b.setp(Cmp::Eq, Ty::U32, lane, 0u32);
    let warp = b.shr(Ty::U32, i, 5u32);
    b.guarded(first, false, |b| {
        let dst = b.index_addr(out, warp, 4);
        b.st(Space::Global, Ty::F32, dst, v);
    });
    b.finish()
}

/// What lane 0 of a warp holds after the butterfly over `lanes` (32 values).
pub fn butterfly_sum(lanes: &[f32; 32]) -> f32 {
    let mut v = *lanes;
    for offset in [16usize, 8, 4, 2, 1] {
        let prev = v;
        for (l, x) in v.iter_mut().enumerate() {
            *x = prev[l] + prev[l ^ offset];
        }
    }
    v[0]
}

/// What [`shfl_reduce`] computes for `warps` warps over `x` (zeros past its end).
pub fn expected_shfl_reduce(x: &[f32], warps: usize) -> Vec<f32> {
    (0..warps)
        .map(|w| {
            let mut lanes = [0.0f32; 32];
            for (l, v) in lanes.iter_mut().enumerate() {
                *v = x.get(32 * w + l).copied().unwrap_or(0.0);
            }
            butterfly_sum(&lanes)
        })
        .collect()
}

/// Checks [`shfl_reduce`] on a ragged `n` (the last warp is partly empty).
pub fn check_shfl_reduce<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    let mut rng = SplitMix64::new(seed);
    let mut n = 500 + rng.below(5000);
    if n % 32 == 0 {
        n += 1;
    }
    let ctas = n.div_ceil(SHFL_REDUCE_THREADS);
    let warps = (ctas * SHFL_REDUCE_THREADS / 32) as usize;
    let x: Vec<f32> = (0..n).map(|_| rng.unit_f32() * 10.0).collect();
    let want = expected_shfl_reduce(&x, warps);
    let px = upload(ex, &x)?;
    let cap = warps + 4;
    let (po, poison) = alloc_out::<E, u32>(ex, cap)?;
    let args = [KernelArg::Ptr(px), KernelArg::Ptr(po), KernelArg::U32(n)];
    launch(
        ex,
        &shfl_reduce(),
        LaunchDims::linear(ctas, SHFL_REDUCE_THREADS),
        &args,
    )?;
    let got: Vec<u32> = download(ex, po, cap)?;
    for (w, v) in want.iter().enumerate() {
        if got[w] != v.to_bits() {
            return Err(format!(
                "out[{w}] = {}, expected {v} (bit for bit)",
                f32::from_bits(got[w])
            ));
        }
    }
    check_untouched("out", &got, &poison, warps)
}

// ---------------------------------------------------------------------------------------
// c, d. mma tiles (f16, bf16)

/// Which 16-bit float an mma tile multiplies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Half {
    F16,
    Bf16,
}

impl Half {
    fn mma(self) -> MmaType {
        match self {
            Half::F16 => MmaType::F16,
            Half::Bf16 => MmaType::Bf16,
        }
    }

    /// `x` rounded to this type: (bits, value).
    fn round(self, x: f32) -> (u16, f64) {
        match self {
            Half::F16 => {
                let h = f16::from_f32(x);
                (h.to_bits(), h.to_f64())
            }
            Half::Bf16 => {
                let h = bf16::from_f32(x);
                (h.to_bits(), h.to_f64())
            }
        }
    }
}

/// One warp: D[16x8] (f32, row-major) = A[16x16] (row-major) x B[16x8] (row-major, i.e. K
/// rows of N), in 16-bit floats `half`.
///
/// - Global to shared with plain loads and stores: A is 512 bytes (16 per lane, `v4.u32`),
///   B 256 bytes (8 per lane, `v2.u32`); then `bar.sync 0`.
/// - `ldmatrix.x4` on A: lane `l` gives the address of row `l % 16`, columns `8 * (l / 16)..`;
///   the four 8x8 matrices come back as the A fragment a0..a3 (rows 0-7/8-15 x k 0-7, then
///   k 8-15), i.e. a0 = A[g][2t..2t+2], a1 = A[g+8][2t..], a2 = A[g][2t+8..], a3 = A[g+8][2t+8..]
///   with `g = lane / 4`, `t = lane % 4`.
/// - `ldmatrix.x2.trans` on B: lane `l < 16` gives the address of B row (k) `l`; transposing
///   the two 8x8 blocks (k 0-7, k 8-15) gives the "col" B fragment b0 = B[2t..2t+2][g],
///   b1 = B[2t+8..2t+10][g].
/// - `m16n8k16` (or, when `sm75`, two `m16n8k8`, k 0-7 then k 8-15, the second accumulating
///   onto the first) from zero accumulators.
/// - D fragment: d0, d1 = D[g][2t], D[g][2t+1]; d2, d3 = D[g+8][2t], D[g+8][2t+1], stored
///   as two `st.global.v2.f32`.
fn mma_tile(name: &str, half: Half, sm75: bool) -> Kernel {
    let mut b = KernelBuilder::new(name, 32);
    let pa = b.param("a", ParamTy::Ptr);
    let pb = b.param("b", ParamTy::Ptr);
    let pd = b.param("d", ParamTy::Ptr);
    let tile_a = b.shared("tile_a", 16 * 16 * 2, 128);
    let tile_b = b.shared("tile_b", 16 * 8 * 2, 128);
    let lane = b.special(SpecialReg::TidX);

    let ga = b.index_addr(pa, lane, 16);
    let va = b.ld_vec(Space::Global, Ty::U32, 4, ga);
    let sa = b.shared_addr(tile_a);
    let sa_lane = b.mad(Ty::U32, lane, 16u32, sa);
    b.st_vec(Space::Shared, Ty::U32, sa_lane, &va);
    let gb = b.index_addr(pb, lane, 8);
    let vb = b.ld_vec(Space::Global, Ty::U32, 2, gb);
    let sb = b.shared_addr(tile_b);
    let sb_lane = b.mad(Ty::U32, lane, 8u32, sb);
    b.st_vec(Space::Shared, Ty::U32, sb_lane, &vb);
    b.bar_sync(0);

    let row = b.and(Ty::U32, lane, 15u32);
    let col_block = b.shr(Ty::U32, lane, 4u32);
    let col_bytes = b.shl(Ty::U32, col_block, 4u32);
    let a_off = b.mad(Ty::U32, row, 32u32, col_bytes);
    let a_addr = b.add(Ty::U32, sa, a_off);
    let afrag = b.ldmatrix(4, false, a_addr);
    let b_addr = b.mad(Ty::U32, row, 16u32, sb);
    let bfrag = b.ldmatrix(2, true, b_addr);

    let zero: Vec<Reg> = (0..4).map(|_| b.mov(Ty::F32, Operand::f32(0.0))).collect();
    let ty = half.mma();
    let d = if sm75 {
        let d1 = b.mma(
            MmaShape::M16N8K8,
            ty,
            ty,
            MmaType::F32,
            &afrag[0..2],
            &bfrag[0..1],
            &zero,
        );
        b.mma(
            MmaShape::M16N8K8,
            ty,
            ty,
            MmaType::F32,
            &afrag[2..4],
            &bfrag[1..2],
            &d1,
        )
    } else {
        b.mma(
            MmaShape::M16N8K16,
            ty,
            ty,
            MmaType::F32,
            &afrag,
            &bfrag,
            &zero,
        )
    };

    let g = b.shr(Ty::U32, lane, 2u32);
    let t = b.and(Ty::U32, lane, 3u32);
    let t2 = b.shl(Ty::U32, t, 1u32);
    let idx = b.mad(Ty::U32, g, 8u32, t2);
    let dp = b.index_addr(pd, idx, 4);
    b.st_vec(Space::Global, Ty::F32, dp, &d[0..2]);
    b.st_vec(
        Space::Global,
        Ty::F32,
        Addr::reg_off(dp, 8 * 8 * 4),
        &d[2..4],
    );
    b.finish()
}

/// `mma_tile_f16(a, b, d)`: `D[16x8]` f32 = `A[16x16]` f16 x `B[16x8]` f16 with one
/// `mma.sync.m16n8k16.row.col.f32.f16.f16.f32` (sm_80+). A, B, D row-major; see `mma_tile`
/// in the source for the fragment mapping. Launch 1 CTA of 32.
pub fn mma_tile_f16() -> Kernel {
    mma_tile("mma_tile_f16", Half::F16, false)
}

/// `mma_tile_bf16(a, b, d)`: as [`mma_tile_f16`] with bf16 inputs (sm_80+).
pub fn mma_tile_bf16() -> Kernel {
    mma_tile("mma_tile_bf16", Half::Bf16, false)
}

/// `mma_tile_f16_sm75(a, b, d)`: as [`mma_tile_f16`] with two `m16n8k8` (k 0-7, then k 8-15
/// accumulating), which sm_75 has.
pub fn mma_tile_f16_sm75() -> Kernel {
    mma_tile("mma_tile_f16_sm75", Half::F16, true)
}

/// `D[m][n] = sum_k A[m][k] * B[k][n]` in f64 for row-major `A` (m x k) and `B` (k x n), and
/// next to it `sum_k |A[m][k] * B[k][n]|` (the scale of the rounding error of a float product).
pub fn expected_matmul(a: &[f64], b: &[f64], m: usize, n: usize, k: usize) -> (Vec<f64>, Vec<f64>) {
    let mut d = vec![0.0; m * n];
    let mut mag = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            for l in 0..k {
                let p = a[i * k + l] * b[l * n + j];
                d[i * n + j] += p;
                mag[i * n + j] += p.abs();
            }
        }
    }
    (d, mag)
}

fn check_mma_half<E: Executor>(
    ex: &mut E,
    seed: u64,
    half: Half,
    kernel: &Kernel,
) -> Result<(), String> {
    const M: usize = 16;
    const N: usize = 8;
    const K: usize = 16;
    let mut rng = SplitMix64::new(seed);
    let (a_bits, a): (Vec<u16>, Vec<f64>) =
        (0..M * K).map(|_| half.round(rng.unit_f32() * 2.0)).unzip();
    let (b_bits, bv): (Vec<u16>, Vec<f64>) =
        (0..K * N).map(|_| half.round(rng.unit_f32() * 2.0)).unzip();
    let (want, mag) = expected_matmul(&a, &bv, M, N, K);
    let pa = upload(ex, &a_bits)?;
    let pb = upload(ex, &b_bits)?;
    let (pd, _) = alloc_out::<E, f32>(ex, M * N)?;
    let args = [KernelArg::Ptr(pa), KernelArg::Ptr(pb), KernelArg::Ptr(pd)];
    launch(ex, kernel, LaunchDims::linear(1, 32), &args)?;
    let got: Vec<f32> = download(ex, pd, M * N)?;
    check_close(&kernel.name, N, &got, |i| (want[i], K as f64 * f64::powi(2.0, -23) * mag[i]))
}

/// Checks [`mma_tile_f16`] against the f64 product of the f16-rounded inputs.
pub fn check_mma_tile_f16<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    check_mma_half(ex, seed, Half::F16, &mma_tile_f16())
}

/// Checks [`mma_tile_bf16`] against the f64 product of the bf16-rounded inputs.
pub fn check_mma_tile_bf16<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    check_mma_half(ex, seed, Half::Bf16, &mma_tile_bf16())
}

/// Checks [`mma_tile_f16_sm75`] against the f64 product of the f16-rounded inputs.
pub fn check_mma_tile_f16_sm75<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    check_mma_half(ex, seed, Half::F16, &mma_tile_f16_sm75())
}

// ---------------------------------------------------------------------------------------
// e. mma_tile_s8

/// `mma_tile_s8(a, bt, d)`: `D[16x8]` s32 (row-major) = `A[16x32]` s8 (row-major) x `B[32x8]` s8,
/// where B is given transposed, `bt` = B^T as 8 rows (n) of 32 bytes (k), the "col" layout.
/// One `mma.sync.m16n8k32.row.col.s32.s8.s8.s32` from zero accumulators (sm_80+).
///
/// Fragments (PTX ISA, m16n8k32 with 8-bit inputs; `g = lane / 4`, `t = lane % 4`), each a
/// plain 32-bit `ld.global` of 4 consecutive bytes:
/// `a0 = A[g][4t..4t+4]`, `a1 = A[g+8][4t..]`, `a2 = A[g][4t+16..]`, `a3 = A[g+8][4t+16..]`;
/// `b0 = B^T[g][4t..4t+4]` (= `B[4t..4t+4][g]`), `b1 = B^T[g][4t+16..]`;
/// `d0, d1 = D[g][2t], D[g][2t+1]`; `d2, d3 = D[g+8][2t], D[g+8][2t+1]`.
/// Launch 1 CTA of 32.
pub fn mma_tile_s8() -> Kernel {
    let mut b = KernelBuilder::new("mma_tile_s8", 32);
    let pa = b.param("a", ParamTy::Ptr);
    let pbt = b.param("bt", ParamTy::Ptr);
    let pd = b.param("d", ParamTy::Ptr);
    let lane = b.special(SpecialReg::TidX);
    let g = b.shr(Ty::U32, lane, 2u32);
    let t = b.and(Ty::U32, lane, 3u32);
    let t4 = b.shl(Ty::U32, t, 2u32);
    // Row g, byte 4t: the same offset in A (32-byte rows) and in B^T (32-byte rows).
    let off = b.mad(Ty::U32, g, 32u32, t4);
    let xa = b.index_addr(pa, off, 1);
    let afrag: Vec<Reg> = [0i64, 8 * 32, 16, 8 * 32 + 16]
        .iter()
        .map(|&o| b.ld(Space::Global, Ty::B32, Addr::reg_off(xa, o)))
        .collect();
    let xb = b.index_addr(pbt, off, 1);
    let bfrag: Vec<Reg> = [0i64, 16]
        .iter()
        .map(|&o| b.ld(Space::Global, Ty::B32, Addr::reg_off(xb, o)))
        .collect();
    let zero: Vec<Reg> = (0..4).map(|_| b.mov(Ty::S32, 0u32)).collect();
    let d = b.mma(
        MmaShape::M16N8K32,
        MmaType::S8,
        MmaType::S8,
        MmaType::S32,
        &afrag,
        &bfrag,
        &zero,
    );
    let t2 = b.shl(Ty::U32, t, 1u32);
    let idx = b.mad(Ty::U32, g, 8u32, t2);
    let dp = b.index_addr(pd, idx, 4);
    b.st_vec(Space::Global, Ty::S32, dp, &d[0..2]);
    b.st_vec(
        Space::Global,
        Ty::S32,
        Addr::reg_off(dp, 8 * 8 * 4),
        &d[2..4],
    );
    b.finish()
}

/// What [`mma_tile_s8`] computes: `D[m][n] = sum_k A[m][k] * BT[n][k]` for row-major A (m x k)
/// and BT (n x k).
pub fn expected_matmul_s8(a: &[i8], bt: &[i8], m: usize, n: usize, k: usize) -> Vec<i32> {
    let mut d = vec![0i32; m * n];
    for i in 0..m {
        for j in 0..n {
            d[i * n + j] = (0..k)
                .map(|l| i32::from(a[i * k + l]) * i32::from(bt[j * k + l]))
                .sum();
        }
    }
    d
}

/// Checks [`mma_tile_s8`] exactly, over the full s8 range.
pub fn check_mma_tile_s8<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    const M: usize = 16;
    const N: usize = 8;
    const K: usize = 32;
    let mut rng = SplitMix64::new(seed);
    let a: Vec<i8> = (0..M * K).map(|_| rng.next_u32() as i8).collect();
    let bt: Vec<i8> = (0..N * K).map(|_| rng.next_u32() as i8).collect();
    let want = expected_matmul_s8(&a, &bt, M, N, K);
    let pa = upload(ex, &a)?;
    let pb = upload(ex, &bt)?;
    let (pd, _) = alloc_out::<E, i32>(ex, M * N)?;
    let args = [KernelArg::Ptr(pa), KernelArg::Ptr(pb), KernelArg::Ptr(pd)];
    launch(ex, &mma_tile_s8(), LaunchDims::linear(1, 32), &args)?;
    let got: Vec<i32> = download(ex, pd, M * N)?;
    match (0..M * N).find(|&i| got[i] != want[i]) {
        Some(i) => Err(format!(
            "D[{}][{}] = {}, expected {}",
            i / N,
            i % N,
            got[i],
            want[i]
        )),
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------
// f. cp_async_copy

/// Threads per CTA of [`cp_async_copy`] (and 16-byte chunks per stage).
pub const CP_ASYNC_THREADS: u32 = 128;

/// `cp_async_copy(src, dst, n, stages)`: copies `n` 16-byte chunks from `src` to `dst` through
/// shared memory, double-buffered with `cp.async.cg.shared.global` (16 bytes).
///
/// CTA `c` handles the stages `c*stages .. (c+1)*stages`; stage `s` is chunks
/// `128s .. 128s+128`. Thread `t` copies chunk `128s + t` into slot `t` of buffer `s % 2`
/// (2 buffers of 2 KiB); a chunk at or past `n` copies `src_size = 0` bytes (zero-fill) from a
/// clamped, valid address. The pipeline: issue stage 0 and commit; then per stage `k`: issue
/// stage `k+1` into the other buffer if there is one (a uniform `if`), commit (an empty group
/// otherwise), `cp.async.wait_group 1` (stage `k` has landed), `bar.sync 0`, then thread `t`
/// writes chunk `128s + (127 - t)` from slot `127 - t` (another thread's copy, which is why
/// the barrier is needed) to `dst` when it is below `n`, and `bar.sync 0` again before the
/// buffer is refilled. Ends with `cp.async.wait_group 0`.
/// Launch any number of CTAs of 128 with `ctas * stages * 128 >= n`.
pub fn cp_async_copy() -> Kernel {
    cp_async_copy_kernel(false)
}

/// [`cp_async_copy`] with the L2 cache-policy variants: the copies carry an `evict_first`
/// policy from `createpolicy` (`.L2::cache_hint`), each 16-bit half pair of the copied words is
/// swapped on the way out (`mov.b32 {lo, hi}` and `mov.b32 d, {hi, lo}`), and a `membar.gl`
/// precedes the stores. `dst` word `w` = `src` word `w` rotated by 16 bits.
pub fn cp_async_hint_copy() -> Kernel {
    cp_async_copy_kernel(true)
}

fn cp_async_copy_kernel(hint: bool) -> Kernel {
    const STAGE_BYTES: u32 = CP_ASYNC_THREADS * 16;
    let name = if hint { "cp_async_hint_copy" } else { "cp_async_copy" };
    let mut b = KernelBuilder::new(name, CP_ASYNC_THREADS);
    let src = b.param("src", ParamTy::Ptr);
    let dst = b.param("dst", ParamTy::Ptr);
    let n = b.param("n", ParamTy::U32);
    let stages = b.param("stages", ParamTy::U32);
    let buf = b.shared("stage_buf", 2 * STAGE_BYTES, 128);
    let tid = b.special(SpecialReg::TidX);
    let cta = b.special(SpecialReg::CtaidX);
    let base = b.shared_addr(buf);
    let my_slot = b.mad(Ty::U32, tid, 16u32, base);
    let rev = b.bin(BinOp::Xor, Ty::U32, tid, CP_ASYNC_THREADS - 1);
    let rev_slot = b.mad(Ty::U32, rev, 16u32, base);
    let first_stage = b.mul(Ty::U32, cta, stages);
    let policy = hint.then(|| b.create_policy(L2Evict::First, 1.0));

    let issue = |b: &mut KernelBuilder, stage: Reg, slot: Reg| {
        let i = b.mad(Ty::U32, stage, CP_ASYNC_THREADS, tid);
        let inside = b.setp(Cmp::Lt, Ty::U32, i, n);
        let size = b.selp(Ty::U32, 16u32, 0u32, inside);
        let clamped = b.selp(Ty::U32, i, 0u32, inside);
        let from = b.index_addr(src, clamped, 16);
        match policy {
            Some(p) => b.cp_async_hint(CpAsyncCache::Cg, 16, slot, from, Some(Operand::Reg(size)), p),
            None => b.cp_async(CpAsyncCache::Cg, 16, slot, from, Some(Operand::Reg(size))),
        }
    };

    issue(&mut b, first_stage, my_slot);
    b.cp_async_commit();
    b.for_range(0u32, stages, 1, |b, k| {
        let next = b.add(Ty::U32, k, 1u32);
        let more = b.setp(Cmp::Lt, Ty::U32, next, stages);
        b.if_then(more, |b| {
            let parity = b.and(Ty::U32, next, 1u32);
            let off = b.mul(Ty::U32, parity, STAGE_BYTES);
            let slot = b.add(Ty::U32, my_slot, off);
            let stage = b.add(Ty::U32, first_stage, next);
            issue(b, stage, slot);
        });
        b.cp_async_commit();
        b.cp_async_wait(1);
        b.bar_sync(0);
        let parity = b.and(Ty::U32, k, 1u32);
        let off = b.shl(Ty::U32, parity, STAGE_BYTES.trailing_zeros());
        let from = b.add(Ty::U32, rev_slot, off);
        let stage = b.add(Ty::U32, first_stage, k);
        let j = b.mad(Ty::U32, stage, CP_ASYNC_THREADS, rev);
        let inside = b.setp(Cmp::Lt, Ty::U32, j, n);
        b.guarded(inside, false, |b| {
            let mut v = b.ld_vec(Space::Shared, Ty::U32, 4, from);
            if hint {
                v = v
                    .into_iter()
                    .map(|w| {
                        let (lo, hi) = b.unpack_b16(w);
                        b.pack_b16(hi, lo)
                    })
                    .collect();
                b.emit(crate::ir::Inst::Membar { level: MembarLevel::Gl });
            }
            let to = b.index_addr(dst, j, 16);
            b.st_vec(Space::Global, Ty::U32, to, &v);
        });
        b.bar_sync(0);
    });
    b.cp_async_wait(0);
    b.finish()
}

/// Checks [`cp_async_copy`] on 1 to 4 CTAs and a ragged number of chunks.
pub fn check_cp_async_copy<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    check_copy(ex, seed, false)
}

/// Checks [`cp_async_hint_copy`] like [`check_cp_async_copy`], expecting swapped halves.
pub fn check_cp_async_hint_copy<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    check_copy(ex, seed, true)
}

fn check_copy<E: Executor>(ex: &mut E, seed: u64, hint: bool) -> Result<(), String> {
    let mut rng = SplitMix64::new(seed);
    let mut n = 300 + rng.below(3000);
    if n % CP_ASYNC_THREADS == 0 {
        n += 1;
    }
    let total_stages = n.div_ceil(CP_ASYNC_THREADS);
    let ctas = (1 + rng.below(4)).min(total_stages);
    let stages = total_stages.div_ceil(ctas);
    let words = n as usize * 4;
    let src: Vec<u32> = (0..words).map(|_| rng.next_u32()).collect();
    let ps = upload(ex, &src)?;
    let cap = (ctas * stages * CP_ASYNC_THREADS) as usize * 4;
    let (pd, poison) = alloc_out::<E, u32>(ex, cap)?;
    let args = [
        KernelArg::Ptr(ps),
        KernelArg::Ptr(pd),
        KernelArg::U32(n),
        KernelArg::U32(stages),
    ];
    launch(
        ex,
        &cp_async_copy_kernel(hint),
        LaunchDims::linear(ctas, CP_ASYNC_THREADS),
        &args,
    )?;
    let got: Vec<u32> = download(ex, pd, cap)?;
    let want = |w: usize| if hint { src[w].rotate_left(16) } else { src[w] };
    if let Some(w) = (0..words).find(|&w| got[w] != want(w)) {
        return Err(format!(
            "dst chunk {} word {} = {:#x}, expected {:#x} (n {n}, {ctas} CTAs x {stages} stages)",
            w / 4,
            w % 4,
            got[w],
            want(w)
        ));
    }
    check_untouched("dst word", &got, &poison, words)
}

/// Rows of 256 bytes a stage of [`bulk_copy`] moves (one bulk copy each: two a warp).
const BULK_ROWS: u32 = 8;
const BULK_ROW_BYTES: u32 = 256;

/// `cp.async.bulk` through a two-slot ring with an mbarrier per slot: each CTA (128 threads)
/// copies `stages` stages of `BULK_ROWS` (8) rows of 256 bytes from `src` (stage `cta * stages +
/// k`); lane 0 of warp 0 inits both barriers (arrival count 1), `fence.mbarrier_init`, and for
/// each stage `mbarrier.arrive.expect_tx` of the stage's bytes; in each warp w the lane that
/// `elect.sync` picks issues rows w and w + 4 (after `fence.proxy.async`, since the slot was
/// read through the generic proxy) with an evict-first L2 policy, as the warp-specialized
/// kernels' producers copy weights. Every thread waits for the slot's phase (parity
/// `(k / 2) & 1`), copies 16-byte chunk `127 - t` of the stage to `dst`, and `bar.sync`
/// precedes the slot's refill. `dst` = `src`.
pub fn bulk_copy() -> Kernel {
    let stage_bytes = BULK_ROWS * BULK_ROW_BYTES;
    let mut b = KernelBuilder::new("bulk_copy", CP_ASYNC_THREADS);
    let src = b.param("src", ParamTy::Ptr);
    let dst = b.param("dst", ParamTy::Ptr);
    let stages = b.param("stages", ParamTy::U32);
    let buf = b.shared("bulk_buf", 2 * stage_bytes, 128);
    let bars = b.shared("bulk_bars", 16, 8);
    let tid = b.special(SpecialReg::TidX);
    let cta = b.special(SpecialReg::CtaidX);
    let base = b.shared_addr(buf);
    let bar0 = b.shared_addr(bars);
    let first_stage = b.mul(Ty::U32, cta, stages);
    let lead = b.setp(Cmp::Eq, Ty::U32, tid, 0u32);
    b.guarded(lead, false, |b| {
        b.mbarrier_init(Addr::reg(bar0), 1);
        b.mbarrier_init(Addr::reg_off(bar0, 8), 1);
        b.emit(crate::ir::Inst::FenceMbarrierInit);
    });
    b.bar_sync(0);
    let warp = b.shr(Ty::U32, tid, 5u32);
    let policy = b.create_policy(L2Evict::First, 1.0);
    let issue = |b: &mut KernelBuilder, k: Reg| {
        let slot = b.and(Ty::U32, k, 1u32);
        let bar = b.mad(Ty::U32, slot, 8u32, bar0);
        let sbase = b.mad(Ty::U32, slot, stage_bytes, base);
        b.guarded(lead, false, |b| b.mbarrier_arrive_expect_tx(Addr::reg(bar), stage_bytes));
        let elected = b.elect_sync();
        b.guarded(elected, false, |b| {
            b.emit(crate::ir::Inst::FenceProxyAsync);
            let stage = b.add(Ty::U32, first_stage, k);
            for half in 0..2u32 {
                let r = b.add(Ty::U32, warp, half * 4);
                let row = b.mad(Ty::U32, stage, BULK_ROWS, r);
                let from = b.index_addr(src, row, BULK_ROW_BYTES);
                let to = b.mad(Ty::U32, r, BULK_ROW_BYTES, sbase);
                b.cp_async_bulk_hint(Addr::reg(to), Addr::reg(from), BULK_ROW_BYTES, Addr::reg(bar), policy);
            }
        });
    };
    let zero = b.mov(Ty::U32, 0u32);
    issue(&mut b, zero);
    let rev = b.bin(BinOp::Xor, Ty::U32, tid, CP_ASYNC_THREADS - 1);
    b.for_range(0u32, stages, 1, |b, k| {
        let next = b.add(Ty::U32, k, 1u32);
        let more = b.setp(Cmp::Lt, Ty::U32, next, stages);
        b.if_then(more, |b| issue(b, next));
        let slot = b.and(Ty::U32, k, 1u32);
        let bar = b.mad(Ty::U32, slot, 8u32, bar0);
        let half = b.shr(Ty::U32, k, 1u32);
        let parity = b.and(Ty::U32, half, 1u32);
        b.mbarrier_wait(Addr::reg(bar), parity);
        let sbase = b.mad(Ty::U32, slot, stage_bytes, base);
        let from = b.mad(Ty::U32, rev, 16u32, sbase);
        let v = b.ld_vec(Space::Shared, Ty::U32, 4, Addr::reg(from));
        let stage = b.add(Ty::U32, first_stage, k);
        let chunk = b.mad(Ty::U32, stage, CP_ASYNC_THREADS, rev);
        let to = b.index_addr(dst, chunk, 16);
        b.st_vec(Space::Global, Ty::U32, Addr::reg(to), &v);
        b.bar_sync(0);
    });
    b.finish()
}

/// Checks [`bulk_copy`]: 1-3 CTAs of 2-9 stages, `dst` equal to `src` word for word.
pub fn check_bulk_copy<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    let mut rng = SplitMix64::new(seed);
    let ctas = 1 + rng.below(3);
    let stages = 2 + rng.below(8);
    let words = (ctas * stages * BULK_ROWS * BULK_ROW_BYTES / 4) as usize;
    let src: Vec<u32> = (0..words).map(|_| rng.next_u32()).collect();
    let ps = upload(ex, &src)?;
    let (pd, _poison) = alloc_out::<E, u32>(ex, words)?;
    let args = [KernelArg::Ptr(ps), KernelArg::Ptr(pd), KernelArg::U32(stages)];
    launch(ex, &bulk_copy(), LaunchDims::linear(ctas, CP_ASYNC_THREADS), &args)?;
    let got: Vec<u32> = download(ex, pd, words)?;
    if let Some(w) = (0..words).find(|&w| got[w] != src[w]) {
        return Err(format!("dst word {w} = {:#x}, expected {:#x} ({ctas} CTAs x {stages} stages)", got[w], src[w]));
    }
    Ok(())
}
