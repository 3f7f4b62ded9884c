//! Memory, control flow and scheduling: special registers, vector loads/stores, cp.async
//! visibility, atomics, loops, branches, barriers and the statistics.

mod emu_util;

use emu_util::{global_thread_addr, launch, ld, shared_thread_addr, st, thread_addr};
use humming_core::ir::builder::KernelBuilder;
use humming_core::ir::emu::Emulator;
use humming_core::ir::{
    Addr, AtomOp, CacheOp, Cmp, CpAsyncCache, Executor, Inst, KernelArg, LaunchDims, Operand,
    ParamTy, Reg, RegClass, Space, SpecialReg, Ty,
};

fn setp(
    b: &mut KernelBuilder,
    cmp: Cmp,
    ty: Ty,
    a: impl Into<Operand>,
    c: impl Into<Operand>,
) -> Reg {
    let p = b.reg(RegClass::Pred);
    b.emit(Inst::Setp {
        cmp,
        ty,
        dst: p,
        a: a.into(),
        b: c.into(),
    });
    p
}

#[test]
fn special_registers_with_a_tail_warp_and_a_2d_grid() {
    let sregs = [
        SpecialReg::TidX,
        SpecialReg::TidY,
        SpecialReg::NtidX,
        SpecialReg::NtidY,
        SpecialReg::CtaidX,
        SpecialReg::CtaidY,
        SpecialReg::CtaidZ,
        SpecialReg::NctaidX,
        SpecialReg::NctaidY,
        SpecialReg::NctaidZ,
        SpecialReg::LaneId,
        SpecialReg::WarpId,
    ];
    let n = sregs.len() as u32;
    let mut b = KernelBuilder::new("sregs", 48);
    let out = b.param("out", ParamTy::Ptr);
    let tid = b.special(SpecialReg::TidX);
    let cx = b.special(SpecialReg::CtaidX);
    let cy = b.special(SpecialReg::CtaidY);
    let ncx = b.special(SpecialReg::NctaidX);
    let cta = b.mul(Ty::U32, cy, ncx);
    let cta = b.add(Ty::U32, cta, cx);
    let row = b.mul(Ty::U32, cta, 48u32);
    let row = b.add(Ty::U32, row, tid);
    let off = b.mul_wide_u32(row, 4 * n);
    let base = b.add(Ty::U64, out, off);
    for (i, s) in sregs.iter().enumerate() {
        let v = b.special(*s);
        st(
            &mut b,
            Space::Global,
            Ty::U32,
            Addr::reg_off(base, 4 * i as i64),
            v,
        );
    }
    let k = b.finish();
    let mut emu = Emulator::new();
    let po = emu.alloc((6 * 48 * n * 4) as usize).unwrap();
    emu.launch(
        &k,
        LaunchDims {
            grid: (2, 3, 1),
            block: 48,
            dynamic_shared_bytes: 0,
            cluster: humming_core::ir::NO_CLUSTER,
        },
        &[KernelArg::Ptr(po)],
    )
    .unwrap();
    let got: Vec<u32> = emu.download_vec(po, (6 * 48 * n) as usize).unwrap();
    for cy in 0..3u32 {
        for cx in 0..2u32 {
            for t in 0..48u32 {
                let r = &got[(((cy * 2 + cx) * 48 + t) * n) as usize..][..n as usize];
                assert_eq!(
                    r,
                    &[t, 0, 48, 1, cx, cy, 0, 2, 3, 1, t % 32, t / 32],
                    "cta ({cx},{cy}) tid {t}"
                );
            }
        }
    }
    let s = emu.last_stats();
    assert_eq!(s.ctas, 6);
    // Two warps per CTA (32 + 16 lanes); every op counts the warp's active lanes.
    assert_eq!(s.lane_instructions, s.warp_instructions / 2 * 48);
}

