//! humming-core: the quantization vocabulary, host-side quantizers and packers, the f64
//! reference, the kernel IR with its PTX printer and CPU emulator. No CUDA dependency.

pub mod arch;
pub mod format;
pub mod ir;
pub mod kernel;
pub mod pack;
pub mod quant;
pub mod reference;
pub mod rng;
pub mod scheme;
pub mod spec;

pub use arch::Arch;
pub use format::{ActFormat, FloatFormat, FormatError, OutFormat, Scalar, ScaleFormat, WeightFormat};
pub use scheme::{ScaleGroup, ZeroPoint};
pub use pack::PackError;
pub use quant::{
    ActGranularity, ActScales, ActTensor, QuantConfig, QuantError, QuantizedWeights, quantize,
    quantize_act,
};
pub use reference::ReferenceError;
pub use spec::{Spec, SpecError, SpecErrors, SpecField, SpecParts};
