// Parameters written out (any names, the spec's types), documentation, visibility and a fn in a
// module; the generated fn keeps them.
#![deny(missing_docs)]
//! A crate that documents everything, generated items included.

use humming::cuda::{DeviceBuf, GpuWeights, RuntimeError, Stream};
use humming::half::bf16;

/// Layers of a model.
pub mod layers {
    use super::*;
    use humming::macros::humming_gemm;

    /// The MLP's up projection.
    #[humming_gemm(weight = e3m2, act = bf16, scale = ue8m0, group = 32)]
    pub fn up(s: &Stream, input: &DeviceBuf<bf16>, weights: &GpuWeights, output: &mut DeviceBuf<bf16>) {}

    /// Visible in the crate only.
    #[humming_gemm(weight = u2, act = bf16)]
    pub(crate) fn down() {}

    #[humming_gemm(weight = u8, act = bf16, out = bf16)]
    fn private() {}

    /// Uses the private one from inside its module.
    pub fn private_bundles() -> usize {
        let _ = private;
        private::BUNDLES.len()
    }
}

fn main() {
    let f: fn(&Stream, &DeviceBuf<bf16>, &GpuWeights, &mut DeviceBuf<bf16>) -> Result<(), RuntimeError> = layers::up;
    let _ = f;
    let _ = layers::down;
    assert_eq!(layers::up::spec().id(), "w_e3m2-a_bf16-s_ue8m0-g32-zp_implicit-o_bf16-sm_80");
    assert_eq!(layers::down::BUNDLES.len(), 1);
    assert_eq!(layers::private_bundles(), 1);
}
