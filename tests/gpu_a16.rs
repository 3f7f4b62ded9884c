//! The W{1..8}A16 kernel family on the GPU, against the f64 reference (every element; tolerance
//! in `humming_core::kernel::check`). Skipped (and saying so) without a device.
//!
//! - `gpu_a16_matrix_native`: the coverage matrix for the device's own target at the ragged
//!   small shapes of the emulator suite, one kernel variant in four (every spec of a selected
//!   variant: all its group sizes). The driver JIT-compiles each variant (~0.15 s), which is what
//!   bounds this on a lent GPU; the emulator suite runs every spec.
//! - `gpu_a16_realistic_shapes`: every weight format with both activations at N = K = 4096 and
//!   a non-multiple N = 4000, M in {1, 16, 100}, plus M = 1024 for the common formats.
//! - `gpu_a16_every_target`: one spec per claimed target (sm_75 .. sm_90 PTX all run on sm_90).

use humming::core::kernel::{KernelPlan, kernel_name};
use humming::core::kernel::check::{CheckReport, check_gemm};
use humming::core::kernel::coverage::{A16_ARCHS, a16_matrix, a16_weights};
use humming::core::*;
use humming::cuda::GpuExecutor;
use humming::cuda::testing::gpu_or_skip;

fn plan_for(spec: &Spec, m: usize, n: usize, k: usize) -> KernelPlan {
    KernelPlan::choose_for(spec, m, n.div_ceil(64) * 64, k.div_ceil(64) * 64)
}

fn run(ex: &mut GpuExecutor, spec: &Spec, m: usize, n: usize, k: usize, seed: u64, sms: u32) -> Result<CheckReport, String> {
    let plan = plan_for(spec, m, n, k);
    let l = humming::core::pack::fragment::A16Layout::new(spec.weight().bits(), n, k, None);
    let split = plan.split_k_for(m, l.n_pad, l.k_pad.max(k.div_ceil(256) * 256), sms).min((l.k_pad as u32 / plan.bk).max(1));
    ex.set_target(spec.arch()).map_err(|e| e.to_string())?;
    check_gemm(ex, spec, &plan, (m, n, k), split, seed)
}

const SHAPES: [(usize, usize, usize); 6] = [(1, 64, 256), (7, 200, 384), (33, 64, 384), (1, 200, 256), (7, 64, 256), (33, 200, 256)];

#[test]
fn gpu_a16_matrix_native() {
    let Some(gpu) = gpu_or_skip("gpu_a16_matrix_native") else { return };
    let native = gpu.native_arch().expect("supported device");
    let mut ex = GpuExecutor::new(gpu, native).unwrap();
    // Distinct kernel variants (the group size is a launch argument), in matrix order; keep
    // every fourth, with all the specs (group sizes) that share it.
    let all: Vec<Spec> = a16_matrix().into_iter().filter(|s| s.arch() == native).collect();
    let mut order: Vec<String> = Vec::new();
    for s in &all {
        let name = kernel_name(s, &plan_for(s, 1, 64, 256));
        if !order.contains(&name) {
            order.push(name);
        }
    }
    let keep: std::collections::HashSet<&String> = order.iter().step_by(4).collect();
    let specs: Vec<Spec> = all.iter().filter(|s| keep.contains(&kernel_name(s, &plan_for(s, 1, 64, 256)))).copied().collect();
    let mut failures = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        // M in {1, 7} only: both use the same plan, so each variant is JIT-compiled once.
        let (m, n, k) = SHAPES[[0, 1, 3, 4][i % 4]];
        let split = 1 + (i / SHAPES.len() % 2) as u32;
        let plan = plan_for(spec, m, n, k);
        if let Err(e) = check_gemm(&mut ex, spec, &plan, (m, n, k), split, i as u64) {
            failures.push(e);
        }
    }
    println!(
        "GPU ({native}): {} specs ({} of {} kernel variants, all their group sizes) of the {}-spec native matrix run, {} failed",
        specs.len(),
        keep.len(),
        order.len(),
        all.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures[..failures.len().min(20)].join("\n"));
}

