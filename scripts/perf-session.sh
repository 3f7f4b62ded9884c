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
# One GPU check against the f64 reference, on stderr (the phases send it to tests.txt):
# chk "<spec args>" <shape> <bench M> <plans> <splits> <check MxNxK>, with the phase's $A
# (CHK_BIN: another binary in bin/).
chk() { timeout 60 "$B/bin/${CHK_BIN:-bench_a16}" $A $1 --label chk --no-copy --shapes $2 --m $3 --harness graph --iters 2 --reps 1 --plans $4 --splits $5 --check $6; }
# How many checks tests.txt holds, and the first lines that are not checks (errors).
checks_report() { echo "GPU plan checks passed: $(grep -c '^check' "$OUT/tests.txt")"; grep -vE "^check|^NVIDIA|^N x K|^skip" "$OUT/tests.txt" | head -5; }
# A/B of the default plans: bin/bench_a16_old (OLD in perf-bundle.sh) and bin/bench_a16, in the
# order old, new, new, old (a drift over the call that is linear in time cancels in the means
# that ab_summary.py prints beside the best times; v73 had the new build's two runs after the old
# one's each, and 8192 x 28672 M = 1 read +1.2% there, +0.1% with the order reversed in v74),
# with the phase's $A and the given arguments (shapes, M, spec). AB_ORDER: another order.
ab() { for bin in ${AB_ORDER:-bench_a16_old bench_a16 bench_a16 bench_a16_old}; do timeout 60 "$B/bin/$bin" $A --label $bin --no-copy --harness graph --plans auto --splits auto "$@" >> "$H" 2>> "$L"; done; }
# The same with three builds (bin/bench_a16_old2 between them).
abc() { for bin in bench_a16_old bench_a16_old2 bench_a16 bench_a16_old bench_a16_old2 bench_a16; do timeout 90 "$B/bin/$bin" $A --label $bin --no-copy --harness graph --plans auto --splits auto "$@" >> "$H" 2>> "$L"; done; }
# One sweep run (graph harness) into sweep.jsonl with the phase's $A and the label $1; then
# sweep_report: each cell's best plan / split and every plan / split's best and spread.
sweep() { local label=$1; shift; H=$OUT/sweep.jsonl bench $A --label $label --no-copy --harness graph "$@"; }
sweep_report() { python3 scripts/sweep_best.py "$OUT/sweep.jsonl" --all > "$OUT/best.txt" 2>&1; cat "$OUT/best.txt"; }
# The warp-specialized tiles' GPU checks (v81, v87): M = 29..200, u4 f16 / bf16, u8, MXFP4,
# splits 1-3.
ws_checks() {
  chk "" 28672x8192 32 auto auto 29x28672x8192
  chk "--act bf16" 8192x28672 48 auto auto,2 45x8192x28672
  chk "" 8192x8192 64 auto auto,3 61x8192x8192
  chk "--weight u8" 28672x8192 128 auto auto 100x28672x8192
  chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 8192x8192 200 auto auto,2 200x8192x8192
}
# ws_checks and the bulk copies' cases (v105, v109): per-channel u8 and MXFP4 g32 at K = 8128 (a
# partial last stage), the 256-row tile.
bulk_checks() {
  ws_checks
  chk "--weight u8 --group 0" 28672x8192 64 auto auto,2 61x28672x8128
  chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 8192x8192 128 auto auto 97x8192x8128
  chk "" 8192x28672 256 auto auto 256x8192x28672
}
# nvidia-smi sampling the SM clock, power and clock event reasons every 20 ms into smi.csv
# (v82, v83, v88; scripts/clock_windows.py reads it), until smi_stop.
smi_start() {
  local r=clocks_event_reasons.active
  nvidia-smi --query-gpu=$r --format=csv,noheader > /dev/null 2>&1 || r=clocks_throttle_reasons.active
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,$r --format=csv,noheader -lms 20 > "$OUT/smi.csv" 2>&1 &
  smi_pid=$!
}
smi_stop() { kill $smi_pid; }
# Energy and time a GEMM (v97, v99, v101, v103): one case run twice, 200 and 1400 graph replays, each
# between two reads of NVML's energy counter into $ENERGY_LOG (scripts/energy.py); then
# scripts/energy_report.py. epair <case> <binary in bin/> <bench args...>, with the phase's $A.
epair() {
  local case=$1 bin=$2; shift 2
  for r in 200 1400; do
    python3 scripts/energy.py "$case r$r" -- "$B/bin/$bin" $A --label "$case r$r" --no-copy --harness graph --reps $r "$@" >> "$H" 2>> "$L"
  done
}
# The same for cuBLAS f16 (scripts/bench_torch.py): epair_cublas <case> <bench_torch args...>.
epair_cublas() {
  local case=$1; shift
  for r in 200 1400; do
    python3 scripts/energy.py "$case r$r" -- python3 scripts/bench_torch.py --impls cublas_f16 --harness graph --reps $r --no-copy --label "$case r$r" "$@" >> "$T" 2>> "$L"
  done
}
# One benchmark run of 300 graph replays in its own window of the nvidia-smi log (v95, v96):
# win <key> <bench args...>, with the phase's $A and $W (the windows file clock_windows.py reads).
win() { local key=$1; shift; echo "$key start $(date +%H:%M:%S.%N)" >> "$W"; bench $A --label "$key" --no-copy --harness graph --reps 300 "$@"; echo "$key end $(date +%H:%M:%S.%N)" >> "$W"; }
# Every graph-harness time of each cell and plan / split (or torch impl) in the given jsonl
# files, sorted (v90, v92, v93).
cell_times() {
  python3 -c '
import json, sys, collections
d = collections.defaultdict(list)
for p in sys.argv[1:]:
    for l in open(p):
        r = json.loads(l)
        if r.get("harness") == "graph":
            d[(r["n"], r["k"], r["m"], r.get("plan") or r["impl"], r.get("split"))].append(r["us"])
for k, v in sorted(d.items(), key=lambda x: (x[0][:3], str(x[0][3]), str(x[0][4]))):
    print(k, sorted(v))' "$@"
}
# compute-sanitizer tools on the sanitize_a16 cases whose names contain <cases>, one log a tool
# in $OUT: sanitizers <cases> <tool>...
sanitizers() {
  local cases=$1; shift
  for tool in "$@"; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$B/bin/sanitize_a16" "$cases" > "$OUT/$tool.txt" 2>&1
    echo "$tool exit $?"; grep -E "ok \\(|SUMMARY|FAILED|rror" "$OUT/$tool.txt" | head -8
  done
}
# racecheck and synccheck on the warp-specialized cases.
ws_sanitizers() { sanitizers warp-specialized racecheck synccheck; }
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
  v2)
    # Correctness of the changed kernels on the GPU first (realistic shapes, every target, IR
    # samples incl. the cache-hint sample), compute-sanitizer on one kernel per pipeline variant.
    export HUMMING_REQUIRE_GPU=1
    { timeout 100 $B/bin/gpu_ir_samples --test-threads=1 --nocapture 2>&1 | tail -n 5
      timeout 200 $B/bin/gpu_a16 --test-threads=1 --nocapture realistic every_target 2>&1 | grep -vE "^\s*$" | tail -n 40
      for tool in memcheck racecheck; do
        timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/bin/sanitize_a16 2>&1 | tail -n 6; echo "sanitizer $tool exit ${PIPESTATUS[0]}"
      done; } > "$OUT/tests.txt" 2>&1
    grep -E "test result|FAILED|panicked|exit|ERROR" "$OUT/tests.txt"
    m1=m1x16_n2x64_k4w_bk256_s4,m1x16_n2x64_k4w_bk256_s3,m1x16_n2x64_k4w_bk256_s5,m1x16_n1x64_k4w_bk256_s4,m1x16_n1x64_k4w_bk256_s6,m1x16_n4x64_k4w_bk256_s3,m1x16_n2x64_k2w_bk128_s6,m1x16_n4x64_k2w_bk128_s4,m1x16_n2x64_k4w_bk128_s6,m1x16_n1x64_k2w_bk128_s8
    m2=m2x16_n2x64_k2w_bk128_s4,m2x16_n4x64_k1w_bk64_s4,m2x16_n2x64_k4w_bk256_s3,m2x16_n1x64_k4w_bk256_s4,m2x16_n2x64_k2w_bk256_s3,m2x16_n4x64_k2w_bk128_s3
    m4=m4x16_n4x64_k1w_bk64_s3,m4x16_n2x64_k2w_bk128_s3,m4x16_n2x64_k1w_bk64_s4,m4x16_n4x64_k2w_bk128_s2,m4x16_n1x64_k4w_bk256_s2
    bench --label v2 --shapes $shapes,4096x4096 --m 1,2,4,8,16,32,64,128,256 --harness graph,cold
    bench --label v2s --no-copy --shapes 8192x8192,28672x8192,8192x28672 --m 1,16 --harness graph --plans $m1 --splits auto,1,2,3,4,6,8
    bench --label v2s --no-copy --shapes 8192x8192,28672x8192 --m 32 --harness graph --plans $m2 --splits auto,1,2,4
    bench --label v2s --no-copy --shapes 8192x8192,28672x8192 --m 64,128 --harness graph --plans $m4 --splits auto,1,2,4
    for spec in "--weight u8" "--weight u3" "--weight e2m1 --act bf16 --scale ue8m0 --group 32" "--weight u4 --act bf16"; do
      bench --label v2 --no-copy $spec --shapes $shapes,4096x4096 --m 1,16,64,256 --harness graph
    done
    timeout 200 python3 $B/bench_torch.py --shapes $shapes,4096x4096 --m 1,2,4,8,16,32,64,128,256 > "$T" 2>> "$L"
    if command -v ncu >/dev/null; then
      timeout 100 ncu --clock-control none --target-processes all -k regex:hm_a16 -s 2 -c 1 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
        --section Occupancy --section LaunchStats --section InstructionStats --metrics smsp__inst_executed.sum,smsp__sass_inst_executed_op_shared_ld.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum \
        "$B/bin/bench_a16" --no-copy --shapes 8192x8192 --m 1 --harness launch --iters 2 --reps 1 > "$OUT/ncu.txt" 2>&1
    fi
    ;;
  v3)
    export HUMMING_REQUIRE_GPU=1
    { timeout 60 $B/bin/gpu_ir_samples --test-threads=1 --nocapture 2>&1 | tail -n 3
      timeout 150 $B/bin/gpu_a16 --test-threads=1 --nocapture realistic every_target 2>&1 | grep -vE "^\s*$" | tail -n 40
      for tool in memcheck racecheck; do
        timeout 50 compute-sanitizer --tool $tool --error-exitcode 9 $B/bin/sanitize_a16 2>&1 | tail -n 12; echo "sanitizer $tool exit ${PIPESTATUS[0]}"
      done; } > "$OUT/tests.txt" 2>&1
    grep -E "test result|FAILED|panicked|exit|ERROR|passed" "$OUT/tests.txt"
    m1=m1x16_n2x64_k4w_bk256_s4,m1x16_n2x64_k4w_bk256_s3,m1x16_n2x64_k4w_bk256_s5,m1x16_n1x64_k4w_bk256_s4,m1x16_n1x64_k4w_bk256_s6,m1x16_n1x64_k8w_bk256_s4,m1x16_n1x64_k8w_bk512_s3,m1x16_n2x64_k4w_bk512_s2,m1x16_n2x64_k8w_bk512_s3,m1x16_n4x64_k4w_bk256_s3,m1x16_n2x64_k2w_bk128_s6,m1x16_n4x64_k2w_bk128_s4
    m2=m2x16_n2x64_k2w_bk128_s4,m2x16_n4x64_k1w_bk64_s4,m2x16_n2x64_k4w_bk256_s3,m2x16_n1x64_k4w_bk256_s4,m2x16_n2x64_k2w_bk256_s3,m2x16_n4x64_k2w_bk128_s3,m2x16_n1x64_k8w_bk256_s3
    m4=m4x16_n4x64_k1w_bk64_s3,m4x16_n2x64_k2w_bk128_s3,m4x16_n2x64_k1w_bk64_s4,m4x16_n4x64_k2w_bk128_s2,m4x16_n1x64_k4w_bk256_s2,m4x16_n2x64_k4w_bk256_s2
    timeout 90 "$B/bin/bench_a16" --label v2 --shapes $shapes,4096x4096 --m 1,2,4,8,16,32,64,128,256 --harness graph,cold >> "$H" 2>> "$L"
    timeout 150 python3 $B/bench_torch.py --shapes $shapes,4096x4096 --m 1,2,4,8,16,32,64,128,256 > "$T" 2>> "$L"
    timeout 60 "$B/bin/bench_a16" --label v2s --no-copy --shapes 8192x8192,8192x28672 --m 1,16 --harness graph --plans $m1 --splits auto,2,4,8 >> "$H" 2>> "$L"
    timeout 40 "$B/bin/bench_a16" --label v2s --no-copy --shapes 28672x8192 --m 1,16 --harness graph --plans $m1 --splits auto,1,2,3 >> "$H" 2>> "$L"
    timeout 40 "$B/bin/bench_a16" --label v2s --no-copy --shapes 8192x8192,28672x8192 --m 32 --harness graph --plans $m2 --splits auto,1,2,4 >> "$H" 2>> "$L"
    timeout 50 "$B/bin/bench_a16" --label v2s --no-copy --shapes 8192x8192,28672x8192 --m 64,128,256 --harness graph --plans $m4 --splits auto,1,2 >> "$H" 2>> "$L"
    for spec in "--weight u8" "--weight u3" "--weight e2m1 --act bf16 --scale ue8m0 --group 32" "--weight u4 --act bf16"; do
      timeout 25 "$B/bin/bench_a16" --label v2 --no-copy $spec --shapes $shapes,4096x4096 --m 1,16,64,256 --harness graph >> "$H" 2>> "$L"
    done
    # GPU correctness of every swept plan (default split and split 2) at 4096^2.
    { timeout 60 "$B/bin/bench_a16" --label chk --no-copy --shapes 4096x4096 --m 16 --harness graph --iters 2 --reps 1 --plans $m1 --splits auto,2 --check 16x4096x4096
      timeout 30 "$B/bin/bench_a16" --label chk --no-copy --shapes 4096x4096 --m 32 --harness graph --iters 2 --reps 1 --plans $m2 --splits auto,2 --check 32x4096x4096
      timeout 30 "$B/bin/bench_a16" --label chk --no-copy --shapes 4096x4096 --m 64 --harness graph --iters 2 --reps 1 --plans $m4 --splits auto,2 --check 64x4096x4096; } > /dev/null 2> /tmp/checks.txt
    cat /tmp/checks.txt >> "$OUT/tests.txt"
    echo "GPU plan checks passed: $(grep -c '^check' /tmp/checks.txt)"; grep -vE "^check|^NVIDIA|^N x K|^skip" /tmp/checks.txt | head -5
    if command -v ncu >/dev/null; then
      for m in 1 64; do
        timeout 45 ncu --clock-control none --target-processes all -k regex:hm_a16 -s 2 -c 1 \
          --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
          --section Occupancy --section LaunchStats --section InstructionStats \
          "$B/bin/bench_a16" --no-copy --shapes 8192x8192 --m $m --harness launch --iters 2 --reps 1 > "$OUT/ncu_m$m.txt" 2>&1
      done
    fi
    ;;
  v4)
    # Session 3: the parallel split-K reduction and regular activation copies. GPU checks of the
    # changed kernels (every target; swept plans at large splits), then plan x split sweeps for
    # every M bucket, so the split heuristic can use splits above M = 16.
    export HUMMING_REQUIRE_GPU=1
    m1=m1x16_n1x64_k8w_bk512_s3,m1x16_n2x64_k4w_bk256_s4,m1x16_n1x64_k4w_bk256_s6,m1x16_n2x64_k8w_bk512_s3,m1x16_n1x64_k8w_bk256_s4
    m2=m2x16_n1x64_k4w_bk256_s4,m2x16_n2x64_k2w_bk256_s3,m2x16_n1x64_k8w_bk256_s3,m2x16_n2x64_k4w_bk256_s3
    m4=m4x16_n1x64_k4w_bk256_s2,m4x16_n2x64_k4w_bk256_s2,m4x16_n2x64_k2w_bk128_s3,m4x16_n1x64_k4w_bk128_s4,m4x16_n4x64_k1w_bk64_s3
    { timeout 100 $B/bin/gpu_a16 --test-threads=1 --nocapture every_target 2>&1 | grep -vE "^\s*$" | tail -n 12
      timeout 40 "$B/bin/bench_a16" --label chk --no-copy --shapes 4096x4096 --m 13 --harness graph --iters 2 --reps 1 --plans $m1 --splits auto,3,8 --check 13x4096x4096
      timeout 40 "$B/bin/bench_a16" --label chk --no-copy --shapes 4096x4096 --m 29 --harness graph --iters 2 --reps 1 --plans $m2 --splits auto,3,8 --check 29x4096x4096
      timeout 60 "$B/bin/bench_a16" --label chk --no-copy --shapes 4096x4096 --m 100 --harness graph --iters 2 --reps 1 --plans $m4 --splits auto,3,8 --check 100x4096x4096; } > "$OUT/tests.txt" 2>&1
    grep -E "test result|FAILED|panicked|passed|rror" "$OUT/tests.txt" | head -20; echo "GPU plan checks passed: $(grep -c '^check' "$OUT/tests.txt")"
    timeout 120 "$B/bin/bench_a16" --label v4s --shapes $shapes,4096x4096 --m 1,16 --harness graph --plans $m1 --splits 1,2,3,4,6,8 >> "$H" 2>> "$L"
    timeout 60 "$B/bin/bench_a16" --label v4s --no-copy --shapes $shapes,4096x4096 --m 32 --harness graph --plans $m2 --splits 1,2,3,4,6,8 >> "$H" 2>> "$L"
    timeout 150 "$B/bin/bench_a16" --label v4s --no-copy --shapes $shapes,4096x4096 --m 64,128,256 --harness graph --plans $m4 --splits 1,2,3,4,6,8 >> "$H" 2>> "$L"
    timeout 150 python3 $B/bench_torch.py --shapes $shapes,4096x4096 --m 1,16,32,64,128,256 > "$T" 2>> "$L"
    ;;
  v5)
    # Session 3: more CTAs per SM for one-m16-tile plans (`.minnctapersm` from the shared memory,
    # a16::ctas_per_sm) against the same plans compiled for 1 (HUMMING_MIN_CTAS=1), M = 1 and 16.
    p=m1x16_n1x64_k8w_bk512_s3,m1x16_n2x64_k4w_bk256_s4,m1x16_n1x64_k8w_bk256_s3,m1x16_n1x64_k8w_bk256_s4,m1x16_n1x64_k4w_bk256_s4,m1x16_n1x64_k4w_bk256_s3,m1x16_n2x64_k4w_bk128_s4,m1x16_n1x64_k8w_bk512_s2,m1x16_n1x64_k4w_bk512_s2
    timeout 40 "$B/bin/bench_a16" --label chk --no-copy --shapes 4096x4096 --m 13 --harness graph --iters 2 --reps 1 --plans $p --splits 3 --check 13x4096x4096 > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 150 "$B/bin/bench_a16" --label v5auto --shapes $shapes,4096x4096 --m 1,16 --harness graph --plans $p --splits 1,2,4,8 >> "$H" 2>> "$L"
    HUMMING_MIN_CTAS=1 timeout 150 "$B/bin/bench_a16" --label v5one --no-copy --shapes $shapes,4096x4096 --m 1,16 --harness graph --plans $p --splits 1,2,4,8 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v6)
    # Session 4: swapped plans for M <= 16 (weights as the MMA's A operand, group scales on the
    # f32 sums). GPU checks (every target at the default plans; the swept plans at odd M and
    # large splits), then the swapped candidates x splits against v3's plans in the same call.
    export HUMMING_REQUIRE_GPU=1
    s1=m1x8_n1x64_k8w_bk512_s3,m1x8_n1x64_k4w_bk512_s4,m1x8_n1x64_k4w_bk256_s4,m1x8_n2x64_k4w_bk256_s4,m1x8_n1x64_k8w_bk512_s4,m1x8_n1x64_k8w_bk256_s4
    s2=m2x8_n1x64_k8w_bk512_s3,m2x8_n1x64_k4w_bk512_s4,m2x8_n1x64_k4w_bk256_s4,m2x8_n2x64_k4w_bk256_s4,m2x8_n1x64_k8w_bk256_s4
    old=m1x16_n1x64_k8w_bk512_s3,m1x16_n2x64_k4w_bk256_s4
    { timeout 120 $B/bin/gpu_a16 --test-threads=1 --nocapture every_target realistic 2>&1 | grep -vE "^\s*$" | tail -n 12
      timeout 40 "$B/bin/bench_a16" --label chk --no-copy --shapes 4096x4096 --m 5 --harness graph --iters 2 --reps 1 --plans $s1 --splits auto,3,8 --check 5x4096x4096
      timeout 40 "$B/bin/bench_a16" --label chk --no-copy --shapes 4096x4096 --m 13 --harness graph --iters 2 --reps 1 --plans $s2 --splits auto,3,8 --check 13x4096x4096
      timeout 40 "$B/bin/bench_a16" --label chk --no-copy --weight u8 --act bf16 --group 32 --shapes 4096x4096 --m 1,16 --harness graph --iters 2 --reps 1 --plans auto --splits auto,3 --check 16x4096x4096
      timeout 40 "$B/bin/bench_a16" --label chk --no-copy --weight e2m1 --act bf16 --scale ue8m0 --group 32 --shapes 4096x4096 --m 1,16 --harness graph --iters 2 --reps 1 --plans auto --splits auto,3 --check 16x4096x4096
      for tool in memcheck racecheck; do
        timeout 50 compute-sanitizer --tool $tool --error-exitcode 9 $B/bin/sanitize_a16 2>&1 | tail -n 4; echo "sanitizer $tool exit ${PIPESTATUS[0]}"
      done; } > "$OUT/tests.txt" 2>&1
    grep -E "test result|FAILED|panicked|passed|rror|exit" "$OUT/tests.txt" | head -20; echo "GPU plan checks passed: $(grep -c '^check' "$OUT/tests.txt")"
    timeout 150 "$B/bin/bench_a16" --label v6s --shapes $shapes,4096x4096 --m 1 --harness graph --plans $old,$s1,$s2 --splits auto,1,2,4,8 >> "$H" 2>> "$L"
    timeout 120 "$B/bin/bench_a16" --label v6s --no-copy --shapes $shapes,4096x4096 --m 8,16 --harness graph --plans $old,$s1,$s2 --splits auto,1,2,4,8 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v7)
    # Session 4: swapped plans of two n8 tiles of M (M 9..16) compiled for 2 CTAs per SM
    # (at most 128 registers) against v3's M <= 16 plans; ncu of the swapped M = 1 kernel.
    s2=m2x8_n1x64_k8w_bk512_s3,m2x8_n2x64_k4w_bk256_s4,m2x8_n1x64_k8w_bk256_s4
    old=m1x16_n1x64_k8w_bk512_s3,m1x16_n2x64_k4w_bk256_s4
    timeout 40 "$B/bin/bench_a16" --label chk --no-copy --shapes 4096x4096 --m 13 --harness graph --iters 2 --reps 1 --plans $s2 --splits auto,3 --check 13x4096x4096 > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 150 "$B/bin/bench_a16" --label v7s --no-copy --shapes $shapes,4096x4096 --m 16 --harness graph --plans $old,$s2 --splits 1,2,4 >> "$H" 2>> "$L"
    if command -v ncu >/dev/null; then
      timeout 60 ncu --clock-control none --target-processes all -k regex:hm_a16 -s 2 -c 1 \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
        --section Occupancy --section LaunchStats --section InstructionStats \
        "$B/bin/bench_a16" --no-copy --shapes 8192x8192 --m 1 --harness launch --iters 2 --reps 1 > "$OUT/ncu_m1.txt" 2>&1
    fi
    echo '{}' > "$T"
    ;;
  v12)
    # Session 6: offsets folded into one extra MMA per step (swapped plans, integer codes with
    # an implicit zero point). GPU checks (default plans on every target; the swept swapped plans
    # at odd M, splits, the folding specs), then the swapped plans against the previous build
    # (bin/bench_a16_old, same call) at M = 1, 8 and 16.
    export HUMMING_REQUIRE_GPU=1
    s1=m1x8_n1x64_k8w_bk512_s3,m1x8_n1x64_k4w_bk512_s4,m1x8_n2x64_k4w_bk256_s4,m1x8_n1x64_k8w_bk256_s4,m1x8_n2x64_k8w_bk512_s3
    s2=m2x8_n1x64_k8w_bk512_s3,m2x8_n1x64_k4w_bk512_s4,m2x8_n2x64_k4w_bk256_s4,m2x8_n1x64_k8w_bk256_s4
    old=m1x16_n1x64_k8w_bk512_s3,m1x16_n2x64_k4w_bk256_s4
    { timeout 150 $B/bin/gpu_a16 --test-threads=1 --nocapture every_target realistic 2>&1 | grep -vE "^\s*$" | tail -n 12
      for spec in "--weight u4" "--weight u8" "--weight u4 --act bf16 --group 0" "--weight u2 --group 16" "--weight u5 --act bf16 --group 64"; do
        timeout 40 "$B/bin/bench_a16" $spec --label chk --no-copy --shapes 4096x4096 --m 5 --harness graph --iters 2 --reps 1 --plans $s1 --splits auto,3,8 --check 5x4096x4096
        timeout 40 "$B/bin/bench_a16" $spec --label chk --no-copy --shapes 4096x4096 --m 13 --harness graph --iters 2 --reps 1 --plans $s2 --splits auto,3 --check 13x4096x4096
      done
      timeout 40 "$B/bin/bench_a16" --label chk --no-copy --shapes 8192x28672 --m 1,16 --harness graph --iters 2 --reps 1 --plans auto --splits auto --check 16x8192x28672
    } > "$OUT/tests.txt" 2>&1
    grep -E "test result|FAILED|panicked|rror|exit" "$OUT/tests.txt" | head -20; echo "GPU plan checks passed: $(grep -c '^check' "$OUT/tests.txt")"
    for bin in bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" --label $bin --shapes $shapes,4096x4096 --m 1,8 --harness graph --plans auto,$s1 --splits auto,1,2,4 >> "$H" 2>> "$L"
      timeout 100 "$B/bin/$bin" --label $bin --no-copy --shapes $shapes,4096x4096 --m 16 --harness graph --plans auto,$old,$s2 --splits auto,1,2,4 >> "$H" 2>> "$L"
    done
    echo '{}' > "$T"
    ;;
  v13)
    # Session 6: what limits M = 16 on the large shapes. Candidates: two row tiles of the M = 8
    # plans (each CTA as at M = 8, the weights read twice through L2), wider N tiles (the
    # activations re-read by fewer CTAs); ncu (memory, issue, stalls) of M = 8 against M = 16.
    c16=m1x16_n2x64_k4w_bk256_s4,m1x16_n1x64_k8w_bk512_s3,m1x8_n2x64_k4w_bk256_s4,m1x8_n2x64_k8w_bk512_s3,m1x8_n4x64_k2w_bk256_s4,m1x8_n4x64_k4w_bk256_s3,m1x16_n4x64_k2w_bk256_s4,m1x16_n4x64_k4w_bk256_s3,m1x16_n4x64_k2w_bk512_s3,m2x8_n2x64_k4w_bk512_s3
    c8=m1x8_n2x64_k4w_bk256_s4,m1x8_n4x64_k2w_bk256_s4,m1x8_n4x64_k4w_bk256_s3,m1x8_n4x64_k2w_bk512_s3
    timeout 30 "$B/bin/bench_a16" --label chk --no-copy --shapes 4096x4096 --m 13 --harness graph --iters 2 --reps 1 --plans $c16 --splits auto,3 --check 13x4096x4096 > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 150 "$B/bin/bench_a16" --label v13 --shapes $shapes --m 16 --harness graph --plans auto,$c16 --splits auto,1,2,4 >> "$H" 2>> "$L"
    timeout 60 "$B/bin/bench_a16" --label v13 --no-copy --shapes $shapes --m 8 --harness graph --plans auto,$c8 --splits auto,1,2,4 >> "$H" 2>> "$L"
    bash $B/ncu-stall.sh small
    echo '{}' > "$T"
    ;;
  v14)
    # Session 6: swapped plans of two n8 tiles of M with folded offsets and the activation
    # fragments loaded in MMA order (45 SASS instructions per k16 x n64 block against 74 for the
    # m16 plan): M = 16 and, as two row tiles, M = 32, against the current defaults.
    export HUMMING_REQUIRE_GPU=1
    s2=m2x8_n1x64_k8w_bk512_s3,m2x8_n2x64_k4w_bk512_s3,m2x8_n2x64_k4w_bk256_s4,m2x8_n1x64_k4w_bk512_s4,m2x8_n4x64_k2w_bk256_s4,m2x8_n2x64_k2w_bk256_s4
    m16=m1x16_n2x64_k4w_bk256_s4,m1x16_n1x64_k8w_bk512_s3
    { timeout 200 $B/bin/gpu_a16 --test-threads=1 --nocapture every_target 2>&1 | grep -E "test result|FAILED|panicked"
      for spec in "--weight u4" "--weight u8" "--weight u4 --act bf16 --group 0" "--weight u2 --group 16" "--weight u5 --act bf16 --group 64" "--weight e2m1 --act bf16 --scale ue8m0 --group 32"; do
        timeout 40 "$B/bin/bench_a16" $spec --label chk --no-copy --shapes 4096x4096 --m 13,29 --harness graph --iters 2 --reps 1 --plans $s2 --splits auto,3 --check 29x4096x4096
      done
      timeout 40 "$B/bin/bench_a16" --label chk --no-copy --shapes 8192x28672 --m 16 --harness graph --iters 2 --reps 1 --plans $s2 --splits auto --check 16x8192x28672
    } > "$OUT/tests.txt" 2>&1
    grep -E "test result|FAILED|panicked|rror" "$OUT/tests.txt" | head -20; echo "GPU plan checks passed: $(grep -c '^check' "$OUT/tests.txt")"
    timeout 120 "$B/bin/bench_a16" --label v14 --shapes $shapes,4096x4096 --m 16 --harness graph --plans auto,$m16,$s2 --splits auto,1,2,4 >> "$H" 2>> "$L"
    timeout 120 "$B/bin/bench_a16" --label v14 --no-copy --shapes $shapes,4096x4096 --m 32 --harness graph --plans auto,m2x16_n2x64_k2w_bk256_s3,$m16,$s2 --splits auto,1,2,4 >> "$H" 2>> "$L"
    timeout 60 "$B/bin/bench_a16" --label v14 --no-copy --shapes $shapes --m 1,8 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v16)
    # Session 7: half-width warps (two warps per n64 block, 32 columns each, `n..x32`): half the
    # sums and temporaries a warp, twice the warps a CTA. GPU checks first (formats, M = 5, 13, 29,
    # splits), then M = 1, 8, 16, 32 against the current defaults on sm_90a, torch in the same call.
    A="--arch sm_90a"
    h1=m1x8_n2x32_k8w_bk512_s3,m1x8_n4x32_k4w_bk256_s4,m1x8_n4x32_k4w_bk512_s3,m1x8_n2x32_k4w_bk512_s4
    h2=m2x8_n4x32_k4w_bk512_s3,m2x8_n2x32_k8w_bk512_s3,m2x8_n4x32_k2w_bk256_s4,m2x8_n4x32_k4w_bk256_s4,m2x8_n8x32_k2w_bk256_s4,m2x8_n2x32_k4w_bk512_s4
    { for spec in "--weight u4" "--weight u8" "--weight u4 --act bf16 --group 0" "--weight u2 --group 16" "--weight u6 --act bf16 --group 64" "--weight e2m1 --act bf16 --scale ue8m0 --group 32" "--weight u4 --dynamic-zero --group 32"; do
        for m in 5 13 29; do
          timeout 40 "$B/bin/bench_a16" $A $spec --label chk --no-copy --shapes 4096x4096 --m $m --harness graph --iters 2 --reps 1 --plans m1x8_n2x32_k8w_bk512_s3,m2x8_n4x32_k4w_bk512_s3,m2x8_n4x32_k2w_bk256_s4 --splits auto,3 --check ${m}x4096x4096
        done
      done
      timeout 40 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 8192x28672 --m 16 --harness graph --iters 2 --reps 1 --plans $h2 --splits auto --check 16x8192x28672
    } > /dev/null 2> "$OUT/tests.txt"
    echo "GPU plan checks passed: $(grep -c '^check' "$OUT/tests.txt")"; grep -vE "^check|^NVIDIA|^N x K|^skip" "$OUT/tests.txt" | head -8
    timeout 120 "$B/bin/bench_a16" $A --label v16 --no-copy --shapes $shapes,4096x4096 --m 16 --harness graph --plans auto,$h2 --splits auto,1,2,4,8 >> "$H" 2>> "$L"
    timeout 100 "$B/bin/bench_a16" $A --label v16 --no-copy --shapes $shapes --m 1,8 --harness graph --plans auto,$h1 --splits auto,1,2,4 >> "$H" 2>> "$L"
    timeout 80 "$B/bin/bench_a16" $A --label v16 --no-copy --shapes $shapes --m 32 --harness graph --plans auto,m2x8_n4x32_k4w_bk512_s3,m2x8_n4x32_k2w_bk256_s4,m2x8_n8x32_k2w_bk256_s4 --splits auto,1,2,4 >> "$H" 2>> "$L"
    timeout 100 python3 $B/bench_torch.py --shapes $shapes --m 1,8,16,32 > "$T" 2>> "$L"
    ;;
  v17)
    # Session 7: half-width warps on smaller layers (v16: faster only at 4096^2 M = 16), M = 1, 8,
    # 16 against the defaults, torch in the same call.
    A="--arch sm_90a"
    h=m1x8_n2x32_k8w_bk512_s3,m1x8_n4x32_k4w_bk512_s3,m2x8_n4x32_k4w_bk512_s3,m2x8_n2x32_k4w_bk512_s4,m2x8_n2x32_k8w_bk512_s3,m2x8_n4x32_k2w_bk256_s4
    sh=4096x4096,14336x4096,4096x14336,6144x4096,2048x4096
    timeout 150 "$B/bin/bench_a16" $A --label v17 --no-copy --shapes $sh --m 1,8,16 --harness graph --plans auto,$h --splits auto,1,2,4,8 >> "$H" 2>> "$L"
    timeout 100 python3 $B/bench_torch.py --shapes $sh --m 1,8,16 > "$T" 2>> "$L"
    ;;
  v18)
    # Session 7: at N <= 4096 and M 9..16, half-width warps against full-width plans of the same
    # N tile (64 columns), so the gain of v17 is not just the smaller tile; GPU checks first.
    A="--arch sm_90a"
    p=m2x8_n2x32_k4w_bk512_s4,m2x8_n1x64_k8w_bk512_s3,m2x8_n1x64_k4w_bk512_s4,m2x8_n2x32_k8w_bk512_s3
    { timeout 40 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 2048x4096 --m 12 --harness graph --iters 2 --reps 1 --plans auto --splits auto,3 --check 12x2048x4096
      timeout 40 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 4096x4096 --m 16 --harness graph --iters 2 --reps 1 --plans auto --splits auto --check 16x4096x4096
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 120 "$B/bin/bench_a16" $A --label v18 --no-copy --shapes 2048x4096,4096x4096,1024x4096,4096x2048,6144x4096 --m 12,16 --harness graph --plans auto,$p --splits auto,1,2,4,8 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v19)
    # Session 7: half-width warps in the unswapped (m16) plans, M = 32 .. 256: half the f32
    # accumulators a warp, so 128 rows of M fit one CTA's warps (the dequantization then serves
    # 128 rows instead of 64). GPU checks first, then against the defaults on sm_90a.
    A="--arch sm_90a"
    c2=m2x16_n2x32_k4w_bk256_s4,m2x16_n2x32_k2w_bk256_s4,m2x16_n4x32_k2w_bk256_s3,m2x16_n4x32_k4w_bk256_s3
    c4=m4x16_n2x32_k2w_bk128_s3,m4x16_n2x32_k4w_bk256_s2,m4x16_n4x32_k2w_bk128_s3,m4x16_n2x32_k2w_bk256_s2,m4x16_n4x32_k1w_bk128_s4
    c8=m8x16_n2x32_k2w_bk128_s3,m8x16_n4x32_k2w_bk128_s3,m8x16_n4x32_k1w_bk128_s3,m8x16_n2x32_k4w_bk128_s3
    { for spec in "--weight u4" "--weight u8" "--weight e2m1 --act bf16 --scale ue8m0 --group 32" "--weight u4 --dynamic-zero --group 32" "--weight u2 --act bf16 --group 0"; do
        timeout 40 "$B/bin/bench_a16" $A $spec --label chk --no-copy --shapes 4096x4096 --m 29 --harness graph --iters 2 --reps 1 --plans m2x16_n2x32_k4w_bk256_s4,m2x16_n4x32_k2w_bk256_s3 --splits auto,3 --check 29x4096x4096
        timeout 40 "$B/bin/bench_a16" $A $spec --label chk --no-copy --shapes 4096x4096 --m 61 --harness graph --iters 2 --reps 1 --plans m4x16_n2x32_k2w_bk128_s3,m4x16_n4x32_k1w_bk128_s4 --splits auto,3 --check 61x4096x4096
        timeout 40 "$B/bin/bench_a16" $A $spec --label chk --no-copy --shapes 4096x4096 --m 200 --harness graph --iters 2 --reps 1 --plans m8x16_n2x32_k2w_bk128_s3,m8x16_n4x32_k1w_bk128_s3 --splits 1,2 --check 200x4096x4096
      done
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 90 "$B/bin/bench_a16" $A --label v19 --no-copy --shapes $shapes --m 32 --harness graph --plans auto,$c2 --splits auto,1,2,4 >> "$H" 2>> "$L"
    timeout 90 "$B/bin/bench_a16" $A --label v19 --no-copy --shapes $shapes --m 64 --harness graph --plans auto,$c4 --splits auto,1,2,4 >> "$H" 2>> "$L"
    timeout 120 "$B/bin/bench_a16" $A --label v19 --no-copy --shapes $shapes --m 128 --harness graph --plans auto,$c4,$c8 --splits auto,1,2 >> "$H" 2>> "$L"
    timeout 90 "$B/bin/bench_a16" $A --label v19 --no-copy --shapes $shapes --m 256 --harness graph --plans auto,$c8 --splits auto,1,2 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v20)
    # Session 7: weights by cp.async.bulk (warp 0, one k16 row a lane, an mbarrier a ring slot)
    # on sm_90. The IR sample and GPU checks first (partial last stages: K = 4224), then an A/B
    # against the previous build (bin/bench_a16_old, perf-bundle.sh OLD=...) in the same call.
    export HUMMING_REQUIRE_GPU=1
    timeout 60 $B/bin/gpu_ir_samples --test-threads=1 --nocapture 2>&1 | grep -E "bulk_copy|test result|FAILED|panicked" | head -5
    { for spec in "--weight u4" "--weight u8" "--weight e5m2 --act f16" "--weight u3 --act bf16 --group 64" "--weight u4 --dynamic-zero --group 32" "--weight e2m1 --act bf16 --scale ue8m0 --group 32"; do
        for m in 1 13 29 61 128; do
          timeout 40 "$B/bin/bench_a16" $spec --label chk --no-copy --shapes 4096x4224 --m $m --harness graph --iters 2 --reps 1 --plans auto --splits auto,3 --check ${m}x4096x4224
        done
      done
      timeout 40 "$B/bin/bench_a16" --label chk --no-copy --shapes 8192x28672 --m 16 --harness graph --iters 2 --reps 1 --plans auto --splits auto --check 16x8192x28672
      timeout 40 "$B/bin/bench_a16" --label chk --no-copy --shapes 8192x28672 --m 128 --harness graph --iters 2 --reps 1 --plans auto --splits auto --check 100x8192x28672
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" --arch sm_90a --label $bin --no-copy --shapes $shapes --m 1,8,16,32,64,128 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    echo '{}' > "$T"
    ;;
  v22)
    # Session 8: the next grid triggered right after griddepcontrol.wait (was: after the main
    # loop), so that with free registers and shared memory on an SM its CTAs request their first
    # weight stages while this grid streams. GPU checks, an A/B of the default plans against the
    # previous build (bin/bench_a16_old) in the same call, and a plan x split sweep at M = 1
    # (one CTA an SM leaves room for the next grid's CTAs).
    A="--arch sm_90a"
    { for m in 1 13 61; do timeout 40 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 4096x4224 --m $m --harness graph --iters 2 --reps 1 --plans auto --splits auto,1,3 --check ${m}x4096x4224; done
      timeout 40 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 8192x28672 --m 128 --harness graph --iters 2 --reps 1 --plans auto --splits auto --check 100x8192x28672
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A --label $bin --no-copy --shapes $shapes,4096x4096 --m 1,8,16,32,64 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    p1=m1x8_n1x64_k8w_bk512_s3,m1x8_n1x64_k8w_bk512_s4,m1x8_n1x64_k4w_bk512_s4,m1x8_n2x64_k4w_bk256_s4,m1x8_n2x64_k4w_bk512_s3
    timeout 150 "$B/bin/bench_a16" $A --label sweep --no-copy --shapes $shapes,4096x4096 --m 1 --harness graph --plans $p1 --splits 1,2,3,4 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v23)
    # Session 8: with the early trigger (v22) one CTA an SM can beat two; M <= 8 plan x split
    # sweep over layer shapes of 4096- and 8192-wide models, and M = 16 on the issue shapes.
    A="--arch sm_90a"
    p1=m1x8_n1x64_k8w_bk512_s3,m1x8_n2x64_k4w_bk256_s4,m1x8_n1x64_k8w_bk512_s4,m1x8_n2x64_k4w_bk256_s6,m1x8_n1x64_k4w_bk256_s4
    timeout 240 "$B/bin/bench_a16" $A --label sweep --no-copy --shapes 1024x4096,2048x4096,4096x4096,6144x4096,4096x14336,14336x4096,$shapes --m 1,8 --harness graph --plans $p1 --splits 1,2,4,8 >> "$H" 2>> "$L"
    timeout 100 "$B/bin/bench_a16" $A --label sweep16 --no-copy --shapes $shapes --m 16 --harness graph --plans auto,m2x8_n2x64_k2w_bk256_s4,m2x8_n2x64_k4w_bk512_s3 --splits 1,2,4 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v24)
    # Session 8: swapped plans with four n8 tiles of M (32 rows: the weights dequantized once for
    # 32 rows, scales on the f32 sums, folded offsets) at M = 17..32 against the m16 plans. GPU
    # checks of each swept plan first (M = 29 and 21, splits), then the sweep.
    A="--arch sm_90a"
    p4=m4x8_n2x64_k4w_bk256_s4,m4x8_n2x64_k2w_bk256_s4,m4x8_n1x64_k4w_bk256_s4,m4x8_n1x64_k8w_bk512_s3,m4x8_n2x64_k4w_bk512_s3,m4x8_n2x32_k4w_bk512_s4,m4x8_n4x32_k2w_bk256_s4,m4x8_n2x32_k4w_bk256_s4
    { for spec in "--weight u4" "--weight u8 --act bf16" "--weight e2m1 --act bf16 --scale ue8m0 --group 32" "--weight u4 --dynamic-zero --group 32"; do
        chk "$spec" 4096x4224 29 $p4 1,3 29x4096x4224
      done
      chk "" 8192x8192 21 $p4 2 21x8192x8192
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 240 "$B/bin/bench_a16" $A --label sweep32 --no-copy --shapes $shapes,4096x4096 --m 32 --harness graph --plans auto,$p4 --splits auto,1,2,4 >> "$H" 2>> "$L"
    timeout 120 "$B/bin/bench_a16" $A --label sweep24 --no-copy --shapes $shapes --m 24 --harness graph --plans auto,m4x8_n2x64_k4w_bk256_s4,m4x8_n2x64_k2w_bk256_s4,m4x8_n2x32_k4w_bk512_s4 --splits auto,1,2,4 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v25)
    # Session 8: warp-specialized wgmma plans (..._ws: a producer warpgroup copies with cp.async
    # and signals mbarriers; the wgmma warpgroups wait, compute and free the slots). GPU checks of
    # each swept plan (odd M, splits, partial last stages: K = 4224), then the sweep at M = 64,
    # 128 and 256 against the default and the wgmma plans, same call.
    A="--arch sm_90a"
    ws=m4x16_n3x64_k1w_bk128_s4_ws,m4x16_n2x64_k1w_bk128_s4_ws,m8x16_n2x64_k1w_bk128_s4_ws,m8x16_n2x64_k1w_bk128_s5_ws,m4x16_n3x64_k1w_bk128_s5_ws,m8x16_n2x64_k1w_bk64_s6_ws
    { for spec in "--weight u4" "--weight u8 --act bf16" "--weight e2m1 --act bf16 --scale ue8m0 --group 32"; do
        for m in 61 100 200; do
          chk "$spec" 4096x4224 $m $ws 1,3 ${m}x4096x4224
        done
      done
      chk "" 8192x8192 128 $ws auto 128x8192x8192
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 300 "$B/bin/bench_a16" $A --label sweep --no-copy --shapes $shapes --m 64,128,256 --harness graph --plans auto,m4x16_n4x64_k1w_bk128_s4_wg,m8x16_n4x64_k1w_bk128_s4_wg,$ws --splits auto,1,2,4 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v26)
    # Session 8: wgmma words read two steps ahead, A/B against the previous build
    # (bin/bench_a16_old) in the same call, wgmma plans at M = 64..256; GPU checks first. (The
    # change measured within 1% and was reverted: this phase now compares equal builds.)
    A="--arch sm_90a"
    wg=m4x16_n4x64_k1w_bk128_s4_wg,m8x16_n4x64_k1w_bk128_s4_wg
    { for m in 61 100 200; do timeout 60 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 4096x4224 --m $m --harness graph --iters 2 --reps 1 --plans $wg --splits 1,3 --check ${m}x4096x4224; done
      chk "--weight u8" 4096x4224 77 m4x16_n4x64_k1w_bk128_s3_wg 1,2 77x4096x4224
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A --label $bin --no-copy --shapes $shapes --m 64,128,256 --harness graph --plans $wg --splits auto >> "$H" 2>> "$L"
    done
    echo '{}' > "$T"
    ;;
  v27)
    # Session 8: are the wgmma plans short of bytes in flight at M = 64..128? Deeper rings
    # (more, shallower stages) against the defaults, same call.
    A="--arch sm_90a"
    w64=m4x16_n4x64_k1w_bk128_s4_wg,m4x16_n4x64_k1w_bk128_s5_wg,m4x16_n4x64_k1w_bk64_s6_wg,m4x16_n4x64_k1w_bk64_s8_wg,m4x16_n2x64_k1w_bk128_s6_wg
    w128=m8x16_n4x64_k1w_bk128_s4_wg,m8x16_n4x64_k1w_bk64_s6_wg,m8x16_n4x64_k1w_bk64_s8_wg
    timeout 60 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 4096x4224 --m 61 --harness graph --iters 2 --reps 1 --plans $w64 --splits 1,3 --check 61x4096x4224 > /dev/null 2> "$OUT/tests.txt"
    echo "GPU plan checks passed: $(grep -c '^check' "$OUT/tests.txt")"
    timeout 150 "$B/bin/bench_a16" $A --label sweep --no-copy --shapes $shapes --m 64 --harness graph --plans auto,$w64 --splits auto,2,4 >> "$H" 2>> "$L"
    timeout 100 "$B/bin/bench_a16" $A --label sweep --no-copy --shapes $shapes --m 128 --harness graph --plans auto,$w128 --splits auto,2,4 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v28)
    # Session 8: what the in-kernel split-K reduction costs. bin/bench_a16_old is a timing-only
    # build without it (partials written, no counter, no reduction: wrong outputs, never
    # checked); same call, same plans and splits. That build was a throwaway commit (the split
    # branch's code after the partial stores under a never-true condition), built with
    # `OLD=<commit> bash scripts/perf-bundle.sh` and not kept.
    A="--arch sm_90a"
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A --label $bin --no-copy --shapes 4096x4096,$shapes --m 1,8,16,64 --harness graph --plans auto --splits auto,1 >> "$H" 2>> "$L"
    done
    echo '{}' > "$T"
    ;;
  v110t)
    HUMMING_REQUIRE_GPU=1 timeout 560 $B/bin/gpu_a16 --test-threads=1 --nocapture > "$OUT/gpu_a16.txt" 2>&1
    echo "gpu_a16 exit $?"; grep -E "test result|FAILED|panicked|worst|failed" "$OUT/gpu_a16.txt" | head -12
    exit 0
    ;;
  v110)
    # Session 26, first call (bin/bench_a16_old = a16ba38; bin/bench_a16 = ddb1d6f, the
    # evict-first hint on the warp-specialized producer's bulk weight copies). The ws sanitizers
    # on the hint's kernels; then v109's M = 256 question (best-of +3.6% / +5.6% there, energy
    # unchanged): the A/B of M = 128 / 256 on the two large shapes, alternating eight times (old,
    # new, new, old, ...) so that the cap's slow spells fall on both. The whole gpu_a16 suite on
    # these kernels takes about 350 s and runs alone in a second call: phase v110t.
    ws_sanitizers
    A="--arch sm_90a"
    for i in 1 2 3 4; do
      ab --shapes 28672x8192,8192x28672 --m 128,256
    done
    python3 scripts/ab_summary.py "$H" 2>&1 | tail -12
    exit 0
    ;;
  v109)
    # Session 25, first call (bin/bench_a16_old = a16ba38, main's kernels; bin/bench_a16_old2 =
    # the evict-first L2 hint on the warp-specialized producer's bulk weight copies; bin/bench_a16
    # = that and v87's B descriptors made at the stage's top, desc-hoist.patch). Checks of both
    # new builds (ws tiles at M = 29..256, 8-bit, MXFP4 g32, a partial last stage), the
    # sanitizers on the ws cases (third build), the burst A/B of the three builds at M = 32..256 on
    # the three shapes, then energy a GEMM of the hint on 28672 x 8192 M = 128 / 256.
    A="--arch sm_90a"
    for CHK_BIN in bench_a16_old2 bench_a16; do bulk_checks; done > /dev/null 2> "$OUT/tests.txt"
    unset CHK_BIN
    checks_report
    ws_sanitizers
    HUMMING_SANITIZE_K=1024 sanitizers warp-specialized memcheck
    abc --shapes 28672x8192,8192x28672,8192x8192 --m 32,64,128,256
    python3 scripts/ab_summary.py "$H" 2>&1 | tail -30
    export ENERGY_LOG=$OUT/energy.jsonl
    for m in 128 256; do
      epair "28672x8192-$m-old" bench_a16_old --shapes 28672x8192 --m $m --plans auto --splits auto
      epair "28672x8192-$m-hint" bench_a16_old2 --shapes 28672x8192 --m $m --plans auto --splits auto
    done
    python3 scripts/energy_report.py "$ENERGY_LOG" "$H"
    exit 0
    ;;
  v108)
    # Session 24, sixth call (bin/bench_a16_old = 5f11fa9, bulk weight copies in the
    # warp-specialized producer only; bin/bench_a16 = the same copies in the mma.sync plans on
    # sm_90+: every warp's elected lane copies its k16 rows, on one mbarrier a ring slot that
    # every thread waits on besides the cp.async groups). Checks of the M <= 32 plans (u4 f16 /
    # bf16, u3, u8, MXFP4 g32 with a partial last stage, splits), the sanitizers on sanitize_a16's
    # mma.sync cases (sm_90), then the burst A/B at M = 1..32 on the three shapes and 4096^2.
    A="--arch sm_90a"
    { chk "" 28672x8192 1 auto auto,1,3 1x28672x8192
      chk "" 8192x28672 8 auto auto 7x8192x28672
      chk "--act bf16" 8192x8192 4 auto auto,1 3x8192x8192
      chk "--weight u3" 8192x8192 16 auto auto 13x8192x8192
      chk "" 8192x28672 16 auto auto,2 16x8192x28672
      chk "--weight u8" 28672x8192 16 auto auto 11x28672x8192
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 8192x8192 8 auto auto,2 5x8192x8128
      chk "" 4096x4096 32 auto auto 29x4096x4096
      chk "--weight u4 --group 0" 8192x8192 16 auto auto 9x8192x8128
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    sanitizers swapped racecheck synccheck memcheck
    ab --shapes 28672x8192,8192x28672,8192x8192 --m 1,4,8,16
    ab --shapes 4096x4096 --m 1,8,16,32
    python3 scripts/ab_summary.py "$H" 2>&1 | tail -18
    exit 0
    ;;
  v107)
    # Session 24, fifth call (v105's bundle): energy a GEMM (and the 1400-replay medians) of the
    # bulk weight copies against main's kernels on the cells v105 did not pair: 28672 x 8192 at
    # M = 64 / 256 and 8192 x 28672 at M = 32 / 128; 28672 x 8192 M = 128 again with the new
    # build first (v105: +1.4%).
    A="--arch sm_90a"
    export ENERGY_LOG=$OUT/energy.jsonl
    epair "28672x8192-128-bulk" bench_a16 --shapes 28672x8192 --m 128 --plans auto --splits auto
    epair "28672x8192-128-old" bench_a16_old --shapes 28672x8192 --m 128 --plans auto --splits auto
    for c in 28672x8192:64 28672x8192:256 8192x28672:32 8192x28672:128; do
      s=${c%:*}; m=${c#*:}
      epair "$s-$m-old" bench_a16_old --shapes $s --m $m --plans auto --splits auto
      epair "$s-$m-bulk" bench_a16 --shapes $s --m $m --plans auto --splits auto
    done
    python3 scripts/energy_report.py "$ENERGY_LOG" "$H"
    exit 0
    ;;
  v106)
    # Session 24, second call: the warp-specialized defaults' neighbours (ring depth, stage
    # depth, tile width) again with the bulk weight copies of v105, which lighten the producer;
    # splits auto, twice.
    A="--arch sm_90a"
    for rep in 1 2; do
      sweep v106s --shapes 28672x8192,8192x28672,8192x8192 --m 32 --splits auto \
        --plans auto,m2x16_n4x64_k1w_bk128_s5_ws,m2x16_n4x64_k1w_bk128_s3_ws,m2x16_n4x64_k1w_bk64_s6_ws,m2x16_n4x64_k1w_bk64_s8_ws
      sweep v106s --shapes 28672x8192,8192x28672,8192x8192 --m 64 --splits auto \
        --plans auto,m4x16_n4x64_k1w_bk128_s5_ws,m4x16_n4x64_k1w_bk128_s3_ws,m4x16_n4x64_k1w_bk64_s6_ws,m4x16_n2x64_k1w_bk128_s5_ws
      sweep v106s --shapes 28672x8192,8192x28672,8192x8192 --m 128 --splits auto \
        --plans auto,m8x16_n2x64_k1w_bk128_s5_ws,m8x16_n2x64_k1w_bk128_s3_ws,m8x16_n2x64_k1w_bk64_s6_ws
      sweep v106s --shapes 28672x8192,8192x28672,8192x8192 --m 256 --splits auto \
        --plans auto,m16x16_n2x64_k1w_bk64_s4_ws,m8x16_n2x64_k1w_bk128_s5_ws,m8x16_n2x64_k1w_bk128_s4_ws
    done
    sweep_report
    exit 0
    ;;
  v105)
    # Session 24, first call (bin/bench_a16_old = ef5d037, main's kernels; bin/bench_a16 = the
    # warp-specialized producer copying each stage's weights with one cp.async.bulk a k16 row,
    # issued by one elected lane a producer warp, instead of every producer thread's 16-byte
    # cp.async chunks). Checks of the new build (ws tiles at M = 29..200, 8-bit, MXFP4 g32, a
    # partial last stage: per-channel u8 at K = 8128, splits), racecheck / synccheck / memcheck
    # of the ws cases, the burst A/B at M = 32..256 on the three shapes, then energy a GEMM.
    A="--arch sm_90a"
    bulk_checks > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ws_sanitizers
    HUMMING_SANITIZE_K=1024 sanitizers warp-specialized memcheck
    ab --shapes 28672x8192,8192x28672,8192x8192 --m 32,64,128,256
    python3 scripts/ab_summary.py "$H" 2>&1 | tail -16
    export ENERGY_LOG=$OUT/energy.jsonl
    for m in 32 128; do
      epair "28672x8192-$m-old" bench_a16_old --shapes 28672x8192 --m $m --plans auto --splits auto
      epair "28672x8192-$m-bulk" bench_a16 --shapes 28672x8192 --m $m --plans auto --splits auto
    done
    python3 scripts/energy_report.py "$ENERGY_LOG" "$H"
    exit 0
    ;;
  v104)
    # Session 23, tenth call: where our energy above the first-order model goes (v23 item 3).
    # Totals a GEMM under Nsight Compute (one launch, cold): warp instructions, shared-memory
    # loads, L2 and DRAM bytes, tensor-pipe activity, for the default kernel and for cuBLAS f16
    # (torch.matmul) on 28672 x 8192 at M = 32 and 128. (v101's bundle: bin/bench_a16_old is
    # main's kernels.)
    A="--arch sm_90a"
    NM=smsp__inst_executed.sum,smsp__sass_inst_executed_op_shared_ld.sum,lts__t_bytes.sum,dram__bytes_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__cycles_elapsed.avg
    for m in 32 128; do
      timeout 90 ncu --clock-control none --target-processes all -k regex:hm_a16 -s 2 -c 1 --metrics $NM \
        "$B/bin/bench_a16_old" $A --no-copy --shapes 28672x8192 --m $m --plans auto --splits auto --harness launch --iters 2 --reps 1 2>&1 \
        | grep -vE '^==PROF==|^ +-+$' | sed "s/^/[humming M=$m] /" >> "$OUT/ncu-counts.txt"
      timeout 90 ncu --clock-control none --target-processes all -k 'regex:gemm|nvjet|xmma|cutlass|sm90' -s 2 -c 1 --metrics $NM \
        python3 -c "import torch
