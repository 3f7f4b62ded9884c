#!/usr/bin/env bash
# The H200 call owed since session 32 (one 600 s call, after `bash scripts/gpu-bundle.sh` here).
# On an H200 (the issue's GPU): the H100's rules (v27-v30: the 16-row warp-specialized tile and
# the two-CTA plan at M <= 16, the deeper rings at M <= 8, the tiles with two math warpgroups at
# M 17..48) against the H200's defaults, as one A/B (`bench_a16 --lean-plans`), then the issue
# table (its kernels are v26's). On an H100 (the issue table and the formats ran in sessions
# 36-38): the other widths at M <= 16 on the wgmma plans the rules give them (v36 timed M >= 17
# only), then the table.
set -uo pipefail
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
q=scripts/device-table-quick.sh
if [[ $gpu == *H200* ]]; then
  # The H100's (lean-DRAM) rules against the H200's defaults on the issue shapes (bench_a16
  # --lean-plans against --default-plans, two alternations, graph harness): v27-v30's M <= 16
  # tiles and rings, v30's two-warpgroup tiles at M 17..48. Then the issue table.
  LOGS=0 PARTS=plans PLANS_NEW=--lean-plans PLANS_REPS=2 PLANS_S=120 PLANS_M=1,8,16,24,32,48,64 bash $q
  LOGS=0 PARTS=table bash $q
else
  LOGS=0 PARTS=widths WIDTHS_M=1,8,16 WIDTHS_SHAPES=28672x8192,8192x28672 \
    WIDTHS_SPECS="--weight u3;--weight u5;--weight u6;--weight u7 --act bf16;--weight e3m2 --act bf16 --scale ue8m0 --group 32" bash $q
  PARTS=table bash $q
fi
