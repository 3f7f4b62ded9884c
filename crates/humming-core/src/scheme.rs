//! How scales and zero points are laid over a weight matrix `W[N, K]`.

use std::fmt;

/// Granularity of the weight scales along K.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScaleGroup {
    /// One scale per output channel (row of `W[N, K]`).
    PerChannel,
    /// One scale per output channel and per run of `G` consecutive elements along K.
    /// `G` is a power of two >= 16 (checked by [`crate::spec::Spec`]).
    Group(u32),
}

impl ScaleGroup {
    /// Number of scale groups along K for a matrix with `k` columns
    /// (the last group may be partial when `k` is not a multiple of `G`).
    pub fn groups_along_k(self, k: usize) -> usize {
        match self {
            ScaleGroup::PerChannel => 1,
            ScaleGroup::Group(g) => k.div_ceil(g as usize),
        }
    }

    /// Whether every aligned run of `run` elements along K (a power of two) lies in one group.
    pub fn spans(self, run: u32) -> bool {
        match self {
            ScaleGroup::PerChannel => true,
            ScaleGroup::Group(g) => g >= run,
        }
    }

    /// Group length along K for a matrix with `k` columns.
    pub fn len(self, k: usize) -> usize {
        match self {
            ScaleGroup::PerChannel => k,
            ScaleGroup::Group(g) => g as usize,
        }
    }
}

impl fmt::Display for ScaleGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScaleGroup::PerChannel => f.write_str("per-channel"),
            ScaleGroup::Group(g) => write!(f, "g{g}"),
        }
    }
}

/// Zero-point handling for unsigned integer weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ZeroPoint {
    /// Unsigned formats subtract the implicit `2^(bits-1)`; signed and float formats have none.
    #[default]
    Implicit,
    /// A per-group integer zero point (same width and grouping as the weight codes/scales),
    /// as in GPTQ/AWQ asymmetric quantization: `w = (code - zero) * scale`.
    Dynamic,
}