a = torch.randn($m, 8192, dtype=torch.float16, device='cuda'); w = torch.randn(28672, 8192, dtype=torch.float16, device='cuda')
for _ in range(4): y = a @ w.t()
torch.cuda.synchronize()" 2>&1 | grep -vE '^==PROF==|^ +-+$' | sed "s/^/[cublas M=$m] /" >> "$OUT/ncu-counts.txt"
    done
    grep -E "hm_a16|gemm|nvjet|xmma|cutlass|sm90|inst_executed|shared_ld|bytes|pct|duration|elapsed|ERR|rror" "$OUT/ncu-counts.txt" | cut -c1-160
    exit 0
    ;;
  v103)
    # Session 23, ninth call: v96's 8192^2 cells moved by 0-1% over 300 replays (0.2-1 s runs):
    # the cap had no time to act. Energy a GEMM and the 1400-replay medians there (runs of
    # 1-5 s), humming and cuBLAS f16, M = 1 / 32 / 256. (Run with v101's bundle: its
    # bin/bench_a16_old is main's kernels.)
    A="--arch sm_90a"
    export ENERGY_LOG=$OUT/energy.jsonl
    for m in 1 32 256; do
      epair "humming-8192x8192-$m" bench_a16_old --shapes 8192x8192 --m $m --plans auto --splits auto
      epair_cublas "cublas-8192x8192-$m" --shapes 8192x8192 --m $m
    done
    python3 scripts/energy_report.py "$ENERGY_LOG" "$H" "$T"
    exit 0
    ;;
  v102)
    # Session 23, eighth call: v100 again for the n32 step's parts (what the dequantization
    # costs in energy, as v21 item 2 measured its time): the step with its integer part only,
    # its f16x2 part only, all of it into registers no wgmma reads, none of it; beside the bare
    # wgmma and mma.sync rows, each twice.
    for rep in 1 2; do
      timeout 120 python3 scripts/tensor_rate.py --energy 2 --only '^step_n32_w4_g1_b2(_nodq|_int|_fp|_dummy)?$|^rs_n32_w4_u8$|^mma_w(4|8)_c4_u16$' \
        > "$OUT/tensor-energy-$rep.txt" 2>&1; echo "tensor_rate exit $?"; cat "$OUT/tensor-energy-$rep.txt"
    done
    exit 0
    ;;
  v101)
    # Session 23, seventh call (bin/bench_a16_old = 4c75844, bin/bench_a16 = the same with the
    # offset fold of the one-n8-tile swapped plans off, docs/perf-data/2026-12-04-v23/no-fold.patch):
    # v100 put mma.sync at 2.36 pJ a multiply-add, and the M <= 8 plans issue one or two fold
    # MMAs (a constant A fragment times the activations) a k16 step besides the block's four, in
    # place of the f16x2 subtractions of the offsets. Without the fold: fewer MMAs, more HADD2s.
    # Checks of the new build, the burst A/B (9 replays), then energy a GEMM of both.
    A="--arch sm_90a"
    { chk "" 28672x8192 1 auto auto 1x28672x8192
      chk "" 8192x28672 8 auto auto 7x8192x28672
      chk "--act bf16" 8192x8192 4 auto auto,1 3x8192x8192
      chk "--weight u3" 8192x8192 2 auto auto 2x8192x8192
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ab --shapes 28672x8192,8192x28672,8192x8192 --m 1,4,8
    python3 scripts/ab_summary.py "$H" 2>&1 | tail -12
    export ENERGY_LOG=$OUT/energy.jsonl
    for s in 28672x8192 8192x28672; do
      for m in 1 8; do
        epair "$s-$m-fold" bench_a16_old --shapes $s --m $m --plans auto --splits auto
        epair "$s-$m-nofold" bench_a16 --shapes $s --m $m --plans auto --splits auto
      done
    done
    python3 scripts/energy_report.py "$ENERGY_LOG" "$H"
    exit 0
    ;;
  v100)
    # Session 23, sixth call: where a GEMM's energy goes on the tensor side. v99: plans that
    # halve the activations' L2 reads cost the same or more energy, so the L2 traffic is not
    # it. tensor_rate.py's instruction loops and math-step skeletons (no global memory) with
    # --energy: the power, the clock the cap leaves and pJ a multiply-add, for the wgmma shapes
    # the tiles issue (register A, N = 32..256), shared-memory A (cuBLAS's form), mma.sync,
    # and the dequantizing steps; the idle GPU's power first.
    python3 scripts/energy.py idle -- sleep 3
    timeout 240 python3 scripts/tensor_rate.py --energy 2 \
      --only '^rs_n(32|64|128)_w4_u8$|^rs_n(128|256)_w2_u8$|^ss_n(64|256)_w2_u8$|^mma_w8_c4_u16$|^step_n32_w4_g1_b2(_nodq)?$|^step_n(64|128)_w[24]_g1_b2$|^step_n32_w4_g2_b3_drain$' \
      > "$OUT/tensor-energy.txt" 2>&1; echo "tensor_rate exit $?"; cat "$OUT/tensor-energy.txt"
    exit 0
    ;;
  v99)
    # Session 23, fifth call: v97 put 28672 x 8192 M = 256 at 143.8 mJ a GEMM, and v98 an
    # L2-resident byte at about 60-75 pJ over the busy baseline: the default's 224 CTAs of 128
    # columns each read all 4 MiB of activations, 940 MB from L2 a GEMM, perhaps a third of the
    # energy. Do plans that read the activations fewer times cost less energy, and so run faster
    # at the cap? m8x16_n4x64_wg (two M tiles of 128 rows, 256 columns: 470 MB of activations,
    # the weights read twice, the second time mostly from L2) against the defaults at M = 256
    # and 128 (112 CTAs of 256 columns against 224 of 128), and the default's tile without warp
    # specialization. GPU checks of the alternative first; energy a GEMM as v97.
    A="--arch sm_90a"
    ALT=m8x16_n4x64_k1w_bk128_s4_wg
    { chk "" 28672x8192 256 $ALT auto 100x28672x8192
      chk "" 8192x28672 256 $ALT auto 200x8192x28672
      chk "" 8192x8192 128 $ALT auto,2 128x8192x8192
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    export ENERGY_LOG=$OUT/energy.jsonl
    for s in 28672x8192 8192x28672; do
      epair "$s-256-default" bench_a16 --shapes $s --m 256 --plans auto --splits auto
      epair "$s-256-$ALT" bench_a16 --shapes $s --m 256 --plans $ALT --splits auto
      epair "$s-128-default" bench_a16 --shapes $s --m 128 --plans auto --splits auto
      epair "$s-128-$ALT" bench_a16 --shapes $s --m 128 --plans $ALT --splits auto
    done
    epair "28672x8192-256-m16x16_n2x64_k1w_bk64_s4_wg" bench_a16 --shapes 28672x8192 --m 256 --plans m16x16_n2x64_k1w_bk64_s4_wg --splits auto
    epair_cublas "cublas-28672x8192-128" --shapes 28672x8192 --m 128
    python3 scripts/energy_report.py "$ENERGY_LOG" "$H" "$T"
    grep -h '"plan"' "$H" | python3 -c 'import sys, json
for l in sys.stdin:
    r = json.loads(l); print(r["label"], r["plan"], "split", r["split"], "grid", r["grid"])' | sort -u | grep r1400
    exit 0
    ;;
  v98)
    # Session 23, fourth call: what a byte costs in energy by where it is read from
    # (scripts/energy_bytes.py: DRAM reads, L2-resident reads, D2D copies, against idle and a
    # tiny-kernel baseline), to split v97's energy a GEMM into the weight stream, the
    # activations' re-reads from L2 and the rest.
    timeout 150 python3 scripts/energy_bytes.py > "$OUT/energy-bytes.jsonl" 2>> "$L"; echo "energy_bytes exit $?"
    cat "$OUT/energy-bytes.jsonl"; tail -3 "$L"
    exit 0
    ;;
  v97)
    # Session 23, third call (main's kernels): energy a GEMM in steady state, from NVML's energy
    # counter (scripts/energy.py). v96: under 300 graph replays every 28672 x 8192 / 8192 x
    # 28672 cell from M = 8 up runs at the 700 W cap (event reason 0x4 from the first replays,
    # SM clock 1490-1790 MHz; nvidia-smi's power.draw is a lagging average) and its median is
    # 10-18% above its best replay, while cuBLAS at M <= 64 (bound by DRAM) moves by under 2%.
    # Each case runs twice, 200 and 1400 replays of 60 GEMMs; the differences over the 72000
    # extra GEMMs are the energy and the time of one, the runs' setup cancelled (energy_report.py;
    # the call itself printed the same table from an inline version, its cuBLAS rows unlabelled).
    A="--arch sm_90a"
    export ENERGY_LOG=$OUT/energy.jsonl
    for m in 1 8 16 32 64 128 256; do
      epair "humming-$m" bench_a16 --shapes 28672x8192 --m $m --plans auto --splits auto
    done
    for m in 1 32 256; do
      epair_cublas "cublas-$m" --shapes 28672x8192 --m $m
    done
    python3 scripts/energy_report.py "$ENERGY_LOG" "$H" "$T"
    exit 0
    ;;
  v96)
    # Session 23, second call (main's kernels): v95 found the M = 32 / 64 tiles at the 700 W cap
    # under sustained load (300 replays: busy SM clock 1540-1650 MHz, median 51.8 us against a
    # best replay of 45.5 at M = 32). (1) The issue table sustained: every default cell with
    # 300 graph replays, each (shape, M) in its own window of the nvidia-smi log, cuBLAS f16 a
    # window a shape; (2) at M = 16 / 32 / 64 on 28672 x 8192 the neighbour plans, also 300
    # replays a window: does a plan that does less a GEMM win once the clock is capped?
    A="--arch sm_90a"
    W=$OUT/windows.txt
    smi_start
    for s in 28672x8192 8192x28672 8192x8192; do
      for m in 1 2 4 8 16 32 64 128 256; do win "hm-$s-$m 1" --shapes $s --m $m --plans auto --splits auto; done
      echo "cublas-$s 1 start $(date +%H:%M:%S.%N)" >> "$W"
      timeout 150 python3 scripts/bench_torch.py --shapes $s --m 1,2,4,8,16,32,64,128,256 --impls cublas_f16 --harness graph --reps 300 --no-copy >> "$T" 2>> "$L"
      echo "cublas-$s 1 end $(date +%H:%M:%S.%N)" >> "$W"
    done
    for p in m1x16_n2x64_k4w_bk256_s4 m2x8_n2x64_k2w_bk256_s4; do win "alt16-$p 1" --shapes 28672x8192 --m 16 --plans $p --splits auto,2; done
    for p in m2x16_n2x64_k1w_bk128_s4_ws m2x16_n4x64_k1w_bk64_s6_ws m2x16_n4x64_k1w_bk128_s4_wg m4x8_n2x64_k4w_bk256_s4; do win "alt32-$p 1" --shapes 28672x8192 --m 32 --plans $p --splits auto; done
    for p in m4x16_n2x64_k1w_bk128_s4_ws m4x16_n3x64_k1w_bk128_s4_ws m4x16_n4x64_k1w_bk128_s4_wg m4x16_n4x64_k1w_bk64_s6_ws; do win "alt64-$p 1" --shapes 28672x8192 --m 64 --plans $p --splits auto; done
    smi_stop
    python3 scripts/clock_windows.py "$OUT/smi.csv" "$W" > "$OUT/clock-windows.txt"; cat "$OUT/clock-windows.txt"
    python3 -c '
