//! [`Elem16`]: the 16-bit element types of activations and outputs, so typed launches can check
//! them against a kernel's spec.

use humming_core::{ActFormat, OutFormat};

mod sealed {
    pub trait Sealed {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

/// `half::f16` or `half::bf16`.
pub trait Elem16: bytemuck::Pod + sealed::Sealed {
    /// The activation format of this type.
    const ACT: ActFormat;
    /// The output format of this type.
    const OUT: OutFormat;
}

impl Elem16 for half::f16 {
    const ACT: ActFormat = ActFormat::F16;
    const OUT: OutFormat = OutFormat::F16;
}

impl Elem16 for half::bf16 {
    const ACT: ActFormat = ActFormat::Bf16;
    const OUT: OutFormat = OutFormat::Bf16;
}
