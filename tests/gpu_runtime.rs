//! The typed runtime on the GPU: `QuantizedLinear` and `launch_gemm` against the f64 reference
//! (every element, the tolerance of `humming_core::kernel::check`), in every M bucket and with
//! split-K; misuse (wrong shapes, too-short or too-long buffers, wrong element types, weights
//! packed for another spec, kernels the device or driver cannot run) returning typed errors
//! with the output left untouched; the module cache; two streams at once. Skipped (and saying
//! so) without a device.

use humming::core::ir::ptx::PtxVersion;
use humming::core::kernel::check::{random_operands, verify};
use humming::core::kernel::launch::LaunchError;
use humming::core::kernel::{GemmBundle, KernelPlan};
use humming::core::pack::a16::PackedA16;
use humming::core::quant::ActTensor;
use humming::core::*;
use humming::cuda::testing::gpu_or_skip;
use humming::cuda::{DeviceBuf, Gpu, GpuWeights, QuantizedLinear, RuntimeError, functions, launch_gemm};
use humming::half::{bf16, f16};

fn spec(w: &str, act: ActFormat, f: impl FnOnce(&mut SpecParts)) -> Spec {
    let mut p = SpecParts::new(WeightFormat::parse(w).unwrap(), act);
    p.arch = Arch::Sm80;
    f(&mut p);
    Spec::new(p).unwrap()
}

/// The device's portable target and, where it differs (`sm_90a` on Hopper), the target of its
/// fastest kernels, which the runtime tests run too.
fn device_targets(gpu: &Gpu) -> Vec<Arch> {
    let mut t: Vec<Arch> = [gpu.native_arch().unwrap_or(Arch::Sm80)].into_iter().chain(gpu.fastest_arch()).collect();
    t.dedup();
    t
}

fn act_buf<A: humming::cuda::Elem16>(gpu: &Gpu, act: &ActTensor) -> DeviceBuf<A> {
    let bits: Vec<u16> = act.codes.iter().map(|&c| c as u16).collect();
    DeviceBuf::from_slice(gpu, bytemuck::cast_slice::<u16, A>(&bits)).unwrap()
}

/// Runs one layer forward at M and checks every element.
fn check_layer<A: humming::cuda::Elem16, O: humming::cuda::Elem16>(gpu: &Gpu, spec: &Spec, (m, n, k): (usize, usize, usize), seed: u64) -> f64 {
    let (w, act) = random_operands(spec, (m, n, k), seed).unwrap();
    let layer = QuantizedLinear::from_quantized(gpu, &w, spec).unwrap();
    let stream = gpu.stream().unwrap();
    let x: DeviceBuf<A> = act_buf(gpu, &act);
    let mut y = DeviceBuf::<O>::poisoned(gpu, m * n).unwrap();
    layer.forward(&stream, &x, &mut y).unwrap();
    let got: Vec<u16> = bytemuck::cast_slice::<O, u16>(&y.to_vec().unwrap()).to_vec();
    let v = layer.bundle().variant_for(m);
    let r = verify(spec, &w, &act, &got, &v.main.name, 0).unwrap_or_else(|e| panic!("{spec} m={m}: {e}"));
    r.max_tol_frac
}

