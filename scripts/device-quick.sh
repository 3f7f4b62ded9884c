#!/usr/bin/env bash
# A shorter correctness call than device-session.sh (which spends ~6 min on gpu_a16's realistic
# shapes): the runtime (incl. back-to-back dependent layers), the macro, the IR samples, every
# target of the A16 family, the sm_90a plans (defaults and a grid), compute-sanitizer memcheck on the runtime and on the back-to-back
# chain, racecheck and synccheck on one kernel per pipeline variant, and the self-checking examples. Run on
# the GPU machine after `bash scripts/gpu-bundle.sh` here; logs under $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export HUMMING_REQUIRE_GPU=1 HUMMING_PTX_CACHE=/tmp/humming-ptx-cache
B=gpu-bundle/bin
status=0
step() { local name=$1; shift; echo "=== $name"; "$@" > "$OUT/$name.log" 2>&1; local rc=$?
  grep -hE "test result|passed|checked|match|worst|ERROR SUMMARY|RACECHECK SUMMARY|FAILED|panicked" "$OUT/$name.log" | head -n 12
  [ "$rc" -eq 0 ] || { echo "FAILED: $name (exit $rc)"; status=1; }; }
step gpu_runtime $B/gpu_runtime --test-threads=1 --nocapture
step gpu_macro $B/gpu_macro --test-threads=1 --nocapture
step gpu_ir_samples $B/gpu_ir_samples --test-threads=1 --nocapture
step gpu_a16_targets $B/gpu_a16 --test-threads=1 --nocapture every_target
# The sm_90a wgmma / warp-specialized plans (the speed table's) where the device runs them.
step gpu_sm90a_plans $B/gpu_sm90a_plans --test-threads=1 --nocapture
step memcheck_runtime compute-sanitizer --tool memcheck --error-exitcode 9 $B/gpu_runtime --test-threads=1 misuse back_to_back workspace
step racecheck_a16 compute-sanitizer --tool racecheck --error-exitcode 9 $B/example_sanitize_a16
# Barriers (session 14: an aligned bar.sync reached from two branches, v13).
step synccheck_a16 compute-sanitizer --tool synccheck --error-exitcode 9 $B/example_sanitize_a16
for ex in quickstart runtime_spec custom_format; do step example_$ex $B/example_$ex; done
echo "device quick check exit $status"
exit $status
