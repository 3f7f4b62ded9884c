//! [`KernelBuilder`]: builds a [`Kernel`] so that the Rust reads like the PTX it emits.
//!
//! ```
//! use humming_core::ir::{builder::KernelBuilder, ParamTy, SpecialReg, Ty};
//! let mut b = KernelBuilder::new("copy", 128);
//! let src = b.param("src", ParamTy::Ptr);
//! let tid = b.special(SpecialReg::TidX);
//! let off = b.mul_wide_u32(tid, 4);
//! let addr = b.add(Ty::U64, src, off);
//! # let _ = addr;
//! let k = b.finish();
//! assert_eq!(k.params.len(), 1);
//! ```

use super::inst::{BinOp, CpAsyncCache, Inst, MmaShape, MmaType, ShflMode};
use super::kernel::{Guard, Kernel, Param, ParamTy, SharedDecl, Stmt};
use super::types::{Addr, CacheOp, Cmp, Operand, Reg, RegClass, Rnd, SharedId, Space, SpecialReg, Ty};

/// Builds a kernel: allocates registers, declares parameters and shared memory, and appends
/// statements to the current block (nested blocks for loops and branches).
#[derive(Debug)]
pub struct KernelBuilder {
    name: String,
    params: Vec<Param>,
    regs: Vec<RegClass>,
    shared: Vec<SharedDecl>,
    dynamic_shared: Option<u32>,
    block_threads: u32,
    min_ctas_per_sm: Option<u32>,
    max_regs: Option<u32>,
    /// Stack of open blocks; the last is where statements go.
    blocks: Vec<Vec<Stmt>>,
    guard: Option<Guard>,
}

/// Register class that holds a value of type `ty`.
pub fn class_of(ty: Ty) -> RegClass {
    match ty {
        Ty::Pred => RegClass::Pred,
        Ty::F32 => RegClass::F32,
        Ty::F64 => RegClass::F64,
        _ => match ty.bits() {
            8 | 16 => RegClass::B16,
            32 => RegClass::B32,
            _ => RegClass::B64,
        },
    }
}

impl KernelBuilder {
    /// A new kernel named `name` for CTAs of `block_threads` threads (x only).
    pub fn new(name: &str, block_threads: u32) -> Self {
        KernelBuilder {
            name: name.to_string(),
            params: Vec::new(),
            regs: Vec::new(),
            shared: Vec::new(),
            dynamic_shared: None,
            block_threads,
            min_ctas_per_sm: None,
            max_regs: None,
            blocks: vec![Vec::new()],
            guard: None,
        }
    }

    /// Sets `.minnctapersm` (see [`Kernel::min_ctas_per_sm`]).
    pub fn set_min_ctas_per_sm(&mut self, n: u32) {
        self.min_ctas_per_sm = Some(n);
    }

    /// Sets `.maxnreg` (see [`Kernel::max_regs`]).
    pub fn set_max_regs(&mut self, n: u32) {
        self.max_regs = Some(n);
    }

    /// A fresh register of class `class`.
    pub fn reg(&mut self, class: RegClass) -> Reg {
        let id = self.regs.len() as u32;
        self.regs.push(class);
        Reg { id, class }
    }

    /// A fresh register able to hold type `ty`.
    pub fn reg_for(&mut self, ty: Ty) -> Reg {
        self.reg(class_of(ty))
    }

    /// Declares parameter `name` and loads it into a register.
    pub fn param(&mut self, name: &str, ty: ParamTy) -> Reg {
        let idx = self.params.len() as u32;
        self.params.push(Param { name: name.to_string(), ty });
        let lty = match ty {
            ParamTy::U32 => Ty::U32,
            ParamTy::S32 => Ty::S32,
            ParamTy::F32 => Ty::F32,
            ParamTy::U64 | ParamTy::Ptr => Ty::U64,
        };
        let dst = self.reg_for(lty);
        self.emit(Inst::LdParam { ty: lty, dst, param: idx });
        dst
    }

    /// Declares a static shared array of `bytes` bytes aligned to `align`.
    pub fn shared(&mut self, name: &str, bytes: u32, align: u32) -> SharedId {
        assert!(self.dynamic_shared.is_none(), "declare static shared arrays before the dynamic one");
        self.shared.push(SharedDecl { name: name.to_string(), bytes, align });
        SharedId(self.shared.len() as u32 - 1)
    }

