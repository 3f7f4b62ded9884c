//! Prints the PTX of one A16 GEMM kernel (for ptxas -v / disassembly while tuning):
//! `cargo run --release -p humming-core --example a16_ptx -- u4 f16 sm_90 m1x16_n4x64_k2w_bk128_s4 [g128|gpc] [out.ptx] [scale] [zpd]`
//! (`scale`: f16, bf16, e4m3, e5m2 or ue8m0, `-` for the spec's default; `zpd`: per-group zero
//! points).
//! The plan may be `auto:M` (KernelPlan::choose for M at N = K = 8192).

use humming_core::kernel::{KernelPlan, generate};
use humming_core::*;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let get = |i: usize, d: &str| a.get(i).cloned().unwrap_or_else(|| d.to_string());
    let weight = WeightFormat::parse(&get(0, "u4")).expect("weight");
    let act = ActFormat::parse(&get(1, "f16")).expect("act");
    let arch = Arch::ALL.into_iter().find(|x| x.name() == get(2, "sm_90")).expect("arch");
    let mut parts = SpecParts::new(weight, act);
    parts.arch = arch;
    let g = get(4, "g128");
    parts.group = if g == "gpc" { ScaleGroup::PerChannel } else { ScaleGroup::Group(g.trim_start_matches('g').parse().expect("group")) };
    if let Some(scale) = a.get(6).filter(|s| *s != "-") {
        parts.scale = ScaleFormat::parse(scale).expect("scale");
    }
    if a.get(7).is_some_and(|z| z == "zpd") {
        parts.zero_point = ZeroPoint::Dynamic;
    }
    let spec = Spec::new(parts).expect("spec");
    let p = get(3, "auto:1");
    let plan = match p.strip_prefix("auto:") {
        Some(m) => KernelPlan::choose(m.parse().expect("M"), 8192, 8192, arch, weight.bits()),
        None => p.parse::<KernelPlan>().expect("plan"),
    };
    let k = generate(&spec, &plan).expect("generate");
    let ptx = ir::ptx::print(&k.main, arch).expect("print");
    match a.get(5) {
        Some(path) => std::fs::write(path, ptx).expect("write"),
        None => print!("{ptx}"),
    }
    eprintln!("{} ({plan})", k.main.name);
}
