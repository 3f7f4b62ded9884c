//! Group scales and zero points: copied per stage from the permuted global tables
//! ([`crate::pack::fragment::permute_group_values`]) into shared memory with the weights, read
//! per (k16 step, n64 block) from there and turned into the per-tile operands the dequantizer
//! takes ([`TileQuant`]). Lane group `g` reads its 8 values (tiles `j = 0..8`) with one vector
//! load.

use super::dequant::{Act16, TileQuant};
use super::emit::Emit;
use crate::format::ScaleFormat;
use crate::ir::builder::KernelBuilder;
use crate::ir::{Addr, BinOp, Operand, Reg, RegClass, Rnd, Space, Ty};

/// How scales (and dynamic zero points) reach the dequantizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScaleSource {
    pub format: ScaleFormat,
    pub act: Act16,
    /// Scales as f32 registers (the 8-bit bf16 path) instead of 16-bit pairs.
    pub f32_scales: bool,
    /// Dynamic zero points (8-bit codes, same grouping as the scales).
    pub dynamic_zero: bool,
    /// The target converts a pair of FP8 values to `f16x2` in one instruction (sm_89 on).
    pub fp8_cvt: bool,
}

impl ScaleSource {
    /// Bytes of one scale in global memory.
    pub fn scale_bytes(&self) -> u32 {
        match self.format {
            ScaleFormat::F16 | ScaleFormat::Bf16 => 2,
            _ => 1,
        }
    }

    /// Bytes of quantization parameters per column and group: the scale, plus one byte of zero
    /// point when they are dynamic.
    pub fn qbytes(&self) -> u32 {
        self.scale_bytes() + self.dynamic_zero as u32
    }

    /// Loads `n` (8 or 4) tiles' scales from shared address `saddr` (`n` consecutive scales of
    /// lane group `g`; `None`: no scales, the kernel applies them to the sums) and, with dynamic
    /// zero points, their zero points from `zaddr` (`n` bytes).
    pub fn load_shared(&self, b: &mut KernelBuilder, saddr: Option<Reg>, zaddr: Option<Reg>, n: usize) -> Vec<TileQuant> {
        let scale: Vec<Option<Reg>> = match saddr {
            Some(saddr) => {
                let (words, halves) = self.load_words(b, saddr, n);
                (0..n).map(|j| Some(self.scale_of(b, &words, &halves, j))).collect()
            }
            None => vec![None; n],
        };
        let zero: Vec<Option<Reg>> = match (self.dynamic_zero, zaddr) {
            (true, Some(zaddr)) => {
                let zw = b.ld_vec(Space::Shared, Ty::B32, n / 4, Addr::reg(zaddr));
                (0..n).map(|j| Some(self.zero_of(b, &zw, j))).collect()
            }
            (true, None) => panic!("dynamic zero points need their shared address"),
            (false, _) => vec![None; n],
        };
        (0..n).map(|j| TileQuant { scale: scale[j], zero: zero[j] }).collect()
    }

    /// Two consecutive tiles' scales at `saddr` (one word of 16-bit scales, or two bytes of 8-bit
    /// ones) and, with dynamic zero points, their zero points at `zaddr` (two bytes), as the
    /// dequantizer wants them (the wgmma plans' per-warp m16 tiles).
    pub fn load_two(&self, b: &mut KernelBuilder, saddr: Reg, zaddr: Option<Reg>) -> [TileQuant; 2] {
        assert!(!self.f32_scales);
        // Bytes 0 and 1 of a zero-extended 16-bit load: tiles 0 and 1 of `scale_of` / `zero_of`.
        let two_bytes = |b: &mut KernelBuilder, addr: Reg| {
            let h = b.ld(Space::Shared, Ty::U16, Addr::reg(addr));
            b.cvt(Ty::U32, Ty::U16, None, h)
        };
        let scale: [Reg; 2] = match self.format {
            ScaleFormat::F16 | ScaleFormat::Bf16 => {
                let w = b.ld(Space::Shared, Ty::B32, Addr::reg(saddr));
                let (lo, hi) = b.unpack_b16(w);
                [lo, hi].map(|h| b.pack_b16(h, h))
            }
            _ => {
                let w = two_bytes(b, saddr);
                [0, 1].map(|j| self.scale_of(b, &[w], &[None], j))
            }
        };
        let zero: [Option<Reg>; 2] = match (self.dynamic_zero, zaddr) {
            (true, Some(zaddr)) => {
                let w = two_bytes(b, zaddr);
                [0, 1].map(|j| Some(self.zero_of(b, &[w], j)))
            }
            (true, None) => panic!("dynamic zero points need their shared address"),
            (false, _) => [None, None],
        };
        [0, 1].map(|j| TileQuant { scale: Some(scale[j]), zero: zero[j] })
    }

