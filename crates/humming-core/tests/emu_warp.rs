//! Warp collectives: `shfl.sync`, `ldmatrix`, `mma.sync`, checked against mappings written in
//! the tests from the PTX ISA tables (element-index form, not the emulator's formulas).

mod emu_util;

use emu_util::{Rng, launch, ld, st, thread_addr};
use humming_core::ir::builder::KernelBuilder;
use humming_core::ir::emu::{EmuError, Emulator};
use humming_core::ir::{
    Addr, Executor, Inst, KernelArg, MmaShape, MmaType, Operand, ParamTy, Reg, RegClass, ShflMode,
    Space, SpecialReg, Ty,
};

// ---------------------------------------------------------------- shfl

/// Runs `shfl.sync.mode` with per-lane `b`, `c` on values `100 + lane`; returns each lane's result.
fn shfl(mode: ShflMode, b_vals: &[u32], c_vals: &[u32]) -> Vec<u32> {
    let mut b = KernelBuilder::new("shfl", 32);
    let pb = b.param("b", ParamTy::Ptr);
    let pc = b.param("c", ParamTy::Ptr);
    let out = b.param("out", ParamTy::Ptr);
    let tid = b.special(SpecialReg::TidX);
    let v = b.add(Ty::U32, tid, 100u32);
    let ab = thread_addr(&mut b, pb, 4);
    let bv = ld(&mut b, Space::Global, Ty::U32, Addr::reg(ab));
    let ac = thread_addr(&mut b, pc, 4);
    let cv = ld(&mut b, Space::Global, Ty::U32, Addr::reg(ac));
    let d = b.reg(RegClass::B32);
    b.emit(Inst::Shfl {
        mode,
        dst: d,
        a: v.into(),
        b: bv.into(),
        c: cv.into(),
        mask: u32::MAX,
    });
    let ao = thread_addr(&mut b, out, 4);
    st(&mut b, Space::Global, Ty::U32, Addr::reg(ao), d);
    let k = b.finish();
    let mut emu = Emulator::new();
    let pb = emu.upload_new(b_vals).unwrap();
    let pc = emu.upload_new(c_vals).unwrap();
    let po = emu.alloc(128).unwrap();
    launch(
        &mut emu,
        &k,
        1,
        &[KernelArg::Ptr(pb), KernelArg::Ptr(pc), KernelArg::Ptr(po)],
    )
    .unwrap();
    emu.download_vec::<u32>(po, 32)
        .unwrap()
        .iter()
        .map(|x| x - 100)
        .collect()
}

#[test]
fn shfl_cuda_width_idioms() {
    // CUDA's __shfl_*_sync(v, x, width) pass c = ((32 - width) << 8) | clamp with clamp 0x1f
    // (0 for up). The expected source lanes below are the CUDA programming guide's definitions.
    for width in [2u32, 4, 8, 16, 32] {
        let seg = (32 - width) << 8;
        for delta in [1u32, 2, 3, 5] {
            let down = shfl(ShflMode::Down, &[delta; 32], &[seg | 0x1f; 32]);
            let up = shfl(ShflMode::Up, &[delta; 32], &[seg; 32]);
            let idx = shfl(ShflMode::Idx, &[delta; 32], &[seg | 0x1f; 32]);
            for l in 0..32u32 {
                let want_down = if l % width + delta < width {
                    l + delta
                } else {
                    l
                };
                let want_up = if l % width >= delta { l - delta } else { l };
                assert_eq!(
                    down[l as usize], want_down,
                    "down width {width} delta {delta} lane {l}"
                );
                assert_eq!(
                    up[l as usize], want_up,
                    "up width {width} delta {delta} lane {l}"
                );
                assert_eq!(
                    idx[l as usize],
                    l / width * width + delta % width,
                    "idx width {width} src {delta}"
                );
            }
        }
        for x in 1..width {
            let bfly = shfl(ShflMode::Bfly, &[x; 32], &[seg | 0x1f; 32]);
            for l in 0..32u32 {
                assert_eq!(bfly[l as usize], l ^ x, "bfly width {width} mask {x}");
            }
        }
    }
    // Per-lane source indices (idx with full width): a gather.
    let src: Vec<u32> = (0..32).map(|l| (l * 7 + 3) % 32).collect();
    assert_eq!(shfl(ShflMode::Idx, &src, &[0x1f; 32]), src);
}

