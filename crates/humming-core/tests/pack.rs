//! Bit packing: hand-computed vectors, round trips for every width, typed errors.

use humming_core::PackError;
use humming_core::pack::{pack, pack_rows, packed_len, row_stride, unpack, unpack_rows};
use proptest::prelude::*;

/// Width 3, codes [1, 2, 3, 4, 5]: the stream is 001 010 011 100 101 read LSB first, i.e.
/// 1 | 2<<3 | 3<<6 | 4<<9 | 5<<12 = 0x58D1, 15 bits in 2 bytes (the top bit is padding).
#[test]
fn width3_known_bytes() {
    let bytes = pack(&[1, 2, 3, 4, 5], 3).unwrap();
    assert_eq!(bytes, vec![0xD1, 0x58]);
    assert_eq!(unpack(&bytes, 3, 5).unwrap(), vec![1, 2, 3, 4, 5]);
}

/// Width 4: two codes per byte, the first in the low nibble.
#[test]
fn width4_known_bytes() {
    assert_eq!(
        pack(&[0x1, 0x2, 0xF, 0x0, 0x7], 4).unwrap(),
        vec![0x21, 0x0F, 0x07]
    );
}

/// Width 1: code i is bit i; width 2: four codes per byte, LSB first.
#[test]
fn width1_and_width2_known_bytes() {
    assert_eq!(
        pack(&[1, 0, 1, 1, 0, 0, 0, 1, 1], 1).unwrap(),
        vec![0b1000_1101, 0b1]
    );
    assert_eq!(
        pack(&[3, 0, 1, 2, 1], 2).unwrap(),
        vec![0b10_01_00_11, 0b01]
    );
}

/// Width 5 straddles bytes: 0x1F | 0x01<<5 | 0x10<<10 = 0x403F -> [0x3F, 0x40].
#[test]
fn width5_known_bytes() {
    assert_eq!(pack(&[0x1F, 0x01, 0x10], 5).unwrap(), vec![0x3F, 0x40]);
}

/// Width 7 and 8: 8-bit codes are the bytes themselves; 7-bit codes shift by 7 each.
#[test]
fn width7_and_width8_known_bytes() {
    assert_eq!(
        pack(&[0xAB, 0x00, 0xFF], 8).unwrap(),
        vec![0xAB, 0x00, 0xFF]
    );
    // 0x7F | 0x01<<7 = 0xFF, 0x01>>1 = 0 in the second byte.
    assert_eq!(pack(&[0x7F, 0x01], 7).unwrap(), vec![0xFF, 0x00]);
    // 0x00 | 0x7F<<7 = 0x3F80 -> [0x80, 0x3F].
    assert_eq!(pack(&[0x00, 0x7F], 7).unwrap(), vec![0x80, 0x3F]);
}

/// Rows start on byte boundaries: 3 codes of 3 bits need 2 bytes per row.
#[test]
fn rows_start_on_byte_boundaries() {
    assert_eq!(row_stride(3, 3), 2);
    let bytes = pack_rows(&[1, 2, 3, 7, 7, 7], 2, 3, 3).unwrap();
    // Row 0: 1 | 2<<3 | 3<<6 = 0xD1 -> [0xD1, 0x00]; row 1: 0x1FF -> [0xFF, 0x01].
    assert_eq!(bytes, vec![0xD1, 0x00, 0xFF, 0x01]);
    assert_eq!(
        unpack_rows(&bytes, 2, 3, 3).unwrap(),
        vec![1, 2, 3, 7, 7, 7]
    );
}

#[test]
fn empty_inputs() {
    assert_eq!(pack(&[], 5).unwrap(), Vec::<u8>::new());
    assert_eq!(unpack(&[], 5, 0).unwrap(), Vec::<u8>::new());
    assert_eq!(pack_rows(&[], 3, 0, 4).unwrap(), Vec::<u8>::new());
    assert_eq!(unpack_rows(&[], 3, 0, 4).unwrap(), Vec::<u8>::new());
    assert_eq!(pack_rows(&[], 0, 5, 4).unwrap(), Vec::<u8>::new());
}

