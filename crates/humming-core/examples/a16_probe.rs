use humming_core::ir::ptx::{print, ptxas::assemble};
use humming_core::kernel::{KernelPlan, generate};
use humming_core::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let w = WeightFormat::parse(&args[1]).unwrap();
    let act = ActFormat::parse(&args[2]).unwrap();
    let arch = Arch::parse(&args[3]).unwrap();
    let m: usize = args[4].parse().unwrap();
    let mut parts = SpecParts::new(w, act);
    parts.arch = arch;
    if let Some(s) = args.get(5) { parts.scale = ScaleFormat::parse(s).unwrap(); }
    if args.get(6).map(|s| s == "zp").unwrap_or(false) { parts.zero_point = ZeroPoint::Dynamic; }
    let spec = Spec::new(parts).unwrap();
    let plan = KernelPlan::choose(m, 256, arch, w.bits());
    let k = generate(&spec, &plan).unwrap();
    let ptx = print(&k.main, arch).unwrap();
    std::fs::write("/tmp/a16.ptx", &ptx).unwrap();
    match assemble(&ptx, arch) {
        Ok(r) => { let e = &r.entries[0]; println!("{plan} regs {} spill {}/{} stack {}", e.registers, e.spill_stores, e.spill_loads, e.stack_frame) }
        Err(e) => println!("{e}"),
    }
}
