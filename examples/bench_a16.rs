//! Benchmark harness for the W{b}A16 GEMM on a GPU (issue 6). Times any spec x shape x M x plan x
//! split with CUDA events in two harnesses and prints one JSON object per measurement:
//!
//! - `graph` (steady state): a CUDA graph of `--iters` back-to-back GEMMs over rotating weight
//!   copies totalling more than 3x the L2 (or `--copies`), replayed `--reps` times; time per GEMM = replay time /
//!   iters, median over replays. No host launch overhead in the number.
//! - `launch` (steady state without a graph): the same back-to-back GEMMs launched from the host
//!   (the issue-4 harness; host launch cost can show when kernels are short).
//! - `cold`: one GEMM per timed region, the L2 flushed before it by writing a 256 MB buffer
//!   (the flush is not timed, its dirty-line write-back partly is, as with triton's do_bench).
//!
//! Every launch goes through `humming_core::kernel::launch::prepare` (the one place that builds
//! grids and argument lists). Bytes counted: packed weights, scales (and zero points),
//! activations and outputs, each once. Also measured in the same process: device-to-device copy
//! bandwidth (bytes read + written, 1 GiB). Fractions: of that copy bandwidth and of
//! `--tc-peak` TFLOP/s.
//!
//! ```text
//! bench_a16 --weight u4 --act f16 --group 128 --shapes 8192x8192,28672x8192 \
//!     --m 1,16,64 --harness graph,cold [--plans auto,m1x16_n1x64_k4w_bk256_s4] [--splits auto,1,2]
//! ```

use clap::Parser;
use humming::core::ir::{DevPtr, Executor, Kernel, samples::SplitMix64};
use humming::core::kernel::check::check_kernels;
use humming::core::kernel::launch::{Buf, DeviceWeights, GemmLaunches, GemmOperands, Launch, WeightsDesc, alloc_workspace, prepare};
use humming::core::kernel::{CompiledKernel, DeviceProfile, GemmKernels, KernelPlan, generate};
use humming::core::pack::fragment::{A16Layout, BitPlacement};
use humming::core::*;
use humming::cuda::cust::sys as cu;
use humming::cuda::{Gpu, GpuExecutor, Module};
use std::collections::HashMap;

#[path = "common/spec_args.rs"]
mod spec_args;
use spec_args::SpecArgs;

