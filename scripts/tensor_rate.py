#!/usr/bin/env python3
"""The tensor pipe's rate on the GPU for the instruction shapes humming's kernels issue.

One CTA a multiprocessor runs W warpgroups (or warps), each issuing a loop of tensor
instructions with nothing else in it; every warpgroup reads its cycles with %clock64 and the
host reads the kernel's time with CUDA events. Per variant it prints the multiply-adds a
multiprocessor clock (2048 is the H100 / H200 dense f16 peak: 989 TFLOP/s at 1.83 GHz on 132
SMs) and the TFLOP/s of the whole grid.

Variants:
- `rs`: `wgmma.mma_async.m64nNk16.f32.f16.f16` with A from registers and B from shared memory
  through a 128-byte-swizzle descriptor (the form the warp-specialized kernels use, N = the
  GEMM's M in the swapped tiles); U wgmmas a commit group, then `wgmma.wait_group 0`.
- `ss`: the same with A from shared memory too.
- `mma`: `mma.sync.m16n8k16.f32.f16.f16.f32` (the sm_80 plans), C independent accumulator
  sets a warp.
- `step`: a skeleton of the warp-specialized math loop (`step_kernel`): each k16 step's A
  fragment dequantized from a shared-memory word, the register sets, commit groups and stage
  fold of the shipped tiles and variants of them; no producer, ring or epilogue.
- `ssstep`: the same step with the dequantized fragment stored to shared memory and read back
  by a shared-memory-A wgmma (`ss_step_kernel`): the design where the wgmma, fed by the async
  proxy, would no longer hold up the warps' other instructions.

`clk/instr` is a warpgroup's (warp's) cycles per tensor instruction it issues. With
`--energy S` each variant is then launched back to back for about S seconds between two reads
of NVML's energy counter (energy.py): the mean power, the SM clock that the %clock64 cycles
of those launches imply (the 700 W cap lowers it), and the energy a multiply-add (pJ). `--only`
keeps the variants whose name matches a regular expression.

The kernels are PTX written here and loaded through the driver (ctypes on libcuda), so nothing
but the driver is needed; `--emit DIR` only writes the PTX (for `ptxas -arch=sm_90a` here).

    python3 scripts/tensor_rate.py [--iters 4000] [--emit DIR] [--energy SECONDS] [--only REGEX]
"""
import argparse
import ctypes
import os
import re
import statistics
import sys
import time

SMEM = 49152  # B: up to 256 rows x 128 bytes (8-row groups 1024 bytes apart); A: 64 rows
A_AREA = 16384  # `ssstep`: the warpgroups' A buffers from here (B of up to 128 rows below it)


def regs(prefix, n):
    return "{" + ", ".join(f"{prefix}{i}" for i in range(n)) + "}"


def prologue(name, threads, nacc):
    return f"""
.visible .entry {name}(.param .u64 p_out, .param .u32 p_iters)
.reqntid {threads}
{{
  .reg .pred p;
  .reg .b32 r<16>;
  .reg .b64 rd<16>;
  .reg .f32 d<{max(nacc, 1)}>;
  .reg .f32 f<2>;
  .reg .b32 a<8>;
  .reg .b32 q<12>;
  .reg .b32 k<3>;
  .reg .b32 b<2>;
  .shared .align 1024 .b8 smem[{SMEM}];
  mov.u32 r0, %tid.x;
  shl.b32 r1, r0, 2;
FILL:
  setp.ge.u32 p, r1, {SMEM};
  @p bra FILLED;
  mul.lo.u32 r2, r1, -1640531535;
  xor.b32 r2, r2, 0x5bd1e995;
  and.b32 r2, r2, 0xb7ffb7ff;
  mov.u32 r3, smem;
  add.u32 r3, r3, r1;
  st.shared.b32 [r3], r2;
  add.u32 r1, r1, {threads * 4};
  bra FILL;
FILLED:
  fence.proxy.async.shared::cta;
  bar.sync 0;
  mul.lo.u32 r2, r0, -1640531535;
  and.b32 a0, r2, 0x37ff37ff;
  xor.b32 r2, r2, 0x01230123;
  and.b32 a1, r2, 0xb7ffb7ff;
  xor.b32 r2, r2, 0x10101010;
  and.b32 a2, r2, 0x37ff37ff;
  xor.b32 r2, r2, 0x21212121;
  and.b32 a3, r2, 0xb7ffb7ff;
  mov.b32 b0, a2;
  mov.b32 b1, a1;
""" + "".join(f"  mov.f32 d{i}, 0f00000000;\n" for i in range(nacc))


