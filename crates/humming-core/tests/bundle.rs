//! Kernel bundles (what the macro embeds and the runtime generates), their M buckets, target
//! selection, staleness detection, and the on-disk PTX cache.

use humming_core::kernel::bundle::{GENERATOR_VERSION, select};
use humming_core::kernel::cache::{file_for, load_or_build};
use humming_core::kernel::check::check_bundle;
use humming_core::kernel::coverage::A16_ARCHS;
use humming_core::kernel::{GemmBundle, KernelError, KernelPlan};
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

/// A spec's buckets ([`KernelPlan::buckets_for_spec`]) are the spec-agnostic ones but for M
/// above 192 and N of at least 8192 on sm_90a, where the specs wgmma plans generate for take the wgmma plan; its split
/// fills one wave of CTAs.
#[test]
fn spec_buckets_take_wgmma_above_m192_on_sm90a_only() {
    let wg = KernelPlan { m_tiles: 8, n_warps: 4, k_warps: 1, bk: 128, stages: 4, swap: false, wgmma: true, halves: false, ws: false };
    let mut dyn_zp = SpecParts::new(WeightFormat::parse("u4").unwrap(), ActFormat::F16);
    dyn_zp.arch = Arch::Sm90a;
    dyn_zp.zero_point = ZeroPoint::Dynamic;
    let dyn_zp = Spec::new(dyn_zp).unwrap();
    let cases = [
        (spec("u4", ActFormat::F16, Arch::Sm90a), true),
        (spec("e2m1", ActFormat::Bf16, Arch::Sm90a), true),
        (spec("u8", ActFormat::F16, Arch::Sm90a), true),
        (spec("u8", ActFormat::Bf16, Arch::Sm90a), false),
        (spec("u3", ActFormat::F16, Arch::Sm90a), false),
        (dyn_zp, false),
        (spec("u4", ActFormat::F16, Arch::Sm90), false),
    ];
    for (s, wgmma) in cases {
        assert_eq!(kernel::wgmma_supported(&s), wgmma, "{s}");
        for n_pad in [4096, 8192, 28672] {
            let plain = KernelPlan::buckets_for(s.arch(), s.weight().bits(), n_pad, 8192);
            let b = KernelPlan::buckets_for_spec(&s, n_pad, 8192);
            // N below 8192 keeps the mma.sync plans.
            let wgmma = wgmma && n_pad >= 8192;
            let (last, below) = b.split_last().unwrap();
            assert_eq!(last.0, u32::MAX);
            let same_tile = last.1.wgmma && last.1.m_tiles == 8 && last.1.n_warps == 4 && last.1.bk == 128;
            assert_eq!(same_tile, wgmma, "{s} n_pad {n_pad}: {b:?}");
            assert_eq!(last.1 == wg, wgmma && s.weight().bits() == 4, "{s}: four stages for 4-bit weights");
            if wgmma {
                assert_eq!(below.last().map(|x| x.0), Some(192), "{s}: {b:?}");
            } else {
                assert_eq!(b, plain, "{s}");
            }
            // Up to 192 the spec's plans are the spec-agnostic ones.
            for m in [1, 8, 16, 64, 128, 192] {
                assert_eq!(KernelPlan::choose_for(&s, m, n_pad, 8192), KernelPlan::choose(m, n_pad, 8192, s.arch(), s.weight().bits()));
            }
            assert!(plain.iter().all(|(_, p)| !p.wgmma));
            kernel::generate(&s, &last.1).unwrap_or_else(|e| panic!("{s}: {e}"));
        }
        if wgmma {
            // The macro's bundles (N unknown: 4096) stay on mma.sync.
            assert!(KernelPlan::buckets_spec(&s).iter().all(|(_, p)| !p.wgmma));
        }
    }
    // One wave of 132 CTAs: 8192 wide at M = 256 is 32 x 2 tiles, so split 2.
    assert_eq!(wg.split_k_for(256, 8192, 8192, 132), 2);
    assert_eq!(wg.split_k_for(256, 28672, 8192, 132), 1);
    assert_eq!(wg.split_k_for(128, 8192, 8192, 132), 4);
}