    /// Declares the dynamic (extern) shared array; its size is given at launch.
    pub fn dynamic_shared(&mut self, align: u32) -> SharedId {
        self.dynamic_shared = Some(align);
        SharedId(self.shared.len() as u32)
    }

    /// Reads a special register into a fresh `.b32` register.
    pub fn special(&mut self, sreg: SpecialReg) -> Reg {
        let dst = self.reg(RegClass::B32);
        self.emit(Inst::ReadSpecial { dst, sreg });
        dst
    }

    /// Appends an instruction to the current block (under the current guard, if any).
    pub fn emit(&mut self, inst: Inst) {
        let guard = self.guard;
        self.blocks.last_mut().expect("open block").push(Stmt::Inst { guard, inst });
    }

    /// Emits the instructions built by `f` guarded by `@p` (or `@!p` when `negate`).
    pub fn guarded(&mut self, pred: Reg, negate: bool, f: impl FnOnce(&mut Self)) {
        assert_eq!(pred.class, RegClass::Pred, "guard must be a predicate");
        let saved = self.guard.replace(Guard { pred, negate });
        f(self);
        self.guard = saved;
    }

    fn block(&mut self, f: impl FnOnce(&mut Self)) -> Vec<Stmt> {
        assert!(self.guard.is_none(), "structured control flow cannot be guarded");
        self.blocks.push(Vec::new());
        f(self);
        self.blocks.pop().expect("block")
    }

    /// `for i in start..end (step)`: `f` receives the counter register (`.b32`, unsigned compare).
    pub fn for_range(
        &mut self,
        start: impl Into<Operand>,
        end: impl Into<Operand>,
        step: i64,
        f: impl FnOnce(&mut Self, Reg),
    ) {
        let counter = self.reg(RegClass::B32);
        let (start, end) = (start.into(), end.into());
        let body = self.block(|b| f(b, counter));
        self.blocks.last_mut().expect("open block").push(Stmt::Loop { counter, start, end, step, signed: false, body });
    }

    /// `if cond { then } else { els }` with a warp-uniform `cond`.
    pub fn if_else(&mut self, cond: Reg, then: impl FnOnce(&mut Self), els: impl FnOnce(&mut Self)) {
        let then = self.block(then);
        let els = self.block(els);
        self.blocks.last_mut().expect("open block").push(Stmt::If { cond, negate: false, then, els });
    }

    /// `if cond { then }` with a warp-uniform `cond`.
    pub fn if_then(&mut self, cond: Reg, then: impl FnOnce(&mut Self)) {
        self.if_else(cond, then, |_| {});
    }

    /// `ret` (uniform).
    pub fn ret(&mut self) {
        self.blocks.last_mut().expect("open block").push(Stmt::Return);
    }

    /// `op.ty d, a, b` into a fresh register.
    pub fn bin(&mut self, op: BinOp, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let dst_ty = if op == BinOp::MulWide { widen(ty) } else { ty };
        let dst = self.reg_for(dst_ty);
        self.emit(Inst::Bin { op, ty, dst, a: a.into(), b: b.into() });
        dst
    }

    /// `add.ty`.
    pub fn add(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.bin(BinOp::Add, ty, a, b)
    }

    /// `mul.lo.ty` / `mul.ty`.
    pub fn mul(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.bin(BinOp::Mul, ty, a, b)
    }

    /// `mul.wide.u32` (u32 x u32 -> u64), the usual index-to-byte-offset step.
    pub fn mul_wide_u32(&mut self, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.bin(BinOp::MulWide, Ty::U32, a, b)
    }

    /// `mov.ty d, a` into a fresh register.
    pub fn mov(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        let dst = self.reg_for(ty);
        self.emit(Inst::Mov { ty, dst, src: a.into() });
        dst
    }

    /// `mov.ty dst, a` into an existing register.
    pub fn mov_to(&mut self, ty: Ty, dst: Reg, a: impl Into<Operand>) {
        self.emit(Inst::Mov {
            ty,
            dst,
            src: a.into(),
        });
    }