/// Prints one passed check as it finishes (a run cut off by a timeout still shows how far it
/// got) and returns the worst fraction of the tolerance so far.
fn report(r: &CheckReport, worst: f64) -> f64 {
    println!("{:<70} M={:<4} N={} K={} split {}: {:.3} of tolerance", r.kernel, r.m, r.n, r.k, r.split, r.max_tol_frac);
    worst.max(r.max_tol_frac)
}

#[test]
fn gpu_a16_realistic_shapes() {
    let Some(gpu) = gpu_or_skip("gpu_a16_realistic_shapes") else { return };
    let native = gpu.native_arch().expect("supported device");
    let sms = gpu.sm_count().unwrap();
    let mut ex = GpuExecutor::new(gpu, native).unwrap();
    let mut n_run = 0;
    let mut worst: f64 = 0.0;
    let mut failures = Vec::new();
    for act in [ActFormat::F16, ActFormat::Bf16] {
        for (i, (weight, zero_point)) in a16_weights().into_iter().enumerate() {
            let mut parts = SpecParts::new(weight, act);
            parts.zero_point = zero_point;
            parts.arch = native;
            let Ok(spec) = Spec::new(parts) else { continue };
            let m = [1, 16, 100][i % 3];
            let n = if i % 2 == 0 { 4096 } else { 4000 };
            match run(&mut ex, &spec, m, n, 4096, i as u64, sms) {
                Ok(r) => worst = report(&r, worst),
                Err(e) => failures.push(e),
            }
            n_run += 1;
        }
    }
    for w in ["u4", "u8", "i4", "e2m1", "u3"] {
        let mut parts = SpecParts::new(WeightFormat::parse(w).unwrap(), ActFormat::Bf16);
        parts.arch = native;
        if w == "e2m1" {
            parts.scale = ScaleFormat::Ue8m0;
            parts.group = ScaleGroup::Group(32);
        }
        let spec = Spec::new(parts).unwrap();
        match run(&mut ex, &spec, 1024, 4096, 4096, 99, sms) {
            Ok(r) => worst = report(&r, worst),
            Err(e) => failures.push(e),
        }
        n_run += 1;
    }
    println!("GPU realistic shapes: {n_run} (spec, shape) checks, worst error {worst:.3} of tolerance, {} failed", failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gpu_a16_every_target() {
    let Some(gpu) = gpu_or_skip("gpu_a16_every_target") else { return };
    let cc = gpu.compute_capability();
    let sms = gpu.sm_count().unwrap();
    let native = gpu.native_arch().unwrap();
    let mut ex = GpuExecutor::new(gpu, native).unwrap();
    let mut ran = 0;
    // sm_90a too (its default plans above M = 48 are wgmma plans for the specs they support).
    for arch in A16_ARCHS.into_iter().chain([Arch::Sm90a]).filter(|a| a.runs_on(cc)) {
        for (w, act) in [("u4", ActFormat::F16), ("u3", ActFormat::F16), ("e4m3", ActFormat::Bf16), ("i8", ActFormat::Bf16)] {
            let mut parts = SpecParts::new(WeightFormat::parse(w).unwrap(), act);
            parts.arch = arch;
            let Ok(spec) = Spec::new(parts) else { continue };
            for m in [1, 100, 200] {
                // On sm_90a, M = 100 and 200 take wgmma plans (KernelPlan::choose_for) for u4, u3
                // (since v36) and e4m3: the 128-column tile on these small layers.
                let (n, k) = if arch == Arch::Sm90a && m == 200 { (8192, 1024) } else { (1000, 2048) };
                let wgmma = humming::core::kernel::wgmma_supported(&spec) && m > 48;
                assert_eq!(plan_for(&spec, m, n, k).wgmma, wgmma, "{spec} M={m} N={n}");
                let r = run(&mut ex, &spec, m, n, k, ran, sms).unwrap_or_else(|e| panic!("{e}"));
                println!("{:<70} M={m:<4} max err {:.3e} ({:.3} of tolerance)", r.kernel, r.max_abs_err, r.max_tol_frac);
                ran += 1;
            }
        }
    }
    assert!(ran > 0);
}
