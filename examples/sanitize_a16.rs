//! One A16 kernel of each pipeline variant on the GPU, small enough to run under
//! compute-sanitizer (memcheck, racecheck): swapped plans (M = 1 and M = 13, with K splits), the
//! cp.async pipeline with three m16 tiles (M = 33 plan), and the sm_75 plain-load pipeline.
//! Each result is checked against the f64 reference.

use humming::core::kernel::KernelPlan;
use humming::core::kernel::check::check_gemm;
use humming::core::*;
use humming::cuda::{Gpu, GpuExecutor};

fn main() {
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("sanitize_a16: no GPU ({e})");
            std::process::exit(2);
        }
    };
    let native = gpu.native_arch().unwrap();
    let mut ex = GpuExecutor::new(gpu, native).unwrap();
    let cases = [
        ("swapped, 1 n8 tile of M, split 2", "u4", ActFormat::F16, native, 1usize, 2u32),
        ("swapped, 2 n8 tiles of M, split 3", "u5", ActFormat::Bf16, native, 13, 3),
        ("cp.async, 3 m tiles", "u3", ActFormat::Bf16, native, 33, 1),
        ("plain loads (sm_75), swapped", "u4", ActFormat::F16, Arch::Sm75, 7, 1),
    ];
    let mut failed = false;
    for (what, w, act, arch, m, split) in cases {
        let mut parts = SpecParts::new(WeightFormat::parse(w).unwrap(), act);
        parts.arch = arch;
        parts.zero_point = ZeroPoint::Dynamic;
        let spec = Spec::new(parts).unwrap();
        let plan = KernelPlan::choose(m, 256, 1024, arch, spec.weight().bits());
        ex.set_target(arch).unwrap();
        match check_gemm(&mut ex, &spec, &plan, (m, 200, 512), split, 5) {
            Ok(r) => println!("{what:<32} {} ok (max err {:.3} of tolerance)", r.kernel, r.max_tol_frac),
            Err(e) => {
                println!("{what:<32} FAILED: {e}");
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}
