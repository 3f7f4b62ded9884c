//! The hand-built IR samples on the GPU, for every target each claims that the device runs:
//! the same check code as on the emulator (`humming_core::ir::samples`), compared with plain
//! Rust results. Skipped (and saying so) without a device.

use humming::core::ir::samples::all_samples;
use humming::cuda::GpuExecutor;
use humming::cuda::testing::gpu_or_skip;

#[test]
fn gpu_ir_samples_match_rust() {
    let Some(gpu) = gpu_or_skip("gpu_ir_samples_match_rust") else { return };
    let cc = gpu.compute_capability();
    let first = gpu.native_arch().expect("a supported device");
    let mut ex = GpuExecutor::new(gpu, first).expect("executor");
    let mut ran = 0;
    for sample in all_samples() {
        for &arch in sample.claims() {
            if !arch.runs_on(cc) {
                println!("{:<22} {:<7} not runnable on sm_{}{}", sample.name, arch, cc.0, cc.1);
                continue;
            }
            ex.set_target(arch).expect("target");
            for seed in 0..3u64 {
                sample
                    .check(&mut ex, seed)
                    .unwrap_or_else(|e| panic!("{} on {arch}, seed {seed}: {e}", sample.name));
            }
            println!("{:<22} {:<7} ok (3 seeds)", sample.name, arch);
            ran += 1;
        }
    }
    assert!(ran > 0, "no sample ran");
    println!("{ran} (sample, target) pairs passed on the GPU");
}
