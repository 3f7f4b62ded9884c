//! Quickstart: quantize a random linear layer to INT4 (g128, f16 scales), run the generated
//! W4A16 kernel — on the GPU when there is one, otherwise on the CPU emulator — and check every
//! output against the f64 reference.
//!
//!     cargo run --release --example quickstart

use humming::core::ir::Executor;
use humming::core::ir::emu::Emulator;
use humming::core::kernel::check::check_gemm;
use humming::core::kernel::KernelPlan;
use humming::core::*;
use humming::cuda::{Gpu, GpuExecutor};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::open(0);
    let arch = gpu.as_ref().ok().and_then(|g| g.native_arch()).unwrap_or(Arch::Sm80);
    // W4A16: uint4 weights (implicit zero point 8), f16 scales per 128 along K, f16 activations.
    let mut parts = SpecParts::new(WeightFormat::UInt(4), ActFormat::F16);
    parts.arch = arch;
    let spec = Spec::new(parts)?;
    // A decode-sized layer; smaller on the emulator, which interprets every instruction.
    let (m, n, k) = if gpu.is_ok() { (16, 4096, 4096) } else { (4, 1024, 1024) };
    let plan = KernelPlan::choose(m, n, arch, 4);
    println!("spec {spec}\nplan {plan}\nlayer: M={m} N={n} K={k}");
    println!(
        "weights: {:.2} MB as int4 + f16 scales, {:.2} MB as fp16",
        (n * k / 2 + n * (k / 128) * 2) as f64 / 1e6,
        (n * k * 2) as f64 / 1e6
    );
    let report = match gpu {
        Ok(gpu) => {
            println!("device: {} (sm_{}{})", gpu.name(), gpu.compute_capability().0, gpu.compute_capability().1);
            let mut ex = GpuExecutor::new(gpu, arch)?;
            let t = std::time::Instant::now();
            let r = check_gemm(&mut ex, &spec, &plan, (m, n, k), 1, 42)?;
            println!("checked on the GPU ({:.1?} including quantization and the reference)", t.elapsed());
            time_on_gpu(&mut ex, &spec, &plan, (m, n, k))?;
            r
        }
        Err(why) => {
            println!("no GPU ({why}): running the same kernel on the CPU emulator");
            let mut ex = Emulator::new();
            let t = std::time::Instant::now();
            let r = check_gemm(&mut ex, &spec, &plan, (m, n, k), 1, 42)?;
            let s = ex.last_stats();
            println!(
                "emulated in {:.2?}: {} CTAs, {} lane-instructions, {} mma",
                t.elapsed(),
                s.ctas,
                s.lane_instructions,
                s.mma
            );
            r
        }
    };
    println!(
        "every one of the {} outputs matches the f64 reference: max |error| {:.3e} ({:.0}% of the stated tolerance)",
        m * n,
        report.max_abs_err,
        100.0 * report.max_tol_frac
    );
    Ok(())
}

/// Median time of the kernel on the GPU (CUDA events, 20 back-to-back launches per sample).
fn time_on_gpu(ex: &mut GpuExecutor, spec: &Spec, plan: &KernelPlan, (m, n, k): (usize, usize, usize)) -> Result<(), Box<dyn std::error::Error>> {
    use humming::core::kernel::launch::{Buf, GemmOperands, alloc_workspace, run_gemm_in, upload_weights};
    use humming::core::pack::a16::PackedA16;
    use humming::core::quant::{QuantConfig, quantize};
    let mut rng = humming::core::rng::SplitMix64::new(1);
    let wf: Vec<f32> = (0..n * k).map(|_| rng.unit_f32()).collect();
    let w = quantize(&wf, n, k, &QuantConfig::new(spec.weight(), spec.scale(), spec.group()))?;
    let dw = upload_weights(ex, &PackedA16::from_quantized(&w)?)?;
    let a: Vec<u16> = (0..m * k).map(|_| half::f16::from_f32(rng.unit_f32()).to_bits()).collect();
    let a = ex.upload_new(&a)?;
    let out = ex.alloc(m * n * 2)?;
    let kernels = humming::core::kernel::generate(spec, plan)?;
    let sms = ex.gpu().sm_count()?;
    let l = dw.desc.layout;
    let split = plan.split_k_for(m, l.n_pad, l.k_pad, sms);
    // Zero-filled: it holds the split-K arrival counters.
    let ws = alloc_workspace(ex, &l, m, split)?;
    let ops = GemmOperands { weights: &dw, a: Buf { ptr: a, len: m * k }, out: Buf { ptr: out, len: m * n }, workspace: ws, m, split };
    ex.set_sync(false);
    let timer = humming::cuda::EventTimer::new()?;
    let mut us = Vec::new();
    for _ in 0..5 {
        timer.start()?;
        for _ in 0..20 {
            run_gemm_in(ex, &kernels, &ops)?;
        }
        us.push(timer.stop()? as f64 * 1e3 / 20.0);
    }
    ex.set_sync(true);
    us.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let t = us[2];
    println!(
        "GPU time: {t:.1} us per call (split-K {split}); fp16 weights alone would take {:.1} us to read at 4 TB/s",
        (n * k * 2) as f64 / 4e6
    );
    Ok(())
}
