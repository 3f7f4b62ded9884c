//! The samples' checkers against a fake executor that implements each sample's documented
//! contract in plain Rust (no IR interpretation): a faithful fake passes every checker, and a
//! fake with one planted bug per sample is rejected. This tests the checkers' plumbing
//! (arguments, launch shapes, buffer sizes, poison checks), not the kernels.

use half::{bf16, f16};
use humming_core::ir::samples::{SampleId, all_samples, butterfly_sum};
use humming_core::ir::{DevPtr, Executor, Kernel, KernelArg, LaunchDims};

const BASE: u64 = 0x1000_0000;

#[derive(Debug)]
struct Fake {
    mem: Vec<u8>,
    buggy: bool,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct FakeError(String);

impl Fake {
    fn new(buggy: bool) -> Self {
        Fake {
            mem: Vec::new(),
            buggy,
        }
    }

    fn at(&self, p: u64) -> usize {
        (p - BASE) as usize
    }

    fn rd<const N: usize>(&self, p: u64) -> [u8; N] {
        let i = self.at(p);
        self.mem[i..i + N].try_into().unwrap()
    }

    fn wr(&mut self, p: u64, bytes: &[u8]) {
        let i = self.at(p);
        self.mem[i..i + bytes.len()].copy_from_slice(bytes);
    }

    fn u32(&self, p: u64) -> u32 {
        u32::from_le_bytes(self.rd(p))
    }

    fn f32(&self, p: u64) -> f32 {
        f32::from_le_bytes(self.rd(p))
    }

    fn u16(&self, p: u64) -> u16 {
        u16::from_le_bytes(self.rd(p))
    }
}

fn ptr(a: &KernelArg) -> u64 {
    match a {
        KernelArg::Ptr(DevPtr(p)) => *p,
        other => panic!("expected a pointer, got {other:?}"),
    }
}

fn u32_arg(a: &KernelArg) -> u32 {
    match a {
        KernelArg::U32(v) => *v,
        other => panic!("expected u32, got {other:?}"),
    }
}

impl Executor for Fake {
    type Error = FakeError;

    fn name(&self) -> String {
        "fake".into()
    }

    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, FakeError> {
        let start = self.mem.len().next_multiple_of(256);
        self.mem.resize(start + bytes, 0xA5);
        Ok(DevPtr(BASE + start as u64))
    }

    fn upload(&mut self, dst: DevPtr, data: &[u8]) -> Result<(), FakeError> {
        self.wr(dst.0, data);
        Ok(())
    }

    fn download(&mut self, src: DevPtr, out: &mut [u8]) -> Result<(), FakeError> {
        let i = self.at(src.0);
        out.copy_from_slice(&self.mem[i..i + out.len()]);
        Ok(())
    }