#[test]
fn vector_and_narrow_loads_and_stores() {
    let mut b = KernelBuilder::new("vec", 32);
    let src = b.param("src", ParamTy::Ptr);
    let dst = b.param("dst", ParamTy::Ptr);
    let bytes = b.param("bytes", ParamTy::Ptr);
    let narrow = b.param("narrow", ParamTy::Ptr);
    let smem = b.shared("buf", 32 * 16, 16);
    let ga = thread_addr(&mut b, src, 16);
    let v: Vec<Reg> = (0..4).map(|_| b.reg(RegClass::B32)).collect();
    b.emit(Inst::Ld {
        space: Space::Global,
        cache: CacheOp::Cg,
        ty: Ty::U32,
        dst: v.clone(),
        addr: Addr::reg(ga),
    });
    // Through shared memory as v4, reversed lane order, then back as two v2.u64... as v2.u32 pairs.
    let sa = shared_thread_addr(&mut b, smem, 16);
    b.emit(Inst::St {
        space: Space::Shared,
        cache: CacheOp::Default,
        ty: Ty::B32,
        src: v.iter().rev().map(|r| (*r).into()).collect(),
        addr: Addr::reg(sa),
    });
    b.emit(Inst::BarSync {
        id: 0,
        threads: None,
        aligned: true,
    });
    let tid = b.special(SpecialReg::TidX);
    let other = b.bin(humming_core::ir::BinOp::Sub, Ty::U32, 31u32, tid);
    let ooff = b.mul(Ty::U32, other, 16u32);
    let osa = b.add(Ty::U32, ooff, Operand::SharedAddr(smem));
    let w: Vec<Reg> = (0..2).map(|_| b.reg(RegClass::B64)).collect();
    b.emit(Inst::Ld {
        space: Space::Shared,
        cache: CacheOp::Default,
        ty: Ty::B64,
        dst: w.clone(),
        addr: Addr::reg(osa),
    });
    let da = thread_addr(&mut b, dst, 16);
    b.emit(Inst::St {
        space: Space::Global,
        cache: CacheOp::Cs,
        ty: Ty::U64,
        src: w.iter().map(|r| (*r).into()).collect(),
        addr: Addr::reg(da),
    });
    // Narrow loads into wide registers: s8 sign-extends, u8 zero-extends, s16 sign-extends.
    let tb = thread_addr(&mut b, bytes, 2);
    let s8 = b.reg(RegClass::B32);
    b.emit(Inst::Ld {
        space: Space::Global,
        cache: CacheOp::Default,
        ty: Ty::S8,
        dst: vec![s8],
        addr: Addr::reg(tb),
    });
    let u8r = b.reg(RegClass::B32);
    b.emit(Inst::Ld {
        space: Space::Global,
        cache: CacheOp::Default,
        ty: Ty::U8,
        dst: vec![u8r],
        addr: Addr::reg(tb),
    });
    let s16 = b.reg(RegClass::B64);
    b.emit(Inst::Ld {
        space: Space::Global,
        cache: CacheOp::Default,
        ty: Ty::S16,
        dst: vec![s16],
        addr: Addr::reg(tb),
    });
    let na = thread_addr(&mut b, narrow, 16);
    st(&mut b, Space::Global, Ty::U32, Addr::reg(na), s8);
    st(&mut b, Space::Global, Ty::U32, Addr::reg_off(na, 4), u8r);
    st(&mut b, Space::Global, Ty::U64, Addr::reg_off(na, 8), s16);
    let k = b.finish();

    let input: Vec<u32> = (0..128).map(|i| i * 0x0101_0101 + 7).collect();
    let bytes_in: Vec<u16> = (0..32)
        .map(|i| (0x8000u32 + i * 0x0111 + 0x80 * (i & 1)) as u16)
        .collect();
    let mut emu = Emulator::new();
    let ps = emu.upload_new(&input).unwrap();
    let pd = emu.alloc(32 * 16).unwrap();
    let pb = emu.upload_new(&bytes_in).unwrap();
    let pn = emu.alloc(32 * 16).unwrap();
    launch(
        &mut emu,
        &k,
        1,
        &[
            KernelArg::Ptr(ps),
            KernelArg::Ptr(pd),
            KernelArg::Ptr(pb),
            KernelArg::Ptr(pn),
        ],
    )
    .unwrap();
    let out: Vec<u32> = emu.download_vec(pd, 128).unwrap();
    for t in 0..32 {
        let o = 31 - t;
        let want: Vec<u32> = (0..4).rev().map(|j| input[o * 4 + j]).collect();
        assert_eq!(&out[t * 4..t * 4 + 4], &want[..], "lane {t}");
    }
    let nr: Vec<u32> = emu.download_vec(pn, 128).unwrap();
    for t in 0..32 {
        let h = bytes_in[t];
        assert_eq!(nr[t * 4], h as u8 as i8 as i32 as u32);
        assert_eq!(nr[t * 4 + 1], h as u8 as u32);
        let wide = (nr[t * 4 + 2] as u64) | ((nr[t * 4 + 3] as u64) << 32);
        assert_eq!(wide, h as i16 as i64 as u64);
    }
}

