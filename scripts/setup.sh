#!/usr/bin/env bash
# Installs what the workspace needs on a fresh x86-64 Debian machine without a GPU:
#  - libcuda.so (Debian's libcuda1, non-free) so that cust links; cuInit then reports "no device";
#  - ptxas (PyPI nvidia-cuda-nvcc) so that tests assemble every generated kernel.
# Idempotent: skips what is already present. Prints where it found things.
set -euo pipefail

need_root() { if [ "$(id -u)" -ne 0 ]; then sudo "$@"; else "$@"; fi; }

# 1. libcuda (driver API stub for linking; no GPU needed)
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so '; then
  src=/etc/apt/sources.list.d/debian.sources
  if [ -f "$src" ] && ! grep -q 'non-free' "$src"; then
    need_root sed -i 's/^Components: main$/Components: main contrib non-free non-free-firmware/' "$src"
  elif [ -f /etc/apt/sources.list ] && ! grep -q 'non-free' /etc/apt/sources.list; then
    need_root sed -i 's/ main$/ main contrib non-free non-free-firmware/' /etc/apt/sources.list
  fi
  need_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive need_root apt-get install -y -qq --no-install-recommends libcuda1 >/dev/null
  # libcuda1 ships libcuda.so.1; cust's build links -lcuda, which needs the unversioned name.
  if ! ldconfig -p | grep -q 'libcuda.so '; then
    so1=$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')
    need_root ln -sf "$so1" "$(dirname "$so1")/libcuda.so"
    need_root ldconfig
  fi
fi
echo "setup: libcuda: $(ldconfig -p | awk '/libcuda.so /{print $NF; exit}')"

# 2. ptxas from PyPI (nvidia-cuda-nvcc), located by tests through HUMMING_PTXAS or PATH.
ptxas_path() {
  python3 - <<'PY' 2>/dev/null
import importlib.util, os, glob, sys
for name in ("nvidia.cuda_nvcc", "nvidia"):
    try:
        spec = importlib.util.find_spec(name)
    except Exception:
        continue
    if spec is None:
        continue
    roots = list(spec.submodule_search_locations or [])
    for r in roots:
        hits = glob.glob(os.path.join(r, "**", "bin", "ptxas"), recursive=True)
        if hits:
            print(hits[0]); sys.exit(0)
sys.exit(1)
PY
}
if ! p=$(ptxas_path); then
  python3 -m pip install -q --disable-pip-version-check 'nvidia-cuda-nvcc-cu12>=12.8' >/dev/null 2>&1 \
    || python3 -m pip install -q --disable-pip-version-check nvidia-cuda-nvcc >/dev/null
  p=$(ptxas_path)
fi
chmod +x "$p" 2>/dev/null || true
mkdir -p "$HOME/.local/bin"
ln -sf "$p" "$HOME/.local/bin/ptxas"
echo "setup: ptxas: $p ($("$p" --version | tail -n 1))"
