//! Custom formats through `#[humming_gemm]`: a 5-bit unsigned integer weight (not a power of two)
//! and the 6-bit float e3m2, each a kernel generated at compile time. A random layer is
//! quantized and packed on the host; with a GPU it is uploaded and the generated fn runs it,
//! without one the same embedded bundles run on the CPU emulator. Either way every output is
//! compared with the f64 reference.
//!
//!     cargo run --release --example custom_format

use humming::core::ir::emu::Emulator;
use humming::core::kernel::check::check_bundle;
use humming::core::kernel::{GemmBundle, bundle};
use humming::core::pack::a16::PackedA16;
use humming::core::quant::{ActGranularity, QuantConfig, quantize, quantize_act};
use humming::core::reference::{act_values, dequantize, round_to_out};
use humming::core::rng::SplitMix64;
use humming::core::{ActFormat, OutFormat, Spec};
use humming::cuda::{DeviceBuf, Elem16, Gpu, GpuWeights, RuntimeError, Stream};
use humming::half::{bf16, f16};
use humming::macros::humming_gemm;

type Error = Box<dyn std::error::Error>;

/// 5-bit unsigned codes (implicit zero point 16), f16 scales per 64, f16 activations; kernels
/// for Turing, Ampere and Hopper.
#[humming_gemm(weight = u5, act = f16, group = 64, arch = [sm_75, sm_80, sm_90])]
pub fn w5_f16() {}

/// FP6 e3m2 weights with e4m3 scales per 32 and bf16 activations (bf16 needs sm_80+).
#[humming_gemm(weight = e3m2, act = bf16, scale = e4m3, group = 32, arch = [sm_80, sm_90])]
pub fn fp6_bf16() {}

fn main() -> Result<(), Error> {
    let gpu = Gpu::open(0);
    match &gpu {
        Ok(g) => println!("device: {} (compute capability {:?})", g.name(), g.compute_capability()),
        Err(why) => println!("no GPU ({why}): the generated bundles run on the CPU emulator instead"),
    }
    let gpu = gpu.ok();
    layer("u5, g64, f16", w5_f16::BUNDLES, w5_f16, gpu.as_ref())?;
    layer("e3m2, e4m3 scales g32, bf16", fp6_bf16::BUNDLES, fp6_bf16, gpu.as_ref())?;
    Ok(())
}

type Launch<A, O> = fn(&Stream, &DeviceBuf<A>, &GpuWeights, &mut DeviceBuf<O>) -> Result<(), RuntimeError>;

