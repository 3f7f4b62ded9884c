//! One instruction to one line of PTX, checking its registers, immediates and qualifiers.

use crate::ir::inst::{AtomOp, BinOp, CpAsyncCache, Inst, MmaShape, MmaType, ShflMode, UnOp};
use crate::ir::kernel::ParamTy;
use crate::ir::types::{CacheOp, Cmp, Operand, Reg, Rnd, Space, SpecialReg, Ty};

use super::PtxError;
use super::operand::Ops;

/// The type an instruction that only moves bits spells for `ty` (`ld`, `st`, `mov`, `selp`
/// have no `.f16`/`.bf16`/packed forms): half and FP8 pairs become `.b16`, packed pairs `.b32`.
fn storage(ty: Ty) -> Ty {
    match ty {
        Ty::F16 | Ty::Bf16 | Ty::E4m3x2 | Ty::E5m2x2 => Ty::B16,
        Ty::F16x2 | Ty::Bf16x2 => Ty::B32,
        other => other,
    }
}

/// The bit type of the width of `ty` (`and`, `not`, `shl`, `popc`, `atom.exch` spell only these).
fn bit_ty(ty: Ty) -> Ty {
    match ty.bits() {
        1 => Ty::Pred,
        8 => Ty::B8,
        16 => Ty::B16,
        32 => Ty::B32,
        _ => Ty::B64,
    }
}

fn is_int(ty: Ty) -> bool {
    !ty.is_float() && ty != Ty::Pred
}

/// Integer types that arithmetic accepts (16, 32, 64 bits; `u`, `s`, or `b` where noted).
fn is_arith_int(ty: Ty) -> bool {
    matches!(
        ty,
        Ty::U16 | Ty::U32 | Ty::U64 | Ty::S16 | Ty::S32 | Ty::S64
    )
}

fn is_scalar_float(ty: Ty) -> bool {
    matches!(ty, Ty::F32 | Ty::F64)
}

fn is_half_family(ty: Ty) -> bool {
    matches!(ty, Ty::F16 | Ty::F16x2 | Ty::Bf16 | Ty::Bf16x2)
}

fn is_fp8(ty: Ty) -> bool {
    matches!(ty, Ty::E4m3x2 | Ty::E5m2x2)
}

fn widen(ty: Ty) -> Option<Ty> {
    match ty {
        Ty::U16 => Some(Ty::U32),
        Ty::S16 => Some(Ty::S32),
        Ty::U32 => Some(Ty::U64),
        Ty::S32 => Some(Ty::S64),
        _ => None,
    }
}

fn is_float_rnd(r: Rnd) -> bool {
    matches!(r, Rnd::Rn | Rnd::Rz | Rnd::Rm | Rnd::Rp)
}

fn cmp_str(c: Cmp) -> &'static str {
    match c {
        Cmp::Eq => "eq",
        Cmp::Ne => "ne",
        Cmp::Lt => "lt",
        Cmp::Le => "le",
        Cmp::Gt => "gt",
        Cmp::Ge => "ge",
        Cmp::Lo => "lo",
        Cmp::Ls => "ls",
        Cmp::Hi => "hi",
        Cmp::Hs => "hs",
    }
}

fn sreg_str(s: SpecialReg) -> &'static str {
    match s {
        SpecialReg::TidX => "%tid.x",
        SpecialReg::TidY => "%tid.y",
        SpecialReg::TidZ => "%tid.z",
        SpecialReg::NtidX => "%ntid.x",
        SpecialReg::NtidY => "%ntid.y",
        SpecialReg::NtidZ => "%ntid.z",
        SpecialReg::CtaidX => "%ctaid.x",
        SpecialReg::CtaidY => "%ctaid.y",
        SpecialReg::CtaidZ => "%ctaid.z",
        SpecialReg::NctaidX => "%nctaid.x",
        SpecialReg::NctaidY => "%nctaid.y",
        SpecialReg::NctaidZ => "%nctaid.z",
        SpecialReg::LaneId => "%laneid",
        SpecialReg::WarpId => "%warpid",
        SpecialReg::ClusterCtaRank => "%cluster_ctarank",
        SpecialReg::ClusterNctaRank => "%cluster_nctarank",
    }
}

fn cache_str(c: CacheOp) -> &'static str {
    match c {
        CacheOp::Default => "",
        CacheOp::Ca => ".ca",
        CacheOp::Cg => ".cg",
        CacheOp::Cs => ".cs",
        CacheOp::Lu => ".lu",
        CacheOp::Cv => ".cv",
        CacheOp::Wb => ".wb",
        CacheOp::Wt => ".wt",
    }
}

fn binop_str(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::MulHi => "mul.hi",
        BinOp::MulWide => "mul.wide",
        BinOp::Div => "div",
        BinOp::Rem => "rem",
        BinOp::Min => "min",
        BinOp::Max => "max",
        BinOp::And => "and",
        BinOp::Or => "or",
        BinOp::Xor => "xor",
        BinOp::Shl => "shl",
        BinOp::Shr => "shr",
    }
}

