use humming::macros::humming_gemm;

#[humming_gemm(weight = i4, act = f16, zero_point = dynamic)]
pub fn signed_with_zero() {}

fn main() {}
