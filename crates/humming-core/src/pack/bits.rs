//! Dense bit packing, LSB first.
//!
//! Code `i` of a stream of `bits`-bit codes occupies bits `[i * bits, (i + 1) * bits)` of the
//! little-endian bit stream: bit `j` of the stream is bit `j % 8` of byte `j / 8`, and the
//! code's least significant bit comes first. A code may straddle a byte boundary (widths 3, 5,
//! 6, 7). Padding bits after the last code are zero.
//!
//! Matrices ([`pack_rows`]) are packed row by row along their columns (the K dimension of a
//! weight matrix `W[N, K]`), each row starting on a byte boundary, so the row stride in bytes
//! is [`row_stride`]`(cols, bits) = ceil(cols * bits / 8)`.

use super::PackError;

/// Bytes needed for `count` codes of `bits` bits: `ceil(count * bits / 8)` (saturating).
pub fn packed_len(count: usize, bits: u8) -> usize {
    count.saturating_mul(usize::from(bits)).div_ceil(8)
}

/// Bytes per row of a `[rows, cols]` matrix packed with [`pack_rows`].
pub fn row_stride(cols: usize, bits: u8) -> usize {
    packed_len(cols, bits)
}

fn check_width(bits: u8) -> Result<(), PackError> {
    if (1..=8).contains(&bits) {
        Ok(())
    } else {
        Err(PackError::Width { bits })
    }
}

/// Packs `codes` (each `< 2^bits`) into the LSB-first bit stream.
pub fn pack(codes: &[u8], bits: u8) -> Result<Vec<u8>, PackError> {
    check_width(bits)?;
    let mut out = vec![0u8; packed_len(codes.len(), bits)];
    pack_into(codes, bits, &mut out, 0)?;
    Ok(out)
}

/// Writes `codes` into `out` (zeroed) starting at code position 0, reporting bad codes with
/// their index offset by `base`.
fn pack_into(codes: &[u8], bits: u8, out: &mut [u8], base: usize) -> Result<(), PackError> {
    let limit = 1u16 << bits;
    for (i, &code) in codes.iter().enumerate() {
        if u16::from(code) >= limit {
            return Err(PackError::CodeTooWide {
                index: base + i,
                code,
                bits,
            });
        }
        let bit = i * usize::from(bits);
        let (byte, shift) = (bit / 8, bit % 8);
        let v = u16::from(code) << shift;
        out[byte] |= v as u8;
        if shift + usize::from(bits) > 8 {
            out[byte + 1] |= (v >> 8) as u8;
        }
    }
    Ok(())
}

/// Reads `count` codes of `bits` bits from the LSB-first bit stream `bytes`. Bytes (and
/// padding bits) past the last code are ignored.
pub fn unpack(bytes: &[u8], bits: u8, count: usize) -> Result<Vec<u8>, PackError> {
    check_width(bits)?;
    let needed = packed_len(count, bits);
    if bytes.len() < needed {
        return Err(PackError::TooShort {
            needed,
            got: bytes.len(),
        });
    }
    Ok(unpack_from(&bytes[..needed], bits, count))
}

/// `count` codes from a buffer known to be long enough.
fn unpack_from(bytes: &[u8], bits: u8, count: usize) -> Vec<u8> {
    let mask = (1u16 << bits) - 1;
    (0..count)
        .map(|i| {
            let bit = i * usize::from(bits);
            let (byte, shift) = (bit / 8, bit % 8);
            let lo = u16::from(bytes[byte]);
            let hi = if shift + usize::from(bits) > 8 {
                u16::from(bytes[byte + 1])
            } else {
                0
            };
            (((hi << 8 | lo) >> shift) & mask) as u8
        })
        .collect()
}

/// Packs a row-major `[rows, cols]` matrix of codes row by row; every row starts on a byte
/// boundary, so the result is `rows * row_stride(cols, bits)` bytes.
pub fn pack_rows(codes: &[u8], rows: usize, cols: usize, bits: u8) -> Result<Vec<u8>, PackError> {
    check_width(bits)?;
    let count = rows.saturating_mul(cols);
    check_len(codes.len(), rows, cols, count)?;
    let stride = row_stride(cols, bits);
    let mut out = vec![0u8; rows * stride];
    if cols == 0 {
        return Ok(out);
    }
    for (r, (row, dst)) in codes
        .chunks_exact(cols)
        .zip(out.chunks_exact_mut(stride.max(1)))
        .enumerate()
    {
        pack_into(row, bits, dst, r * cols)?;
    }
    Ok(out)
}

/// Unpacks a matrix packed by [`pack_rows`]. `bytes` must be exactly
/// `rows * row_stride(cols, bits)` long: a matrix buffer has one size, and any other length
/// means the shape or width is wrong.
pub fn unpack_rows(bytes: &[u8], rows: usize, cols: usize, bits: u8) -> Result<Vec<u8>, PackError> {
    check_width(bits)?;
    let stride = row_stride(cols, bits);
    let expected = rows.saturating_mul(stride);
    if bytes.len() < expected {
        return Err(PackError::TooShort {
            needed: expected,
            got: bytes.len(),
        });
    }
    check_len(bytes.len(), rows, cols, expected)?;
    let mut out = Vec::with_capacity(rows * cols);
    if cols > 0 {
        for row in bytes.chunks_exact(stride) {
            out.extend(unpack_from(row, bits, cols));
        }
    }
    Ok(out)
}

fn check_len(got: usize, rows: usize, cols: usize, expected: usize) -> Result<(), PackError> {
    if got == expected {
        Ok(())
    } else {
        Err(PackError::Shape {
            rows,
            cols,
            expected,
            got,
        })
    }
}
