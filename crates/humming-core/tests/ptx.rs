//! The PTX printer against ptxas: every sample kernel on every target it claims, the chosen
//! `.version` (minimal, and required), typed errors for targets that lack an instruction, and
//! the text of small kernels.
//!
//! Needs ptxas (`bash scripts/setup.sh` installs it); without it these tests fail.

use humming_core::Arch;
use humming_core::ir::builder::KernelBuilder;
use humming_core::ir::ptx::{self, PtxError, PtxVersion, ptxas};
use humming_core::ir::samples::all_samples;
use humming_core::ir::{
    Addr, AtomOp, BinOp, CacheOp, Cmp, CpAsyncCache, Inst, Kernel, MmaShape, MmaType, Operand, ParamTy,
    Reg, RegClass, Rnd, ShflMode, Space, SpecialReg, Ty, UnOp,
};

fn v(major: u32, minor: u32) -> PtxVersion {
    PtxVersion::new(major, minor)
}

/// The lowest `.version` of each target.
fn base(arch: Arch) -> PtxVersion {
    match arch {
        Arch::Sm75 => v(6, 3),
        Arch::Sm80 => v(7, 0),
        Arch::Sm86 => v(7, 1),
        Arch::Sm89 | Arch::Sm90 => v(7, 8),
        Arch::Sm90a => v(8, 0),
    }
}

/// The PTX version released before `v`.
fn previous(v: PtxVersion) -> PtxVersion {
    match (v.major, v.minor) {
        (7, 0) => PtxVersion::new(6, 5),
        (8, 0) => PtxVersion::new(7, 8),
        (major, minor) => PtxVersion::new(major, minor - 1),
    }
}

fn version_line(text: &str) -> &str {
    text.lines()
        .find(|l| l.starts_with(".version "))
        .expect(".version line")
}

#[test]
fn ptxas_is_installed() {
    if let Err(e) = ptxas::locate() {
        panic!("{e}\nThe PTX tests need ptxas: run `bash scripts/setup.sh`.");
    }
}

#[test]
fn every_sample_assembles_without_spills_on_every_claimed_target() {
    let mut table = String::from("kernel                   arch    regs / spills / stack / smem\n");
    for s in all_samples() {
        let k = s.kernel();
        assert_eq!(k.name, s.name);
        for r in ptxas::assert_assembles_clean(&k, s.claims()) {
            table += &r.to_string();
        }
    }
    println!("{table}");
}

#[test]
fn every_sample_gets_the_minimal_version() {
    for s in all_samples() {
        let k = s.kernel();
        for &arch in s.claims() {
            let want = match (s.name, arch) {
                ("mma_tile_f16_sm75", Arch::Sm75) => v(6, 5),
                // createpolicy and cp.async.L2::cache_hint: PTX 7.4.
                ("cp_async_hint_copy", _) => base(arch).max(v(7, 4)),
                // mbarrier.arrive.expect_tx, cp.async.bulk, fence.mbarrier_init: PTX 8.0.
                ("bulk_copy", _) => base(arch).max(v(8, 0)),
                // barrier.cluster.arrive.release / wait.acquire: PTX 8.0.
                ("cluster_gather", _) => base(arch).max(v(8, 0)),
                _ => base(arch),
            };
            let text = ptx::print(&k, arch).unwrap();
            assert_eq!(
                version_line(&text),
                format!(".version {want}"),
                "{} on {arch}",
                s.name
            );
            assert_eq!(ptx::required_version(&k, arch).unwrap(), want);
            // One version lower, ptxas refuses it (the version is not higher than needed).
            let older = text.replacen(
                &format!(".version {want}"),
                &format!(".version {}", previous(want)),
                1,
            );
            assert!(
                matches!(
                    ptxas::assemble(&older, arch),
                    Err(ptxas::PtxasError::Failed { .. })
                ),
                "{} on {arch} assembles at {}",
                s.name,
                previous(want)
            );
        }
    }
}

