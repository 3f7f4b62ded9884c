// One bundle per target, in the order written; spec() is the first target's.
use humming::core::Arch;
use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16, arch = [sm_75, sm_80, "sm_90"])]
pub fn everywhere() {}

fn main() {
    let arches: Vec<Arch> = everywhere::BUNDLES.iter().map(|b| b.spec.arch).collect();
    assert_eq!(arches, [Arch::Sm75, Arch::Sm80, Arch::Sm90]);
    assert_eq!(everywhere::spec().arch(), Arch::Sm75);
    for b in everywhere::BUNDLES {
        let target = format!(".target {}", b.spec.arch.name());
        assert!(b.variants.iter().all(|v| v.main.ptx.contains(&target)));
        assert!(b.reduce.ptx.contains(&target));
    }
    // sm_75 has no cp.async: its plans are single-stage.
    assert!(everywhere::BUNDLES[0].variants.iter().all(|v| v.plan.stages == 1));
}
