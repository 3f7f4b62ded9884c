"""Baselines for the humming benchmarks, in the harnesses of examples/bench_a16.rs:

- graph (steady state): a CUDA graph of --iters back-to-back calls over rotating weight copies
  totalling > 3x L2, replayed --reps times, CUDA events; per-call time = replay / iters, median.
- cold: one call per timed region after an untimed L2 flush (256 MB write), median of --cold-reps.

Implementations: cuBLAS fp16 and bf16 (torch.matmul), cuBLAS FP8 e4m3 (torch._scaled_mm, per-tensor
scales, bf16 out; M padded to 16 when cuBLASLt refuses smaller M, reported as m_run), tinygemm
W4 g128 (torch.ops.aten._weight_int4pack_mm, bf16 activations). `floor` (in --impls): what
moving the bytes of a shape's W4 g128 weights and f16 scales costs at least, in the same harnesses:
a read-only kernel over them (the fastest of a few Triton streaming-read configurations; also
torch.amax of an int32 view), a device-to-device copy of half of them
(as many bytes read + written), and one tiny kernel (the per-call floor of a graph). Also the device-to-device copy
bandwidth (bytes read + written) and the cuBLAS bf16 rate at 8192^3 (the measured tensor-core
ceiling). Prints one JSON object per line; failures print {"impl": ..., "error": ...}."""
import argparse, json, sys, torch

p = argparse.ArgumentParser()
p.add_argument("--shapes", default="8192x8192")
p.add_argument("--m", default="1,16,64,256")
p.add_argument("--impls", default="cublas_f16,cublas_bf16,cublas_fp8,tinygemm,floor")
p.add_argument("--harness", default="graph,cold")
p.add_argument("--iters", type=int, default=60)
p.add_argument("--reps", type=int, default=9)
p.add_argument("--cold-reps", type=int, default=25)
p.add_argument("--no-copy", action="store_true")
p.add_argument("--label", default="", help="written into every record (as bench_a16's --label)")
a = p.parse_args()
dev = torch.device("cuda")
props = torch.cuda.get_device_properties(dev)
l2 = getattr(props, "L2_cache_size", 50 << 20)
name = torch.cuda.get_device_name(dev)
stream = torch.cuda.Stream()
flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)


def emit(**kw):
    if a.label:
        kw.setdefault("label", a.label)
    print(json.dumps(kw), flush=True)


def median(ts):
    ts = sorted(ts)
    return ts[len(ts) // 2], ts[0]


def time_graph(fn, copies):
    with torch.cuda.stream(stream):
        for i in range(copies):
            fn(i)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=stream):
        for i in range(a.iters):
            fn(i % copies)
    g.replay()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(a.reps):
        s.record()
        g.replay()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1e3 / a.iters)
    del g
    return median(ts)


def time_cold(fn, copies):
    fn(0)
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for r in range(a.cold_reps):
        flush.fill_(r & 0xFF)
        s.record()
        fn(r % copies)
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1e3)
    return median(ts)


if not a.no_copy:
    src = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
    dst = torch.empty_like(src)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for r in range(7):
        s.record(); dst.copy_(src); e.record(); e.synchronize()
        if r >= 2:
            ts.append(s.elapsed_time(e) * 1e3)
    us = median(ts)[0]
    emit(impl="copy_torch", device=name, bytes=2 << 30, us=round(us, 2), gbps=round((2 << 30) / us / 1e3, 1))
    del src, dst
    x = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
    y = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
    for _ in range(3):
        x @ y
    torch.cuda.synchronize()
    s.record()
    for _ in range(10):
        x @ y
    e.record(); e.synchronize()
    us = s.elapsed_time(e) * 1e3 / 10
    emit(impl="tc_peak", device=name, us=round(us, 2), tflops=round(2 * 8192 ** 3 / us / 1e6, 1))
    del x, y

