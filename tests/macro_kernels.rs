//! Kernels written with `#[humming_gemm]`, run on the CPU emulator: every bundle (one per
//! target) of every annotated fn is checked against the f64 reference, element by element, at
//! ragged shapes for every variant's M bucket, and the embedded bundles are compared with what
//! the generator builds for the same spec at run time.
//!
//! The default set is small, so that CI stays fast. A larger matrix (every integer width, several
//! float formats) is behind the `kernel-matrix` feature:
//!
//!     cargo test --release -p humming --test macro_kernels --features kernel-matrix
//!
//! Gate your own annotated-kernel tests the same way: put the annotated fns in a module under
//! `#[cfg(feature = "...")]`. The `cfg` is evaluated before the attribute macros inside, so with
//! the feature off the kernels are not even generated (no compile time spent on them).

use humming::core::ir::emu::Emulator;
use humming::core::kernel::check::{check_bundle, check_kernels};
use humming::core::kernel::{DeviceProfile, GemmBundle, KernelPlan};
use humming::core::{ActFormat, Arch, FloatFormat, OutFormat, ScaleFormat, ScaleGroup, Spec, SpecParts, WeightFormat, ZeroPoint};
use humming::cuda::{DeviceBuf, GpuWeights, RuntimeError, Stream};
use humming::half::{bf16, f16};
use humming::macros::humming_gemm;

/// The ragged N and K of every check (N not a multiple of the 64-wide warp tile; K three 128-wide
/// stages).
const N: usize = 200;
const K: usize = 384;

/// W4A16, the common case: uint4 with the implicit zero point, f16 scales per 128.
#[humming_gemm(weight = u4, act = f16, group = 128)]
pub fn w4_f16_g128() {}

/// W4A16 for Hopper's portable target: its bundle also carries the plan of GPUs with less DRAM
/// bandwidth (`GemmBundle::lean`: the four-stage ring of M <= 8).
#[humming_gemm(weight = u4, act = f16, group = 128, arch = sm_90)]
pub fn w4_f16_g128_sm90() {}

/// GPTQ/AWQ-style asymmetric 3-bit: a per-group zero point, and a global scale.
#[humming_gemm(weight = u3, act = bf16, zero_point = dynamic, group = 64, global_scale = true)]
pub fn w3_bf16_asym_g64_gs() {}

/// MX FP6 (e3m2 with power-of-two ue8m0 scales per 32).
#[humming_gemm(weight = e3m2, act = bf16, scale = ue8m0, group = 32)]
pub fn mxfp6_bf16() {}

/// int8 weights with one scale per output channel.
#[humming_gemm(weight = i8, act = f16, group = per_channel)]
pub fn w8_f16_per_channel() {}

/// A 5-bit weight with an explicit plan (one variant for every M).
#[humming_gemm(weight = u5, act = f16, plan = (m_tiles = 2, n_warps = 2, k_warps = 2, bk = 128, stages = 3))]
pub fn w5_f16_planned() {}

/// NVFP4-style (e2m1, e4m3 scales per 16, a global scale) for three targets.
#[humming_gemm(weight = e2m1, act = f16, scale = e4m3, group = 16, global_scale = true, arch = [sm_75, sm_80, sm_90])]
pub fn nvfp4_multi_arch() {}

