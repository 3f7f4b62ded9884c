//! Kernel bundles (what the macro embeds and the runtime generates), their M buckets, target
//! selection, staleness detection, and the on-disk PTX cache.

use humming_core::kernel::bundle::{GENERATOR_VERSION, select};
use humming_core::kernel::cache::{file_for, fnv1a, load_or_build};
use humming_core::kernel::check::{check_bundle, check_gemm};
use humming_core::kernel::coverage::A16_ARCHS;
use humming_core::kernel::{DeviceProfile, GemmBundle, KernelError, KernelPlan};
use humming_core::ir::emu::Emulator;
use humming_core::*;

fn spec(w: &str, act: ActFormat, arch: Arch) -> Spec {
    let mut p = SpecParts::new(WeightFormat::parse(w).unwrap(), act);
    p.arch = arch;
    Spec::new(p).unwrap()
}

#[test]
fn buckets_are_ascending_valid_and_cover_every_m() {
    for arch in A16_ARCHS {
        for bits in 1..=8u8 {
            let b = KernelPlan::buckets(arch, bits);
            assert!(!b.is_empty());
            assert!(b.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 != w[1].1), "{arch} u{bits}: {b:?}");
            assert_eq!(b.last().unwrap().0, u32::MAX, "the last bucket takes every M");
            for (_, plan) in &b {
                plan.validate(arch, bits).unwrap_or_else(|e| panic!("{arch} u{bits}: {e}"));
            }
        }
    }
}

/// Signed integer weights run the unsigned kernels' instructions (offset-binary codes with a zero
/// point), so they take the same plans on every target, shape, M and GPU profile (the float-code
/// rules once applied to them).
#[test]
fn signed_integers_take_the_unsigned_plans() {
    let mut checked = 0;
    for arch in [Arch::Sm80, Arch::Sm90, Arch::Sm90a] {
        for act in [ActFormat::F16, ActFormat::Bf16] {
            for bits in [3, 4, 8] {
                let (u, i) = (spec(&format!("u{bits}"), act, arch), spec(&format!("i{bits}"), act, arch));
                for (n, k) in [(4096, 4096), (8192, 8192), (28672, 8192), (8192, 28672), (4096, 14336), (14336, 4096)] {
                    for m in [1, 8, 12, 16, 17, 24, 32, 40, 48, 64, 128, 256] {
                        for device in [None, Some(&DeviceProfile::H100_SXM)] {
                            let (pu, pi) = (KernelPlan::choose_for_device(&u, m, n, k, device), KernelPlan::choose_for_device(&i, m, n, k, device));
                            assert_eq!(pu, pi, "{u} / {i} M {m} {n} x {k} {device:?}");
                            checked += 1;
                        }
                    }
                }
                assert_eq!(KernelPlan::buckets_spec(&u), KernelPlan::buckets_spec(&i), "{u}");
            }
        }
    }
    assert_eq!(checked, 3 * 2 * 3 * 6 * 12 * 2);
}

/// Weights of 1, 2, 3, 5, 6 and 7 bits (integers and floats) take the rules' wgmma plans where
/// v36 timed them faster (`KernelPlan::wgmma_default_at`): above M = 16, and for widths above 4
/// bits at M 17..48 only on warp-specialized tiles; elsewhere the mma.sync defaults.
#[test]
fn other_widths_take_wgmma_where_it_was_timed() {
    let lean = DeviceProfile::H100_SXM;
    let mut took = 0;
    for w in ["u1", "u2", "u3", "i3", "u5", "u6", "u7", "e3m2", "e2m3", "e2m2"] {
        for act in [ActFormat::F16, ActFormat::Bf16] {
            let s = spec(w, act, Arch::Sm90a);
            let bits = s.weight().bits();
            assert!(kernel::wgmma_supported(&s), "{s}");
            assert!(!kernel::wgmma_supported(&spec(w, act, Arch::Sm90)), "{s}");
            for (n, k) in [(4096, 4096), (8192, 8192), (28672, 8192), (8192, 28672), (4096, 14336), (14336, 4096), (2048, 4096)] {
                for m in [1, 8, 16, 17, 24, 32, 33, 40, 48, 49, 64, 65, 128, 129, 256, 300] {
                    for device in [None, Some(&lean)] {
                        let p = KernelPlan::choose_for_device(&s, m, n, k, device);
                        match KernelPlan::wgmma_rule_for_device(&s, m, n, k, device) {
                            Some(r) if m > 16 && (bits < 4 || m > 48 || r.ws) => {
                                assert_eq!(p, r, "{s} M {m} {n} x {k} {device:?}");
                                took += 1;
                            }
                            _ => assert!(!p.wgmma, "{s} M {m} {n} x {k} {device:?}: {p}"),
                        }
                        p.validate(Arch::Sm90a, bits).unwrap();
                    }
                }
            }
            // The macro's kernel sets carry them too.
            assert!(KernelPlan::buckets_spec(&s).iter().any(|(_, p)| p.wgmma), "{s}");
        }
    }
    assert!(took > 1000, "{took}");
    // Cells of the v36 sweeps.
    let plan = |w: &str, m, n, k, device| KernelPlan::choose_for_device(&spec(w, ActFormat::F16, Arch::Sm90a), m, n, k, device).to_string();
    assert_eq!(plan("u3", 64, 28672, 8192, Some(&lean)), "m4x16_n4x64_k1w_bk128_s4_ws");
    assert_eq!(plan("u3", 64, 28672, 8192, None), "m4x16_n4x64_k1w_bk128_s4_ws");
    assert_eq!(plan("u3", 17, 28672, 8192, Some(&lean)), "m2x16_n4x64_k1w_bk128_s4_ws");
    // Above 4 bits: the tiles with two math warpgroups at M 17..48 (those with four do not validate).
    assert_eq!(plan("u6", 17, 8192, 8192, Some(&lean)), "m2x16_n2x64_k1w_bk128_s4_ws");
    assert_eq!(plan("u5", 32, 28672, 8192, None), "m2x16_n2x64_k1w_bk128_s4_ws");
    assert_eq!(plan("u6", 48, 8192, 8192, Some(&lean)), "m3x16_n2x64_k1w_bk128_s4_ws");
    assert_eq!(plan("u7", 48, 8192, 28672, Some(&lean)), "m3x16_n2x64_k1w_bk128_s4_ws");
    assert_eq!(plan("u7", 48, 4096, 4096, Some(&lean)), "m4x16_n2x64_k1w_bk128_s4_ws");
    assert!(!KernelPlan::choose_for_device(&spec("u6", ActFormat::F16, Arch::Sm90a), 32, 4096, 14336, Some(&lean)).wgmma);
    assert!(!KernelPlan::choose_for_device(&spec("u3", ActFormat::F16, Arch::Sm90a), 16, 28672, 8192, Some(&lean)).wgmma);
}

