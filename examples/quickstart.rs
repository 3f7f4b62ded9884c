//! Quickstart: quantize a random linear layer to INT4 (g128, f16 scales), run the generated
//! W4A16 kernel — on the GPU when there is one (the typed `QuantizedLinear` layer), otherwise
//! on the CPU emulator (the same kernel's IR) — and check every output against the f64
//! reference.
//!
//!     cargo run --release --example quickstart

use humming::core::ir::Executor;
use humming::core::ir::emu::Emulator;
use humming::core::kernel::check::verify;
use humming::core::kernel::launch::{run_gemm, upload_weights};
use humming::core::pack::a16::PackedA16;
use humming::core::quant::{ActGranularity, quantize, quantize_act};
use humming::core::rng::SplitMix64;
use humming::core::*;
use humming::cuda::{DeviceBuf, Gpu, QuantizedLinear, generate, quant_config};
use humming::half::f16;

type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Error> {
    let gpu = Gpu::open(0);
    // W4A16: uint4 weights (implicit zero point 8), f16 scales per 128 along K, f16 activations.
    let mut parts = SpecParts::new(WeightFormat::UInt(4), ActFormat::F16);
    // The device's fastest target (sm_90a on Hopper); sm_80 on the emulator.
    parts.arch = gpu.as_ref().ok().and_then(|g| g.fastest_arch()).unwrap_or(Arch::Sm80);
    let spec = Spec::new(parts)?;
    // A decode-sized layer; smaller on the emulator, which interprets every instruction.
    let (m, n, k) = if gpu.is_ok() { (16, 8192, 8192) } else { (4, 1024, 1024) };
    println!("spec {spec}\nlayer: M={m} N={n} K={k}");

    // Random weights and activations, quantized on the host.
    let mut rng = SplitMix64::new(42);
    let w: Vec<f32> = (0..n * k).map(|_| rng.unit_f32() * 0.1).collect();
    let q = quantize(&w, n, k, &quant_config(&spec))?;
    let x: Vec<f32> = (0..m * k).map(|_| rng.unit_f32()).collect();
    let act = quantize_act(&x, m, k, spec.act(), ActGranularity::PerToken)?;
    let x16: Vec<f16> = act.codes.iter().map(|&c| f16::from_bits(c as u16)).collect();
    let packed = PackedA16::from_quantized(&q, spec.act())?;
    let fp16_bytes = n * k * 2;
    let q_bytes = packed.words.len() * 4 + packed.scales.len();
    println!("weights: {:.2} MB packed (int4 + f16 scales), {:.2} MB as fp16", q_bytes as f64 / 1e6, fp16_bytes as f64 / 1e6);

    let (got, kernel) = match gpu {
        Ok(gpu) => {
            println!("device: {} (sm_{}{})", gpu.name(), gpu.compute_capability().0, gpu.compute_capability().1);
            let layer = QuantizedLinear::from_quantized(&gpu, &q, &spec)?;
            let stream = gpu.stream()?;
            let xd = DeviceBuf::from_slice(&gpu, &x16)?;
            let mut yd = DeviceBuf::<f16>::poisoned(&gpu, m * n)?;
            layer.forward(&stream, &xd, &mut yd)?;
            let got: Vec<u16> = yd.to_vec()?.iter().map(|v| v.to_bits()).collect();
            let us = time_forward(&layer, &stream, &xd, &mut yd)?;
            println!(
                "GPU time: {us:.1} us per forward; reading the fp16 weights alone at 4 TB/s would take {:.1} us",
                fp16_bytes as f64 / 4e6
            );
            (got, layer.bundle().variant_for(m).main.name.to_string())
        }
        Err(why) => {
            println!("no GPU ({why}): running the same kernel on the CPU emulator");
            let (bundle, source) = generate::bundle_for(&spec)?;
            println!("kernels: {source:?}");
            let kernels = bundle.kernels(bundle.variant_for(m))?;
            let mut ex = Emulator::new();
            let t = std::time::Instant::now();
            let dw = upload_weights(&mut ex, &packed)?;
            let a = ex.upload_new(&x16)?;
            let out = ex.upload_new(&vec![0xFFFFu16; m * n])?;
            run_gemm(&mut ex, &kernels, &dw, a, out, m, 1)?;
            let s = ex.last_stats();
            println!("emulated in {:.2?}: {} CTAs, {} lane-instructions, {} mma", t.elapsed(), s.ctas, s.lane_instructions, s.mma);
            (ex.download_vec(out, m * n)?, kernels.main.name)
        }
    };
    println!("kernel {kernel}");
    let report = verify(&spec, &q, &act, &got, &kernel, 1)?;
    println!(
        "every one of the {} outputs matches the f64 reference: max |error| {:.3e} ({:.0}% of the stated tolerance)",
        m * n,
        report.max_abs_err,
        100.0 * report.max_tol_frac
    );
    Ok(())
}

/// Median time of one forward (CUDA events on the layer's stream, 20 back-to-back calls per
/// sample; the weights stay in L2 between calls when they fit, so this is a warm number).
fn time_forward(layer: &QuantizedLinear, stream: &humming::cuda::Stream, x: &DeviceBuf<f16>, y: &mut DeviceBuf<f16>) -> Result<f64, Error> {
    use humming::cuda::cust::event::{Event, EventFlags};
    let (start, end) = (Event::new(EventFlags::DEFAULT)?, Event::new(EventFlags::DEFAULT)?);
    let mut samples = Vec::new();
    for _ in 0..7 {
        start.record(stream)?;
        for _ in 0..20 {
            layer.forward(stream, x, y)?;
        }
        end.record(stream)?;
        end.synchronize()?;
        samples.push(end.elapsed_time_f32(&start)? as f64 * 1e3 / 20.0);
    }
    samples.sort_by(f64::total_cmp);
    Ok(samples[samples.len() / 2])
}