#[test]
fn gpu_runtime_layers_match_reference() {
    let Some(gpu) = gpu_or_skip("gpu_runtime_layers_match_reference") else { return };
    let mut worst = 0f64;
    let mut checks = 0;
    // sm_80 kernels everywhere, and the device's fastest target's where it has one of its own
    // (sm_90a on Hopper: the wgmma and warp-specialized plans of M = 17..300 here).
    let fastest = gpu.fastest_arch().filter(|a| *a != Arch::Sm80);
    let base = [
        spec("u4", ActFormat::F16, |_| {}),
        spec("u3", ActFormat::Bf16, |p| {
            p.zero_point = ZeroPoint::Dynamic;
            p.group = ScaleGroup::Group(64);
        }),
        spec("e2m1", ActFormat::Bf16, |p| {
            p.scale = ScaleFormat::Ue8m0;
            p.group = ScaleGroup::Group(32);
        }),
        spec("i8", ActFormat::F16, |p| p.group = ScaleGroup::PerChannel),
        spec("u4", ActFormat::F16, |p| {
            p.scale = ScaleFormat::E4m3;
            p.global_scale = true;
            p.group = ScaleGroup::Group(16);
        }),
    ];
    let at = |s: &Spec, arch: Arch| Spec::new(SpecParts { arch, ..s.parts() }).unwrap();
    let specs: Vec<(usize, Spec)> = base.iter().enumerate().flat_map(|(i, s)| [Some(*s), fastest.map(|a| at(s, a))].into_iter().flatten().map(move |s| (i, s))).collect();
    for (i, s) in specs.iter() {
        let i = *i;
        // One M in each default bucket, and a large one (split-K off and on).
        for m in [1usize, 16, 17, 40, 64, 300] {
            let shape = (m, 1000, 2048 + 64 * i);
            let f = match s.act() {
                ActFormat::F16 => check_layer::<f16, f16>(&gpu, s, shape, (i * 100 + m) as u64),
                _ => check_layer::<bf16, bf16>(&gpu, s, shape, (i * 100 + m) as u64),
            };
            worst = worst.max(f);
            checks += 1;
        }
    }
    let archs: std::collections::BTreeSet<Arch> = specs.iter().map(|(_, s)| s.arch()).collect();
    println!("{checks} layer forwards ({}) checked element by element, worst error {worst:.3} of the tolerance", archs.iter().map(|a| a.name()).collect::<Vec<_>>().join(" and "));
}

struct Misuse {
    gpu: Gpu,
    spec: Spec,
    bundles: Vec<GemmBundle>,
    weights: GpuWeights,
    x: DeviceBuf<f16>,
    y: DeviceBuf<f16>,
}

const M: usize = 3;
const N: usize = 200;
const K: usize = 512;

fn misuse_setup(gpu: &Gpu) -> Misuse {
    let spec = spec("u4", ActFormat::F16, |_| {});
    let (w, act) = random_operands(&spec, (M, N, K), 5).unwrap();
    let weights = GpuWeights::upload(gpu, &PackedA16::from_quantized(&w, spec.act()).unwrap()).unwrap();
    Misuse {
        gpu: gpu.clone(),
        spec,
        bundles: vec![GemmBundle::build_default(&spec).unwrap()],
        weights,
        x: act_buf(gpu, &act),
        y: DeviceBuf::poisoned(gpu, M * N).unwrap(),
    }
}

fn assert_untouched(y: &DeviceBuf<f16>) {
    assert!(y.to_vec().unwrap().iter().all(|v| v.to_bits() == 0xFFFF), "a refused launch wrote the output");
}

