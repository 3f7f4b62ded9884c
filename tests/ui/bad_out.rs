use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16, out = f32)]
pub fn f32_out() {}

fn main() {}
