//! Where the bits of 4-bit float codes (a sign and three exponent / mantissa bits: FP4 e2m1, also
//! e1m2 and e3m0) sit in the fragment layout's words, so that the kernel rebuilds a pair of
//! 16-bit values in few instructions.
//!
//! A value `s | em` becomes its activation type's bit pattern `s` at bit 15, `em` with its
//! exponent bits at the bottom of the type's exponent field (times `2^(bias_act - bias_w)`
//! afterwards, see [`crate::kernel::dequant`]). In the plain stream layout every pair then costs
//! a shift up, a mask, a shift down and a merge. Here each of a word's four pairs (slot `p % 4`)
//! puts each code bit where a rotation of the whole word by one of at most two amounts moves it
//! to its bf16 target, so a pair is one mask (slot 0), a rotation and a mask (slots 1, 2), or two
//! rotations, a mask and a merge (slot 3): 9 instructions a word against 15 (e2m1, bf16). No
//! placement of four slots reaches the targets with one rotation each (the targets do not tile
//! the 16 bits of a half); the tables below are the cheapest an exhaustive search found.
//! f16 targets lie 3 bits higher for the exponent / mantissa bits, which costs 17 a word.
//!
//! Both values of a pair use the same placement, the lo value's relative to the low half and
//! the hi value's to the high half, so a rotation serves both; where it wraps, a bit of one value
//! is stored in the other half.

use crate::format::FloatFormat;

/// Per slot (`p % 4`) and code bit (`[sign, em bit 2, em bit 1, em bit 0]`): the left rotation of
/// the word that brings the bit to its bf16 target, for E = 1, 2, 3.
const ROTATIONS: [[[u32; 4]; 4]; 3] = [
    [[0, 0, 0, 0], [3, 3, 3, 3], [2, 12, 12, 12], [7, 7, 5, 7]],
    [[0, 0, 0, 0], [4, 4, 4, 4], [10, 10, 10, 10], [6, 14, 6, 6]],
    [[0, 0, 0, 0], [3, 3, 3, 3], [1, 7, 7, 7], [5, 12, 5, 12]],
];

/// Whether `format` uses this placement (4-bit floats; other widths keep the stream layout).
pub fn applies(format: FloatFormat) -> bool {
    format.bits() == 4
}

/// Code bit `i` (3 = sign) of a value: its target bit in a 16-bit half of the activation type
/// with `mant` mantissa bits (7 for bf16, 10 for f16).
pub fn target(format: FloatFormat, mant: u32, i: usize) -> u32 {
    if i == 3 { 15 } else { mant - format.man_bits() as u32 + i as u32 }
}

/// The rotation of code bit `i` of slot `slot` towards an activation type with `mant` mantissa
/// bits (the bf16 table's, plus the targets' offset from bf16's).
pub fn rotation(format: FloatFormat, mant: u32, slot: usize, i: usize) -> u32 {
    let r = ROTATIONS[format.exp_bits() as usize - 1][slot][3 - i];
    (r + target(format, mant, i) - target(format, 7, i)) % 32
}

/// The bit of the 32-bit word that holds code bit `i` of the value in half `half` (0 = lo) of
/// slot `slot`.
pub fn word_bit(format: FloatFormat, slot: usize, half: usize, i: usize) -> u32 {
    (target(format, 7, i) + 16 * half as u32 + 32 - rotation(format, 7, slot, i)) % 32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every placement fills a word exactly, and rotating by each bit's amount brings it to its
    /// target, for both activation types.
    #[test]
    fn placements_fill_the_word_and_rotate_to_their_targets() {
        for format in FloatFormat::all().into_iter().filter(|f| applies(*f)) {
            let mut seen = std::collections::HashSet::new();
            for slot in 0..4 {
                for half in 0..2 {
                    for i in 0..4 {
                        let w = word_bit(format, slot, half, i);
                        assert!(seen.insert(w), "{format}: bit {w} used twice");
                        for mant in [7, 10] {
                            let moved = (w + rotation(format, mant, slot, i)) % 32;
                            assert_eq!(moved, target(format, mant, i) + 16 * half as u32, "{format} slot {slot} bit {i}");
                        }
                    }
                }
            }
            assert_eq!(seen.len(), 32, "{format}");
        }
    }
}
