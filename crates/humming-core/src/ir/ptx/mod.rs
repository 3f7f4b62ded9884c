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

/// One statement of `kernel` as a line of PTX, for messages (the emulator names the statement
/// an error happened at this way): an instruction exactly as [`print()`] writes it, with its guard;
/// a loop or branch as a short head. An instruction the printer rejects is shown with the reason.
pub fn stmt_text(kernel: &Kernel, stmt: &crate::ir::Stmt) -> String {
    use crate::ir::Stmt;
    use operand::reg_name;
    let op = |o: &crate::ir::Operand| match o {
        crate::ir::Operand::Reg(r) => reg_name(*r),
        other => format!("{other:?}"),
    };
    match stmt {
        Stmt::Inst { guard, inst } => {
            let names = emit::shared_names(kernel)
                .unwrap_or_else(|_| (0..kernel.shared.len()).map(|i| format!("smem{i}")).collect());
            let printer = inst::InstPrinter { kernel, shared_names: &names };
            let text = printer.print(inst).unwrap_or_else(|e| format!("{inst:?} (not printable: {e})"));
            match guard {
                Some(g) => format!("@{}{} {text}", if g.negate { "!" } else { "" }, reg_name(g.pred)),
                None => text,
            }
        }
        Stmt::Loop { counter, start, end, step, signed, .. } => format!(
            "loop {c} = {}; {c} <{} {}; {c} += {step}",
            op(start),
            if *signed { "s" } else { "u" },
            op(end),
            c = reg_name(*counter)
        ),
        Stmt::If { cond, negate, .. } => format!("if {}{}", if *negate { "!" } else { "" }, reg_name(*cond)),
        Stmt::Return => "ret;".into(),
    }
}

/// The `.version` [`print()`] would choose: the lowest PTX version that has `arch` and every
/// instruction of `kernel`; `Unsupported` when an instruction needs a newer target.
pub fn required_version(kernel: &Kernel, arch: Arch) -> Result<PtxVersion, PtxError> {
    emit::required_version(kernel, arch)
}
