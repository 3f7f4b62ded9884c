#!/usr/bin/env bash
# The H200 call owed since session 32 (one 600 s call, after `bash scripts/gpu-bundle.sh` here),
# after the diagnostic call `PARTS="diffg16 checklean" bash scripts/device-table-quick.sh`.
# On an H200 (the issue's GPU): the H100's rules (v27-v30: the 16-row warp-specialized tile and
# the two-CTA plan at M <= 16, the deeper rings at M <= 8, the tiles with two math warpgroups at
# M 17..48) against the H200's defaults, as one A/B (`bench_a16 --lean-plans`), then the issue
# table (its kernels are v26's). On an H100: what v38 left (the lean GPU's default plans on the
# GPU, the A/B of the ue8m0 conversion).
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
  # The ue8m0 conversion alone (the shipped part of v38): 5a9198a's bench_a16 (copy it to
  # gpu-bundle/old-head/) against this build, each kernel checked first, u4 f16 as the control.
  C="--check 13x2240x5120"
  LOGS=0 PARTS=fmtab FMTAB_TAG=-ue8m0 FMTAB_OLD=gpu-bundle/old-head/example_bench_a16 FMTAB_REPS=2 FMTAB_M=1,16,64 FMTAB_SHAPES=28672x8192,8192x8192 \
    FMTAB_SPECS="--weight e2m1 --act bf16 --scale ue8m0 --group 32 $C;--weight e3m2 --act bf16 --scale ue8m0 --group 32 $C;--weight u4 $C" bash $q
  grep -h "^check" /tmp/device-call/bench/fmtab-ue8m0.err | sort | uniq -c | sort -rn | head -n 30
fi