#[test]
fn gpu_runtime_misuse_is_typed_errors() {
    let Some(gpu) = gpu_or_skip("gpu_runtime_misuse_is_typed_errors") else { return };
    let mut s = misuse_setup(&gpu);
    let stream = gpu.stream().unwrap();
    let mut seen = Vec::new();
    let mut expect = |what: &str, r: Result<(), RuntimeError>, ok: &dyn Fn(&RuntimeError) -> bool| {
        let e = r.expect_err(what);
        assert!(ok(&e), "{what}: unexpected error {e}");
        seen.push(format!("{what}: {e}"));
    };

    // Activations that are not whole rows of K.
    let x_ragged = DeviceBuf::<f16>::poisoned(&gpu, M * K + 5).unwrap();
    expect("ragged activations", launch_gemm(&s.bundles, &stream, &x_ragged, &s.weights, &mut s.y), &|e| {
        matches!(e, RuntimeError::Launch(LaunchError::NotWholeRows { operand: "activations", .. }))
    });
    // Output too short and too long for M.
    let mut y_short = DeviceBuf::<f16>::poisoned(&gpu, M * N - 1).unwrap();
    expect("short output", launch_gemm(&s.bundles, &stream, &s.x, &s.weights, &mut y_short), &|e| matches!(e, RuntimeError::Rows { .. }));
    let mut y_long = DeviceBuf::<f16>::poisoned(&gpu, (M + 1) * N).unwrap();
    expect("long output", launch_gemm(&s.bundles, &stream, &s.x, &s.weights, &mut y_long), &|e| matches!(e, RuntimeError::Rows { .. }));
    // Empty activations.
    let x_empty = DeviceBuf::<f16>::poisoned(&gpu, 0).unwrap();
    expect("empty activations", launch_gemm(&s.bundles, &stream, &x_empty, &s.weights, &mut s.y), &|e| {
        matches!(e, RuntimeError::Launch(LaunchError::NotWholeRows { .. }))
    });
    // Element types that are not the spec's.
    let x_bf = DeviceBuf::<bf16>::poisoned(&gpu, M * K).unwrap();
    expect("bf16 activations for an f16 kernel", launch_gemm(&s.bundles, &stream, &x_bf, &s.weights, &mut s.y), &|e| {
        matches!(e, RuntimeError::Dtype { operand: "activations", .. })
    });
    let mut y_bf = DeviceBuf::<bf16>::poisoned(&gpu, M * N).unwrap();
    expect("bf16 output for an f16 kernel", launch_gemm(&s.bundles, &stream, &s.x, &s.weights, &mut y_bf), &|e| {
        matches!(e, RuntimeError::Dtype { operand: "output", .. })
    });
    // Weights packed for other specs.
    for (other, field) in [
        (spec("u4", ActFormat::F16, |p| p.group = ScaleGroup::Group(64)), "scale group"),
        (spec("u8", ActFormat::F16, |_| {}), "weight format"),
        (spec("u4", ActFormat::F16, |p| p.zero_point = ZeroPoint::Dynamic), "zero point"),
        (spec("u4", ActFormat::F16, |p| p.scale = ScaleFormat::E4m3), "scale format"),
    ] {
        let (w, _) = random_operands(&other, (M, N, K), 6).unwrap();
        let wrong = GpuWeights::upload(&gpu, &PackedA16::from_quantized(&w, other.act()).unwrap()).unwrap();
        expect(&format!("weights packed as {other}"), launch_gemm(&s.bundles, &stream, &s.x, &wrong, &mut s.y), &|e| {
            matches!(e, RuntimeError::Launch(LaunchError::WeightsMismatch { field: f, .. }) if *f == field)
        });
    }
    // No target for this device.
    expect("no bundles", launch_gemm(&[], &stream, &s.x, &s.weights, &mut s.y), &|e| matches!(e, RuntimeError::NoTarget { .. }));
    // A kernel of a newer PTX ISA than the driver loads.
    let mut future = s.bundles[0].clone();
    let mut vs = future.variants.to_vec();
    for v in &mut vs {
        v.main.ptx_version = PtxVersion::new(99, 0);
    }
    future.variants = vs.into();
    expect("PTX 99.0", launch_gemm(&[future], &stream, &s.x, &s.weights, &mut s.y), &|e| {
        matches!(e, RuntimeError::DriverTooOld { .. }) && e.to_string().contains("driver is needed")
    });
    // A plan that needs more shared memory than the device gives a CTA.
    let mut huge = s.bundles[0].clone();
    let mut vs = huge.variants.to_vec();
    for v in &mut vs {
        v.plan = KernelPlan { m_tiles: 8, n_warps: 4, k_warps: 1, bk: 256, stages: 8, swap: false, wgmma: false, halves: false, ws: false };
    }
    huge.variants = vs.into();
    expect("too much shared memory", launch_gemm(&[huge], &stream, &s.x, &s.weights, &mut s.y), &|e| matches!(e, RuntimeError::SharedMemory { .. }));
    // Host-side: weights whose length is not n x k; packed buffers of the wrong length.
    let r = QuantizedLinear::from_f32(&gpu, &[0.5; 10], 4, 4, &s.spec).map(|_| ());
    expect("host weights of the wrong length", r, &|e| matches!(e, RuntimeError::HostShape { .. }));
    let (w, _) = random_operands(&s.spec, (M, N, K), 7).unwrap();
    let mut p = PackedA16::from_quantized(&w, s.spec.act()).unwrap();
    p.words.pop();
    expect("truncated packed words", GpuWeights::upload(&gpu, &p).map(|_| ()), &|e| matches!(e, RuntimeError::Packed { what: "words", .. }));

    stream.synchronize().unwrap();
    assert_untouched(&s.y);
    println!("{} misuse cases returned their typed errors; the output was never written:", seen.len());
    for line in &seen {
        println!("  {line}");
    }
    // The valid launch on the same operands then writes every element.
    launch_gemm(&s.bundles, &stream, &s.x, &s.weights, &mut s.y).unwrap();
    assert!(s.y.to_vec().unwrap().iter().all(|v| v.is_finite()));
    let _ = &s.gpu;
}