#[test]
fn bad_widths_are_errors() {
    for bits in [0u8, 9, 255] {
        assert_eq!(pack(&[0], bits), Err(PackError::Width { bits }));
        assert_eq!(unpack(&[0], bits, 1), Err(PackError::Width { bits }));
        assert_eq!(pack_rows(&[0], 1, 1, bits), Err(PackError::Width { bits }));
        assert_eq!(
            unpack_rows(&[0], 1, 1, bits),
            Err(PackError::Width { bits })
        );
    }
}

#[test]
fn codes_that_do_not_fit_are_errors() {
    assert_eq!(
        pack(&[1, 2, 8, 1], 3),
        Err(PackError::CodeTooWide {
            index: 2,
            code: 8,
            bits: 3
        })
    );
    assert_eq!(
        pack(&[2], 1),
        Err(PackError::CodeTooWide {
            index: 0,
            code: 2,
            bits: 1
        })
    );
    // The index is the position in the whole matrix, not in the row.
    assert_eq!(
        pack_rows(&[0, 1, 2, 3, 16, 5], 2, 3, 4),
        Err(PackError::CodeTooWide {
            index: 4,
            code: 16,
            bits: 4
        })
    );
}

#[test]
fn short_buffers_are_errors() {
    assert_eq!(
        unpack(&[0xFF], 3, 3),
        Err(PackError::TooShort { needed: 2, got: 1 })
    );
    assert_eq!(
        unpack_rows(&[0; 3], 2, 3, 3),
        Err(PackError::TooShort { needed: 4, got: 3 })
    );
}

#[test]
fn shape_mismatches_are_errors() {
    assert_eq!(
        pack_rows(&[0; 5], 2, 3, 4),
        Err(PackError::Shape {
            rows: 2,
            cols: 3,
            expected: 6,
            got: 5
        })
    );
    assert_eq!(
        unpack_rows(&[0; 5], 2, 3, 3),
        Err(PackError::Shape {
            rows: 2,
            cols: 3,
            expected: 4,
            got: 5
        })
    );
    assert!(matches!(
        pack_rows(&[0; 5], usize::MAX, 3, 4),
        Err(PackError::Shape { .. })
    ));
}

/// A reference unpacker written bit by bit, independent of the library's byte arithmetic.
fn bit_by_bit(bytes: &[u8], bits: u8, count: usize) -> Vec<u8> {
    (0..count)
        .map(|i| {
            (0..bits).fold(0u8, |acc, j| {
                let bit = i * bits as usize + j as usize;
                acc | (((bytes[bit / 8] >> (bit % 8)) & 1) << j)
            })
        })
        .collect()
}

