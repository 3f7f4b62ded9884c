//! One A16 kernel of each pipeline variant on the GPU, small enough to run under
//! compute-sanitizer (memcheck, racecheck): swapped plans (M = 1 and M = 13, with K splits), the
//! cp.async pipeline with three m16 tiles (M = 33 plan), the sm_75 plain-load pipeline, and on
//! sm_90 devices the sm_90a wgmma tile and the warp-specialized one with four math warpgroups
//! (`setmaxnreg`), also split in two, and the 256-row one split in two (the split-K tail, which
//! the producer joins after its loop). Each result is checked against the f64 reference. An argument runs only the cases whose description contains
//! it (`sanitize_a16 warp-specialized`).

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
    // (what, weight, activation, target, M, split, plan: the default for N = 256, K = 1024 when
    // None; dynamic zero points except for the wgmma plans, which take implicit ones).
    let mut cases = vec![
        ("swapped, 1 n8 tile of M, split 2", "u4", ActFormat::F16, native, 1usize, 2u32, None),
        ("swapped, 2 n8 tiles of M, split 3", "u5", ActFormat::Bf16, native, 13, 3, None),
        ("cp.async, 3 m tiles", "u3", ActFormat::Bf16, native, 33, 1, None),
        ("plain loads (sm_75), swapped", "u4", ActFormat::F16, Arch::Sm75, 7, 1, None),
    ];
    if native == Arch::Sm90 {
        // The M <= 8 plan of GPUs with less DRAM bandwidth (v28; HUMMING_SANITIZE_K=5120 wraps its ring).
        cases.push(("swapped, four-stage ring, split 2", "u4", ActFormat::F16, native, 5, 2, Some("m1x8_n1x64_k8w_bk512_s4")));
        // Its five-stage ring where one wave of tiles fills the SMs (v29).
        cases.push(("swapped, five-stage ring, unsplit", "u4", ActFormat::F16, native, 3, 1, Some("m1x8_n1x64_k8w_bk512_s5")));
        cases.push(("wgmma (sm_90a), split 2", "u4", ActFormat::F16, Arch::Sm90a, 61, 2, Some("m4x16_n4x64_k1w_bk128_s4_wg")));
        cases.push(("warp-specialized, setmaxnreg", "u4", ActFormat::F16, Arch::Sm90a, 45, 1, Some("m3x16_n4x64_k1w_bk128_s4_ws")));
        cases.push(("warp-specialized, split 2", "u4", ActFormat::F16, Arch::Sm90a, 45, 2, Some("m3x16_n4x64_k1w_bk128_s4_ws")));
        cases.push(("warp-specialized 256 rows, split 2", "u4", ActFormat::F16, Arch::Sm90a, 200, 2, Some("m16x16_n2x64_k1w_bk64_s5_ws")));
        cases.push(("warp-specialized 32 rows, f32 sums, split 2", "u4", ActFormat::F16, Arch::Sm90a, 29, 2, Some("m2x16_n4x64_k1w_bk128_s4_ws")));
        // The lean GPUs' plans of v30: two CTAs an SM at M 9..16, two math warpgroups at M 17..48.
        cases.push(("swapped, half-width, two CTAs an SM, split 2", "u4", ActFormat::F16, native, 13, 2, Some("m2x8_n2x32_k4w_bk512_s3")));
        cases.push(("warp-specialized 32 rows, two math warpgroups, split 2", "u4", ActFormat::F16, Arch::Sm90a, 29, 2, Some("m2x16_n2x64_k1w_bk128_s4_ws")));
        cases.push(("warp-specialized 48 rows, two math warpgroups, split 2", "u4", ActFormat::F16, Arch::Sm90a, 45, 2, Some("m3x16_n2x64_k1w_bk128_s4_ws")));
        // v31: one math warpgroup, two CTAs an SM (half the register file a CTA).
        cases.push(("warp-specialized 64 rows, one math warpgroup, split 2", "u4", ActFormat::F16, Arch::Sm90a, 61, 2, Some("m4x16_n1x64_k1w_bk128_s4_ws")));
        // v36: odd widths on wgmma tiles (each warp's words rebuilt from its own bit offset; 3 and
        // 7 bits read the word after the window, clamped to the lane's block).
        cases.push(("odd width: u3 warp-specialized 64 rows, split 2", "u3", ActFormat::F16, Arch::Sm90a, 61, 2, Some("m4x16_n4x64_k1w_bk128_s4_ws")));
        cases.push(("odd width: u7 warp-specialized 128 rows", "u7", ActFormat::Bf16, Arch::Sm90a, 120, 1, Some("m8x16_n2x64_k1w_bk128_s4_ws")));
        cases.push(("odd width: u5 wgmma 64 rows, split 2", "u5", ActFormat::F16, Arch::Sm90a, 61, 2, Some("m4x16_n4x64_k1w_bk128_s4_wg")));
    }
    if let Some(only) = std::env::args().nth(1) {
        cases.retain(|c| c.0.contains(only.as_str()));
        if cases.is_empty() {
            eprintln!("sanitize_a16: no case matches {only:?}");
            std::process::exit(2);
        }
    }
    let mut failed = false;
    for (what, w, act, arch, m, split, plan) in cases {
        let mut parts = SpecParts::new(WeightFormat::parse(w).unwrap(), act);
        parts.arch = arch;
        parts.zero_point = if plan.is_some() { ZeroPoint::Implicit } else { ZeroPoint::Dynamic };
        let spec = Spec::new(parts).unwrap();
        let plan = match plan {
            Some(p) => p.parse::<KernelPlan>().unwrap(),
            None => KernelPlan::choose(m, 256, 1024, arch, spec.weight().bits()),
        };
        ex.set_target(arch).unwrap();
        // HUMMING_SANITIZE_K: another K (512 = 4 stages of 128 fills a 4-slot ring once; 1024
        // wraps it, so the warp-specialized producer refills slots).
        let k = std::env::var("HUMMING_SANITIZE_K").ok().and_then(|v| v.parse().ok()).unwrap_or(512);
        match check_gemm(&mut ex, &spec, &plan, (m, 200, k), split, 5) {
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
