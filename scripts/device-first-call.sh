#!/usr/bin/env bash
# The H200 call owed since session 32 (one 600 s call, after `bash scripts/gpu-bundle.sh` here).
# On an H200 (the issue's GPU): the plans that won on the H100 in v27-v30 against the H200's
# defaults (the 16-row warp-specialized tile and the two-CTA plan at M <= 16, v29's five-stage
# ring at M <= 8; the tiles with two math warpgroups at M 24..48, also with six stages), then
# the issue table (last: its kernels are v26's, so the sweeps come first where device time is
# short). On an H100 (session 33 ran the one-warpgroup sweep there): 28672 x 8192 at M = 128
# over more splits, deeper rings for the 32-row two-warpgroup tile, the sanitizers on the
# one-warpgroup tile.
set -uo pipefail
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
q=scripts/device-table-quick.sh
if [[ $gpu == *H200* ]]; then
  LOGS=0 PARTS=mid MID_TAG=-small MID_M=1,8,16 MID_SHAPES=8192x28672,28672x8192,8192x8192 \
    MID_PLANS=m1x16_n4x64_k1w_bk128_s4_ws,m2x8_n2x32_k4w_bk512_s3,m1x8_n1x64_k8w_bk512_s5 bash $q
  LOGS=0 PARTS=mid MID_TAG=-wg MID_M=24,32,48 MID_SHAPES=8192x8192,28672x8192,4096x14336 \
    MID_PLANS=m2x16_n2x64_k1w_bk128_s4_ws,m2x16_n2x64_k1w_bk128_s6_ws,m2x16_n4x64_k1w_bk128_s4_ws,m3x16_n2x64_k1w_bk128_s4_ws,m3x16_n4x64_k1w_bk128_s4_ws bash $q
  LOGS=0 PARTS=table bash $q
else
  # Session 33 ran the one-warpgroup sweep here; what it left: 28672 x 8192 at M = 128 (224 tiles
  # of 128 columns on 132 SMs, 1.7 waves) over splits that fill the waves better (3: 5.1 waves,
  # 5: 8.5, 7: 11.9); deeper rings for the two-warpgroup 32-row tile (only ever run with four
  # 128-deep stages); the sanitizers on the one-warpgroup tile (checkmid).
  LOGS=0 PARTS=mid MID_TAG=-m128 MID_M=128 MID_SHAPES=28672x8192 MID_SPLITS=auto,1,2,3,5,7 \
    MID_PLANS=m8x16_n2x64_k1w_bk128_s4_ws,m8x16_n4x64_k1w_bk128_s4_wg,m8x16_n2x64_k1w_bk128_s5_ws bash $q
  LOGS=0 PARTS=mid MID_TAG=-ring MID_M=24,32 MID_SHAPES=8192x8192,4096x14336 \
    MID_PLANS=m2x16_n2x64_k1w_bk128_s6_ws,m2x16_n2x64_k1w_bk128_s8_ws,m2x16_n2x64_k1w_bk256_s4_ws,m2x16_n2x64_k1w_bk64_s8_ws bash $q
  PARTS=checkmid bash $q
fi
