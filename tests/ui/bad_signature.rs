use humming::cuda::Stream;
use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16)]
pub fn two_params(_stream: &Stream, _n: usize) {}

#[humming_gemm(weight = u4, act = f16)]
pub fn generic<T>() {}

#[humming_gemm(weight = u4, act = f16)]
pub fn returns() -> u32 {}

#[humming_gemm(weight = u4, act = f16)]
pub async fn asynchronous() {}

#[humming_gemm(weight = u4, act = f16)]
pub struct NotAFunction;

fn main() {}
