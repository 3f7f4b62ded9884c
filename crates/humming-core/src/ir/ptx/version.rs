//! PTX ISA versions: the lowest version each target and each instruction needs.
//!
//! Every number here was checked against ptxas 12.9 (each instruction assembled at every
//! version from 6.0 up; the first accepted is the one recorded) and agrees with the
//! "PTX ISA Notes / Target ISA Notes" of the instruction's section in the PTX ISA manual.

use std::fmt;

use crate::arch::Arch;
use crate::ir::inst::{AtomOp, BinOp, Inst, MmaShape, MmaType, UnOp};
use crate::ir::types::{SpecialReg, Ty};

/// A PTX ISA version (`.version major.minor`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PtxVersion {
    pub major: u32,
    pub minor: u32,
}

impl PtxVersion {
    /// `major.minor`.
    pub const fn new(major: u32, minor: u32) -> Self {
        PtxVersion { major, minor }
    }
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

const V63: PtxVersion = PtxVersion::new(6, 3);
const V65: PtxVersion = PtxVersion::new(6, 5);
const V70: PtxVersion = PtxVersion::new(7, 0);
const V71: PtxVersion = PtxVersion::new(7, 1);
const V74: PtxVersion = PtxVersion::new(7, 4);
const V78: PtxVersion = PtxVersion::new(7, 8);
const V80: PtxVersion = PtxVersion::new(8, 0);
const V81: PtxVersion = PtxVersion::new(8, 1);
const V84: PtxVersion = PtxVersion::new(8, 4);
const V87: PtxVersion = PtxVersion::new(8, 7);

/// The lowest PTX version whose `.target` accepts `arch`: sm_75 6.3, sm_80 7.0, sm_86 7.1,
/// sm_89 7.8, sm_90 7.8, sm_90a 8.0.
pub fn target_version(arch: Arch) -> PtxVersion {
    match arch {
        Arch::Sm75 => V63,
        Arch::Sm80 => V70,
        Arch::Sm86 => V71,
        Arch::Sm89 | Arch::Sm90 => V78,
        Arch::Sm90a => V80,
    }
}

/// What one instruction needs: the lowest target that has it and the lowest PTX version that
/// has it on `target`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Need {
    /// A short name of the feature, e.g. `cp.async` or `mma.m16n8k16.bf16`.
    pub feature: String,
    pub arch: Arch,
    pub ptx: PtxVersion,
}

fn need(feature: impl Into<String>, arch: Arch, ptx: PtxVersion) -> Option<Need> {
    Some(Need {
        feature: feature.into(),
        arch,
        ptx,
    })
}

fn is_bf16(ty: Ty) -> bool {
    matches!(ty, Ty::Bf16 | Ty::Bf16x2)
}

fn is_f16(ty: Ty) -> bool {
    matches!(ty, Ty::F16 | Ty::F16x2)
}

fn is_fp8(ty: Ty) -> bool {
    matches!(ty, Ty::E4m3x2 | Ty::E5m2x2)
}

/// The requirement of `inst` beyond what every sm_75 / PTX 6.3 module has, or `None`.
///
/// The PTX version can depend on the target: FP8 conversions exist from PTX 7.8 on sm_90 but
/// only from PTX 8.1 on sm_89 (ptxas: "Feature 'cvt with .e4m3x2/.e5m2x2 on sm_89' requires
/// PTX ISA .version 8.1 or later").
pub fn requirement(inst: &Inst, target: Arch) -> Option<Need> {
    match inst {
        Inst::CpAsync { policy: None, .. } => need("cp.async", Arch::Sm80, V70),
        Inst::CpAsync { policy: Some(_), .. } => need("cp.async.L2::cache_hint", Arch::Sm80, V74),
        Inst::CreatePolicy { .. } => need("createpolicy", Arch::Sm80, V74),
        Inst::CpAsyncCommit => need("cp.async.commit_group", Arch::Sm80, V70),
        Inst::GridDepWait | Inst::GridDepLaunch => need("griddepcontrol", Arch::Sm90, V78),
        Inst::SetMaxNReg { .. } => need("setmaxnreg", Arch::Sm90a, V80),
        Inst::ClusterSync => need("barrier.cluster.arrive.release", Arch::Sm90, V80),
        Inst::Mapa { .. } => need("mapa", Arch::Sm90, V78),
        Inst::LdCluster { .. } => need("ld.shared::cluster", Arch::Sm90, V78),
        Inst::ReadSpecial { sreg: SpecialReg::ClusterCtaRank | SpecialReg::ClusterNctaRank, .. } => need("%cluster_ctarank", Arch::Sm90, V78),
        Inst::Wgmma { .. } | Inst::WgmmaFence | Inst::WgmmaCommit | Inst::WgmmaWait { .. } => need("wgmma", Arch::Sm90a, V80),
        Inst::FenceProxyAsync => need("fence.proxy.async", Arch::Sm90, V80),
        Inst::MbarrierInit { .. } => need("mbarrier.init", Arch::Sm80, V70),
        Inst::FenceMbarrierInit => need("fence.mbarrier_init", Arch::Sm90, V80),
        Inst::MbarrierArriveExpectTx { .. } => need("mbarrier.arrive.expect_tx", Arch::Sm90, V80),
        Inst::MbarrierArrive { .. } => need("mbarrier.arrive", Arch::Sm80, V78),
        Inst::CpAsyncMbarrierArrive { .. } => need("cp.async.mbarrier.arrive", Arch::Sm80, V78),
        Inst::MbarrierWait { .. } => need("mbarrier.try_wait.parity", Arch::Sm90, V78),
        Inst::CpAsyncBulk { .. } => need("cp.async.bulk", Arch::Sm90, V80),
        Inst::ElectSync { .. } => need("elect.sync", Arch::Sm90, V80),
        Inst::CpAsyncWait { .. } => need("cp.async.wait_group", Arch::Sm80, V70),
        Inst::Ldmatrix { .. } => need("ldmatrix", Arch::Sm75, V65),
        Inst::Mma {
            shape, a_ty, c_ty, ..
        } => mma(*shape, *a_ty, *c_ty),
        Inst::Cvt { dst_ty, src_ty, .. } => cvt(*dst_ty, *src_ty, target),
        Inst::CvtPack {
            dst_ty, satfinite, ..
        } => cvt_pack(*dst_ty, *satfinite, target),
        Inst::Bin { op, ty, .. } => bin(*op, *ty),
        Inst::Un { op, ty, .. } => un(*op, *ty),
        Inst::Fma { ty, .. } if is_bf16(*ty) => need(format!("fma.{ty}"), Arch::Sm80, V70),
        Inst::Setp { ty, .. } if is_bf16(*ty) => need(format!("setp.{ty}"), Arch::Sm90, V78),
        Inst::Atom { op, ty, .. } | Inst::Red { op, ty, .. } => atom(*op, *ty),
        _ => None,
    }
}

