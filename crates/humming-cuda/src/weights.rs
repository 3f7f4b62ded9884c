//! [`GpuWeights`]: packed weights on a device, carrying the description (formats, scale
//! scheme, layout) that every launch checks against the kernel's spec.

use crate::buffer::DeviceBuf;
use crate::error::RuntimeError;
use crate::gpu::Gpu;
use crate::workspace::Workspace;
use humming_core::kernel::launch::{DeviceWeights, WeightsDesc};
use humming_core::pack::a16::PackedA16;
use humming_core::ScaleGroup;

/// Weights in the A16 kernels' layout, resident on one device.
#[derive(Debug)]
pub struct GpuWeights {
    desc: WeightsDesc,
    words: DeviceBuf<u32>,
    scales: DeviceBuf<u8>,
    zeros: Option<DeviceBuf<u8>>,
    /// The split-K workspace of launches on these weights.
    workspace: Workspace,
}

impl GpuWeights {
    /// Uploads `packed` to `gpu` after checking that its buffers have the lengths its layout
    /// needs (so no launch can read past them).
    pub fn upload(gpu: &Gpu, packed: &PackedA16) -> Result<GpuWeights, RuntimeError> {
        let desc = WeightsDesc::of(packed);
        let l = desc.layout;
        let expect = |what, expected: usize, got: usize| {
            if expected == got { Ok(()) } else { Err(RuntimeError::Packed { what, expected, got }) }
        };
        expect("words", l.total_words(), packed.words.len())?;
        let groups = match packed.group {
            ScaleGroup::Group(g) => l.k_pad / g as usize,
            ScaleGroup::PerChannel => 1,
        };
        let entries = groups * l.n_pad;
        expect("scales (bytes)", entries * packed.scale_format.bits() as usize / 8, packed.scales.len())?;
        if let Some(z) = &packed.zeros {
            expect("zero points", entries, z.len())?;
        }
        if l.bits != packed.format.bits() {
            return Err(RuntimeError::Packed { what: "layout width (bits)", expected: packed.format.bits() as usize, got: l.bits as usize });
        }
        Ok(GpuWeights {
            desc,
            words: DeviceBuf::from_slice(gpu, &packed.words)?,
            scales: DeviceBuf::from_slice(gpu, &packed.scales)?,
            zeros: packed.zeros.as_deref().map(|z| DeviceBuf::from_slice(gpu, z)).transpose()?,
            workspace: Workspace::default(),
        })
    }

    /// What the weights are.
    pub fn desc(&self) -> &WeightsDesc {
        &self.desc
    }

    /// The split-K workspace of launches on these weights.
    pub(crate) fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// The device they live on.
    pub fn gpu(&self) -> &Gpu {
        self.words.gpu()
    }

    /// Device bytes (codes, scales and zero points).
    pub fn bytes(&self) -> usize {
        self.words.bytes() + self.scales.bytes() + self.zeros.as_ref().map_or(0, |z| z.bytes())
    }

    /// The device addresses a launch takes.
    pub fn device_weights(&self) -> DeviceWeights {
        DeviceWeights {
            desc: self.desc,
            words: self.words.ptr(),
            scales: self.scales.ptr(),
            zeros: self.zeros.as_ref().map_or(self.scales.ptr(), |z| z.ptr()),
        }
    }
}