#[test]
fn gpu_runtime_module_cache_and_two_streams() {
    let Some(gpu) = gpu_or_skip("gpu_runtime_module_cache_and_two_streams") else { return };
    let spec = spec("u4", ActFormat::F16, |_| {});
    let (m, n, k) = (4, 2048, 4096);
    let (w, act) = random_operands(&spec, (m, n, k), 11).unwrap();
    let layer = QuantizedLinear::from_quantized(&gpu, &w, &spec).unwrap();
    let x: DeviceBuf<f16> = act_buf(&gpu, &act);
    let (s1, s2) = (gpu.stream().unwrap(), gpu.stream().unwrap());
    let mut y1 = DeviceBuf::<f16>::poisoned(&gpu, m * n).unwrap();
    let mut y2 = DeviceBuf::<f16>::poisoned(&gpu, m * n).unwrap();
    layer.forward(&s1, &x, &mut y1).unwrap();
    let loaded = functions::loaded_count();
    // Many launches on two streams at once (split-K workspaces allocated in stream order).
    for _ in 0..20 {
        layer.forward(&s1, &x, &mut y1).unwrap();
        layer.forward(&s2, &x, &mut y2).unwrap();
    }
    assert_eq!(functions::loaded_count(), loaded, "modules are loaded once per context");
    let name = layer.bundle().variant_for(m).main.name.to_string();
    for y in [&y1, &y2] {
        let got: Vec<u16> = y.to_vec().unwrap().iter().map(|v| v.to_bits()).collect();
        verify(&spec, &w, &act, &got, &name, 0).unwrap();
    }
    println!("40 launches on two streams: both outputs match the reference; {loaded} modules loaded once");
}

/// A chain of dependent layers launched back to back equals the same chain with the host
/// waiting after every layer, bit for bit (the kernels are deterministic). On sm_90 the GEMMs
/// are launched with programmatic dependent launch: a GEMM that directly follows another one
/// on the stream requests its first weight stages before that one ends, so this checks that
/// nothing the earlier layer writes is read before `griddepcontrol.wait`. The up-projection
/// (N = 28672: split 1, so no workspace memset separates it from the layer before) is the GEMM
/// that overlaps; it reads the output of the down-projection launched just before it.
#[test]
fn gpu_runtime_back_to_back_layers_match_synchronized() {
    let Some(gpu) = gpu_or_skip("gpu_runtime_back_to_back_layers_match_synchronized") else { return };
    // The device's own targets: programmatic dependent launch needs sm_90 kernels.
    for arch in device_targets(&gpu) {
        back_to_back_layers(&gpu, arch);
    }
}

