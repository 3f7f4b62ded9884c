//! The sm_90a wgmma and warp-specialized plans on the GPU, against the f64 reference (every
//! element; tolerance in `humming_core::kernel::check`). `gpu_a16` runs the device's portable
//! target (sm_90 on a Hopper GPU: mma.sync plans) and only a few sm_90a launches; these are the
//! plans the speed table and a user asking for `arch = sm_90a` get. Skipped (and saying so)
//! without a device, or on a device that does not run sm_90a.
//!
//! - `gpu_sm90a_default_plans`: every distinct wgmma plan that `KernelPlan::choose_for_device`
//!   picks (with no device and for a GPU of less DRAM bandwidth, an H100's) for the wgmma-capable
//!   formats over twelve layer shapes (the three among them) and M = 1 .. 256, each
//!   checked at a ragged layer of a few of its tiles (N not a multiple of 64, a partial last
//!   stage every other case), at the largest M that chose it, splits 1 to 3; plus u4 f16 g128 on
//!   8192 x 8192 at M = 64 and 256, and on 28672 x 8192 at M = 8 for the H100's plan, with the
//!   default split, as a user would launch it.
//! - `gpu_sm90a_plan_sweep`: the emulator's wgmma and warp-specialized plan grid (`a16_plans`),
//!   every fourth pair, on the GPU: M tiles 16..256, one to four warpgroups, stage depths 2..5,
//!   M inside, at and past the tile and 1.
//! - `gpu_sm90a_every_width`: weights of 1, 2, 3, 5, 6 and 7 bits (integers and floats) on every
//!   distinct wgmma plan the default rules give them (`KernelPlan::wgmma_rule_for_device`, with no
//!   device and for an H100) over the twelve layers and M = 17 .. 256, checked as above.

use std::collections::BTreeMap;

use humming::core::kernel::check::check_gemm;
use humming::core::kernel::{DeviceProfile, KernelPlan, generate, wgmma_supported};
use humming::core::*;
use humming::cuda::GpuExecutor;
use humming::cuda::testing::gpu_for_or_skip;

/// The sm_90a spec of weight format `w` with these activations, scales (`None`: the default
/// format), group and zero point.
fn spec(w: &str, act: ActFormat, scale: Option<ScaleFormat>, group: ScaleGroup, zp: ZeroPoint) -> Spec {
    let mut p = SpecParts::new(WeightFormat::parse(w).unwrap(), act);
    if let Some(s) = scale {
        p.scale = s;
    }
    p.group = group;
    p.zero_point = zp;
    p.arch = Arch::Sm90a;
    Spec::new(p).unwrap_or_else(|e| panic!("{w}: {e:?}"))
}

/// The wgmma-capable formats of the emulator suites: 4- and 8-bit integers and floats, 16- and
/// 8-bit scales, per-channel and grouped, implicit and per-group zero points, f16 and bf16.
fn specs() -> Vec<Spec> {
    use ScaleGroup::{Group, PerChannel};
    let (f16, bf16, imp, dynamic) = (ActFormat::F16, ActFormat::Bf16, ZeroPoint::Implicit, ZeroPoint::Dynamic);
    let all = [
        spec("u4", f16, None, Group(128), imp),
        spec("u4", bf16, None, Group(128), imp),
        spec("e2m1", bf16, Some(ScaleFormat::Ue8m0), Group(32), imp),
        spec("e2m1", bf16, None, Group(32), imp),
        spec("u8", f16, None, PerChannel, imp),
        spec("u8", f16, None, Group(64), imp),
        spec("i4", bf16, None, PerChannel, imp),
        spec("e4m3", f16, None, Group(128), imp),
        spec("u4", f16, Some(ScaleFormat::E4m3), Group(16), imp),
        spec("u4", f16, Some(ScaleFormat::E4m3), Group(128), imp),
        spec("u4", f16, None, Group(128), dynamic),
        spec("u4", bf16, None, Group(64), dynamic),
        spec("u8", f16, Some(ScaleFormat::E5m2), Group(128), dynamic),
    ];
    all.into_iter().filter(wgmma_supported).collect()
}

/// The executor for sm_90a launches and the device's SM count, or `None` (saying so) without a
/// device or on one that does not run sm_90a.
fn sm90a_executor(test: &str) -> Option<(GpuExecutor, u32)> {
    let gpu = gpu_for_or_skip(test, Arch::Sm90a)?;
    let sms = gpu.sm_count().unwrap();
    Some((GpuExecutor::new(gpu, Arch::Sm90a).unwrap(), sms))
}