/// `cp.async.{ca|cg}.shared.global [dst], [src], bytes{, src_size}`.
fn cp_async(b: &mut KernelBuilder, bytes: u32, dst: Reg, src: Reg, src_size: Option<Operand>) {
    let cache = if bytes == 16 {
        CpAsyncCache::Cg
    } else {
        CpAsyncCache::Ca
    };
    b.emit(Inst::CpAsync {
        cache,
        bytes,
        dst: Addr::reg(dst),
        src: Addr::reg(src),
        src_size,
        policy: None,
    });
}

#[test]
fn cp_async_lands_at_wait_group_and_zero_fills() {
    for bytes in [4u32, 8, 16] {
        let mut b = KernelBuilder::new("cp", 64);
        let src = b.param("src", ParamTy::Ptr);
        let out = b.param("out", ParamTy::Ptr);
        let smem = b.shared("stage", 64 * 16, 16);
        let tid = b.special(SpecialReg::TidX);
        let ga = thread_addr(&mut b, src, bytes);
        let sa = shared_thread_addr(&mut b, smem, bytes);
        // src-size = tid % (bytes + 1): the tail of each copy is zero-filled.
        let ssz = b.bin(humming_core::ir::BinOp::Rem, Ty::U32, tid, bytes + 1);
        cp_async(&mut b, bytes, sa, ga, Some(ssz.into()));
        b.emit(Inst::CpAsyncCommit);
        b.emit(Inst::CpAsyncWait { n: 0 });
        b.emit(Inst::BarSync {
            id: 0,
            threads: None,
            aligned: true,
        });
        // Read the copy another thread made.
        let other = b.bin(humming_core::ir::BinOp::Sub, Ty::U32, 63u32, tid);
        let ooff = b.mul(Ty::U32, other, bytes);
        let osa = b.add(Ty::U32, ooff, Operand::SharedAddr(smem));
        let oa = thread_addr(&mut b, out, bytes);
        for w in 0..bytes / 4 {
            let v = ld(
                &mut b,
                Space::Shared,
                Ty::U32,
                Addr::reg_off(osa, 4 * w as i64),
            );
            st(
                &mut b,
                Space::Global,
                Ty::U32,
                Addr::reg_off(oa, 4 * w as i64),
                v,
            );
        }
        let k = b.finish();
        let input: Vec<u8> = (0..64 * bytes).map(|i| (i * 7 + 1) as u8).collect();
        let mut emu = Emulator::new();
        let ps = emu.upload_new(&input).unwrap();
        let po = emu.alloc((64 * bytes) as usize).unwrap();
        launch(&mut emu, &k, 1, &[KernelArg::Ptr(ps), KernelArg::Ptr(po)]).unwrap();
        let got: Vec<u8> = emu.download_vec(po, (64 * bytes) as usize).unwrap();
        for t in 0..64u32 {
            let o = 63 - t;
            let ssz = o % (bytes + 1);
            for i in 0..bytes {
                let want = if i < ssz {
                    input[(o * bytes + i) as usize]
                } else {
                    0
                };
                assert_eq!(
                    got[(t * bytes + i) as usize],
                    want,
                    "cp.async {bytes}B thread {t} byte {i}"
                );
            }
        }
    }
}

