//! Kernels written with `#[humming_gemm]`, launched through their generated typed fns on the
//! GPU: every output against the f64 reference in every M bucket (split-K included), and the
//! generated fn refusing weights packed for another spec. Skipped (and saying so) without a
//! device.

use humming::core::kernel::check::{random_operands, verify};
use humming::core::kernel::launch::LaunchError;
use humming::core::pack::a16::PackedA16;
use humming::cuda::testing::gpu_or_skip;
use humming::cuda::{DeviceBuf, GpuWeights, RuntimeError};
use humming::half::{bf16, f16};
use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16, group = 128, arch = [sm_80, sm_90])]
fn w4a16() {}

#[humming_gemm(weight = e2m1, act = bf16, scale = ue8m0, group = 32, arch = [sm_80, sm_89, sm_90])]
fn mxfp4_bf16() {}

/// GPTQ-style asymmetric u4 with user-written parameter names.
#[humming_gemm(weight = u4, act = f16, zero_point = dynamic, group = 64)]
fn gptq_u4(
    s: &humming::cuda::Stream,
    input: &DeviceBuf<f16>,
    weights: &GpuWeights,
    output: &mut DeviceBuf<f16>,
) {
}

fn bits<T: bytemuck::Pod>(v: &[T]) -> Vec<u16> {
    bytemuck::cast_slice(v).to_vec()
}

#[test]
fn gpu_macro_kernels_match_reference() {
    let Some(gpu) = gpu_or_skip("gpu_macro_kernels_match_reference") else { return };
    let stream = gpu.stream().unwrap();
    let mut checks = 0;
    for m in [1usize, 9, 16, 30, 48, 130] {
        let (n, k) = (1536, 3072);
        // u4 f16
        let spec = w4a16::spec();
        let (w, act) = random_operands(&spec, (m, n, k), m as u64).unwrap();
        let dw = GpuWeights::upload(&gpu, &PackedA16::from_quantized(&w, spec.act()).unwrap()).unwrap();
        let x = DeviceBuf::<f16>::from_slice(&gpu, bytemuck::cast_slice(&act.codes.iter().map(|&c| c as u16).collect::<Vec<_>>())).unwrap();
        let mut y = DeviceBuf::<f16>::poisoned(&gpu, m * n).unwrap();
        w4a16(&stream, &x, &dw, &mut y).unwrap();
        verify(&spec, &w, &act, &bits(&y.to_vec().unwrap()), "w4a16", 0).unwrap_or_else(|e| panic!("w4a16 m={m}: {e}"));
        // MXFP4 bf16
        let spec = mxfp4_bf16::spec();
        let (w, act) = random_operands(&spec, (m, n, k), 100 + m as u64).unwrap();
        let dw = GpuWeights::upload(&gpu, &PackedA16::from_quantized(&w, spec.act()).unwrap()).unwrap();
        let x = DeviceBuf::<bf16>::from_slice(&gpu, bytemuck::cast_slice(&act.codes.iter().map(|&c| c as u16).collect::<Vec<_>>())).unwrap();
        let mut y = DeviceBuf::<bf16>::poisoned(&gpu, m * n).unwrap();
        mxfp4_bf16(&stream, &x, &dw, &mut y).unwrap();
        verify(&spec, &w, &act, &bits(&y.to_vec().unwrap()), "mxfp4_bf16", 0).unwrap_or_else(|e| panic!("mxfp4 m={m}: {e}"));
        // GPTQ u4 with dynamic zero points
        let spec = gptq_u4::spec();
        let (w, act) = random_operands(&spec, (m, n, k), 200 + m as u64).unwrap();
        let dw = GpuWeights::upload(&gpu, &PackedA16::from_quantized(&w, spec.act()).unwrap()).unwrap();
        let x = DeviceBuf::<f16>::from_slice(&gpu, bytemuck::cast_slice(&act.codes.iter().map(|&c| c as u16).collect::<Vec<_>>())).unwrap();
        let mut y = DeviceBuf::<f16>::poisoned(&gpu, m * n).unwrap();
        gptq_u4(&stream, &x, &dw, &mut y).unwrap();
        verify(&spec, &w, &act, &bits(&y.to_vec().unwrap()), "gptq_u4", 0).unwrap_or_else(|e| panic!("gptq m={m}: {e}"));
        checks += 3;
    }
    // On Hopper the u4 kernels run the sm_90 bundle, whose M <= 8 bucket has a replacement for
    // GPUs with less DRAM bandwidth (`GemmBundle::lean`): M = 1 above ran it on such a GPU.
    let lean = gpu.profile().is_some_and(|p| p.lean_dram());
    println!("{checks} launches of macro-generated kernels matched the reference element by element (lean-DRAM GPU: {lean})");
}

#[test]
fn gpu_macro_fn_refuses_other_weights() {
    let Some(gpu) = gpu_or_skip("gpu_macro_fn_refuses_other_weights") else { return };
    let stream = gpu.stream().unwrap();
    let (m, n, k) = (2, 256, 512);
    // Weights packed for the GPTQ spec (dynamic zero points, g64) given to the symmetric g128 fn.
    let (w, act) = random_operands(&gptq_u4::spec(), (m, n, k), 1).unwrap();
    let dw = GpuWeights::upload(&gpu, &PackedA16::from_quantized(&w, gptq_u4::spec().act()).unwrap()).unwrap();
    let x = DeviceBuf::<f16>::from_slice(&gpu, bytemuck::cast_slice(&act.codes.iter().map(|&c| c as u16).collect::<Vec<_>>())).unwrap();
    let mut y = DeviceBuf::<f16>::poisoned(&gpu, m * n).unwrap();
    let e = w4a16(&stream, &x, &dw, &mut y).unwrap_err();
    assert!(matches!(e, RuntimeError::Launch(LaunchError::WeightsMismatch { .. })), "{e}");
    assert!(y.to_vec().unwrap().iter().all(|v| v.to_bits() == 0xFFFF));
    println!("w4a16 refused GPTQ-packed weights: {e}");
}
