#!/usr/bin/env python3
"""Summarises an `ncu --page source --csv --print-source sass` export: the columns, then the
instructions with the most warp-stall samples (with their stall-reason and shared-wavefront
columns), then the samples summed by opcode. Usage: ncu_src_summary.py src.csv [top]."""
import csv, sys, collections

rows = list(csv.reader(open(sys.argv[1], newline="")))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 45
hi = next(i for i, r in enumerate(rows) if any("Source" == c or "Address" in c for c in r))
head, body = rows[hi], [r for r in rows[hi + 1:] if len(r) == len(rows[hi])]
print("columns:", " | ".join(head))

def num(x):
    try: return float(x.replace(",", ""))
    except ValueError: return 0.0

col = {h: i for i, h in enumerate(head)}
samp = next((h for h in head if "Warp Stall Sampling (All" in h), None) or next(h for h in head if "Sampling" in h)
src = next((h for h in head if h == "Source"), head[1])
keep = [h for h in head if any(k in h for k in ("Sampling", "Wavefronts", "Excessive", "Executed", "stall", "Stall"))]
total = sum(num(r[col[samp]]) for r in body)
print(f"rows {len(body)}, total {samp}: {total:.0f}")
ranked = sorted(range(len(body)), key=lambda i: -num(body[i][col[samp]]))
for i in ranked[:top]:
    r = body[i]
    extra = "; ".join(f"{h}={r[col[h]]}" for h in keep if num(r[col[h]]) != 0 and h != samp)
    print(f"{i:5d} {num(r[col[samp]]) / max(total, 1) * 100:5.1f}% {r[col[src]][:70]:70s} {extra}")
by = collections.Counter()
for r in body:
    op = r[col[src]].strip().split()
    op = [o for o in op if not o.startswith("@")]
    by[op[0] if op else "?"] += num(r[col[samp]])
print("by opcode:", ", ".join(f"{k} {v / max(total, 1) * 100:.1f}%" for k, v in by.most_common(20)))
