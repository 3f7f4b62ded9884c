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

/// Executes `op` for the warp whose registers are `regs` (slot-major, 32 lanes per slot).
pub(crate) fn exec(op: &MmaOp, regs: &mut [u64]) {
    let h = f16_table();
    let (m, n, k) = (op.m as usize, op.n as usize, op.k as usize);
    let mut a = [0f64; 16 * 64];
    let mut bt = [0f64; 8 * 64]; // B transposed: bt[n][k]
    let mut c = [0f64; 16 * 8];

    let bits = ab_bits(op.a_ty);
    let per = (32 / bits) as usize;
    let emask = if bits == 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    };
    for lane in 0..32 {
        let (g, t) = (lane >> 2, lane & 3);
        for (r, &slot) in op.a.iter().enumerate() {
            let word = regs[slot as usize + lane] as u32;
            let row = if m == 16 { g + 8 * (r & 1) } else { g };
            let col0 = per * t + 4 * per * (r >> 1);
            for e in 0..per {
                a[row * k + col0 + e] = decode(op.a_ty, (word >> (e as u32 * bits)) & emask, h);
            }
        }
        for (r, &slot) in op.b.iter().enumerate() {
            let word = regs[slot as usize + lane] as u32;
            let k0 = per * t + 4 * per * r;
            for e in 0..per {
                bt[g * k + k0 + e] = decode(op.b_ty, (word >> (e as u32 * bits)) & emask, h);
            }
        }
        match op.c_ty {
            MmaType::F16 => {
                for (r, &slot) in op.c.iter().enumerate() {
                    let word = regs[slot as usize + lane] as u32;
                    let row = g + 8 * r;
                    c[row * n + 2 * t] = h[(word & 0xffff) as usize] as f64;
                    c[row * n + 2 * t + 1] = h[(word >> 16) as usize] as f64;
                }
            }
            ty => {
                for (r, &slot) in op.c.iter().enumerate() {
                    let word = regs[slot as usize + lane] as u32;
                    let (row, col) = (g + 8 * (r >> 1), 2 * t + (r & 1));
                    c[row * n + col] = if ty == MmaType::F32 {
                        f32::from_bits(word) as f64
                    } else {
                        word as i32 as f64
                    };
                }
            }
        }
    }

    let mut d = [0f64; 16 * 8];
    for i in 0..m {
        let ar = &a[i * k..(i + 1) * k];
        for j in 0..n {
            let br = &bt[j * k..(j + 1) * k];
            let mut acc = 0.0f64;
            for kk in 0..k {
                acc += ar[kk] * br[kk];
            }
            d[i * n + j] = acc + c[i * n + j];
        }
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
