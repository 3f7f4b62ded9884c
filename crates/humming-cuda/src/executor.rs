//! [`GpuExecutor`]: runs IR kernels on a GPU through the [`Executor`] trait, so test code written
//! once runs on the emulator and on hardware.

use crate::driver::check;
use crate::error::GpuError;
use crate::gpu::Gpu;
use crate::module::Module;
use cust::sys as cu;
use humming_core::Arch;
use humming_core::ir::{DevPtr, Executor, Kernel, KernelArg, LaunchDims, ParamTy};
use std::collections::HashMap;

/// Byte that fresh allocations are filled with, so unwritten outputs show.
pub const POISON: u8 = 0xFF;

/// Runs kernels on one GPU, printing their PTX for `target`.
#[derive(Debug)]
pub struct GpuExecutor {
    gpu: Gpu,
    target: Arch,
    /// Live allocations: base address -> size.
    allocs: HashMap<u64, usize>,
    /// Loaded modules by (kernel name, target): a kernel's name identifies its code (generated
    /// names encode everything that changes it), so the PTX is printed once per name.
    modules: HashMap<(String, Arch), Module>,
    /// Synchronize (and so surface errors) after every launch; off for timing.
    sync: bool,
}

impl GpuExecutor {
    /// An executor on `gpu` that prints PTX for `target` (which the device must run).
    pub fn new(gpu: Gpu, target: Arch) -> Result<Self, GpuError> {
        if !target.runs_on(gpu.compute_capability()) {
            return Err(GpuError::ArchMismatch { arch: target, cc: gpu.compute_capability() });
        }
        Ok(GpuExecutor { gpu, target, allocs: HashMap::new(), modules: HashMap::new(), sync: true })
    }

    /// Runs `kernel_name`, from now on, from `image` (a cubin that a chosen `ptxas` compiled from
    /// the kernel's PTX for the current target) instead of the PTX the driver compiles: tells a
    /// fault of the driver's compilation from one of the kernel.
    pub fn load_image(&mut self, kernel_name: &str, image: &[u8]) -> Result<(), GpuError> {
        self.gpu.make_current()?;
        let m = Module::load_image(image, kernel_name)?;
        m.function(kernel_name)?;
        self.modules.insert((kernel_name.to_string(), self.target), m);
        Ok(())
    }

    /// Changes the PTX target for later launches.
    pub fn set_target(&mut self, target: Arch) -> Result<(), GpuError> {
        if !target.runs_on(self.gpu.compute_capability()) {
            return Err(GpuError::ArchMismatch { arch: target, cc: self.gpu.compute_capability() });
        }
        self.target = target;
        Ok(())
    }

    /// Whether launches wait for completion (default). Timing loops turn it off and call
    /// [`GpuExecutor::synchronize`] themselves.
    pub fn set_sync(&mut self, sync: bool) {
        self.sync = sync;
    }

    /// Waits for every launch so far; reports any asynchronous error.
    pub fn synchronize(&self) -> Result<(), GpuError> {
        // SAFETY: plain driver call.
        check("cuCtxSynchronize", unsafe { cu::cuCtxSynchronize() })
    }

    /// Frees an allocation made by [`Executor::alloc`].
    pub fn free(&mut self, p: DevPtr) -> Result<(), GpuError> {
        if self.allocs.remove(&p.0).is_none() {
            return Err(GpuError::BadPointer { addr: p.0, len: 0 });
        }
        // SAFETY: the pointer came from cuMemAlloc and is freed once (removed from the map).
        check("cuMemFree", unsafe { cu::cuMemFree_v2(p.0) })
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    fn check_range(&self, p: DevPtr, len: usize) -> Result<(), GpuError> {
        let inside = self.allocs.iter().any(|(&base, &size)| p.0 >= base && p.0 + len as u64 <= base + size as u64);
        if inside { Ok(()) } else { Err(GpuError::BadPointer { addr: p.0, len }) }
    }

    fn check_args(kernel: &Kernel, args: &[KernelArg]) -> Result<(), GpuError> {
        let bad = |reason: String| GpuError::BadLaunch { kernel: kernel.name.clone(), reason };
        if args.len() != kernel.params.len() {
            return Err(bad(format!("{} arguments for {} parameters", args.len(), kernel.params.len())));
        }
        for (i, (a, p)) in args.iter().zip(&kernel.params).enumerate() {
            let ok = matches!(
                (a, p.ty),
                (KernelArg::U32(_), ParamTy::U32)
                    | (KernelArg::S32(_), ParamTy::S32)
                    | (KernelArg::F32(_), ParamTy::F32)
                    | (KernelArg::U64(_), ParamTy::U64)
                    | (KernelArg::Ptr(_), ParamTy::Ptr)
            );
            if !ok {
                return Err(bad(format!("argument {i} ({}) is {a:?}, parameter is {:?}", p.name, p.ty)));
            }
        }
        Ok(())
    }
}

impl Executor for GpuExecutor {
    type Error = GpuError;

