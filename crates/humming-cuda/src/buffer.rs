//! [`DeviceBuf`]: a typed device allocation of plain-old-data elements (`half::f16`/`bf16`
//! through `bytemuck`, since cust's own `DeviceCopy` targets half 1.x), tied to its device.

use crate::driver::check;
use crate::error::RuntimeError;
use crate::gpu::Gpu;
use bytemuck::Pod;
use cust::sys as cu;
use humming_core::ir::DevPtr;
use std::marker::PhantomData;

/// `len` elements of `T` in device memory, freed on drop.
#[derive(Debug)]
pub struct DeviceBuf<T: Pod> {
    gpu: Gpu,
    ptr: cu::CUdeviceptr,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Pod> DeviceBuf<T> {
    fn alloc(gpu: &Gpu, len: usize) -> Result<Self, RuntimeError> {
        let bytes = len.checked_mul(size_of::<T>()).ok_or(RuntimeError::Size { len, elem: size_of::<T>() })?;
        gpu.make_current()?;
        let mut ptr = 0;
        // SAFETY: writes one device pointer; at least one byte so that empty buffers have an address.
        check("cuMemAlloc", unsafe { cu::cuMemAlloc_v2(&mut ptr, bytes.max(1)) })?;
        Ok(DeviceBuf { gpu: gpu.clone(), ptr, len, _t: PhantomData })
    }

    /// A copy of `data` on `gpu`.
    pub fn from_slice(gpu: &Gpu, data: &[T]) -> Result<Self, RuntimeError> {
        let mut b = Self::alloc(gpu, data.len())?;
        b.copy_from(data)?;
        Ok(b)
    }

    /// `len` elements with every byte `0xFF` (NaN for f16/bf16), so unwritten outputs show.
    pub fn poisoned(gpu: &Gpu, len: usize) -> Result<Self, RuntimeError> {
        Self::filled(gpu, len, 0xFF)
    }

    /// `len` zero elements.
    pub fn zeroed(gpu: &Gpu, len: usize) -> Result<Self, RuntimeError> {
        Self::filled(gpu, len, 0)
    }

    fn filled(gpu: &Gpu, len: usize, byte: u8) -> Result<Self, RuntimeError> {
        let b = Self::alloc(gpu, len)?;
        // SAFETY: the range is the allocation just made.
        check("cuMemsetD8", unsafe { cu::cuMemsetD8_v2(b.ptr, byte, b.bytes()) })?;
        Ok(b)
    }

    /// Overwrites the buffer with `data` (same length). Waits for the device first, so work
    /// queued on any stream that reads the buffer has finished.
    pub fn copy_from(&mut self, data: &[T]) -> Result<(), RuntimeError> {
        if data.len() != self.len {
            return Err(RuntimeError::CopyLength { buffer: self.len, host: data.len() });
        }
        self.gpu.make_current()?;
        let bytes: &[u8] = bytemuck::cast_slice(data);
        // SAFETY: same byte length as the allocation; the host slice is readable.
        unsafe {
            check("cuCtxSynchronize", cu::cuCtxSynchronize())?;
            check("cuMemcpyHtoD", cu::cuMemcpyHtoD_v2(self.ptr, bytes.as_ptr().cast(), bytes.len()))?;
        }
        Ok(())
    }

    /// The contents, after every queued operation on the device has finished (so results of
    /// launches on any stream are visible).
    pub fn to_vec(&self) -> Result<Vec<T>, RuntimeError> {
        self.gpu.make_current()?;
        let mut out = vec![T::zeroed(); self.len];
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut out);
        // SAFETY: same byte length as the allocation; the host slice is writable.
        unsafe {
            check("cuCtxSynchronize", cu::cuCtxSynchronize())?;
            check("cuMemcpyDtoH", cu::cuMemcpyDtoH_v2(bytes.as_mut_ptr().cast(), self.ptr, bytes.len()))?;
        }
        Ok(out)
    }

    /// Elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes of data (`len * size_of::<T>()`).
    pub fn bytes(&self) -> usize {
        self.len * size_of::<T>()
    }

    /// The device address.
    pub fn ptr(&self) -> DevPtr {
        DevPtr(self.ptr)
    }

    /// The device the buffer lives on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }
}

impl<T: Pod> Drop for DeviceBuf<T> {
    fn drop(&mut self) {
        // SAFETY: the pointer came from cuMemAlloc and is freed once; cuMemFree waits for work
        // that uses it.
        unsafe {
            cu::cuCtxSetCurrent(self.gpu.raw_context());
            cu::cuMemFree_v2(self.ptr);
        }
    }
}