    /// `op.ty dst, a, b` into an existing register (accumulators, loop-carried values).
    pub fn bin_to(
        &mut self,
        op: BinOp,
        ty: Ty,
        dst: Reg,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) {
        self.emit(Inst::Bin {
            op,
            ty,
            dst,
            a: a.into(),
            b: b.into(),
        });
    }

    /// `sub.ty`.
    pub fn sub(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.bin(BinOp::Sub, ty, a, b)
    }

    /// `and.b`.
    pub fn and(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.bin(BinOp::And, ty, a, b)
    }

    /// `shl.b` by a `u32` amount.
    pub fn shl(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.bin(BinOp::Shl, ty, a, b)
    }

    /// `shr.ty` by a `u32` amount (arithmetic for signed `ty`).
    pub fn shr(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.bin(BinOp::Shr, ty, a, b)
    }

    /// `mad.lo.ty d, a, b, c` (integers).
    pub fn mad(
        &mut self,
        ty: Ty,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
    ) -> Reg {
        let dst = self.reg_for(ty);
        self.emit(Inst::Mad {
            ty,
            wide: false,
            dst,
            a: a.into(),
            b: b.into(),
            c: c.into(),
        });
        dst
    }

    /// `setp.cmp.ty p, a, b` into a fresh predicate.
    pub fn setp(&mut self, cmp: Cmp, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let dst = self.reg(RegClass::Pred);
        self.emit(Inst::Setp {
            cmp,
            ty,
            dst,
            a: a.into(),
            b: b.into(),
        });
        dst
    }

    /// `selp.ty d, a, b, p` (`d = p ? a : b`).
    pub fn selp(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>, pred: Reg) -> Reg {
        let dst = self.reg_for(ty);
        self.emit(Inst::Selp {
            ty,
            dst,
            a: a.into(),
            b: b.into(),
            pred,
        });
        dst
    }

    /// `cvt{.rnd}.dst_ty.src_ty` into a fresh register.
    pub fn cvt(
        &mut self,
        dst_ty: Ty,
        src_ty: Ty,
        rnd: Option<Rnd>,
        src: impl Into<Operand>,
    ) -> Reg {
        let dst = self.reg_for(dst_ty);
        self.emit(Inst::Cvt {
            dst_ty,
            src_ty,
            rnd,
            sat: false,
            dst,
            src: src.into(),
        });
        dst
    }

    /// `base + index * elem_bytes` as a 64-bit global address (`mul.wide.u32`, `add.u64`).
    pub fn index_addr(&mut self, base: Reg, index: impl Into<Operand>, elem_bytes: u32) -> Reg {
        let off = self.mul_wide_u32(index, elem_bytes);
        self.add(Ty::U64, base, off)
    }

    /// The 32-bit shared-window address of a shared array (`mov.u32 %r, name`).
    pub fn shared_addr(&mut self, id: SharedId) -> Reg {
        self.mov(Ty::U32, Operand::SharedAddr(id))
    }

    /// `ld.space.ty d, [addr]` into a fresh register.
    pub fn ld(&mut self, space: Space, ty: Ty, addr: impl Into<Addr>) -> Reg {
        self.ld_vec(space, ty, 1, addr).remove(0)
    }

    /// `ld.space.vN.ty {d..}, [addr]` into `n` (1, 2, 4) fresh registers.
    pub fn ld_vec(&mut self, space: Space, ty: Ty, n: usize, addr: impl Into<Addr>) -> Vec<Reg> {
        let dst: Vec<Reg> = (0..n).map(|_| self.reg_for(ty)).collect();
        self.emit(Inst::Ld {
            space,
            cache: CacheOp::Default,
            ty,
            dst: dst.clone(),
            addr: addr.into(),
        });
        dst
    }

    /// `ld.space.ty d, [addr]` into an existing register.
    pub fn ld_to(&mut self, space: Space, ty: Ty, dst: Reg, addr: impl Into<Addr>) {
        self.emit(Inst::Ld {
            space,
            cache: CacheOp::Default,
            ty,
            dst: vec![dst],
            addr: addr.into(),
        });
    }

