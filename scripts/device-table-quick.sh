#!/usr/bin/env bash
# The device calls of a stop: the issue-6 table (bench-session.sh: humming graph + cold next to
# cuBLAS / tinygemm, the layer API on the portable and the Hopper target) and the short
# correctness call (device-quick.sh). PARTS picks which run ("table quick" by default; the
# correctness part alone needs ~7 min since gpu_runtime covers sm_90a too, so a 600 s call runs
# one part: PARTS=quick, then PARTS=table). Each part runs under its own timeout. Run on the GPU
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
    *) echo "unknown part $part"; exit 2 ;;
  esac
done
tar -czf "$OUT/logs.tgz" -C "$W" .
