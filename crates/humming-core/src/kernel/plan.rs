//! [`KernelPlan`]: the tile shape and pipeline of a GEMM kernel, and the heuristic that picks one.
//!
//! A plan fixes the generated code (CTA tile, warp layout, stages); the split of K across CTAs
//! is chosen per launch ([`KernelPlan::split_k_for`]) and does not change the code.

use super::device::DeviceProfile;
use crate::{Arch, ScaleGroup};
use std::fmt;

/// Tile shape and pipeline depth of one generated kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelPlan {
    /// Row tiles of M per CTA: m16 tiles (`16 * m_tiles` rows), or with `swap` n8 tiles of the
    /// MMA (`8 * m_tiles` rows, 1, 2 or 4 of them).
    pub m_tiles: u32,
    /// Warps side by side along N, each owning one 64-wide block: `BN = 64 * n_warps`.
    pub n_warps: u32,
    /// Warps sharing the k16 steps of a stage (their partial sums are reduced in shared memory).
    pub k_warps: u32,
    /// K per pipeline stage: 64, 128, 256 or 512, a multiple of `16 * k_warps` (K need not be a
    /// multiple of it: the last stage may be partial).
    pub bk: u32,
    /// Pipeline stages in shared memory: >= 2 with cp.async (sm_80+); 1 = plain loads (sm_75).
    pub stages: u32,
    /// Swapped operands (small M): the dequantized weights are the MMA's A operand (each warp's
    /// 64 columns are four m16 tiles) and the activations its B operand (rows of M are n8 tiles),
    /// so a k16 step of 64 columns takes 4 MMAs per 8 rows of M instead of 8 per 16; the group
    /// scales are then applied to the f32 sums of each warp's k range (once per group instead
    /// of once per weight pair) when the group spans that range.
    pub swap: bool,
    /// Warpgroup MMA (sm_90a): each n64 block is one warpgroup (4 warps, each dequantizing one
    /// m16 tile of its columns) issuing `wgmma.m64nNk16` with the dequantized weights as the
    /// register A operand and the activation tile (`N = BM` rows, stored in core matrices) as B;
    /// `k_warps` is 1 and a CTA has `n_warps` warpgroups.
    pub wgmma: bool,
    /// Half-width warps (mma.sync plans, even weight widths): two warps share each n64 block,
    /// each owning 32 columns (four n8 tiles, or two m16 tiles swapped; the words of those
    /// columns are `bits / 2` whole words of the lane's block), so a warp holds half the sums
    /// (and temporaries) and a CTA twice the warps. Written `n{2 n_warps}x32`.
    pub halves: bool,
    /// Warp-specialized wgmma plan (written `..._ws`): one more warpgroup, the producer, copies
    /// every stage (the activations and scales with `cp.async`, the weights with one
    /// `cp.async.bulk` a k16 row) and signals it on the slot's `full` mbarrier; the wgmma
    /// warpgroups wait on that, compute, and free the slot on its `empty` mbarrier. No CTA
    /// barrier in the main loop, and no copies among the math warps' instructions.
    pub ws: bool,
}

/// The rules [`KernelPlan::validate`] checks, in words (for error messages that list what is
/// valid; keep in step with `validate`).
pub const PLAN_RULES: &str = "m_tiles 1..=8 (1, 2 or 4 with swap, at most 4 in unswapped full-width mma.sync plans, up to 16 with wgmma), wgmma only on sm_90a with k_warps 1, n_warps 1..=4 as registers allow (bm / 2 + 64 a thread) and bm x bk / 8 <= 8 x threads, half-width warps (n..x32) only in mma.sync plans of even weight widths, warp-specialized plans (_ws: a producer warpgroup more) only as wgmma plans, n_warps and k_warps 1..=8 (at most 16 warps), bk 64, 128, 256 or 512 with \
     bk / 16 a multiple of k_warps, stages 2..=8 (sm_80 and newer) or 1 (sm_75), and fits the target's shared memory";

/// The most f32 accumulators a lane of an mma.sync plan holds: unswapped full-width plans take
/// at most 4 m16 tiles (128; the half-width and swapped ones fit at their largest). Past it the
/// registers run out (ptxas 12.9, 8192^2 kernels: 160 accumulators assemble at 254-255 registers
/// for u3 / u4 but spill 96 bytes for e4m3 on sm_90a; 192 spill 168 bytes, 224 448-776, 256 1.9-2.5 KB),
/// and such a kernel runs, slowly.
pub const MMA_SYNC_ACC_MAX: u32 = 128;

/// Registers a thread of a wgmma plan takes with `bm` rows of M (an upper bound from ptxas,
/// sm_90a, on the u4 and u8 kernels): the `bm / 2` accumulators and at most about 64 more. Used
/// to reject plans that would spill.
fn wgmma_registers(bm: u32) -> u32 {
    bm / 2 + 64
}

/// 4-bit float weight codes (those of the [`crate::pack::float4`] placement).
fn fp4_codes(spec: &crate::Spec) -> bool {
    matches!(spec.weight(), crate::WeightFormat::Float(f) if crate::pack::float4::applies(f))
}

/// 4-bit float weight codes with bf16 activations.
fn fp4_bf16(spec: &crate::Spec) -> bool {
    fp4_codes(spec) && spec.act() == crate::ActFormat::Bf16
}

/// Whether `spec`'s weights are float codes, whose dequantization costs more than integer codes'
/// (the plan rules' `float_w`). Signed integers are not: the kernels read them as unsigned codes
/// with a zero point (offset-binary), the same instructions as unsigned ones.
fn float_codes(spec: &crate::Spec) -> bool {
    matches!(spec.weight(), crate::WeightFormat::Float(_))
}

/// Why a plan cannot be generated for a target.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("plan {plan}: {reason}")]
    Invalid { plan: String, reason: String },
}

impl KernelPlan {
    /// Rows of M per CTA.
    pub fn bm(&self) -> u32 {
        if self.swap { 8 * self.m_tiles } else { 16 * self.m_tiles }
    }

    /// f32 accumulators per lane: 32 per m16 tile (8 n8 tiles), or 16 per n8 tile of M with
    /// `swap` (4 m16 tiles).
    pub fn acc_per_lane(&self) -> u32 {
        if self.wgmma {
            self.bm() / 2
        } else if self.swap {
            if self.halves { 8 * self.m_tiles } else { 16 * self.m_tiles }
        } else if self.halves {
            16 * self.m_tiles
        } else {
            32 * self.m_tiles
        }
    }

    /// Columns of N per CTA.
    pub fn bn(&self) -> u32 {
        64 * self.n_warps
    }

    /// Warps of one k slice: side by side along N (two per n64 block with half-width warps,
    /// four with wgmma).
    pub fn col_warps(&self) -> u32 {
        self.n_warps * if self.wgmma { 4 } else if self.halves { 2 } else { 1 }
    }

    /// Threads per CTA: the math warps and, warp-specialized, the producer warpgroup.
    pub fn threads(&self) -> u32 {
        self.math_threads() + if self.ws { 128 } else { 0 }
    }

    /// Threads of the warps that compute (all but a warp-specialized plan's producer).
    pub fn math_threads(&self) -> u32 {
        32 * self.col_warps() * self.k_warps
    }

    /// Registers a thread of a warp-specialized plan has, `(launch, producer, math)`, or `None`
    /// where its warps cannot have what they need. The CTA starts with `launch` each
    /// (`.maxnreg`, the most `threads()` can have, at most 255, a multiple of 8); the producer
    /// warpgroup gives back down to at most 128 and at least what its copy loop needs
    /// (`setmaxnreg.dec`; 80 registers up to 64 rows of M with weights of up to 4 bits, 72 above
    /// 64 rows where its weight copies are regular, 128 otherwise: ptxas 12.9 spilled 84 bytes
    /// at 64 registers and 64 rows, 64-192 bytes at 96 with 8-bit weights, before the epilogue
    /// moved into the math warps' branch), and the math warpgroups take the rest
    /// of the pool (`setmaxnreg.inc`, at most 256), which must cover `wgmma_registers` (8
    /// more for 8-bit weights or more than 64 rows: `m8x16_n3x64` spills 84 bytes at 128).
    pub fn ws_registers(&self, bits: u8) -> Option<(u32, u32, u32)> {
        let launch = (65536 / (self.ws_ctas_per_sm() * self.threads())).min(255) / 8 * 8;
        let pool = launch * self.threads();
        // Above 64 rows a producer whose weight copies are regular (each thread the same chunk
        // column of every k16 row: 16-byte chunks of the tile's rows divide its 128 threads)
        // copies without spills at 64 registers (ptxas 12.9, u4 / u8 / e4m3, 128 and 256
        // rows); 72 leaves a margin.
        let regular_b = 128 % (self.bn() * bits as u32 / 8) == 0;
        let least = match (self.bm() <= 64, bits <= 4, regular_b) {
            (true, true, _) => 80,
            (false, _, true) => 72,
            _ => 128,
        };
        let need = wgmma_registers(self.bm()) + if bits > 4 || self.bm() > 64 { 8 } else { 0 };
        if least > launch || least * 128 + need * self.math_threads() > pool {
            return None;
        }
        // Up to 128 for the producer where the math warps keep what they need (with two CTAs an
        // SM the least it needs, so that the math warpgroup's `setmaxnreg.inc` raises its count).
        let most = if self.ws_ctas_per_sm() == 2 { least } else { 128 };
        let producer = ((pool - need * self.math_threads()) / 128 / 8 * 8).clamp(least, most).min(launch);
        let math = ((pool - producer * 128) / self.math_threads()).min(256) / 8 * 8;
        Some((launch, producer, math))
    }