fn mma(shape: MmaShape, a_ty: MmaType, c_ty: MmaType) -> Option<Need> {
    let name = format!("mma.{:?}.{}.{}", shape, a_ty.ptx(), c_ty.ptx()).to_lowercase();
    match (shape, a_ty) {
        (MmaShape::M16N8K8, MmaType::F16) | (MmaShape::M8N8K16, _) | (MmaShape::M8N8K32, _) => {
            need(name, Arch::Sm75, V65)
        }
        // FP8 mma: sm_89, PTX 8.4 with f32 accumulators, 8.7 with f16 ones.
        (_, MmaType::E4m3 | MmaType::E5m2) => need(
            name,
            Arch::Sm89,
            if c_ty == MmaType::F16 { V87 } else { V84 },
        ),
        _ => need(name, Arch::Sm80, V70),
    }
}

fn cvt(dst: Ty, src: Ty, target: Arch) -> Option<Need> {
    let name = format!("cvt.{dst}.{src}");
    if is_fp8(dst) || is_fp8(src) {
        return need(
            name,
            Arch::Sm89,
            if target == Arch::Sm89 { V81 } else { V78 },
        );
    }
    if is_bf16(dst) || is_bf16(src) {
        return match (dst, src) {
            (Ty::Bf16, Ty::F32) => need(name, Arch::Sm80, V70),
            (Ty::F32, Ty::Bf16) => need(name, Arch::Sm80, V71),
            _ => need(name, Arch::Sm90, V78),
        };
    }
    None
}

fn cvt_pack(dst: Ty, satfinite: bool, target: Arch) -> Option<Need> {
    let name = format!("cvt.{dst}.f32");
    if is_fp8(dst) {
        return need(
            name,
            Arch::Sm89,
            if target == Arch::Sm89 { V81 } else { V78 },
        );
    }
    // f16x2/bf16x2 packing: sm_80, PTX 7.0; `.satfinite` on it: PTX 8.1.
    need(name, Arch::Sm80, if satfinite { V81 } else { V70 })
}

fn bin(op: BinOp, ty: Ty) -> Option<Need> {
    let name = || format!("{}.{ty}", format!("{op:?}").to_lowercase());
    match op {
        BinOp::Min | BinOp::Max if is_f16(ty) || is_bf16(ty) => need(name(), Arch::Sm80, V70),
        BinOp::Add | BinOp::Sub | BinOp::Mul if is_bf16(ty) => need(name(), Arch::Sm90, V78),
        _ => None,
    }
}

fn un(op: UnOp, ty: Ty) -> Option<Need> {
    let name = format!("{}.{ty}", format!("{op:?}").to_lowercase());
    match op {
        UnOp::Neg | UnOp::Abs if is_bf16(ty) => need(name, Arch::Sm80, V70),
        UnOp::Abs if is_f16(ty) => need(name, Arch::Sm75, V65),
        _ => None,
    }
}

fn atom(op: AtomOp, ty: Ty) -> Option<Need> {
    if op == AtomOp::Add && is_bf16(ty) {
        return need(format!("atom.add.{ty}"), Arch::Sm90, V78);
    }
    None
}

/// Whether `have` satisfies a need for `arch` (every listed target is a superset of the
/// ones below it; `Sm90a` has everything `Sm90` has).
pub fn arch_has(have: Arch, needs: Arch) -> bool {
    have >= needs
}
