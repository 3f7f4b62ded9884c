#!/usr/bin/env bash
# The instruction mix of each cubin given (on a machine with cuobjdump): its count of SASS
# instructions and its 16 most frequent opcodes (predicates and modifiers dropped).
#   bash scripts/sass_mix.sh gpu-bundle/sass/*.cubin
set -uo pipefail
export PATH=$PATH:/usr/local/cuda/bin
for c in "$@"; do
  [ -e "$c" ] || continue
  s=$(cuobjdump -sass "$c" 2>&1)
  echo "== $(basename "$c" .cubin): $(grep -cE '^ +/\*[0-9a-f]{4}\*/' <<< "$s") instructions"
  grep -oE '^ +/\*[0-9a-f]{4}\*/ +(@!?U?P[0-9T] +)?[A-Z0-9_.]+' <<< "$s" | awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -n 16 | tr '\n' ' '; echo
done
