//! Shared-memory addressing of a stage: where activation chunks go, and word loads.

use crate::ir::builder::KernelBuilder;
use crate::ir::{Addr, Reg, Space, Ty};
use crate::kernel::emit::Emit;

/// Row and 16-byte chunk column of activation chunk `i` of a stage (`cpr` chunks per row),
/// row-major: consecutive threads copy consecutive chunks of a row (whole sectors from global
/// memory).
pub(super) fn a_chunk_of(b: &mut KernelBuilder, i: Reg, cpr: u32) -> (Reg, Reg) {
    let lg = cpr.trailing_zeros();
    (b.shr32(i, lg), b.and32(i, cpr - 1))
}

/// Byte offset of activation chunk (`row`, `c`) in a stage's A tile (`bm` rows of `bk` halves):
/// the rows with their chunks XOR-swizzled by `row % 8` (ldmatrix reads without bank
/// conflicts), or for wgmma's B operand the K-major 128-byte-swizzled layout: the tile cut
/// into 64-half (128-byte) column slices of `bm` rows each, chunk `c % 8` of a row stored at
/// `(c % 8) ^ (row % 8)` (a 1 KB-aligned slice, so the XOR equals the one wgmma applies to the
/// address bits).
pub(super) fn a_chunk_offset(b: &mut KernelBuilder, row: Reg, c: Reg, bm: u32, bk: u32, wgmma: bool) -> Reg {
    let r8 = b.and32(row, 7u32);
    if wgmma {
        let slice = b.shr32(c, 3);
        let c8 = b.and32(c, 7u32);
        let sw = b.xor(c8, r8);
        let sw = b.shl32(sw, 4);
        let o = b.mad_u32(row, 128u32, sw);
        b.mad_u32(slice, bm * 128, o)
    } else {
        let sw = b.xor(c, r8);
        let sw = b.shl32(sw, 4);
        b.mad_u32(row, bk * 2, sw)
    }
}

pub(super) fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// `n` consecutive 32-bit words at shared address `addr`, a multiple of `align` bytes, in the
/// widest aligned vectors.
pub(super) fn load_words(b: &mut KernelBuilder, addr: Reg, n: u32, align: u32) -> Vec<Reg> {
    let vec = gcd(gcd(4 * n, align), 16) / 4;
    let mut words = Vec::new();
    for v in 0..n / vec {
        words.extend(b.ld_vec(Space::Shared, Ty::B32, vec as usize, Addr::reg_off(addr, (v * vec * 4) as i64)));
    }
    words
}