#[test]
fn cp_async_groups_retire_oldest_first() {
    // Group 0 fills region A, group 1 region B; after wait_group 1 only A has landed, and A can
    // be read while B is still pending.
    let mut b = KernelBuilder::new("groups", 32);
    let src = b.param("src", ParamTy::Ptr);
    let out = b.param("out", ParamTy::Ptr);
    let sa_arr = b.shared("a", 32 * 16, 16);
    let sb_arr = b.shared("b", 32 * 16, 16);
    let ga = thread_addr(&mut b, src, 16);
    let sa = shared_thread_addr(&mut b, sa_arr, 16);
    let sb = shared_thread_addr(&mut b, sb_arr, 16);
    cp_async(&mut b, 16, sa, ga, None);
    b.emit(Inst::CpAsyncCommit);
    let gb = b.add(Ty::U64, ga, 512u32);
    cp_async(&mut b, 16, sb, gb, None);
    b.emit(Inst::CpAsyncCommit);
    b.emit(Inst::CpAsyncWait { n: 1 });
    let va = ld(&mut b, Space::Shared, Ty::U32, Addr::reg(sa));
    b.emit(Inst::CpAsyncWait { n: 0 });
    let vb = ld(&mut b, Space::Shared, Ty::U32, Addr::reg(sb));
    let oa = thread_addr(&mut b, out, 8);
    st(&mut b, Space::Global, Ty::U32, Addr::reg(oa), va);
    st(&mut b, Space::Global, Ty::U32, Addr::reg_off(oa, 4), vb);
    let k = b.finish();
    let input: Vec<u32> = (0..256).collect();
    let mut emu = Emulator::new();
    let ps = emu.upload_new(&input).unwrap();
    let po = emu.alloc(256).unwrap();
    launch(&mut emu, &k, 1, &[KernelArg::Ptr(ps), KernelArg::Ptr(po)]).unwrap();
    let got: Vec<u32> = emu.download_vec(po, 64).unwrap();
    for t in 0..32 {
        assert_eq!(got[2 * t], 4 * t as u32);
        assert_eq!(got[2 * t + 1], 128 + 4 * t as u32);
    }
}

fn atom(
    b: &mut KernelBuilder,
    space: Space,
    op: AtomOp,
    ty: Ty,
    addr: Addr,
    v: impl Into<Operand>,
) -> Reg {
    let d = b.reg_for(ty);
    b.emit(Inst::Atom {
        space,
        op,
        ty,
        dst: d,
        addr,
        b: v.into(),
        c: None,
    });
    d
}

