//! Registers and spills (ptxas -v; sm_90, or the target in `$ARCH`, e.g. `sm_75`) of the given plans for a few representative specs:
//! `cargo run --release -p humming-core --example plan_regs -- m4x16_n1x64_k4w_bk256_s2 ...`
//! (a quick check before a sweep; the family test covers every spec at the default plans).
use humming_core::ir::ptx::{print, ptxas::assemble};
use humming_core::kernel::{KernelPlan, generate};
use humming_core::*;
fn main() {
    let arch: Arch = std::env::var("ARCH").map(|a| Arch::parse(&a).expect("ARCH")).unwrap_or(Arch::Sm90);
    let plans: Vec<KernelPlan> = std::env::args().skip(1).map(|s| s.parse().unwrap()).collect();
    let specs = [("u4", ActFormat::F16, ZeroPoint::Implicit), ("u4", ActFormat::Bf16, ZeroPoint::Dynamic), ("u8", ActFormat::F16, ZeroPoint::Implicit), ("u7", ActFormat::Bf16, ZeroPoint::Dynamic), ("e2m2", ActFormat::F16, ZeroPoint::Implicit), ("u7", ActFormat::F16, ZeroPoint::Dynamic)];
    for plan in &plans {
        let mut line = format!("{plan}:");
        for (w, act, zp) in specs {
            let mut p = SpecParts::new(WeightFormat::parse(w).unwrap(), act);
            p.arch = arch;
            p.zero_point = zp;
            let Ok(spec) = Spec::new(p) else { continue };
            let Ok(k) = generate(&spec, plan) else { continue };
            let r = assemble(&print(&k.main, arch).unwrap(), arch).unwrap();
            let e = r.entry(&k.main.name).unwrap();
            let spill = if e.spill_stores + e.spill_loads > 0 { format!(" SPILL {}B", e.spill_stores) } else { String::new() };
            line += &format!("  {w}/{act:?}: {} regs{spill}", e.registers);
        }
        println!("{line}");
    }
}
