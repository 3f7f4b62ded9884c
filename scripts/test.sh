#!/usr/bin/env bash
# The test command (README): installs what the workspace needs on a fresh machine, then runs
# every test of the workspace. Without a GPU the kernel tests run on the CPU emulator and the
# GPU tests report that they were skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$HOME/.local/bin:$PATH"
export HUMMING_PTXAS="${HUMMING_PTXAS:-$HOME/.local/bin/ptxas}"
export CUDA_LIBRARY_PATH="${CUDA_LIBRARY_PATH:-/usr}"
cargo test --workspace --all-targets "$@"