#[test]
fn samples_refuse_targets_they_do_not_claim() {
    for s in all_samples() {
        let k = s.kernel();
        for arch in Arch::ALL.into_iter().filter(|a| !s.claims().contains(a)) {
            match ptx::print(&k, arch) {
                Err(PtxError::Unsupported { needs, target, .. }) => {
                    assert_eq!(target, arch);
                    assert!(needs > arch);
                }
                other => panic!("{} on {arch}: {other:?}", s.name),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Typed errors.

fn one_inst(f: impl FnOnce(&mut KernelBuilder)) -> Kernel {
    let mut b = KernelBuilder::new("k", 32);
    f(&mut b);
    b.finish()
}

fn expect_unsupported(k: &Kernel, arch: Arch, needs: Arch) -> String {
    match ptx::print(k, arch) {
        Err(PtxError::Unsupported {
            inst,
            needs: n,
            target,
        }) => {
            assert_eq!((n, target), (needs, arch), "{inst}");
            inst
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

fn cp_async_kernel() -> Kernel {
    one_inst(|b| {
        let src = b.param("src", ParamTy::Ptr);
        let s = b.shared("buf", 16, 16);
        let sa = b.shared_addr(s);
        b.cp_async(CpAsyncCache::Cg, 16, sa, src, None);
        b.cp_async_commit();
        b.cp_async_wait(0);
    })
}

fn mma_kernel(shape: MmaShape, ty: MmaType, acc: MmaType) -> Kernel {
    one_inst(|b| {
        let (na, nb) = match shape {
            MmaShape::M16N8K8 => (2, 1),
            _ => (4, 2),
        };
        let a: Vec<Reg> = (0..na).map(|_| b.mov(Ty::B32, 0u32)).collect();
        let bb: Vec<Reg> = (0..nb).map(|_| b.mov(Ty::B32, 0u32)).collect();
        let c: Vec<Reg> = (0..4).map(|_| b.mov(Ty::F32, Operand::f32(0.0))).collect();
        let d = b.mma(shape, ty, ty, acc, &a, &bb, &c);
        let out = b.param("out", ParamTy::Ptr);
        b.st_vec(Space::Global, Ty::F32, out, &d);
    })
}

fn fp8_cvt_kernel() -> Kernel {
    one_inst(|b| {
        let out = b.param("out", ParamTy::Ptr);
        let x = b.mov(Ty::F32, Operand::f32(1.5));
        let y = b.mov(Ty::F32, Operand::f32(-0.25));
        let packed = b.reg(RegClass::B16);
        b.emit(Inst::CvtPack {
            dst_ty: Ty::E4m3x2,
            satfinite: true,
            dst: packed,
            hi: x.into(),
            lo: y.into(),
        });
        let wide = b.cvt(Ty::F16x2, Ty::E4m3x2, Some(Rnd::Rn), packed);
        b.st(Space::Global, Ty::B32, out, wide);
    })
}

#[test]
fn cp_async_on_sm75_is_unsupported() {
    let k = cp_async_kernel();
    let inst = expect_unsupported(&k, Arch::Sm75, Arch::Sm80);
    assert!(inst.starts_with("cp.async"), "{inst}");
    ptxas::assert_assembles_clean(&k, &[Arch::Sm80]);
}

#[test]
fn bf16_mma_on_sm75_is_unsupported() {
    for shape in [MmaShape::M16N8K16, MmaShape::M16N8K8] {
        let k = mma_kernel(shape, MmaType::Bf16, MmaType::F32);
        expect_unsupported(&k, Arch::Sm75, Arch::Sm80);
        ptxas::assert_assembles_clean(&k, &[Arch::Sm80]);
    }
    // m16n8k16 needs sm_80 even for f16; m16n8k8 f16 is on sm_75 from PTX 6.5.
    expect_unsupported(
        &mma_kernel(MmaShape::M16N8K16, MmaType::F16, MmaType::F32),
        Arch::Sm75,
        Arch::Sm80,
    );
    let k = mma_kernel(MmaShape::M16N8K8, MmaType::F16, MmaType::F32);
    assert_eq!(ptx::required_version(&k, Arch::Sm75).unwrap(), v(6, 5));
    ptxas::assert_assembles_clean(&k, &[Arch::Sm75]);
}

#[test]
fn fp8_cvt_before_sm89_is_unsupported() {
    let k = fp8_cvt_kernel();
    for arch in [Arch::Sm75, Arch::Sm80, Arch::Sm86] {
        expect_unsupported(&k, arch, Arch::Sm89);
    }
    // FP8 conversions: PTX 8.1 on sm_89, 7.8 on sm_90 (ptxas: "... on sm_89 requires 8.1").
    assert_eq!(ptx::required_version(&k, Arch::Sm89).unwrap(), v(8, 1));
    assert_eq!(ptx::required_version(&k, Arch::Sm90).unwrap(), v(7, 8));
    assert_eq!(ptx::required_version(&k, Arch::Sm90a).unwrap(), v(8, 0));
    ptxas::assert_assembles_clean(&k, &[Arch::Sm89, Arch::Sm90, Arch::Sm90a]);
}

#[test]
fn fp8_mma_needs_sm89_and_ptx_8_4() {
    let k = mma_kernel(MmaShape::M16N8K32, MmaType::E4m3, MmaType::F32);
    expect_unsupported(&k, Arch::Sm86, Arch::Sm89);
    for arch in [Arch::Sm89, Arch::Sm90, Arch::Sm90a] {
        assert_eq!(ptx::required_version(&k, arch).unwrap(), v(8, 4));
    }
    ptxas::assert_assembles_clean(&k, &[Arch::Sm89, Arch::Sm90, Arch::Sm90a]);
}

#[test]
fn fp8_mma_with_f16_accumulators_needs_ptx_8_7() {
    let k = one_inst(|b| {
        let a: Vec<Reg> = (0..4).map(|_| b.mov(Ty::B32, 0u32)).collect();
        let c: Vec<Reg> = (0..2).map(|_| b.mov(Ty::B32, 0u32)).collect();
        let d = b.mma(
            MmaShape::M16N8K32,
            MmaType::E5m2,
            MmaType::E4m3,
            MmaType::F16,
            &a,
            &a[..2],
            &c,
        );
        let out = b.param("out", ParamTy::Ptr);
        b.st_vec(Space::Global, Ty::B32, out, &d);
    });
    expect_unsupported(&k, Arch::Sm86, Arch::Sm89);
    assert_eq!(ptx::required_version(&k, Arch::Sm89).unwrap(), v(8, 7));
    ptxas::assert_assembles_clean(&k, &[Arch::Sm89, Arch::Sm90a]);
}

#[test]
fn register_class_mismatches_are_errors() {
    // A predicate where a .b32 is needed.
    let k = one_inst(|b| {
        let p = b.setp(Cmp::Eq, Ty::U32, 0u32, 0u32);
        b.bin(BinOp::Add, Ty::U32, p, 1u32);
    });
    assert!(matches!(
        ptx::print(&k, Arch::Sm80),
        Err(PtxError::RegClass { ty: Ty::U32, .. })
    ));
    // An .f32 register in a .u32 slot.
    let k = one_inst(|b| {
        let f = b.mov(Ty::F32, Operand::f32(1.0));
        b.add(Ty::U32, f, 1u32);
    });
    assert!(matches!(
        ptx::print(&k, Arch::Sm80),
        Err(PtxError::RegClass { .. })
    ));
    // A .b64 address where ld.shared wants a 32-bit... is fine; a .b32 global address is not.
    let k = one_inst(|b| {
        let r = b.mov(Ty::U32, 0u32);
        b.ld(Space::Global, Ty::U32, r);
    });
    assert!(matches!(
        ptx::print(&k, Arch::Sm80),
        Err(PtxError::RegClass { ty: Ty::B64, .. })
    ));
    // A register the kernel never allocated.
    let k = one_inst(|b| {
        let ghost = Reg {
            id: 99,
            class: RegClass::B32,
        };
        b.add(Ty::U32, ghost, 1u32);
    });
    assert!(matches!(
        ptx::print(&k, Arch::Sm80),
        Err(PtxError::Kernel { .. })
    ));
}

#[test]
fn malformed_instructions_are_errors() {
    let invalid = |f: fn(&mut KernelBuilder)| {
        let k = one_inst(f);
        match ptx::print(&k, Arch::Sm90) {
            Err(PtxError::Invalid { .. }) => {}
            other => panic!("expected Invalid, got {other:?}"),
        }
    };
    invalid(|b| {
        b.mov(Ty::U16, 70000u32);
    });
    invalid(|b| {
        b.mov(Ty::F32, 1u32);
    });
    invalid(|b| {
        b.mov(Ty::U32, Operand::f32(1.0));
    });
    invalid(|b| {
        b.setp(Cmp::Lo, Ty::S32, 1u32, 2u32);
    });
    invalid(|b| {
        let f = b.mov(Ty::F32, Operand::f32(1.0));
        b.cvt(Ty::S32, Ty::F32, Some(Rnd::Rn), f);
    });
    invalid(|b| {
        let r = b.mov(Ty::U32, 0u32);
        b.cp_async(
            CpAsyncCache::Cg,
            8,
            r,
            Reg {
                id: 0,
                class: RegClass::B64,
            },
            None,
        );
    });
    invalid(|b| {
        let a: Vec<Reg> = (0..3).map(|_| b.mov(Ty::B32, 0u32)).collect();
        let c: Vec<Reg> = (0..4).map(|_| b.mov(Ty::F32, Operand::f32(0.0))).collect();
        b.mma(
            MmaShape::M16N8K16,
            MmaType::F16,
            MmaType::F16,
            MmaType::F32,
            &a,
            &a[..2],
            &c,
        );
    });
    invalid(|b| {
        b.emit(Inst::BarSync {
            id: 0,
            threads: Some(48),
            aligned: true,
        });
    });
}

// ---------------------------------------------------------------------------------------
// Printer text.

#[test]
fn module_header_params_registers_and_shared() {
    let mut b = KernelBuilder::new("head", 64);
    let out = b.param("out", ParamTy::Ptr);
    let n = b.param("n", ParamTy::U32);
    let s = b.shared("tile", 256, 16);
    let dynamic = b.dynamic_shared(128);
    let sa = b.shared_addr(s);
    let da = b.shared_addr(dynamic);
    b.st(
        Space::Shared,
        Ty::U32,
        humming_core::ir::Addr {
            base: Operand::SharedAddr(s),
            offset: 8,
        },
        n,
    );
    let x = b.ld(Space::Shared, Ty::U32, sa);
    b.st(Space::Shared, Ty::U32, da, x);
    b.st(Space::Global, Ty::U32, out, x);
    let k = b.finish();
    let text = ptx::print(&k, Arch::Sm86).unwrap();
    for want in [
        ".version 7.1\n.target sm_86\n.address_size 64\n",
        ".shared .align 16 .b8 tile[256];\n",
        ".extern .shared .align 128 .b8 dyn_smem[];\n",
        ".visible .entry head(\n    .param .u64 out,\n    .param .u32 n\n)\n.reqntid 64, 1, 1\n{\n",
        "    .reg .b32 %r<5>;\n    .reg .b64 %rd<1>;\n",
        "ld.param.u64 %rd0, [out];\n",
        "ld.param.u32 %r1, [n];\n",
        "mov.u32 %r2, tile;\n",
        "mov.u32 %r3, dyn_smem;\n",
        "st.shared.u32 [tile+8], %r1;\n",
        "ld.shared.u32 %r4, [%r2];\n",
        "st.global.u32 [%rd0], %r4;\n",
        "    ret;\n}\n",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    assert!(!text.contains(".reg .pred"), "{text}");
    ptxas::assert_assembles_clean(&k, &[Arch::Sm75, Arch::Sm86, Arch::Sm90a]);
}

#[test]
fn loops_test_the_bound_before_the_first_iteration() {
    let mut b = KernelBuilder::new("lp", 32);
    let out = b.param("out", ParamTy::Ptr);
    let n = b.param("n", ParamTy::U32);
    let acc = b.mov(Ty::U32, 0u32);
    b.for_range(3u32, n, 2, |b, i| {
        b.bin_to(BinOp::Add, Ty::U32, acc, acc, i)
    });
    b.st(Space::Global, Ty::U32, out, acc);
    let k = b.finish();
    let text = ptx::print(&k, Arch::Sm80).unwrap();
    // Registers: %rd0 out, %r1 n, %r2 acc, %r3 counter; the loop's predicate is %p4.
    let want = "    mov.u32 %r3, 3;
    setp.lt.u32 %p4, %r3, %r1;
    @!%p4 bra.uni $L1_end;
$L1_loop:
      add.u32 %r2, %r2, %r3;
      add.u32 %r3, %r3, 2;
      setp.lt.u32 %p4, %r3, %r1;
      @%p4 bra.uni $L1_loop;
$L1_end:
";
    assert!(text.contains(want), "{text}");
    assert!(text.contains(".reg .pred %p<5>;"), "{text}");
    ptxas::assert_assembles_clean(&k, &[Arch::Sm80]);
}

#[test]
fn signed_loops_compare_signed() {
    let mut b = KernelBuilder::new("slp", 32);
    let n = b.param("n", ParamTy::S32);
    let c = b.reg(RegClass::B32);
    b.emit(Inst::Mov {
        ty: Ty::S32,
        dst: c,
        src: Operand::Imm(0),
    });
    let mut k = b.finish();
    k.body.push(humming_core::ir::Stmt::Loop {
        counter: c,
        start: Operand::Imm(-5),
        end: Operand::Reg(n),
        step: 1,
        signed: true,
        body: vec![],
    });
    let text = ptx::print(&k, Arch::Sm80).unwrap();
    assert!(
        text.contains("mov.s32 %r1, -5;\n    setp.lt.s32 %p2, %r1, %r0;"),
        "{text}"
    );
    ptxas::assert_assembles_clean(&k, &[Arch::Sm80]);
}

#[test]
fn if_else_branches_uniformly_and_guards_print() {
    let mut b = KernelBuilder::new("br", 32);
    let out = b.param("out", ParamTy::Ptr);
    let n = b.param("n", ParamTy::U32);
    let p = b.setp(Cmp::Gt, Ty::U32, n, 7u32);
    let x = b.mov(Ty::U32, 1u32);
    b.if_else(
        p,
        |b| b.mov_to(Ty::U32, x, 2u32),
        |b| b.mov_to(Ty::U32, x, 3u32),
    );
    b.if_then(p, |b| b.mov_to(Ty::U32, x, 4u32));
    b.guarded(p, false, |b| b.st(Space::Global, Ty::U32, out, x));
    b.guarded(p, true, |b| b.st(Space::Global, Ty::U32, out, 9u32));
    let k = b.finish();
    let text = ptx::print(&k, Arch::Sm80).unwrap();
    let want = "    @!%p2 bra.uni $L1_else;
      mov.u32 %r3, 2;
    bra.uni $L1_end;
$L1_else:
      mov.u32 %r3, 3;
$L1_end:
    @!%p2 bra.uni $L2_else;
      mov.u32 %r3, 4;
$L2_else:
    @%p2 st.global.u32 [%rd0], %r3;
    @!%p2 st.global.u32 [%rd0], 9;
";
    assert!(text.contains(want), "{text}");
    ptxas::assert_assembles_clean(&k, &[Arch::Sm80]);
}

#[test]
fn immediates_print_in_ptx_syntax() {
    let k = one_inst(|b| {
        b.mov(Ty::F32, Operand::f32(1.0));
        b.mov(Ty::F64, Operand::F64(1.0f64.to_bits()));
        b.mov(Ty::U32, -1i32);
        b.mov(Ty::U32, u32::MAX);
        b.mov(Ty::B16, 0x3c00u16);
        b.mov(Ty::U64, -2i64);
        b.emit(Inst::Lop3 {
            dst: Reg {
                id: 2,
                class: RegClass::B32,
            },
            a: 1u32.into(),
            b: 2u32.into(),
            c: 3u32.into(),
            lut: 0xe8,
        });
    });
    let text = ptx::print(&k, Arch::Sm75).unwrap();
    for want in [
        "mov.f32 %f0, 0f3F800000;",
        "mov.f64 %fd1, 0d3FF0000000000000;",
        "mov.u32 %r2, -1;",
        "mov.u32 %r3, 4294967295;",
        "mov.b16 %h4, 15360;",
        "mov.u64 %rd5, -2;",
        "lop3.b32 %r2, 1, 2, 3, 0xe8;",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    ptxas::assert_assembles_clean(&k, &[Arch::Sm75]);
}

/// One of nearly every instruction form, assembled by ptxas: the printer's spelling of
/// each is accepted.
#[test]
fn every_instruction_form_assembles() {
    let build = |fancy: bool| {
        let mut b = KernelBuilder::new("forms", 128);
        let g = b.param("g", ParamTy::Ptr);
        let n = b.param("n", ParamTy::U32);
        let f = b.param("f", ParamTy::F32);
        let s = b.shared("sh", 1024, 16);
        let tid = b.special(SpecialReg::TidX);
        for sreg in [
            SpecialReg::NtidX,
            SpecialReg::CtaidY,
            SpecialReg::NctaidZ,
            SpecialReg::LaneId,
            SpecialReg::WarpId,
        ] {
            b.special(sreg);
        }
        let sa = b.shared_addr(s);
        let gx = b.index_addr(g, tid, 16);
        let v4 = b.ld_vec(Space::Global, Ty::U32, 4, gx);
        let byte = b.reg(RegClass::B16);
        b.emit(Inst::Ld {
            space: Space::Global,
            cache: CacheOp::Cg,
            ty: Ty::U8,
            dst: vec![byte],
            addr: gx.into(),
        });
        b.emit(Inst::Ld {
            space: Space::Global,
            cache: CacheOp::Cs,
            ty: Ty::S8,
            dst: vec![v4[0]],
            addr: gx.into(),
        });
        let h2 = b.ld_vec(Space::Global, Ty::F16, 2, gx);
        b.emit(Inst::St {
            space: Space::Global,
            cache: CacheOp::Wt,
            ty: Ty::U8,
            src: vec![v4[1].into()],
            addr: gx.into(),
        });
        b.st_vec(Space::Shared, Ty::U32, sa, &v4);
        let x = v4[0];
        let y = v4[1];
        for op in [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::MulHi,
            BinOp::Div,
            BinOp::Rem,
            BinOp::Min,
            BinOp::Max,
            BinOp::And,
            BinOp::Or,
            BinOp::Xor,
            BinOp::Shl,
            BinOp::Shr,
        ] {
            b.bin(op, Ty::U32, x, y);
            b.bin(op, Ty::S32, x, 3u32);
        }
        b.bin(BinOp::MulWide, Ty::S32, x, y);
        let fx = b.mov(Ty::F32, f);
        for op in [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Div,
            BinOp::Min,
            BinOp::Max,
        ] {
            b.bin(op, Ty::F32, fx, Operand::f32(2.5));
        }
        let d = b.cvt(Ty::F64, Ty::F32, None, fx);
        b.bin(BinOp::Div, Ty::F64, d, Operand::F64(3.0f64.to_bits()));
        b.bin(BinOp::Add, Ty::F16x2, y, y);
        b.bin(BinOp::Mul, Ty::F16, h2[0], h2[1]);
        let (p1, p2) = (
            b.setp(Cmp::Eq, Ty::U32, x, 1u32),
            b.setp(Cmp::Ne, Ty::U32, y, 1u32),
        );
        b.bin(BinOp::And, Ty::Pred, p1, p2);
        let wide = b.mul_wide_u32(x, y);
        b.bin(BinOp::Shr, Ty::S64, wide, 3u32);
        for op in [UnOp::Neg, UnOp::Abs] {
            b.emit(Inst::Un {
                op,
                ty: Ty::S32,
                dst: x,
                a: y.into(),
            });
            b.emit(Inst::Un {
                op,
                ty: Ty::F32,
                dst: fx,
                a: fx.into(),
            });
            b.emit(Inst::Un {
                op,
                ty: Ty::F16x2,
                dst: x,
                a: y.into(),
            });
        }
        b.emit(Inst::Un {
            op: UnOp::Not,
            ty: Ty::U32,
            dst: x,
            a: y.into(),
        });
        b.emit(Inst::Un {
            op: UnOp::Popc,
            ty: Ty::U64,
            dst: x,
            a: wide.into(),
        });
        b.emit(Inst::Fma {
            ty: Ty::F32,
            rnd: Rnd::Rz,
            dst: fx,
            a: fx.into(),
            b: fx.into(),
            c: Operand::f32(1.0),
        });
        b.emit(Inst::Fma {
            ty: Ty::F16x2,
            rnd: Rnd::Rn,
            dst: x,
            a: x.into(),
            b: y.into(),
            c: y.into(),
        });
        b.emit(Inst::Mad {
            ty: Ty::U32,
            wide: true,
            dst: wide,
            a: x.into(),
            b: y.into(),
            c: wide.into(),
        });
        b.mad(Ty::S32, x, y, 7u32);
        b.emit(Inst::Lop3 {
            dst: x,
            a: x.into(),
            b: y.into(),
            c: tid.into(),
            lut: 0x96,
        });
        b.emit(Inst::Prmt {
            dst: x,
            a: x.into(),
            b: y.into(),
            sel: 0x5410u32.into(),
        });
        b.emit(Inst::Shf {
            left: false,
            wrap: true,
            dst: x,
            lo: x.into(),
            hi: y.into(),
            shift: 5u32.into(),
        });
        b.emit(Inst::Bfe {
            ty: Ty::S32,
            dst: x,
            a: y.into(),
            pos: 4u32.into(),
            len: 8u32.into(),
        });
        let h = b.cvt(Ty::F16, Ty::F32, Some(Rnd::Rn), fx);
        b.cvt(Ty::F32, Ty::F16, None, h);
        b.cvt(Ty::S32, Ty::F32, Some(Rnd::Rni), fx);
        b.cvt(Ty::F32, Ty::U32, Some(Rnd::Rz), x);
        b.cvt(Ty::U64, Ty::U32, None, x);
        b.cvt(Ty::S32, Ty::S8, None, x);
        b.cvt(Ty::U8, Ty::U32, None, x);
        b.emit(Inst::Cvt {
            dst_ty: Ty::F32,
            src_ty: Ty::F32,
            rnd: Some(Rnd::Rmi),
            sat: true,
            dst: fx,
            src: fx.into(),
        });
        for cmp in [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge] {
            b.setp(cmp, Ty::S32, x, y);
            b.setp(cmp, Ty::F32, fx, Operand::f32(0.0));
        }
        for cmp in [Cmp::Lo, Cmp::Ls, Cmp::Hi, Cmp::Hs] {
            b.setp(cmp, Ty::U32, x, n);
        }
        b.setp(Cmp::Ne, Ty::B32, x, 0u32);
        let p = b.setp(Cmp::Lt, Ty::F16, h, h2[0]);
        b.selp(Ty::F32, fx, Operand::f32(-1.0), p);
        b.selp(Ty::F16, h, h2[1], p);
        b.shfl(ShflMode::Up, x, 1u32, 0u32, 0xffff_ffff);
        b.shfl(ShflMode::Down, fx, 2u32, 0x1fu32, 0xffff_ffff);
        b.shfl(ShflMode::Idx, x, y, 0x1fu32, 0x0000_ffff);
        b.emit(Inst::BarSync {
            id: 1,
            threads: Some(64),
            aligned: true,
        });
        b.bar_sync(0);
        let r = b.reg(RegClass::B32);
        b.emit(Inst::Atom {
            space: Space::Global,
            op: AtomOp::Add,
            ty: Ty::U32,
            dst: r,
            addr: gx.into(),
            b: 1u32.into(),
            c: None,
        });
        b.emit(Inst::Atom {
            space: Space::Shared,
            op: AtomOp::Cas,
            ty: Ty::U32,
            dst: r,
            addr: sa.into(),
            b: x.into(),
            c: Some(y.into()),
        });
        b.emit(Inst::Atom {
            space: Space::Global,
            op: AtomOp::Exch,
            ty: Ty::F32,
            dst: fx,
            addr: gx.into(),
            b: fx.into(),
            c: None,
        });
        b.emit(Inst::Atom {
            space: Space::Global,
            op: AtomOp::Max,
            ty: Ty::S32,
            dst: r,
            addr: gx.into(),
            b: x.into(),
            c: None,
        });
        b.emit(Inst::Atom {
            space: Space::Global,
            op: AtomOp::Add,
            ty: Ty::F16x2,
            dst: r,
            addr: gx.into(),
            b: x.into(),
            c: None,
        });
        b.emit(Inst::Red {
            space: Space::Global,
            op: AtomOp::Add,
            ty: Ty::F32,
            addr: gx.into(),
            b: fx.into(),
        });
        b.emit(Inst::Red {
            space: Space::Shared,
            op: AtomOp::Xor,
            ty: Ty::B32,
            addr: sa.into(),
            b: x.into(),
        });
        b.emit(Inst::Red {
            space: Space::Global,
            op: AtomOp::Add,
            ty: Ty::F16,
            addr: gx.into(),
            b: h.into(),
        });
        b.ldmatrix(1, false, sa);
        b.ldmatrix(4, true, sa);
        if fancy {
            b.cp_async(CpAsyncCache::Ca, 4, sa, gx, Some(Operand::Imm(2)));
            b.cp_async(
                CpAsyncCache::Ca,
                8,
                humming_core::ir::Addr {
                    base: Operand::SharedAddr(s),
                    offset: 64,
                },
                humming_core::ir::Addr::reg_off(gx, 32),
                None,
            );
            b.cp_async_commit();
            b.cp_async_wait(0);
            b.bin(BinOp::Max, Ty::Bf16x2, x, y);
            b.emit(Inst::Fma {
                ty: Ty::Bf16,
                rnd: Rnd::Rn,
                dst: h,
                a: h.into(),
                b: h.into(),
                c: h.into(),
            });
            b.emit(Inst::Un {
                op: UnOp::Neg,
                ty: Ty::Bf16,
                dst: h,
                a: h.into(),
            });
            b.emit(Inst::CvtPack {
                dst_ty: Ty::Bf16x2,
                satfinite: false,
                dst: x,
                hi: fx.into(),
                lo: Operand::f32(2.0),
            });
            b.emit(Inst::CvtPack {
                dst_ty: Ty::F16x2,
                satfinite: true,
                dst: x,
                hi: fx.into(),
                lo: fx.into(),
            });
            let bh = b.cvt(Ty::Bf16, Ty::F32, Some(Rnd::Rn), fx);
            b.cvt(Ty::F32, Ty::Bf16, None, bh);
            let a: Vec<Reg> = (0..4).map(|_| b.mov(Ty::B32, x)).collect();
            let acc: Vec<Reg> = (0..4).map(|_| b.mov(Ty::S32, 0u32)).collect();
            b.mma(
                MmaShape::M16N8K64,
                MmaType::S4,
                MmaType::U4,
                MmaType::S32,
                &a,
                &a[..2],
                &acc,
            );
            b.mma(
                MmaShape::M16N8K32,
                MmaType::U8,
                MmaType::S8,
                MmaType::S32,
                &a,
                &a[..2],
                &acc,
            );
            let c2: Vec<Reg> = (0..2).map(|_| b.mov(Ty::B32, 0u32)).collect();
            b.mma(
                MmaShape::M16N8K16,
                MmaType::F16,
                MmaType::F16,
                MmaType::F16,
                &a,
                &a[..2],
                &c2,
            );
        }
        let c2: Vec<Reg> = (0..2).map(|_| b.mov(Ty::S32, 0u32)).collect();
        b.mma(
            MmaShape::M8N8K16,
            MmaType::S8,
            MmaType::U8,
            MmaType::S32,
            &[x],
            &[y],
            &c2,
        );
        b.mma(
            MmaShape::M8N8K32,
            MmaType::U4,
            MmaType::U4,
            MmaType::S32,
            &[x],
            &[y],
            &c2,
        );
        b.st(Space::Global, Ty::U32, gx, x);
        b.ret();
        b.finish()
    };
    let report = ptxas::assert_assembles_clean(&build(false), &[Arch::Sm75]);
    assert_eq!(report[0].entries[0].shared_bytes, 1024);
    assert_eq!(
        ptx::required_version(&build(false), Arch::Sm75).unwrap(),
        v(6, 5)
    );
    let fancy = build(true);
    assert_eq!(ptx::required_version(&fancy, Arch::Sm80).unwrap(), v(8, 1));
    ptxas::assert_assembles_clean(&fancy, &[Arch::Sm80, Arch::Sm90a]);
}

#[test]
fn bf16_arithmetic_and_conversions_need_sm90() {
    let k = one_inst(|b| {
        let x = b.mov(Ty::B16, 0u32);
        b.bin(BinOp::Add, Ty::Bf16, x, x);
        b.cvt(Ty::F16, Ty::Bf16, Some(Rnd::Rn), x);
        b.setp(Cmp::Lt, Ty::Bf16, x, x);
    });
    expect_unsupported(&k, Arch::Sm89, Arch::Sm90);
    assert_eq!(ptx::required_version(&k, Arch::Sm90).unwrap(), v(7, 8));
    ptxas::assert_assembles_clean(&k, &[Arch::Sm90, Arch::Sm90a]);
}

/// `bar.sync` is the aligned barrier (every thread at this one instruction); `barrier.sync`
/// the one that warps may reach from different instructions: here a producer warp and the
/// others from the two branches of an if, on every target (PTX 6.0, in every module we print).
#[test]
fn aligned_and_unaligned_barriers_print_and_assemble() {
    let mut b = KernelBuilder::new("k", 128);
    let tid = b.special(SpecialReg::TidX);
    let producer = b.setp(Cmp::Ge, Ty::U32, tid, 96u32);
    b.emit(Inst::BarSync { id: 0, threads: None, aligned: true });
    let both = Inst::BarSync { id: 2, threads: Some(128), aligned: false };
    b.if_else(producer, |b| b.emit(both.clone()), |b| b.emit(both.clone()));
    let k = b.finish();
    for arch in [Arch::Sm75, Arch::Sm90] {
        let text = ptx::print(&k, arch).unwrap();
        assert!(text.contains("bar.sync 0;") && text.matches("barrier.sync 2, 128;").count() == 2, "{text}");
        assert_eq!(ptx::required_version(&k, arch).unwrap(), base(arch));
    }
    ptxas::assert_assembles_clean(&k, &[Arch::Sm75, Arch::Sm90]);
    let bad = one_inst(|b| b.emit(Inst::BarSync { id: 16, threads: None, aligned: false }));
    assert!(matches!(ptx::print(&bad, Arch::Sm90), Err(PtxError::Invalid { .. })));
}

#[test]
fn setmaxnreg_needs_sm90a_and_prints_maxnreg() {
    let build = |count: u32| {
        let mut b = KernelBuilder::new("k", 256);
        b.set_max_regs(128);
        let tid = b.special(SpecialReg::TidX);
        let producer = b.setp(Cmp::Ge, Ty::U32, tid, 128u32);
        b.if_else(
            producer,
            |b| b.emit(Inst::SetMaxNReg { inc: false, count: 40 }),
            |b| b.emit(Inst::SetMaxNReg { inc: true, count }),
        );
        b.finish()
    };
    let k = build(216);
    expect_unsupported(&k, Arch::Sm90, Arch::Sm90a);
    assert_eq!(ptx::required_version(&k, Arch::Sm90a).unwrap(), v(8, 0));
    let text = ptx::print(&k, Arch::Sm90a).unwrap();
    assert!(text.contains(".maxnreg 128") && text.contains("setmaxnreg.inc.sync.aligned.u32 216;"), "{text}");
    ptxas::assert_assembles_clean(&k, &[Arch::Sm90a]);
    for bad in [20, 100, 264] {
        assert!(matches!(ptx::print(&build(bad), Arch::Sm90a), Err(PtxError::Invalid { .. })), "count {bad}");
    }
}

#[test]
fn elect_sync_needs_sm90() {
    let k = one_inst(|b| {
        let p = b.elect_sync();
        let s = b.shared("s", 4, 4);
        let a = b.shared_addr(s);
        b.guarded(p, false, |b| b.st(Space::Shared, Ty::U32, Addr::reg(a), 1u32));
    });
    expect_unsupported(&k, Arch::Sm89, Arch::Sm90);
    assert_eq!(ptx::required_version(&k, Arch::Sm90).unwrap(), v(8, 0));
    assert!(ptx::print(&k, Arch::Sm90).unwrap().contains("elect.sync _|%p"));
    ptxas::assert_assembles_clean(&k, &[Arch::Sm90, Arch::Sm90a]);
}

#[test]
fn cluster_instructions_need_sm90() {
    let k = one_inst(|b| {
        let s = b.shared("s", 16, 16);
        let a = b.shared_addr(s);
        let r = b.special(SpecialReg::ClusterCtaRank);
        b.emit(Inst::ClusterSync);
        let peer = b.reg(RegClass::B32);
        b.emit(Inst::Mapa { dst: peer, addr: a, rank: r.into() });
        let x = b.reg(RegClass::F32);
        b.emit(Inst::LdCluster { ty: Ty::F32, dst: vec![x], addr: peer.into() });
    });
    expect_unsupported(&k, Arch::Sm89, Arch::Sm90);
    assert_eq!(ptx::required_version(&k, Arch::Sm90).unwrap(), v(8, 0));
    ptxas::assert_assembles_clean(&k, &[Arch::Sm90, Arch::Sm90a]);
    // barrier.cluster takes no guard.
    let guarded = one_inst(|b| {
        let p = b.setp(Cmp::Eq, Ty::U32, 0u32, 0u32);
        b.guarded(p, false, |b| b.emit(Inst::ClusterSync));
    });
    assert!(matches!(ptx::print(&guarded, Arch::Sm90), Err(PtxError::Invalid { .. })));
}
