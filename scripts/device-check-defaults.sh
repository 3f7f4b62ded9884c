#!/usr/bin/env bash
# The closing GPU check of a session that changed default plans: device-quick.sh, then the new
# defaults against the f64 reference (every element) at shapes that select them (session 7: the
# 128-row half-width plan of deep K at M 65..128, the half-width M 9..16 plan of narrow layers;
# sessions 8 to 11: below).
# Run on the GPU machine after `bash scripts/gpu-bundle.sh` here; logs under $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# SKIP_QUICK=1: the default checks alone (device-quick.sh already ran on this build's kernels).
[ "${SKIP_QUICK:-0}" = 1 ] || bash scripts/device-quick.sh 2>&1 | tail -32
export HUMMING_REQUIRE_GPU=1
B=gpu-bundle/bin/example_bench_a16
C="--label chk --no-copy --harness graph --iters 2 --reps 1 --plans auto"
# FROM / TO: run only checks FROM..TO (numbered from 1 in the order below), so that the list can
# be split over calls of the device's 600 s limit (session 14's call ran past it at the 36th).
FROM=${FROM:-1}; TO=${TO:-1000}; n=0
chk() { n=$((n + 1)); [ "$n" -ge "$FROM" ] && [ "$n" -le "$TO" ] || return 0; timeout 40 $B $C "$@"; }
{ chk --shapes 8192x28672 --m 128 --splits auto --check 100x8192x28672
  # Session 8: the same shape on sm_90a takes the 128 x 256 wgmma tile (split 4); M <= 8 splits
  # of one CTA an SM (4096^2: 2, 6144 x 4096: 1); the split-K arrival's acq_rel fences (every
  # split check).
  chk --arch sm_90a --shapes 8192x28672 --m 128 --splits auto --check 100x8192x28672
  chk --shapes 4096x4096 --m 8 --splits auto --check 3x4096x4096
  chk --weight u5 --act bf16 --shapes 6144x4096 --m 8 --splits auto,2 --check 5x6144x4096
  chk --weight u8 --act bf16 --shapes 4096x16384 --m 100 --splits auto --check 77x4096x16384
  chk --shapes 4096x4096 --m 16 --splits auto,3 --check 13x4096x4096
  chk --weight e2m1 --act bf16 --scale ue8m0 --group 32 --shapes 2048x4096 --m 16 --splits auto --check 11x2048x4096
  # Session 9: sm_90a wgmma defaults above M = 32 (256-column tiles of 64 and 128 rows on big
  # layers, 128-column six-stage tiles on small ones, 8-bit weights with fewer stages).
  chk --arch sm_90a --shapes 28672x8192 --m 64 --splits auto --check 37x28672x8192
  chk --arch sm_90a --shapes 8192x8192 --m 256 --splits auto,2 --check 150x8192x8192
  chk --arch sm_90a --shapes 4096x4096 --m 128 --splits auto --check 97x4096x4096
  chk --arch sm_90a --weight u8 --shapes 14336x4096 --m 128 --splits auto --check 120x14336x4096
  chk --arch sm_90a --weight e2m1 --act bf16 --scale ue8m0 --group 32 --shapes 6144x4096 --m 256 --splits auto --check 201x6144x4096
  # The warp-specialized 128 x 128 tile above M = 64 on mid-sized layers (splits 1, 2 and 3).
  chk --arch sm_90a --shapes 8192x8192 --m 128 --splits auto,3 --check 111x8192x8192
  chk --arch sm_90a --weight u8 --act bf16 --shapes 4096x4096 --m 256 --splits auto --check 177x4096x4096
  chk --arch sm_90a --weight e4m3 --act bf16 --shapes 14336x4096 --m 100 --splits auto --check 71x14336x4096
  # Session 10: the four-warpgroup warp-specialized tiles (setmaxnreg): 32 rows at M 17..32 on
  # the largest layers, 48 rows at M 33..48 from 4096 x 14336 elements; 8-bit weights keep the
  # session-9 plans there.
  chk --arch sm_90a --shapes 8192x28672 --m 32 --splits auto,3 --check 29x8192x28672
  chk --arch sm_90a --act bf16 --group 64 --shapes 28672x8192 --m 24 --splits auto --check 17x28672x8192
  chk --arch sm_90a --shapes 8192x8192 --m 40 --splits auto,1 --check 45x8192x8192
  chk --arch sm_90a --weight e2m1 --act bf16 --shapes 4096x14336 --m 48 --splits auto --check 33x4096x14336
  chk --arch sm_90a --weight u8 --shapes 28672x8192 --m 40 --splits auto --check 41x28672x8192
  # Session 11: wgmma defaults for 8-bit scales (MXFP4, e4m3 in groups of 16) and per-group
  # zero points; zero points folded at M <= 8 (f16, under 8 bits), fields in place elsewhere.
  chk --arch sm_90a --weight e2m1 --act bf16 --scale ue8m0 --group 32 --shapes 28672x8192 --m 128 --splits auto --check 97x28672x8192
  chk --arch sm_90a --weight e2m1 --scale e4m3 --group 16 --shapes 8192x8192 --m 64 --splits auto,3 --check 53x8192x8192
  chk --arch sm_90a --dynamic-zero --shapes 8192x28672 --m 40 --splits auto --check 37x8192x28672
  chk --arch sm_90a --dynamic-zero --act bf16 --shapes 14336x4096 --m 200 --splits auto --check 181x14336x4096
  chk --arch sm_90a --dynamic-zero --weight u8 --shapes 8192x8192 --m 128 --splits auto --check 119x8192x8192
  chk --arch sm_90a --dynamic-zero --shapes 28672x8192 --m 1 --splits auto,2 --check 1x28672x8192
  chk --dynamic-zero --weight u3 --shapes 4096x4096 --m 8 --splits auto --check 6x4096x4096
  chk --dynamic-zero --group 64 --shapes 4096x4096 --m 16 --splits auto --check 14x4096x4096
  # Session 12: two-tile swapped plans (M = 9..16) subtract the offsets per pair (no fold).
  chk --arch sm_90a --shapes 8192x28672 --m 16 --splits auto,3 --check 13x8192x28672
  chk --weight u2 --group 64 --shapes 4096x4096 --m 16 --splits auto --check 16x4096x4096
  chk --weight u6 --act bf16 --shapes 28672x8192 --m 12 --splits auto --check 11x28672x8192
  # Session 12: M = 17..32 of 4-bit weights (N <= 8192): the four-tile half-width plan, one wave.
  chk --arch sm_90a --shapes 4096x4096 --m 24 --splits auto --check 24x4096x4096
  chk --dynamic-zero --shapes 8192x8192 --m 32 --splits auto --check 21x8192x8192
  chk --weight e2m1 --scale e4m3 --group 16 --shapes 6144x4096 --m 32 --splits auto --check 31x6144x4096
  # Session 14: the 256 x 128 warp-specialized tile at M = 129..256 on layers from 14336
  # columns or 8192 x 14336 elements (split-K tail after the branches join), split 2 where its
  # grid fills more than one wave over K >= 8192 a quarter better.
  chk --arch sm_90a --shapes 28672x8192 --m 256 --splits auto,2 --check 200x28672x8192
  chk --arch sm_90a --shapes 24576x8192 --m 160 --splits auto --check 139x24576x8192
  chk --arch sm_90a --act bf16 --shapes 8192x28672 --m 192 --splits auto --check 150x8192x28672
  chk --arch sm_90a --weight e2m1 --act bf16 --scale ue8m0 --group 32 --shapes 14336x4096 --m 256 --splits auto --check 241x14336x4096
  chk --arch sm_90a --dynamic-zero --weight u8 --shapes 20480x8192 --m 256 --splits auto --check 256x20480x8192
} > /dev/null 2> "$OUT/default-checks.txt"
echo "GPU checks of the default plans passed: $(grep -c '^check' "$OUT/default-checks.txt")"
grep "^check" "$OUT/default-checks.txt" | sed -E 's/.*hm_a16_//' | head
grep -vE "^check|^NVIDIA|^N x K|^skip" "$OUT/default-checks.txt" | head -5 || true