#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    spec: SpecArgs,
    /// N x K shapes.
    #[arg(long, value_delimiter = ',', default_value = "8192x8192")]
    shapes: Vec<String>,
    #[arg(long, value_delimiter = ',', default_value = "1,16,64,256")]
    m: Vec<usize>,
    /// Harnesses: graph, launch, cold.
    #[arg(long, value_delimiter = ',', default_value = "graph,cold")]
    harness: Vec<String>,
    /// Plans: `auto` (KernelPlan::choose), `wgmma` (the wgmma plan of the default rules at this M
    /// and shape, also for widths whose defaults keep mma.sync plans:
    /// KernelPlan::wgmma_rule_for_device; skipped where there is none) or plan names
    /// (m1x16_n4x64_k2w_bk128_s4). A plan that does not validate for the target, or whose M tile
    /// is far from M, is skipped.
    #[arg(long, value_delimiter = ',', default_value = "auto")]
    plans: Vec<String>,
    /// K splits: `auto` (KernelPlan::split_k_for) or numbers.
    #[arg(long, value_delimiter = ',', default_value = "auto")]
    splits: Vec<String>,
    /// GEMMs per graph / timed region (graph and launch harnesses).
    #[arg(long, default_value_t = 60)]
    iters: u32,
    /// Timed repetitions (median reported).
    #[arg(long, default_value_t = 9)]
    reps: u32,
    /// Timed cold calls (median reported).
    #[arg(long, default_value_t = 25)]
    cold_reps: u32,
    /// Tensor-core peak for the fraction (dense f16/bf16 TFLOP/s; H200 datasheet by default).
    #[arg(long, default_value_t = 989.4)]
    tc_peak: f64,
    /// Check every (plan, split) against the f64 reference at this M x N x K before timing it
    /// (`MxNxK`; N and K default to the benchmark shape's).
    #[arg(long)]
    check: Option<String>,
    /// Skip the copy-bandwidth measurement.
    #[arg(long)]
    no_copy: bool,
    /// Plain launches only (by default kernels that wait for the previous grid get programmatic
    /// dependent launch, as in the runtime).
    #[arg(long)]
    no_pdl: bool,
    /// Target to generate for (default: the device's native target; e.g. `sm_90a` for the
    /// wgmma plans on an H100/H200).
    #[arg(long)]
    arch: Option<String>,
    /// Label written into every record (e.g. the kernel version).
    #[arg(long, default_value = "")]
    label: String,
    /// Rotating weight copies (default: enough for 3x the L2). `--copies 1` keeps one copy,
    /// which stays in the L2 where it fits: the kernel's own streaming rate, not the DRAM's.
    #[arg(long)]
    copies: Option<usize>,
    /// `auto` takes the plans of no particular device (`KernelPlan::choose_for`) instead of
    /// this GPU's (`choose_for_device` with `Gpu::profile`, as the runtime's layers do).
    #[arg(long)]
    default_plans: bool,
    /// `auto` takes the plans of a lean-DRAM GPU ([`DeviceProfile::H100_SXM`]'s DRAM peak, this
    /// GPU's multiprocessors) whatever this GPU is: the H100's rules timed on another GPU (an
    /// H200) against `--default-plans`.
    #[arg(long, conflicts_with = "default_plans")]
    lean_plans: bool,
}

fn ck(call: &str, r: cu::CUresult) -> Result<(), String> {
    if r == cu::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(format!("{call} failed: {r:?}")) }
}

/// A kernel loaded for direct launches on the bench stream.
struct Loaded {
    _module: Module,
    f: cu::CUfunction,
    regs: i32,
    /// Launched with programmatic dependent launch.
    pdl: bool,
}

fn load(kernel: &Kernel, arch: Arch, pdl_allowed: bool) -> Result<Loaded, String> {
    let compiled = CompiledKernel::print(kernel, arch).map_err(|e| e.to_string())?;
    let pdl = pdl_allowed && compiled.waits_for_prior_grid();
    let module = Module::load_ptx(&compiled.ptx, &kernel.name).map_err(|e| e.to_string())?;
    let f = module.function(&kernel.name).map_err(|e| e.to_string())?;
    let mut regs = 0;
    // SAFETY: valid function handle; the attribute calls write one int / set one limit.
    unsafe {
        ck("cuFuncSetAttribute", cu::cuFuncSetAttribute(f, cu::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 227 * 1024))?;
        ck("cuFuncGetAttribute", cu::cuFuncGetAttribute(&mut regs, cu::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS, f))?;
    }
    Ok(Loaded { _module: module, f, regs, pdl })
}

fn occupancy(l: &Loaded, launch: &Launch) -> Result<i32, String> {
    let mut n = 0;
    // SAFETY: valid function handle, writes one int.
    ck("cuOccupancy", unsafe {
        cu::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, l.f, launch.dims.block as i32, launch.dims.dynamic_shared_bytes as usize)
    })?;
    Ok(n)
}

fn launch_on(l: &Loaded, launch: &Launch, stream: cu::CUstream) -> Result<(), String> {
    // SAFETY: the arguments were validated against the kernel by `prepare`.
    unsafe { humming::cuda::launch_kernel(l.f, launch.dims, &launch.args, stream, l.pdl) }.map_err(|e| e.to_string())
}

struct Events {
    s: cu::CUevent,
    e: cu::CUevent,
}

