//! A short PTX-like rendering of statements, for error messages only (the real printer lives
//! elsewhere). Registers print as `%p7`, `%h7`, `%r7`, `%rd7`, `%f7`, `%fd7` by class and id.

use std::fmt::Write;

use crate::ir::{Addr, Inst, Operand, Reg, RegClass, Stmt};

fn reg(r: &Reg) -> String {
    let p = match r.class {
        RegClass::Pred => "p",
        RegClass::B16 => "h",
        RegClass::B32 => "r",
        RegClass::B64 => "rd",
        RegClass::F32 => "f",
        RegClass::F64 => "fd",
    };
    format!("%{p}{}", r.id)
}

fn opnd(o: &Operand) -> String {
    match o {
        Operand::Reg(r) => reg(r),
        Operand::Imm(v) => v.to_string(),
        Operand::F32(b) => format!("0f{b:08X}"),
        Operand::F64(b) => format!("0d{b:016X}"),
        Operand::SharedAddr(id) => format!("smem{}", id.0),
    }
}

fn addr(a: &Addr) -> String {
    if a.offset == 0 {
        format!("[{}]", opnd(&a.base))
    } else {
        format!("[{}+{}]", opnd(&a.base), a.offset)
    }
}

fn regs(v: &[Reg]) -> String {
    let s: Vec<String> = v.iter().map(reg).collect();
    format!("{{{}}}", s.join(", "))
}

fn vec_suffix(n: usize) -> String {
    if n > 1 {
        format!(".v{n}")
    } else {
        String::new()
    }
}

fn lower(s: impl std::fmt::Debug) -> String {
    format!("{s:?}").to_lowercase()
}

/// One line for a statement: the instruction (with its guard), or the head of a loop / if.
pub(crate) fn render_stmt(s: &Stmt) -> String {
    match s {
        Stmt::Inst { guard, inst } => {
            let mut out = String::new();
            if let Some(g) = guard {
                let _ = write!(out, "@{}{} ", if g.negate { "!" } else { "" }, reg(&g.pred));
            }
            out.push_str(&render_inst(inst));
            out
        }
        Stmt::Loop {
            counter,
            start,
            end,
            step,
            signed,
            ..
        } => format!(
            "loop {c} = {}; {c} <{} {}; {c} += {step}",
            opnd(start),
            if *signed { "s" } else { "u" },
            opnd(end),
            c = reg(counter)
        ),
        Stmt::If { cond, negate, .. } => {
            format!("if {}{}", if *negate { "!" } else { "" }, reg(cond))
        }
        Stmt::Return => "ret".into(),
    }
}

