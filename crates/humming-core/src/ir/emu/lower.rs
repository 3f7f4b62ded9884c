//! Lowering: the structured [`Stmt`] tree becomes a flat list of pre-decoded [`Op`]s with
//! uniform jumps, once per launch. Operands are resolved to register slots or immediates
//! (parameters and shared-array symbols become immediates), types are checked against register
//! classes, and each instruction family is decoded into the exact operation the executor runs,
//! so the per-instruction loop only matches an enum and loops over lanes.

use crate::ir::emu::float::{FRnd, Fmt, IRnd};
use crate::ir::ptx::stmt_text;
use crate::ir::emu::{EmuError, Site};
use crate::ir::emu::wgmma::{AccD, WgmmaOp};
use crate::ir::{
    Addr, AtomOp, BinOp, Cmp, CpAsyncCache, Guard, Inst, Kernel, KernelArg, MmaShape, MmaType, Operand,
    Reg, RegClass, Rnd, ShflMode, Space, SpecialReg, Stmt, Ty, UnOp,
};

/// The first shared-window address; `[0, SHARED_BASE)` is unmapped so that a null shared
/// pointer faults. 1 KiB keeps every array alignment up to 1 KiB identical to a 0-based
/// layout (swizzles on address bits 4..9 behave the same).
pub(crate) const SHARED_BASE: u32 = 1024;

/// A source operand: a register slot (`reg.id * 32`, add the lane) or an immediate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Src {
    R(u32),
    I(u64),
}

/// Integer binary operations (width-specific).
#[derive(Clone, Copy, Debug)]
pub(crate) enum IntOp {
    Add(u64),
    Sub(u64),
    MulLo(u64),
    MulHiU(u32),
    MulHiS(u32),
    MulWideU(u32),
    MulWideS(u32),
    DivU,
    DivS(u32),
    RemU,
    RemS(u32),
    MinU,
    MinS(u32),
    MaxU,
    MaxS(u32),
    And,
    Or,
    Xor,
    Shl(u32),
    ShrU(u32),
    ShrS(u32),
}

/// Float binary operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FOp {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
}

