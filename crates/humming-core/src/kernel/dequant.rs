//! Dequantizers: a lane's packed words of one (k16, n64) block -> its 16 B-fragment registers,
//! zero point subtracted and group scale applied (unless the kernel scales the sums instead),
//! in the activation's 16-bit type. No lookup
//! tables: integers by the magic-number method, floats by re-aligning their bits.
//!
//! Pair `p = 2j + r` of the [`crate::pack::fragment`] layout becomes register `p`: n8 tile `j`,
//! k half `r`; both halves of a register belong to the same column, so they share one scale and
//! one zero point (`TileQuant` of tile `j`).

use super::emit::Emit;
use crate::format::FloatFormat;
use crate::pack::float4;
use crate::ir::builder::KernelBuilder;
use crate::ir::{BinOp, Operand, Reg, RegClass, Ty};

/// The 16-bit activation type the fragments are built in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act16 {
    F16,
    Bf16,
}

impl Act16 {
    /// Exponent bits and bias of the type.
    pub fn exp_bias(self) -> (u32, i32) {
        match self {
            Act16::F16 => (5, 15),
            Act16::Bf16 => (8, 127),
        }
    }

    /// The packed pair type.
    pub fn pair_ty(self) -> Ty {
        match self {
            Act16::F16 => Ty::F16x2,
            Act16::Bf16 => Ty::Bf16x2,
        }
    }

    /// Bits of the value `x` in this type (exact for the powers of two and small integers used).
    pub fn bits_of(self, x: f32) -> u32 {
        match self {
            Act16::F16 => half::f16::from_f32(x).to_bits() as u32,
            Act16::Bf16 => half::bf16::from_f32(x).to_bits() as u32,
        }
    }

    /// The activation format this type is.
    pub fn format(self) -> crate::ActFormat {
        match self {
            Act16::F16 => crate::ActFormat::F16,
            Act16::Bf16 => crate::ActFormat::Bf16,
        }
    }

    /// Explicit mantissa bits of the type (10 for f16, 7 for bf16).
    pub fn mantissa_bits(self) -> u32 {
        self.format().scalar().mantissa_bits() as u32
    }

    /// The low half of `pair` as an f32 (exact).
    pub fn pair_to_f32(self, b: &mut KernelBuilder, pair: Reg) -> Reg {
        match self {
            Act16::F16 => {
                let (lo, _) = b.unpack_b16(pair);
                b.cvt(Ty::F32, Ty::F16, None, lo)
            }
            Act16::Bf16 => {
                let v = b.shl32(pair, 16);
                b.mov_as(RegClass::F32, v)
            }
        }
    }

    /// `x` in both halves of a 32-bit immediate.
    pub fn pair_imm(self, x: f32) -> u32 {
        self.bits_of(x) * 0x0001_0001
    }

    /// The magic number `2^mantissa` (1024 for f16, 128 for bf16): an integer `q < 2^mantissa`
    /// OR-ed into its mantissa gives exactly `magic + q`.
    pub fn magic(self) -> f32 {
        (1u32 << self.mantissa_bits()) as f32
    }

    /// The pair that `Act16::centre` takes for zero point `z`: `magic + z` for f16 (a
    /// subtraction), `-(magic + z)` for bf16 (an fma). Dynamic zero points are loaded in the
    /// same form.
    pub fn magic_zero(self, z: u32) -> u32 {
        match self {
            Act16::F16 => self.pair_imm(self.magic() + z as f32),
            Act16::Bf16 => self.pair_imm(-(self.magic() + z as f32)),
        }
    }

    /// `v - (magic + z)` exactly, from [`Act16::magic_zero`]'s pair (bf16 has no packed
    /// subtraction before sm_90: `fma(v, 1, -(magic + z))`).
    fn centre(self, b: &mut KernelBuilder, v: Reg, zero: impl Into<Operand>) -> Reg {
        match self {
            Act16::F16 => b.op_pk(BinOp::Sub, Ty::F16x2, v, zero),
            Act16::Bf16 => b.fma(Ty::Bf16x2, v, self.pair_imm(1.0), zero),
        }
    }
}