    /// CTAs an SM the registers of a warp-specialized plan leave room for: two for one math
    /// warpgroup of up to 64 rows (half the register file a CTA: 128 registers at launch, the
    /// producer down to what its copies need, the math warpgroup up to 176), else one. v31 (H100,
    /// graph harness, best split): with one CTA an SM (248 registers) these tiles ran 8192^2 at
    /// M = 32 in 22.11 us and 4096 x 14336 in 20.99; with two, 18.83 and 16.96. No default plan
    /// takes them: the tiles of two math warpgroups (one CTA an SM) stay faster (16.96 / 16.13).
    pub fn ws_ctas_per_sm(&self) -> u32 {
        if self.ws && self.n_warps == 1 && self.bm() <= 64 { 2 } else { 1 }
    }

    /// k16 steps per stage.
    pub fn k_steps(&self) -> u32 {
        self.bk / 16
    }

    /// The k16 steps of one scale group where this plan's code depends on the group: swapped
    /// mma.sync plans sum each group of a warp's k range of a stage apart before scaling, so a
    /// group shorter than that range (16 x its steps) gives other code. `None` where every group
    /// (and per-channel scales) shares one kernel, the group being a launch argument.
    pub fn group_steps(&self, group: ScaleGroup) -> Option<u32> {
        let per_warp = self.k_steps() / self.k_warps;
        match group {
            ScaleGroup::Group(g) if self.swap && !self.wgmma && g / 16 < per_warp => Some(g / 16),
            _ => None,
        }
    }

    /// Shared memory of one stage for `bits`-bit weights and 16-bit activations when each
    /// column's quantization parameters of one group take `qbytes` bytes (2 for 16-bit scales, 1
    /// for 8-bit ones, plus 1 with dynamic zero points): the A tile (`bm x bk` halves), the B
    /// tile (`bk x bn` codes) and `bk / 16` group rows of scales (and zero points) for the tile's
    /// columns (the most groups a stage can touch, at group size 16).
    /// wgmma plans round it up to 1 KB: each stage's A tile starts on a 1 KB boundary, as the
    /// 128-byte swizzle of its activations needs.
    pub fn stage_bytes_q(&self, bits: u8, qbytes: u32) -> u32 {
        let bytes = self.bm() * self.bk * 2 + self.bk * self.bn() * bits as u32 / 8 + self.k_steps() * self.bn() * qbytes;
        if self.wgmma { bytes.next_multiple_of(1024) } else { bytes }
    }

    /// [`KernelPlan::stage_bytes_q`] for the largest quantization parameters (3 bytes: 16-bit
    /// scales and zero points).
    pub fn stage_bytes(&self, bits: u8) -> u32 {
        self.stage_bytes_q(bits, MAX_QBYTES)
    }

    /// Shared memory of the k-warp reduction: one f32 accumulator set per extra k warp.
    pub fn reduce_bytes(&self) -> u32 {
        (self.k_warps - 1) * self.col_warps() * 32 * self.acc_per_lane() * 4
    }

    /// Dynamic shared memory the kernel needs with `qbytes` of quantization parameters per
    /// column and group ([`KernelPlan::stage_bytes_q`]): the pipeline stages (reused by the
    /// k-warp reduction) and 16 bytes for the split-K arrival flag.
    /// wgmma plans take 1 KB more, to align their base to 1 KB ([`KernelPlan::smem_align_pad`]).
    pub fn smem_bytes_q(&self, bits: u8, qbytes: u32) -> u32 {
        (self.stages * self.stage_bytes_q(bits, qbytes)).max(self.reduce_bytes()) + FLAG_BYTES + self.mbar_bytes() + self.smem_align_pad()
    }

    /// Bytes of dynamic shared memory a kernel skips to align its base: 1 KB (at most 1008,
    /// the window being 16-byte aligned) for wgmma plans, whose swizzled activation tiles need
    /// 1 KB alignment; 0 otherwise.
    pub fn smem_align_pad(&self) -> u32 {
        if self.wgmma { 1024 } else { 0 }
    }

    /// Shared bytes of a warp-specialized plan's mbarriers (`full` and `empty` per stage), after
    /// the split-K flag.
    pub fn mbar_bytes(&self) -> u32 {
        if self.ws { 16 * self.stages } else { 0 }
    }

    /// [`KernelPlan::smem_bytes_q`] for the largest quantization parameters (an upper bound for
    /// every spec with `bits`-bit weights).
    pub fn smem_bytes(&self, bits: u8) -> u32 {
        self.smem_bytes_q(bits, MAX_QBYTES)
    }

    /// Whether a wgmma plan (not warp-specialized) has no registers to spare: its accumulators
    /// and working set (`wgmma_registers`) take all that its threads can have (128 rows over
    /// four warpgroups).
    pub fn wgmma_registers_tight(&self) -> bool {
        self.wgmma && !self.ws && wgmma_registers(self.bm()) >= (65536 / self.threads()).min(255)
    }

    /// Checks the plan against the code generator's rules ([`PLAN_RULES`]) and the target's
    /// shared memory.
    pub fn validate(&self, arch: Arch, bits: u8) -> Result<(), PlanError> {
        let bad = |reason: String| Err(PlanError::Invalid { plan: self.to_string(), reason });
        let max_tiles = if self.wgmma { 16 } else { 8 };
        if !(1..=max_tiles).contains(&self.m_tiles) {
            return bad(format!("m_tiles {} not in 1..={max_tiles}", self.m_tiles));
        }
        if !self.wgmma && self.acc_per_lane() > MMA_SYNC_ACC_MAX {
            return bad(format!(
                "unswapped full-width mma.sync plans take at most 4 m16 tiles ({MMA_SYNC_ACC_MAX} f32 accumulators a lane): {} tiles need {}, more than the registers hold",
                self.m_tiles,
                self.acc_per_lane()
            ));
        }
        if self.wgmma && (self.swap || self.k_warps != 1 || self.n_warps > 4 || arch != Arch::Sm90a) {
            return bad("wgmma plans are sm_90a plans with k_warps 1, 1 to 4 warpgroups along N and no swap".into());
        }
        if self.ws && self.ws_registers(bits).is_none() {
            return bad(format!("warp-specialized plans with {} rows of M and {} math threads cannot give the producer and the math warpgroups the registers they need (KernelPlan::ws_registers)", self.bm(), self.math_threads()));
        }
        if self.wgmma && !self.ws && wgmma_registers(self.bm()) > (65536 / self.threads()).min(255) {
            return bad(format!("wgmma plans with {} rows of M need about {} registers a thread, more than {} threads can have", self.bm(), wgmma_registers(self.bm()), self.threads()));
        }
        if self.wgmma_registers_tight() && bits % 4 != 0 {
            return bad(format!(
                "{bits}-bit weights rebuild each warp's words with registers that a wgmma plan of {} rows over {} threads does not have (ptxas 12.9 spills 8-32 bytes: 7 bits, or 3, 5 and 6 with per-group zero points)",
                self.bm(),
                self.threads()
            ));
        }
        if self.wgmma && self.bm() * self.bk / 8 > 8 * self.threads() {
            return bad(format!("wgmma plans copy at most 8 activation chunks per thread and stage ({} x {} over {} threads is more)", self.bm(), self.bk, self.threads()));
        }
        if self.ws && (!self.wgmma || self.stages < 2) {
            return bad("warp-specialized plans (..._ws) are wgmma plans with cp.async stages".into());
        }
        if self.swap && !matches!(self.m_tiles, 1 | 2 | 4) {
            return bad(format!("swapped plans cover 8, 16 or 32 rows of M (m_tiles 1, 2 or 4), not {}", self.bm()));
        }
        if self.halves && (self.wgmma || bits % 2 != 0) {
            return bad(format!("half-width warps (32 columns) are for mma.sync plans of even weight widths, not {bits}-bit weights"));
        }
        if !(1..=8).contains(&self.n_warps) || !(1..=8).contains(&self.k_warps) {
            return bad("n_warps and k_warps must be 1..=8".into());
        }
        if self.col_warps() * self.k_warps > 16 {
            return bad("at most 16 warps per CTA".into());
        }
        if !matches!(self.bk, 64 | 128 | 256 | 512) || self.k_steps() % self.k_warps != 0 {
            return bad(format!("bk {} must be 64, 128, 256 or 512 and split evenly over {} k warps", self.bk, self.k_warps));
        }
        let cp_async = arch >= Arch::Sm80;
        if cp_async && !(2..=8).contains(&self.stages) {
            return bad(format!("{} stages: cp.async pipelines take 2..=8", self.stages));
        }
        if !cp_async && self.stages != 1 {
            return bad(format!("{arch} has no cp.async: plans for it use 1 stage"));
        }
        let limit = max_dynamic_smem(arch);
        let need = self.smem_bytes(bits);
        if need > limit {
            return bad(format!("needs {need} bytes of shared memory, {arch} allows {limit}"));
        }
        Ok(())
    }

