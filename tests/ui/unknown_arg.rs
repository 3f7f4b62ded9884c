use humming::macros::humming_gemm;

// A misspelt name gets a suggestion; every argument name is listed.
#[humming_gemm(weight = u4, act = f16, grup = 64)]
pub fn misspelt() {}

#[humming_gemm(weight = u4, act = f16, bits = 4)]
pub fn unknown() {}

fn main() {}