#[test]
fn shfl_clamp_and_segmask_per_the_isa_pseudocode() {
    let mut rng = Rng(77);
    for mode in [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx] {
        for _ in 0..6 {
            let bv: Vec<u32> = (0..32).map(|_| (rng.next() % 40) as u32).collect();
            let cv: Vec<u32> = (0..32)
                .map(|_| (rng.next() & 0x1f1f) as u32 | ((rng.next() as u32 & 1) << 16))
                .collect();
            let got = shfl(mode, &bv, &cv);
            for l in 0..32i32 {
                let (b, c) = (bv[l as usize] as i32 & 31, cv[l as usize] as i32);
                let (clamp, seg) = (c & 31, (c >> 8) & 31);
                let max_lane = (l & seg) | (clamp & !seg);
                let min_lane = l & seg;
                let (j, ok) = match mode {
                    ShflMode::Up => (l - b, l - b >= max_lane),
                    ShflMode::Down => (l + b, l + b <= max_lane),
                    ShflMode::Bfly => (l ^ b, (l ^ b) <= max_lane),
                    ShflMode::Idx => (min_lane | (b & !seg), (min_lane | (b & !seg)) <= max_lane),
                };
                let want = if ok { j } else { l };
                assert_eq!(
                    got[l as usize] as i32, want,
                    "{mode:?} lane {l} b {b} c {c:#x}"
                );
            }
        }
    }
}

#[test]
fn shfl_under_a_guard_with_a_matching_membermask() {
    // Lanes 0..15 exchange with membermask 0xffff under @p; lanes 16..31 keep their old value.
    let mut b = KernelBuilder::new("shfl_half", 32);
    let out = b.param("out", ParamTy::Ptr);
    let tid = b.special(SpecialReg::TidX);
    let p = b.reg(RegClass::Pred);
    b.emit(Inst::Setp {
        cmp: humming_core::ir::Cmp::Lt,
        ty: Ty::U32,
        dst: p,
        a: tid.into(),
        b: Operand::Imm(16),
    });
    let d = b.mov(Ty::U32, 999u32);
    b.guarded(p, false, |b| {
        b.emit(Inst::Shfl {
            mode: ShflMode::Bfly,
            dst: d,
            a: tid.into(),
            b: Operand::Imm(1),
            c: Operand::Imm(0x1f),
            mask: 0xffff,
        })
    });
    let ao = thread_addr(&mut b, out, 4);
    st(&mut b, Space::Global, Ty::U32, Addr::reg(ao), d);
    let k = b.finish();
    let mut emu = Emulator::new();
    let po = emu.alloc(128).unwrap();
    launch(&mut emu, &k, 1, &[KernelArg::Ptr(po)]).unwrap();
    let got: Vec<u32> = emu.download_vec(po, 32).unwrap();
    for l in 0..32u32 {
        assert_eq!(got[l as usize], if l < 16 { l ^ 1 } else { 999 });
    }
}

// ---------------------------------------------------------------- elect.sync

/// `elect.sync` in a CTA of `threads`: each lane stores its predicate (1 / 0) to `out`.
fn elect(threads: u32) -> Result<Vec<u32>, EmuError> {
    let mut b = KernelBuilder::new("elect", threads);
    let out = b.param("out", ParamTy::Ptr);
    let p = b.elect_sync();
    let v = b.selp(Ty::U32, 1u32, 0u32, p);
    let ao = thread_addr(&mut b, out, 4);
    st(&mut b, Space::Global, Ty::U32, Addr::reg(ao), v);
    let k = b.finish();
    let mut emu = Emulator::new();
    // Poisoned: every lane must store.
    let po = emu.upload_new(&vec![7u32; threads as usize]).unwrap();
    launch(&mut emu, &k, 1, &[KernelArg::Ptr(po)])?;
    Ok(emu.download_vec(po, threads as usize).unwrap())
}