/// Random codes of width `bits` and random length (any length, not only multiples of 8).
fn codes_strategy() -> impl Strategy<Value = (u8, Vec<u8>)> {
    (1u8..=8).prop_flat_map(|bits| {
        let max = ((1u16 << bits) - 1) as u8;
        (Just(bits), prop::collection::vec(0..=max, 1..200))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn round_trip_every_width((bits, codes) in codes_strategy()) {
        let bytes = pack(&codes, bits).unwrap();
        prop_assert_eq!(bytes.len(), packed_len(codes.len(), bits));
        prop_assert_eq!(bytes.len(), (codes.len() * bits as usize).div_ceil(8));
        prop_assert_eq!(&unpack(&bytes, bits, codes.len()).unwrap(), &codes);
        prop_assert_eq!(&bit_by_bit(&bytes, bits, codes.len()), &codes);
        // Padding bits after the last code are zero.
        let used = codes.len() * bits as usize;
        if used % 8 != 0 {
            prop_assert_eq!(bytes[bytes.len() - 1] >> (used % 8), 0);
        }
        // A prefix unpacks to the prefix, and extra bytes are ignored.
        let half = codes.len() / 2;
        prop_assert_eq!(&unpack(&bytes, bits, half).unwrap()[..], &codes[..half]);
        let mut longer = bytes.clone();
        longer.push(0xA5);
        prop_assert_eq!(&unpack(&longer, bits, codes.len()).unwrap(), &codes);
    }

    #[test]
    fn every_width_is_covered(bits in 1u8..=8, len in 1usize..40, seed in any::<u64>()) {
        // Deterministic pseudo-random codes from the seed, so every width gets its own cases.
        let mask = ((1u16 << bits) - 1) as u64;
        let codes: Vec<u8> = (0..len as u64)
            .map(|i| ((seed.rotate_left(i as u32 * 7) ^ (i * 0x9E37_79B9)) & mask) as u8)
            .collect();
        let bytes = pack(&codes, bits).unwrap();
        prop_assert_eq!(unpack(&bytes, bits, len).unwrap(), codes);
    }

    #[test]
    fn rows_round_trip(bits in 1u8..=8, rows in 1usize..6, cols in 1usize..40, seed in any::<u64>()) {
        let mask = ((1u16 << bits) - 1) as u64;
        let codes: Vec<u8> = (0..(rows * cols) as u64)
            .map(|i| ((seed.rotate_left(i as u32 * 5) ^ (i * 0x2545_F491)) & mask) as u8)
            .collect();
        let bytes = pack_rows(&codes, rows, cols, bits).unwrap();
        let stride = row_stride(cols, bits);
        prop_assert_eq!(stride, (cols * bits as usize).div_ceil(8));
        prop_assert_eq!(bytes.len(), rows * stride);
        for r in 0..rows {
            // Each row is the plain packing of that row.
            let row = pack(&codes[r * cols..(r + 1) * cols], bits).unwrap();
            prop_assert_eq!(&bytes[r * stride..(r + 1) * stride], &row[..]);
        }
        prop_assert_eq!(unpack_rows(&bytes, rows, cols, bits).unwrap(), codes);
    }
}

/// Every width, every length 0..=24 (all residues of the bit position mod 8), all-ones codes
/// (so that a lost or misplaced bit shows).
#[test]
fn every_width_every_short_length() {
    for bits in 1u8..=8 {
        let max = ((1u16 << bits) - 1) as u8;
        for len in 0..=24 {
            let codes: Vec<u8> = (0..len).map(|i| if i % 3 == 1 { 0 } else { max }).collect();
            let bytes = pack(&codes, bits).unwrap();
            assert_eq!(bytes.len(), (len * bits as usize).div_ceil(8));
            assert_eq!(
                unpack(&bytes, bits, len).unwrap(),
                codes,
                "bits {bits} len {len}"
            );
        }
    }
}

/// Checkpoint weights whose value x block scale overflows f16 are refused for f16 activations
/// (the A16 kernels form that product in the activation type) and accepted for bf16.
#[test]
fn act_range_check_of_value_times_scale() {
    use humming_core::pack::a16::{PackA16Error, check_act_range};
    use humming_core::*;
    let (n, k) = (4, 64);
    let cfg = QuantConfig::new(WeightFormat::SInt(8), ScaleFormat::Bf16, ScaleGroup::Group(32));
    let w: Vec<f32> = (0..n * k).map(|i| ((i * 37 % 101) as f32 - 50.0) / 10.0).collect();
    let mut q = quantize(&w, n, k, &cfg).unwrap();
    check_act_range(&q, ActFormat::F16).unwrap();
    // Row 2, group 1: a scale of 1024 with codes up to 127 gives ~130000 > 65504.
    q.scales[2 * 2 + 1] = ScaleFormat::Bf16.scalar().encode(1024.0);
    match check_act_range(&q, ActFormat::F16) {
        Err(PackA16Error::ActRange { n: 2, group: 1, product, .. }) => assert!(product > 65504.0),
        other => panic!("{other:?}"),
    }
    check_act_range(&q, ActFormat::Bf16).unwrap();
}

/// Weights for the A16 kernels are packed for f16 or bf16 activations: another activation type
/// is a typed error, not a placement no kernel reads.
#[test]
fn a16_packing_takes_a_16_bit_activation_type() {
    use humming_core::pack::a16::{PackA16Error, PackedA16};
    use humming_core::*;
    let (n, k) = (64, 64);
    let cfg = QuantConfig::new(WeightFormat::Float(FloatFormat::E2M1), ScaleFormat::E4m3, ScaleGroup::Group(16));
    let w: Vec<f32> = (0..n * k).map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0).collect();
    let q = quantize(&w, n, k, &cfg).unwrap();
    for act in [ActFormat::E4m3, ActFormat::E5m2, ActFormat::Int8, ActFormat::Int4] {
        assert_eq!(PackedA16::from_quantized(&q, act), Err(PackA16Error::Act { act }));
    }
    for act in [ActFormat::F16, ActFormat::Bf16] {
        PackedA16::from_quantized(&q, act).unwrap();
    }
}
