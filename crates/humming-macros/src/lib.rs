//! The `#[humming_gemm(...)]` attribute macro (lands with the runtime issue).
