use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16, group = per_row)]
pub fn per_row() {}

#[humming_gemm(weight = u4, act = f16, group = -64)]
pub fn negative() {}

fn main() {}