impl Events {
    fn new() -> Result<Events, String> {
        let (mut s, mut e) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: writes two handles.
        unsafe {
            ck("cuEventCreate", cu::cuEventCreate(&mut s, 0))?;
            ck("cuEventCreate", cu::cuEventCreate(&mut e, 0))?;
        }
        Ok(Events { s, e })
    }
    /// Milliseconds of the work `f` puts on `stream`.
    fn time(&self, stream: cu::CUstream, f: impl FnOnce() -> Result<(), String>) -> Result<f64, String> {
        let mut ms = 0f32;
        // SAFETY: valid events and stream.
        unsafe {
            ck("cuEventRecord", cu::cuEventRecord(self.s, stream))?;
            f()?;
            ck("cuEventRecord", cu::cuEventRecord(self.e, stream))?;
            ck("cuEventSynchronize", cu::cuEventSynchronize(self.e))?;
            ck("cuEventElapsedTime", cu::cuEventElapsedTime(&mut ms, self.s, self.e))?;
        }
        Ok(ms as f64)
    }
}

fn median(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[v.len() / 2], v[0])
}

/// The kernels of one (spec, plan), loaded.
struct Set {
    kernels: GemmKernels,
    main: Loaded,
    reduce: Loaded,
}

fn run_gemm_on(set: &Set, l: &GemmLaunches, stream: cu::CUstream) -> Result<(), String> {
    launch_on(&set.main, &l.main, stream)?;
    if let Some(r) = &l.reduce {
        launch_on(&set.reduce, r, stream)?;
    }
    Ok(())
}

