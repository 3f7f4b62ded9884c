use humming::cuda::{DeviceBuf, GpuWeights, Stream};
use humming::half::{bf16, f16};
use humming::macros::humming_gemm;

// The spec has act f16: x must be &DeviceBuf<f16>.
#[humming_gemm(weight = u4, act = f16)]
pub fn wrong_act(stream: &Stream, x: &DeviceBuf<bf16>, w: &GpuWeights, y: &mut DeviceBuf<f16>) {}

// The output is written: y must be &mut, of the spec's out type (bf16 here).
#[humming_gemm(weight = u4, act = bf16)]
pub fn immutable_out(stream: &Stream, x: &DeviceBuf<bf16>, w: &GpuWeights, y: &DeviceBuf<bf16>) {}

// Any other type is one error at that type too.
#[humming_gemm(weight = u4, act = f16)]
pub fn wrong_weights(stream: &Stream, x: &DeviceBuf<f16>, w: &Vec<u8>, y: &mut DeviceBuf<f16>) {}

fn main() {}
