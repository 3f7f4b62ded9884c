//! Storage layouts of quantized codes.
//!
//! [`bits`] is the plain, kernel-independent layout: codes of `bits` bits packed densely into
//! a little-endian bit stream, with matrices packed row by row. It is the interchange format
//! of the host side (checkpoints, tests); kernel-specific tile layouts ([`fragment`]) are built
//! from the logical codes, not from this stream.

pub mod bits;
pub mod a16;
pub mod float4;
pub mod fragment;

pub use bits::{pack, pack_rows, packed_len, row_stride, unpack, unpack_rows};

/// Errors packing or unpacking codes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PackError {
    /// A code width outside `1..=8`.
    #[error("code width {bits} is out of range 1..=8")]
    Width { bits: u8 },
    /// A code that does not fit in `bits` bits.
    #[error("code {code} at index {index} does not fit in {bits} bits")]
    CodeTooWide { index: usize, code: u8, bits: u8 },
    /// A packed buffer shorter than the codes it should hold.
    #[error("packed buffer holds {got} bytes, {needed} are needed")]
    TooShort { needed: usize, got: usize },
    /// A buffer whose length (codes for packing, bytes for unpacking) does not match the matrix
    /// shape; `expected` is `usize::MAX` when the shape's size overflows.
    #[error("buffer length {got} does not match a [{rows}, {cols}] matrix ({expected} expected)")]
    Shape {
        rows: usize,
        cols: usize,
        expected: usize,
        got: usize,
    },
}