    /// The documented heuristic. `m` is the runtime M; `n_pad` and `k_pad` the padded N and K of
    /// the packed weights (callers that know neither use [`DEFAULT_DIM`]). Chosen from the plan x
    /// split sweeps of `docs/perf-notes.md` (v3 to v6, H200, W4A16 g128, CUDA-graph harness);
    /// "wide N" means at least 256 n64 blocks (N >= 16384), where more CTAs along N exist and a
    /// wider N tile wins; "deep K" means K >= 16384.
    ///
    /// - M <= 8 (decode): swapped operands with one n8 tile of M ([`KernelPlan::swap`]), 8 k
    ///   warps on one n64 block, 512-deep stages, 3 stages (`m1x8_n1x64_k8w_bk512_s3`, 2
    ///   CTAs/SM); wide N: 2 warps along N, 4 k warps, 256-deep stages, 4 stages
    ///   (`m1x8_n2x64_k4w_bk256_s4`). 23-28% faster than the m16 plans below (v4 sweep).
    /// - M 9..=16: swapped with two n8 tiles of M, 2 warps along N: 4 k warps, 512-deep stages,
    ///   3 stages (`m2x8_n2x64_k4w_bk512_s3`); wide N or deep K: 2 k warps, 256-deep stages, 4
    ///   stages (`m2x8_n2x64_k2w_bk256_s4`, 2 CTAs/SM, split further). With folded offsets and
    ///   the activation fragments loaded in MMA order (v6: 45 SASS instructions per k16 x n64
    ///   block against 74 for the m16 plan) 9-17% faster than `m1x16_...` on the three issue
    ///   shapes (v6 sweep: on 8192 x 28672 the deep-K plan 38.2 us against 40.4, on 8192^2 it
    ///   is 15.8 against 14.5). Narrow layers (N <= 4096, even widths): half-width warps
    ///   ([`KernelPlan::halves`]) on a 64-column tile, 4 k warps, 512-deep stages, 4 stages
    ///   (`m2x8_n2x32_k4w_bk512_s4`): 2-8% faster than full-width plans of the same tile at
    ///   N = 1024..4096 (v18 sweep), 4-6% slower from N = 6144 on, 14% slower at 8192 x 28672
    ///   (v16: half the sums a warp, twice the warps, but a third more instructions per block).
    ///   Only for a known shape: the macro's kernel sets keep the full-width plans.
    /// - M <= 32: `m2x16_n1x64_k4w_bk256_s4`; wide N `m2x16_n2x64_k2w_bk256_s3`. On sm_90 and
    ///   newer, 4-bit weights, N <= 8192 and K < 16384 (float codes, in [`KernelPlan::choose_for`]:
    ///   K <= 4096): swapped with four n8 tiles of M and half-width warps,
    ///   `m4x8_n2x32_k4w_bk512_s4` (153 registers, one CTA an SM: split to one wave), since the
    ///   two-tile plans no longer fold their offsets (v56, M = 24 / 32: 4096^2 7.92 / 8.05 us
    ///   against 8.58 / 8.92, 8192^2 18.99 / 19.59 against 19.43 / 19.87, 4096 x 14336 18.03 /
    ///   18.55 against 18.12 / 18.94; it loses where the tiles exceed one wave, 14336 x 4096:
    ///   20.66 against 17.76).
    /// - M <= 128: `m{ceil(M/16)}x16_n1x64_k4w_bk256_s2` (4 m16 tiles at most; 230 registers
    ///   since the activation copies share one address); deep K at M 65..128 (even widths):
    ///   128 rows a CTA with half-width warps, `m8x16_n4x32_k2w_bk128_s3` (v19: 170 us against
    ///   192 at M = 128 on 8192 x 28672, equal on 28672 x 8192, 3% slower on 8192^2); wide N and M > 128:
    ///   `..._n2x64_k2w_bk128_s3` (larger M tiles the grid along M).
    /// - Fewer warps along N when N is small; sm_75 (no cp.async): 1 stage, the M <= 8 shapes
    ///   with one m16 tile for M 9..16 (two n8 tiles of M spill there), and 64-deep stages for
    ///   M 33..128 (deeper ones spill there).
    ///
    /// Falls back to fewer stages, then smaller tiles, until the plan fits the target's shared
    /// memory.
    pub fn choose(m: usize, n_pad: usize, k_pad: usize, arch: Arch, bits: u8) -> KernelPlan {
        Self::choose_shape(m, n_pad, k_pad, arch, bits, true, false, false)
    }

    /// [`KernelPlan::choose`]; `known`: whether `n_pad x k_pad` is the weights' shape, or
    /// [`DEFAULT_DIM`] standing in for an unknown one (then no narrow-layer plan: see
    /// [`KernelPlan::buckets`]); `float_w`: float weight codes (their dequantization costs more:
    /// the four-tile plan at M 17..32 pays for them only up to K = 4096, v57); `lean`: the lean-DRAM
    /// mma.sync rules apply ([`KernelPlan::choose_for_shape`]; the half-width rule below).
    #[allow(clippy::too_many_arguments)]
    fn choose_shape(m: usize, n_pad: usize, k_pad: usize, arch: Arch, bits: u8, known: bool, float_w: bool, lean: bool) -> KernelPlan {
        let n_blocks = (n_pad / 64).max(1) as u32;
        let wide = n_blocks >= 256;
        let deep = k_pad >= 16384;
        let cp_async = arch >= Arch::Sm80;
        // M 17..32 of 4-bit weights on sm_90+ with at most 128 n64 blocks (one wave of its 64-
        // column tiles) and K below 16384 (float codes: K <= 4096): four n8 tiles of M,
        // half-width warps (v56, v57), where the plan validates (deep K: 8192 x 28672 63.8 us
        // against 57.8 for `m2x16`, v24/v56; MXFP4 at 8192^2 and 4096 x 14336 4-6% slower, v57).
        let k_ok = if float_w { k_pad <= 4096 } else { !deep };
        if cp_async && arch >= Arch::Sm90 && (17..=32).contains(&m) && bits == 4 && n_blocks <= 128 && k_ok {
            let quad = KernelPlan { m_tiles: 4, n_warps: 1, k_warps: 4, bk: 512, stages: 4, swap: true, wgmma: false, halves: true, ws: false };
            if quad.validate(arch, bits).is_ok() {
                return quad;
            }
        }
        // sm_75 stages a whole stage in registers (plain loads): two n8 tiles of M spill there.
        let swap = m <= 8 || (m <= 16 && cp_async);
        let two_tiles = swap && m > 8;
        // Deep K at M 65..128 (v19 sweep): 128 rows a CTA with half-width warps, so each weight
        // is dequantized once for all of them.
        let tall = !swap && (65..=128).contains(&m) && deep && !wide && cp_async;
        // Half-width warps also pay at M 9..16 on narrow layers (v17/v18 sweeps), where the
        // 64-column tile gives the grid more CTAs. On a GPU with less DRAM bandwidth (4-bit
        // integer codes on Hopper; v28, H100 SXM, graph harness, two sweeps in one call) up to
        // 128 n64 blocks where K <= 8192 and the layer has at most 6144 x 8192 weights, not on
        // deeper layers: M = 12 / 16 on 6144 x 4096 8.16 / 8.33 -> 7.63 / 7.78 us with half-width
        // warps, on 4096 x 14336 13.94 / 14.35 -> 13.14 / 13.21 without (4096^2 and 14336 x 4096
        // keep their plans: the best in the sweep); v29 (A/B, M = 9 / 16): 8192 x 2048 -19%,
        // 8192 x 4096 -9 / -7%, 7168 x 4096 -6%, 8192 x 6144 -5 / -2%, but 8192^2 -2 / +1%.
        let narrow = if lean { n_blocks <= 128 && k_pad <= 8192 && n_pad * k_pad <= 6144 * 8192 } else { n_blocks <= 64 };
        // On such a GPU the other layers below 256 blocks and K 16384 take half-width warps too,
        // with three stages: two CTAs an SM (115 registers, 110 KB each). v29 (H100, M = 16, a
        // sweep with splits 1/2/4): 8192^2 14.90 -> 14.30 us (split 2), 14336 x 4096 12.88 ->
        // 12.13 (split 1), 4096 x 14336 13.34 -> 12.63 (split 4); also the fastest from the L2.
        // Only where its grid fills two CTAs an SM well (`KernelPlan::pair_fills`).
        let pair = lean && two_tiles && known && !narrow && !wide && !deep;
        let halves = (two_tiles && known && (narrow || pair) || tall) && bits % 2 == 0;
        let m_tiles = match (swap, tall && halves) {
            (true, _) => m.div_ceil(8).clamp(1, 2) as u32,
            (false, true) => 8,
            (false, false) => m.div_ceil(16).clamp(1, 4) as u32,
        };
        let (n_warps, k_warps, bk, stages) = match (m, wide) {
            (0..=16, false) if !two_tiles => (1, 8, 512, 3),
            (0..=16, true) if !two_tiles => (2, 4, 256, 4),
            (9..=16, _) if halves => (1, 4, 512, if pair { 3 } else { 4 }),
            (9..=16, _) if !wide && !deep => (2, 4, 512, 3),
            (9..=16, _) => (2, 2, 256, 4),
            (17..=32, false) => (1, 4, 256, 4),
            (17..=32, true) => (2, 2, 256, 3),
            // sm_75's plain loads stage a whole stage in registers: 256-deep stages of 4 m16
            // tiles spill there; 64-deep ones (v2's plan after its fallback) do not.
            (65..=128, false) if tall && halves => (2, 2, 128, 3),
            (33..=128, false) if cp_async => (1, 4, 256, 2),
            (33..=128, false) => (1, 4, 64, 2),
            // sm_75 with wide N or M > 128: 128-deep stages of 4 m16 tiles spill there too.
            _ if !cp_async => (2, 2, 64, 3),
            _ => (2, 2, 128, 3),
        };
        let stages = if cp_async { stages } else { 1 };
        let mut plan = KernelPlan { m_tiles, n_warps: n_warps.min(n_blocks), k_warps, bk, stages, swap, wgmma: false, halves, ws: false };
        while plan.validate(arch, bits).is_err() {
            if plan.stages > 2 {
                plan.stages -= 1;
            } else if plan.bk > 64 && plan.bk > 16 * plan.k_warps {
                plan.bk /= 2;
            } else if plan.n_warps > 1 {
                plan.n_warps /= 2;
            } else if plan.m_tiles > 1 && !plan.swap {
                plan.m_tiles -= 1;
            } else if plan.k_warps > 1 {
                plan.k_warps /= 2;
            } else {
                break;
            }
        }
        plan
    }