print(f"# torch {torch.__version__}; tinygemm schema: "
      f"{getattr(getattr(torch.ops.aten, '_weight_int4pack_mm', None), 'default', None) and torch.ops.aten._weight_int4pack_mm.default._schema}",
      file=sys.stderr)

ms = [int(x) for x in a.m.split(",")]
impls = a.impls.split(",")
harnesses = a.harness.split(",")


def triton_read():
    """A streaming read-only kernel in Triton (each program strides over the buffer and sums
    what it reads, one int32 out a program), or None where Triton is missing or fails. It is a
    tighter read floor than torch.amax, whose reduction does more than stream the bytes."""
    try:
        import triton
        import triton.language as tl
    except Exception:  # noqa: BLE001
        return None

    @triton.jit
    def _read(x, out, n, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        acc = tl.zeros([BLOCK], dtype=tl.int32)
        for start in range(pid * BLOCK, n, tl.num_programs(0) * BLOCK):
            offs = start + tl.arange(0, BLOCK)
            acc += tl.load(x + offs, mask=offs < n, other=0, eviction_policy="evict_first")
        tl.store(out + pid, tl.sum(acc, axis=0))

    def make(buf, block, warps, programs, out):
        return lambda: _read[(programs,)](buf, out, buf.numel(), BLOCK=block, num_warps=warps)
    return make


def floors(n, k):
    """The `floor` records of one shape (independent of M). `floor_read` is the fastest of the
    Triton streaming-read configurations in each harness (torch.amax where Triton is missing);
    `floor_read_amax` is torch.amax."""
    wbytes = n * k // 2 + n * (k // 128) * 2
    copies = max(2, min(64, -(-3 * l2 // wbytes)))
    bufs = [torch.randint(-2**31, 2**31 - 1, (wbytes // 4,), dtype=torch.int32, device=dev) for _ in range(copies)]
    half = wbytes // 8
    outs = [torch.empty(half, dtype=torch.int32, device=dev) for _ in range(copies)]
    tiny = torch.zeros(1, device=dev)
    kinds = {
        "floor_read_amax": (lambda i: torch.amax(bufs[i]), wbytes),
        "floor_copy": (lambda i: outs[i].copy_(bufs[i][:half]), 8 * half),
        "floor_launch": (lambda i: tiny.add_(1.0), 0),
    }
    make = triton_read()
    sms = props.multi_processor_count
    red = torch.empty(64 * sms, dtype=torch.int32, device=dev)
    for h in harnesses:
        best = None
        for block, warps, per_sm in ([(b, w, p) for b in (2048, 4096) for w in (4, 8) for p in (2, 4, 8)] if make else []):
            try:
                calls = [make(bufs[i], block, warps, per_sm * sms, red) for i in range(copies)]
                us, us_min = (time_graph if h == "graph" else time_cold)(lambda i: calls[i](), copies)
            except Exception as ex:  # noqa: BLE001
                print(f"# triton read floor {block}/{warps}/{per_sm}: {type(ex).__name__}: {str(ex)[:200]}", file=sys.stderr)
                continue
            if best is None or us < best[0]:
                best = (us, us_min, f"triton block {block} warps {warps} programs {per_sm}/SM")
        if best is None:
            fn = kinds["floor_read_amax"][0]
            us, us_min = (time_graph if h == "graph" else time_cold)(fn, copies)
            best = (us, us_min, "torch.amax")
        emit(impl="floor_read", device=name, n=n, k=k, harness=h, us=round(best[0], 2), us_min=round(best[1], 2), bytes=wbytes,
             gbps=round(wbytes / best[0] / 1e3, 1), copies=copies, how=best[2])
    for impl, (fn, byt) in kinds.items():
        for h in harnesses:
            try:
                us, us_min = (time_graph if h == "graph" else time_cold)(fn, copies)
            except Exception as ex:  # noqa: BLE001
                emit(impl=impl, n=n, k=k, harness=h, error=f"{type(ex).__name__}: {str(ex)[:300]}")
                continue
            emit(impl=impl, device=name, n=n, k=k, harness=h, us=round(us, 2), us_min=round(us_min, 2), bytes=byt,
                 gbps=round(byt / us / 1e3, 1) if byt else None, copies=copies)
    del bufs, outs
    torch.cuda.empty_cache()


for shape in a.shapes.split(","):
    n, k = (int(v) for v in shape.split("x"))
    for impl in impls:
        if impl == "floor":
            floors(n, k)
            continue
        try:
            if impl in ("cublas_f16", "cublas_bf16"):
                dt = torch.float16 if impl == "cublas_f16" else torch.bfloat16
                wbytes = n * k * 2
                copies = max(2, min(64, -(-3 * l2 // wbytes)))
                ws = [torch.randn(n, k, dtype=dt, device=dev) for _ in range(copies)]
                make = lambda m: (lambda x: (lambda i: torch.matmul(x, ws[i].t())))(torch.randn(m, k, dtype=dt, device=dev))
            elif impl == "cublas_fp8":
                wbytes = n * k
                copies = max(2, min(64, -(-3 * l2 // wbytes)))
                ws = [torch.randn(n, k, device=dev).to(torch.float8_e4m3fn) for _ in range(copies)]
                one = torch.tensor(1.0, device=dev)

                def make(m):
                    x = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
                    return lambda i: torch._scaled_mm(x, ws[i].t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            elif impl == "tinygemm":
                g = 128
                wbytes = n * k // 2 + (k // g) * n * 4
                copies = max(2, min(64, -(-3 * l2 // wbytes)))
                ws = []
                for _ in range(copies):
                    q = torch.randint(0, 256, (n, k // 2), dtype=torch.uint8, device=dev)
                    wp = torch.ops.aten._convert_weight_to_int4pack(q, 8)
                    sz = torch.rand(k // g, n, 2, dtype=torch.bfloat16, device=dev) * 0.01
                    ws.append((wp, sz))

                def make(m):
                    x = torch.randn(m, k, dtype=torch.bfloat16, device=dev)
                    return lambda i: torch.ops.aten._weight_int4pack_mm(x, ws[i][0], g, ws[i][1])
            else:
                raise ValueError(f"unknown impl {impl}")
        except Exception as ex:  # noqa: BLE001
            emit(impl=impl, n=n, k=k, error=f"setup: {type(ex).__name__}: {str(ex)[:300]}")
            continue
        for m in ms:
            m_run = m
            try:
                fn = make(m)
                fn(0)
            except Exception as ex:  # noqa: BLE001
                if impl == "cublas_fp8" and m % 16:
                    m_run = -(-m // 16) * 16
                    try:
                        fn = make(m_run)
                        fn(0)
                    except Exception as ex2:  # noqa: BLE001
                        emit(impl=impl, m=m, n=n, k=k, error=f"{type(ex2).__name__}: {str(ex2)[:300]}")
                        continue
                else:
                    emit(impl=impl, m=m, n=n, k=k, error=f"{type(ex).__name__}: {str(ex)[:300]}")
                    continue
            byt = wbytes + m * k * (1 if impl == "cublas_fp8" else 2) + m * n * 2
            for h in harnesses:
                try:
                    us, us_min = (time_graph if h == "graph" else time_cold)(fn, copies)
                except Exception as ex:  # noqa: BLE001
                    emit(impl=impl, m=m, n=n, k=k, harness=h, error=f"{type(ex).__name__}: {str(ex)[:300]}")
                    continue
                emit(impl=impl, device=name, m=m, m_run=m_run, n=n, k=k, harness=h, us=round(us, 2), us_min=round(us_min, 2),
                     gbps=round(byt / us / 1e3, 1), tflops=round(2 * m * n * k / us / 1e6, 2), copies=copies)
        del ws
        torch.cuda.empty_cache()
