//! Assembles the default plans (M = 1 and 33 at N = 200, the family test's, or the M given as
//! arguments; `K=<k>` in the environment for the K the plans assume, default 256) of one spec per
//! (weight format, zero point, activation, target) with ptxas and reports registers and spills:
//! a quick pre-check of `a16_matrix_assembles_without_spills`.
use humming_core::ir::ptx::{print, ptxas::assemble};
use humming_core::kernel::coverage::{A16_ARCHS, a16_weights};
use humming_core::kernel::{KernelPlan, generate};
use humming_core::*;
fn main() {
    let ms: Vec<usize> = std::env::args().skip(1).map(|s| s.parse().unwrap()).collect();
    let ms = if ms.is_empty() { vec![1, 33] } else { ms };
    let k: usize = std::env::var("K").map(|k| k.parse().expect("K")).unwrap_or(256);
    let (mut n, mut bad, mut maxr) = (0, 0, 0);
    for act in [ActFormat::F16, ActFormat::Bf16] {
        for arch in A16_ARCHS {
            for (w, zp) in a16_weights() {
                let mut p = SpecParts::new(w, act);
                p.arch = arch;
                p.zero_point = zp;
                let Ok(spec) = Spec::new(p) else { continue };
                for &m in &ms {
                    let plan = KernelPlan::choose(m, 256, k, arch, w.bits());
                    let k = generate(&spec, &plan).unwrap();
                    let r = assemble(&print(&k.main, arch).unwrap(), arch).unwrap();
                    let e = r.entry(&k.main.name).unwrap();
                    n += 1;
                    maxr = maxr.max(e.registers);
                    if e.spill_stores + e.spill_loads > 0 || e.stack_frame > 0 {
                        bad += 1;
                        println!("SPILL {} {arch}: {} regs, {} B spill stores", k.main.name, e.registers, e.spill_stores);
                    }
                }
            }
        }
    }
    println!("{n} kernels, {bad} with spills, max {maxr} registers");
}
