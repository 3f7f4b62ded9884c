//! Thin checked wrappers over the few raw driver calls the runtime needs beyond `cust`.

use crate::error::GpuError;
use cust::sys as cu;
use std::ffi::CStr;

/// Turns a driver result into `Ok` or a [`GpuError::Driver`] naming the call.
pub(crate) fn check(call: &'static str, r: cu::CUresult) -> Result<(), GpuError> {
    if r == cu::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let text = |f: unsafe extern "C" fn(cu::CUresult, *mut *const std::os::raw::c_char) -> cu::CUresult| {
        let mut p: *const std::os::raw::c_char = std::ptr::null();
        // SAFETY: the driver writes a pointer to a static string or leaves it null.
        let ok = unsafe { f(r, &mut p) } == cu::CUresult::CUDA_SUCCESS && !p.is_null();
        if ok {
            // SAFETY: non-null and NUL-terminated per the driver's contract.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        } else {
            "unknown".to_string()
        }
    };
    Err(GpuError::Driver {
        call,
        code: r as u32,
        name: text(cu::cuGetErrorName),
        message: text(cu::cuGetErrorString),
    })
}

/// The CUDA version the installed driver supports, e.g. 13000 for 13.0.
pub fn driver_version() -> Result<i32, GpuError> {
    let mut v = 0;
    // SAFETY: writes one int.
    check("cuDriverGetVersion", unsafe { cu::cuDriverGetVersion(&mut v) })?;
    Ok(v)
}
