use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16, emit_ptx = ptx_dir)]
pub fn not_a_string() {}

fn main() {}