    /// [`KernelPlan::choose`] for a spec: on sm_90a, for specs wgmma plans generate for
    /// ([`crate::kernel::wgmma_supported`]; other widths than 4 and 8 bits as
    /// [`KernelPlan::wgmma_default_at`] says), M above 32 (above 16 on the largest layers) takes a
    /// wgmma plan ([`KernelPlan::wgmma_for`]); smaller M and other specs and targets the
    /// mma.sync plans of [`KernelPlan::choose`].
    pub fn choose_for(spec: &crate::Spec, m: usize, n_pad: usize, k_pad: usize) -> KernelPlan {
        Self::choose_for_device(spec, m, n_pad, k_pad, None)
    }

    /// [`KernelPlan::choose_for`] for the GPU described by `device` (the runtime's layers know
    /// it; `None`: the defaults). See [`KernelPlan::wgmma_for`]'s `lean`.
    pub fn choose_for_device(spec: &crate::Spec, m: usize, n_pad: usize, k_pad: usize, device: Option<&DeviceProfile>) -> KernelPlan {
        Self::choose_for_shape(spec, m, n_pad, k_pad, true, device)
    }

    /// The wgmma plan [`KernelPlan::choose_for_device`]'s rules give `spec` at this M and shape
    /// before [`KernelPlan::wgmma_default_at`] (for 4- and 8-bit weights the default where it is
    /// a wgmma plan), or `None` where they keep an mma.sync plan or wgmma plans do not generate
    /// for the spec. Benchmarks time these against the defaults (`bench_a16 --plans auto,wgmma`).
    pub fn wgmma_rule_for_device(spec: &crate::Spec, m: usize, n_pad: usize, k_pad: usize, device: Option<&DeviceProfile>) -> Option<KernelPlan> {
        Self::wgmma_rule(spec, m, n_pad, k_pad, true, device)
    }

    /// [`KernelPlan::wgmma_rule_for_device`] with [`KernelPlan::choose_shape`]'s `known`.
    fn wgmma_rule(spec: &crate::Spec, m: usize, n_pad: usize, k_pad: usize, known: bool, device: Option<&DeviceProfile>) -> Option<KernelPlan> {
        let (arch, bits) = (spec.arch(), spec.weight().bits());
        let lean = device.is_some_and(DeviceProfile::lean_dram);
        let float_w = float_codes(spec);
        // 4-bit float codes at M <= 8 keep the mma.sync defaults on a lean GPU too. v35 (session
        // 37, H100, graph harness, after the 4-bit float placement), e2m1 bf16 ue8m0 g32 / f16
        // e4m3 g16 at M = 1 / 8: 28672 x 8192 53.1 / 53.3 and 56.4 / 56.0 us against the
        // warp-specialized 16-row tile's 66.3 / 65.1 and 67.9 / 66.4; 8192 x 28672 49.6 / 50.7
        // and 51.3 / 52.7 against 60.6 / 59.7 and 61.7 / 60.6. At M = 9..16 the tile stays for
        // f16 (its best there in v35); bf16 takes `lean_m16_codes`' plan (v37).
        let fp4_small = fp4_codes(spec) && (m <= 8 || (m <= 16 && fp4_bf16(spec)));
        if !crate::kernel::wgmma_supported(spec) || (lean && fp4_small) {
            return None;
        }
        // Groups spanning a 128-deep stage: the tiles of up to 32 rows scale f32 sums.
        let sums = spec.group().spans(128);
        // The lean GPU's rules for layers of a known shape only (the macro's kernel sets keep
        // the defaults there: their one plan serves every layer).
        Self::wgmma_for(m, n_pad, k_pad, arch, bits, sums, lean && known, float_w)
    }

    /// Whether the defaults take the rules' wgmma plan `plan` at M = `m` for `bits`-bit weights
    /// ([`KernelPlan::wgmma_for`] was measured for 4- and 8-bit weights: always). Other widths
    /// rebuild each warp's words first (`a16::window`). v36 (session 38, H100, graph harness, the
    /// rules' plan against the mma.sync default, 1 to 7 bits, f16 and bf16, six layers from
    /// 2048 x 4096 to 28672 x 8192, M 17..256): above M = 48 it wins everywhere (M = 64 10-39%,
    /// M = 128 26-56%, M = 256 26-58%; u3 on 28672 x 8192 at M = 64 65.8 us against 107.8); up
    /// to 3 bits at M 17..48 by 1-45%. Widths above 4 bits at M 33..48 win 4-15% on the
    /// warp-specialized tile but lose up to 11.5% on the plain 64-row tile of four warpgroups
    /// that the largest layers took (8192 x 28672: u7 +9..+11%, e2m3 +11.5%, u6 +5.6%), which they
    /// keep the mma.sync plans for (the rules now give them the warp-specialized tiles of two
    /// math warpgroups at M 17..48 where those of four do not validate: `wgmma_for`). At M <= 16
    /// they keep them too: the lean GPU's 16-row tile on the largest layers (v37, H100, graph
    /// harness, u3 f16 at M = 1 / 8 / 16 on 28672 x 8192 and 8192 x 28672) was 7-35% slower than
    /// mma.sync (28672 x 8192 M = 1: 46.2 us against 34.4), and above 4 bits it does not
    /// validate. (The sweeps' M = 256 cells on the largest layers timed the plain 128-row tile of
    /// four warpgroups, 26-40% faster than mma.sync; it spills for these widths and no longer
    /// validates, so those cells take the warp-specialized 128-row tile of two: 36-41% faster
    /// than mma.sync in the final check, -9..+7% against the plain tile's sweep times.)
    pub fn wgmma_default_at(bits: u8, m: usize, plan: &KernelPlan) -> bool {
        matches!(bits, 4 | 8) || (m > 16 && (bits < 4 || m > 48 || plan.ws))
    }

    /// [`KernelPlan::choose_for_device`] with [`KernelPlan::choose_shape`]'s `known`.
    fn choose_for_shape(spec: &crate::Spec, m: usize, n_pad: usize, k_pad: usize, known: bool, device: Option<&DeviceProfile>) -> KernelPlan {
        let bits = spec.weight().bits();
        if let Some(plan) = Self::wgmma_rule(spec, m, n_pad, k_pad, known, device).filter(|p| Self::wgmma_default_at(bits, m, p)) {
            return plan;
        }
        let arch = spec.arch();
        let lean = device.is_some_and(DeviceProfile::lean_dram);
        if let Some(plan) = Self::lean_m16_codes(spec, m, lean) {
            return plan;
        }
        let float_w = float_codes(spec);
        // The lean-DRAM mma.sync rules (the M <= 8 ring, the M 9..16 half-width rule, v28) were
        // measured for 4-bit integer codes on Hopper only; other specs keep the defaults (but
        // for `lean_m16_codes`' M 9..16 plans above, v37).
        let lean_mma = lean && bits == 4 && !float_w && matches!(arch, Arch::Sm90 | Arch::Sm90a);
        let plan = KernelPlan::choose_shape(m, n_pad, k_pad, arch, bits, known, float_w, lean_mma);
        match device {
            Some(d) if lean_mma && plan.is_pair() && !plan.pair_fills(m, n_pad, k_pad, d.sms) => KernelPlan::choose_shape(m, n_pad, k_pad, arch, bits, known, float_w, false),
            Some(d) if lean_mma => plan.lean_ring(arch, bits, crate::kernel::qbytes(spec), known.then_some((n_pad, k_pad, d.sms))),
            _ => plan,
        }
    }

