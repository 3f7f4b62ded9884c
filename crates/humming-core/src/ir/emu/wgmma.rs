//! `wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}` with A from registers and B from a
//! shared-memory descriptor, executed for a whole warpgroup (4 aligned warps) at once when its
//! last warp reaches the instruction. The emulator completes it immediately, which is one of
//! the orders the asynchronous hardware may take; the B bytes it read stay in flight (a
//! shared write over them is an error) until its group is retired by `wait_group`
//! (`run.rs`, `WgReads`).
//!
//! Layouts (PTX ISA "Register Fragments and Shared Memory Matrix Layouts" for wgmma; CUTLASS
//! `ALayout_64x16` / `CLayout_64xN`), for warp `w` of the warpgroup, `g = lane / 4`,
//! `t = lane % 4`:
//! - A, register `r` (4 per thread), element `e` (low half first): row `16 w + g + 8 (r & 1)`,
//!   column (k) `2 t + e + 8 (r >> 1)`.
//! - D, register `i` (`N / 2` per thread, f32): row `16 w + g + 8 ((i >> 1) & 1)`, column
//!   `8 (i >> 2) + 2 t + (i & 1)`.
//! - B (K-major, no swizzle): the descriptor holds the start address (bits 0..14), the leading
//!   byte offset LBO (bits 16..30: between core matrices adjacent along K) and the stride byte
//!   offset SBO (bits 32..46: between 8-row groups along N), each `>> 4`; the swizzle mode is in
//!   bits 62..64 (only 0, no swizzle, is emulated). Element `B[k][n]` is the 16-bit value at
//!   `start + (n % 8) * 16 + (n / 8) * SBO + (k % 8) * 2 + (k / 8) * LBO`.
//!
//! Arithmetic as `mma` ([`super::mma`]): exact products and sums in `f64`, one rounding to f32.

use crate::ir::MmaType;
use crate::ir::emu::float::{canon_f32, f16_table};

/// Decoded `wgmma.mma_async` (register slots).
#[derive(Clone, Debug)]
pub(crate) struct WgmmaOp {
    pub n: u32,
    pub ab: MmaType,
    pub d: Vec<u32>,
    pub a: Vec<u32>,
    pub desc: u32,
    /// Whether D is added to the product (`scale-d`).
    pub acc: AccD,
}

/// A wgmma's `scale-d` operand: the immediate 1 or 0, or a predicate (its register slot).
#[derive(Clone, Copy, Debug)]
pub(crate) enum AccD {
    Always,
    Never,
    Pred(u32),
}

/// The B matrix a descriptor describes.
pub(crate) struct Desc {
    pub start: u64,
    pub lbo: u64,
    pub sbo: u64,
    /// 128-byte swizzle (layout type 1) rather than none.
    pub swizzle128: bool,
}

impl Desc {
    /// Decodes `bits`; `Err` names what the emulator does not model.
    pub fn decode(bits: u64) -> Result<Desc, String> {
        let swizzle = bits >> 62;
        if swizzle > 1 {
            return Err(format!("wgmma descriptor {bits:#018x}: swizzle mode {swizzle} (only no swizzle and the 128-byte swizzle of K-major B are emulated)"));
        }
        let field = |lo: u32| ((bits >> lo) & 0x3fff) << 4;
        Ok(Desc { start: field(0), lbo: field(16), sbo: field(32), swizzle128: swizzle == 1 })
    }

    /// Shared address of `B[k][n]` (K-major: rows n, k contiguous). Without swizzle, core
    /// matrices of 8 rows x 16 bytes, `lbo` apart along K and `sbo` along N. With the 128-byte
    /// swizzle, rows of 128 bytes, 8-row groups `sbo` apart, and the 16-byte chunk bits 4..7 of
    /// each address XORed with its 128-byte row bits 7..10.
    pub fn addr(&self, k: u64, n: u64) -> u64 {
        if self.swizzle128 {
            let a = self.start + (n % 8) * 128 + (n / 8) * self.sbo + k * 2;
            a ^ (((a >> 7) & 7) << 4)
        } else {
            self.start + (n % 8) * 16 + (n / 8) * self.sbo + (k % 8) * 2 + (k / 8) * self.lbo
        }
    }
}

/// Executes `op` for the warpgroup whose four warps' registers are `warps[w]` (slot-major, 32
/// lanes per slot); `b` holds `B[k][n]` as 16-bit codes, row-major (16 x n).
pub(crate) fn exec(op: &WgmmaOp, warps: &mut [&mut [u64]; 4], b: &[u16]) {
    let h = f16_table();
    let dec = |v: u64| -> f64 {
        match op.ab {
            MmaType::F16 => h[(v & 0xffff) as usize] as f64,
            _ => f32::from_bits(((v & 0xffff) as u32) << 16) as f64,
        }
    };
    let n = op.n as usize;
    let mut a = [[0f64; 16]; 64];
    let mut d = vec![0f64; 64 * n];
    for (w, regs) in warps.iter().enumerate() {
        for lane in 0..32 {
            let (g, t) = (lane >> 2, lane & 3);
            for (r, &slot) in op.a.iter().enumerate() {
                let word = regs[slot as usize + lane];
                let row = 16 * w + g + 8 * (r & 1);
                let k = 2 * t + 8 * (r >> 1);
                a[row][k] = dec(word);
                a[row][k + 1] = dec(word >> 16);
            }
            let accumulate = match op.acc {
                AccD::Always => true,
                AccD::Never => false,
                AccD::Pred(p) => regs[p as usize + lane] & 1 == 1,
            };
            for (i, &slot) in op.d.iter().enumerate() {
                let row = 16 * w + g + 8 * ((i >> 1) & 1);
                let col = 8 * (i >> 2) + 2 * t + (i & 1);
                d[row * n + col] = if accumulate { f32::from_bits(regs[slot as usize + lane] as u32) as f64 } else { 0.0 };
            }
        }
    }
    for (row, ar) in a.iter().enumerate() {
        for col in 0..n {
            let mut acc = d[row * n + col];
            for (k, &av) in ar.iter().enumerate() {
                acc += av * dec(b[k * n + col] as u64);
            }
            d[row * n + col] = acc;
        }
    }
    for (w, regs) in warps.iter_mut().enumerate() {
        for lane in 0..32 {
            let (g, t) = (lane >> 2, lane & 3);
            for (i, &slot) in op.d.iter().enumerate() {
                let row = 16 * w + g + 8 * ((i >> 1) & 1);
                let col = 8 * (i >> 2) + 2 * t + (i & 1);
                regs[slot as usize + lane] = canon_f32(d[row * n + col] as f32) as u64;
            }
        }
    }
}