/// Runs every bundle of `bundles` on the emulator: M in {1, 17, 50} and the top M of every
/// bucket, so that each variant runs; every other run splits K in two (the reduce kernel).
fn check_all(name: &str, bundles: &[GemmBundle], seed: u64) {
    let mut emu = Emulator::new();
    for b in bundles {
        let mut ms: Vec<usize> = vec![1, 17, 50];
        ms.extend(b.variants.iter().filter(|v| v.max_m != u32::MAX).map(|v| v.max_m as usize));
        // And one M past the last finite bucket, for the open-ended variant.
        ms.push(b.variants.iter().filter(|v| v.max_m != u32::MAX).map(|v| v.max_m as usize + 1).max().unwrap_or(1));
        ms.sort_unstable();
        ms.dedup();
        let mut ran = vec![false; b.variants.len()];
        for (i, &m) in ms.iter().enumerate() {
            let variant = b.variant_for(m);
            let index = b.variants.iter().position(|v| std::ptr::eq(v, variant)).expect("a variant of b");
            ran[index] = true;
            let split = if i % 2 == 1 { 2 } else { 1 };
            let report = check_bundle(&mut emu, b, (m, N, K), split, seed + m as u64)
                .unwrap_or_else(|e| panic!("{name} ({}) at M={m}, split {split}: {e}", b.spec.id()));
            assert_eq!(report.kernel, variant.main.name, "{name}: ran the variant for M={m}");
            assert_eq!((report.m, report.n, report.k, report.split), (m, N, K, split));
            assert!(report.max_tol_frac <= 1.0, "{name}: {report:?}");
        }
        assert!(ran.iter().all(|&r| r), "{name} ({}): every variant runs, ran {ran:?}", b.spec.id());
        // The lean GPUs' replacements: the launch's pick on such a GPU, at the top M of their
        // bucket (or one past the last finite bucket).
        for (i, l) in b.lean.iter().enumerate() {
            let m = if l.max_m == u32::MAX { ms[ms.len() - 1] } else { l.max_m as usize };
            assert!(std::ptr::eq(b.variant_for_device(m, Some(&DeviceProfile::H100_SXM)), l), "{name}: the lean variant for M={m}");
            let kernels = b.kernels(l).unwrap_or_else(|e| panic!("{name}: {e}"));
            let report = check_kernels(&mut emu, &kernels, (m, N, K), 1 + (i % 2) as u32, seed + 100 + m as u64)
                .unwrap_or_else(|e| panic!("{name} ({}) lean {} at M={m}: {e}", b.spec.id(), l.plan));
            assert_eq!(report.kernel, l.main.name);
        }
    }
}

/// `bundles` are exactly what `GemmBundle::build` makes at run time for `parts` on each target
/// (the embedded PTX is the generator's, byte for byte), with the default M buckets or `plan`;
/// with the default buckets also what the runtime's `generate::bundle_for` returns (the lean
/// GPUs' replacements included, through its memo and disk cache).
fn assert_is_generator_output(bundles: &[GemmBundle], parts: SpecParts, arches: &[Arch], plan: Option<KernelPlan>) {
    assert_eq!(bundles.len(), arches.len());
    for (b, &arch) in bundles.iter().zip(arches) {
        let spec = Spec::new(SpecParts { arch, ..parts }).expect("a valid spec");
        let built = match plan {
            Some(p) => GemmBundle::build(&spec, &[(u32::MAX, p)]),
            None => GemmBundle::build_default(&spec),
        }
        .expect("the generator builds it");
        assert_eq!(*b, built, "{}", spec.id());
        for (v, w) in b.variants.iter().zip(built.variants.iter()) {
            assert_eq!(v.main.ptx, w.main.ptx);
        }
        if plan.is_none() {
            let (runtime, _) = humming::cuda::generate::bundle_for(&spec).expect("the runtime builds it");
            assert_eq!(*runtime, built, "bundle_for({}) is the macro's kernel set", spec.id());
        }
    }
}

#[test]
fn w4_f16_g128_on_the_emulator() {
    check_all("w4_f16_g128", w4_f16_g128::BUNDLES, 1);
}

#[test]
fn w4_f16_g128_sm90_on_the_emulator() {
    check_all("w4_f16_g128_sm90", w4_f16_g128_sm90::BUNDLES, 7);
}

#[test]
fn w3_bf16_asym_g64_gs_on_the_emulator() {
    check_all("w3_bf16_asym_g64_gs", w3_bf16_asym_g64_gs::BUNDLES, 2);
}

