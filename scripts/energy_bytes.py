#!/usr/bin/env python3
"""What a byte costs the GPU in energy by where it is read from (issue 6, perf notes v23).

    python3 scripts/energy_bytes.py [--seconds 3]

Each case is a CUDA graph of torch kernels, replayed for about --seconds after a warm-up; NVML's
energy counter (energy.py) and the wall clock are read around the replays (synchronized), so
setup is outside. Cases: the GPU idle; tiny kernels only (launch traffic at full clock); a sum
over rotating copies totalling 1 GiB (DRAM reads); sums over one 16 MiB tensor (L2-resident
reads); device-to-device copies over rotating 64 MiB buffers (DRAM read + write). Prints one
JSON line a case: time a replay, bytes a replay, GB/s, mean power, pJ a byte, and pJ a byte
above the tiny-kernel case's power (what the bytes add to a busy GPU's baseline)."""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from energy import energy_mj  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--seconds", type=float, default=3.0)
args = p.parse_args()
dev = torch.device("cuda")
MIB = 1 << 20


def graph_of(calls):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for c in calls:
            c()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for c in calls:
            c()
    return g


def run(name, calls, nbytes, baseline_w=None):
    g = graph_of(calls)
    t0 = time.monotonic()
    n_warm = 0
    while time.monotonic() - t0 < 0.5:
        g.replay(); torch.cuda.synchronize(); n_warm += 1
    per = (time.monotonic() - t0) / n_warm
    n = max(1, int(args.seconds / per))
    torch.cuda.synchronize()
    e0, t0 = energy_mj(), time.monotonic()
    for _ in range(n):
        g.replay()
    torch.cuda.synchronize()
    e1, t1 = energy_mj(), time.monotonic()
    w = (e1 - e0) / (t1 - t0) / 1e3
    r = {"case": name, "replays": n, "us_per_replay": round((t1 - t0) / n * 1e6, 2), "bytes_per_replay": nbytes,
         "gbps": round(nbytes * n / (t1 - t0) / 1e9, 1) if nbytes else 0, "watts": round(w, 1)}
    if nbytes:
        r["pj_per_byte"] = round((e1 - e0) * 1e9 / (n * nbytes), 1)
        if baseline_w is not None:
            r["pj_per_byte_above_tiny"] = round((w - baseline_w) * (t1 - t0) * 1e12 / (n * nbytes), 1)
    print(json.dumps(r), flush=True)
    return r


torch.cuda.synchronize()
e0, t0 = energy_mj(), time.monotonic()
time.sleep(args.seconds)
print(json.dumps({"case": "idle", "watts": round((energy_mj() - e0) / (time.monotonic() - t0) / 1e3, 1)}), flush=True)

tiny = torch.zeros(256, device=dev)
base = run("tiny kernels", [lambda: tiny.add_(1.0)] * 200, 0)["watts"]

big = [torch.randn(64 * MIB, device=dev, dtype=torch.float16) for _ in range(8)]  # 8 x 128 MiB
acc = torch.zeros((), device=dev, dtype=torch.float32)
run("DRAM read (sum over 8 x 128 MiB)", [lambda x=x: acc.add_(x.sum(dtype=torch.float32)) for x in big],
    sum(x.numel() * 2 for x in big), base)

small = torch.randn(8 * MIB, device=dev, dtype=torch.float16)  # 16 MiB, L2-resident
run("L2 read (sum over one 16 MiB tensor, 32 times)", [lambda: acc.add_(small.sum(dtype=torch.float32))] * 32,
    32 * small.numel() * 2, base)

src = [torch.randn(32 * MIB, device=dev, dtype=torch.float16) for _ in range(8)]  # 8 x 64 MiB
dst = [torch.empty_like(x) for x in src]
run("DRAM copy (8 x 64 MiB, read + write counted)", [lambda s=s, d=d: d.copy_(s) for s, d in zip(src, dst)],
    sum(2 * x.numel() * 2 for x in src), base)
