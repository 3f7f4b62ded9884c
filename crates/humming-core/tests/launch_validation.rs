//! Every launch operand is validated before anything runs: each misuse returns its typed
//! `LaunchError` and leaves the output untouched (still poisoned).

use humming_core::ir::emu::Emulator;
use humming_core::ir::{DevPtr, Executor};
use humming_core::kernel::launch::{Buf, GemmError, alloc_workspace, GemmOperands, LaunchError, prepare, run_gemm_in, upload_weights, workspace_bytes};
use humming_core::kernel::{GemmKernels, KernelPlan, generate};
use humming_core::pack::a16::PackedA16;
use humming_core::quant::{QuantConfig, quantize};
use humming_core::rng::SplitMix64;
use humming_core::*;

const M: usize = 5;
const N: usize = 96;
const K: usize = 256;

fn spec_with(f: impl FnOnce(&mut SpecParts)) -> Spec {
    let mut p = SpecParts::new(WeightFormat::UInt(4), ActFormat::F16);
    p.group = ScaleGroup::Group(64);
    f(&mut p);
    Spec::new(p).unwrap()
}

fn packed(spec: &Spec) -> PackedA16 {
    let mut rng = SplitMix64::new(3);
    let w: Vec<f32> = (0..N * K).map(|_| rng.unit_f32()).collect();
    let cfg = QuantConfig::new(spec.weight(), spec.scale(), spec.group())
        .with_zero_point(spec.zero_point())
        .with_global_scale(spec.global_scale());
    PackedA16::from_quantized(&quantize(&w, N, K, &cfg).unwrap(), spec.act()).unwrap()
}

struct Setup {
    ex: Emulator,
    kernels: GemmKernels,
    a: DevPtr,
    out: DevPtr,
}

fn setup(spec: &Spec) -> Setup {
    let mut ex = Emulator::new();
    let plan = KernelPlan::choose(M, 128, humming_core::kernel::plan::DEFAULT_DIM, spec.arch(), 4);
    let kernels = generate(spec, &plan).unwrap();
    let mut rng = SplitMix64::new(9);
    let a: Vec<u16> = (0..M * K).map(|_| half::f16::from_f32(rng.unit_f32()).to_bits()).collect();
    let a = ex.upload_new(&a).unwrap();
    let out = ex.upload_new(&vec![0xFFFFu16; M * N]).unwrap();
    Setup { ex, kernels, a, out }
}

/// Runs `ops` (built from the defaults by `edit`) and returns the launch error; checks that
/// the output was not written.
fn misuse(spec: &Spec, weights_spec: &Spec, edit: impl FnOnce(&mut GemmOperands)) -> LaunchError {
    let mut s = setup(spec);
    let w = upload_weights(&mut s.ex, &packed(weights_spec)).unwrap();
    let mut ops = GemmOperands {
        weights: &w,
        a: Buf { ptr: s.a, len: M * K },
        out: Buf { ptr: s.out, len: M * N },
        workspace: None,
        m: M,
        split: 1,
    };
    edit(&mut ops);
    let err = match run_gemm_in(&mut s.ex, &s.kernels, &ops) {
        Err(GemmError::Invalid(e)) => e,
        other => panic!("expected a launch error, got {other:?}"),
    };
    let out: Vec<u16> = s.ex.download_vec(s.out, M * N).unwrap();
    assert!(out.iter().all(|&v| v == 0xFFFF), "an invalid launch wrote the output");
    err
}

#[test]
fn valid_launch_writes_every_output() {
    let spec = spec_with(|_| {});
    let mut s = setup(&spec);
    let w = upload_weights(&mut s.ex, &packed(&spec)).unwrap();
    // Zero-filled, as the in-kernel split-K reduction requires.
    let ws = alloc_workspace(&mut s.ex, &w.desc.layout, M, 2).unwrap();
    assert_eq!(ws.unwrap().len, workspace_bytes(&w.desc.layout, M, 2));
    let ops = GemmOperands { weights: &w, a: Buf { ptr: s.a, len: M * K }, out: Buf { ptr: s.out, len: M * N }, workspace: ws, m: M, split: 2 };
    run_gemm_in(&mut s.ex, &s.kernels, &ops).unwrap();
    let out: Vec<u16> = s.ex.download_vec(s.out, M * N).unwrap();
    assert!(out.iter().all(|&v| half::f16::from_bits(v).is_finite()));
}

