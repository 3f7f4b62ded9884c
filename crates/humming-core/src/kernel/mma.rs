//! MMA op selection per (arch, activation): one k16 step of a 16 x 8 tile.

use super::dequant::Act16;
use super::emit::Emit;
use crate::Arch;
use crate::ir::builder::KernelBuilder;
use crate::ir::{MmaShape, MmaType, Reg};

/// The tensor-core instruction(s) for one m16 x n8 x k16 step with f32 accumulators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaOp {
    /// `mma.sync.m16n8k16` (sm_80+, f16 or bf16).
    K16(Act16),
    /// Two `mma.sync.m16n8k8.f16` (sm_75): A registers {0,1} then {2,3}, B register 0 then 1.
    K8x2,
}

impl MmaOp {
    /// The op for `act` on `arch`.
    pub fn select(arch: Arch, act: Act16) -> MmaOp {
        if arch >= Arch::Sm80 { MmaOp::K16(act) } else { MmaOp::K8x2 }
    }

    /// The 16-bit input type.
    pub fn ab_type(&self) -> MmaType {
        match *self {
            MmaOp::K16(Act16::Bf16) => MmaType::Bf16,
            _ => MmaType::F16,
        }
    }

    /// `acc (4 f32) += a (4 regs, ldmatrix x4 order) * b (2 regs)`.
    pub fn emit(&self, b: &mut KernelBuilder, acc: &[Reg], a: &[Reg], bfrag: &[Reg]) {
        self.emit_to(b, acc, acc, a, bfrag);
    }

    /// `d (4 f32) = c + a * b` (`c` may be a zero register four times).
    pub fn emit_to(&self, b: &mut KernelBuilder, d: &[Reg], c: &[Reg], a: &[Reg], bfrag: &[Reg]) {
        match *self {
            MmaOp::K16(act) => {
                let t = if act == Act16::F16 { MmaType::F16 } else { MmaType::Bf16 };
                b.mma_to(MmaShape::M16N8K16, t, d, c, a, bfrag);
            }
            MmaOp::K8x2 => {
                b.mma_to(MmaShape::M16N8K8, MmaType::F16, d, c, &a[0..2], &bfrag[0..1]);
                b.mma_to(MmaShape::M16N8K8, MmaType::F16, d, d, &a[2..4], &bfrag[1..2]);
            }
        }
    }
}