    /// `n` (8 or 4) tiles' scales at `saddr` as f32 registers, for scaling f32 sums: exact
    /// conversions of the values [`ScaleSource::load_shared`] gives the dequantizer.
    pub fn load_f32(&self, b: &mut KernelBuilder, saddr: Reg, n: usize) -> Vec<Reg> {
        let (words, halves) = self.load_words(b, saddr, n);
        (0..n).map(|j| match (self.format, self.f32_scales) {
            (_, true) => self.scale_of(b, &words, &halves, j),
            // 16-bit scales straight from their half of the word.
            (ScaleFormat::F16, false) => {
                let (lo, hi) = halves[j / 2].expect("16-bit scales are unpacked");
                b.cvt(Ty::F32, Ty::F16, None, if j % 2 == 0 { lo } else { hi })
            }
            (ScaleFormat::Bf16, false) => {
                let w = words[j / 2];
                let v = if j % 2 == 0 { b.shl32(w, 16) } else { b.and32(w, 0xFFFF_0000u32) };
                b.mov_as(RegClass::F32, v)
            }
            (ScaleFormat::Ue8m0, false) => ue8m0_f32(b, words[j / 4], j),
            // 8-bit scales through the activation-type pair (both halves equal).
            _ => {
                let pair = self.scale_of(b, &words, &halves, j);
                self.act.pair_to_f32(b, pair)
            }
        })
        .collect()
    }

    /// The scale words at `saddr` (`n` scales) and, for 16-bit formats, each word's halves.
    fn load_words(&self, b: &mut KernelBuilder, saddr: Reg, n: usize) -> (Vec<Reg>, Vec<Option<(Reg, Reg)>>) {
        let sb = self.scale_bytes() as usize;
        let words = b.ld_vec(Space::Shared, Ty::B32, n * sb / 4, Addr::reg(saddr));
        let halves = match self.format {
            // Both halves of each word as b16 registers: the scale pairs are packs of one half
            // twice, which ptxas folds into the half-swizzle operand of HMUL2/HFMA2 (no PRMT).
            ScaleFormat::F16 | ScaleFormat::Bf16 => words.iter().map(|&w| Some(b.unpack_b16(w))).collect(),
            _ => vec![None; words.len()],
        };
        (words, halves)
    }

    /// Scale of tile `j` as the dequantizer wants it.
    fn scale_of(&self, b: &mut KernelBuilder, words: &[Reg], halves: &[Option<(Reg, Reg)>], j: usize) -> Reg {
        let pair = match self.format {
            ScaleFormat::F16 | ScaleFormat::Bf16 => {
                // Word j/2 holds tiles (j & !1, j | 1) in its (lo, hi) halves: duplicate one half.
                let (lo, hi) = halves[j / 2].expect("16-bit scales are unpacked");
                let h = if j % 2 == 0 { lo } else { hi };
                b.pack_b16(h, h)
            }
            ScaleFormat::E4m3 | ScaleFormat::E5m2 if self.fp8_cvt && self.act == Act16::F16 => {
                // Byte j twice in the low half, converted as a pair (exact: f16 holds every
                // e4m3 / e5m2 value). Two instructions, where re-aligning the fields took five.
                let byte = (j % 4) as u32;
                let two = b.prmt(words[j / 4], 0u32, (4 << 12) | (4 << 8) | (byte << 4) | byte);
                let (lo, _) = b.unpack_b16(two);
                let fp8 = if self.format == ScaleFormat::E4m3 { Ty::E4m3x2 } else { Ty::E5m2x2 };
                b.cvt(Ty::F16x2, fp8, Some(Rnd::Rn), lo)
            }
            ScaleFormat::E4m3 | ScaleFormat::E5m2 => {
                let (e, bias_s) = if self.format == ScaleFormat::E4m3 { (4u32, 7) } else { (5, 15) };
                // Byte (j % 4) of word j / 4 into bits 8..16 of both halves, zeros below.
                let byte = (j % 4) as u32;
                let sel = (byte << 12) | (4 << 8) | (byte << 4) | 4;
                let top = b.prmt(words[j / 4], 0u32, sel);
                let (et, bias_t) = self.act.exp_bias();
                let em = b.and32(top, 0x7F00_7F00u32);
                let em = b.shr32(em, et - e);
                let v = b.lop3(top, 0x8000_8000u32, em, 0xEA);
                let fix = self.act.pair_imm(2f32.powi(bias_t - bias_s));
                match self.act {
                    Act16::F16 => b.op_pk(BinOp::Mul, Ty::F16x2, v, fix),
                    Act16::Bf16 => b.fma(Ty::Bf16x2, v, fix, 0x8000_8000u32),
                }
            }
            ScaleFormat::Ue8m0 if self.f32_scales => return ue8m0_f32(b, words[j / 4], j),
            ScaleFormat::Ue8m0 => {
                // 2^(e-127) as bf16 in both halves: byte j into bytes 0 and 2 (zeros in 1 and 3),
                // up by 7 into the exponent fields. e = 0 (fields of zero) is the subnormal
                // 2^-127 (0x0040): the larger of the two, as every e >= 1 is at least 2^-126
                // (`max` keeps subnormals). Three instructions, where extracting, shifting,
                // testing, selecting and duplicating took six.
                let t = byte_in_halves(b, words[j / 4], j);
                let v = b.shl32(t, 7);
                b.op_pk(BinOp::Max, Ty::Bf16x2, v, 0x0040_0040u32)
            }
        };
        if self.f32_scales {
            // bf16 in the low half -> f32: shift into the top half.
            let lo = b.shl32(pair, 16);
            b.mov_as(RegClass::F32, lo)
        } else {
            pair
        }
    }