fn parse_shape(s: &str) -> Result<(usize, usize), String> {
    let (n, k) = s.split_once('x').ok_or_else(|| format!("shape `{s}`: expected NxK"))?;
    Ok((n.parse().map_err(|_| format!("shape `{s}`"))?, k.parse().map_err(|_| format!("shape `{s}`"))?))
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
    let arch = match &args.arch {
        Some(a) => Arch::parse(a).ok_or_else(|| format!("--arch {a}: not a target (sm_75 .. sm_90a)"))?,
        None => gpu.native_arch().ok_or("unsupported device")?,
    };
    if !arch.runs_on(gpu.compute_capability()) {
        return Err(format!("--arch {arch} does not run on this device").into());
    }
    let (sms, l2) = (gpu.sm_count()?, gpu.l2_bytes()? as usize);
    let dram = gpu.profile();
    let profile = match (args.default_plans, args.lean_plans) {
        (true, _) => None,
        (_, true) => Some(DeviceProfile { sms, ..DeviceProfile::H100_SXM }),
        _ => dram,
    };
    let spec = args.spec.spec(arch)?;
    let (weight, act) = (spec.weight(), spec.act());
    let mut ex = GpuExecutor::new(gpu, arch)?;
    let device = ex.name();
    let mut stream: cu::CUstream = std::ptr::null_mut();
    // SAFETY: writes one handle.
    ck("cuStreamCreate", unsafe { cu::cuStreamCreate(&mut stream, 1) })?; // non-blocking
    let ev = Events::new()?;
    eprintln!("{device}: {sms} SMs, L2 {} MB, DRAM peak {:?} GB/s (plans for: {}), spec {}", l2 >> 20, dram.map(|p| p.dram_gbs.round() as u32),
        if args.default_plans { "no device" } else if args.lean_plans { "a lean-DRAM GPU" } else { "it" }, spec.id());

    // Copy bandwidth (read + write) of a 1 GiB device-to-device copy.
    let mut copy_gbps = None;
    if !args.no_copy {
        let bytes = 1usize << 30;
        let (src, dst) = (ex.alloc(bytes)?, ex.alloc(bytes)?);
        let mut ts = Vec::new();
        for r in 0..7 {
            // SAFETY: both ranges are live allocations of `bytes`.
            let t = ev.time(stream, || ck("cuMemcpyDtoDAsync", unsafe { cu::cuMemcpyDtoDAsync_v2(dst.0, src.0, bytes, stream) }))?;
            if r >= 2 {
                ts.push(t);
            }
        }
        let (ms, _) = median(ts);
        let gbps = 2.0 * bytes as f64 / ms / 1e6;
        copy_gbps = Some(gbps);
        println!("{{\"impl\":\"copy\",\"device\":\"{device}\",\"bytes\":{},\"us\":{:.2},\"gbps\":{gbps:.1}}}", 2 * bytes, ms * 1e3);
        ex.free(src)?;
        ex.free(dst)?;
    }
    // L2 flush buffer for the cold harness.
    let flush_bytes = 256usize << 20;
    let flush = ex.alloc(flush_bytes)?;

    let mut rng = SplitMix64::new(7);
    let mut sets: HashMap<String, Set> = HashMap::new();
    for shape in &args.shapes {
        let (n, k) = parse_shape(shape)?;
        let group = match spec.group() {
            ScaleGroup::Group(g) => Some(g as usize),
            ScaleGroup::PerChannel => None,
        };
        let layout = A16Layout::new(weight.bits(), n, k, group);
        // Random codes make random words; scales are valid values of the scale format.
        let words: Vec<u32> = (0..layout.total_words()).map(|_| rng.next_u32()).collect();
        let groups = group.map_or(1, |g| layout.k_pad / g);
        let sfmt = spec.scale().scalar();
        let sbytes = (spec.scale().bits() / 8) as usize;
        let scales: Vec<u8> = (0..groups * layout.n_pad)
            .flat_map(|_| sfmt.encode(0.002 + 0.001 * (rng.unit_f32() + 1.0)).to_le_bytes().into_iter().take(sbytes))
            .collect();
        let zeros: Option<Vec<u8>> = args.spec.dynamic_zero.then(|| (0..groups * layout.n_pad).map(|_| (rng.next_u32() % 3 + 7) as u8).collect());
        let wbytes = words.len() * 4 + scales.len() + zeros.as_ref().map_or(0, |z| z.len());
        let copies = args.copies.unwrap_or_else(|| (3 * l2).div_ceil(wbytes).clamp(2, 64)).max(1);
        let mut dev_w = Vec::new();
        for _ in 0..copies {
            let w = ex.upload_new(&words)?;
            let s = ex.upload_new(&scales)?;
            let z = match &zeros {
                Some(z) => ex.upload_new(z)?,
                None => s,
            };
            dev_w.push(DeviceWeights {
                desc: WeightsDesc {
                    layout,
                    format: weight,
                    placement: BitPlacement::new(weight, spec.act()),
                    scale_format: spec.scale(),
                    group: spec.group(),
                    zero_point: spec.zero_point(),
                    global_scale: None,
                },
                words: w,
                scales: s,
                zeros: z,
            });
        }
        eprintln!("N x K = {n} x {k}: {copies} weight copies of {:.1} MB", wbytes as f64 / 1e6);

        for &m in &args.m {
            let a: Vec<u16> = (0..m * k)
                .map(|_| match act {
                    ActFormat::Bf16 => half::bf16::from_f32(rng.unit_f32()).to_bits(),
                    _ => half::f16::from_f32(rng.unit_f32()).to_bits(),
                })
                .collect();
            let a_dev = ex.upload_new(&a)?;
            let out = ex.alloc(m * n * 2)?;
            let mut seen = std::collections::HashSet::new();
            for pname in &args.plans {
                let plan = match pname.as_str() {
                    "auto" => KernelPlan::choose_for_device(&spec, m, layout.n_pad, layout.k_pad, profile.as_ref()),
                    "wgmma" => match KernelPlan::wgmma_rule_for_device(&spec, m, layout.n_pad, layout.k_pad, profile.as_ref()) {
                        Some(plan) => plan,
                        None => continue,
                    },
                    name => name.parse::<KernelPlan>()?,
                };
                if plan.validate(arch, weight.bits()).is_err() {
                    eprintln!("skip {plan}: does not validate for {arch}");
                    continue;
                }
                // An M tile much larger than M (or far too small: more than two row tiles of
                // a small tile) is not a candidate for this M.
                if !matches!(pname.as_str(), "auto" | "wgmma") && (plan.bm() as usize >= 2 * m.max(16) || (plan.bm() < 64 && 2 * (plan.bm() as usize) < m)) {
                    continue;
                }
                for sname in &args.splits {
                    let split = if sname == "auto" { plan.split_k_for(m, layout.n_pad, layout.k_pad, sms) } else { sname.parse::<u32>()? };
                    if !seen.insert((plan, split)) {
                        continue;
                    }
                    if let Err(e) = bench_one(&args, &mut ex, &mut sets, &spec, plan, split, (m, n, k), &layout, &dev_w, wbytes, a_dev, out, stream, &ev, flush, flush_bytes, copy_gbps, sms, &device) {
                        eprintln!("M={m} {plan} split {split}: {e}");
                    }
                }
            }
            ex.free(a_dev)?;
            ex.free(out)?;
        }
        for w in dev_w {
            ex.free(w.words)?;
            ex.free(w.scales)?;
            if w.zeros != w.scales {
                ex.free(w.zeros)?;
            }
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn bench_one(
    args: &Args,
    ex: &mut GpuExecutor,
    sets: &mut HashMap<String, Set>,
    spec: &Spec,
    plan: KernelPlan,
    split: u32,
    (m, n, k): (usize, usize, usize),
    layout: &A16Layout,
    dev_w: &[DeviceWeights],
    wbytes: usize,
    a_dev: DevPtr,
    out: DevPtr,
    stream: cu::CUstream,
    ev: &Events,
    flush: DevPtr,
    flush_bytes: usize,
    copy_gbps: Option<f64>,
    sms: u32,
    device: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    let arch = spec.arch();
    let key = humming::core::kernel::kernel_name(spec, &plan);
    if !sets.contains_key(&key) {
        let kernels = generate(spec, &plan)?;
        let main = load(&kernels.main, arch, !args.no_pdl)?;
        let reduce = load(&kernels.reduce, arch, false)?;
        sets.insert(key.clone(), Set { kernels, main, reduce });
    }
    let set = &sets[&key];
    if let Some(c) = &args.check {
        let dims: Vec<usize> = c.split('x').map(|x| x.parse().unwrap_or(0)).collect();
        let (cm, cn, ck_) = (dims[0].max(1), *dims.get(1).unwrap_or(&n), *dims.get(2).unwrap_or(&k));
        let cn = if cn == 0 { n } else { cn };
        let ck_ = if ck_ == 0 { k } else { ck_ };
        let cl = A16Layout::new(spec.weight().bits(), cn, ck_, None);
        let csplit = split.min((cl.k_pad as u32 / plan.bk).max(1));
        ex.set_sync(true);
        let r = check_kernels(ex, &set.kernels, (cm, cn, ck_), csplit, 1234 + m as u64)?;
        eprintln!("check {} M={cm} N={cn} K={ck_} split {csplit}: max err {:.3e} ({:.3} of tolerance)", r.kernel, r.max_abs_err, r.max_tol_frac);
        ex.set_sync(false);
    }
    let ws = alloc_workspace(ex, layout, m, split)?;
    let launches: Vec<GemmLaunches> = dev_w
        .iter()
        .map(|w| {
            let ops = GemmOperands { weights: w, a: Buf { ptr: a_dev, len: m * k }, out: Buf { ptr: out, len: m * n }, workspace: ws, m, split };
            prepare(spec, &plan, &ops)
        })
        .collect::<Result<_, _>>()?;
    let copies = launches.len();
    let occ = occupancy(&set.main, &launches[0].main)?;
    // Warm up (module load, first-touch) and surface errors.
    for l in &launches {
        run_gemm_on(set, l, stream)?;
    }
    // SAFETY: valid stream.
    ck("cuStreamSynchronize", unsafe { cu::cuStreamSynchronize(stream) })?;
    let bytes = wbytes as f64 + (m * k * 2 + m * n * 2) as f64;
    let flops = 2.0 * (m * n * k) as f64;
    let d = launches[0].main.dims;
    for h in &args.harness {
        let (us, us_min) = match h.as_str() {
            "graph" => {
                let mut graph: cu::CUgraph = std::ptr::null_mut();
                let mut exec: cu::CUgraphExec = std::ptr::null_mut();
                // SAFETY: capture on our own stream; every launch is checked.
                unsafe {
                    ck("cuStreamBeginCapture", cu::cuStreamBeginCapture_v2(stream, cu::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL))?;
                    let mut r = Ok(());
                    for i in 0..args.iters as usize {
                        r = r.and_then(|_| run_gemm_on(set, &launches[i % copies], stream));
                    }
                    ck("cuStreamEndCapture", cu::cuStreamEndCapture(stream, &mut graph))?;
                    r?;
                    ck("cuGraphInstantiate", cu::cuGraphInstantiateWithFlags(&mut exec, graph, 0))?;
                    ck("cuGraphLaunch", cu::cuGraphLaunch(exec, stream))?;
                    ck("cuStreamSynchronize", cu::cuStreamSynchronize(stream))?;
                }
                let mut ts = Vec::new();
                for _ in 0..args.reps {
                    // SAFETY: instantiated graph on our stream.
                    ts.push(ev.time(stream, || ck("cuGraphLaunch", unsafe { cu::cuGraphLaunch(exec, stream) }))? * 1e3 / args.iters as f64);
                }
                // SAFETY: created above, destroyed once.
                unsafe {
                    cu::cuGraphExecDestroy(exec);
                    cu::cuGraphDestroy(graph);
                }
                median(ts)
            }
            "launch" => {
                let mut ts = Vec::new();
                for r in 0..args.reps as usize {
                    ts.push(
                        ev.time(stream, || {
                            for i in 0..args.iters as usize {
                                run_gemm_on(set, &launches[(r * 7 + i) % copies], stream)?;
                            }
                            Ok(())
                        })? * 1e3
                            / args.iters as f64,
                    );
                }
                median(ts)
            }
            "cold" => {
                let mut ts = Vec::new();
                for r in 0..args.cold_reps as usize {
                    // SAFETY: the flush buffer is a live allocation of flush_bytes.
                    ck("cuMemsetD32Async", unsafe { cu::cuMemsetD32Async(flush.0, r as u32, flush_bytes / 4, stream) })?;
                    ts.push(ev.time(stream, || run_gemm_on(set, &launches[r % copies], stream))? * 1e3);
                }
                median(ts)
            }
            other => return Err(format!("unknown harness `{other}` (graph, launch, cold)").into()),
        };
        let gbps = bytes / us / 1e3;
        let tflops = flops / us / 1e6;
        let frac_copy = copy_gbps.map_or("null".to_string(), |c| format!("{:.3}", gbps / c));
        println!(
            "{{\"impl\":\"humming\",\"label\":\"{}\",\"device\":\"{device}\",\"spec\":\"{}\",\"weight\":\"{}\",\"act\":\"{}\",\"m\":{m},\"n\":{n},\"k\":{k},\"harness\":\"{h}\",\"us\":{us:.2},\"us_min\":{us_min:.2},\"gbps\":{gbps:.1},\"tflops\":{tflops:.2},\"frac_copy\":{frac_copy},\"frac_tc\":{:.4},\"plan\":\"{plan}\",\"split\":{split},\"grid\":[{},{},{}],\"threads\":{},\"smem\":{},\"regs\":{},\"ctas_per_sm\":{occ},\"pdl\":{},\"sms\":{sms},\"reduce_launch\":{},\"copies\":{copies}}}",
            args.label,
            spec.id(),
            spec.weight(),
            spec.act(),
            tflops / args.tc_peak,
            d.grid.0,
            d.grid.1,
            d.grid.2,
            d.block,
            d.dynamic_shared_bytes,
            set.main.regs,
            set.main.pdl,
            launches[0].reduce.is_some(),
        );
    }
    if let Some(w) = ws {
        ex.free(w.ptr)?;
    }
    Ok(())
}
