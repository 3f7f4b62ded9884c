//! Plans are values: the same specs under many plans (tile M, warps along N and K, stage K,
//! pipeline depth, K splits, partial last stages) on the emulator, against the f64 reference.

use humming_core::ir::emu::Emulator;
use humming_core::kernel::KernelPlan;
use humming_core::kernel::check::check_gemm;
use humming_core::*;

macro_rules! report {
    ($($t:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// K of run `ran`: every third run a K whose padded length is not a multiple of bk (a partial
/// last stage for bk 256; K itself not a multiple of 64 either).
fn k_of(ran: usize) -> usize {
    if ran % 3 == 2 { 328 } else { 512 }
}

/// Runs `plan` for `spec` at M = `m`, N = 136, K = [`k_of`] `ran` with `split` on a fresh
/// emulator against the f64 reference; panics naming the case.
fn check_case(spec: &Spec, plan: &KernelPlan, m: usize, split: u32, ran: usize, seed: u64) {
    let k = k_of(ran);
    check_gemm(&mut Emulator::new(), spec, plan, (m, 136, k), split, seed)
        .unwrap_or_else(|e| panic!("{spec} {plan} m {m} split {split} k {k}: {e}"));
}

#[test]
fn plan_sweep_on_emulator() {
    let specs: Vec<Spec> = [("u4", ActFormat::F16, Arch::Sm80), ("u3", ActFormat::Bf16, Arch::Sm90), ("e2m1", ActFormat::Bf16, Arch::Sm86), ("u4", ActFormat::F16, Arch::Sm75)]
        .into_iter()
        .map(|(w, act, arch)| {
            let mut p = SpecParts::new(WeightFormat::parse(w).unwrap(), act);
            p.arch = arch;
            p.zero_point = if w.starts_with('u') { ZeroPoint::Dynamic } else { ZeroPoint::Implicit };
            Spec::new(p).unwrap()
        })
        .collect();
    let mut ran = 0;
    for spec in &specs {
        for m_tiles in [1, 2, 4] {
            for (n_warps, k_warps) in [(1, 1), (2, 2), (4, 1), (1, 4), (1, 8), (2, 4)] {
                for bk in [64, 128, 256, 512] {
                    let stages = if spec.arch() >= Arch::Sm80 { [2, 3, 4][ran % 3] } else { 1 };
                    let plan = KernelPlan { m_tiles, n_warps, k_warps, bk, stages, swap: false, wgmma: false };
                    if plan.validate(spec.arch(), spec.weight().bits()).is_err() {
                        continue;
                    }
                    let m = 16 * m_tiles as usize - 3;
                    // Splits past the stage count leave CTAs with no stage (zero partials).
                    let split = [1, 2, 3, 5][ran % 4];
                    check_case(spec, &plan, m, split, ran, ran as u64);
                    ran += 1;
                }
            }
        }
    }
    report!("{ran} (spec, plan) pairs checked on the emulator");
    assert!(ran >= 100);
}

/// Swapped plans (weights as the MMA's A operand, scales applied to f32 sums) over the
/// dequantizer paths, the scale formats, groups shorter than a warp's k range (a sum per k16
/// step), groups spanning it and per-channel scales, M from 1 to 16, splits and partial stages.
#[test]
fn swapped_plans_on_emulator() {
    let spec = |w: &str, act: ActFormat, scale: Option<ScaleFormat>, group: ScaleGroup, zp: ZeroPoint, arch: Arch| {
        let mut p = SpecParts::new(WeightFormat::parse(w).unwrap(), act);
        if let Some(s) = scale {
            p.scale = s;
        }
        p.group = group;
        p.zero_point = zp;
        p.arch = arch;
        Spec::new(p).unwrap_or_else(|e| panic!("{w}: {e:?}"))
    };
    use ScaleGroup::{Group, PerChannel};
    let specs = [
        spec("u4", ActFormat::F16, None, Group(128), ZeroPoint::Implicit, Arch::Sm90),
        spec("u4", ActFormat::F16, None, Group(32), ZeroPoint::Dynamic, Arch::Sm80),
        spec("u8", ActFormat::Bf16, None, Group(64), ZeroPoint::Dynamic, Arch::Sm80),
        spec("i3", ActFormat::Bf16, None, PerChannel, ZeroPoint::Implicit, Arch::Sm86),
        spec("e2m1", ActFormat::Bf16, Some(ScaleFormat::Ue8m0), Group(32), ZeroPoint::Implicit, Arch::Sm90),
        spec("e4m3", ActFormat::F16, Some(ScaleFormat::E4m3), Group(16), ZeroPoint::Implicit, Arch::Sm89),
        spec("u4", ActFormat::F16, None, Group(128), ZeroPoint::Implicit, Arch::Sm75),
    ];
    let mut ran = 0;
    for spec in &specs {
        for m_tiles in [1, 2] {
            for (n_warps, k_warps) in [(1, 8), (1, 4), (2, 4), (1, 1), (2, 2)] {
                for bk in [128, 256, 512] {
                    let stages = if spec.arch() >= Arch::Sm80 { [2, 3, 4][ran % 3] } else { 1 };
                    let plan = KernelPlan { m_tiles, n_warps, k_warps, bk, stages, swap: true, wgmma: false };
                    if plan.validate(spec.arch(), spec.weight().bits()).is_err() {
                        continue;
                    }
                    // M past the tile too (several row tiles, each with its split-K counter).
                    let m = [8 * m_tiles as usize - 3, 1, 8 * m_tiles as usize, 8 * m_tiles as usize + 5][ran % 4];
                    let split = [1, 2, 3, 5][ran % 4];
                    check_case(spec, &plan, m, split, ran, 1000 + ran as u64);
                    ran += 1;
                }
            }
        }
    }
    report!("{ran} (spec, swapped plan) pairs checked on the emulator");
    assert!(ran >= 100);
}

/// wgmma plans (sm_90a: warpgroups, the dequantized weights as wgmma's register A operand, the
/// activations as B in core matrices) over 4- and 8-bit formats, M tiles 16..256, one, two and
/// four warpgroups (as registers allow), stage depths, partial stages and splits; each also
/// assembled by ptxas.
#[test]
fn wgmma_plans_on_emulator() {
    let spec = |w: &str, act: ActFormat, group: ScaleGroup| {
        let mut p = SpecParts::new(WeightFormat::parse(w).unwrap(), act);
        p.group = group;
        p.arch = Arch::Sm90a;
        Spec::new(p).unwrap_or_else(|e| panic!("{w}: {e:?}"))
    };
    use ScaleGroup::{Group, PerChannel};
    let specs = [
        spec("u4", ActFormat::F16, Group(128)),
        spec("e2m1", ActFormat::Bf16, Group(32)),
        spec("u8", ActFormat::F16, Group(64)),
        spec("i4", ActFormat::Bf16, PerChannel),
    ];
    let mut ran = 0;
    for spec in &specs {
        for m_tiles in [1, 2, 4, 8, 16] {
            for n_warps in [1, 2, 4] {
                for bk in [64, 128, 256] {
                    let plan = KernelPlan { m_tiles, n_warps, k_warps: 1, bk, stages: [2, 3, 4][ran % 3], swap: false, wgmma: true };
                    if plan.validate(spec.arch(), spec.weight().bits()).is_err() {
                        continue;
                    }
                    let bm = 16 * m_tiles as usize;
                    let m = [bm - 3, bm, 1, bm + 5][ran % 4];
                    let split = [1, 2, 3][ran % 3];
                    check_case(spec, &plan, m, split, ran, 2000 + ran as u64);
                    // ptxas accepts it for sm_90a without spills.
                    let kernels = humming_core::kernel::generate(spec, &plan).unwrap();
                    humming_core::ir::ptx::ptxas::assert_assembles_clean(&kernels.main, &[Arch::Sm90a]);
                    ran += 1;
                }
            }
        }
    }
    report!("{ran} (spec, wgmma plan) pairs checked on the emulator");
    assert!(ran >= 70);
}
