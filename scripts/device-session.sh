#!/usr/bin/env bash
# One device call for the correctness side: the GPU bundle (tests + self-checking examples),
# compute-sanitizer memcheck on the typed runtime's misuse and stream tests, memcheck and
# racecheck on one kernel of each A16 pipeline variant, and (with BENCH=1) the W4A16 timing next
# to cuBLAS. Run on the GPU machine from the repository root after `bash scripts/gpu-bundle.sh`
# here. Logs: every log into one tarball $OUT/logs.tgz (the device tool returns few files), a
# summary in $OUT/summary.txt.
set -uo pipefail
RESULT=${OUT:-/tmp/out}; mkdir -p "$RESULT"
export OUT=/tmp/device-logs; rm -rf "$OUT"; mkdir -p "$OUT"
status=0
bash gpu-bundle/run.sh || status=1
if command -v compute-sanitizer >/dev/null; then
  echo "=== compute-sanitizer --tool memcheck gpu_runtime (misuse, two streams)"
  HUMMING_REQUIRE_GPU=1 compute-sanitizer --tool memcheck --error-exitcode 9 gpu-bundle/bin/gpu_runtime --test-threads=1 misuse two_streams \
    > "$OUT/sanitizer_runtime.log" 2>&1
  rc=$?; tail -n 4 "$OUT/sanitizer_runtime.log"; echo "compute-sanitizer memcheck gpu_runtime exit $rc"; [ "$rc" -eq 0 ] || status=1
  for tool in memcheck racecheck; do
    echo "=== compute-sanitizer --tool $tool sanitize_a16"
    compute-sanitizer --tool $tool --error-exitcode 9 gpu-bundle/bin/example_sanitize_a16 > "$OUT/sanitizer_$tool.log" 2>&1
    rc=$?; tail -n 4 "$OUT/sanitizer_$tool.log"; echo "compute-sanitizer $tool exit $rc"; [ "$rc" -eq 0 ] || status=1
  done
else
  echo "compute-sanitizer not found"
fi
if [ "${BENCH:-0}" = 1 ]; then
  echo "=== benchmark (graph steady state and cold, next to cuBLAS in the same call)"
  gpu-bundle/bin/example_bench_a16 --shapes 8192x8192 --m 1,16,64,256 --harness graph,cold > "$OUT/bench_humming.jsonl" || status=1
  PYTHONUNBUFFERED=1 python3 scripts/bench_torch.py --shapes 8192x8192 --m 1,16,64,256 > "$OUT/bench_torch.jsonl" || status=1
  python3 scripts/bench_table.py "$OUT/bench_humming.jsonl" "$OUT/bench_torch.jsonl" | tee "$OUT/bench_table.txt"
fi
grep -h -E "^(test result|SKIPPED|FAILED|GPU bundle|=== )|checked|passed|worst|misuse|compute-sanitizer|ERROR SUMMARY" "$OUT"/*.log > "$RESULT/summary.txt" 2>/dev/null
tar czf "$RESULT/logs.tgz" -C "$OUT" .
echo "device session exit $status"
exit $status
