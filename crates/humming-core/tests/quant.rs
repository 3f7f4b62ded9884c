//! Weight and activation quantizers: error bounds for every format, scale accounting, the
//! documented forced-saturation cases, presets, typed errors.
//!
//! # The bound
//!
//! For an element `w` of a group with stored scale `s` and global scale `g` (1 without one),
//! `q = w / (s * g)` is the element in units of the weight format, and
//!
//! ```text
//! |w - dequantize(w)| <= 0.5 * step_at(q) * s * g   (+ 1e-12 relative slack for f64)
//! ```
//!
//! where `step_at` is the gap between the two representable values bracketing `|q|` (1 for
//! integer formats). Named exceptions, each with its own bound:
//!
//! * `UINT1_IMPLICIT`: uint1 with its implicit zero point has the values `{-1, 0}`; positive
//!   weights are forced to saturate to 0: `|w - deq| <= 1 * step * s * g`.
//! * `SCALE_FORMAT_OVERFLOW`: a group whose ideal scale exceeds the scale format's largest
//!   value (only for extreme inputs; the sweeps choose magnitudes that never reach it and
//!   assert so): elements beyond `qmax * s` saturate to the format's extreme values.

use humming_core::quant::{ActGranularity, ActScales, ActTensor, QuantConfig, QuantError};
use humming_core::reference::{act_values, dequantize};
use humming_core::{
    ActFormat, FloatFormat, QuantizedWeights, Scalar, ScaleFormat, ScaleGroup, WeightFormat,
    ZeroPoint, quantize, quantize_act,
};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const GROUPS: [ScaleGroup; 6] = [
    ScaleGroup::Group(16),
    ScaleGroup::Group(32),
    ScaleGroup::Group(64),
    ScaleGroup::Group(128),
    ScaleGroup::Group(256),
    ScaleGroup::PerChannel,
];

/// Relative slack for the f64 arithmetic of quantizer, reference and test.
const SLACK: f64 = 1e-12;

// ---------------------------------------------------------------------------------------------
// Random inputs
// ---------------------------------------------------------------------------------------------

/// A nonzero value uniform in `(-1, 1)`.
fn unit(rng: &mut StdRng) -> f64 {
    loop {
        let x: f64 = rng.random_range(-1.0..1.0);
        if x != 0.0 {
            return x;
        }
    }
}

/// Random `[n, k]` weights: per row a magnitude `10^U(-3, 1.5)` and a sign pattern (mixed, all
/// positive or all negative, so that asymmetric groups occur), 2% outliers three times larger.
/// `|w| < 100` always, so no ideal scale exceeds any scale format's range.
fn weights(rng: &mut StdRng, n: usize, k: usize) -> Vec<f32> {
    let mut w = Vec::with_capacity(n * k);
    for _ in 0..n {
        let mag = 10f64.powf(rng.random_range(-3.0..1.5));
        let signs = rng.random_range(0..4);
        for _ in 0..k {
            let mut x = unit(rng);
            match signs {
                1 => x = x.abs(),
                2 => x = -x.abs(),
                _ => {}
            }
            if rng.random_bool(0.02) {
                x *= 3.0;
            }
            w.push((x * mag) as f32);
        }
    }
    w
}

/// A random shape: `n` in 1..8, `k` one to three groups plus a partial group (possibly empty).
fn shape(rng: &mut StdRng, group: ScaleGroup) -> (usize, usize) {
    let n = rng.random_range(1..8);
    let k = match group {
        ScaleGroup::PerChannel => rng.random_range(1..300),
        ScaleGroup::Group(g) => {
            let g = g as usize;
            g * rng.random_range(1..=3) + rng.random_range(0..g)
        }
    };
    (n, k)
}

/// Every weight config of the sweep: every weight format with its implicit zero point, every
/// unsigned one also with a dynamic zero point.
fn weight_modes() -> Vec<(WeightFormat, ZeroPoint)> {
    let mut v: Vec<_> = WeightFormat::all()
        .into_iter()
        .map(|w| (w, ZeroPoint::Implicit))
        .collect();
    v.extend((1..=8).map(|b| (WeightFormat::UInt(b), ZeroPoint::Dynamic)));
    v
}

// ---------------------------------------------------------------------------------------------
// The test's own statement of the quantization policy
// ---------------------------------------------------------------------------------------------

/// The largest magnitude a symmetric method may map to: `2^(b-1) - 1` for integers, 1 for
/// uint1 with its implicit zero point (documented choice), `max_finite` for floats.
fn qmax(w: WeightFormat) -> f64 {
    match w {
        WeightFormat::UInt(1) => 1.0,
        WeightFormat::UInt(b) | WeightFormat::SInt(b) => f64::from((1u32 << (b - 1)) - 1),
        WeightFormat::Float(f) => f64::from(f.max_finite()),
    }
}

