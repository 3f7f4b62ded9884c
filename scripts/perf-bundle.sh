#!/usr/bin/env bash
# Builds what one device call of the performance work needs (no Rust on the GPU machine) and puts
# it in $DEST (default /work/main/perf-bundle, the folder the device tool carries): the benchmark
# example, the gpu_a16 test binary, the torch baseline and table scripts, and perf-session.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${DEST:-/work/main/perf-bundle}
export CUDA_LIBRARY_PATH="${CUDA_LIBRARY_PATH:-/usr}"
rm -rf "$DEST"; mkdir -p "$DEST/bin"
for ex in bench_a16 sanitize_a16; do
  cargo build --release --example $ex -q
  cp target/release/examples/$ex "$DEST/bin/"
done
if [ "${WITH_TESTS:-1}" = 1 ]; then
  cargo test --release -p humming --test gpu_a16 --test gpu_ir_samples --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json,sys,shutil
for l in sys.stdin:
    try: m=json.loads(l)
    except ValueError: continue
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["target"]["name"].startswith("gpu_"):
        shutil.copy(m["executable"], sys.argv[1] + "/bin/" + m["target"]["name"]); print("bundled", m["target"]["name"])' "$DEST"
fi
# OLD="<commit> [<commit> ...]": also the benchmark of each of those commits, as bin/bench_a16_old,
# bin/bench_a16_old2, ... (A/B in one call). The old builds share their own target folder
# (target-old, ignored) so that later A/B builds are incremental; the worktrees are temporary.
i=1
for old in ${OLD:-}; do
  root=$(pwd); wt=$(mktemp -d)
  git worktree add -f --detach "$wt" "$old" -q
  (cd "$wt" && CARGO_TARGET_DIR="$root/target-old" cargo build --release --example bench_a16 -q)
  suffix=$([ $i = 1 ] && echo "" || echo $i)
  cp "$root/target-old/release/examples/bench_a16" "$DEST/bin/bench_a16_old$suffix"
  git worktree remove --force "$wt"
  i=$((i + 1))
done
cp scripts/bench_torch.py scripts/bench_table.py scripts/perf-session.sh scripts/ncu-stall.sh scripts/ncu_src_summary.py "$DEST/"
git rev-parse --short HEAD > "$DEST/COMMIT"; git status --short >> "$DEST/COMMIT"
du -sh "$DEST"
