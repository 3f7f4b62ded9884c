use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16, group = 64, act = bf16)]
pub fn twice() {}

fn main() {}
