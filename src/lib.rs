//! humming: quantized GEMM kernels for NVIDIA GPUs, generated at build time as PTX.
//!
//! This crate re-exports the three parts: [`core`] (formats, quantizers, reference, IR,
//! emulator), [`macros`] (`#[humming_gemm]`) and [`cuda`] (the runtime), plus `half` (the
//! element types of typed launches).

pub use half;
pub use humming_core as core;
pub use humming_cuda as cuda;
pub use humming_macros as macros;