#[test]
fn elect_sync_picks_one_lane_of_each_full_warp() {
    let got = elect(96).unwrap();
    for (t, &v) in got.iter().enumerate() {
        assert_eq!(v, u32::from(t % 32 == 0), "thread {t}");
    }
    // Membermask 0xffffffff with lanes 16..31 absent: not converged, reported at lane 16.
    let err = elect(16).unwrap_err();
    assert!(matches!(err, EmuError::NotConverged { what: "elect.sync", .. }), "{err}");
    assert_eq!(err.thread().unwrap().lane, 16);
}

// ---------------------------------------------------------------- ldmatrix

/// Loads 32 rows of 8 b16 values into shared memory at scattered 16-byte-aligned offsets and
/// runs ldmatrix.x{n}{.trans} with lane l giving the address of row l (matrix l/8, row l%8).
/// Lanes past 8n give a null address, which ldmatrix must ignore.
fn ldmatrix(n: usize, trans: bool) -> Vec<[u32; 4]> {
    let value = |mat: usize, row: usize, col: usize| (0x1000 * (mat + 1) + 0x10 * row + col) as u16;
    // Row k (= mat*8 + row) lives at byte offset slot(k) * 32 of a 1 KiB shared array.
    let slot = |k: usize| (k * 7 + 5) % 32;
    let mut image = vec![0u16; 512];
    for k in 0..32 {
        for col in 0..8 {
            image[slot(k) * 16 + col] = value(k / 8, k % 8, col);
        }
    }
    let row_off: Vec<u32> = (0..32)
        .map(|l| {
            if l < 8 * n {
                (slot(l) * 32) as u32
            } else {
                u32::MAX
            }
        })
        .collect();

    let mut b = KernelBuilder::new("ldm", 32);
    let src = b.param("src", ParamTy::Ptr);
    let offs = b.param("offs", ParamTy::Ptr);
    let out = b.param("out", ParamTy::Ptr);
    let smem = b.shared("tile", 1024, 128);
    let tid = b.special(SpecialReg::TidX);
    // Copy 1 KiB global -> shared, 4 bytes per thread per step.
    b.for_range(0u32, 8u32, 1, |b, i| {
        let w = b.mul(Ty::U32, i, 32u32);
        let w = b.add(Ty::U32, w, tid);
        let boff = b.mul_wide_u32(w, 4);
        let ga = b.add(Ty::U64, src, boff);
        let v = ld(b, Space::Global, Ty::U32, Addr::reg(ga));
        let soff = b.mul(Ty::U32, w, 4u32);
        let sa = b.add(Ty::U32, soff, Operand::SharedAddr(smem));
        st(b, Space::Shared, Ty::U32, Addr::reg(sa), v);
    });
    b.emit(Inst::BarSync {
        id: 0,
        threads: None,
        aligned: true,
    });
    let oa = thread_addr(&mut b, offs, 4);
    let off = ld(&mut b, Space::Global, Ty::U32, Addr::reg(oa));
    // Lanes without a row give 0 (a null shared address).
    let p = b.reg(RegClass::Pred);
    b.emit(Inst::Setp {
        cmp: humming_core::ir::Cmp::Eq,
        ty: Ty::U32,
        dst: p,
        a: off.into(),
        b: Operand::Imm(u32::MAX as i64),
    });
    let addr = b.add(Ty::U32, off, Operand::SharedAddr(smem));
    b.guarded(p, false, |b| {
        b.emit(Inst::Mov {
            ty: Ty::U32,
            dst: addr,
            src: Operand::Imm(0),
        })
    });
    let dst: Vec<Reg> = (0..n).map(|_| b.reg(RegClass::B32)).collect();
    b.emit(Inst::Ldmatrix {
        trans,
        dst: dst.clone(),
        addr: Addr::reg(addr),
    });
    for (i, d) in dst.iter().enumerate() {
        let row = b.mul(Ty::U32, tid, 16u32);
        let row = b.add(Ty::U32, row, (4 * i) as u32);
        let o = b.mul_wide_u32(row, 1);
        let ga = b.add(Ty::U64, out, o);
        st(&mut b, Space::Global, Ty::U32, Addr::reg(ga), *d);
    }
    let k = b.finish();
    let mut emu = Emulator::new();
    let ps = emu.upload_new(&image).unwrap();
    let po = emu.upload_new(&row_off).unwrap();
    let pout = emu.alloc(32 * 16).unwrap();
    launch(
        &mut emu,
        &k,
        1,
        &[KernelArg::Ptr(ps), KernelArg::Ptr(po), KernelArg::Ptr(pout)],
    )
    .unwrap();
    let raw: Vec<u32> = emu.download_vec(pout, 32 * 4).unwrap();
    let got: Vec<[u32; 4]> = raw.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect();

    // The ISA: a group of four consecutive threads loads one row; thread 4r + q gets the
    // elements (r, 2q) and (r, 2q + 1) of the matrix, the lower column in the lower half.
    // With .trans the matrix is delivered column-major, i.e. the fragment is of its transpose.
    for (l, regs) in got.iter().enumerate() {
        let (r, q) = (l / 4, l % 4);
        for (i, reg) in regs.iter().enumerate().take(n) {
            let elem = |c: usize| if trans { value(i, c, r) } else { value(i, r, c) } as u32;
            assert_eq!(
                *reg,
                elem(2 * q) | (elem(2 * q + 1) << 16),
                "x{n} trans={trans} lane {l} matrix {i}"
            );
        }
    }
    got
}

