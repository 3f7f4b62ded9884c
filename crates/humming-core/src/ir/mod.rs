//! The kernel IR: typed virtual registers and PTX-shaped instructions in a structured body.
//! Two back ends share it: the PTX printer and the CPU emulator.

pub mod builder;
pub mod emu;
pub mod exec;
pub mod inst;
pub mod kernel;
pub mod ptx;
pub mod samples;
pub mod types;

pub use inst::{AtomOp, BinOp, CpAsyncCache, Inst, L2Evict, MembarLevel, MmaShape, MmaType, ShflMode, UnOp};
pub use exec::{DevPtr, Executor, KernelArg, LaunchDims, MAX_CLUSTER, NO_CLUSTER};
pub use kernel::{Guard, Kernel, Param, ParamTy, SharedDecl, Stmt};
pub use types::{Addr, CacheOp, Cmp, Operand, Reg, RegClass, Rnd, SharedId, Space, SpecialReg, Ty};
