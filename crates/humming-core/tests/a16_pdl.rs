//! Programmatic dependent launch on the emulator: the sm_90 GEMMs touch nothing but their
//! weights, scales and zero points before `griddepcontrol.wait` (an earlier grid may still be
//! writing the activations, or reading the output and the split-K workspace), for every M
//! bucket's plan, split K and spec family; and the emulator's guard does catch a kernel that
//! reads anything else before its wait.

use humming_core::ir::emu::Emulator;
use humming_core::kernel::check::check_gemm;
use humming_core::kernel::KernelPlan;
use humming_core::*;

const WEIGHTS: &[&str] = &["b", "scales", "zeros"];

fn spec(w: &str, act: ActFormat, arch: Arch, f: impl FnOnce(&mut SpecParts)) -> Spec {
    let mut p = SpecParts::new(WeightFormat::parse(w).unwrap(), act);
    p.arch = arch;
    f(&mut p);
    Spec::new(p).unwrap()
}

#[test]
fn sm90_gemms_touch_only_weights_before_the_grid_wait() {
    let specs = [
        spec("u4", ActFormat::F16, Arch::Sm90, |_| {}),
        spec("u3", ActFormat::Bf16, Arch::Sm90a, |p| p.zero_point = ZeroPoint::Dynamic),
        spec("e2m1", ActFormat::Bf16, Arch::Sm90, |p| {
            p.scale = ScaleFormat::Ue8m0;
            p.group = ScaleGroup::Group(32);
        }),
        spec("u8", ActFormat::F16, Arch::Sm90, |p| p.global_scale = true),
    ];
    let mut ran = 0;
    for spec in &specs {
        for (top, plan) in KernelPlan::buckets(spec.arch(), spec.weight().bits()) {
            let m = (top.min(80) as usize).saturating_sub(3).max(1);
            for split in [1, 3] {
                let mut ex = Emulator::new();
                ex.set_pre_wait_params(Some(WEIGHTS));
                check_gemm(&mut ex, spec, &plan, (m, 136, 328), split, ran).unwrap_or_else(|e| panic!("{spec} {plan} split {split}: {e}"));
                ran += 1;
            }
        }
    }
    eprintln!("{ran} sm_90 (spec, plan, split) GEMMs touched only their weights before griddepcontrol.wait");
    assert!(ran >= 16);
}

/// The guard is live: allowing less than the weights (the scales are copied before the wait
/// too), or running a kernel without the wait at all (sm_80), fails with the typed error.
#[test]
fn the_guard_catches_accesses_before_the_wait() {
    let plan = |s: &Spec| KernelPlan::buckets(s.arch(), s.weight().bits())[0].1;
    for (s, allowed) in [(spec("u4", ActFormat::F16, Arch::Sm90, |_| {}), &["b"][..]), (spec("u4", ActFormat::F16, Arch::Sm80, |_| {}), WEIGHTS)] {
        let mut ex = Emulator::new();
        ex.set_pre_wait_params(Some(allowed));
        let err = check_gemm(&mut ex, &s, &plan(&s), (5, 136, 328), 1, 7).expect_err("must be refused");
        assert!(err.contains("before griddepcontrol.wait"), "{s} allowing {allowed:?}: {err}");
    }
}