import json, sys
for p in sys.argv[1:]:
    for l in open(p):
        r = json.loads(l)
        if "us" in r:
            print(r.get("label", "cublas"), r["n"], r["k"], r["m"], r.get("plan") or r["impl"], r.get("split"), "median", r["us"], "best", r.get("us_min"))' "$H" "$T"
    exit 0
    ;;
  v95)
    # Session 23, first call (stream-k-v2.patch applied before perf-bundle.sh): is the M = 32 / 64
    # warp-specialized tile bound by the 700 W power cap? v93: 112, 128 and 132 CTAs all take
    # 45.4-45.5 us on 28672 x 8192 / 8192 x 28672 at M = 32, which a per-SM limit would not
    # give (132 CTAs do 15% less each). Each case runs 300 graph replays in its own window of
    # the nvidia-smi log (clock and power of the busy samples), alternated three times; M = 1
    # (the weight stream alone) and cuBLAS f16 beside; then the same cases cold (L2 flushed,
    # each call alone, so the cap has no time to act).
    A="--arch sm_90a"
    S32=m2x16_n4x64_k1w_bk128_s4_ws; S64=m4x16_n4x64_k1w_bk128_s4_ws
    chk "" 28672x8192 32 ${S32}_sk 132,112 29x28672x8192 > /dev/null 2> "$OUT/tests.txt"
    checks_report
    nvidia-smi --query-gpu=power.limit,enforced.power.limit,clocks.max.sm --format=csv
    W=$OUT/windows.txt
    smi_start
    for rep in 1 2 3; do
      win "m32-default $rep" --shapes 28672x8192 --m 32 --plans $S32 --splits auto
      win "m32-sk132 $rep" --shapes 28672x8192 --m 32 --plans ${S32}_sk --splits 132
      win "m32-sk112 $rep" --shapes 28672x8192 --m 32 --plans ${S32}_sk --splits 112
      win "m64-default $rep" --shapes 28672x8192 --m 64 --plans $S64 --splits auto
      win "m64-sk132 $rep" --shapes 28672x8192 --m 64 --plans ${S64}_sk --splits 132
      win "m1-default $rep" --shapes 28672x8192 --m 1 --plans auto --splits auto
      echo "cublas $rep start $(date +%H:%M:%S.%N)" >> "$W"
      timeout 100 python3 scripts/bench_torch.py --shapes 28672x8192 --m 1,32,64 --impls cublas_f16 --harness graph --reps 300 --no-copy >> "$T" 2>> "$L"
      echo "cublas $rep end $(date +%H:%M:%S.%N)" >> "$W"
    done
    smi_stop
    python3 scripts/clock_windows.py "$OUT/smi.csv" "$W"
    for p in $S32 ${S32}_sk:132 ${S32}_sk:112; do
      bench $A --label cold --no-copy --harness cold --shapes 28672x8192 --m 32 --plans ${p%%:*} --splits $([ "${p#*:}" = "$p" ] && echo auto || echo ${p#*:})
    done
    bench $A --label cold --no-copy --harness cold --shapes 28672x8192 --m 64 --plans $S64,${S64}_sk --splits auto
    python3 -c '
import json, sys
for p in sys.argv[1:]:
    for l in open(p):
        r = json.loads(l)
        if "us" in r:
            print(r.get("label", ""), r["harness"], r["n"], r["k"], r["m"], r.get("plan") or r["impl"], r.get("split"), "median", r["us"], "best", r.get("us_min"))' "$H" "$T"
    exit 0
    ;;
  v94)
    # Session 22: does racecheck order a refill after an mbarrier arrive / wait (the ring of the
    # warp-specialized tiles, v91)? A two-slot ring in CUDA (docs/perf-data/2026-12-04-v22/mbar_race.cu):
    # plain st.shared refills (MODE 0), then cp.async refills (MODE 1).
    nvcc -arch=sm_90a -O2 -o /tmp/mbar_race docs/perf-data/2026-12-04-v22/mbar_race.cu && /tmp/mbar_race
    timeout 100 compute-sanitizer --tool racecheck /tmp/mbar_race > "$OUT/racecheck-mbar.txt" 2>&1; echo "racecheck exit $?"
    grep -E "Race|Read access|Write access|SUMMARY|done" "$OUT/racecheck-mbar.txt" | head -20
    exit 0
    ;;
  v93)
    # Session 22, fourth call (stream-k-v2.patch applied): stream-K v2. v92: with as many CTAs as
    # tiles the piece code costs 1-2%, but a shared tile cost about 5 us (118 / 124 CTAs: 51.6 us against 46.8 at 112): the
    # math warps stalled on the arrival (two barriers, a flag, thread 0's fences) and every CTA
    # ended with a reduce pass over the slices. Now the CTAs are ranked from the last, so a
    # shared tile's first piece is its CTA's last; that CTA waits (warp 0 polls the counter) for
    # the others, which ran theirs first and only stored and counted in, adds their partials to
    # copies of its sums and stores the output. Checks (CTA counts 132 and odd ones), racecheck /
    # synccheck, then the A/B against the defaults and cuBLAS f16.
    A="--arch sm_90a"
    S32=m2x16_n4x64_k1w_bk128_s4_ws; S64=m4x16_n4x64_k1w_bk128_s4_ws; S128=m8x16_n2x64_k1w_bk128_s4_ws; S256=m16x16_n2x64_k1w_bk64_s5_ws
    { chk "" 28672x8192 32 ${S32}_sk 132,7,113 29x28672x8192
      chk "--act bf16" 8192x28672 64 ${S64}_sk 132,33 61x8192x28672
      chk "" 8192x8192 48 m3x16_n4x64_k1w_bk128_s4_ws_sk 132 45x8192x8192
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 28672x8192 32 ${S32}_sk 132 32x28672x8192
      chk "--weight u8" 28672x8192 128 ${S128}_sk 132,50 100x28672x8192
      chk "" 28672x8192 256 ${S256}_sk 132 256x28672x8192
      chk "--dynamic-zero" 8192x8192 64 ${S64}_sk 132,5 64x8192x8192
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ws_sanitizers
    for rep in 1 2; do
      bench $A --label sk-$rep --no-copy --harness graph --shapes 28672x8192,8192x28672,8192x8192 --m 32 --plans $S32,${S32}_sk --splits auto
      bench $A --label sk-$rep --no-copy --harness graph --shapes 28672x8192,8192x28672,8192x8192 --m 64 --plans auto,${S64}_sk --splits auto
      bench $A --label sk-$rep --no-copy --harness graph --shapes 28672x8192,8192x28672,8192x8192 --m 128 --plans auto,${S128}_sk --splits auto
      bench $A --label sk-$rep --no-copy --harness graph --shapes 28672x8192,8192x28672 --m 256 --plans auto,${S256}_sk --splits auto
    done
    timeout 200 python3 scripts/bench_torch.py --shapes 28672x8192,8192x28672,8192x8192 --m 32,64,128,256 --impls cublas_f16 --harness graph --no-copy >> "$T" 2>> "$L"
    cell_times "$H" "$T"
    exit 0
    ;;
  v92)
    # Session 22, third call (stream-k.patch applied): where v90's stream-K time goes. With as many CTAs as tiles (112 on
    # 28672 x 8192, 32 on 8192 x 28672) every run is one whole tile, as in the default: the cost
    # of the piece code alone; then CTA counts between that and one an SM.
    A="--arch sm_90a"
    S32=m2x16_n4x64_k1w_bk128_s4_ws; S64=m4x16_n4x64_k1w_bk128_s4_ws
    for rep in 1 2; do
      bench $A --label sk-$rep --no-copy --harness graph --shapes 28672x8192 --m 32 --plans $S32 --splits auto
      bench $A --label sk-$rep --no-copy --harness graph --shapes 28672x8192 --m 32 --plans ${S32}_sk --splits 112,118,124,132
      bench $A --label sk-$rep --no-copy --harness graph --shapes 28672x8192 --m 64 --plans $S64 --splits auto
      bench $A --label sk-$rep --no-copy --harness graph --shapes 28672x8192 --m 64 --plans ${S64}_sk --splits 112,124,132
      bench $A --label sk-$rep --no-copy --harness graph --shapes 8192x28672 --m 32 --plans $S32 --splits auto
      bench $A --label sk-$rep --no-copy --harness graph --shapes 8192x28672 --m 32 --plans ${S32}_sk --splits 32,128,132
    done
    cell_times "$H"
    exit 0
    ;;
  v91)
    # Session 22, second call: v90's racecheck hazards (producer cp.async writes against the math
    # warps' weight reads, 7936 of them) came from the one case whose ring wraps (6 stages on 4
    # slots); every earlier case had K = 512 (4 stages, no refill). The non-stream-K
    # warp-specialized cases with K = 1024 (8 stages: the producer refills every slot).
    HUMMING_SANITIZE_K=1024 timeout 200 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/bin/sanitize_a16" warp-specialized > "$OUT/racecheck-k1024.txt" 2>&1
    echo "racecheck K=1024 exit $?"; grep -E "ok \\(|SUMMARY|FAILED|Race reported|Read access" "$OUT/racecheck-k1024.txt" | head -30
    exit 0
    ;;
  v90)
    # Session 22, first call (needs docs/perf-data/2026-12-04-v22/stream-k.patch applied before
    # perf-bundle.sh; not kept): stream-K plans (`..._ws_sk`): the warp-specialized tiles with
    # one CTA an SM sharing the row's tiles x stages (28672 x 8192 has 112 tiles of 256 columns
    # for 132 SMs). GPU checks (splits auto = 132 CTAs, and odd counts), racecheck / synccheck,
    # then each default against its stream-K twin in the same run, and cuBLAS f16 beside.
    A="--arch sm_90a"
    S32=m2x16_n4x64_k1w_bk128_s4_ws; S64=m4x16_n4x64_k1w_bk128_s4_ws; S128=m8x16_n2x64_k1w_bk128_s4_ws
    { chk "" 28672x8192 32 ${S32}_sk auto,7,113 29x28672x8192
      chk "--act bf16" 8192x28672 64 ${S64}_sk auto,33 61x8192x28672
      chk "" 8192x8192 48 m3x16_n4x64_k1w_bk128_s4_ws_sk auto 45x8192x8192
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 28672x8192 32 ${S32}_sk auto 32x28672x8192
      chk "--weight u8" 28672x8192 128 ${S128}_sk auto 100x28672x8192
      chk "" 8192x8192 128 ${S128}_sk auto 128x8192x8192
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ws_sanitizers
    for rep in 1 2; do
      bench $A --label sk-$rep --no-copy --harness graph --shapes 28672x8192,8192x28672,8192x8192 --m 32 --plans $S32,${S32}_sk --splits auto
      bench $A --label sk-$rep --no-copy --harness graph --shapes 28672x8192,8192x28672,8192x8192 --m 64 --plans $S64,${S64}_sk,m4x16_n2x64_k1w_bk128_s4_ws --splits auto
      bench $A --label sk-$rep --no-copy --harness graph --shapes 28672x8192,8192x28672,8192x8192 --m 128 --plans auto,${S128}_sk --splits auto
    done
    timeout 200 python3 scripts/bench_torch.py --shapes 28672x8192,8192x28672,8192x8192 --m 32,64,128 --impls cublas_f16 --harness graph --no-copy >> "$T" 2>> "$L"
    cell_times "$H" "$T"
    exit 0
    ;;
  v89)
    # Session 21, eighth call: Nsight Compute source profiles of the M = 32 and M = 64 defaults
    # on 28672 x 8192 (warp-specialized, four math warpgroups), to set against tensor_rate.py's
    # skeleton of their loops (v84-v86). Ran as the two ncu-stall.sh lines below.
    for m in 64 32; do SRC_CASE="28672x8192 $m auto auto ws_m$m" bash "$B/ncu-stall.sh" src; done
    head -c 6000 "$OUT/src_summary.txt"
    exit 0
    ;;
  v88)
    # Session 21, seventh call. v83: over 60 graph replays the M = 256 cells run at two speeds
    # (28672 x 8192: best replay 175 us, median 200-204; 8192^2 50.8 / 59.5) as the software
    # power cap (700 W) brings the SM clock from 1980 to 1500-1575 MHz. The compute-bound
    # cells against cuBLAS f16 with 60 replays each (medians and best replays), alternated three
    # times, with the clock log.
    A="--arch sm_90a"
    smi_start
    for rep in 1 2 3; do
      echo "humming $rep start $(date +%H:%M:%S.%N)" >> "$OUT/windows.txt"
      bench $A --label v88-$rep --no-copy --shapes 8192x8192,28672x8192,8192x28672 --m 128,256 --harness graph --reps 60 --plans auto --splits auto
      echo "humming $rep end $(date +%H:%M:%S.%N)" >> "$OUT/windows.txt"
      echo "cublas $rep start $(date +%H:%M:%S.%N)" >> "$OUT/windows.txt"
      timeout 100 python3 scripts/bench_torch.py --shapes 8192x8192,28672x8192,8192x28672 --m 128,256 --impls cublas_f16 --harness graph --reps 60 --no-copy >> "$T" 2>> "$L"
      echo "cublas $rep end $(date +%H:%M:%S.%N)" >> "$OUT/windows.txt"
    done
    smi_stop
    python3 - "$H" "$T" <<'EOF2'
