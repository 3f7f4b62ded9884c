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
            // Written to the stderr handle, not with eprintln!, so the test harness's output
            // capture does not hide it: a skip must be visible in every log.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIPPED {test}: no CUDA device ({why})");
            None
        }
        Err(e) => panic!("{test}: opening the GPU failed: {e}"),
    }
}
