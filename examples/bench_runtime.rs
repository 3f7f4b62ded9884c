//! Times the layer API (`QuantizedLinear::forward`: operand checks, plan and split choice, the
//! layer's kept split-K workspace, launch) as an inference engine calls it, so the runtime path
//! can be compared with the direct launches of `bench_a16` on the same shapes. Two harnesses,
//! back-to-back calls over layers whose weights total more than 3x the L2:
//!
//! - `graph`: the calls captured once in a CUDA graph (after warm-up calls), replayed; time per
//!   call = replay / calls, median over replays. What a graph-captured decode step sees.
//! - `launch`: the same calls from the host each time; host-side cost shows when it exceeds the
//!   kernel's time.
//!
//!     bench_runtime --shapes 8192x8192,28672x8192 --m 1,8,64 --label v4
//!
//! One JSON object per (shape, M, harness) on stdout.

use clap::Parser;
use half::f16;
use humming::core::*;
use humming::cuda::cust::sys as cu;
use humming::core::quant::quantize;
use humming::cuda::{DeviceBuf, Gpu, QuantizedLinear, quant_config};

#[derive(Parser, Debug)]
struct Args {
    /// N x K shapes.
    #[arg(long, value_delimiter = ',', default_value = "8192x8192")]
    shapes: Vec<String>,
    #[arg(long, value_delimiter = ',', default_value = "1,8,64")]
    m: Vec<usize>,
    /// Calls per graph / timed region.
    #[arg(long, default_value_t = 60)]
    iters: usize,
    /// Timed repetitions (median reported).
    #[arg(long, default_value_t = 9)]
    reps: usize,
    #[arg(long, default_value = "")]
    label: String,
    /// Target (`sm_90`, `sm_90a`, ...); default: the device's fastest (`Gpu::fastest_arch`).
    #[arg(long)]
    arch: Option<String>,
}

fn ck(call: &str, r: cu::CUresult) -> Result<(), String> {
    if r == cu::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(format!("{call} failed: {r:?}")) }
}

/// Milliseconds of the work `f` queues on `stream`, between two events.
fn time(stream: cu::CUstream, f: impl FnOnce() -> Result<(), String>) -> Result<f64, String> {
    let (mut s, mut e, mut ms) = (std::ptr::null_mut(), std::ptr::null_mut(), 0f32);
    // SAFETY: events created, recorded on a live stream, read and destroyed here.
    unsafe {
        ck("cuEventCreate", cu::cuEventCreate(&mut s, 0))?;
        ck("cuEventCreate", cu::cuEventCreate(&mut e, 0))?;
        ck("cuEventRecord", cu::cuEventRecord(s, stream))?;
        let r = f();
        ck("cuEventRecord", cu::cuEventRecord(e, stream))?;
        ck("cuEventSynchronize", cu::cuEventSynchronize(e))?;
        r?;
        ck("cuEventElapsedTime", cu::cuEventElapsedTime(&mut ms, s, e))?;
        cu::cuEventDestroy_v2(s);
        cu::cuEventDestroy_v2(e);
    }
    Ok(ms as f64)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("bench_runtime: no GPU ({e}); nothing measured");
            std::process::exit(2);
        }
    };
    let arch = match &args.arch {
        Some(a) => Arch::parse(a).ok_or_else(|| format!("unknown target {a}"))?,
        None => gpu.fastest_arch().ok_or("no humming target for this device")?,
    };
    let spec = Spec::new(SpecParts { arch, ..SpecParts::new(WeightFormat::UInt(4), ActFormat::F16) })?;
    let stream = gpu.stream()?;
    let raw = stream.as_inner();
    let l2 = 60e6;
    let mut rng = humming::core::rng::SplitMix64::new(7);
    for shape in &args.shapes {
        let (n, k) = shape.split_once('x').ok_or("shape NxK")?;
        let (n, k): (usize, usize) = (n.parse()?, k.parse()?);
        // One quantized matrix, uploaded as several layers (same values, separate buffers).
        let w: Vec<f32> = (0..n * k).map(|_| rng.unit_f32()).collect();
        let q = quantize(&w, n, k, &quant_config(&spec))?;
        let first = QuantizedLinear::from_quantized(&gpu, &q, &spec)?;
        let copies = ((3.0 * l2 / first.weights().bytes() as f64).ceil() as usize).max(2);
        let mut layers = vec![first];
        for _ in 1..copies {
            layers.push(QuantizedLinear::from_quantized(&gpu, &q, &spec)?);
        }
        let wbytes = layers[0].weights().bytes();
        for &m in &args.m {
            let x: Vec<f16> = (0..m * k).map(|_| f16::from_f32(rng.unit_f32())).collect();
            let x = DeviceBuf::from_slice(&gpu, &x)?;
            let mut y = DeviceBuf::<f16>::poisoned(&gpu, m * n)?;
            let mut calls = |iters: usize, r: usize| -> Result<(), String> {
                for i in 0..iters {
                    layers[(r * 7 + i) % copies].forward(&stream, &x, &mut y).map_err(|e| e.to_string())?;
                }
                Ok(())
            };
            // Warm-up: module loads and each layer's workspace.
            calls(copies, 0)?;
            stream.synchronize()?;
            for harness in ["graph", "launch"] {
                let mut ts = Vec::new();
                if harness == "graph" {
                    let (mut graph, mut exec): (cu::CUgraph, cu::CUgraphExec) = (std::ptr::null_mut(), std::ptr::null_mut());
                    // SAFETY: capture on our own stream, then instantiate, replay and destroy.
                    unsafe {
                        ck("cuStreamBeginCapture", cu::cuStreamBeginCapture_v2(raw, cu::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL))?;
                        let r = calls(args.iters, 0);
                        ck("cuStreamEndCapture", cu::cuStreamEndCapture(raw, &mut graph))?;
                        r?;
                        ck("cuGraphInstantiate", cu::cuGraphInstantiateWithFlags(&mut exec, graph, 0))?;
                        for _ in 0..args.reps + 1 {
                            ts.push(time(raw, || ck("cuGraphLaunch", cu::cuGraphLaunch(exec, raw)))? * 1e3 / args.iters as f64);
                        }
                        cu::cuGraphExecDestroy(exec);
                        cu::cuGraphDestroy(graph);
                    }
                    ts.remove(0);
                } else {
                    for r in 0..args.reps {
                        ts.push(time(raw, || calls(args.iters, r))? * 1e3 / args.iters as f64);
                    }
                }
                let us = median(ts);
                let bytes = (wbytes + m * k * 2 + m * n * 2) as f64;
                println!(
                    "{{\"impl\":\"humming-runtime\",\"label\":\"{}\",\"spec\":\"{}\",\"m\":{m},\"n\":{n},\"k\":{k},\"harness\":\"{harness}\",\"us\":{us:.2},\"gbps\":{:.1},\"plan\":\"{}\",\"copies\":{copies}}}",
                    args.label,
                    spec.id(),
                    bytes / us / 1e3,
                    layers[0].bundle().variant_for(m).plan,
                );
            }
        }
    }
    Ok(())
}
