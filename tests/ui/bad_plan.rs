use humming::macros::humming_gemm;

#[humming_gemm(weight = u4, act = f16, plan = (m_tiles = 1, n_warps = 4, k_warps = 2))]
pub fn missing_keys() {}

#[humming_gemm(weight = u4, act = f16, plan = (m_tiles = 1, n_warps = 4, k_warps = 2, bk = 128, stage = 4))]
pub fn unknown_key() {}

#[humming_gemm(weight = u4, act = f16, plan = m1x16)]
pub fn not_a_tuple() {}

// Valid syntax, but bk must be 64, 128 or 256.
#[humming_gemm(weight = u4, act = f16, plan = (m_tiles = 1, n_warps = 4, k_warps = 2, bk = 96, stages = 4))]
pub fn bad_bk() {}

// sm_75 has no cp.async: its plans have one stage. Checked per target.
#[humming_gemm(weight = u4, act = f16, arch = [sm_75, sm_80], plan = (m_tiles = 1, n_warps = 4, k_warps = 2, bk = 128, stages = 4))]
pub fn stages_on_turing() {}

// Half-width warps need an even weight width (a warp's 32 columns are whole words of the block).
#[humming_gemm(weight = u5, act = f16, plan = (m_tiles = 1, n_warps = 1, k_warps = 4, bk = 256, stages = 3, swap = true, halves = true))]
pub fn halves_odd_width() {}

// A producer warpgroup (ws) only feeds wgmma plans.
#[humming_gemm(weight = u4, act = f16, arch = [sm_90a], plan = (m_tiles = 4, n_warps = 2, k_warps = 1, bk = 128, stages = 4, ws = true))]
pub fn ws_without_wgmma() {}

// Unswapped full-width mma.sync plans stop at 4 m16 tiles: 8 need 256 accumulators a lane.
#[humming_gemm(weight = u4, act = f16, plan = (m_tiles = 8, n_warps = 1, k_warps = 2, bk = 128, stages = 3))]
pub fn too_many_m16_tiles() {}

fn main() {}
