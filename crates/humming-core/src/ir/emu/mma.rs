//! `mma.sync.aligned.*.row.col`: gathers A (m x k), B (k x n) and C (m x n) from the 32 lanes'
//! fragment registers per the PTX ISA fragment layouts, computes `D = A * B + C`, scatters D.
//!
//! Layouts (PTX ISA, "Matrix Fragments for mma.m16n8k*" / "mma.m8n8k*"), with
//! `g = laneid >> 2`, `t = laneid % 4` and `E = 32 / bits` elements per `.b32` register
//! (element `e` in bits `[e*bits, (e+1)*bits)`):
//! - A, register `r`, element `e`: row `g + 8 * (r & 1)` (m16) or `g` (m8),
//!   column `E * t + e + 4 * E * (r >> 1)`.
//! - B, register `r`, element `e`: row (k) `E * t + e + 4 * E * r`, column (n) `g`.
//! - C/D with 32-bit elements (f32, s32), register `r`: row `g + 8 * (r >> 1)`, column `2 * t + (r & 1)`.
//! - C/D f16 (two `.f16x2` registers), register `r`, half `e`: row `g + 8 * r`, column `2 * t + e`.
//!
//! Arithmetic: every product of the input types is exact in `f64`, the k products and C are
//! summed in `f64` and the sum is rounded once to the accumulator type (f32: round to nearest
//! even; f16: round to nearest even; s32: the exact integer sum wrapped to 32 bits, which is
//! what the GPU's wrapping integer accumulation gives). The tensor cores accumulate floats in
//! their own order and internal precision, so GPU f32 results can differ from the emulator's
//! by a few f32 ulps (more when there is cancellation); integer results are bit-exact.

use crate::ir::MmaType;
use crate::ir::emu::float::{FRnd, Fmt, canon_f32, e4m3_to_f64, e5m2_to_f64, f16_table, round};
use crate::ir::emu::lower::MmaOp;

fn ab_bits(t: MmaType) -> u32 {
    match t {
        MmaType::F16 | MmaType::Bf16 => 16,
        MmaType::S4 | MmaType::U4 => 4,
        _ => 8,
    }
}

#[inline]
fn decode(t: MmaType, v: u32, h: &[f32]) -> f64 {
    match t {
        MmaType::F16 => h[v as usize] as f64,
        MmaType::Bf16 => f32::from_bits(v << 16) as f64,
        MmaType::S8 => v as u8 as i8 as f64,
        MmaType::U8 => v as u8 as f64,
        MmaType::S4 => (((v as u8) << 4) as i8 >> 4) as f64,
        MmaType::U4 => (v & 0xf) as f64,
        MmaType::E4m3 => e4m3_to_f64(v as u8),
        MmaType::E5m2 => e5m2_to_f64(v as u8),
        MmaType::F32 | MmaType::S32 => unreachable!("accumulator type as multiplicand"),
    }
}

/// Reusable buffers of one warp's mma (no per-call zeroing: every used entry is written).
#[derive(Debug)]
pub(crate) struct Scratch {
    a: Box<[f64; 16 * 64]>,
    b: Box<[f64; 64 * 8]>,
    d: Box<[f64; 16 * 8]>,
    tmp_a: Box<[f64; 16 * 64]>,
    tmp_b: Box<[f64; 64 * 8]>,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            a: Box::new([0.0; 16 * 64]),
            b: Box::new([0.0; 64 * 8]),
            d: Box::new([0.0; 16 * 8]),
            tmp_a: Box::new([0.0; 16 * 64]),
            tmp_b: Box::new([0.0; 64 * 8]),
        }
    }
}

/// Gathers the A and B fragments (decoded by `dec`) into `a` (m x k) and `b` (k x n).
#[inline(always)]
fn gather_ab(
    op: &MmaOp,
    regs: &[u64],
    bits: u32,
    a: &mut [f64],
    b: &mut [f64],
    dec: impl Fn(u32) -> f64,
) {
    let (m, n, k) = (op.m as usize, op.n as usize, op.k as usize);
    let per = (32 / bits) as usize;
    let emask = (1u32 << bits) - 1;
    for lane in 0..32 {
        let (g, t) = (lane >> 2, lane & 3);
        for (r, &slot) in op.a.iter().enumerate() {
            let word = regs[slot as usize + lane] as u32;
            let row = if m == 16 { g + 8 * (r & 1) } else { g };
            let base = row * k + per * t + 4 * per * (r >> 1);
            for e in 0..per {
                a[base + e] = dec((word >> (e as u32 * bits)) & emask);
            }
        }
        for (r, &slot) in op.b.iter().enumerate() {
            let word = regs[slot as usize + lane] as u32;
            let k0 = per * t + 4 * per * r;
            for e in 0..per {
                b[(k0 + e) * n + g] = dec((word >> (e as u32 * bits)) & emask);
            }
        }
    }
}

