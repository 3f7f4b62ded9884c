#!/usr/bin/env python3
"""One line per (label, spec, shape, M) of a bench_a16 run over several specs (device-table-quick.sh
`formats`): time, bytes a second, plan / split, registers.

    python3 formats_summary.py formats.jsonl
"""
import json
import sys


def main(path):
    rows = []
    for line in open(path):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("impl") == "humming" and r.get("us") is not None:
            rows.append(r)
    print(f"{'label':<8} {'spec':<48} {'N x K':>12} {'M':>4} {'us':>8} {'GB/s':>7} {'plan/split':<34} regs")
    for r in rows:
        shape = f"{r['n']}x{r['k']}"
        print(f"{r['label']:<8} {r['spec']:<48} {shape:>12} {r['m']:>4} {r['us']:8.2f} {r['gbps']:7.0f} {r['plan'] + '/' + str(r['split']):<34} {r['regs']}")


if __name__ == "__main__":
    main(sys.argv[1])
