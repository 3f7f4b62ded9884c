//! Target GPU architectures.

use std::fmt;

/// A compute-capability target that generated PTX can claim.
///
/// Ordered by capability: `Sm75 < Sm80 < ... < Sm90a`. `Sm90a` is `Sm90` plus the
/// architecture-specific features (wgmma, setmaxnreg); PTX for it loads only on sm_90 devices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Arch {
    /// Turing (T4, RTX 20xx).
    Sm75,
    /// Ampere data centre (A100).
    Sm80,
    /// Ampere consumer (RTX 30xx, A10, A40).
    Sm86,
    /// Ada (L4, L40, RTX 40xx).
    Sm89,
    /// Hopper, portable subset.
    Sm90,
    /// Hopper with arch-specific features (wgmma, setmaxnreg).
    Sm90a,
}

impl Arch {
    /// Every target, lowest first.
    pub const ALL: [Arch; 6] = [Arch::Sm75, Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90, Arch::Sm90a];

    /// The `.target` / `-arch` name, e.g. `sm_90a`.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm75 => "sm_75",
            Arch::Sm80 => "sm_80",
            Arch::Sm86 => "sm_86",
            Arch::Sm89 => "sm_89",
            Arch::Sm90 => "sm_90",
            Arch::Sm90a => "sm_90a",
        }
    }

    /// Compute capability as (major, minor).
    pub fn compute_capability(self) -> (u32, u32) {
        match self {
            Arch::Sm75 => (7, 5),
            Arch::Sm80 => (8, 0),
            Arch::Sm86 => (8, 6),
            Arch::Sm89 => (8, 9),
            Arch::Sm90 | Arch::Sm90a => (9, 0),
        }
    }

    /// Parses `sm_80`, `sm80`, `80`, `sm_90a`, ... (case-insensitive).
    pub fn parse(s: &str) -> Option<Arch> {
        let t = s.trim().to_ascii_lowercase();
        let t = t.strip_prefix("sm_").or_else(|| t.strip_prefix("sm")).unwrap_or(&t);
        Arch::ALL.into_iter().find(|a| &a.name()[3..] == t)
    }

    /// Whether a device of compute capability `(major, minor)` can run PTX built for this target.
    /// Arch-specific targets (`sm_90a`) run only on exactly that capability.
    pub fn runs_on(self, cc: (u32, u32)) -> bool {
        match self {
            Arch::Sm90a => cc == (9, 0),
            _ => cc >= self.compute_capability(),
        }
    }

    /// The highest portable target a device of compute capability `cc` runs (`sm_90` on Hopper,
    /// and on any newer device until it has a target of its own), or `None` below Turing.
    pub fn portable_for(cc: (u32, u32)) -> Option<Arch> {
        Arch::ALL.into_iter().filter(|a| *a != Arch::Sm90a && a.runs_on(cc)).max()
    }

    /// The target whose kernels run fastest on a device of compute capability `cc`: the
    /// arch-specific `sm_90a` on Hopper (its wgmma and warp-specialized plans are the defaults
    /// above M = 32, and above M = 16 on the largest layers), else [`Arch::portable_for`]. PTX
    /// for `sm_90a` loads only on compute capability 9.0, so for a binary that must also run on
    /// later GPUs build the portable target too (the macro's `arch = [sm_90, sm_90a]` picks the
    /// newest one the device runs).
    pub fn fastest_for(cc: (u32, u32)) -> Option<Arch> {
        if Arch::Sm90a.runs_on(cc) { Some(Arch::Sm90a) } else { Arch::portable_for(cc) }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_round_trips_every_name() {
        for a in Arch::ALL {
            assert_eq!(Arch::parse(a.name()), Some(a));
        }
        assert_eq!(Arch::parse("SM80"), Some(Arch::Sm80));
        assert_eq!(Arch::parse("90a"), Some(Arch::Sm90a));
        assert_eq!(Arch::parse("sm_70"), None);
    }

    #[test]
    fn arch_specific_targets_run_only_on_their_device() {
        assert!(Arch::Sm80.runs_on((9, 0)));
        assert!(!Arch::Sm89.runs_on((8, 6)));
        assert!(Arch::Sm90a.runs_on((9, 0)));
        assert!(!Arch::Sm90a.runs_on((10, 0)));
    }

    #[test]
    fn portable_and_fastest_targets_of_each_device() {
        // (compute capability, portable target, fastest target)
        let cases = [
            ((7, 0), None, None),
            ((7, 5), Some(Arch::Sm75), Some(Arch::Sm75)),
            ((8, 0), Some(Arch::Sm80), Some(Arch::Sm80)),
            ((8, 7), Some(Arch::Sm86), Some(Arch::Sm86)),
            ((8, 9), Some(Arch::Sm89), Some(Arch::Sm89)),
            ((9, 0), Some(Arch::Sm90), Some(Arch::Sm90a)),
            ((10, 0), Some(Arch::Sm90), Some(Arch::Sm90)),
            ((12, 0), Some(Arch::Sm90), Some(Arch::Sm90)),
        ];
        for (cc, portable, fastest) in cases {
            assert_eq!(Arch::portable_for(cc), portable, "portable target of {cc:?}");
            assert_eq!(Arch::fastest_for(cc), fastest, "fastest target of {cc:?}");
            for a in [portable, fastest].into_iter().flatten() {
                assert!(a.runs_on(cc), "{a} must run on {cc:?}");
            }
        }
    }
}