/// M 9..16 takes swapped plans with two n8 tiles of M on targets with cp.async (4 k warps and
/// 512-deep stages, or 2 k warps and 256-deep stages for wide N or deep K), the m16 plan on
/// sm_75 (the two-tile plans spill with plain loads); their split fills 12 warps an SM. Narrow
/// layers take half-width warps.
#[test]
fn m9_to_16_plans_follow_n_and_k() {
    let at = |n_pad, k_pad, arch| KernelPlan::choose(16, n_pad, k_pad, arch, 4).to_string();
    assert_eq!(at(8192, 8192, Arch::Sm90), "m2x8_n2x64_k4w_bk512_s3");
    assert_eq!(at(8192, 28672, Arch::Sm90), "m2x8_n2x64_k2w_bk256_s4");
    assert_eq!(at(28672, 8192, Arch::Sm80), "m2x8_n2x64_k2w_bk256_s4");
    assert_eq!(KernelPlan::choose(9, 8192, 8192, Arch::Sm90, 4), KernelPlan::choose(16, 8192, 8192, Arch::Sm90, 4));
    assert_eq!(KernelPlan::choose(8, 8192, 8192, Arch::Sm90, 4).m_tiles, 1);
    let old = KernelPlan::choose(16, 8192, 8192, Arch::Sm75, 4);
    assert!(!old.swap && old.m_tiles == 1, "sm_75: {old}");
    // M <= 8 splits (v23 sweep): one CTA an SM, two where each keeps 6+ stages.
    for (n, k, split) in [(1024, 4096, 4), (2048, 4096, 4), (4096, 4096, 2), (6144, 4096, 1), (4096, 14336, 4), (14336, 4096, 1), (8192, 8192, 2), (8192, 28672, 2), (28672, 8192, 1)] {
        let p = KernelPlan::choose(1, n, k, Arch::Sm90, 4);
        assert_eq!(p.split_k_for(1, n, k, 132), split, "{n} x {k}: {p}");
    }
    // Splits (v6 sweep): 64 tiles of the 8-warp plan split 2, of the 4-warp plan 4; 224 tiles 1.
    let k4: KernelPlan = "m2x8_n2x64_k4w_bk512_s3".parse().unwrap();
    let k2: KernelPlan = "m2x8_n2x64_k2w_bk256_s4".parse().unwrap();
    assert_eq!(k4.split_k_for(16, 8192, 8192, 132), 2);
    assert_eq!(k2.split_k_for(16, 8192, 28672, 132), 4);
    assert_eq!(k2.split_k_for(16, 28672, 8192, 132), 1);
    // Narrow layers (N <= 4096, v17/v18 sweeps): half-width warps on a 64-column tile for even
    // widths, split to one wave (64 tiles: 2, 32 tiles: 4); odd widths keep full-width warps.
    let h = KernelPlan::choose(16, 4096, 4096, Arch::Sm90, 4);
    assert_eq!(h.to_string(), "m2x8_n2x32_k4w_bk512_s4");
    assert_eq!(h.split_k_for(16, 4096, 4096, 132), 2);
    assert_eq!(h.split_k_for(12, 2048, 4096, 132), 4);
    assert_eq!(KernelPlan::choose(12, 1024, 4096, Arch::Sm80, 2), h);
    assert!(!KernelPlan::choose(16, 4096, 4096, Arch::Sm90, 3).halves);
    assert!(!KernelPlan::choose(16, 6144, 4096, Arch::Sm90, 4).halves);
    assert!(!KernelPlan::choose(8, 4096, 4096, Arch::Sm90, 4).halves);
    // Kernel sets for an unknown shape (the macro's) keep the full-width plan at M = 16.
    let m16 = KernelPlan::buckets(Arch::Sm90, 4).into_iter().find(|(top, _)| *top >= 16).unwrap().1;
    assert_eq!(m16.to_string(), "m2x8_n2x64_k4w_bk512_s3");
    assert!(KernelPlan::buckets_spec(&spec("u4", ActFormat::F16, Arch::Sm90)).iter().all(|(_, p)| !p.halves));
}

/// Deep K at M 65..128 (v19 sweep): 128 rows a CTA with half-width warps for even widths, split
/// to one wave; other shapes, odd widths and sm_75 keep the 64-row plans unsplit.
#[test]
fn m65_to_128_deep_k_plan() {
    let tall = KernelPlan::choose(128, 8192, 28672, Arch::Sm90, 4);
    assert_eq!(tall.to_string(), "m8x16_n4x32_k2w_bk128_s3");
    assert_eq!(tall.split_k_for(128, 8192, 28672, 132), 2);
    // On sm_90a the specs wgmma plans generate for take the 128 x 256 wgmma tile there instead
    // (v25-v27), split to one wave; not on 28672 x 8192 (K not deep) nor at M 129..192.
    let wg = KernelPlan::choose_for(&spec("u4", ActFormat::F16, Arch::Sm90a), 100, 8192, 28672);
    assert_eq!(wg.to_string(), "m8x16_n4x64_k1w_bk128_s4_wg");
    assert_eq!(wg.split_k_for(100, 8192, 28672, 132), 4);
    assert!(!KernelPlan::choose_for(&spec("u4", ActFormat::F16, Arch::Sm90a), 128, 28672, 8192).wgmma);
    assert!(!KernelPlan::choose_for(&spec("u4", ActFormat::F16, Arch::Sm90a), 160, 8192, 28672).wgmma);
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
    let (b1, hit1) = load_or_build(&dir, &s, &buckets).unwrap();
    assert!(!hit1);
    let (b2, hit2) = load_or_build(&dir, &s, &buckets).unwrap();
    assert!(hit2);
    assert_eq!(b1, b2);
    b2.kernels(&b2.variants[0]).unwrap();
    // A truncated file is not trusted: it is rebuilt and rewritten.
    let path = file_for(&dir, &s, &buckets);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, &text[..text.len() / 2]).unwrap();
    let (b3, hit3) = load_or_build(&dir, &s, &buckets).unwrap();
    assert!(!hit3);
    assert_eq!(b3, b1);
    assert!(load_or_build(&dir, &s, &buckets).unwrap().1);
    // Another spec or other plans have other files.
    let other = spec("u6", ActFormat::F16, Arch::Sm86);
    assert_ne!(file_for(&dir, &other, &buckets), path);
    assert_ne!(file_for(&dir, &s, &buckets[..1]), path);
    assert!(path.file_name().unwrap().to_str().unwrap().contains(&s.id()));
    let _ = std::fs::remove_dir_all(&dir);
}