/// `(x & mask) | magic` for a `bits`-wide field at bit offset `d` of each half of `x`: `magic +
/// q * 2^d`, exact while the field stays inside the mantissa.
fn or_into_magic(b: &mut KernelBuilder, x: Reg, bits: u8, d: u32, magic: u32) -> Reg {
    let mask = (((1u32 << bits) - 1) << d) * 0x0001_0001;
    b.lop3(x, mask, magic, 0xEA)
}

/// The constant A fragments of [`Dequant::fold_offsets`]: each distinct pattern of negated
/// offsets (16-bit pairs, A order) and the pattern of each m16 tile of a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoldOffsets {
    pub patterns: Vec<[u32; 4]>,
    pub of_tile: [usize; 4],
    /// Per-group zero points: the patterns hold the magic offsets alone (zero point 0), so the
    /// folded sums are of `q x activation`, and the kernel subtracts `z x` (the range's
    /// activation sums) per column itself.
    pub dynamic_zero: bool,
}

/// Per n8 tile quantization parameters, as the dequantizer consumes them.
#[derive(Clone, Copy, Debug)]
pub struct TileQuant {
    /// The group scale: a 16-bit pair (both halves equal) in the activation type, or an f32 for
    /// [`Dequant::IntF32`]. `None`: the fragment stays unscaled (the kernel scales the sums).
    pub scale: Option<Reg>,
    /// The zero-point operand: for the magic paths the pair to subtract (`magic + z`, bf16
    /// negated), for the f32 path `2^23 + z` as an f32 register. `None`: the implicit constant.
    pub zero: Option<Reg>,
}

/// How weights are turned into 16-bit B fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dequant {
    /// Unsigned kernel codes of `bits <= 7` (or any width for f16) OR-ed into the mantissa of
    /// 1024.0 (f16) / 128.0 (bf16), minus `magic + zero point`, times the scale.
    IntMagic { act: Act16, bits: u8, implicit_zero: Option<u32> },
    /// 8-bit codes with bf16 activations (bf16 holds only 7 mantissa bits): each value OR-ed into
    /// the mantissa of 2^23 in f32, minus `2^23 + zero`, times the f32 scale, packed to bf16x2 with
    /// one rounding.
    IntF32 { implicit_zero: Option<u32> },
    /// Float codes re-aligned into the activation's exponent/mantissa fields, times
    /// `2^(bias_act - bias_w)` (exact), times the scale.
    FloatRealign { act: Act16, format: FloatFormat },
}

impl Dequant {
    /// Weight width in bits.
    pub fn bits(&self) -> u8 {
        match *self {
            Dequant::IntMagic { bits, .. } => bits,
            Dequant::IntF32 { .. } => 8,
            Dequant::FloatRealign { format, .. } => format.bits(),
        }
    }

    /// Whether scales are consumed as f32 registers (else as 16-bit pairs).
    pub fn f32_scales(&self) -> bool {
        matches!(self, Dequant::IntF32 { .. })
    }

    /// The first `count` fragment registers (pairs `0..count`: 16 for a block, 8 for the half a
    /// half-width warp dequantizes) from the words holding them
    /// (`tiles[p / 2]` quantizes pair `p`).
    pub fn pairs(&self, b: &mut KernelBuilder, words: &[Reg], tiles: &[TileQuant], count: usize) -> Vec<Reg> {
        self.pairs_with(b, words, tiles, count, false)
    }