import sys, json, collections
cells = collections.defaultdict(lambda: {"humming": [], "cublas_f16": []})
for path in sys.argv[1:]:
    for l in open(path):
        r = json.loads(l)
        if "us" in r and r.get("harness") == "graph":
            cells[(r["n"], r["k"], r["m"])][r["impl"]].append((r["us"], r["us_min"]))
print("N x K, M: humming median / best replay (us) per run; cuBLAS f16 the same; ratio of the medians' means, of the bests' means")
for (n, k, m), c in sorted(cells.items()):
    h, b = c["humming"], c["cublas_f16"]
    if not h or not b:
        continue
    mean = lambda xs: sum(xs) / len(xs)
    print(f"{n}x{k} M={m}: humming {' '.join(f'{a:.1f}/{z:.1f}' for a, z in h)}; cublas {' '.join(f'{a:.1f}/{z:.1f}' for a, z in b)}; "
          f"ratio median {mean([x[0] for x in b]) / mean([x[0] for x in h]):.3f}x, best {mean([x[1] for x in b]) / mean([x[1] for x in h]):.3f}x")
EOF2
    python3 scripts/clock_windows.py "$OUT/smi.csv" "$OUT/windows.txt"
    exit 0
    ;;
  v87)
    # Session 21, sixth call. v84-v86 (tensor_rate.py): a register-A wgmma of n32 and the
    # instructions of its warp do not overlap on a sub-partition (each step costs about 16 cycles
    # plus one a non-wgmma instruction), so the M = 17..64 tiles' per-step instructions cost
    # tensor time. This build makes the stage's eight B descriptors at its top instead of one
    # before each wgmma (ptxas: 3 -> 2 uniform instructions a step). bin/bench_a16_old = b96d883
    # (the shipped kernels), bin/bench_a16 = the build. GPU checks of the ws tiles, then the A/B.
    A="--arch sm_90a"
    { ws_checks
      chk "" 8192x8192 256 auto auto 256x8192x8192
      chk "" 2048x1024 64 m4x16_n2x64_k1w_bk128_s5_ws 1,3 64x2048x1024
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ab --shapes 8192x8192,28672x8192,8192x28672 --m 32,64
    ab --shapes 8192x8192,28672x8192 --m 128,256
    python3 scripts/ab_summary.py "$H" > "$OUT/ab.txt"; cat "$OUT/ab.txt"
    exit 0
    ;;
  v86)
    # Session 21, fifth call: v85 again, tensor_rate.py now also splitting the dequantization of
    # the n32 skeleton into its integer part, its f16x2 part, and all of it into registers no
    # wgmma reads (v85: making fragments a group ahead did not help either).
    timeout 200 python3 scripts/tensor_rate.py > "$OUT/tensor-rate.txt" 2>&1; echo "tensor_rate exit $?"; grep -E "variant|step" "$OUT/tensor-rate.txt"
    exit 0
    ;;
  v85)
    # Session 21, fourth call: v84 again, tensor_rate.py now also with A fragments made one group
    # ahead (v84: more register sets did not help the dequantizing skeleton, bigger groups did).
    timeout 200 python3 scripts/tensor_rate.py > "$OUT/tensor-rate.txt" 2>&1; echo "tensor_rate exit $?"; grep -E "variant|step" "$OUT/tensor-rate.txt"
    exit 0
    ;;
  v84)
    # Session 21, third call: tensor_rate.py with the math warps' steps as a pipeline skeleton
    # (A register sets, wgmmas a commit group, the 32-row tile's stage fold: drained as shipped,
    # or with two sum sets folded after the next stage's first group).
    timeout 200 python3 scripts/tensor_rate.py > "$OUT/tensor-rate.txt" 2>&1; echo "tensor_rate exit $?"; cat "$OUT/tensor-rate.txt"
    exit 0
    ;;
  v83)
    # Session 21, second call. v82's humming runs lacked $A (sm_90 plans: 97-369 us); cuBLAS f16
    # itself spread 177-201 us at 28672 x 8192 M = 256, and nvidia-smi showed the software power
    # cap (event reason 0x4) with the SM clock at 1560-1980 MHz. (1) The power limits. (2)
    # tensor_rate.py again, now with the math warp's k16 step (wait, dequantize, wgmma) at
    # N = 32..128 and 1-4 warpgroups. (3) The M = 256 defaults of both shapes, each run in its own
    # window of the nvidia-smi log (clock_windows.py), six times, 60 graph replays a run.
    A="--arch sm_90a"
    nvidia-smi --query-gpu=power.limit,power.default_limit,power.max_limit,enforced.power.limit,clocks.max.sm --format=csv
    timeout 150 python3 scripts/tensor_rate.py > "$OUT/tensor-rate.txt" 2>&1; echo "tensor_rate exit $?"; cat "$OUT/tensor-rate.txt"
    smi_start
    for rep in 1 2 3 4 5 6; do
      for s in 28672x8192 8192x8192; do
        echo "humming $s $rep start $(date +%H:%M:%S.%N)" >> "$OUT/windows.txt"
        bench $A --label v83-$rep --no-copy --shapes $s --m 256 --harness graph --reps 60 --plans auto --splits auto
        echo "humming $s $rep end $(date +%H:%M:%S.%N)" >> "$OUT/windows.txt"
      done
    done
    smi_stop
    grep -h '"us"' "$H" | python3 -c 'import sys, json
for l in sys.stdin:
    r = json.loads(l); print(r["label"], r["n"], r["k"], r["m"], r["us"], r["us_min"], r.get("tflops"))'
    python3 scripts/clock_windows.py "$OUT/smi.csv" "$OUT/windows.txt"
    exit 0
    ;;
  v82)
    # Session 21, first call. (1) The tensor pipe's rate for the instruction shapes the tiles
    # issue (scripts/tensor_rate.py: wgmma m64nNk16 with A from registers, N = 8..256, 1-4
    # warpgroups; A from shared memory; mma.sync m16n8k16): what the M = 16..64 cells' wgmmas
    # cost at the least. (2) The 28672 x 8192 M = 256 cell's two modes (175 vs 193-203 us with
    # one kernel, v68-v77): the default and cuBLAS f16 alternated four times with nvidia-smi
    # sampling the SM clock, power and throttle reasons every 20 ms, each run's wall-clock
    # window logged beside it.
    A="--arch sm_90a"
    timeout 150 python3 scripts/tensor_rate.py > "$OUT/tensor-rate.txt" 2>&1; echo "tensor_rate exit $?"; cat "$OUT/tensor-rate.txt"
    smi_start
    for rep in 1 2 3 4; do
      echo "humming $rep start $(date +%H:%M:%S.%N)" >> "$OUT/windows.txt"
      bench --label v82-$rep --no-copy --shapes 28672x8192,8192x8192 --m 256 --harness graph --plans auto --splits auto
      echo "humming $rep end $(date +%H:%M:%S.%N)" >> "$OUT/windows.txt"
      echo "cublas $rep start $(date +%H:%M:%S.%N)" >> "$OUT/windows.txt"
      timeout 60 python3 scripts/bench_torch.py --shapes 28672x8192,8192x8192 --m 256 --impls cublas_f16 --harness graph --no-copy >> "$T" 2>> "$L"
      echo "cublas $rep end $(date +%H:%M:%S.%N)" >> "$OUT/windows.txt"
    done
    smi_stop
    grep -h '"us"' "$H" | python3 -c 'import sys, json
for l in sys.stdin:
    r = json.loads(l); print(r["label"], r["n"], r["k"], r["m"], r["us"], r["us_min"], r.get("tflops"))'
    grep -h '"us"' "$T" | python3 -c 'import sys, json