#[test]
fn mxfp6_bf16_on_the_emulator() {
    check_all("mxfp6_bf16", mxfp6_bf16::BUNDLES, 3);
}

#[test]
fn w8_f16_per_channel_on_the_emulator() {
    check_all("w8_f16_per_channel", w8_f16_per_channel::BUNDLES, 4);
}

#[test]
fn w5_f16_planned_on_the_emulator() {
    check_all("w5_f16_planned", w5_f16_planned::BUNDLES, 5);
}

#[test]
fn nvfp4_multi_arch_on_the_emulator() {
    check_all("nvfp4_multi_arch", nvfp4_multi_arch::BUNDLES, 6);
}

#[test]
fn embedded_bundles_are_the_generator_output() {
    let u4 = SpecParts::new(WeightFormat::UInt(4), ActFormat::F16);
    assert_is_generator_output(w4_f16_g128::BUNDLES, u4, &[Arch::Sm80], None);

    assert_is_generator_output(w4_f16_g128_sm90::BUNDLES, u4, &[Arch::Sm90], None);
    // The Hopper bundle carries the lean GPUs' plan of M <= 8, the sm_80 one none.
    let lean: Vec<String> = w4_f16_g128_sm90::BUNDLES[0].lean.iter().map(|l| format!("{}:{}", l.max_m, l.plan)).collect();
    assert_eq!(lean, ["8:m1x8_n1x64_k8w_bk512_s4"]);
    assert!(w4_f16_g128::BUNDLES[0].lean.is_empty());

    let u3 = SpecParts {
        zero_point: ZeroPoint::Dynamic,
        group: ScaleGroup::Group(64),
        global_scale: true,
        ..SpecParts::new(WeightFormat::UInt(3), ActFormat::Bf16)
    };
    assert_is_generator_output(w3_bf16_asym_g64_gs::BUNDLES, u3, &[Arch::Sm80], None);

    let e3m2 = SpecParts {
        scale: ScaleFormat::Ue8m0,
        group: ScaleGroup::Group(32),
        ..SpecParts::new(WeightFormat::Float(FloatFormat::E3M2), ActFormat::Bf16)
    };
    assert_is_generator_output(mxfp6_bf16::BUNDLES, e3m2, &[Arch::Sm80], None);

    let i8 = SpecParts { group: ScaleGroup::PerChannel, ..SpecParts::new(WeightFormat::SInt(8), ActFormat::F16) };
    assert_is_generator_output(w8_f16_per_channel::BUNDLES, i8, &[Arch::Sm80], None);

    let plan = KernelPlan { m_tiles: 2, n_warps: 2, k_warps: 2, bk: 128, stages: 3, swap: false, wgmma: false, halves: false, ws: false };
    let u5 = SpecParts::new(WeightFormat::UInt(5), ActFormat::F16);
    assert_is_generator_output(w5_f16_planned::BUNDLES, u5, &[Arch::Sm80], Some(plan));

    let nvfp4 = SpecParts {
        scale: ScaleFormat::E4m3,
        group: ScaleGroup::Group(16),
        global_scale: true,
        ..SpecParts::new(WeightFormat::Float(FloatFormat::E2M1), ActFormat::F16)
    };
    assert_is_generator_output(nvfp4_multi_arch::BUNDLES, nvfp4, &[Arch::Sm75, Arch::Sm80, Arch::Sm90], None);
}

/// An embedded bundle whose PTX is not what this generator prints is refused, not run.
#[test]
fn a_tampered_bundle_is_refused() {
    let mut b = w4_f16_g128::BUNDLES[0].clone();
    let mut variants = b.variants.to_vec();
    variants[0].main.ptx = variants[0].main.ptx.replace("mma.sync", "mma.sync ").into();
    b.variants = variants.into();
    let err = check_bundle(&mut Emulator::new(), &b, (1, N, K), 1, 1).expect_err("stale PTX is refused");
    assert!(err.contains("rebuild"), "{err}");
}

