#!/usr/bin/env python3
"""Energy and time a GEMM in steady state, from paired runs of one case (perf-session.sh v97,
v99): energy.py's log holds "<case> r<replays>" lines for two replay counts; the differences
over the extra GEMMs (replays x --iters) cancel each run's setup. The median and best replay of
the longer run come from the benchmark records labelled the same.

    python3 scripts/energy_report.py energy.jsonl humming.jsonl [torch.jsonl ...] [--iters 60]"""
import argparse
import collections
import json

p = argparse.ArgumentParser()
p.add_argument("energy")
p.add_argument("records", nargs="*")
p.add_argument("--iters", type=int, default=60)
a = p.parse_args()
runs = collections.defaultdict(dict)
for line in open(a.energy):
    r = json.loads(line)
    case, reps = r["label"].rsplit(" r", 1)
    runs[case][int(reps)] = r
times = {}
for path in a.records:
    for line in open(path):
        r = json.loads(line)
        if "us" in r and r.get("harness") == "graph" and r.get("label"):
            times[r["label"]] = (r["us"], r["us_min"])
print(f"{'case':<44} {'mJ/GEMM':>8} {'us/GEMM':>8} {'W':>5}  median / best replay (us) of the longer run")
for case, by_reps in runs.items():
    if len(by_reps) < 2 or any(r["rc"] for r in by_reps.values()):
        print(f"{case:<44} missing or failed: {sorted(by_reps)}")
        continue
    lo, hi = min(by_reps), max(by_reps)
    n = (hi - lo) * a.iters
    de, dt = by_reps[hi]["mj"] - by_reps[lo]["mj"], by_reps[hi]["s"] - by_reps[lo]["s"]
    med, best = times.get(f"{case} r{hi}", ("?", "?"))
    print(f"{case:<44} {de / n:8.2f} {dt / n * 1e6:8.1f} {de / dt / 1e3:5.0f}  {med} / {best}")
