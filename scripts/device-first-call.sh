#!/usr/bin/env bash
# The H200 call owed since session 32 (one 600 s call, after `bash scripts/gpu-bundle.sh` here).
# On an H200 (the issue's GPU): the H100's rules (v27-v30: the 16-row warp-specialized tile and
# the two-CTA plan at M <= 16, the deeper rings at M <= 8, the tiles with two math warpgroups at
# M 17..48) against the H200's defaults, as one A/B (`bench_a16 --lean-plans`), then the issue
# table (its kernels are v26's). On an H100: v38's scale conversions (A/B), the lean GPU's
# default plans on the GPU, and the A/B that v37's M 9..16 rule for wider codes still owes.
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
  # 1. v38's 8-bit scale conversions: HEAD 5a9198a's bench_a16 (gpu-bundle/old-head/) against
  # this build, each kernel checked against the f64 reference first (--check), u4 f16 (f16
  # scales, unchanged) as the control. 2. The GPU check of the lean GPU's default plans. 3. v37's
  # M 9..16 rule for wider codes (shipped from one sweep): the build before it (gpu-bundle/old/,
  # 4e286d3) against HEAD's, e2m1 f16 as the control.
  C="--check 13x2240x5120"
  LOGS=0 PARTS=fmtab FMTAB_TAG=-scales FMTAB_OLD=gpu-bundle/old-head/example_bench_a16 FMTAB_REPS=2 FMTAB_M=1,16,64 FMTAB_SHAPES=28672x8192,8192x8192 \
    FMTAB_SPECS="--weight e2m1 --act bf16 --scale ue8m0 --group 32 $C;--weight e3m2 --act bf16 --scale ue8m0 --group 32 $C;--weight e2m1 --scale e4m3 --group 16 $C;--weight u4 $C" bash $q
  grep -h "^check" /tmp/device-call/bench/fmtab-scales.err | sort | uniq -c | sort -rn | head -n 30
  LOGS=0 PARTS=checklean bash $q
  LOGS=0 PARTS=fmtab FMTAB_TAG=-v37 FMTAB_NEW=gpu-bundle/old-head/example_bench_a16 FMTAB_REPS=2 FMTAB_M=12,16 FMTAB_SHAPES=8192x8192,28672x8192,8192x28672 \
    FMTAB_SPECS="--weight u5 $C;--weight u6 $C;--weight u8 $C;--weight e3m2 --act bf16 --scale ue8m0 --group 32 $C;--weight e2m1 --act bf16 --scale ue8m0 --group 32 $C;--weight e2m1 --scale e4m3 --group 16 $C" bash $q
  grep -h "^check" /tmp/device-call/bench/fmtab-v37.err | sort | uniq -c | sort -rn | head -n 40
fi
