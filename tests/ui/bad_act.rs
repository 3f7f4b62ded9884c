use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f32)]
pub fn unknown_act() {}

// A valid activation format that the kernels do not take (yet).
#[humming_gemm(weight = u4, act = e4m3)]
pub fn fp8_act() {}

fn main() {}