    /// A lean-DRAM GPU's M 9..16 plans for the codes whose dequantization costs more than 4-bit
    /// integers' (Hopper targets), where they validate: integer weights of 5 to 8 bits and float
    /// codes of 5 to 7 (8-bit floats were not measured) take 64-column tiles of two n8 token
    /// tiles with four k-warps (`m2x8_n1x64_k4w_bk256_s4`), 4-bit float codes with bf16
    /// activations 16-row tiles of 128 columns (`m1x16_n2x64_k4w_bk256_s4`); `None`: the other
    /// rules. v37 (H100 SXM, graph harness, one sweep run of eight plans x splits auto / 1 / 2 / 4
    /// on 8192^2, 28672 x 8192 and 8192 x 28672 at M = 12 / 16; no A/B of the builds yet): against
    /// the defaults at their auto split, u5 -3..-19%, u6 -5..-17%, u7 (bf16) -3..-8%, u8 -1.5..-5%
    /// but +0.6 / +1.3% on 28672 x 8192, e3m2 (bf16, ue8m0 g32) -19..-24% on the large layers and
    /// +0.3 / +1.2% on 8192^2; MXFP4 (bf16) -7..-10% on all three (the warp-specialized 16-row
    /// tile on the large ones). 1 to 3 bits and u4 keep their plans (the defaults were the best),
    /// and 4-bit floats with f16 activations theirs (not in the sweep; v35 found the tile their
    /// best at M 9..16 on the large layers).
    fn lean_m16_codes(spec: &crate::Spec, m: usize, lean: bool) -> Option<KernelPlan> {
        let arch = spec.arch();
        if !(lean && (9..=16).contains(&m) && matches!(arch, Arch::Sm90 | Arch::Sm90a)) {
            return None;
        }
        let bits = spec.weight().bits();
        let float8 = bits == 8 && float_codes(spec);
        let plan = match (bits, fp4_bf16(spec)) {
            (5.., _) if !float8 => KernelPlan { m_tiles: 2, n_warps: 1, k_warps: 4, bk: 256, stages: 4, swap: true, wgmma: false, halves: false, ws: false },
            (_, true) => KernelPlan { m_tiles: 1, n_warps: 2, k_warps: 4, bk: 256, stages: 4, swap: false, wgmma: false, halves: false, ws: false },
            _ => return None,
        };
        plan.validate(arch, bits).is_ok().then_some(plan)
    }

    /// The lean-DRAM half-width plan of M 9..16 with three stages, two CTAs an SM
    /// ([`KernelPlan::choose_shape`]'s `pair`; [`KernelPlan::split_k_for`] counts 16 warps an SM for it).
    fn is_pair(&self) -> bool {
        self.swap && self.m_tiles == 2 && self.halves && self.bk == 512 && self.stages == 3
    }

    /// Whether that plan's grid (tiles x its split) fills 2/3 of two CTAs an SM or more; where it
    /// does not, the layer keeps the default plan. v30 (H100, A/B against the defaults, M = 9 /
    /// 12 / 16): 14336 x 4096 (224 CTAs on 264 places) -5 / -5 / -6%, 8192^2, 8192 x 14336 and
    /// 4096 x 14336 (256 CTAs) -2..-13%, but 10240 x 4096 (160 CTAs, 61%) +0.5 / +1.7 / +0.9%;
    /// a sweep at M = 16 (two runs): 12288 x 4096 (192 CTAs, 73%) -3%, 11008 x 4096 (172, 65%)
    /// -0.5%. (5120 x 13824 would gain 4% at split 4, 320 CTAs; its split 2 fills 61%: left out.)
    fn pair_fills(&self, m: usize, n_pad: usize, k_pad: usize, sms: u32) -> bool {
        let ctas = (n_pad as u32).div_ceil(self.bn()) * self.split_k_for(m, n_pad, k_pad, sms);
        3 * ctas >= 2 * 2 * sms
    }

    /// On a GPU with less DRAM bandwidth than the H200 ([`DeviceProfile::lean_dram`]), the M <= 8
    /// plans' 512-deep stages take a ring of four instead of three where two CTAs still fit an
    /// SM (4-bit integer codes on Hopper; [`KernelPlan::split_k_for`] then splits for two CTAs an SM
    /// down to four stages a CTA). v28 (H100 SXM, graph harness, two sweeps in one call, the
    /// defaults' neighbours x splits 1/2/4): M = 1 / 8 on 4096^2 5.36 / 5.68 -> 4.82 / 4.98 us,
    /// 8192^2 13.74 / 14.21 -> 13.02 / 13.48, 4096 x 14336 12.07 / 12.50 -> 11.71 / 12.23,
    /// 14336 x 4096 11.22 / 11.63 -> 10.96 / 11.29, 6144 x 4096 6.83 / 6.97 -> 6.77 / 6.86 (split
    /// 2; 7.09 / 7.23 at split 1); the v28 A/B of the plans (three alternations): u4 f16 -0.5% to
    /// -13% on nine layers at M = 1..8, u4 bf16 -5% to -7%, MXFP4 -2% on 4096^2 but +1% on
    /// 8192^2 (float codes keep their plan). On the H200 the three-stage ring was the faster
    /// one (v40: 8192^2 M = 1 10.74 against 11.41 us), so the defaults keep it. Other widths and
    /// targets (other shared-memory sizes) were not measured: they keep their plan.
    ///
    /// `layer`: the weights' padded N and K and the GPU's multiprocessors, where known. Layers
    /// of K < 4096 (four 512-deep stages or fewer) keep their plan (v29: 8192 x 2048 M = 1 / 8
    /// 4.54 / 4.79 us with it, 4.87 / 5.25 with five stages). Where the unsplit grid of 64-column
    /// tiles fills 7/8 of the SMs or more, one CTA each, the plans that take four stages take
    /// five instead (one CTA an SM; [`KernelPlan::split_k_for`] then keeps one split). v29 (H100
    /// SXM, 128 tiles on 132 SMs): a sweep, the four-stage ring at split 2 against five stages
    /// unsplit, M = 1 / 8 on 8192 x 4096 8.28 / 8.73 -> 7.54 / 7.82 us, 8192^2 13.08 / 13.55 ->
    /// 12.80 / 13.11 (six and seven stages 2-9% slower than five); the A/B against the defaults
    /// (three alternations): 8192 x 4096 / 6144 / 8192 / 14336 -3..-8% at M = 1..8, bf16 -3..-6%.
    fn lean_ring(self, arch: Arch, bits: u8, qbytes: u32, layer: Option<(usize, usize, u32)>) -> KernelPlan {
        let one_tile = self.swap && self.m_tiles == 1 && !self.wgmma && !self.ws && !self.halves;
        if !(one_tile && self.bk == 512 && self.stages == 3) || layer.is_some_and(|(_, k_pad, _)| k_pad < 4096) {
            return self;
        }
        let four = KernelPlan { stages: 4, ..self };
        // Two CTAs an SM: 228 KB of shared memory, 1 KB of it reserved a CTA.
        // (u4 with 16-bit scales: 112 KB a CTA; with zero points too, 120 KB, which does not.)
        let two_fit = 2 * (four.smem_bytes_q(bits, qbytes) + 1024) <= 228 * 1024;
        if four.validate(arch, bits).is_err() || !two_fit {
            return self;
        }
        // One CTA on 7/8 of the SMs or more (the unsplit grid's 64-column tiles).
        let fills_sms = layer.is_some_and(|(n_pad, _, sms)| {
            let tiles = n_pad.div_ceil(self.bn() as usize) as u32;
            tiles <= sms && 8 * tiles >= 7 * sms
        });
        let five = KernelPlan { stages: 5, ..self };
        if fills_sms && five.validate(arch, bits).is_ok() { five } else { four }
    }