#[test]
fn spec_is_the_first_targets() {
    assert_eq!(w4_f16_g128::spec().id(), "w_u4-a_f16-s_f16-g128-zp_implicit-o_f16-sm_80");
    assert_eq!(w3_bf16_asym_g64_gs::spec().id(), "w_u3-a_bf16-s_bf16-g64-zp_dynamic-o_bf16-sm_80-gs");
    assert_eq!(nvfp4_multi_arch::spec().arch(), Arch::Sm75);
    assert_eq!(nvfp4_multi_arch::spec().out(), OutFormat::F16);
}

#[test]
fn generated_fns_have_the_specs_types() {
    type Gemm<A, O> = fn(&Stream, &DeviceBuf<A>, &GpuWeights, &mut DeviceBuf<O>) -> Result<(), RuntimeError>;
    let _: Gemm<f16, f16> = w4_f16_g128;
    let _: Gemm<bf16, bf16> = w3_bf16_asym_g64_gs;
    let _: Gemm<bf16, bf16> = mxfp6_bf16;
    let _: Gemm<f16, f16> = w8_f16_per_channel;
    let _: Gemm<f16, f16> = w5_f16_planned;
    let _: Gemm<f16, f16> = nvfp4_multi_arch;
}

/// Every integer width and several float formats, with both activation types.
#[cfg(feature = "kernel-matrix")]
mod matrix {
    use super::check_all;
    use humming::macros::humming_gemm;

    macro_rules! kernels {
        ($($name:ident: ($($arg:tt)*);)*) => {
            $(
                #[humming_gemm($($arg)*)]
                pub fn $name() {}
            )*

            #[test]
            fn every_matrix_kernel_on_the_emulator() {
                let mut n = 0;
                $(
                    let _launch = $name;
                    check_all(stringify!($name), $name::BUNDLES, 100 + n);
                    n += 1;
                )*
                let _ = std::io::Write::write_fmt(
                    &mut std::io::stderr(),
                    format_args!("kernel-matrix: {n} annotated kernels checked on the emulator\n"),
                );
            }
        };
    }

    kernels! {
        u1_f16: (weight = u1, act = f16);
        u2_f16: (weight = u2, act = f16, group = 32);
        u3_f16: (weight = u3, act = f16);
        u4_f16_dyn: (weight = u4, act = f16, zero_point = dynamic);
        u5_bf16: (weight = u5, act = bf16, group = 256);
        u6_bf16: (weight = u6, act = bf16);
        u7_f16: (weight = u7, act = f16, group = per_channel);
        u8_bf16_dyn: (weight = u8, act = bf16, zero_point = dynamic, group = 64);
        i2_f16: (weight = i2, act = f16);
        i3_bf16: (weight = i3, act = bf16);
        i4_f16_e4m3: (weight = i4, act = f16, scale = e4m3, global_scale = true);
        i5_f16: (weight = i5, act = f16, out = bf16);
        i6_bf16: (weight = i6, act = bf16, scale = e5m2);
        i7_f16: (weight = i7, act = f16);
        i8_bf16: (weight = i8, act = bf16);
        e2m1_bf16_mx: (weight = e2m1, act = bf16, scale = ue8m0, group = 32);
        e2m3_f16: (weight = e2m3, act = f16, group = 64);
        e3m2_f16: (weight = e3m2, act = f16);
        e4m3_bf16: (weight = e4m3, act = bf16);
        e5m2_bf16: (weight = e5m2, act = bf16, scale = e4m3);
        e1m6_f16: (weight = e1m6, act = f16);
        e3m4_bf16_sm90: (weight = e3m4, act = bf16, arch = [sm_80, sm_90]);
        u4_f16_sm75: (weight = u4, act = f16, arch = sm_75);
    }
}