#[test]
fn ldmatrix_x1_x2_x4_with_and_without_trans() {
    for n in [1, 2, 4] {
        for trans in [false, true] {
            ldmatrix(n, trans);
        }
    }
}

// ---------------------------------------------------------------- mma

/// The ISA's fragment tables: (row, col) of element `i` held by lane `l`.
struct Layout {
    a: fn(usize, usize) -> (usize, usize),
    b: fn(usize, usize) -> (usize, usize),
    /// Elements per thread of A and B.
    na: usize,
    nb: usize,
}

fn gt(l: usize) -> (usize, usize) {
    (l >> 2, l % 4)
}

fn layout(shape: MmaShape, bits: usize) -> Layout {
    match (shape, bits) {
        (MmaShape::M16N8K8, 16) => Layout {
            a: |l, i| {
                let (g, t) = gt(l);
                (if i < 2 { g } else { g + 8 }, t * 2 + (i & 1))
            },
            b: |l, i| {
                let (g, t) = gt(l);
                (t * 2 + i, g)
            },
            na: 4,
            nb: 2,
        },
        (MmaShape::M16N8K16, 16) => Layout {
            a: |l, i| {
                let (g, t) = gt(l);
                let row = if i < 2 || (4..6).contains(&i) {
                    g
                } else {
                    g + 8
                };
                (row, t * 2 + (i & 1) + if i >= 4 { 8 } else { 0 })
            },
            b: |l, i| {
                let (g, t) = gt(l);
                (t * 2 + (i & 1) + if i >= 2 { 8 } else { 0 }, g)
            },
            na: 8,
            nb: 4,
        },
        (MmaShape::M16N8K16, 8) => Layout {
            a: |l, i| {
                let (g, t) = gt(l);
                (if i < 4 { g } else { g + 8 }, t * 4 + (i & 3))
            },
            b: |l, i| {
                let (g, t) = gt(l);
                (t * 4 + i, g)
            },
            na: 8,
            nb: 4,
        },
        (MmaShape::M16N8K32, 8) => Layout {
            a: |l, i| {
                let (g, t) = gt(l);
                let row = if i < 4 || (8..12).contains(&i) {
                    g
                } else {
                    g + 8
                };
                (row, t * 4 + (i & 3) + if i >= 8 { 16 } else { 0 })
            },
            b: |l, i| {
                let (g, t) = gt(l);
                (t * 4 + (i & 3) + if i >= 4 { 16 } else { 0 }, g)
            },
            na: 16,
            nb: 8,
        },
        (MmaShape::M16N8K32, 4) => Layout {
            a: |l, i| {
                let (g, t) = gt(l);
                (if i < 8 { g } else { g + 8 }, t * 8 + (i & 7))
            },
            b: |l, i| {
                let (g, t) = gt(l);
                (t * 8 + (i & 7), g)
            },
            na: 16,
            nb: 8,
        },
        (MmaShape::M16N8K64, 4) => Layout {
            a: |l, i| {
                let (g, t) = gt(l);
                let row = if i < 8 || (16..24).contains(&i) {
                    g
                } else {
                    g + 8
                };
                (row, t * 8 + (i & 7) + if i >= 16 { 32 } else { 0 })
            },
            b: |l, i| {
                let (g, t) = gt(l);
                (t * 8 + (i & 7) + if i >= 8 { 32 } else { 0 }, g)
            },
            na: 32,
            nb: 16,
        },
        (MmaShape::M8N8K16, 8) => Layout {
            a: |l, i| {
                let (g, t) = gt(l);
                (g, t * 4 + i)
            },
            b: |l, i| {
                let (g, t) = gt(l);
                (t * 4 + i, g)
            },
            na: 4,
            nb: 4,
        },
        (MmaShape::M8N8K32, 4) => Layout {
            a: |l, i| {
                let (g, t) = gt(l);
                (g, t * 8 + i)
            },
            b: |l, i| {
                let (g, t) = gt(l);
                (t * 8 + i, g)
            },
            na: 8,
            nb: 8,
        },
        other => panic!("no layout for {other:?}"),
    }
}

