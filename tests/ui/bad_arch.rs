use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16, arch = sm_70)]
pub fn too_old() {}

// Every bad element of a list is reported.
#[humming_gemm(weight = u4, act = f16, arch = [sm_80, sm_81, sm_80])]
pub fn bad_list() {}

#[humming_gemm(weight = u4, act = f16, arch = [])]
pub fn empty() {}

fn main() {}
