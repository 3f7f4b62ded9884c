//! The PTX printer: one [`Kernel`] to one complete PTX module for one target.
//!
//! ```
//! use humming_core::{Arch, ir::{builder::KernelBuilder, ptx, ParamTy, SpecialReg, Space, Ty}};
//! let mut b = KernelBuilder::new("store_tid", 32);
//! let out = b.param("out", ParamTy::Ptr);
//! let tid = b.special(SpecialReg::TidX);
//! let addr = b.index_addr(out, tid, 4);
//! b.st(Space::Global, Ty::U32, addr, tid);
//! let text = ptx::print(&b.finish(), Arch::Sm80).unwrap();
//! assert!(text.starts_with("//"));
//! assert!(text.contains(".version 7.0\n.target sm_80\n"));
//! ```
//!
//! The module holds `.version` (the lowest that has the target and every instruction, see
//! [`version`]), `.target`, `.address_size 64`, the shared arrays, and one `.visible .entry`
//! with `.reqntid`. Registers are declared per class (`%p %h %r %rd %f %fd`) and each
//! virtual register is printed as its class prefix and its own id. Structured control flow
//! becomes labels and `bra.uni`.

mod emit;
pub mod inst;
pub mod operand;
pub mod ptxas;
pub mod version;

use crate::arch::Arch;
use crate::ir::kernel::Kernel;
use crate::ir::types::{Reg, Ty};

pub use version::{Need, PtxVersion};

/// Why a kernel could not be printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PtxError {
    /// An instruction needs a newer target than the one asked for.
    #[error("{inst} needs {needs} or newer; the target is {target}")]
    Unsupported {
        inst: String,
        needs: Arch,
        target: Arch,
    },
    /// A register of a class that cannot stand in a slot of type `ty`.
    #[error("{inst}: register {reg:?} cannot hold a .{ty} operand")]
    RegClass { inst: String, reg: Reg, ty: Ty },
    /// A malformed instruction: wrong operand count, immediate, qualifier or type.
    #[error("{inst}: {reason}")]
    Invalid { inst: String, reason: String },
    /// A malformed kernel: names, shared declarations, registers, block size.
    #[error("kernel: {reason}")]
    Kernel { reason: String },
}

/// Prints `kernel` as a complete PTX module for `arch`.
pub fn print(kernel: &Kernel, arch: Arch) -> Result<String, PtxError> {
    emit::module(kernel, arch)
}

/// The `.version` [`print`] would choose: the lowest PTX version that has `arch` and every
/// instruction of `kernel`; `Unsupported` when an instruction needs a newer target.
pub fn required_version(kernel: &Kernel, arch: Arch) -> Result<PtxVersion, PtxError> {
    emit::required_version(kernel, arch)
}