#[test]
fn atomics_apply_in_lane_order_and_count_across_ctas() {
    let mut b = KernelBuilder::new("atoms", 64);
    let cells = b.param("cells", ParamTy::Ptr);
    let olds = b.param("olds", ParamTy::Ptr);
    let smem = b.shared("s", 16, 8);
    let tid = b.special(SpecialReg::TidX);
    let warp = b.special(SpecialReg::WarpId);
    let lane = b.special(SpecialReg::LaneId);
    let zero = b.mov(Ty::U32, 0u32);
    let p0 = setp(&mut b, Cmp::Eq, Ty::U32, tid, 0u32);
    b.guarded(p0, false, |b| {
        st(
            b,
            Space::Shared,
            Ty::U32,
            Addr {
                base: Operand::SharedAddr(smem),
                offset: 0,
            },
            zero,
        );
        st(
            b,
            Space::Shared,
            Ty::U32,
            Addr {
                base: Operand::SharedAddr(smem),
                offset: 4,
            },
            zero,
        );
    });
    b.emit(Inst::BarSync {
        id: 0,
        threads: None,
        aligned: true,
    });
    // cells: [0] add.u32 counter, [1] exch (warp 0), [2] cas chain (warp 1), [3] min.s32,
    // [4] max.s32, [5] or, [6..8] add.u64, [8] add.f32 (global, subnormal flushed).
    let count = atom(
        &mut b,
        Space::Global,
        AtomOp::Add,
        Ty::U32,
        Addr::reg(cells),
        1u32,
    );
    let is_w0 = setp(&mut b, Cmp::Eq, Ty::U32, warp, 0u32);
    let exch = b.reg(RegClass::B32);
    b.guarded(is_w0, false, |b| {
        b.emit(Inst::Atom {
            space: Space::Global,
            op: AtomOp::Exch,
            ty: Ty::B32,
            dst: exch,
            addr: Addr::reg_off(cells, 4),
            b: lane.into(),
            c: None,
        })
    });
    let cas = b.reg(RegClass::B32);
    let next = b.add(Ty::U32, lane, 1u32);
    b.guarded(is_w0, true, |b| {
        b.emit(Inst::Atom {
            space: Space::Global,
            op: AtomOp::Cas,
            ty: Ty::B32,
            dst: cas,
            addr: Addr::reg_off(cells, 8),
            b: lane.into(),
            c: Some(next.into()),
        })
    });
    let signed = b.bin(humming_core::ir::BinOp::Sub, Ty::S32, tid, 20i32);
    atom(
        &mut b,
        Space::Global,
        AtomOp::Min,
        Ty::S32,
        Addr::reg_off(cells, 12),
        signed,
    );
    atom(
        &mut b,
        Space::Global,
        AtomOp::Max,
        Ty::S32,
        Addr::reg_off(cells, 16),
        signed,
    );
    let bit = b.bin(humming_core::ir::BinOp::Shl, Ty::B32, 1u32, lane);
    atom(
        &mut b,
        Space::Global,
        AtomOp::Or,
        Ty::B32,
        Addr::reg_off(cells, 20),
        bit,
    );
    let big = b.mov(Ty::U64, Operand::Imm(1 << 33));
    b.emit(Inst::Red {
        space: Space::Global,
        op: AtomOp::Add,
        ty: Ty::U64,
        addr: Addr::reg_off(cells, 24),
        b: big.into(),
    });
    let tiny = b.mov(Ty::F32, Operand::f32(1e-45));
    b.emit(Inst::Red {
        space: Space::Global,
        op: AtomOp::Add,
        ty: Ty::F32,
        addr: Addr::reg_off(cells, 32),
        b: tiny.into(),
    });
    // Shared: the same subnormal add is not flushed; plus an integer counter.
    let s0 = Addr {
        base: Operand::SharedAddr(smem),
        offset: 0,
    };
    let s4 = Addr {
        base: Operand::SharedAddr(smem),
        offset: 4,
    };
    b.emit(Inst::Red {
        space: Space::Shared,
        op: AtomOp::Add,
        ty: Ty::F32,
        addr: s0,
        b: tiny.into(),
    });
    let sc = atom(&mut b, Space::Shared, AtomOp::Add, Ty::U32, s4, 2u32);
    b.emit(Inst::BarSync {
        id: 0,
        threads: None,
        aligned: true,
    });
    let sf = ld(&mut b, Space::Shared, Ty::U32, s0);
    let oa = global_thread_addr(&mut b, olds, 16);
    st(&mut b, Space::Global, Ty::U32, Addr::reg(oa), count);
    let first = b.mov(Ty::U32, 0u32);
    b.guarded(is_w0, false, |b| {
        b.emit(Inst::Mov {
            ty: Ty::U32,
            dst: first,
            src: exch.into(),
        })
    });
    b.guarded(is_w0, true, |b| {
        b.emit(Inst::Mov {
            ty: Ty::U32,
            dst: first,
            src: cas.into(),
        })
    });
    st(&mut b, Space::Global, Ty::U32, Addr::reg_off(oa, 4), first);
    st(&mut b, Space::Global, Ty::U32, Addr::reg_off(oa, 8), sc);
    st(&mut b, Space::Global, Ty::U32, Addr::reg_off(oa, 12), sf);
    let k = b.finish();

    let mut emu = Emulator::new();
    let init: Vec<u32> = vec![0, 1000, 0, 0, 0, 0, 0, 0, 0, 0];
    let pc = emu.upload_new(&init).unwrap();
    let po = emu.alloc(4 * 64 * 16).unwrap();
    launch(&mut emu, &k, 4, &[KernelArg::Ptr(pc), KernelArg::Ptr(po)]).unwrap();
    let cells: Vec<u32> = emu.download_vec(pc, 10).unwrap();
    let olds: Vec<u32> = emu.download_vec(po, 4 * 64 * 4).unwrap();
    assert_eq!(cells[0], 256, "4 CTAs x 64 increments");
    let mut counts: Vec<u32> = (0..256).map(|i| olds[4 * i]).collect();
    counts.sort();
    assert_eq!(
        counts,
        (0..256).collect::<Vec<u32>>(),
        "every old value once"
    );
    // exch in lane order: lane l sees the previous lane's value (lane 0 sees the last CTA's 31).
    for cta in 0..4 {
        for l in 0..32 {
            let old = olds[4 * (cta * 64 + l) + 1];
            let want = if l > 0 {
                l as u32 - 1
            } else if cta == 0 {
                1000
            } else {
                31
            };
            assert_eq!(old, want, "exch cta {cta} lane {l}");
        }
    }
    // cas chain in lane order: lane l finds l, stores l + 1 (first CTA); later CTAs find 32.
    for l in 0..32 {
        assert_eq!(olds[4 * (32 + l) + 1], l as u32);
        assert_eq!(olds[4 * (64 + 32 + l) + 1], 32);
    }
    assert_eq!(cells[2], 32);
    assert_eq!(cells[3] as i32, -20);
    assert_eq!(cells[4] as i32, 43);
    assert_eq!(cells[5], u32::MAX);
    assert_eq!(cells[6] as u64 | (cells[7] as u64) << 32, 256u64 << 33);
    assert_eq!(
        cells[8], 0,
        "atom.add.f32 on global memory flushes subnormals"
    );
    for cta in 0..4 {
        let shared_counts: Vec<u32> = (0..64).map(|t| olds[4 * (cta * 64 + t) + 2]).collect();
        assert_eq!(shared_counts, (0..64).map(|t| 2 * t).collect::<Vec<u32>>());
        let sf = f32::from_bits(olds[4 * (cta * 64) + 3]);
        assert_eq!(sf, 64.0 * 1e-45f32, "shared atom.add.f32 keeps subnormals");
    }
}

