//! End-to-end check of a generated GEMM on any [`Executor`]: fresh random weights and
//! activations, quantize, pack, upload, launch on a poisoned output, and compare EVERY element
//! with the f64 reference.
//!
//! # Tolerance
//! The kernel rounds each B value `w * s` once to the activation type (relative error at most
//! `u_B` = 2^-11 for f16, 2^-8 for bf16, plus an absolute 2^-25 (f16) where it lands among
//! subnormals), multiplies exactly in the tensor cores, accumulates in f32 (error at most
//! `K * 2^-23` relative to `P = sum_k |a_k w_k s_k|`, a loose bound covering the MMA's internal
//! accumulation and the split-K/k-warp sums), scales by the global scale in f32 and rounds once
//! to the output. So, with `x` the exact f64 sum and `gs` the global scale,
//!
//! `|out - round(gs x)| <= gs * (P * (u_B + K * 2^-23) + sum_k |a_k| * sub_B) + ulp_out(|gs x| + that) `
//!
//! where `ulp_out(v)` is one unit in the last place of the output format at `v` (the two
//! roundings to the output add at most half an ulp each). NaN never passes; the output buffer is
//! poisoned with NaN bits before the launch, so an unwritten element fails.

use super::launch::{GemmError, run_gemm, upload_weights};
use super::{GemmKernels, KernelPlan, generate};
use crate::ir::Executor;
use crate::rng::SplitMix64;
use crate::pack::a16::PackedA16;
use crate::quant::{ActGranularity, ActTensor, QuantConfig, QuantizedWeights, quantize, quantize_act};
use crate::reference::{act_values, dequantize, round_to_out};
use crate::{ActFormat, OutFormat, Spec};

/// What a check measured.
#[derive(Clone, Debug)]
pub struct CheckReport {
    pub kernel: String,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub split: u32,
    /// Largest |out - ref| over the elements.
    pub max_abs_err: f64,
    /// Largest error as a fraction of its element's tolerance (<= 1 passes).
    pub max_tol_frac: f64,
}

/// Runs `spec` with `plan` at `m x n x k` on `ex` with `split` K-splits and checks every element.
pub fn check_gemm<E: Executor>(
    ex: &mut E,
    spec: &Spec,
    plan: &KernelPlan,
    (m, n, k): (usize, usize, usize),
    split: u32,
    seed: u64,
) -> Result<CheckReport, String> {
    let kernels = generate(spec, plan).map_err(|e| e.to_string())?;
    check_kernels(ex, &kernels, (m, n, k), split, seed)
}

/// Checks the variant of `bundle` that a launch at `m` would use (regenerated from the bundle's
/// spec and plan, and required to print to the bundle's PTX) at `m x n x k` on `ex`.
pub fn check_bundle<E: Executor>(
    ex: &mut E,
    bundle: &super::GemmBundle,
    (m, n, k): (usize, usize, usize),
    split: u32,
    seed: u64,
) -> Result<CheckReport, String> {
    let kernels = bundle.kernels(bundle.variant_for(m)).map_err(|e| e.to_string())?;
    check_kernels(ex, &kernels, (m, n, k), split, seed)
}

/// [`check_gemm`] for kernels already generated.
pub fn check_kernels<E: Executor>(
    ex: &mut E,
    kernels: &GemmKernels,
    (m, n, k): (usize, usize, usize),
    split: u32,
    seed: u64,
) -> Result<CheckReport, String> {
    let spec = &kernels.spec;
    let (w, act) = random_operands(spec, (m, n, k), seed)?;
    let got = run_operands(ex, kernels, &w, &act, split)?;
    verify(spec, &w, &act, &got, &kernels.main.name, split)
}

/// Packs and uploads `w` and `act`, launches `kernels` with `split` on an output poisoned with
/// NaN bits, and returns the output bits (`act.m x w.n`, row-major), for [`verify`].
pub fn run_operands<E: Executor>(ex: &mut E, kernels: &GemmKernels, w: &QuantizedWeights, act: &ActTensor, split: u32) -> Result<Vec<u16>, String> {
    let (m, n) = (act.m, w.n);
    let packed = PackedA16::from_quantized(w, kernels.spec.act()).map_err(|e| e.to_string())?;
    let dev_w = upload_weights(ex, &packed).map_err(|e| e.to_string())?;
    let a16: Vec<u16> = act.codes.iter().map(|&c| c as u16).collect();
    let a_dev = ex.upload_new(&a16).map_err(|e| e.to_string())?;
    let out_dev = ex.upload_new(&vec![0xFFFFu16; m * n]).map_err(|e| e.to_string())?;
    run_gemm(ex, kernels, &dev_w, a_dev, out_dev, m, split).map_err(|e| match e {
        GemmError::Invalid(e) => e.to_string(),
        GemmError::Exec(e) => format!("{}: {e}", ex.name()),
    })?;
    ex.download_vec(out_dev, m * n).map_err(|e| e.to_string())
}

