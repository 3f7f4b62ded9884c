//! The 8-bit scale formats' conversions in the kernels (ue8m0 to bf16 pairs and to f32, e4m3 /
//! e5m2 to f16 pairs with the sm_89 conversion or by re-aligning their fields before it), on
//! planted scale codes that reach the edges: ue8m0's subnormal 2^-127 (code 0), the smallest
//! e4m3 / e5m2 subnormals, zero, and codes up to where the sums still fit the output. Whole rows
//! take only the smallest scale, so a conversion that flushed or doubled it fails the element
//! check. Each spec runs an M = 1 plan (scales applied to f32 sums), an M = 40 plan (scales
//! applied to the dequantized pairs) and on sm_90a a warp-specialized wgmma tile, on the
//! emulator against the f64 reference; every other spec at a K with partial last groups, its M = 1
//! plan split in two.

use humming_core::ir::emu::Emulator;
use humming_core::kernel::check::{random_operands, run_operands, verify};
use humming_core::kernel::{DeviceProfile, KernelPlan, generate};
use humming_core::*;

fn spec(w: &str, act: ActFormat, scale: ScaleFormat, group: u32, arch: Arch) -> Spec {
    let mut p = SpecParts::new(WeightFormat::parse(w).unwrap(), act);
    p.scale = scale;
    p.group = ScaleGroup::Group(group);
    p.arch = arch;
    Spec::new(p).unwrap_or_else(|e| panic!("{w}: {e:?}"))
}

/// The planted code of row `n`, group `g`: rows `n % 5 == 0` take only the format's smallest
/// positive scale; the others cycle through the smallest codes, zero where the format has it, and
/// a range of larger ones.
fn planted(format: ScaleFormat, n: usize, g: usize) -> u32 {
    let (smallest, top) = match format {
        ScaleFormat::Ue8m0 => (0, 139),  // 2^-127 .. 2^12
        ScaleFormat::E4m3 => (0x01, 0x50), // 2^-9 .. 8
        ScaleFormat::E5m2 => (0x01, 0x48), // 2^-16 .. 8
        _ => unreachable!("8-bit scale formats only"),
    };
    if n % 5 == 0 {
        return smallest;
    }
    match (3 * n + g) % 6 {
        0 => smallest,
        1 => smallest + 1,
        2 if format != ScaleFormat::Ue8m0 => 0,
        _ => top - ((n + 7 * g) % 24) as u32,
    }
}

#[test]
fn eight_bit_scales_at_their_edges_on_emulator() {
    let (f16, bf16) = (ActFormat::F16, ActFormat::Bf16);
    let specs = [
        spec("e2m1", bf16, ScaleFormat::Ue8m0, 32, Arch::Sm90a),
        spec("e2m1", bf16, ScaleFormat::Ue8m0, 32, Arch::Sm80),
        spec("e3m2", bf16, ScaleFormat::Ue8m0, 32, Arch::Sm90),
        spec("u8", bf16, ScaleFormat::Ue8m0, 32, Arch::Sm90a),
        spec("e2m1", f16, ScaleFormat::E4m3, 16, Arch::Sm90a),
        spec("e2m1", f16, ScaleFormat::E4m3, 16, Arch::Sm80),
        spec("u4", f16, ScaleFormat::E5m2, 32, Arch::Sm89),
        spec("e2m1", bf16, ScaleFormat::E4m3, 16, Arch::Sm90a),
    ];
    let n = 136;
    let mut checked = 0;
    for (i, spec) in specs.iter().enumerate() {
        // Every other spec: a K with a partial last stage and group, and M = 1 split in two.
        let k: usize = if i % 2 == 1 { 328 } else { 512 };
        // sm_90a also runs the warp-specialized wgmma tile a large layer takes at M = 64.
        let wgmma = (spec.arch() == Arch::Sm90a).then(|| (64, KernelPlan::choose_for_device(spec, 64, 8192, 8192, Some(&DeviceProfile::H100_SXM))));
        for (m, plan) in [1, 40].map(|m| (m, KernelPlan::choose_for(spec, m, 192, k.div_ceil(64) * 64))).into_iter().chain(wgmma) {
            let split = if m == 1 { 1 + i as u32 % 2 } else { 1 };
            eprintln!("{spec} M {m} K {k} split {split}: {plan}");
            let kernels = generate(spec, &plan).unwrap_or_else(|e| panic!("{spec} {plan}: {e}"));
            let (mut w, act) = random_operands(spec, (m, n, k), 7100 + i as u64).unwrap();
            let groups = w.groups_along_k();
            for (idx, s) in w.scales.iter_mut().enumerate() {
                *s = planted(spec.scale(), idx / groups, idx % groups);
            }
            let got = run_operands(&mut Emulator::new(), &kernels, &w, &act, split).unwrap_or_else(|e| panic!("{spec} {plan}: {e}"));
            verify(spec, &w, &act, &got, &kernels.main.name, split).unwrap_or_else(|e| panic!("{spec} {plan}: {e}"));
            // The rows of only the smallest scale are far from zero in the output's terms.
            let tiny = (0..m).flat_map(|r| (0..n).step_by(5).map(move |c| r * n + c)).filter(|&x| got[x] & 0x7FFF != 0).count();
            assert!(tiny > m * n / 5 * 9 / 10, "{spec} {plan}: {tiny} nonzero outputs on the smallest-scale rows");
            checked += 1;
        }
    }
    eprintln!("{checked} (spec, plan) pairs on planted scale codes checked on the emulator");
}