#[test]
fn loops_branches_and_return() {
    // out[tid] = sum_{i = start; i < end; i += step} i, for a few signed/unsigned loops, with an
    // If on the warp id and a Return in the middle of a loop for warp 1.
    let mut b = KernelBuilder::new("loops", 64);
    let out = b.param("out", ParamTy::Ptr);
    let n = b.param("n", ParamTy::U32);
    let warp = b.special(SpecialReg::WarpId);
    let oa = thread_addr(&mut b, out, 16);
    let acc = b.mov(Ty::U32, 0u32);
    b.for_range(3u32, n, 4, |b, i| {
        b.emit(Inst::Bin {
            op: humming_core::ir::BinOp::Add,
            ty: Ty::U32,
            dst: acc,
            a: acc.into(),
            b: i.into(),
        });
    });
    st(&mut b, Space::Global, Ty::U32, Addr::reg(oa), acc);
    // Signed loop from -5 to 7, step 2 (raw Stmt::Loop with `signed`).
    let sacc = b.mov(Ty::S32, 0i32);
    let counter = b.reg(RegClass::B32);
    let body = vec![humming_core::ir::Stmt::Inst {
        guard: None,
        inst: Inst::Bin {
            op: humming_core::ir::BinOp::Add,
            ty: Ty::S32,
            dst: sacc,
            a: sacc.into(),
            b: counter.into(),
        },
    }];
    let mut k0 = b.finish();
    k0.body.push(humming_core::ir::Stmt::Loop {
        counter,
        start: Operand::Imm(-5),
        end: Operand::Imm(7),
        step: 2,
        signed: true,
        body,
    });
    // Re-open: append the rest as raw statements.
    let is_w1 = k0.regs.len() as u32;
    k0.regs.push(RegClass::Pred);
    let is_w1 = Reg {
        id: is_w1,
        class: RegClass::Pred,
    };
    let st_at = |off: i64, v: Reg| humming_core::ir::Stmt::Inst {
        guard: None,
        inst: Inst::St {
            space: Space::Global,
            cache: CacheOp::Default,
            ty: Ty::U32,
            src: vec![v.into()],
            addr: Addr::reg_off(oa, off),
        },
    };
    k0.body.push(st_at(4, sacc));
    k0.body.push(humming_core::ir::Stmt::Inst {
        guard: None,
        inst: Inst::Setp {
            cmp: Cmp::Eq,
            ty: Ty::U32,
            dst: is_w1,
            a: warp.into(),
            b: Operand::Imm(1),
        },
    });
    let ten = k0.regs.len() as u32;
    k0.regs.push(RegClass::B32);
    let ten = Reg {
        id: ten,
        class: RegClass::B32,
    };
    let mov = |v: i64| humming_core::ir::Stmt::Inst {
        guard: None,
        inst: Inst::Mov {
            ty: Ty::U32,
            dst: ten,
            src: Operand::Imm(v),
        },
    };
    k0.body.push(humming_core::ir::Stmt::If {
        cond: is_w1,
        negate: false,
        then: vec![mov(10)],
        els: vec![mov(20)],
    });
    k0.body.push(st_at(8, ten));
    let c2 = k0.regs.len() as u32;
    k0.regs.push(RegClass::B32);
    let c2 = Reg {
        id: c2,
        class: RegClass::B32,
    };
    k0.body.push(humming_core::ir::Stmt::Loop {
        counter: c2,
        start: Operand::Imm(0),
        end: Operand::Imm(5),
        step: 1,
        signed: false,
        body: vec![
            humming_core::ir::Stmt::If {
                cond: is_w1,
                negate: false,
                then: vec![humming_core::ir::Stmt::Return],
                els: vec![],
            },
            st_at(12, c2),
        ],
    });
    let k = k0;
    let mut emu = Emulator::new();
    let po = emu.alloc(64 * 16).unwrap();
    emu.upload(po, &vec![0u8; 64 * 16]).unwrap();
    launch(&mut emu, &k, 1, &[KernelArg::Ptr(po), KernelArg::U32(30)]).unwrap();
    let got: Vec<u32> = emu.download_vec(po, 64 * 4).unwrap();
    let want_sum: u32 = (3..30).step_by(4).sum();
    let want_signed: i32 = (-5..7).step_by(2).sum();
    for t in 0..64 {
        assert_eq!(got[4 * t], want_sum);
        assert_eq!(got[4 * t + 1] as i32, want_signed);
        assert_eq!(got[4 * t + 2], if t >= 32 { 10 } else { 20 });
        assert_eq!(
            got[4 * t + 3],
            if t >= 32 { 0 } else { 4 },
            "warp 1 returned before storing"
        );
    }
}