def epilogue(nacc, threads):
    s = "  mov.u64 rd3, %clock64;\n  sub.s64 rd3, rd3, rd2;\n  mov.f32 f0, 0f00000000;\n"
    s += "".join(f"  add.f32 f0, f0, d{i};\n" for i in range(nacc))
    # 16 bytes a thread: the loop's cycles (u64), then the accumulators' sum (kept so that
    # nothing is dead code).
    s += f"""  ld.param.u64 rd4, [p_out];
  mov.u32 r7, %ctaid.x;
  mad.lo.u32 r8, r7, {threads}, r0;
  mul.wide.u32 rd5, r8, 16;
  add.u64 rd4, rd4, rd5;
  st.global.u64 [rd4], rd3;
  mov.b32 r9, f0;
  st.global.u32 [rd4+8], r9;
  ret;
}}
"""
    return s


def desc_setup():
    # 128-byte swizzle descriptors: start >> 4 (14 bits), leading byte offset 16 (unused), stride
    # 1024 between 8-row groups, layout type 1 in bits 62..63. k16 step j: start + 32 j bytes.
    return """  mov.u32 r4, smem;
  shr.u32 r4, r4, 4;
  and.b32 r4, r4, 0x3fff;
  or.b32 r4, r4, 0x10000;
  cvt.u64.u32 rd1, r4;
  or.b64 rd1, rd1, 0x4000004000000000;
  add.u64 rd6, rd1, 2;
  add.u64 rd7, rd1, 4;
  add.u64 rd8, rd1, 6;
"""


def loop_head():
    return """  ld.param.u32 r5, [p_iters];
  mov.u32 r6, 0;
  bar.sync 0;
  mov.u64 rd2, %clock64;
LOOP:
"""


def loop_tail():
    return """  add.u32 r6, r6, 1;
  setp.lt.u32 p, r6, r5;
  @p bra LOOP;
"""


def wgmma_kernel(mode, n, w, u):
    name = f"{mode}_n{n}_w{w}_u{u}"
    threads = 128 * w
    nacc = n // 2
    body = prologue(name, threads, nacc) + desc_setup() + loop_head()
    body += "  wgmma.fence.sync.aligned;\n"
    ks = ["rd1", "rd6", "rd7", "rd8"]
    for j in range(u):
        k = ks[j % 4]
        if mode == "rs":
            body += f"  wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 {regs('d', nacc)}, {regs('a', 4)}, {k}, 1, 1, 1, 0;\n"
        else:
            body += f"  wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 {regs('d', nacc)}, {k}, {k}, 1, 1, 1, 0, 0;\n"
    body += "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n"
    body += loop_tail() + epilogue(nacc, threads)
    return dict(name=name, threads=threads, body=body, macs=u * 64 * n * 16 * w, issuer=128, per_issuer=u)


# The math steps' setup: r10 = the lane's weight word (4 bytes a lane), k0..k2 the u4
# magic-number constants.
STEP_SETUP = ("  and.b32 r10, r0, 31;\n  shl.b32 r10, r10, 2;\n  mov.u32 r11, smem;\n  add.u32 r10, r10, r11;\n"
              "  mov.b32 k0, 0x64086408;\n  mov.b32 k1, 0x2c002c00;\n  mov.b32 k2, 0xd480d480;\n")
