"""Summary of device-table-quick.sh's `l2` part: per (shape, M), the best time and GB/s of the
default plans and of the 16-row warp-specialized tiles, with weights rotated through DRAM and
with one copy kept in the L2 (labels ending in `_l2`)."""
import collections, json, sys

best = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    fam = 'ws' if r['plan'].endswith('_ws') else 'default'
    where = 'l2' if r['label'].endswith('_l2') else 'dram'
    key = (r['n'], r['k'], r['m'], fam, where)
    if key not in best or r['us'] < best[key]['us']:
        best[key] = r
rows = sorted({k[:3] for k in best})
print(f"{'N x K':>12} {'M':>3}  {'default dram':>22} {'ws dram':>22}  {'default L2':>22} {'ws L2':>22}")
for n, k, m in rows:
    cells = []
    for where in ('dram', 'l2'):
        for fam in ('default', 'ws'):
            r = best.get((n, k, m, fam, where))
            cells.append(f"{r['us']:7.2f} us {r['gbps']:6.0f} GB/s" if r else f"{'-':>22}")
    print(f"{n:>6}x{k:<5} {m:>3}  {cells[0]:>22} {cells[1]:>22}  {cells[2]:>22} {cells[3]:>22}")
print('--- best plan/split of each cell')
for key in sorted(best):
    r = best[key]
    print(key, r['plan'], r['split'], r['copies'])