    fn name(&self) -> String {
        let (ma, mi) = self.gpu.compute_capability();
        format!("{} (sm_{ma}{mi}, PTX for {})", self.gpu.name(), self.target)
    }

    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, GpuError> {
        self.gpu.make_current()?;
        let mut p: cu::CUdeviceptr = 0;
        let n = bytes.max(1);
        // SAFETY: allocation and memset of the fresh allocation.
        unsafe {
            check("cuMemAlloc", cu::cuMemAlloc_v2(&mut p, n))?;
            check("cuMemsetD8", cu::cuMemsetD8_v2(p, POISON, n))?;
        }
        self.allocs.insert(p, n);
        Ok(DevPtr(p))
    }

    fn upload(&mut self, dst: DevPtr, data: &[u8]) -> Result<(), GpuError> {
        self.check_range(dst, data.len())?;
        // SAFETY: the destination range lies in a live allocation (checked above).
        check("cuMemcpyHtoD", unsafe { cu::cuMemcpyHtoD_v2(dst.0, data.as_ptr().cast(), data.len()) })
    }

    fn download(&mut self, src: DevPtr, out: &mut [u8]) -> Result<(), GpuError> {
        self.check_range(src, out.len())?;
        // SAFETY: the source range lies in a live allocation (checked above); `out` is writable.
        check("cuMemcpyDtoH", unsafe { cu::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), src.0, out.len()) })
    }

    fn launch(&mut self, kernel: &Kernel, dims: LaunchDims, args: &[KernelArg]) -> Result<(), GpuError> {
        Self::check_args(kernel, args)?;
        if dims.block != kernel.block_threads {
            return Err(GpuError::BadLaunch {
                kernel: kernel.name.clone(),
                reason: format!("block of {} threads, kernel requires {}", dims.block, kernel.block_threads),
            });
        }
        self.gpu.make_current()?;
        let key = (kernel.name.clone(), self.target);
        if !self.modules.contains_key(&key) {
            let ptx = humming_core::ir::ptx::print(kernel, self.target)?;
            let m = Module::load_ptx(&ptx, &kernel.name)?;
            self.modules.insert(key.clone(), m);
        }
        let f = self.modules[&key].function(&kernel.name)?;
        if dims.dynamic_shared_bytes > 48 * 1024 {
            // SAFETY: valid function handle.
            check("cuFuncSetAttribute", unsafe {
                cu::cuFuncSetAttribute(
                    f,
                    cu::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    dims.dynamic_shared_bytes as i32,
                )
            })?;
        }
        // SAFETY: argument count and types were checked against the kernel's parameters; every
        // pointer argument is the caller's responsibility as on any GPU launch, and the emulator
        // runs the same kernels with bounds checks.
        unsafe {
            crate::driver::launch_kernel(f, dims, args, std::ptr::null_mut(), false)?;
            if self.sync {
                check("cuCtxSynchronize", cu::cuCtxSynchronize())?;
            }
        }
        Ok(())
    }
}

impl Drop for GpuExecutor {
    fn drop(&mut self) {
        self.modules.clear();
        for &p in self.allocs.keys() {
            // SAFETY: each pointer came from cuMemAlloc and is freed once.
            unsafe {
                cu::cuMemFree_v2(p);
            }
        }
    }
}
