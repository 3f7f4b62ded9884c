//! Registers, operands and the small enums that qualify instructions.

use std::fmt;

/// Storage class of a virtual register (what the PTX printer declares it as, and how many bits
/// the emulator keeps per lane).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    /// `.pred`, one bit.
    Pred,
    /// `.b16` (also holds `f16`, `bf16`).
    B16,
    /// `.b32` (also holds `u32`, `s32`, `f16x2`, `bf16x2`, packed 8-bit pairs/quads).
    B32,
    /// `.b64` (addresses, `u64`, `s64`).
    B64,
    /// `.f32`.
    F32,
    /// `.f64`.
    F64,
}

impl RegClass {
    /// Width in bits (1 for predicates).
    pub fn bits(self) -> u32 {
        match self {
            RegClass::Pred => 1,
            RegClass::B16 => 16,
            RegClass::B32 | RegClass::F32 => 32,
            RegClass::B64 | RegClass::F64 => 64,
        }
    }
}

/// A typed virtual register. Registers are created by the builder; `id` is unique per kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    pub id: u32,
    pub class: RegClass,
}

/// The operation type of an instruction (the `.u32` in `add.u32`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Pred,
    B8,
    B16,
    B32,
    B64,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    F32,
    F64,
    /// Two packed FP8 e4m3 values in 16 bits (cvt only, sm_89+).
    E4m3x2,
    /// Two packed FP8 e5m2 values in 16 bits (cvt only, sm_89+).
    E5m2x2,
}

impl Ty {
    /// Width of one value of this type in bits (a packed pair counts as one value).
    pub fn bits(self) -> u32 {
        use Ty::*;
        match self {
            Pred => 1,
            B8 | U8 | S8 => 8,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 => 16,
            B32 | U32 | S32 | F16x2 | Bf16x2 | F32 => 32,
            B64 | U64 | S64 | F64 => 64,
        }
    }

    /// The PTX spelling without the dot (`u32`, `f16x2`, `e4m3x2`).
    pub fn ptx(self) -> &'static str {
        use Ty::*;
        match self {
            Pred => "pred",
            B8 => "b8",
            B16 => "b16",
            B32 => "b32",
            B64 => "b64",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            S8 => "s8",
            S16 => "s16",
            S32 => "s32",
            S64 => "s64",
            F16 => "f16",
            F16x2 => "f16x2",
            Bf16 => "bf16",
            Bf16x2 => "bf16x2",
            F32 => "f32",
            F64 => "f64",
            E4m3x2 => "e4m3x2",
            E5m2x2 => "e5m2x2",
        }
    }

    /// Signed integer type.
    pub fn is_signed_int(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }

    /// Floating-point type (scalar or packed).
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F16x2 | Ty::Bf16 | Ty::Bf16x2 | Ty::F32 | Ty::F64 | Ty::E4m3x2 | Ty::E5m2x2)
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ptx())
    }
}

/// Identifies a shared-memory array declared in the kernel ([`super::kernel::SharedDecl`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SharedId(pub u32);

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    Reg(Reg),
    /// Integer immediate (printed in decimal; bit pattern for `.b` types).
    Imm(i64),
    /// `f32` immediate given by its bits (printed `0fXXXXXXXX`).
    F32(u32),
    /// `f64` immediate given by its bits (printed `0dXXXXXXXXXXXXXXXX`).
    F64(u64),
    /// The 32-bit shared-window address of a declared shared array (`mov.u32 %r, smem;`).
    SharedAddr(SharedId),
}

impl From<Reg> for Operand {
    fn from(r: Reg) -> Self {
        Operand::Reg(r)
    }
}

macro_rules! imm_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Operand {
            fn from(v: $t) -> Self {
                Operand::Imm(v as i64)
            }
        }
    )*};
}
imm_from!(i32, u32, i64, u8, u16);

impl Operand {
    /// An `f32` immediate.
    pub fn f32(x: f32) -> Self {
        Operand::F32(x.to_bits())
    }
}

/// A memory address: `[base + offset]`. Global addresses are 64-bit registers; shared
/// addresses are 32-bit registers (or a shared array symbol) in the shared window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Addr {
    pub base: Operand,
    pub offset: i64,
}

impl Addr {
    /// `[reg]`.
    pub fn reg(r: Reg) -> Self {
        Addr { base: Operand::Reg(r), offset: 0 }
    }

    /// `[reg + offset]`.
    pub fn reg_off(r: Reg, offset: i64) -> Self {
        Addr { base: Operand::Reg(r), offset }
    }
}

/// State space of a load/store/atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Shared,
}

impl Space {
    /// The PTX spelling (`global`, `shared`).
    pub fn ptx(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
        }
    }
}

/// Cache operator of a load/store (`.ca .cg .cs .lu .cv` for loads, `.wb .cg .cs .wt` for stores);
/// `Default` prints nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum CacheOp {
    #[default]
    Default,
    /// Cache at all levels.
    Ca,
    /// Cache in L2 only (bypass L1).
    Cg,
    /// Streaming, likely accessed once.
    Cs,
    /// Last use.
    Lu,
    /// Don't cache, fetch again.
    Cv,
    /// Write-back (stores).
    Wb,
    /// Write-through (stores).
    Wt,
}

/// Special registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    TidX,
    TidY,
    TidZ,
    NtidX,
    NtidY,
    NtidZ,
    CtaidX,
    CtaidY,
    CtaidZ,
    NctaidX,
    NctaidY,
    NctaidZ,
    LaneId,
    WarpId,
    /// `%cluster_ctarank` (sm_90): the CTA's rank in its cluster (0 without a cluster).
    ClusterCtaRank,
    /// `%cluster_nctarank` (sm_90): CTAs in the cluster (1 without a cluster).
    ClusterNctaRank,
}

/// Rounding modifier for float arithmetic and conversions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rnd {
    /// Round to nearest even (`.rn`).
    Rn,
    /// Round toward zero (`.rz`).
    Rz,
    /// Round toward -inf (`.rm`).
    Rm,
    /// Round toward +inf (`.rp`).
    Rp,
    /// Integer rounding to nearest even (`.rni`, float->int conversions).
    Rni,
    /// Integer rounding toward zero (`.rzi`).
    Rzi,
    /// Integer rounding toward -inf (`.rmi`).
    Rmi,
    /// Integer rounding toward +inf (`.rpi`).
    Rpi,
}

impl Rnd {
    /// The PTX spelling without the dot (`rn`, `rzi`, ...).
    pub fn ptx(self) -> &'static str {
        match self {
            Rnd::Rn => "rn",
            Rnd::Rz => "rz",
            Rnd::Rm => "rm",
            Rnd::Rp => "rp",
            Rnd::Rni => "rni",
            Rnd::Rzi => "rzi",
            Rnd::Rmi => "rmi",
            Rnd::Rpi => "rpi",
        }
    }
}

/// Comparison of `setp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Unsigned lower (`lo`), for `.u`/`.b` types.
    Lo,
    /// Unsigned lower-or-same (`ls`).
    Ls,
    /// Unsigned higher (`hi`).
    Hi,
    /// Unsigned higher-or-same (`hs`).
    Hs,
}
