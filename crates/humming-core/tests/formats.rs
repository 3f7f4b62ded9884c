//! Exhaustive tests of the format codecs against an independent reference.
//!
//! The reference evaluates codes from the format definitions (sign, exponent, mantissa fields,
//! two's complement, `2^(code-127)`) in `f64`, without calling the library's decoders.

use humming_core::format::FloatSpecials;
use humming_core::{
    ActFormat, FloatFormat, FormatError, OutFormat, Scalar, ScaleFormat, WeightFormat,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

// ---------------------------------------------------------------------------------------------
// Independent reference
// ---------------------------------------------------------------------------------------------

/// Special-value convention of a binary float layout, as the test understands the standards.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Specials {
    /// All-ones exponent: inf (mantissa 0) or NaN.
    Ieee,
    /// Only the all-ones magnitude is NaN (OCP E4M3 "fn").
    OnlyAllOnesNan,
    /// Every code is a number.
    None,
}

/// A sign/exponent/mantissa layout.
#[derive(Clone, Copy, Debug)]
struct Layout {
    exp: u32,
    man: u32,
    specials: Specials,
}

/// The layout of every float `Scalar` except `Ue8m0`, from the standards (not from the library).
fn layout(s: Scalar) -> Option<Layout> {
    let (exp, man) = match s {
        Scalar::Float(f) => (u32::from(f.exp_bits()), u32::from(f.man_bits())),
        Scalar::F16 => (5, 10),
        Scalar::Bf16 => (8, 7),
        _ => return None,
    };
    let specials = match (s, exp, man) {
        (Scalar::F16 | Scalar::Bf16, _, _) | (_, 5, 2) => Specials::Ieee,
        (_, 4, 3) => Specials::OnlyAllOnesNan,
        _ => Specials::None,
    };
    Some(Layout { exp, man, specials })
}

/// Value of a float code from its fields: `(-1)^s * 2^(1-bias) * m/2^M` for exponent field 0,
/// `(-1)^s * 2^(e-bias) * (1 + m/2^M)` otherwise, with the layout's specials.
fn reference_float(l: Layout, code: u32) -> f64 {
    let s = (code >> (l.exp + l.man)) & 1;
    let e = (code >> l.man) & ((1 << l.exp) - 1);
    let m = code & ((1 << l.man) - 1);
    let e_all_ones = (1 << l.exp) - 1;
    let m_all_ones = (1 << l.man) - 1;
    let sign = if s == 1 { -1.0 } else { 1.0 };
    let bias = (1i32 << (l.exp - 1)) - 1;
    match l.specials {
        Specials::Ieee if e == e_all_ones && m == 0 => return sign * f64::INFINITY,
        Specials::Ieee if e == e_all_ones => return f64::NAN,
        Specials::OnlyAllOnesNan if e == e_all_ones && m == m_all_ones => return f64::NAN,
        _ => {}
    }
    let fraction = f64::from(m) / 2f64.powi(l.man as i32);
    let magnitude = if e == 0 {
        2f64.powi(1 - bias) * fraction
    } else {
        2f64.powi(e as i32 - bias) * (1.0 + fraction)
    };
    sign * magnitude
}

/// Value of any code from the format definitions.
fn reference(s: Scalar, code: u32) -> f64 {
    match s {
        Scalar::UInt(_) => f64::from(code),
        Scalar::SInt(b) => {
            let c = i64::from(code);
            (if c >= 1 << (b - 1) { c - (1 << b) } else { c }) as f64
        }
        Scalar::Ue8m0 if code == 0xFF => f64::NAN,
        Scalar::Ue8m0 => 2f64.powi(code as i32 - 127),
        _ => reference_float(layout(s).unwrap(), code),
    }
}

