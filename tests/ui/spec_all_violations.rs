use humming::macros::humming_gemm;

// Every violated rule is reported, each at the argument it blames.
#[humming_gemm(weight = i4, act = f16, scale = ue8m0, group = 100, zero_point = dynamic, global_scale = true)]
pub fn everything_wrong() {}

// The original fn is kept on error, so code that calls it still compiles (no extra errors).
fn main() {
    everything_wrong();
}
