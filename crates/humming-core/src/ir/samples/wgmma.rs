//! `wgmma_tile_{f16,bf16}`: one warpgroup-wide `wgmma.mma_async.m64n16k16` (sm_90a) with A from
//! registers and B from shared memory through a no-swizzle K-major descriptor; and
//! `wgmma_tile_sw128_f16`: four of them along K = 64 with B in the 128-byte-swizzled K-major
//! layout the A16 kernels use (each step's descriptor 32 bytes further into the swizzled rows).
//! Checked against plain Rust: the layouts validated on the emulator and on a GPU by the same
//! checker.

use super::{Half, SplitMix64, alloc_out, check_close, check_untouched, download, expected_matmul, launch, upload};
use crate::arch::Arch;
use crate::ir::builder::KernelBuilder;
use crate::ir::exec::{Executor, KernelArg, LaunchDims};
use crate::ir::inst::Inst;
use crate::ir::kernel::{Kernel, ParamTy};
use crate::ir::inst::BinOp;
use crate::ir::types::{Addr, Cmp, Operand, Space, SpecialReg, Ty};

/// sm_90a only (wgmma).
pub(super) const SM90A: &[Arch] = &[Arch::Sm90a];

/// Columns of B and D.
pub const WGMMA_N: usize = 16;
/// No swizzle: byte offset between the two core matrices of an 8-row group along K (leading
/// byte offset).
const LBO: u32 = 128;
/// No swizzle: byte offset between 8-row groups along N (stride byte offset).
const SBO: u32 = 256;

/// How B lies in shared memory.
#[derive(Clone, Copy, PartialEq)]
enum BLayout {
    /// Core matrices, K = 16: `B[k][n]` at `(n % 8) * 16 + (n / 8) * SBO + (k % 8) * 2 +
    /// (k / 8) * LBO` (8 rows of N by 8 values of K, 128 contiguous bytes each).
    NoSwizzle,
    /// The 128-byte swizzle, K = 64: row `n` is 128 bytes at `n * 128` (8-row groups 1 KB apart)
    /// with its 16-byte chunk `k / 8` at `(k / 8) ^ (n % 8)`, in a 1 KB-aligned array.
    Swizzle128,
}

impl BLayout {
    fn k(self) -> usize {
        match self {
            BLayout::NoSwizzle => 16,
            BLayout::Swizzle128 => 64,
        }
    }
}

