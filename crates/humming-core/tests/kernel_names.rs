//! Loaded modules and cached PTX are keyed by the GEMM's name (`kernel_name`), so two kernels of
//! one name must be one code. This generates the default plans of specs that differ in what may
//! or may not change the code, the scale group above all, and requires equal PTX wherever the
//! names are equal, and equal names somewhere (specs that differ only in a group that the code
//! does not depend on share one kernel). v38's per-group sums made the group part of the swapped
//! plans' code while the name left it out: the GPU suite, which loads each name once, then ran a
//! g128 kernel on g16 weights (four failures that the emulator, loading nothing, did not show).

use humming_core::ir::ptx;
use humming_core::kernel::{DeviceProfile, KernelPlan, generate, kernel_name};
use humming_core::*;
use std::collections::{BTreeMap, BTreeSet};

mod spec_util;
use spec_util::spec;

#[test]
fn kernels_of_one_name_are_one_code() {
    use ScaleGroup::{Group, PerChannel};
    let (f16, bf16, imp, dynamic) = (ActFormat::F16, ActFormat::Bf16, ZeroPoint::Implicit, ZeroPoint::Dynamic);
    let groups = [PerChannel, Group(16), Group(32), Group(64), Group(128), Group(1024)];
    let mut specs = Vec::new();
    for arch in [Arch::Sm80, Arch::Sm90a] {
        for g in groups {
            let candidates = [
                spec("u4", f16, None, g, imp, arch),
                spec("u4", f16, Some(ScaleFormat::E4m3), g, imp, arch),
                spec("u4", bf16, None, g, dynamic, arch),
                spec("e2m1", bf16, Some(ScaleFormat::Ue8m0), g, imp, arch),
                spec("u8", f16, None, g, imp, arch),
            ];
            specs.extend(candidates.into_iter().flat_map(Result::ok));
        }
    }
    let lean = DeviceProfile::H100_SXM;
    let mut by_name: BTreeMap<String, (String, String)> = BTreeMap::new();
    let (mut pairs, mut shared) = (0, BTreeSet::new());
    for spec in &specs {
        let plans: BTreeMap<String, KernelPlan> = [1, 8, 16, 40, 64, 256]
            .into_iter()
            .flat_map(|m| [(m, 8192, 8192), (m, 28672, 8192)])
            .flat_map(|(m, n, k)| [KernelPlan::choose_for(spec, m, n, k), KernelPlan::choose_for_device(spec, m, n, k, Some(&lean))])
            .map(|p| (p.to_string(), p))
            .collect();
        for plan in plans.into_values() {
            let kernels = generate(spec, &plan).unwrap_or_else(|e| panic!("{spec} {plan}: {e}"));
            let name = kernel_name(spec, &plan);
            assert_eq!(kernels.main.name, name);
            let text = ptx::print(&kernels.main, spec.arch()).unwrap();
            pairs += 1;
            match by_name.get(&name) {
                Some((first, code)) => {
                    assert!(*code == text, "{name}: {first} and {spec} generate different code under one name");
                    shared.insert(name);
                }
                None => {
                    by_name.insert(name, (spec.to_string(), text));
                }
            }
        }
    }
    // Groups a swapped plan's code depends on are named; the others share the group-free name.
    let named = by_name.keys().filter(|n| n.contains("_g16_") || n.contains("_g32_") || n.contains("_g64_")).count();
    println!("{pairs} (spec, plan) pairs, {} names, {} shared, {named} with a group", by_name.len(), shared.len());
    assert!(!shared.is_empty() && named > 0, "no name is shared, or none carries a group: the test would not see a collision");
}
