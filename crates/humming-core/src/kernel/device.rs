//! What the plan choice knows of the GPU a kernel will run on. The shipped defaults were tuned
//! on an H200 (4.8 TB/s); a GPU with less DRAM bandwidth moves some choices (on an H100 SXM,
//! 3.35 TB/s: v27, the warp-specialized 16-row wgmma tile streams the largest layers' weights
//! faster than the mma.sync plans at M <= 16; v28, smaller layers take a deeper ring at M <= 8
//! and another half-width rule at M 9..16; v29, a deeper ring still where one wave of tiles
//! fills the SMs, which needs their count). The runtime reads it from the driver
//! (`humming_cuda::Gpu::profile`); build-time kernel sets (the macro's) carry the plans of one
//! lean GPU ([`DeviceProfile::H100_SXM`]) where they differ from the defaults, and the launch
//! picks them on any lean GPU.

/// The DRAM peak and the multiprocessors of a GPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeviceProfile {
    /// Peak DRAM bandwidth in GB/s (10^9 bytes a second).
    pub dram_gbs: f64,
    /// Multiprocessors; 0 where not known (the rules that need them then keep their plan).
    pub sms: u32,
}

/// Below this DRAM peak (GB/s) a device is "lean" for [`DeviceProfile::lean_dram`]: between the
/// H100 SXM's 3352 (read from its driver, v27) and the H200's 4800 (its data sheet; not read
/// from its driver yet), the two GPUs the plans were measured on.
pub const LEAN_DRAM_GBS: f64 = 4000.0;

impl DeviceProfile {
    /// An H100 SXM's DRAM peak (3352 GB/s, from its driver: v27): the lean-DRAM GPU whose plans
    /// build-time kernel sets carry besides the defaults ([`crate::kernel::GemmBundle::lean`]).
    pub const H100_SXM: DeviceProfile = DeviceProfile { dram_gbs: 3352.0, sms: 132 };

    /// From the driver's memory clock (kHz) and bus width (bits): two transfers a clock (HBM's
    /// double data rate, as the driver reports it), and its multiprocessor count (0: unknown).
    /// `None` where the driver reports a zero clock or width.
    pub fn from_memory_clock(clock_khz: u32, bus_bits: u32, sms: u32) -> Option<DeviceProfile> {
        (clock_khz > 0 && bus_bits > 0).then(|| DeviceProfile { dram_gbs: 2.0 * clock_khz as f64 * 1e3 * bus_bits as f64 / 8.0 / 1e9, sms })
    }

    /// Less DRAM bandwidth than [`LEAN_DRAM_GBS`].
    pub fn lean_dram(&self) -> bool {
        self.dram_gbs < LEAN_DRAM_GBS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hopper_peaks_from_the_driver_attributes() {
        // H100 SXM5: 2619 MHz, 5120 bits (its driver's figures give the 3352 GB/s printed on the
        // device in v27); an H200-like 3201 MHz x 6144 bits.
        let h100 = DeviceProfile::from_memory_clock(2_619_000, 5120, 132).unwrap();
        let h200 = DeviceProfile::from_memory_clock(3_201_000, 6144, 132).unwrap();
        assert!((h100.dram_gbs - 3352.3).abs() < 1.0, "{h100:?}");
        assert!((h200.dram_gbs - 4917.1).abs() < 1.0, "{h200:?}");
        assert!(h100.lean_dram() && !h200.lean_dram());
        assert_eq!(DeviceProfile::from_memory_clock(0, 5120, 132), None);
        assert_eq!(DeviceProfile::from_memory_clock(2_619_000, 0, 132), None);
    }
}