/// The ideal (unrounded) block scale before the global scale, 0 for an all-zero block.
fn ideal_scale(cfg: &QuantConfig, block: &[f32]) -> f64 {
    let lo = block.iter().fold(0.0f64, |a, &x| a.min(f64::from(x)));
    let hi = block.iter().fold(0.0f64, |a, &x| a.max(f64::from(x)));
    match (cfg.weight, cfg.zero_point) {
        (WeightFormat::UInt(b), ZeroPoint::Dynamic) => (hi - lo) / f64::from((1u32 << b) - 1),
        (w, _) => hi.max(-lo) / qmax(w),
    }
}

/// Checks one quantization against the bound and the scale-accounting rules. Returns the
/// number of elements bounded by the `UINT1_IMPLICIT` exception.
fn check(cfg: &QuantConfig, w: &[f32], n: usize, k: usize) -> Result<usize, TestCaseError> {
    let q = quantize(w, n, k, cfg).map_err(|e| TestCaseError::fail(format!("{cfg:?}: {e}")))?;
    prop_assert_eq!(q.validate(), Ok(()));
    prop_assert_eq!(
        (q.n, q.k, q.format, q.scale_format),
        (n, k, cfg.weight, cfg.scale)
    );
    prop_assert_eq!(
        q.zero_points.is_some(),
        cfg.zero_point == ZeroPoint::Dynamic
    );
    prop_assert_eq!(q.global_scale.is_some(), cfg.global_scale);
    let deq = dequantize(&q).unwrap();
    let (wf, sf) = (cfg.weight.scalar(), cfg.scale.scalar());
    let groups = cfg.group.groups_along_k(k);
    let glen = cfg.group.len(k);
    let gl = f64::from(q.global());
    let dynamic = cfg.zero_point == ZeroPoint::Dynamic;
    let uint1_implicit = cfg.weight == WeightFormat::UInt(1) && !dynamic;

    if let Some(g) = q.global_scale {
        // The global scale: the next f32 at or above (largest ideal scale) / cap, where the cap
        // is max(scale format) but at most the largest power of two c with c * wmax <= 65504
        // (below 1 for the formats wider than f16).
        let blocks = w.chunks(k).flat_map(|row| row.chunks(glen));
        let max_ideal = blocks.map(|b| ideal_scale(cfg, b)).fold(0.0, f64::max);
        let wmax = match (cfg.weight, cfg.zero_point) {
            (WeightFormat::UInt(b), ZeroPoint::Dynamic) => f64::from((1u32 << b) - 1),
            (WeightFormat::UInt(b) | WeightFormat::SInt(b), _) => f64::from(1u32 << (b - 1)),
            (WeightFormat::Float(f), _) => f64::from(f.max_finite()),
        };
        let mut cap = 2f64.powi(-200);
        while cap * 2.0 * wmax <= 65504.0 {
            cap *= 2.0;
        }
        let cap = cap.min(f64::from(sf.max_finite()));
        prop_assert!(cap * wmax <= 65504.0);
        let exact = max_ideal / cap;
        prop_assert!(f64::from(g) >= exact, "global {g} < {exact}");
        prop_assert!(
            f64::from(f32::from_bits(g.to_bits() - 1)) < exact,
            "global {g} not tight"
        );
    }

    let mut uint1_saturated = 0;
    for r in 0..n {
        for gi in 0..groups {
            let cols = gi * glen..((gi + 1) * glen).min(k);
            let block = &w[r * k + cols.start..r * k + cols.end];
            let code = q.scales[r * groups + gi];
            let s = f64::from(q.scale(r, gi));
            prop_assert_eq!(s, f64::from(sf.decode(code)));
            // Scale accounting: the stored scale is a finite value of the scale format ...
            prop_assert_eq!(
                sf.encode(sf.decode(code)),
                code,
                "scale code {} not canonical",
                code
            );
            prop_assert!(s.is_finite() && s > 0.0);
            let ideal = ideal_scale(cfg, block);
            if ideal == 0.0 {
                prop_assert_eq!(s, 1.0, "all-zero group scale");
            } else {
                // ... at least the ideal scale (no avoidable saturation), and the smallest such
                // value (rounded up to the *next* representable scale, no further).
                let target = ideal / gl;
                prop_assert!(
                    target <= f64::from(sf.max_finite()),
                    "SCALE_FORMAT_OVERFLOW reached by the sweep: {cfg:?} target {target}"
                );
                prop_assert!(s >= target, "{cfg:?}: scale {s} < ideal {target}");
                if code > 0 {
                    let below = f64::from(sf.decode(code - 1));
                    prop_assert!(
                        below < target,
                        "{cfg:?}: scale {s} not the next above {target}"
                    );
                }
            }
            let eff = s * gl;
            let zero = f64::from(q.zero(r, gi));
            if dynamic {
                // The zero point is round(-lo / eff) of the stored scale, in range.
                let lo = block.iter().fold(0.0f64, |a, &x| a.min(f64::from(x)));
                let levels = f64::from(wf.max_finite());
                prop_assert_eq!(zero, (-lo / eff).round_ties_even().clamp(0.0, levels));
            }
            for c in cols {
                let i = r * k + c;
                let x = f64::from(w[i]);
                let d = deq[i];
                let units = x / eff;
                // No avoidable saturation: every element is within the range the scale covers.
                let uint1_positive = uint1_implicit && x > 0.0;
                if !dynamic && !uint1_positive {
                    prop_assert!(units.abs() <= qmax(cfg.weight) * (1.0 + SLACK));
                }
                let step = if dynamic {
                    1.0
                } else {
                    f64::from(wf.step_at(units as f32))
                };
                let factor = if uint1_positive {
                    uint1_saturated += 1;
                    1.0 // UINT1_IMPLICIT: forced saturation to 0, at most one step.
                } else {
                    0.5
                };
                let bound = factor * step * eff;
                let err = (x - d).abs();
                prop_assert!(
                    err <= bound * (1.0 + SLACK) + SLACK * x.abs(),
                    "{cfg:?} [{n},{k}] at ({r},{c}): w {x} deq {d} err {err} > bound {bound} \
                     (scale {s}, global {gl}, zero {zero})"
                );
            }
        }
    }
    Ok(uint1_saturated)
}

