use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16, scale = e8m1)]
pub fn unknown_scale() {}

fn main() {}
