#!/usr/bin/env bash
# One device call: GPU test bundle, compute-sanitizer on each A16 pipeline variant, and the
# first W4A16 timing next to cuBLAS measured in the same run. Run on the GPU machine from the
# repository root after `bash scripts/gpu-bundle.sh` here; logs go to $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
status=0
bash gpu-bundle/run.sh || status=1
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    echo "=== compute-sanitizer --tool $tool sanitize_a16"
    compute-sanitizer --tool $tool --error-exitcode 9 gpu-bundle/bin/example_sanitize_a16 2>&1 | tee "$OUT/sanitizer_$tool.log" | tail -n 8
    rc=${PIPESTATUS[0]}; echo "compute-sanitizer $tool exit $rc"; [ "$rc" -eq 0 ] || status=1
  done
else
  echo "compute-sanitizer not found"
fi
echo "=== benchmark (steady state: rotating weights, CUDA events)"
gpu-bundle/bin/example_bench_a16 --shapes 8192x8192 --m 1,16,64,256,4096 --harness graph,cold > "$OUT/bench_humming.jsonl" || status=1
PYTHONUNBUFFERED=1 python3 scripts/bench_torch.py --shapes 8192x8192 --m 1,16,64,256,4096 > "$OUT/bench_torch.jsonl" || status=1
python3 scripts/bench_table.py "$OUT/bench_humming.jsonl" "$OUT/bench_torch.jsonl" | tee "$OUT/bench_table.txt"
echo "device session exit $status"
exit $status