    /// `st.space.ty [addr], a`.
    pub fn st(&mut self, space: Space, ty: Ty, addr: impl Into<Addr>, a: impl Into<Operand>) {
        self.emit(Inst::St {
            space,
            cache: CacheOp::Default,
            ty,
            src: vec![a.into()],
            addr: addr.into(),
        });
    }

    /// `st.space.vN.ty [addr], {a..}`.
    pub fn st_vec(&mut self, space: Space, ty: Ty, addr: impl Into<Addr>, src: &[Reg]) {
        let src = src.iter().map(|&r| Operand::Reg(r)).collect();
        self.emit(Inst::St {
            space,
            cache: CacheOp::Default,
            ty,
            src,
            addr: addr.into(),
        });
    }

    /// `bar.sync id` for the whole CTA.
    pub fn bar_sync(&mut self, id: u32) {
        self.emit(Inst::BarSync { id, threads: None, aligned: true });
    }

    /// `shfl.sync.mode.b32 d, a, b, c, mask` into a fresh register of `a`'s class (`.b32` for
    /// immediates).
    pub fn shfl(
        &mut self,
        mode: ShflMode,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
        mask: u32,
    ) -> Reg {
        let a = a.into();
        let class = match a {
            Operand::Reg(r) => r.class,
            _ => RegClass::B32,
        };
        let dst = self.reg(class);
        self.emit(Inst::Shfl {
            mode,
            dst,
            a,
            b: b.into(),
            c: c.into(),
            mask,
        });
        dst
    }

    /// `cp.async.{ca|cg}.shared.global [dst], [src], bytes{, src_size}`.
    pub fn cp_async(
        &mut self,
        cache: CpAsyncCache,
        bytes: u32,
        dst: impl Into<Addr>,
        src: impl Into<Addr>,
        src_size: Option<Operand>,
    ) {
        self.emit(Inst::CpAsync {
            cache,
            bytes,
            dst: dst.into(),
            src: src.into(),
            src_size,
            policy: None,
        });
    }

    /// `cp.async...L2::cache_hint` with an L2 cache `policy` from [`KernelBuilder::create_policy`].
    pub fn cp_async_hint(
        &mut self,
        cache: CpAsyncCache,
        bytes: u32,
        dst: impl Into<Addr>,
        src: impl Into<Addr>,
        src_size: Option<Operand>,
        policy: Reg,
    ) {
        self.emit(Inst::CpAsync {
            cache,
            bytes,
            dst: dst.into(),
            src: src.into(),
            src_size,
            policy: Some(policy),
        });
    }

    /// `createpolicy.fractional.L2::{evict}.b64 d, fraction`: a fresh `.b64` policy register.
    pub fn create_policy(&mut self, evict: crate::ir::L2Evict, fraction: f32) -> Reg {
        let dst = self.reg(RegClass::B64);
        self.emit(Inst::CreatePolicy { dst, evict, fraction });
        dst
    }

    /// `mov.b32 d, {lo, hi}`: a fresh `.b32` register holding two 16-bit values.
    pub fn pack_b16(&mut self, lo: Reg, hi: Reg) -> Reg {
        let dst = self.reg(RegClass::B32);
        self.emit(Inst::MovPack { dst, lo, hi });
        dst
    }

    /// `mov.b32 {lo, hi}, a`: the halves of `a` as two fresh `.b16` registers.
    pub fn unpack_b16(&mut self, src: Reg) -> (Reg, Reg) {
        let lo = self.reg(RegClass::B16);
        let hi = self.reg(RegClass::B16);
        self.emit(Inst::MovUnpack { lo, hi, src });
        (lo, hi)
    }

    /// `mbarrier.init.shared::cta.b64 [addr], count`.
    pub fn mbarrier_init(&mut self, addr: impl Into<Addr>, count: u32) {
        self.emit(Inst::MbarrierInit { addr: addr.into(), count });
    }

    /// `mbarrier.arrive.expect_tx.shared::cta.b64 _, [addr], bytes`.
    pub fn mbarrier_arrive_expect_tx(&mut self, addr: impl Into<Addr>, bytes: impl Into<Operand>) {
        self.emit(Inst::MbarrierArriveExpectTx { addr: addr.into(), bytes: bytes.into() });
    }

