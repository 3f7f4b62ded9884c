//! Writes the PTX of one generated GEMM kernel and prints what `ptxas -v` reports for it, so a
//! kernel can be read (and disassembled) without a GPU:
//!
//! ```text
//! plan_ptx --spec "weight=u4 act=f16 group=128 arch=sm_90a" --shape 28672x8192 --m 32 [--plan NAME] --out /tmp/k
//! ```
//!
//! `--plan` defaults to the plan `KernelPlan::choose_for` takes for the shape and M. Writes
//! `<out>/<entry>.ptx` and, where ptxas is found, `<out>/<entry>.cubin` (for `cuobjdump -sass`):
//! one ptxas run gives both.

use clap::Parser;
use humming::core::ir::ptx;
use humming::core::kernel::{KernelPlan, generate};
use humming::core::{Spec, SpecParts};

#[derive(Parser, Debug)]
struct Args {
    /// The spec, as `SpecParts::parse` reads it.
    #[arg(long, default_value = "weight=u4 act=f16 group=128 arch=sm_90a")]
    spec: String,
    /// N x K of the weights (for the default plan).
    #[arg(long, default_value = "8192x8192")]
    shape: String,
    /// M (for the default plan).
    #[arg(long, default_value_t = 32)]
    m: usize,
    /// A plan name (`m2x16_n4x64_k1w_bk128_s4_ws`); default: the heuristic's.
    #[arg(long)]
    plan: Option<String>,
    /// Folder for the PTX and the cubin.
    #[arg(long, default_value = "plan-ptx")]
    out: std::path::PathBuf,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let spec = Spec::new(SpecParts::parse(&args.spec)?).map_err(|e| e.to_string())?;
    let (n, k) = args.shape.split_once('x').ok_or("--shape: expected NxK")?;
    let (n, k): (usize, usize) = (n.parse()?, k.parse()?);
    let plan = match &args.plan {
        Some(p) => p.parse::<KernelPlan>()?,
        None => KernelPlan::choose_for(&spec, args.m, n.next_multiple_of(64), k.next_multiple_of(64)),
    };
    let kernels = generate(&spec, &plan)?;
    let text = ptx::print(&kernels.main, spec.arch())?;
    std::fs::create_dir_all(&args.out)?;
    let path = args.out.join(format!("{}.ptx", kernels.main.name));
    std::fs::write(&path, &text)?;
    println!("plan {plan}: {} ({} lines)", path.display(), text.lines().count());
    let cubin = path.with_extension("cubin");
    match ptx::ptxas::assemble_file(&path, spec.arch(), &cubin) {
        Ok(report) => {
            print!("{report}");
            println!("cubin: {}", cubin.display());
        }
        Err(e) => println!("ptxas: {e}"),
    }
    Ok(())
}
