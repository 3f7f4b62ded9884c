#!/usr/bin/env python3
"""The SM clock and power that nvidia-smi sampled while each logged run was going.

    python3 scripts/clock_windows.py smi.csv windows.txt

smi.csv: `nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,
<event reasons> --format=csv,noheader -lms 20`; windows.txt: lines `<what> <rep> start|end
HH:MM:SS.ns` (perf-session.sh). Prints, per window, the samples' mean and lowest SM clock,
the highest power, the samples drawing at least 80% of that highest power ("busy": the timed
replays rather than the run's setup) with their mean clock and power, and the event reasons
seen (0x4: the software power cap)."""
import sys
from datetime import datetime


def secs(hms):
    h, m, s = hms.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


samples = []
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.split(",")]
    if len(f) < 6 or "MHz" not in f[1]:
        continue
    t = datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f")
    samples.append((t.hour * 3600 + t.minute * 60 + t.second + t.microsecond / 1e6,
                    int(f[1].split()[0]), float(f[3].split()[0]), f[5]))
starts = {}
print(f"{'window':<28} {'samples':>7} {'mean MHz':>8} {'min MHz':>7} {'max W':>6} {'busy':>5} {'busy MHz':>9} {'busy W':>7}  reasons")
for line in open(sys.argv[2]):
    f = line.split()
    key, edge, t = " ".join(f[:-2]), f[-2], secs(f[-1][:15])
    if edge == "start":
        starts[key] = t
        continue
    inside = [s for s in samples if starts[key] <= s[0] <= t]
    if not inside:
        print(f"{key:<28} {0:>7}")
        continue
    clk = [s[1] for s in inside]
    top = max(s[2] for s in inside)
    busy = [s for s in inside if s[2] >= 0.8 * top]
    print(f"{key:<28} {len(inside):>7} {sum(clk) / len(clk):>8.0f} {min(clk):>7} {top:>6.0f} "
          f"{len(busy):>5} {sum(s[1] for s in busy) / len(busy):>9.0f} {sum(s[2] for s in busy) / len(busy):>7.0f}  "
          + ",".join(sorted({s[3][-2:] for s in inside})))
