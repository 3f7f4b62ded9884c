//! The spec shorthand shared by the kernel tests: a weight format by name, the activation, an
//! optional scale format (else the activation's 16-bit type), the group, the zero point, the target.

use humming_core::*;

pub fn spec(w: &str, act: ActFormat, scale: Option<ScaleFormat>, group: ScaleGroup, zp: ZeroPoint, arch: Arch) -> Result<Spec, SpecErrors> {
    let mut p = SpecParts::new(WeightFormat::parse(w).unwrap(), act);
    if let Some(s) = scale {
        p.scale = s;
    }
    p.group = group;
    p.zero_point = zp;
    p.arch = arch;
    Spec::new(p)
}
