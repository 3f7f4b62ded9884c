use humming::macros::humming_gemm;

#[humming_gemm(weight = e2m1, act = f16, scale = ue8m0, group = 32)]
pub fn mx_with_f16() {}

fn main() {}