/// Random inputs for a check of `spec` at `m x n x k`: f32 weights with a per-row magnitude
/// spread (so scales differ across rows and groups), quantized for the spec, and activations
/// in the spec's activation type.
pub fn random_operands(spec: &Spec, (m, n, k): (usize, usize, usize), seed: u64) -> Result<(QuantizedWeights, ActTensor), String> {
    let mut rng = SplitMix64::new(seed);
    let wf: Vec<f32> = (0..n * k)
        .map(|i| {
            let row = (i / k) as f32;
            rng.unit_f32() * (0.25 + (row % 7.0) * 0.5)
        })
        .collect();
    let cfg = QuantConfig::new(spec.weight(), spec.scale(), spec.group())
        .with_zero_point(spec.zero_point())
        .with_global_scale(spec.global_scale());
    let w = quantize(&wf, n, k, &cfg).map_err(|e| format!("quantize: {e}"))?;
    let af: Vec<f32> = (0..m * k).map(|_| rng.unit_f32() * 2.0).collect();
    let act = quantize_act(&af, m, k, spec.act(), ActGranularity::PerToken).map_err(|e| format!("act: {e}"))?;
    Ok((w, act))
}

/// One output element's reference: the f64 sum `exact`, `want` (it times the global scale,
/// rounded to the output type) and the `tol` that [`verify`] allows around `want`.
#[derive(Clone, Copy, Debug)]
pub struct Expected {
    pub exact: f64,
    pub want: f64,
    pub tol: f64,
}

/// The [`Expected`] value of every output element (`m x n`, row-major) for weights `w` and
/// activations `act`, within the tolerance stated in the module docs.
pub fn expected(spec: &Spec, w: &QuantizedWeights, act: &ActTensor) -> Result<Vec<Expected>, String> {
    let (m, n, k) = (act.m, w.n, w.k);
    let wd = dequantize(w).map_err(|e| e.to_string())?;
    let ad = act_values(act).map_err(|e| e.to_string())?;
    let gs = w.global() as f64;
    let (u_b, sub_b) = match spec.act() {
        ActFormat::F16 => (2f64.powi(-11), 2f64.powi(-25)),
        _ => (2f64.powi(-8), 2f64.powi(-134)),
    };
    let acc = k as f64 * 2f64.powi(-23);
    // Per element: the exact f64 sum x, P = sum |a w| (before the global scale) and sum |a|;
    // rows in parallel (the GPU suite checks M x N x K up to 1024 x 4096 x 4096).
    let rows = par_rows(m, |i| {
        let a = &ad[i * k..(i + 1) * k];
        (0..n)
            .map(|j| {
                let wr = &wd[j * k..(j + 1) * k];
                let (mut x, mut p, mut sa) = (0f64, 0f64, 0f64);
                for (&av, &wv) in a.iter().zip(wr) {
                    x += av * wv;
                    p += (av * wv).abs();
                    sa += av.abs();
                }
                let e_sum = p * (u_b + acc) + gs * sa * sub_b;
                Expected { exact: x, want: round_to_out(x, spec.out()) as f64, tol: e_sum + ulp_out(x.abs() + e_sum, spec.out()) }
            })
            .collect::<Vec<_>>()
    });
    Ok(rows.into_iter().flatten().collect())
}

/// Compares a kernel's output bits `got` (`m x n`, row-major, the spec's output type) for
/// weights `w` and activations `act` with the f64 reference, element by element, within the
/// tolerance stated in the module docs. `kernel` and `split` label the report.
pub fn verify(spec: &Spec, w: &QuantizedWeights, act: &ActTensor, got: &[u16], kernel: &str, split: u32) -> Result<CheckReport, String> {
    let (m, n, k) = (act.m, w.n, w.k);
    if got.len() != m * n {
        return Err(format!("{kernel}: {} outputs for {m} x {n}", got.len()));
    }
    let mut report = CheckReport {
        kernel: kernel.to_string(),
        m,
        n,
        k,
        split,
        max_abs_err: 0.0,
        max_tol_frac: 0.0,
    };
    for (idx, e) in expected(spec, w, act)?.into_iter().enumerate() {
        let (i, j) = (idx / n, idx % n);
        let got_v = decode_out(got[idx], spec.out());
        let err = (got_v - e.want).abs();
        if got_v.is_nan() || err > e.tol {
            return Err(format!(
                "{} at m={m} n={n} k={k} split={split}: element ({i}, {j}) = {got_v} (bits {:#06x}), reference {} \
                 (exact {}), |err| {err:e} > tolerance {:e}",
                kernel, got[idx], e.want, e.exact, e.tol
            ));
        }
        report.max_abs_err = report.max_abs_err.max(err);
        if e.tol > 0.0 {
            report.max_tol_frac = report.max_tol_frac.max(err / e.tol);
        }
    }
    Ok(report)
}

/// The value of output bits `bits` in format `out`.
pub fn decode_out(bits: u16, out: OutFormat) -> f64 {
    match out {
        OutFormat::F16 => half::f16::from_bits(bits).to_f64(),
        OutFormat::Bf16 => half::bf16::from_bits(bits).to_f64(),
    }
}

/// One ulp of the output format at magnitude `v` (the subnormal spacing below the normals).
fn ulp_out(v: f64, out: OutFormat) -> f64 {
    let (man, e_min) = match out {
        OutFormat::F16 => (10, -14),
        OutFormat::Bf16 => (7, -126),
    };
    let e = if v > 0.0 { v.log2().floor() as i32 } else { e_min };
    2f64.powi(e.max(e_min) - man)
}

/// `f(i)` for every row `i < m`, on all cores when the work is large.
fn par_rows<T: Send>(m: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(m).max(1);
    if threads == 1 || m < 8 {
        return (0..m).map(f).collect();
    }
    let chunk = m.div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let f = &f;
                s.spawn(move || (t * chunk..((t + 1) * chunk).min(m)).map(f).collect::<Vec<T>>())
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("reference thread")).collect()
    })
}