    fn launch(
        &mut self,
        k: &Kernel,
        dims: LaunchDims,
        args: &[KernelArg],
    ) -> Result<(), FakeError> {
        assert_eq!(args.len(), k.params.len(), "{}: argument count", k.name);
        assert_eq!(dims.block, k.block_threads, "{}: block size", k.name);
        let threads = dims.grid.0 * dims.block;
        let bug = self.buggy;
        match k.name.as_str() {
            "vector_add" => {
                let (a, b, c, n) = (
                    ptr(&args[0]),
                    ptr(&args[1]),
                    ptr(&args[2]),
                    u32_arg(&args[3]),
                );
                let last = if bug { (n + 1).min(threads) } else { n };
                for i in 0..last as u64 {
                    let v = if i < n as u64 {
                        self.f32(a + 4 * i) + self.f32(b + 4 * i)
                    } else {
                        0.0
                    };
                    self.wr(c + 4 * i, &v.to_le_bytes());
                }
            }
            "block_reduce" => {
                let (x, out, n, iters) = (
                    ptr(&args[0]),
                    ptr(&args[1]),
                    u32_arg(&args[2]),
                    u32_arg(&args[3]),
                );
                let chunk = iters * 256;
                for c in 0..dims.grid.0 {
                    let hi = ((c + 1) * chunk).min(n) + u32::from(bug && c == 0);
                    let s = (c * chunk..hi)
                        .fold(0u32, |s, i| s.wrapping_add(self.u32(x + 4 * u64::from(i))));
                    self.wr(out + 4 * u64::from(c), &s.to_le_bytes());
                }
            }
            "shfl_reduce" => {
                let (x, out, n) = (ptr(&args[0]), ptr(&args[1]), u32_arg(&args[2]));
                for w in 0..threads / 32 {
                    let mut lanes = [0.0f32; 32];
                    for (l, v) in lanes.iter_mut().enumerate() {
                        let i = w * 32 + l as u32;
                        if i < n {
                            *v = self.f32(x + 4 * u64::from(i));
                        }
                    }
                    // The bug: a sequential sum instead of the butterfly's order.
                    let s = if bug {
                        lanes.iter().sum::<f32>() + 1e-3
                    } else {
                        butterfly_sum(&lanes)
                    };
                    self.wr(out + 4 * u64::from(w), &s.to_le_bytes());
                }
            }
            "mma_tile_f16" | "mma_tile_bf16" | "mma_tile_f16_sm75" => {
                let (a, b, d) = (ptr(&args[0]), ptr(&args[1]), ptr(&args[2]));
                let val = |f: &Fake, p: u64| {
                    let bits = f.u16(p);
                    if k.name == "mma_tile_bf16" {
                        bf16::from_bits(bits).to_f64()
                    } else {
                        f16::from_bits(bits).to_f64()
                    }
                };
                for m in 0..16u64 {
                    for n in 0..8u64 {
                        let mut s = 0.0;
                        for l in 0..16u64 {
                            // The bug: B read as if it were N x K.
                            let bi = if bug { n * 16 + l } else { l * 8 + n };
                            s += val(self, a + 2 * (m * 16 + l)) * val(self, b + 2 * bi);
                        }
                        self.wr(d + 4 * (m * 8 + n), &(s as f32).to_le_bytes());
                    }
                }
            }
            "mma_tile_s8" => {
                let (a, bt, d) = (ptr(&args[0]), ptr(&args[1]), ptr(&args[2]));
                for m in 0..16u64 {
                    for n in 0..8u64 {
                        let s: i32 = (0..32u64)
                            .map(|l| {
                                let x = self.rd::<1>(a + m * 32 + l)[0] as i8;
                                let y = self.rd::<1>(bt + n * 32 + l)[0] as i8;
                                i32::from(x) * i32::from(y)
                            })
                            .sum();
                        let s = if bug && m == 15 && n == 7 { s + 1 } else { s };
                        self.wr(d + 4 * (m * 8 + n), &s.to_le_bytes());
                    }
                }
            }
            "cp_async_copy" | "cp_async_hint_copy" => {
                let swap = k.name == "cp_async_hint_copy";
                let (src, dst, n, stages) = (
                    ptr(&args[0]),
                    ptr(&args[1]),
                    u32_arg(&args[2]),
                    u32_arg(&args[3]),
                );
                let reach = dims.grid.0 * stages * 128;
                // The bug: zero-filled chunks past `n` are written out too.
                let last = if bug { reach } else { n.min(reach) };
                for j in 0..u64::from(last) {
                    let mut chunk: [u8; 16] = if j < u64::from(n) {
                        self.rd(src + 16 * j)
                    } else {
                        [0; 16]
                    };
                    if swap {
                        for w in chunk.chunks_mut(4) {
                            w.rotate_left(2);
                        }
                    }
                    self.wr(dst + 16 * j, &chunk);
                }
            }
            "bulk_copy" => {
                let (src, dst, stages) = (ptr(&args[0]), ptr(&args[1]), u32_arg(&args[2]));
                let chunks = u64::from(dims.grid.0 * stages * 128);
                for j in 0..chunks {
                    // The bug: the second slot's stages are read from the first slot (a stale
                    // stage, as with a wrong mbarrier parity).
                    let from = if bug && (j / 128) % 2 == 1 { j - 128 } else { j };
                    let chunk: [u8; 16] = self.rd(src + 16 * from);
                    self.wr(dst + 16 * j, &chunk);
                }
            }
            "wgmma_tile_f16" | "wgmma_tile_bf16" | "wgmma_tile_sw128_f16" => {
                let (a, b, c, d) = (ptr(&args[0]), ptr(&args[1]), ptr(&args[2]), ptr(&args[3]));
                let kk = if k.name == "wgmma_tile_sw128_f16" { 64 } else { 16 };
                // The bug: C is added even when the accumulate argument is 0.
                let accumulate = u32_arg(&args[4]) != 0 || bug;
                let val = |f: &Fake, p: u64| {
                    let bits = f.u16(p);
                    if k.name == "wgmma_tile_bf16" { bf16::from_bits(bits).to_f64() } else { f16::from_bits(bits).to_f64() }
                };
                for m in 0..64u64 {
                    for n in 0..16u64 {
                        let mut s = if accumulate { f64::from(self.f32(c + 4 * (m * 16 + n))) } else { 0.0 };
                        for l in 0..kk {
                            s += val(self, a + 2 * (m * kk + l)) * val(self, b + 2 * (l * 16 + n));
                        }
                        self.wr(d + 4 * (m * 16 + n), &(s as f32).to_le_bytes());
                    }
                }
            }
            "cluster_gather" => {
                // The contract: CTA c, rank r = c % n of a cluster of n along x.
                let (x, out, info) = (ptr(&args[0]), ptr(&args[1]), ptr(&args[2]));
                let n = dims.cluster.0;
                assert_eq!(dims.grid.0 % n, 0, "cluster_gather: clusters tile the grid");
                for c in 0..dims.grid.0 as u64 {
                    let first = c / n as u64 * n as u64;
                    for t in 0..64u64 {
                        // The bug: slices taken from the wrong end of the cluster.
                        let slice = |q: u64| if bug { first + n as u64 - 1 - q } else { first + q };
                        let v = (0..n as u64).fold(0u32, |a, q| a.wrapping_add((q as u32 + 1).wrapping_mul(self.u32(x + 4 * (slice(q) * 64 + (t + q) % 64)))));
                        self.wr(out + 4 * (c * 64 + t), &v.to_le_bytes());
                    }
                    let word = (c as u32 % n) | (n << 8);
                    self.wr(info + 4 * c, &word.to_le_bytes());
                }
            }
            other => panic!("no fake for {other}"),
        }
        Ok(())
    }
}

#[test]
fn checkers_pass_a_faithful_executor() {
    for s in all_samples() {
        for seed in 0..8 {
            let mut ex = Fake::new(false);
            s.check(&mut ex, seed)
                .unwrap_or_else(|e| panic!("{} seed {seed}: {e}", s.name));
        }
    }
}

#[test]
fn checkers_reject_a_buggy_executor() {
    for s in all_samples() {
        let mut ex = Fake::new(true);
        let err = s.check(&mut ex, 3).expect_err(s.name);
        assert!(!err.is_empty());
        // The message names what was wrong.
        let named = match s.id {
            SampleId::VectorAdd => err.contains("past the"),
            SampleId::BlockReduce | SampleId::ShflReduce => err.contains("out["),
            SampleId::MmaTileF16
            | SampleId::MmaTileBf16
            | SampleId::MmaTileF16Sm75
            | SampleId::MmaTileS8 => err.contains("D["),
            SampleId::CpAsyncCopy | SampleId::CpAsyncHintCopy => err.contains("past the"),
            SampleId::BulkCopy => err.contains("dst word"),
            SampleId::WgmmaTileF16 | SampleId::WgmmaTileBf16 | SampleId::WgmmaTileSw128F16 => err.contains("D["),
            SampleId::ClusterGather => err.contains("out["),
        };
        assert!(named, "{}: {err}", s.name);
    }
}