/// A spec's plans ([`KernelPlan::choose_for`], its buckets) are the spec-agnostic mma.sync ones
/// but above M = 32 (above M = 16 on the largest layers) on sm_90a, where the specs wgmma plans
/// generate for (4- and 8-bit weights here) take the wgmma plan of [`KernelPlan::wgmma_for`]
/// (the v33-v42 sweeps' winners per layer size), split to one wave.
#[test]
fn spec_plans_take_wgmma_on_sm90a_only() {
    let mut dyn_zp = SpecParts::new(WeightFormat::parse("u4").unwrap(), ActFormat::F16);
    dyn_zp.arch = Arch::Sm90a;
    dyn_zp.zero_point = ZeroPoint::Dynamic;
    let dyn_zp = Spec::new(dyn_zp).unwrap();
    let mxfp4 = SpecParts { scale: ScaleFormat::Ue8m0, group: ScaleGroup::Group(32), arch: Arch::Sm90a, ..SpecParts::new(WeightFormat::parse("e2m1").unwrap(), ActFormat::Bf16) };
    let mxfp4 = Spec::new(mxfp4).unwrap();
    // (spec, whether wgmma plans generate for it); other widths than 4 and 8 bits:
    // `other_widths_take_wgmma_where_it_was_timed`.
    let cases = [
        (spec("u4", ActFormat::F16, Arch::Sm90a), true),
        (spec("e2m1", ActFormat::Bf16, Arch::Sm90a), true),
        (spec("u8", ActFormat::F16, Arch::Sm90a), true),
        (spec("u8", ActFormat::Bf16, Arch::Sm90a), false),
        (mxfp4, true),
        (dyn_zp, true),
        (spec("u4", ActFormat::F16, Arch::Sm90), false),
    ];
    // (M, N, K, the 4-bit plan, the 8-bit plan where it differs): big layers, layers of at
    // least 4096 x 14336, smaller ones. The four-warpgroup warp-specialized tiles (32 and 48
    // rows) do not validate with 8-bit weights (their producer keeps 128 registers).
    let ws = Some("m8x16_n2x64_k1w_bk128_s4_ws");
    let ws64 = Some("m4x16_n2x64_k1w_bk128_s4_ws");
    let ws48 = Some("m3x16_n4x64_k1w_bk128_s4_ws");
    let ws32 = Some("m2x16_n4x64_k1w_bk128_s4_ws");
    let wg64 = Some("m4x16_n4x64_k1w_bk128_s4_wg");
    // With ws-carry (v64): 64 rows with four math warpgroups at M 49..64 on the largest layers.
    let ws64w = Some("m4x16_n4x64_k1w_bk128_s4_ws");
    // The 256 x 128 tile (v59) at M 129..256 from 14336 columns or 8192 x 14336 elements.
    let ws256 = Some("m16x16_n2x64_k1w_bk64_s5_ws");
    let same = None;
    let table = [
        (16, 28672, 8192, None, same),
        (17, 28672, 8192, ws32, Some(None)),
        (32, 8192, 28672, ws32, Some(None)),
        // From 8192 x 14336 elements since v70; from 8192 columns and 14336 x 4096 elements
        // since v71 where the groups span its stages (`sums_only` below).
        (32, 8192, 8192, ws32, Some(None)),
        (17, 8192, 8192, ws32, Some(None)),
        (32, 8192, 14336, ws32, Some(None)),
        (24, 14336, 8192, ws32, Some(None)),
        (32, 14336, 4096, ws32, Some(None)),
        (32, 4096, 14336, None, same),
        (32, 8192, 4096, None, same),
        (40, 8192, 28672, ws48, Some(wg64)),
        (48, 28672, 8192, ws48, Some(wg64)),
        (49, 8192, 28672, ws64w, Some(wg64)),
        (64, 28672, 8192, ws64w, Some(wg64)),
        (64, 16384, 8192, wg64, same),
        (64, 8192, 8192, ws64, same),
        (33, 8192, 8192, ws48, Some(ws64)),
        (48, 14336, 4096, ws48, Some(ws64)),
        (48, 4096, 4096, ws64, same),
        (64, 4096, 4096, ws64, same),
        (64, 2048, 4096, Some("m4x16_n2x64_k1w_bk128_s6_wg"), same),
        (48, 2048, 4096, None, same),
        (65, 8192, 8192, ws, same),
        (256, 8192, 8192, ws, same),
        (128, 8192, 16384, ws, same),
        (129, 8192, 16384, ws256, same),
        // The 128 x 128 ws tile on layers wider than 16384 columns too since v70.
        (128, 28672, 8192, ws, same),
        (80, 24576, 8192, ws, same),
        (96, 8192, 28672, ws, same),
        (256, 28672, 8192, ws256, same),
        (257, 28672, 8192, Some("m8x16_n4x64_k1w_bk128_s4_wg"), same),
        (192, 8192, 28672, ws256, same),
        (256, 24576, 8192, ws256, same),
        (160, 24576, 4096, ws256, same),
        (128, 14336, 4096, ws, same),
        (256, 14336, 4096, ws256, same),
        (256, 12288, 4096, wg64, same),
        (192, 4096, 14336, ws, same),
        (65, 4096, 4096, ws64, same),
        (128, 4096, 4096, ws64, same),
        (128, 2048, 4096, Some("m4x16_n2x64_k1w_bk128_s6_wg"), same),
        (256, 4096, 4096, ws, same),
        (128, 6144, 4096, ws, same),
        (256, 6144, 4096, ws, same),
    ];
    // Cells that take the 32-row tile only where it scales f32 sums (groups of 128 and more).
    let sums_only = [(32, 8192, 8192), (17, 8192, 8192), (32, 14336, 4096)];
    for (s, wgmma) in cases {
        assert_eq!(kernel::wgmma_supported(&s), wgmma, "{s}");
        let sums = s.group().spans(128);
        let (arch, bits) = (s.arch(), s.weight().bits());
        // Float 4-bit codes keep the two m16 tiles at M 17..32 above K = 4096 (v57); the
        // spec-agnostic `choose` assumes integer codes.
        let float4 = bits == 4 && matches!(s.weight(), humming_core::WeightFormat::Float(_));
        for (m, n, k, want4, want8) in table {
            let p = KernelPlan::choose_for(&s, m, n, k);
            let plain = KernelPlan::choose(m, n, k, arch, bits);
            assert!(!plain.wgmma);
            let want = if bits == 8 { want8.unwrap_or(want4) } else { want4 };
            let want = want.filter(|_| sums || !sums_only.contains(&(m, n, k)));
            match want.filter(|_| wgmma) {
                None if float4 && (17..=32).contains(&m) && k > 4096 => assert_eq!(p.m_tiles, 2, "{s} M {m} {n} x {k}: {p}"),
                None => assert_eq!(p, plain, "{s} M {m} {n} x {k}"),
                Some(w) => {
                    // Fewer stages where they do not fit (8-bit weights), the same tile.
                    let w_plan = w.parse::<KernelPlan>().unwrap();
                    assert!(p.wgmma && p.ws == w_plan.ws && p.m_tiles == w_plan.m_tiles && p.n_warps == w_plan.n_warps, "{s} M {m} {n} x {k}: {p}");
                    if bits == 4 {
                        assert_eq!(p.to_string(), w, "{s} M {m} {n} x {k}");
                    }
                    p.validate(arch, bits).unwrap();
                    // One wave of CTAs (tiles x split <= SMs), or more than one unsplit, or
                    // split in two over deep K (v61).
                    let tiles = n.div_ceil(p.bn() as usize) * m.div_ceil(p.bm() as usize);
                    let split = p.split_k_for(m, n, k, 132);
                    assert!(tiles * split as usize <= 132 || split == 1 || (split == 2 && tiles > 132 && k >= 8192), "{p}: {tiles} tiles x {split}");
                }
            }
        }
        // Up to M = 16 the spec's plans are the spec-agnostic ones, on every shape; up to M = 32
        // below 8192 x 14336 elements (below 8192 columns where the 32-row tile scales sums).
        for n_pad in [4096, 8192, 28672] {
            let plain32 = n_pad < 8192 || (n_pad == 8192 && !(wgmma && sums));
            for m in [1, 8, 16, 32].into_iter().filter(|&m| m <= 16 || (plain32 && !float4)) {
                assert_eq!(KernelPlan::choose_for(&s, m, n_pad, 8192), KernelPlan::choose(m, n_pad, 8192, arch, bits));
            }
            if float4 && n_pad <= 8192 {
                assert_eq!(KernelPlan::choose_for(&s, 32, n_pad, 8192).m_tiles, 2, "{s}");
                assert_eq!(KernelPlan::choose_for(&s, 32, n_pad, 4096).to_string(), "m4x8_n2x32_k4w_bk512_s4", "{s}");
            }
            let b = KernelPlan::buckets_for_spec(&s, n_pad, 8192);
            assert_eq!(b.iter().any(|(_, p)| p.wgmma), wgmma, "{s} n_pad {n_pad}: {b:?}");
            assert!(KernelPlan::buckets_for(arch, bits, n_pad, 8192).iter().all(|(_, p)| !p.wgmma));
            for (_, p) in b.iter().filter(|(_, p)| p.wgmma) {
                kernel::generate(&s, p).unwrap_or_else(|e| panic!("{s}: {e}"));
            }
        }
        // The macro's bundles (shape unknown: 4096^2) take the 128-column wgmma tile above M = 48
        // (the warp-specialized one above M = 128).
        let spec_b = KernelPlan::buckets_spec(&s);
        assert_eq!(spec_b.iter().any(|(_, p)| p.wgmma), wgmma, "{s}: {spec_b:?}");
    }
    assert!(!KernelPlan::choose(16, 6144, 4096, Arch::Sm90, 4).halves);
    assert!(!KernelPlan::choose(8, 4096, 4096, Arch::Sm90, 4).halves);
    // Kernel sets for an unknown shape (the macro's) keep the full-width plan at M = 16.
    let m16 = KernelPlan::buckets(Arch::Sm90, 4).into_iter().find(|(top, _)| *top >= 16).unwrap().1;
    assert_eq!(m16.to_string(), "m2x8_n2x64_k4w_bk512_s3");
    // ... and at M 17..32 the four-tile half-width plan (v56: 4096^2 12-17% faster).
    let b = KernelPlan::buckets_spec(&spec("u4", ActFormat::F16, Arch::Sm90));
    assert!(b.iter().all(|(top, p)| !p.halves || (17..=32).contains(top)), "{b:?}");
    let m32 = b.iter().find(|(top, _)| *top >= 32).unwrap().1;
    assert_eq!(m32.to_string(), "m4x8_n2x32_k4w_bk512_s4");
}

