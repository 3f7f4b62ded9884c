use humming::macros::humming_gemm;

// act is blamed; scale and out were not written, and their bf16 defaults (from act) fail too:
// they are reported at `act` and say so.
#[humming_gemm(weight = u4, act = bf16, arch = sm_75)]
pub fn bf16_on_turing() {}

// With several targets, a rule that fails on some of them names them.
#[humming_gemm(weight = u4, act = bf16, scale = e4m3, out = f16, arch = [sm_75, sm_80])]
pub fn bf16_on_two() {}

fn main() {}
