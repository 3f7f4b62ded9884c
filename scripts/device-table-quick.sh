#!/usr/bin/env bash
# The device calls of a stop: the issue-6 table (bench-session.sh: humming graph + cold next to
# cuBLAS / tinygemm, the layer API on the portable and the Hopper target) and the short
# correctness call (device-quick.sh); `checkplans` runs only the GPU suites a plan-choice change
# touches, `plans` A/Bs this GPU's plans against the defaults. PARTS picks which run ("table
# quick" by default: 140 + 250 s on an H100, more where machines are slower; split them over two
# 600 s calls when in doubt). Each part runs under its own timeout. Run on the GPU
# machine after `bash scripts/gpu-bundle.sh` here. The device tool returns at most 8 files from
# $OUT, so the logs go to a work folder and come back as one archive beside the main results.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
W=/tmp/device-call; rm -rf "$W"; mkdir -p "$W/bench" "$W/quick"
PARTS=${PARTS:-"table quick"}
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader | tee "$W/gpu.txt"
for part in $PARTS; do
  t0=$(date +%s)
  case $part in
    table)
      OUT=$W/bench ARCH=${ARCH:-sm_90a} NOPDL=${NOPDL:-0} FORMATS=${FORMATS:-0} RUNTIME_ARCHS=${RUNTIME_ARCHS:-"sm_90 sm_90a"} \
        RUNTIME_M=${RUNTIME_M:-1,16,32,64,128,256} timeout ${TABLE_S:-330} bash scripts/bench-session.sh > "$W/bench/session.txt" 2>&1
      echo "table: exit $? in $(( $(date +%s) - t0 )) s"
      cp "$W/bench/table.txt" "$W/bench/humming.jsonl" "$W/bench/torch.jsonl" "$W/bench/runtime.jsonl" "$OUT/" 2>/dev/null ;;
    quick)
      OUT=$W/quick timeout ${QUICK_S:-560} bash scripts/device-quick.sh > "$W/quick/summary.txt" 2>&1
      echo "device-quick: exit $? in $(( $(date +%s) - t0 )) s"
      tail -n 60 "$W/quick/summary.txt"
      cp "$W/quick/summary.txt" "$OUT/device-quick-summary.txt" ;;
    checkplans)
      # The GPU suites that a plan-choice change touches (the sm_90a plans incl. this GPU's, the
      # layer API), without device-quick.sh's sanitizers and examples.
      for t in gpu_sm90a_plans gpu_runtime; do
        HUMMING_REQUIRE_GPU=1 HUMMING_PTX_CACHE=/tmp/humming-ptx-cache timeout 200 gpu-bundle/bin/$t --test-threads=1 --nocapture > "$W/quick/$t.log" 2>&1
        echo "$t: exit $?"; grep -hE "test result|checked|worst|failed|FAILED|panicked|default launches" "$W/quick/$t.log" | head -n 12
      done
      echo "checkplans: in $(( $(date +%s) - t0 )) s" ;;
    plans)
      # This GPU's plans (Gpu::profile) against the defaults (--default-plans) at M <= 32 on the
      # issue shapes, alternated three times in one process each (A/B, graph harness).
      # ab_summary.py's labels: bench_a16 (new: this GPU's plans), bench_a16_old (the defaults).
      for r in 1 2 3; do for d in "" "--default-plans"; do
        timeout 60 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy $d --label "bench_a16${d:+_old}" --shapes 8192x8192,8192x28672,28672x8192 \
          --m 1,2,4,8,12,16,32 --harness graph >> "$W/bench/plans.jsonl" 2>> "$W/bench/plans.err"
      done; done
      python3 scripts/ab_summary.py "$W/bench/plans.jsonl" > "$W/bench/plans.txt" 2>&1 || true
      echo "plans: in $(( $(date +%s) - t0 )) s"; cat "$W/bench/plans.txt"
      cp "$W/bench/plans.jsonl" "$W/bench/plans.txt" "$OUT/" ;;
    *) echo "unknown part $part"; exit 2 ;;
  esac
done
tar -czf "$OUT/logs.tgz" -C "$W" .
