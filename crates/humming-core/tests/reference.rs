//! The f64 reference: dequantization formula, GEMM against a naive recomputation, the single
//! rounding to f16/bf16, typed errors.

use humming_core::quant::{ActGranularity, ActScales, ActTensor, QuantConfig};
use humming_core::reference::{act_values, dequantize, gemm, gemm_f64, round_to_out};
use humming_core::{
    ActFormat, FloatFormat, OutFormat, QuantError, QuantizedWeights, ReferenceError, ScaleFormat,
    ScaleGroup, WeightFormat, ZeroPoint, quantize, quantize_act,
};
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A nonzero value uniform in `(-1, 1)`.
fn unit(rng: &mut StdRng) -> f64 {
    loop {
        let x: f64 = rng.random_range(-1.0..1.0);
        if x != 0.0 {
            return x;
        }
    }
}

fn random_matrix(rng: &mut StdRng, rows: usize, cols: usize, mag: f64) -> Vec<f32> {
    (0..rows * cols).map(|_| (unit(rng) * mag) as f32).collect()
}

/// A random valid weight config.
fn random_config(rng: &mut StdRng) -> QuantConfig {
    let formats = WeightFormat::all();
    let weight = formats[rng.random_range(0..formats.len())];
    let zero_point = match weight {
        WeightFormat::UInt(_) if rng.random_bool(0.5) => ZeroPoint::Dynamic,
        _ => ZeroPoint::Implicit,
    };
    let scale = ScaleFormat::ALL[rng.random_range(0..ScaleFormat::ALL.len())];
    let group = match rng.random_range(0..3) {
        0 => ScaleGroup::PerChannel,
        1 => ScaleGroup::Group(16),
        _ => ScaleGroup::Group(32),
    };
    let global = scale != ScaleFormat::Ue8m0 && rng.random_bool(0.3);
    QuantConfig::new(weight, scale, group)
        .with_zero_point(zero_point)
        .with_global_scale(global)
}

fn random_act(rng: &mut StdRng, m: usize, k: usize) -> ActTensor {
    let format = ActFormat::ALL[rng.random_range(0..ActFormat::ALL.len())];
    let gran = if rng.random_bool(0.5) {
        ActGranularity::PerToken
    } else {
        ActGranularity::PerGroup(rng.random_range(1..=k + 2))
    };
    let mag = 10f64.powf(rng.random_range(-2.0..2.0));
    let x = random_matrix(rng, m, k, mag);
    quantize_act(&x, m, k, format, gran).unwrap()
}

/// The weight element `(r, c)` from the struct's definition, without the library's accessors.
fn naive_weight(w: &QuantizedWeights, r: usize, c: usize) -> f64 {
    let glen = match w.group {
        ScaleGroup::PerChannel => w.k,
        ScaleGroup::Group(g) => g as usize,
    };
    let groups = w.k.div_ceil(glen);
    let g = r * groups + c / glen;
    let v = f64::from(w.format.scalar().decode(u32::from(w.codes[r * w.k + c])));
    let zero = match (&w.zero_points, w.format) {
        (Some(z), _) => f64::from(z[g]),
        (None, WeightFormat::UInt(b)) => f64::from(1u32 << (b - 1)),
        (None, _) => 0.0,
    };
    let scale = f64::from(w.scale_format.scalar().decode(w.scales[g]));
    (v - zero) * scale * f64::from(w.global_scale.unwrap_or(1.0))
}

