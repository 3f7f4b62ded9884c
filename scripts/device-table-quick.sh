#!/usr/bin/env bash
# The device calls of a stop: the issue-6 table (bench-session.sh: humming graph + cold next to
# cuBLAS / tinygemm, the layer API on the portable and the Hopper target) and the short
# correctness call (device-quick.sh); `checkplans` runs only the GPU suites a plan-choice change
# touches, `plans` A/Bs this GPU's plans against the defaults, `lean` the
# lean-DRAM tile against the defaults, `l2` both from the L2 (one weight copy),
# `big` plans x splits at M = 128 / 256 on the two large layers, `overhead` a GEMM's
# fixed cost at M = 1 (a K sweep beside the streaming-read floor), `small` the M <= 8 plans'
# neighbours, `mid` the warp-specialized tiles' neighbours at M 17..64, `formats` the issue's other
# formats (defaults, own rate from the L2, SASS mix), `fmtab` an A/B of two builds on some formats,
# `widths` the other weight widths on the wgmma plans the default rules would give them.
# PARTS picks which run ("table
# quick" by default: 140 + 250 s on an H100, more where machines are slower; split them over two
# 600 s calls when in doubt). Each part runs under its own timeout. Run on the GPU
# machine after `bash scripts/gpu-bundle.sh` here. The device tool returns at most 8 files from
# $OUT, so the logs go to a work folder and come back as one archive beside the main results.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
W=/tmp/device-call; rm -rf "$W"; mkdir -p "$W/bench" "$W/quick"
PARTS=${PARTS:-"table quick"}
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader | tee "$W/gpu.txt"
# The sm_90a default plans of both profiles (incl. the lean GPU's), without the sweep.
default_plans_check() {
  HUMMING_REQUIRE_GPU=1 timeout 200 gpu-bundle/bin/gpu_sm90a_plans --test-threads=1 --nocapture --exact gpu_sm90a_default_plans > "$W/quick/gpu_sm90a_default_plans.log" 2>&1
  echo "gpu_sm90a_default_plans: exit $?"; grep -hE "test result|default launches|FAILED|panicked|\(default\)" "$W/quick/gpu_sm90a_default_plans.log" | head -n 12
}
for part in $PARTS; do
  t0=$(date +%s)
  case $part in
    table)
      OUT=$W/bench ARCH=${ARCH:-sm_90a} NOPDL=${NOPDL:-0} FORMATS=${FORMATS:-0} RUNTIME_ARCHS=${RUNTIME_ARCHS:-"sm_90 sm_90a"} \
        RUNTIME_M=${RUNTIME_M:-1,16,32,64,128,256} timeout ${TABLE_S:-420} bash scripts/bench-session.sh > "$W/bench/session.txt" 2>&1
      echo "table: exit $? in $(( $(date +%s) - t0 )) s"
      cp "$W/bench/table.txt" "$W/bench/humming.jsonl" "$W/bench/torch.jsonl" "$W/bench/runtime.jsonl" "$OUT/" 2>/dev/null ;;
    quick)
      OUT=$W/quick timeout ${QUICK_S:-560} bash scripts/device-quick.sh > "$W/quick/summary.txt" 2>&1
      echo "device-quick: exit $? in $(( $(date +%s) - t0 )) s"
      tail -n 60 "$W/quick/summary.txt"
      cp "$W/quick/summary.txt" "$OUT/device-quick-summary.txt" ;;
    checklean)
      # The sm_90a default plans of both profiles (incl. the lean GPU's mma.sync plans), without the sweep.
      default_plans_check
      echo "checklean: in $(( $(date +%s) - t0 )) s" ;;
    diffg16)
      # v38's four failures (u4 f16 e4m3 g16 on the lean GPU's swapped M 8 / 16 plans, seeds of
      # gpu_sm90a_default_plans): GPU against emulator on the same inputs (example diff_a16), then
      # neighbours that isolate the scale format, group, activation and weight, then the
      # sanitizers on the first case.
      # DIFF_BIN: another build's diff_a16 (v39: 368cd54's, the build that failed).
      db=${DIFF_BIN:-gpu-bundle/bin/example_diff_a16}
      d="$db --arch sm_90a --dump $W/quick/diff"
      S="--weight u4 --act f16 --scale e4m3 --group 16"
      {
        $d $S --plan m1x8_n1x64_k8w_bk512_s4 --shape 8x136x2048 --split 1 --seeds 7078,1,2,3,4,5,6,7
        $d $S --plan m1x8_n1x64_k8w_bk512_s5 --shape 8x136x1984 --split 2 --seeds 7079,1,2,3
        $d $S --plan m2x8_n2x32_k4w_bk512_s3 --shape 16x136x2048 --split 2 --seeds 7082,1,2,3
        $d $S --plan m2x8_n2x32_k4w_bk512_s4 --shape 16x136x1984 --split 3 --seeds 7083,1,2,3
        for v in "--scale e4m3 --group 32" "--scale e5m2 --group 16" "--group 16" "--scale e4m3 --group 128" "--act bf16 --scale e4m3 --group 16" "--weight e2m1 --scale e4m3 --group 16" "--weight u8 --scale e4m3 --group 16"; do
          $d --weight u4 --act f16 $v --plan m1x8_n1x64_k8w_bk512_s4 --shape 8x136x2048 --split 1 --seeds 7078,1,2,3
          $d --weight u4 --act f16 $v --plan m2x8_n2x32_k4w_bk512_s3 --shape 16x136x2048 --split 2 --seeds 7082,1,2,3
        done
        $d $S --plan m1x16_n2x64_k4w_bk256_s4 --shape 16x296x2048 --split 1 --seeds 7078,1,2,3
        $d $S --plan m1x8_n1x64_k8w_bk512_s4 --shape 8x136x512 --split 1 --seeds 7078,1,2,3
        $d $S --plan m1x8_n1x64_k8w_bk512_s4 --shape 1x136x2048 --split 1 --seeds 7078,1,2,3
      } > "$W/quick/diff.log" 2>&1
      grep -E "^w_|differ|FAILS|by |^  \(" "$W/quick/diff.log" | head -n 150
      for tool in racecheck synccheck initcheck memcheck; do
        timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $db --arch sm_90a $S --plan m1x8_n1x64_k8w_bk512_s4 \
          --shape 8x136x2048 --seeds 7078 --repeat 1 > "$W/quick/diff-$tool.log" 2>&1
        echo "$tool: exit $?"; grep -hE "SUMMARY|differ|Race|Invalid|Uninit" "$W/quick/diff-$tool.log" | sort | uniq -c | head -n 8
      done
      echo "diffg16: in $(( $(date +%s) - t0 )) s" ;;
    diffjit)
      # v39: the four v38 failures on 368cd54's build (DIFF_BIN, with cubins beside it in
      # c129/ and c130/: ptxas 12.9 and 13.0 here) from the driver's compilation, from each cubin,
      # and from this machine's ptxas: a fault of one compiler, or of the kernel.
      db=${DIFF_BIN:-gpu-bundle/v38/example_diff_a16}; cb=$(dirname "$db")
      px=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null | head -n 1); echo "device ptxas: ${px:-none} $($px --version 2>/dev/null | tail -n 1)"
      S="--weight u4 --act f16 --scale e4m3 --group 16 --arch sm_90a --repeat 2"
      for c in "m1x8_n1x64_k8w_bk512_s4 8x136x2048 1 7078,1" "m1x8_n1x64_k8w_bk512_s5 8x136x1984 2 7079" "m2x8_n2x32_k4w_bk512_s3 16x136x2048 2 7082" "m2x8_n2x32_k4w_bk512_s4 16x136x1984 3 7083"; do
        set -- $c; kn=hm_a16_wu4_af16_se4m3_zpi_of16_sm_90a_$1
        a="$S --plan $1 --shape $2 --split $3 --seeds $4"
        $db $a --ptx-out $W/quick/ptx --dump $W/quick/diffjit-jit-$1
        for v in c129 c130; do $db $a --cubin $cb/$v/$kn.cubin --dump $W/quick/diffjit-$v-$1; done
        if [ -n "$px" ]; then $px -arch=sm_90a -O3 $W/quick/ptx/$kn.ptx -o $W/quick/ptx/$kn.cubin && $db $a --cubin $W/quick/ptx/$kn.cubin; fi
      done > "$W/quick/diffjit.log" 2>&1
      grep -E "^w_|differ|FAILS|passes|by |^  \\(|rror" "$W/quick/diffjit.log" | head -n 120
      echo "diffjit: in $(( $(date +%s) - t0 )) s" ;;
    checkmid)
      # The sm_90a default plans of both profiles (checklean) and the lean GPU's v30 plans (two CTAs
      # an SM at M 9..16, two math warpgroups at M 17..48) and v31's one-warpgroup tile (two CTAs
      # an SM) under the sanitizers.
      default_plans_check
      # K = 5120 wraps every ring. racecheck does not take an mbarrier wait as ordering (v22): on
      # the warp-specialized rings it reports the producer's refills once they wrap (v30: the
      # two-warpgroup tiles, as v22's shipped ones), so it runs those at K = 512 (the ring filled once).
      for tool in memcheck synccheck racecheck; do
        for c in "two CTAs" "two math" "one math"; do
          k=5120; [ $tool = racecheck ] && [ "$c" != "two CTAs" ] && k=512
          HUMMING_SANITIZE_K=$k timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 gpu-bundle/bin/example_sanitize_a16 "$c" >> "$W/quick/$tool-two.log" 2>&1
          echo "$tool ($c, K = $k): exit $?"
        done
        grep -hE "ok \(|FAILED|ERROR SUMMARY|RACECHECK SUMMARY" "$W/quick/$tool-two.log" | head -n 8
      done
      echo "checkmid: in $(( $(date +%s) - t0 )) s" ;;
    checkplans)
      # The GPU suites that a plan-choice change touches (the sm_90a plans incl. this GPU's, the
      # layer API), without device-quick.sh's sanitizers and examples.
      for t in gpu_sm90a_plans gpu_runtime; do
        HUMMING_REQUIRE_GPU=1 HUMMING_PTX_CACHE=/tmp/humming-ptx-cache timeout 320 gpu-bundle/bin/$t --test-threads=1 --nocapture > "$W/quick/$t.log" 2>&1
        echo "$t: exit $?"; grep -hE "test result|checked|worst|failed|FAILED|panicked|default launches" "$W/quick/$t.log" | head -n 12
      done
      # The lean GPUs' four- and five-stage rings of M <= 8 (v28, v29) under the sanitizers, the
      # rings wrapped; SANITIZE_CASES picks other cases of sanitize_a16 (e.g. "odd width", v36).
      for tool in memcheck synccheck racecheck; do
        HUMMING_SANITIZE_K=5120 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 gpu-bundle/bin/example_sanitize_a16 "${SANITIZE_CASES:-stage ring}" > "$W/quick/$tool-ring.log" 2>&1
        echo "$tool (${SANITIZE_CASES:-stage ring}): exit $?"; grep -hE "ok \(|FAILED|ERROR SUMMARY|RACECHECK SUMMARY" "$W/quick/$tool-ring.log" | head -n 4
      done
      echo "checkplans: in $(( $(date +%s) - t0 )) s" ;;
    plans)
      # This GPU's plans (Gpu::profile) against the defaults (--default-plans) at M <= 32 on the
      # issue shapes, alternated three times in one process each (A/B, graph harness).
      # ab_summary.py's labels: bench_a16 (new: this GPU's plans), bench_a16_old (the defaults).
      # PLANS_SHAPES / PLANS_M pick the cells; PLANS_FORMATS adds other specs (bench_a16 flags,
      # separated by ';') on the first two shapes at M = 1 and 8 (PLANS_FORMATS_M).
      PS=${PLANS_SHAPES:-8192x8192,8192x28672,28672x8192}
      # PLANS_NEW: flags of the new side (`--lean-plans`: the lean-DRAM GPU's plans on any GPU,
      # e.g. the H100's rules on an H200); PLANS_REPS alternations (3).
      for r in $(seq ${PLANS_REPS:-3}); do for d in "${PLANS_NEW:-}" "--default-plans"; do
        [ "$d" = "--default-plans" ] && o=_old || o=
        timeout ${PLANS_S:-90} gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy $d --label "bench_a16$o" --shapes $PS \
          --m ${PLANS_M:-1,2,4,8,12,16,32} --harness graph >> "$W/bench/plans.jsonl" 2>> "$W/bench/plans.err"
        IFS=';' read -ra fmts <<< "${PLANS_FORMATS:-}"
        for f in "${fmts[@]}"; do
          timeout 60 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy $d $f --label "bench_a16$o" --shapes $(echo $PS | cut -d, -f1-2) \
            --m ${PLANS_FORMATS_M:-1,8} --harness graph >> "$W/bench/plans.jsonl" 2>> "$W/bench/plans.err"
        done
      done; done
      python3 scripts/ab_summary.py "$W/bench/plans.jsonl" > "$W/bench/plans.txt" 2>&1 || true
      echo "plans: in $(( $(date +%s) - t0 )) s"; cat "$W/bench/plans.txt"
      cp "$W/bench/plans.jsonl" "$W/bench/plans.txt" "$OUT/" ;;
    lean)
      # The warp-specialized 16-row wgmma tile (the lean-DRAM plan) against the default plans at
      # M <= 16, on whatever GPU this is: labels bench_a16 (the tile, its auto split) and
      # bench_a16_old (--default-plans), alternated three times (graph harness).
      for r in 1 2 3; do
        timeout 60 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy --default-plans --label bench_a16_old \
          --shapes ${LEAN_SHAPES:-8192x8192,8192x28672,28672x8192,4096x14336,14336x4096} --m 1,4,8,16 --harness graph >> "$W/bench/lean.jsonl" 2>> "$W/bench/lean.err"
        timeout 60 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy --label bench_a16 --plans m1x16_n4x64_k1w_bk128_s4_ws --splits auto \
          --shapes ${LEAN_SHAPES:-8192x8192,8192x28672,28672x8192,4096x14336,14336x4096} --m 1,4,8,16 --harness graph >> "$W/bench/lean.jsonl" 2>> "$W/bench/lean.err"
      done
      python3 scripts/ab_summary.py "$W/bench/lean.jsonl" > "$W/bench/lean.txt" 2>&1 || true
      echo "lean: in $(( $(date +%s) - t0 )) s"; cat "$W/bench/lean.txt"; tail -n 5 "$W/bench/lean.err"
      cp "$W/bench/lean.jsonl" "$W/bench/lean.txt" "$OUT/" ;;
    l2)
      # The same A/B with one weight copy (--copies 1) on layers that fit the L2: each plan's own
      # streaming rate, above the DRAM's (does the 16-row tile have a ceiling of its own?).
      for r in 1 2; do for c in 1 ""; do
        timeout 60 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy --default-plans --label "bench_a16_old${c:+_l2}" ${c:+--copies $c} \
          --shapes ${L2_SHAPES:-8192x4096,4096x8192,28672x2048,8192x2048} --m 1,8,16 --harness graph >> "$W/bench/l2.jsonl" 2>> "$W/bench/l2.err"
        timeout 60 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy --label "bench_a16${c:+_l2}" ${c:+--copies $c} --plans m1x16_n4x64_k1w_bk128_s4_ws,m1x16_n2x64_k1w_bk128_s4_ws \
          --splits auto,1,2,4,8 --shapes ${L2_SHAPES:-8192x4096,4096x8192,28672x2048,8192x2048} --m 1,8,16 --harness graph >> "$W/bench/l2.jsonl" 2>> "$W/bench/l2.err"
      done; done
      python3 scripts/l2_summary.py "$W/bench/l2.jsonl" > "$W/bench/l2.txt" 2>&1 || true
      echo "l2: in $(( $(date +%s) - t0 )) s"; cat "$W/bench/l2.txt"; tail -n 5 "$W/bench/l2.err"
      cp "$W/bench/l2.jsonl" "$W/bench/l2.txt" "$OUT/" ;;
    big)
      # Plans x splits at M = 128 / 256 on the two large layers (label `splits`: ab_summary.py's
      # sweep section prints every split of every plan).
      timeout 240 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy --label splits --shapes 28672x8192,8192x28672 --m 128,256 --harness graph --splits auto,1,2 \
        --plans auto,m8x16_n2x64_k1w_bk128_s4_ws,m8x16_n2x64_k1w_bk128_s5_ws,m8x16_n2x64_k1w_bk64_s6_ws,m16x16_n2x64_k1w_bk64_s5_ws,m8x16_n4x64_k1w_bk128_s4_wg,m8x16_n4x64_k1w_bk64_s4_wg \
        >> "$W/bench/big.jsonl" 2>> "$W/bench/big.err"
      python3 scripts/ab_summary.py "$W/bench/big.jsonl" > "$W/bench/big.txt" 2>&1 || true
      echo "big: in $(( $(date +%s) - t0 )) s"; cat "$W/bench/big.txt"; tail -n 5 "$W/bench/big.err"
      cp "$W/bench/big.jsonl" "$W/bench/big.txt" "$OUT/" ;;
    overhead)
      # The fixed cost of a GEMM at M = 1: the default plans over a K sweep (splits auto / 1 / 2 /
      # 4; with and without programmatic dependent launch) beside the Triton streaming-read floor
      # of the same bytes (bench_torch.py `floor`), graph harness.
      # OVERHEAD_HARNESS=cold fits the same lines after an L2 flush (the cold harness's gap to the floor).
      OS=${OVERHEAD_SHAPES:-8192x512,8192x1024,8192x2048,8192x4096,8192x8192,4096x1024,4096x4096,28672x1024}
      OH=${OVERHEAD_HARNESS:-graph}
      timeout 120 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy --label splits --shapes $OS --m 1,16 --harness $OH --splits auto,1,2,4 >> "$W/bench/overhead.jsonl" 2>> "$W/bench/overhead.err"
      timeout 120 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy --no-pdl --label no-pdl --shapes $OS --m 1,16 --harness $OH >> "$W/bench/overhead.jsonl" 2>> "$W/bench/overhead.err"
      timeout 150 python3 scripts/bench_torch.py --no-copy --impls floor --harness $OH --shapes $OS >> "$W/bench/overhead.jsonl" 2>> "$W/bench/overhead.err"
      python3 scripts/overhead_summary.py "$W/bench/overhead.jsonl" $OH > "$W/bench/overhead.txt" 2>&1 || true
      echo "overhead: in $(( $(date +%s) - t0 )) s"; cat "$W/bench/overhead.txt"; tail -n 5 "$W/bench/overhead.err"
      cp "$W/bench/overhead.jsonl" "$W/bench/overhead.txt" "$OUT/" ;;
    small)
      # The M <= 8 mma.sync plans' neighbours (stages, k warps, stage depth) x splits on this GPU,
      # twice (sweep_best.py: the best of each cell against the default, the first record).
      for r in 1 2; do
        # SMALL_M / SMALL_PLANS: other M and plans (e.g. M = 12,16 and the two-tile plans).
        # SMALL_COPIES=1: the first run keeps the weights in the L2 (the plans' own rate, label small_l2).
        c=""; [ "$r" = 1 ] && c=${SMALL_COPIES:-}
        timeout 150 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy --label small${c:+_l2} ${c:+--copies $c} --shapes ${SMALL_SHAPES:-8192x8192,4096x4096,4096x14336,6144x4096,14336x4096} --m ${SMALL_M:-1,8} --harness graph --splits auto,1,2,4 \
          --plans auto,${SMALL_PLANS:-m1x8_n1x64_k8w_bk512_s4,m1x8_n1x64_k4w_bk256_s4,m1x8_n1x64_k4w_bk256_s6,m1x8_n2x64_k4w_bk256_s4,m1x8_n1x64_k8w_bk256_s6,m1x8_n1x64_k4w_bk512_s4,m1x8_n2x64_k2w_bk256_s6} \
          > "$W/bench/small-$r.jsonl" 2>> "$W/bench/small.err"
        python3 scripts/sweep_best.py "$W/bench/small-$r.jsonl" > "$W/bench/small-$r.txt" 2>&1 || true
      done
      echo "small: in $(( $(date +%s) - t0 )) s"; cat "$W/bench/small-1.txt" "$W/bench/small-2.txt"; tail -n 5 "$W/bench/small.err"
      cat "$W/bench/small-1.jsonl" "$W/bench/small-2.jsonl" > "$OUT/small.jsonl"; cat "$W/bench/small-1.txt" "$W/bench/small-2.txt" > "$OUT/small.txt" ;;
    mid)
      # The warp-specialized tiles' neighbours at M 17..64 (MID_SHAPES, MID_M, MID_PLANS) x splits (MID_SPLITS),
      # twice; MID_FORMATS adds other specs (bench_a16 flags, ';' between them) on the first two
      # shapes. sweep_best.py: the best of each cell against the default (the first record).
      IFS=';' read -ra fmts <<< "${MID_FORMATS:-}"
      for r in 1 2; do for f in "" "${fmts[@]}"; do
        sh=${MID_SHAPES:-8192x8192,14336x4096,4096x14336,8192x4096}; [ -n "$f" ] && sh=$(echo $sh | cut -d, -f1-2)
        timeout 150 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy --label mid $f --shapes $sh --m ${MID_M:-24,32} --harness graph --splits ${MID_SPLITS:-auto,1,2,4} \
          --plans auto,${MID_PLANS:-m2x16_n2x64_k1w_bk128_s4_ws,m2x16_n4x64_k1w_bk128_s4_ws} >> "$W/bench/mid-$r.jsonl" 2>> "$W/bench/mid.err"
      done
        python3 scripts/sweep_best.py "$W/bench/mid-$r.jsonl" > "$W/bench/mid-$r.txt" 2>&1 || true
      done
      echo "mid: in $(( $(date +%s) - t0 )) s"; cat "$W/bench/mid-1.txt" "$W/bench/mid-2.txt"; tail -n 5 "$W/bench/mid.err"
      # MID_TAG names the result (two sweeps in one device call); sweep_best.py remakes the summaries here.
      cat "$W/bench/mid-1.jsonl" "$W/bench/mid-2.jsonl" > "$OUT/mid${MID_TAG:-}.jsonl" ;;
    formats)
      # The issue's other formats (FORMATS_SPECS: bench_a16 flags, ';' between them) beside u4 f16,
      # each spec's default plan: label fmt, M 1 / 8 / 16 / 64 on 8192^2 and 28672 x 8192 from DRAM;
      # fmt_l2, one weight copy of 8192 x 4096 (it stays in the L2: the kernel's own rate);
      # FORMATS_PLANS, a sweep of plans x splits at M = 1 / 8 (sweep_best.py). SASS: the
      # instruction mix of each cubin that gpu-bundle/sass holds (plan_ptx built them).
      IFS=';' read -ra fmts <<< "${FORMATS_SPECS:---weight u4;--weight u4 --act bf16;--weight u8;--weight u3;--weight e2m1 --act bf16 --scale ue8m0 --group 32;--weight e2m1 --act f16 --scale e4m3 --group 16}"
      for f in "${fmts[@]}"; do
        timeout 60 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy --label fmt $f --shapes 8192x8192,28672x8192 --m 1,8,16,64 --harness graph >> "$W/bench/formats.jsonl" 2>> "$W/bench/formats.err"
        timeout 60 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy --label fmt_l2 --copies 1 $f --shapes 8192x4096 --m 1,8,16 --harness graph >> "$W/bench/formats.jsonl" 2>> "$W/bench/formats.err"
        [ -n "${FORMATS_PLANS:-}" ] && timeout 120 gpu-bundle/bin/example_bench_a16 --arch ${ARCH:-sm_90a} --no-copy --label fmt_sweep $f --shapes 8192x8192,28672x8192 --m 1,8 \
          --splits auto,1,2,4 --plans auto,$FORMATS_PLANS >> "$W/bench/formats-sweep.jsonl" 2>> "$W/bench/formats.err"
      done
      python3 scripts/bench_table.py "$W/bench/formats.jsonl" > "$W/bench/formats.txt" 2>&1 || true
      [ -s "$W/bench/formats-sweep.jsonl" ] && python3 scripts/sweep_best.py "$W/bench/formats-sweep.jsonl" >> "$W/bench/formats.txt" 2>&1
      bash scripts/sass_mix.sh gpu-bundle/sass/*.cubin >> "$W/bench/formats.txt"
      echo "formats: in $(( $(date +%s) - t0 )) s"; cat "$W/bench/formats.txt"; tail -n 5 "$W/bench/formats.err"
      cp "$W/bench/formats.jsonl" "$W/bench/formats.txt" "$OUT/"; [ -s "$W/bench/formats-sweep.jsonl" ] && cp "$W/bench/formats-sweep.jsonl" "$OUT/" ;;
    widths)
      # Weights of the widths whose defaults keep mma.sync plans on sm_90a (WIDTHS_SPECS: bench_a16
      # flags, ';' between them) on the wgmma plans the default rules would give them (`--plans
      # auto,wgmma`: a cell without one times the default alone), WIDTHS_M on the issue's three
      # layers, graph harness, WIDTHS_REPS (2) runs; then gpu_sm90a_every_width (those plans against
      # the f64 reference).
      IFS=';' read -ra fmts <<< "${WIDTHS_SPECS:---weight u3;--weight u3 --act bf16;--weight u2;--weight u5;--weight u6;--weight e3m2 --act bf16 --scale ue8m0 --group 32}"
      for r in $(seq ${WIDTHS_REPS:-2}); do for f in "${fmts[@]}"; do
        timeout 120 gpu-bundle/bin/example_bench_a16 --arch sm_90a --no-copy --label widths $f --shapes ${WIDTHS_SHAPES:-8192x8192,28672x8192,8192x28672} \
          --m ${WIDTHS_M:-17,32,48,64,128,256} --plans auto,wgmma --harness graph >> "$W/bench/widths.jsonl" 2>> "$W/bench/widths.err"
      done; done
      python3 scripts/sweep_best.py "$W/bench/widths.jsonl" --all > "$W/bench/widths.txt" 2>&1
      HUMMING_REQUIRE_GPU=1 timeout ${WIDTHS_CHECK_S:-200} gpu-bundle/bin/gpu_sm90a_plans --test-threads=1 --nocapture --exact gpu_sm90a_every_width > "$W/quick/gpu_sm90a_every_width.log" 2>&1
      echo "gpu_sm90a_every_width: exit $?" >> "$W/bench/widths.txt"
      grep -hE "test result|pairs|FAILED|panicked" "$W/quick/gpu_sm90a_every_width.log" | head -n 8 >> "$W/bench/widths.txt"
      echo "widths: in $(( $(date +%s) - t0 )) s"; cat "$W/bench/widths.txt"; tail -n 5 "$W/bench/widths.err"
      cp "$W/bench/widths.jsonl" "$W/bench/widths.txt" "$W/quick/gpu_sm90a_every_width.log" "$OUT/" ;;
    oddcheck)
      # v36's defaults for the other widths: WIDTHS_SPECS at their default plans (label
      # widths_final) on the issue's layers beside ODD_PLANS (the mma.sync plan the defaults took at
      # M 65..256 before v36, timed from M = 48), the GPU suites that run odd-width wgmma plans
      # (gpu_sm90a_plans but its sweep of 4- and 8-bit plans, gpu_a16's every-target test), and
      # memcheck / synccheck of sanitize_a16's odd-width cases (racecheck does not order the
      # rings' mbarrier refills: v22).
      IFS=';' read -ra fmts <<< "${WIDTHS_SPECS:---weight u3;--weight u3 --act bf16;--weight u2;--weight u5;--weight u6;--weight e3m2 --act bf16 --scale ue8m0 --group 32}"
      for f in "${fmts[@]}"; do
        timeout 90 gpu-bundle/bin/example_bench_a16 --arch sm_90a --no-copy --label widths_final $f --shapes 8192x8192,28672x8192,8192x28672 \
          --m ${WIDTHS_M:-1,16,17,32,48,64,128,256} --plans ${ODD_PLANS:-auto,m4x16_n2x64_k2w_bk128_s3} --harness graph >> "$W/bench/widths_final.jsonl" 2>> "$W/bench/widths.err"
      done
      python3 scripts/sweep_best.py "$W/bench/widths_final.jsonl" --all > "$W/bench/widths_final.txt" 2>&1
      for t in "gpu_sm90a_plans --skip gpu_sm90a_plan_sweep" "gpu_a16 --exact gpu_a16_every_target"; do
        HUMMING_REQUIRE_GPU=1 timeout 240 gpu-bundle/bin/$t --test-threads=1 --nocapture > "$W/quick/${t%% *}.log" 2>&1
        echo "$t: exit $?" >> "$W/bench/widths_final.txt"; grep -hE "test result|pairs|checked|failed|FAILED|panicked" "$W/quick/${t%% *}.log" | head -n 8 >> "$W/bench/widths_final.txt"
      done
      for tool in memcheck synccheck; do
        timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 gpu-bundle/bin/example_sanitize_a16 "odd width" > "$W/quick/$tool-odd.log" 2>&1
        echo "$tool (odd width): exit $?" >> "$W/bench/widths_final.txt"; grep -hE "ok \(|FAILED|ERROR SUMMARY" "$W/quick/$tool-odd.log" | head -n 5 >> "$W/bench/widths_final.txt"
      done
      echo "oddcheck: in $(( $(date +%s) - t0 )) s"; cat "$W/bench/widths_final.txt"
      cp "$W/bench/widths_final.jsonl" "$W/bench/widths_final.txt" "$W/quick/gpu_sm90a_plans.log" "$OUT/" ;;
    fmtab)
      # An A/B of two builds on the formats of FMTAB_SPECS (bench_a16 flags, ';' between them):
      # FMTAB_OLD (gpu-bundle/old/example_bench_a16, label bench_a16_old, copied there by hand
      # from the build before the change) against FMTAB_NEW (this bundle's, label bench_a16),
      # alternated FMTAB_REPS times (3), default plans, graph harness (ab_summary.py). Files
      # are named fmtab$FMTAB_TAG.
      IFS=';' read -ra fmts <<< "${FMTAB_SPECS:---weight e2m1 --act bf16 --scale ue8m0 --group 32}"
      f_=$W/bench/fmtab${FMTAB_TAG:-}
      for r in $(seq ${FMTAB_REPS:-3}); do for f in "${fmts[@]}"; do for d in old new; do
        bin=${FMTAB_NEW:-gpu-bundle/bin/example_bench_a16}; lab=bench_a16; [ $d = old ] && { bin=${FMTAB_OLD:-gpu-bundle/old/example_bench_a16}; lab=bench_a16_old; }
        timeout 90 $bin --arch ${ARCH:-sm_90a} --no-copy --label $lab $f --shapes ${FMTAB_SHAPES:-28672x8192,8192x8192} --m ${FMTAB_M:-1,8,16,32,64} \
          --harness graph >> "$f_.jsonl" 2>> "$f_.err"
      done; done; done
      python3 scripts/ab_summary.py "$f_.jsonl" | grep -v "^--- splits" > "$f_.txt" 2>&1 || true
      echo "fmtab${FMTAB_TAG:-}: in $(( $(date +%s) - t0 )) s"; cat "$f_.txt"; tail -n 5 "$f_.err"
      cp "$f_.jsonl" "$f_.txt" "$OUT/" ;;
    *) echo "unknown part $part"; exit 2 ;;
  esac
done
# LOGS=0: no archive (a first of two invocations in one call; the device tool returns 8 files).
[ "${LOGS:-1}" = 0 ] || tar -czf "$OUT/logs.tgz" -C "$W" .