    /// Offset folding (integer codes with an implicit zero point): pair `p` can be left as its
    /// exact magic-number value `offset_p + q` (no subtraction, no scale) when the MMA that
    /// consumes it also gets the sums of `-offset_p x activation` added. In a swapped plan that is
    /// one extra MMA per k16 step and distinct pattern, with a constant A fragment of rows `g`
    /// and `g + 8`, k halves 0 and 1 (in [`Dequant::pairs`]'s A order `[4i, 4i + 2, 4i + 1,
    /// 4i + 3]` for m16 tile `i`), whose f32 result has the layout of that tile's sums.
    /// `offset_p = 2^(mantissa - d) + zero point` for a field at bit offset `d` of its half (the
    /// magic number with the exponent lowered by `d`, so `offset_p + q` is exact), e.g. 1032 and
    /// 72 for 4-bit codes in f16. Saves the subtraction (or fma) of every pair. With per-group
    /// zero points the patterns take zero point 0 ([`FoldOffsets::dynamic_zero`]). `None` for
    /// other dequantizers, or when the four m16 tiles of a block need more than two patterns (f16
    /// with 1, 3, 5 or 7 bits).
    pub fn fold_offsets(&self) -> Option<FoldOffsets> {
        let Dequant::IntMagic { act, bits, implicit_zero } = *self else { return None };
        let z = implicit_zero.unwrap_or(0);
        let offset = |p: usize| {
            let d = match place(bits, p, act.mantissa_bits()) {
                Place::Straddle => 0,
                Place::Word { d, .. } => d,
            };
            act.pair_imm(-(((1u32 << (act.mantissa_bits() - d)) + z) as f32))
        };
        let mut fold = FoldOffsets { patterns: Vec::new(), of_tile: [0; 4], dynamic_zero: implicit_zero.is_none() };
        for i in 0..4 {
            let tile = [offset(4 * i), offset(4 * i + 2), offset(4 * i + 1), offset(4 * i + 3)];
            fold.of_tile[i] = fold.patterns.iter().position(|&t| t == tile).unwrap_or_else(|| {
                fold.patterns.push(tile);
                fold.patterns.len() - 1
            });
        }
        (fold.patterns.len() <= 2).then_some(fold)
    }

    /// The first `count` fragment registers of one block (16, or 8 for half a block's words)
    /// left at `offset_p + q` (see [`Dequant::fold_offsets`], which must be `Some`).
    pub fn fragment_folded(&self, b: &mut KernelBuilder, words: &[Reg], count: usize) -> Vec<Reg> {
        let none = TileQuant { scale: None, zero: None };
        self.pairs_with(b, words, &[none; 8], count, true)
    }

