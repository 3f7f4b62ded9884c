#!/usr/bin/env bash
# Nsight Compute stall breakdown (issue stalls per issued instruction, tensor-pipe activity,
# instructions, SM activity) of wgmma and mma.sync plans. On the GPU machine, with the bundle of
# scripts/perf-bundle.sh: `bash perf-bundle/ncu-stall.sh`; logs under $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
B=perf-bundle
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio|smsp__inst_executed.sum|sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active|sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active|smsp__cycles_active.avg|sm__warps_active.avg.pct_of_peak_sustained_active|smsp__issue_active.avg.pct_of_peak_sustained_active|dram__throughput.avg.pct_of_peak_sustained_elapsed|gpu__time_duration.sum'
run() { timeout 60 ncu --clock-control none --target-processes all -k regex:hm_a16 -s 2 -c 1 --metrics "$M" "$B/bin/bench_a16" --arch sm_90a --no-copy --shapes $1 --m $2 --plans $3 --splits $4 --harness launch --iters 2 --reps 1 > "$OUT/ncu_$5.txt" 2>&1; }
if [ "${1:-}" = mem ]; then
  # Session 15: where the bytes go (DRAM, L2, L1/shared) and how busy issue and the tensor pipe
  # are, for the sm_90a default kernels of the table's shapes at M = 8..256 (ncu flushes the
  # caches before each kernel: the cold regime). BIN: the benchmark binary.
  BIN=${BIN:-$B/bin/bench_a16}
  mem() { timeout 60 ncu --clock-control none --target-processes all -k regex:hm_a16 -s 2 -c 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section Occupancy \
      --metrics lts__t_bytes.sum,dram__bytes_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum \
      "$BIN" --arch sm_90a --no-copy --shapes $1 --m $2 --plans auto --splits auto --harness launch --iters 2 --reps 1 2>&1 \
      | grep -vE '^==PROF==|^ +-+$|^ +Section:|^ +Metric Name' | sed "s/^/[$1 M=$2] /" >> "$OUT/ncu_mem.txt"; }
  for m in ${MS:-8 16 32 64 128 256}; do mem 8192x8192 $m; done
  for m in 32 64; do mem 28672x8192 $m; done
  exit 0
fi
if [ "${1:-}" = halves ]; then
  # Session 7: full-width against half-width warps (n..x32) at M = 16 and 8.
  run 8192x28672 16 m2x8_n2x64_k2w_bk256_s4 4 m16_full
  run 8192x28672 16 m2x8_n4x32_k2w_bk256_s4 4 m16_half
  run 8192x8192 8 m1x8_n1x64_k8w_bk512_s3 2 m8_full
  run 8192x8192 8 m1x8_n4x32_k4w_bk512_s3 2 m8_half
  exit 0
fi
if [ "${1:-}" = small ]; then
  # M = 8 against M = 16 on 28672 x 8192 (and 8192 x 28672): memory, issue and stall sections.
  sm() { timeout 60 ncu --clock-control none --target-processes all -k regex:hm_a16 -s 2 -c 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy \
      "$B/bin/bench_a16" --no-copy --shapes $1 --m $2 --plans $3 --splits $4 --harness launch --iters 2 --reps 1 2>&1 | sed "s/^/[$5] /" >> "$OUT/ncu_small.txt"; }
  sm 28672x8192 8 m1x8_n2x64_k4w_bk256_s4 1 m8
  sm 28672x8192 16 m1x16_n2x64_k4w_bk256_s4 1 m16
  sm 8192x28672 16 m1x16_n1x64_k8w_bk512_s3 2 m16_k28672
  exit 0
fi
if [ "${1:-}" = src ]; then
  # Session 9: per-SASS-instruction stall samples (source page) of the M = 64 kernels and the
  # M = 16 swapped kernel, to see which instruction the warps wait at.
  src() { timeout 90 ncu --clock-control none --target-processes all -k regex:hm_a16 -s 2 -c 1 \
      --section SourceCounters --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section SpeedOfLight \
      --import-source no -f -o "$OUT/rep_$5" "$B/bin/bench_a16" --arch sm_90a --no-copy --shapes $1 --m $2 --plans $3 --splits $4 \
      --harness launch --iters 2 --reps 1 > "$OUT/ncu_$5.log" 2>&1
    ncu -i "$OUT/rep_$5.ncu-rep" --page source --csv --print-source sass > "/tmp/src_$5.csv" 2>&1
    python3 "$B/ncu_src_summary.py" "/tmp/src_$5.csv" >> "$OUT/src_summary.txt" 2>&1 || head -c 3000 "/tmp/src_$5.csv" >> "$OUT/src_summary.txt"
    ncu -i "$OUT/rep_$5.ncu-rep" --page details > "$OUT/details_$5.txt" 2>&1
    rm -f "$OUT/rep_$5.ncu-rep"; }
  # Session 17: one case, SRC_CASE="<shape> <M> <plan> <split> <name>".
  if [ -n "${SRC_CASE:-}" ]; then
    src $SRC_CASE
    exit 0
  fi
  if [ -n "${SRC_V10:-}" ]; then
    # Session 10: the sm_90a default wgmma and warp-specialized kernels after v9's swizzle.
    src 8192x28672 64 auto auto wg_m64
    src 8192x8192 128 auto auto ws_m128
    src 8192x28672 256 auto auto wg_m256
    exit 0
  fi
  src 8192x28672 64 m4x16_n4x64_k1w_bk128_s4_wg 4 wg_m64
  [ -n "${SRC_ONLY_WG:-}" ] && exit 0
  src 8192x28672 64 auto auto mma_m64
  src 8192x28672 16 auto auto mma_m16
  exit 0
fi
run 8192x8192 64 m4x16_n4x64_k1w_bk128_s4_wg 8 wg_m64
run 8192x8192 64 m4x16_n1x64_k4w_bk256_s2 2 mma_m64
run 8192x28672 256 m8x16_n4x64_k1w_bk128_s4_wg 1 wg_m256
run 8192x28672 256 m4x16_n2x64_k2w_bk128_s3 1 mma_m256
run 8192x8192 16 m1x16_n4x64_k1w_bk256_s4_wg 4 wg_m16