for l in sys.stdin:
    r = json.loads(l); print(r.get("impl"), r.get("n"), r.get("k"), r.get("m"), r.get("us"), r.get("tflops"))'
    cat "$OUT/windows.txt"
    python3 - "$OUT/smi.csv" <<'EOF'
import sys, collections
rows = [l.strip().split(", ") for l in open(sys.argv[1]) if l.count(",") >= 5]
busy = [r for r in rows if float(r[3].split()[0]) > 200]
print(len(rows), "samples,", len(busy), "above 200 W")
c = collections.Counter((r[1], r[5]) for r in busy)
for (clk, why), n in c.most_common(12):
    print(f"{n:5d}  sm {clk}  reasons {why}")
EOF
    exit 0
    ;;
  v81)
    # Session 20: the math warps' proxy fence of a warp-specialized stage moves from right after
    # the `full` wait to before the stage's first wgmma (ptxas then issues the stage's first
    # weight-word loads before its MEMBAR, which waits for them, instead of after). v77 put the
    # fence's cost at 1-3.6%. bin/bench_a16_old = b96d883, bin/bench_a16 = this build. GPU checks
    # of the ws tiles, then the A/B on the ws cells.
    A="--arch sm_90a"
    { ws_checks
      chk "" 2048x1024 64 m4x16_n2x64_k1w_bk128_s5_ws 1,3 64x2048x1024
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ab --shapes 8192x8192,28672x8192 --m 32,64,128,256
    ab --shapes 8192x28672 --m 32,64
    python3 scripts/ab_summary.py "$H" > "$OUT/ab.txt"; cat "$OUT/ab.txt"
    exit 0
    ;;
  v80)
    # Session 20, seventh call: 8192^2 at M <= 8 is 1.7-5% short of 3.6x (10.82 us at M = 1
    # against the D2D copy's 9.96); its M <= 8 plans were last swept in v23 (session 8). Deeper
    # rings (more bytes in flight an SM) and other warp splits, splits 1-4, twice; 28672 x 8192
    # with deeper rings of its 128-column tile.
    A="--arch sm_90a"
    for rep in 1 2; do
      sweep v80s --shapes 8192x8192 --m 1,8 --plans auto,m1x8_n1x64_k8w_bk512_s4,m1x8_n1x64_k8w_bk512_s5,m1x8_n1x64_k4w_bk256_s6,m1x8_n1x64_k4w_bk256_s8,m1x8_n1x64_k8w_bk256_s6,m1x8_n2x64_k8w_bk512_s3 --splits auto,1,2,4
      sweep v80s --shapes 28672x8192 --m 1,8 --plans auto,m1x8_n2x64_k4w_bk256_s6,m1x8_n2x64_k8w_bk512_s3 --splits auto,1,2
    done
    sweep_report
    exit 0
    ;;
  v79)
    # Session 20, fifth call: v78's producer-side fence was 2.5-18% slower (not kept); v77 had
    # the math warps' fence a stage at 1-3.6%, which weighs less in longer stages: the 256-deep
    # rings that fit (64 rows, two warpgroups, four stages; 32 rows, four warpgroups, three)
    # against the defaults, twice.
    A="--arch sm_90a"
    for rep in 1 2; do
      sweep v79s --shapes 8192x8192 --m 64 --plans auto,m4x16_n2x64_k1w_bk256_s4_ws --splits auto,2,4
      sweep v79s --shapes 8192x8192,28672x8192,8192x28672 --m 32 --plans auto,m2x16_n4x64_k1w_bk256_s3_ws --splits auto,1,2,4
    done
    sweep_report
    exit 0
    ;;
  v78)
    # Session 20, fourth call: the warp-specialized producer fences each stage for wgmma (wait
    # for the stage's cp.async group, fence.proxy.async, arrive on `full`) instead of every
    # math warp fencing it after its wait (v77: that fence cost 1-3.6%). bin/bench_a16_old =
    # b96d883 (session 19), bin/bench_a16 = this build. GPU checks of every ws tile the defaults
    # take (4-, 8-bit and float codes, 8-bit scales, zero points, bf16, splits, rings of 4 and 5
    # stages, short K), racecheck and synccheck, then the defaults A/B on the ws cells.
    A="--arch sm_90a"
    { chk "" 28672x8192 32 auto auto 29x28672x8192
      chk "" 8192x8192 24 auto auto 24x8192x8192
      chk "--act bf16" 8192x28672 48 auto auto,2 45x8192x28672
      chk "" 8192x8192 64 auto auto,3 61x8192x8192
      chk "--dynamic-zero" 28672x8192 64 auto auto 60x28672x8192
      chk "--weight u8" 28672x8192 128 auto auto 100x28672x8192
      chk "" 8192x8192 128 auto auto,4 120x8192x8192
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 28672x8192 128 auto auto 97x28672x8192
      chk "" 8192x8192 256 auto auto,3 200x8192x8192
      chk "" 8192x28672 256 auto auto 250x8192x28672
      chk "" 28672x8192 300 auto auto 300x28672x8192
      chk "--scale e4m3" 8192x14336 32 auto auto 30x8192x14336
      chk "" 4096x4096 128 auto auto,8 97x4096x4096
      chk "" 2048x1024 64 m4x16_n2x64_k1w_bk128_s5_ws 1,2,3 64x2048x1024
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ws_sanitizers
    ab --shapes 8192x8192,28672x8192,8192x28672 --m 32,64,128,256
    ab --shapes 4096x4096 --m 64,128,256
    ab --act bf16 --shapes 28672x8192 --m 32,128
    python3 scripts/ab_summary.py "$H" > "$OUT/ab.txt"; cat "$OUT/ab.txt"
    exit 0
    ;;
  v77)
    # Session 20, third call. (1) What the math warps' proxy fence a stage costs (v76: 3.4% of
    # the stall samples of the 8192^2 M = 256 default sit at its FENCE.VIEW.ASYNC.S):
    # bin/bench_a16_old is a measurement build without it (not a valid kernel: cp.async writes
    # reach wgmma's async proxy unfenced), A/B on the warp-specialized cells. (2) 28672 x 8192
    # M = 256: the 256-row tile with 4 and 5 stages alternated three times (v76: 175 / 201 us
    # for 4, 193 / 193 for 5). (3) M = 16 on the two large shapes: the two-tile swapped plans
    # the v14 sweep (session 6) ranked, again on today's kernels, with shallower and deeper
    # rings (3 CTAs an SM with 3 stages).
    A="--arch sm_90a"
    ab --shapes 8192x8192,28672x8192 --m 32,64,128,256
    python3 scripts/ab_summary.py "$H" > "$OUT/ab.txt"; cat "$OUT/ab.txt"
    for rep in 1 2 3; do
      for p in m16x16_n2x64_k1w_bk64_s4_ws m16x16_n2x64_k1w_bk64_s5_ws; do
        sweep v77s --shapes 28672x8192 --m 256 --plans $p --splits 1
      done
    done
    for rep in 1 2; do
      sweep v77s --shapes 28672x8192,8192x28672 --m 16 --plans auto,m2x8_n2x64_k2w_bk256_s3,m2x8_n2x64_k2w_bk128_s6,m2x8_n1x64_k4w_bk256_s4,m2x8_n2x64_k4w_bk256_s3,m2x8_n1x64_k2w_bk256_s4,m2x8_n2x64_k2w_bk512_s2 --splits auto,1,2
    done
    sweep_report
    exit 0
    ;;
  v76)
    # Session 20, second call: v75 kept every default (8192^2 M = 64 / 128 / 256, 28672 x 8192
    # M = 256). What it did not try there: one math warpgroup a CTA (64 columns: 128 CTAs with
    # no split and the widest wgmma, n256 at M = 256) and deeper rings of the default tiles.
    # Twice each; then the stall samples of the 8192^2 M = 256 default (the tensor-bound cell).
    A="--arch sm_90a"
    for rep in 1 2; do
      sweep v76s --shapes 8192x8192 --m 256 --plans auto,m16x16_n1x64_k1w_bk64_s5_ws,m16x16_n1x64_k1w_bk64_s6_ws,m8x16_n1x64_k1w_bk128_s4_ws,m8x16_n2x64_k1w_bk128_s5_ws,m8x16_n2x64_k1w_bk64_s8_ws --splits auto,1
      sweep v76s --shapes 8192x8192 --m 128 --plans auto,m8x16_n1x64_k1w_bk128_s4_ws,m8x16_n2x64_k1w_bk128_s5_ws,m8x16_n2x64_k1w_bk64_s8_ws --splits auto,1,2
      sweep v76s --shapes 8192x8192 --m 64 --plans auto,m4x16_n2x64_k1w_bk128_s6_ws,m4x16_n2x64_k1w_bk128_s8_ws,m4x16_n2x64_k1w_bk256_s3_ws --splits auto,2
      sweep v76s --shapes 28672x8192 --m 256 --plans auto,m16x16_n1x64_k1w_bk64_s5_ws,m16x16_n2x64_k1w_bk64_s4_ws --splits auto,1
    done
    sweep_report
    SRC_CASE="8192x8192 256 auto auto ws_m256" bash $B/ncu-stall.sh src
    head -60 "$OUT/src_summary.txt" | cut -c1-150
    exit 0
    ;;
  v75)
    # Session 20: the M = 64..256 cells of 8192^2 and 28672 x 8192 that miss their targets by
    # the least (M = 256: 3.4% and 2.7%) against the tiles the v59 / v64 rules passed over
    # there before ws-carry (v63) and the faster ws loops (v69): the 256-row ws tile on 8192^2,
    # the 128 x 256 wgmma tile (`_wg`) at M = 128 and 256, one and four math warpgroups at M = 64, splits 1-4.
    # Twice each; the best and the spread of each plan / split.
    A="--arch sm_90a"
    for rep in 1 2; do
      sweep v75s --shapes 8192x8192 --m 256 --plans auto,m16x16_n2x64_k1w_bk64_s5_ws,m8x16_n4x64_k1w_bk128_s4_wg --splits auto,1,2,4
      sweep v75s --shapes 8192x8192 --m 128 --plans auto,m8x16_n4x64_k1w_bk128_s4_wg,m8x16_n2x64_k1w_bk128_s4_ws --splits auto,1,2,4
      sweep v75s --shapes 8192x8192 --m 64 --plans auto,m4x16_n4x64_k1w_bk128_s4_ws,m4x16_n1x64_k1w_bk128_s4_ws,m4x16_n2x64_k1w_bk128_s4_ws --splits auto,1,2,4
      sweep v75s --shapes 28672x8192 --m 256 --plans auto,m8x16_n2x64_k1w_bk128_s4_ws,m8x16_n4x64_k1w_bk128_s4_wg --splits auto,1,2
    done
    sweep_report
    exit 0
    ;;
  v74)
    # Session 19, second call: v73's A/B had the new build 0.1-0.35 us slower at M <= 8 on the
    # split-2 cells (4096^2 M = 1 +4.5%) with no change in their main loops' SASS; the same
    # cells again with the order reversed (new build first), twice, to tell a drift over the
    # call from the build.
    A="--arch sm_90a"
    AB_ORDER="bench_a16 bench_a16_old bench_a16 bench_a16_old bench_a16 bench_a16_old" ab --shapes 4096x4096,8192x8192,8192x28672 --m 1,8
    python3 scripts/ab_summary.py "$H" > "$OUT/ab.txt"; cat "$OUT/ab.txt"
    # 28672 x 8192 at M <= 8 streams at 91% of the copy bandwidth, 8192 x 28672 at 96%: its
    # 224 CTAs (128 columns, split 1) fill 85% of two a SM. Splits 1-4 of the M <= 8 plans, also
    # the ones v23 did not try (3) and a 256-column tile, twice.
    for rep in 1 2; do
      for p in auto m1x8_n1x64_k8w_bk512_s3 m1x8_n2x64_k4w_bk256_s4 m1x8_n4x64_k2w_bk256_s4 m1x8_n2x64_k4w_bk512_s3; do
        H=$OUT/sweep.jsonl bench $A --label v74s --no-copy --harness graph --shapes 28672x8192 --m 1,8 --plans $p --splits 1,2,3,4
      done
    done
    python3 scripts/sweep_best.py "$OUT/sweep.jsonl" > "$OUT/best.txt" 2>&1; cat "$OUT/best.txt"
    exit 0
    ;;
  v73)
    # Session 19, first call: the IR builder writes an unsigned div / rem by a power-of-two
    # immediate as shr / and (ptxas 12.9 had emitted its general division sequence, I2F.U32.RP
    # + MUFU.RCP, for each: tile-index and copy-slot set-up, the split-K tail's chunk loop).
    # bin/bench_a16_old = 9be508a (session 18). GPU checks of one tile of each kind, then the
    # defaults A/B (then old, new, old, new), where the set-up and tail weigh most (M <= 16) and on the
    # ws tiles (M = 32..128).
    A="--arch sm_90a"
    { chk "" 8192x8192 1 auto auto 1x8192x8192
      chk "" 28672x8192 8 auto auto 7x28672x8192
      chk "" 8192x28672 16 auto auto,3 13x8192x28672
      chk "" 4096x4096 32 auto auto 29x4096x4096
      chk "--act bf16" 8192x8192 64 auto auto 50x8192x8192
      chk "--weight u8" 28672x8192 128 auto auto 100x28672x8192
      chk "--dynamic-zero" 6144x4096 8 auto auto,2 5x6144x4096
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ab --shapes 8192x8192,28672x8192,8192x28672,4096x4096 --m 1,4,8,16
    ab --shapes 8192x8192,28672x8192 --m 32,64,128
    python3 scripts/ab_summary.py "$H" > "$OUT/ab.txt"; cat "$OUT/ab.txt"
    exit 0
    ;;
  v72)
    # Session 18, second call: bin/bench_a16_old = 3f769d4 (session 17), bin/bench_a16_old2 =
    # b552b34 (f32 sums in the 32-row tile and its plan rule), bin/bench_a16 = this build (the
    # wgmma lanes' m16 tiles rotated by row group: no 4-way conflicts on the weight words). GPU
    # checks of every wgmma / ws tile the defaults take (4- and 8-bit codes, 8-bit scales, zero
    # points, bf16, splits), the three builds alternated twice on the cells those tiles serve,
    # the gpu_a16 suite's realistic shapes and every target.
    A="--arch sm_90a"
    { chk "" 28672x8192 32 auto auto 29x28672x8192
      chk "" 8192x8192 24 auto auto 24x8192x8192
      chk "" 14336x4096 32 auto auto 30x14336x4096
      chk "--act bf16" 8192x28672 48 auto auto,2 45x8192x28672
      chk "--weight u8" 28672x8192 128 auto auto 100x28672x8192
      chk "--dynamic-zero" 28672x8192 64 auto auto 60x28672x8192
      chk "" 8192x8192 256 auto auto,3 200x8192x8192
      chk "" 8192x28672 256 auto auto 250x8192x28672
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 28672x8192 128 auto auto 97x28672x8192
      chk "" 28672x8192 300 auto auto 300x28672x8192
      chk "" 2048x4096 64 auto auto 64x2048x4096
      chk "--scale e4m3" 8192x14336 32 auto auto 30x8192x14336
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    abc --shapes 28672x8192,8192x28672,8192x8192 --m 32,64,128,256
    abc --shapes 4096x4096,14336x4096 --m 32,128
    abc --weight u8 --shapes 28672x8192 --m 128
    python3 scripts/ab_summary.py "$H" > "$OUT/ab.txt"; cat "$OUT/ab.txt"
    # The kernel family's GPU suite on the realistic shapes and every target (issue 6: no
    # regression in correctness with the tuned plans).
    export HUMMING_REQUIRE_GPU=1
    timeout 240 $B/bin/gpu_a16 --test-threads=1 --nocapture realistic every_target > "$OUT/gpu-a16.txt" 2>&1
    echo "gpu_a16 exit $?"; grep -E "test result|FAILED|panicked|worst|checks" "$OUT/gpu-a16.txt" | head -12
    exit 0
    ;;
  v71)
    # Session 18, first call: warp-specialized tiles of up to 32 rows scale f32 sums once a
    # stage instead of every fragment pair (`wg_sums`). bin/bench_a16_old = 3f769d4 (session 17),
    # bin/bench_a16 = this build. GPU checks of the changed kernels first (16-bit and 8-bit
    # scales, bf16, zero points, splits, per-step groups), then the defaults A/B on the cells the
    # 32-row tile serves, alternated twice; then, on this build, the 16- and 32-row tiles against
    # the defaults where mma.sync plans are chosen (M = 9..32), twice; racecheck and synccheck.
    A="--arch sm_90a"
    { chk "" 28672x8192 32 auto auto 29x28672x8192
      chk "--act bf16" 8192x28672 32 auto auto,2 27x8192x28672
      chk "--dynamic-zero" 28672x8192 24 auto auto 21x28672x8192
      chk "--scale e4m3" 8192x14336 32 auto auto 30x8192x14336
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 28672x8192 32 auto auto 31x28672x8192
      chk "" 8192x8192 16 m1x16_n4x64_k1w_bk128_s4_ws auto,2 13x8192x8192
      chk "" 8192x8192 32 m2x16_n4x64_k1w_bk128_s4_ws 3 32x8192x8192
      chk "--weight u8" 4096x4096 32 m2x16_n4x64_k1w_bk128_s4_ws auto 25x4096x4096
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ab --shapes 28672x8192,8192x28672,8192x14336,14336x8192 --m 24,32
    ab --act bf16 --shapes 8192x28672 --m 32
    ab --dynamic-zero --shapes 28672x8192 --m 32
    python3 scripts/ab_summary.py "$H" > "$OUT/ab.txt"; cat "$OUT/ab.txt"
    for rep in 1 2; do
      H=$OUT/sweep.jsonl bench $A --label v71s --no-copy --harness graph --shapes 28672x8192,8192x28672,8192x8192 --m 12,16 --plans auto,m1x16_n4x64_k1w_bk128_s4_ws,m1x16_n2x64_k1w_bk128_s4_ws --splits auto
      H=$OUT/sweep.jsonl bench $A --label v71s --no-copy --harness graph --shapes 8192x8192,4096x14336,14336x4096 --m 24,32 --plans auto,m2x16_n4x64_k1w_bk128_s4_ws --splits auto
    done
    python3 scripts/sweep_best.py "$OUT/sweep.jsonl" > "$OUT/best.txt" 2>&1; cat "$OUT/best.txt"
    ws_sanitizers
    exit 0
    ;;
  v70)
    # Session 17, last call: after v67-v69 made the warp-specialized tiles 4-9% faster, do the
    # plan thresholds that kept them off some shapes still hold? (A) M = 65..128 on layers
    # wider than 16384 columns (the wgmma 128 x 256 tile by default) against the ws 128 x 128
    # tile; (B) M = 17..48 below the four-warpgroup tiles' size thresholds (mma.sync defaults)
    # against them. Three repeats each, alternating; GPU checks of each candidate on its shapes.
    A="--arch sm_90a"
    for rep in 1 2 3; do
      bench $A --label v70a --no-copy --harness graph --shapes 28672x8192,24576x8192,20480x8192 --m 80,96,128 --plans auto,m8x16_n2x64_k1w_bk128_s4_ws --splits auto
      bench $A --label v70b --no-copy --harness graph --shapes 8192x8192,4096x14336,14336x4096,8192x14336 --m 24,32 --plans auto,m2x16_n4x64_k1w_bk128_s4_ws --splits auto
      bench $A --label v70b --no-copy --harness graph --shapes 8192x8192,6144x4096,4096x8192 --m 40,48 --plans auto,m3x16_n4x64_k1w_bk128_s4_ws --splits auto
    done
    # Each cell's plans, best of the three repeats (and the spread of each).
    python3 -c 'import json,sys,collections
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    r=json.loads(l); d[(r["n"],r["k"],r["m"])].append((r["plan"]+"/"+str(r["split"]),r["us"]))
for key in sorted(d):
    p=collections.defaultdict(list)
    for pl,us in d[key]: p[pl].append(us)
    print("%6dx%-6d M%-4d" % key, "  ".join("%s %.2f (%.2f-%.2f)" % (pl,min(v),min(v),max(v)) for pl,v in p.items()))' "$H" > "$OUT/best.txt"; cat "$OUT/best.txt"
    { chk "" 24576x8192 96 m8x16_n2x64_k1w_bk128_s4_ws auto 90x24576x8192
      chk "" 8192x14336 32 m2x16_n4x64_k1w_bk128_s4_ws auto 27x8192x14336
      chk "" 6144x4096 48 m3x16_n4x64_k1w_bk128_s4_ws auto 45x6144x4096
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    echo '{}' > "$T"
    exit 0
    ;;
  v69)
    # Session 17, third call: bin/bench_a16_old = 17aba54 (session 16) against bin/bench_a16 =
    # this build (B descriptors as adds; ws ring slot and phase carried in registers; two wgmma
    # groups pending in ws tiles of 128+ rows), alternated twice on the cells the changes reach
    # and two mma.sync cells they do not; GPU checks of the changed ws kernels (stage counts 4
    # and 5, splits); racecheck and synccheck on the ws cases of sanitize_a16.
    A="--arch sm_90a"
    ab --shapes 28672x8192,8192x28672,8192x8192 --m 16,32,48,64,128,256
    ab --shapes 4096x4096 --m 64,128,256
    ab --act bf16 --shapes 8192x28672 --m 32,64,128
    python3 scripts/ab_summary.py "$H" > "$OUT/ab.txt"; cat "$OUT/ab.txt"
    { chk "" 28672x8192 32 auto auto 29x28672x8192
      chk "" 8192x28672 48 auto auto,2 45x8192x28672
      chk "--act bf16" 28672x8192 64 auto auto,2 61x28672x8192
      chk "" 8192x8192 128 auto auto,3 111x8192x8192
      chk "" 8192x28672 256 auto auto,3 250x8192x28672
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 28672x8192 200 auto auto 200x28672x8192
      chk "--dynamic-zero --weight u8" 4096x4096 128 auto auto 120x4096x4096
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ws_sanitizers
    echo '{}' > "$T"
    exit 0
    ;;
  v68)
    # Session 17, second call: bin/bench_a16_old = 17aba54 (session 16), bin/bench_a16_old2 =
    # 9594e01 (B descriptors as adds, powers-of-two divisions as shifts), bin/bench_a16 = add72ab
    # (and two wgmma groups pending in ws tiles of 128+ rows), alternated twice over M = 1..256 of
    # the issue's shapes; GPU checks of the touched kernels and the gpu_a16 suite's realistic
    # shapes on every target (the division change reaches every kernel's prologue).
    A="--arch sm_90a"
    abc --shapes 28672x8192,8192x28672,8192x8192 --m 1,16,32,64,128,256
    abc --shapes 4096x4096 --m 1,16,64,128,256
    python3 scripts/ab_summary.py "$H" > "$OUT/ab.txt"; cat "$OUT/ab.txt"
    { chk "" 8192x8192 1 auto auto 1x8192x8192
      chk "" 28672x8192 16 auto auto 13x28672x8192
      chk "" 8192x28672 128 auto auto,3 127x8192x28672
      chk "--act bf16" 28672x8192 256 auto auto 250x28672x8192
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 8192x8192 128 auto auto 100x8192x8192
      chk "--dynamic-zero --weight u8" 8192x8192 256 auto auto 199x8192x8192
      chk "" 8192x8192 64 auto auto,2 64x8192x8192
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    HUMMING_REQUIRE_GPU=1 timeout 150 $B/bin/gpu_a16 --test-threads=1 --nocapture realistic every_target > "$OUT/gpu_a16.txt" 2>&1
    echo "gpu_a16 exit $?"; grep -E "test result|FAILED|panicked|worst" "$OUT/gpu_a16.txt" | head -8
    echo '{}' > "$T"
    exit 0
    ;;
  v67)
    # Session 17: three builds alternated twice on the wgmma / warp-specialized cells:
    # bin/bench_a16_old = 17aba54 (session 16), bin/bench_a16_old2 = 3e05c7d (B descriptors as
    # adds to one base a stage), bin/bench_a16 = ea9da6b (and the ws plans keep two wgmma groups
    # pending); GPU checks of the changed ws kernels, racecheck on the ws cases, then the ncu
    # source-level stall profile of the M = 32 default on 28672 x 8192 (new build).
    A="--arch sm_90a"
    abc --shapes 28672x8192,8192x28672,8192x8192 --m 32,48,64,128,256
    abc --shapes 4096x4096 --m 64,128
    abc --act bf16 --shapes 8192x28672 --m 32,64
    python3 scripts/ab_summary.py "$H"
    { chk "" 28672x8192 32 auto auto 29x28672x8192
      chk "" 8192x28672 48 auto auto,2 45x8192x28672
      chk "--act bf16" 8192x28672 64 auto auto 61x8192x28672
      chk "" 8192x8192 128 auto auto,3 111x8192x8192
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 8192x28672 128 auto auto 100x8192x28672
      chk "--dynamic-zero --weight u8" 4096x4096 128 auto auto 120x4096x4096
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 "$B/bin/sanitize_a16" warp-specialized > "$OUT/racecheck.txt" 2>&1
    echo "racecheck exit $?"; grep -E "ok \\(|SUMMARY|FAILED|rror" "$OUT/racecheck.txt" | head -8
    SRC_CASE="28672x8192 32 auto auto ws_m32" OUT=$OUT bash "$B/ncu-stall.sh" src
    head -c 2500 "$OUT/src_summary.txt"
    echo '{}' > "$T"
    ;;
  v66)
    # Session 16, closing call on the final build: the default-plan checks of
    # device-check-defaults.sh (FROM / TO, bounded so that the table fits) with this bundle's
    # bench_a16, then the issue-6 table (scripts/bench-session.sh) into $OUT/t.
    mkdir -p gpu-bundle/bin && ln -sf "$(pwd)/$B/bin/bench_a16" gpu-bundle/bin/example_bench_a16
    SKIP_QUICK=1 FROM=${FROM:-1} TO=${TO:-1000} OUT=$OUT timeout ${CHECK_S:-330} bash scripts/device-check-defaults.sh > "$OUT/tests.txt" 2>&1
    echo "default checks: exit $?, $(grep -c '^check' "$OUT/default-checks.txt") check lines"; grep -vE "^check|^NVIDIA|^N x K|^skip" "$OUT/default-checks.txt" | head -5
    # TABLE=0: the checks alone (a second call for the rest of the list).
    [ "${TABLE:-1}" = 1 ] || exit 0
    ARCH=sm_90a NOPDL=0 RUNTIME=0 OUT=$OUT/t bash scripts/bench-session.sh > /dev/null 2>&1
    grep -E "^graph|copy bandwidth" "$OUT/t/table.txt" | grep -E "copy|w_u4-a_f16" | head -40
    rm -f "$OUT/t/humming.err"
    exit 0
    ;;
  v65)
    # Session 16, closing call: the v64 plan rules (bin/bench_a16) against ws-carry alone
    # (bin/bench_a16_old = 20a9d2e) on the cells they change, GPU checks of the newly chosen
    # plans, then the issue-6 table (scripts/bench-session.sh on this bundle's bench_a16, into
    # $OUT/t). Leaves at most 8 files in $OUT.
    A="--arch sm_90a"
    ab --shapes 28672x8192,8192x28672 --m 64,96,128
    ab --shapes 4096x4096,5120x4096,2048x8192 --m 96,128
    ab --act bf16 --shapes 8192x28672 --m 64,128
    ab --weight u8 --shapes 28672x8192 --m 128
    python3 scripts/ab_summary.py "$H"
    { chk "" 28672x8192 64 auto auto,2 61x28672x8192
      chk "--act bf16" 8192x28672 64 auto auto 57x8192x28672
      chk "" 8192x28672 128 auto auto,3 111x8192x28672
      chk "--weight u8" 28672x8192 96 auto auto 90x28672x8192
      chk "" 4096x4096 128 auto auto,1 127x4096x4096
      chk "--dynamic-zero --weight u8" 2048x8192 96 auto auto 83x2048x8192
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 8192x28672 128 auto auto 100x8192x28672
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    mkdir -p gpu-bundle/bin && ln -sf "$(pwd)/$B/bin/bench_a16" gpu-bundle/bin/example_bench_a16
    ARCH=sm_90a NOPDL=0 RUNTIME=0 OUT=$OUT/t bash scripts/bench-session.sh > /dev/null 2>&1
    grep -E "^graph|^cold|copy bandwidth" "$OUT/t/table.txt" | head -80
    rm -f "$OUT/t/humming.err"
    grep -iE "error|panic|fail" "$L" | head -20
    exit 0
    ;;
  v64)
    # Session 16: with ws-carry (v63) the warp-specialized tiles got faster, so the plan sweep of
    # the wgmma / ws tiles again at the table's M = 32..256 (default first, splits auto,1,2,4);
    # scripts/sweep_best.py prints each cell's best against its default.
    A="--arch sm_90a"
    sw() { bench $A --label v64s --no-copy --harness graph --splits auto,1,2,4 "$@"; }
    big=28672x8192,8192x28672,8192x8192
    sw --shapes $big --m 32 --plans auto,m2x16_n4x64_k1w_bk128_s5_ws,m2x16_n4x64_k1w_bk256_s3_ws,m2x16_n2x64_k1w_bk128_s4_ws
    sw --shapes $big --m 64 --plans auto,m4x16_n4x64_k1w_bk128_s4_ws,m4x16_n2x64_k1w_bk128_s4_ws,m4x16_n2x64_k1w_bk128_s6_ws,m4x16_n4x64_k1w_bk128_s4_wg
    sw --shapes $big --m 128 --plans auto,m8x16_n2x64_k1w_bk128_s4_ws,m8x16_n2x64_k1w_bk128_s5_ws,m8x16_n2x64_k1w_bk64_s6_ws,m8x16_n4x64_k1w_bk128_s4_wg
    sw --shapes $big --m 256 --plans auto,m16x16_n2x64_k1w_bk64_s5_ws,m8x16_n2x64_k1w_bk128_s4_ws,m8x16_n2x64_k1w_bk128_s5_ws
    sw --shapes 4096x4096 --m 128,256 --plans auto,m8x16_n2x64_k1w_bk128_s4_ws,m4x16_n2x64_k1w_bk128_s4_ws,m16x16_n2x64_k1w_bk64_s5_ws,m4x16_n2x64_k1w_bk128_s6_wg
    python3 scripts/sweep_best.py "$H"
    echo '{}' > "$T"
    ;;
  v63)
    # Session 15: warp-specialized plans keep the stage's last wgmma groups pending and free its
    # slot after the next stage's first wait (no drain of the tensor pipe at every stage end;
    # docs/perf-data/2026-12-01-v15/ws-carry.patch, applied for bin/bench_a16, against
    # bin/bench_a16_old = 3a4bea9 or later). The A/B of the ws default cells first, alternated
    # twice (session 15's call spent its limit on the checks and never reached it), then GPU
    # checks of the ws defaults (~20 s each; session 15 passed these 7 on the patch).
    A="--arch sm_90a"
    ab --shapes 8192x8192 --m 64,128,256
    ab --shapes 28672x8192,8192x28672 --m 32,256
    ab --shapes 4096x4096 --m 64,256
    python3 scripts/ab_summary.py "$H"
    { chk "" 8192x8192 64 auto auto,3 61x8192x8192
      chk "" 8192x8192 128 auto auto,3 111x8192x8192
      chk "--act bf16" 8192x28672 32 auto auto,3 29x8192x28672
      chk "" 28672x8192 256 auto auto,2 200x28672x8192
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 14336x4096 256 auto auto 241x14336x4096
      chk "--dynamic-zero --weight u8" 4096x4096 256 auto auto 177x4096x4096
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    # Session 16: the slots are freed later and elsewhere, so the sanitizers on the ws cases.
    ws_sanitizers
    echo '{}' > "$T"
    ;;
  v62)
    # Session 14, closing call on the final build (no math-warp barrier in warp-specialized
    # epilogues): sanitizers on every split case (swapped, wgmma, warp-specialized 128 / 256
    # rows), the session's default checks, and the M = 256 A/B against bin/bench_a16_old
    # (6675b6a) once each.
    A="--arch sm_90a"
    for tool in racecheck synccheck memcheck; do
      timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 "$B/bin/sanitize_a16" split > "$OUT/$tool.txt" 2>&1
      echo "$tool exit $?"; grep -E "ok \\(|SUMMARY|FAILED|rror" "$OUT/$tool.txt" | head -8
    done
    { chk "" 28672x8192 256 auto auto,2 200x28672x8192
      chk "" 24576x8192 160 auto auto 139x24576x8192
      chk "--act bf16" 8192x28672 192 auto auto 150x8192x28672
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 14336x4096 256 auto auto 241x14336x4096
      chk "--dynamic-zero --weight u8" 20480x8192 256 auto auto 256x20480x8192
      chk "" 8192x8192 128 auto auto,3 111x8192x8192
      chk "" 8192x28672 32 auto auto,3 29x8192x28672
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16; do
      timeout 60 "$B/bin/$bin" $A --label $bin --no-copy --harness graph --plans auto --splits auto --shapes 8192x28672,28672x8192,24576x8192,14336x4096 --m 256 >> "$H" 2>> "$L"
    done
    python3 scripts/ab_summary.py "$H"
    echo '{}' > "$T"
    ;;
  v61)
    # Session 14: the v13 256-row default again, with the split-K tail after the warp-specialized
    # branches join (v13 ran it in both branches: an aligned bar.sync reached from two
    # instructions, racecheck's hazards and synccheck's divergent-thread errors). Sanitizers on the
    # warp-specialized cases (split 1 and 2, 128 and 256 rows), GPU checks of the defaults (the
    # new split 2 of more-than-one-wave grids too), A/B against bin/bench_a16_old (6675b6a),
    # alternated twice, and splits 1 / 2 of the one-CTA-an-SM defaults whose grids need more
    # than one wave (KernelPlan::split_k_for). v61a (first run) had the tail in both branches as
    # barrier.sync (not aligned): racecheck still reported the 128-row split-2 case.
    A="--arch sm_90a"
    for tool in racecheck synccheck memcheck; do
      timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 "$B/bin/sanitize_a16" warp-specialized > "$OUT/$tool.txt" 2>&1
      echo "$tool exit $?"; grep -E "ok \\(|SUMMARY|FAILED|rror" "$OUT/$tool.txt" | head -6
    done
    { chk "" 28672x8192 256 auto auto,2 200x28672x8192
      chk "" 8192x28672 192 auto auto 150x8192x28672
      chk "--act bf16" 24576x8192 256 auto auto,1 256x24576x8192
      chk "--weight u8" 14336x4096 160 auto auto 131x14336x4096
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 20480x4096 256 auto auto 241x20480x4096
      chk "--dynamic-zero" 14336x8192 256 auto auto,2 229x14336x8192
      chk "" 24576x4096 128 auto auto 97x24576x4096
      chk "" 12288x4096 256 auto auto 251x12288x4096
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ab --shapes 8192x28672,28672x8192,14336x4096,24576x8192 --m 129,192,256
    ab --act bf16 --shapes 28672x8192 --m 256
    timeout 120 "$B/bin/bench_a16" $A --label splits --no-copy --shapes 18432x4096,20480x8192,22016x14336,24576x4096,24576x8192 --m 160,256 --harness graph --plans auto --splits 1,2 >> "$H" 2>> "$L"
    timeout 60 "$B/bin/bench_a16" $A --label splits --no-copy --shapes 18432x4096,24576x4096,20480x5120 --m 96,128 --harness graph --plans auto --splits 1,2 >> "$H" 2>> "$L"
    timeout 60 "$B/bin/bench_a16" $A --label splits --no-copy --shapes 12288x4096,10240x8192 --m 160,256 --harness graph --plans auto --splits 1,2 >> "$H" 2>> "$L"
    python3 scripts/ab_summary.py "$H"
    echo '{}' > "$T"
    ;;
  v60)
    # v58-v60 need docs/perf-data/2026-12-01-v13/ws-epilogue-256-rows.patch (reverted: racecheck).
    # Session 13: the new default above M = 128 on the layers with many 128-column tiles
    # (m16x16_n2x64_k1w_bk64_s5_ws, KernelPlan::wgmma_for). GPU checks of the defaults, then A/B
    # against bin/bench_a16_old (c80ac8a), alternated twice.
    A="--arch sm_90a"
    { chk "" 28672x8192 256 auto auto 256x28672x8192
      chk "" 8192x28672 129 auto auto 129x8192x28672
      chk "--act bf16" 14336x4096 200 auto auto 200x14336x4096
      chk "--weight u8" 8192x14336 160 auto auto 160x8192x14336
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 28672x8192 256 auto auto 231x28672x8192
      chk "--dynamic-zero" 14336x8192 192 auto auto 177x14336x8192
      chk "--weight e4m3 --act bf16" 24576x8192 256 auto auto 250x24576x8192
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ab --shapes 8192x28672,28672x8192,14336x4096 --m 129,192,256
    ab --act bf16 --shapes 28672x8192 --m 256
    echo '{}' > "$T"
    ;;
  v59)
    # Session 13: v58's build with the producer back in the split-K tail (it counts the CTA in
    # and sums its share of the last CTA's slices from its own branch). GPU checks of the split
    # ws paths, A/B of the split ws defaults against bin/bench_a16_old (c80ac8a), alternated
    # twice, then the 256-row tiles against the defaults at M = 160..256 (4-bit f16, bf16, MXFP4).
    A="--arch sm_90a"
    w256=m16x16_n2x64_k1w_bk64_s4_ws,m16x16_n2x64_k1w_bk64_s5_ws
    { for spec in "" "--weight u8 --act bf16" "--weight e2m1 --act bf16 --scale ue8m0 --group 32" "--dynamic-zero --group 64"; do
        chk "$spec" 4096x4224 253 $w256,m8x16_n2x64_k1w_bk128_s4_ws 2,3 253x4096x4224
        chk "$spec" 4096x4224 45 m3x16_n4x64_k1w_bk128_s4_ws,m2x16_n4x64_k1w_bk128_s4_ws 2,5 45x4096x4224
      done
      chk "" 4096x14336 64 auto auto 61x4096x14336
      chk "" 4096x14336 128 auto auto 128x4096x14336
      chk "" 8192x28672 200 m16x16_n2x64_k1w_bk64_s4_ws 2 200x8192x28672
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ab --shapes 8192x8192,4096x14336 --m 40,64,128,256
    timeout 240 "$B/bin/bench_a16" $A --label sweep --no-copy --shapes 8192x8192,28672x8192,8192x28672,14336x4096,8192x14336,14336x8192,24576x8192 --m 160,192,256 --harness graph --plans auto,$w256 --splits auto,1,2 >> "$H" 2>> "$L"
    for spec in "--act bf16" "--weight e2m1 --act bf16 --scale ue8m0 --group 32" "--weight u8"; do
      timeout 60 "$B/bin/bench_a16" $A $spec --label sweep --no-copy --shapes 28672x8192,14336x4096 --m 256 --harness graph --plans auto,$w256 --splits auto,1 >> "$H" 2>> "$L"
    done
    echo '{}' > "$T"
    ;;
  v58)
    # Session 13: warp-specialized plans run their epilogue in the math warps' branch (the
    # producer's registers no longer hold the accumulators), which lets 256-row tiles validate
    # (m16x16_n{1,2}x64_k1w_bk64_ws: producer 104 registers, math 200). GPU checks of the new
    # tiles and of the changed ws defaults, A/B of the ws defaults against bin/bench_a16_old
    # (c80ac8a), alternated twice, then the 256-row tiles against the defaults at M = 192 / 256.
    A="--arch sm_90a"
    w256=m16x16_n2x64_k1w_bk64_s4_ws,m16x16_n2x64_k1w_bk64_s5_ws,m16x16_n1x64_k1w_bk64_s4_ws,m16x16_n1x64_k1w_bk64_s6_ws
    { for spec in "" "--weight u8" "--weight e2m1 --act bf16 --scale ue8m0 --group 32" "--act bf16 --dynamic-zero --group 64"; do
        chk "$spec" 4096x4224 253 $w256 1,3 253x4096x4224
      done
      chk "" 8192x8192 256 m16x16_n2x64_k1w_bk64_s4_ws 2 256x8192x8192
      chk "" 8192x28672 29 auto auto 29x8192x28672
      chk "" 8192x8192 40 auto auto 40x8192x8192
      chk "--act bf16" 8192x8192 64 auto auto 61x8192x8192
      chk "" 8192x8192 128 auto auto 128x8192x8192
      chk "--weight u8" 8192x8192 200 auto auto 200x8192x8192
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    ab --shapes 8192x28672,28672x8192 --m 32,40
    ab --shapes 8192x8192,4096x14336 --m 40,64,128,256
    timeout 240 "$B/bin/bench_a16" $A --label sweep --no-copy --shapes 8192x8192,28672x8192,8192x28672,4096x14336,14336x4096,4096x4096 --m 192,256 --harness graph --plans auto,$w256 --splits auto,1,2,3 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v57)
    # Session 12: the new M = 17..32 default for 4-bit weights on sm_90+ (m4x8_n2x32_k4w_bk512_s4
    # up to 128 n64 blocks and K < 16384, one wave). GPU checks of the defaults, then A/B
    # against bin/bench_a16_old (0b55b59) for the 4-bit specs v56 did not time.
    A="--arch sm_90a"
    { chk "" 4096x4096 24 auto auto 24x4096x4096
      chk "" 8192x8192 32 auto auto 29x8192x8192
      chk "--act bf16 --group 64" 4096x14336 20 auto auto 17x4096x14336
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 4096x4096 32 auto auto 29x4096x4096
      chk "--dynamic-zero" 8192x8192 24 auto auto 21x8192x8192
      chk "--weight e2m1 --scale e4m3 --group 16" 6144x4096 32 auto auto 31x6144x4096
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      for spec in "" "--weight e2m1 --act bf16 --scale ue8m0 --group 32" "--dynamic-zero" "--act bf16"; do
        timeout 60 "$B/bin/$bin" $A $spec --label $bin --no-copy --shapes 4096x4096,8192x8192,4096x14336,6144x4096 --m 24,32 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
      done
    done
    echo '{}' > "$T"
    ;;
  v56)
    # Session 12: the four-tile swapped plans (M = 17..32) without the offset fold (v55's change
    # reaches them: 16 MMAs a block instead of 20, 217-221 registers instead of 241-245, 143-153
    # half-width instead of 194) against the defaults. GPU checks first, then the sweep.
    A="--arch sm_90a"
    p4=m4x8_n2x64_k4w_bk256_s4,m4x8_n2x64_k2w_bk256_s4,m4x8_n1x64_k4w_bk256_s4,m4x8_n2x32_k4w_bk512_s4,m4x8_n2x32_k4w_bk256_s4
    { for spec in "" "--act bf16" "--weight u8 --act bf16" "--weight u3 --dynamic-zero --group 32"; do
        chk "$spec" 4096x4224 29 $p4 1,3 29x4096x4224
      done
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 200 "$B/bin/bench_a16" $A --label sweep --no-copy --shapes 8192x8192,4096x4096,4096x14336,14336x4096,8192x28672,28672x8192 --m 24,32 --harness graph --plans auto,$p4 --splits auto,1,2 >> "$H" 2>> "$L"
    timeout 60 "$B/bin/bench_a16" $A --label sweep-bf16 --act bf16 --no-copy --shapes 8192x8192,4096x4096 --m 32 --harness graph --plans auto,$p4 --splits auto,1,2 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v55)
    # Session 12: offsets folded only with one n8 tile of M (two-tile swapped plans, M = 9..16,
    # subtract per pair instead: 64 HMMAs and 458 instructions a stage against 80 and 361, v12
    # SASS). GPU checks, then A/B against bin/bench_a16_old (d602a71), alternated twice.
    A="--arch sm_90a"
    sw=m2x8_n2x64_k4w_bk512_s3,m2x8_n2x64_k2w_bk256_s4,m2x8_n2x32_k4w_bk512_s4
    { chk "" 4096x4224 13 $sw 1,2 13x4096x4224
      chk "--act bf16" 4096x4224 16 $sw 2 16x4096x4224
      chk "--weight u3" 4096x4224 11 m2x8_n2x64_k4w_bk512_s3 2 11x4096x4224
      chk "--group 32" 4096x4224 9 m2x8_n2x64_k2w_bk256_s4 3 9x4096x4224
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 60 "$B/bin/$bin" $A --label $bin --no-copy --shapes $shapes,4096x4096 --m 9,12,16 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
      timeout 60 "$B/bin/$bin" $A --label $bin --no-copy --act bf16 --shapes $shapes --m 16 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    echo '{}' > "$T"
    ;;
  v53|v54)
    # Session 12: stream-K plans (`..._sk`: `split` CTAs share the (tile, stage) units evenly)
    # against the defaults, where the tiles leave SMs idle (28672 x 8192: 112 tiles of 256 columns
    # on 132 SMs at M = 33..128, 224 CTAs at M <= 16). The `_sk` plans exist only with
    # docs/perf-data/2026-12-01-v12/stream-k-loop.patch applied (v53: the segment loop); v54 ran
    # it unrolled to two segments (valid only when CTAs >= tiles: the loop spilled 884 bytes in
    # the 128-row wgmma tile and took 161 registers in the M <= 8 plans), so v54 keeps to such
    # splits. GPU checks first; both alternated twice.
    A="--arch sm_90a"
    v53=$([ "$phase" = v53 ] && echo 1 || echo 0)
    { chk "" 4096x4224 100 m8x16_n4x64_k1w_bk128_s4_wg_sk,m4x16_n4x64_k1w_bk128_s4_wg_sk $([ $v53 = 1 ] && echo 7 || echo 20),132 100x4096x4224
      chk "" 4096x4224 5 m1x8_n2x64_k4w_bk256_s4_sk,m1x8_n1x64_k8w_bk512_s3_sk 132,264 5x4096x4224
      chk "--act bf16 --dynamic-zero" 4096x4224 13 m2x8_n2x64_k2w_bk256_s4_sk 132,200 13x4096x4224
      if [ $v53 = 1 ]; then
        chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 4096x4224 200 m8x16_n4x64_k1w_bk128_s4_wg_sk 132 200x4096x4224
        chk "--weight u8" 4096x4224 61 m4x16_n1x64_k4w_bk256_s2_sk 132 61x4096x4224
      fi
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    sk() { timeout 100 "$B/bin/bench_a16" $A --label sk --no-copy --harness graph "$@" >> "$H" 2>> "$L"; }
    for rep in 1 2; do
      timeout 100 "$B/bin/bench_a16" $A --label def --no-copy --shapes $shapes --m 1,8,16,64,128$([ $v53 = 1 ] && echo ,256) --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
      sk --shapes 28672x8192 --m 64 --plans m4x16_n4x64_k1w_bk128_s4_wg_sk --splits 132
      if [ $v53 = 1 ]; then
        sk --shapes 28672x8192,8192x28672 --m 128,256 --plans m8x16_n4x64_k1w_bk128_s4_wg_sk --splits 132
        sk --shapes 28672x8192 --m 1,8 --plans m1x8_n2x64_k4w_bk256_s4_sk --splits 132,264
        sk --shapes 28672x8192 --m 16 --plans m2x8_n2x64_k2w_bk256_s4_sk --splits 132,264,396
      else
        sk --shapes 28672x8192 --m 128 --plans m8x16_n4x64_k1w_bk128_s4_wg_sk --splits 132
        sk --shapes 28672x8192 --m 1,8 --plans m1x8_n2x64_k4w_bk256_s4_sk --splits 264
        sk --shapes 28672x8192 --m 16 --plans m2x8_n2x64_k2w_bk256_s4_sk --splits 264
      fi
      sk --shapes 8192x8192,8192x28672 --m 1,8 --plans m1x8_n1x64_k8w_bk512_s3_sk --splits 132,264
    done
    echo '{}' > "$T"
    ;;
  v52)
    # Session 12: weights prefetched into L2 (cp.async.bulk.prefetch.L2) P stages beyond the
    # shared-memory ring, P from HUMMING_L2_PREFETCH (0 = the previous kernels; the variable is
    # read only with docs/perf-data/2026-12-01-v12/l2-prefetch.patch applied). GPU checks with
    # P = 4 first, then the defaults at P = 0, 2, 4, 8, alternated twice, one binary.
    A="--arch sm_90a"
    { for pf in 4 1; do
        export HUMMING_L2_PREFETCH=$pf
        chk "" 4096x4224 5 m1x8_n1x64_k8w_bk512_s3,m1x8_n2x64_k4w_bk256_s4 1,3 5x4096x4224
        chk "--act bf16 --dynamic-zero" 4096x4224 13 m2x8_n2x64_k4w_bk512_s3,m2x8_n2x64_k2w_bk256_s4 2 13x4096x4224
        chk "" 4096x4224 29 auto,m2x16_n1x64_k4w_bk256_s4 1,2 29x4096x4224
        chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 4096x4224 100 auto,m4x16_n4x64_k1w_bk128_s4_wg 1,3 100x4096x4224
        chk "--weight u8" 4096x4224 61 m4x16_n1x64_k4w_bk256_s2 2 61x4096x4224
      done
      unset HUMMING_L2_PREFETCH
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for rep in 1 2; do
      for pf in 0 2 4 8; do
        HUMMING_L2_PREFETCH=$pf timeout 100 "$B/bin/bench_a16" $A --label pf$pf --no-copy --shapes $shapes,4096x4096 --m 1,8,16,32,64,128 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
      done
    done
    echo '{}' > "$T"
    ;;
  v51)
    # Session 11: v50's zero-point fold kept for f16 with one n8 tile of M only; A/B against
    # bin/bench_a16_old (8406471) with zero points (u4 f16/bf16, u8 f16, u3 f16), GPU checks first.
    A="--arch sm_90a"
    Z="--dynamic-zero"
    { chk "$Z" 4096x4224 5 m1x8_n1x64_k8w_bk512_s3,m1x8_n2x64_k4w_bk256_s4,m1x8_n2x32_k8w_bk512_s3 1,3 5x4096x4224
      chk "$Z --group 32" 4096x4224 8 m1x8_n1x64_k8w_bk512_s3 2 8x4096x4224
      chk "$Z --act bf16" 4096x4224 8 m1x8_n1x64_k8w_bk512_s3,m2x8_n2x64_k2w_bk256_s4 2 8x4096x4224
      chk "$Z --weight u8" 4096x4224 7 m1x8_n1x64_k8w_bk512_s3 2 7x4096x4224
      chk "$Z --weight u3" 4096x4224 9 m1x8_n1x64_k8w_bk512_s3,m2x8_n2x64_k4w_bk512_s3 2 9x4096x4224
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      for spec in "" "--act bf16" "--weight u8" "--weight u3"; do
        timeout 60 "$B/bin/$bin" $A $Z $spec --label $bin --no-copy --shapes $shapes --m 1,8,16 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
      done
    done
    echo '{}' > "$T"
    ;;
  v50)
    # Session 11: per-group zero points folded like the implicit ones in the swapped plans
    # (M <= 16: -z x the activation sums per column, in f32), and fields in place for the other
    # plans. GPU checks, then A/B against bin/bench_a16_old over M with and without zero points.
    A="--arch sm_90a"
    Z="--dynamic-zero"
    sw=m1x8_n1x64_k8w_bk512_s3,m1x8_n2x64_k4w_bk256_s4,m2x8_n2x64_k4w_bk512_s3,m2x8_n2x64_k2w_bk256_s4,m2x8_n2x32_k4w_bk512_s4
    { chk "$Z" 4096x4224 5 $sw 1,3 5x4096x4224
      chk "$Z" 4096x4224 16 $sw 2 16x4096x4224
      chk "$Z --group 32" 4096x4224 13 $sw 1 13x4096x4224
      chk "$Z --act bf16" 4096x4224 8 m1x8_n1x64_k8w_bk512_s3,m2x8_n2x64_k2w_bk256_s4 2 8x4096x4224
      chk "$Z --act bf16 --group 64" 4096x4224 11 m2x8_n2x64_k4w_bk512_s3,m2x8_n2x32_k4w_bk512_s4 1 11x4096x4224
      chk "$Z --weight u8" 4096x4224 7 m1x8_n1x64_k8w_bk512_s3,m2x8_n2x32_k4w_bk512_s4 2 7x4096x4224
      chk "$Z --weight u2 --group 16" 4096x4224 12 m2x8_n2x64_k4w_bk512_s3 2 12x4096x4224
      chk "$Z --weight u3" 4096x4224 9 m2x8_n2x64_k4w_bk512_s3,m1x8_n1x64_k8w_bk512_s3 2 9x4096x4224
      chk "$Z" 4096x4224 29 auto,m2x16_n1x64_k4w_bk256_s4,m4x16_n4x64_k1w_bk128_s4_wg 1 29x4096x4224
      chk "$Z --act bf16" 4096x4224 70 auto,m4x16_n1x64_k4w_bk256_s2 2 70x4096x4224
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 60 "$B/bin/$bin" $A $Z --label $bin --no-copy --shapes $shapes,4096x4096 --m 1,4,8,16,24,32 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    for bin in bench_a16_old bench_a16; do
      timeout 60 "$B/bin/$bin" $A $Z --act bf16 --label $bin --no-copy --shapes $shapes --m 1,8,16 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
      timeout 60 "$B/bin/$bin" $A --label $bin --no-copy --shapes $shapes --m 1,16 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    echo '{}' > "$T"
    ;;
  v49)
    # Session 11: small M with per-group zero points (mma.sync plans) against implicit ones.
    A="--arch sm_90a"
    for z in "" "--dynamic-zero" "" "--dynamic-zero"; do
      timeout 60 "$B/bin/bench_a16" $A $z --label "zp$z" --no-copy --shapes $shapes --m 1,4,8,16 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    echo '{}' > "$T"
    ;;
  v48)
    # Session 11: wgmma plans with per-group zero points (u4/u8 + zero points, AWQ/GPTQ-style).
    # GPU checks, then A/B of the default plans against bin/bench_a16_old (mma.sync only for these
    # specs) over M, u4 g128 f16 and bf16, u8 g128 f16.
    A="--arch sm_90a"
    Z="--dynamic-zero"
    wg=m4x16_n4x64_k1w_bk128_s4_wg,m8x16_n4x64_k1w_bk128_s4_wg,m4x16_n2x64_k1w_bk128_s4_ws,m8x16_n2x64_k1w_bk128_s4_ws,m3x16_n4x64_k1w_bk128_s4_ws,m2x16_n4x64_k1w_bk128_s4_ws
    { chk "$Z" 4096x4224 61 $wg 1,3 61x4096x4224
      chk "$Z" 4096x4224 200 m8x16_n4x64_k1w_bk128_s4_wg,m8x16_n2x64_k1w_bk128_s4_ws 2 200x4096x4224
      chk "$Z --act bf16 --group 64" 4096x4224 45 m4x16_n4x64_k1w_bk128_s4_wg,m3x16_n4x64_k1w_bk128_s4_ws,m4x16_n2x64_k1w_bk128_s6_wg 2 45x4096x4224
      chk "$Z --weight u8" 4096x4224 100 m8x16_n2x64_k1w_bk128_s4_ws,m4x16_n4x64_k1w_bk128_s4_wg 2 100x4096x4224
      chk "$Z --weight u4 --scale e4m3 --group 32" 4096x4224 29 m2x16_n4x64_k1w_bk128_s4_ws 1 29x4096x4224
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A $Z --label $bin --no-copy --shapes $shapes,4096x14336,14336x4096 --m 16,24,32,48,64,128,256 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    for spec in "--act bf16" "--weight u8"; do
      for bin in bench_a16_old bench_a16; do
        timeout 60 "$B/bin/$bin" $A $Z $spec --label $bin --no-copy --shapes $shapes --m 32,64,128,256 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
      done
    done
    echo '{}' > "$T"
    ;;
  v47)
    # Session 11: wgmma plans for 8-bit scales (MXFP4: e2m1 + ue8m0 g32; e4m3 scales g16). GPU
    # checks, then A/B of the default plans against bin/bench_a16_old (mma.sync only for these
    # specs) over M, then wgmma plans x splits for MXFP4 at M = 64..256.
    A="--arch sm_90a"
    MX="--weight e2m1 --act bf16 --scale ue8m0 --group 32"
    NV="--weight e2m1 --act f16 --scale e4m3 --group 16"
    wg=m4x16_n4x64_k1w_bk128_s4_wg,m8x16_n4x64_k1w_bk128_s4_wg,m4x16_n2x64_k1w_bk128_s4_ws,m8x16_n2x64_k1w_bk128_s4_ws,m3x16_n4x64_k1w_bk128_s4_ws,m2x16_n4x64_k1w_bk128_s4_ws
    { chk "$MX" 4096x4224 61 $wg 1,3 61x4096x4224
      chk "$MX" 4096x4224 200 m8x16_n4x64_k1w_bk128_s4_wg,m8x16_n2x64_k1w_bk128_s4_ws 2 200x4096x4224
      chk "$NV" 4096x4224 45 m4x16_n4x64_k1w_bk128_s4_wg,m3x16_n4x64_k1w_bk128_s4_ws 2 45x4096x4224
      chk "--weight u4 --act bf16 --scale e4m3 --group 32" 4096x4224 29 m2x16_n4x64_k1w_bk128_s4_ws,m4x16_n2x64_k1w_bk128_s6_wg 1 29x4096x4224
      chk "--weight u8 --scale e5m2 --group 64" 4096x4224 100 m8x16_n2x64_k1w_bk128_s4_ws,m4x16_n4x64_k1w_bk128_s4_wg 2 100x4096x4224
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A $MX --label $bin --no-copy --shapes $shapes,4096x14336,14336x4096 --m 16,24,32,48,64,128,256 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    for bin in bench_a16_old bench_a16; do
      timeout 60 "$B/bin/$bin" $A $NV --label $bin --no-copy --shapes $shapes --m 32,64,128,256 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    timeout 200 "$B/bin/bench_a16" $A $MX --label mx --no-copy --shapes $shapes,4096x14336 --m 64,128,256 --harness graph --plans $wg --splits auto >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v46)
    # Session 11: wgmma plans of 16 and 32 rows with several accumulator sets (the k16 steps
    # take 64 / bm sets in turn) against bin/bench_a16_old (one set): GPU checks, then A/B.
    A="--arch sm_90a"
    w16=m1x16_n1x64_k1w_bk128_s4_wg,m1x16_n1x64_k1w_bk512_s3_wg,m1x16_n2x64_k1w_bk128_s6_wg,m1x16_n4x64_k1w_bk128_s4_ws
    w32=m2x16_n1x64_k1w_bk128_s4_wg,m2x16_n2x64_k1w_bk128_s6_wg,m2x16_n4x64_k1w_bk128_s4_ws,m2x16_n4x64_k1w_bk128_s4_wg
    { chk "" 4096x4224 16 $w16 1,3 16x4096x4224
      chk "" 4096x4224 27 $w32 1,2 27x4096x4224
      chk "" 4096x4224 9 m1x16_n1x64_k1w_bk128_s4_wg,m1x16_n4x64_k1w_bk128_s4_ws 2 9x4096x4224
      chk "--act bf16 --group 64" 4096x4224 21 m2x16_n4x64_k1w_bk128_s4_ws,m2x16_n1x64_k1w_bk128_s4_wg 2 21x4096x4224
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 4096x4224 30 m2x16_n4x64_k1w_bk128_s4_ws 1 30x4096x4224
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16; do
      timeout 120 "$B/bin/$bin" $A --label $bin --no-copy --shapes $shapes,4096x14336,14336x4096 --m 16 --harness graph --plans $w16 --splits 1,2,4 >> "$H" 2>> "$L"
      timeout 120 "$B/bin/$bin" $A --label $bin --no-copy --shapes $shapes,4096x14336,14336x4096 --m 32 --harness graph --plans $w32 --splits 1,2,4 >> "$H" 2>> "$L"
    done
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 60 "$B/bin/$bin" $A --label $bin --no-copy --shapes $shapes,4096x14336,14336x4096 --m 16,24,32 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    echo '{}' > "$T"
    ;;
  v45)
    # Session 11: small wgmma tiles (one or two warpgroups, 81-94 registers, several CTAs an SM)
    # at M = 16 and 32, where the defaults are mma.sync plans; GPU checks of them first.
    A="--arch sm_90a"
    w16=m1x16_n1x64_k1w_bk128_s4_wg,m1x16_n1x64_k1w_bk256_s4_wg,m1x16_n1x64_k1w_bk512_s3_wg,m1x16_n1x64_k1w_bk128_s8_wg,m1x16_n2x64_k1w_bk128_s6_wg,m1x16_n2x64_k1w_bk256_s4_wg
    w32=m2x16_n1x64_k1w_bk128_s4_wg,m2x16_n1x64_k1w_bk256_s4_wg,m2x16_n2x64_k1w_bk128_s6_wg
    { chk "" 4096x4224 16 $w16 1,3 16x4096x4224
      chk "" 4096x4224 27 $w32 2 27x4096x4224
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 250 "$B/bin/bench_a16" $A --label w16 --no-copy --shapes $shapes,4096x14336,14336x4096 --m 16 --harness graph --plans auto,$w16 --splits auto,1,2,4 >> "$H" 2>> "$L"
    timeout 200 "$B/bin/bench_a16" $A --label w32 --no-copy --shapes $shapes,4096x14336,14336x4096 --m 32 --harness graph --plans auto,$w32 --splits auto,1,2,4 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v44)
    # Session 11: two CTAs an SM for the swapped two-tile plans of 8 warps (.minnctapersm 2:
    # ptxas fits them in 128 registers, so an SM runs 16 of their warps instead of 8). GPU checks
    # of those kernels, A/B of the defaults and of m2x8_n1x64_k8w_bk512_s3 at M = 12 and 16
    # against bin/bench_a16_old (one CTA an SM), then the 8-warp two-tile plans x splits at M = 16.
    A="--arch sm_90a"
    p8=m2x8_n1x64_k8w_bk512_s3,m2x8_n1x64_k8w_bk256_s4,m2x8_n2x64_k4w_bk256_s4,m2x8_n2x64_k4w_bk256_s3,m2x8_n1x64_k8w_bk512_s2
    { chk "" 4096x4224 16 $p8 1,3 16x4096x4224
      chk "" 4096x4224 11 $p8 2 11x4096x4224
      chk "--act bf16 --group 64" 4096x4224 13 m2x8_n1x64_k8w_bk512_s3,m2x8_n2x64_k4w_bk256_s4 2 13x4096x4224
      chk "--weight u3" 4096x4224 15 m2x8_n1x64_k8w_bk512_s3,m2x8_n1x64_k8w_bk256_s4 1,2 15x4096x4224
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A --label $bin --no-copy --shapes $shapes,4096x14336,14336x4096,4096x4096 --m 12,16 --harness graph --plans auto,m2x8_n1x64_k8w_bk512_s3 --splits auto >> "$H" 2>> "$L"
    done
    timeout 280 "$B/bin/bench_a16" $A --label sweep --no-copy --shapes $shapes,4096x14336,14336x4096 --m 16 --harness graph --plans $p8 --splits 1,2,3,4 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v42)
    # Session 10: the four-warpgroup warp-specialized tiles (setmaxnreg, v41) at M = 16..48,
    # where mma.sync plans are the defaults, and at M = 40 (the m3x16 tile's rows), on five
    # layer shapes; GPU checks of the 16- and 32-row ones first.
    A="--arch sm_90a"
    ws=m1x16_n4x64_k1w_bk128_s4_ws,m1x16_n4x64_k1w_bk64_s8_ws,m2x16_n4x64_k1w_bk128_s4_ws,m2x16_n4x64_k1w_bk64_s8_ws,m1x16_n2x64_k1w_bk128_s4_ws,m3x16_n4x64_k1w_bk128_s4_ws
    { chk "" 4096x4224 13 m1x16_n4x64_k1w_bk128_s4_ws,m1x16_n4x64_k1w_bk64_s8_ws 1,2 13x4096x4224
      chk "" 4096x4224 27 m2x16_n4x64_k1w_bk64_s8_ws 3 27x4096x4224
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 300 "$B/bin/bench_a16" $A --label ws --no-copy --shapes $shapes,4096x14336,14336x4096 --m 16,24,32,40 --harness graph --plans auto,$ws --splits auto >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v41)
    # Session 10: warp-specialized plans with setmaxnreg (the producer gives registers back:
    # four math warpgroups fit at 64 rows). GPU checks of the new plans, A/B of the defaults
    # against bin/bench_a16_old (no setmaxnreg), then the new ws tiles against the defaults.
    A="--arch sm_90a"
    ws4=m2x16_n4x64_k1w_bk128_s4_ws,m3x16_n4x64_k1w_bk128_s4_ws,m4x16_n4x64_k1w_bk128_s4_ws
    ws3=m2x16_n3x64_k1w_bk128_s4_ws,m4x16_n3x64_k1w_bk128_s4_ws
    { chk "" 4096x4224 61 $ws4,$ws3 1,3 61x4096x4224
      chk "" 4096x4224 29 m2x16_n4x64_k1w_bk128_s4_ws,m2x16_n3x64_k1w_bk128_s4_ws 2 29x4096x4224
      chk "" 4096x4224 200 m8x16_n2x64_k1w_bk128_s4_ws 2 200x4096x4224
      chk "--weight u8" 4096x4224 61 m4x16_n3x64_k1w_bk128_s4_ws,m4x16_n2x64_k1w_bk128_s4_ws 2 61x4096x4224
      chk "--weight e4m3 --act bf16" 4096x4224 45 m3x16_n4x64_k1w_bk128_s4_ws 1 45x4096x4224
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A --label $bin --no-copy --shapes 4096x4096,8192x8192,4096x14336,14336x4096 --m 64,128,256 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    timeout 250 "$B/bin/bench_a16" $A --label ws --no-copy --shapes $shapes,4096x14336,14336x4096 --m 32,48,64 --harness graph --plans auto,$ws4,$ws3 --splits auto >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v40)
    # Session 10: clusters only at split 2 (v39: clusters of 4 were 36-88% slower): A/B against
    # bin/bench_a16_old (the workspace reduction), then a sweep of the M <= 8 (swapped, one n8
    # tile) plans and splits on the two shapes whose M <= 8 ratios miss 3.6x.
    A="--arch sm_90a"
    chk "" 8192x8192 1 auto 2,9 1x4096x8192 2> "$OUT/tests.txt" > /dev/null
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A --label $bin --no-copy --shapes 4096x4096,$shapes --m 1,8,16,32,64 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    p1=m1x8_n1x64_k8w_bk512_s3,m1x8_n1x64_k8w_bk512_s4,m1x8_n1x64_k4w_bk256_s4,m1x8_n1x64_k4w_bk512_s4,m1x8_n1x64_k8w_bk256_s6,m1x8_n1x64_k16w_bk1024_s2
    p2=m1x8_n2x64_k4w_bk256_s4,m1x8_n2x64_k4w_bk512_s3,m1x8_n2x64_k8w_bk512_s3,m1x8_n4x64_k2w_bk256_s4,m1x8_n2x32_k8w_bk512_s3,m1x8_n4x32_k4w_bk512_s3
    timeout 250 "$B/bin/bench_a16" $A --label splits --no-copy --shapes 8192x8192,28672x8192 --m 1,8 --harness graph --plans $p1,$p2 --splits 1,2,3,4 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v39)
    # Session 10: split K through distributed shared memory (a cluster of the tile's splits).
    # GPU checks of the cluster path (splits 2..8) and of the workspace path it falls back to
    # (split 9), then A/B against bin/bench_a16_old (the workspace reduction) at the default
    # plans, then the new build's splits.
    A="--arch sm_90a"
    { chk "" 4096x4224 1 auto 2,3,8,9 1x4096x4224
      chk "" 4096x4224 16 auto 2,5 16x4096x4224
      chk "" 4096x4224 29 auto 2,4 29x4096x4224
      chk "" 4096x4224 61 auto,m4x16_n2x64_k1w_bk128_s4_ws,m4x16_n4x64_k1w_bk128_s4_wg 2,4 61x4096x4224
      chk "" 4096x4224 200 m8x16_n2x64_k1w_bk128_s4_ws,m8x16_n4x64_k1w_bk128_s4_wg 2 200x4096x4224
      chk "--weight u8" 4096x4224 8 auto 3 8x4096x4224
      chk "--weight e2m1 --act bf16 --scale ue8m0 --group 32" 4096x4224 16 auto 4 13x4096x4224
      chk "--weight u3 --dynamic-zero --act bf16 --group 64" 4096x4224 32 auto 6 32x4096x4224
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A --label $bin --no-copy --shapes 4096x4096,$shapes --m 1,8,16,32,64 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    timeout 150 "$B/bin/bench_a16" $A --label splits --no-copy --shapes 4096x4096,$shapes --m 1,16,32,64,128 --harness graph --plans auto --splits 1,2,4,8 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v38)
    # Session 9, final build: GPU checks of the default plans at M = 33..64 (the 64 x 128
    # warp-specialized tile on layers up to 8192^2, the 256-column wgmma tile on larger ones)
    # over four formats, then those defaults' times.
    A="--arch sm_90a"
    { for spec in "--weight u4" "--weight u8" "--weight e4m3 --act bf16" "--weight u4 --act bf16 --group 64"; do
        for sh in 8192x8192 4096x14336 14336x4096 28672x8192; do
          chk "$spec" $sh 64 auto auto 53x$sh
        done
      done
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 100 "$B/bin/bench_a16" $A --label final --no-copy --shapes $shapes,4096x4096,4096x14336,14336x4096 --m 33,48,64 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v37)
    # Session 9: warp-specialized wgmma tiles at M = 32..64 (v35-v36: the 128 x 128 one won above
    # M = 64 on mid-sized layers) against the defaults; GPU checks of each first.
    A="--arch sm_90a"
    ws=m2x16_n2x64_k1w_bk128_s4_ws,m2x16_n3x64_k1w_bk128_s4_ws,m4x16_n2x64_k1w_bk128_s4_ws,m4x16_n3x64_k1w_bk128_s4_ws
    { for m in 29 61; do
        chk "" 4096x4224 $m $ws 1,3 ${m}x4096x4224
      done
      chk "--weight u8" 4096x4224 45 $ws 2 45x4096x4224
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 200 "$B/bin/bench_a16" $A --label ws --no-copy --shapes $shapes,4096x4096,4096x14336,14336x4096 --m 32,48,64 --harness graph --plans auto,$ws --splits auto >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v36)
    # Session 9: v35's warp-specialized m8x16_n2x64 plan (20% faster at 8192^2 M = 128, slower
    # on the two large shapes) on more layer shapes, M = 96..256, against the defaults.
    A="--arch sm_90a"
    ws=m8x16_n2x64_k1w_bk128_s4_ws
    timeout 200 "$B/bin/bench_a16" $A --label ws --no-copy --shapes 4096x4096,6144x4096,4096x14336,14336x4096,8192x8192,8192x16384,16384x8192,2048x8192 --m 96,128,192,256 --harness graph --plans auto,$ws --splits auto >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v35)
    # Session 9: the warp-specialized wgmma plans (v25: 40-50% slower) after the swizzled
    # activation tiles, against the new defaults; GPU checks of them first.
    A="--arch sm_90a"
    ws=m4x16_n3x64_k1w_bk128_s4_ws,m8x16_n2x64_k1w_bk128_s4_ws,m8x16_n3x64_k1w_bk128_s4_ws
    { for m in 61 200; do
        chk "" 4096x4224 $m $ws 1,3 ${m}x4096x4224
      done
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 200 "$B/bin/bench_a16" $A --label ws --no-copy --shapes $shapes --m 64,128,256 --harness graph --plans auto,$ws --splits auto >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v34)
    # Session 9: what conflict-free word loads would give the wgmma plans without v33's
    # epilogue cost: bin/bench_a16_old is a timing-only build with v33's lane-rotated loads and
    # the unrotated epilogue (wrong outputs, never checked; a throwaway commit). Then the
    # splits of the new sm_90a defaults.
    A="--arch sm_90a"
    wg=m4x16_n4x64_k1w_bk128_s4_wg,m8x16_n4x64_k1w_bk128_s4_wg
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A --label $bin --no-copy --shapes $shapes --m 64,128,256 --harness graph --plans $wg --splits auto >> "$H" 2>> "$L"
    done
    timeout 150 "$B/bin/bench_a16" $A --label splits --no-copy --shapes $shapes,4096x4096,14336x4096,4096x14336 --m 64,128,256 --harness graph --plans auto --splits auto,1,2,4,8 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v33)
    # Session 9: wgmma weight words read by lane-rotated m16 tiles (conflict-free shared loads)
    # against the previous commit (bin/bench_a16_old), same call, after GPU checks; then where
    # wgmma plans beat the mma.sync defaults (bin/bench_a16_old's auto) in M and N.
    A="--arch sm_90a"
    wg=m2x16_n4x64_k1w_bk128_s4_wg,m4x16_n4x64_k1w_bk128_s4_wg,m8x16_n4x64_k1w_bk128_s4_wg
    { for spec in "--weight u4" "--weight u8 --act bf16" "--weight u8" "--weight e2m1 --act bf16 --scale ue8m0 --group 32" "--weight u4 --act bf16 --group 64"; do
        for m in 29 61 130; do
          chk "$spec" 4096x4224 $m $wg,m8x16_n4x64_k1w_bk128_s3_wg,m4x16_n2x64_k1w_bk128_s6_wg 1,3 ${m}x4096x4224
        done
      done
      chk "" 8192x28672 64 $wg auto 64x8192x28672
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A --label $bin --no-copy --shapes $shapes --m 32,64,128,256 --harness graph --plans $wg --splits auto >> "$H" 2>> "$L"
    done
    small=4096x4096,4096x14336,14336x4096,6144x4096,2048x8192
    timeout 150 "$B/bin/bench_a16_old" $A --label mma --no-copy --shapes $small,$shapes --m 40,64,96,128,192,256 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    timeout 150 "$B/bin/bench_a16" $A --label wg --no-copy --shapes $small,$shapes --m 40,64,96,128,192,256 --harness graph --plans m4x16_n4x64_k1w_bk128_s4_wg,m8x16_n4x64_k1w_bk128_s4_wg,m4x16_n2x64_k1w_bk128_s6_wg --splits auto >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v32)
    # Session 9: wgmma activations in the K-major 128-byte-swizzled layout, copied row-major
    # (whole sectors; v30's ncu: the core-matrix copies took 8x the ideal shared wavefronts and
    # 32% excess L2 sectors), and steps dequantized two at a time; against the previous commit
    # (bin/bench_a16_old), same call. GPU checks of the wgmma plans first.
    A="--arch sm_90a"
    wg=m1x16_n4x64_k1w_bk128_s4_wg,m2x16_n4x64_k1w_bk128_s4_wg,m4x16_n4x64_k1w_bk128_s4_wg,m8x16_n4x64_k1w_bk128_s4_wg,m4x16_n2x64_k1w_bk128_s6_wg,m8x16_n2x64_k1w_bk64_s6_wg
    { for spec in "--weight u4" "--weight u8 --act bf16" "--weight u4 --act bf16 --dynamic-zero --group 64"; do
        for m in 13 29 61 130; do
          chk "$spec" 4096x4224 $m $wg 1,3 ${m}x4096x4224
        done
      done
      chk "" 8192x28672 64 $wg auto 64x8192x28672
      chk "" 8192x8192 256 $wg auto 256x8192x8192
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A --label $bin --no-copy --shapes $shapes --m 16,32,64,128,256 --harness graph --plans $wg --splits auto >> "$H" 2>> "$L"
    done
    timeout 100 "$B/bin/bench_a16" $A --label auto --no-copy --shapes $shapes --m 16,32,64,128,256 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    SRC_ONLY_WG=1 bash $B/ncu-stall.sh src; rm -f "$OUT"/ncu_*.log "$OUT/sweep.txt"
    echo '{}' > "$T"
    ;;
  v31)
    # Session 9: wgmma steps dequantized two at a time (this build) against one at a time
    # (bin/bench_a16_old, the previous commit) and four at a time (bin/bench_a16_old2, a
    # throwaway commit), same call; GPU checks of this build's wgmma plans first.
    A="--arch sm_90a"
    wg=m1x16_n4x64_k1w_bk128_s4_wg,m2x16_n4x64_k1w_bk128_s4_wg,m4x16_n4x64_k1w_bk128_s4_wg,m8x16_n4x64_k1w_bk128_s4_wg
    { for spec in "--weight u4" "--weight u8 --act bf16" "--weight u4 --act bf16 --dynamic-zero --group 64"; do
        for m in 13 29 61 130; do
          chk "$spec" 4096x4224 $m $wg 1,3 ${m}x4096x4224
        done
      done
      chk "" 8192x28672 64 $wg auto 64x8192x28672
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old2 bench_a16_old bench_a16 bench_a16_old2; do
      timeout 100 "$B/bin/$bin" $A --label $bin --no-copy --shapes $shapes --m 16,32,64,128,256 --harness graph --plans $wg --splits auto >> "$H" 2>> "$L"
    done
    timeout 100 "$B/bin/bench_a16" $A --label auto --no-copy --shapes $shapes --m 16,32,64,128,256 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v30)
    # Session 9: where the wgmma kernels' time goes. Per-instruction stall samples (ncu source
    # page, `ncu-stall.sh src`), then the wgmma plans against bin/bench_a16_old, a timing-only
    # build whose wgmma A operand is the packed word itself (no dequantization: wrong outputs,
    # never checked; a throwaway commit built with `OLD=<commit> bash scripts/perf-bundle.sh`),
    # and the wgmma plans at M = 16 and 32 against the defaults.
    A="--arch sm_90a"
    bash $B/ncu-stall.sh src
    ls -la "$OUT"
    w=m4x16_n4x64_k1w_bk128_s4_wg,m8x16_n4x64_k1w_bk128_s4_wg
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A --label $bin --no-copy --shapes 8192x8192,8192x28672 --m 64,128,256 --harness graph --plans $w --splits auto >> "$H" 2>> "$L"
    done
    timeout 100 "$B/bin/bench_a16" $A --label m16-32 --no-copy --shapes $shapes --m 16,32 --harness graph --plans auto,m1x16_n4x64_k1w_bk128_s4_wg,m2x16_n4x64_k1w_bk128_s4_wg,m1x16_n2x64_k1w_bk128_s4_wg,m2x16_n2x64_k1w_bk128_s4_wg --splits auto >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v29)
    # Session 8: the split-K arrival with one thread's fence.acq_rel.gpu pair instead of
    # membar.gl in every thread; GPU checks (splits 2..5, M = 1..200), then an A/B against the
    # previous build (bin/bench_a16_old) in the same call.
    A="--arch sm_90a"
    { for spec in "--weight u4" "--weight u8 --act bf16" "--weight e2m1 --act bf16 --scale ue8m0 --group 32" "--weight u3 --dynamic-zero --group 64"; do
        for m in 1 13 37 61 130; do
          chk "$spec" 4096x4224 $m auto 2,3,5 ${m}x4096x4224
        done
      done
      chk "" 8192x28672 64 auto auto,4 64x8192x28672
      chk "" 8192x8192 256 auto auto 200x8192x8192
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    for bin in bench_a16_old bench_a16 bench_a16_old bench_a16; do
      timeout 100 "$B/bin/$bin" $A --label $bin --no-copy --shapes 4096x4096,$shapes --m 1,8,16,32,64 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    echo '{}' > "$T"
    ;;
  v21)
    # Session 7: v20's bulk weight copies without the per-lane fence.proxy.async, A/B at M = 1
    # and 16 (a few GPU checks first).
    { for m in 1 13; do timeout 40 "$B/bin/bench_a16" --label chk --no-copy --shapes 4096x4224 --m $m --harness graph --iters 2 --reps 1 --plans auto --splits auto,3 --check ${m}x4096x4224; done; } > /dev/null 2> "$OUT/tests.txt"
    echo "GPU plan checks passed: $(grep -c '^check' "$OUT/tests.txt")"
    for bin in bench_a16_old bench_a16; do
      timeout 60 "$B/bin/$bin" --arch sm_90a --label $bin --no-copy --shapes 8192x8192,8192x28672 --m 1,16 --harness graph --plans auto --splits auto >> "$H" 2>> "$L"
    done
    echo '{}' > "$T"
    ;;
  v15)
    # Session 6: the final heuristic (deep-K rule at M = 9..16) at M = 1, 8, 16 with the torch
    # baselines in the same call, both harnesses; GPU checks of the default plans at M = 13 and
    # 16 (both M = 9..16 plans) first.
    A="--arch sm_90a"
    { timeout 40 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 8192x28672 --m 16 --harness graph --iters 2 --reps 1 --plans auto --splits auto --check 16x8192x28672
      timeout 40 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 4096x4096 --m 13 --harness graph --iters 2 --reps 1 --plans auto --splits auto,3 --check 13x4096x4096
      timeout 40 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 28672x4096 --m 11 --harness graph --iters 2 --reps 1 --plans auto --splits auto --check 11x28672x4096
    } > /dev/null 2> "$OUT/tests.txt"
    checks_report
    timeout 150 "$B/bin/bench_a16" $A --label v15 --shapes $shapes --m 1,8,16 --harness graph,cold >> "$H" 2>> "$L"
    timeout 120 python3 $B/bench_torch.py --shapes $shapes --m 1,8,16 > "$T" 2>> "$L"
    ;;
  v11)
    # Session 5: wgmma scales once per stage when the group spans it. GPU checks (group spanning
    # the stage or not), then the wgmma tiles against v9's numbers, same call.
    A="--arch sm_90a"
    wg=m8x16_n4x64_k1w_bk128_s4_wg,m8x16_n4x64_k1w_bk256_s2_wg,m4x16_n4x64_k1w_bk128_s4_wg,m2x16_n4x64_k1w_bk128_s4_wg,m1x16_n4x64_k1w_bk256_s4_wg
    { for g in 128 32; do
        timeout 40 "$B/bin/bench_a16" $A --label chk --no-copy --group $g --shapes 4096x4096 --m 200 --harness graph --iters 2 --reps 1 --plans $wg --splits 1,3 --check 200x4096x4096
        timeout 40 "$B/bin/bench_a16" $A --label chk --no-copy --group $g --weight e4m3 --act bf16 --scale bf16 --shapes 4096x4096 --m 29 --harness graph --iters 2 --reps 1 --plans $wg --splits 1,3 --check 29x4096x4096
      done; } > /dev/null 2> "$OUT/tests.txt"
    echo "GPU plan checks passed: $(grep -c '^check' "$OUT/tests.txt")"; grep -vE "^check|^NVIDIA|^N x K|^skip" "$OUT/tests.txt" | head -8
    timeout 120 "$B/bin/bench_a16" $A --label v11 --no-copy --shapes $shapes --m 16,32,64,256,512 --harness graph --plans auto,$wg --splits auto,2,4 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v10)
    # Session 5: the spec heuristic's wgmma plan above M = 128 (sm_90a) and its one-wave split
    # against the mma.sync plan, M = 128 .. 512.
    A="--arch sm_90a"
    timeout 150 "$B/bin/bench_a16" $A --label v10 --no-copy --shapes $shapes --m 128,192,256,384,512 --harness graph \
      --plans auto,m4x16_n2x64_k2w_bk128_s3,m8x16_n4x64_k1w_bk128_s4_wg --splits auto,1,2,4 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
  v9)
    # Session 5: wgmma plans that overlap (up to 3 wgmma groups in flight, kept across stages with
    # 4+ stages; conflict-free activation copies; lean split-K epilogue), up to four warpgroups,
    # against the mma.sync defaults.
    A="--arch sm_90a"
    w1=m1x16_n4x64_k1w_bk256_s3_wg,m1x16_n4x64_k1w_bk128_s4_wg,m1x16_n4x64_k1w_bk128_s6_wg,m1x16_n4x64_k1w_bk256_s4_wg
    w2=m2x16_n4x64_k1w_bk128_s4_wg,m2x16_n4x64_k1w_bk128_s6_wg,m2x16_n4x64_k1w_bk64_s6_wg,m2x16_n4x64_k1w_bk128_s3_wg
    w4=m4x16_n4x64_k1w_bk128_s3_wg,m4x16_n4x64_k1w_bk128_s4_wg,m4x16_n4x64_k1w_bk64_s6_wg,m4x16_n2x64_k1w_bk128_s5_wg
    w8=m8x16_n4x64_k1w_bk128_s2_wg,m8x16_n4x64_k1w_bk64_s4_wg,m8x16_n4x64_k1w_bk64_s5_wg,m8x16_n4x64_k1w_bk128_s4_wg,m8x16_n2x64_k1w_bk128_s4_wg
    { timeout 30 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 4096x4096 --m 13 --harness graph --iters 2 --reps 1 --plans $w1 --splits auto,3 --check 13x4096x4096
      timeout 30 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 4096x4096 --m 29 --harness graph --iters 2 --reps 1 --plans $w2 --splits auto,3 --check 29x4096x4096
      timeout 30 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 4096x4096 --m 61 --harness graph --iters 2 --reps 1 --plans $w4 --splits auto,3 --check 61x4096x4096
      timeout 30 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 4096x4096 --m 200 --harness graph --iters 2 --reps 1 --plans $w8 --splits 1,2 --check 200x4096x4096
      for m in 1 7 13 29 61 200; do timeout 30 "$B/bin/bench_a16" --label chk --no-copy --shapes 4096x4096 --m $m --harness graph --iters 2 --reps 1 --plans auto --splits auto,3 --check ${m}x4096x4096; done; } > /dev/null 2> "$OUT/tests.txt"
    echo "GPU plan checks passed: $(grep -c '^check' "$OUT/tests.txt")"; grep -vE "^check|^NVIDIA|^N x K|^skip" "$OUT/tests.txt" | head -8
    timeout 60 "$B/bin/bench_a16" $A --label v9 --no-copy --shapes $shapes --m 16 --harness graph --plans auto,$w1 --splits auto,1,2,4 >> "$H" 2>> "$L"
    timeout 60 "$B/bin/bench_a16" $A --label v9 --no-copy --shapes $shapes --m 32 --harness graph --plans auto,$w2 --splits auto,1,2,4 >> "$H" 2>> "$L"
    timeout 60 "$B/bin/bench_a16" $A --label v9 --no-copy --shapes $shapes --m 64 --harness graph --plans auto,$w4 --splits auto,1,2 >> "$H" 2>> "$L"
    timeout 90 "$B/bin/bench_a16" $A --label v9 --no-copy --shapes $shapes --m 128,256 --harness graph --plans auto,$w8 --splits auto,1,2 >> "$H" 2>> "$L"
    if command -v ncu >/dev/null; then
      timeout 60 ncu --clock-control none --target-processes all -k regex:hm_a16 -s 2 -c 1 \
        --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
        "$B/bin/bench_a16" $A --no-copy --shapes 8192x8192 --m 64 --plans m4x16_n2x64_k1w_bk128_s3_wg --splits 2 --harness launch --iters 2 --reps 1 > "$OUT/ncu_wg_m64.txt" 2>&1
    fi
    echo '{}' > "$T"
    ;;
  v8)
    # Session 4: wgmma plans (sm_90a) for M >= 16 against the default mma.sync plans, same call.
    # GPU checks of every swept wgmma plan first (odd M, splits), then the sweep.
    A="--arch sm_90a"
    w1=m1x16_n1x64_k1w_bk128_s4_wg,m1x16_n2x64_k1w_bk128_s4_wg,m1x16_n1x64_k1w_bk256_s3_wg
    w2=m2x16_n1x64_k1w_bk128_s4_wg,m2x16_n2x64_k1w_bk128_s4_wg,m2x16_n1x64_k1w_bk256_s3_wg
    w4=m4x16_n1x64_k1w_bk64_s4_wg,m4x16_n1x64_k1w_bk128_s4_wg,m4x16_n2x64_k1w_bk128_s3_wg
    w8=m8x16_n1x64_k1w_bk64_s4_wg,m8x16_n1x64_k1w_bk128_s3_wg,m8x16_n2x64_k1w_bk64_s3_wg
    { timeout 30 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 4096x4096 --m 13 --harness graph --iters 2 --reps 1 --plans $w1 --splits auto,3 --check 13x4096x4096
      timeout 30 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 4096x4096 --m 29 --harness graph --iters 2 --reps 1 --plans $w2 --splits auto,3 --check 29x4096x4096
      timeout 30 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 4096x4096 --m 61 --harness graph --iters 2 --reps 1 --plans $w4 --splits auto,3 --check 61x4096x4096
      timeout 30 "$B/bin/bench_a16" $A --label chk --no-copy --shapes 4096x4096 --m 200 --harness graph --iters 2 --reps 1 --plans $w8 --splits 1,2 --check 200x4096x4096; } > /dev/null 2> "$OUT/tests.txt"
    echo "GPU plan checks passed: $(grep -c '^check' "$OUT/tests.txt")"; grep -vE "^check|^NVIDIA|^N x K|^skip" "$OUT/tests.txt" | head -8
    timeout 60 "$B/bin/bench_a16" $A --label v8 --no-copy --shapes $shapes --m 16 --harness graph --plans auto,$w1 --splits auto,1,2 >> "$H" 2>> "$L"
    timeout 60 "$B/bin/bench_a16" $A --label v8 --no-copy --shapes $shapes --m 32 --harness graph --plans auto,$w2 --splits auto,1,2 >> "$H" 2>> "$L"
    timeout 60 "$B/bin/bench_a16" $A --label v8 --no-copy --shapes $shapes --m 64 --harness graph --plans auto,$w4 --splits auto,1,2 >> "$H" 2>> "$L"
    timeout 90 "$B/bin/bench_a16" $A --label v8 --no-copy --shapes $shapes --m 128,256 --harness graph --plans auto,$w8 --splits auto,1,2 >> "$H" 2>> "$L"
    echo '{}' > "$T"
    ;;
esac
python3 $B/bench_table.py "$H" "$T" > "$OUT/table.txt"
python3 $B/bench_table.py --all "$H" > "$OUT/sweep.txt"
grep -iE "error|panic|fail" "$L" | head -20
cat "$OUT/table.txt"
