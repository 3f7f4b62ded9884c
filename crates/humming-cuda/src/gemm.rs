//! Typed GEMM launches: [`launch_gemm`] runs the kernel of a bundle set (what
//! `#[humming_gemm]` embeds, or a runtime-generated bundle) on a stream, after checking every
//! operand: element types against the spec, devices and stream context, M from the buffer
//! lengths, weights against the spec, alignment, split-K, shared memory and the driver's PTX
//! version. The argument lists come from `humming_core::kernel::launch::prepare`, the same code
//! the CPU emulator path uses.

use crate::buffer::DeviceBuf;
use crate::driver::{check, driver_version, max_ptx_version, min_driver_for, version_string};
use crate::elem::Elem16;
use crate::error::RuntimeError;
use crate::functions;
use crate::weights::GpuWeights;
use cust::stream::Stream;
use cust::sys as cu;
use humming_core::ir::DevPtr;
use humming_core::kernel::launch::{Buf, GemmLaunches, GemmOperands, Launch, LaunchError, prepare, workspace_bytes, workspace_counters};
use humming_core::kernel::{CompiledKernel, GemmBundle, bundle};
use humming_core::Spec;

/// `y[m, n] = x[m, k] x W^T` on `stream` with the kernels of `bundles` (one per target; the
/// newest the device runs is used). M is `x.len() / k`; `y` must hold exactly `m * n`
/// elements. Returns once the launches are queued; read `y` with [`DeviceBuf::to_vec`].
pub fn launch_gemm<A: Elem16, O: Elem16>(
    bundles: &[GemmBundle],
    stream: &Stream,
    x: &DeviceBuf<A>,
    w: &GpuWeights,
    y: &mut DeviceBuf<O>,
) -> Result<(), RuntimeError> {
    let gpu = w.gpu();
    if x.gpu().raw_context() != gpu.raw_context() {
        return Err(RuntimeError::Device { operand: "activations" });
    }
    if y.gpu().raw_context() != gpu.raw_context() {
        return Err(RuntimeError::Device { operand: "output" });
    }
    let cc = gpu.compute_capability();
    let bundle = bundle::select(bundles, cc).ok_or_else(|| RuntimeError::NoTarget {
        cc,
        targets: if bundles.is_empty() {
            "no target (the kernel set is empty)".into()
        } else {
            bundles.iter().map(|b| b.spec.arch.name()).collect::<Vec<_>>().join(", ")
        },
    })?;
    let spec = bundle.spec()?;
    if A::ACT != spec.act() {
        return Err(RuntimeError::Dtype { operand: "activations", expected: spec.act().to_string(), got: A::ACT.to_string(), kernel: spec.id() });
    }
    if O::OUT != spec.out() {
        return Err(RuntimeError::Dtype { operand: "output", expected: spec.out().to_string(), got: O::OUT.to_string(), kernel: spec.id() });
    }
    let l = w.desc().layout;
    if x.len() % l.k != 0 || x.is_empty() {
        return Err(LaunchError::NotWholeRows { operand: "activations", len: x.len(), row: l.k }.into());
    }
    let m = x.len() / l.k;
    if y.len() != m * l.n {
        return Err(RuntimeError::Rows { act_rows: m, k: l.k, out_len: y.len(), out_rows: y.len() as f64 / l.n as f64, n: l.n });
    }
    run(bundle, &spec, stream, w, Buf { ptr: x.ptr(), len: x.len() }, Buf { ptr: y.ptr(), len: y.len() }, m)
}

/// Launches `bundle` (already chosen and validated) for `m` rows.
pub(crate) fn run(bundle: &GemmBundle, spec: &Spec, stream: &Stream, w: &GpuWeights, a: Buf, out: Buf, m: usize) -> Result<(), RuntimeError> {
    let gpu = w.gpu();
    gpu.make_current()?;
    let raw_stream = stream.as_inner();
    let mut stream_ctx = std::ptr::null_mut();
    // SAFETY: writes one context handle for a live stream.
    check("cuStreamGetCtx", unsafe { cu::cuStreamGetCtx(raw_stream, &mut stream_ctx) })?;
    if stream_ctx != gpu.raw_context() {
        return Err(RuntimeError::Device { operand: "stream" });
    }
    // The bucket's plan, or on a GPU with less DRAM bandwidth its replacement (`GemmBundle::lean`).
    let variant = bundle.variant_for_device(m, gpu.profile().as_ref());
    let plan = variant.plan;
    let l = w.desc().layout;
    let split = plan.split_k_for(m, l.n_pad, l.k_pad, gpu.sm_count()?);
    let ws_bytes = workspace_bytes(&l, m, split);
    let weights = w.device_weights();
    // Validate with a placeholder workspace address first: nothing is allocated for a launch
    // that is invalid anyway (the real address is put in afterwards).
    let probe = GemmOperands { weights: &weights, a, out, workspace: (ws_bytes > 0).then_some(Buf { ptr: DevPtr(256), len: ws_bytes }), m, split };
    let planned = prepare(spec, &plan, &probe)?;
    check_driver(&variant.main)?;
    let max = gpu.max_shared_optin()?;
    let need = planned.main.dims.dynamic_shared_bytes;
    if need > max {
        return Err(RuntimeError::SharedMemory { kernel: variant.main.name.to_string(), need, max });
    }
    let main = functions::get(gpu, &variant.main)?;
    main.ensure_shared(need)?;
    let reduce = match planned.reduce {
        Some(_) => {
            check_driver(&bundle.reduce)?;
            Some(functions::get(gpu, &bundle.reduce)?)
        }
        None => None,
    };

    // The split-K workspace (partials and the arrival counters of the in-kernel reduction) is
    // the weights' own, kept between launches: see `crate::workspace`.
    let go = |launches: &GemmLaunches| -> Result<(), RuntimeError> {
        launch(main.raw(), &variant.main, &launches.main, raw_stream)?;
        if let (Some(r), Some(f)) = (&launches.reduce, &reduce) {
            launch(f.raw(), &bundle.reduce, r, raw_stream)?;
        }
        Ok(())
    };
    if ws_bytes == 0 {
        // Nothing to allocate: the validated launches are the real ones.
        return go(&planned);
    }
    let counters = workspace_counters(&l, m, split);
    w.workspace().with(gpu, raw_stream, ws_bytes, counters, |ptr| go(&planned.with_workspace(DevPtr(ptr))?))
}

fn check_driver(k: &CompiledKernel) -> Result<(), RuntimeError> {
    let v = driver_version()?;
    let supported = max_ptx_version(v);
    if k.ptx_version > supported {
        return Err(RuntimeError::DriverTooOld {
            kernel: k.name.to_string(),
            ptx: k.ptx_version,
            supported,
            driver: version_string(v),
            needs: min_driver_for(k.ptx_version),
        });
    }
    Ok(())
}

fn launch(f: cu::CUfunction, k: &CompiledKernel, l: &Launch, stream: cu::CUstream) -> Result<(), RuntimeError> {
    if l.dims.block != k.threads {
        return Err(crate::GpuError::BadLaunch { kernel: k.name.to_string(), reason: format!("block of {} threads, the kernel requires {}", l.dims.block, k.threads) }.into());
    }
    // SAFETY: the argument list was built by `prepare` for this kernel's parameters and every
    // buffer was checked against the shape; the stream belongs to the current context.
    unsafe { crate::driver::launch_kernel(f, l.dims, &l.args, stream, k.waits_for_prior_grid())? };
    Ok(())
}
