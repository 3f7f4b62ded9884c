//! Tests of `humming_core::spec` against an independent reading of its rule list.

use humming_core::{
    ActFormat, Arch, FloatFormat, OutFormat, ScaleFormat, ScaleGroup, Spec, SpecError, SpecField,
    SpecParts, WeightFormat, ZeroPoint,
};
use proptest::prelude::*;
use std::collections::{BTreeSet, HashSet};
use std::sync::OnceLock;

// ---------------------------------------------------------------------------------------------
// The independent predicate, written from the rule list without calling the library's rules.

/// The fields the rules blame for `p`; empty exactly when `p` is valid.
fn expected_blame(p: &SpecParts) -> BTreeSet<SpecField> {
    use ActFormat as A;
    let mut blame = BTreeSet::new();
    let dynamic = p.zero_point == ZeroPoint::Dynamic;

    // 1. Groups: 16, 32, ..., 1024; 8-bit acts need >= 32, int4 acts >= 64.
    if let ScaleGroup::Group(g) = p.group {
        let sizes = [16, 32, 64, 128, 256, 512, 1024];
        let min = match p.act {
            A::Int8 | A::E4m3 | A::E5m2 => 32,
            A::Int4 => 64,
            A::F16 | A::Bf16 => 16,
        };
        if !sizes.contains(&g) || g < min {
            blame.insert(SpecField::Group);
        }
    }

    // 2. Targets.
    let before_sm80 = p.arch == Arch::Sm75;
    let before_sm89 = matches!(p.arch, Arch::Sm75 | Arch::Sm80 | Arch::Sm86);
    if (p.act == A::Bf16 && before_sm80) || (matches!(p.act, A::E4m3 | A::E5m2) && before_sm89) {
        blame.insert(SpecField::Act);
    }
    if p.scale == ScaleFormat::Bf16 && before_sm80 {
        blame.insert(SpecField::Scale);
    }
    if p.out == OutFormat::Bf16 && before_sm80 {
        blame.insert(SpecField::Out);
    }

    // 3. Dynamic zero points only on unsigned weights.
    if dynamic && !matches!(p.weight, WeightFormat::UInt(_)) {
        blame.insert(SpecField::ZeroPoint);
    }

    // 4. Integer activations.
    let int_act_bits = match p.act {
        A::Int8 => Some(8),
        A::Int4 => Some(4),
        _ => None,
    };
    if let Some(a) = int_act_bits {
        match p.weight {
            WeightFormat::Float(_) => {
                blame.insert(SpecField::Weight);
            }
            WeightFormat::UInt(b) if dynamic => {
                if b + 1 > a {
                    // Blame the zero point only when the implicit one would have fitted.
                    blame.insert(if b <= a {
                        SpecField::ZeroPoint
                    } else {
                        SpecField::Weight
                    });
                }
            }
            WeightFormat::UInt(b) | WeightFormat::SInt(b) => {
                if b > a {
                    blame.insert(SpecField::Weight);
                }
            }
        }
    }

    // 5. fp8 activations: |v| <= 2^(M+1) for integers, E/M within the act for floats.
    let fp8 = match p.act {
        A::E4m3 => Some((4u8, 3u8)),
        A::E5m2 => Some((5, 2)),
        _ => None,
    };
    if let Some((e_act, m_act)) = fp8 {
        let limit = 1i64 << (m_act + 1);
        match p.weight {
            WeightFormat::UInt(b) => {
                let implicit_max = 1i64 << (b - 1);
                let dynamic_max = (1i64 << b) - 1;
                if dynamic && dynamic_max > limit {
                    blame.insert(if implicit_max <= limit {
                        SpecField::ZeroPoint
                    } else {
                        SpecField::Weight
                    });
                } else if !dynamic && implicit_max > limit {
                    blame.insert(SpecField::Weight);
                }
            }
            WeightFormat::SInt(b) => {
                if (1i64 << (b - 1)) > limit {
                    blame.insert(SpecField::Weight);
                }
            }
            WeightFormat::Float(f) => {
                if f.man_bits() > m_act || f.exp_bits() > e_act {
                    blame.insert(SpecField::Weight);
                }
                // e5m0/e5m1 have a finite top binade that lands on e5m2's infinities.
                if p.act == A::E5m2 && f.exp_bits() == 5 && f.man_bits() < 2 {
                    blame.insert(SpecField::Weight);
                }
            }
        }
    }

    // 6. f16 activations take float weights with E <= 5; bf16 takes everything.
    if let (A::F16, WeightFormat::Float(f)) = (p.act, p.weight) {
        // E <= 5, and no finite top binade at E = 5 (e5m0, e5m1 would land on infinity).
        if f.exp_bits() > 5 || (f.exp_bits() == 5 && f.man_bits() < 2) {
            blame.insert(SpecField::Weight);
        }
    }

    // 7. ue8m0 scales not with f16 activations. 8-10: nothing to reject.
    if p.scale == ScaleFormat::Ue8m0 && p.act == A::F16 {
        blame.insert(SpecField::Scale);
    }
    // 9. no global scale over ue8m0 block scales.
    if p.global_scale && p.scale == ScaleFormat::Ue8m0 {
        blame.insert(SpecField::GlobalScale);
    }
    // 7. 16-bit scales only of the 16-bit activation's own type.
    if matches!((p.scale, p.act), (ScaleFormat::Bf16, A::F16) | (ScaleFormat::F16, A::Bf16)) {
        blame.insert(SpecField::Scale);
    }
    blame
}

