//! Loading PTX through the driver's JIT (or a compiled image), with its error log on failure.

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
        Self::load_image(image.as_bytes_with_nul(), kernel)
    }

    /// Loads a module image: a cubin (machine code that a given `ptxas` compiled, which the
    /// driver does not compile again) or NUL-terminated PTX (JIT-compiled). A cubin whose ELF
    /// header points past the slice, or anything else, is refused before the driver reads it.
    /// `kernel` names it in errors.
    pub fn load_image(image: &[u8], kernel: &str) -> Result<Module, GpuError> {
        if !image_complete(image) {
            return Err(GpuError::Jit {
                kernel: kernel.to_string(),
                name: "bad image".into(),
                log: format!("{} bytes: neither a 64-bit ELF cubin whose headers lie inside it nor NUL-terminated PTX", image.len()),
            });
        }
        const LOG: usize = 16 * 1024;
        let mut log = vec![0u8; LOG];
        let mut opts = [cu::CUjit_option::CU_JIT_ERROR_LOG_BUFFER, cu::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
        let mut vals: [*mut c_void; 2] = [log.as_mut_ptr().cast(), LOG as *mut c_void];
        let mut raw: cu::CUmodule = std::ptr::null_mut();
        // SAFETY: the driver reads the image's own size from its header (ELF, fatbin) or up to its
        // NUL (PTX); options/values arrays have matching length; the log buffer outlives the call.
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

/// Whether `image` is a 64-bit little-endian ELF file whose header tables and the file contents
/// of its sections and segments lie inside it, or text ending at its first NUL: what the driver
/// reads of an image is then inside the slice.
fn image_complete(image: &[u8]) -> bool {
    if image.starts_with(b"\x7fELF\x02\x01") {
        return elf_complete(image).is_some();
    }
    !image.is_empty() && image.iter().position(|&b| b == 0) == Some(image.len() - 1)
}

fn elf_complete(image: &[u8]) -> Option<()> {
    let len = image.len() as u64;
    let bytes = |o: u64, n: u64| image.get(usize::try_from(o).ok()?..usize::try_from(o.checked_add(n)?).ok()?);
    let u16_at = |o: u64| bytes(o, 2).map(|b| u16::from_le_bytes([b[0], b[1]]) as u64);
    let u32_at = |o: u64| bytes(o, 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let u64_at = |o: u64| bytes(o, 8).map(|b| b.iter().rev().fold(0u64, |x, &y| x << 8 | y as u64));
    let inside = |off: u64, size: u64| off.checked_add(size).filter(|&end| end <= len).map(|_| ());
    // (table offset, entry size, count; an entry's file offset and size, and for sections the
    // type, SHT_NOBITS = 8 having no file contents).
    for (table, entsize, count, off, size, ty) in [(0x20u64, 0x36u64, 0x38u64, 0x08u64, 0x20u64, None), (0x28, 0x3a, 0x3c, 0x18, 0x20, Some(0x04u64))] {
        let (t, e, n) = (u64_at(table)?, u16_at(entsize)?, u16_at(count)?);
        inside(t, e.checked_mul(n)?)?;
        for i in 0..n {
            let at = t + i * e;
            if e < off.max(size) + 8 {
                return None;
            }
            if ty.is_some_and(|o| u32_at(at + o) == Some(8)) {
                continue;
            }
            inside(u64_at(at + off)?, u64_at(at + size)?)?;
        }
    }
    Some(())
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: the handle came from cuModuleLoadDataEx and is unloaded once.
        unsafe {
            cu::cuModuleUnload(self.raw);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::image_complete;

    /// A 64-bit ELF image of `len` bytes with one section header at `shoff` (type `ty`, contents
    /// `off..off + size`) and no program headers.
    fn elf(len: usize, shoff: u64, ty: u32, off: u64, size: u64) -> Vec<u8> {
        let mut v = vec![0u8; len];
        v[..6].copy_from_slice(b"\x7fELF\x02\x01");
        v[0x28..0x30].copy_from_slice(&shoff.to_le_bytes());
        v[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        v[0x3c..0x3e].copy_from_slice(&1u16.to_le_bytes());
        let at = shoff as usize;
        if at.checked_add(64).is_some_and(|end| end <= len) {
            v[at + 4..at + 8].copy_from_slice(&ty.to_le_bytes());
            v[at + 0x18..at + 0x20].copy_from_slice(&off.to_le_bytes());
            v[at + 0x20..at + 0x28].copy_from_slice(&size.to_le_bytes());
        }
        v
    }

    #[test]
    fn images_the_driver_would_read_past_are_refused() {
        assert!(image_complete(b".version 8.0\n\0"));
        assert!(!image_complete(b".version 8.0\n"), "PTX without its NUL");
        assert!(!image_complete(b".version\0 8.0\0"), "text after the NUL");
        assert!(!image_complete(b""));
        assert!(!image_complete(b"\xba\x55\xed\x50junk"), "not ELF, not text");
        assert!(image_complete(&elf(256, 128, 1, 64, 64)));
        assert!(!image_complete(&elf(256, 128, 1, 64, 256)), "section contents past the end");
        assert!(image_complete(&elf(256, 128, 8, 64, 1 << 20)), "a NOBITS section has no file contents");
        assert!(!image_complete(&elf(256, 224, 1, 0, 0)), "section header table past the end");
        assert!(!image_complete(&elf(256, u64::MAX - 8, 1, 0, 0)), "offset overflow");
        assert!(!image_complete(&elf(256, 128, 1, 64, 256)[..100]), "truncated");
    }
}
