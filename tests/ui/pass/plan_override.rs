// An explicit plan: one variant for every M, with exactly that plan.
use humming::core::kernel::KernelPlan;
use humming::macros::humming_gemm;

#[humming_gemm(weight = u5, act = f16, plan = (m_tiles = 2, n_warps = 2, k_warps = 2, bk = 128, stages = 3))]
pub fn fixed() {}

fn main() {
    let b = &fixed::BUNDLES[0];
    assert_eq!(b.variants.len(), 1);
    assert_eq!(b.variants[0].max_m, u32::MAX);
    assert_eq!(b.variants[0].plan, KernelPlan { m_tiles: 2, n_warps: 2, k_warps: 2, bk: 128, stages: 3, swap: false, wgmma: false });
    assert_eq!(b.variants[0].main.threads, 32 * 2 * 2);
    assert!(b.variants[0].main.name.ends_with("m2x16_n2x64_k2w_bk128_s3"));
}