/// C/D element `i` of lane `l`: (row, col).
fn c_layout(m: usize, l: usize, i: usize) -> (usize, usize) {
    let (g, t) = gt(l);
    let row = if m == 8 || i < 2 { g } else { g + 8 };
    (row, t * 2 + (i & 1))
}

fn bits_of(t: MmaType) -> usize {
    match t {
        MmaType::F16 | MmaType::Bf16 => 16,
        MmaType::S4 | MmaType::U4 => 4,
        _ => 8,
    }
}

/// Element code -> value, written independently of the emulator.
fn value_of(t: MmaType, code: u32) -> f64 {
    match t {
        MmaType::F16 => half::f16::from_bits(code as u16).to_f64(),
        MmaType::Bf16 => half::bf16::from_bits(code as u16).to_f64(),
        MmaType::S8 => code as u8 as i8 as f64,
        MmaType::U8 => code as u8 as f64,
        MmaType::S4 => {
            (if code & 8 != 0 {
                code as i32 - 16
            } else {
                code as i32
            }) as f64
        }
        MmaType::U4 => code as f64,
        MmaType::E4m3 => {
            let (s, e, m) = ((code >> 7) & 1, (code >> 3) & 15, code & 7);
            let v = if e == 0 {
                m as f64 / 8.0 * 2f64.powi(-6)
            } else {
                (1.0 + m as f64 / 8.0) * 2f64.powi(e as i32 - 7)
            };
            if s == 1 { -v } else { v }
        }
        MmaType::E5m2 => half::f16::from_bits((code as u16) << 8).to_f64(),
        _ => unreachable!(),
    }
}

/// A random element code whose value keeps every sum exact in f64 (so that any summation
/// order gives the same answer).
fn random_code(t: MmaType, rng: &mut Rng) -> u32 {
    let r = rng.next();
    match t {
        // +-k/64 for |k| < 256: few significant bits, small exponent range.
        MmaType::F16 => half::f16::from_f64(((r % 511) as f64 - 255.0) / 64.0).to_bits() as u32,
        MmaType::Bf16 => half::bf16::from_f64(((r % 255) as f64 - 127.0) / 16.0).to_bits() as u32,
        MmaType::S8 | MmaType::U8 => (r & 0xff) as u32,
        MmaType::S4 | MmaType::U4 => (r & 0xf) as u32,
        MmaType::E4m3 => {
            let c = (r & 0xff) as u32;
            if c & 0x7f == 0x7f { 0x38 } else { c }
        }
        // e5m2 codes with exponent field 10..20 (no inf/NaN, bounded range).
        MmaType::E5m2 => {
            (((r >> 8) & 1) << 7) as u32 | ((10 + (r % 11) as u32) << 2) | (r & 3) as u32
        }
        _ => unreachable!(),
    }
}

struct MmaCase {
    shape: MmaShape,
    a_ty: MmaType,
    b_ty: MmaType,
    c_ty: MmaType,
    d_ty: MmaType,
}

