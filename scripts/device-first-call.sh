#!/usr/bin/env bash
# The next session's first device call (600 s; after `bash scripts/gpu-bundle.sh` here). On an
# H200 (the issue's GPU; its last table is v26's, u4's kernels are v34's): the issue table first,
# then, in what is left of the call, the H100's rules (v27-v30: the 16-row warp-specialized tile
# and the two-CTA plan at M <= 16, the deeper rings at M <= 8, the tiles with two math
# warpgroups at M 17..48) against the H200's defaults as one A/B (`bench_a16 --lean-plans`, graph
# harness, two alternations of at most 60 s a side, on 8192^2 and 28672 x 8192). On an H100 it
# stops at once: v41 measured the H100's issue table with the other formats on this build, and
# an early stop keeps the device time for another try at an H200.
set -uo pipefail
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
q=scripts/device-table-quick.sh
if [[ $gpu == *H200* ]]; then
  LOGS=0 PARTS=table FORMATS=1 RUNTIME=0 TABLE_S=330 bash $q
  LOGS=0 PARTS=plans PLANS_NEW=--lean-plans PLANS_REPS=2 PLANS_S=60 PLANS_M=1,8,16,32,48 \
    PLANS_SHAPES=8192x8192,28672x8192 bash $q
else
  echo "$gpu: nothing to run here (v41 measured the H100's table on this build)"
fi
