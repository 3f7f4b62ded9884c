#!/usr/bin/env bash
# Builds the GPU test binaries and examples here (release) and writes gpu-bundle/: a folder that
# a machine with only the CUDA driver can run (no Rust there): `bash gpu-bundle/run.sh`.
# run.sh runs every binary with HUMMING_REQUIRE_GPU=1 (a missing GPU is a failure there, not a
# skip) and exits non-zero on any failure. Logs go to $OUT when set (the device tool's folder).
set -euo pipefail
cd "$(dirname "$0")/.."
export CUDA_LIBRARY_PATH="${CUDA_LIBRARY_PATH:-/usr}"
out=gpu-bundle
rm -rf "$out"; mkdir -p "$out/bin"
# Test targets whose names start with gpu_ are the GPU suites (they also run, and skip, in CI).
cargo test --release -p humming --no-run --message-format=json 2>/dev/null \
  | python3 -c '
import json, sys, shutil
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable"): continue
    t = m["target"]
    if "test" in t["kind"] and t["name"].startswith("gpu_"):
        shutil.copy(m["executable"], sys.argv[1] + "/bin/" + t["name"])
        print("bundled test", t["name"])
' "$out"
# Examples that check their own results (run by run.sh) and tools (run by device-session.sh).
checked_examples="quickstart runtime_spec custom_format"
for ex in ${BUNDLE_EXAMPLES:-$checked_examples sanitize_a16 bench_a16 bench_runtime diff_a16}; do
  [ -f "examples/$ex.rs" ] || { echo "no example $ex (skipped)"; continue; }
  cargo build --release --example "$ex" -q
  cp "target/release/examples/$ex" "$out/bin/example_$ex"; echo "bundled example $ex"
done
echo "$checked_examples" > "$out/checked_examples"
cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs every bundled GPU test binary and the examples that check their own results; non-zero
# exit if any fails. (The benchmark and sanitizer runs are in scripts/device-session.sh.)
set -uo pipefail
cd "$(dirname "$0")"
log=${OUT:-.}
export HUMMING_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
fail=0
for b in bin/gpu_*; do
  name=$(basename "$b")
  echo "=== $name"
  "$b" --test-threads=1 --nocapture 2>&1 | tee "$log/$name.log"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then echo "FAILED: $name (exit $rc)"; fail=1; fi
done
export HUMMING_PTX_CACHE=${HUMMING_PTX_CACHE:-/tmp/humming-ptx-cache}
for ex in $(cat checked_examples); do
  b=bin/example_$ex
  [ -x "$b" ] || continue
  echo "=== example $ex"
  "$b" 2>&1 | tee "$log/example_$ex.log"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then echo "FAILED: example $ex (exit $rc)"; fail=1; fi
  grep -q "no GPU" "$log/example_$ex.log" && { echo "FAILED: example $ex ran without the GPU"; fail=1; }
done
[ "$fail" -eq 0 ] && echo "GPU bundle: all passed" || echo "GPU bundle: FAILURES"
exit $fail
RUN
chmod +x "$out/run.sh"
du -sh "$out"
