//! Helpers for tests that need a GPU: open one, or say clearly that the test was skipped.

use crate::error::GpuError;
use crate::gpu::Gpu;

/// Environment variable that turns a missing GPU into a test failure (set by the GPU bundle's
/// run script, so a GPU machine never "passes" by skipping).
pub const REQUIRE_GPU_ENV: &str = "HUMMING_REQUIRE_GPU";

/// Opens device 0 for test `test`. Without a device prints `SKIPPED <test>: no CUDA device (...)`
/// to stderr (past the test harness's capture) and returns `None`, unless [`REQUIRE_GPU_ENV`] is set, in which case it panics.
/// Any other driver error panics.
pub fn gpu_or_skip(test: &str) -> Option<Gpu> {
    match Gpu::open(0) {
        Ok(g) => Some(g),
        Err(GpuError::NoDevice(why)) => {
            if std::env::var_os(REQUIRE_GPU_ENV).is_some() {
                panic!("{test}: {REQUIRE_GPU_ENV} is set but there is no CUDA device: {why}");
            }
            skip(test, &format!("no CUDA device ({why})"));
            None
        }
        Err(e) => panic!("{test}: opening the GPU failed: {e}"),
    }
}

/// [`gpu_or_skip`] for a test of `arch`'s PTX: also `None`, saying so, on a device that does not
/// run it (sm_90a runs only on compute capability 9.0). That skip is not a failure under
/// [`REQUIRE_GPU_ENV`]: the GPU is there, the target is not its.
pub fn gpu_for_or_skip(test: &str, arch: humming_core::Arch) -> Option<Gpu> {
    let gpu = gpu_or_skip(test)?;
    let cc = gpu.compute_capability();
    if !arch.runs_on(cc) {
        skip(test, &format!("the device (compute capability {}.{}) does not run {arch}", cc.0, cc.1));
        return None;
    }
    Some(gpu)
}

/// Prints `SKIPPED <test>: <why>` to the stderr handle, not with eprintln!, so the test
/// harness's output capture does not hide it: a skip must be visible in every log.
fn skip(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}
