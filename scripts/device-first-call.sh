#!/usr/bin/env bash
# The next session's device calls (after `bash scripts/gpu-bundle.sh` here; for the H100's A/B,
# 1e5533e's bench_a16, v38's shipped build without the per-group sums, copied to
# gpu-bundle/old/example_bench_a16). First call, any GPU: the short
# correctness call on the re-landed per-group sums (v39 ran only the sm_90a default plans on
# them): `PARTS=quick bash scripts/device-table-quick.sh`. Second call (this script, 600 s): on an
# H200 (the issue's GPU) the H100's rules (v27-v30: the 16-row warp-specialized tile and the
# two-CTA plan at M <= 16, the deeper rings at M <= 8, the tiles with two math warpgroups at
# M 17..48) against the H200's defaults, as one A/B (`bench_a16 --lean-plans`), then the issue
# table (its kernels are v26's; u4 has not changed since v34); on an H100 the re-land's A/B with
# two alternations (v39 had one, on the H200) at M 1 / 8 / 16.
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
  C="--check 13x2240x5120"
  LOGS=0 PARTS=fmtab FMTAB_TAG=-sums FMTAB_OLD=gpu-bundle/old/example_bench_a16 FMTAB_REPS=2 FMTAB_M=1,8,16 FMTAB_SHAPES=28672x8192,8192x8192 \
    FMTAB_SPECS="--weight e2m1 --act bf16 --scale ue8m0 --group 32 $C;--weight e3m2 --act bf16 --scale ue8m0 --group 32 $C;--weight e2m1 --scale e4m3 --group 16 $C;--weight u4 $C" bash $q
  grep -h "^check" /tmp/device-call/bench/fmtab-sums.err | sort | uniq -c | sort -rn | head -n 30
fi