/// `wgmma_tile(a, b, c, d, accumulate)`: D[64 x 16] f32 = A[64 x K] x B[K x 16] (+ C when
/// `accumulate != 0`), A and B 16-bit floats `half`, all row-major; one CTA of 128 threads;
/// K = `layout.k()`.
///
/// - B goes to shared memory in `layout` with scalar 16-bit stores, then
///   `fence.proxy.async.shared::cta` and `bar.sync`.
/// - A of k16 step `s`: warp `w`, `g = lane / 4`, `t = lane % 4`, register `r` = the 32-bit word
///   `A[16 w + g + 8 (r & 1)][16 s + 2 t + 8 (r >> 1) ..]`.
/// - C into and D out of the accumulators: register `i` = `[16 w + g + 8 ((i >> 1) & 1)]`
///   `[8 (i >> 2) + 2 t + (i & 1)]`.
/// - `wgmma.fence`, one wgmma per k16 step (the first with the accumulate predicate from the
///   argument, the others accumulating; with the swizzle, step `s`'s descriptor starts `32 s`
///   bytes into the rows), `commit_group`, `wait_group 0`.
fn wgmma_tile(name: &str, half: Half, layout: BLayout) -> Kernel {
    let kk = layout.k() as u32;
    let mut b = KernelBuilder::new(name, 128);
    let pa = b.param("a", ParamTy::Ptr);
    let pb = b.param("b", ParamTy::Ptr);
    let pc = b.param("c", ParamTy::Ptr);
    let pd = b.param("d", ParamTy::Ptr);
    let pacc = b.param("accumulate", ParamTy::U32);
    let align = if layout == BLayout::Swizzle128 { 1024 } else { 128 };
    let tile_b = b.shared("tile_b", kk * WGMMA_N as u32 * 2, align);
    let tid = b.special(SpecialReg::TidX);
    let sb = b.shared_addr(tile_b);

    // B: K x 16 values, K / 8 per thread: (k, n) = (i / 16, i % 16) for i = tid + 128 j.
    for half_i in 0..kk / 8 {
        let i = b.add(Ty::U32, tid, half_i * 128);
        let k = b.shr(Ty::U32, i, 4u32);
        let n = b.and(Ty::U32, i, 15u32);
        let g = b.index_addr(pb, i, 2);
        let v = b.ld(Space::Global, Ty::U16, g);
        let n8 = b.and(Ty::U32, n, 7u32);
        let k8 = b.and(Ty::U32, k, 7u32);
        let khi = b.shr(Ty::U32, k, 3u32);
        let off = match layout {
            BLayout::NoSwizzle => {
                let nhi = b.shr(Ty::U32, n, 3u32);
                let off = b.mul(Ty::U32, n8, 16u32);
                let off = b.mad(Ty::U32, nhi, SBO, off);
                let off = b.mad(Ty::U32, k8, 2u32, off);
                b.mad(Ty::U32, khi, LBO, off)
            }
            BLayout::Swizzle128 => {
                let chunk = b.bin(BinOp::Xor, Ty::B32, khi, n8);
                let off = b.mul(Ty::U32, n, 128u32);
                let off = b.mad(Ty::U32, chunk, 16u32, off);
                b.mad(Ty::U32, k8, 2u32, off)
            }
        };
        let s = b.add(Ty::U32, sb, off);
        b.st(Space::Shared, Ty::U16, s, v);
    }
    b.emit(Inst::FenceProxyAsync);
    b.bar_sync(0);

    let lane = b.and(Ty::U32, tid, 31u32);
    let w = b.shr(Ty::U32, tid, 5u32);
    let g = b.shr(Ty::U32, lane, 2u32);
    let t = b.and(Ty::U32, lane, 3u32);
    let row0 = b.mad(Ty::U32, w, 16u32, g);
    let t2 = b.shl(Ty::U32, t, 1u32);
    let afrags: Vec<Vec<_>> = (0..kk / 16)
        .map(|step| {
            (0..4u32)
                .map(|r| {
                    let row = b.add(Ty::U32, row0, 8 * (r & 1));
                    let col = b.add(Ty::U32, t2, 16 * step + 8 * (r >> 1));
                    let e = b.mad(Ty::U32, row, kk, col);
                    let addr = b.index_addr(pa, e, 2);
                    b.ld(Space::Global, Ty::B32, addr)
                })
                .collect()
        })
        .collect();
    // The D fragment's (row, column) element indices, for C in and D out.
    let elems: Vec<_> = (0..WGMMA_N as u32 / 2)
        .map(|i| {
            let row = b.add(Ty::U32, row0, 8 * ((i >> 1) & 1));
            let col = b.add(Ty::U32, t2, 8 * (i >> 2) + (i & 1));
            b.mad(Ty::U32, row, WGMMA_N as u32, col)
        })
        .collect();
    let acc: Vec<_> = elems
        .iter()
        .map(|&e| {
            let addr = b.index_addr(pc, e, 4);
            b.ld(Space::Global, Ty::F32, addr)
        })
        .collect();

    let descs: Vec<_> = (0..kk / 16)
        .map(|step| match layout {
            BLayout::NoSwizzle => b.wgmma_desc(sb, LBO, SBO),
            BLayout::Swizzle128 => {
                let start = b.add(Ty::U32, sb, 32 * step);
                b.wgmma_desc_sw128(start, 1024)
            }
        })
        .collect();
    let p = b.setp(Cmp::Ne, Ty::U32, pacc, 0u32);

    b.emit(Inst::WgmmaFence);
    for (step, (a, desc)) in afrags.into_iter().zip(descs).enumerate() {
        let accumulate = if step == 0 { p.into() } else { Operand::Imm(1) };
        b.emit(Inst::Wgmma { n: WGMMA_N as u32, ab: half.mma(), d: acc.clone(), a, b_desc: desc, accumulate });
    }
    b.emit(Inst::WgmmaCommit);
    b.emit(Inst::WgmmaWait { n: 0 });

    for (&e, &v) in elems.iter().zip(&acc) {
        let addr = b.index_addr(pd, e, 4);
        b.st(Space::Global, Ty::F32, Addr::reg(addr), v);
    }
    b.finish()
}