# The u4 dequantization's integer part: word q0's nibbles as 1024 + code in q1, q2, q4, q5
# (4 LOP3 and a SHF in SASS).
U4_INT = """  lop3.b32 q1, q0, 0x000f000f, 0x64006400, 0xea;
  lop3.b32 q2, q0, 0x00f000f0, 0x64006400, 0xea;
  shr.u32 q3, q0, 8;
  lop3.b32 q4, q3, 0x000f000f, 0x64006400, 0xea;
  lop3.b32 q5, q3, 0x00f000f0, 0x64006400, 0xea;
"""


def u4_fp(dst):
    """The u4 dequantization's f16x2 part (2 HADD2, 2 HFMA2): `U4_INT`'s registers into `dst`."""
    return (f"  sub.f16x2 {dst[0]}, q1, k0;\n  fma.rn.f16x2 {dst[1]}, q2, k1, k2;\n"
            f"  sub.f16x2 {dst[2]}, q4, k0;\n  fma.rn.f16x2 {dst[3]}, q5, k1, k2;\n")


def step_kernel(n, w, g=1, bufs=2, dequant=True, fold=None, stages=1, ahead=False, kind="full"):
    """The math warps' k16 steps of a warp-specialized tile, without the ring: per group of `g`
    steps, wait until the group that last used its A registers (one of `bufs` sets, in turn) has
    retired, (with `dequant`) load each step's weight word from shared memory and turn it into
    the A fragment with the u4 magic-number dequantization (4 LOP3, 1 SHF, 2 HADD2, 2 HFMA2 in
    SASS), fence, `g` m64nNk16 wgmmas, commit. A stage is 8 steps; `fold` models the f32 sums of
    the 32-row tile at each stage's start: `drain` waits for every wgmma, adds the sums times a
    scale to the accumulators (N / 2 FFMA) and lets the stage's first wgmma overwrite the sums (as
    the shipped kernel does); `late` keeps two sum sets, one a stage in turn, and folds the
    previous stage's after the stage's first group is issued, waiting for every wgmma (the
    stage's first group too: waiting only for the previous stage's makes ptxas 12.9 serialize
    every wgmma, C7514). `ahead`: each group's A fragments are
    made right after the previous group's wgmmas are issued (their load and dequantization
    overlap those wgmmas) instead of right before its own. `kind`: the dequantization as shipped
    (`full`), only its integer part (`int`: 4 LOP3 + SHF give the fragment), only its f16x2 part
    (`fp`: 2 HADD2 + 2 HFMA2 on the loaded word), or the whole of it into registers no wgmma
    reads (`dummy`, chained through one kept word: three LOP3 more; the wgmmas read fixed
    fragments). `stages`: stages a loop iteration (the register rotation must close in one)."""
    groups = 8 // g
    name = f"step_n{n}_w{w}_g{g}_b{bufs}" + ("" if dequant else "_nodq") + (f"_{fold}" if fold else "") + ("_ahead" if ahead else "") + ("" if kind == "full" else f"_{kind}")
    threads = 128 * w
    nacc = n // 2
    nsets = 2 if fold == "late" else 1
    body = prologue(name, threads, nacc * (nsets + (1 if fold else 0))) + desc_setup()
    body = body.replace("  .reg .b32 a<8>;\n", f"  .reg .b32 a<{4 * g * bufs}>;\n")
    body += STEP_SETUP + "  mov.f32 f1, 0f3f800001;\n"
    body += "".join(f"  mov.b32 a{i}, a{i % 4};\n" for i in range(4, 4 * g * bufs))
    def make(q, buf):
        out = ""
        for j in range(g):
            r = 4 * (buf * g + j)
            if dequant:
                off = 128 * ((q * g + j) % 8)
                dst = [f"a{r + i}" for i in range(4)] if kind != "dummy" else ["q6", "q8", "q9", "q11"]
                out += f"  ld.shared.b32 q0, [r10+{off}];\n"
                if kind == "dummy":
                    out += "  xor.b32 q0, q0, q7;\n"  # loop-carried, or ptxas hoists the work
                if kind == "fp":
                    out += (f"  sub.f16x2 {dst[0]}, q0, k0;\n  fma.rn.f16x2 {dst[1]}, q0, k1, k2;\n"
                            f"  sub.f16x2 {dst[2]}, q0, k2;\n  fma.rn.f16x2 {dst[3]}, q0, k2, k1;\n")
                    continue
                out += U4_INT
                if kind == "int":
                    out += f"  mov.b32 {dst[0]}, q1;\n  mov.b32 {dst[1]}, q2;\n  mov.b32 {dst[2]}, q4;\n  mov.b32 {dst[3]}, q5;\n"
                    continue
                out += u4_fp(dst)
                if kind == "dummy":
                    out += "  lop3.b32 q10, q6, q8, q9, 0x96;\n  lop3.b32 q7, q7, q10, q11, 0x96;\n"
        return out

    body += "  mov.b32 q6, 0;\n  mov.b32 q7, 0;\n"
    if ahead:
        body += make(0, 0)
    body += loop_head()
    ks = ["rd1", "rd6", "rd7", "rd8"]
    acc0 = nacc * nsets  # accumulators d[acc0..], sums d[0..nacc) (and d[nacc..2 nacc) for `late`)

    def sums(st):
        base = nacc * (st % nsets)
        return "{" + ", ".join(f"d{base + i}" for i in range(nacc)) + "}"

    def fold_into(st):
        base = nacc * (st % nsets)
        return "".join(f"  fma.rn.f32 d{acc0 + i}, d{base + i}, f1, d{acc0 + i};\n" for i in range(nacc))

    gi = 0
    for st in range(stages):
        for q in range(groups):
            buf = gi % bufs
            if fold == "drain" and q == 0:
                body += "  wgmma.wait_group.sync.aligned 0;\n" + fold_into(st - 1)
            elif not ahead:
                body += f"  wgmma.wait_group.sync.aligned {bufs - 1};\n"
            if not ahead:
                body += make(q, buf)
            body += "  wgmma.fence.sync.aligned;\n"
            for j in range(g):
                r = 4 * (buf * g + j)
                first = fold and q == 0 and j == 0
                body += (f"  wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 {sums(st)}, "
                         f"{{a{r}, a{r + 1}, a{r + 2}, a{r + 3}}}, {ks[(q * g + j) % 4]}, {0 if first else 1}, 1, 1, 0;\n")
            body += "  wgmma.commit_group.sync.aligned;\n"
            if fold == "late" and q == 0:
                body += "  wgmma.wait_group.sync.aligned 0;\n" + fold_into(st - 1)
            if ahead:
                body += f"  wgmma.wait_group.sync.aligned {bufs - 1};\n" + make((q + 1) % groups, (gi + 1) % bufs)
            gi += 1
    assert gi % bufs == 0, "the A register rotation must close in one loop iteration"
    body += loop_tail() + "  wgmma.wait_group.sync.aligned 0;\n"
    if kind == "dummy":
        body += "  mov.b32 f1, q7;\n  add.f32 d0, d0, f1;\n"
    body += epilogue(nacc * (nsets + (1 if fold else 0)), threads)
    return dict(name=name, threads=threads, body=body, macs=8 * stages * 64 * n * 16 * w, issuer=128, per_issuer=8 * stages)


