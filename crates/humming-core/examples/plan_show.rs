//! Prints the plan and split the heuristics choose for a few shapes (for the perf notes).
use humming_core::Arch;
use humming_core::kernel::KernelPlan;
fn main() {
    for (n, k) in [(8192usize, 8192usize), (28672, 8192), (8192, 28672), (4096, 4096)] {
        for m in [1usize, 16, 32, 64, 128, 256] {
            let p = KernelPlan::choose(m, n, k, Arch::Sm90, 4);
            println!("{n}x{k} M={m}: {p} split {}", p.split_k_for(m, n, k, 132));
        }
    }
    println!("buckets sm_90 u4: {:?}", KernelPlan::buckets(Arch::Sm90, 4).iter().map(|(t, p)| format!("<={t}: {p}")).collect::<Vec<_>>());
    println!("buckets sm_86 u8: {:?}", KernelPlan::buckets(Arch::Sm86, 8).iter().map(|(t, p)| format!("<={t}: {p}")).collect::<Vec<_>>());
    println!("buckets sm_75 u4: {:?}", KernelPlan::buckets(Arch::Sm75, 4).iter().map(|(t, p)| format!("<={t}: {p}")).collect::<Vec<_>>());
}
