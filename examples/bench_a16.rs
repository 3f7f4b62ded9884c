//! Times a W{b}A16 GEMM on the GPU (issue-4 first timing; the full harness comes with the
//! benchmark issue). Steady-state harness: back-to-back launches over rotating weight copies
//! totalling more than 3x the L2, timed with CUDA events; median of repeats. Prints one JSON
//! object per M on stdout.
//!
//!     bench_a16 --weight u4 --act f16 --group 128 --n 8192 --k 8192 --m 1,16,64,256,4096

use clap::Parser;
use humming::core::ir::{Executor, samples::SplitMix64};
use humming::core::kernel::launch::{Buf, DeviceWeights, GemmOperands, WeightsDesc, run_gemm_in, workspace_bytes};
use humming::core::kernel::{KernelPlan, generate};
use humming::core::pack::fragment::A16Layout;
use humming::core::*;
use humming::cuda::{EventTimer, Gpu, GpuExecutor};

#[derive(Parser, Debug)]
struct Args {
    #[arg(long, default_value = "u4")]
    weight: String,
    #[arg(long, default_value = "f16")]
    act: String,
    /// Scale format (default: the activation's 16-bit type).
    #[arg(long)]
    scale: Option<String>,
    /// Group size along K, or 0 for per-channel.
    #[arg(long, default_value_t = 128)]
    group: u32,
    #[arg(long, default_value_t = 8192)]
    n: usize,
    #[arg(long, default_value_t = 8192)]
    k: usize,
    #[arg(long, value_delimiter = ',', default_value = "1,16,64,256,4096")]
    m: Vec<usize>,
    /// Launches per timed run.
    #[arg(long, default_value_t = 50)]
    iters: u32,
    /// Timed runs (median reported).
    #[arg(long, default_value_t = 7)]
    reps: u32,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("bench_a16: no GPU ({e}); nothing to time");
            return Ok(());
        }
    };
    let arch = gpu.native_arch().ok_or("unsupported device")?;
    let (sms, l2) = (gpu.sm_count()?, gpu.l2_bytes()? as usize);
    let weight = WeightFormat::parse(&args.weight)?;
    let act = ActFormat::parse(&args.act)?;
    let mut parts = SpecParts::new(weight, act);
    parts.arch = arch;
    parts.group = if args.group == 0 { ScaleGroup::PerChannel } else { ScaleGroup::Group(args.group) };
    if let Some(s) = &args.scale {
        parts.scale = ScaleFormat::parse(s)?;
    }
    let spec = Spec::new(parts)?;
    let mut ex = GpuExecutor::new(gpu, arch)?;
    let device = ex.name();

    // Random codes make random words; scales are valid values of the scale format.
    let group = match spec.group() {
        ScaleGroup::Group(g) => Some(g as usize),
        ScaleGroup::PerChannel => None,
    };
    let layout = A16Layout::new(weight.bits(), args.n, args.k, group);
    let mut rng = SplitMix64::new(7);
    let words: Vec<u32> = (0..layout.total_words()).map(|_| rng.next_u32()).collect();
    let groups = group.map_or(1, |g| layout.k_pad / g);
    let sfmt = spec.scale().scalar();
    let sbytes = (spec.scale().bits() / 8) as usize;
    let scales: Vec<u8> = (0..groups * layout.n_pad)
        .flat_map(|_| sfmt.encode(0.002 + 0.001 * (rng.unit_f32() + 1.0)).to_le_bytes().into_iter().take(sbytes))
        .collect();
    let wbytes = words.len() * 4 + scales.len();
    let copies = (3 * l2).div_ceil(wbytes).clamp(2, 64);
    let mut dev_w = Vec::new();
    for _ in 0..copies {
        let w = ex.upload_new(&words)?;
        let s = ex.upload_new(&scales)?;
        dev_w.push(DeviceWeights {
            desc: WeightsDesc {
                layout,
                format: weight,
                scale_format: spec.scale(),
                group: spec.group(),
                zero_point: spec.zero_point(),
                global_scale: None,
            },
            words: w,
            scales: s,
            zeros: s,
        });
    }
    eprintln!("{device}: {sms} SMs, L2 {} MB; {copies} weight copies of {:.1} MB", l2 >> 20, wbytes as f64 / 1e6);

    ex.set_sync(false);
    for &m in &args.m {
        let plan = KernelPlan::choose(m, layout.n_pad, arch, weight.bits());
        let split = plan.split_k_for(m, layout.n_pad, layout.k_pad, sms);
        let kernels = generate(&spec, &plan)?;
        let a: Vec<u16> = (0..m * args.k).map(|_| half::f16::from_f32(rng.unit_f32()).to_bits()).collect();
        let a_dev = ex.upload_new(&a)?;
        let out = ex.alloc(m * args.n * 2)?;
        let wsb = workspace_bytes(&layout, m, split);
        let ws = if wsb > 0 { Some(Buf { ptr: ex.alloc(wsb)?, len: wsb }) } else { None };
        let launch = |ex: &mut GpuExecutor, i: usize| {
            let ops = GemmOperands {
                weights: &dev_w[i % copies],
                a: Buf { ptr: a_dev, len: m * args.k },
                out: Buf { ptr: out, len: m * args.n },
                workspace: ws,
                m,
                split,
            };
            run_gemm_in(ex, &kernels, &ops)
        };
        for i in 0..3 {
            launch(&mut ex, i)?;
        }
        ex.synchronize()?;
        let timer = EventTimer::new()?;
        let mut times = Vec::new();
        for r in 0..args.reps {
            timer.start()?;
            for i in 0..args.iters as usize {
                launch(&mut ex, r as usize * 7 + i)?;
            }
            times.push(timer.stop()? as f64 * 1e3 / args.iters as f64);
        }
        ex.synchronize()?;
        times.sort_by(|x, y| x.partial_cmp(y).unwrap());
        let us = times[times.len() / 2];
        let bytes = wbytes as f64 + (m * args.k * 2 + m * args.n * 2) as f64;
        let flops = 2.0 * (m * args.n * args.k) as f64;
        println!(
            "{{\"impl\":\"humming\",\"spec\":\"{}\",\"m\":{m},\"n\":{},\"k\":{},\"us\":{us:.2},\"gbps\":{:.1},\"tflops\":{:.2},\"plan\":\"{plan}\",\"split\":{split},\"harness\":\"steady-rotating-{copies}\"}}",
            spec.id(),
            args.n,
            args.k,
            bytes / us / 1e3,
            flops / us / 1e6
        );
        ex.free(a_dev)?;
        ex.free(out)?;
        if let Some(w) = ws {
            ex.free(w.ptr)?;
        }
    }
    Ok(())
}