/// The activation element `(r, c)` from the struct's definition.
fn naive_act(a: &ActTensor, r: usize, c: usize) -> f64 {
    let v = f64::from(a.format.scalar().decode(a.codes[r * a.k + c]));
    let s = match &a.scales {
        None => 1.0,
        Some(ActScales::PerToken(s)) => s[r],
        Some(ActScales::PerGroup { group, scales }) => scales[r * a.k.div_ceil(*group) + c / group],
    };
    v * f64::from(s)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// gemm_f64 equals the sum of products of the naively decoded operands (f64 throughout),
    /// and gemm is that sum rounded once to the output format.
    #[test]
    fn gemm_matches_naive_recomputation(seed in any::<u64>()) {
        let mut rng = StdRng::seed_from_u64(seed);
        let (m, n, k) = (rng.random_range(1..6), rng.random_range(1..6), rng.random_range(1..70));
        let cfg = random_config(&mut rng);
        let mag = 10f64.powf(rng.random_range(-2.0..1.0));
        let wv = random_matrix(&mut rng, n, k, mag);
        let w = quantize(&wv, n, k, &cfg).unwrap();
        let a = random_act(&mut rng, m, k);
        let got = gemm_f64(&a, &w).unwrap();
        prop_assert_eq!(got.len(), m * n);
        let deq = dequantize(&w).unwrap();
        let av = act_values(&a).unwrap();
        for r in 0..m {
            for c in 0..n {
                let terms: Vec<f64> =
                    (0..k).map(|i| naive_act(&a, r, i) * naive_weight(&w, c, i)).collect();
                let sum: f64 = terms.iter().sum();
                let mag: f64 = terms.iter().map(|t| t.abs()).sum();
                let x = got[r * n + c];
                prop_assert!((x - sum).abs() <= 1e-12 * mag, "{cfg:?} ({r},{c}): {x} vs {sum}");
                for i in 0..k {
                    prop_assert_eq!(deq[c * k + i], naive_weight(&w, c, i));
                    prop_assert_eq!(av[r * k + i], naive_act(&a, r, i));
                }
            }
        }
        for out in [OutFormat::F16, OutFormat::Bf16] {
            let rounded = gemm(&a, &w, out).unwrap();
            for (y, x) in rounded.iter().zip(&got) {
                prop_assert_eq!(y.to_bits(), round_to_out(*x, out).to_bits());
                prop_assert_eq!(y.to_bits(), oracle(*x, out).to_bits());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rounding to the output format
// ---------------------------------------------------------------------------------------------

/// Every finite non-negative value of `out` in increasing order with its bits, followed by a
/// sentinel `2^(emax+1)` with the bits of +inf: IEEE rounding with an unbounded exponent
/// followed by overflow to inf is "nearest of this list" (ties to the even bit pattern).
fn table(out: OutFormat) -> Vec<(f64, u16)> {
    let (last, inf_bits, top) = match out {
        OutFormat::F16 => (0x7BFFu16, 0x7C00u16, 2f64.powi(16)),
        OutFormat::Bf16 => (0x7F7F, 0x7F80, 2f64.powi(128)),
    };
    let value = |b: u16| match out {
        OutFormat::F16 => half::f16::from_bits(b).to_f64(),
        OutFormat::Bf16 => half::bf16::from_bits(b).to_f64(),
    };
    let mut t: Vec<(f64, u16)> = (0..=last).map(|b| (value(b), b)).collect();
    t.push((top, inf_bits));
    t
}

/// A value table per output format (f16, bf16).
type Tables = (Vec<(f64, u16)>, Vec<(f64, u16)>);

/// Correctly rounded `x` by search in the table (independent of the library).
fn oracle(x: f64, out: OutFormat) -> f32 {
    thread_local! {
        static TABLES: Tables = (table(OutFormat::F16), table(OutFormat::Bf16));
    }
    if x.is_nan() {
        return f32::NAN;
    }
    let a = x.abs();
    let v = TABLES.with(|(f, b)| {
        let t = if out == OutFormat::F16 { f } else { b };
        let i = t.partition_point(|&(v, _)| v < a);
        if i == t.len() {
            return f64::INFINITY;
        }
        if i == 0 || t[i].0 == a {
            return t[i].0;
        }
        let (lo, hi) = (t[i - 1], t[i]);
        let pick = match (a - lo.0).partial_cmp(&(hi.0 - a)).unwrap() {
            std::cmp::Ordering::Less => lo,
            std::cmp::Ordering::Greater => hi,
            std::cmp::Ordering::Equal if lo.1 % 2 == 0 => lo,
            std::cmp::Ordering::Equal => hi,
        };
        if pick.1 == t[t.len() - 1].1 {
            f64::INFINITY
        } else {
            pick.0
        }
    });
    v.copysign(x) as f32
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Random points between adjacent values, exact midpoints and midpoints nudged by a
    /// relative 2^-40 either way (where a detour through f32 would round twice).
    #[test]
    fn round_to_out_is_correctly_rounded(
        bits in 0u16..0x7F80, frac in 0.0f64..1.0, kind in 0u8..4, negative: bool, bf: bool
    ) {
        let out = if bf { OutFormat::Bf16 } else { OutFormat::F16 };
        // Adjacent values lo < hi; above the largest finite value hi is 2^(emax+1), where
        // IEEE rounding starts to overflow.
        let (lo, hi) = match out {
            OutFormat::F16 => {
                let b = bits % 0x7C00;
                let hi = half::f16::from_bits(b + 1).to_f64();
                (half::f16::from_bits(b).to_f64(), if hi.is_finite() { hi } else { 65536.0 })
            }
            OutFormat::Bf16 => {
                let hi = half::bf16::from_bits(bits + 1).to_f64();
                let top = 2f64.powi(128);
                (half::bf16::from_bits(bits).to_f64(), if hi.is_finite() { hi } else { top })
            }
        };
        let mid = (lo + hi) / 2.0;
        let x = match kind {
            0 => lo + frac * (hi - lo),
            1 => mid,
            2 => mid * (1.0 + 2f64.powi(-40)),
            _ => mid * (1.0 - 2f64.powi(-40)),
        };
        let x = if negative { -x } else { x };
        let got = round_to_out(x, out);
        prop_assert_eq!(got.to_bits(), oracle(x, out).to_bits(), "{:?} {:e}", out, x);
        // Where x is an f32, half's f32 conversion rounds once too and must agree.
        if f64::from(x as f32) == x {
            let want = match out {
                OutFormat::F16 => half::f16::from_f32(x as f32).to_f32(),
                OutFormat::Bf16 => half::bf16::from_f32(x as f32).to_f32(),
            };
            prop_assert_eq!(got.to_bits(), want.to_bits(), "{:?} {:e}", out, x);
        }
    }
}

/// `1 + 2^-11 + 2^-40` lies just above the midpoint of 1 and `1 + 2^-10` in f16: correct
/// rounding goes up. Rounding through f32 first lands on the midpoint and then goes to the even
/// 1.0 (half 2.7's `f16::from_f64` does that on x86 with F16C, and its software path drops
/// the low mantissa bits with the same effect); `round_to_out` rounds once.
#[test]
fn round_to_out_does_not_round_twice() {
    let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    assert_eq!(round_to_out(x, OutFormat::F16), 1.0 + 2f32.powi(-10));
    assert_eq!(
        half::f16::from_f32(x as f32).to_f32(),
        1.0,
        "the double rounding it avoids"
    );
    let y = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
    assert_eq!(round_to_out(y, OutFormat::Bf16), 1.0 + 2f32.powi(-7));
    assert_eq!(half::bf16::from_f32(y as f32).to_f32(), 1.0);
}

#[test]
fn round_to_out_edges() {
    let f = |x| round_to_out(x, OutFormat::F16);
    let b = |x| round_to_out(x, OutFormat::Bf16);
    // Overflow from max + ulp/2 on (f16 max 65504, ulp 32), as IEEE.
    assert_eq!(f(65519.99), 65504.0);
    assert_eq!(f(65520.0), f32::INFINITY);
    assert_eq!(f(-1e300), f32::NEG_INFINITY);
    let bmax = f64::from(half::bf16::MAX);
    assert_eq!(f64::from(b(bmax + 2f64.powi(127 - 8) * 0.99)), bmax);
    assert_eq!(b(bmax + 2f64.powi(127 - 8)), f32::INFINITY);
    // Subnormals: 2^-25 is the midpoint of 0 and 2^-24 -> 0 (even); above it -> 2^-24.
    assert_eq!(f(2f64.powi(-25)).to_bits(), 0);
    assert_eq!(f(2f64.powi(-25) * (1.0 + 1e-15)), 2f32.powi(-24));
    assert_eq!(f(-2f64.powi(-26)).to_bits(), (-0.0f32).to_bits());
    assert_eq!(b(2f64.powi(-134)), 0.0);
    assert_eq!(b(1.4 * 2f64.powi(-133)), 2f32.powi(-133));
    // 1.5 * 2^-133: tie between 2^-133 (odd mantissa) and 2^-132 -> 2^-132.
    assert_eq!(b(3.0 * 2f64.powi(-134)), 2f32.powi(-132));
    assert_eq!(f(-0.0).to_bits(), (-0.0f32).to_bits());
    assert!(f(f64::NAN).is_nan() && b(f64::NAN).is_nan());
    assert_eq!(f(f64::INFINITY), f32::INFINITY);
    assert_eq!(b(f64::NEG_INFINITY), f32::NEG_INFINITY);
}

// ---------------------------------------------------------------------------------------------
// Hand-built operands and errors
// ---------------------------------------------------------------------------------------------

fn hand_weights() -> QuantizedWeights {
    // uint4, implicit zero point 8, f16 scales 0.5 and 0.25 per 16, global scale 2.
    let mut codes = vec![8u8; 32];
    codes[0] = 0;
    codes[1] = 15;
    codes[16] = 9;
    QuantizedWeights {
        n: 1,
        k: 32,
        format: WeightFormat::UInt(4),
        scale_format: ScaleFormat::F16,
        group: ScaleGroup::Group(16),
        codes,
        scales: vec![0x3800, 0x3400], // 0.5, 0.25
        zero_points: None,
        global_scale: Some(2.0),
    }
}

#[test]
fn dequantize_formula_by_hand() {
    let w = hand_weights();
    let d = dequantize(&w).unwrap();
    assert_eq!((d[0], d[1], d[2], d[16], d[17]), (-8.0, 7.0, 0.0, 0.5, 0.0));
    // Dynamic zero points replace the implicit one.
    let w = QuantizedWeights {
        zero_points: Some(vec![0, 15]),
        ..hand_weights()
    };
    let d = dequantize(&w).unwrap();
    assert_eq!(
        (d[0], d[1], d[2], d[16], d[17]),
        (0.0, 15.0, 8.0, -3.0, -3.5)
    );
    // Signed and float formats subtract nothing: e2m1 code 0b0111 = 6, 0b1001 = -0.5.
    let mut w = QuantizedWeights {
        format: WeightFormat::Float(FloatFormat::E2M1),
        global_scale: None,
        ..hand_weights()
    };
    w.codes[0] = 0b0111;
    w.codes[1] = 0b1001;
    let d = dequantize(&w).unwrap();
    // 6 * 0.5, -0.5 * 0.5, code 9 = 0b1001 = -0.5 times 0.25.
    assert_eq!((d[0], d[1], d[16]), (3.0, -0.25, -0.125));
}

#[test]
fn act_values_by_hand() {
    // int8 per group of 2: codes 3, -2 (0xFE) | 5; scales 0.5 | 0.25.
    let a = ActTensor {
        m: 1,
        k: 3,
        format: ActFormat::Int8,
        codes: vec![3, 0xFE, 5],
        scales: Some(ActScales::PerGroup {
            group: 2,
            scales: vec![0.5, 0.25],
        }),
    };
    assert_eq!(act_values(&a).unwrap(), vec![1.5, -1.0, 1.25]);
    let w = QuantizedWeights {
        k: 3,
        codes: vec![9, 10, 8],
        scales: vec![0x3C00],
        group: ScaleGroup::PerChannel,
        ..hand_weights()
    };
    // Weights (1, 2, 0) * 1.0 * 2: 1.5*2 - 1.0*4 + 0 = -1.
    assert_eq!(gemm_f64(&a, &w).unwrap(), vec![-1.0]);
    assert_eq!(gemm(&a, &w, OutFormat::Bf16).unwrap(), vec![-1.0]);
}

#[test]
fn errors_are_typed() {
    let w = hand_weights();
    let mut rng = StdRng::seed_from_u64(7);
    let x = random_matrix(&mut rng, 2, 31, 1.0);
    let a = quantize_act(&x, 2, 31, ActFormat::F16, ActGranularity::PerToken).unwrap();
    assert_eq!(
        gemm_f64(&a, &w),
        Err(ReferenceError::KMismatch {
            act_k: 31,
            weight_k: 32
        })
    );
    assert_eq!(
        gemm(&a, &w, OutFormat::F16),
        Err(ReferenceError::KMismatch {
            act_k: 31,
            weight_k: 32
        })
    );
    let x = random_matrix(&mut rng, 2, 32, 1.0);
    let a = quantize_act(&x, 2, 32, ActFormat::Int8, ActGranularity::PerToken).unwrap();
    let mut bad_w = w.clone();
    bad_w.scales.pop();
    assert!(matches!(
        gemm_f64(&a, &bad_w),
        Err(ReferenceError::Invalid(QuantError::Length { .. }))
    ));
    assert!(matches!(dequantize(&bad_w), Err(QuantError::Length { .. })));
    let mut bad_a = a.clone();
    bad_a.scales = None;
    assert!(matches!(
        gemm(&bad_a, &w, OutFormat::Bf16),
        Err(ReferenceError::Invalid(QuantError::Invalid { .. }))
    ));
    assert!(gemm_f64(&a, &w).is_ok());
}
