//! humming-cuda: the runtime on `cust`. Device and primary context ([`Gpu`]), typed device
//! buffers ([`DeviceBuf`]), packed weights on the device ([`GpuWeights`]), typed GEMM launches
//! with full validation ([`launch_gemm`], what `#[humming_gemm]` functions call), the layer API
//! ([`QuantizedLinear`]), kernels generated at run time with an on-disk PTX cache
//! ([`generate`]), a process-wide module cache ([`functions`]), and a GPU
//! [`humming_core::ir::Executor`] that runs IR kernels (the same test code runs on the CPU
//! emulator).

mod buffer;
mod driver;
mod elem;
pub mod error;
pub mod executor;
pub mod functions;
mod gemm;
pub mod generate;
pub mod gpu;
mod linear;
pub mod module;
pub mod testing;
pub mod timer;
mod weights;
mod workspace;

pub use buffer::DeviceBuf;
pub use cust;
pub use cust::stream::Stream;
pub use driver::{driver_version, launch_kernel, max_ptx_version, min_driver_for};
pub use elem::Elem16;
pub use error::{GpuError, RuntimeError};
pub use executor::GpuExecutor;
pub use gemm::launch_gemm;
pub use gpu::Gpu;
pub use linear::{QuantizedLinear, quant_config};
pub use module::Module;
pub use timer::EventTimer;
pub use weights::GpuWeights;

#[cfg(test)]
mod tests {
    /// Layers, weights and buffers can be shared across threads (an inference server's
    /// workers); launches on them are serialized per stream by the driver.
    #[test]
    fn runtime_types_are_send_and_sync() {
        fn both<T: Send + Sync>() {}
        both::<crate::QuantizedLinear>();
        both::<crate::GpuWeights>();
        both::<crate::DeviceBuf<half::f16>>();
        both::<crate::Gpu>();
        both::<crate::functions::LoadedKernel>();
    }
}