/// Quantizes and packs a random layer for `bundles`' spec, then runs it with `launch` on the GPU
/// or the bundles on the emulator.
fn layer<A: Bits16, O: Bits16>(
    what: &str,
    bundles: &'static [GemmBundle],
    launch: Launch<A, O>,
    gpu: Option<&Gpu>,
) -> Result<(), Error> {
    let spec = bundles[0].spec()?;
    let targets: Vec<&str> = bundles.iter().map(|b| b.spec.arch.name()).collect();
    println!("\n{what}: spec {} (targets {})", spec.id(), targets.join(", "));
    for b in bundles {
        let mut lo = 1;
        for v in b.variants.iter() {
            let range = if v.max_m == u32::MAX { format!("M >= {lo}") } else { format!("M {lo}..={}", v.max_m) };
            println!("  {} {range:<10} {}", b.spec.arch, v.main.name);
            lo = v.max_m.saturating_add(1);
        }
    }
    // Smaller on the emulator, which interprets every instruction.
    let (m, n, k) = if gpu.is_some() { (16, 4096, 4096) } else { (8, 512, 1024) };
    let mut rng = SplitMix64::new(2024);
    let wf: Vec<f32> = (0..n * k).map(|_| rng.unit_f32() * 0.5).collect();
    let cfg = QuantConfig::new(spec.weight(), spec.scale(), spec.group())
        .with_zero_point(spec.zero_point())
        .with_global_scale(spec.global_scale());
    let w = quantize(&wf, n, k, &cfg)?;
    let packed = PackedA16::from_quantized(&w, spec.act())?;
    let codes = n * k * spec.weight().bits() as usize / 8;
    println!(
        "  layer {n} x {k}: {:.2} MB of {}-bit codes and scales (f16 would be {:.2} MB)",
        (codes + w.scales.len() * spec.scale().bits() as usize / 8) as f64 / 1e6,
        spec.weight().bits(),
        (n * k * 2) as f64 / 1e6
    );

    let Some(gpu) = gpu else {
        // No GPU: the same embedded bundles (every target), on the emulator, with check_bundle's
        // own random layer of this shape, every element against the f64 reference.
        for b in bundles {
            let r = check_bundle(&mut Emulator::new(), b, (m, n, k), 1, 7)?;
            println!(
                "  emulator, {} (kernel {}): M={m} N={n} K={k}, all {} outputs match the f64 reference \
                 (max |error| {:.3e}, {:.0}% of the tolerance)",
                b.spec.arch,
                r.kernel,
                m * n,
                r.max_abs_err,
                100.0 * r.max_tol_frac
            );
        }
        return Ok(());
    };

    let cc = gpu.compute_capability();
    let Some(chosen) = bundle::select(bundles, cc) else {
        println!("  this device ({cc:?}) runs none of the targets {}: skipped", targets.join(", "));
        return Ok(());
    };
    let af: Vec<f32> = (0..m * k).map(|_| rng.unit_f32() * 2.0).collect();
    let act = quantize_act(&af, m, k, spec.act(), ActGranularity::PerToken)?;
    let x: Vec<A> = act.codes.iter().map(|&c| A::from_bits(c as u16)).collect();
    let x = DeviceBuf::from_slice(gpu, &x)?;
    let weights = GpuWeights::upload(gpu, &packed)?;
    let mut y = DeviceBuf::<O>::poisoned(gpu, m * n)?;
    let stream = gpu.stream()?;
    launch(&stream, &x, &weights, &mut y)?;
    stream.synchronize()?;
    let got = y.to_vec()?;
    let (max_err, frac) = compare(&spec, &act_values(&act)?, &dequantize(&w)?, w.global() as f64, &got, (m, n, k))?;
    println!(
        "  GPU, {} bundle: M={m} N={n} K={k}, all {} outputs match the f64 reference (max |error| {max_err:.3e}, \
         {:.0}% of the tolerance)",
        chosen.spec.arch,
        m * n,
        100.0 * frac
    );
    Ok(())
}

/// Every output against the f64 reference, within the bound `kernel::check` documents: the
/// dequantized weight rounded once to the activation type, f32 accumulation, one rounding to
/// the output.
fn compare<O: Bits16>(
    spec: &Spec,
    a: &[f64],
    w: &[f64],
    gs: f64,
    got: &[O],
    (m, n, k): (usize, usize, usize),
) -> Result<(f64, f64), Error> {
    let (u_b, sub_b) = match spec.act() {
        ActFormat::F16 => (2f64.powi(-11), 2f64.powi(-25)),
        _ => (2f64.powi(-8), 2f64.powi(-134)),
    };
    let (man, e_min) = match spec.out() {
        OutFormat::F16 => (10, -14),
        OutFormat::Bf16 => (7, -126),
    };
    let ulp = |v: f64| 2f64.powi((if v > 0.0 { v.log2().floor() as i32 } else { e_min }).max(e_min) - man);
    let (mut max_err, mut frac) = (0f64, 0f64);
    for i in 0..m {
        for j in 0..n {
            let (ar, wr) = (&a[i * k..(i + 1) * k], &w[j * k..(j + 1) * k]);
            let x: f64 = ar.iter().zip(wr).map(|(p, q)| p * q).sum();
            let p: f64 = ar.iter().zip(wr).map(|(p, q)| (p * q).abs()).sum::<f64>() / gs;
            let sa: f64 = ar.iter().map(|v| v.abs()).sum();
            let e_sum = gs * (p * (u_b + k as f64 * 2f64.powi(-23)) + sa * sub_b);
            let tol = e_sum + ulp(x.abs() + e_sum);
            let want = round_to_out(x, spec.out()) as f64;
            let g = got[i * n + j].to_f64();
            let err = (g - want).abs();
            if g.is_nan() || err > tol {
                return Err(format!("output ({i}, {j}) = {g}, reference {want}: |error| {err:e} > {tol:e}").into());
            }
            max_err = max_err.max(err);
            frac = frac.max(err / tol);
        }
    }
    Ok((max_err, frac))
}

/// The 16-bit element types from and to bits.
trait Bits16: Elem16 {
    fn from_bits(bits: u16) -> Self;
    fn to_f64(self) -> f64;
}

impl Bits16 for f16 {
    fn from_bits(bits: u16) -> Self {
        f16::from_bits(bits)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
}

impl Bits16 for bf16 {
    fn from_bits(bits: u16) -> Self {
        bf16::from_bits(bits)
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
}