/// The float type of a float instruction: f32, f64, or a 16-bit format (scalar or x2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FTy {
    F32,
    F64,
    Half { fmt: Fmt, x2: bool },
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum UnKind {
    NegInt(u64),
    AbsInt(u32),
    Not(u64),
    Popc,
    /// Flip the sign bit(s) under this mask (float neg).
    XorSign(u64),
    /// Clear the sign bit(s) under this mask (float abs).
    ClearSign(u64),
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum MadKind {
    Lo(u64),
    WideU(u32),
    WideS(u32),
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Conv {
    /// Integer to integer (sign/zero extension or truncation, or saturation with `sat`).
    II {
        sbits: u32,
        ssigned: bool,
        dbits: u32,
        dsigned: bool,
        sat: bool,
    },
    /// Float to integer: rounds with `rnd`, always saturates, NaN per PTX.
    FI {
        src: Fmt,
        dbits: u32,
        dsigned: bool,
        rnd: IRnd,
    },
    /// Integer to float.
    IF {
        sbits: u32,
        ssigned: bool,
        dst: Fmt,
        rnd: FRnd,
    },
    /// Float to float (`rnd` only matters when narrowing); `sat` clamps to [0, 1].
    FF {
        src: Fmt,
        dst: Fmt,
        rnd: FRnd,
        sat: bool,
    },
    /// Float to the same float rounded to an integral value.
    FRound { fmt: Fmt, rnd: IRnd, sat: bool },
    /// `cvt.rn.f16x2.{e4m3x2|e5m2x2}`.
    Fp8x2ToH2 { src: Fmt },
    /// `cvt.rn.satfinite.{e4m3x2|e5m2x2}.f16x2`.
    H2ToFp8x2 { dst: Fmt },
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum SetpKind {
    Int { signed: bool, bits: u32 },
    Float(Fmt),
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum AtomKind {
    AddInt,
    AddF32,
    AddF64,
    MinU,
    MinS,
    MaxU,
    MaxS,
    And,
    Or,
    Xor,
    Exch,
    Cas,
}

/// Decoded `mma.sync` (kept out of line: it is large).
#[derive(Clone, Debug)]
pub(crate) struct MmaOp {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub a_ty: MmaType,
    pub b_ty: MmaType,
    pub c_ty: MmaType,
    pub d_ty: MmaType,
    pub a: Vec<u32>,
    pub b: Vec<u32>,
    pub c: Vec<u32>,
    pub d: Vec<u32>,
}

/// One pre-decoded operation.
#[derive(Clone, Debug)]
pub(crate) enum Kind {
    Mov {
        dst: u32,
        src: Src,
        mask: u64,
    },
    Special {
        dst: u32,
        sreg: SpecialReg,
    },
    Ld {
        space: Space,
        /// `ld.shared::cluster`: the address may name another CTA of the cluster (`mapa`).
        cluster: bool,
        dst: [u32; 4],
        n: u8,
        size: u8,
        base: Src,
        off: i64,
        sext: bool,
        wmask: u64,
    },
    St {
        space: Space,
        src: [Src; 4],
        n: u8,
        size: u8,
        base: Src,
        off: i64,
    },
    Int {
        op: IntOp,
        dst: u32,
        a: Src,
        b: Src,
    },
    Flt {
        op: FOp,
        ty: FTy,
        dst: u32,
        a: Src,
        b: Src,
    },
    Un {
        op: UnKind,
        dst: u32,
        a: Src,
    },
    Fma {
        ty: FTy,
        rnd: FRnd,
        dst: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Mad {
        kind: MadKind,
        dst: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Lop3 {
        dst: u32,
        a: Src,
        b: Src,
        c: Src,
        lut: u8,
    },
    Prmt {
        dst: u32,
        a: Src,
        b: Src,
        sel: Src,
    },
    Shf {
        left: bool,
        wrap: bool,
        dst: u32,
        lo: Src,
        hi: Src,
        sh: Src,
    },
    Bfe {
        bits: u32,
        signed: bool,
        dst: u32,
        a: Src,
        pos: Src,
        len: Src,
    },
    Cvt {
        conv: Conv,
        dst: u32,
        src: Src,
        wbits: u32,
    },
    CvtPack {
        fmt: Fmt,
        satfinite: bool,
        dst: u32,
        hi: Src,
        lo: Src,
    },
    Setp {
        kind: SetpKind,
        cmp: Cmp,
        dst: u32,
        a: Src,
        b: Src,
    },
    Selp {
        dst: u32,
        a: Src,
        b: Src,
        p: u32,
    },
    CpAsync {
        bytes: u32,
        dst: Src,
        dst_off: i64,
        src: Src,
        src_off: i64,
        src_size: Option<Src>,
    },
    CpCommit,
    /// `wgmma.commit_group` by the warp: the B reads of its warpgroup's wgmmas since the last
    /// commit become a group.
    WgCommit,
    /// `wgmma.wait_group n` by the warp.
    WgWait {
        n: u32,
    },
    /// `mbarrier.init` of the 8 bytes at `addr + off`.
    MbarInit {
        addr: Src,
        off: i64,
        count: u32,
    },
    /// `mbarrier.arrive.expect_tx`.
    MbarExpectTx {
        addr: Src,
        off: i64,
        bytes: Src,
    },
    /// `mbarrier.arrive` (`cp: false`) or `cp.async.mbarrier.arrive.noinc` (`cp: true`).
    MbarArrive {
        addr: Src,
        off: i64,
        cp: bool,
    },
    /// The `mbarrier.try_wait.parity` loop.
    MbarWait {
        addr: Src,
        off: i64,
        parity: Src,
    },
    /// `cp.async.bulk` global -> shared completing on an mbarrier.
    CpBulk {
        dst: Src,
        dst_off: i64,
        src: Src,
        src_off: i64,
        bytes: Src,
        mbar: Src,
        mbar_off: i64,
    },
    /// No effect in the emulator (`membar`: the emulator's memory is sequentially consistent).
    Nop,
    /// `barrier.cluster` arrive + wait: the warp waits for every warp of the cluster's CTAs.
    ClusterSync,
    /// `mapa.shared::cluster.u32`: `dst` = the cluster address of `addr` in CTA `rank`.
    Mapa {
        dst: u32,
        addr: Src,
        rank: Src,
    },
    GridDepWait,
    /// `mov.b32 d, {lo, hi}`.
    Pack2 {
        dst: u32,
        lo: Src,
        hi: Src,
    },
    /// `mov.b32 {lo, hi}, a`.
    Unpack2 {
        lo: u32,
        hi: u32,
        src: Src,
    },
    CpWait {
        n: u32,
    },
    Ldmatrix {
        trans: bool,
        dst: [u32; 4],
        n: u8,
        base: Src,
        off: i64,
    },
    Mma(u32),
    /// Index into [`Program::wgmma`]: executed per warpgroup ([`super::wgmma`]).
    Wgmma(u32),
    /// `elect.sync`: `dst` true in the lowest lane (the warp must be fully active).
    Elect {
        dst: u32,
    },
    Shfl {
        mode: ShflMode,
        dst: u32,
        a: Src,
        b: Src,
        c: Src,
        mask: u32,
    },
    Bar {
        id: u32,
        threads: Option<u32>,
        aligned: bool,
    },
    Atom {
        space: Space,
        kind: AtomKind,
        size: u8,
        dst: Option<u32>,
        base: Src,
        off: i64,
        b: Src,
        c: Src,
    },
    LoopInit {
        counter: u32,
        start: Src,
    },
    LoopTest {
        counter: u32,
        end: Src,
        signed: bool,
        exit: u32,
    },
    LoopStep {
        counter: u32,
        step: u32,
    },
    Jump {
        target: u32,
    },
    /// Jump to `target` unless the (uniform) predicate, xor `negate`, is true.
    Branch {
        cond: u32,
        negate: bool,
        target: u32,
    },
    Exit,
}

/// A guard: predicate slot and negation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PGuard {
    pub slot: u32,
    pub negate: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Op {
    pub kind: Kind,
    pub guard: Option<PGuard>,
    /// Index into [`Program::sites`]; `u32::MAX` for the implicit exit at the end of the body.
    pub site: u32,
}

/// A lowered kernel, valid for one launch (parameters are folded in).
#[derive(Debug)]
pub(crate) struct Program<'k> {
    pub ops: Vec<Op>,
    pub mma: Vec<MmaOp>,
    pub wgmma: Vec<WgmmaOp>,
    /// Statements in pre-order; [`Op::site`] indexes this.
    pub sites: Vec<&'k Stmt>,
    /// The kernel, to name statements in errors.
    pub kernel: &'k Kernel,
    pub nregs: usize,
    pub classes: Vec<RegClass>,
    /// First address past the shared window (the window is `[SHARED_BASE, shared_end)`).
    pub shared_end: u32,
}

impl Program<'_> {
    pub(crate) fn site(&self, idx: u32) -> Site {
        match self.sites.get(idx as usize) {
            Some(s) => Site {
                index: idx as usize,
                text: stmt_text(self.kernel, s),
            },
            None => Site {
                index: self.sites.len(),
                text: "<end of kernel>".into(),
            },
        }
    }
}

/// How an operand is used, for type checks and immediate interpretation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    /// `.uN` / `.sN`: integer registers of exactly N bits.
    Int(u32),
    /// `.bN`: any register of N bits.
    Bits(u32),
    F32,
    F64,
    /// f16/bf16 (16) or f16x2/bf16x2 (32): `.b16`/`.b32` registers, immediates are bit patterns.
    Half(u32),
    Pred,
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn int_like(ty: Ty) -> bool {
    use Ty::*;
    matches!(
        ty,
        B8 | B16 | B32 | B64 | U8 | U16 | U32 | U64 | S8 | S16 | S32 | S64
    )
}

fn is_bits(ty: Ty) -> bool {
    matches!(ty, Ty::B8 | Ty::B16 | Ty::B32 | Ty::B64)
}

fn ctx_of(ty: Ty) -> Ctx {
    match ty {
        Ty::Pred => Ctx::Pred,
        Ty::F32 => Ctx::F32,
        Ty::F64 => Ctx::F64,
        Ty::F16 | Ty::Bf16 | Ty::E4m3x2 | Ty::E5m2x2 => Ctx::Half(16),
        Ty::F16x2 | Ty::Bf16x2 => Ctx::Half(32),
        t if is_bits(t) => Ctx::Bits(t.bits()),
        t => Ctx::Int(t.bits()),
    }
}

fn half_fmt(ty: Ty) -> Option<(Fmt, bool)> {
    match ty {
        Ty::F16 => Some((Fmt::F16, false)),
        Ty::Bf16 => Some((Fmt::Bf16, false)),
        Ty::F16x2 => Some((Fmt::F16, true)),
        Ty::Bf16x2 => Some((Fmt::Bf16, true)),
        _ => None,
    }
}

fn fty(ty: Ty) -> Option<FTy> {
    match ty {
        Ty::F32 => Some(FTy::F32),
        Ty::F64 => Some(FTy::F64),
        t => half_fmt(t).map(|(fmt, x2)| FTy::Half { fmt, x2 }),
    }
}

fn scalar_fmt(ty: Ty) -> Option<Fmt> {
    match ty {
        Ty::F16 => Some(Fmt::F16),
        Ty::Bf16 => Some(Fmt::Bf16),
        Ty::F32 => Some(Fmt::F32),
        Ty::F64 => Some(Fmt::F64),
        _ => None,
    }
}

fn class_name(c: RegClass) -> &'static str {
    match c {
        RegClass::Pred => ".pred",
        RegClass::B16 => ".b16",
        RegClass::B32 => ".b32",
        RegClass::B64 => ".b64",
        RegClass::F32 => ".f32",
        RegClass::F64 => ".f64",
    }
}

/// Whether a register of class `c` may hold an operand used as `ctx`; with `relaxed` (ld, st,
/// cvt), integer registers wider than the type are allowed.
fn reg_ok(c: RegClass, ctx: Ctx, relaxed: bool) -> bool {
    use RegClass::*;
    let int_class = matches!(c, B16 | B32 | B64);
    match ctx {
        Ctx::Pred => c == Pred,
        Ctx::F32 => matches!(c, F32 | B32),
        Ctx::F64 => matches!(c, F64 | B64),
        Ctx::Half(bits) => int_class && c.bits() == bits,
        Ctx::Int(bits) => int_class && (c.bits() == bits || (relaxed && c.bits() > bits)),
        Ctx::Bits(bits) => {
            c != Pred
                && (c.bits() == bits
                    || (relaxed && int_class && c.bits() > bits)
                    || (bits == 8 && int_class))
        }
    }
}

fn rnd_f(r: Rnd) -> Option<FRnd> {
    match r {
        Rnd::Rn => Some(FRnd::Rn),
        Rnd::Rz => Some(FRnd::Rz),
        Rnd::Rm => Some(FRnd::Rm),
        Rnd::Rp => Some(FRnd::Rp),
        _ => None,
    }
}

fn rnd_i(r: Rnd) -> Option<IRnd> {
    match r {
        Rnd::Rni => Some(IRnd::Rni),
        Rnd::Rzi => Some(IRnd::Rzi),
        Rnd::Rmi => Some(IRnd::Rmi),
        Rnd::Rpi => Some(IRnd::Rpi),
        _ => None,
    }
}

/// Lowering state.
pub(crate) struct Lowerer<'k> {
    kernel: &'k Kernel,
    args: &'k [KernelArg],
    shared_bases: Vec<u32>,
    ops: Vec<Op>,
    mma: Vec<MmaOp>,
    wgmma: Vec<WgmmaOp>,
    sites: Vec<&'k Stmt>,
}

/// A lowering failure before it is attached to a site.
enum Bad {
    Invalid(String),
    Unsupported(String),
    /// An error already attached to a nested statement.
    Nested(EmuError),
}

type R<T> = Result<T, Bad>;

fn invalid<T>(msg: impl Into<String>) -> R<T> {
    Err(Bad::Invalid(msg.into()))
}

fn unsupported<T>(msg: impl Into<String>) -> R<T> {
    Err(Bad::Unsupported(msg.into()))
}

/// Lays out shared memory and lowers `kernel` for a launch with `args` and
/// `dynamic_shared_bytes`, the dynamic array `skew` bytes past its aligned place. `args` must
/// already match the parameters.
pub(crate) fn lower<'k>(
    kernel: &'k Kernel,
    args: &'k [KernelArg],
    dynamic_shared_bytes: u32,
    skew: u32,
) -> Result<Program<'k>, EmuError> {
    let mut bases = Vec::new();
    let mut cursor = SHARED_BASE as u64;
    let align_up = |c: u64, a: u64| c.div_ceil(a) * a;
    let mut layout_err = None;
    for decl in &kernel.shared {
        let a = decl.align.max(1) as u64;
        if !a.is_power_of_two() {
            layout_err = Some(format!(
                "shared array `{}` has alignment {} (not a power of two)",
                decl.name, a
            ));
        }
        cursor = align_up(cursor, a);
        bases.push(cursor as u32);
        cursor += decl.bytes as u64;
    }
    if kernel.dynamic_shared.is_some() || dynamic_shared_bytes > 0 {
        let a = kernel.dynamic_shared.unwrap_or(16).max(16) as u64;
        if !a.is_power_of_two() {
            layout_err = Some(format!(
                "dynamic shared alignment {a} is not a power of two"
            ));
        }
        cursor = align_up(cursor, a) + skew as u64;
        bases.push(cursor as u32);
        cursor += dynamic_shared_bytes as u64;
    }
    if let Some(reason) = layout_err {
        return Err(EmuError::InvalidLaunch {
            kernel: kernel.name.clone(),
            reason,
        });
    }
    if cursor > u32::MAX as u64 / 2 {
        return Err(EmuError::InvalidLaunch {
            kernel: kernel.name.clone(),
            reason: "shared memory too large".into(),
        });
    }
    let mut l = Lowerer {
        kernel,
        args,
        shared_bases: bases,
        ops: Vec::new(),
        mma: Vec::new(),
        wgmma: Vec::new(),
        sites: Vec::new(),
    };
    l.block(&kernel.body)?;
    l.ops.push(Op {
        kind: Kind::Exit,
        guard: None,
        site: u32::MAX,
    });
    Ok(Program {
        ops: l.ops,
        mma: l.mma,
        wgmma: l.wgmma,
        sites: l.sites,
        kernel,
        nregs: kernel.regs.len(),
        classes: kernel.regs.clone(),
        shared_end: cursor as u32,
    })
}

