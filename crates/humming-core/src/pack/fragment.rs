//! The fragment-ordered weight layout of the 16-bit-activation kernels, and its inverse.
//!
//! `mma.sync.m16n8k16.row.col` (and two `m16n8k8` on sm_75) gives lane `l` (group `g = l / 4`,
//! thread-in-group `t = l % 4`) the B values at column `n = 8j + g` of each n8 tile `j` and rows
//! `k = 2t, 2t+1` (register 0) and `k = 2t+8, 2t+9` (register 1) of each k16 step. For one k16 step
//! and one 64-wide block of N (8 n8 tiles), a lane therefore owns 32 weights: 16 register *pairs*
//! `p = 2j + r` (`r` the register), each with a *lo* value (even k) and a *hi* value (odd k).
//!
//! Storage: those 32 codes take exactly `bits` 32-bit words per lane (no padding bits, whatever
//! the width). The lo values form a stream of `16 * bits` bits laid over the low halves of the
//! lane's words (stream bit `x` is bit `x % 16` of word `x / 16`), the hi values the same stream over
//! the high halves. Pair `p` starts at stream bit `p * bits`; a value may straddle two words (widths
//! 3, 5, 6, 7), which the kernel rebuilds with two shifts. Both values of a pair then come out of
//! one register with a single shift and mask, already in the two halves of an `f16x2`/`bf16x2`.
//!
//! Global order: `[k16 step][n64 block][lane][word]`, so the weights of one k16 row of a CTA
//! tile are contiguous (coalesced 16-byte copies), and a lane's words are contiguous (one vector
//! shared-memory load).
//!
//! 4-bit floats (FP4 e2m1 and its siblings) keep the words of the stream (pair `p` in word
//! `p / 4` of its block) but place each code's bits within the word where a rotation or two
//! rebuild the pattern of the kernels' activation type ([`BitPlacement`], [`super::float4`]).
//!
//! Codes are *kernel codes* ([`kernel_code`]): signed integers are stored offset-binary (sign bit
//! flipped) so that the kernel's integer path only ever sees unsigned codes with a zero point.

use crate::ActFormat;
use crate::format::WeightFormat;

/// Padding granularity of K in the packed layout (four k16 steps, the smallest stage). Stages
/// need not divide the padded K: the kernels run a partial last stage, so weights packed once
/// run with every plan (each M bucket has its own).
pub const K_ALIGN: usize = 64;
/// Padding granularity of N in the packed layout (one warp's n64 block).
pub const N_ALIGN: usize = 64;

/// Where the bits of each code sit in its words: the stream, or (4-bit floats) where the kernels
/// of one 16-bit activation type rebuild them with few instructions ([`super::float4`]). Weights
/// are packed for the placement of the kernels that will read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitPlacement {
    Stream,
    Float4 { act: ActFormat },
}

impl BitPlacement {
    /// The placement read by the kernels for weight format `format` and activation type `act`.
    pub fn new(format: WeightFormat, act: ActFormat) -> BitPlacement {
        match format {
            WeightFormat::Float(f) if super::float4::applies(f) => BitPlacement::Float4 { act },
            _ => BitPlacement::Stream,
        }
    }
}

impl std::fmt::Display for BitPlacement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BitPlacement::Stream => write!(f, "the bit stream"),
            BitPlacement::Float4 { act } => write!(f, "4-bit float codes placed for {act} activations"),
        }
    }
}

/// Shape of a packed weight matrix in the A16 fragment layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct A16Layout {
    /// Weight width in bits (1..=8).
    pub bits: u8,
    /// Logical output channels.
    pub n: usize,
    /// Logical reduction length.
    pub k: usize,
    /// `n` rounded up to [`N_ALIGN`].
    pub n_pad: usize,
    /// `k` rounded up to [`K_ALIGN`] and to the scale group.
    pub k_pad: usize,
}

impl A16Layout {
    /// The layout of an `n x k` matrix of `bits`-bit codes whose scale groups are `group` long
    /// along K (`None` = per channel).
    pub fn new(bits: u8, n: usize, k: usize, group: Option<usize>) -> A16Layout {
        assert!((1..=8).contains(&bits), "weight width {bits} out of 1..=8");
        let kal = group.map_or(K_ALIGN, |g| g.max(K_ALIGN));
        A16Layout { bits, n, k, n_pad: n.div_ceil(N_ALIGN) * N_ALIGN, k_pad: k.div_ceil(kal) * kal }
    }

    /// 32-bit words per lane per (k16, n64) block.
    pub fn words_per_lane(&self) -> usize {
        self.bits as usize
    }

