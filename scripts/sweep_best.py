#!/usr/bin/env python3
"""Best plan/split of each (spec, shape, M) cell of a bench_a16 sweep (JSON lines), against the
default (plan "auto", split "auto": the first record of the cell, as perf-session.sh runs it).

    python3 sweep_best.py humming.jsonl [--all]

--all: also every plan / split of each cell, its best time and the spread of its repeats.
"""
import json
import sys


def main(path, every=False):
    cells = {}
    for line in open(path):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("impl") != "humming" or r.get("us") is None:
            continue
        key = (r["spec"], r["n"], r["k"], r["m"])
        cells.setdefault(key, []).append(r)
    for (spec, n, k, m), rs in sorted(cells.items(), key=lambda c: c[0]):
        d = rs[0]
        best = min(rs, key=lambda r: r["us"])
        gain = 100.0 * (best["us"] / d["us"] - 1.0)
        print(f"{n:>6}x{k:<6} M{m:<4} default {d['us']:8.2f} {d['plan']}/{d['split']:<3} best {best['us']:8.2f} {best['plan']}/{best['split']:<3} {gain:+6.1f}%")
        if every:
            runs = {}
            for r in rs:
                runs.setdefault(f"{r['plan']}/{r['split']}", []).append(r["us"])
            for name, us in sorted(runs.items(), key=lambda x: min(x[1])):
                print(f"    {name:<36} {min(us):8.2f} ({min(us):.2f}-{max(us):.2f}, {len(us)} runs)")


if __name__ == "__main__":
    main(sys.argv[1], "--all" in sys.argv[2:])
