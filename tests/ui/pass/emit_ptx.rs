// `emit_ptx` writes every module of every target to `<dir>/<target>/<entry>.ptx`.
use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16, arch = [sm_80, sm_89], emit_ptx = "ptx-out/w4")]
pub fn dumped() {}

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx-out/w4");
    let mut n = 0;
    for b in dumped::BUNDLES {
        for k in b.variants.iter().map(|v| &v.main).chain([&b.reduce]) {
            let path = dir.join(b.spec.arch.name()).join(format!("{}.ptx", k.name));
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(text, k.ptx);
            n += 1;
        }
    }
    assert!(n >= 4);
}