    /// Bytes of one (k16, n64) block: 32 lanes x `bits` words.
    pub fn block_bytes(&self) -> usize {
        128 * self.bits as usize
    }

    /// Number of n64 blocks.
    pub fn n_blocks(&self) -> usize {
        self.n_pad / 64
    }

    /// Number of k16 steps.
    pub fn k_steps(&self) -> usize {
        self.k_pad / 16
    }

    /// Total 32-bit words of the packed matrix.
    pub fn total_words(&self) -> usize {
        self.k_steps() * self.n_blocks() * 32 * self.words_per_lane()
    }

    /// Where logical element `(n, k)` lives: (word index into the packed buffer, stream bit
    /// offset inside the lane's words counted per half, half: 0 = lo, 1 = hi).
    pub fn locate(&self, n: usize, k: usize) -> (usize, usize, usize) {
        let (kb, kk) = (k / 16, k % 16);
        let (nb, nn) = (n / 64, n % 64);
        let (j, g) = (nn / 8, nn % 8);
        let (r, kr) = (kk / 8, kk % 8);
        let (t, half) = (kr / 2, kr % 2);
        let lane = g * 4 + t;
        let pair = 2 * j + r;
        let lane_base = ((kb * self.n_blocks() + nb) * 32 + lane) * self.words_per_lane();
        (lane_base, pair * self.bits as usize, half)
    }
}

/// The code the kernel sees for a logical code of `format`: unsigned integers and floats
/// unchanged, signed integers offset-binary (`code ^ 2^(bits-1)`), i.e. an unsigned code with
/// zero point `2^(bits-1)`.
pub fn kernel_code(format: WeightFormat, code: u8) -> u8 {
    match format {
        WeightFormat::SInt(b) => (code ^ (1 << (b - 1))) & ((1u16 << b) - 1) as u8,
        _ => code,
    }
}

/// Inverse of [`kernel_code`].
pub fn logical_code(format: WeightFormat, kcode: u8) -> u8 {
    kernel_code(format, kcode)
}

/// Where bit `i` of the value at stream bit `bit` of half `half` (from [`A16Layout::locate`])
/// lives: (word index, bit of the word). Stream bit `x` is bit `x % 16` of word `x / 16`'s half;
/// 4-bit floats placed for an activation type sit per [`super::float4`] instead (pair `bit / 4`,
/// its word `bit / 16`, slot `pair % 4`).
fn code_bit(format: WeightFormat, placement: BitPlacement, base: usize, bit: usize, half: usize, i: usize) -> (usize, u32) {
    match (format, placement) {
        (WeightFormat::Float(f), BitPlacement::Float4 { act }) => (base + bit / 16, super::float4::word_bit(f, act, bit / 4 % 4, half, i)),
        _ => (base + (bit + i) / 16, ((bit + i) % 16 + 16 * half) as u32),
    }
}

/// Repacks logical codes (`[n, k]` row-major, one per byte) into the fragment layout, bits
/// placed per `placement` ([`BitPlacement::new`] of the format). Padding elements get `pad_code`
/// (a kernel code; callers pass the code of the value zero).
pub fn repack_a16(codes: &[u8], layout: &A16Layout, format: WeightFormat, placement: BitPlacement, pad_code: u8) -> Vec<u32> {
    assert_eq!(codes.len(), layout.n * layout.k, "codes must be n*k");
    let mut out = vec![0u32; layout.total_words()];
    let bits = layout.bits as usize;
    let mask = (1u32 << bits) - 1;
    for n in 0..layout.n_pad {
        for k in 0..layout.k_pad {
            let c = if n < layout.n && k < layout.k { kernel_code(format, codes[n * layout.k + k]) } else { pad_code };
            let c = c as u32 & mask;
            let (base, bit, half) = layout.locate(n, k);
            for i in 0..bits {
                if c >> i & 1 == 1 {
                    let (w, b) = code_bit(format, placement, base, bit, half, i);
                    out[w] |= 1 << b;
                }
            }
        }
    }
    out
}

/// Inverse of [`repack_a16`]: the logical codes of the `n x k` matrix (padding dropped).
pub fn unpack_a16(words: &[u32], layout: &A16Layout, format: WeightFormat, placement: BitPlacement) -> Vec<u8> {
    assert_eq!(words.len(), layout.total_words(), "packed length");
    let bits = layout.bits as usize;
    let mut codes = vec![0u8; layout.n * layout.k];
    for n in 0..layout.n {
        for k in 0..layout.k {
            let (base, bit, half) = layout.locate(n, k);
            let mut c = 0u8;
            for i in 0..bits {
                let (w, b) = code_bit(format, placement, base, bit, half, i);
                if words[w] >> b & 1 == 1 {
                    c |= 1 << i;
                }
            }
            codes[n * layout.k + k] = logical_code(format, c);
        }
    }
    codes
}

