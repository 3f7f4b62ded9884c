// Several valid specs, names written as identifiers or strings; the generated fn has the
// signature its spec implies.
use humming::core::{ActFormat, Arch, OutFormat, ScaleFormat, ScaleGroup, WeightFormat, ZeroPoint};
use humming::cuda::{DeviceBuf, GpuWeights, RuntimeError, Stream};
use humming::half::{bf16, f16};
use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16)]
pub fn w4() {}

#[humming_gemm(weight = "int8", act = "bf16", group = per_channel, out = f16)]
pub fn w8_per_channel() {}

#[humming_gemm(weight = fp4, act = bf16, scale = ue8m0, group = 32)]
pub fn mxfp4() {}

#[humming_gemm(weight = u3, act = f16, zero_point = dynamic, group = 64, global_scale = true, scale = e4m3)]
pub fn w3_asym() {}

type Gemm<A, O> = fn(&Stream, &DeviceBuf<A>, &GpuWeights, &mut DeviceBuf<O>) -> Result<(), RuntimeError>;

fn main() {
    let _: Gemm<f16, f16> = w4;
    let _: Gemm<bf16, f16> = w8_per_channel;
    let _: Gemm<bf16, bf16> = mxfp4;
    let _: Gemm<f16, f16> = w3_asym;

    // Defaults: scale and out from act, group 128, implicit zero point, no global scale, sm_80.
    let s = w4::spec();
    assert_eq!(s.id(), "w_u4-a_f16-s_f16-g128-zp_implicit-o_f16-sm_80");
    assert_eq!((s.scale(), s.out(), s.arch()), (ScaleFormat::F16, OutFormat::F16, Arch::Sm80));

    let s = w8_per_channel::spec();
    assert_eq!((s.weight(), s.act(), s.scale()), (WeightFormat::SInt(8), ActFormat::Bf16, ScaleFormat::Bf16));
    assert_eq!((s.group(), s.out()), (ScaleGroup::PerChannel, OutFormat::F16));

    let s = mxfp4::spec();
    assert_eq!(s.id(), "w_e2m1-a_bf16-s_ue8m0-g32-zp_implicit-o_bf16-sm_80");

    let s = w3_asym::spec();
    assert_eq!((s.zero_point(), s.global_scale(), s.group()), (ZeroPoint::Dynamic, true, ScaleGroup::Group(64)));

    // One target, one plan per M bucket, ascending, the last taking every larger M.
    for b in [w4::BUNDLES, w8_per_channel::BUNDLES, mxfp4::BUNDLES, w3_asym::BUNDLES] {
        assert_eq!(b.len(), 1);
        let v = &b[0].variants;
        assert!(!v.is_empty() && v.windows(2).all(|w| w[0].max_m < w[1].max_m));
        assert_eq!(v.last().unwrap().max_m, u32::MAX);
        for v in v.iter() {
            assert!(v.main.ptx.contains(&format!(".entry {}", v.main.name)));
            assert!(v.main.ptx.contains(".target sm_80"));
        }
    }
}
