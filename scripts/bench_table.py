"""Merges the JSON lines of examples/bench_a16.rs and scripts/bench_torch.py (one run, one GPU)
into tables: per (harness, shape, M) the best humming record of each spec and label, the
baselines' times, and ratios (baseline time / humming time, > 1 = humming faster), with the
fraction of the measured copy bandwidth. `--all` also lists every humming record (plan sweeps).

    python3 bench_table.py [--all] file.jsonl ..."""
import json, sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
show_all = "--all" in sys.argv
rows = []
for f in args:
    for line in open(f):
        line = line.strip()
        if line.startswith("{"):
            try:
                rows.append(json.loads(line))
            except ValueError:
                pass
copy = next((r for r in rows if r.get("impl") == "copy"), None) or next((r for r in rows if r.get("impl") == "copy_torch"), None)
bw = copy["gbps"] if copy else None
peak = next((r["tflops"] for r in rows if r.get("impl") == "tc_peak"), None)
print(f"copy bandwidth (read+write, 1 GiB D2D): {bw} GB/s; cuBLAS bf16 8192^3: {peak} TFLOP/s")
for r in rows:
    if "error" in r:
        print(f"error: {r}")

base = {}
for r in rows:
    if r.get("impl") in ("cublas_f16", "cublas_bf16", "cublas_fp8", "tinygemm") and "us" in r:
        base[(r["impl"], r["harness"], r["n"], r["k"], r["m"])] = r

hum = [r for r in rows if r.get("impl") == "humming" and r.get("label") != "chk"]
best = {}
for r in hum:
    key = (r["harness"], r["n"], r["k"], r["m"], r["spec"], r.get("label", ""))
    if key not in best or r["us"] < best[key]["us"]:
        best[key] = r


def ratio(b, us):
    return f"{b['us'] / us:.2f}x" if b else "-"


def bus(b):
    return f"{b['us']:.2f}" if b else "-"


hdr = (f"{'harness':<6} {'N':>6} {'K':>6} {'M':>4} {'spec':<40} {'label':<8} {'hum us':>8} {'f16 us':>8} {'vs f16':>7} "
       f"{'bf16 us':>8} {'vs bf16':>7} {'fp8 us':>8} {'vs fp8':>7} {'tiny us':>8} {'vs tiny':>7} {'GB/s':>6} {'%copy':>6} {'TFLOP/s':>7} plan/split (regs, CTAs/SM)")
print(hdr)
for key in sorted(best, key=lambda t: (t[0], t[1], t[2], t[4], t[5], t[3])):
    r = best[key]
    h, n, k, m = key[:4]
    f16, bf16, fp8, tiny = (base.get((i, h, n, k, m)) for i in ("cublas_f16", "cublas_bf16", "cublas_fp8", "tinygemm"))
    frac = f"{100 * r['gbps'] / bw:.0f}%" if bw else "-"
    spec = r["spec"].replace("-zp_implicit", "").replace("-o_f16", "").replace("-o_bf16", "")
    print(f"{h:<6} {n:>6} {k:>6} {m:>4} {spec:<40} {r.get('label', ''):<8} {r['us']:>8.2f} {bus(f16):>8} {ratio(f16, r['us']):>7} "
          f"{bus(bf16):>8} {ratio(bf16, r['us']):>7} {bus(fp8):>8} {ratio(fp8, r['us']):>7} {bus(tiny):>8} {ratio(tiny, r['us']):>7} "
          f"{r['gbps']:>6.0f} {frac:>6} {r['tflops']:>7.1f} {r['plan']}/{r['split']} ({r.get('regs')}, {r.get('ctas_per_sm')})")

floor = [r for r in rows if str(r.get("impl", "")).startswith("floor_") and "us" in r]
if floor:
    # What moving a shape's W4 g128 weight bytes costs at least (scripts/bench_torch.py `floor`),
    # beside humming at M = 1 in the same harness.
    print("\nfloors (W4 g128 weight + scale bytes of the shape; read = streaming read-only kernel (Triton), copy = D2D copy of half, launch = one tiny kernel):")
    print(f"{'harness':<6} {'N':>6} {'K':>6} {'read us':>8} {'%copy':>6} {'copy us':>8} {'%copy':>6} {'launch us':>9} {'hum M=1':>8} {'%copy':>6}")
    fl = {(r["impl"], r["harness"], r["n"], r["k"]): r for r in floor}
    for h, n, k in sorted({(r["harness"], r["n"], r["k"]) for r in floor}):
        rd, cp, ln = (fl.get((i, h, n, k)) for i in ("floor_read", "floor_copy", "floor_launch"))
        hm = min((r for r in hum if (r["harness"], r["n"], r["k"], r["m"]) == (h, n, k, 1) and r["spec"].startswith("w_u4-a_f16")),
                 key=lambda r: r["us"], default=None)
        pct = lambda r: f"{100 * r['gbps'] / bw:.0f}%" if r and bw and r.get("gbps") else "-"
        print(f"{h:<6} {n:>6} {k:>6} {bus(rd):>8} {pct(rd):>6} {bus(cp):>8} {pct(cp):>6} {bus(ln):>9} {bus(hm):>8} {pct(hm):>6}")

if show_all:
    print("\nall humming records:")
    for r in sorted(hum, key=lambda r: (r["harness"], r["n"], r["k"], r["m"], r["us"])):
        frac = f"{100 * r['gbps'] / bw:.0f}%" if bw else "-"
        print(f"{r['harness']:<6} {r['n']:>6} {r['k']:>6} {r['m']:>4} {r['weight']:<5} {r.get('label', ''):<8} {r['us']:>8.2f} {frac:>5} "
              f"{r['plan']}/{r['split']} grid {r['grid']} regs {r['regs']} CTAs/SM {r['ctas_per_sm']}")