/// Position of scale column `n` in the permuted scale row: inside each 64-column chunk, lane
/// group `g` reads its 8 scales (n8 tiles `j = 0..8`, column `8j + g`) contiguously.
pub fn scale_slot(n: usize) -> usize {
    let (nb, nn) = (n / 64, n % 64);
    let (j, g) = (nn / 8, nn % 8);
    nb * 64 + g * 8 + j
}

/// Permutes per-(group, n) values (`[n, groups]` row-major, as quantizers produce them) into the
/// kernel's `[groups][n_pad]` order with [`scale_slot`] inside each row; padding gets `pad`.
pub fn permute_group_values<T: Copy>(values: &[T], n: usize, groups: usize, n_pad: usize, pad: T) -> Vec<T> {
    assert_eq!(values.len(), n * groups, "values must be n*groups");
    let mut out = vec![pad; groups * n_pad];
    for col in 0..n {
        for g in 0..groups {
            out[g * n_pad + scale_slot(col)] = values[col * groups + g];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_element_has_its_own_bits() {
        let mut cases: Vec<(WeightFormat, BitPlacement)> = (1..=8).map(|b| (WeightFormat::UInt(b), BitPlacement::Stream)).collect();
        for f in crate::format::FloatFormat::all().into_iter().filter(|f| f.bits() == 4) {
            for act in [ActFormat::F16, ActFormat::Bf16] {
                cases.push((WeightFormat::Float(f), BitPlacement::new(WeightFormat::Float(f), act)));
            }
        }
        for (format, placement) in cases {
            let bits = format.bits();
            let l = A16Layout::new(bits, 64, 16, None);
            let mut seen = std::collections::HashSet::new();
            for n in 0..64 {
                for k in 0..16 {
                    let (base, bit, half) = l.locate(n, k);
                    for i in 0..bits as usize {
                        let (w, b) = code_bit(format, placement, base, bit, half, i);
                        assert!(w < base + bits as usize && seen.insert((w, b)), "{format} {placement}");
                    }
                }
            }
            assert_eq!(seen.len(), 32 * 32 * bits as usize, "bit-exact: no padding bits");
        }
    }

    #[test]
    fn lane_zero_owns_the_isa_fragment() {
        let l = A16Layout::new(4, 64, 16, None);
        // lane 0 = (g 0, t 0): k in {0, 1, 8, 9} of column 0 of tile 0 -> first word.
        assert_eq!(l.locate(0, 0), (0, 0, 0));
        assert_eq!(l.locate(0, 1), (0, 0, 1));
        assert_eq!(l.locate(0, 8), (0, 4, 0));
        assert_eq!(l.locate(8, 0), (0, 8, 0));
        // lane 5 = (g 1, t 1): column 1, k 2.
        assert_eq!(l.locate(1, 2), (5 * 4, 0, 0));
    }

    #[test]
    fn scale_slots_are_a_permutation() {
        let mut v: Vec<usize> = (0..128).map(scale_slot).collect();
        v.sort();
        assert_eq!(v, (0..128).collect::<Vec<_>>());
    }
}

#[cfg(test)]
mod round_trip {
    use super::*;
    use crate::format::FloatFormat;
    use crate::rng::SplitMix64;

    /// repack -> unpack gives back every code, for every width, signedness and ragged shape.
    #[test]
    fn repack_unpack_round_trips_every_width() {
        let mut rng = SplitMix64::new(3);
        let mut formats: Vec<WeightFormat> = (1..=8).map(WeightFormat::UInt).collect();
        formats.extend((2..=8).map(WeightFormat::SInt));
        formats.extend([FloatFormat::E2M1, FloatFormat::E4M3, FloatFormat::E3M2].map(WeightFormat::Float));
        for format in formats {
            let bits = format.bits();
            for (act, (n, k)) in [ActFormat::F16, ActFormat::Bf16].into_iter().flat_map(|a| [(1, 8), (64, 16), (70, 72), (200, 136)].map(|s| (a, s))) {
                let placement = BitPlacement::new(format, act);
                let codes: Vec<u8> = (0..n * k).map(|_| rng.below(1 << bits) as u8).collect();
                let layout = A16Layout::new(bits, n, k, Some(32));
                let words = repack_a16(&codes, &layout, format, placement, 0);
                assert_eq!(words.len(), layout.total_words());
                assert_eq!(unpack_a16(&words, &layout, format, placement), codes, "{format} {placement} {n}x{k}");
            }
        }
    }
}
