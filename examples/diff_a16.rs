//! Runs one A16 kernel on the GPU and on the CPU emulator with the same inputs and says where the
//! two outputs differ: the tool for a GPU check that fails while the emulator passes. For each
//! seed it prints both outputs' checks against the f64 reference, the elements whose GPU and
//! emulator values differ by more than `--tol-frac` of the check's tolerance (counted by row and
//! by column modulo the plan's column tile), the first of them, and whether `--repeat` GPU
//! launches give the same bits. `--dump DIR` writes the outputs (u16 little-endian, row-major) as
//! `DIR/{gpu,emu}-SEED.bin`. `--cubin FILE` runs the GPU's kernel from a cubin that a chosen
//! `ptxas` compiled (`--ptx-out DIR` writes the PTX), not from the driver's compilation.
//!
//! ```text
//! diff_a16 --weight u4 --act f16 --scale e4m3 --group 16 --arch sm_90a \
//!     --plan m1x8_n1x64_k8w_bk512_s4 --shape 8x136x2048 --split 1 --seeds 7078,7000
//! ```

use clap::Parser;
use humming::core::ir::emu::Emulator;
use humming::core::ir::ptx;
use humming::core::kernel::check::{decode_out, expected, random_operands, run_operands, verify};
use humming::core::kernel::{KernelPlan, generate};
use humming::core::*;
use humming::cuda::{Gpu, GpuExecutor};
use std::collections::BTreeMap;

#[path = "common/spec_args.rs"]
mod spec_args;
use spec_args::SpecArgs;

#[derive(Parser, Debug)]
struct Args {
    #[command(flatten)]
    spec: SpecArgs,
    /// Target (default: the device's native one).
    #[arg(long)]
    arch: Option<String>,
    /// Plan name (default: `KernelPlan::choose_for` the spec and shape).
    #[arg(long)]
    plan: Option<String>,
    /// M x N x K.
    #[arg(long, default_value = "8x136x2048")]
    shape: String,
    #[arg(long, default_value_t = 1)]
    split: u32,
    #[arg(long, value_delimiter = ',', default_value = "1")]
    seeds: Vec<u64>,
    /// GPU launches per seed (their outputs must be bitwise equal).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// GPU and emulator values further apart than this fraction of the element's check
    /// tolerance count as different (each may differ from the reference by the whole of it).
    #[arg(long, default_value_t = 0.25)]
    tol_frac: f64,
    #[arg(long)]
    dump: Option<std::path::PathBuf>,
    /// Run the GEMM kernel from this cubin (`ptxas -arch=sm_90a` of its PTX, see `--ptx-out`)
    /// instead of the driver's compilation of its PTX: a fault of one compiler shows as a
    /// difference that the other's code does not have.
    #[arg(long)]
    cubin: Option<std::path::PathBuf>,
    /// Write the GEMM kernel's PTX (`<name>.ptx`) into this folder.
    #[arg(long)]
    ptx_out: Option<std::path::PathBuf>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let gpu = match Gpu::open(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("diff_a16: no GPU ({e}); nothing to compare");
            std::process::exit(2);
        }
    };
    let arch = match &args.arch {
        Some(a) => Arch::parse(a).ok_or_else(|| format!("--arch {a}: not a target (sm_75 .. sm_90a)"))?,
        None => gpu.native_arch().ok_or("unsupported device")?,
    };
    let spec = args.spec.spec(arch)?;
    let dims: Vec<usize> = args.shape.split('x').map(str::parse).collect::<Result<_, _>>()?;
    let [m, n, k] = dims[..] else { return Err(format!("--shape {}: want MxNxK", args.shape).into()) };
    let plan = match &args.plan {
        Some(p) => p.parse::<KernelPlan>()?,
        None => KernelPlan::choose_for(&spec, m, n, k),
    };
    let kernels = generate(&spec, &plan)?;
    let mut gpu_ex = GpuExecutor::new(gpu, arch)?;
    let bn = plan.bn() as usize;
    let name = &kernels.main.name;
    if let Some(dir) = &args.ptx_out {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join(format!("{name}.ptx")), ptx::print(&kernels.main, arch)?)?;
    }
    let from = match &args.cubin {
        Some(path) => {
            gpu_ex.load_image(name, &std::fs::read(path)?)?;
            format!(", the GPU's kernel from {}", path.display())
        }
        None => String::new(),
    };
    println!("{spec} {plan} M={m} N={n} K={k} split {}{from}", args.split);
    let mut bad = false;
    for &seed in &args.seeds {
        let (w, act) = random_operands(&spec, (m, n, k), seed)?;
        let emu = run_operands(&mut Emulator::new(), &kernels, &w, &act, args.split)?;
        let gpu_out = run_operands(&mut gpu_ex, &kernels, &w, &act, args.split)?;
        let mut unstable = 0;
        for _ in 1..args.repeat {
            let again = run_operands(&mut gpu_ex, &kernels, &w, &act, args.split)?;
            unstable += again.iter().zip(&gpu_out).filter(|(a, b)| a != b).count();
        }
        let mut report = |out: &[u16]| match verify(&spec, &w, &act, out, name, args.split) {
            Ok(r) => format!("passes ({:.3} of tolerance)", r.max_tol_frac),
            Err(e) => {
                bad = true;
                format!("FAILS: {e}")
            }
        };
        let value = |b: u16| decode_out(b, spec.out());
        let want = expected(&spec, &w, &act)?;
        let diffs: Vec<(usize, usize)> = (0..m * n)
            .filter(|&i| !(value(gpu_out[i]) - value(emu[i])).abs().le(&(args.tol_frac * want[i].tol)))
            .map(|i| (i / n, i % n))
            .collect();
        println!("seed {seed}: GPU {}", report(&gpu_out));
        println!("seed {seed}: emulator {}", report(&emu));
        println!(
            "seed {seed}: {} of {} elements differ by more than {} of their tolerance; {} bits changed over {} more GPU launches",
            diffs.len(),
            m * n,
            args.tol_frac,
            unstable,
            args.repeat - 1
        );
        if !diffs.is_empty() {
            bad = true;
            let mut rows: BTreeMap<usize, usize> = BTreeMap::new();
            let mut cols: BTreeMap<usize, usize> = BTreeMap::new();
            for &(r, c) in &diffs {
                *rows.entry(r).or_default() += 1;
                *cols.entry(c % bn).or_default() += 1;
            }
            println!("  by row: {rows:?}");
            println!("  by column mod {bn}: {cols:?}");
            for &(r, c) in diffs.iter().take(12) {
                let e = want[r * n + c];
                println!("  ({r}, {c}): GPU {} emulator {} reference {} (tolerance {:e})", value(gpu_out[r * n + c]), value(emu[r * n + c]), e.want, e.tol);
            }
        }
        if unstable > 0 {
            bad = true;
        }
        if let Some(dir) = &args.dump {
            std::fs::create_dir_all(dir)?;
            for (tag, out) in [("gpu", &gpu_out), ("emu", &emu)] {
                std::fs::write(dir.join(format!("{tag}-{seed}.bin")), bytemuck::cast_slice::<u16, u8>(out))?;
            }
        }
    }
    if bad {
        std::process::exit(1);
    }
    Ok(())
}