    fn pairs_with(&self, b: &mut KernelBuilder, words: &[Reg], tiles: &[TileQuant], count: usize, fold: bool) -> Vec<Reg> {
        assert!(!fold || self.fold_offsets().is_some(), "offsets fold only for integer codes of the magic paths");
        // Words shifted right by 8 (or another amount), shared by the fields that use them.
        let mut shifted: std::collections::HashMap<(usize, u32), Reg> = std::collections::HashMap::new();
        // Per (tile, bit offset d > 0): the centring constant of a dynamic zero point.
        let mut centre_of: std::collections::HashMap<(usize, u32), Reg> = std::collections::HashMap::new();
        (0..count)
            .map(|p| {
                let t = &tiles[p / 2];
                match *self {
                    Dequant::IntMagic { act, bits, .. } if fold => {
                        // offset_p + q: the magic number of the field's bit offset d, OR-ed.
                        let (x, d) = field_in_place(b, words, bits, p, act.mantissa_bits(), &mut shifted);
                        or_into_magic(b, x, bits, d, act.pair_imm(act.magic() / (1u32 << d) as f32))
                    }
                    Dequant::IntMagic { act, bits, implicit_zero: Some(z) } if t.zero.is_none() => {
                        // Marlin's trick: a field at bit offset d of each half is OR-ed into the
                        // magic number in place, giving magic + q * 2^d (exact while d + bits
                        // stays within the mantissa), and one fma by 2^-d, minus
                        // (magic * 2^-d + z), centres it exactly. Fields higher up are shifted
                        // down by 8 first (one shift per word serves two fields).
                        let (x, d) = field_in_place(b, words, bits, p, act.mantissa_bits(), &mut shifted);
                        let v = or_into_magic(b, x, bits, d, act.pair_imm(act.magic()));
                        let centred = if d == 0 {
                            act.centre(b, v, act.magic_zero(z))
                        } else {
                            let inv = act.pair_imm(2f32.powi(-(d as i32)));
                            let c = act.pair_imm(-(act.magic() / (1u32 << d) as f32 + z as f32));
                            b.fma(act.pair_ty(), v, inv, c)
                        };
                        scale_pair(b, act, centred, t.scale)
                    }
                    Dequant::IntMagic { act, bits, implicit_zero } => {
                        let zero: Operand = match (t.zero, implicit_zero) {
                            (Some(z), _) => z.into(),
                            (None, Some(z)) => act.magic_zero(z).into(),
                            (None, None) => unreachable!("integer weights need a zero point"),
                        };
                        // The field in place (as above: shared shifts, no extraction), OR-ed
                        // into the magic number: magic + q * 2^d; at d > 0 one fma by 2^-d
                        // with -(magic * 2^-d + z), made once per tile and offset from the
                        // zero-point pair (exact: small integers).
                        let (x, d) = field_in_place(b, words, bits, p, act.mantissa_bits(), &mut shifted);
                        let v = or_into_magic(b, x, bits, d, act.pair_imm(act.magic()));
                        let centred = if d == 0 {
                            act.centre(b, v, zero)
                        } else {
                            let c = *centre_of.entry((p / 2, d)).or_insert_with(|| {
                                // f16 pairs hold magic + z, bf16 ones -(magic + z).
                                let sign = match act {
                                    Act16::F16 => -1.0,
                                    Act16::Bf16 => 1.0,
                                };
                                let k = act.pair_imm(act.magic() - act.magic() / (1u32 << d) as f32);
                                b.fma(act.pair_ty(), zero, act.pair_imm(sign), k)
                            });
                            b.fma(act.pair_ty(), v, act.pair_imm(2f32.powi(-(d as i32))), c)
                        };
                        scale_pair(b, act, centred, t.scale)
                    }
                    Dequant::IntF32 { implicit_zero } => {
                        let x = field(b, words, 8, p, false);
                        let zero: Operand = match (t.zero, implicit_zero) {
                            (Some(z), _) => z.into(),
                            (None, Some(z)) => Operand::f32((1u32 << 23) as f32 + z as f32),
                            (None, None) => unreachable!("integer weights need a zero point"),
                        };
                        let halves: Vec<Reg> = [0u32, 16]
                            .iter()
                            .map(|&sh| {
                                let q = if sh == 0 { b.and32(x, 0xFFu32) } else { b.bfe(x, 16, 8) };
                                let v = b.op(BinOp::Or, Ty::B32, q, 0x4B00_0000u32);
                                let f = b.mov_as(RegClass::F32, v);
                                let c = b.op(BinOp::Sub, Ty::F32, f, zero);
                                match t.scale {
                                    Some(s) => b.op(BinOp::Mul, Ty::F32, c, s),
                                    None => c,
                                }
                            })
                            .collect();
                        let d = b.reg(RegClass::B32);
                        b.emit(crate::ir::Inst::CvtPack {
                            dst_ty: Ty::Bf16x2,
                            satfinite: false,
                            dst: d,
                            hi: halves[1].into(),
                            lo: halves[0].into(),
                        });
                        d
                    }
                    Dequant::FloatRealign { act, format } => {
                        let (et, bias_t) = act.exp_bias();
                        let v = if float4::applies(format) {
                            float4_in_place(b, words[p / 4], format, act, p % 4)
                        } else {
                            let bits = format.bits() as u32;
                            // Code at the top of each half: sign at bit 15.
                            let top = field(b, words, format.bits(), p, true);
                            let e = format.exp_bits() as u32;
                            let em_mask = ((1u32 << (bits - 1)) - 1) << (16 - bits);
                            let em = b.and32(top, em_mask * 0x0001_0001);
                            let em = b.shr32(em, et - e);
                            // sign | em
                            b.lop3(top, 0x8000_8000u32, em, 0xEA)
                        };
                        let shift = bias_t - format.bias();
                        let fix = act.pair_imm(2f32.powi(shift));
                        let exact = match act {
                            Act16::F16 => b.op_pk(BinOp::Mul, Ty::F16x2, v, fix),
                            Act16::Bf16 => b.fma(Ty::Bf16x2, v, fix, 0x8000_8000u32),
                        };
                        scale_pair(b, act, exact, t.scale)
                    }
                }
            })
            .collect()
    }
}

