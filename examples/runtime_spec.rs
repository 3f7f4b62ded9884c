//! Kernels for a spec known only at run time (read from a config or a checkpoint): parse the
//! spec text, generate its kernels with the same generator `#[humming_gemm]` uses (cached on
//! disk as PTX keyed by spec, plans and generator version), and run a layer with it — on the
//! GPU when there is one, otherwise on the CPU emulator — checking every output.
//!
//!     cargo run --release --example runtime_spec -- "weight=u5 act=bf16 group=64 zero_point=dynamic"

use clap::Parser;
use humming::core::ir::emu::Emulator;
use humming::core::kernel::cache::file_for;
use humming::core::kernel::check::{check_bundle, random_operands, verify};
use humming::core::*;
use humming::cuda::{DeviceBuf, Elem16, Gpu, QuantizedLinear, generate};
use humming::half::{bf16, f16};

#[derive(Parser, Debug)]
struct Args {
    /// The spec, as `key=value` pairs (keys: weight act out scale group zero_point global_scale arch).
    #[arg(default_value = "weight=u5 act=bf16 group=64 zero_point=dynamic")]
    spec: String,
    /// Layer shape M,N,K (default: 8,2048,2048 on a GPU, 8,512,512 on the emulator).
    #[arg(long, value_delimiter = ',')]
    shape: Option<Vec<usize>>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let gpu = Gpu::open(0);
    let mut parts = SpecParts::parse(&args.spec)?;
    if !args.spec.contains("arch=") {
        if let Some(fastest) = gpu.as_ref().ok().and_then(|g| g.fastest_arch()) {
            parts.arch = fastest;
        }
    }
    let spec = Spec::new(parts)?;
    println!("spec {spec}");
    let t = std::time::Instant::now();
    let (bundle, source) = generate::bundle_for(&spec)?;
    println!("kernels: {source:?} in {:.1?} ({} M buckets)", t.elapsed(), bundle.variants.len());
    for (v, lean) in bundle.variants.iter().map(|v| (v, "")).chain(bundle.lean.iter().map(|v| (v, " (on a GPU with less DRAM bandwidth)"))) {
        let upto = if v.max_m == u32::MAX { "any M".to_string() } else { format!("M <= {}", v.max_m) };
        println!("  {upto:>8}: {} ({} bytes of PTX {}){lean}", v.main.name, v.main.ptx.len(), v.main.ptx_version);
    }
    if let Some(dir) = generate::cache_dir() {
        println!("PTX cache: {}", file_for(&dir, &spec, &bundle.buckets(), &bundle.lean_buckets()).display());
    }
    let (_, again) = generate::bundle_for(&spec)?;
    println!("asked again: {again:?}");

    let default = if gpu.is_ok() { vec![8, 2048, 2048] } else { vec![8, 512, 512] };
    let s = args.shape.unwrap_or(default);
    let [m, n, k] = s[..] else { return Err("--shape takes M,N,K".into()) };
    let report = match gpu {
        Ok(gpu) => match spec.act() {
            ActFormat::Bf16 => on_gpu::<bf16>(&gpu, &spec, (m, n, k))?,
            _ => on_gpu::<f16>(&gpu, &spec, (m, n, k))?,
        },
        Err(why) => {
            println!("no GPU ({why}): running on the CPU emulator");
            check_bundle(&mut Emulator::new(), &bundle, (m, n, k), 1, 3)?
        }
    };
    println!(
        "{} at M={m} N={n} K={k}: every output matches the f64 reference, worst {:.0}% of the tolerance",
        report.kernel,
        100.0 * report.max_tol_frac
    );
    Ok(())
}

fn on_gpu<T: Elem16>(gpu: &Gpu, spec: &Spec, (m, n, k): (usize, usize, usize)) -> Result<humming::core::kernel::check::CheckReport, Box<dyn std::error::Error>> {
    let (w, act) = random_operands(spec, (m, n, k), 3)?;
    let layer = QuantizedLinear::from_quantized(gpu, &w, spec)?;
    let bits: Vec<u16> = act.codes.iter().map(|&c| c as u16).collect();
    let x = DeviceBuf::<T>::from_slice(gpu, bytemuck::cast_slice(&bits))?;
    let mut y = DeviceBuf::<T>::poisoned(gpu, m * n)?;
    layer.forward(&gpu.stream()?, &x, &mut y)?;
    let got: Vec<u16> = bytemuck::cast_slice(&y.to_vec()?).to_vec();
    Ok(verify(spec, &w, &act, &got, &layer.bundle().variant_for(m).main.name, 0)?)
}