/// Executes `op` for the warp whose registers are `regs` (slot-major, 32 lanes per slot).
pub(crate) fn exec(op: &MmaOp, regs: &mut [u64], scratch: &mut Scratch) {
    let h = f16_table();
    let (m, n, k) = (op.m as usize, op.n as usize, op.k as usize);
    let Scratch {
        a,
        b,
        d,
        tmp_a,
        tmp_b,
    } = scratch;
    let (a, b, d) = (&mut a[..], &mut b[..], &mut d[..]);

    let bits = ab_bits(op.a_ty);
    match op.a_ty {
        // A and B have the same type here; the mixed-type cases decode per element.
        MmaType::F16 => gather_ab(op, regs, bits, a, b, |v| h[v as usize] as f64),
        MmaType::Bf16 => gather_ab(op, regs, bits, a, b, |v| f32::from_bits(v << 16) as f64),
        _ if op.a_ty == op.b_ty => gather_ab(op, regs, bits, a, b, |v| decode(op.a_ty, v, h)),
        _ => {
            // Mixed signedness / FP8 kinds: gather each operand with its own type.
            gather_ab(op, regs, bits, a, &mut tmp_b[..], |v| decode(op.a_ty, v, h));
            gather_ab(op, regs, bits, &mut tmp_a[..], b, |v| decode(op.b_ty, v, h));
        }
    }
    // C, straight into the accumulators.
    for lane in 0..32 {
        let (g, t) = (lane >> 2, lane & 3);
        match op.c_ty {
            MmaType::F16 => {
                for (r, &slot) in op.c.iter().enumerate() {
                    let word = regs[slot as usize + lane] as u32;
                    let row = g + 8 * r;
                    d[row * n + 2 * t] = h[(word & 0xffff) as usize] as f64;
                    d[row * n + 2 * t + 1] = h[(word >> 16) as usize] as f64;
                }
            }
            ty => {
                for (r, &slot) in op.c.iter().enumerate() {
                    let word = regs[slot as usize + lane] as u32;
                    let (row, col) = (g + 8 * (r >> 1), 2 * t + (r & 1));
                    d[row * n + col] = if ty == MmaType::F32 {
                        f32::from_bits(word) as f64
                    } else {
                        word as i32 as f64
                    };
                }
            }
        }
    }

    // D = C + sum_k A[i][k] * B[k][j], k in order. Every shape has n = 8: the row's eight
    // accumulators stay in registers and the compiler vectorizes over j.
    debug_assert_eq!(n, 8);
    for i in 0..m {
        let mut acc = [0f64; 8];
        acc.copy_from_slice(&d[i * 8..i * 8 + 8]);
        for (kk, &av) in a[i * k..(i + 1) * k].iter().enumerate() {
            let br: &[f64; 8] = b[kk * 8..kk * 8 + 8].try_into().expect("8 columns");
            for j in 0..8 {
                acc[j] += av * br[j];
            }
        }
        d[i * 8..i * 8 + 8].copy_from_slice(&acc);
    }

    let enc = |v: f64| -> u32 {
        match op.d_ty {
            MmaType::F32 => canon_f32(v as f32),
            MmaType::S32 => (v as i64) as i32 as u32,
            _ => round(v, 0, Fmt::F16, FRnd::Rn, false) as u32,
        }
    };
    for lane in 0..32 {
        let (g, t) = (lane >> 2, lane & 3);
        if op.d_ty == MmaType::F16 {
            for (r, &slot) in op.d.iter().enumerate() {
                let row = g + 8 * r;
                let lo = enc(d[row * n + 2 * t]);
                let hi = enc(d[row * n + 2 * t + 1]);
                regs[slot as usize + lane] = (lo | (hi << 16)) as u64;
            }
        } else {
            for (r, &slot) in op.d.iter().enumerate() {
                let (row, col) = (g + 8 * (r >> 1), 2 * t + (r & 1));
                regs[slot as usize + lane] = enc(d[row * n + col]) as u64;
            }
        }
    }
}