fn run_mma(case: &MmaCase, seed: u64) {
    let (m, n, k) = case.shape.mnk();
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let mut rng = Rng(seed);
    let a_codes: Vec<u32> = (0..m * k)
        .map(|_| random_code(case.a_ty, &mut rng))
        .collect();
    let b_codes: Vec<u32> = (0..k * n)
        .map(|_| random_code(case.b_ty, &mut rng))
        .collect();
    let c_vals: Vec<f64> = (0..m * n)
        .map(|_| match case.c_ty {
            MmaType::S32 => (rng.next() as i32) as f64,
            _ => ((rng.next() % 2001) as f64 - 1000.0) / 8.0,
        })
        .collect();

    // Pack fragments: register j of lane l at index j * 32 + l.
    let bits = bits_of(case.a_ty);
    let per = 32 / bits;
    let lay = layout(case.shape, bits);
    let na_regs = lay.na / per;
    let nb_regs = lay.nb / per;
    let mut a_frag = vec![0u32; na_regs * 32];
    let mut b_frag = vec![0u32; nb_regs * 32];
    for l in 0..32 {
        for i in 0..lay.na {
            let (r, c) = (lay.a)(l, i);
            a_frag[(i / per) * 32 + l] |= a_codes[r * k + c] << ((i % per) * bits);
        }
        for i in 0..lay.nb {
            let (r, c) = (lay.b)(l, i);
            b_frag[(i / per) * 32 + l] |= b_codes[r * n + c] << ((i % per) * bits);
        }
    }
    let c_is_f16 = case.c_ty == MmaType::F16;
    let d_is_f16 = case.d_ty == MmaType::F16;
    let nc = if m == 8 { 2 } else { 4 };
    let c_regs = if c_is_f16 { nc / 2 } else { nc };
    let d_regs = if d_is_f16 { nc / 2 } else { nc };
    let mut c_frag = vec![0u32; c_regs * 32];
    for l in 0..32 {
        for i in 0..nc {
            let (r, c) = c_layout(m, l, i);
            let v = c_vals[r * n + c];
            let code = match case.c_ty {
                MmaType::F32 => (v as f32).to_bits(),
                MmaType::S32 => v as i32 as u32,
                _ => half::f16::from_f64(v).to_bits() as u32,
            };
            if c_is_f16 {
                c_frag[(i / 2) * 32 + l] |= code << ((i % 2) * 16);
            } else {
                c_frag[i * 32 + l] = code;
            }
        }
    }

    // The kernel: load fragments, mma, store D.
    let mut b = KernelBuilder::new("mma", 32);
    let pa = b.param("a", ParamTy::Ptr);
    let pb = b.param("b", ParamTy::Ptr);
    let pc = b.param("c", ParamTy::Ptr);
    let pd = b.param("d", ParamTy::Ptr);
    let tid = b.special(SpecialReg::TidX);
    let lane_off = b.mul_wide_u32(tid, 4);
    let load = |b: &mut KernelBuilder, p: Reg, j: usize, class: RegClass, ty: Ty| -> Reg {
        let base = b.add(Ty::U64, p, lane_off);
        let r = b.reg(class);
        b.emit(Inst::Ld {
            space: Space::Global,
            cache: Default::default(),
            ty,
            dst: vec![r],
            addr: Addr::reg_off(base, (j * 128) as i64),
        });
        r
    };
    let a: Vec<Reg> = (0..na_regs)
        .map(|j| load(&mut b, pa, j, RegClass::B32, Ty::B32))
        .collect();
    let bb: Vec<Reg> = (0..nb_regs)
        .map(|j| load(&mut b, pb, j, RegClass::B32, Ty::B32))
        .collect();
    let (cclass, cty) = if case.c_ty == MmaType::F32 {
        (RegClass::F32, Ty::F32)
    } else {
        (RegClass::B32, Ty::B32)
    };
    let c: Vec<Reg> = (0..c_regs)
        .map(|j| load(&mut b, pc, j, cclass, cty))
        .collect();
    let (dclass, dty) = if case.d_ty == MmaType::F32 {
        (RegClass::F32, Ty::F32)
    } else {
        (RegClass::B32, Ty::B32)
    };
    let d: Vec<Reg> = (0..d_regs).map(|_| b.reg(dclass)).collect();
    b.emit(Inst::Mma {
        shape: case.shape,
        d_ty: case.d_ty,
        a_ty: case.a_ty,
        b_ty: case.b_ty,
        c_ty: case.c_ty,
        d: d.clone(),
        a,
        b: bb,
        c,
    });
    for (j, r) in d.iter().enumerate() {
        let base = b.add(Ty::U64, pd, lane_off);
        b.emit(Inst::St {
            space: Space::Global,
            cache: Default::default(),
            ty: dty,
            src: vec![(*r).into()],
            addr: Addr::reg_off(base, (j * 128) as i64),
        });
    }
    let kernel = b.finish();
    let mut emu = Emulator::new();
    let args = [
        KernelArg::Ptr(emu.upload_new(&a_frag).unwrap()),
        KernelArg::Ptr(emu.upload_new(&b_frag).unwrap()),
        KernelArg::Ptr(emu.upload_new(&c_frag).unwrap()),
        KernelArg::Ptr(emu.alloc(d_regs * 128).unwrap()),
    ];
    launch(&mut emu, &kernel, 1, &args).unwrap();
    let KernelArg::Ptr(dp) = args[3] else {
        unreachable!()
    };
    let d_frag: Vec<u32> = emu.download_vec(dp, d_regs * 32).unwrap();
    assert_eq!(emu.last_stats().mma, 1);

    // Plain matmul reference (all sums exact in f64 by construction of the inputs).
    for l in 0..32 {
        for i in 0..nc {
            let (r, cc) = c_layout(m, l, i);
            let mut acc = c_vals[r * n + cc];
            if c_is_f16 {
                acc = half::f16::from_f64(acc).to_f64();
            }
            for kk in 0..k {
                acc += value_of(case.a_ty, a_codes[r * k + kk])
                    * value_of(case.b_ty, b_codes[kk * n + cc]);
            }
            let want = match case.d_ty {
                MmaType::F32 => (acc as f32).to_bits(),
                MmaType::S32 => acc as i64 as i32 as u32,
                _ => half::f16::from_f64(acc).to_bits() as u32,
            };
            let got = if d_is_f16 {
                (d_frag[(i / 2) * 32 + l] >> ((i % 2) * 16)) & 0xffff
            } else {
                d_frag[i * 32 + l]
            };
            assert_eq!(
                got,
                want,
                "{:?} {}.{}.{}.{} lane {l} element {i} (row {r} col {cc})",
                case.shape,
                case.d_ty.ptx(),
                case.a_ty.ptx(),
                case.b_ty.ptx(),
                case.c_ty.ptx()
            );
        }
    }
}

