#!/usr/bin/env bash
# Builds what one device call of the performance work needs (no Rust on the GPU machine) and puts
# it in $DEST (default /work/main/perf-bundle, the folder the device tool carries): the benchmark
# example, the gpu_a16 test binary, the torch baseline and table scripts, and perf-session.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${DEST:-/work/main/perf-bundle}
export CUDA_LIBRARY_PATH="${CUDA_LIBRARY_PATH:-/usr}"
rm -rf "$DEST"; mkdir -p "$DEST/bin"
cargo build --release --example bench_a16 -q
cp target/release/examples/bench_a16 "$DEST/bin/"
if [ "${WITH_TESTS:-1}" = 1 ]; then
  exe=$(cargo test --release -p humming --test gpu_a16 --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json,sys
for l in sys.stdin:
    try: m=json.loads(l)
    except ValueError: continue
    if m.get("reason")=="compiler-artifact" and m.get("executable") and m["target"]["name"]=="gpu_a16": print(m["executable"])')
  cp "$exe" "$DEST/bin/gpu_a16"
fi
cp scripts/bench_torch.py scripts/bench_table.py scripts/perf-session.sh "$DEST/"
git rev-parse --short HEAD > "$DEST/COMMIT"; git status --short >> "$DEST/COMMIT"
du -sh "$DEST"