/// The sign and exponent / mantissa bits of slot `slot`'s pair of 4-bit float codes in word `x`
/// moved to their targets in both halves ([`float4`]: the code bits that share a rotation are
/// rotated and masked together, the groups merged), other bits zero.
fn float4_in_place(b: &mut KernelBuilder, x: Reg, format: FloatFormat, act: Act16, slot: usize) -> Reg {
    let mut groups: Vec<(u32, u32)> = Vec::new();
    for i in (0..4).rev() {
        let (rot, t) = (float4::rotation(format, act.format(), slot, i), float4::target(format, act.format(), i));
        match groups.iter_mut().find(|g| g.0 == rot) {
            Some(g) => g.1 |= 1 << t,
            None => groups.push((rot, 1 << t)),
        }
    }
    let mut v: Option<Reg> = None;
    for (rot, targets) in groups {
        // A shift where no target takes a bit across the halves, else a rotation.
        let y = match rot {
            0 => x,
            r if targets.trailing_zeros() >= r => b.shl32(x, r),
            r => b.rotl32(x, r),
        };
        let mask = targets * 0x0001_0001;
        v = Some(match v {
            None => b.and32(y, mask),
            Some(v) => b.lop3(y, mask, v, 0xEA),
        });
    }
    v.expect("four code bits")
}

/// `v * scale` rounded once in the activation type (bf16 through fma with -0, as there is no
/// `mul.bf16x2` before sm_90); `v` itself without a scale.
fn scale_pair(b: &mut KernelBuilder, act: Act16, v: Reg, scale: Option<Reg>) -> Reg {
    let Some(scale) = scale else { return v };
    match act {
        Act16::F16 => b.op_pk(BinOp::Mul, Ty::F16x2, v, scale),
        Act16::Bf16 => b.fma(Ty::Bf16x2, v, scale, 0x8000_8000u32),
    }
}

/// The two values of pair `p` (width `bits`) in both halves of a register at a bit offset `d`
/// with `d + bits <= limit` (`limit`: the activation type's mantissa bits, so that OR-ing the
/// field into the magic number stays exact), shifting the word right when the field sits
/// higher: by 8 where that is enough (the shifted word is cached and serves several fields),
/// else down to the bottom. Fields straddling two words come out at the bottom.
fn field_in_place(
    b: &mut KernelBuilder,
    words: &[Reg],
    bits: u8,
    p: usize,
    limit: u32,
    shifted: &mut std::collections::HashMap<(usize, u32), Reg>,
) -> (Reg, u32) {
    match place(bits, p, limit) {
        Place::Straddle => (field(b, words, bits, p, false), 0),
        Place::Word { w, shift: 0, d } => (words[w], d),
        Place::Word { w, shift, d } => (*shifted.entry((w, shift)).or_insert_with(|| b.shr32(words[w], shift)), d),
    }
}

/// Where [`field_in_place`] finds pair `p`: straddling two words (joined at the bottom), or in
/// word `w` shifted right by `shift`, at bit offset `d` of each half.
enum Place {
    Straddle,
    Word { w: usize, shift: u32, d: u32 },
}

fn place(bits: u8, p: usize, limit: u32) -> Place {
    let nbits = bits as u32;
    let start = p as u32 * nbits;
    let (w, o) = ((start / 16) as usize, start % 16);
    if o + nbits > 16 {
        return Place::Straddle;
    }
    let shift = if o + nbits <= limit {
        0
    } else if o >= 8 && o - 8 + nbits <= limit {
        8
    } else {
        o
    };
    Place::Word { w, shift, d: o - shift }
}

/// The two values of pair `p` (width `bits`) in both halves of a register: at the bottom of each
/// half (`top = false`, garbage above) or with their top bit at bit 15 of each half (`top = true`,
/// garbage below). Values straddling two words are joined with a second shift and a `lop3`.
fn field(b: &mut KernelBuilder, words: &[Reg], bits: u8, p: usize, top: bool) -> Reg {
    let bits = bits as u32;
    let start = p as u32 * bits;
    let (w, o) = ((start / 16) as usize, start % 16);
    if o + bits <= 16 {
        if top {
            let up = 16 - bits - o;
            if up == 0 { words[w] } else { b.shl32(words[w], up) }
        } else if o == 0 {
            words[w]
        } else {
            b.shr32(words[w], o)
        }
    } else {
        // Low part: bits o..16 of word w; high part: bits 0..(o+bits-16) of word w+1.
        let lo_len = 16 - o;
        let lo = b.shr32(words[w], o);
        let hi = b.shl32(words[w + 1], lo_len);
        let sel = ((1u32 << lo_len) - 1) * 0x0001_0001;
        // (lo & sel) | (hi & ~sel): value at the bottom of each half.
        let v = b.lop3(lo, hi, sel, 0xE4);
        if top { b.shl32(v, 16 - bits) } else { v }
    }
}