#[test]
fn mma_every_shape_and_type_against_a_plain_matmul() {
    use MmaShape::*;
    use MmaType::*;
    let cases = [
        (M16N8K16, F16, F16, F32, F32),
        (M16N8K16, F16, F16, F16, F16),
        (M16N8K16, F16, F16, F16, F32),
        (M16N8K16, F16, F16, F32, F16),
        (M16N8K16, Bf16, Bf16, F32, F32),
        (M16N8K8, F16, F16, F32, F32),
        (M16N8K8, F16, F16, F16, F16),
        (M16N8K8, Bf16, Bf16, F32, F32),
        (M16N8K32, S8, S8, S32, S32),
        (M16N8K32, U8, U8, S32, S32),
        (M16N8K32, S8, U8, S32, S32),
        (M16N8K32, U8, S8, S32, S32),
        (M16N8K32, E4m3, E4m3, F32, F32),
        (M16N8K32, E5m2, E5m2, F32, F32),
        (M16N8K32, E4m3, E5m2, F32, F32),
        (M16N8K16, S8, S8, S32, S32),
        (M16N8K64, S4, S4, S32, S32),
        (M16N8K64, U4, U4, S32, S32),
        (M16N8K64, S4, U4, S32, S32),
        (M16N8K32, S4, S4, S32, S32),
        (M8N8K16, S8, S8, S32, S32),
        (M8N8K16, U8, S8, S32, S32),
        (M8N8K32, S4, S4, S32, S32),
        (M8N8K32, U4, U4, S32, S32),
    ];
    for (i, (shape, a_ty, b_ty, c_ty, d_ty)) in cases.into_iter().enumerate() {
        for seed in 0..3 {
            run_mma(
                &MmaCase {
                    shape,
                    a_ty,
                    b_ty,
                    c_ty,
                    d_ty,
                },
                1000 * i as u64 + seed + 1,
            );
        }
    }
}

