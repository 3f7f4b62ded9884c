//! Operands: register names, immediates and addresses, each checked against the type of the
//! slot it is printed into.

use crate::ir::kernel::Kernel;
use crate::ir::types::{Addr, Operand, Reg, RegClass, SharedId, Space, Ty};

use super::PtxError;

/// The PTX name of a register: class prefix and the register's own id (`%r12`, `%rd3`).
pub fn reg_name(r: Reg) -> String {
    format!("{}{}", class_prefix(r.class), r.id)
}

/// The prefix of a register class (`%p %h %r %rd %f %fd`).
pub fn class_prefix(class: RegClass) -> &'static str {
    match class {
        RegClass::Pred => "%p",
        RegClass::B16 => "%h",
        RegClass::B32 => "%r",
        RegClass::B64 => "%rd",
        RegClass::F32 => "%f",
        RegClass::F64 => "%fd",
    }
}

/// Whether a register of `class` may stand in a slot of type `ty` (PTX operand type rules:
/// bit-size register types agree with every type of their size; `.f32`/`.f64` registers only
/// with the float type or the bit type of their size). With `narrow`, integer and bit types
/// narrower than the register are accepted too (ld/st/cvt of 8- and 16-bit values).
pub fn fits(class: RegClass, ty: Ty, narrow: bool) -> bool {
    let bits = ty.bits();
    let int_or_bits = !ty.is_float() && ty != Ty::Pred;
    match class {
        RegClass::Pred => ty == Ty::Pred,
        RegClass::F32 => matches!(ty, Ty::F32 | Ty::B32),
        RegClass::F64 => matches!(ty, Ty::F64 | Ty::B64),
        RegClass::B16 | RegClass::B32 | RegClass::B64 => {
            ty != Ty::Pred
                && (bits == class.bits() || (narrow && int_or_bits && bits < class.bits()))
        }
    }
}

/// Formats the operands of one instruction, reporting errors against its opcode.
#[derive(Debug)]
pub struct Ops<'a> {
    pub kernel: &'a Kernel,
    pub shared_names: &'a [String],
    pub inst: &'a str,
}

impl Ops<'_> {
    /// An error about this instruction.
    pub fn invalid(&self, reason: impl Into<String>) -> PtxError {
        PtxError::Invalid {
            inst: self.inst.to_string(),
            reason: reason.into(),
        }
    }

    fn known(&self, r: Reg) -> Result<(), PtxError> {
        match self.kernel.regs.get(r.id as usize) {
            Some(&c) if c == r.class => Ok(()),
            Some(&c) => Err(PtxError::Kernel {
                reason: format!(
                    "register {} used as {:?} but declared {:?}",
                    r.id, r.class, c
                ),
            }),
            None => Err(PtxError::Kernel {
                reason: format!("register {} was never allocated", r.id),
            }),
        }
    }

    /// A register in a slot of type `ty`.
    pub fn reg(&self, r: Reg, ty: Ty) -> Result<String, PtxError> {
        self.reg_as(r, ty, false)
    }

    /// A register in a slot of type `ty`, accepting narrower integer types when `narrow`.
    pub fn reg_as(&self, r: Reg, ty: Ty, narrow: bool) -> Result<String, PtxError> {
        self.known(r)?;
        if !fits(r.class, ty, narrow) {
            return Err(PtxError::RegClass {
                inst: self.inst.to_string(),
                reg: r,
                ty,
            });
        }
        Ok(reg_name(r))
    }

    /// A braced vector of registers `{%r1, %r2}`, each in a slot of type `ty`.
    pub fn regs(&self, rs: &[Reg], ty: Ty) -> Result<String, PtxError> {
        let names: Result<Vec<_>, _> = rs.iter().map(|&r| self.reg(r, ty)).collect();
        Ok(format!("{{{}}}", names?.join(", ")))
    }

    /// A source operand in a slot of type `ty`.
    pub fn op(&self, o: Operand, ty: Ty) -> Result<String, PtxError> {
        self.op_as(o, ty, false)
    }

    /// A source operand, accepting narrower integer types for registers when `narrow`.
    pub fn op_as(&self, o: Operand, ty: Ty, narrow: bool) -> Result<String, PtxError> {
        match o {
            Operand::Reg(r) => self.reg_as(r, ty, narrow),
            Operand::Imm(v) => self.imm(v, ty),
            Operand::F32(bits) => match ty {
                Ty::F32 | Ty::B32 => Ok(format!("0f{bits:08X}")),
                _ => Err(self.invalid(format!("f32 immediate in a .{ty} slot"))),
            },
            Operand::F64(bits) => match ty {
                Ty::F64 | Ty::B64 => Ok(format!("0d{bits:016X}")),
                _ => Err(self.invalid(format!("f64 immediate in a .{ty} slot"))),
            },
            Operand::SharedAddr(_) => Err(self.invalid(
                "a shared array address can only be moved (mov.u32) or used as an address base",
            )),
        }
    }

    fn imm(&self, v: i64, ty: Ty) -> Result<String, PtxError> {
        if ty.is_float() {
            return Err(self.invalid(format!("integer immediate {v} in a .{ty} slot")));
        }
        let bits = ty.bits();
        let ok = match bits {
            1 => v == 0 || v == 1,
            64 => true,
            n => v >= -(1i64 << (n - 1)) && v < (1i64 << n),
        };
        if !ok {
            return Err(self.invalid(format!("immediate {v} does not fit .{ty}")));
        }
        Ok(v.to_string())
    }

    /// The name of a shared array.
    pub fn shared_name(&self, id: SharedId) -> Result<&str, PtxError> {
        self.shared_names
            .get(id.0 as usize)
            .map(String::as_str)
            .ok_or_else(|| PtxError::Kernel {
                reason: format!("shared array {} is not declared", id.0),
            })
    }

    /// The address of a shared array as a `mov` source.
    pub fn symbol(&self, id: SharedId) -> Result<String, PtxError> {
        self.shared_name(id).map(str::to_string)
    }

    /// `[base+offset]` in `space`: global bases are 64-bit registers; shared bases are 32-bit
    /// (or 64-bit) registers or a shared array's name.
    pub fn addr(&self, a: &Addr, space: Space) -> Result<String, PtxError> {
        let base = match (a.base, space) {
            (Operand::Reg(r), Space::Global) => self.reg(r, Ty::B64)?,
            (Operand::Reg(r), Space::Shared) => match r.class {
                RegClass::B64 => self.reg(r, Ty::B64)?,
                _ => self.reg(r, Ty::B32)?,
            },
            (Operand::SharedAddr(id), Space::Shared) => self.symbol(id)?,
            (other, _) => {
                return Err(self.invalid(format!("{other:?} cannot be a {space:?} address base")));
            }
        };
        if i32::try_from(a.offset).is_err() {
            return Err(self.invalid(format!("address offset {} does not fit 32 bits", a.offset)));
        }
        Ok(match a.offset {
            0 => format!("[{base}]"),
            off => format!("[{base}+{off}]"),
        })
    }
}