/// `wgmma_tile_f16(a, b, c, d, accumulate)`: see `wgmma_tile` in the source (sm_90a).
pub fn wgmma_tile_f16() -> Kernel {
    wgmma_tile("wgmma_tile_f16", Half::F16, BLayout::NoSwizzle)
}

/// `wgmma_tile_bf16(a, b, c, d, accumulate)`: as [`wgmma_tile_f16`] with bf16 inputs.
pub fn wgmma_tile_bf16() -> Kernel {
    wgmma_tile("wgmma_tile_bf16", Half::Bf16, BLayout::NoSwizzle)
}

/// `wgmma_tile_sw128_f16(a, b, c, d, accumulate)`: as [`wgmma_tile_f16`] with K = 64 and B in
/// the 128-byte-swizzled layout (four wgmmas).
pub fn wgmma_tile_sw128_f16() -> Kernel {
    wgmma_tile("wgmma_tile_sw128_f16", Half::F16, BLayout::Swizzle128)
}

/// Checks `kernel`, built by [`wgmma_tile`] with `half` and `layout`.
fn check_wgmma<E: Executor>(ex: &mut E, seed: u64, half: Half, layout: BLayout, kernel: &Kernel) -> Result<(), String> {
    const M: usize = 64;
    const N: usize = WGMMA_N;
    let k = layout.k();
    let mut rng = SplitMix64::new(seed);
    let (a_bits, a): (Vec<u16>, Vec<f64>) = (0..M * k).map(|_| half.round(rng.unit_f32() * 2.0)).unzip();
    let (b_bits, bv): (Vec<u16>, Vec<f64>) = (0..k * N).map(|_| half.round(rng.unit_f32() * 2.0)).unzip();
    let c: Vec<f32> = (0..M * N).map(|_| rng.unit_f32() * 4.0).collect();
    let (prod, mag) = expected_matmul(&a, &bv, M, N, k);
    let pa = upload(ex, &a_bits)?;
    let pb = upload(ex, &b_bits)?;
    let pc = upload(ex, &c)?;
    // Both forms: D = A x B + C, then D = A x B (the predicate false).
    for accumulate in [1u32, 0] {
        let (pd, poison) = alloc_out::<E, u32>(ex, M * N + 8)?;
        let args = [KernelArg::Ptr(pa), KernelArg::Ptr(pb), KernelArg::Ptr(pc), KernelArg::Ptr(pd), KernelArg::U32(accumulate)];
        launch(ex, kernel, LaunchDims::linear(1, 128), &args)?;
        let bits: Vec<u32> = download(ex, pd, M * N + 8)?;
        let got: Vec<f32> = bits.iter().map(|&x| f32::from_bits(x)).collect();
        let what = format!("{} (accumulate {accumulate})", kernel.name);
        check_close(&what, N, &got[..M * N], |i| {
            let cv = if accumulate == 1 { f64::from(c[i]) } else { 0.0 };
            (prod[i] + cv, (k + 1) as f64 * f64::powi(2.0, -23) * (mag[i] + cv.abs()))
        })?;
        check_untouched("D", &bits, &poison, M * N)?;
    }
    Ok(())
}

/// Checks [`wgmma_tile_f16`] against the f64 product of the f16-rounded inputs.
pub fn check_wgmma_tile_f16<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    check_wgmma(ex, seed, Half::F16, BLayout::NoSwizzle, &wgmma_tile_f16())
}

/// Checks [`wgmma_tile_bf16`] against the f64 product of the bf16-rounded inputs.
pub fn check_wgmma_tile_bf16<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    check_wgmma(ex, seed, Half::Bf16, BLayout::NoSwizzle, &wgmma_tile_bf16())
}

/// Checks [`wgmma_tile_sw128_f16`] against the f64 product of the f16-rounded inputs.
pub fn check_wgmma_tile_sw128_f16<E: Executor>(ex: &mut E, seed: u64) -> Result<(), String> {
    check_wgmma(ex, seed, Half::F16, BLayout::Swizzle128, &wgmma_tile_sw128_f16())
}
