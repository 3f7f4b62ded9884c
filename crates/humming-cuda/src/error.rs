//! Typed errors of the runtime.

use humming_core::Arch;

/// Everything that can go wrong between a kernel and the GPU.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No CUDA driver or no CUDA device on this machine.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// A CUDA driver call failed.
    #[error("CUDA call {call} failed: {name} ({code}): {message}")]
    Driver { call: &'static str, code: u32, name: String, message: String },
    /// The driver could not JIT-compile a module; `log` is the JIT error log.
    #[error("the driver rejected the PTX of `{kernel}` ({name}): {log}")]
    Jit { kernel: String, name: String, log: String },
    /// The PTX printer refused the kernel for this target.
    #[error(transparent)]
    Ptx(#[from] humming_core::ir::ptx::PtxError),
    /// The device cannot run code built for `arch`.
    #[error("device of compute capability {}.{} cannot run PTX built for {arch}", cc.0, cc.1)]
    ArchMismatch { arch: Arch, cc: (u32, u32) },
    /// A launch argument list that does not match the kernel's parameters.
    #[error("kernel `{kernel}`: {reason}")]
    BadLaunch { kernel: String, reason: String },
    /// A pointer that is not inside an allocation of this executor.
    #[error("address {addr:#x} (+{len} bytes) is not inside one allocation")]
    BadPointer { addr: u64, len: usize },
}

/// Why a typed launch, an upload or a layer construction failed. Every operand is checked
/// before anything is launched.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error(transparent)]
    Cust(#[from] cust::error::CudaError),
    /// An operand that does not fit the kernel (shape, length, alignment, weights for another
    /// spec, split).
    #[error(transparent)]
    Launch(#[from] humming_core::kernel::launch::LaunchError),
    /// None of the kernel's targets runs on the device.
    #[error("no kernel target runs on this device (compute capability {}.{}); the kernel was built for {targets}", cc.0, cc.1)]
    NoTarget { cc: (u32, u32), targets: String },
    /// An element type that differs from the spec's.
    #[error("{operand}: the buffer holds {got}, kernel {kernel} takes {expected}")]
    Dtype { operand: &'static str, expected: String, got: String, kernel: String },
    /// Activations and output describe different M.
    #[error("activations have {act_rows} rows of K = {k}, the output has room for {out_len} elements = {out_rows} rows of N = {n}")]
    Rows { act_rows: usize, k: usize, out_len: usize, out_rows: f64, n: usize },
    /// Operands on different devices, or a stream of another context.
    #[error("{operand} belongs to another device or context than the weights")]
    Device { operand: &'static str },
    /// The driver is older than the PTX needs.
    #[error("kernel {kernel} is PTX ISA {ptx}, this driver supports up to {supported} (CUDA {driver}); a CUDA {needs} or newer driver is needed")]
    DriverTooOld { kernel: String, ptx: humming_core::ir::ptx::PtxVersion, supported: humming_core::ir::ptx::PtxVersion, driver: String, needs: String },
    /// A kernel needs more shared memory than the device allows a CTA.
    #[error("kernel {kernel} needs {need} bytes of shared memory per CTA, the device allows {max}")]
    SharedMemory { kernel: String, need: u32, max: u32 },
    /// The bundle's spec does not validate (a hand-built bundle).
    #[error(transparent)]
    Spec(#[from] humming_core::SpecErrors),
    /// Kernel generation failed, or embedded kernels are stale.
    #[error(transparent)]
    Kernel(#[from] humming_core::kernel::KernelError),
    /// The on-disk PTX cache failed.
    #[error(transparent)]
    Cache(#[from] humming_core::kernel::cache::CacheError),
    /// Quantizing host weights failed.
    #[error(transparent)]
    Quant(#[from] humming_core::QuantError),
    /// Packing failed (including values that overflow the activation type).
    #[error(transparent)]
    Pack(#[from] humming_core::pack::a16::PackA16Error),
    /// Packed weights whose buffers do not match their layout.
    #[error("packed weights: {what} has {got} entries, the layout needs {expected}")]
    Packed { what: &'static str, expected: usize, got: usize },
    /// A host slice of the wrong length.
    #[error("copy of {host} elements into a buffer of {buffer}")]
    CopyLength { buffer: usize, host: usize },
    /// An allocation size that overflows.
    #[error("{len} elements of {elem} bytes overflow the address space")]
    Size { len: usize, elem: usize },
    /// Host weights whose length is not n x k.
    #[error("weights: {got} values for an {n} x {k} matrix")]
    HostShape { n: usize, k: usize, got: usize },
}
