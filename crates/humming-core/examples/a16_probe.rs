use humming_core::kernel::{KernelPlan, generate};
use humming_core::ir::ptx::{print, ptxas::assemble};
use humming_core::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let w = WeightFormat::parse(args.get(1).map(|s| s.as_str()).unwrap_or("u4")).unwrap();
    let act = ActFormat::parse(args.get(2).map(|s| s.as_str()).unwrap_or("f16")).unwrap();
    let arch = Arch::parse(args.get(3).map(|s| s.as_str()).unwrap_or("sm_80")).unwrap();
    let mut parts = SpecParts::new(w, act);
    parts.arch = arch;
    let spec = Spec::new(parts).unwrap();
    let plan = KernelPlan::choose(16, 4096, arch, w.bits());
    let k = generate(&spec, &plan).unwrap();
    let ptx = print(&k.main, arch).unwrap();
    std::fs::write("/tmp/a16.ptx", &ptx).unwrap();
    println!("{} lines, plan {plan}", ptx.lines().count());
    match assemble(&ptx, arch) {
        Ok(r) => println!("{:?}", r.entries),
        Err(e) => println!("{e}"),
    }
}