/// One line of PTX-like text for an instruction.
pub(crate) fn render_inst(inst: &Inst) -> String {
    match inst {
        Inst::Mov { ty, dst, src } => format!("mov.{ty} {}, {}", reg(dst), opnd(src)),
        Inst::ReadSpecial { dst, sreg } => format!("mov.u32 {}, %{}", reg(dst), lower(sreg)),
        Inst::LdParam { ty, dst, param } => format!("ld.param.{ty} {}, [param{param}]", reg(dst)),
        Inst::Ld {
            space: sp,
            ty,
            dst,
            addr: a,
            ..
        } => {
            let d = if dst.len() == 1 {
                reg(&dst[0])
            } else {
                regs(dst)
            };
            format!(
                "ld.{}{}.{ty} {d}, {}",
                sp.ptx(),
                vec_suffix(dst.len()),
                addr(a)
            )
        }
        Inst::St {
            space: sp,
            ty,
            src,
            addr: a,
            ..
        } => {
            let s: Vec<String> = src.iter().map(opnd).collect();
            let s = if src.len() == 1 {
                s[0].clone()
            } else {
                format!("{{{}}}", s.join(", "))
            };
            format!(
                "st.{}{}.{ty} {}, {s}",
                sp.ptx(),
                vec_suffix(src.len()),
                addr(a)
            )
        }
        Inst::Bin { op, ty, dst, a, b } => {
            let name = match op {
                crate::ir::BinOp::Mul if !ty.is_float() => "mul.lo".to_string(),
                crate::ir::BinOp::MulHi => "mul.hi".into(),
                crate::ir::BinOp::MulWide => "mul.wide".into(),
                o => lower(o),
            };
            format!("{name}.{ty} {}, {}, {}", reg(dst), opnd(a), opnd(b))
        }
        Inst::Un { op, ty, dst, a } => format!("{}.{ty} {}, {}", lower(op), reg(dst), opnd(a)),
        Inst::Fma {
            ty,
            rnd: r,
            dst,
            a,
            b,
            c,
        } => {
            format!(
                "fma.{}.{ty} {}, {}, {}, {}",
                r.ptx(),
                reg(dst),
                opnd(a),
                opnd(b),
                opnd(c)
            )
        }
        Inst::Mad {
            ty,
            wide,
            dst,
            a,
            b,
            c,
        } => format!(
            "mad.{}.{ty} {}, {}, {}, {}",
            if *wide { "wide" } else { "lo" },
            reg(dst),
            opnd(a),
            opnd(b),
            opnd(c)
        ),
        Inst::Lop3 { dst, a, b, c, lut } => {
            format!(
                "lop3.b32 {}, {}, {}, {}, {lut:#04x}",
                reg(dst),
                opnd(a),
                opnd(b),
                opnd(c)
            )
        }
        Inst::Prmt { dst, a, b, sel } => format!(
            "prmt.b32 {}, {}, {}, {}",
            reg(dst),
            opnd(a),
            opnd(b),
            opnd(sel)
        ),
        Inst::Shf {
            left,
            wrap,
            dst,
            lo,
            hi,
            shift,
        } => format!(
            "shf.{}.{}.b32 {}, {}, {}, {}",
            if *left { "l" } else { "r" },
            if *wrap { "wrap" } else { "clamp" },
            reg(dst),
            opnd(lo),
            opnd(hi),
            opnd(shift)
        ),
        Inst::Bfe {
            ty,
            dst,
            a,
            pos,
            len,
        } => {
            format!(
                "bfe.{ty} {}, {}, {}, {}",
                reg(dst),
                opnd(a),
                opnd(pos),
                opnd(len)
            )
        }
        Inst::Cvt {
            dst_ty,
            src_ty,
            rnd: r,
            sat,
            dst,
            src,
        } => {
            let mut m = String::new();
            if let Some(r) = r {
                m.push('.');
                m.push_str(r.ptx());
            }
            if *sat {
                m.push_str(".sat");
            }
            format!("cvt{m}.{dst_ty}.{src_ty} {}, {}", reg(dst), opnd(src))
        }
        Inst::CvtPack {
            dst_ty,
            satfinite,
            dst,
            hi,
            lo,
        } => format!(
            "cvt.rn{}.{dst_ty}.f32 {}, {}, {}",
            if *satfinite { ".satfinite" } else { "" },
            reg(dst),
            opnd(hi),
            opnd(lo)
        ),
        Inst::Setp { cmp, ty, dst, a, b } => format!(
            "setp.{}.{ty} {}, {}, {}",
            lower(cmp),
            reg(dst),
            opnd(a),
            opnd(b)
        ),
        Inst::Selp {
            ty,
            dst,
            a,
            b,
            pred,
        } => {
            format!(
                "selp.{ty} {}, {}, {}, {}",
                reg(dst),
                opnd(a),
                opnd(b),
                reg(pred)
            )
        }
        Inst::CpAsync {
            cache,
            bytes,
            dst,
            src,
            src_size,
            policy,
        } => {
            let mut s = format!(
                "cp.async.{}.shared.global{} {}, {}, {bytes}",
                lower(cache),
                if policy.is_some() { ".L2::cache_hint" } else { "" },
                addr(dst),
                addr(src)
            );
            if let Some(n) = src_size {
                let _ = write!(s, ", {}", opnd(n));
            }
            if let Some(p) = policy {
                let _ = write!(s, ", {}", reg(p));
            }
            s
        }
        Inst::CreatePolicy { dst, evict, fraction } => {
            format!("createpolicy.fractional.L2::{}.b64 {}, {fraction}", evict.ptx(), reg(dst))
        }
        Inst::MovPack { dst, lo, hi } => format!("mov.b32 {}, {{{}, {}}}", reg(dst), reg(lo), reg(hi)),
        Inst::MovUnpack { lo, hi, src } => format!("mov.b32 {{{}, {}}}, {}", reg(lo), reg(hi), reg(src)),
        Inst::Membar { level } => format!("membar.{}", level.ptx()),
        Inst::CpAsyncCommit => "cp.async.commit_group".into(),
        Inst::CpAsyncWait { n } => format!("cp.async.wait_group {n}"),
        Inst::Ldmatrix {
            trans,
            dst,
            addr: a,
        } => format!(
            "ldmatrix.sync.aligned.m8n8.x{}{}.shared.b16 {}, {}",
            dst.len(),
            if *trans { ".trans" } else { "" },
            regs(dst),
            addr(a)
        ),
        Inst::Mma {
            shape,
            d_ty,
            a_ty,
            b_ty,
            c_ty,
            d,
            a,
            b,
            c,
        } => format!(
            "mma.sync.aligned.{}.row.col.{}.{}.{}.{} {}, {}, {}, {}",
            lower(shape),
            d_ty.ptx(),
            a_ty.ptx(),
            b_ty.ptx(),
            c_ty.ptx(),
            regs(d),
            regs(a),
            regs(b),
            regs(c)
        ),
        Inst::Shfl {
            mode,
            dst,
            a,
            b,
            c,
            mask,
        } => format!(
            "shfl.sync.{}.b32 {}, {}, {}, {}, {mask:#010x}",
            lower(mode),
            reg(dst),
            opnd(a),
            opnd(b),
            opnd(c)
        ),
        Inst::BarSync { id, threads } => match threads {
            Some(t) => format!("bar.sync {id}, {t}"),
            None => format!("bar.sync {id}"),
        },
        Inst::Atom {
            space: sp,
            op,
            ty,
            dst,
            addr: a,
            b,
            c,
        } => {
            let mut s = format!(
                "atom.{}.{}.{ty} {}, {}, {}",
                sp.ptx(),
                lower(op),
                reg(dst),
                addr(a),
                opnd(b)
            );
            if let Some(c) = c {
                let _ = write!(s, ", {}", opnd(c));
            }
            s
        }
        Inst::Red {
            space: sp,
            op,
            ty,
            addr: a,
            b,
        } => {
            format!(
                "red.{}.{}.{ty} {}, {}",
                sp.ptx(),
                lower(op),
                addr(a),
                opnd(b)
            )
        }
    }
}
