#!/usr/bin/env bash
# A change to the 4-bit float kernels on a GPU (session 37 measured the bit placement with it,
# perf notes v35). Here: save gpu-bundle/bin/example_bench_a16 of the build before the change,
# build the change (`bash scripts/gpu-bundle.sh`), put the saved binary in gpu-bundle/old/ and
# the cubins to compare (plan_ptx --out) in gpu-bundle/sass/.
# One device call then runs an A/B of the two builds on MXFP4 (bf16, ue8m0
# g32) and e2m1 with e4m3 g16 scales and f16 activations, then the GPU suites that check 4-bit
# floats against the f64 reference (the layer API, the sm_90a default plans, the realistic
# shapes); first the SASS instruction mix of the cubins.
set -uo pipefail
export PATH=$PATH:/usr/local/cuda/bin
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader
bash scripts/sass_mix.sh gpu-bundle/sass/*.cubin
LOGS=0 PARTS=fmtab FMTAB_M=${FMTAB_M:-1,16,64} FMTAB_REPS=${FMTAB_REPS:-2} \
  FMTAB_SPECS=${FMTAB_SPECS:-"--weight e2m1 --act bf16 --scale ue8m0 --group 32;--weight e2m1 --act f16 --scale e4m3 --group 16"} \
  bash scripts/device-table-quick.sh 2>&1 | tail -n 40
for t in gpu_runtime "gpu_sm90a_plans --exact gpu_sm90a_default_plans" "gpu_a16 --exact gpu_a16_realistic_shapes"; do
  set -- $t
  HUMMING_REQUIRE_GPU=1 timeout 240 gpu-bundle/bin/$1 --test-threads=1 --nocapture ${@:2} > "$OUT/$1.log" 2>&1
  echo "$1: exit $?"; grep -hE "test result|worst|failed|FAILED|panicked" "$OUT/$1.log" | head -n 8
done
