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