fn atom_str(op: AtomOp) -> &'static str {
    match op {
        AtomOp::Add => "add",
        AtomOp::Min => "min",
        AtomOp::Max => "max",
        AtomOp::And => "and",
        AtomOp::Or => "or",
        AtomOp::Xor => "xor",
        AtomOp::Exch => "exch",
        AtomOp::Cas => "cas",
    }
}

fn shape_str(s: MmaShape) -> &'static str {
    match s {
        MmaShape::M16N8K16 => "m16n8k16",
        MmaShape::M16N8K8 => "m16n8k8",
        MmaShape::M16N8K32 => "m16n8k32",
        MmaShape::M16N8K64 => "m16n8k64",
        MmaShape::M8N8K16 => "m8n8k16",
        MmaShape::M8N8K32 => "m8n8k32",
    }
}

/// Context for printing: the kernel and its shared array names.
#[derive(Debug)]
pub struct InstPrinter<'a> {
    pub kernel: &'a crate::ir::kernel::Kernel,
    pub shared_names: &'a [String],
}

impl<'a> InstPrinter<'a> {
    fn ops<'b>(&'b self, inst: &'b str) -> Ops<'b> {
        Ops {
            kernel: self.kernel,
            shared_names: self.shared_names,
            inst,
        }
    }

