"""Merges humming and cuBLAS benchmark JSON lines (one run, one GPU) into a table with ratios
and fractions of the measured copy bandwidth."""
import json, sys

rows = [json.loads(l) for f in sys.argv[1:] for l in open(f) if l.strip().startswith("{")]
copy = next((r for r in rows if r["impl"] == "copy"), None)
bw = copy["gbps"] if copy else None
base = {(r["m"], r["n"], r["k"]): r for r in rows if r["impl"] == "cublas_f16"}
print(f"copy bandwidth (read+write): {bw} GB/s" if bw else "copy bandwidth: not measured")
print(f"{'spec':<48} {'M':>5} {'N':>6} {'K':>6} {'humming us':>11} {'cuBLAS f16 us':>14} {'speedup':>8} {'GB/s':>8} {'of copy bw':>10} {'TFLOP/s':>8} plan/split")
for r in rows:
    if r["impl"] != "humming":
        continue
    b = base.get((r["m"], r["n"], r["k"]))
    sp = f"{b['us'] / r['us']:.2f}x" if b else "-"
    frac = f"{100 * r['gbps'] / bw:.0f}%" if bw else "-"
    print(f"{r['spec']:<48} {r['m']:>5} {r['n']:>6} {r['k']:>6} {r['us']:>11.2f} {b['us'] if b else '-':>14} {sp:>8} {r['gbps']:>8.0f} {frac:>10} {r['tflops']:>8.1f} {r['plan']}/{r['split']}")
