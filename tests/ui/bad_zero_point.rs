use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16, zero_point = asymmetric)]
pub fn asymmetric() {}

fn main() {}