    /// The wgmma plan for M tokens on `n_pad x k_pad` weights, or `None` where the mma.sync
    /// plans are as fast. `sums`: the spec's groups span a 128-deep stage, so the 32-row tile
    /// scales f32 sums (`wg_sums` of the A16 generator). From the v33-v37 sweeps (session 9,
    /// H200, after the swizzled activation tiles made the wgmma plans 25-50% faster; eight
    /// layer shapes from 2048 x 8192 to 28672 x 8192, M = 40 .. 256, against the mma.sync
    /// defaults in the same call):
    /// - "big" layers (N and K >= 8192): 256-column tiles, `m4x16` (64 rows) up to M = 64
    ///   (M = 64: 27.0 / 71.5 / 72.7 us on 8192^2 / 8192 x 28672 / 28672 x 8192, against the
    ///   mma.sync 31.5 / 93.9 / 100.0; M = 40: 68.1 and 70.5 against 73.7 and 76.7 on the two
    ///   large ones, a tie on 8192^2), `m8x16` (128 rows) above (M = 128 on 28672 x 8192: 116.7
    ///   against 202.5; M = 192: 209-232 against 304-324);
    /// - other layers of at least 4096 x 14336 elements: `m4x16_n4x64` up to M = 128
    ///   (14336 x 4096 M = 128: 40.1 against 56.6), `m8x16_n4x64` above;
    /// - smaller ones: 128-column tiles with six stages, `m4x16_n2x64_..._s6` (4096^2 M = 128
    ///   17.6 against 19.3, M = 256 23.8 against 33.7; 2048 x 8192 M = 256 28.0 against 59.9),
    ///   except `m4x16_n4x64` above M = 128 from 6144 x 4096 elements (39.2 against 47.1);
    ///   M = 33..48 stays on mma.sync there (ties within 2%);
    /// - above M = 64, the warp-specialized 128 x 128 tile `m8x16_n2x64_k1w_bk128_s4_ws` (a
    ///   producer warpgroup and two wgmma warpgroups, v35-v36) on mid-sized layers: from 6144 x
    ///   4096 to 8192 x 16384 elements up to M = 128 (8192^2 M = 128: 34.0 against 42.6 us;
    ///   4096 x 14336: 32.9 against 40.2; 16384 x 8192: 65.1 against 67.5), and above M = 128
    ///   up to 8192^2 elements with N <= 8192 (8192^2 M = 256: 60.8 against 67.7; 4096^2 20.5
    ///   against 23.4). Larger layers (28672 x 8192: 127 against 108 at M = 128) and M = 256 at
    ///   14336 x 4096 (63.8 against 59.4: twice the CTAs of one wave) keep the plans above;
    /// - M = 33..64 on layers from 4096^2 to 8192^2 elements: the warp-specialized 64 x 128 tile
    ///   `m4x16_n2x64_k1w_bk128_s4_ws` (v37: M = 64 on 4096 x 14336 25.0 against 28.6 us, on
    ///   14336 x 4096 22.5 against 25.4, on 8192^2 25.8 against 27.1; M = 48 1-6% faster; on
    ///   the two large shapes 10-20% slower).
    /// - With `setmaxnreg` (session 10: the producer gives registers back, so four math
    ///   warpgroups fit beside it), the warp-specialized 256-column tiles of 32 and 48 rows
    ///   (v42, against the defaults in the same call): `m3x16_n4x64_k1w_bk128_s4_ws` at M =
    ///   33..48 from 4096 x 14336 elements (M = 40: 58.5 / 60.5 us on 8192 x 28672 / 28672 x
    ///   8192 against 69.8 / 69.5, 21.8 against 24.6 on 8192^2, 4-5% on 4096 x 14336 and 14336 x
    ///   4096), and `m2x16_n4x64_k1w_bk128_s4_ws` at M = 17..32 on layers of at least 8192 x
    ///   20480 elements (M = 32: 54.7 / 56.4 against the mma.sync 57.9 / 59.2; 3-6% at M = 24;
    ///   10-20% slower on 8192^2 and the 4096 x 14336 pair). Where they do not validate (8-bit
    ///   weights: the producer keeps 128 registers), the rules above.
    /// - With the epilogue in the math warps' branch (session 13: the producer holds no
    ///   accumulators, so `setmaxnreg` leaves it 104 registers and the math warpgroups 200), the
    ///   warp-specialized 256 x 128 tile `m16x16_n2x64_k1w_bk64_s5_ws` at M = 129..256 on layers
    ///   of at least 14336 columns or 8192 x 14336 elements (v59, against the defaults in the
    ///   same call: M = 256 on 8192 x 28672 174.0 against 210.6 us, 28672 x 8192 210.8 against
    ///   235.0, 14336 x 4096 50.8 against 56.8, 14336 x 8192 104.5 against 113.7, 24576 x 8192
    ///   180.3 against 211.0; M = 160 on 8192 x 28672 162.8 against 191.6; bf16, MXFP4 and
    ///   8-bit weights 12-24% on 28672 x 8192). Smaller layers keep the 128-row tiles (8192^2
    ///   M = 256: 59.7 against 57.2; 4096 x 14336 67.0 against 57.3). Not shipped in session 13
    ///   (racecheck hazards: its split-K tail ran in both branches); session 14 joins the
    ///   branches for the tail, and v61 measured it again against 6675b6a: M = 129 / 192 / 256
    ///   on 28672 x 8192 207 / 209 / 226 -> 173 / 184 / 190 us, 24576 x 8192 (split 2) 205 /
    ///   209 / 225 -> 156 / 172 / 194, 14336 x 4096 55 / 55 / 57 -> 46 / 48 / 52.
    ///
    /// - With ws-carry (session 16: the math warps leave the stage's last wgmma groups pending
    ///   and free its slot in the next stage, 0-4% on the warp-specialized tiles, v63), the v64
    ///   sweep of M = 32..256 (graph harness, same call, splits auto/1/2/4): the 64-row tile
    ///   with four math warpgroups `m4x16_n4x64_k1w_bk128_s4_ws` at M = 49..64 on layers of at
    ///   least 8192 x 20480 elements (M = 64: 65.1 / 65.5 us on 8192 x 28672 / 28672 x 8192
    ///   against the wgmma tile's 69.9 / 71.6, v65 A/B 64.2 / 65.0 against 69.8 / 71.4, bf16
    ///   -9%; a tie on 8192^2, which keeps `m4x16_n2x64_..._ws`);
    ///   the 128 x 128 warp-specialized tile at M = 65..128 also above 8192 x 16384 elements
    ///   where N <= 16384 (M = 128 on 8192 x 28672: 99.3 against 110.3 us, split 2; v65 A/B
    ///   98.2 against 108.4, M = 96 94.9 against 100.8, bf16 -8.5%), not on wider ones (28672 x
    ///   8192: a tie in v64, 2-4% slower in v65's A/B, 8-bit weights 3%: 224 tiles of 128
    ///   columns make 1.7 waves, the wgmma tile's 112 of 256 one), and two 64-row tiles
    ///   `m4x16_n2x64_k1w_bk128_s4_ws` below 6144 x 4096 elements from 4096^2 (v65 A/B, M = 96 /
    ///   128: 4096^2 14.7 / 15.2 against 15.6 / 16.1 for the six-stage wgmma tile, 5120 x 4096
    ///   21.6 / 21.7 against 23.3 / 23.4, 2048 x 8192 15.8 / 16.2 against 17.5 / 17.9).
    ///
    /// - After session 17 made the warp-specialized loops 4-9% faster (v69), v70 (graph harness,
    ///   three repeats, best of each): the 128 x 128 warp-specialized tile also on layers wider
    ///   than 16384 columns at M = 65..128 (M = 80 / 96 / 128: 28672 x 8192 91.4 / 99.1 / 105.7
    ///   us against the wgmma tile's 97.5 / 107.3 / 112.7, 24576 x 8192 84.7 / 88.6 / 98.2
    ///   against 98.5 / 103.5 / 109.3, 20480 x 8192 83.9 / 86.5 / 93.5 against 98.4 / 100.7 /
    ///   104.6; 8-bit weights on 28672 x 8192 M = 96 / 128 110.3 / 126.4 against 116.9 /
    ///   137.9), and the 32-row four-warpgroup tile at M = 17..32 from 8192 x 14336 elements
    ///   (M = 24 / 32: 8192 x 14336 28.0 / 29.3 against the mma.sync 31.2 / 32.2, 14336 x 8192
    ///   29.2 / 30.2 against 32.7 / 33.4, 16384 x 8192 30.0 / 30.8 against 32.5 / 33.5; 8192^2
    ///   still 1-4% slower, 14336 x 4096 a tie, 4096 x 14336 13-18% slower). The 48-row tile's
    ///   threshold holds (6144 x 4096 and 4096 x 8192 at M = 40 / 48: the two 64-row tiles 4-20%
    ///   faster).
    ///
    /// - After session 18 made the 32-row tile scale f32 sums once a stage where the groups span
    ///   its 128-deep stages (`sums`; 7-10% faster, v71 A/B), v71 (graph harness, two repeats):
    ///   that tile also on layers of at least 8192 columns and 14336 x 4096 elements at M =
    ///   17..32 (8192^2 M = 24 / 32 17.75 / 18.99 us against the mma.sync 18.83 / 19.44,
    ///   14336 x 4096 15.95 / 16.64 against 17.66 / 17.93; 4096 x 14336 still 7-12% slower).
    ///   Shorter groups keep the v70 threshold.
    ///
    /// - `lean`: a GPU with less DRAM bandwidth than the H200 ([`DeviceProfile::lean_dram`]).
    ///   v27 (H100 SXM, graph harness, splits auto/1/2/4/8, two calls): the warp-specialized
    ///   16-row tile `m1x16_n4x64_k1w_bk128_s4_ws` at M <= 16 on layers of at least 8192 x
    ///   20480 elements (M = 1 / 8 / 16 on 28672 x 8192: 39.2 / 39.3 / 39.6 us against the
    ///   mma.sync defaults' 42.0 / 42.8 / 44.4; 8192 x 28672 40.2 / 40.2 / 40.9 against 40.8 /
    ///   41.9 / 44.7). On smaller layers it wins 1-5% at M = 12..16 only where K >= N, and loses
    ///   3-27% at M <= 8 (8192^2 +3.6%, 14336 x 4096 +14%, 2048 x 8192 +27%): they keep the
    ///   defaults. On the H200 the mma.sync plans win at M = 16 (v18: 36.7 against 44.3 us on
    ///   28672 x 8192), so the defaults keep them. 4-bit float codes do not ask for it at M <= 8
    ///   (session 37's v35; [`KernelPlan::choose_for_device`]).
    ///
    ///   v30 (H100 SXM, graph harness, splits auto/1/2/4, two runs in one call): 4-bit weights at
    ///   M = 17..32 take the 32-row tile on every layer from 4096^2 elements, with two math
    ///   warpgroups (128 columns) up to 8192^2 elements and four above (M = 24 / 32: 8192^2
    ///   17.85 / 18.29 us with four warpgroups, 16.64 / 16.64 with two; 4096 x 14336 18.11 /
    ///   18.61 with the mma.sync plan, 15.43 / 16.04; 12288 x 4096 17.88 / 17.54, 14.58 / 14.66;
    ///   4096^2 -5 / -1%, 6144 x 4096 -4 / -2%, 8192 x 4096 -7%, 8192 x 2048 -1 / 0%; 5120 x 13824
    ///   28.56 / 29.46 with the mma.sync plan, 22.68 / 23.67 with four warpgroups; bf16 -6..-15%,
    ///   MXFP4 -2..-4% on 8192^2 and 4096 x 14336; 8192 x 14336 and larger keep four), and
    ///   integer codes at M = 33..48 the 48-row tile with two math warpgroups from 4096 x 14336
    ///   to 8192^2 elements (M = 40 / 48: 8192^2 -2 / -5%, 14336 x 4096 -12%, 4096 x 14336
    ///   -10..-15%, bf16 -3%; MXFP4 +2.5% on 8192^2, so float codes keep four; smaller layers,
    ///   not measured, keep two 64-row tiles). `float_w`: float weight codes.
    ///
    /// Stages: four (six for the 128-column tile, five for the 256-row tile), fewer where they
    /// do not fit (8-bit weights).
    #[allow(clippy::too_many_arguments)]
    pub fn wgmma_for(m: usize, n_pad: usize, k_pad: usize, arch: Arch, bits: u8, sums: bool, lean: bool, float_w: bool) -> Option<KernelPlan> {
        let big = n_pad >= 8192 && k_pad >= 8192;
        let size = n_pad * k_pad;
        // The deepest ring of at most `most` stages that fits.
        let fit_bk = |m_tiles: u32, n_warps: u32, ws: bool, most: u32, bk: u32| {
            (2..=most).rev().map(|stages| KernelPlan { m_tiles, n_warps, k_warps: 1, bk, stages, swap: false, wgmma: true, halves: false, ws }).find(|p| p.validate(arch, bits).is_ok())
        };
        let fit = |m_tiles: u32, n_warps: u32, ws: bool, most: u32| fit_bk(m_tiles, n_warps, ws, most, 128);
        // The warp-specialized 256 x 128 tile (v59) on the layers with many 128-column tiles.
        if (129..=256).contains(&m) && (n_pad >= 14336 || size >= 8192 * 14336) {
            if let Some(plan) = fit_bk(16, 2, true, 5, 64) {
                return Some(plan);
            }
        }
        // Four math warpgroups and a producer (v41-v42, with setmaxnreg): 32 rows at M 17..32
        // from 8192 x 14336 elements (v70), or with `sums` from 8192 columns and 14336 x 4096
        // elements (v71); 48 rows at M 33..48 from 4096 x 14336 elements.
        let rows32 = size >= 8192 * 14336 || (sums && n_pad >= 8192 && size >= 14336 * 4096);
        // A lean-DRAM GPU's 4-bit layers from 4096^2 elements: two math warpgroups up to 8192^2 (v30).
        let lean_rows = lean && bits == 4 && size >= 4096 * 4096;
        let two_wg = lean_rows && size <= 8192 * 8192;
        // 5- to 7-bit weights, whose producer keeps 128 registers: the 32- and 48-row tiles with
        // two math warpgroups where those with four do not validate (v36, H100, graph harness,
        // against the defaults before: M = 17 / 32 7-38% faster on 8192^2, 14336 x 4096 and both
        // large layers but u5 on 8192 x 28672 at M = 32, +4%; M = 40 / 48 on layers from 4096 x
        // 14336 elements -21..+6%, ties on 8192^2 where the 64-row tile ran before).
        let wide_odd = bits > 4 && bits != 8;
        match m {
            ..=16 => return (lean && size >= 8192 * 20480).then(|| fit(1, 4, true, 4)).flatten(),
            17..=32 if lean_rows => return fit(2, if two_wg { 2 } else { 4 }, true, 4),
            17..=32 => return rows32.then(|| fit(2, 4, true, 4).or_else(|| wide_odd.then(|| fit(2, 2, true, 4)).flatten())).flatten(),
            33..=48 if two_wg && !float_w && size >= 4096 * 14336 => {
                if let Some(plan) = fit(3, 2, true, 4) {
                    return Some(plan);
                }
            }
            33..=48 if size >= 4096 * 14336 => {
                if let Some(plan) = fit(3, 4, true, 4).or_else(|| wide_odd.then(|| fit(3, 2, true, 4)).flatten()) {
                    return Some(plan);
                }
            }
            // 64 rows with four math warpgroups at M 49..64 on the largest layers (v64).
            49..=64 if size >= 8192 * 20480 => {
                if let Some(plan) = fit(4, 4, true, 4) {
                    return Some(plan);
                }
            }
            _ => {}
        }
        let ws_rows = match m {
            ..=64 => (4096 * 4096..=8192 * 8192).contains(&size).then_some(4),
            // Two 64-row tiles from 4096^2, 128 rows from 6144 x 4096 elements up (on layers
            // wider than 16384 columns too since v70: 6-15% faster than the wgmma tile there).
            65..=128 if size < 6144 * 4096 => (size >= 4096 * 4096).then_some(4),
            65..=128 => Some(8),
            _ => (size <= 8192 * 8192 && n_pad <= 8192).then_some(8),
        };
        if let Some(plan) = ws_rows.and_then(|m_tiles| fit(m_tiles, 2, true, 4)) {
            return Some(plan);
        }
        let (m_tiles, n_warps) = if big {
            (if m <= 64 { 4 } else { 8 }, 4)
        } else if m <= 48 {
            return None;
        } else if size >= 4096 * 14336 {
            (if m <= 128 { 4 } else { 8 }, 4)
        } else if m > 128 && size >= 6144 * 4096 {
            (4, 4)
        } else {
            (4, 2)
        };
        // Where the 128-row tile of four warpgroups does not validate (weights of other widths
        // than 4 and 8 bits: its registers are tight), the warp-specialized one of two.
        fit(m_tiles, n_warps, false, if n_warps == 2 { 6 } else { 4 }).or_else(|| (m_tiles == 8).then(|| fit(8, 2, true, 4)).flatten())
    }

