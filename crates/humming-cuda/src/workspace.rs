//! The split-K workspace of one weight matrix, kept between launches.
//!
//! A split launch needs f32 partials and per-tile arrival counters that are zero when it starts
//! ([`humming_core::kernel::launch::workspace_bytes`]). The kernel leaves every counter it used
//! at zero again (the last CTA of each tile resets its counter), so a workspace that served a
//! launch of the same shape needs no memset: in a decode loop (same M every step) nothing but
//! the GEMM is queued, which keeps the kernel-to-kernel edge programmatic dependent launch
//! overlaps. The counters are zeroed (one small async memset) only when the shape changes or
//! the buffer grows. Launches on another stream than the last one first wait for the last
//! launch (an event), so two streams never use the buffer at once.

use crate::driver::check;
use crate::error::RuntimeError;
use crate::gpu::Gpu;
use cust::sys as cu;
use std::ops::Range;
use std::sync::Mutex;

/// The workspace of one [`crate::GpuWeights`]: empty until the first split launch.
#[derive(Debug, Default)]
pub(crate) struct Workspace {
    slot: Mutex<Option<Slot>>,
}

#[derive(Debug)]
struct Slot {
    gpu: Gpu,
    ptr: cu::CUdeviceptr,
    bytes: usize,
    /// Bytes known to be zero now (in stream order): the whole buffer after its allocation, then
    /// the counter range of the last launch.
    zero: Range<usize>,
    /// Recorded on `stream` after the last launch that used the buffer.
    done: cu::CUevent,
    stream: cu::CUstream,
}

// SAFETY: the raw handles are plain driver handles, used under the mutex only.
unsafe impl Send for Slot {}

impl Workspace {
    /// Runs `launch` with a workspace of at least `bytes` bytes whose `counters` byte range is
    /// zero in the order of `stream`, and records that `launch` used it.
    pub(crate) fn with<R>(
        &self,
        gpu: &Gpu,
        stream: cu::CUstream,
        bytes: usize,
        counters: Range<usize>,
        launch: impl FnOnce(cu::CUdeviceptr) -> Result<R, RuntimeError>,
    ) -> Result<R, RuntimeError> {
        let mut guard = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if guard.as_ref().is_none_or(|s| s.bytes < bytes) {
            // Drop the smaller buffer first (after its last launch), then allocate and zero.
            guard.take();
            *guard = Some(Slot::zeroed(gpu, stream, bytes)?);
        }
        let slot = guard.as_mut().expect("allocated above");
        // SAFETY: the event and the streams belong to the current context; the memset covers
        // part of the buffer only.
        unsafe {
            if slot.stream != stream {
                check("cuStreamWaitEvent", cu::cuStreamWaitEvent(stream, slot.done, 0))?;
                slot.stream = stream;
            }
            if !(slot.zero.start <= counters.start && counters.end <= slot.zero.end) {
                let len = counters.end - counters.start;
                check("cuMemsetD8Async", cu::cuMemsetD8Async(slot.ptr + counters.start as u64, 0, len, stream))?;
            }
        }
        // Until the launch is known to be queued, nothing is known zero.
        slot.zero = 0..0;
        let r = launch(slot.ptr)?;
        // SAFETY: records an event of this context on a live stream.
        check("cuEventRecord", unsafe { cu::cuEventRecord(slot.done, stream) })?;
        slot.zero = counters;
        Ok(r)
    }
}

impl Slot {
    fn zeroed(gpu: &Gpu, stream: cu::CUstream, bytes: usize) -> Result<Slot, RuntimeError> {
        let (mut ptr, mut done) = (0, std::ptr::null_mut());
        // SAFETY: writes one device pointer and one event handle; the memset covers exactly the
        // new allocation. On an error the handles made so far are released by `Drop`.
        unsafe {
            check("cuEventCreate", cu::cuEventCreate(&mut done, cu::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32))?;
            let mut slot = Slot { gpu: gpu.clone(), ptr: 0, bytes, zero: 0..0, done, stream };
            check("cuMemAlloc", cu::cuMemAlloc_v2(&mut ptr, bytes))?;
            slot.ptr = ptr;
            check("cuMemsetD8Async", cu::cuMemsetD8Async(ptr, 0, bytes, stream))?;
            slot.zero = 0..bytes;
            Ok(slot)
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if self.gpu.make_current().is_err() {
            return;
        }
        // SAFETY: waits for the last launch that used the buffer, then frees the buffer and the
        // event made in `zeroed`, once.
        unsafe {
            cu::cuEventSynchronize(self.done);
            if self.ptr != 0 {
                cu::cuMemFree_v2(self.ptr);
            }
            cu::cuEventDestroy_v2(self.done);
        }
    }
}
