//! [`Executor`]: what runs a kernel, the CPU emulator or a GPU. Test code written once against
//! this trait runs on both back ends.

use super::kernel::Kernel;

/// An address in an executor's global memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DevPtr(pub u64);

impl DevPtr {
    /// The address `bytes` further on.
    pub fn offset(self, bytes: u64) -> DevPtr {
        DevPtr(self.0 + bytes)
    }
}

/// A kernel argument, matching the kernel's [`super::kernel::ParamTy`] in order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KernelArg {
    U32(u32),
    S32(i32),
    F32(f32),
    U64(u64),
    Ptr(DevPtr),
}

/// Grid and CTA shape of a launch, plus the dynamic shared memory in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchDims {
    pub grid: (u32, u32, u32),
    /// Threads per CTA along x (the IR is one-dimensional in threads).
    pub block: u32,
    pub dynamic_shared_bytes: u32,
    /// CTAs per thread-block cluster along x, y, z (sm_90+; `(1, 1, 1)`: no cluster). Each
    /// divides the grid's extent along its axis; a cluster holds at most 8 CTAs.
    pub cluster: (u32, u32, u32),
}

impl LaunchDims {
    /// A 1-D grid of `ctas` CTAs of `block` threads, no dynamic shared memory, no cluster.
    pub fn linear(ctas: u32, block: u32) -> Self {
        LaunchDims { grid: (ctas, 1, 1), block, dynamic_shared_bytes: 0, cluster: NO_CLUSTER }
    }

    /// CTAs per cluster.
    pub fn cluster_size(&self) -> u32 {
        self.cluster.0 * self.cluster.1 * self.cluster.2
    }
}

/// [`LaunchDims::cluster`] of a launch without clusters.
pub const NO_CLUSTER: (u32, u32, u32) = (1, 1, 1);

/// Most CTAs a cluster holds (the portable limit of sm_90).
pub const MAX_CLUSTER: u32 = 8;

/// Runs kernels over its own global memory.
pub trait Executor {
    /// The executor's error type.
    type Error: std::error::Error + Send + Sync + 'static;

    /// A short name for reports ("emulator", "NVIDIA H200 (sm_90)").
    fn name(&self) -> String;

    /// Allocates `bytes` of global memory, 256-byte aligned, filled with a poison pattern.
    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, Self::Error>;

    /// Copies `data` to `dst`.
    fn upload(&mut self, dst: DevPtr, data: &[u8]) -> Result<(), Self::Error>;

    /// Copies `out.len()` bytes from `src`.
    fn download(&mut self, src: DevPtr, out: &mut [u8]) -> Result<(), Self::Error>;

    /// Runs `kernel` to completion.
    fn launch(&mut self, kernel: &Kernel, dims: LaunchDims, args: &[KernelArg]) -> Result<(), Self::Error>;

    /// Allocates and uploads a slice of plain values.
    fn upload_new<T: bytemuck::Pod>(&mut self, data: &[T]) -> Result<DevPtr, Self::Error> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let p = self.alloc(bytes.len())?;
        self.upload(p, bytes)?;
        Ok(p)
    }

    /// Downloads `n` plain values.
    fn download_vec<T: bytemuck::Pod + Default + Clone>(&mut self, src: DevPtr, n: usize) -> Result<Vec<T>, Self::Error> {
        let mut v = vec![T::default(); n];
        self.download(src, bytemuck::cast_slice_mut(&mut v))?;
        Ok(v)
    }
}