impl<'k> Lowerer<'k> {
    fn fail(&self, site: u32, bad: Bad) -> EmuError {
        let site = Site {
            index: site as usize,
            text: stmt_text(self.kernel, self.sites[site as usize]),
        };
        match bad {
            Bad::Invalid(reason) => EmuError::InvalidKernel { site, reason },
            Bad::Unsupported(what) => EmuError::Unsupported { site, what },
            Bad::Nested(e) => e,
        }
    }

    fn push(&mut self, kind: Kind, guard: Option<PGuard>, site: u32) -> usize {
        self.ops.push(Op { kind, guard, site });
        self.ops.len() - 1
    }

    fn block(&mut self, stmts: &'k [Stmt]) -> Result<(), EmuError> {
        for s in stmts {
            let site = self.sites.len() as u32;
            self.sites.push(s);
            self.stmt(s, site).map_err(|b| match b {
                Bad::Nested(e) => e,
                b => self.fail(site, b),
            })?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &'k Stmt, site: u32) -> R<()> {
        match s {
            Stmt::Inst { guard, inst } => {
                let g = match guard {
                    Some(Guard { pred, negate }) => {
                        self.reg(*pred, Ctx::Pred, false)?;
                        Some(PGuard {
                            slot: pred.id * 32,
                            negate: *negate,
                        })
                    }
                    None => None,
                };
                if g.is_some() && matches!(inst, Inst::ClusterSync) {
                    return invalid("barrier.cluster takes no guard (every thread of the cluster arrives)");
                }
                let kind = self.inst(inst)?;
                self.push(kind, g, site);
            }
            Stmt::Loop {
                counter,
                start,
                end,
                step,
                signed,
                body,
            } => {
                let ctx = if *signed { Ctx::Int(32) } else { Ctx::Bits(32) };
                let c = self.reg(*counter, Ctx::Int(32), false)?;
                let start = self.src(start, ctx)?;
                let end = self.src(end, ctx)?;
                if *step == 0 || i32::try_from(*step).is_err() {
                    return invalid(format!("loop step {step} must be a non-zero 32-bit value"));
                }
                self.push(Kind::LoopInit { counter: c, start }, None, site);
                let test = self.push(
                    Kind::LoopTest {
                        counter: c,
                        end,
                        signed: *signed,
                        exit: 0,
                    },
                    None,
                    site,
                );
                self.block(body).map_err(Bad::Nested)?;
                self.push(
                    Kind::LoopStep {
                        counter: c,
                        step: *step as i32 as u32,
                    },
                    None,
                    site,
                );
                self.push(
                    Kind::Jump {
                        target: test as u32,
                    },
                    None,
                    site,
                );
                let exit = self.ops.len() as u32;
                if let Kind::LoopTest { exit: e, .. } = &mut self.ops[test].kind {
                    *e = exit;
                }
            }
            Stmt::If {
                cond,
                negate,
                then,
                els,
            } => {
                let c = self.reg(*cond, Ctx::Pred, false)?;
                let br = self.push(
                    Kind::Branch {
                        cond: c,
                        negate: *negate,
                        target: 0,
                    },
                    None,
                    site,
                );
                self.block(then).map_err(Bad::Nested)?;
                let target = if els.is_empty() {
                    self.ops.len()
                } else {
                    let j = self.push(Kind::Jump { target: 0 }, None, site);
                    let else_start = self.ops.len();
                    self.block(els).map_err(Bad::Nested)?;
                    let end = self.ops.len() as u32;
                    if let Kind::Jump { target } = &mut self.ops[j].kind {
                        *target = end;
                    }
                    else_start
                };
                if let Kind::Branch { target: t, .. } = &mut self.ops[br].kind {
                    *t = target as u32;
                }
            }
            Stmt::Return => {
                self.push(Kind::Exit, None, site);
            }
        }
        Ok(())
    }

    fn reg(&self, r: Reg, ctx: Ctx, relaxed: bool) -> R<u32> {
        let Some(&class) = self.kernel.regs.get(r.id as usize) else {
            return invalid(format!(
                "register id {} is not declared (kernel has {})",
                r.id,
                self.kernel.regs.len()
            ));
        };
        if class != r.class {
            return invalid(format!(
                "register {} used as {:?} but declared {:?}",
                r.id, r.class, class
            ));
        }
        if !reg_ok(class, ctx, relaxed) {
            return invalid(format!(
                "register {} of class {} cannot hold a {:?} operand",
                r.id,
                class_name(class),
                ctx
            ));
        }
        Ok(r.id * 32)
    }

    fn dst(&self, r: Reg, ctx: Ctx) -> R<u32> {
        self.reg(r, ctx, false)
    }

    fn shared_addr(&self, id: u32) -> R<u32> {
        match self.shared_bases.get(id as usize) {
            Some(&b)
                if (id as usize) < self.kernel.shared.len()
                    || self.kernel.dynamic_shared.is_some() =>
            {
                Ok(b)
            }
            _ => invalid(format!("shared array {id} is not declared")),
        }
    }

    fn src_relaxed(&self, op: &Operand, ctx: Ctx, relaxed: bool) -> R<Src> {
        match *op {
            Operand::Reg(r) => self.reg(r, ctx, relaxed).map(Src::R),
            Operand::Imm(v) => match ctx {
                Ctx::Int(b) | Ctx::Bits(b) | Ctx::Half(b) => Ok(Src::I(v as u64 & mask(b))),
                Ctx::Pred => Ok(Src::I((v != 0) as u64)),
                Ctx::F32 | Ctx::F64 => {
                    invalid(format!("integer immediate {v} used as a {ctx:?} operand"))
                }
            },
            Operand::F32(bits) => match ctx {
                Ctx::F32 | Ctx::Bits(32) => Ok(Src::I(bits as u64)),
                Ctx::F64 => Ok(Src::I((f32::from_bits(bits) as f64).to_bits())),
                _ => invalid(format!("f32 immediate used as a {ctx:?} operand")),
            },
            Operand::F64(bits) => match ctx {
                Ctx::F64 | Ctx::Bits(64) => Ok(Src::I(bits)),
                Ctx::F32 => Ok(Src::I((f64::from_bits(bits) as f32).to_bits() as u64)),
                _ => invalid(format!("f64 immediate used as a {ctx:?} operand")),
            },
            Operand::SharedAddr(id) => match ctx {
                Ctx::Int(32 | 64) | Ctx::Bits(32 | 64) => {
                    Ok(Src::I(self.shared_addr(id.0)? as u64))
                }
                _ => invalid(format!("shared symbol used as a {ctx:?} operand")),
            },
        }
    }

    fn src(&self, op: &Operand, ctx: Ctx) -> R<Src> {
        self.src_relaxed(op, ctx, false)
    }

    /// An address base: 64-bit register/immediate for global; 32- or 64-bit for shared.
    fn addr_base(&self, base: &Operand, space: Space) -> R<Src> {
        match (base, space) {
            (Operand::Reg(r), Space::Shared) if r.class == RegClass::B32 => {
                self.src(base, Ctx::Bits(32))
            }
            (Operand::SharedAddr(_), Space::Global) => {
                invalid("a shared symbol used as a global address")
            }
            (Operand::SharedAddr(_), Space::Shared) => self.src(base, Ctx::Bits(32)),
            _ => self.src(base, Ctx::Bits(64)),
        }
    }

    /// `ld.space` (or `ld.shared::cluster` when `cluster`) of `dst.len()` values of `ty`.
    fn ld(&mut self, space: Space, cluster: bool, ty: Ty, dst: &[Reg], addr: &Addr) -> R<Kind> {
        let (n, size) = self.vec_shape(ty, dst.len())?;
        let ctx = ctx_of(ty);
        let mut d = [0u32; 4];
        let mut wbits = None;
        for (i, r) in dst.iter().enumerate() {
            d[i] = self.reg(*r, ctx, true)?;
            match wbits {
                None => wbits = Some(r.class.bits()),
                Some(w) if w != r.class.bits() => {
                    return invalid("vector ld destinations of different widths");
                }
                _ => {}
            }
        }
        let w = wbits.unwrap_or(32);
        Ok(Kind::Ld {
            space,
            cluster,
            dst: d,
            n,
            size,
            base: self.addr_base(&addr.base, space)?,
            off: addr.offset,
            sext: ty.is_signed_int(),
            wmask: mask(w),
        })
    }

    fn inst(&mut self, inst: &Inst) -> R<Kind> {
        Ok(match inst {
            Inst::Mov { ty, dst, src } => {
                let ctx = match ctx_of(*ty) {
                    Ctx::Int(8) | Ctx::Bits(8) => return invalid("mov has no 8-bit form"),
                    c => c,
                };
                if matches!(ty, Ty::E4m3x2 | Ty::E5m2x2) {
                    return invalid("mov has no FP8 form");
                }
                let mask = if *ty == Ty::Pred { 1 } else { mask(ty.bits()) };
                Kind::Mov {
                    dst: self.dst(*dst, ctx)?,
                    src: self.src(src, ctx)?,
                    mask,
                }
            }
            Inst::ReadSpecial { dst, sreg } => Kind::Special {
                dst: self.dst(*dst, Ctx::Int(32))?,
                sreg: *sreg,
            },
            Inst::LdParam { ty, dst, param } => self.ld_param(*ty, *dst, *param)?,
            Inst::Ld {
                space,
                cache: _,
                ty,
                dst,
                addr,
            } => self.ld(*space, false, *ty, dst, addr)?,
            Inst::LdCluster { ty, dst, addr } => self.ld(Space::Shared, true, *ty, dst, addr)?,
            Inst::St {
                space,
                cache: _,
                ty,
                src,
                addr,
            } => {
                let (n, size) = self.vec_shape(*ty, src.len())?;
                let ctx = ctx_of(*ty);
                let mut s = [Src::I(0); 4];
                for (i, o) in src.iter().enumerate() {
                    s[i] = self.src_relaxed(o, ctx, true)?;
                }
                Kind::St {
                    space: *space,
                    src: s,
                    n,
                    size,
                    base: self.addr_base(&addr.base, *space)?,
                    off: addr.offset,
                }
            }
            Inst::Bin { op, ty, dst, a, b } => self.bin(*op, *ty, *dst, a, b)?,
            Inst::Un { op, ty, dst, a } => self.un(*op, *ty, *dst, a)?,
            Inst::Fma {
                ty,
                rnd,
                dst,
                a,
                b,
                c,
            } => {
                let Some(ft) = fty(*ty) else {
                    return invalid(format!("fma.{ty} is not a float fma"));
                };
                let Some(r) = rnd_f(*rnd) else {
                    return invalid("fma needs .rn/.rz/.rm/.rp");
                };
                match ft {
                    FTy::F64 if r != FRnd::Rn => {
                        return unsupported("fma.f64 with a directed rounding mode");
                    }
                    FTy::Half { .. } if r != FRnd::Rn => {
                        return invalid(format!("fma.{ty} only has .rn"));
                    }
                    _ => {}
                }
                let ctx = ctx_of(*ty);
                Kind::Fma {
                    ty: ft,
                    rnd: r,
                    dst: self.dst(*dst, ctx)?,
                    a: self.src(a, ctx)?,
                    b: self.src(b, ctx)?,
                    c: self.src(c, ctx)?,
                }
            }
            Inst::Mad {
                ty,
                wide,
                dst,
                a,
                b,
                c,
            } => {
                if !int_like(*ty) || is_bits(*ty) || ty.bits() < 16 {
                    return invalid(format!("mad.{ty} is not an integer mad"));
                }
                let bits = ty.bits();
                let ctx = ctx_of(*ty);
                if *wide {
                    if bits > 32 {
                        return invalid("mad.wide takes 16- or 32-bit sources");
                    }
                    let wctx = Ctx::Int(bits * 2);
                    let kind = if ty.is_signed_int() {
                        MadKind::WideS(bits)
                    } else {
                        MadKind::WideU(bits)
                    };
                    Kind::Mad {
                        kind,
                        dst: self.dst(*dst, wctx)?,
                        a: self.src(a, ctx)?,
                        b: self.src(b, ctx)?,
                        c: self.src(c, wctx)?,
                    }
                } else {
                    Kind::Mad {
                        kind: MadKind::Lo(mask(bits)),
                        dst: self.dst(*dst, ctx)?,
                        a: self.src(a, ctx)?,
                        b: self.src(b, ctx)?,
                        c: self.src(c, ctx)?,
                    }
                }
            }
            Inst::Lop3 { dst, a, b, c, lut } => {
                let x = Ctx::Bits(32);
                Kind::Lop3 {
                    dst: self.dst(*dst, x)?,
                    a: self.src(a, x)?,
                    b: self.src(b, x)?,
                    c: self.src(c, x)?,
                    lut: *lut,
                }
            }
            Inst::Prmt { dst, a, b, sel } => {
                let x = Ctx::Bits(32);
                Kind::Prmt {
                    dst: self.dst(*dst, x)?,
                    a: self.src(a, x)?,
                    b: self.src(b, x)?,
                    sel: self.src(sel, x)?,
                }
            }
            Inst::Shf {
                left,
                wrap,
                dst,
                lo,
                hi,
                shift,
            } => {
                let x = Ctx::Bits(32);
                Kind::Shf {
                    left: *left,
                    wrap: *wrap,
                    dst: self.dst(*dst, x)?,
                    lo: self.src(lo, x)?,
                    hi: self.src(hi, x)?,
                    sh: self.src(shift, Ctx::Int(32))?,
                }
            }
            Inst::Bfe {
                ty,
                dst,
                a,
                pos,
                len,
            } => {
                let (bits, signed) = match ty {
                    Ty::U32 => (32, false),
                    Ty::S32 => (32, true),
                    Ty::U64 => (64, false),
                    Ty::S64 => (64, true),
                    _ => return invalid(format!("bfe.{ty}: bfe takes u32/s32/u64/s64")),
                };
                let ctx = Ctx::Int(bits);
                Kind::Bfe {
                    bits,
                    signed,
                    dst: self.dst(*dst, ctx)?,
                    a: self.src(a, ctx)?,
                    pos: self.src(pos, Ctx::Int(32))?,
                    len: self.src(len, Ctx::Int(32))?,
                }
            }
            Inst::Cvt {
                dst_ty,
                src_ty,
                rnd,
                sat,
                dst,
                src,
            } => self.cvt(*dst_ty, *src_ty, *rnd, *sat, *dst, src)?,
            Inst::CvtPack {
                dst_ty,
                satfinite,
                dst,
                hi,
                lo,
            } => {
                let (fmt, dctx) = match dst_ty {
                    Ty::F16x2 => (Fmt::F16, Ctx::Half(32)),
                    Ty::Bf16x2 => (Fmt::Bf16, Ctx::Half(32)),
                    Ty::E4m3x2 => (Fmt::E4m3, Ctx::Half(16)),
                    Ty::E5m2x2 => (Fmt::E5m2, Ctx::Half(16)),
                    _ => return invalid(format!("cvt pack to .{dst_ty}")),
                };
                if matches!(fmt, Fmt::E4m3 | Fmt::E5m2) && !satfinite {
                    return invalid(format!("cvt to .{dst_ty} requires .satfinite"));
                }
                Kind::CvtPack {
                    fmt,
                    satfinite: *satfinite,
                    dst: self.dst(*dst, dctx)?,
                    hi: self.src(hi, Ctx::F32)?,
                    lo: self.src(lo, Ctx::F32)?,
                }
            }
            Inst::Setp { cmp, ty, dst, a, b } => {
                let kind = if int_like(*ty) && ty.bits() >= 16 {
                    let signed = ty.is_signed_int();
                    if signed && matches!(cmp, Cmp::Lo | Cmp::Ls | Cmp::Hi | Cmp::Hs) {
                        return invalid(format!(
                            "setp.{cmp:?}.{ty}: unsigned comparison on a signed type"
                        ));
                    }
                    if is_bits(*ty) && !matches!(cmp, Cmp::Eq | Cmp::Ne) {
                        return invalid(format!("setp.{cmp:?}.{ty}: .b types only compare eq/ne"));
                    }
                    SetpKind::Int {
                        signed,
                        bits: ty.bits(),
                    }
                } else if let Some(f) = scalar_fmt(*ty) {
                    if matches!(cmp, Cmp::Lo | Cmp::Ls | Cmp::Hi | Cmp::Hs) {
                        return invalid(format!("setp.{cmp:?} on a float type"));
                    }
                    SetpKind::Float(f)
                } else {
                    return invalid(format!("setp.{ty} is not supported"));
                };
                let ctx = ctx_of(*ty);
                Kind::Setp {
                    kind,
                    cmp: *cmp,
                    dst: self.dst(*dst, Ctx::Pred)?,
                    a: self.src(a, ctx)?,
                    b: self.src(b, ctx)?,
                }
            }
            Inst::Selp {
                ty,
                dst,
                a,
                b,
                pred,
            } => {
                if *ty == Ty::Pred || ty.bits() < 16 || matches!(ty, Ty::E4m3x2 | Ty::E5m2x2) {
                    return invalid(format!("selp.{ty}"));
                }
                let ctx = ctx_of(*ty);
                Kind::Selp {
                    dst: self.dst(*dst, ctx)?,
                    a: self.src(a, ctx)?,
                    b: self.src(b, ctx)?,
                    p: self.reg(*pred, Ctx::Pred, false)?,
                }
            }
            Inst::CpAsync {
                cache,
                bytes,
                dst,
                src,
                src_size,
                policy,
            } => {
                if let Some(p) = policy {
                    // A hint only: checked as a 64-bit operand, otherwise ignored.
                    self.src(&Operand::Reg(*p), Ctx::Bits(64))?;
                }
                if !matches!(bytes, 4 | 8 | 16) {
                    return invalid(format!("cp.async of {bytes} bytes (4, 8 or 16)"));
                }
                if *cache == CpAsyncCache::Cg && *bytes != 16 {
                    return invalid("cp.async.cg copies 16 bytes");
                }
                let src_size = match src_size {
                    Some(o) => {
                        let s = self.src(o, Ctx::Int(32))?;
                        if let Src::I(v) = s {
                            if v > *bytes as u64 {
                                return invalid(format!(
                                    "cp.async src-size {v} exceeds cp-size {bytes}"
                                ));
                            }
                        }
                        Some(s)
                    }
                    None => None,
                };
                Kind::CpAsync {
                    bytes: *bytes,
                    dst: self.addr_base(&dst.base, Space::Shared)?,
                    dst_off: dst.offset,
                    src: self.addr_base(&src.base, Space::Global)?,
                    src_off: src.offset,
                    src_size,
                }
            }
            Inst::CpAsyncCommit => Kind::CpCommit,
            Inst::MbarrierInit { addr, count } => {
                if *count == 0 {
                    return invalid("mbarrier.init with an arrival count of 0");
                }
                Kind::MbarInit { addr: self.addr_base(&addr.base, Space::Shared)?, off: addr.offset, count: *count }
            }
            Inst::MbarrierArriveExpectTx { addr, bytes } => Kind::MbarExpectTx {
                addr: self.addr_base(&addr.base, Space::Shared)?,
                off: addr.offset,
                bytes: self.src(bytes, Ctx::Int(32))?,
            },
            Inst::MbarrierArrive { addr } => Kind::MbarArrive { addr: self.addr_base(&addr.base, Space::Shared)?, off: addr.offset, cp: false },
            Inst::CpAsyncMbarrierArrive { addr } => Kind::MbarArrive { addr: self.addr_base(&addr.base, Space::Shared)?, off: addr.offset, cp: true },
            Inst::MbarrierWait { addr, parity } => Kind::MbarWait {
                addr: self.addr_base(&addr.base, Space::Shared)?,
                off: addr.offset,
                parity: self.src(parity, Ctx::Int(32))?,
            },
            Inst::CpAsyncBulk { dst, src, bytes, mbar, policy } => {
                if let Some(p) = policy {
                    // A hint only: checked as a 64-bit operand, otherwise ignored.
                    self.src(&Operand::Reg(*p), Ctx::Bits(64))?;
                }
                Kind::CpBulk {
                    dst: self.addr_base(&dst.base, Space::Shared)?,
                    dst_off: dst.offset,
                    src: self.addr_base(&src.base, Space::Global)?,
                    src_off: src.offset,
                    bytes: self.src(bytes, Ctx::Int(32))?,
                    mbar: self.addr_base(&mbar.base, Space::Shared)?,
                    mbar_off: mbar.offset,
                }
            }
            Inst::ElectSync { dst } => Kind::Elect { dst: self.dst(*dst, Ctx::Pred)? },
            Inst::CreatePolicy { dst, fraction, .. } => {
                if !(*fraction > 0.0 && *fraction <= 1.0) {
                    return invalid(format!("createpolicy fraction {fraction} not in (0, 1]"));
                }
                // An opaque value standing for the policy.
                Kind::Mov { dst: self.dst(*dst, Ctx::Bits(64))?, src: Src::I(0x1000_0000_0000_0000 | fraction.to_bits() as u64), mask: u64::MAX }
            }
            Inst::MovPack { dst, lo, hi } => Kind::Pack2 {
                dst: self.dst(*dst, Ctx::Bits(32))?,
                lo: self.src(&Operand::Reg(*lo), Ctx::Bits(16))?,
                hi: self.src(&Operand::Reg(*hi), Ctx::Bits(16))?,
            },
            Inst::MovUnpack { lo, hi, src } => Kind::Unpack2 {
                lo: self.dst(*lo, Ctx::Bits(16))?,
                hi: self.dst(*hi, Ctx::Bits(16))?,
                src: self.src(&Operand::Reg(*src), Ctx::Bits(32))?,
            },
            // One grid at a time: there is never a grid to wait for or to let start early.
            // wgmma computes when its warpgroup's last warp reaches it; its B reads stay in
            // flight (for the shared-write check) until the group's `wait_group`.
            Inst::WgmmaCommit => Kind::WgCommit,
            Inst::WgmmaWait { n } => Kind::WgWait { n: *n },
            Inst::Membar { .. }
            | Inst::FenceAcqRelGpu
            | Inst::GridDepLaunch
            | Inst::WgmmaFence
            | Inst::FenceProxyAsync
            | Inst::FenceMbarrierInit => Kind::Nop,
            Inst::Wgmma { n, ab, d, a, b_desc, accumulate } => {
                if !matches!(ab, MmaType::F16 | MmaType::Bf16) || *n == 0 || *n > 256 || n % 8 != 0 {
                    return unsupported(format!("wgmma m64n{n}k16 with {ab:?} inputs"));
                }
                if d.len() != *n as usize / 2 || a.len() != 4 {
                    return invalid(format!("wgmma m64n{n}k16 takes {} accumulators and 4 A registers", n / 2));
                }
                let acc = match accumulate {
                    Operand::Imm(1) => AccD::Always,
                    Operand::Imm(0) => AccD::Never,
                    Operand::Reg(p) => AccD::Pred(self.reg(*p, Ctx::Pred, false)?),
                    _ => return invalid("wgmma accumulate is a predicate or the immediate 0 or 1"),
                };
                let op = WgmmaOp {
                    n: *n,
                    ab: *ab,
                    d: d.iter().map(|r| self.reg(*r, Ctx::F32, false)).collect::<R<_>>()?,
                    a: a.iter().map(|r| self.reg(*r, Ctx::Bits(32), false)).collect::<R<_>>()?,
                    desc: self.reg(*b_desc, Ctx::Bits(64), false)?,
                    acc,
                };
                self.wgmma.push(op);
                Kind::Wgmma(self.wgmma.len() as u32 - 1)
            }
            // The guard of `Emulator::set_prior_grid_memory` lifts here.
            Inst::GridDepWait => Kind::GridDepWait,
            Inst::CpAsyncWait { n } => Kind::CpWait { n: *n },
            Inst::Ldmatrix { trans, dst, addr } => {
                if !matches!(dst.len(), 1 | 2 | 4) {
                    return invalid(format!(
                        "ldmatrix with {} destinations (1, 2 or 4)",
                        dst.len()
                    ));
                }
                let mut d = [0u32; 4];
                for (i, r) in dst.iter().enumerate() {
                    d[i] = self.dst(*r, Ctx::Bits(32))?;
                }
                Kind::Ldmatrix {
                    trans: *trans,
                    dst: d,
                    n: dst.len() as u8,
                    base: self.addr_base(&addr.base, Space::Shared)?,
                    off: addr.offset,
                }
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
            } => {
                let op = self.mma(*shape, *d_ty, *a_ty, *b_ty, *c_ty, d, a, b, c)?;
                self.mma.push(op);
                Kind::Mma(self.mma.len() as u32 - 1)
            }
            Inst::Shfl {
                mode,
                dst,
                a,
                b,
                c,
                mask,
            } => {
                let x = Ctx::Bits(32);
                Kind::Shfl {
                    mode: *mode,
                    dst: self.dst(*dst, x)?,
                    a: self.src(a, x)?,
                    b: self.src(b, x)?,
                    c: self.src(c, x)?,
                    mask: *mask,
                }
            }
            Inst::ClusterSync => Kind::ClusterSync,
            // Register budgets do not exist in the emulator; the count is checked.
            Inst::SetMaxNReg { count, .. } => {
                if !(24..=256).contains(count) || count % 8 != 0 {
                    return invalid(format!("setmaxnreg count {count}: a multiple of 8 in 24..=256"));
                }
                Kind::Nop
            }
            Inst::Mapa { dst, addr, rank } => Kind::Mapa {
                dst: self.dst(*dst, Ctx::Bits(32))?,
                addr: self.src(&Operand::Reg(*addr), Ctx::Bits(32))?,
                rank: self.src(rank, Ctx::Bits(32))?,
            },
            Inst::BarSync { id, threads, aligned } => {
                if *id > 15 {
                    return invalid(format!("barrier id {id} (0..15)"));
                }
                if let Some(t) = threads.filter(|t| *t == 0 || t % 32 != 0) {
                    return invalid(format!(
                        "bar.sync thread count {t} must be a non-zero multiple of 32"
                    ));
                }
                Kind::Bar {
                    id: *id,
                    threads: *threads,
                    aligned: *aligned,
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
            } => self.atom(*space, *op, *ty, Some(*dst), addr, b, c.as_ref())?,
            Inst::Red {
                space,
                op,
                ty,
                addr,
                b,
            } => {
                if *op == AtomOp::Cas {
                    return invalid("red has no .cas");
                }
                self.atom(*space, *op, *ty, None, addr, b, None)?
            }
        })
    }

    fn vec_shape(&self, ty: Ty, n: usize) -> R<(u8, u8)> {
        if !matches!(n, 1 | 2 | 4) {
            return invalid(format!("vector width {n} (1, 2 or 4)"));
        }
        if ty == Ty::Pred || matches!(ty, Ty::E4m3x2 | Ty::E5m2x2) {
            return invalid(format!("ld/st of .{ty}"));
        }
        let size = ty.bits() / 8;
        if size * n as u32 > 16 {
            return invalid(format!("a v{n}.{ty} access is wider than 16 bytes"));
        }
        Ok((n as u8, size as u8))
    }

    fn ld_param(&self, ty: Ty, dst: Reg, param: u32) -> R<Kind> {
        let Some(p) = self.kernel.params.get(param as usize) else {
            return invalid(format!("parameter {param} is not declared"));
        };
        let arg = self.args[param as usize];
        let (bits, value) = match arg {
            KernelArg::U32(v) => (32, v as u64),
            KernelArg::S32(v) => (32, v as u32 as u64),
            KernelArg::F32(v) => (32, v.to_bits() as u64),
            KernelArg::U64(v) => (64, v),
            KernelArg::Ptr(p) => (64, p.0),
        };
        let ok = match p.ty {
            crate::ir::ParamTy::F32 => matches!(ty, Ty::F32 | Ty::B32),
            _ => int_like(ty) && ty.bits() == bits,
        };
        if !ok {
            return invalid(format!(
                "ld.param.{ty} of parameter `{}` of type {:?}",
                p.name, p.ty
            ));
        }
        let ctx = ctx_of(ty);
        Ok(Kind::Mov {
            dst: self.dst(dst, ctx)?,
            src: Src::I(value),
            mask: mask(bits),
        })
    }

    fn bin(&self, op: BinOp, ty: Ty, dst: Reg, a: &Operand, b: &Operand) -> R<Kind> {
        let ctx = ctx_of(ty);
        if ty == Ty::Pred {
            let kind = match op {
                BinOp::And => IntOp::And,
                BinOp::Or => IntOp::Or,
                BinOp::Xor => IntOp::Xor,
                _ => return invalid(format!("{op:?}.pred")),
            };
            return Ok(Kind::Int {
                op: kind,
                dst: self.dst(dst, ctx)?,
                a: self.src(a, ctx)?,
                b: self.src(b, ctx)?,
            });
        }
        if let Some(ft) = fty(ty) {
            let fop = match op {
                BinOp::Add => FOp::Add,
                BinOp::Sub => FOp::Sub,
                BinOp::Mul => FOp::Mul,
                BinOp::Div => FOp::Div,
                BinOp::Min => FOp::Min,
                BinOp::Max => FOp::Max,
                _ => return invalid(format!("{op:?} on .{ty}")),
            };
            if fop == FOp::Div && matches!(ft, FTy::Half { .. }) {
                return invalid(format!("div.{ty} does not exist"));
            }
            return Ok(Kind::Flt {
                op: fop,
                ty: ft,
                dst: self.dst(dst, ctx)?,
                a: self.src(a, ctx)?,
                b: self.src(b, ctx)?,
            });
        }
        if !int_like(ty) || ty.bits() < 16 {
            return invalid(format!("{op:?} on .{ty}"));
        }
        let bits = ty.bits();
        let signed = ty.is_signed_int();
        let bitwise = matches!(op, BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl);
        if is_bits(ty) && !bitwise && op != BinOp::Shr {
            return invalid(format!("{op:?} on .{ty}: arithmetic needs .u/.s types"));
        }
        let m = mask(bits);
        let iop = match op {
            BinOp::Add => IntOp::Add(m),
            BinOp::Sub => IntOp::Sub(m),
            BinOp::Mul => IntOp::MulLo(m),
            BinOp::MulHi if signed => IntOp::MulHiS(bits),
            BinOp::MulHi => IntOp::MulHiU(bits),
            BinOp::MulWide => {
                if bits > 32 {
                    return invalid("mul.wide takes 16- or 32-bit sources");
                }
                let wctx = Ctx::Int(bits * 2);
                let op = if signed {
                    IntOp::MulWideS(bits)
                } else {
                    IntOp::MulWideU(bits)
                };
                return Ok(Kind::Int {
                    op,
                    dst: self.dst(dst, wctx)?,
                    a: self.src(a, ctx)?,
                    b: self.src(b, ctx)?,
                });
            }
            BinOp::Div if signed => IntOp::DivS(bits),
            BinOp::Div => IntOp::DivU,
            BinOp::Rem if signed => IntOp::RemS(bits),
            BinOp::Rem => IntOp::RemU,
            BinOp::Min if signed => IntOp::MinS(bits),
            BinOp::Min => IntOp::MinU,
            BinOp::Max if signed => IntOp::MaxS(bits),
            BinOp::Max => IntOp::MaxU,
            BinOp::And => IntOp::And,
            BinOp::Or => IntOp::Or,
            BinOp::Xor => IntOp::Xor,
            BinOp::Shl => IntOp::Shl(bits),
            BinOp::Shr if signed => IntOp::ShrS(bits),
            BinOp::Shr => IntOp::ShrU(bits),
        };
        let b_ctx = if matches!(op, BinOp::Shl | BinOp::Shr) {
            Ctx::Int(32)
        } else {
            ctx
        };
        let b_src = match (b, b_ctx) {
            // Shift amounts are .u32; a .b32 register is fine.
            (Operand::Reg(r), Ctx::Int(32)) if r.class == RegClass::B32 => {
                Src::R(self.reg(*r, Ctx::Bits(32), false)?)
            }
            _ => self.src(b, b_ctx)?,
        };
        Ok(Kind::Int {
            op: iop,
            dst: self.dst(dst, ctx)?,
            a: self.src(a, ctx)?,
            b: b_src,
        })
    }

    fn un(&self, op: UnOp, ty: Ty, dst: Reg, a: &Operand) -> R<Kind> {
        let ctx = ctx_of(ty);
        let kind = match (op, ty) {
            (UnOp::Not, Ty::Pred) => UnKind::Not(1),
            (UnOp::Not, t) if int_like(t) && t.bits() >= 16 => UnKind::Not(mask(t.bits())),
            (UnOp::Popc, Ty::B32 | Ty::B64) => {
                return Ok(Kind::Un {
                    op: UnKind::Popc,
                    dst: self.dst(dst, Ctx::Int(32))?,
                    a: self.src(a, ctx)?,
                });
            }
            (UnOp::Neg, Ty::S16 | Ty::S32 | Ty::S64) => UnKind::NegInt(mask(ty.bits())),
            (UnOp::Abs, Ty::S16 | Ty::S32 | Ty::S64) => UnKind::AbsInt(ty.bits()),
            (UnOp::Neg | UnOp::Abs, t) if fty(t).is_some() => {
                let sign = match t {
                    Ty::F32 => 0x8000_0000,
                    Ty::F64 => 0x8000_0000_0000_0000,
                    Ty::F16 | Ty::Bf16 => 0x8000,
                    _ => 0x8000_8000,
                };
                if op == UnOp::Neg {
                    UnKind::XorSign(sign)
                } else {
                    UnKind::ClearSign(sign)
                }
            }
            _ => return invalid(format!("{op:?}.{ty}")),
        };
        Ok(Kind::Un {
            op: kind,
            dst: self.dst(dst, ctx)?,
            a: self.src(a, ctx)?,
        })
    }

    fn cvt(&self, dt: Ty, st: Ty, rnd: Option<Rnd>, sat: bool, dst: Reg, src: &Operand) -> R<Kind> {
        let fr = rnd.and_then(rnd_f);
        let ir = rnd.and_then(rnd_i);
        let fp8 = |t: Ty| match t {
            Ty::E4m3x2 => Some(Fmt::E4m3),
            Ty::E5m2x2 => Some(Fmt::E5m2),
            _ => None,
        };
        let conv = if int_like(dt) && int_like(st) {
            if rnd.is_some() {
                return invalid("integer-to-integer cvt takes no rounding modifier");
            }
            Conv::II {
                sbits: st.bits(),
                ssigned: st.is_signed_int(),
                dbits: dt.bits(),
                dsigned: dt.is_signed_int(),
                sat,
            }
        } else if let (true, Some(sf)) = (int_like(dt), scalar_fmt(st)) {
            let Some(r) = ir else {
                return invalid("float-to-integer cvt needs .rni/.rzi/.rmi/.rpi");
            };
            Conv::FI {
                src: sf,
                dbits: dt.bits(),
                dsigned: dt.is_signed_int(),
                rnd: r,
            }
        } else if let (Some(df), true) = (scalar_fmt(dt), int_like(st)) {
            let Some(r) = fr else {
                return invalid("integer-to-float cvt needs .rn/.rz/.rm/.rp");
            };
            if sat {
                return unsupported(".sat on an integer-to-float cvt");
            }
            Conv::IF {
                sbits: st.bits(),
                ssigned: st.is_signed_int(),
                dst: df,
                rnd: r,
            }
        } else if let (Some(df), Some(sf)) = (scalar_fmt(dt), scalar_fmt(st)) {
            if df == sf {
                match (ir, rnd) {
                    (Some(r), _) => Conv::FRound {
                        fmt: df,
                        rnd: r,
                        sat,
                    },
                    (None, None) => Conv::FF {
                        src: sf,
                        dst: df,
                        rnd: FRnd::Rn,
                        sat,
                    },
                    _ => return invalid("same-type float cvt takes only integer rounding"),
                }
            } else {
                // Narrowing: the destination cannot hold every source value.
                let narrowing = df.bits() < sf.bits()
                    || matches!((sf, df), (Fmt::F16, Fmt::Bf16) | (Fmt::Bf16, Fmt::F16));
                let r = match (narrowing, fr, rnd) {
                    (true, Some(r), _) => r,
                    (true, None, _) => return invalid("narrowing float cvt needs .rn/.rz/.rm/.rp"),
                    (false, _, None) => FRnd::Rn,
                    (false, _, Some(_)) => {
                        return invalid("widening float cvt takes no rounding modifier");
                    }
                };
                Conv::FF {
                    src: sf,
                    dst: df,
                    rnd: r,
                    sat,
                }
            }
        } else if let (Ty::F16x2, Some(sf)) = (dt, fp8(st)) {
            if rnd != Some(Rnd::Rn) || sat {
                return invalid(format!("cvt.f16x2.{st} is written cvt.rn.f16x2.{st}"));
            }
            Conv::Fp8x2ToH2 { src: sf }
        } else if let (Some(df), Ty::F16x2) = (fp8(dt), st) {
            // .satfinite is mandatory for FP8 destinations; `sat` stands for it here.
            if rnd != Some(Rnd::Rn) {
                return invalid(format!(
                    "cvt.{dt}.f16x2 is written cvt.rn.satfinite.{dt}.f16x2"
                ));
            }
            Conv::H2ToFp8x2 { dst: df }
        } else {
            return unsupported(format!("cvt.{dt}.{st}"));
        };
        // Sources and destinations may be wider registers, except bf16 and packed types.
        let packed = |t: Ty| {
            matches!(
                t,
                Ty::Bf16 | Ty::F16x2 | Ty::Bf16x2 | Ty::E4m3x2 | Ty::E5m2x2
            )
        };
        let s = self.src_relaxed(src, ctx_of(st), !packed(st))?;
        let d = self.reg(dst, ctx_of(dt), !packed(dt))?;
        Ok(Kind::Cvt {
            conv,
            dst: d,
            src: s,
            wbits: dst.class.bits(),
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn mma(
        &self,
        shape: MmaShape,
        d_ty: MmaType,
        a_ty: MmaType,
        b_ty: MmaType,
        c_ty: MmaType,
        d: &[Reg],
        a: &[Reg],
        b: &[Reg],
        c: &[Reg],
    ) -> R<MmaOp> {
        use MmaShape::*;
        use MmaType::*;
        let (m, n, k) = shape.mnk();
        let ab_bits = |t: MmaType| match t {
            F16 | Bf16 => 16,
            S8 | U8 | E4m3 | E5m2 => 8,
            S4 | U4 => 4,
            _ => 0,
        };
        let shapes_ok = match a_ty {
            F16 | Bf16 => matches!(shape, M16N8K8 | M16N8K16),
            S8 | U8 => matches!(shape, M8N8K16 | M16N8K16 | M16N8K32),
            S4 | U4 => matches!(shape, M8N8K32 | M16N8K32 | M16N8K64),
            E4m3 | E5m2 => shape == M16N8K32,
            _ => false,
        };
        if !shapes_ok {
            return invalid(format!("mma {shape:?} with .{} A operands", a_ty.ptx()));
        }
        let family = |t: MmaType| match t {
            F16 | Bf16 => 0,
            S8 | U8 => 1,
            S4 | U4 => 2,
            E4m3 | E5m2 => 3,
            _ => 9,
        };
        if family(a_ty) != family(b_ty) || (matches!(a_ty, F16 | Bf16) && a_ty != b_ty) {
            return invalid(format!("mma with .{} A and .{} B", a_ty.ptx(), b_ty.ptx()));
        }
        let accum_ok = |t: MmaType| match a_ty {
            F16 => matches!(t, F16 | F32),
            Bf16 => t == F32,
            S8 | U8 | S4 | U4 => t == S32,
            E4m3 | E5m2 => matches!(t, F16 | F32),
            _ => false,
        };
        if !accum_ok(c_ty) || !accum_ok(d_ty) {
            return invalid(format!(
                "mma .{}.{} accumulators with .{} operands",
                d_ty.ptx(),
                c_ty.ptx(),
                a_ty.ptx()
            ));
        }
        if matches!(a_ty, E4m3 | E5m2) && c_ty != d_ty {
            return invalid("FP8 mma needs the same C and D types");
        }
        let bits = ab_bits(a_ty);
        let na = (m * k * bits / 1024) as usize;
        let nb = (k * n * bits / 1024) as usize;
        let ncd = |t: MmaType| {
            if t == F16 {
                (m * n / 64) as usize
            } else {
                (m * n / 32) as usize
            }
        };
        let check = |what: &str, regs: &[Reg], want: usize, ctx: Ctx| -> R<Vec<u32>> {
            if regs.len() != want {
                return invalid(format!(
                    "mma {shape:?}: {what} needs {want} registers, got {}",
                    regs.len()
                ));
            }
            regs.iter().map(|r| self.reg(*r, ctx, false)).collect()
        };
        let cd_ctx = |t: MmaType| match t {
            F32 => Ctx::F32,
            S32 => Ctx::Int(32),
            _ => Ctx::Bits(32),
        };
        Ok(MmaOp {
            m,
            n,
            k,
            a_ty,
            b_ty,
            c_ty,
            d_ty,
            a: check("A", a, na, Ctx::Bits(32))?,
            b: check("B", b, nb, Ctx::Bits(32))?,
            c: check("C", c, ncd(c_ty), cd_ctx(c_ty))?,
            d: check("D", d, ncd(d_ty), cd_ctx(d_ty))?,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn atom(
        &self,
        space: Space,
        op: AtomOp,
        ty: Ty,
        dst: Option<Reg>,
        addr: &crate::ir::Addr,
        b: &Operand,
        c: Option<&Operand>,
    ) -> R<Kind> {
        let bits = ty.bits();
        if !matches!(bits, 32 | 64) {
            return unsupported(format!("atom/red on .{ty}"));
        }
        let kind = match (op, ty) {
            (AtomOp::Add, Ty::U32 | Ty::S32 | Ty::U64) => AtomKind::AddInt,
            (AtomOp::Add, Ty::F32) => AtomKind::AddF32,
            (AtomOp::Add, Ty::F64) => AtomKind::AddF64,
            (AtomOp::Min, Ty::U32 | Ty::U64) => AtomKind::MinU,
            (AtomOp::Min, Ty::S32 | Ty::S64) => AtomKind::MinS,
            (AtomOp::Max, Ty::U32 | Ty::U64) => AtomKind::MaxU,
            (AtomOp::Max, Ty::S32 | Ty::S64) => AtomKind::MaxS,
            (AtomOp::And, t) if int_like(t) => AtomKind::And,
            (AtomOp::Or, t) if int_like(t) => AtomKind::Or,
            (AtomOp::Xor, t) if int_like(t) => AtomKind::Xor,
            (AtomOp::Exch, _) => AtomKind::Exch,
            (AtomOp::Cas, t) if int_like(t) => AtomKind::Cas,
            _ => return unsupported(format!("atom/red .{op:?}.{ty}")),
        };
        let ctx = ctx_of(ty);
        let c = match (op, c) {
            (AtomOp::Cas, Some(c)) => self.src(c, ctx)?,
            (AtomOp::Cas, None) => return invalid("atom.cas needs the new value c"),
            (_, Some(_)) => return invalid("only atom.cas takes a third operand"),
            (_, None) => Src::I(0),
        };
        Ok(Kind::Atom {
            space,
            kind,
            size: (bits / 8) as u8,
            dst: dst.map(|d| self.dst(d, ctx)).transpose()?,
            base: self.addr_base(&addr.base, space)?,
            off: addr.offset,
            b: self.src(b, ctx)?,
            c,
        })
    }
}