/// Launches validated with a placeholder workspace and given the real one afterwards (the
/// runtime's order: nothing is allocated for an invalid launch) equal launches prepared with the
/// real one; a misaligned workspace is still refused.
#[test]
fn workspace_given_after_validation_equals_preparing_with_it() {
    let spec = spec_with(|_| {});
    let mut s = setup(&spec);
    let w = upload_weights(&mut s.ex, &packed(&spec)).unwrap();
    let ws = alloc_workspace(&mut s.ex, &w.desc.layout, M, 2).unwrap().unwrap();
    let ops = |ws: Buf| GemmOperands { weights: &w, a: Buf { ptr: s.a, len: M * K }, out: Buf { ptr: s.out, len: M * N }, workspace: Some(ws), m: M, split: 2 };
    let plan = s.kernels.plan;
    let probe = prepare(&spec, &plan, &ops(Buf { ptr: DevPtr(256), len: ws.len })).unwrap();
    let real = prepare(&spec, &plan, &ops(ws)).unwrap();
    assert_ne!(probe, real);
    assert_eq!(probe.clone().with_workspace(ws.ptr).unwrap(), real);
    let odd = DevPtr(ws.ptr.0 + 8);
    assert!(matches!(probe.with_workspace(odd), Err(LaunchError::Misaligned { operand: "workspace", .. })));
}

#[test]
fn weights_of_another_spec_are_rejected() {
    let spec = spec_with(|_| {});
    let cases: Vec<(Spec, &str)> = vec![
        (spec_with(|p| p.weight = WeightFormat::UInt(3)), "weight format"),
        (spec_with(|p| p.scale = ScaleFormat::E4m3), "scale format"),
        (spec_with(|p| p.group = ScaleGroup::Group(128)), "scale group"),
        (spec_with(|p| p.group = ScaleGroup::PerChannel), "scale group"),
        (spec_with(|p| p.zero_point = ZeroPoint::Dynamic), "zero point"),
        (spec_with(|p| p.global_scale = true), "global scale"),
    ];
    for (wspec, field) in cases {
        match misuse(&spec, &wspec, |_| {}) {
            LaunchError::WeightsMismatch { field: f, .. } => assert_eq!(f, field, "weights {wspec}"),
            e => panic!("weights {wspec}: {e}"),
        }
    }
}

/// 4-bit float codes sit where the kernels of one activation type rebuild them: weights packed
/// for f16 kernels are refused by a bf16 kernel (and the other way round).
#[test]
fn four_bit_floats_packed_for_another_activation_type_are_rejected() {
    let fp4 = |act| spec_with(|p| (p.weight, p.act, p.scale) = (WeightFormat::Float(FloatFormat::E2M1), act, ScaleFormat::E4m3));
    for (kernel, weights) in [(ActFormat::Bf16, ActFormat::F16), (ActFormat::F16, ActFormat::Bf16)] {
        match misuse(&fp4(kernel), &fp4(weights), |_| {}) {
            LaunchError::WeightsMismatch { field: "bit placement", .. } => {}
            e => panic!("e2m1 packed for {weights}, kernel for {kernel}: {e}"),
        }
    }
}

#[test]
fn bad_shapes_lengths_alignment_and_splits_are_rejected() {
    let spec = spec_with(|_| {});
    let e = misuse(&spec, &spec, |o| o.m = 0);
    assert!(matches!(e, LaunchError::M { m: 0, .. }), "{e}");
    let e = misuse(&spec, &spec, |o| o.a.len = M * K - 1);
    assert!(matches!(e, LaunchError::TooShort { operand: "activations", needed, .. } if needed == M * K), "{e}");
    let e = misuse(&spec, &spec, |o| o.out.len = M * N - 8);
    assert!(matches!(e, LaunchError::TooShort { operand: "output", .. }), "{e}");
    let e = misuse(&spec, &spec, |o| {
        o.a.ptr = o.a.ptr.offset(2);
        o.a.len = M * K;
    });
    assert!(matches!(e, LaunchError::Misaligned { operand: "activations", align: 16, .. }), "{e}");
    let e = misuse(&spec, &spec, |o| o.split = 0);
    assert!(matches!(e, LaunchError::Split { split: 0, .. }), "{e}");
    let too_many = humming_core::kernel::launch::MAX_SPLIT + 1;
    let e = misuse(&spec, &spec, |o| o.split = too_many);
    assert!(matches!(e, LaunchError::Split { split, .. } if split == too_many), "{e}");
    let e = misuse(&spec, &spec, |o| o.split = 2);
    assert!(e.to_string().contains("needs a workspace"), "{e}");
    let e = misuse(&spec, &spec, |o| {
        o.split = 2;
        o.workspace = Some(Buf { ptr: o.out.ptr, len: 16 });
    });
    assert!(matches!(e, LaunchError::TooShort { operand: "workspace (bytes)", .. }), "{e}");
    // Messages name the shape.
    let e = misuse(&spec, &spec, |o| o.a.len = 10);
    assert!(e.to_string().contains(&format!("M x N x K = {M} x {N} x {K}")), "{e}");
}
