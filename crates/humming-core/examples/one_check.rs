//! Runs one spec through the emulator check (debugging aid):
//! `one_check u4 f16 sm_90 g16 M N K split [plan]`.
use humming_core::ir::emu::Emulator;
use humming_core::kernel::{KernelPlan, check::check_gemm};
use humming_core::*;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let weight = WeightFormat::parse(&a[0]).unwrap();
    let act = ActFormat::parse(&a[1]).unwrap();
    let arch = Arch::ALL.into_iter().find(|x| x.name() == a[2]).unwrap();
    let mut parts = SpecParts::new(weight, act);
    parts.arch = arch;
    parts.group = if a[3] == "gpc" { ScaleGroup::PerChannel } else { ScaleGroup::Group(a[3][1..].parse().unwrap()) };
    if a.len() > 9 { parts.zero_point = ZeroPoint::Dynamic; }
    let spec = Spec::new(parts).unwrap();
    let (m, n, k, split): (usize, usize, usize, u32) = (a[4].parse().unwrap(), a[5].parse().unwrap(), a[6].parse().unwrap(), a[7].parse().unwrap());
    let plan = match a.get(8) { Some(p) => p.parse::<KernelPlan>().unwrap(), None => KernelPlan::choose(m, n.div_ceil(64) * 64, k.div_ceil(64) * 64, arch, weight.bits()) };
    match check_gemm(&mut Emulator::new(), &spec, &plan, (m, n, k), split, 1) {
        Ok(r) => println!("ok {plan}: {:.3} of tolerance", r.max_tol_frac),
        Err(e) => println!("FAIL {plan}: {}", &e[..e.len().min(600)]),
    }
}
