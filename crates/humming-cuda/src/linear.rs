//! [`QuantizedLinear`]: a quantized linear layer on a GPU. Built from f32/f16 weights (quantized
//! on the host for the spec) or from quantized codes (a checkpoint), packed, range-checked and
//! uploaded; `forward` picks the kernel variant for the runtime M.

use crate::buffer::DeviceBuf;
use crate::elem::Elem16;
use crate::error::RuntimeError;
use crate::generate::bundle_with;
use crate::gpu::Gpu;
use crate::weights::GpuWeights;
use cust::stream::Stream;
use humming_core::kernel::{GemmBundle, KernelPlan};
use humming_core::pack::a16::{PackedA16, check_act_range};
use humming_core::quant::{QuantConfig, QuantizedWeights, quantize};
use humming_core::Spec;
use std::sync::Arc;

/// `y = x W^T` with `W` (`n x k`) quantized per `spec`, resident on one GPU.
#[derive(Debug)]
pub struct QuantizedLinear {
    spec: Spec,
    bundle: Arc<GemmBundle>,
    weights: GpuWeights,
}

impl QuantizedLinear {
    /// Quantizes row-major `n x k` f32 weights for `spec` (its quantizer config: weight and
    /// scale formats, group, zero point, global scale), packs and uploads them.
    pub fn from_f32(gpu: &Gpu, w: &[f32], n: usize, k: usize, spec: &Spec) -> Result<QuantizedLinear, RuntimeError> {
        if w.len() != n.saturating_mul(k) {
            return Err(RuntimeError::HostShape { n, k, got: w.len() });
        }
        let q = quantize(w, n, k, &quant_config(spec))?;
        Self::from_quantized(gpu, &q, spec)
    }

    /// [`QuantizedLinear::from_f32`] for f16 weights.
    pub fn from_f16(gpu: &Gpu, w: &[half::f16], n: usize, k: usize, spec: &Spec) -> Result<QuantizedLinear, RuntimeError> {
        let f: Vec<f32> = w.iter().map(|v| v.to_f32()).collect();
        Self::from_f32(gpu, &f, n, k, spec)
    }

    /// Weights already quantized (codes, scales, zero points, e.g. from a checkpoint). Their
    /// formats and scale scheme must be the spec's; every value times its block scale must be
    /// finite in the activation type.
    pub fn from_quantized(gpu: &Gpu, q: &QuantizedWeights, spec: &Spec) -> Result<QuantizedLinear, RuntimeError> {
        check_act_range(q, spec.act())?;
        let packed = PackedA16::from_quantized(q, spec.act())?;
        humming_core::kernel::launch::WeightsDesc::of(&packed).check_matches(spec)?;
        // Plans for this layer's shape (wide layers take wider N tiles, deep ones finer K splits)
        // on this GPU (its DRAM bandwidth moves the small-M plans of the largest layers).
        let buckets = KernelPlan::buckets_for_device(spec, packed.layout.n_pad, packed.layout.k_pad, gpu.profile().as_ref());
        let (bundle, _) = bundle_with(spec, &buckets)?;
        if !spec.arch().runs_on(gpu.compute_capability()) {
            let cc = gpu.compute_capability();
            return Err(RuntimeError::NoTarget { cc, targets: spec.arch().name().into() });
        }
        let weights = GpuWeights::upload(gpu, &packed)?;
        Ok(QuantizedLinear { spec: *spec, bundle, weights })
    }

    /// `y[m, n] = x[m, k] W^T` on `stream`, M = `x.len() / k`.
    pub fn forward<A: Elem16, O: Elem16>(&self, stream: &Stream, x: &DeviceBuf<A>, y: &mut DeviceBuf<O>) -> Result<(), RuntimeError> {
        crate::gemm::launch_gemm(std::slice::from_ref(&*self.bundle), stream, x, &self.weights, y)
    }

    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Output features.
    pub fn n(&self) -> usize {
        self.weights.desc().layout.n
    }

    /// Input features.
    pub fn k(&self) -> usize {
        self.weights.desc().layout.k
    }

    pub fn weights(&self) -> &GpuWeights {
        &self.weights
    }

    pub fn bundle(&self) -> &GemmBundle {
        &self.bundle
    }
}

/// The quantizer configuration of a spec.
pub fn quant_config(spec: &Spec) -> QuantConfig {
    QuantConfig::new(spec.weight(), spec.scale(), spec.group())
        .with_zero_point(spec.zero_point())
        .with_global_scale(spec.global_scale())
}

