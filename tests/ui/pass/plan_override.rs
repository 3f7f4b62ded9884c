// An explicit plan: one variant for every M, with exactly that plan.
use humming::core::kernel::KernelPlan;
use humming::macros::humming_gemm;

#[humming_gemm(weight = u5, act = f16, plan = (m_tiles = 2, n_warps = 2, k_warps = 2, bk = 128, stages = 3))]
pub fn fixed() {}

// Half-width warps (two per 64 columns) in a swapped plan.
#[humming_gemm(weight = u4, act = f16, plan = (m_tiles = 2, n_warps = 1, k_warps = 4, bk = 512, stages = 4, swap = true, halves = true))]
pub fn halves() {}

fn main() {
    let b = &fixed::BUNDLES[0];
    assert_eq!(b.variants.len(), 1);
    assert_eq!(b.variants[0].max_m, u32::MAX);
    assert_eq!(b.variants[0].plan, KernelPlan { m_tiles: 2, n_warps: 2, k_warps: 2, bk: 128, stages: 3, swap: false, wgmma: false, halves: false, ws: false });
    assert_eq!(b.variants[0].main.threads, 32 * 2 * 2);
    assert!(b.variants[0].main.name.ends_with("m2x16_n2x64_k2w_bk128_s3"));
    let h = &halves::BUNDLES[0].variants[0];
    assert!(h.plan.halves && h.plan.swap);
    assert_eq!(h.main.threads, 32 * 2 * 4);
    assert!(h.main.name.ends_with("m2x8_n2x32_k4w_bk512_s4"));
}
