//! [`Gpu`]: one device, its primary context (shared with every other CUDA user in the process).

use crate::driver::check;
use crate::error::GpuError;
use cust::sys as cu;
use humming_core::Arch;
use humming_core::kernel::DeviceProfile;

/// A CUDA device with its primary context retained and current on the calling thread.
/// Cloning shares the handle (the context is released when the last clone drops).
#[derive(Clone, Debug)]
pub struct Gpu {
    inner: std::sync::Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    device: cu::CUdevice,
    ctx: cu::CUcontext,
    name: String,
    cc: (u32, u32),
    /// Read once at `open` (every GEMM launch asks for it).
    profile: Option<DeviceProfile>,
}

// SAFETY: a retained primary context and a device ordinal may be used from any thread; every
// use makes the context current on the calling thread first.
unsafe impl Send for Inner {}
// SAFETY: as above; the fields are immutable after `open`.
unsafe impl Sync for Inner {}


impl Gpu {
    /// Opens device `ordinal`. Returns [`GpuError::NoDevice`] when the machine has no driver or no
    /// device (the usual case on CI), so callers can skip and say so.
    pub fn open(ordinal: u32) -> Result<Gpu, GpuError> {
        // SAFETY: plain driver calls writing to locals.
        unsafe {
            let r = cu::cuInit(0);
            if r != cu::CUresult::CUDA_SUCCESS {
                let e = check("cuInit", r).unwrap_err();
                return Err(GpuError::NoDevice(e.to_string()));
            }
            let mut count = 0;
            check("cuDeviceGetCount", cu::cuDeviceGetCount(&mut count))?;
            if count as u32 <= ordinal {
                return Err(GpuError::NoDevice(format!("{count} device(s), asked for ordinal {ordinal}")));
            }
            let mut device = 0;
            check("cuDeviceGet", cu::cuDeviceGet(&mut device, ordinal as i32))?;
            let mut ctx = std::ptr::null_mut();
            check("cuDevicePrimaryCtxRetain", cu::cuDevicePrimaryCtxRetain(&mut ctx, device))?;
            check("cuCtxSetCurrent", cu::cuCtxSetCurrent(ctx))?;
            let mut buf = [0 as std::os::raw::c_char; 256];
            check("cuDeviceGetName", cu::cuDeviceGetName(buf.as_mut_ptr(), 256, device))?;
            let name = std::ffi::CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned();
            let attr = |a| {
                let mut v = 0;
                check("cuDeviceGetAttribute", cu::cuDeviceGetAttribute(&mut v, a, device)).map(|_| v as u32)
            };
            let major = attr(cu::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
            let minor = attr(cu::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
            let clock = attr(cu::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE).ok();
            let bus = attr(cu::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH).ok();
            let sms = attr(cu::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).unwrap_or(0);
            let profile = clock.zip(bus).and_then(|(c, b)| DeviceProfile::from_memory_clock(c, b, sms));
            Ok(Gpu { inner: std::sync::Arc::new(Inner { device, ctx, name, cc: (major, minor), profile }) })
        }
    }

    /// Makes the primary context current on the calling thread.
    pub fn make_current(&self) -> Result<(), GpuError> {
        // SAFETY: the context is retained for self's lifetime.
        check("cuCtxSetCurrent", unsafe { cu::cuCtxSetCurrent(self.inner.ctx) })
    }

    /// Device name as the driver reports it.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Compute capability (major, minor).
    pub fn compute_capability(&self) -> (u32, u32) {
        self.inner.cc
    }

    /// The highest portable target this device runs (`sm_90` on Hopper, not `sm_90a`):
    /// [`Arch::portable_for`].
    pub fn native_arch(&self) -> Option<Arch> {
        Arch::portable_for(self.inner.cc)
    }

    /// The target with this device's fastest kernels (`sm_90a` on Hopper, whose wgmma plans
    /// are the defaults above M = 32; else [`Gpu::native_arch`]): [`Arch::fastest_for`].
    pub fn fastest_arch(&self) -> Option<Arch> {
        Arch::fastest_for(self.inner.cc)
    }

    /// Number of multiprocessors.
    pub fn sm_count(&self) -> Result<u32, GpuError> {
        self.attribute(cu::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
    }

    /// What the plan choice knows of this GPU (its DRAM peak, from the memory clock and bus
    /// width, and its multiprocessors): [`humming_core::kernel::DeviceProfile`]. `None` where the
    /// driver does not report the clock or width (an error or zero): plans then take the
    /// defaults. Read once when the device is opened.
    pub fn profile(&self) -> Option<DeviceProfile> {
        self.inner.profile
    }

    /// L2 cache size in bytes.
    pub fn l2_bytes(&self) -> Result<u32, GpuError> {
        self.attribute(cu::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
    }

    fn attribute(&self, a: cu::CUdevice_attribute) -> Result<u32, GpuError> {
        let mut v = 0;
        // SAFETY: writes one int.
        check("cuDeviceGetAttribute", unsafe { cu::cuDeviceGetAttribute(&mut v, a, self.inner.device) })?;
        Ok(v as u32)
    }

    /// Largest dynamic shared memory one CTA may opt in to, in bytes.
    pub fn max_shared_optin(&self) -> Result<u32, GpuError> {
        self.attribute(cu::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
    }

    /// Whether the device has stream-ordered memory pools (`cuMemAllocAsync`).
    pub fn memory_pools(&self) -> Result<bool, GpuError> {
        Ok(self.attribute(cu::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)? != 0)
    }

    /// Raw device handle.
    pub fn raw_device(&self) -> cu::CUdevice {
        self.inner.device
    }

    /// Raw primary context handle.
    pub fn raw_context(&self) -> cu::CUcontext {
        self.inner.ctx
    }

    /// A new non-blocking stream in this device's context.
    pub fn stream(&self) -> Result<cust::stream::Stream, crate::RuntimeError> {
        self.make_current()?;
        Ok(cust::stream::Stream::new(cust::stream::StreamFlags::NON_BLOCKING, None)?)
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // SAFETY: balances the retain in `open`.
        unsafe {
            cu::cuDevicePrimaryCtxRelease_v2(self.device);
        }
    }
}
