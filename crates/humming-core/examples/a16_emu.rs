use humming_core::ir::emu::Emulator;
use humming_core::kernel::{KernelPlan, check::check_gemm};
use humming_core::*;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let w = WeightFormat::parse(args.get(1).map(|s| s.as_str()).unwrap_or("u4")).unwrap();
    let act = ActFormat::parse(args.get(2).map(|s| s.as_str()).unwrap_or("f16")).unwrap();
    let arch = Arch::parse(args.get(3).map(|s| s.as_str()).unwrap_or("sm_80")).unwrap();
    let m: usize = args.get(4).map(|s| s.parse().unwrap()).unwrap_or(7);
    let n: usize = args.get(5).map(|s| s.parse().unwrap()).unwrap_or(200);
    let k: usize = args.get(6).map(|s| s.parse().unwrap()).unwrap_or(256);
    let split: u32 = args.get(7).map(|s| s.parse().unwrap()).unwrap_or(1);
    let mut parts = SpecParts::new(w, act);
    parts.arch = arch;
    if let Some(s) = args.get(8) { parts.scale = ScaleFormat::parse(s).unwrap(); }
    if let Some(g) = args.get(9) { parts.group = if g == "pc" { ScaleGroup::PerChannel } else { ScaleGroup::Group(g.parse().unwrap()) }; }
    if args.get(10).map(|s| s == "zp").unwrap_or(false) { parts.zero_point = ZeroPoint::Dynamic; }
    let spec = Spec::new(parts).unwrap();
    let plan = KernelPlan::choose(m, n.div_ceil(64) * 64, arch, w.bits());
    let mut ex = Emulator::new();
    let t = std::time::Instant::now();
    match check_gemm(&mut ex, &spec, &plan, (m, n, k), split, 1) {
        Ok(r) => println!("OK {plan} {:?} in {:?}, stats {:?}", r, t.elapsed(), ex.last_stats()),
        Err(e) => println!("FAIL {plan}: {e}"),
    }
}
