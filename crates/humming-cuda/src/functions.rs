//! The process-wide cache of loaded kernels: a PTX module is JIT-loaded once per (context,
//! kernel identity) and shared by every thread; the identity is the entry name plus the PTX's
//! hash computed where the kernel was made ([`CompiledKernel::ptx_id`], checked against the
//! text when the module is loaded), so two different modules with one name never alias and a
//! launch does not rehash ~100 KB of PTX.

use crate::driver::check;
use crate::error::GpuError;
use crate::gpu::Gpu;
use crate::module::Module;
use cust::sys as cu;
use humming_core::kernel::CompiledKernel;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// A loaded entry point. It holds its device's primary context (through a [`Gpu`] handle), so
/// the context, and with it the module, lives as long as the cache entry.
#[derive(Debug)]
pub struct LoadedKernel {
    /// The entry name (compared on a cache hit, so a hash shared by two kernels never aliases).
    name: String,
    _module: Module,
    _gpu: Gpu,
    func: cu::CUfunction,
    /// The dynamic shared memory limit set on the function so far (bytes).
    smem_limit: AtomicU32,
}

// SAFETY: a CUfunction may be launched from any thread of the process while its module is
// loaded (the module lives as long as this value).
unsafe impl Send for LoadedKernel {}
// SAFETY: as above; the only mutable state is atomic.
unsafe impl Sync for LoadedKernel {}

impl LoadedKernel {
    /// The raw function handle.
    pub fn raw(&self) -> cu::CUfunction {
        self.func
    }

    /// Raises the function's dynamic shared memory limit to at least `bytes` (needed above
    /// 48 KB); set once per function.
    pub fn ensure_shared(&self, bytes: u32) -> Result<(), GpuError> {
        if bytes <= 48 * 1024 || bytes <= self.smem_limit.load(Ordering::Acquire) {
            return Ok(());
        }
        // SAFETY: valid function handle.
        check("cuFuncSetAttribute", unsafe {
            cu::cuFuncSetAttribute(
                self.func,
                cu::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
        })?;
        self.smem_limit.fetch_max(bytes, Ordering::AcqRel);
        Ok(())
    }
}

/// (context, `ptx_id`): the entries with that hash, told apart by their names. No allocation
/// on the lookup every launch makes.
type Key = (usize, u64);

fn cache() -> &'static Mutex<HashMap<Key, Vec<Arc<LoadedKernel>>>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Vec<Arc<LoadedKernel>>>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// Number of modules loaded so far in this process (for tests of the cache).
pub fn loaded_count() -> usize {
    cache().lock().map_or(0, |c| c.values().map(Vec::len).sum())
}

/// The loaded `kernel` in `gpu`'s primary context, loading it on first use.
pub fn get(gpu: &Gpu, kernel: &CompiledKernel) -> Result<Arc<LoadedKernel>, GpuError> {
    let key = (gpu.raw_context() as usize, kernel.ptx_id);
    // A poisoned lock only means another thread panicked while holding it; the map stays valid.
    let mut map = cache().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(k) = map.get(&key).and_then(|v| v.iter().find(|k| k.name == kernel.name)) {
        return Ok(k.clone());
    }
    if CompiledKernel::id_of(&kernel.ptx) != kernel.ptx_id {
        return Err(GpuError::BadLaunch { kernel: kernel.name.to_string(), reason: "its ptx_id is not the hash of its PTX (CompiledKernel::id_of)".into() });
    }
    gpu.make_current()?;
    let module = Module::load_ptx(&kernel.ptx, &kernel.name)?;
    let func = module.function(&kernel.name)?;
    let loaded = Arc::new(LoadedKernel { name: kernel.name.to_string(), _module: module, _gpu: gpu.clone(), func, smem_limit: AtomicU32::new(48 * 1024) });
    map.entry(key).or_default().push(loaded.clone());
    Ok(loaded)
}