// ---------------------------------------------------------------------------------------------
// The sweep.

fn sweep_groups() -> Vec<ScaleGroup> {
    let mut v = vec![ScaleGroup::PerChannel];
    v.extend([16, 32, 64, 128, 256, 512, 1024].map(ScaleGroup::Group));
    v.extend([100, 8, 2048].map(ScaleGroup::Group));
    v
}

/// Every combination of the sweep, in a fixed order.
fn all_parts() -> Vec<SpecParts> {
    let mut all = Vec::new();
    for weight in WeightFormat::all() {
        for &act in ActFormat::ALL {
            for &scale in ScaleFormat::ALL {
                for group in sweep_groups() {
                    for zero_point in [ZeroPoint::Implicit, ZeroPoint::Dynamic] {
                        for global_scale in [false, true] {
                            for &out in OutFormat::ALL {
                                for arch in Arch::ALL {
                                    all.push(SpecParts {
                                        weight,
                                        act,
                                        scale,
                                        group,
                                        zero_point,
                                        global_scale,
                                        out,
                                        arch,
                                    });
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    all
}

/// The specs of the sweep that the library accepts.
fn accepted() -> &'static [Spec] {
    static ACCEPTED: OnceLock<Vec<Spec>> = OnceLock::new();
    ACCEPTED.get_or_init(|| {
        all_parts()
            .into_iter()
            .filter_map(|p| Spec::new(p).ok())
            .collect()
    })
}

#[test]
fn sweep_matches_independent_predicate() {
    let all = all_parts();
    let (mut accepted, mut rejected) = (0usize, 0usize);
    let mut mismatches = Vec::new();
    for p in &all {
        let expected = expected_blame(p);
        match Spec::new(*p) {
            Ok(spec) => {
                accepted += 1;
                assert_eq!(spec.parts(), *p);
                assert_eq!(
                    (spec.weight(), spec.act(), spec.scale(), spec.group()),
                    (p.weight, p.act, p.scale, p.group)
                );
                assert_eq!(
                    (
                        spec.zero_point(),
                        spec.global_scale(),
                        spec.out(),
                        spec.arch()
                    ),
                    (p.zero_point, p.global_scale, p.out, p.arch)
                );
                if !expected.is_empty() {
                    mismatches.push(format!("{}: accepted, expected blame {expected:?}", p.id()));
                }
            }
            Err(errors) => {
                rejected += 1;
                assert!(!errors.errors().is_empty());
                assert_eq!(errors.parts(), p);
                let got: BTreeSet<SpecField> = errors.iter().map(SpecError::field).collect();
                if got != expected {
                    mismatches.push(format!(
                        "{}: blamed {got:?}, expected {expected:?}: {errors}",
                        p.id()
                    ));
                }
            }
        }
    }
    println!(
        "spec sweep: {} combinations, {accepted} accepted, {rejected} rejected",
        all.len()
    );
    assert!(
        mismatches.is_empty(),
        "{} mismatches, first ones:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(20)].join("\n")
    );
    assert_eq!(accepted, self::accepted().len());
    assert!(accepted > 0 && rejected > 0);
}

#[test]
fn ids_are_unique_across_accepted_specs() {
    let specs = accepted();
    let ids: HashSet<String> = specs.iter().map(Spec::id).collect();
    assert_eq!(ids.len(), specs.len());
    for s in specs.iter().step_by(997) {
        assert_eq!(s.to_string(), s.id());
        assert!(
            s.id()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{s}"
        );
    }
}

#[test]
fn id_format() {
    let p = SpecParts::new(WeightFormat::UInt(4), ActFormat::F16);
    assert_eq!(
        Spec::new(p).unwrap().id(),
        "w_u4-a_f16-s_f16-g128-zp_implicit-o_f16-sm_80"
    );
    let p = SpecParts {
        group: ScaleGroup::PerChannel,
        zero_point: ZeroPoint::Dynamic,
        global_scale: true,
        arch: Arch::Sm90a,
        ..SpecParts::new(WeightFormat::UInt(8), ActFormat::Bf16)
    };
    assert_eq!(
        Spec::new(p).unwrap().to_string(),
        "w_u8-a_bf16-s_bf16-gpc-zp_dynamic-o_bf16-sm_90a-gs"
    );
}

#[test]
fn defaults_follow_the_activation() {
    let p = SpecParts::new(WeightFormat::Float(FloatFormat::E2M1), ActFormat::Bf16);
    assert_eq!((p.scale, p.out), (ScaleFormat::Bf16, OutFormat::Bf16));
    let p = SpecParts::new(WeightFormat::SInt(8), ActFormat::Int8);
    assert_eq!((p.scale, p.out), (ScaleFormat::F16, OutFormat::F16));
    assert_eq!(p.group, ScaleGroup::Group(128));
    assert_eq!(p.zero_point, ZeroPoint::Implicit);
    assert!(!p.global_scale);
    assert_eq!(p.arch, Arch::Sm80);
    assert!(p.validate().is_ok());
}

// ---------------------------------------------------------------------------------------------
// Hand-picked messages.

/// The errors of `p` and their messages, asserting that the library rejects it.
fn reject(p: SpecParts) -> (Vec<SpecError>, Vec<String>) {
    let errors = Spec::new(p).expect_err("spec should be rejected");
    let msgs = errors.iter().map(|e| e.to_string()).collect();
    (errors.into_vec(), msgs)
}

fn assert_mentions(msg: &str, parts: &[&str]) {
    for part in parts {
        assert!(msg.contains(part), "message lacks {part:?}: {msg}");
    }
}

fn u4_f16() -> SpecParts {
    SpecParts::new(WeightFormat::UInt(4), ActFormat::F16)
}

#[test]
fn message_group_not_power_of_two() {
    let (errors, msgs) = reject(SpecParts {
        group: ScaleGroup::Group(100),
        ..u4_f16()
    });
    assert_eq!(errors, [SpecError::GroupSize { group: 100 }]);
    assert_eq!(errors[0].field(), SpecField::Group);
    assert_mentions(
        &msgs[0],
        &[
            "group 100 is not a power of two",
            "valid groups: 16, 32, 64, 128, 256, 512, 1024 or per-channel",
        ],
    );
}

#[test]
fn message_group_too_small_for_int8_act() {
    let (errors, msgs) = reject(SpecParts {
        group: ScaleGroup::Group(16),
        ..SpecParts::new(WeightFormat::SInt(8), ActFormat::Int8)
    });
    assert_eq!(
        errors,
        [SpecError::GroupTooSmallForAct {
            group: 16,
            act: ActFormat::Int8,
            min: 32
        }]
    );
    assert_mentions(
        &msgs[0],
        &["group 16", "32, 64, 128, 256, 512, 1024 or per-channel"],
    );
}

#[test]
fn message_bf16_act_on_sm75() {
    let (errors, msgs) = reject(SpecParts {
        arch: Arch::Sm75,
        ..SpecParts::new(WeightFormat::UInt(4), ActFormat::Bf16)
    });
    let (arch, min) = (Arch::Sm75, Arch::Sm80);
    assert_eq!(
        errors,
        [
            SpecError::ActNeedsArch {
                act: ActFormat::Bf16,
                arch,
                min
            },
            SpecError::ScaleNeedsArch {
                scale: ScaleFormat::Bf16,
                arch,
                min
            },
            SpecError::OutNeedsArch {
                out: OutFormat::Bf16,
                arch,
                min
            },
        ]
    );
    let fields: Vec<_> = errors.iter().map(SpecError::field).collect();
    assert_eq!(fields, [SpecField::Act, SpecField::Scale, SpecField::Out]);
    assert_mentions(
        &msgs[0],
        &[
            "act bf16 needs sm_80",
            "sm_80, sm_86, sm_89, sm_90 or sm_90a",
            "f16, i8 or i4",
        ],
    );
    assert_mentions(&msgs[1], &["scale bf16", "scale f16, e4m3 or e5m2"]);
    assert_mentions(&msgs[2], &["out bf16", "out f16"]);
}

#[test]
fn message_fp8_act_on_sm86() {
    let (errors, msgs) = reject(SpecParts {
        arch: Arch::Sm86,
        ..SpecParts::new(WeightFormat::UInt(4), ActFormat::E4m3)
    });
    assert_eq!(
        errors,
        [SpecError::ActNeedsArch {
            act: ActFormat::E4m3,
            arch: Arch::Sm86,
            min: Arch::Sm89
        }]
    );
    assert_mentions(
        &msgs[0],
        &[
            "act e4m3 needs sm_89",
            "fp8",
            "sm_89, sm_90 or sm_90a",
            "f16, bf16, i8 or i4",
        ],
    );
}

#[test]
fn message_u5_weight_with_int4_act() {
    let (errors, msgs) = reject(SpecParts::new(WeightFormat::UInt(5), ActFormat::Int4));
    assert_eq!(
        errors,
        [SpecError::WeightRangeExceedsAct {
            weight: WeightFormat::UInt(5),
            zero_point: ZeroPoint::Implicit,
            act: ActFormat::Int4,
            lo: -16,
            hi: 15,
            act_lo: -8,
            act_hi: 7,
        }]
    );
    assert_eq!(errors[0].field(), SpecField::Weight);
    assert_mentions(
        &msgs[0],
        &[
            "u5",
            "[-16, 15]",
            "[-8, 7]",
            "at most u4 with implicit zero point or i4",
            "i8",
        ],
    );
}

#[test]
fn message_dynamic_zero_point_widens_beyond_int4_act() {
    let p = SpecParts {
        zero_point: ZeroPoint::Dynamic,
        ..SpecParts::new(WeightFormat::UInt(4), ActFormat::Int4)
    };
    let (errors, msgs) = reject(p);
    assert!(matches!(
        errors[..],
        [SpecError::ZeroPointRangeExceedsAct {
            lo: -15,
            hi: 15,
            ..
        }]
    ));
    assert_eq!(errors[0].field(), SpecField::ZeroPoint);
    assert_mentions(
        &msgs[0],
        &[
            "dynamic",
            "zero_point = implicit",
            "u3 with dynamic zero point",
            "i8",
        ],
    );
}

#[test]
fn message_dynamic_zero_point_on_int4_weight() {
    let p = SpecParts {
        zero_point: ZeroPoint::Dynamic,
        ..SpecParts::new(WeightFormat::SInt(4), ActFormat::F16)
    };
    let (errors, msgs) = reject(p);
    assert_eq!(
        errors,
        [SpecError::DynamicZeroPointNeedsUInt {
            weight: WeightFormat::SInt(4)
        }]
    );
    assert_eq!(errors[0].field(), SpecField::ZeroPoint);
    assert_mentions(
        &msgs[0],
        &["i4", "signed", "zero_point = implicit", "weight u4"],
    );
}

#[test]
fn message_ue8m0_scale_with_f16_act() {
    let (errors, msgs) = reject(SpecParts {
        scale: ScaleFormat::Ue8m0,
        ..u4_f16()
    });
    assert_eq!(
        errors,
        [SpecError::Ue8m0ScaleNeedsWideAct {
            act: ActFormat::F16
        }]
    );
    assert_eq!(errors[0].field(), SpecField::Scale);
    assert_mentions(
        &msgs[0],
        &["ue8m0", "f16", "act = bf16", "scale = e4m3/f16"],
    );
}

#[test]
fn message_float_weights() {
    let e2m1 = WeightFormat::Float(FloatFormat::E2M1);
    let (errors, msgs) = reject(SpecParts::new(e2m1, ActFormat::Int8));
    assert_eq!(
        errors,
        [SpecError::FloatWeightWithIntAct {
            weight: FloatFormat::E2M1,
            act: ActFormat::Int8
        }]
    );
    assert_mentions(
        &msgs[0],
        &["e2m1", "f16/bf16/fp8", "f16, bf16, e4m3 or e5m2"],
    );

    let p = SpecParts {
        arch: Arch::Sm89,
        ..SpecParts::new(WeightFormat::Float(FloatFormat::E5M2), ActFormat::E4m3)
    };
    let (errors, msgs) = reject(p);
    assert_eq!(
        errors,
        [SpecError::FloatWeightExceedsAct {
            weight: FloatFormat::E5M2,
            act: ActFormat::E4m3
        }]
    );
    assert_mentions(
        &msgs[0],
        &["e5m2", "E <= 4 and M <= 3", "f16, bf16 or e5m2"],
    );

    let e6m1 = FloatFormat::new(6, 1).unwrap();
    let (errors, msgs) = reject(SpecParts::new(WeightFormat::Float(e6m1), ActFormat::F16));
    assert_eq!(
        errors,
        [SpecError::FloatWeightExceedsAct {
            weight: e6m1,
            act: ActFormat::F16
        }]
    );
    assert_eq!(errors[0].rule(), 6);
    assert_mentions(&msgs[0], &["e6m1", "E <= 5", "act bf16"]);
}

#[test]
fn malformed_weight_widths_are_rejected_without_panicking() {
    for w in [
        WeightFormat::UInt(0),
        WeightFormat::UInt(9),
        WeightFormat::SInt(1),
        WeightFormat::SInt(200),
    ] {
        for &act in ActFormat::ALL {
            let p = SpecParts {
                zero_point: ZeroPoint::Implicit,
                arch: Arch::Sm90,
                ..SpecParts::new(w, act)
            };
            let (errors, msgs) = reject(p);
            assert_eq!(errors, [SpecError::WeightWidth { weight: w }], "{act}");
            assert_mentions(&msgs[0], &[&w.to_string(), "u1..u8, i2..i8"]);
        }
    }
}

#[test]
fn all_errors_display_lists_every_problem() {
    let p = SpecParts {
        group: ScaleGroup::Group(100),
        zero_point: ZeroPoint::Dynamic,
        arch: Arch::Sm75,
        ..SpecParts::new(WeightFormat::Float(FloatFormat::E2M1), ActFormat::E4m3)
    };
    let errors = Spec::new(p).unwrap_err();
    assert_eq!(
        errors.fields(),
        [SpecField::Act, SpecField::Group, SpecField::ZeroPoint]
    );
    let text = errors.to_string();
    assert!(
        text.starts_with(
            "invalid spec w_e2m1-a_e4m3-s_f16-g100-zp_dynamic-o_f16-sm_75: 3 problems"
        ),
        "{text}"
    );
    assert_eq!(text.lines().count(), 4, "{text}");
    let one = Spec::new(SpecParts {
        group: ScaleGroup::Group(8),
        ..u4_f16()
    })
    .unwrap_err();
    assert_eq!(one.to_string().lines().count(), 1);
    assert!(
        one.to_string()
            .contains("group: group 8 is smaller than 16"),
        "{one}"
    );
    let _: &dyn std::error::Error = &one;
}

// ---------------------------------------------------------------------------------------------
// Perturbations.

/// The fields a rule can blame, and every value the test tries for them.
const BLAMEABLE: [SpecField; 6] = [
    SpecField::Weight,
    SpecField::Act,
    SpecField::Scale,
    SpecField::Group,
    SpecField::ZeroPoint,
    SpecField::Out,
];

/// `p` with `field` set to each other value it can take; with the value's text as messages show it.
fn variants(p: SpecParts, field: SpecField) -> Vec<(SpecParts, String)> {
    let mut v = Vec::new();
    match field {
        SpecField::Weight => v.extend(
            WeightFormat::all()
                .into_iter()
                .map(|weight| (SpecParts { weight, ..p }, weight.to_string())),
        ),
        SpecField::Act => v.extend(
            ActFormat::ALL
                .iter()
                .map(|&act| (SpecParts { act, ..p }, act.to_string())),
        ),
        SpecField::Scale => v.extend(
            ScaleFormat::ALL
                .iter()
                .map(|&scale| (SpecParts { scale, ..p }, scale.to_string())),
        ),
        SpecField::Group => v.extend([0, 3, 8, 16, 32, 48, 64, 100, 128, 1000, 2048, 4096].map(
            |g| {
                (
                    SpecParts {
                        group: ScaleGroup::Group(g),
                        ..p
                    },
                    format!("group {g}"),
                )
            },
        )),
        SpecField::ZeroPoint => v.push((
            SpecParts {
                zero_point: ZeroPoint::Dynamic,
                ..p
            },
            "dynamic".into(),
        )),
        SpecField::Out => v.extend(
            OutFormat::ALL
                .iter()
                .map(|&out| (SpecParts { out, ..p }, out.to_string())),
        ),
        SpecField::GlobalScale => v.push((
            SpecParts {
                global_scale: !p.global_scale,
                ..p
            },
            String::new(),
        )),
        SpecField::Arch => {
            v.extend(Arch::ALL.map(|arch| (SpecParts { arch, ..p }, arch.to_string())))
        }
    }
    v.retain(|(q, _)| *q != p);
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// A valid spec changed in one field so that only rules blaming that field are violated is
    /// rejected with errors on that field alone, one of them naming the new value.
    #[test]
    fn one_field_perturbation_blames_that_field(i in any::<prop::sample::Index>(),
                                                f in 0..BLAMEABLE.len(),
                                                pick in any::<prop::sample::Index>()) {
        let valid = accepted()[i.index(accepted().len())].parts();
        // Try the drawn field first; Group always has a violating value (100).
        let (field, candidates) = (0..BLAMEABLE.len())
            .map(|k| BLAMEABLE[(f + k) % BLAMEABLE.len()])
            .map(|field| {
                let only = BTreeSet::from([field]);
                let c: Vec<_> = variants(valid, field).into_iter().filter(|(q, _)| expected_blame(q) == only).collect();
                (field, c)
            })
            .find(|(_, c)| !c.is_empty())
            .unwrap();
        let (perturbed, shown) = &candidates[pick.index(candidates.len())];
        let errors = Spec::new(*perturbed).expect_err("perturbed spec should be rejected");
        prop_assert_eq!(errors.fields(), vec![field]);
        prop_assert!(
            errors.iter().any(|e| e.to_string().contains(shown.as_str())),
            "no message of {} names {}: {}", perturbed.id(), shown, errors
        );
    }

    /// Rule 9: the global scale never makes a valid spec invalid.
    #[test]
    fn global_scale_invalidates_only_mx(i in any::<prop::sample::Index>()) {
        let valid = accepted()[i.index(accepted().len())].parts();
        for (q, _) in variants(valid, SpecField::GlobalScale) {
            if q.global_scale && q.scale == ScaleFormat::Ue8m0 {
                let errors = Spec::new(q).unwrap_err();
                prop_assert_eq!(errors.errors(), &[SpecError::GlobalScaleWithUe8m0][..]);
            } else {
                prop_assert!(Spec::new(q).is_ok(), "{}", q.id());
            }
        }
    }

    /// An older target blames the formats it lacks (never `arch` itself), naming the target.
    #[test]
    fn older_arch_blames_the_formats(i in any::<prop::sample::Index>()) {
        let valid = accepted()[i.index(accepted().len())].parts();
        for (q, shown) in variants(valid, SpecField::Arch) {
            let expected = expected_blame(&q);
            match Spec::new(q) {
                Ok(_) => prop_assert!(expected.is_empty()),
                Err(errors) => {
                    prop_assert_eq!(errors.fields(), expected.into_iter().collect::<Vec<_>>());
                    for e in &errors {
                        prop_assert!(matches!(e.field(), SpecField::Act | SpecField::Scale | SpecField::Out));
                        prop_assert!(e.to_string().contains(&shown), "{}", e);
                    }
                }
            }
        }
    }
}

#[test]
fn spec_text_parses_with_defaults_and_typed_errors() {
    use humming_core::spec::SpecParseError;
    let p: SpecParts = "weight=u4 act=bf16, group=64 zero_point=dynamic arch=sm_90".parse().unwrap();
    let mut want = SpecParts::new(WeightFormat::UInt(4), ActFormat::Bf16);
    want.group = ScaleGroup::Group(64);
    want.zero_point = ZeroPoint::Dynamic;
    want.arch = Arch::Sm90;
    assert_eq!(p, want);
    assert_eq!(p.scale, ScaleFormat::Bf16, "scale defaults follow the activation");
    let p = SpecParts::parse("act=f16 weight=e2m1 scale=e4m3 group=per_channel global_scale=true out=bf16").unwrap();
    assert_eq!((p.group, p.global_scale, p.out), (ScaleGroup::PerChannel, true, OutFormat::Bf16));
    assert!(matches!(SpecParts::parse("weight=u4"), Err(SpecParseError::Missing { key: "act" })));
    assert!(matches!(SpecParts::parse("weight=u4 act=f16 colour=red"), Err(SpecParseError::Key { .. })));
    assert!(matches!(SpecParts::parse("weight=u4 act=f16 act=bf16"), Err(SpecParseError::Duplicate { .. })));
    assert!(matches!(SpecParts::parse("weight=u4 act=f16 group"), Err(SpecParseError::Pair(_))));
    let e = SpecParts::parse("weight=u9 act=f16").unwrap_err();
    assert!(matches!(&e, SpecParseError::Value { key, .. } if key == "weight"), "{e}");
    let e = SpecParts::parse("weight=u4 act=f16 group=big").unwrap_err();
    assert!(e.to_string().contains("per_channel"), "{e}");
    // Parsed parts still go through every rule.
    assert!(Spec::new(SpecParts::parse("weight=u4 act=f16 group=100").unwrap()).is_err());
}
