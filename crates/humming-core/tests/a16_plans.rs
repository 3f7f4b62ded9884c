//! Plans are values: the same specs under many plans (tile M, warps along N and K, stage K,
//! pipeline depth, K splits, partial last stages) on the emulator, against the f64 reference.

use humming_core::ir::emu::Emulator;
use humming_core::kernel::KernelPlan;
use humming_core::kernel::check::check_gemm;
use humming_core::*;

mod spec_util;

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

/// The spec of weight format `w` with these activations, scales (`None`: the default format),
/// group, zero point and target.
fn spec(w: &str, act: ActFormat, scale: Option<ScaleFormat>, group: ScaleGroup, zp: ZeroPoint, arch: Arch) -> Spec {
    spec_util::spec(w, act, scale, group, zp, arch).unwrap_or_else(|e| panic!("{w}: {e:?}"))
}

#[test]
fn plan_sweep_on_emulator() {
    // e5m2 on sm_90: bulk weight copies, whose partial last stage must zero the rows past K (an
    // all-ones e5m2 code, the emulator's shared-memory fill, is NaN even times a zero).
    let specs: Vec<Spec> = [("u4", ActFormat::F16, Arch::Sm80), ("u3", ActFormat::Bf16, Arch::Sm90), ("e2m1", ActFormat::Bf16, Arch::Sm86), ("u4", ActFormat::F16, Arch::Sm75), ("e5m2", ActFormat::F16, Arch::Sm90)]
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
                    let plan = KernelPlan { m_tiles, n_warps, k_warps, bk, stages, swap: false, wgmma: false, halves: false, ws: false };
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
    use ScaleGroup::{Group, PerChannel};
    let specs = [
        spec("u4", ActFormat::F16, None, Group(128), ZeroPoint::Implicit, Arch::Sm90),
        spec("u4", ActFormat::F16, None, Group(32), ZeroPoint::Dynamic, Arch::Sm80),
        spec("u8", ActFormat::Bf16, None, Group(64), ZeroPoint::Dynamic, Arch::Sm80),
        spec("i3", ActFormat::Bf16, None, PerChannel, ZeroPoint::Implicit, Arch::Sm86),
        spec("e2m1", ActFormat::Bf16, Some(ScaleFormat::Ue8m0), Group(32), ZeroPoint::Implicit, Arch::Sm90),
        spec("e4m3", ActFormat::F16, Some(ScaleFormat::E4m3), Group(16), ZeroPoint::Implicit, Arch::Sm89),
        spec("u4", ActFormat::F16, None, Group(128), ZeroPoint::Implicit, Arch::Sm75),
        // Folded offsets (`Dequant::fold_offsets`): one pattern (u8 f16, u4 bf16) and two
        // patterns (u2 f16, u5 bf16 with fields straddling words), group 16 (a range per step).
        spec("u8", ActFormat::F16, None, Group(256), ZeroPoint::Implicit, Arch::Sm80),
        spec("u2", ActFormat::F16, None, Group(16), ZeroPoint::Implicit, Arch::Sm90),
        spec("u4", ActFormat::Bf16, None, PerChannel, ZeroPoint::Implicit, Arch::Sm80),
        spec("u5", ActFormat::Bf16, None, Group(64), ZeroPoint::Implicit, Arch::Sm89),
        // Folded offsets with per-group zero points (`FoldOffsets::dynamic_zero`): one pattern
        // spanning the range, two patterns a range per step; and f16 u3, which does not fold.
        spec("u4", ActFormat::Bf16, None, Group(128), ZeroPoint::Dynamic, Arch::Sm90),
        spec("u2", ActFormat::F16, None, Group(16), ZeroPoint::Dynamic, Arch::Sm80),
        spec("u3", ActFormat::F16, None, Group(64), ZeroPoint::Dynamic, Arch::Sm89),
    ];
    let mut ran = 0;
    for spec in &specs {
        for m_tiles in [1, 2, 4] {
            for (n_warps, k_warps) in [(1, 8), (1, 4), (2, 4), (1, 1), (2, 2)] {
                for bk in [128, 256, 512] {
                    let stages = if spec.arch() >= Arch::Sm80 { [2, 3, 4][ran % 3] } else { 1 };
                    let plan = KernelPlan { m_tiles, n_warps, k_warps, bk, stages, swap: true, wgmma: false, halves: false, ws: false };
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

/// Half-width warps ([`KernelPlan::halves`]: two warps per n64 block, 32 columns each) over
/// the even widths' dequantizer paths (folded offsets with one and two patterns, dynamic zero
/// points, floats, 8-bit scales), groups shorter than and spanning a warp's k range, swapped
/// (M from 1 to 21, several row tiles) and unswapped (1 to 8 m16 tiles), splits, partial stages
/// and k-warp reductions.
#[test]
fn half_width_plans_on_emulator() {
    use ScaleGroup::{Group, PerChannel};
    let specs = [
        spec("u4", ActFormat::F16, None, Group(128), ZeroPoint::Implicit, Arch::Sm90),
        spec("u4", ActFormat::F16, None, Group(32), ZeroPoint::Dynamic, Arch::Sm80),
        spec("u8", ActFormat::Bf16, None, Group(64), ZeroPoint::Dynamic, Arch::Sm80),
        spec("e2m1", ActFormat::Bf16, Some(ScaleFormat::Ue8m0), Group(32), ZeroPoint::Implicit, Arch::Sm90),
        spec("e4m3", ActFormat::F16, Some(ScaleFormat::E4m3), Group(16), ZeroPoint::Implicit, Arch::Sm89),
        spec("u8", ActFormat::F16, None, Group(256), ZeroPoint::Implicit, Arch::Sm80),
        spec("u2", ActFormat::F16, None, Group(16), ZeroPoint::Implicit, Arch::Sm90),
        spec("u6", ActFormat::F16, None, Group(64), ZeroPoint::Implicit, Arch::Sm90a),
        spec("u4", ActFormat::Bf16, None, PerChannel, ZeroPoint::Implicit, Arch::Sm80),
        spec("e3m2", ActFormat::Bf16, None, Group(128), ZeroPoint::Implicit, Arch::Sm86),
    ];
    let mut ran = 0;
    for spec in &specs {
        for m_tiles in [1, 2, 4] {
            // (1, 4) with four tiles: the M = 17..32 default of 4-bit weights on sm_90+.
            for (n_warps, k_warps) in [(1, 8), (2, 4), (1, 1), (2, 2), (1, 4)] {
                let bk = [128, 256, 512][ran % 3];
                let stages = [4, 3, 2][ran % 3];
                let mut plan = KernelPlan { m_tiles, n_warps, k_warps, bk, stages, swap: true, wgmma: false, halves: true, ws: false };
                // 8-bit weights on sm_80 (512-deep stages of 128 columns) and 32 rows on sm_89
                // take too much shared memory at the first depth.
                while plan.validate(spec.arch(), spec.weight().bits()).is_err() && (plan.bk > 128 || plan.stages > 2) {
                    if plan.bk > 128 {
                        plan.bk /= 2;
                    } else {
                        plan.stages -= 1;
                    }
                }
                plan.validate(spec.arch(), spec.weight().bits()).unwrap_or_else(|e| panic!("{spec}: {e}"));
                let m = [8 * m_tiles as usize - 3, 1, 8 * m_tiles as usize, 8 * m_tiles as usize + 5][ran % 4];
                let split = [1, 2, 3, 5][ran % 4];
                check_case(spec, &plan, m, split, ran, 3000 + ran as u64);
                ran += 1;
            }
        }
    }
    // Unswapped: m16 tiles of M (1 to 8), four n8 tiles of columns a warp.
    for spec in &specs {
        for m_tiles in [1, 2, 4, 8] {
            let (n_warps, k_warps) = [(1, 4), (2, 2), (1, 1), (2, 1)][ran % 4];
            let bk = [128, 256, 64][ran % 3];
            let mut plan = KernelPlan { m_tiles, n_warps, k_warps, bk, stages: [3, 2, 4][ran % 3], swap: false, wgmma: false, halves: true, ws: false };
            while plan.validate(spec.arch(), spec.weight().bits()).is_err() && plan.bk > 64 {
                plan.bk /= 2;
            }
            plan.validate(spec.arch(), spec.weight().bits()).unwrap_or_else(|e| panic!("{spec}: {e}"));
            let m = [16 * m_tiles as usize - 3, 1, 16 * m_tiles as usize + 5][ran % 3];
            let split = [1, 2, 3, 5][ran % 4];
            check_case(spec, &plan, m, split, ran, 3000 + ran as u64);
            ran += 1;
        }
    }
    report!("{ran} (spec, half-width plan) pairs checked on the emulator");
    assert_eq!(ran, 190);
    // Odd widths and wgmma plans have no half-width form.
    let odd = KernelPlan { m_tiles: 1, n_warps: 1, k_warps: 4, bk: 256, stages: 3, swap: true, wgmma: false, halves: true, ws: false };
    assert!(odd.validate(Arch::Sm90, 3).is_err());
    assert!(KernelPlan { swap: false, k_warps: 1, wgmma: true, ..odd }.validate(Arch::Sm90a, 4).is_err());
    assert_eq!("m2x8_n4x32_k4w_bk512_s3".parse::<KernelPlan>().unwrap(), KernelPlan { m_tiles: 2, n_warps: 2, k_warps: 4, bk: 512, stages: 3, swap: true, wgmma: false, halves: true, ws: false });
    assert_eq!(KernelPlan { m_tiles: 2, n_warps: 2, k_warps: 4, bk: 512, stages: 3, swap: true, wgmma: false, halves: true, ws: false }.to_string(), "m2x8_n4x32_k4w_bk512_s3");
}

/// Checks wgmma `plan` for `spec` on the emulator at an M of run `ran` (inside, at and past the
/// row tile, and 1) and split, and assembles it for sm_90a without spills; false (nothing run)
/// when the plan is not valid for the spec.
fn check_wgmma_case(spec: &Spec, plan: &KernelPlan, ran: usize, seed: u64) -> bool {
    if plan.validate(spec.arch(), spec.weight().bits()).is_err() {
        return false;
    }
    // Plans the spec rules out (a clear error, not a kernel): deep stages of a register-tight
    // plan with per-group zero points.
    if let Err(e) = humming_core::kernel::generate(spec, plan) {
        assert!(spec.zero_point() == ZeroPoint::Dynamic && plan.wgmma_registers_tight() && plan.bk > 128, "{spec} {plan}: {e}");
        assert!(e.to_string().contains("no registers to spare"), "{e}");
        return false;
    }
    let bm = 16 * plan.m_tiles as usize;
    let m = [bm - 3, bm, 1, bm + 5][ran % 4];
    let split = [1, 2, 3][ran % 3];
    check_case(spec, plan, m, split, ran, seed);
    let kernels = humming_core::kernel::generate(spec, plan).unwrap();
    humming_core::ir::ptx::ptxas::assert_assembles_clean(&kernels.main, &[Arch::Sm90a]);
    true
}

/// wgmma plans (sm_90a: warpgroups, the dequantized weights as wgmma's register A operand, the
/// activations as B in core matrices) over 4- and 8-bit formats with 16- and 8-bit scales and
/// implicit or per-group zero points, M tiles 16..256, one, two and
/// four warpgroups (as registers allow), stage depths, partial stages and splits; each also
/// assembled by ptxas.
#[test]
fn wgmma_plans_on_emulator() {
    use ScaleGroup::{Group, PerChannel};
    let sm90a = |w: &str, act: ActFormat, group: ScaleGroup| spec(w, act, None, group, ZeroPoint::Implicit, Arch::Sm90a);
    // 8-bit scales too (MXFP4: ue8m0 in groups of 32; e4m3 in groups of 16), and per-group zero
    // points.
    let scaled = |w: &str, act: ActFormat, scale: ScaleFormat, group: ScaleGroup| spec(w, act, Some(scale), group, ZeroPoint::Implicit, Arch::Sm90a);
    let specs = [
        sm90a("u4", ActFormat::F16, Group(128)),
        sm90a("e2m1", ActFormat::Bf16, Group(32)),
        sm90a("u8", ActFormat::F16, Group(64)),
        sm90a("i4", ActFormat::Bf16, PerChannel),
        scaled("e2m1", ActFormat::Bf16, ScaleFormat::Ue8m0, Group(32)),
        scaled("u4", ActFormat::F16, ScaleFormat::E4m3, Group(16)),
        spec("u4", ActFormat::Bf16, None, Group(64), ZeroPoint::Dynamic, Arch::Sm90a),
        spec("u8", ActFormat::F16, Some(ScaleFormat::E5m2), Group(128), ZeroPoint::Dynamic, Arch::Sm90a),
    ];
    let mut ran = 0;
    for spec in &specs {
        for m_tiles in [1, 2, 4, 8, 16] {
            for n_warps in [1, 2, 4] {
                for bk in [64, 128, 256] {
                    let plan = KernelPlan { m_tiles, n_warps, k_warps: 1, bk, stages: [2, 3, 4][ran % 3], swap: false, wgmma: true, halves: false, ws: false };
                    if check_wgmma_case(spec, &plan, ran, 2000 + ran as u64) {
                        ran += 1;
                    }
                }
            }
        }
    }
    report!("{ran} (spec, wgmma plan) pairs checked on the emulator");
    assert!(ran >= 70);
}

/// Warp-specialized wgmma plans ([`KernelPlan::ws`]: a producer warpgroup copies the stages and
/// signals them on mbarriers, the wgmma warpgroups wait, compute and free the slots): M tiles,
/// warpgroups, stage depths (ring wrap-around several times), partial stages, splits, each also
/// assembled by ptxas.
#[test]
fn warp_specialized_plans_on_emulator() {
    use ScaleGroup::{Group, PerChannel};
    let sm90a = |w: &str, act: ActFormat, group: ScaleGroup| spec(w, act, None, group, ZeroPoint::Implicit, Arch::Sm90a);
    let mxfp4 = spec("e2m1", ActFormat::Bf16, Some(ScaleFormat::Ue8m0), Group(32), ZeroPoint::Implicit, Arch::Sm90a);
    let zp = spec("u4", ActFormat::F16, None, Group(128), ZeroPoint::Dynamic, Arch::Sm90a);
    // 8-bit scales of groups that span a stage: tiles of up to 32 rows scale the f32 sums with
    // them (`wg_sums` in the generator); MXFP4 above, with groups of 32, scales fragments.
    let e4m3_scales = spec("u4", ActFormat::F16, Some(ScaleFormat::E4m3), Group(128), ZeroPoint::Implicit, Arch::Sm90a);
    let specs = [sm90a("u4", ActFormat::F16, Group(128)), sm90a("e2m1", ActFormat::Bf16, Group(32)), sm90a("u8", ActFormat::F16, PerChannel), mxfp4, zp, e4m3_scales, sm90a("u4", ActFormat::Bf16, Group(128))];
    let mut ran = 0;
    for spec in &specs {
        // Up to four math warpgroups (640 threads: the producer gives registers back), up to
        // 256 rows (the epilogue runs in the math warps' branch: the producer holds no
        // accumulators).
        for m_tiles in [1, 2, 4, 8, 16] {
            for n_warps in [1, 2, 3, 4] {
                for bk in [64, 128] {
                    let plan = KernelPlan { m_tiles, n_warps, k_warps: 1, bk, stages: [2, 3, 4, 5][ran % 4], swap: false, wgmma: true, halves: false, ws: true };
                    if check_wgmma_case(spec, &plan, ran, 4000 + ran as u64) {
                        assert_eq!(plan.to_string().parse::<KernelPlan>().unwrap(), plan);
                        ran += 1;
                    }
                }
            }
        }
    }
    report!("{ran} (spec, warp-specialized plan) pairs checked on the emulator");
    assert!(ran >= 40);
    // Only wgmma plans with cp.async stages have a producer.
    let mma = KernelPlan { m_tiles: 4, n_warps: 2, k_warps: 1, bk: 128, stages: 3, swap: false, wgmma: false, halves: false, ws: true };
    assert!(mma.validate(Arch::Sm90a, 4).is_err());
}

/// 4-bit floats (e2m1, e1m2, e3m0) with both activation types (elsewhere bf16 alone): the
/// swapped mma.sync plans (full and half width, f32 sums scaled), an unswapped one, and the
/// warp-specialized wgmma tile (fragments scaled: groups of 32 inside its stage), on the emulator.
#[test]
fn four_bit_floats_on_emulator() {
    let plans = ["m1x8_n1x64_k8w_bk512_s5", "m2x8_n2x32_k4w_bk512_s3", "m4x16_n2x32_k2w_bk128_s3", "m1x16_n4x64_k1w_bk128_s4_ws"];
    let mut ran = 0;
    for w in ["e2m1", "e1m2", "e3m0"] {
        for act in [ActFormat::F16, ActFormat::Bf16] {
            let spec = spec(w, act, Some(ScaleFormat::E4m3), ScaleGroup::Group(32), ZeroPoint::Implicit, Arch::Sm90a);
            for (i, name) in plans.iter().enumerate() {
                let plan: KernelPlan = name.parse().unwrap();
                let m = [1, 13, 40, 9][i];
                check_case(&spec, &plan, m, [1, 2][ran % 2], ran, 7000 + ran as u64);
                ran += 1;
            }
        }
    }
    report!("{ran} (4-bit float spec, plan) pairs checked on the emulator");
    assert_eq!(ran, 24);
}

/// Weights of every width other than 4 and 8 bits on wgmma plans: each warp rebuilds its m16
/// tile's words from a bit offset that differs between the warps of a warpgroup (`a16::window`).
/// Integer codes of 1, 2, 3, 5, 6 and 7 bits (implicit and per-group zero points, both activation
/// types, 8-bit scales) and 6- / 5- / 7-bit floats, on the warp-specialized tiles (16 and 32 rows
/// with f32 sums, 48, 64 and 128 rows) and the plain ones of 64 rows, with splits, partial last
/// stages and M inside and past the tile, against the f64 reference; each also assembled by
/// ptxas.
#[test]
fn every_width_on_wgmma_plans() {
    use ScaleGroup::{Group, PerChannel};
    let (f16, bf16, imp, dynamic) = (ActFormat::F16, ActFormat::Bf16, ZeroPoint::Implicit, ZeroPoint::Dynamic);
    let cases = [
        (spec("u1", f16, None, Group(128), dynamic, Arch::Sm90a), "m4x16_n2x64_k1w_bk128_s3_wg"),
        (spec("u2", bf16, None, Group(64), imp, Arch::Sm90a), "m1x16_n4x64_k1w_bk128_s4_ws"),
        (spec("u3", f16, None, Group(128), imp, Arch::Sm90a), "m4x16_n2x64_k1w_bk128_s4_ws"),
        (spec("u3", bf16, Some(ScaleFormat::E4m3), Group(16), imp, Arch::Sm90a), "m2x16_n4x64_k1w_bk128_s4_ws"),
        (spec("i3", f16, None, PerChannel, imp, Arch::Sm90a), "m8x16_n2x64_k1w_bk128_s4_ws"),
        (spec("u3", bf16, None, Group(128), imp, Arch::Sm90a), "m4x16_n4x64_k1w_bk128_s4_wg"),
        (spec("u3", f16, None, Group(128), dynamic, Arch::Sm90a), "m4x16_n4x64_k1w_bk128_s4_ws"),
        (spec("u5", f16, None, Group(32), imp, Arch::Sm90a), "m2x16_n2x64_k1w_bk128_s4_ws"),
        (spec("u5", bf16, None, Group(128), dynamic, Arch::Sm90a), "m4x16_n4x64_k1w_bk128_s4_wg"),
        (spec("u6", f16, None, Group(128), imp, Arch::Sm90a), "m8x16_n2x64_k1w_bk128_s4_ws"),
        (spec("u6", bf16, None, Group(64), dynamic, Arch::Sm90a), "m3x16_n2x64_k1w_bk128_s4_ws"),
        (spec("u7", bf16, None, Group(128), imp, Arch::Sm90a), "m4x16_n2x64_k1w_bk128_s4_ws"),
        (spec("u7", f16, None, Group(64), dynamic, Arch::Sm90a), "m1x16_n2x64_k1w_bk128_s4_ws"),
        (spec("e3m2", bf16, Some(ScaleFormat::Ue8m0), Group(32), imp, Arch::Sm90a), "m4x16_n2x64_k1w_bk128_s4_ws"),
        (spec("e2m3", f16, None, Group(128), imp, Arch::Sm90a), "m2x16_n2x64_k1w_bk128_s4_ws"),
        (spec("e2m2", bf16, None, Group(128), imp, Arch::Sm90a), "m8x16_n2x64_k1w_bk128_s4_ws"),
        (spec("e3m3", f16, None, Group(64), imp, Arch::Sm90a), "m4x16_n2x64_k1w_bk128_s4_ws"),
        (spec("e3m2", f16, None, Group(128), imp, Arch::Sm90a), "m4x16_n2x64_k1w_bk128_s6_wg"),
    ];
    let mut ran = 0;
    for (spec, name) in &cases {
        assert!(humming_core::kernel::wgmma_supported(spec), "{spec}");
        let plan: KernelPlan = name.parse().unwrap();
        assert!(plan.wgmma, "{plan}");
        assert!(check_wgmma_case(spec, &plan, ran, 9000 + ran as u64), "{spec} {plan} not valid");
        ran += 1;
    }
    report!("{ran} (odd-width spec, wgmma plan) pairs checked on the emulator");
    assert_eq!(ran, cases.len());
    // The plain 128-row tile of four warpgroups has no registers for the window's shifts (ptxas
    // spills): refused for every width but 4 and 8 bits.
    let tight: KernelPlan = "m8x16_n4x64_k1w_bk128_s3_wg".parse().unwrap();
    assert!(tight.wgmma_registers_tight());
    for bits in 1..=8u8 {
        assert_eq!(tight.validate(Arch::Sm90a, bits).is_ok(), matches!(bits, 4 | 8), "{bits} bits");
    }
}

/// The plans a lean-DRAM GPU's rules give M 9..16 of the codes that dequantize at more cost
/// than 4-bit integers (v37: 64-column tiles with four k-warps above 4 bits, 16-row tiles of 128
/// columns for 4-bit floats with bf16 activations), as the rules pick them, against the f64
/// reference on the emulator (ragged N, a partial last stage, splits).
#[test]
fn lean_m16_plans_of_wider_codes_on_emulator() {
    use ScaleGroup::Group;
    let lean = humming_core::kernel::DeviceProfile::H100_SXM;
    let (f16, bf16, imp) = (ActFormat::F16, ActFormat::Bf16, ZeroPoint::Implicit);
    let cases = [
        (spec("u5", f16, None, Group(128), imp, Arch::Sm90a), "m2x8_n1x64_k4w_bk256_s4"),
        (spec("u6", bf16, None, Group(64), ZeroPoint::Dynamic, Arch::Sm90), "m2x8_n1x64_k4w_bk256_s4"),
        (spec("i7", f16, None, Group(128), imp, Arch::Sm90a), "m2x8_n1x64_k4w_bk256_s4"),
        (spec("u8", bf16, None, Group(32), imp, Arch::Sm90a), "m2x8_n1x64_k4w_bk256_s4"),
        (spec("e3m2", bf16, Some(ScaleFormat::Ue8m0), Group(32), imp, Arch::Sm90a), "m2x8_n1x64_k4w_bk256_s4"),
        (spec("e2m3", f16, Some(ScaleFormat::E4m3), Group(16), imp, Arch::Sm90), "m2x8_n1x64_k4w_bk256_s4"),
        (spec("e2m1", bf16, Some(ScaleFormat::Ue8m0), Group(32), imp, Arch::Sm90a), "m1x16_n2x64_k4w_bk256_s4"),
        (spec("e2m1", bf16, Some(ScaleFormat::E4m3), Group(16), imp, Arch::Sm90), "m1x16_n2x64_k4w_bk256_s4"),
    ];
    for (ran, (spec, name)) in cases.iter().enumerate() {
        let m = [9, 13, 16][ran % 3];
        let plan = KernelPlan::choose_for_device(spec, m, 8192, 8192, Some(&lean));
        assert_eq!(plan.to_string(), *name, "{spec} M {m}");
        check_case(spec, &plan, m, [1, 2, 3][ran % 3], ran, 9500 + ran as u64);
    }
    report!("{} (spec, lean M 9..16 plan) pairs checked on the emulator", cases.len());
}

/// Unswapped full-width mma.sync plans stop at 4 m16 tiles (`MMA_SYNC_ACC_MAX`): past it ptxas
/// spills their accumulators (m8x16: 1.9-2.5 KB), so `validate` names the limit instead of
/// generating a slow kernel. Half-width, swapped and wgmma plans of as many rows stay valid, on
/// every target that has them.
#[test]
fn mma_sync_plans_stop_at_four_m16_tiles() {
    for arch in [Arch::Sm75, Arch::Sm80, Arch::Sm90a] {
        let stages = if arch == Arch::Sm75 { 1 } else { 2 };
        for m_tiles in 5..=8 {
            let plan = KernelPlan { m_tiles, n_warps: 1, k_warps: 2, bk: 64, stages, swap: false, wgmma: false, halves: false, ws: false };
            let e = plan.validate(arch, 4).expect_err("more than 4 m16 tiles of mma.sync");
            assert!(e.to_string().contains(&format!("at most 4 m16 tiles (128 f32 accumulators a lane): {m_tiles} tiles need {}", 32 * m_tiles)), "{e}");
            let halves = KernelPlan { halves: true, ..plan };
            halves.validate(arch, 4).unwrap_or_else(|e| panic!("{arch} {halves}: {e}"));
        }
        let four = KernelPlan { m_tiles: 4, n_warps: 1, k_warps: 2, bk: 64, stages, swap: false, wgmma: false, halves: false, ws: false };
        four.validate(arch, 4).unwrap_or_else(|e| panic!("{arch} {four}: {e}"));
    }
    for name in ["m8x16_n2x64_k1w_bk128_s4_ws", "m16x16_n2x64_k1w_bk64_s5_ws", "m8x16_n4x32_k2w_bk128_s3", "m4x8_n2x32_k4w_bk512_s4"] {
        let plan: KernelPlan = name.parse().unwrap();
        plan.validate(Arch::Sm90a, 4).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// wgmma plans align their dynamic shared base up to 1 KB themselves (their swizzled activation
/// tiles need it; the XOR wgmma applies is on absolute address bits, as the emulator models):
/// with the dynamic array placed 128 bytes past a 1 KB boundary the kernels still match the f64
/// reference.
#[test]
fn wgmma_plans_align_their_shared_base() {
    let s = spec("u4", ActFormat::F16, None, ScaleGroup::Group(128), ZeroPoint::Implicit, Arch::Sm90a);
    for name in ["m4x16_n4x64_k1w_bk128_s4_wg", "m8x16_n2x64_k1w_bk128_s4_ws"] {
        let plan: KernelPlan = name.parse().unwrap();
        let mut ex = Emulator::new();
        ex.set_dynamic_shared_skew(128);
        check_gemm(&mut ex, &s, &plan, (61, 136, 512), 2, 77).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// Which dequantizers fold their offsets into an MMA (`Dequant::fold_offsets`), and the constants:
/// minus (magic value of the field's bit offset + zero point), as 16-bit pairs in A order.
#[test]
fn folded_offsets_cover_the_integer_magic_paths() {
    use humming_core::kernel::dequant::{Act16, Dequant};
    use humming_core::format::FloatFormat;
    let int = |act, bits: u8| Dequant::IntMagic { act, bits, implicit_zero: Some(1 << (bits - 1)) };
    let pair = |x: f32| half::f16::from_f32(x).to_bits() as u32 * 0x0001_0001;
    // u4 in f16: low nibbles in place under 1024 (k half 0), high ones under 64 (k half 1).
    let u4 = int(Act16::F16, 4).fold_offsets().expect("u4 f16 folds");
    assert_eq!(u4.patterns, vec![[pair(-1032.0), pair(-1032.0), pair(-72.0), pair(-72.0)]]);
    assert_eq!(u4.of_tile, [0; 4]);
    let u8f = int(Act16::F16, 8).fold_offsets().expect("u8 f16 folds");
    assert_eq!(u8f.patterns, vec![[pair(-1152.0); 4]]);
    // Two patterns (alternate m16 tiles) still fold; more do not.
    let u2 = int(Act16::F16, 2).fold_offsets().expect("u2 f16 folds");
    assert_eq!((u2.patterns.len(), u2.of_tile), (2, [0, 1, 0, 1]));
    for bits in [1, 3, 5, 7] {
        assert!(int(Act16::F16, bits).fold_offsets().is_none(), "f16 u{bits}");
    }
    for bits in 1..=7 {
        assert!(int(Act16::Bf16, bits).fold_offsets().is_some(), "bf16 u{bits}");
    }
    // Dynamic zero points fold the magic offsets alone (the kernel subtracts z x the activation
    // sums); the f32 path and floats keep their per-pair arithmetic.
    let zd = Dequant::IntMagic { act: Act16::F16, bits: 4, implicit_zero: None }.fold_offsets().expect("u4 f16 with zero points folds");
    assert_eq!((zd.patterns, zd.dynamic_zero), (vec![[pair(-1024.0), pair(-1024.0), pair(-64.0), pair(-64.0)]], true));
    assert!(!u4.dynamic_zero);
    assert!(Dequant::IntF32 { implicit_zero: Some(128) }.fold_offsets().is_none());
    assert!(Dequant::FloatRealign { act: Act16::F16, format: FloatFormat::E2M1 }.fold_offsets().is_none());
}

/// The warp-specialized producer's bulk weight copies carry the evict-first L2 policy
/// (`A16Config::bulk_evict_first`), while no per-thread `cp.async` does (`evict_first` stays off
/// for ptxas's miscompile of hinted LDGSTS in these kernels); the mma.sync plans have no hint.
#[test]
fn only_the_bulk_weight_copies_carry_the_l2_hint() {
    let s = spec("u4", ActFormat::F16, None, ScaleGroup::Group(128), ZeroPoint::Implicit, Arch::Sm90a);
    let ptx_of = |name: &str| {
        let plan: KernelPlan = name.parse().unwrap();
        let kernels = humming_core::kernel::generate(&s, &plan).unwrap();
        humming_core::ir::ptx::print(&kernels.main, Arch::Sm90a).unwrap()
    };
    let ws = ptx_of("m8x16_n2x64_k1w_bk128_s4_ws");
    let bulk: Vec<&str> = ws.lines().filter(|l| l.contains("cp.async.bulk.shared")).collect();
    assert!(!bulk.is_empty(), "no bulk copies in the ws kernel");
    assert!(bulk.iter().all(|l| l.contains(".L2::cache_hint")), "{bulk:?}");
    assert!(ws.contains("createpolicy.fractional.L2::evict_first"), "no evict-first policy");
    for (name, ptx) in [("ws", &ws), ("mma.sync", &ptx_of("m2x8_n2x64_k2w_bk256_s4"))] {
        let hinted: Vec<&str> = ptx.lines().filter(|l| l.contains("cp.async.c") && l.contains("cache_hint")).collect();
        assert!(hinted.is_empty(), "{name}: hinted cp.async {hinted:?}");
    }
}

/// Warp-specialized tiles of one math warpgroup and up to 64 rows run two CTAs an SM
/// (`KernelPlan::ws_ctas_per_sm`): half the register file a CTA, the producer down to what its
/// copies need so that the math warpgroup's `setmaxnreg.inc` raises its count, shared memory for
/// two, and `split_k_for` fills two CTAs an SM. Every other plan keeps one CTA an SM, and no
/// default plan of either profile is such a tile.
#[test]
fn one_math_warpgroup_tiles_run_two_ctas_an_sm() {
    use humming_core::kernel::DeviceProfile;
    for (name, regs) in [("m2x16_n1x64_k1w_bk128_s4_ws", (128, 80, 176)), ("m4x16_n1x64_k1w_bk128_s5_ws", (128, 80, 176)), ("m1x16_n1x64_k1w_bk128_s6_ws", (128, 80, 176))] {
        let plan: KernelPlan = name.parse().unwrap();
        plan.validate(Arch::Sm90a, 4).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((plan.ws_ctas_per_sm(), plan.ws_registers(4)), (2, Some(regs)), "{name}");
        assert!(2 * (plan.smem_bytes_q(4, 2) + 1024) <= 228 * 1024, "{name}: two CTAs' shared memory");
    }
    // One CTA an SM: two or more math warpgroups, or more than 64 rows.
    for (name, regs) in [("m2x16_n2x64_k1w_bk128_s4_ws", (168, 128, 184)), ("m4x16_n2x64_k1w_bk128_s4_ws", (168, 128, 184)), ("m8x16_n1x64_k1w_bk128_s4_ws", (248, 128, 256))] {
        let plan: KernelPlan = name.parse().unwrap();
        assert_eq!((plan.ws_ctas_per_sm(), plan.ws_registers(4)), (1, Some(regs)), "{name}");
    }
    // v31's best splits of the one-warpgroup tile (H100, 132 SMs): 2 on 8192^2 and 8192 x 28672 (256
    // CTAs), 4 on 4096 x 14336, 1 on 14336 x 4096; the two-warpgroup tile's, one CTA an SM, alike.
    let one: KernelPlan = "m2x16_n1x64_k1w_bk128_s4_ws".parse().unwrap();
    let two: KernelPlan = "m2x16_n2x64_k1w_bk128_s4_ws".parse().unwrap();
    for ((n, k), s1, s2) in [((8192, 8192), 2, 2), ((4096, 14336), 4, 4), ((14336, 4096), 1, 1), ((8192, 28672), 2, 2)] {
        assert_eq!((one.split_k_for(32, n, k, 132), two.split_k_for(32, n, k, 132)), (s1, s2), "{n} x {k}");
    }
    let s = spec("u4", ActFormat::F16, None, ScaleGroup::Group(128), ZeroPoint::Implicit, Arch::Sm90a);
    let h100 = DeviceProfile::from_memory_clock(2_619_000, 5120, 132).unwrap();
    for device in [None, Some(&h100)] {
        for (n, k) in [(4096, 4096), (8192, 8192), (4096, 14336), (14336, 4096), (8192, 28672), (28672, 8192), (2048, 8192), (128, 4096)] {
            for m in [1, 8, 16, 24, 32, 48, 64, 128, 256] {
                let plan = KernelPlan::choose_for_device(&s, m, n, k, device);
                assert_eq!(plan.ws_ctas_per_sm(), 1, "{n} x {k} M = {m}: {plan}");
            }
        }
    }
}