/// A ragged layer of a few of `plan`'s tiles: N two and a half column tiles (not a multiple of
/// 64), K 2048 or, on odd cases, 1984 (a partial last stage for 128-deep stages).
fn ragged(plan: &KernelPlan, case: usize) -> (usize, usize) {
    let n = 5 * plan.bn() as usize / 2 - 24;
    (n, if case % 2 == 1 { 1984 } else { 2048 })
}

#[test]
fn gpu_sm90a_default_plans() {
    const LAYERS: [(usize, usize); 12] = [
        (8192, 8192),
        (28672, 8192),
        (8192, 28672),
        (4096, 4096),
        (4096, 14336),
        (14336, 4096),
        (6144, 4096),
        (2048, 8192),
        (16384, 8192),
        (14336, 8192),
        (24576, 8192),
        (8192, 20480),
    ];
    const MS: [usize; 20] = [1, 2, 4, 8, 16, 17, 24, 32, 33, 40, 48, 56, 64, 65, 96, 128, 129, 160, 192, 256];
    // Distinct (spec, plan) defaults, each with the largest M that chose it.
    // The defaults, and the plans of a GPU with less DRAM bandwidth (an H100's: v27), whichever
    // GPU runs the test.
    let lean = DeviceProfile::H100_SXM;
    let mut cases: BTreeMap<(String, String), (Spec, KernelPlan, usize)> = BTreeMap::new();
    for spec in specs() {
        for (n, k) in LAYERS {
            for (m, device) in MS.into_iter().flat_map(|m| [(m, None), (m, Some(&lean))]) {
                let plan = KernelPlan::choose_for_device(&spec, m, n, k, device);
                // wgmma plans, and the lean GPU's plans where they differ from the defaults (the
                // four- and five-stage rings of M <= 8, the half-width rules of M 9..16, v28-v30).
                if plan.wgmma || (device.is_some() && plan != KernelPlan::choose_for(&spec, m, n, k)) {
                    let e = cases.entry((spec.to_string(), plan.to_string())).or_insert((spec, plan, m));
                    e.2 = e.2.max(m);
                }
            }
        }
    }
    let plans: std::collections::BTreeSet<&String> = cases.keys().map(|(_, p)| p).collect();
    assert!(plans.len() >= 4 && cases.values().any(|(_, p, _)| p.ws), "the sm_90a defaults: {plans:?}");
    println!("sm_90a defaults: {} (spec, plan) pairs, plans {plans:?}", cases.len());
    let Some((mut ex, sms)) = sm90a_executor("gpu_sm90a_default_plans") else { return };
    let mut failures = Vec::new();
    for (i, (spec, plan, m)) in cases.values().enumerate() {
        let (n, k) = ragged(plan, i);
        let split = 1 + (i % 3) as u32;
        match check_gemm(&mut ex, spec, plan, (*m, n, k), split, 7000 + i as u64) {
            Ok(r) => println!("{spec} {plan} M={m} N={n} K={k} split {split}: {:.3} of tolerance", r.max_tol_frac),
            Err(e) => failures.push(e),
        }
    }
    // The layer as a user launches it: the default plan and split.
    let u4 = specs()[0];
    let launches = [
        (64, 8192, 8192, None),
        (256, 8192, 8192, None),
        (8, 28672, 8192, Some(&lean)),
        (1, 4096, 14336, Some(&lean)),
        (12, 6144, 4096, Some(&lean)),
        (1, 8192, 4096, Some(&lean)),
        (16, 8192, 8192, Some(&lean)),
        (32, 8192, 8192, Some(&lean)),
        (40, 14336, 4096, Some(&lean)),
    ];
    for (m, n, k, device) in launches {
        let plan = KernelPlan::choose_for_device(&u4, m, n, k, device);
        let split = plan.split_k_for(m, n, k, sms);
        match check_gemm(&mut ex, &u4, &plan, (m, n, k), split, 7500 + m as u64) {
            Ok(r) => println!("{u4} {plan} M={m} N={n} K={k} split {split} (default): {:.3} of tolerance", r.max_tol_frac),
            Err(e) => failures.push(e),
        }
    }
    println!(
        "GPU sm_90a: {} default (spec, plan) pairs ({} distinct plans) and {} default launches (8192^2; on a lean-DRAM GPU 28672 x 8192 M = 8, 4096 x 14336 M = 1, 6144 x 4096 M = 12, 8192 x 4096 M = 1, 8192^2 M = 16 and 32, 14336 x 4096 M = 40), {} failed",
        cases.len(),
        plans.len(),
        launches.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every fourth valid pair of the sweep's grid, with the count of valid pairs.
fn sweep_cases() -> (Vec<(Spec, KernelPlan)>, usize) {
    let (mut cases, mut valid) = (Vec::new(), 0usize);
    for spec in specs() {
        for ws in [false, true] {
            for m_tiles in [1, 2, 4, 8, 16] {
                for n_warps in [1, 2, 3, 4] {
                    for bk in [64, 128, 256] {
                        let stages = [2, 3, 4, 5][valid % 4];
                        let plan = KernelPlan { m_tiles, n_warps, k_warps: 1, bk, stages, swap: false, wgmma: true, halves: false, ws };
                        // Plans the spec or target rules out are errors, not kernels (the
                        // emulator suite checks those errors).
                        if plan.validate(Arch::Sm90a, spec.weight().bits()).is_err() || generate(&spec, &plan).is_err() {
                            continue;
                        }
                        if valid % 4 == 0 {
                            cases.push((spec, plan));
                        }
                        valid += 1;
                    }
                }
            }
        }
    }
    (cases, valid)
}

#[test]
fn gpu_sm90a_plan_sweep() {
    let (cases, valid) = sweep_cases();
    assert!(cases.len() >= 60 && cases.iter().any(|(_, p)| p.ws) && cases.iter().any(|(_, p)| !p.ws));
    let Some((mut ex, _)) = sm90a_executor("gpu_sm90a_plan_sweep") else { return };
    let mut failures = Vec::new();
    for (i, (spec, plan)) in cases.iter().enumerate() {
        let bm = plan.bm() as usize;
        let m = [bm - 3, bm, 1, bm + 5][i % 4];
        let (n, k) = ragged(plan, i);
        let split = 1 + (i % 3) as u32;
        if let Err(e) = check_gemm(&mut ex, spec, plan, (m, n, k), split, 8000 + i as u64) {
            failures.push(e);
        }
    }
    println!("GPU sm_90a: {} of {valid} valid (spec, wgmma / warp-specialized plan) pairs checked, {} failed", cases.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures[..failures.len().min(20)].join("\n"));
}

/// Weights of widths other than 4 and 8 bits on the wgmma plans the rules give them (defaults or
/// not: `KernelPlan::wgmma_default_at`): each warp rebuilds its tile's words from a bit offset of
/// its own.
#[test]
fn gpu_sm90a_every_width() {
    let (f16, bf16, imp, dynamic) = (ActFormat::F16, ActFormat::Bf16, ZeroPoint::Implicit, ZeroPoint::Dynamic);
    use ScaleGroup::{Group, PerChannel};
    let specs = [
        spec("u3", f16, None, Group(128), imp),
        spec("u3", bf16, None, Group(64), dynamic),
        spec("u2", f16, None, Group(128), imp),
        spec("u1", bf16, None, PerChannel, dynamic),
        spec("u5", f16, None, Group(128), imp),
        spec("u6", bf16, None, Group(128), imp),
        spec("i7", f16, None, Group(32), imp),
        spec("e3m2", bf16, Some(ScaleFormat::Ue8m0), Group(32), imp),
        spec("e2m3", f16, None, Group(128), imp),
    ];
    const LAYERS: [(usize, usize); 6] = [(8192, 8192), (28672, 8192), (8192, 28672), (4096, 4096), (4096, 14336), (14336, 4096)];
    const MS: [usize; 11] = [17, 24, 32, 33, 48, 49, 64, 65, 128, 129, 256];
    let lean = DeviceProfile::H100_SXM;
    let mut cases: BTreeMap<(String, String), (Spec, KernelPlan, usize)> = BTreeMap::new();
    for spec in specs {
        assert!(wgmma_supported(&spec), "{spec}");
        for (n, k) in LAYERS {
            for (m, device) in MS.into_iter().flat_map(|m| [(m, None), (m, Some(&lean))]) {
                if let Some(plan) = KernelPlan::wgmma_rule_for_device(&spec, m, n, k, device) {
                    let e = cases.entry((spec.to_string(), plan.to_string())).or_insert((spec, plan, m));
                    e.2 = e.2.max(m);
                }
            }
        }
    }
    assert!(cases.len() >= 30 && cases.values().any(|(_, p, _)| p.ws) && cases.values().any(|(_, p, _)| !p.ws), "{cases:?}");
    let Some((mut ex, _)) = sm90a_executor("gpu_sm90a_every_width") else { return };
    let mut failures = Vec::new();
    for (i, (spec, plan, m)) in cases.values().enumerate() {
        let (n, k) = ragged(plan, i);
        let split = 1 + (i % 3) as u32;
        match check_gemm(&mut ex, spec, plan, (*m, n, k), split, 9500 + i as u64) {
            Ok(r) => println!("{spec} {plan} M={m} N={n} K={k} split {split}: {:.3} of tolerance", r.max_tol_frac),
            Err(e) => failures.push(e),
        }
    }
    println!("GPU sm_90a: {} (odd-width spec, wgmma plan) pairs, {} failed", cases.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
