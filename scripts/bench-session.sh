#!/usr/bin/env bash
# Benchmark call (issue 6 table): humming (CUDA-graph steady state and cold with an untimed L2
# flush) and the torch baselines (cuBLAS f16/bf16/fp8, tinygemm) in one device call, merged by
# scripts/bench_table.py. Run on the GPU machine after `bash scripts/gpu-bundle.sh` here.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
S=8192x8192,28672x8192,8192x28672
# ARCH=sm_90a benchmarks the arch-specific target (wgmma plans above M = 128); default: the
# device's portable target.
A=${ARCH:+--arch $ARCH}
timeout 230 gpu-bundle/bin/example_bench_a16 $A --shapes $S --m 1,2,4,8,16,32,64,128,256 --harness graph,cold > "$OUT/humming.jsonl" 2> "$OUT/humming.err"
# The same GEMMs with plain launches (no programmatic dependent launch), for comparison (NOPDL=0
# skips them).
[ "${NOPDL:-1}" = 1 ] && timeout 120 gpu-bundle/bin/example_bench_a16 $A --no-copy --no-pdl --label no-pdl --shapes $S --m 1,16,32,64,128,256 --harness graph >> "$OUT/humming.jsonl" 2>> "$OUT/humming.err"
timeout 40 gpu-bundle/bin/example_bench_a16 $A --no-copy --shapes 4096x4096 --m 1,8,16,32,64,128,256 --harness graph >> "$OUT/humming.jsonl" 2>> "$OUT/humming.err"
# FORMATS=0 and RUNTIME=0 skip the other formats and the layer API (when device time is short).
if [ "${FORMATS:-1}" = 1 ]; then
  for w in "--weight u8" "--weight u3" "--weight e2m1 --act bf16 --scale ue8m0 --group 32" "--weight u4 --act bf16"; do
    timeout 30 gpu-bundle/bin/example_bench_a16 $A --no-copy $w --shapes 28672x8192 --m 1,16,64 --harness graph >> "$OUT/humming.jsonl" 2>> "$OUT/humming.err"
  done
fi
# The layer API (QuantizedLinear::forward, its kept split-K workspace) on the same shapes, for the
# device's fastest target, or for each of RUNTIME_ARCHS (e.g. "sm_90 sm_90a": the portable
# target's mma.sync plans against the Hopper one's wgmma plans) with RUNTIME_M's M.
if [ "${RUNTIME:-1}" = 1 ]; then
  : > "$OUT/runtime.jsonl"
  for a in ${RUNTIME_ARCHS:-fastest}; do
    ra=; [ "$a" = fastest ] || ra="--arch $a"
    timeout 150 gpu-bundle/bin/example_bench_runtime $ra --label "$a" --shapes $S --m ${RUNTIME_M:-1,8,16,64} >> "$OUT/runtime.jsonl" 2>> "$OUT/runtime.err"
  done
  cat "$OUT/runtime.jsonl"
fi
timeout ${TORCH_S:-220} python3 scripts/bench_torch.py --shapes $S,4096x4096 --m 1,2,4,8,16,32,64,128,256 > "$OUT/torch.jsonl" 2> "$OUT/torch.err"
python3 scripts/bench_table.py "$OUT/humming.jsonl" "$OUT/torch.jsonl" > "$OUT/table.txt" 2>&1
cat "$OUT/table.txt" | head -120
if [ "${NCU:-0}" = 1 ] && command -v ncu >/dev/null; then
  # Where the time goes at M = 1 and M = 64 (8192^2, default plan and split): issue, stalls, DRAM.
  for m in 1 64; do
    timeout 60 ncu --clock-control none --target-processes all -k regex:hm_a16 -s 2 -c 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
      gpu-bundle/bin/example_bench_a16 --no-copy --shapes 8192x8192 --m $m --harness launch --iters 2 --reps 1 > "$OUT/ncu_m$m.txt" 2>&1
  done
fi
