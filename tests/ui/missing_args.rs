use humming::macros::humming_gemm;

#[humming_gemm(act = f16)]
pub fn no_weight() {}

#[humming_gemm(weight = u4)]
pub fn no_act() {}

#[humming_gemm]
pub fn nothing() {}

fn main() {}