    /// The plans a kernel set carries when the weights' shape is not known (macro-generated
    /// kernels): one per M bucket, as `(largest M of the bucket, plan)`, M ascending; the last
    /// bucket takes every larger M. [`KernelPlan::buckets_for`] N = K = [`DEFAULT_DIM`] (kernels
    /// handle any shape; the shape only shrinks tiles for tiny N, widens them for wide N and
    /// splits K finer for deep K), except that no narrow-layer plan is taken: at M 9..16 the
    /// half-width plan is 2-8% faster up to N = 4096 but 4-14% slower on larger layers (v16-v18),
    /// which take most of a model's time.
    pub fn buckets(arch: Arch, bits: u8) -> Vec<(u32, KernelPlan)> {
        Self::bucket_plans(|m| KernelPlan::choose_shape(m, DEFAULT_DIM, DEFAULT_DIM, arch, bits, false, false, false))
    }

    /// The M buckets for weights of padded shape `n_pad x k_pad` (the runtime's layers, which
    /// know it): each bucket's plan is [`KernelPlan::choose`] at the bucket's top M.
    pub fn buckets_for(arch: Arch, bits: u8, n_pad: usize, k_pad: usize) -> Vec<(u32, KernelPlan)> {
        Self::bucket_plans(|m| KernelPlan::choose(m, n_pad, k_pad, arch, bits))
    }

    /// [`KernelPlan::buckets_for`] with [`KernelPlan::choose_for`] (the plans of a spec).
    pub fn buckets_for_spec(spec: &crate::Spec, n_pad: usize, k_pad: usize) -> Vec<(u32, KernelPlan)> {
        Self::buckets_for_device(spec, n_pad, k_pad, None)
    }

    /// [`KernelPlan::buckets_for_spec`] with [`KernelPlan::choose_for_device`].
    pub fn buckets_for_device(spec: &crate::Spec, n_pad: usize, k_pad: usize, device: Option<&DeviceProfile>) -> Vec<(u32, KernelPlan)> {
        Self::bucket_plans(|m| KernelPlan::choose_for_device(spec, m, n_pad, k_pad, device))
    }

    /// [`KernelPlan::buckets_for_spec`] for an unknown shape (see [`KernelPlan::buckets`]).
    pub fn buckets_spec(spec: &crate::Spec) -> Vec<(u32, KernelPlan)> {
        Self::bucket_plans(|m| KernelPlan::choose_for_shape(spec, m, DEFAULT_DIM, DEFAULT_DIM, false, None))
    }

    /// The buckets of [`KernelPlan::buckets_spec`] whose plan differs on a GPU with less DRAM
    /// bandwidth ([`DeviceProfile::H100_SXM`]'s plans for an unknown shape, chosen at each bucket's
    /// top M as the defaults are), as `(largest M of the bucket, plan)`: what a build-time kernel
    /// set carries besides its defaults (e.g. the four-stage ring of M <= 8 for u4 on Hopper).
    pub fn lean_buckets_spec(spec: &crate::Spec) -> Vec<(u32, KernelPlan)> {
        let lean = DeviceProfile::H100_SXM;
        Self::buckets_spec(spec)
            .into_iter()
            .filter_map(|(top, plan)| {
                let p = KernelPlan::choose_for_shape(spec, top.min(256) as usize, DEFAULT_DIM, DEFAULT_DIM, false, Some(&lean));
                (p != plan).then_some((top, p))
            })
            .collect()
    }

