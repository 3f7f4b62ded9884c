//! The words of a wgmma warp's m16 tile, for any weight width.
//!
//! In a wgmma plan warp `w4` of a warpgroup dequantizes m16 tile `w4` of the n64 block: pairs
//! `4 w4 .. 4 w4 + 4` of each lane's block ([`crate::pack::fragment`]), stream bits `s = 4 bits
//! w4 ..` of the lane's words. For 4- and 8-bit weights they are whole words at byte `w4 *
//! bits`. Other widths start at bit `o = s % 16` of word `s / 16`, which differs between the
//! warps of the warpgroup (a runtime value), so the warp rebuilds a *window*: its `4 bits` stream
//! bits from bit 0 of each half of `ceil(bits / 4)` words, with the same shift and `lop3` per
//! word that joins a straddling field ([`super::super::dequant`]), here by `o` held in a register.
//! The window is then a stream whose pairs `0..4` are the tile's, which the dequantizer reads as
//! it reads a block.

use crate::ir::builder::KernelBuilder;
use crate::ir::{Addr, BinOp, Reg, Space, Ty};
use crate::kernel::emit::Emit;

/// Per-warp offsets and shift amounts, made once; [`TileWindow::load`] per k16 step.
pub(super) struct TileWindow {
    bits: u32,
    /// Byte offset of the warp's first word in the lane's block.
    first: Reg,
    /// `Some` for widths whose tiles start inside a word: the byte offset of the word after the
    /// window's last where some warp needs it (clamped to the block's last word where it would
    /// pass it; its bits then serve no field), the right shift `o`, the left shift `16 - o`, and
    /// the mask of each half's low `16 - o` bits.
    realign: Option<Realign>,
}

struct Realign {
    last_hi: Option<Reg>,
    shr: Reg,
    shl: Reg,
    sel: Reg,
}

/// Window words of a tile: `ceil(bits / 4)` (one up to 4 bits).
fn window_words(bits: u32) -> u32 {
    bits.div_ceil(4)
}

/// Bit offset of warp `w4`'s tile in its first word.
fn offset_of(bits: u32, w4: u32) -> u32 {
    4 * bits * w4 % 16
}

/// Whether window word `j` takes bits from the next word for some warp: the window's bits
/// `16 (j + 1) - o ..` are below the tile's `4 bits`.
fn needs_next(bits: u32, j: u32) -> bool {
    (0..4).map(|w4| offset_of(bits, w4)).any(|o| o > 0 && 16 * (j + 1) - o < 4 * bits)
}

impl TileWindow {
    /// The offsets and shifts of warp `w4` (its index in the warpgroup) for `bits`-bit weights.
    pub(super) fn new(b: &mut KernelBuilder, bits: u32, w4: Reg) -> TileWindow {
        let realign = (bits % 4 != 0).then(|| {
            // s = 4 bits w4: word s / 16 = bits w4 / 4, bit o = (bits w4 % 4) * 4.
            let bw = b.mul_u32(w4, bits);
            let o4 = b.and32(bw, 3u32);
            let shr = b.shl32(o4, 2);
            let shl = b.op(BinOp::Sub, Ty::U32, 16u32, shr);
            // (0xFFFF >> o) in both halves.
            let half = b.op(BinOp::Shr, Ty::U32, 0xFFFFu32, shr);
            let sel = b.mul_u32(half, 0x0001_0001u32);
            let w = b.shr32(bw, 2);
            let last_hi = needs_next(bits, window_words(bits) - 1).then(|| {
                let next = b.add_u32(w, window_words(bits));
                let next = b.op(BinOp::Min, Ty::U32, next, bits - 1);
                b.shl32(next, 2)
            });
            (b.shl32(w, 2), Realign { last_hi, shr, shl, sel })
        });
        match realign {
            Some((first, r)) => TileWindow { bits, first, realign: Some(r) },
            None => TileWindow { bits, first: b.mul_u32(w4, bits), realign: None },
        }
    }

    /// The window words of the tile in the lane's block at shared address `block`.
    pub(super) fn load(&self, b: &mut KernelBuilder, block: Reg) -> Vec<Reg> {
        let n = window_words(self.bits);
        let addr = b.add_u32(block, self.first);
        let Some(r) = &self.realign else {
            return b.ld_vec(Space::Shared, Ty::B32, n as usize, Addr::reg(addr));
        };
        let mut src: Vec<Reg> = (0..n).map(|j| b.ld(Space::Shared, Ty::B32, Addr::reg_off(addr, 4 * j as i64))).collect();
        if let Some(last_hi) = r.last_hi {
            let hi = b.add_u32(block, last_hi);
            src.push(b.ld(Space::Shared, Ty::B32, Addr::reg(hi)));
        }
        (0..n as usize)
            .map(|j| {
                let lo = b.op(BinOp::Shr, Ty::U32, src[j], r.shr);
                if needs_next(self.bits, j as u32) {
                    // (lo & sel) | (hi & ~sel): each half's bits o.. joined with the next word's.
                    let hi = b.op(BinOp::Shl, Ty::B32, src[j + 1], r.shl);
                    b.lop3(lo, hi, r.sel, 0xE4)
                } else {
                    lo
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_stay_in_the_block() {
        for bits in 1..=8u32 {
            for w4 in 0..4 {
                let (s, n) = (4 * bits * w4, window_words(bits));
                let (first, last) = (s / 16, (s + 4 * bits - 1) / 16);
                // The window's own words lie in the block, and the tile's last bit is in them or
                // in the next word, which is then loaded (not clamped: it lies in the block too).
                assert!(first + n <= bits, "bits {bits} warp {w4}");
                assert!(last <= first + n, "bits {bits} warp {w4}");
                if last == first + n {
                    assert!(needs_next(bits, n - 1) && first + n < bits, "bits {bits} warp {w4}");
                }
            }
        }
        // Widths whose tiles never straddle a word's end take no word past the window.
        assert!(!needs_next(1, 0) && !needs_next(2, 0));
        // The last window word needs the word after the window for 3 and 7 bits only.
        let last = |bits| needs_next(bits, window_words(bits) - 1);
        assert_eq!((1..=8).filter(|&bits| last(bits)).collect::<Vec<u32>>(), [3, 7]);
    }
}