    /// The PTX text of `inst`, ending in `;`.
    pub fn print(&self, inst: &Inst) -> Result<String, PtxError> {
        match inst {
            Inst::Mov { ty, dst, src } => self.mov(*ty, *dst, *src),
            Inst::ReadSpecial { dst, sreg } => {
                let o = self.ops("mov.u32");
                Ok(format!(
                    "mov.u32 {}, {};",
                    o.reg(*dst, Ty::U32)?,
                    sreg_str(*sreg)
                ))
            }
            Inst::LdParam { ty, dst, param } => self.ld_param(*ty, *dst, *param),
            Inst::Ld {
                space,
                cache,
                ty,
                dst,
                addr,
            } => {
                let name = self.mem_opcode("ld", *space, *cache, *ty, dst.len())?;
                let o = self.ops(&name);
                let d: Result<Vec<_>, _> = dst.iter().map(|&r| o.reg_as(r, *ty, true)).collect();
                Ok(format!("{name} {}, {};", vector(d?), o.addr(addr, *space)?))
            }
            Inst::St {
                space,
                cache,
                ty,
                src,
                addr,
            } => {
                let name = self.mem_opcode("st", *space, *cache, *ty, src.len())?;
                let o = self.ops(&name);
                let s: Result<Vec<_>, _> = src.iter().map(|&x| o.op_as(x, *ty, true)).collect();
                Ok(format!("{name} {}, {};", o.addr(addr, *space)?, vector(s?)))
            }
            Inst::Bin { op, ty, dst, a, b } => self.bin(*op, *ty, *dst, *a, *b),
            Inst::Un { op, ty, dst, a } => self.un(*op, *ty, *dst, *a),
            Inst::Fma {
                ty,
                rnd,
                dst,
                a,
                b,
                c,
            } => {
                let name = format!("fma.{}.{ty}", rnd.ptx());
                let o = self.ops(&name);
                if !(is_scalar_float(*ty) || is_half_family(*ty)) {
                    return Err(o.invalid("fma takes f32, f64, f16, f16x2, bf16 or bf16x2"));
                }
                if !is_float_rnd(*rnd) || (is_half_family(*ty) && *rnd != Rnd::Rn) {
                    return Err(
                        o.invalid("fma needs .rn/.rz/.rm/.rp (.rn only for f16/bf16 types)")
                    );
                }
                Ok(format!(
                    "{name} {}, {}, {}, {};",
                    o.reg(*dst, *ty)?,
                    o.op(*a, *ty)?,
                    o.op(*b, *ty)?,
                    o.op(*c, *ty)?
                ))
            }
            Inst::Mad {
                ty,
                wide,
                dst,
                a,
                b,
                c,
            } => {
                let name = format!("mad.{}.{ty}", if *wide { "wide" } else { "lo" });
                let o = self.ops(&name);
                let dty = match (*wide, widen(*ty)) {
                    (false, _) if is_arith_int(*ty) => *ty,
                    (true, Some(w)) => w,
                    _ => return Err(o.invalid("mad takes 16/32/64-bit integers (wide: 16/32-bit)")),
                };
                Ok(format!(
                    "{name} {}, {}, {}, {};",
                    o.reg(*dst, dty)?,
                    o.op(*a, *ty)?,
                    o.op(*b, *ty)?,
                    o.op(*c, dty)?
                ))
            }
            Inst::Lop3 { dst, a, b, c, lut } => {
                let o = self.ops("lop3.b32");
                Ok(format!(
                    "lop3.b32 {}, {}, {}, {}, 0x{lut:02x};",
                    o.reg(*dst, Ty::B32)?,
                    o.op(*a, Ty::B32)?,
                    o.op(*b, Ty::B32)?,
                    o.op(*c, Ty::B32)?
                ))
            }
            Inst::Prmt { dst, a, b, sel } => {
                let o = self.ops("prmt.b32");
                Ok(format!(
                    "prmt.b32 {}, {}, {}, {};",
                    o.reg(*dst, Ty::B32)?,
                    o.op(*a, Ty::B32)?,
                    o.op(*b, Ty::B32)?,
                    o.op(*sel, Ty::B32)?
                ))
            }
            Inst::Shf {
                left,
                wrap,
                dst,
                lo,
                hi,
                shift,
            } => {
                let name = format!(
                    "shf.{}.{}.b32",
                    if *left { "l" } else { "r" },
                    if *wrap { "wrap" } else { "clamp" }
                );
                let o = self.ops(&name);
                Ok(format!(
                    "{name} {}, {}, {}, {};",
                    o.reg(*dst, Ty::B32)?,
                    o.op(*lo, Ty::B32)?,
                    o.op(*hi, Ty::B32)?,
                    o.op(*shift, Ty::U32)?
                ))
            }
            Inst::Bfe {
                ty,
                dst,
                a,
                pos,
                len,
            } => {
                let name = format!("bfe.{ty}");
                let o = self.ops(&name);
                if !matches!(ty, Ty::U32 | Ty::S32 | Ty::U64 | Ty::S64) {
                    return Err(o.invalid("bfe takes u32, s32, u64 or s64"));
                }
                Ok(format!(
                    "{name} {}, {}, {}, {};",
                    o.reg(*dst, *ty)?,
                    o.op(*a, *ty)?,
                    o.op(*pos, Ty::U32)?,
                    o.op(*len, Ty::U32)?
                ))
            }
            Inst::Cvt {
                dst_ty,
                src_ty,
                rnd,
                sat,
                dst,
                src,
            } => self.cvt(*dst_ty, *src_ty, *rnd, *sat, *dst, *src),
            Inst::CvtPack {
                dst_ty,
                satfinite,
                dst,
                hi,
                lo,
            } => {
                let name = format!(
                    "cvt.rn{}.{dst_ty}.f32",
                    if *satfinite { ".satfinite" } else { "" }
                );
                let o = self.ops(&name);
                match dst_ty {
                    Ty::F16x2 | Ty::Bf16x2 => {}
                    Ty::E4m3x2 | Ty::E5m2x2 if *satfinite => {}
                    Ty::E4m3x2 | Ty::E5m2x2 => {
                        return Err(o.invalid("FP8 packing needs .satfinite"));
                    }
                    _ => return Err(o.invalid("packs only into f16x2, bf16x2, e4m3x2, e5m2x2")),
                }
                Ok(format!(
                    "{name} {}, {}, {};",
                    o.reg(*dst, *dst_ty)?,
                    o.op(*hi, Ty::F32)?,
                    o.op(*lo, Ty::F32)?
                ))
            }
            Inst::Setp { cmp, ty, dst, a, b } => {
                let name = format!("setp.{}.{ty}", cmp_str(*cmp));
                let o = self.ops(&name);
                let unsigned_cmp = matches!(cmp, Cmp::Lo | Cmp::Ls | Cmp::Hi | Cmp::Hs);
                let ordered_cmp = matches!(cmp, Cmp::Lt | Cmp::Le | Cmp::Gt | Cmp::Ge);
                let bits_ty = matches!(ty, Ty::B16 | Ty::B32 | Ty::B64);
                let unsigned_ty = matches!(ty, Ty::U16 | Ty::U32 | Ty::U64);
                let ok_ty = is_arith_int(*ty)
                    || bits_ty
                    || matches!(ty, Ty::F16 | Ty::Bf16 | Ty::F32 | Ty::F64);
                if !ok_ty || (unsigned_cmp && !unsigned_ty) || (ordered_cmp && bits_ty) {
                    return Err(o.invalid("comparison and type do not go together"));
                }
                Ok(format!(
                    "{name} {}, {}, {};",
                    o.reg(*dst, Ty::Pred)?,
                    o.op(*a, *ty)?,
                    o.op(*b, *ty)?
                ))
            }
            Inst::Selp {
                ty,
                dst,
                a,
                b,
                pred,
            } => {
                let name = format!("selp.{}", storage(*ty));
                let o = self.ops(&name);
                if *ty == Ty::Pred || ty.bits() < 16 {
                    return Err(o.invalid("selp takes 16/32/64-bit types"));
                }
                Ok(format!(
                    "{name} {}, {}, {}, {};",
                    o.reg(*dst, *ty)?,
                    o.op(*a, *ty)?,
                    o.op(*b, *ty)?,
                    o.reg(*pred, Ty::Pred)?
                ))
            }
            Inst::CpAsync {
                cache,
                bytes,
                dst,
                src,
                src_size,
                policy,
            } => {
                let c = match cache {
                    CpAsyncCache::Ca => "ca",
                    CpAsyncCache::Cg => "cg",
                };
                let hint = if policy.is_some() { ".L2::cache_hint" } else { "" };
                let name = format!("cp.async.{c}.shared.global{hint}");
                let o = self.ops(&name);
                let ok = match cache {
                    CpAsyncCache::Ca => matches!(bytes, 4 | 8 | 16),
                    CpAsyncCache::Cg => *bytes == 16,
                };
                if !ok {
                    return Err(o.invalid(format!(
                        "cannot copy {bytes} bytes (.ca: 4, 8, 16; .cg: 16)"
                    )));
                }
                let mut s = format!(
                    "{name} {}, {}, {bytes}",
                    o.addr(dst, Space::Shared)?,
                    o.addr(src, Space::Global)?
                );
                if let Some(sz) = src_size {
                    if let Operand::Imm(v) = sz
                        && !(0..=i64::from(*bytes)).contains(v)
                    {
                        return Err(
                            o.invalid(format!("src_size {v} exceeds the copy size {bytes}"))
                        );
                    }
                    s += &format!(", {}", o.op(*sz, Ty::U32)?);
                }
                if let Some(pol) = policy {
                    s += &format!(", {}", o.reg(*pol, Ty::B64)?);
                }
                Ok(s + ";")
            }
            Inst::CreatePolicy { dst, evict, fraction } => {
                let name = format!("createpolicy.fractional.L2::{}.b64", evict.ptx());
                let o = self.ops(&name);
                if !(*fraction > 0.0 && *fraction <= 1.0) {
                    return Err(o.invalid(format!("fraction {fraction} not in (0, 1]")));
                }
                Ok(format!("{name} {}, {};", o.reg(*dst, Ty::B64)?, o.op(Operand::f32(*fraction), Ty::F32)?))
            }
            Inst::MovPack { dst, lo, hi } => {
                let o = self.ops("mov.b32");
                Ok(format!("mov.b32 {}, {{{}, {}}};", o.reg(*dst, Ty::B32)?, o.reg(*lo, Ty::B16)?, o.reg(*hi, Ty::B16)?))
            }
            Inst::MovUnpack { lo, hi, src } => {
                let o = self.ops("mov.b32");
                Ok(format!("mov.b32 {{{}, {}}}, {};", o.reg(*lo, Ty::B16)?, o.reg(*hi, Ty::B16)?, o.reg(*src, Ty::B32)?))
            }
            Inst::Membar { level } => Ok(format!("membar.{};", level.ptx())),
            Inst::FenceAcqRelGpu => Ok("fence.acq_rel.gpu;".to_string()),
            Inst::CpAsyncCommit => Ok("cp.async.commit_group;".to_string()),
            Inst::GridDepWait => Ok("griddepcontrol.wait;".to_string()),
            Inst::GridDepLaunch => Ok("griddepcontrol.launch_dependents;".to_string()),
            Inst::CpAsyncWait { n } => Ok(format!("cp.async.wait_group {n};")),
            Inst::WgmmaFence => Ok("wgmma.fence.sync.aligned;".to_string()),
            Inst::WgmmaCommit => Ok("wgmma.commit_group.sync.aligned;".to_string()),
            Inst::WgmmaWait { n } => {
                if *n > 7 {
                    return Err(self.ops("wgmma.wait_group").invalid(format!("wait_group {n}: at most 7 pending groups")));
                }
                Ok(format!("wgmma.wait_group.sync.aligned {n};"))
            }
            Inst::FenceProxyAsync => Ok("fence.proxy.async.shared::cta;".to_string()),
            Inst::FenceMbarrierInit => Ok("fence.mbarrier_init.release.cluster;".to_string()),
            Inst::MbarrierInit { addr, count } => {
                let o = self.ops("mbarrier.init.shared::cta.b64");
                Ok(format!("mbarrier.init.shared::cta.b64 {}, {count};", o.addr(addr, Space::Shared)?))
            }
            Inst::MbarrierArriveExpectTx { addr, bytes } => {
                let o = self.ops("mbarrier.arrive.expect_tx.shared::cta.b64");
                Ok(format!("mbarrier.arrive.expect_tx.shared::cta.b64 _, {}, {};", o.addr(addr, Space::Shared)?, o.op(*bytes, Ty::U32)?))
            }
            Inst::MbarrierArrive { addr } => {
                let o = self.ops("mbarrier.arrive.shared::cta.b64");
                Ok(format!("mbarrier.arrive.shared::cta.b64 _, {};", o.addr(addr, Space::Shared)?))
            }
            Inst::CpAsyncMbarrierArrive { addr } => {
                let o = self.ops("cp.async.mbarrier.arrive.noinc.shared::cta.b64");
                Ok(format!("cp.async.mbarrier.arrive.noinc.shared::cta.b64 {};", o.addr(addr, Space::Shared)?))
            }
            Inst::MbarrierWait { .. } => Err(self.ops("mbarrier.try_wait.parity").invalid("printed as a loop by the kernel printer")),
            Inst::CpAsyncBulk { dst, src, bytes, mbar, policy } => {
                let hint = if policy.is_some() { ".L2::cache_hint" } else { "" };
                let name = format!("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{hint}");
                let o = self.ops(&name);
                let mut s = format!(
                    "{name} {}, {}, {}, {}",
                    o.addr(dst, Space::Shared)?,
                    o.addr(src, Space::Global)?,
                    o.op(*bytes, Ty::U32)?,
                    o.addr(mbar, Space::Shared)?
                );
                if let Some(pol) = policy {
                    s += &format!(", {}", o.reg(*pol, Ty::B64)?);
                }
                Ok(s + ";")
            }
            Inst::ElectSync { dst } => {
                let o = self.ops("elect.sync");
                Ok(format!("elect.sync _|{}, 0xffffffff;", o.reg(*dst, Ty::Pred)?))
            }
            Inst::Wgmma { n, ab, d, a, b_desc, accumulate } => {
                let t = ab.ptx();
                let name = format!("wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{t}.{t}");
                let o = self.ops(&name);
                if !matches!(ab, MmaType::F16 | MmaType::Bf16) {
                    return Err(o.invalid("wgmma with registers for A is generated for f16 and bf16 inputs"));
                }
                if *n == 0 || *n > 256 || n % 8 != 0 {
                    return Err(o.invalid(format!("n = {n}: wgmma takes n = 8, 16, .., 256")));
                }
                if d.len() != *n as usize / 2 || a.len() != 4 {
                    return Err(o.invalid(format!("m64n{n}k16 takes {} f32 accumulators and 4 A registers, got {} and {}", n / 2, d.len(), a.len())));
                }
                let scale_d = match accumulate {
                    Operand::Imm(v @ (0 | 1)) => v.to_string(),
                    Operand::Reg(p) => o.reg(*p, Ty::Pred)?,
                    _ => return Err(o.invalid("accumulate is a predicate register or the immediate 0 or 1")),
                };
                Ok(format!(
                    "{name} {}, {}, {}, {scale_d}, 1, 1, 0;",
                    o.regs(d, Ty::F32)?,
                    o.regs(a, Ty::B32)?,
                    o.reg(*b_desc, Ty::B64)?
                ))
            }
            Inst::Ldmatrix { trans, dst, addr } => {
                let name = format!(
                    "ldmatrix.sync.aligned.m8n8.x{}{}.shared.b16",
                    dst.len(),
                    if *trans { ".trans" } else { "" }
                );
                let o = self.ops(&name);
                if !matches!(dst.len(), 1 | 2 | 4) {
                    return Err(o.invalid("ldmatrix loads 1, 2 or 4 matrices"));
                }
                Ok(format!(
                    "{name} {}, {};",
                    o.regs(dst, Ty::B32)?,
                    o.addr(addr, Space::Shared)?
                ))
            }
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
            } => self.mma(*shape, [*d_ty, *a_ty, *b_ty, *c_ty], [d, a, b, c]),
            Inst::Shfl {
                mode,
                dst,
                a,
                b,
                c,
                mask,
            } => {
                let m = match mode {
                    ShflMode::Up => "up",
                    ShflMode::Down => "down",
                    ShflMode::Bfly => "bfly",
                    ShflMode::Idx => "idx",
                };
                let name = format!("shfl.sync.{m}.b32");
                let o = self.ops(&name);
                Ok(format!(
                    "{name} {}, {}, {}, {}, 0x{mask:08x};",
                    o.reg(*dst, Ty::B32)?,
                    o.op(*a, Ty::B32)?,
                    o.op(*b, Ty::U32)?,
                    o.op(*c, Ty::U32)?
                ))
            }
            // Printed by the statement emitter (two instructions, no guard).
            Inst::ClusterSync => Err(self.ops("barrier.cluster").invalid("printed as a statement, not an instruction")),
            Inst::Mapa { dst, addr, rank } => {
                let o = self.ops("mapa.shared::cluster.u32");
                Ok(format!("mapa.shared::cluster.u32 {}, {}, {};", o.reg(*dst, Ty::B32)?, o.reg(*addr, Ty::B32)?, o.op(*rank, Ty::U32)?))
            }
            Inst::LdCluster { ty, dst, addr } => {
                let name = self.mem_opcode("ld", Space::Shared, CacheOp::Default, *ty, dst.len())?.replacen(".shared", ".shared::cluster", 1);
                let o = self.ops(&name);
                let d: Result<Vec<_>, _> = dst.iter().map(|&r| o.reg_as(r, *ty, true)).collect();
                Ok(format!("{name} {}, {};", vector(d?), o.addr(addr, Space::Shared)?))
            }
            Inst::SetMaxNReg { inc, count } => {
                let name = format!("setmaxnreg.{}.sync.aligned.u32", if *inc { "inc" } else { "dec" });
                if !(24..=256).contains(count) || count % 8 != 0 {
                    return Err(self.ops(&name).invalid(format!("register count {count}: a multiple of 8 in 24..=256")));
                }
                Ok(format!("{name} {count};"))
            }
            Inst::BarSync { id, threads, aligned } => {
                // `bar.sync` is `barrier.sync.aligned`; `barrier.sync` alone is the form that
                // warps may reach from different instructions.
                let name = if *aligned { "bar.sync" } else { "barrier.sync" };
                let o = self.ops(name);
                if *id > 15 {
                    return Err(o.invalid(format!("barrier {id} out of 0..16")));
                }
                match threads {
                    None => Ok(format!("{name} {id};")),
                    Some(t) if *t > 0 && t % 32 == 0 => Ok(format!("{name} {id}, {t};")),
                    Some(t) => {
                        Err(o.invalid(format!("thread count {t} is not a positive multiple of 32")))
                    }
                }
            }
            Inst::Atom {
                space,
                op,
                ty,
                dst,
                addr,
                b,
                c,
            } => {
                let (name, vty) = self.atom_opcode("atom", *space, *op, *ty)?;
                let o = self.ops(&name);
                let mut s = format!(
                    "{name} {}, {}, {}",
                    o.reg(*dst, vty)?,
                    o.addr(addr, *space)?,
                    o.op(*b, vty)?
                );
                match (op, c) {
                    (AtomOp::Cas, Some(c)) => s += &format!(", {}", o.op(*c, vty)?),
                    (AtomOp::Cas, None) => return Err(o.invalid("cas needs a new value")),
                    (_, Some(_)) => return Err(o.invalid("only cas takes a third operand")),
                    (_, None) => {}
                }
                Ok(s + ";")
            }
            Inst::Red {
                space,
                op,
                ty,
                addr,
                b,
            } => {
                let (name, vty) = self.atom_opcode("red", *space, *op, *ty)?;
                let o = self.ops(&name);
                if matches!(op, AtomOp::Cas | AtomOp::Exch) {
                    return Err(o.invalid("red has no cas or exch"));
                }
                Ok(format!(
                    "{name} {}, {};",
                    o.addr(addr, *space)?,
                    o.op(*b, vty)?
                ))
            }
        }
    }

    fn mov(&self, ty: Ty, dst: Reg, src: Operand) -> Result<String, PtxError> {
        let name = format!("mov.{}", storage(ty));
        let o = self.ops(&name);
        if is_fp8(ty) || ty.bits() < 16 && ty != Ty::Pred {
            return Err(o.invalid("mov takes pred or 16/32/64-bit types"));
        }
        let s = match src {
            Operand::SharedAddr(id) if is_int(ty) && ty.bits() >= 32 => o.symbol(id)?,
            other => o.op(other, ty)?,
        };
        Ok(format!("{name} {}, {s};", o.reg(dst, ty)?))
    }

    fn ld_param(&self, ty: Ty, dst: Reg, param: u32) -> Result<String, PtxError> {
        let name = format!("ld.param.{ty}");
        let o = self.ops(&name);
        let p = self
            .kernel
            .params
            .get(param as usize)
            .ok_or_else(|| o.invalid(format!("no parameter {param}")))?;
        let pbits = match p.ty {
            ParamTy::U32 | ParamTy::S32 | ParamTy::F32 => 32,
            ParamTy::U64 | ParamTy::Ptr => 64,
        };
        if ty.bits() != pbits || is_half_family(ty) || is_fp8(ty) {
            return Err(o.invalid(format!(
                "parameter {} is {pbits} bits, loaded as .{ty}",
                p.name
            )));
        }
        Ok(format!("{name} {}, [{}];", o.reg(dst, ty)?, p.name))
    }

    /// `ld`/`st` opcode with its checks (vector width, cache operator, type).
    fn mem_opcode(
        &self,
        op: &str,
        space: Space,
        cache: CacheOp,
        ty: Ty,
        n: usize,
    ) -> Result<String, PtxError> {
        let v = match n {
            1 => "",
            2 => ".v2",
            4 => ".v4",
            _ => "?",
        };
        let name = format!(
            "{op}.{}{}{v}.{}",
            space.ptx(),
            cache_str(cache),
            storage(ty)
        );
        let o = self.ops(&name);
        if v == "?" {
            return Err(o.invalid(format!("{n} registers; vectors have 1, 2 or 4")));
        }
        if ty == Ty::Pred || ty.bits() as usize * n > 128 {
            return Err(o.invalid("type or vector too wide (at most 128 bits)"));
        }
        let cache_ok = match (op, cache) {
            (_, CacheOp::Default) => true,
            (_, _) if space == Space::Shared => false,
            ("ld", c) => matches!(
                c,
                CacheOp::Ca | CacheOp::Cg | CacheOp::Cs | CacheOp::Lu | CacheOp::Cv
            ),
            (_, c) => matches!(c, CacheOp::Wb | CacheOp::Cg | CacheOp::Cs | CacheOp::Wt),
        };
        if !cache_ok {
            return Err(o.invalid("cache operator not valid for this access"));
        }
        Ok(name)
    }

    fn bin(&self, op: BinOp, ty: Ty, dst: Reg, a: Operand, b: Operand) -> Result<String, PtxError> {
        let float = ty.is_float();
        let (spelled, dty, bty) = match op {
            BinOp::Add | BinOp::Sub | BinOp::Min | BinOp::Max => (ty, ty, ty),
            BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::MulHi => (ty, ty, ty),
            BinOp::MulWide => (ty, widen(ty).unwrap_or(ty), ty),
            BinOp::And | BinOp::Or | BinOp::Xor => (bit_ty(ty), ty, ty),
            BinOp::Shl => (bit_ty(ty), ty, Ty::U32),
            BinOp::Shr => (ty, ty, Ty::U32),
        };
        // Float add/sub/mul carry `.rn` so ptxas never contracts them into an fma: the emulator
        // rounds each one, and so must the GPU.
        let opname = match op {
            BinOp::Mul if !float => "mul.lo",
            BinOp::Div if float => "div.rn",
            BinOp::Add if float => "add.rn",
            BinOp::Sub if float => "sub.rn",
            BinOp::Mul if float => "mul.rn",
            _ => binop_str(op),
        };
        let name = format!("{opname}.{spelled}");
        let o = self.ops(&name);
        let ok = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul => {
                is_arith_int(ty) || is_scalar_float(ty) || is_half_family(ty)
            }
            BinOp::Min | BinOp::Max => {
                is_arith_int(ty) || is_scalar_float(ty) || is_half_family(ty)
            }
            BinOp::MulHi | BinOp::Rem => is_arith_int(ty),
            BinOp::MulWide => widen(ty).is_some(),
            BinOp::Div => is_arith_int(ty) || is_scalar_float(ty),
            BinOp::And | BinOp::Or | BinOp::Xor => {
                ty == Ty::Pred || (ty.bits() >= 16 && !is_fp8(ty))
            }
            BinOp::Shl => is_int(ty) && ty.bits() >= 16,
            BinOp::Shr => is_arith_int(ty) || matches!(ty, Ty::B16 | Ty::B32 | Ty::B64),
        };
        if !ok {
            return Err(o.invalid(format!("{} does not take .{ty}", binop_str(op))));
        }
        Ok(format!(
            "{name} {}, {}, {};",
            o.reg(dst, dty)?,
            o.op(a, ty)?,
            o.op(b, bty)?
        ))
    }

    fn un(&self, op: UnOp, ty: Ty, dst: Reg, a: Operand) -> Result<String, PtxError> {
        let (name, dty, ok) = match op {
            UnOp::Neg | UnOp::Abs => {
                let n = if op == UnOp::Neg { "neg" } else { "abs" };
                let ok = matches!(ty, Ty::S16 | Ty::S32 | Ty::S64)
                    || is_scalar_float(ty)
                    || is_half_family(ty);
                (format!("{n}.{ty}"), ty, ok)
            }
            UnOp::Not => (
                format!("not.{}", bit_ty(ty)),
                ty,
                ty == Ty::Pred || (is_int(ty) && ty.bits() >= 16),
            ),
            UnOp::Popc => (
                format!("popc.{}", bit_ty(ty)),
                Ty::U32,
                is_int(ty) && matches!(ty.bits(), 32 | 64),
            ),
        };
        let o = self.ops(&name);
        if !ok {
            return Err(o.invalid(format!("{op:?} does not take .{ty}")));
        }
        Ok(format!("{name} {}, {};", o.reg(dst, dty)?, o.op(a, ty)?))
    }

    fn cvt(
        &self,
        dty: Ty,
        sty: Ty,
        rnd: Option<Rnd>,
        sat: bool,
        dst: Reg,
        src: Operand,
    ) -> Result<String, PtxError> {
        let mut name = String::from("cvt");
        // FP8 unpacking always rounds to nearest (it is exact); ptxas requires the `.rn`.
        let rnd = if is_fp8(sty) {
            rnd.or(Some(Rnd::Rn))
        } else {
            rnd
        };
        if let Some(r) = rnd {
            name += ".";
            name += r.ptx();
        }
        if sat {
            name += ".sat";
        }
        name += &format!(".{dty}.{sty}");
        let o = self.ops(&name);
        if is_fp8(dty) {
            return Err(o.invalid("conversion to FP8 is CvtPack (cvt.rn.satfinite.e4m3x2.f32)"));
        }
        if is_fp8(sty) {
            if dty != Ty::F16x2 || rnd != Some(Rnd::Rn) || sat {
                return Err(o.invalid("FP8 pairs unpack only as cvt.rn.f16x2.{e4m3x2|e5m2x2}"));
            }
        } else {
            if matches!(dty, Ty::F16x2 | Ty::Bf16x2 | Ty::Pred)
                || matches!(sty, Ty::F16x2 | Ty::Bf16x2 | Ty::Pred)
            {
                return Err(o.invalid("cvt converts scalars (use CvtPack to pack f32 pairs)"));
            }
            let (df, sf) = (dty.is_float(), sty.is_float());
            let need = match (df, sf) {
                // Float to float: narrowing (and f16 <-> bf16) rounds; widening must not.
                (true, true) if dty == sty => Rounding::IntOrNone,
                (true, true) if dty.bits() < sty.bits() || dty.bits() == sty.bits() => {
                    Rounding::Float
                }
                (true, true) => Rounding::None,
                (true, false) => Rounding::Float,
                (false, true) => Rounding::Int,
                (false, false) => Rounding::None,
            };
            let ok = match (need, rnd) {
                (Rounding::None, None) | (Rounding::IntOrNone, None) => true,
                (Rounding::IntOrNone, Some(r)) | (Rounding::Int, Some(r)) => !is_float_rnd(r),
                (Rounding::Float, Some(r)) => is_float_rnd(r),
                _ => false,
            };
            if !ok {
                return Err(o.invalid(format!(
                    "rounding modifier {rnd:?} is wrong for this conversion"
                )));
            }
        }
        Ok(format!(
            "{name} {}, {};",
            o.reg_as(dst, dty, true)?,
            o.op_as(src, sty, true)?
        ))
    }

    fn mma(
        &self,
        shape: MmaShape,
        tys: [MmaType; 4],
        regs: [&Vec<Reg>; 4],
    ) -> Result<String, PtxError> {
        let [dt, at, bt, ct] = tys;
        let [d, a, b, c] = regs;
        let name = format!(
            "mma.sync.aligned.{}.row.col.{}.{}.{}.{}",
            shape_str(shape),
            dt.ptx(),
            at.ptx(),
            bt.ptx(),
            ct.ptx()
        );
        let o = self.ops(&name);
        use MmaType as T;
        let family = |t: T| match t {
            T::F16 => 1,
            T::Bf16 => 2,
            T::S8 | T::U8 => 3,
            T::S4 | T::U4 => 4,
            T::E4m3 | T::E5m2 => 5,
            T::F32 | T::S32 => 0,
        };
        let (na, nb) = match (shape, family(at)) {
            (MmaShape::M16N8K16, 1 | 2) | (MmaShape::M16N8K32, 3 | 5) | (MmaShape::M16N8K64, 4) => {
                (4, 2)
            }
            (MmaShape::M16N8K8, 1 | 2) => (2, 1),
            (MmaShape::M8N8K16, 3) | (MmaShape::M8N8K32, 4) => (1, 1),
            _ => return Err(o.invalid("shape and A type do not go together")),
        };
        if family(bt) != family(at) {
            return Err(o.invalid("A and B types do not go together"));
        }
        let acc_ok = match family(at) {
            1 | 5 => matches!(ct, T::F16 | T::F32),
            2 => ct == T::F32,
            _ => ct == T::S32,
        };
        if !acc_ok || dt != ct {
            return Err(
                o.invalid("accumulator types (C and D must be equal) do not fit the inputs")
            );
        }
        let (nc, cty) = match (shape, ct) {
            (MmaShape::M8N8K16 | MmaShape::M8N8K32, _) => (2, Ty::S32),
            (_, T::F16) => (2, Ty::F16x2),
            (_, T::F32) => (4, Ty::F32),
            _ => (4, Ty::S32),
        };
        if a.len() != na || b.len() != nb || c.len() != nc || d.len() != nc {
            return Err(o.invalid(format!(
                "needs {na} A, {nb} B, {nc} C and D registers; has {}, {}, {}, {}",
                a.len(),
                b.len(),
                c.len(),
                d.len()
            )));
        }
        Ok(format!(
            "{name} {}, {}, {}, {};",
            o.regs(d, cty)?,
            o.regs(a, Ty::B32)?,
            o.regs(b, Ty::B32)?,
            o.regs(c, cty)?
        ))
    }

    fn atom_opcode(
        &self,
        inst: &str,
        space: Space,
        op: AtomOp,
        ty: Ty,
    ) -> Result<(String, Ty), PtxError> {
        let bitwise = matches!(
            op,
            AtomOp::And | AtomOp::Or | AtomOp::Xor | AtomOp::Exch | AtomOp::Cas
        );
        let spelled = if bitwise { bit_ty(ty) } else { ty };
        let noftz = if op == AtomOp::Add && is_half_family(ty) {
            ".noftz"
        } else {
            ""
        };
        let name = format!(
            "{inst}.{}.{}{noftz}.{spelled}",
            space.ptx(),
            atom_str(op)
        );
        let ok = match op {
            AtomOp::Add => {
                matches!(ty, Ty::U32 | Ty::S32 | Ty::U64 | Ty::F32 | Ty::F64) || is_half_family(ty)
            }
            AtomOp::Min | AtomOp::Max => matches!(ty, Ty::U32 | Ty::S32 | Ty::U64 | Ty::S64),
            _ => ty != Ty::Pred && matches!(ty.bits(), 32 | 64) && !is_half_family(ty),
        };
        if !ok {
            return Err(self
                .ops(&name)
                .invalid(format!("{} does not take .{ty}", atom_str(op))));
        }
        Ok((name, ty))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rounding {
    None,
    IntOrNone,
    Float,
    Int,
}

/// `%r1` or `{%r1, %r2}`.
fn vector(items: Vec<String>) -> String {
    if items.len() == 1 {
        items.into_iter().next().unwrap_or_default()
    } else {
        format!("{{{}}}", items.join(", "))
    }
}
