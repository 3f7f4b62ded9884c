use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16, group = 100)]
pub fn group_100() {}

fn main() {}
