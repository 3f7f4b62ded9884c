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

/// The highest PTX ISA version a driver of CUDA version `v` (as from [`driver_version`], e.g.
/// 12040 for 12.4) loads, per the PTX ISA release history.
pub fn max_ptx_version(v: i32) -> PtxVersion {
    let (major, minor) = ((v / 1000) as u32, ((v % 1000) / 10) as u32);
    match major {
        0..=9 => PtxVersion::new(6, 0),
        10 => PtxVersion::new(6, 3 + minor.min(2)),
        11 => PtxVersion::new(7, minor.min(8)),
        12 => PtxVersion::new(8, match minor {
            0..=5 => minor,
            6 => 5,
            m => m - 1,
        }),
        m => PtxVersion::new(m - 4, minor),
    }
}

/// The oldest CUDA driver version that loads PTX ISA `ptx`, e.g. "11.8" for 7.8.
pub fn min_driver_for(ptx: PtxVersion) -> String {
    match (ptx.major, ptx.minor) {
        (6, m) => format!("10.{}", m.saturating_sub(3)),
        (7, m) => format!("11.{m}"),
        (8, m) if m <= 5 => format!("12.{m}"),
        (8, m) => format!("12.{}", m + 1),
        (maj, m) => format!("{}.{m}", maj + 4),
    }
}