fn back_to_back_layers(gpu: &Gpu, arch: Arch) {
    let spec = spec("u4", ActFormat::F16, |p| p.arch = arch);
    let (d, f) = (4096, 28672);
    let mut rng = humming::core::rng::SplitMix64::new(29);
    // Weights of about 1/sqrt(K) keep the activations near unit size along the chain.
    let layer = |rng: &mut humming::core::rng::SplitMix64, n: usize, k: usize| {
        let amp = (3.0 / k as f32).sqrt();
        let w: Vec<f32> = (0..n * k).map(|_| amp * rng.unit_f32()).collect();
        QuantizedLinear::from_f32(gpu, &w, n, k, &spec).unwrap()
    };
    let (up, down) = (layer(&mut rng, f, d), layer(&mut rng, d, f));
    let pdl = up.bundle().variants.iter().all(|v| v.main.waits_for_prior_grid());
    assert_eq!(pdl, arch >= Arch::Sm90, "{arch} kernels wait for the previous grid iff sm_90+");
    for m in [8, 64] {
        let x0: Vec<f16> = (0..m * d).map(|_| f16::from_f32(rng.unit_f32())).collect();
        let run = |sync: bool| -> Vec<u16> {
            let stream = gpu.stream().unwrap();
            let mut x = DeviceBuf::from_slice(gpu, &x0).unwrap();
            let mut h = DeviceBuf::<f16>::poisoned(gpu, m * f).unwrap();
            for _ in 0..6 {
                up.forward(&stream, &x, &mut h).unwrap();
                if sync {
                    stream.synchronize().unwrap();
                }
                down.forward(&stream, &h, &mut x).unwrap();
                if sync {
                    stream.synchronize().unwrap();
                }
            }
            stream.synchronize().unwrap();
            x.to_vec().unwrap().iter().map(|v| v.to_bits()).collect()
        };
        let (want, got) = (run(true), run(false));
        let finite = want.iter().filter(|&&b| f16::from_bits(b).is_finite() && b & 0x7fff != 0).count();
        assert!(finite > want.len() * 9 / 10, "M={m}: the chain must stay finite and non-zero ({finite} of {})", want.len());
        let diff = want.iter().zip(&got).filter(|(a, b)| a != b).count();
        assert_eq!(diff, 0, "M={m}: {diff} of {} outputs differ between back-to-back and synchronized launches", want.len());
    }
    println!("12 dependent {arch} layers (4096 -> 28672 -> 4096, 6 times) back to back (programmatic dependent launch: {pdl}) equal the synchronized chain bit for bit at M = 8 and 64");
}

/// The split-K workspace a layer keeps between launches: calls of changing M (new counter
/// ranges, a larger buffer) on two streams, queued without synchronizing, give the same bits as
/// the same calls on a fresh layer synchronized after each.
#[test]
fn gpu_runtime_workspace_reuse_across_shapes_and_streams() {
    let Some(gpu) = gpu_or_skip("gpu_runtime_workspace_reuse_across_shapes_and_streams") else { return };
    for arch in device_targets(&gpu) {
        workspace_reuse(&gpu, arch);
    }
}

fn workspace_reuse(gpu: &Gpu, arch: Arch) {
    let spec = spec("u4", ActFormat::F16, |p| p.arch = arch);
    let (n, k) = (4096, 4096);
    let mut rng = humming::core::rng::SplitMix64::new(31);
    let w: Vec<f32> = (0..n * k).map(|_| rng.unit_f32()).collect();
    let calls = [1usize, 8, 5, 8, 16, 64, 8, 1, 33, 1];
    let xs: Vec<Vec<f16>> = calls.iter().map(|&m| (0..m * k).map(|_| f16::from_f32(rng.unit_f32())).collect()).collect();
    let run = |sync: bool| -> Vec<Vec<u16>> {
        let layer = QuantizedLinear::from_f32(gpu, &w, n, k, &spec).unwrap();
        let streams = [gpu.stream().unwrap(), gpu.stream().unwrap()];
        let mut outs = Vec::new();
        for (i, x) in xs.iter().enumerate() {
            let stream = &streams[i % 2];
            let x = DeviceBuf::from_slice(gpu, x).unwrap();
            let mut y = DeviceBuf::<f16>::poisoned(gpu, calls[i] * n).unwrap();
            layer.forward(stream, &x, &mut y).unwrap();
            if sync {
                stream.synchronize().unwrap();
            }
            outs.push((x, y));
        }
        streams.iter().for_each(|s| s.synchronize().unwrap());
        outs.iter().map(|(_, y)| y.to_vec().unwrap().iter().map(|v| v.to_bits()).collect()).collect()
    };
    let (want, got) = (run(true), run(false));
    for (i, (a, b)) in want.iter().zip(&got).enumerate() {
        let finite = a.iter().filter(|&&v| f16::from_bits(v).is_finite() && v & 0x7fff != 0).count();
        assert!(finite > a.len() * 9 / 10, "call {i} (M = {}): outputs must be finite and non-zero", calls[i]);
        let diff = a.iter().zip(b).filter(|(x, y)| x != y).count();
        assert_eq!(diff, 0, "call {i} (M = {}): {diff} of {} outputs differ from the synchronized fresh layer", calls[i], a.len());
    }
    println!("{} {arch} calls of M {calls:?} on two streams reuse one split-K workspace and equal synchronized calls bit for bit", calls.len());
}
