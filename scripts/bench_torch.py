"""cuBLAS baselines for the humming benchmarks, same harness as examples/bench_a16.rs:
back-to-back launches over rotating weight copies totalling > 3x L2, CUDA events, median of
repeats. Also measures the device-to-device copy bandwidth (bytes read + written).
Prints one JSON object per line."""
import argparse, json, torch

p = argparse.ArgumentParser()
p.add_argument("--n", type=int, default=8192)
p.add_argument("--k", type=int, default=8192)
p.add_argument("--m", default="1,16,64,256,4096")
p.add_argument("--iters", type=int, default=50)
p.add_argument("--reps", type=int, default=7)
a = p.parse_args()
dev = torch.device("cuda")
props = torch.cuda.get_device_properties(dev)
l2 = getattr(props, "L2_cache_size", 50 << 20)

def timed(fn, iters, reps):
    for i in range(3):
        fn(i)
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for r in range(reps):
        s.record()
        for i in range(iters):
            fn(r * 7 + i)
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1e3 / iters)
    ts.sort()
    return ts[len(ts) // 2]

# Copy bandwidth: 1 GiB buffer, read + write.
src = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
dst = torch.empty_like(src)
us = timed(lambda i: dst.copy_(src), 10, 5)
print(json.dumps({"impl": "copy", "bytes": 2 << 30, "us": round(us, 2), "gbps": round((2 << 30) / us / 1e3, 1)}))
del src, dst

n, k = a.n, a.k
wbytes = n * k * 2
copies = max(2, min(64, -(-3 * l2 // wbytes)))
ws = [torch.randn(n, k, dtype=torch.float16, device=dev) for _ in range(copies)]
for m in [int(x) for x in a.m.split(",")]:
    x = torch.randn(m, k, dtype=torch.float16, device=dev)
    us = timed(lambda i: torch.matmul(x, ws[i % copies].t()), a.iters, a.reps)
    byt = wbytes + m * k * 2 + m * n * 2
    print(json.dumps({"impl": "cublas_f16", "m": m, "n": n, "k": k, "us": round(us, 2),
                      "gbps": round(byt / us / 1e3, 1), "tflops": round(2 * m * n * k / us / 1e6, 2),
                      "harness": f"steady-rotating-{copies}"}))