/// Deep K at M 65..128 (v19 sweep): 128 rows a CTA with half-width warps for even widths, split
/// to one wave; other shapes, odd widths and sm_75 keep the 64-row plans unsplit.
#[test]
fn m65_to_128_deep_k_plan() {
    let tall = KernelPlan::choose(128, 8192, 28672, Arch::Sm90, 4);
    assert_eq!(tall.to_string(), "m8x16_n4x32_k2w_bk128_s3");
    assert_eq!(tall.split_k_for(128, 8192, 28672, 132), 2);
    // On sm_90a the specs wgmma plans generate for take the 128 x 128 warp-specialized tile
    // there instead (v64; the 128 x 256 wgmma tile before, v33), split to one wave.
    let wg = KernelPlan::choose_for(&spec("u4", ActFormat::F16, Arch::Sm90a), 100, 8192, 28672);
    assert_eq!(wg.to_string(), "m8x16_n2x64_k1w_bk128_s4_ws");
    assert_eq!(wg.split_k_for(100, 8192, 28672, 132), 2);
    assert_eq!(KernelPlan::choose_for(&spec("u4", ActFormat::F16, Arch::Sm90), 100, 8192, 28672), tall);
    assert_eq!(KernelPlan::choose(65, 8192, 28672, Arch::Sm90, 4), tall);
    for (m, n, k, arch, bits) in [(128, 28672, 8192, Arch::Sm90, 4), (128, 8192, 28672, Arch::Sm90, 3), (64, 8192, 28672, Arch::Sm90, 4), (128, 8192, 28672, Arch::Sm75, 4)] {
        let p = KernelPlan::choose(m, n, k, arch, bits);
        assert!(!p.halves && p.bm() <= 64, "{m} x {n} x {k} {arch} u{bits}: {p}");
        if m > 64 {
            assert_eq!(p.split_k_for(m, n, k, 132), 1, "{p}");
        }
    }
}

