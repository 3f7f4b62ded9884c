//! The hand-built IR samples (`ir::samples`) on the CPU emulator: each sample's own checker
//! (fresh random inputs, poisoned outputs, every element compared with a plain Rust
//! computation) for several seeds. The same checkers run on the GPU in the root package's
//! `gpu_ir_samples` test.

use humming_core::ir::emu::Emulator;
use humming_core::ir::samples::all_samples;

#[test]
fn every_sample_matches_rust_on_the_emulator() {
    let mut ran = 0;
    for sample in all_samples() {
        for seed in 0..4u64 {
            let mut ex = Emulator::new();
            sample.check(&mut ex, seed).unwrap_or_else(|e| panic!("{} seed {seed}: {e}", sample.name));
            ran += 1;
        }
        println!("{:<20} ok on the emulator (4 seeds)", sample.name);
    }
    assert_eq!(ran, all_samples().len() * 4);
}
