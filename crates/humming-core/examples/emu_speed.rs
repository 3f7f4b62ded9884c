//! Emulator throughput on an arithmetic-heavy kernel: a tensor-core tile GEMM (ldmatrix.x4 +
//! mma.sync.m16n8k16, one CTA of 4 warps, K = 4096 per launch). Prints lane-instructions per
//! second. Run with `cargo run --release -p humming-core --example emu_speed [k_total] [launches]`.

#[path = "../tests/emu_util/gemm.rs"]
mod gemm;

use std::time::Instant;

use humming_core::ir::emu::Emulator;
use humming_core::ir::{Executor, KernelArg, LaunchDims};

fn main() {
    let mut args = std::env::args().skip(1);
    let k_total: u32 = args.next().map_or(4096, |s| s.parse().expect("k_total"));
    let launches: u32 = args.next().map_or(20, |s| s.parse().expect("launches"));
    assert!(k_total % 64 == 0, "k_total must be a multiple of 64");

    let kernel = gemm::tile_gemm_kernel();
    let (a, bt) = gemm::inputs();
    let mut emu = Emulator::new();
    let pa = emu.upload_new(&a).unwrap();
    let pb = emu.upload_new(&bt).unwrap();
    let pc = emu.alloc(gemm::M * gemm::N * 4).unwrap();
    let kargs = [
        KernelArg::Ptr(pa),
        KernelArg::Ptr(pb),
        KernelArg::Ptr(pc),
        KernelArg::U32(k_total),
    ];
    let dims = LaunchDims::linear(1, 128);

    // Warm up and check the result.
    emu.launch(&kernel, dims, &kargs).unwrap();
    let c: Vec<f32> = emu.download_vec(pc, gemm::M * gemm::N).unwrap();
    assert_eq!(
        c,
        gemm::reference(&a, &bt, k_total as usize),
        "tile GEMM result"
    );

    let mut lanes = 0u64;
    let mut warps = 0u64;
    let mut mmas = 0u64;
    let t0 = Instant::now();
    for _ in 0..launches {
        emu.launch(&kernel, dims, &kargs).unwrap();
        let s = emu.last_stats();
        lanes += s.lane_instructions;
        warps += s.warp_instructions;
        mmas += s.mma;
    }
    let dt = t0.elapsed().as_secs_f64();
    println!("tile GEMM, 4 warps, K = {k_total}, {launches} launches in {dt:.3} s");
    println!("  {warps} warp-instructions, {lanes} lane-instructions, {mmas} mma.sync");
    println!("  {:.1} M lane-instructions/s", lanes as f64 / dt / 1e6);
    println!(
        "  {:.2} M warp-instructions/s, {:.2} M mma.sync/s",
        warps as f64 / dt / 1e6,
        mmas as f64 / dt / 1e6
    );
}
