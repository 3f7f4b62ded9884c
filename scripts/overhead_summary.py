"""Summary of device-table-quick.sh's `overhead` part: per shape, humming at M = 1 / 16 (the auto
split, each fixed split, and without programmatic dependent launch) beside the streaming-read
floor of the same weight bytes; then a least-squares line time = fixed + bytes / rate through
each series, whose intercept is the per-GEMM cost that does not scale with the bytes. A second
argument picks the harness (graph by default, or cold)."""
import collections, json, sys

rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
harness = sys.argv[2] if len(sys.argv) > 2 else 'graph'
series = collections.defaultdict(dict)  # name -> {(n, k): (us, bytes)}
for r in rows:
    if 'us' not in r or r.get('harness') != harness:
        continue
    key = (r['n'], r['k'])
    wbytes = r['n'] * r['k'] // 2 + r['n'] * (r['k'] // 128) * 2
    if r.get('impl') == 'floor_read':
        name = 'read floor'
    elif r.get('impl') == 'humming':
        m = r['m']
        if r.get('label') == 'no-pdl':
            name = f'M={m} no-pdl'
        else:
            name = f"M={m} split {r['split']}"
            best = f'M={m} best'
            if key not in series[best] or r['us'] < series[best][key][0]:
                series[best][key] = (r['us'], wbytes)
    else:
        continue
    if key not in series[name] or r['us'] < series[name][key][0]:
        series[name][key] = (r['us'], wbytes)
shapes = sorted({k for s in series.values() for k in s}, key=lambda k: k[0] * k[1])
print(f"{'series':<18}" + ''.join(f"{n}x{k:>6}".rjust(13) for n, k in shapes) + '   fixed us   GB/s')
for name in sorted(series):
    pts = series[name]
    cells = ''.join((f"{pts[s][0]:13.2f}" if s in pts else f"{'-':>13}") for s in shapes)
    fit = ''
    if len(pts) >= 3:
        xs = [b for _, b in pts.values()]; ys = [u for u, _ in pts.values()]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        fit = f"   {my - slope * mx:8.2f}  {1e-3 / slope:5.0f}"
    print(f"{name:<18}{cells}{fit}")