    /// The M buckets with `plan(m)` at each bucket's top M (256 for the last, open one), equal
    /// neighbours merged.
    fn bucket_plans(plan: impl Fn(usize) -> KernelPlan) -> Vec<(u32, KernelPlan)> {
        let mut out: Vec<(u32, KernelPlan)> = Vec::new();
        for top in [8u32, 16, 32, 48, 64, 128, 192, u32::MAX] {
            let plan = plan(top.min(256) as usize);
            match out.last_mut() {
                Some(last) if last.1 == plan => last.0 = top,
                _ => out.push((top, plan)),
            }
        }
        out
    }

    /// Splits of K across CTAs for a launch. The last CTA of each tile sums the split-K
    /// partials inside the launch, so a split costs one f32 round trip of the tile through L2
    /// and a short serial tail. The v3 sweep (every bucket's plans x splits 1, 2, 3, 4, 6, 8 on
    /// four shapes) showed: the best split fills the machine with about two CTAs per SM and no
    /// more; power-of-two splits beat odd ones (uneven stage counts); above M = 64 splitting
    /// never paid for the chosen plans. So: the largest power of two up to 8 with
    /// `tiles x split <= 2.1 x SMs` and at least 2 stages per split, 1 above M = 64. M <= 8
    /// plans (v23, with the next grid launched early): the split fills one CTA an SM, or two
    /// where each CTA keeps 6 stages or more.
    ///
    /// wgmma plans run one CTA per SM (v9 sweep): at any M they split while the grid still fits
    /// one wave (`tiles x split <= SMs`), e.g. 2 at M = 256 and N = 8192 (96 us, against 166
    /// unsplit on 64 of the 132 SMs). Swapped plans with two n8 tiles of M fit 12 warps an SM
    /// (their registers), so they split while the grid fits that; with half-width warps (about
    /// 110-130 registers, 8 or 16 warps a CTA) that is one CTA an SM, which the v18 sweep's best
    /// splits match. A grid of such one-CTA-an-SM plans that needs more than one wave splits in
    /// two over deep K where that fills its waves a quarter better (v61).
    pub fn split_k_for(&self, m: usize, n_pad: usize, k_pad: usize, sms: u32) -> u32 {
        // Unswapped half-width plans of 128 rows (~225 registers, 8 warps) also run one CTA an
        // SM; v19: split 2 at M = 128 on 8192 x 28672 (170 us, against 316 unsplit on 64 of the 132 SMs).
        // So do the swapped half-width plans of four n8 tiles (153 registers, 8 warps; v56: one
        // wave of them is the best split, e.g. 2 on 4096^2, 1 on 8192^2).
        let one_wave = self.wgmma || (self.halves && !self.swap && self.bm() == 128) || (self.halves && self.swap && self.m_tiles == 4);
        if m > 64 && !one_wave {
            return 1;
        }
        let tiles = (n_pad as u32).div_ceil(self.bn()) * (m.max(1) as u32).div_ceil(self.bm());
        let stages = (k_pad as u32).div_ceil(self.bk).max(1);
        // CTAs a split may make: one an SM for wgmma-like plans, 12 warps an SM for swapped two-
        // tile plans, about two an SM otherwise. M <= 8 plans (swapped, one n8 tile of M): since
        // the next grid starts as soon as this one has passed its dependency wait (PDL, v22), one
        // CTA an SM leaves it room to request its first stages early; two CTAs an SM pay only
        // where each still has 6+ stages (v23 sweep over nine layer shapes: 4096^2 split 2 5.24
        // us against 5.53 at split 4, 6144 x 4096 split 1 6.30 against 6.67 at 2; 8192^2 and 4096
        // x 14336 keep 2 and 4).
        // The four-stage ring of 512-deep stages (`lean_ring`, v28): two CTAs an SM from four
        // stages a CTA (6144 x 4096 at M = 1: split 2 6.77 us, split 1 7.09).
        // Five and more (v29) leave room for one CTA an SM.
        let ring = self.swap && self.m_tiles == 1 && self.bk == 512;
        let two_from = if ring && self.stages >= 4 { 4 } else { 6 };
        // Warp-specialized tiles of one math warpgroup run two CTAs an SM (`ws_ctas_per_sm`; v31:
        // their best splits fill those, e.g. 2 on 8192^2 and 4 on 4096 x 14336 at M = 32).
        let places = self.ws_ctas_per_sm() * sms;
        let room = |s: u32| {
            if one_wave || (ring && self.stages >= 5) || (self.swap && self.m_tiles == 1 && stages < two_from * s) {
                places
            } else if self.swap && self.m_tiles == 2 {
                // ~170 registers a thread: 12 warps of a 64K-register SM (v6 sweep: the best
                // split fills those, e.g. 2 for 8 warps and 64 tiles, 4 for 4 warps and 64 tiles).
                // Half-width warps (115 registers) with three 512-deep stages (110 KB on a Hopper
                // SM) run two CTAs of 8 warps (v29: 8192^2 at M = 16 best at split 2).
                let warps = if self.is_pair() { 16 } else { 12 };
                (warps / (self.threads() / 32)).max(1) * sms
            } else {
                21 * sms / 10
            }
        };
        let split = [8u32, 4, 2].into_iter().find(|&s| tiles * s <= room(s) && stages >= 2 * s).unwrap_or(1);
        // A one-CTA-an-SM grid of more than one wave over deep K (8192 and more) splits in two
        // where that fills its waves a quarter better (v61 sweep of the 256-row tile, M = 160 /
        // 256: 24576 x 8192, 192 tiles filling 73% of two waves against 97% of three, 167 / 194
        // us against 179 / 203 unsplit; 20480 x 8192 159 / 181 against 179 / 192; 22016 x 14336
        // 265 / 304 against 302 / 337). Where the waves fill alike the split lost 16-25%
        // (28672 x 8192, 14336 x 8192); at K = 4096 the partials' round trip weighs twice as
        // much and the split lost up to 12% (24576 x 4096, 18432 x 4096 at M = 256).
        let fill = |s: u32| (tiles * s) as f64 / ((tiles * s).div_ceil(places) * places) as f64;
        if one_wave && split == 1 && tiles > places && k_pad >= 8192 && fill(2) >= 1.25 * fill(1) {
            return 2;
        }
        split
    }
}

/// The N and K the plan heuristic assumes where the weights' shape is not known (the macro's
/// kernel sets): neither wide nor deep (nor narrow: [`KernelPlan::buckets`]).
pub const DEFAULT_DIM: usize = 4096;

/// The most bytes of quantization parameters per column and group (16-bit scale + zero point).
pub const MAX_QBYTES: u32 = 3;

/// Shared bytes after the stages for the split-K arrival flag.
pub const FLAG_BYTES: u32 = 16;

/// Largest dynamic shared memory per CTA the target allows (opt-in maximum).
pub fn max_dynamic_smem(arch: Arch) -> u32 {
    match arch {
        Arch::Sm75 => 64 * 1024,
        Arch::Sm80 => 163 * 1024,
        Arch::Sm86 | Arch::Sm89 => 99 * 1024,
        Arch::Sm90 | Arch::Sm90a => 227 * 1024,
    }
}

impl std::str::FromStr for KernelPlan {
    type Err = String;

    /// Parses the [`fmt::Display`] form, e.g. `m1x16_n4x64_k2w_bk128_s4`, `m1x8_...` for a
    /// swapped plan, `..._wg` for a wgmma plan, `..._ws` for a warp-specialized one (not
    /// validated).
    fn from_str(s: &str) -> Result<KernelPlan, String> {
        let bad = || format!("plan `{s}`: expected the form m1x16_n4x64_k2w_bk128_s4");
        let mut f = s.trim().split('_');
        let mut num = |prefix: &str, suffix: &str| -> Result<u32, String> {
            let t = f.next().ok_or_else(bad)?;
            t.strip_prefix(prefix).and_then(|t| t.strip_suffix(suffix)).and_then(|t| t.parse().ok()).ok_or_else(bad)
        };
        let swap = s.trim().split('_').next().is_some_and(|t| t.ends_with("x8"));
        let halves = s.trim().split('_').nth(1).is_some_and(|t| t.ends_with("x32"));
        let m_tiles = num("m", if swap { "x8" } else { "x16" })?;
        let cols = num("n", if halves { "x32" } else { "x64" })?;
        if halves && cols % 2 != 0 {
            return Err(bad());
        }
        let mut plan = KernelPlan {
            m_tiles,
            n_warps: if halves { cols / 2 } else { cols },
            k_warps: num("k", "w")?,
            bk: num("bk", "")?,
            stages: num("s", "")?,
            swap,
            wgmma: false,
            halves,
            ws: false,
        };
        match (f.next(), f.next()) {
            (None, _) => {}
            (Some("wg"), None) => plan.wgmma = true,
            (Some("ws"), None) => (plan.wgmma, plan.ws) = (true, true),
            _ => return Err(bad()),
        }
        Ok(plan)
    }
}

impl fmt::Display for KernelPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "m{}x{}_n{}x{}_k{}w_bk{}_s{}",
            self.m_tiles,
            if self.swap { 8 } else { 16 },
            if self.halves { 2 * self.n_warps } else { self.n_warps },
            if self.halves { 32 } else { 64 },
            self.k_warps, self.bk, self.stages
        )?;
        if self.ws {
            f.write_str("_ws")?;
        } else if self.wgmma {
            f.write_str("_wg")?;
        }
        Ok(())
    }
}
