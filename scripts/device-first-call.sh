#!/usr/bin/env bash
# The H200 call owed since session 32 (one 600 s call, after `bash scripts/gpu-bundle.sh` here).
# On an H200 (the issue's GPU): the plans that won on the H100 in v27-v30 against the H200's
# defaults (the 16-row warp-specialized tile and the two-CTA plan at M <= 16, v29's five-stage
# ring at M <= 8; the tiles with two math warpgroups at M 24..48, also with six stages), then
# the issue table (last: its kernels are v26's, so the sweeps come first where device time is
# short). On an H100 (sessions 33-34 ran what was owed there: v31, v32): the formats at their
# defaults, then the issue table.
# (Session 35 ran tensor_rate.py's shared-memory-A step on an H100, v33; its rows match v21's
# H200 rows, so this call does not repeat it.)
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
  # Sessions 33-34 ran this branch's sweeps and checks (v31, v32); an H100 call now times the
  # formats at their defaults (session 37's rule for 4-bit floats at M <= 8 was chosen from a
  # sweep, v35: MXFP4 on 28672 x 8192 M = 1 should take about 53 us), then re-times the issue
  # table (its cells at M = 128 / 256 move between calls: the power cap).
  LOGS=0 PARTS=formats bash $q
  PARTS=table bash $q
fi