#[test]
fn barriers_order_shared_memory_between_warps() {
    // Four warps: each writes its slot, bar.sync, reads the next warp's slot. Then warps 0-1
    // and 2-3 synchronize on named barriers with a thread count of 64.
    let mut b = KernelBuilder::new("bars", 128);
    let out = b.param("out", ParamTy::Ptr);
    let smem = b.shared("slots", 16 * 4, 16);
    let warp = b.special(SpecialReg::WarpId);
    let lane = b.special(SpecialReg::LaneId);
    let w4 = b.mul(Ty::U32, warp, 4u32);
    let slot = b.add(Ty::U32, w4, Operand::SharedAddr(smem));
    let p = setp(&mut b, Cmp::Eq, Ty::U32, lane, 0u32);
    let val = b.mul(Ty::U32, warp, 10u32);
    b.guarded(p, false, |b| {
        st(b, Space::Shared, Ty::U32, Addr::reg(slot), val)
    });
    b.emit(Inst::BarSync {
        id: 0,
        threads: None,
        aligned: true,
    });
    let nw = b.add(Ty::U32, warp, 1u32);
    let nw = b.bin(humming_core::ir::BinOp::And, Ty::B32, nw, 3u32);
    let n4 = b.mul(Ty::U32, nw, 4u32);
    let nslot = b.add(Ty::U32, n4, Operand::SharedAddr(smem));
    let got = ld(&mut b, Space::Shared, Ty::U32, Addr::reg(nslot));
    // Second phase on named barriers: pairs of warps.
    let hi = setp(&mut b, Cmp::Ge, Ty::U32, warp, 2u32);
    let v2 = b.add(Ty::U32, val, 1u32);
    b.guarded(p, false, |b| {
        st(b, Space::Shared, Ty::U32, Addr::reg_off(slot, 16), v2)
    });
    b.if_else(
        hi,
        |b| {
            b.emit(Inst::BarSync {
                id: 2,
                threads: Some(64),
                aligned: true,
            })
        },
        |b| {
            b.emit(Inst::BarSync {
                id: 1,
                threads: Some(64),
                aligned: true,
            })
        },
    );
    let partner = b.bin(humming_core::ir::BinOp::Xor, Ty::B32, warp, 1u32);
    let p4 = b.mul(Ty::U32, partner, 4u32);
    let pslot = b.add(Ty::U32, p4, Operand::SharedAddr(smem));
    let got2 = ld(&mut b, Space::Shared, Ty::U32, Addr::reg_off(pslot, 16));
    let oa = global_thread_addr(&mut b, out, 8);
    st(&mut b, Space::Global, Ty::U32, Addr::reg(oa), got);
    st(&mut b, Space::Global, Ty::U32, Addr::reg_off(oa, 4), got2);
    let k = b.finish();
    let mut emu = Emulator::new();
    let po = emu.alloc(2 * 128 * 8).unwrap();
    launch(&mut emu, &k, 2, &[KernelArg::Ptr(po)]).unwrap();
    let r: Vec<u32> = emu.download_vec(po, 512).unwrap();
    for t in 0..256 {
        let w = (t as u32 % 128) / 32;
        assert_eq!(r[2 * t], (w + 1) % 4 * 10);
        assert_eq!(r[2 * t + 1], (w ^ 1) * 10 + 1);
    }
    assert_eq!(
        emu.last_stats().barriers,
        2 * 3,
        "one CTA-wide and two named barriers per CTA"
    );
}