    /// One arrival on the mbarrier at `addr` ([`Inst::MbarrierArrive`]).
    pub fn mbarrier_arrive(&mut self, addr: impl Into<Addr>) {
        self.emit(Inst::MbarrierArrive { addr: addr.into() });
    }

    /// One arrival on the mbarrier at `addr` when this thread's earlier `cp.async`s have landed
    /// ([`Inst::CpAsyncMbarrierArrive`]).
    pub fn cp_async_mbarrier_arrive(&mut self, addr: impl Into<Addr>) {
        self.emit(Inst::CpAsyncMbarrierArrive { addr: addr.into() });
    }

    /// Waits for the phase of parity `parity` of the mbarrier at `addr` ([`Inst::MbarrierWait`]).
    pub fn mbarrier_wait(&mut self, addr: impl Into<Addr>, parity: impl Into<Operand>) {
        self.emit(Inst::MbarrierWait { addr: addr.into(), parity: parity.into() });
    }

    /// `cp.async.bulk` of `bytes` from global `src` to shared `dst`, completing on `mbar`.
    pub fn cp_async_bulk(&mut self, dst: impl Into<Addr>, src: impl Into<Addr>, bytes: impl Into<Operand>, mbar: impl Into<Addr>) {
        self.emit(Inst::CpAsyncBulk { dst: dst.into(), src: src.into(), bytes: bytes.into(), mbar: mbar.into(), policy: None });
    }

    /// [`KernelBuilder::cp_async_bulk`] with an L2 cache policy (`.L2::cache_hint`).
    pub fn cp_async_bulk_hint(&mut self, dst: impl Into<Addr>, src: impl Into<Addr>, bytes: impl Into<Operand>, mbar: impl Into<Addr>, policy: Reg) {
        self.emit(Inst::CpAsyncBulk { dst: dst.into(), src: src.into(), bytes: bytes.into(), mbar: mbar.into(), policy: Some(policy) });
    }

    /// `elect.sync`: a predicate true in one lane of the (fully active) warp.
    pub fn elect_sync(&mut self) -> Reg {
        let dst = self.reg(RegClass::Pred);
        self.emit(Inst::ElectSync { dst });
        dst
    }

    /// `cp.async.commit_group`.
    pub fn cp_async_commit(&mut self) {
        self.emit(Inst::CpAsyncCommit);
    }

    /// `cp.async.wait_group n`.
    pub fn cp_async_wait(&mut self, n: u32) {
        self.emit(Inst::CpAsyncWait { n });
    }

    /// A no-swizzle `wgmma` shared-memory matrix descriptor (`.b64`) for the shared-window
    /// address in `start` (`.b32`), leading byte offset `lbo` and stride byte offset `sbo`: each
    /// encoded as `(x & 0x3FFFF) >> 4`, in bits 0..14, 16..30 and 32..46.
    pub fn wgmma_desc(&mut self, start: Reg, lbo: u32, sbo: u32) -> Reg {
        let lo = self.wgmma_desc_lo(start, lbo);
        self.wgmma_desc_hi(lo, sbo, 0)
    }

    /// A 128-byte-swizzle `wgmma` descriptor (layout type 1 in bits 62..64) of a K-major operand
    /// whose 8-row groups are `sbo` bytes apart; the leading byte offset is unused (16). The
    /// operand must lie in a 1 KB-aligned swizzle atom; `start` may point 32-byte k16 steps into it.
    pub fn wgmma_desc_sw128(&mut self, start: Reg, sbo: u32) -> Reg {
        let lo = self.wgmma_desc_sw128_lo(start);
        self.wgmma_desc_sw128_at(lo, 0, sbo)
    }

    /// The low word of [`KernelBuilder::wgmma_desc_sw128`]'s descriptor (start address and
    /// leading byte offset), for descriptors of several operands at fixed offsets from one base
    /// ([`KernelBuilder::wgmma_desc_sw128_at`]): computed once, each descriptor then costs one add.
    pub fn wgmma_desc_sw128_lo(&mut self, start: Reg) -> Reg {
        self.wgmma_desc_lo(start, 16)
    }

