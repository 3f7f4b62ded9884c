import json,sys,collections
rows=[json.loads(l) for l in open(sys.argv[1])]
d=collections.defaultdict(list)
for r in rows:
    d[(r['label'],r.get('spec',''),r['n'],r['k'],r['m'],r['plan'],r['split'])].append(r['us'])
ab=collections.defaultdict(dict)
for (lab,spec,n,k,m,plan,split),v in d.items():
    if lab.startswith('bench_a16'):
        ab[(spec,n,k,m)][lab]=(min(v),plan,split,sum(v)/len(v))
for key in sorted(ab):
    o=ab[key].get('bench_a16_old'); nw=ab[key].get('bench_a16')
    # Builds besides old and new (bench_a16_old2, ...), each against old.
    mid=''.join(f" {lab[10:]} {t[0]:8.2f} {100*(t[0]/o[0]-1):+6.1f}%" for lab,t in sorted(ab[key].items()) if o and lab not in ('bench_a16','bench_a16_old'))
    # Best of each build's runs, and (mean) the ratio of their means.
    if o and nw: print(f"{key[0][:32]:32s} {key[1]:>6}x{key[2]:<6} M{key[3]:<4} old {o[0]:8.2f}{mid} new {nw[0]:8.2f} {100*(nw[0]/o[0]-1):+6.1f}% (mean {100*(nw[3]/o[3]-1):+5.1f}%)  {nw[1]}/{nw[2]}")
print('--- splits sweep')
sw=collections.defaultdict(dict)
for (lab,spec,n,k,m,plan,split),v in d.items():
    if lab in ('splits','ws'): sw[(n,k,m,plan)][split]=min(v)
for key in sorted(sw):
    print(f"{key[0]:>6}x{key[1]:<6} M{key[2]:<4} {key[3]:32s}", ' '.join(f"s{s}:{t:.2f}" for s,t in sorted(sw[key].items())))
