use humming::macros::humming_gemm;

#[humming_gemm(weight = u9, act = f16)]
pub fn too_wide() {}

#[humming_gemm(weight = q4, act = f16)]
pub fn unknown_name() {}

#[humming_gemm(weight = "e6m2", act = bf16)]
pub fn bad_float_layout() {}

#[humming_gemm(weight = 4, act = f16)]
pub fn not_a_name() {}

fn main() {}
