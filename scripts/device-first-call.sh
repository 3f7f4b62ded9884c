#!/usr/bin/env bash
# The H200 call owed since session 32 (one 600 s call, after `bash scripts/gpu-bundle.sh` here).
# On an H200 (the issue's GPU): the H100's rules (v27-v30: the 16-row warp-specialized tile and
# the two-CTA plan at M <= 16, the deeper rings at M <= 8, the tiles with two math warpgroups at
# M 17..48) against the H200's defaults, as one A/B (`bench_a16 --lean-plans`), then the issue
# table (its kernels are v26's). On an H100 nothing (v37 timed the other widths at M <= 16 and
# the table there).
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
  # Nothing is owed on an H100 (v37 ran its last item, the other widths at M <= 16, and the table).
  echo "not an H200: nothing to run"
fi
