//! [`EventTimer`]: device-side timing with CUDA events on the default stream.

use crate::driver::check;
use crate::error::GpuError;
use cust::sys as cu;

/// A pair of CUDA events bracketing device work.
#[derive(Debug)]
pub struct EventTimer {
    start: cu::CUevent,
    end: cu::CUevent,
}

impl EventTimer {
    /// Two fresh events (in the current context).
    pub fn new() -> Result<Self, GpuError> {
        let (mut start, mut end) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: writes two event handles.
        unsafe {
            check("cuEventCreate", cu::cuEventCreate(&mut start, 0))?;
            check("cuEventCreate", cu::cuEventCreate(&mut end, 0))?;
        }
        Ok(EventTimer { start, end })
    }

    /// Records the start on the default stream.
    pub fn start(&self) -> Result<(), GpuError> {
        // SAFETY: valid event; null stream is the legacy default stream.
        check("cuEventRecord", unsafe { cu::cuEventRecord(self.start, std::ptr::null_mut()) })
    }

    /// Records the end, waits for it, and returns the elapsed milliseconds.
    pub fn stop(&self) -> Result<f32, GpuError> {
        let mut ms = 0f32;
        // SAFETY: valid events recorded on the default stream.
        unsafe {
            check("cuEventRecord", cu::cuEventRecord(self.end, std::ptr::null_mut()))?;
            check("cuEventSynchronize", cu::cuEventSynchronize(self.end))?;
            check("cuEventElapsedTime", cu::cuEventElapsedTime(&mut ms, self.start, self.end))?;
        }
        Ok(ms)
    }
}

impl Drop for EventTimer {
    fn drop(&mut self) {
        // SAFETY: events created in `new`, destroyed once.
        unsafe {
            cu::cuEventDestroy_v2(self.start);
            cu::cuEventDestroy_v2(self.end);
        }
    }
}