/// Formats a driver CUDA version (12040 as "12.4").
pub fn version_string(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

use humming_core::ir::ptx::PtxVersion;

/// Launches `f` on `stream` with `args` in the kernel's parameter order: each argument gets its
/// own 8-byte slot, and 4-byte parameters read its low half (little-endian), where the value
/// sits. The one place the runtime, the GPU executor and the benchmark marshal arguments.
///
/// With `pdl` (programmatic dependent launch, sm_90+ and a CUDA 12 driver; a plain launch
/// otherwise) the grid may start while the previous kernel on the stream is still running.
/// A cluster shape in `dims` (sm_90+) needs `cuLaunchKernelEx` (CUDA 12 drivers); without it
/// the launch fails with a [`GpuError::Driver`] error naming `cuLaunchKernelEx`.
///
/// # Safety
/// `args` must match `f`'s parameters in number and type, and every pointer argument must be
/// valid for what the kernel does with it (the launch paths check this before calling). With
/// `pdl`, the kernel must not touch memory an earlier kernel writes before its
/// `griddepcontrol.wait` ([`humming_core::kernel::CompiledKernel::waits_for_prior_grid`]).
pub unsafe fn launch_kernel(
    f: cu::CUfunction,
    dims: humming_core::ir::LaunchDims,
    args: &[humming_core::ir::KernelArg],
    stream: cu::CUstream,
    pdl: bool,
) -> Result<(), GpuError> {
    use humming_core::ir::KernelArg;
    let mut vals: Vec<u64> = args
        .iter()
        .map(|a| match *a {
            KernelArg::U32(v) => v as u64,
            KernelArg::S32(v) => v as u32 as u64,
            KernelArg::F32(v) => v.to_bits() as u64,
            KernelArg::U64(v) => v,
            KernelArg::Ptr(p) => p.0,
        })
        .collect();
    let mut ptrs: Vec<*mut std::os::raw::c_void> = vals.iter_mut().map(|v| (v as *mut u64).cast()).collect();
    let (gx, gy, gz) = dims.grid;
    let cluster = dims.cluster_size() > 1;
    if cluster && launch_kernel_ex().is_none() {
        return Err(GpuError::Driver {
            call: "cuLaunchKernelEx",
            code: cu::CUresult::CUDA_ERROR_NOT_SUPPORTED as u32,
            name: "CUDA_ERROR_NOT_SUPPORTED".into(),
            message: "a thread-block cluster launch needs cuLaunchKernelEx (a CUDA 12 or newer driver)".into(),
        });
    }
    if let Some(launch_ex) = (pdl || cluster).then(launch_kernel_ex).flatten() {
        let mut attrs = Vec::new();
        if pdl {
            let mut attr = LaunchAttribute { id: PROGRAMMATIC_STREAM_SERIALIZATION, _pad: 0, value: [0; 8] };
            attr.value[0] = 1; // programmaticStreamSerializationAllowed (an int at offset 0)
            attrs.push(attr);
        }
        if cluster {
            let (cx, cy, cz) = dims.cluster;
            let mut attr = LaunchAttribute { id: CLUSTER_DIMENSION, _pad: 0, value: [0; 8] };
            // clusterDim: three unsigned ints x, y, z from offset 0.
            attr.value[0] = cx as u64 | (cy as u64) << 32;
            attr.value[1] = cz as u64;
            attrs.push(attr);
        }
        let config = LaunchConfig {
            grid: [gx, gy, gz],
            block: [dims.block, 1, 1],
            shared_bytes: dims.dynamic_shared_bytes,
            stream,
            attrs: attrs.as_mut_ptr(),
            num_attrs: attrs.len() as u32,
        };
        // SAFETY: as for cuLaunchKernel; `config` and `attrs` have the driver's layout and
        // outlive the call.
        return check("cuLaunchKernelEx", unsafe { launch_ex(&config, f, ptrs.as_mut_ptr(), std::ptr::null_mut()) });
    }
    // SAFETY: the caller guarantees the arguments match the kernel; the slots outlive the call.
    check("cuLaunchKernel", unsafe {
        cu::cuLaunchKernel(f, gx, gy, gz, dims.block, 1, 1, dims.dynamic_shared_bytes, stream, ptrs.as_mut_ptr(), std::ptr::null_mut())
    })
}

/// `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION` (cuda.h, CUDA 12).
const PROGRAMMATIC_STREAM_SERIALIZATION: u32 = 6;

/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION` (cuda.h, CUDA 12).
const CLUSTER_DIMENSION: u32 = 4;

/// `CUlaunchAttribute` (cuda.h, CUDA 12): the id, padding to 8 bytes, a 64-byte value union.
#[repr(C)]
struct LaunchAttribute {
    id: u32,
    _pad: u32,
    value: [u64; 8],
}

/// `CUlaunchConfig` (cuda.h, CUDA 12).
#[repr(C)]
struct LaunchConfig {
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    stream: cu::CUstream,
    attrs: *mut LaunchAttribute,
    num_attrs: u32,
}

// The driver's layouts on 64-bit targets: 4-byte id + 4 padding + 64-byte union; 7 u32, the
// stream at offset 32, the attribute pointer at 40, the count at 48.
const _: () = assert!(std::mem::size_of::<LaunchAttribute>() == 72 && std::mem::size_of::<LaunchConfig>() == 56);
const _: () = assert!(std::mem::offset_of!(LaunchConfig, stream) == 32 && std::mem::offset_of!(LaunchConfig, attrs) == 40);

type LaunchKernelEx = unsafe extern "C" fn(
    *const LaunchConfig,
    cu::CUfunction,
    *mut *mut std::os::raw::c_void,
    *mut *mut std::os::raw::c_void,
) -> cu::CUresult;

/// `cuLaunchKernelEx` from the driver (CUDA 12+), looked up once; `None` on older drivers (cust's
/// bindings predate it, and linking it directly would stop the library loading on them).
fn launch_kernel_ex() -> Option<LaunchKernelEx> {
    static EX: std::sync::OnceLock<Option<LaunchKernelEx>> = std::sync::OnceLock::new();
    *EX.get_or_init(|| {
        let mut p: *mut std::os::raw::c_void = std::ptr::null_mut();
        // SAFETY: writes one function pointer for a NUL-terminated symbol name.
        let r = unsafe { cu::cuGetProcAddress(c"cuLaunchKernelEx".as_ptr(), &mut p, 12000, 0) };
        // SAFETY: the driver returns the entry point of `cuLaunchKernelEx`, whose C signature
        // `LaunchKernelEx` restates.
        (r == cu::CUresult::CUDA_SUCCESS && !p.is_null()).then(|| unsafe { std::mem::transmute::<*mut std::os::raw::c_void, LaunchKernelEx>(p) })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptx_versions_of_drivers() {
        let v = |maj, min| PtxVersion::new(maj, min);
        for (driver, ptx) in [
            (10000, v(6, 3)),
            (10020, v(6, 5)),
            (11000, v(7, 0)),
            (11080, v(7, 8)),
            (12000, v(8, 0)),
            (12040, v(8, 4)),
            (12050, v(8, 5)),
            (12060, v(8, 5)),
            (12080, v(8, 7)),
            (12090, v(8, 8)),
            (13000, v(9, 0)),
        ] {
            assert_eq!(max_ptx_version(driver), ptx, "driver {driver}");
            if driver != 12060 {
                assert_eq!(min_driver_for(ptx), version_string(driver), "PTX {ptx}");
            }
        }
        // Every PTX version a generated kernel can have loads on the driver it names.
        for ptx in [v(6, 3), v(7, 0), v(7, 1), v(7, 8), v(8, 0), v(8, 7)] {
            let (maj, min) = min_driver_for(ptx).split_once('.').map(|(a, b)| (a.parse::<i32>().unwrap(), b.parse::<i32>().unwrap())).unwrap();
            assert!(max_ptx_version(maj * 1000 + min * 10) >= ptx);
            assert!(max_ptx_version(maj * 1000 + min * 10 - 10) < ptx || min == 0);
        }
    }
}