/// Every format of at most 8 bits: every weight format, the quantized activation formats, the
/// 8-bit scale formats (deduplicated).
fn small_formats() -> Vec<Scalar> {
    let mut v: Vec<Scalar> = WeightFormat::all()
        .into_iter()
        .map(|w| w.scalar())
        .collect();
    v.extend(
        ActFormat::ALL
            .iter()
            .filter(|a| a.is_quantized())
            .map(|a| a.scalar()),
    );
    v.extend(
        ScaleFormat::ALL
            .iter()
            .map(|s| s.scalar())
            .filter(|s| s.bits() <= 8),
    );
    let mut out = Vec::new();
    for s in v {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

fn all_formats() -> Vec<Scalar> {
    let mut v = small_formats();
    v.extend([Scalar::F16, Scalar::Bf16]);
    v
}

fn is_int(s: Scalar) -> bool {
    matches!(s, Scalar::UInt(_) | Scalar::SInt(_))
}

/// Signed floats keep the sign of zero (the sign bit is the top bit).
fn is_signed_float(s: Scalar) -> bool {
    matches!(s, Scalar::Float(_) | Scalar::F16 | Scalar::Bf16)
}

/// Exact equality including the sign of zero; NaN equals NaN.
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// `(code, value)` of every finite code, reference values.
fn finite_codes(s: Scalar) -> Vec<(u32, f64)> {
    s.codes()
        .map(|c| (c, reference(s, c)))
        .filter(|(_, v)| v.is_finite())
        .collect()
}

/// The brute-force nearest code under the documented policy: nearest finite value of the same
/// sign as `x` (signed floats) or of any value (others), ties to the even code. Values beyond
/// the range are first brought to its edge (their nearest value is the edge value anyway), so
/// that the `f64` distances below are exact or far from a tie.
fn nearest_by_search(s: Scalar, values: &[(u32, f64)], x: f32) -> u32 {
    let (min, max) = (f64::from(s.min_finite()), f64::from(s.max_finite()));
    let x64 = if is_signed_float(s) {
        f64::from(x).clamp(-max, max)
    } else {
        f64::from(x).clamp(min, max)
    };
    let mut best: Option<(u32, f64)> = None;
    for &(c, v) in values {
        if is_signed_float(s) && v.is_sign_negative() != x.is_sign_negative() {
            continue;
        }
        let d = (x64 - v).abs();
        best = match best {
            Some((bc, bd)) if bd < d || (bd == d && bc % 2 == 0) => Some((bc, bd)),
            _ => Some((c, d)),
        };
    }
    best.unwrap().0
}

/// The next `f32` towards `+inf` of a nonzero finite `x`.
fn next_up(x: f32) -> f32 {
    assert!(x.is_finite() && x != 0.0);
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

/// The next `f32` towards `-inf` of a nonzero finite `x`.
fn next_down(x: f32) -> f32 {
    -next_up(-x)
}

// ---------------------------------------------------------------------------------------------
// Decoding and round trips
// ---------------------------------------------------------------------------------------------

#[test]
fn every_code_decodes_to_its_definition() {
    let mut checked = 0;
    for s in all_formats() {
        for c in s.codes() {
            let want = reference(s, c);
            let got = f64::from(s.decode(c));
            assert!(
                same(got, want),
                "{s:?} code {c:#x}: decode {got:e}, definition {want:e}"
            );
            assert_eq!(
                s.is_nan_code(c),
                want.is_nan(),
                "{s:?} code {c:#x}: is_nan_code"
            );
            checked += 1;
        }
    }
    assert!(checked > 2 * 65536);
}

#[test]
fn float_format_decode_matches_scalar_and_definition() {
    for f in FloatFormat::all() {
        for c in 0..1u32 << f.bits() {
            let want = reference(Scalar::Float(f), c);
            assert!(same(f64::from(f.decode(c as u8)), want), "{f} code {c:#x}");
            assert_eq!(f.is_nan_code(c as u8), want.is_nan(), "{f} code {c:#x}");
        }
    }
}

#[test]
fn every_non_nan_code_round_trips() {
    for s in all_formats() {
        for c in s.codes().filter(|&c| !s.is_nan_code(c)) {
            let v = s.decode(c);
            assert_eq!(
                s.encode(v),
                c,
                "{s:?} code {c:#x} (value {v:e}) does not round-trip"
            );
        }
    }
}

#[test]
fn decoding_ignores_bits_above_the_width() {
    for s in small_formats() {
        for c in s.codes() {
            let high = c | (u32::MAX << s.bits());
            assert!(
                same(f64::from(s.decode(high)), f64::from(s.decode(c))),
                "{s:?} {c:#x}"
            );
        }
    }
}

#[test]
fn f16_and_bf16_match_half() {
    for c in 0..=u16::MAX {
        let (h, b) = (half::f16::from_bits(c), half::bf16::from_bits(c));
        assert!(same(
            f64::from(Scalar::F16.decode(c.into())),
            f64::from(h.to_f32())
        ));
        assert!(same(
            f64::from(Scalar::Bf16.decode(c.into())),
            f64::from(b.to_f32())
        ));
    }
}

// ---------------------------------------------------------------------------------------------
// Known values and ranges
// ---------------------------------------------------------------------------------------------

#[test]
fn known_values() {
    let e2m1 = Scalar::Float(FloatFormat::E2M1);
    let positives: Vec<f32> = (0..8).map(|c| e2m1.decode(c)).collect();
    assert_eq!(positives, [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]);
    let negatives: Vec<f32> = (8..16).map(|c| -e2m1.decode(c)).collect();
    assert_eq!(negatives, positives);

    assert_eq!(FloatFormat::E4M3.max_finite(), 448.0);
    assert_eq!(FloatFormat::E4M3.min_subnormal(), 2f32.powi(-9));
    assert_eq!(FloatFormat::E5M2.max_finite(), 57344.0);
    assert_eq!(FloatFormat::E5M2.min_subnormal(), 2f32.powi(-16));
    assert_eq!(FloatFormat::E3M2.max_finite(), 28.0);
    assert_eq!(FloatFormat::E2M3.max_finite(), 7.5);
    assert_eq!(FloatFormat::E2M1.max_finite(), 6.0);
    assert_eq!(FloatFormat::E2M1.min_subnormal(), 0.5);
    assert_eq!(FloatFormat::new(7, 0).unwrap().max_finite(), 2f32.powi(64));
    assert_eq!(
        FloatFormat::new(7, 0).unwrap().min_subnormal(),
        2f32.powi(-62)
    );
    assert_eq!(FloatFormat::new(3, 0).unwrap().min_subnormal(), 0.25);

    assert_eq!(FloatFormat::E4M3.max_code(), 0x7E);
    assert_eq!(FloatFormat::E5M2.max_code(), 0x7B);
    assert_eq!(FloatFormat::E2M1.max_code(), 0x7);
    assert_eq!(FloatFormat::E5M2.inf_code(), Some(0x7C));
    assert_eq!(FloatFormat::E4M3.inf_code(), None);
    assert_eq!(FloatFormat::E4M3.sign_mask(), 0x80);
    assert_eq!(FloatFormat::E2M1.sign_mask(), 0x8);

    assert_eq!(Scalar::Ue8m0.decode(127), 1.0);
    assert_eq!(Scalar::Ue8m0.decode(0), 2f32.powi(-127));
    assert_eq!(Scalar::Ue8m0.decode(254), 2f32.powi(127));
    assert_eq!(Scalar::SInt(4).decode(0xF), -1.0);
    assert_eq!(Scalar::SInt(4).decode(0x8), -8.0);
    assert_eq!(Scalar::SInt(4).encode(-1.0), 0xF);
    assert_eq!(Scalar::UInt(4).decode(0xF), 15.0);
    assert_eq!(Scalar::F16.max_finite(), 65504.0);
}

#[test]
fn specials_follow_the_ocp_conventions() {
    for f in FloatFormat::all() {
        let want = match (f.exp_bits(), f.man_bits()) {
            (5, 2) => FloatSpecials::Ieee,
            (4, 3) => FloatSpecials::FiniteNan,
            _ => FloatSpecials::Finite,
        };
        assert_eq!(f.specials(), want, "{f}");
    }
}

#[test]
fn ranges_match_a_search_of_the_value_set() {
    for s in all_formats() {
        let values: Vec<f64> = finite_codes(s).into_iter().map(|(_, v)| v).collect();
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(f64::from(s.max_finite()), max, "{s:?} max_finite");
        assert_eq!(f64::from(s.min_finite()), min, "{s:?} min_finite");
        if let Scalar::Float(f) = s {
            let min_pos = values
                .iter()
                .copied()
                .filter(|&v| v > 0.0)
                .fold(f64::INFINITY, f64::min);
            assert_eq!(f64::from(f.min_subnormal()), min_pos, "{f} min_subnormal");
            assert_eq!(f.max_finite(), s.max_finite());
            assert_eq!(f64::from(f.decode(f.max_code())), max, "{f} max_code");
        }
    }
}

#[test]
fn codes_and_kinds() {
    for s in all_formats() {
        assert_eq!(s.codes().len(), 1 << s.bits(), "{s:?}");
        assert_eq!(s.codes().last(), Some((1 << s.bits()) - 1));
        assert_eq!(s.is_float(), !is_int(s), "{s:?}");
    }
    assert!(Scalar::Ue8m0.is_float());
}

// ---------------------------------------------------------------------------------------------
// Rounding
// ---------------------------------------------------------------------------------------------

/// Adjacent same-sign pairs of finite values of a non-integer format, as `(lo, hi)` codes and
/// values with `|lo| < |hi|`.
fn adjacent_pairs(s: Scalar) -> Vec<((u32, f64), (u32, f64))> {
    let values = finite_codes(s);
    let mut pairs = Vec::new();
    for negative in [false, true] {
        let mut side: Vec<(u32, f64)> = values
            .iter()
            .copied()
            .filter(|(_, v)| v.is_sign_negative() == negative)
            .collect();
        side.sort_by(|a, b| a.1.abs().total_cmp(&b.1.abs()));
        pairs.extend(side.windows(2).map(|w| (w[0], w[1])));
    }
    pairs
}

#[test]
fn float_midpoints_round_to_the_even_code() {
    let mut checked = 0;
    for s in all_formats().into_iter().filter(|&s| !is_int(s)) {
        for ((c_lo, lo), (c_hi, hi)) in adjacent_pairs(s) {
            assert!(lo.abs() < hi.abs(), "{s:?}: duplicate value {lo:e}");
            let mid = (lo + hi) / 2.0;
            let mid32 = mid as f32;
            assert_eq!(
                f64::from(mid32),
                mid,
                "{s:?}: midpoint {mid:e} is not an f32"
            );
            let even = if c_lo % 2 == 0 { c_lo } else { c_hi };
            assert_ne!(
                c_lo % 2,
                c_hi % 2,
                "{s:?}: adjacent codes {c_lo:#x} {c_hi:#x}"
            );
            assert_eq!(
                s.encode(mid32),
                even,
                "{s:?}: midpoint of {lo:e} and {hi:e}"
            );
            // One f32 ulp towards either side goes to the nearer value.
            let (towards_hi, towards_lo) = if mid > 0.0 {
                (next_up(mid32), next_down(mid32))
            } else {
                (next_down(mid32), next_up(mid32))
            };
            assert_eq!(
                s.encode(towards_hi),
                c_hi,
                "{s:?}: just past the midpoint of {lo:e} and {hi:e}"
            );
            assert_eq!(
                s.encode(towards_lo),
                c_lo,
                "{s:?}: just before the midpoint of {lo:e} and {hi:e}"
            );
            checked += 1;
        }
    }
    assert!(checked > 2 * 63000, "{checked}");
}

#[test]
fn int_midpoints_round_to_the_even_integer() {
    for s in all_formats().into_iter().filter(|&s| is_int(s)) {
        let (min, max) = (s.min_finite() as i32, s.max_finite() as i32);
        assert!(max > min);
        for k in min..max {
            let mid = k as f32 + 0.5;
            let even = if k % 2 == 0 { k } else { k + 1 };
            assert_eq!(s.decode(s.encode(mid)), even as f32, "{s:?}: {mid}");
            let (up, down) = (next_up(mid), next_down(mid));
            assert!(down < mid && mid < up);
            assert_eq!(s.decode(s.encode(up)), (k + 1) as f32, "{s:?}: {up}");
            assert_eq!(s.decode(s.encode(down)), k as f32, "{s:?}: {down}");
        }
    }
}

/// Random inputs across every scale of the format's range, compared with a search of the
/// value set.
#[test]
fn encode_matches_a_search_of_the_value_set() {
    let mut rng = StdRng::seed_from_u64(0x5eed);
    for s in all_formats() {
        let values = finite_codes(s);
        let max = f64::from(s.max_finite());
        let tiny = values
            .iter()
            .map(|v| v.1.abs())
            .filter(|&v| v > 0.0)
            .fold(f64::INFINITY, f64::min);
        let samples = if s.bits() > 8 { 300 } else { 3000 };
        for i in 0..samples {
            let x: f32 = match i % 3 {
                0 => f32::from_bits(rng.random::<u32>()),
                1 => (rng.random_range(-1.25..1.25) * max) as f32,
                _ => {
                    let e = rng.random_range(tiny.log2() - 3.0..max.log2() + 2.0);
                    let sign = if rng.random::<bool>() { -1.0 } else { 1.0 };
                    (sign * e.exp2()) as f32
                }
            };
            if !x.is_finite() {
                continue;
            }
            let want = nearest_by_search(s, &values, x);
            assert_eq!(s.encode(x), want, "{s:?}: encode({x:e})");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Saturation and specials
// ---------------------------------------------------------------------------------------------

#[test]
fn out_of_range_values_saturate() {
    for s in all_formats() {
        let (max, min) = (s.max_finite(), s.min_finite());
        let (max_code, min_code) = (s.encode(max), s.encode(min));
        assert_eq!(f64::from(s.decode(max_code)), f64::from(max));
        assert_eq!(f64::from(s.decode(min_code)), f64::from(min));
        let has_inf = s.codes().any(|c| s.decode(c).is_infinite());
        let mut above = vec![f32::MAX, max + 1.0];
        let mut below = vec![f32::MIN];
        if (2.0 * max).is_finite() {
            above.push(2.0 * max);
            below.push(-2.0 * max);
        }
        if min < 0.0 {
            below.push(min - 1.0);
        }
        if !has_inf {
            above.push(f32::INFINITY);
            below.push(f32::NEG_INFINITY);
        }
        for x in above {
            assert_eq!(s.encode(x), max_code, "{s:?}: encode({x:e})");
        }
        if s != Scalar::Ue8m0 {
            for x in below {
                assert_eq!(s.encode(x), min_code, "{s:?}: encode({x:e})");
            }
        }
    }
    assert_eq!(Scalar::F16.encode(1e6), 0x7BFF);
    assert_eq!(Scalar::F16.encode(-1e6), 0xFBFF);
    assert_eq!(Scalar::F16.encode(65519.0), 0x7BFF);
    assert_eq!(Scalar::F16.encode(65520.0), 0x7BFF);
    assert_eq!(Scalar::Bf16.encode(f32::MAX), 0x7F7F);
    assert_eq!(Scalar::Float(FloatFormat::E5M2).encode(61440.0), 0x7B);
    assert_eq!(Scalar::Float(FloatFormat::E4M3).encode(480.0), 0x7E);
    assert_eq!(Scalar::Float(FloatFormat::E4M3).encode(-1e9), 0xFE);
    assert_eq!(Scalar::Float(FloatFormat::E2M1).encode(7.0), 0x7);
    assert_eq!(Scalar::UInt(4).encode(-3.0), 0);
    assert_eq!(Scalar::UInt(4).encode(99.0), 15);
    assert_eq!(Scalar::SInt(4).encode(-99.0), 0x8);
    assert_eq!(Scalar::SInt(4).encode(7.5), 0x7);
    assert_eq!(Scalar::SInt(8).encode(f32::NEG_INFINITY), 0x80);
}

#[test]
fn ue8m0_policy() {
    let u = Scalar::Ue8m0;
    for x in [
        0.0,
        -0.0,
        -1.0,
        f32::NEG_INFINITY,
        f32::MIN,
        2f32.powi(-127),
        1e-45,
    ] {
        assert_eq!(u.encode(x), 0, "{x:e}");
    }
    for x in [2f32.powi(127), f32::MAX, f32::INFINITY] {
        assert_eq!(u.encode(x), 254, "{x:e}");
    }
    assert_eq!(u.encode(1.0), 127);
    assert_eq!(u.encode(1.49), 127);
    assert_eq!(u.encode(1.51), 128);
    assert_eq!(u.encode(1.5), 128); // tie between codes 127 and 128: even code
    assert_eq!(u.encode(3.0), 128); // tie between codes 128 and 129: even code
    assert_eq!(u.encode(0.75), 126); // tie between codes 126 and 127
    assert_eq!(u.encode(f32::NAN), 0xFF);
    assert_eq!(u.max_finite(), 2f32.powi(127));
    assert_eq!(u.min_finite(), 2f32.powi(-127));
}

#[test]
fn infinities_encode_to_infinities_where_the_format_has_them() {
    let e5m2 = Scalar::Float(FloatFormat::E5M2);
    assert_eq!(e5m2.encode(f32::INFINITY), 0x7C);
    assert_eq!(e5m2.encode(f32::NEG_INFINITY), 0xFC);
    assert_eq!(Scalar::F16.encode(f32::INFINITY), 0x7C00);
    assert_eq!(Scalar::F16.encode(f32::NEG_INFINITY), 0xFC00);
    assert_eq!(Scalar::Bf16.encode(f32::INFINITY), 0x7F80);
    assert_eq!(Scalar::Bf16.encode(f32::NEG_INFINITY), 0xFF80);
    let e4m3 = Scalar::Float(FloatFormat::E4M3);
    assert_eq!(e4m3.encode(f32::INFINITY), 0x7E);
    assert_eq!(e4m3.encode(f32::NEG_INFINITY), 0xFE);
    for s in all_formats() {
        let has_inf = s.codes().any(|c| s.decode(c).is_infinite());
        assert_eq!(
            has_inf,
            matches!(s, Scalar::F16 | Scalar::Bf16) || s == e5m2,
            "{s:?}"
        );
    }
}

#[test]
fn nan_policy() {
    let e4m3 = Scalar::Float(FloatFormat::E4M3);
    let e5m2 = Scalar::Float(FloatFormat::E5M2);
    let canonical = [
        (e4m3, 0x7F),
        (e5m2, 0x7E),
        (Scalar::F16, 0x7E00),
        (Scalar::Bf16, 0x7FC0),
        (Scalar::Ue8m0, 0xFF),
    ];
    for s in all_formats() {
        let want = canonical.iter().find(|(f, _)| *f == s).map(|&(_, c)| c);
        for nan in [
            f32::NAN,
            -f32::NAN,
            f32::from_bits(0x7FC0_1234),
            f32::from_bits(0xFF80_0001),
        ] {
            let got = s.encode(nan);
            match want {
                Some(c) => {
                    assert_eq!(got, c, "{s:?}");
                    assert!(s.is_nan_code(got) && s.decode(got).is_nan(), "{s:?}");
                }
                None => {
                    assert_eq!(got, 0, "{s:?}: NaN without a NaN code encodes to +0");
                    assert!(!s.codes().any(|c| s.is_nan_code(c)), "{s:?}");
                }
            }
        }
    }
    assert_eq!(FloatFormat::E4M3.nan_code(), Some(0x7F));
    assert_eq!(FloatFormat::E5M2.nan_code(), Some(0x7E));
    assert_eq!(FloatFormat::E2M1.nan_code(), None);
    assert!(FloatFormat::E4M3.is_nan_code(0xFF));
    assert!(!FloatFormat::E4M3.is_nan_code(0xFE));
    assert!(FloatFormat::E5M2.is_nan_code(0xFD));
    assert!(!FloatFormat::E5M2.is_nan_code(0xFC));
}

#[test]
fn signed_zero() {
    for s in all_formats() {
        let (pos, neg) = (s.encode(0.0), s.encode(-0.0));
        match s {
            Scalar::Ue8m0 => assert_eq!((pos, neg), (0, 0)),
            _ if is_int(s) => assert_eq!((pos, neg), (0, 0), "{s:?}"),
            _ => {
                assert_eq!(pos, 0, "{s:?}");
                assert_eq!(neg, 1 << (s.bits() - 1), "{s:?}");
                assert!(s.decode(neg).is_sign_negative() && s.decode(neg) == 0.0);
                // Negative values that round to zero keep their sign.
                assert_eq!(s.encode(-1e-45), neg, "{s:?}");
            }
        }
    }
    assert_eq!(Scalar::SInt(8).encode(-0.4), 0);
}

// ---------------------------------------------------------------------------------------------
// step_at
// ---------------------------------------------------------------------------------------------

#[test]
fn step_at_is_the_gap_to_the_next_value() {
    for s in all_formats() {
        let mut positives: Vec<f64> = finite_codes(s)
            .into_iter()
            .map(|(_, v)| v)
            .filter(|&v| v >= 0.0)
            .collect();
        positives.sort_by(f64::total_cmp);
        positives.dedup();
        for w in positives.windows(2) {
            let (v, next) = (w[0], w[1]);
            let gap = next - v;
            let step = f64::from(s.step_at(v as f32));
            assert_eq!(step, gap, "{s:?}: step_at({v:e})");
            assert_eq!(
                f64::from(s.step_at(-v as f32)),
                gap,
                "{s:?}: step_at(-{v:e})"
            );
            let inside = (v + gap * 0.75) as f32;
            assert_eq!(
                f64::from(s.step_at(inside)),
                gap,
                "{s:?}: step_at({inside:e})"
            );
        }
        let n = positives.len();
        let last_gap = positives[n - 1] - positives[n - 2];
        let max = s.max_finite();
        for x in [max, max * 1.5, f32::MAX, f32::INFINITY, -f32::INFINITY] {
            assert_eq!(f64::from(s.step_at(x)), last_gap, "{s:?}: step_at({x:e})");
        }
        assert!(s.step_at(f32::NAN).is_nan());
    }
    // Ue8m0: below its smallest value the step is the gap from 0 to 2^-127.
    assert_eq!(Scalar::Ue8m0.step_at(0.0), 2f32.powi(-127));
    assert_eq!(Scalar::Ue8m0.step_at(1e-40), 2f32.powi(-127));
    assert_eq!(Scalar::Ue8m0.step_at(3.0), 2.0);
    assert_eq!(Scalar::Float(FloatFormat::E2M1).step_at(5.0), 2.0);
    assert_eq!(Scalar::Float(FloatFormat::E4M3).step_at(1000.0), 32.0); // 448 - 416
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

#[test]
fn weight_format_parse_accepts_documented_names() {
    let f = |e, m| WeightFormat::Float(FloatFormat::new(e, m).unwrap());
    let cases = [
        ("u4", WeightFormat::UInt(4)),
        ("uint4", WeightFormat::UInt(4)),
        ("U1", WeightFormat::UInt(1)),
        ("uint8", WeightFormat::UInt(8)),
        ("i8", WeightFormat::SInt(8)),
        ("int8", WeightFormat::SInt(8)),
        ("int2", WeightFormat::SInt(2)),
        (" INT4 ", WeightFormat::SInt(4)),
        ("e2m1", f(2, 1)),
        ("fp4", f(2, 1)),
        ("nvfp4", f(2, 1)),
        ("mxfp4", f(2, 1)),
        ("fp4_e2m1", f(2, 1)),
        ("fp8_e4m3", f(4, 3)),
        ("E4M3", f(4, 3)),
        ("fp8_e5m2", f(5, 2)),
        ("fp6_e3m2", f(3, 2)),
        ("fp6_e2m3", f(2, 3)),
        ("e7m0", f(7, 0)),
        ("e1m6", f(1, 6)),
    ];
    for (name, want) in cases {
        assert_eq!(WeightFormat::parse(name), Ok(want), "{name}");
    }
    for w in WeightFormat::all() {
        assert_eq!(WeightFormat::parse(&w.to_string()), Ok(w), "{w}");
    }
}

#[test]
fn weight_format_parse_rejects_junk() {
    for name in [
        "", "u", "int", "x4", "fp5", "e4", "m3", "e4m3fnuz", "uint4x", "float", "e4m-1",
    ] {
        assert!(
            matches!(
                WeightFormat::parse(name),
                Err(FormatError::Unknown { role: "weight", .. })
            ),
            "{name}: {:?}",
            WeightFormat::parse(name)
        );
    }
    for (name, bits) in [("u0", 0), ("u9", 9), ("i1", 1), ("int9", 9), ("i0", 0)] {
        assert!(
            matches!(WeightFormat::parse(name), Err(FormatError::IntWidth { bits: b, .. }) if b == bits),
            "{name}"
        );
    }
    for name in ["e0m3", "e4m4", "e8m0", "fp8_e5m3", "e1m7"] {
        assert!(
            matches!(
                WeightFormat::parse(name),
                Err(FormatError::FloatLayout { .. })
            ),
            "{name}"
        );
    }
}

#[test]
fn float_format_parse() {
    for f in FloatFormat::all() {
        assert_eq!(FloatFormat::parse(&f.to_string()), Ok(f));
        assert_eq!(FloatFormat::parse(&f.to_string().to_uppercase()), Ok(f));
    }
    assert_eq!(
        FloatFormat::all().len(),
        (2..=8).map(|b| b - 1).sum::<usize>()
    );
    assert_eq!(FloatFormat::parse("e4m3"), Ok(FloatFormat::E4M3));
    assert_eq!(FloatFormat::parse("e5m2"), Ok(FloatFormat::E5M2));
    for name in [
        "", "e", "em", "e4", "4m3", "e4n3", "e4m", "m3", "fp8", "e4m3x",
    ] {
        assert!(
            matches!(
                FloatFormat::parse(name),
                Err(FormatError::Unknown { role: "float", .. })
            ),
            "{name}"
        );
    }
    assert_eq!(
        FloatFormat::parse("e0m2"),
        Err(FormatError::FloatLayout { exp: 0, man: 2 })
    );
    assert_eq!(
        FloatFormat::parse("e4m4"),
        Err(FormatError::FloatLayout { exp: 4, man: 4 })
    );
    assert_eq!(
        FloatFormat::new(8, 0),
        Err(FormatError::FloatLayout { exp: 8, man: 0 })
    );
}

#[test]
fn role_format_parse() {
    let act = [
        ("f16", ActFormat::F16),
        ("fp16", ActFormat::F16),
        ("half", ActFormat::F16),
        ("float16", ActFormat::F16),
        ("BF16", ActFormat::Bf16),
        ("bfloat16", ActFormat::Bf16),
        ("e4m3", ActFormat::E4m3),
        ("fp8", ActFormat::E4m3),
        ("fp8_e4m3", ActFormat::E4m3),
        ("float8_e4m3fn", ActFormat::E4m3),
        ("e5m2", ActFormat::E5m2),
        ("float8_e5m2", ActFormat::E5m2),
        ("i8", ActFormat::Int8),
        ("int8", ActFormat::Int8),
        ("s8", ActFormat::Int8),
        ("int4", ActFormat::Int4),
    ];
    for (name, want) in act {
        assert_eq!(ActFormat::parse(name), Ok(want), "{name}");
    }
    let scale = [
        ("f16", ScaleFormat::F16),
        ("bf16", ScaleFormat::Bf16),
        ("e4m3", ScaleFormat::E4m3),
        ("e5m2", ScaleFormat::E5m2),
        ("ue8m0", ScaleFormat::Ue8m0),
        ("e8m0", ScaleFormat::Ue8m0),
        ("float8_e8m0fnu", ScaleFormat::Ue8m0),
    ];
    for (name, want) in scale {
        assert_eq!(ScaleFormat::parse(name), Ok(want), "{name}");
    }
    assert_eq!(OutFormat::parse("fp16"), Ok(OutFormat::F16));
    assert_eq!(OutFormat::parse("bfloat16"), Ok(OutFormat::Bf16));
    for a in ActFormat::ALL {
        assert_eq!(ActFormat::parse(a.name()), Ok(*a));
    }
    for s in ScaleFormat::ALL {
        assert_eq!(ScaleFormat::parse(s.name()), Ok(*s));
    }
    for o in OutFormat::ALL {
        assert_eq!(OutFormat::parse(&o.to_string()), Ok(*o));
    }
    for junk in ["", "f32", "e2m1", "u4", "int16", "fp8_e4m3fnuz"] {
        assert!(
            matches!(
                ActFormat::parse(junk),
                Err(FormatError::Unknown {
                    role: "activation",
                    ..
                })
            ),
            "{junk}"
        );
        assert!(
            matches!(
                ScaleFormat::parse(junk),
                Err(FormatError::Unknown { role: "scale", .. })
            ),
            "{junk}"
        );
        assert!(
            matches!(
                OutFormat::parse(junk),
                Err(FormatError::Unknown { role: "output", .. })
            ),
            "{junk}"
        );
    }
    // "fp8" names an activation format but not a scale format.
    assert!(ScaleFormat::parse("fp8").is_err());
}