    /// The 128-byte-swizzle descriptor of the operand `bytes` (a multiple of 16) past the base
    /// whose low word `lo` came from [`KernelBuilder::wgmma_desc_sw128_lo`]: the start field
    /// plus `bytes / 16`. Equal to `wgmma_desc_sw128(base + bytes, sbo)` while the operand stays
    /// in the shared window's first 256 KB (the 14-bit start field does not carry), as every
    /// shared window does.
    pub fn wgmma_desc_sw128_at(&mut self, lo: Reg, bytes: u32, sbo: u32) -> Reg {
        assert!(bytes % 16 == 0 && bytes < 1 << 18, "descriptor offsets are multiples of 16 inside the shared window");
        let lo = if bytes == 0 { lo } else { self.bin(BinOp::Add, Ty::U32, lo, bytes >> 4) };
        self.wgmma_desc_hi(lo, sbo, 1)
    }

    fn wgmma_desc_lo(&mut self, start: Reg, lbo: u32) -> Reg {
        let s = self.shr(Ty::U32, start, 4u32);
        let s = self.and(Ty::U32, s, 0x3fffu32);
        self.bin(BinOp::Or, Ty::B32, s, desc_field(lbo) << 16)
    }

    fn wgmma_desc_hi(&mut self, lo: Reg, sbo: u32, mode: u64) -> Reg {
        let lo = self.cvt(Ty::U64, Ty::U32, None, lo);
        self.bin(BinOp::Or, Ty::B64, lo, Operand::Imm(((desc_field(sbo) as u64) << 32 | mode << 62) as i64))
    }

    /// `ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16` into `n` (1, 2, 4) fresh `.b32` registers.
    pub fn ldmatrix(&mut self, n: usize, trans: bool, addr: impl Into<Addr>) -> Vec<Reg> {
        let dst: Vec<Reg> = (0..n).map(|_| self.reg(RegClass::B32)).collect();
        self.emit(Inst::Ldmatrix {
            trans,
            dst: dst.clone(),
            addr: addr.into(),
        });
        dst
    }

    /// `mma.sync.aligned.shape.row.col.{c_ty}.{a_ty}.{b_ty}.{c_ty}` with fresh D registers
    /// (as many as C; `.f32` registers for f32 accumulators, `.b32` otherwise).
    #[allow(clippy::too_many_arguments)]
    pub fn mma(
        &mut self,
        shape: MmaShape,
        a_ty: MmaType,
        b_ty: MmaType,
        c_ty: MmaType,
        a: &[Reg],
        b: &[Reg],
        c: &[Reg],
    ) -> Vec<Reg> {
        let class = if c_ty == MmaType::F32 {
            RegClass::F32
        } else {
            RegClass::B32
        };
        let d: Vec<Reg> = (0..c.len()).map(|_| self.reg(class)).collect();
        self.emit(Inst::Mma {
            shape,
            d_ty: c_ty,
            a_ty,
            b_ty,
            c_ty,
            d: d.clone(),
            a: a.to_vec(),
            b: b.to_vec(),
            c: c.to_vec(),
        });
        d
    }

    /// The finished kernel.
    pub fn finish(mut self) -> Kernel {
        assert_eq!(self.blocks.len(), 1, "unclosed block");
        Kernel {
            name: self.name,
            params: self.params,
            regs: self.regs,
            shared: self.shared,
            dynamic_shared: self.dynamic_shared,
            block_threads: self.block_threads,
            min_ctas_per_sm: self.min_ctas_per_sm,
            max_regs: self.max_regs,
            body: self.blocks.pop().expect("body"),
        }
    }
}

/// The result type of `mul.wide` on `ty`.
fn widen(ty: Ty) -> Ty {
    match ty {
        Ty::U16 => Ty::U32,
        Ty::S16 => Ty::S32,
        Ty::U32 => Ty::U64,
        Ty::S32 => Ty::S64,
        other => other,
    }
}

/// `[reg]`, so that builder methods take a bare address register.
impl From<Reg> for Addr {
    fn from(r: Reg) -> Self {
        Addr::reg(r)
    }
}

/// A byte count in a `wgmma` descriptor's 14-bit fields: `(x & 0x3FFFF) >> 4`.
fn desc_field(x: u32) -> u32 {
    (x & 0x3ffff) >> 4
}