#[test]
fn mma_integer_accumulation_wraps_at_32_bits() {
    // C = i32::MAX everywhere and positive products: D wraps like the GPU's s32 adder.
    let shape = MmaShape::M8N8K16;
    let mut b = KernelBuilder::new("mma_wrap", 32);
    let out = b.param("out", ParamTy::Ptr);
    let a = b.mov(Ty::B32, 0x0101_0101u32); // four u8 ones
    let bb = b.mov(Ty::B32, 0x0202_0202u32); // four u8 twos
    let c0 = b.mov(Ty::B32, i32::MAX as u32);
    let d0 = b.reg(RegClass::B32);
    let d1 = b.reg(RegClass::B32);
    b.emit(Inst::Mma {
        shape,
        d_ty: MmaType::S32,
        a_ty: MmaType::U8,
        b_ty: MmaType::U8,
        c_ty: MmaType::S32,
        d: vec![d0, d1],
        a: vec![a],
        b: vec![bb],
        c: vec![c0, c0],
    });
    let oa = thread_addr(&mut b, out, 8);
    st(&mut b, Space::Global, Ty::U32, Addr::reg(oa), d0);
    st(&mut b, Space::Global, Ty::U32, Addr::reg_off(oa, 4), d1);
    let k = b.finish();
    let mut emu = Emulator::new();
    let po = emu.alloc(256).unwrap();
    launch(&mut emu, &k, 1, &[KernelArg::Ptr(po)]).unwrap();
    let got: Vec<u32> = emu.download_vec(po, 64).unwrap();
    // 16 products of 1*2 = 32 added to i32::MAX.
    assert!(got.iter().all(|&v| v == (i32::MAX as u32).wrapping_add(32)));
}

#[test]
fn mma_and_ldmatrix_need_the_whole_warp() {
    // A 16-thread CTA: the warp has 16 inactive lanes.
    let mut b = KernelBuilder::new("mma_half_warp", 16);
    let a: Vec<Reg> = (0..4).map(|_| b.mov(Ty::B32, 0u32)).collect();
    let bb: Vec<Reg> = (0..2).map(|_| b.mov(Ty::B32, 0u32)).collect();
    let c: Vec<Reg> = (0..4).map(|_| b.mov(Ty::F32, Operand::f32(0.0))).collect();
    b.emit(Inst::Mma {
        shape: MmaShape::M16N8K16,
        d_ty: MmaType::F32,
        a_ty: MmaType::F16,
        b_ty: MmaType::F16,
        c_ty: MmaType::F32,
        d: c.clone(),
        a,
        b: bb,
        c,
    });
    let k = b.finish();
    let err = launch(&mut Emulator::new(), &k, 1, &[]).unwrap_err();
    assert!(
        matches!(
            err,
            EmuError::NotConverged {
                what: "mma.sync",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.thread().unwrap().lane, 16);
    assert!(
        err.to_string().contains("mma.sync.aligned.m16n8k16"),
        "{err}"
    );
}

#[test]
fn tile_gemm_from_ldmatrix_and_mma() {
    use emu_util::gemm;
    let kernel = gemm::tile_gemm_kernel();
    let (a, bt) = gemm::inputs();
    let mut emu = Emulator::new();
    let pa = emu.upload_new(&a).unwrap();
    let pb = emu.upload_new(&bt).unwrap();
    let pc = emu.alloc(gemm::M * gemm::N * 4).unwrap();
    let k_total = 256;
    let args = [
        KernelArg::Ptr(pa),
        KernelArg::Ptr(pb),
        KernelArg::Ptr(pc),
        KernelArg::U32(k_total),
    ];
    launch(&mut emu, &kernel, 1, &args).unwrap();
    let c: Vec<f32> = emu.download_vec(pc, gemm::M * gemm::N).unwrap();
    assert_eq!(c, gemm::reference(&a, &bt, k_total as usize));
    assert_eq!(emu.last_stats().mma, 4 * 4 * (k_total as u64 / 16));
}