#[test]
fn dynamic_shared_memory_and_allocation_hygiene() {
    let mut b = KernelBuilder::new("dyn", 32);
    let out = b.param("out", ParamTy::Ptr);
    let st_arr = b.shared("static", 12, 4);
    let dynm = b.dynamic_shared(128);
    let sa = shared_thread_addr(&mut b, dynm, 4);
    let tid = b.special(SpecialReg::TidX);
    st(&mut b, Space::Shared, Ty::U32, Addr::reg(sa), tid);
    let v = ld(&mut b, Space::Shared, Ty::U32, Addr::reg(sa));
    let base_s = b.mov(Ty::U32, Operand::SharedAddr(st_arr));
    let base_d = b.mov(Ty::U32, Operand::SharedAddr(dynm));
    let oa = thread_addr(&mut b, out, 12);
    st(&mut b, Space::Global, Ty::U32, Addr::reg(oa), v);
    st(&mut b, Space::Global, Ty::U32, Addr::reg_off(oa, 4), base_s);
    st(&mut b, Space::Global, Ty::U32, Addr::reg_off(oa, 8), base_d);
    let k = b.finish();
    let mut emu = Emulator::new();
    let po = emu.alloc(32 * 12).unwrap();
    assert_eq!(po.0 % 256, 0);
    let fresh: Vec<u8> = emu.download_vec(po, 32 * 12).unwrap();
    assert!(
        fresh.iter().all(|&x| x == 0xff),
        "fresh allocations are poisoned"
    );
    emu.launch(
        &k,
        LaunchDims {
            grid: (1, 1, 1),
            block: 32,
            dynamic_shared_bytes: 128,
            cluster: humming_core::ir::NO_CLUSTER,
        },
        &[KernelArg::Ptr(po)],
    )
    .unwrap();
    let r: Vec<u32> = emu.download_vec(po, 96).unwrap();
    for t in 0..32 {
        assert_eq!(r[3 * t], t as u32);
        assert_eq!(
            r[3 * t + 2] % 128,
            0,
            "dynamic shared array aligned as declared"
        );
        assert!(
            r[3 * t + 2] >= r[3 * t + 1] + 12,
            "dynamic array after the static one"
        );
        assert!(
            r[3 * t + 1] >= 1024,
            "the first KiB of the shared window is unmapped"
        );
    }
    // Too little dynamic shared memory: the last threads fall off the window.
    let err = emu.launch(
        &k,
        LaunchDims {
            grid: (1, 1, 1),
            block: 32,
            dynamic_shared_bytes: 64,
            cluster: humming_core::ir::NO_CLUSTER,
        },
        &[KernelArg::Ptr(po)],
    );
    assert!(
        matches!(
            err,
            Err(humming_core::ir::emu::EmuError::SharedOutOfBounds { .. })
        ),
        "{err:?}"
    );
    // Freed memory is never handed out again, and stale pointers fault.
    let q = emu.alloc(64).unwrap();
    emu.free(q).unwrap();
    assert!(emu.free(q).is_err());
    let r = emu.alloc(64).unwrap();
    assert_ne!(q, r);
    assert!(emu.upload(q, &[0u8; 4]).is_err());
    assert!(
        emu.upload(r.offset(62), &[0u8; 4]).is_err(),
        "straddles the end of the allocation"
    );
}
