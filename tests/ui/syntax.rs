use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act)]
pub fn no_value() {}

#[humming_gemm(weight = u4 act = f16)]
pub fn no_comma() {}

fn main() {}
