//! humming-cuda: the runtime on `cust`: device and primary context, PTX module loading with the
//! driver's JIT log, and a GPU [`humming_core::ir::Executor`] that runs IR kernels (the same
//! test code runs on the CPU emulator). Typed launches and layers come with the runtime issue.

mod driver;
pub mod error;
pub mod executor;
pub mod gpu;
pub mod module;
pub mod testing;
pub mod timer;

pub use cust;
pub use driver::driver_version;
pub use error::GpuError;
pub use executor::GpuExecutor;
pub use gpu::Gpu;
pub use module::Module;
pub use timer::EventTimer;
