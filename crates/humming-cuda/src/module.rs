//! Loading PTX through the driver's JIT, with its error log on failure.

use crate::driver::check;
use crate::error::GpuError;
use cust::sys as cu;
use std::ffi::CString;
use std::os::raw::c_void;

/// A loaded module (unloaded on drop).
#[derive(Debug)]
pub struct Module {
    raw: cu::CUmodule,
}

// SAFETY: a CUmodule handle may be used from any thread of the process whose context owns it.
unsafe impl Send for Module {}
// SAFETY: as above; the driver synchronises module use internally.
unsafe impl Sync for Module {}

impl Module {
    /// JIT-compiles `ptx` in the current context. `kernel` names it in errors.
    pub fn load_ptx(ptx: &str, kernel: &str) -> Result<Module, GpuError> {
        let image = CString::new(ptx).map_err(|_| GpuError::Jit {
            kernel: kernel.to_string(),
            name: "nul byte".into(),
            log: "PTX text contains a NUL byte".into(),
        })?;
        const LOG: usize = 16 * 1024;
        let mut log = vec![0u8; LOG];
        let mut opts = [cu::CUjit_option::CU_JIT_ERROR_LOG_BUFFER, cu::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
        let mut vals: [*mut c_void; 2] = [log.as_mut_ptr().cast(), LOG as *mut c_void];
        let mut raw: cu::CUmodule = std::ptr::null_mut();
        // SAFETY: image is NUL-terminated; options/values arrays have matching length; the log buffer
        // outlives the call.
        let r = unsafe { cu::cuModuleLoadDataEx(&mut raw, image.as_ptr().cast(), 2, opts.as_mut_ptr(), vals.as_mut_ptr()) };
        if let Err(GpuError::Driver { name, .. }) = check("cuModuleLoadDataEx", r) {
            let end = log.iter().position(|&b| b == 0).unwrap_or(LOG);
            return Err(GpuError::Jit {
                kernel: kernel.to_string(),
                name,
                log: String::from_utf8_lossy(&log[..end]).into_owned(),
            });
        }
        Ok(Module { raw })
    }

    /// The entry point `name`.
    pub fn function(&self, name: &str) -> Result<cu::CUfunction, GpuError> {
        let cname = CString::new(name).map_err(|_| GpuError::BadLaunch { kernel: name.into(), reason: "name has a NUL byte".into() })?;
        let mut f: cu::CUfunction = std::ptr::null_mut();
        // SAFETY: valid module handle and NUL-terminated name.
        check("cuModuleGetFunction", unsafe { cu::cuModuleGetFunction(&mut f, self.raw, cname.as_ptr()) })?;
        Ok(f)
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: the handle came from cuModuleLoadDataEx and is unloaded once.
        unsafe {
            cu::cuModuleUnload(self.raw);
        }
    }
}
