use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16, global_scale = yes)]
pub fn yes() {}

fn main() {}
