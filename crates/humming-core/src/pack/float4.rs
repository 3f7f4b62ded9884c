//! Where the bits of 4-bit float codes (a sign and three exponent / mantissa bits: FP4 e2m1, also
//! e1m2 and e3m0) sit in the fragment layout's words, so that the kernel rebuilds a pair of
//! 16-bit values in few instructions.
//!
//! A value `s | em` becomes its activation type's bit pattern `s` at bit 15, `em` with its
//! exponent bits at the bottom of the type's exponent field (times `2^(bias_act - bias_w)`
//! afterwards, see [`crate::kernel::dequant`]). In the plain stream layout every pair then costs
//! a shift up, a mask, a shift down and a merge. Here each of a word's four pairs (slot `p % 4`)
//! puts each code bit where a rotation of the whole word by one of at most two amounts moves it
//! to its target. For e2m1 and bf16 a pair is then one mask (slot 0), a rotation and a mask
//! (slots 1, 2), or two rotations, a mask and a merge (slot 3): 9 instructions a word against 15. No
//! placement of four slots reaches the targets with one rotation each (the targets do not tile
//! the 16 bits of a half); the tables below are the cheapest an exhaustive search found.
//! f16 targets lie 3 bits higher for the exponent / mantissa bits, so f16 has placements of its
//! own (10 a word for e2m1): the packer places the bits for the activation type of the kernels
//! that will read them ([`super::fragment::BitPlacement`]).
//!
//! Both values of a pair use the same placement, the lo value's relative to the low half and
//! the hi value's to the high half, so a rotation serves both; where it wraps, a bit of one value
//! is stored in the other half.

use crate::ActFormat;
use crate::format::FloatFormat;

/// Per activation type (bf16, f16), E = 1, 2, 3, slot (`p % 4`) and code bit (`[sign, em bit 2,
/// em bit 1, em bit 0]`): the left rotation of the word that brings the bit to its target.
const ROTATIONS: [[[[u32; 4]; 4]; 3]; 2] = [
    [
        [[0, 0, 0, 0], [3, 3, 3, 3], [2, 12, 12, 12], [7, 7, 5, 7]],
        [[0, 0, 0, 0], [4, 4, 4, 4], [10, 10, 10, 10], [6, 14, 6, 6]],
        [[0, 0, 0, 0], [3, 3, 3, 3], [1, 7, 7, 7], [5, 12, 5, 12]],
    ],
    [
        [[0, 0, 0, 0], [8, 8, 8, 8], [12, 12, 12, 12], [4, 4, 4, 4]],
        [[9, 9, 9, 9], [6, 6, 6, 6], [2, 0, 2, 2], [0, 13, 0, 13]],
        [[10, 10, 10, 10], [0, 0, 7, 7], [4, 4, 4, 4], [1, 15, 1, 1]],
    ],
];

/// Whether `format` uses this placement (4-bit floats; other widths keep the stream layout).
pub fn applies(format: FloatFormat) -> bool {
    format.bits() == 4
}

/// Code bit `i` (3 = sign) of a value: its target bit in a 16-bit half of `act` (f16 or bf16).
pub fn target(format: FloatFormat, act: ActFormat, i: usize) -> u32 {
    if i == 3 { 15 } else { (act.scalar().mantissa_bits() - format.man_bits()) as u32 + i as u32 }
}

/// The left rotation of the word that brings code bit `i` of slot `slot` to its target in `act`.
pub fn rotation(format: FloatFormat, act: ActFormat, slot: usize, i: usize) -> u32 {
    ROTATIONS[usize::from(act == ActFormat::F16)][format.exp_bits() as usize - 1][slot][3 - i]
}

/// The bit of the 32-bit word that holds code bit `i` of the value in half `half` (0 = lo) of
/// slot `slot`, placed for `act`.
pub fn word_bit(format: FloatFormat, act: ActFormat, slot: usize, half: usize, i: usize) -> u32 {
    (target(format, act, i) + 16 * half as u32 + 32 - rotation(format, act, slot, i)) % 32
}

/// Instructions the kernel spends a word rebuilding its four pairs: per slot, one rotation for
/// each nonzero amount, one mask and one merging LOP3 for each further amount.
pub fn instructions_per_word(format: FloatFormat, act: ActFormat) -> u32 {
    (0..4)
        .map(|slot| {
            let mut amounts: Vec<u32> = (0..4).map(|i| rotation(format, act, slot, i)).collect();
            amounts.sort_unstable();
            amounts.dedup();
            amounts.len() as u32 + amounts.iter().filter(|&&r| r != 0).count() as u32
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every placement fills a word exactly, and rotating by each bit's amount brings it to its
    /// target, for both activation types.
    #[test]
    fn placements_fill_the_word_and_rotate_to_their_targets() {
        for format in FloatFormat::all().into_iter().filter(|f| applies(*f)) {
            for act in [ActFormat::Bf16, ActFormat::F16] {
                let mut seen = std::collections::HashSet::new();
                for slot in 0..4 {
                    for half in 0..2 {
                        for i in 0..4 {
                            let w = word_bit(format, act, slot, half, i);
                            assert!(seen.insert(w), "{format} {act:?}: bit {w} used twice");
                            let moved = (w + rotation(format, act, slot, i)) % 32;
                            assert_eq!(moved, target(format, act, i) + 16 * half as u32, "{format} {act:?} slot {slot} bit {i}");
                        }
                    }
                }
                assert_eq!(seen.len(), 32, "{format} {act:?}");
            }
        }
    }

    /// The tables' costs (the plain stream costs 15 a word): what an exhaustive search over the
    /// placements with at most two rotations a slot found as the minimum.
    #[test]
    fn placement_costs() {
        let cost = |e, m, act| instructions_per_word(FloatFormat::new(e, m).unwrap(), act);
        assert_eq!([cost(1, 2, ActFormat::Bf16), cost(2, 1, ActFormat::Bf16), cost(3, 0, ActFormat::Bf16)], [11, 9, 11]);
        assert_eq!([cost(1, 2, ActFormat::F16), cost(2, 1, ActFormat::F16), cost(3, 0, ActFormat::F16)], [7, 10, 11]);
    }
}
