#!/usr/bin/env bash
# One device call of the performance work (issue 6): correctness of the changed kernels, then the
# benchmarks of humming (examples/bench_a16.rs) and the torch baselines (scripts/bench_torch.py)
# in the same call, merged by scripts/bench_table.py. Run on the GPU machine from the repository
# root with the bundle in perf-bundle/ (built here by scripts/perf-bundle.sh):
#
#     bash perf-bundle/perf-session.sh <phase>
#
# Logs go to $OUT (at most 8 files come back).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=perf-bundle
phase=${1:-all}
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
H=$OUT/humming.jsonl; T=$OUT/torch.jsonl; L=$OUT/log.txt
bench() { "$B/bin/bench_a16" "$@" >> "$H" 2>> "$L"; }
shapes=8192x8192,28672x8192,8192x28672
case "$phase" in
  v1)
    # The issue-4 kernel under the new harnesses, with plan and split sweeps at M = 1 and 16.
    bench --label v1 --shapes $shapes --m 1,16,32,64,128,256 --harness graph,cold
    bench --label v1 --no-copy --shapes 8192x8192 --m 1 --harness launch
    bench --label v1-sweep --no-copy --shapes 8192x8192 --m 1,16 --harness graph \
      --plans m1x16_n4x64_k2w_bk128_s4,m1x16_n4x64_k4w_bk256_s4,m1x16_n4x64_k2w_bk128_s8,m1x16_n2x64_k4w_bk256_s4,m1x16_n2x64_k2w_bk128_s6,m1x16_n1x64_k4w_bk256_s4,m1x16_n1x64_k4w_bk256_s8,m1x16_n1x64_k2w_bk128_s8,m1x16_n2x64_k1w_bk64_s8 \
      --splits auto,1,2,4,8
    timeout 120 python3 $B/bench_torch.py --shapes $shapes --m 1,16,32,64,128,256 > "$T" 2>> "$L"
    if command -v ncu >/dev/null; then
      timeout 90 ncu --clock-control none --target-processes all -k regex:hm_a16 -s 3 -c 1 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
        --section Occupancy --section LaunchStats --section SourceCounters \
        "$B/bin/bench_a16" --no-copy --shapes 8192x8192 --m 1 --harness launch --iters 2 --reps 1 > "$OUT/ncu.txt" 2>&1
      tail -n 120 "$OUT/ncu.txt" | head -n 120 > /dev/null
    fi
    ;;
esac
python3 $B/bench_table.py "$H" "$T" > "$OUT/table.txt"
python3 $B/bench_table.py --all "$H" > "$OUT/sweep.txt"
grep -iE "error|panic|fail" "$L" | head -20
cat "$OUT/table.txt"