def ss_step_kernel(n, w, g=2, bufs=2, dequant=True):
    """`step_kernel`'s k16 step with a shared-memory A operand: per group of `g` steps, wait
    until the group that last read its A buffer (one of `bufs` a warpgroup, in turn) has retired,
    dequantize each step's word as `step_kernel` does (or, without `dequant`, take fixed
    fragments), store the four fragment registers to the buffer (the no-swizzle K-major layout:
    8 x 16-byte core matrices, 128 bytes apart along K and 256 along M, so each store of a warp
    fills one core matrix, conflict-free), `fence.proxy.async`, a warpgroup barrier (`bar.sync`
    1 + warpgroup, 128), fence, `g` m64nNk16 wgmmas with both operands from descriptors, commit.
    Shared traffic a step and warpgroup: 2 KB stored; 2 KB of A, 32 N bytes of B and (with
    `dequant`) 512 bytes of weight words read."""
    assert 128 * n <= A_AREA and w * bufs * g * 2048 <= SMEM - A_AREA, "shared memory"
    name = f"ssstep_n{n}_w{w}_g{g}_b{bufs}" + ("" if dequant else "_nodq")
    threads = 128 * w
    nacc = n // 2
    body = prologue(name, threads, nacc) + desc_setup()
    body = body.replace("  .reg .b64 rd<16>;\n", "  .reg .b64 rd<16>;\n  .reg .b64 ad<16>;\n  .reg .b32 s<4>;\n")
    body += STEP_SETUP
    # The warpgroup's A area, its barrier id, and the lane's store address: warp w4 of the
    # warpgroup owns rows 16 w4 .. 16 w4 + 16 (8-row groups 2 w4, 2 w4 + 1), lane (g, t) the
    # word at g * 16 + t * 4 of a core matrix.
    body += f"""  shr.u32 s0, r0, 7;
  add.u32 r12, s0, 1;
  mul.lo.u32 s1, s0, {bufs * g * 2048};
  add.u32 s1, s1, {A_AREA};
  add.u32 s1, s1, r11;
  shr.u32 s2, r0, 5;
  and.b32 s2, s2, 3;
  mul.lo.u32 s2, s2, 512;
  and.b32 s3, r0, 31;
  shl.b32 s3, s3, 2;
  add.u32 s2, s2, s3;
  add.u32 r13, s1, s2;
"""
    # Descriptors of the `bufs * g` A step buffers (2 KB each): start >> 4, LBO 128 (K), SBO 256
    # (M), no swizzle (layout type 0).
    for i in range(bufs * g):
        body += f"""  add.u32 r14, s1, {2048 * i};
  shr.u32 r14, r14, 4;
  and.b32 r14, r14, 0x3fff;
  or.b32 r14, r14, 0x80000;
  cvt.u64.u32 ad{i}, r14;
  or.b64 ad{i}, ad{i}, 0x0000001000000000;
"""
    body += loop_head()
    ks = ["rd1", "rd6", "rd7", "rd8"]
    for q in range(8 // g):
        buf = q % bufs
        body += f"  wgmma.wait_group.sync.aligned {bufs - 1};\n"
        for j in range(g):
            slot = buf * g + j
            src = ["a0", "a1", "a2", "a3"]
            if dequant:
                off = 128 * ((q * g + j) % 8)
                body += f"  ld.shared.b32 q0, [r10+{off}];\n" + U4_INT + u4_fp(["q6", "q7", "q8", "q9"])
                src = ["q6", "q8", "q7", "q9"]
            # a0: rows g, k 2t (core matrix (2 w4, 0)); a1: rows g + 8 ((2 w4 + 1, 0)); a2: k + 8
            # ((2 w4, 1)); a3 ((2 w4 + 1, 1)).
            for reg, off in zip(src, (0, 256, 128, 384)):
                body += f"  st.shared.b32 [r13+{2048 * slot + off}], {reg};\n"
        body += "  fence.proxy.async.shared::cta;\n  bar.sync r12, 128;\n  wgmma.fence.sync.aligned;\n"
        for j in range(g):
            body += (f"  wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 {regs('d', nacc)}, "
                     f"ad{buf * g + j}, {ks[(q * g + j) % 4]}, 1, 1, 1, 0, 0;\n")
        body += "  wgmma.commit_group.sync.aligned;\n"
    assert (8 // g) % bufs == 0, "the buffer rotation must close in one loop iteration"
    body += loop_tail() + "  wgmma.wait_group.sync.aligned 0;\n" + epilogue(nacc, threads)
    return dict(name=name, threads=threads, body=body, macs=8 * 64 * n * 16 * w, issuer=128, per_issuer=8)


def mma_kernel(warps, chains, u):
    name = f"mma_w{warps}_c{chains}_u{u}"
    threads = 32 * warps
    nacc = 4 * chains
    body = prologue(name, threads, nacc) + loop_head()
    for j in range(u):
        c = j % chains
        acc = "{" + ", ".join(f"d{4 * c + i}" for i in range(4)) + "}"
        body += f"  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {acc}, {regs('a', 4)}, {regs('b', 2)}, {acc};\n"
    body += loop_tail() + epilogue(nacc, threads)
    return dict(name=name, threads=threads, body=body, macs=u * 16 * 8 * 16 * warps, issuer=32, per_issuer=u)


def variants():
    v = []
    for n in (8, 16, 32, 64, 128, 256):
        for w in (1, 2, 4):
            if n == 256 and w == 4:
                continue  # 128 accumulators x 512 threads: more than the register file
            v.append(wgmma_kernel("rs", n, w, 8))
    for n in (16, 32, 64):
        v.append(wgmma_kernel("rs", n, 4, 32))
    for n in (32, 64, 256):
        v.append(wgmma_kernel("ss", n, 1, 8))
        v.append(wgmma_kernel("ss", n, 2, 8))
    for warps in (4, 8, 16):
        v.append(mma_kernel(warps, 4, 16))
    for n in (32, 64, 128):
        for w in (1, 2, 4):
            v.append(step_kernel(n, w))
    for w in (1, 4):
        v.append(step_kernel(32, w, dequant=False))
    for g, bufs, st in ((1, 3, 3), (1, 4, 1), (2, 2, 1), (2, 3, 3), (4, 2, 1)):
        v.append(step_kernel(32, 4, g, bufs, stages=st))
    for g, bufs in ((1, 2), (1, 3), (2, 2), (2, 3)):
        v.append(step_kernel(32, 4, g, bufs, stages=3 if bufs == 3 else 1, ahead=True))
    v.append(step_kernel(64, 2, 2, 2, ahead=True))
    for kind in ("int", "fp", "dummy"):
        v.append(step_kernel(32, 4, 1, 2, kind=kind))
        v.append(step_kernel(32, 4, 2, 3, stages=3, kind=kind))
    for n, w in ((16, 4), (32, 2), (32, 4), (64, 2), (64, 4)):
        if w == 4:  # (the bare two-warpgroup ones are above)
            v.append(wgmma_kernel("ss", n, w, 8))
        for g, bufs in ((1, 2), (2, 2), (4, 2)):
            if w * bufs * g * 2048 <= SMEM - A_AREA:
                v.append(ss_step_kernel(n, w, g, bufs))
        v.append(ss_step_kernel(n, w, 2, 2, dequant=False))
    v.append(step_kernel(32, 4, 2, 2, fold="drain", ahead=True))
    v.append(step_kernel(32, 4, 2, 2, fold="late", stages=2, ahead=True))
    for fold in ("drain", "late"):
        for g, bufs, st in ((2, 3, 3), (1, 4, 2)):
            v.append(step_kernel(32, 4, g, bufs, fold=fold, stages=st))
        v.append(step_kernel(64, 2, 2, 3, fold=fold, stages=6))
    return v


def module(vs):
    return ".version 8.0\n.target sm_90a\n.address_size 64\n" + "".join(v["body"] for v in vs)


class Driver:
    def __init__(self):
        self.cu = ctypes.CDLL("libcuda.so.1")

    def ck(self, rc, what):
        if rc != 0:
            msg = ctypes.c_char_p()
            self.cu.cuGetErrorString(rc, ctypes.byref(msg))
            raise RuntimeError(f"{what}: CUDA error {rc} {msg.value}")

    def __getattr__(self, name):
        f = getattr(self.cu, name)
        return lambda *a: self.ck(f(*a), name)


def run(vs, iters, energy_s=0.0):
    d = Driver()
    d.cuInit(0)
    dev = ctypes.c_int()
    d.cuDeviceGet(ctypes.byref(dev), 0)
    sms = ctypes.c_int()
    d.cuDeviceGetAttribute(ctypes.byref(sms), 16, dev)  # MULTIPROCESSOR_COUNT
    ctx = ctypes.c_void_p()
    d.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
    d.cuCtxSetCurrent(ctx)
    mod = ctypes.c_void_p()
    d.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(module(vs).encode()))
    grid = sms.value
    out = ctypes.c_uint64()
    nbytes = grid * 512 * 16
    d.cuMemAlloc_v2(ctypes.byref(out), ctypes.c_size_t(nbytes))
    e0, e1 = ctypes.c_void_p(), ctypes.c_void_p()
    d.cuEventCreate(ctypes.byref(e0), 0)
    d.cuEventCreate(ctypes.byref(e1), 0)
    host = (ctypes.c_uint64 * (nbytes // 8))()
    print(f"{grid} multiprocessors, one CTA each, {iters} loop iterations; MAC/clk/SM from %clock64 "
          "(median over warpgroups / warps of the CTA's first thread), TFLOP/s from CUDA events")
    print(f"{'variant':<18} {'threads':>7} {'MAC/clk/SM':>10} {'of 2048':>8} {'clk/instr':>9} {'TFLOP/s':>8} {'GHz':>6}")
    rows = []
    for v in vs:
        name, threads, macs = v["name"], v["threads"], v["macs"]
        fn = ctypes.c_void_p()
        d.cuModuleGetFunction(ctypes.byref(fn), mod, name.encode())
        p_out = ctypes.c_uint64(out.value)
        p_it = ctypes.c_uint32(iters)
        args = (ctypes.c_void_p * 2)(ctypes.cast(ctypes.byref(p_out), ctypes.c_void_p),
                                     ctypes.cast(ctypes.byref(p_it), ctypes.c_void_p))
        best = None
        for _ in range(3):
            d.cuEventRecord(e0, None)
            d.cuLaunchKernel(fn, ctypes.c_uint(grid), 1, 1, ctypes.c_uint(threads), 1, 1, 0, None, args, None)
            d.cuEventRecord(e1, None)
            d.cuEventSynchronize(e1)
            ms = ctypes.c_float()
            d.cuEventElapsedTime(ctypes.byref(ms), e0, e1)
            best = ms.value if best is None else min(best, ms.value)
        d.cuMemcpyDtoH_v2(host, out, ctypes.c_size_t(nbytes))
        cyc = [host[(c * threads + t) * 2] for c in range(grid) for t in range(0, threads, v["issuer"])]
        cycles = statistics.median(cyc)
        per_clk = macs * iters / cycles
        clk_instr = cycles / iters / v["per_issuer"]
        tflops = 2 * macs * iters * grid / (best * 1e-3) / 1e12
        ghz = cycles / (best * 1e-3) / 1e9
        rows.append((name, threads, per_clk, clk_instr, tflops, ghz))
        line = f"{name:<18} {threads:>7} {per_clk:>10.0f} {per_clk / 2048:>7.0%} {clk_instr:>9.1f} {tflops:>8.0f} {ghz:>6.2f}"
        if energy_s:
            from energy import energy_mj
            n = max(1, int(energy_s * 1e3 / best))
            d.cuCtxSynchronize()
            j0, t0 = energy_mj(), time.monotonic()
            for _ in range(n):
                d.cuLaunchKernel(fn, ctypes.c_uint(grid), 1, 1, ctypes.c_uint(threads), 1, 1, 0, None, args, None)
            d.cuCtxSynchronize()
            j1, t1 = energy_mj(), time.monotonic()
            watts = (j1 - j0) / (t1 - t0) / 1e3
            line += f"   {watts:5.0f} W {cycles * n / (t1 - t0) / 1e9:5.2f} GHz {(j1 - j0) * 1e9 / (macs * iters * grid * n):6.3f} pJ/MAC"
        print(line, flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=4000)
    ap.add_argument("--emit", help="write the PTX module to DIR/tensor_rate.ptx and stop")
    ap.add_argument("--energy", type=float, default=0.0, help="seconds of back-to-back launches a variant between NVML energy reads")
    ap.add_argument("--only", help="regular expression: the variants whose name it matches")
    a = ap.parse_args()
    vs = [v for v in variants() if not a.only or re.search(a.only, v["name"])]
    if a.emit:
        os.makedirs(a.emit, exist_ok=True)
        with open(os.path.join(a.emit, "tensor_rate.ptx"), "w") as f:
            f.write(module(vs))
        return
    run(vs, a.iters, a.energy)


if __name__ == "__main__":
    sys.exit(main())