// ---------------------------------------------------------------------------------------------
// Sweeps
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// Every weight format (uint1..8 with implicit and dynamic zero points, int2..8, every
    /// e{E}m{M}) x every scale format (f16, bf16, e4m3, e5m2, ue8m0) x groups 16..256 and
    /// per-channel, random shapes with partial last groups: within half a step.
    #[test]
    fn every_format_scale_and_group_is_within_half_a_step(seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        for (weight, zero_point) in weight_modes() {
            for &scale in ScaleFormat::ALL {
                for group in GROUPS {
                    let cfg = QuantConfig::new(weight, scale, group).with_zero_point(zero_point);
                    let (n, k) = shape(&mut rng, group);
                    let w = weights(&mut rng, n, k);
                    check(&cfg, &w, n, k)?;
                }
            }
        }
    }

    /// The same sweep with a global scale (every scale format but ue8m0, where it is an error).
    #[test]
    fn global_scale_configs_are_within_half_a_step(seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        for (weight, zero_point) in weight_modes() {
            for &scale in ScaleFormat::ALL.iter().filter(|&&s| s != ScaleFormat::Ue8m0) {
                for group in GROUPS {
                    let cfg = QuantConfig::new(weight, scale, group)
                        .with_zero_point(zero_point)
                        .with_global_scale(true);
                    let (n, k) = shape(&mut rng, group);
                    let w = weights(&mut rng, n, k);
                    check(&cfg, &w, n, k)?;
                }
            }
        }
    }

    /// MXFP4 and NVFP4 presets on larger matrices with a wider magnitude range across rows.
    #[test]
    fn presets_are_within_half_a_step(seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        for cfg in [QuantConfig::mxfp4(), QuantConfig::nvfp4()] {
            let (n, k) = (rng.random_range(1..16), rng.random_range(1..600));
            let w = weights(&mut rng, n, k);
            check(&cfg, &w, n, k)?;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Presets and hand-computed examples
// ---------------------------------------------------------------------------------------------

#[test]
fn presets_are_what_they_say() {
    let e2m1 = WeightFormat::Float(FloatFormat::E2M1);
    let mx = QuantConfig::mxfp4();
    assert_eq!(
        (
            mx.weight,
            mx.scale,
            mx.group,
            mx.zero_point,
            mx.global_scale
        ),
        (
            e2m1,
            ScaleFormat::Ue8m0,
            ScaleGroup::Group(32),
            ZeroPoint::Implicit,
            false
        )
    );
    let nv = QuantConfig::nvfp4();
    assert_eq!(
        (
            nv.weight,
            nv.scale,
            nv.group,
            nv.zero_point,
            nv.global_scale
        ),
        (
            e2m1,
            ScaleFormat::E4m3,
            ScaleGroup::Group(16),
            ZeroPoint::Implicit,
            true
        )
    );
}

/// MXFP4: absmax 5 -> ideal 5/6 -> power of two rounded up: 1; absmax 7 -> 7/6 -> 2 (the OCP
/// floor recipe would pick 1 and saturate 7 to 6).
#[test]
fn mxfp4_hand_example() {
    let mut w = vec![0.0f32; 64];
    w[..4].copy_from_slice(&[5.0, -2.9, 0.7, 1.25]);
    w[32..36].copy_from_slice(&[7.0, -1.1, 0.2, 3.5]);
    let q = quantize(&w, 1, 64, &QuantConfig::mxfp4()).unwrap();
    assert_eq!(q.scales, vec![127, 128]); // 2^0, 2^1
    let deq = dequantize(&q).unwrap();
    // Group 0, scale 1: 5 -> 4 (tie between 4 and 6 goes to the even code 4), -2.9 -> -3,
    // 0.7 -> 0.5, 1.25 -> 1 (tie between 1 and 1.5 goes to 1, mantissa LSB 0).
    assert_eq!(&deq[..4], &[4.0, -3.0, 0.5, 1.0]);
    // Group 1, scale 2: 7/2 = 3.5 -> 4 (tie: even code), -0.55 -> -0.5, 0.1 -> 0, 1.75 -> 2.
    assert_eq!(&deq[32..36], &[8.0, -1.0, 0.0, 4.0]);
    assert!(deq[4..32].iter().chain(&deq[36..]).all(|&d| d == 0.0));
}

/// NVFP4: absmax(W) = 2688 = 6 * 448 -> global 1; block 0 absmax 2688 -> scale 448; block 1
/// absmax 3 -> scale 0.5; codes from the stored scales.
#[test]
fn nvfp4_hand_example() {
    let mut w = vec![0.25f32; 32];
    w[0] = 2688.0;
    w[1] = -1000.0;
    w[16] = -3.0;
    w[17] = 1.2;
    let q = quantize(&w, 1, 32, &QuantConfig::nvfp4()).unwrap();
    assert_eq!(q.global_scale, Some(1.0));
    assert_eq!((q.scale(0, 0), q.scale(0, 1)), (448.0, 0.5));
    let deq = dequantize(&q).unwrap();
    // 2688/448 = 6; -1000/448 = -2.23 -> -2; 0.25/448 -> 0.
    assert_eq!(&deq[..3], &[2688.0, -896.0, 0.0]);
    // -3/0.5 = -6; 1.2/0.5 = 2.4 -> 2; 0.25/0.5 = 0.5.
    assert_eq!(&deq[16..19], &[-3.0, 1.0, 0.25]);
}

/// uint4 with a dynamic zero point: range [-1, 2] -> ideal scale 3/15 = 0.2, which f16 cannot
/// hold: rounded up to 1639/8192 (the nearest f16, 1638/8192, is below 0.2); zero point
/// round(1 / 0.20007...) = 5.
#[test]
fn dynamic_zero_point_hand_example() {
    let mut w = vec![0.5f32; 16];
    w[0] = -1.0;
    w[1] = 2.0;
    let cfg = QuantConfig::new(
        WeightFormat::UInt(4),
        ScaleFormat::F16,
        ScaleGroup::Group(16),
    )
    .with_zero_point(ZeroPoint::Dynamic);
    let q = quantize(&w, 1, 16, &cfg).unwrap();
    assert_eq!(q.scale(0, 0), 1639.0 / 8192.0);
    assert_eq!(q.zero_points, Some(vec![5]));
    assert_eq!(&q.codes[..3], &[0, 15, 7]); // -1 -> 0; 2 -> 14.996 -> 15; 0.5 -> 7.499 -> 7
}

// ---------------------------------------------------------------------------------------------
// Forced saturation and range edges
// ---------------------------------------------------------------------------------------------

/// UINT1_IMPLICIT: values {-1, 0} times the scale absmax. Negative weights round to the nearest
/// of {-scale, 0}; positive weights saturate to 0 with an error of at most one step (= scale).
#[test]
fn uint1_implicit_forced_saturation() {
    let mut w = vec![0.1f32; 16];
    w[..4].copy_from_slice(&[-1.0, -0.4, 0.3, 1.0]);
    let cfg = QuantConfig::new(
        WeightFormat::UInt(1),
        ScaleFormat::F16,
        ScaleGroup::Group(16),
    );
    let q = quantize(&w, 1, 16, &cfg).unwrap();
    assert_eq!(q.scale(0, 0), 1.0);
    assert_eq!(&q.codes[..4], &[0, 1, 1, 1]);
    let deq = dequantize(&q).unwrap();
    assert_eq!(&deq[..4], &[-1.0, 0.0, 0.0, 0.0]);
    // The random sweep's bound for this case.
    let mut rng = StdRng::seed_from_u64(1);
    let w = weights(&mut rng, 4, 64);
    let saturated = check(&cfg, &w, 4, 64).unwrap();
    assert!(saturated > 0, "the sweep exercised the exception");
}

/// SCALE_FORMAT_OVERFLOW: int4 weights up to 1e4 need a scale of 1e4/7 > 448, the largest e4m3
/// value. The scale saturates to 448; elements within 7 * 448 stay within half a step,
/// elements beyond saturate to the extreme values (7 and -8, times 448), with an error of at
/// most `|w| - 7 * 448`.
#[test]
fn scale_format_overflow_forced_saturation() {
    let mut rng = StdRng::seed_from_u64(2);
    let w: Vec<f32> = (0..64).map(|_| (unit(&mut rng) * 1e4) as f32).collect();
    let cfg = QuantConfig::new(
        WeightFormat::SInt(4),
        ScaleFormat::E4m3,
        ScaleGroup::Group(16),
    );
    let q = quantize(&w, 2, 32, &cfg).unwrap();
    let deq = dequantize(&q).unwrap();
    let mut saturated = 0;
    for (i, (&x, &d)) in w.iter().zip(&deq).enumerate() {
        let s = f64::from(q.scale(i / 32, (i % 32) / 16));
        let x = f64::from(x);
        if s == 448.0 && x.abs() > 7.0 * 448.0 {
            saturated += 1;
            // Beyond the symmetric range the nearest grid value is 7 or, below -7.5, the extra
            // negative code -8.
            let extreme = match x {
                x if x > 0.0 => 7.0 * 448.0,
                x if x <= -7.5 * 448.0 => -8.0 * 448.0,
                _ => -7.0 * 448.0,
            };
            assert_eq!(d, extreme, "element {i}");
            assert!((x - d).abs() <= x.abs() - 7.0 * 448.0);
        } else {
            assert!((x - d).abs() <= 0.5 * s, "element {i}: {x} -> {d}");
        }
    }
    assert!(saturated > 0);
}

/// Scale underflow: weights so small that the ideal scale is below the smallest positive e4m3
/// value (2^-9). The scale rounds up to 2^-9, nothing saturates, the half-step bound holds.
#[test]
fn scale_format_underflow_rounds_up_without_saturation() {
    let mut rng = StdRng::seed_from_u64(3);
    let w: Vec<f32> = (0..48).map(|_| (unit(&mut rng) * 1e-5) as f32).collect();
    for weight in [
        WeightFormat::SInt(8),
        WeightFormat::Float(FloatFormat::E2M1),
    ] {
        let cfg = QuantConfig::new(weight, ScaleFormat::E4m3, ScaleGroup::Group(16));
        let q = quantize(&w, 1, 48, &cfg).unwrap();
        assert!((0..3).all(|g| q.scale(0, g) == 2f32.powi(-9)));
        check(&cfg, &w, 1, 48).unwrap();
    }
    // ue8m0 below 2^-127 (f32 subnormal weights).
    let tiny: Vec<f32> = (0..16).map(|i| f32::from_bits(1000 + i)).collect();
    let cfg = QuantConfig::new(
        WeightFormat::SInt(8),
        ScaleFormat::Ue8m0,
        ScaleGroup::Group(16),
    );
    let q = quantize(&tiny, 1, 16, &cfg).unwrap();
    assert_eq!(q.scales, vec![0]); // 2^-127
    check(&cfg, &tiny, 1, 16).unwrap();
}

/// All-zero groups (and an all-zero row) get the scale 1, zero point 0 and codes of value 0;
/// an all-zero matrix gets the global scale 1.
#[test]
fn all_zero_groups_get_scale_one_and_zero_codes() {
    let mut rng = StdRng::seed_from_u64(4);
    let (n, k) = (3, 40);
    let mut w = weights(&mut rng, n, k);
    w[16..32].fill(0.0); // row 0, group 1
    w[k..2 * k].fill(-0.0); // row 1
    for (weight, zero_point) in weight_modes() {
        for &scale in ScaleFormat::ALL {
            let cfg =
                QuantConfig::new(weight, scale, ScaleGroup::Group(16)).with_zero_point(zero_point);
            let q = quantize(&w, n, k, &cfg).unwrap();
            let deq = dequantize(&q).unwrap();
            for (r, g) in [(0, 1), (1, 0), (1, 1), (1, 2)] {
                assert_eq!(q.scale(r, g), 1.0, "{cfg:?}");
                if let Some(z) = &q.zero_points {
                    assert_eq!(z[r * 3 + g], 0);
                }
            }
            assert!(deq[16..32].iter().chain(&deq[k..2 * k]).all(|&d| d == 0.0));
            // Zero is the +0 code, or the implicit zero point of unsigned formats.
            let zero_code = match (weight, zero_point) {
                (WeightFormat::UInt(b), ZeroPoint::Implicit) => 1u8 << (b - 1),
                _ => 0,
            };
            assert!(q.codes[k..2 * k].iter().all(|&c| c == zero_code), "{cfg:?}");
            check(&cfg, &w, n, k).unwrap();
        }
    }
    let q = quantize(&[0.0; 32], 2, 16, &QuantConfig::nvfp4()).unwrap();
    assert_eq!(q.global_scale, Some(1.0));
    assert_eq!(q.scales, vec![ScaleFormat::E4m3.scalar().encode(1.0); 2]);
}

// ---------------------------------------------------------------------------------------------
// Errors and validation
// ---------------------------------------------------------------------------------------------

#[test]
fn quantize_errors_are_typed() {
    let cfg = QuantConfig::new(
        WeightFormat::SInt(4),
        ScaleFormat::F16,
        ScaleGroup::Group(16),
    );
    let w = vec![0.5f32; 32];
    assert_eq!(
        quantize(&w, 2, 15, &cfg),
        Err(QuantError::Length {
            what: "weights",
            expected: 30,
            got: 32
        })
    );
    assert_eq!(
        quantize(&[], 0, 16, &cfg),
        Err(QuantError::EmptyShape { rows: 0, cols: 16 })
    );
    assert_eq!(
        quantize(&[], 2, 0, &cfg),
        Err(QuantError::EmptyShape { rows: 2, cols: 0 })
    );
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut v = w.clone();
        v[7] = bad;
        let err = quantize(&v, 2, 16, &cfg).unwrap_err();
        assert!(
            matches!(err, QuantError::NonFinite { index: 7, .. }),
            "{err:?}"
        );
    }
    for g in [0, 8, 24, 48, 100] {
        let c = QuantConfig {
            group: ScaleGroup::Group(g),
            ..cfg
        };
        assert_eq!(quantize(&w, 2, 16, &c), Err(QuantError::GroupSize(g)));
    }
    for weight in [
        WeightFormat::SInt(4),
        WeightFormat::Float(FloatFormat::E2M1),
    ] {
        let c = QuantConfig { weight, ..cfg }.with_zero_point(ZeroPoint::Dynamic);
        assert_eq!(
            quantize(&w, 2, 16, &c),
            Err(QuantError::DynamicZeroPoint(weight))
        );
    }
    let c = QuantConfig::mxfp4().with_global_scale(true);
    assert_eq!(
        quantize(&w, 1, 32, &c),
        Err(QuantError::GlobalScale(ScaleFormat::Ue8m0))
    );
    for weight in [
        WeightFormat::UInt(0),
        WeightFormat::UInt(9),
        WeightFormat::SInt(1),
    ] {
        let c = QuantConfig { weight, ..cfg };
        assert!(matches!(
            quantize(&w, 2, 16, &c),
            Err(QuantError::Invalid { .. })
        ));
    }
}

#[test]
fn validate_rejects_broken_weights() {
    let mut rng = StdRng::seed_from_u64(5);
    let w = weights(&mut rng, 2, 40);
    let cfg = QuantConfig::new(
        WeightFormat::UInt(4),
        ScaleFormat::E4m3,
        ScaleGroup::Group(16),
    )
    .with_zero_point(ZeroPoint::Dynamic);
    let good = quantize(&w, 2, 40, &cfg).unwrap();
    assert_eq!(good.validate(), Ok(()));
    let invalid = |f: &dyn Fn(&mut QuantizedWeights)| {
        let mut q = good.clone();
        f(&mut q);
        let e = q.validate().unwrap_err();
        assert!(dequantize(&q).is_err());
        e
    };
    let is_invalid = |e: QuantError| matches!(e, QuantError::Invalid { .. });
    assert!(is_invalid(invalid(&|q| q.codes[3] = 16)));
    assert!(is_invalid(invalid(&|q| q.scales[1] = 0x7F))); // e4m3 NaN
    assert!(is_invalid(invalid(&|q| q.scales[1] = 0x100))); // wider than 8 bits
    assert!(is_invalid(invalid(
        &|q| q.zero_points.as_mut().unwrap()[0] = 16
    )));
    assert!(is_invalid(invalid(&|q| q.global_scale = Some(f32::NAN))));
    assert!(is_invalid(invalid(&|q| q.format = WeightFormat::UInt(9))));
    assert!(matches!(
        invalid(&|q| {
            q.codes.pop();
        }),
        QuantError::Length { .. }
    ));
    assert!(matches!(
        invalid(&|q| {
            q.scales.pop();
        }),
        QuantError::Length { .. }
    ));
    assert!(matches!(
        invalid(&|q| {
            q.zero_points.as_mut().unwrap().pop();
        }),
        QuantError::Length {
            what: "zero points",
            ..
        }
    ));
    assert_eq!(
        invalid(&|q| q.format = WeightFormat::SInt(4)),
        QuantError::DynamicZeroPoint(WeightFormat::SInt(4))
    );
    assert_eq!(
        invalid(&|q| q.group = ScaleGroup::Group(12)),
        QuantError::GroupSize(12)
    );
    assert!(matches!(
        invalid(&|q| q.n = 0),
        QuantError::EmptyShape { .. }
    ));
    // NaN codes of float weight formats.
    let e4m3 = WeightFormat::Float(FloatFormat::E4M3);
    let mut q = quantize(
        &w,
        2,
        40,
        &QuantConfig::new(e4m3, ScaleFormat::F16, ScaleGroup::PerChannel),
    )
    .unwrap();
    q.codes[0] = 0xFF;
    assert!(is_invalid(q.validate().unwrap_err()));
}

#[test]
fn accessors() {
    let mut rng = StdRng::seed_from_u64(6);
    let w = weights(&mut rng, 3, 70);
    let cfg = QuantConfig::new(
        WeightFormat::UInt(3),
        ScaleFormat::Bf16,
        ScaleGroup::Group(32),
    );
    let q = quantize(&w, 3, 70, &cfg).unwrap();
    assert_eq!((q.groups_along_k(), q.group_len()), (3, 32));
    assert_eq!(
        (
            q.group_of(0),
            q.group_of(31),
            q.group_of(32),
            q.group_of(69)
        ),
        (0, 0, 1, 2)
    );
    assert_eq!(q.zero(2, 1), 4.0); // implicit 2^(3-1)
    assert_eq!(q.global(), 1.0);
    assert_eq!(q.scale(1, 2), Scalar::Bf16.decode(q.scales[5]));
    let sint = QuantConfig {
        weight: WeightFormat::SInt(3),
        ..cfg
    };
    assert_eq!(quantize(&w, 3, 70, &sint).unwrap().zero(0, 0), 0.0);
}

// ---------------------------------------------------------------------------------------------
// Activations
// ---------------------------------------------------------------------------------------------

fn activations(rng: &mut StdRng, m: usize, k: usize) -> Vec<f32> {
    let mut x = Vec::with_capacity(m * k);
    for _ in 0..m {
        let mag = 10f64.powf(rng.random_range(-3.0..3.0));
        x.extend((0..k).map(|_| (unit(rng) * mag) as f32));
    }
    x
}

/// The largest symmetric magnitude of each quantized activation format.
fn act_qmax(f: ActFormat) -> f64 {
    match f {
        ActFormat::Int8 => 127.0,
        ActFormat::Int4 => 7.0,
        ActFormat::E4m3 => 448.0,
        ActFormat::E5m2 => 57344.0,
        ActFormat::F16 | ActFormat::Bf16 => unreachable!(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// f16/bf16 activations are the nearest value (|x - v| <= half a step, the codec's value),
    /// without scales, whatever the granularity.
    #[test]
    fn act_16bit_round_to_nearest(seed in any::<u64>(), m in 1usize..6, k in 1usize..80) {
        let mut rng = StdRng::seed_from_u64(seed);
        let x = activations(&mut rng, m, k);
        for f in [ActFormat::F16, ActFormat::Bf16] {
            let t = quantize_act(&x, m, k, f, ActGranularity::PerGroup(16)).unwrap();
            prop_assert_eq!(t.validate(), Ok(()));
            prop_assert!(t.scales.is_none());
            let v = act_values(&t).unwrap();
            for (i, (&xi, &vi)) in x.iter().zip(&v).enumerate() {
                prop_assert_eq!(t.codes[i], f.scalar().encode(xi));
                let step = f64::from(f.scalar().step_at(xi));
                prop_assert!((f64::from(xi) - vi).abs() <= 0.5 * step, "{f} {xi} -> {vi}");
            }
            if f == ActFormat::F16 {
                let half: Vec<u32> = x.iter().map(|&v| half::f16::from_f32(v).to_bits().into()).collect();
                prop_assert_eq!(&t.codes, &half);
            }
        }
    }

    /// int8/int4/e4m3/e5m2 per token and per group: f32 scales at least absmax/qmax and the
    /// next f32 at or above it, no saturation, |x - v| <= 0.5 * step_at(x / s) * s.
    #[test]
    fn act_quantized_within_half_a_step(
        seed in any::<u64>(), m in 1usize..6, k in 1usize..80, group in 1usize..40, per_token: bool,
    ) {
        let mut rng = StdRng::seed_from_u64(seed);
        let x = activations(&mut rng, m, k);
        let gran = if per_token { ActGranularity::PerToken } else { ActGranularity::PerGroup(group) };
        let glen = if per_token { k } else { group };
        for f in [ActFormat::Int8, ActFormat::Int4, ActFormat::E4m3, ActFormat::E5m2] {
            let t = quantize_act(&x, m, k, f, gran).unwrap();
            prop_assert_eq!(t.validate(), Ok(()));
            match (&t.scales, per_token) {
                (Some(ActScales::PerToken(s)), true) => prop_assert_eq!(s.len(), m),
                (Some(ActScales::PerGroup { group: g, scales }), false) => {
                    prop_assert_eq!(*g, group);
                    prop_assert_eq!(scales.len(), m * k.div_ceil(group));
                }
                other => prop_assert!(false, "unexpected scales {other:?}"),
            }
            let v = act_values(&t).unwrap();
            for r in 0..m {
                for run in (0..k).step_by(glen) {
                    let cols = run..(run + glen).min(k);
                    let absmax = cols.clone().map(|c| f64::from(x[r * k + c]).abs()).fold(0.0, f64::max);
                    let s = t.scale(r, run);
                    let ideal = absmax / act_qmax(f);
                    prop_assert!(f64::from(s) >= ideal);
                    prop_assert!(f64::from(f32::from_bits(s.to_bits() - 1)) < ideal);
                    for c in cols {
                        let i = r * k + c;
                        let (xi, vi) = (f64::from(x[i]), v[i]);
                        let units = xi / f64::from(s);
                        prop_assert!(units.abs() <= act_qmax(f) * (1.0 + SLACK));
                        let step = f64::from(f.scalar().step_at(units as f32));
                        let bound = 0.5 * step * f64::from(s);
                        prop_assert!(
                            (xi - vi).abs() <= bound * (1.0 + SLACK) + SLACK * xi.abs(),
                            "{f} ({r},{c}): {xi} -> {vi}, scale {s}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn act_all_zero_rows_get_scale_one() {
    let mut x = vec![0.5f32; 2 * 8];
    x[8..].fill(0.0);
    let t = quantize_act(&x, 2, 8, ActFormat::Int8, ActGranularity::PerToken).unwrap();
    let Some(ActScales::PerToken(s)) = &t.scales else {
        panic!("per-token scales expected")
    };
    // 0.5 / 127 rounded up to an f32; the all-zero row gets 1.
    assert!(f64::from(s[0]) >= 0.5 / 127.0);
    assert_eq!(s[1], 1.0);
    assert!(t.codes[..8].iter().all(|&c| c == 127));
    assert!(t.codes[8..].iter().all(|&c| c == 0));
}

#[test]
fn act_errors_are_typed() {
    let x = vec![0.5f32; 12];
    let per_token = ActGranularity::PerToken;
    assert_eq!(
        quantize_act(&x, 5, 2, ActFormat::Int8, per_token),
        Err(QuantError::Length {
            what: "activations",
            expected: 10,
            got: 12
        })
    );
    assert_eq!(
        quantize_act(&[], 0, 4, ActFormat::F16, per_token),
        Err(QuantError::EmptyShape { rows: 0, cols: 4 })
    );
    let mut bad = x.clone();
    bad[5] = f32::NAN;
    assert!(matches!(
        quantize_act(&bad, 3, 4, ActFormat::Bf16, per_token),
        Err(QuantError::NonFinite { index: 5, .. })
    ));
    assert_eq!(
        quantize_act(&x, 3, 4, ActFormat::Int4, ActGranularity::PerGroup(0)),
        Err(QuantError::ActGroupSize)
    );
}

#[test]
fn act_validate_rejects_broken_tensors() {
    let x: Vec<f32> = (0..12).map(|i| i as f32 - 5.5).collect();
    let good = quantize_act(&x, 3, 4, ActFormat::Int8, ActGranularity::PerGroup(3)).unwrap();
    assert_eq!(good.validate(), Ok(()));
    let broken = |f: &dyn Fn(&mut ActTensor)| {
        let mut t = good.clone();
        f(&mut t);
        assert!(act_values(&t).is_err());
        t.validate().unwrap_err()
    };
    assert!(matches!(
        broken(&|t| t.scales = None),
        QuantError::Invalid { .. }
    ));
    assert!(matches!(
        broken(&|t| t.codes[0] = 0x100),
        QuantError::Invalid { .. }
    ));
    assert!(matches!(
        broken(&|t| {
            t.codes.pop();
        }),
        QuantError::Length { .. }
    ));
    assert!(matches!(
        broken(&|t| t.scales = Some(ActScales::PerToken(vec![1.0; 2]))),
        QuantError::Length { .. }
    ));
    assert_eq!(
        broken(&|t| t.scales = Some(ActScales::PerGroup {
            group: 0,
            scales: vec![]
        })),
        QuantError::ActGroupSize
    );
    assert!(matches!(
        broken(&|t| t.scales = Some(ActScales::PerToken(vec![1.0, f32::INFINITY, 1.0]))),
        QuantError::Invalid { .. }
    ));
    let f16 = quantize_act(&x, 3, 4, ActFormat::F16, ActGranularity::PerToken).unwrap();
    let mut t = f16.clone();
    t.scales = Some(ActScales::PerToken(vec![1.0; 3]));
    assert!(matches!(t.validate(), Err(QuantError::Invalid { .. })));
    let mut t = f16;
    t.codes[0] = 0x7C00; // +inf
    assert!(matches!(t.validate(), Err(QuantError::Invalid { .. })));
}
