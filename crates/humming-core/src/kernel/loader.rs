//! Global -> shared loaders of one pipeline stage: cp.async with zero-fill (sm_80+) or plain
//! vector loads and shared stores (sm_75). Both copy 16-byte chunks: chunk `i` of a stage goes to
//! a fixed shared offset; `valid` chunks read global memory, the others become zeros.

use super::emit::Emit;
use crate::ir::builder::KernelBuilder;
use crate::ir::{Addr, Operand, Reg, Space, Ty};

/// Copies 16-byte chunks global -> shared.
pub trait G2sLoader {
    /// Copies one chunk from `src` (64-bit global address) to `dst` (32-bit shared address);
    /// when `valid` is false the destination is zero-filled and `src` is not read. `policy`: an
    /// L2 cache policy for the read (a hint; loaders without one ignore it).
    fn chunk(&self, b: &mut KernelBuilder, dst: Reg, src: Reg, valid: Reg, policy: Option<Reg>);
    /// Copies one whole chunk from `src` to `dst + dst_off` (no zero-fill; `src` must be valid).
    fn chunk_full(&self, b: &mut KernelBuilder, dst: Reg, dst_off: i64, src: Reg, policy: Option<Reg>);
    /// Ends the copies of one stage (commit a group).
    fn end_stage(&self, b: &mut KernelBuilder);
    /// Waits until at most `pending` stages are still in flight (then the caller syncs the CTA).
    fn wait(&self, b: &mut KernelBuilder, pending: u32);
}

/// `cp.async.cg` 16-byte copies with `src-size` zero-fill (and an optional L2 cache hint), one
/// commit group per stage.
#[derive(Debug)]
pub struct CpAsyncLoader;

impl G2sLoader for CpAsyncLoader {
    fn chunk(&self, b: &mut KernelBuilder, dst: Reg, src: Reg, valid: Reg, policy: Option<Reg>) {
        let size = b.selp(Ty::U32, 16u32, 0u32, valid);
        match policy {
            Some(p) => b.cp_async_hint(crate::ir::CpAsyncCache::Cg, 16, Addr::reg(dst), Addr::reg(src), Some(Operand::Reg(size)), p),
            None => b.cp_async(crate::ir::CpAsyncCache::Cg, 16, Addr::reg(dst), Addr::reg(src), Some(Operand::Reg(size))),
        }
    }
    fn chunk_full(&self, b: &mut KernelBuilder, dst: Reg, dst_off: i64, src: Reg, policy: Option<Reg>) {
        let d = Addr::reg_off(dst, dst_off);
        match policy {
            Some(p) => b.cp_async_hint(crate::ir::CpAsyncCache::Cg, 16, d, Addr::reg(src), None, p),
            None => b.cp_async(crate::ir::CpAsyncCache::Cg, 16, d, Addr::reg(src), None),
        }
    }
    fn end_stage(&self, b: &mut KernelBuilder) {
        b.emit(crate::ir::Inst::CpAsyncCommit);
    }
    fn wait(&self, b: &mut KernelBuilder, pending: u32) {
        b.emit(crate::ir::Inst::CpAsyncWait { n: pending });
    }
}

/// Plain `ld.global.v4` + `st.shared.v4` (no cp.async before sm_80); synchronous.
#[derive(Debug)]
pub struct PlainLoader;

impl G2sLoader for PlainLoader {
    fn chunk(&self, b: &mut KernelBuilder, dst: Reg, src: Reg, valid: Reg, _policy: Option<Reg>) {
        let words: Vec<Reg> = (0..4).map(|_| b.mov_as(crate::ir::RegClass::B32, 0u32)).collect();
        b.guarded(valid, false, |b| {
            b.emit(crate::ir::Inst::Ld {
                space: Space::Global,
                cache: crate::ir::CacheOp::Cg,
                ty: Ty::B32,
                dst: words.clone(),
                addr: Addr::reg(src),
            });
        });
        b.st_vec(Space::Shared, Ty::B32, Addr::reg(dst), &words);
    }
    fn chunk_full(&self, b: &mut KernelBuilder, dst: Reg, dst_off: i64, src: Reg, _policy: Option<Reg>) {
        let words = b.ld_vec(Space::Global, Ty::B32, 4, Addr::reg(src));
        b.st_vec(Space::Shared, Ty::B32, Addr::reg_off(dst, dst_off), &words);
    }
    fn end_stage(&self, _b: &mut KernelBuilder) {}
    fn wait(&self, _b: &mut KernelBuilder, _pending: u32) {}
}