/// On a GPU with less DRAM bandwidth than the H200 (v27, H100 SXM) the largest layers take the
/// warp-specialized 16-row wgmma tile at M <= 16, in one bucket; smaller layers, other targets,
/// specs wgmma does not generate for and the H200 (or no device) keep the mma.sync plans.
#[test]
fn lean_dram_device_plans() {
    let h100 = DeviceProfile::from_memory_clock(2_619_000, 5120, 132).unwrap();
    let h200 = DeviceProfile { dram_gbs: 4800.0, sms: 132 };
    let s = spec("u4", ActFormat::F16, Arch::Sm90a);
    for (n, k, split) in [(8192, 28672, 4), (28672, 8192, 1)] {
        for m in [1, 2, 8, 9, 16] {
            let p = KernelPlan::choose_for_device(&s, m, n, k, Some(&h100));
            assert_eq!(p.to_string(), "m1x16_n4x64_k1w_bk128_s4_ws", "M {m} {n} x {k}");
            assert_eq!(p.split_k_for(m, n, k, 132), split, "M {m} {n} x {k}");
            for other in [None, Some(&h200)] {
                assert_eq!(KernelPlan::choose_for_device(&s, m, n, k, other), KernelPlan::choose_for(&s, m, n, k));
            }
            assert!(!KernelPlan::choose_for(&s, m, n, k).wgmma);
        }
        // M 17.. as before.
        assert_eq!(KernelPlan::choose_for_device(&s, 32, n, k, Some(&h100)), KernelPlan::choose_for(&s, 32, n, k));
        let b = KernelPlan::buckets_for_device(&s, n, k, Some(&h100));
        assert_eq!(b[0].0, 16, "{b:?}");
        assert_eq!(b[0].1.to_string(), "m1x16_n4x64_k1w_bk128_s4_ws");
        assert_eq!(KernelPlan::buckets_for_device(&s, n, k, Some(&h200)), KernelPlan::buckets_for_spec(&s, n, k));
        // 4-bit float codes (MXFP4, and e2m1 with e4m3 g16 scales and f16) keep the mma.sync
        // defaults at M <= 8 (session 37's v35: 13-20% faster than the 16-row tile there); at M
        // 9..16 MXFP4 (bf16) takes the 16-row mma.sync tile of 128 columns (v37), f16 the
        // warp-specialized tile (v35).
        let nvfp4 = {
            let mut p = SpecParts::new(WeightFormat::parse("e2m1").unwrap(), ActFormat::F16);
            (p.arch, p.scale, p.group) = (Arch::Sm90a, ScaleFormat::E4m3, ScaleGroup::Group(16));
            Spec::new(p).unwrap()
        };
        let mxfp4 = {
            let mut p = SpecParts::new(WeightFormat::parse("e2m1").unwrap(), ActFormat::Bf16);
            (p.arch, p.scale, p.group) = (Arch::Sm90a, ScaleFormat::Ue8m0, ScaleGroup::Group(32));
            Spec::new(p).unwrap()
        };
        for f in [&mxfp4, &nvfp4] {
            for m in [1, 2, 8] {
                let p = KernelPlan::choose_for_device(f, m, n, k, Some(&h100));
                assert_eq!(p, KernelPlan::choose_for(f, m, n, k), "{f} M {m} {n} x {k}");
                assert!(!p.wgmma, "{f} M {m} {n} x {k}: {p}");
            }
            let m16 = if f.act() == ActFormat::Bf16 { "m1x16_n2x64_k4w_bk256_s4" } else { "m1x16_n4x64_k1w_bk128_s4_ws" };
            for m in [9, 16] {
                assert_eq!(KernelPlan::choose_for_device(f, m, n, k, Some(&h100)).to_string(), m16, "{f} M {m} {n} x {k}");
            }
            let b = KernelPlan::buckets_for_device(f, n, k, Some(&h100));
            assert_eq!((b[0].0, b[1].0, b[1].1.to_string()), (8, 16, m16.to_string()), "{f} {b:?}");
        }
    }
    // Weights of more than 4 bits other than 8-bit floats take 64-column tiles with four k-warps
    // at M 9..16 on every layer (v37), on both Hopper targets; 1 to 3 bits and 8-bit floats keep
    // their plans.
    for arch in [Arch::Sm90, Arch::Sm90a] {
        for (n, k) in [(8192, 8192), (28672, 8192), (8192, 28672), (4096, 14336), (2048, 4096)] {
            for w in ["u5", "u6", "i7", "u8", "e3m2", "e2m3"] {
                let s = spec(w, ActFormat::Bf16, arch);
                for m in [9, 12, 16] {
                    assert_eq!(KernelPlan::choose_for_device(&s, m, n, k, Some(&h100)).to_string(), "m2x8_n1x64_k4w_bk256_s4", "{s} M {m} {n} x {k}");
                    assert_eq!(KernelPlan::choose_for_device(&s, m, n, k, Some(&h200)), KernelPlan::choose_for(&s, m, n, k), "{s} M {m}");
                }
            }
            for w in ["u1", "u2", "u3", "e4m3", "e5m2"] {
                let s = spec(w, ActFormat::F16, arch);
                for m in [9, 16] {
                    assert_eq!(KernelPlan::choose_for_device(&s, m, n, k, Some(&h100)), KernelPlan::choose_for(&s, m, n, k), "{s} M {m}");
                }
            }
        }
        // sm_80 code on the same GPU keeps its plans.
        let s = spec("u6", ActFormat::F16, Arch::Sm80);
        assert_eq!(KernelPlan::choose_for_device(&s, 16, 8192, 8192, Some(&h100)), KernelPlan::choose_for(&s, 16, 8192, 8192));
    }
    // Smaller layers: M <= 8 takes a ring of four 512-deep stages (two CTAs an SM from four
    // stages a CTA: 6144 x 4096 splits in two), or of five where the unsplit grid fills 7/8 of
    // the SMs or more, one CTA each (128 of 132: N = 8192; unsplit). M = 16 the defaults.
    let unknown_sms = DeviceProfile { sms: 0, ..h100 };
    for (n, k, stages, split) in [(8192, 8192, 5, 1), (8192, 4096, 5, 1), (4096, 14336, 4, 4), (14336, 4096, 4, 1), (4096, 4096, 4, 2), (6144, 4096, 4, 2), (7168, 4096, 4, 2)] {
        for m in [1, 8] {
            let p = KernelPlan::choose_for_device(&s, m, n, k, Some(&h100));
            assert_eq!(p.to_string(), format!("m1x8_n1x64_k8w_bk512_s{stages}"), "M {m} {n} x {k}");
            assert_eq!(p.split_k_for(m, n, k, 132), split, "M {m} {n} x {k}");
            assert_eq!(KernelPlan::choose_for(&s, m, n, k).to_string(), "m1x8_n1x64_k8w_bk512_s3", "M {m} {n} x {k}");
            assert_eq!(KernelPlan::choose_for_device(&s, m, n, k, Some(&h200)), KernelPlan::choose_for(&s, m, n, k));
            // Without the SM count, the four-stage ring (and its split).
            assert_eq!(KernelPlan::choose_for_device(&s, m, n, k, Some(&unknown_sms)).to_string(), "m1x8_n1x64_k8w_bk512_s4", "M {m} {n} x {k}");
        }
    }
    // On a GPU of 114 SMs, 8192 columns (128 tiles) are more than one wave: four stages.
    assert_eq!(KernelPlan::choose_for_device(&s, 1, 8192, 8192, Some(&DeviceProfile { sms: 114, ..h100 })).stages, 4);
    // K < 4096 (four stages or fewer) keeps the defaults (v29: 8192 x 2048).
    for (n, k) in [(8192, 2048), (4096, 2048), (8192, 3584)] {
        assert_eq!(KernelPlan::choose_for_device(&s, 1, n, k, Some(&h100)), KernelPlan::choose_for(&s, 1, n, k), "{n} x {k}");
    }
    // M 9..16: half-width warps up to 128 n64 blocks where K <= 8192 and N x K <= 6144 x 8192
    // (6144 x 4096 and 8192 x 2048..6144 take them), and on the other layers below 256 blocks and
    // K 16384 with three stages, two CTAs an SM (8192^2, 14336 x 4096, 4096 x 14336, 12288 x
    // 4096), where that grid fills 2/3 of two CTAs an SM; 4096^2, wide layers and 10240 / 11008 x
    // 4096 (160 / 172 CTAs on 264 places) keep their plans.
    for m in [9, 12, 16] {
        let (half, full, pair) = ("m2x8_n2x32_k4w_bk512_s4", "m2x8_n2x64_k4w_bk512_s3", "m2x8_n2x32_k4w_bk512_s3");
        for (n, k, lean, default, split) in [
            (6144, 4096, half, full, 1),
            (8192, 2048, half, full, 1),
            (8192, 4096, half, full, 1),
            (8192, 6144, half, full, 1),
            (8192, 8192, pair, full, 2),
            (14336, 4096, pair, full, 1),
            (12288, 4096, pair, full, 1),
            (4096, 14336, pair, half, 4),
        ] {
            let p = KernelPlan::choose_for_device(&s, m, n, k, Some(&h100));
            assert_eq!((p.to_string(), p.split_k_for(m, n, k, 132)), (lean.to_string(), split), "M {m} {n} x {k}");
            assert_eq!(KernelPlan::choose_for(&s, m, n, k).to_string(), default, "M {m} {n} x {k}");
            assert_eq!(KernelPlan::choose_for_device(&s, m, n, k, Some(&h200)), KernelPlan::choose_for(&s, m, n, k));
        }
        for (n, k) in [(4096, 4096), (16384, 4096), (10240, 4096), (11008, 4096)] {
            assert_eq!(KernelPlan::choose_for_device(&s, m, n, k, Some(&h100)), KernelPlan::choose_for(&s, m, n, k), "M {m} {n} x {k}");
        }
        // (Weights of more than 4 bits take v37's plan at these M: below.)
        for other in [&spec("u4", ActFormat::F16, Arch::Sm80), &spec("u3", ActFormat::F16, Arch::Sm90a)] {
            assert_eq!(KernelPlan::choose_for_device(other, m, 6144, 4096, Some(&h100)), KernelPlan::choose_for(other, m, 6144, 4096), "{other}");
        }
    }
    // The defaults' splits are unchanged (6144 x 4096: one CTA an SM below six stages a CTA).
    assert_eq!(KernelPlan::choose_for(&s, 1, 6144, 4096).split_k_for(1, 6144, 4096, 132), 1);
    // Wide layers (their plans already have four 256-deep stages), other widths, dynamic zero
    // points (four stages leave room for one CTA an SM only), float codes (MXFP4: +1% on 8192^2)
    // and other targets keep their plans.
    let zp = {
        let mut p = SpecParts::new(WeightFormat::parse("u4").unwrap(), ActFormat::F16);
        (p.arch, p.zero_point) = (Arch::Sm90a, ZeroPoint::Dynamic);
        Spec::new(p).unwrap()
    };
    let mxfp4 = {
        let mut p = SpecParts::new(WeightFormat::parse("e2m1").unwrap(), ActFormat::Bf16);
        (p.arch, p.scale, p.group) = (Arch::Sm90a, ScaleFormat::Ue8m0, ScaleGroup::Group(32));
        Spec::new(p).unwrap()
    };
    for (s, n, k) in [(&s, 16384, 4096), (&spec("u8", ActFormat::F16, Arch::Sm90a), 8192, 8192), (&zp, 8192, 8192), (&mxfp4, 8192, 8192), (&spec("u4", ActFormat::F16, Arch::Sm80), 8192, 8192)] {
        assert_eq!(KernelPlan::choose_for_device(s, 1, n, k, Some(&h100)), KernelPlan::choose_for(s, 1, n, k), "{s} {n} x {k}");
    }
    assert_eq!(KernelPlan::choose_for_device(&spec("u4", ActFormat::F16, Arch::Sm90), 1, 8192, 8192, Some(&h100)).to_string(), "m1x8_n1x64_k8w_bk512_s5");
    // The bucket of M <= 8 of a smaller layer's runtime plans.
    let b = KernelPlan::buckets_for_device(&s, 8192, 8192, Some(&h100));
    assert_eq!((b[0].0, b[0].1.to_string()), (8, "m1x8_n1x64_k8w_bk512_s5".to_string()), "{b:?}");
    let b = KernelPlan::buckets_for_device(&s, 4096, 14336, Some(&h100));
    assert_eq!((b[0].0, b[0].1.to_string()), (8, "m1x8_n1x64_k8w_bk512_s4".to_string()), "{b:?}");
    // The four- and five-stage rings on the emulator against the f64 reference: seven 512-deep
    // stages (both rings wrap), a ragged N, unsplit and split in two and three.
    // And the half-width three-stage plan of M 9..16 (two CTAs an SM).
    let pair = KernelPlan::choose_for_device(&s, 13, 8192, 8192, Some(&h100));
    for split in [1, 2, 3] {
        check_gemm(&mut Emulator::new(), &s, &pair, (13, 200, 3584), split, 70 + split as u64).unwrap_or_else(|e| panic!("{pair} split {split}: {e}"));
    }
    for (n, k) in [(4096, 14336), (8192, 8192)] {
        let ring = KernelPlan::choose_for_device(&s, 5, n, k, Some(&h100));
        for split in [1, 2, 3] {
            check_gemm(&mut Emulator::new(), &s, &ring, (5, 200, 3584), split, 60 + split as u64).unwrap_or_else(|e| panic!("{ring} split {split}: {e}"));
        }
    }
    for other in [spec("u4", ActFormat::F16, Arch::Sm90), spec("u4", ActFormat::F16, Arch::Sm80)] {
        assert_eq!(KernelPlan::choose_for_device(&other, 8, 28672, 8192, Some(&h100)), KernelPlan::choose_for(&other, 8, 28672, 8192));
    }
    for w in ["u8", "e2m1"] {
        let s = spec(w, ActFormat::F16, Arch::Sm90a);
        let p = KernelPlan::choose_for_device(&s, 8, 28672, 8192, Some(&h100));
        p.validate(Arch::Sm90a, s.weight().bits()).unwrap();
        kernel::generate(&s, &p).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
}

/// A lean-DRAM GPU's warp-specialized tiles at M 17..48 (v30, H100): the 32-row tile on 4-bit
/// layers from 4096^2 elements, with two math warpgroups up to 8192^2 and four above; the 48-row
/// tile with two for integer codes from 4096 x 14336 to 8192^2 elements. The H200, smaller and
/// larger layers, and the kernel sets of unknown shapes keep the defaults.
#[test]
fn lean_dram_mid_plans() {
    let h100 = DeviceProfile::H100_SXM;
    let h200 = DeviceProfile { dram_gbs: 4800.0, sms: 132 };
    let mxfp4 = {
        let mut p = SpecParts::new(WeightFormat::parse("e2m1").unwrap(), ActFormat::Bf16);
        (p.arch, p.scale, p.group) = (Arch::Sm90a, ScaleFormat::Ue8m0, ScaleGroup::Group(32));
        Spec::new(p).unwrap()
    };
    let (u4, u4_bf16) = (spec("u4", ActFormat::F16, Arch::Sm90a), spec("u4", ActFormat::Bf16, Arch::Sm90a));
    let (two, four) = ("m2x16_n2x64_k1w_bk128_s4_ws", "m2x16_n4x64_k1w_bk128_s4_ws");
    for s in [&u4, &u4_bf16, &mxfp4] {
        for m in [17, 24, 32] {
            for (n, k, plan, split) in
                [(8192, 8192, two, 2), (4096, 14336, two, 4), (14336, 4096, two, 1), (12288, 4096, two, 1), (6144, 4096, two, 2), (4096, 4096, two, 4), (8192, 2048, two, 2), (5120, 13824, four, 4)]
            {
                let p = KernelPlan::choose_for_device(s, m, n, k, Some(&h100));
                assert_eq!((p.to_string(), p.split_k_for(m, n, k, 132)), (plan.to_string(), split), "{s} M {m} {n} x {k}");
                assert_eq!(KernelPlan::choose_for_device(s, m, n, k, Some(&h200)), KernelPlan::choose_for(s, m, n, k), "{s} M {m} {n} x {k}");
            }
            for (n, k) in [(2048, 4096), (8192, 14336), (28672, 8192), (8192, 28672)] {
                assert_eq!(KernelPlan::choose_for_device(s, m, n, k, Some(&h100)), KernelPlan::choose_for(s, m, n, k), "{s} M {m} {n} x {k}");
            }
        }
    }
    for m in [33, 40, 48] {
        for s in [&u4, &u4_bf16] {
            for (n, k, split) in [(8192, 8192, 2), (14336, 4096, 1), (4096, 14336, 4)] {
                let p = KernelPlan::choose_for_device(s, m, n, k, Some(&h100));
                assert_eq!((p.to_string(), p.split_k_for(m, n, k, 132)), ("m3x16_n2x64_k1w_bk128_s4_ws".to_string(), split), "{s} M {m} {n} x {k}");
                assert_ne!(p, KernelPlan::choose_for(s, m, n, k));
            }
        }
        for (s, n, k) in [(&u4, 8192, 4096), (&u4, 6144, 4096), (&u4, 28672, 8192), (&u4, 8192, 14336), (&mxfp4, 8192, 8192)] {
            assert_eq!(KernelPlan::choose_for_device(s, m, n, k, Some(&h100)), KernelPlan::choose_for(s, m, n, k), "{s} M {m} {n} x {k}");
        }
    }
    // M = 64 and other targets and widths as before; unknown shapes (the macro's lean kernel sets) too.
    for (s, m) in [(&u4, 64), (&spec("u4", ActFormat::F16, Arch::Sm90), 32), (&spec("u8", ActFormat::F16, Arch::Sm90a), 32), (&spec("u3", ActFormat::F16, Arch::Sm90a), 32)] {
        assert_eq!(KernelPlan::choose_for_device(s, m, 8192, 8192, Some(&h100)), KernelPlan::choose_for(s, m, 8192, 8192), "{s} M {m}");
    }
    let lean_sets = KernelPlan::lean_buckets_spec(&u4);
    assert!(!lean_sets.is_empty() && lean_sets.iter().all(|(top, _)| *top <= 16), "{lean_sets:?}");
    // The two-warpgroup tiles on the emulator against the f64 reference: a ragged N, K with a
    // partial last stage, unsplit and split.
    for (m, n, k) in [(24, 8192, 8192), (40, 8192, 8192)] {
        let p = KernelPlan::choose_for_device(&u4, m, n, k, Some(&h100));
        for split in [1, 2] {
            check_gemm(&mut Emulator::new(), &u4, &p, (m - 3, 200, 1984), split, 80 + split as u64).unwrap_or_else(|e| panic!("{p} split {split}: {e}"));
        }
    }
}

/// Default bundles carry the plans that differ on a lean-DRAM GPU (`GemmBundle::lean`, by the
/// replaced bucket's `max_m`), and the selection takes them on such a GPU only.
#[test]
fn default_bundles_carry_the_lean_plans() {
    use humming_core::kernel::DeviceProfile;
    let h100 = DeviceProfile::H100_SXM;
    let h200 = DeviceProfile { dram_gbs: 4800.0, sms: 132 };
    for arch in [Arch::Sm90, Arch::Sm90a] {
        let s = spec("u4", ActFormat::F16, arch);
        let b = GemmBundle::build_default(&s).unwrap();
        assert_eq!(KernelPlan::lean_buckets_spec(&s), vec![(8, "m1x8_n1x64_k8w_bk512_s4".parse().unwrap())], "{arch}");
        assert_eq!(b.lean.len(), 1, "{arch}");
        let lean = &b.lean[0];
        assert_eq!((lean.max_m, lean.plan.to_string()), (8, "m1x8_n1x64_k8w_bk512_s4".to_string()));
        for m in [1, 5, 8] {
            assert!(std::ptr::eq(b.variant_for_device(m, Some(&h100)), lean), "{arch} M {m}");
            assert!(std::ptr::eq(b.variant_for_device(m, Some(&h200)), b.variant_for(m)));
            assert!(std::ptr::eq(b.variant_for_device(m, None), b.variant_for(m)));
        }
        for m in [9, 16, 17, 100, 1000] {
            assert!(std::ptr::eq(b.variant_for_device(m, Some(&h100)), b.variant_for(m)), "{arch} M {m}");
        }
        // The replacement is the generator's output (regenerated and compared) and counts in the
        // bundle's PTX version and kernel list.
        b.kernels(lean).unwrap();
        assert_eq!(b.all_variants().count(), b.variants.len() + 1);
        assert!(b.ptx_version() >= lean.main.ptx_version);
        // Explicit buckets carry none.
        assert!(GemmBundle::build(&s, &KernelPlan::buckets_spec(&s)).unwrap().lean.is_empty());
    }
    for s in [spec("u4", ActFormat::F16, Arch::Sm80), spec("u8", ActFormat::F16, Arch::Sm80), spec("u3", ActFormat::F16, Arch::Sm90a)] {
        assert!(GemmBundle::build_default(&s).unwrap().lean.is_empty(), "{s}");
    }
    // Wider codes and 4-bit floats carry their M 9..16 plan (v37).
    for (s, plan) in [(spec("u8", ActFormat::F16, Arch::Sm90a), "m2x8_n1x64_k4w_bk256_s4"), (spec("e2m1", ActFormat::Bf16, Arch::Sm90), "m1x16_n2x64_k4w_bk256_s4")] {
        let b = GemmBundle::build_default(&s).unwrap();
        assert_eq!(b.lean.iter().map(|l| (l.max_m, l.plan.to_string())).collect::<Vec<_>>(), [(16, plan.to_string())], "{s}");
        for m in [9, 16] {
            assert!(std::ptr::eq(b.variant_for_device(m, Some(&h100)), &b.lean[0]), "{s} M {m}");
            assert!(std::ptr::eq(b.variant_for_device(m, Some(&h200)), b.variant_for(m)), "{s} M {m}");
        }
    }
}

#[test]
fn bundle_variants_ptx_and_selection() {
    let s = spec("u4", ActFormat::F16, Arch::Sm80);
    let b = GemmBundle::build_default(&s).unwrap();
    assert_eq!(b.generator, GENERATOR_VERSION);
    assert_eq!(b.spec().unwrap(), s);
    for v in b.variants.iter() {
        assert!(v.main.ptx.contains(&format!(".entry {}", v.main.name)), "{}", v.main.name);
        let version_line = format!(".version {}\n", v.main.ptx_version);
        assert!(v.main.ptx.contains(&version_line), "{} lacks {version_line:?}", v.main.name);
        assert_eq!(v.main.threads, v.plan.threads());
    }
    // Every M goes to the first bucket that holds it; beyond the last, the last.
    for m in [1usize, 2, 15, 16, 17, 33, 48, 49, 64, 1000, 1 << 20] {
        let v = b.variant_for(m);
        let want = b.variants.iter().find(|v| m <= v.max_m as usize).unwrap_or(b.variants.last().unwrap());
        assert_eq!(v, want, "m = {m}");
    }
    assert_eq!(b.variant_for(1).plan, KernelPlan::choose(1, 4096, 4096, Arch::Sm80, 4));
    // Regenerating the IR gives exactly the embedded PTX.
    for v in b.variants.iter() {
        b.kernels(v).unwrap();
    }
}

#[test]
fn stale_bundles_are_errors() {
    let s = spec("u3", ActFormat::Bf16, Arch::Sm90);
    let b = GemmBundle::build_default(&s).unwrap();
    let mut old = b.clone();
    old.generator = "humming-core 0.0.1 a16/0".into();
    assert!(matches!(old.kernels(&old.variants[0]), Err(KernelError::Stale { .. })));
    let mut edited = b.clone();
    let mut vs = edited.variants.to_vec();
    vs[0].main.ptx = format!("{}\n// edited", vs[0].main.ptx).into();
    edited.variants = vs.into();
    let err = edited.kernels(&edited.variants[0]).unwrap_err();
    assert!(err.to_string().contains("rebuild"), "{err}");
}

#[test]
fn select_takes_the_newest_target_the_device_runs() {
    let bundles: Vec<GemmBundle> =
        [Arch::Sm75, Arch::Sm80, Arch::Sm90].iter().map(|&a| GemmBundle::build_default(&spec("u4", ActFormat::F16, a)).unwrap()).collect();
    let pick = |cc| select(&bundles, cc).map(|b| b.spec.arch);
    assert_eq!(pick((7, 5)), Some(Arch::Sm75));
    assert_eq!(pick((8, 6)), Some(Arch::Sm80));
    assert_eq!(pick((8, 9)), Some(Arch::Sm80));
    assert_eq!(pick((9, 0)), Some(Arch::Sm90));
    assert_eq!(pick((7, 0)), None);
}

#[test]
fn every_variant_of_a_bundle_runs_on_the_emulator() {
    for (w, act, arch) in [("u4", ActFormat::F16, Arch::Sm80), ("e2m1", ActFormat::Bf16, Arch::Sm90), ("u4", ActFormat::F16, Arch::Sm75)] {
        let b = GemmBundle::build_default(&spec(w, act, arch)).unwrap();
        let mut lo = 1usize;
        for (i, v) in b.variants.iter().enumerate() {
            // An M inside the bucket, ragged.
            let m = if v.max_m == u32::MAX { lo + 13 } else { (v.max_m as usize).min(lo + 5) };
            let r = check_bundle(&mut Emulator::new(), &b, (m, 136, 320), 1 + (i % 2) as u32, i as u64).unwrap();
            assert!(r.kernel == v.main.name, "m = {m} ran {} instead of {}", r.kernel, v.main.name);
            lo = v.max_m as usize + 1;
        }
    }
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("humming-cache-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn disk_cache_miss_hit_and_corruption() {
    let dir = temp_dir("a");
    let s = spec("u5", ActFormat::F16, Arch::Sm86);
    let buckets = KernelPlan::buckets(s.arch(), 5);
    let (b1, hit1) = load_or_build(&dir, &s, &buckets, &[]).unwrap();
    assert!(!hit1);
    let (b2, hit2) = load_or_build(&dir, &s, &buckets, &[]).unwrap();
    assert!(hit2);
    assert_eq!(b1, b2);
    b2.kernels(&b2.variants[0]).unwrap();
    // A truncated file is not trusted: it is rebuilt and rewritten.
    let path = file_for(&dir, &s, &buckets, &[]);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, &text[..text.len() / 2]).unwrap();
    let (b3, hit3) = load_or_build(&dir, &s, &buckets, &[]).unwrap();
    assert!(!hit3);
    assert_eq!(b3, b1);
    assert!(load_or_build(&dir, &s, &buckets, &[]).unwrap().1);
    // Another spec or other plans have other files.
    let other = spec("u6", ActFormat::F16, Arch::Sm86);
    assert_ne!(file_for(&dir, &other, &buckets, &[]), path);
    assert_ne!(file_for(&dir, &s, &buckets[..1], &[]), path);
    assert!(path.file_name().unwrap().to_str().unwrap().contains(&s.id()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The default kernel set of a spec with lean-DRAM replacements (u4 on sm_90a) round-trips
/// through the disk cache with them, under its own key; a replacement without its bucket is an
/// error.
#[test]
fn disk_cache_keeps_the_lean_plans() {
    let dir = temp_dir("lean");
    let s = spec("u4", ActFormat::F16, Arch::Sm90a);
    let (buckets, lean) = (KernelPlan::buckets_spec(&s), KernelPlan::lean_buckets_spec(&s));
    assert!(!lean.is_empty());
    let (b1, hit1) = load_or_build(&dir, &s, &buckets, &lean).unwrap();
    assert!(!hit1);
    assert_eq!(b1, GemmBundle::build_default(&s).unwrap());
    let (b2, hit2) = load_or_build(&dir, &s, &buckets, &lean).unwrap();
    assert!(hit2);
    assert_eq!(b2, b1);
    assert_eq!((b2.buckets(), b2.lean_buckets()), (buckets.clone(), lean.clone()));
    b2.kernels(&b2.lean[0]).unwrap();
    let h100 = DeviceProfile::H100_SXM;
    assert_eq!(b2.variant_for_device(1, Some(&h100)).plan, lean[0].1);
    // Without the replacements: another file, and a bundle without them.
    let path = file_for(&dir, &s, &buckets, &lean);
    assert_ne!(file_for(&dir, &s, &buckets, &[]), path);
    let (plain, hit) = load_or_build(&dir, &s, &buckets, &[]).unwrap();
    assert!(!hit && plain.lean.is_empty());
    assert_eq!(plain.variants, b1.variants);
    // A replacement for an M no bucket ends at.
    let stray = [(lean[0].0 + 1, lean[0].1)];
    assert!(matches!(GemmBundle::build_with_lean(&s, &buckets, &stray), Err(KernelError::Unsupported { .. })));
    assert!(load_or_build(&dir, &s, &buckets, &stray).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A one-CTA-an-SM grid of more than one wave splits in two over deep K where that fills its
/// waves a quarter better (v61: the 256-row tile on 24576 x 8192, 192 tiles), not where the
/// waves fill alike (28672 x 8192, 14336 x 8192) nor at K = 4096.
#[test]
fn more_than_one_wave_splits_over_deep_k() {
    let s = spec("u4", ActFormat::F16, Arch::Sm90a);
    for (m, n, k, want) in [(256, 24576, 8192, 2), (160, 20480, 8192, 2), (192, 22016, 14336, 2), (256, 28672, 8192, 1), (256, 14336, 8192, 1), (256, 24576, 4096, 1), (160, 18432, 4096, 1)] {
        let p = KernelPlan::choose_for(&s, m, n, k);
        assert_eq!(p.to_string(), "m16x16_n2x64_k1w_bk64_s5_ws", "M {m} {n} x {k}");
        assert_eq!(p.split_k_for(m, n, k, 132), want, "M {m} {n} x {k}: {p}");
    }
}

/// Changed generated code must come with a new [`GENERATOR_VERSION`] (the key of bundles and of
/// cached PTX: without it a runtime cache keeps serving the old kernels). A fingerprint of the
/// default bundles' PTX on four specs (sm_75 / sm_80 mma.sync, sm_90a wgmma and warp-specialized
/// tiles, MXFP4) is recorded with the version's last part; when the PTX changes, bump the version
/// and record both here.
#[test]
fn changed_kernels_bump_the_generator_version() {
    const RECORDED: (&str, u64) = ("a16/20", 0x8b62_2c4d_e3ff_ee10);
    let mxfp4 = {
        let mut p = SpecParts::new(WeightFormat::parse("e2m1").unwrap(), ActFormat::Bf16);
        p.scale = ScaleFormat::Ue8m0;
        p.group = ScaleGroup::Group(32);
        p.arch = Arch::Sm90a;
        Spec::new(p).unwrap()
    };
    let specs = [spec("u4", ActFormat::F16, Arch::Sm75), spec("u4", ActFormat::F16, Arch::Sm80), spec("u4", ActFormat::F16, Arch::Sm90a), mxfp4];
    // Every variant's kernel, in order.
    let bundles: Vec<GemmBundle> = specs.iter().map(|s| GemmBundle::build_default(s).unwrap()).collect();
    let h = fnv1a(bundles.iter().flat_map(|b| b.variants.iter()).flat_map(|v| v.main.ptx.bytes()));
    let version = GENERATOR_VERSION.rsplit(' ').next().unwrap();
    assert_eq!(
        (version, h),
        RECORDED,
        "the generated PTX or the generator version changed: if the kernels changed, bump GENERATOR_VERSION's last number; then record the new pair here"
    );
}