    /// The negated zero points of `n` (8 or 4) tiles at `zaddr` as f32 registers (`-z`, exact),
    /// for subtracting `z x` the activation sums from f32 sums of `q x activation`.
    pub fn load_neg_zeros_f32(&self, b: &mut KernelBuilder, zaddr: Reg, n: usize) -> Vec<Reg> {
        let zw = b.ld_vec(Space::Shared, Ty::B32, n / 4, Addr::reg(zaddr));
        (0..n)
            .map(|j| {
                // 2^23 - (2^23 + z).
                let f = magic_f32_zero(b, &zw, j);
                b.op(BinOp::Sub, Ty::F32, Operand::f32((1u32 << 23) as f32), f)
            })
            .collect()
    }

    /// Zero point of tile `j`: byte j of the loaded bytes, as the dequantizer's operand.
    fn zero_of(&self, b: &mut KernelBuilder, zw: &[Reg], j: usize) -> Reg {
        if self.f32_scales {
            return magic_f32_zero(b, zw, j);
        }
        // z in byte 0 and byte 2 (zeros in bytes 1 and 3), then OR the magic pair.
        let z = byte_in_halves(b, zw[j / 4], j);
        let magic: Operand = match self.act {
            Act16::F16 => 0x6400_6400u32.into(),
            Act16::Bf16 => 0xC300_C300u32.into(),
        };
        b.op(BinOp::Or, Ty::B32, z, magic)
    }
}

/// Byte `j % 4` of `word` in bytes 0 and 2 (the low byte of each half), zeros in bytes 1 and 3.
fn byte_in_halves(b: &mut KernelBuilder, word: Reg, j: usize) -> Reg {
    let byte = (j % 4) as u32;
    b.prmt(word, 0u32, (4 << 12) | (byte << 8) | (4 << 4) | byte)
}

/// Ue8m0 scale `j` (byte `j % 4` of `word`) as the f32 `2^(e-127)`: the byte into the top byte
/// (zeros below), down by 1 into the exponent field; e = 0 is the subnormal 2^-127, the larger
/// of the two as every e >= 1 is at least 2^-126 (`max.f32` keeps subnormals).
fn ue8m0_f32(b: &mut KernelBuilder, word: Reg, j: usize) -> Reg {
    let byte = (j % 4) as u32;
    let t = b.prmt(word, 0u32, (byte << 12) | (4 << 8) | (4 << 4) | 4);
    let v = b.shr32(t, 1);
    let f = b.mov_as(RegClass::F32, v);
    b.op(BinOp::Max, Ty::F32, f, Operand::f32(2f32.powi(-127)))
}

/// Zero point `j` (byte `j` of the loaded bytes) as the f32 `2^23 + z`: the byte OR-ed into the
/// mantissa of 2^23.
fn magic_f32_zero(b: &mut KernelBuilder, zw: &[Reg], j: usize) -> Reg {
    let z = b.bfe(zw[j / 4], (j % 4) as u32 * 8, 8);
    let v = b.op(BinOp::Or, Ty::B32, z, 0x4B00_0000u32);
    b.mov_as(RegClass::F32, v)
}
