//! Semantics of the emulator, instruction family by instruction family, against references
//! written independently in the tests (from the PTX ISA text).

mod emu_util;

use emu_util::{Rng, emit_to, lanes_op, try_lanes_op};
use humming_core::ir::{BinOp, Cmp, Inst, Operand, Rnd, Ty, UnOp};

fn bin(op: BinOp, ty: Ty, out_ty: Ty, a: &[u64], bv: &[u64]) -> Vec<u64> {
    lanes_op(&[ty, ty], &[a.to_vec(), bv.to_vec()], out_ty, |b, r| {
        b.bin(op, ty, r[0], r[1])
    })
}

fn shift(op: BinOp, ty: Ty, a: &[u64], s: &[u64]) -> Vec<u64> {
    lanes_op(&[ty, Ty::U32], &[a.to_vec(), s.to_vec()], ty, |b, r| {
        b.bin(op, ty, r[0], r[1])
    })
}

fn m(bits: u32) -> u64 {
    if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

fn sx(v: u64, bits: u32) -> i128 {
    let s = 128 - bits;
    ((v as i128) << s) >> s
}

/// Values that stress wrap-around: extremes plus random.
fn edge_vals(rng: &mut Rng, bits: u32) -> Vec<u64> {
    let mk = m(bits);
    let mut v = vec![0, 1, mk, mk >> 1, (mk >> 1) + 1, 2, mk - 1, 7];
    while v.len() < 32 {
        v.push(rng.next() & mk);
    }
    v
}

#[test]
fn integer_arithmetic_wraps_at_width() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for ty in [Ty::U16, Ty::S16, Ty::U32, Ty::S32, Ty::U64, Ty::S64] {
        let bits = ty.bits();
        let signed = ty.is_signed_int();
        let a = edge_vals(&mut rng, bits);
        let mut bv = edge_vals(&mut rng, bits);
        bv.reverse();
        let val = |x: u64| if signed { sx(x, bits) } else { x as i128 };
        let wrap = |x: i128| (x as u128 as u64) & m(bits);
        let add = bin(BinOp::Add, ty, ty, &a, &bv);
        let sub = bin(BinOp::Sub, ty, ty, &a, &bv);
        let mul = bin(BinOp::Mul, ty, ty, &a, &bv);
        let hi = bin(BinOp::MulHi, ty, ty, &a, &bv);
        let min = bin(BinOp::Min, ty, ty, &a, &bv);
        let max = bin(BinOp::Max, ty, ty, &a, &bv);
        for i in 0..32 {
            let (x, y) = (val(a[i]), val(bv[i]));
            assert_eq!(add[i], wrap(x + y), "add.{ty} {x} {y}");
            assert_eq!(sub[i], wrap(x - y), "sub.{ty}");
            assert_eq!(mul[i], wrap(x.wrapping_mul(y)), "mul.lo.{ty}");
            // mul.hi: the upper half of the double-width product.
            let p = if bits == 64 {
                // 128-bit product of 64-bit values: compute with u128/i128 limbs.
                if signed {
                    let p = (x as i64 as i128) * (y as i64 as i128);
                    (p >> 64) as u64
                } else {
                    ((a[i] as u128 * bv[i] as u128) >> 64) as u64
                }
            } else {
                wrap((x * y) >> bits)
            };
            assert_eq!(hi[i], p, "mul.hi.{ty} {x} {y}");
            assert_eq!(min[i], wrap(x.min(y)), "min.{ty}");
            assert_eq!(max[i], wrap(x.max(y)), "max.{ty}");
        }
        // div/rem with a non-zero divisor; PTX truncates toward zero like Rust.
        let nz: Vec<u64> = bv.iter().map(|&y| if y == 0 { 3 } else { y }).collect();
        let div = bin(BinOp::Div, ty, ty, &a, &nz);
        let rem = bin(BinOp::Rem, ty, ty, &a, &nz);
        for i in 0..32 {
            let (x, y) = (val(a[i]), val(nz[i]));
            let (q, r) = if signed && x == -(1i128 << (bits - 1)) && y == -1 {
                (x, 0)
            } else {
                (x / y, x % y)
            };
            assert_eq!(div[i], wrap(q), "div.{ty} {x} {y}");
            assert_eq!(rem[i], wrap(r), "rem.{ty} {x} {y}");
        }
    }
}

#[test]
fn mul_wide_and_mad() {
    let mut rng = Rng(99);
    for (ty, wide) in [
        (Ty::U16, Ty::U32),
        (Ty::S16, Ty::S32),
        (Ty::U32, Ty::U64),
        (Ty::S32, Ty::S64),
    ] {
        let bits = ty.bits();
        let a = edge_vals(&mut rng, bits);
        let bv = rng.vec(32, m(bits));
        let c = rng.vec(32, m(2 * bits));
        let got = lanes_op(&[ty, ty], &[a.clone(), bv.clone()], wide, |b, r| {
            b.bin(BinOp::MulWide, ty, r[0], r[1])
        });
        let mad = lanes_op(
            &[ty, ty, wide],
            &[a.clone(), bv.clone(), c.clone()],
            wide,
            |b, r| {
                emit_to(b, wide, |d| Inst::Mad {
                    ty,
                    wide: true,
                    dst: d,
                    a: r[0].into(),
                    b: r[1].into(),
                    c: r[2].into(),
                })
            },
        );
        let madlo = lanes_op(
            &[ty, ty, ty],
            &[a.clone(), bv.clone(), bv.clone()],
            ty,
            |b, r| {
                emit_to(b, ty, |d| Inst::Mad {
                    ty,
                    wide: false,
                    dst: d,
                    a: r[0].into(),
                    b: r[1].into(),
                    c: r[2].into(),
                })
            },
        );
        for i in 0..32 {
            let (x, y) = if ty.is_signed_int() {
                (sx(a[i], bits), sx(bv[i], bits))
            } else {
                (a[i] as i128, bv[i] as i128)
            };
            let p = (x * y) as u128 as u64 & m(2 * bits);
            assert_eq!(got[i], p, "mul.wide.{ty}");
            assert_eq!(mad[i], p.wrapping_add(c[i]) & m(2 * bits), "mad.wide.{ty}");
            assert_eq!(
                madlo[i],
                ((x * y) as u128 as u64).wrapping_add(bv[i]) & m(bits),
                "mad.lo.{ty}"
            );
        }
    }
}

#[test]
fn shifts_clamp_amounts_at_the_width() {
    let mut rng = Rng(7);
    let amounts: Vec<u64> = (0..32)
        .map(|i| [0, 1, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200, 1 << 20][i % 14])
        .collect();
    for ty in [
        Ty::B16,
        Ty::B32,
        Ty::B64,
        Ty::U16,
        Ty::U32,
        Ty::U64,
        Ty::S16,
        Ty::S32,
        Ty::S64,
    ] {
        let bits = ty.bits();
        let a = edge_vals(&mut rng, bits);
        if !ty.is_signed_int() {
            let shl = shift(BinOp::Shl, ty, &a, &amounts);
            for i in 0..32 {
                let want = if amounts[i] >= bits as u64 {
                    0
                } else {
                    (a[i] << amounts[i]) & m(bits)
                };
                assert_eq!(shl[i], want, "shl.{ty} {:#x} {}", a[i], amounts[i]);
            }
        }
        let shr = shift(BinOp::Shr, ty, &a, &amounts);
        for i in 0..32 {
            let s = amounts[i].min(127) as u32;
            let want = if ty.is_signed_int() {
                let v = sx(a[i], bits);
                (if s >= bits {
                    if v < 0 { -1 } else { 0 }
                } else {
                    v >> s
                }) as u128 as u64
                    & m(bits)
            } else if s >= bits {
                0
            } else {
                a[i] >> s
            };
            assert_eq!(shr[i], want, "shr.{ty} {:#x} {}", a[i], amounts[i]);
        }
    }
}

#[test]
fn logic_not_popc_neg_abs() {
    let mut rng = Rng(3);
    for ty in [Ty::B16, Ty::B32, Ty::B64] {
        let bits = ty.bits();
        let a = edge_vals(&mut rng, bits);
        let bv = rng.vec(32, m(bits));
        let and = bin(BinOp::And, ty, ty, &a, &bv);
        let or = bin(BinOp::Or, ty, ty, &a, &bv);
        let xor = bin(BinOp::Xor, ty, ty, &a, &bv);
        let not = lanes_op(&[ty], std::slice::from_ref(&a), ty, |b, r| {
            emit_to(b, ty, |d| Inst::Un {
                op: UnOp::Not,
                ty,
                dst: d,
                a: r[0].into(),
            })
        });
        for i in 0..32 {
            assert_eq!(and[i], a[i] & bv[i]);
            assert_eq!(or[i], a[i] | bv[i]);
            assert_eq!(xor[i], a[i] ^ bv[i]);
            assert_eq!(not[i], !a[i] & m(bits));
        }
        if bits >= 32 {
            let popc = lanes_op(&[ty], std::slice::from_ref(&a), Ty::U32, |b, r| {
                emit_to(b, Ty::U32, |d| Inst::Un {
                    op: UnOp::Popc,
                    ty,
                    dst: d,
                    a: r[0].into(),
                })
            });
            for i in 0..32 {
                assert_eq!(popc[i], a[i].count_ones() as u64);
            }
        }
    }
    for ty in [Ty::S16, Ty::S32, Ty::S64] {
        let bits = ty.bits();
        let a = edge_vals(&mut rng, bits);
        let neg = lanes_op(&[ty], std::slice::from_ref(&a), ty, |b, r| {
            emit_to(b, ty, |d| Inst::Un {
                op: UnOp::Neg,
                ty,
                dst: d,
                a: r[0].into(),
            })
        });
        let abs = lanes_op(&[ty], std::slice::from_ref(&a), ty, |b, r| {
            emit_to(b, ty, |d| Inst::Un {
                op: UnOp::Abs,
                ty,
                dst: d,
                a: r[0].into(),
            })
        });
        for i in 0..32 {
            let v = sx(a[i], bits);
            assert_eq!(neg[i], (-v) as u128 as u64 & m(bits), "neg.{ty} {v}");
            assert_eq!(abs[i], v.unsigned_abs() as u64 & m(bits), "abs.{ty} {v}");
        }
    }
}

/// bfe straight from the ISA's pseudocode, bit by bit, on i128.
fn bfe_ref(a: u64, pos: u64, len: u64, bits: u32, signed: bool) -> u64 {
    let pos = (pos & 0xff) as u32;
    let len = (len & 0xff) as u32;
    let bit = |i: u32| (a >> i) & 1;
    let sbit = if !signed || len == 0 {
        0
    } else {
        bit((pos + len - 1).min(bits - 1))
    };
    (0..bits).fold(0, |d, i| {
        d | (if i < len && pos + i < bits {
            bit(pos + i)
        } else {
            sbit
        }) << i
    })
}

#[test]
fn bfe_all_types_and_edges() {
    let mut rng = Rng(11);
    for ty in [Ty::U32, Ty::S32, Ty::U64, Ty::S64] {
        let bits = ty.bits();
        for round in 0..4 {
            let a = rng.vec(32, m(bits));
            let pos: Vec<u64> = (0..32)
                .map(|i| match (round, i % 4) {
                    (0, _) => i as u64 * 3 % 70,
                    (_, 0) => 0,
                    (_, 1) => bits as u64 - 1,
                    (_, 2) => 256 + 4, // only the low 8 bits count
                    _ => rng.next() % 80,
                })
                .collect();
            let len: Vec<u64> = (0..32)
                .map(|i| match (round, i % 5) {
                    (1, _) => 0,
                    (_, 0) => 0,
                    (_, 1) => bits as u64,
                    (_, 2) => 300, // & 0xff = 44
                    (_, 3) => 1,
                    _ => rng.next() % 70,
                })
                .collect();
            let got = lanes_op(
                &[ty, Ty::U32, Ty::U32],
                &[a.clone(), pos.clone(), len.clone()],
                ty,
                |b, r| {
                    emit_to(b, ty, |d| Inst::Bfe {
                        ty,
                        dst: d,
                        a: r[0].into(),
                        pos: r[1].into(),
                        len: r[2].into(),
                    })
                },
            );
            for i in 0..32 {
                assert_eq!(
                    got[i],
                    bfe_ref(a[i], pos[i], len[i], bits, ty.is_signed_int()),
                    "bfe.{ty} a={:#x} pos={} len={}",
                    a[i],
                    pos[i],
                    len[i]
                );
            }
        }
    }
}

#[test]
fn prmt_selectors() {
    let a: Vec<u64> = (0..32)
        .map(|i| 0x8372_f1a0u64.rotate_left(i) & 0xffff_ffff)
        .collect();
    let bv: Vec<u64> = (0..32)
        .map(|i| (0x14c5_e6b7u64 ^ (i * 0x0101_0101)) & 0xffff_ffff)
        .collect();
    // Selector nibbles: byte index in {b, a} (a = bytes 0..3), bit 3 replicates the sign.
    for sel in [
        0x3210u64, 0x7654, 0x0123, 0x4444, 0x5140, 0x8888, 0xba98, 0x1c3e, 0xfedc, 0x0f0f,
    ] {
        let got = lanes_op(
            &[Ty::B32, Ty::B32],
            &[a.clone(), bv.clone()],
            Ty::B32,
            |b, r| {
                emit_to(b, Ty::B32, |d| Inst::Prmt {
                    dst: d,
                    a: r[0].into(),
                    b: r[1].into(),
                    sel: Operand::Imm(sel as i64),
                })
            },
        );
        for i in 0..32 {
            let bytes: Vec<u8> = a[i].to_le_bytes()[..4]
                .iter()
                .chain(&bv[i].to_le_bytes()[..4])
                .copied()
                .collect();
            let mut want = [0u8; 4];
            for (k, w) in want.iter_mut().enumerate() {
                let s = (sel >> (4 * k)) & 0xf;
                let byte = bytes[(s & 7) as usize];
                *w = if s & 8 != 0 {
                    ((byte as i8) >> 7) as u8
                } else {
                    byte
                };
            }
            assert_eq!(got[i], u32::from_le_bytes(want) as u64, "prmt sel {sel:#x}");
        }
    }
}

#[test]
fn lop3_luts_match_their_formulas() {
    let mut rng = Rng(5);
    let x = rng.vec(32, 0xffff_ffff);
    let y = rng.vec(32, 0xffff_ffff);
    let z = rng.vec(32, 0xffff_ffff);
    // The LUT of f is f(0xF0, 0xCC, 0xAA).
    type F = fn(u64, u64, u64) -> u64;
    let cases: [(&str, F); 7] = [
        ("a&b", |a, b, _| a & b),
        ("a^b^c", |a, b, c| a ^ b ^ c),
        ("maj", |a, b, c| (a & b) | (a & c) | (b & c)),
        ("a?b:c", |a, b, c| (a & b) | (!a & c)),
        ("(a&b)^c", |a, b, c| (a & b) ^ c),
        ("~(a|b)&c", |a, b, c| !(a | b) & c),
        ("a|b|c", |a, b, c| a | b | c),
    ];
    for (name, f) in cases {
        let lut = (f(0xf0, 0xcc, 0xaa) & 0xff) as u8;
        let got = lanes_op(
            &[Ty::B32, Ty::B32, Ty::B32],
            &[x.clone(), y.clone(), z.clone()],
            Ty::B32,
            |b, r| {
                emit_to(b, Ty::B32, |d| Inst::Lop3 {
                    dst: d,
                    a: r[0].into(),
                    b: r[1].into(),
                    c: r[2].into(),
                    lut,
                })
            },
        );
        for i in 0..32 {
            assert_eq!(
                got[i],
                f(x[i], y[i], z[i]) & 0xffff_ffff,
                "lop3 {name} lut {lut:#x}"
            );
        }
    }
}

#[test]
fn shf_wrap_and_clamp() {
    let mut rng = Rng(8);
    let lo = rng.vec(32, 0xffff_ffff);
    let hi = rng.vec(32, 0xffff_ffff);
    let sh: Vec<u64> = (0..32)
        .map(|i| [0, 1, 4, 16, 31, 32, 33, 40, 63, 64, 100, 0xffff_ffff][i % 12])
        .collect();
    for (left, wrap) in [(true, true), (true, false), (false, true), (false, false)] {
        let got = lanes_op(
            &[Ty::B32, Ty::B32, Ty::U32],
            &[lo.clone(), hi.clone(), sh.clone()],
            Ty::B32,
            |b, r| {
                emit_to(b, Ty::B32, |d| Inst::Shf {
                    left,
                    wrap,
                    dst: d,
                    lo: r[0].into(),
                    hi: r[1].into(),
                    shift: r[2].into(),
                })
            },
        );
        for i in 0..32 {
            let n = if wrap { sh[i] % 32 } else { sh[i].min(32) };
            let x = ((hi[i] as u128) << 32) | lo[i] as u128;
            let want = if left {
                ((x << n) >> 32) as u64 & 0xffff_ffff
            } else {
                (x >> n) as u64 & 0xffff_ffff
            };
            assert_eq!(got[i], want, "shf left={left} wrap={wrap} n={}", sh[i]);
        }
    }
}

fn cvt(dst_ty: Ty, src_ty: Ty, rnd: Option<Rnd>, sat: bool, vals: &[u64]) -> Vec<u64> {
    let mut v = vals.to_vec();
    v.resize(32, 0);
    // Packed FP8 pairs travel as .b16, f16x2 as .b32.
    let io = |t: Ty| match t {
        Ty::E4m3x2 | Ty::E5m2x2 => Ty::B16,
        Ty::F16x2 | Ty::Bf16x2 => Ty::B32,
        t => t,
    };
    lanes_op(&[io(src_ty)], &[v], io(dst_ty), |b, r| {
        emit_to(b, dst_ty, |d| Inst::Cvt {
            dst_ty,
            src_ty,
            rnd,
            sat,
            dst: d,
            src: r[0].into(),
        })
    })
}

fn f32s(v: &[f32]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits() as u64).collect()
}

#[test]
fn cvt_float_to_half_rounds_ties_to_even() {
    let two = |e: i32| 2f32.powi(e);
    let vals = [
        1.0 + two(-11),            // tie between 1 and 1+2^-10: even is 1
        1.0 + 3.0 * two(-11),      // tie between 1+2^-10 and 1+2^-9: even is 1+2^-9
        1.0 + two(-11) + two(-20), // just above the tie
        -(1.0 + two(-11)),
        65504.0,
        65519.0,        // rounds to 65504
        65520.0,        // tie at the overflow threshold: rounds to inf
        1e-8,           // below half the smallest subnormal -> 0
        3.0 * two(-26), // 0.75 * 2^-24 -> 2^-24
        f32::NAN,
        f32::INFINITY,
        -0.0,
    ];
    let got = cvt(Ty::F16, Ty::F32, Some(Rnd::Rn), false, &f32s(&vals));
    let want = [
        0x3c00, 0x3c02, 0x3c01, 0xbc00, 0x7bff, 0x7bff, 0x7c00, 0, 1, 0x7fff, 0x7c00, 0x8000,
    ];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(got[i], *w, "cvt.rn.f16.f32 {}", vals[i]);
    }
    // .rz truncates: 65519 -> 65504, 1e6 -> max finite (not inf), 1+2^-11 -> 1.
    let got = cvt(
        Ty::F16,
        Ty::F32,
        Some(Rnd::Rz),
        false,
        &f32s(&[65519.0, 1e6, 1.0 + two(-11), -1.9999]),
    );
    assert_eq!(&got[..4], &[0x7bff, 0x7bff, 0x3c00, 0xbfff]);
    // bf16: 1 + 2^-8 is the tie between 1 and 1 + 2^-7.
    let got = cvt(
        Ty::Bf16,
        Ty::F32,
        Some(Rnd::Rn),
        false,
        &f32s(&[1.0 + two(-8), 1.0 + 3.0 * two(-8), -3.0e38]),
    );
    assert_eq!(
        &got[..3],
        &[
            0x3f80,
            0x3f82,
            half::bf16::from_f32(-3.0e38).to_bits() as u64
        ]
    );
    // Against half's correctly rounded conversion on random values.
    let mut rng = Rng(21);
    let v: Vec<u64> = (0..32)
        .map(|_| rng.next() & 0xffff_ffff)
        .filter(|&b| !f32::from_bits(b as u32).is_nan())
        .take(32)
        .collect();
    let h = cvt(Ty::F16, Ty::F32, Some(Rnd::Rn), false, &v);
    let bh = cvt(Ty::Bf16, Ty::F32, Some(Rnd::Rn), false, &v);
    for i in 0..v.len() {
        let f = f32::from_bits(v[i] as u32);
        assert_eq!(h[i], half::f16::from_f32(f).to_bits() as u64);
        assert_eq!(bh[i], half::bf16::from_f32(f).to_bits() as u64);
    }
    // Widening is exact.
    let got = cvt(
        Ty::F32,
        Ty::F16,
        None,
        false,
        &[0x3c01, 0x0001, 0xfbff, 0x7c00],
    );
    assert_eq!(
        &got[..4],
        &f32s(&[1.0 + two(-10), two(-24), -65504.0, f32::INFINITY])
    );
    let got = cvt(Ty::F32, Ty::Bf16, None, false, &[0x3f81, 0xc2f7]);
    assert_eq!(&got[..2], &f32s(&[1.0 + two(-7), -123.5]));
    let got = cvt(Ty::F64, Ty::F32, None, false, &f32s(&[0.1]));
    assert_eq!(got[0], (0.1f32 as f64).to_bits());
    let got = cvt(
        Ty::F32,
        Ty::F64,
        Some(Rnd::Rn),
        false,
        &[0.1f64.to_bits(), 1e300f64.to_bits()],
    );
    assert_eq!(&got[..2], &f32s(&[0.1, f32::INFINITY]));
    let got = cvt(
        Ty::F32,
        Ty::F64,
        Some(Rnd::Rz),
        false,
        &[0.1f64.to_bits(), 1e300f64.to_bits()],
    );
    assert_eq!(
        got[0],
        f32::from_bits(0.1f32.to_bits() - 1).to_bits() as u64
    ); // 0.1f32 rounds up
    assert_eq!(got[1], f32::MAX.to_bits() as u64);
}

#[test]
fn cvt_float_to_int_rounds_and_saturates() {
    let vals = [
        2.5f32,
        -2.5,
        3.5,
        -3.7,
        0.49,
        1e10,
        -1e10,
        f32::NAN,
        f32::INFINITY,
        -0.0,
        2147483520.0,
    ];
    let v = f32s(&vals);
    let rni = cvt(Ty::S32, Ty::F32, Some(Rnd::Rni), false, &v);
    let rzi = cvt(Ty::S32, Ty::F32, Some(Rnd::Rzi), false, &v);
    let rmi = cvt(Ty::S32, Ty::F32, Some(Rnd::Rmi), false, &v);
    let rpi = cvt(Ty::S32, Ty::F32, Some(Rnd::Rpi), false, &v);
    let s = |x: i32| x as u32 as u64;
    let max = i32::MAX;
    let min = i32::MIN;
    assert_eq!(
        &rni[..11],
        &[2, -2, 4, -4, 0, max, min, 0, max, 0, 2147483520].map(s)
    );
    assert_eq!(
        &rzi[..11],
        &[2, -2, 3, -3, 0, max, min, 0, max, 0, 2147483520].map(s)
    );
    assert_eq!(
        &rmi[..11],
        &[2, -3, 3, -4, 0, max, min, 0, max, 0, 2147483520].map(s)
    );
    assert_eq!(
        &rpi[..11],
        &[3, -2, 4, -3, 1, max, min, 0, max, 0, 2147483520].map(s)
    );
    // Unsigned and narrow destinations clamp; NaN is 0 for f32 sources.
    let u8s = cvt(
        Ty::U8,
        Ty::F32,
        Some(Rnd::Rni),
        false,
        &f32s(&[300.0, -5.0, 254.5, f32::NAN]),
    );
    assert_eq!(&u8s[..4], &[255, 0, 254, 0]);
    let s16 = cvt(
        Ty::S16,
        Ty::F32,
        Some(Rnd::Rzi),
        false,
        &f32s(&[40000.0, -40000.0, -1.5]),
    );
    assert_eq!(&s16[..3], &[0x7fff, 0x8000, 0xffff]);
    // NaN -> 1 << (bits - 1) when the source is f64 or the destination 64-bit.
    let d = cvt(
        Ty::S64,
        Ty::F64,
        Some(Rnd::Rzi),
        false,
        &[f64::NAN.to_bits(), 1e30f64.to_bits(), (-7.9f64).to_bits()],
    );
    assert_eq!(&d[..3], &[1 << 63, i64::MAX as u64, (-7i64) as u64]);
    let d = cvt(
        Ty::U32,
        Ty::F64,
        Some(Rnd::Rzi),
        false,
        &[f64::NAN.to_bits(), (-1.0f64).to_bits()],
    );
    assert_eq!(&d[..2], &[1 << 31, 0]);
    let d = cvt(
        Ty::U64,
        Ty::F32,
        Some(Rnd::Rzi),
        false,
        &f32s(&[f32::NAN, 1e30]),
    );
    assert_eq!(&d[..2], &[1 << 63, u64::MAX]);
    // f16 source.
    let d = cvt(Ty::S32, Ty::F16, Some(Rnd::Rni), false, &[0x4170, 0xfc00]); // 2.71875, -inf
    assert_eq!(&d[..2], &[3, i32::MIN as u32 as u64]);
    // .sat on a float destination clamps to [0, 1], NaN to +0.
    let d = cvt(
        Ty::F32,
        Ty::F32,
        None,
        true,
        &f32s(&[2.0, -1.0, f32::NAN, 0.5, -0.0]),
    );
    assert_eq!(&d[..5], &f32s(&[1.0, 0.0, 0.0, 0.5, 0.0]));
    let d = cvt(Ty::F16, Ty::F32, Some(Rnd::Rn), true, &f32s(&[3.0, 0.25]));
    assert_eq!(&d[..2], &[0x3c00, 0x3400]);
    // Same-type integer rounding stays a float.
    let d = cvt(
        Ty::F32,
        Ty::F32,
        Some(Rnd::Rni),
        false,
        &f32s(&[2.5, -0.4, 1e20]),
    );
    assert_eq!(&d[..3], &f32s(&[2.0, -0.0, 1e20]));
}

#[test]
fn cvt_int_to_int_and_int_to_float() {
    let d = cvt(Ty::S32, Ty::S8, None, false, &[0x80, 0x7f, 0xff, 0x1fe]);
    assert_eq!(&d[..4], &[0xffff_ff80, 0x7f, 0xffff_ffff, 0xffff_fffe]);
    let d = cvt(Ty::U32, Ty::U8, None, false, &[0x80, 0x1ff]);
    assert_eq!(&d[..2], &[0x80, 0xff]);
    let d = cvt(Ty::U8, Ty::U32, None, false, &[0x1234_5678]);
    assert_eq!(d[0], 0x78);
    let d = cvt(
        Ty::S8,
        Ty::S32,
        None,
        true,
        &[300, (-300i32) as u32 as u64, 5],
    );
    assert_eq!(&d[..3], &[0x7f, 0x80, 5]);
    let d = cvt(
        Ty::U16,
        Ty::S32,
        None,
        true,
        &[(-1i32) as u32 as u64, 70000, 123],
    );
    assert_eq!(&d[..3], &[0, 0xffff, 123]);
    let d = cvt(Ty::S64, Ty::S32, None, false, &[(-2i32) as u32 as u64]);
    assert_eq!(d[0], (-2i64) as u64);
    let d = cvt(Ty::U64, Ty::S32, None, false, &[(-2i32) as u32 as u64]);
    assert_eq!(d[0], (-2i64) as u64, "sign-extends by the source type");
    let d = cvt(Ty::U32, Ty::S64, None, true, &[u64::MAX, 1 << 40]);
    assert_eq!(&d[..2], &[0, 0xffff_ffff]);
    // int -> float rounding.
    let v = [16_777_217u64, 0xffff_ffff, 3];
    let rn = cvt(Ty::F32, Ty::U32, Some(Rnd::Rn), false, &v);
    let rz = cvt(Ty::F32, Ty::U32, Some(Rnd::Rz), false, &v);
    let rp = cvt(Ty::F32, Ty::U32, Some(Rnd::Rp), false, &v);
    assert_eq!(&rn[..3], &f32s(&[16_777_216.0, 4_294_967_296.0, 3.0]));
    assert_eq!(&rz[..3], &f32s(&[16_777_216.0, 4_294_967_040.0, 3.0]));
    assert_eq!(&rp[..3], &f32s(&[16_777_218.0, 4_294_967_296.0, 3.0]));
    let rm = cvt(
        Ty::F32,
        Ty::S32,
        Some(Rnd::Rm),
        false,
        &[(-16_777_217i32) as u32 as u64],
    );
    assert_eq!(rm[0], (-16_777_218.0f32).to_bits() as u64);
    let h = cvt(
        Ty::F16,
        Ty::S32,
        Some(Rnd::Rn),
        false,
        &[2049, 70000, (-3i32) as u32 as u64],
    );
    assert_eq!(&h[..3], &[0x6800, 0x7c00, 0xc200]);
    // u64 -> f64 keeps the sticky bits below the 53rd.
    let d = cvt(
        Ty::F64,
        Ty::U64,
        Some(Rnd::Rn),
        false,
        &[(1 << 53) + 1, (1 << 53) + 3, u64::MAX],
    );
    assert_eq!(
        &d[..3],
        &[
            ((1u64 << 53) as f64).to_bits(),
            ((1u64 << 53) as f64 + 4.0).to_bits(),
            2f64.powi(64).to_bits()
        ]
    );
    let d = cvt(
        Ty::Bf16,
        Ty::U64,
        Some(Rnd::Rn),
        false,
        &[(1 << 60) + (1 << 52) + 1],
    );
    // 2^60 + 2^52 is the bf16 tie between 2^60 and 2^60 + 2^53; the +1 breaks it upward.
    assert_eq!(d[0], 0x5d81);
}

#[test]
fn fp8_unpack_and_pack() {
    // e4m3x2 -> f16x2: the upper byte goes to the upper half.
    let got = cvt(
        Ty::F16x2,
        Ty::E4m3x2,
        Some(Rnd::Rn),
        false,
        &[0x7e_38, 0x01_7f, 0x80_c8],
    );
    // 0x38 = 1.0, 0x7e = 448, 0x01 = 2^-9, 0x7f = NaN, 0x80 = -0, 0xc8 = -4.
    let e4 = |b: u8| half::f16::from_f64(humming_e4m3(b)).to_bits() as u64;
    assert_eq!(got[0], (e4(0x7e) << 16) | e4(0x38));
    assert_eq!(got[0], (0x5f00 << 16) | 0x3c00);
    assert_eq!(got[1], (e4(0x01) << 16) | 0x7fff);
    assert_eq!(got[2], (0x8000 << 16) | e4(0xc8));
    // e5m2 is the upper byte of an f16.
    let got = cvt(
        Ty::F16x2,
        Ty::E5m2x2,
        Some(Rnd::Rn),
        false,
        &[0x3c_7c, 0x01_fb],
    );
    assert_eq!(got[0], (0x3c00 << 16) | 0x7c00);
    assert_eq!(got[1], (0x0100 << 16) | 0xfb00);
    // f32 pairs -> e4m3x2 / e5m2x2 with satfinite, hi in the upper byte.
    let pack = |dst_ty: Ty, satfinite: bool, hi: &[f32], lo: &[f32]| -> Vec<u64> {
        let mut h = f32s(hi);
        let mut l = f32s(lo);
        h.resize(32, 0);
        l.resize(32, 0);
        lanes_op(
            &[Ty::F32, Ty::F32],
            &[h, l],
            if dst_ty.bits() == 16 {
                Ty::B16
            } else {
                Ty::B32
            },
            |b, r| {
                emit_to(b, dst_ty, |d| Inst::CvtPack {
                    dst_ty,
                    satfinite,
                    dst: d,
                    hi: r[0].into(),
                    lo: r[1].into(),
                })
            },
        )
    };
    let got = pack(
        Ty::E4m3x2,
        true,
        &[1.0, 500.0, f32::NAN, -1e9, 0.0009765625, 1.0625],
        &[448.0, 464.0, -f32::INFINITY, 0.3, -0.00097, 1.1875],
    );
    assert_eq!(got[0], 0x38_7e);
    assert_eq!(
        got[1], 0x7e_7e,
        "500 clamps to 448; 464 (the tie with 480) rounds to 448"
    );
    assert_eq!(got[2] >> 8, 0x7f, "NaN");
    assert_eq!(got[2] & 0xff, 0xfe, "-inf saturates to -448");
    assert_eq!(got[3], 0xfe_00 | 0x2a, "0.3 -> 0x2a (0.3125)");
    assert_eq!(
        got[4], 0x00_80,
        "2^-10 is the tie between 0 and the smallest subnormal 2^-9: even is 0"
    );
    assert_eq!(
        got[5], 0x38_3a,
        "1.0625 ties to even 1.0; 1.1875 ties to 1.25"
    );
    let got = pack(
        Ty::E5m2x2,
        true,
        &[57344.0, 1e6, 1.0],
        &[-65536.0, 0.0, 1.125],
    );
    assert_eq!(got[0], 0x7b_fb);
    assert_eq!(got[1], 0x7b_00);
    assert_eq!(
        got[2], 0x3c_3c,
        "1.125 is the tie between 1.0 and 1.25: even is 1.0"
    );
    let got = pack(Ty::F16x2, false, &[1.0, 1e6], &[-2.0, 1.0 + 2f32.powi(-11)]);
    assert_eq!(got[0], (0x3c00 << 16) | 0xc000);
    assert_eq!(got[1], (0x7c00 << 16) | 0x3c00);
    let got = pack(Ty::F16x2, true, &[1e6], &[f32::NEG_INFINITY]);
    assert_eq!(got[0], (0x7bff << 16) | 0xfbff);
    let got = pack(
        Ty::Bf16x2,
        false,
        &[1.0, 3.0e38],
        &[1.0 + 2f32.powi(-8), -1.0 + 3.0 * 2f32.powi(-9)],
    );
    assert_eq!(got[0], (0x3f80 << 16) | 0x3f80);
    assert_eq!(got[1] >> 16, half::bf16::from_f32(3.0e38).to_bits() as u64);
    assert_eq!(
        got[1] & 0xffff,
        half::bf16::from_f32(-1.0 + 3.0 * 2f32.powi(-9)).to_bits() as u64
    );
    // f16x2 -> e4m3x2.
    let got = cvt(
        Ty::E4m3x2,
        Ty::F16x2,
        Some(Rnd::Rn),
        true,
        &[(0x3c00 << 16) | 0x7c00],
    );
    assert_eq!(got[0], 0x38_7e);
}

/// An independent e4m3 decoder for the test (sign, 4-bit exponent bias 7, 3-bit mantissa).
fn humming_e4m3(b: u8) -> f64 {
    let s = if b & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = (b >> 3) & 15;
    let mnt = (b & 7) as f64;
    if e == 0 {
        s * mnt * 2f64.powi(-9)
    } else {
        s * (8.0 + mnt) * 2f64.powi(e as i32 - 10)
    }
}

fn f16_of(x: f64) -> u64 {
    half::f16::from_f64(x).to_bits() as u64
}

fn bf16_of(x: f64) -> u64 {
    half::bf16::from_f64(x).to_bits() as u64
}

#[test]
fn half2_arithmetic_is_correctly_rounded_per_lane() {
    let mut rng = Rng(42);
    // Random f16 pairs of moderate range so the exact f64 results are easy references.
    let rnd_h = |rng: &mut Rng| -> u64 {
        let e = 10 + rng.next() % 12; // exponent field 10..21
        ((rng.next() & 1) << 15) | (e << 10) | (rng.next() & 0x3ff)
    };
    let pack2 = |rng: &mut Rng| (rnd_h(rng) << 16) | rnd_h(rng);
    let a: Vec<u64> = (0..32).map(|_| pack2(&mut rng)).collect();
    let bv: Vec<u64> = (0..32).map(|_| pack2(&mut rng)).collect();
    let c: Vec<u64> = (0..32).map(|_| pack2(&mut rng)).collect();
    let h = |x: u64, i: u32| half::f16::from_bits((x >> (16 * i)) as u16).to_f64();
    let fma = lanes_op(
        &[Ty::F16x2; 3],
        &[a.clone(), bv.clone(), c.clone()],
        Ty::B32,
        |b, r| {
            emit_to(b, Ty::F16x2, |d| Inst::Fma {
                ty: Ty::F16x2,
                rnd: Rnd::Rn,
                dst: d,
                a: r[0].into(),
                b: r[1].into(),
                c: r[2].into(),
            })
        },
    );
    let add = lanes_op(
        &[Ty::F16x2; 2],
        &[a.clone(), bv.clone()],
        Ty::B32,
        |b, r| b.bin(BinOp::Add, Ty::F16x2, r[0], r[1]),
    );
    let sub = lanes_op(
        &[Ty::F16x2; 2],
        &[a.clone(), bv.clone()],
        Ty::B32,
        |b, r| b.bin(BinOp::Sub, Ty::F16x2, r[0], r[1]),
    );
    let mul = lanes_op(
        &[Ty::F16x2; 2],
        &[a.clone(), bv.clone()],
        Ty::B32,
        |b, r| b.bin(BinOp::Mul, Ty::F16x2, r[0], r[1]),
    );
    let min = lanes_op(
        &[Ty::F16x2; 2],
        &[a.clone(), bv.clone()],
        Ty::B32,
        |b, r| b.bin(BinOp::Min, Ty::F16x2, r[0], r[1]),
    );
    let neg = lanes_op(&[Ty::F16x2], std::slice::from_ref(&a), Ty::B32, |b, r| {
        emit_to(b, Ty::F16x2, |d| Inst::Un {
            op: UnOp::Neg,
            ty: Ty::F16x2,
            dst: d,
            a: r[0].into(),
        })
    });
    for i in 0..32 {
        for half in 0..2 {
            let (x, y, z) = (h(a[i], half), h(bv[i], half), h(c[i], half));
            let part = |v: u64| (v >> (16 * half)) & 0xffff;
            // For f16 operands the exact a*b+c fits in an f64, so one rounding is exact.
            assert_eq!(part(fma[i]), f16_of(x * y + z), "fma {x} {y} {z}");
            assert_eq!(part(add[i]), f16_of(x + y));
            assert_eq!(part(sub[i]), f16_of(x - y));
            assert_eq!(part(mul[i]), f16_of(x * y));
            assert_eq!(part(min[i]), f16_of(x.min(y)));
            assert_eq!(part(neg[i]), f16_of(-x));
        }
    }
    // bf16x2 on values whose exact results fit an f64.
    let rnd_b = |rng: &mut Rng| -> u64 {
        let e = 120 + rng.next() % 14;
        ((rng.next() & 1) << 15) | (e << 7) | (rng.next() & 0x7f)
    };
    let a: Vec<u64> = (0..32)
        .map(|_| (rnd_b(&mut rng) << 16) | rnd_b(&mut rng))
        .collect();
    let bv: Vec<u64> = (0..32)
        .map(|_| (rnd_b(&mut rng) << 16) | rnd_b(&mut rng))
        .collect();
    let c: Vec<u64> = (0..32)
        .map(|_| (rnd_b(&mut rng) << 16) | rnd_b(&mut rng))
        .collect();
    let hb = |x: u64, i: u32| half::bf16::from_bits((x >> (16 * i)) as u16).to_f64();
    let fma = lanes_op(
        &[Ty::Bf16x2; 3],
        &[a.clone(), bv.clone(), c.clone()],
        Ty::B32,
        |b, r| {
            emit_to(b, Ty::Bf16x2, |d| Inst::Fma {
                ty: Ty::Bf16x2,
                rnd: Rnd::Rn,
                dst: d,
                a: r[0].into(),
                b: r[1].into(),
                c: r[2].into(),
            })
        },
    );
    let max = lanes_op(
        &[Ty::Bf16x2; 2],
        &[a.clone(), bv.clone()],
        Ty::B32,
        |b, r| b.bin(BinOp::Max, Ty::Bf16x2, r[0], r[1]),
    );
    for i in 0..32 {
        for half in 0..2 {
            let (x, y, z) = (hb(a[i], half), hb(bv[i], half), hb(c[i], half));
            assert_eq!(
                (fma[i] >> (16 * half)) & 0xffff,
                bf16_of(x * y + z),
                "bf16 fma {x} {y} {z}"
            );
            assert_eq!((max[i] >> (16 * half)) & 0xffff, bf16_of(x.max(y)));
        }
    }
}

#[test]
fn bf16_fma_is_rounded_once_even_when_f64_cannot_hold_the_sum() {
    // 7 * 73 = 511 is the bf16 tie between 510 and 512; adding -2^-100 must round down to 510,
    // which an f64 sum (511 exactly) followed by ties-to-even would get wrong (512).
    let bf = |x: f64| half::bf16::from_f64(x).to_bits() as u64;
    let a = vec![bf(7.0); 32];
    let bv = vec![bf(73.0); 32];
    let mut c = vec![bf(-(2f64.powi(-100))); 32];
    c[1] = bf(2f64.powi(-100));
    c[2] = 0;
    let got = lanes_op(&[Ty::Bf16; 3], &[a, bv, c], Ty::B16, |b, r| {
        emit_to(b, Ty::Bf16, |d| Inst::Fma {
            ty: Ty::Bf16,
            rnd: Rnd::Rn,
            dst: d,
            a: r[0].into(),
            b: r[1].into(),
            c: r[2].into(),
        })
    });
    assert_eq!(got[0], bf(510.0));
    assert_eq!(got[1], bf(512.0));
    assert_eq!(got[2], bf(512.0), "exact tie: even");
}

#[test]
fn f32_f64_arithmetic_and_nan() {
    let vals = [
        1.5f32,
        -0.0,
        0.0,
        f32::NAN,
        f32::INFINITY,
        3.0e38,
        1e-45,
        -2.0,
    ];
    let mut a = Vec::new();
    let mut bv = Vec::new();
    for x in vals {
        for y in vals.iter().take(4) {
            a.push(x.to_bits() as u64);
            bv.push(y.to_bits() as u64);
        }
    }
    let canon = |x: f32| {
        if x.is_nan() {
            0x7fff_ffffu64
        } else {
            x.to_bits() as u64
        }
    };
    let f = |x: u64| f32::from_bits(x as u32);
    let add = bin(BinOp::Add, Ty::F32, Ty::F32, &a, &bv);
    let mul = bin(BinOp::Mul, Ty::F32, Ty::F32, &a, &bv);
    let div = bin(BinOp::Div, Ty::F32, Ty::F32, &a, &bv);
    let min = bin(BinOp::Min, Ty::F32, Ty::F32, &a, &bv);
    let max = bin(BinOp::Max, Ty::F32, Ty::F32, &a, &bv);
    for i in 0..32 {
        let (x, y) = (f(a[i]), f(bv[i]));
        assert_eq!(add[i], canon(x + y));
        assert_eq!(mul[i], canon(x * y));
        assert_eq!(div[i], canon(x / y));
        // min/max: NaN ignored; -0 < +0.
        let want_min = if x.is_nan() && y.is_nan() {
            0x7fff_ffff
        } else if x.is_nan() {
            y.to_bits() as u64
        } else if y.is_nan() || x < y || (x == y && x.is_sign_negative()) {
            x.to_bits() as u64
        } else {
            y.to_bits() as u64
        };
        assert_eq!(min[i], want_min, "min {x} {y}");
        let want_max = if x.is_nan() && y.is_nan() {
            0x7fff_ffff
        } else if x.is_nan() {
            y.to_bits() as u64
        } else if y.is_nan() || x > y || (x == y && x.is_sign_positive()) {
            x.to_bits() as u64
        } else {
            y.to_bits() as u64
        };
        assert_eq!(max[i], want_max, "max {x} {y}");
    }
    // fma.rn.f32 is fused (one rounding); the directed modes bracket it.
    let x = 1.0 + 2f32.powi(-23);
    let y = 1.0 - 2f32.powi(-23);
    let c = -1.0f32;
    let run = |rnd: Rnd| {
        lanes_op(
            &[Ty::F32; 3],
            &[f32s(&[x; 32]), f32s(&[y; 32]), f32s(&[c; 32])],
            Ty::F32,
            |b, r| {
                emit_to(b, Ty::F32, |d| Inst::Fma {
                    ty: Ty::F32,
                    rnd,
                    dst: d,
                    a: r[0].into(),
                    b: r[1].into(),
                    c: r[2].into(),
                })
            },
        )[0]
    };
    assert_eq!(
        run(Rnd::Rn),
        (-(2f32.powi(-46))).to_bits() as u64,
        "x*y+c = -2^-46 exactly"
    );
    // 1 + 2^-24 * 2^-23... : (1+e)(1-e) - 1 = -e^2 is exact, so all modes agree.
    assert_eq!(run(Rnd::Rz), run(Rnd::Rn));
    let run2 = |rnd: Rnd, x: f32, y: f32, c: f32| {
        lanes_op(
            &[Ty::F32; 3],
            &[f32s(&[x; 32]), f32s(&[y; 32]), f32s(&[c; 32])],
            Ty::F32,
            |b, r| {
                emit_to(b, Ty::F32, |d| Inst::Fma {
                    ty: Ty::F32,
                    rnd,
                    dst: d,
                    a: r[0].into(),
                    b: r[1].into(),
                    c: r[2].into(),
                })
            },
        )[0]
    };
    // 1 * 1 + 2^-30: inexact; rz/rm give 1, rp gives 1 + 2^-23.
    let e = 2f32.powi(-30);
    assert_eq!(run2(Rnd::Rz, 1.0, 1.0, e), 1f32.to_bits() as u64);
    assert_eq!(run2(Rnd::Rm, 1.0, 1.0, e), 1f32.to_bits() as u64);
    assert_eq!(
        run2(Rnd::Rp, 1.0, 1.0, e),
        (1.0 + 2f32.powi(-23)).to_bits() as u64
    );
    assert_eq!(
        run2(Rnd::Rm, 1.0, 1.0, -e),
        (1.0 - 2f32.powi(-24)).to_bits() as u64
    );
    assert_eq!(run2(Rnd::Rp, -1.0, 1.0, -e), (-1.0f32).to_bits() as u64);
    // f64.
    let a = vec![0.1f64.to_bits(); 32];
    let bv = vec![0.2f64.to_bits(); 32];
    let add = bin(BinOp::Add, Ty::F64, Ty::F64, &a, &bv);
    assert_eq!(add[0], (0.1f64 + 0.2).to_bits());
}

#[test]
fn setp_and_selp() {
    let fv = [1.0f32, 2.0, f32::NAN, -0.0, 0.0, 2.0, f32::NAN, -1.0];
    let mut a = Vec::new();
    let mut bv = Vec::new();
    for i in 0..32 {
        a.push(fv[i % 8].to_bits() as u64);
        bv.push(fv[(i / 8 + i) % 8].to_bits() as u64);
    }
    let setp = |cmp: Cmp, ty: Ty, a: &[u64], bv: &[u64]| {
        lanes_op(&[ty, ty], &[a.to_vec(), bv.to_vec()], Ty::U32, |b, r| {
            let p = emit_to(b, Ty::Pred, |d| Inst::Setp {
                cmp,
                ty,
                dst: d,
                a: r[0].into(),
                b: r[1].into(),
            });
            emit_to(b, Ty::U32, |d| Inst::Selp {
                ty: Ty::U32,
                dst: d,
                a: Operand::Imm(1),
                b: Operand::Imm(0),
                pred: p,
            })
        })
    };
    let f = |x: u64| f32::from_bits(x as u32);
    for (cmp, op) in [
        (Cmp::Eq, (|x, y| x == y) as fn(f32, f32) -> bool),
        (Cmp::Ne, |x, y| !x.is_nan() && !y.is_nan() && x != y),
        (Cmp::Lt, |x, y| x < y),
        (Cmp::Le, |x, y| x <= y),
        (Cmp::Gt, |x, y| x > y),
        (Cmp::Ge, |x, y| x >= y),
    ] {
        let got = setp(cmp, Ty::F32, &a, &bv);
        for i in 0..32 {
            assert_eq!(
                got[i],
                op(f(a[i]), f(bv[i])) as u64,
                "setp.{cmp:?}.f32 {} {}",
                f(a[i]),
                f(bv[i])
            );
        }
    }
    // Signed vs unsigned integer comparisons.
    let ia: Vec<u64> = (0..32)
        .map(|i| [0u64, 1, 0xffff_ffff, 0x8000_0000, 5][i % 5])
        .collect();
    let ib: Vec<u64> = (0..32)
        .map(|i| [0u64, 1, 0xffff_ffff, 0x8000_0000, 5][(i / 5) % 5])
        .collect();
    let lt_s = setp(Cmp::Lt, Ty::S32, &ia, &ib);
    let lo_u = setp(Cmp::Lo, Ty::U32, &ia, &ib);
    let hs_u = setp(Cmp::Hs, Ty::U32, &ia, &ib);
    let ge_s = setp(Cmp::Ge, Ty::S32, &ia, &ib);
    for i in 0..32 {
        let (x, y) = (ia[i] as u32, ib[i] as u32);
        assert_eq!(lt_s[i], ((x as i32) < (y as i32)) as u64);
        assert_eq!(lo_u[i], (x < y) as u64);
        assert_eq!(hs_u[i], (x >= y) as u64);
        assert_eq!(ge_s[i], ((x as i32) >= (y as i32)) as u64);
    }
    // Predicate logic and selp on f32.
    let got = lanes_op(&[Ty::U32], &[(0..32).collect()], Ty::F32, |b, r| {
        let p = emit_to(b, Ty::Pred, |d| Inst::Setp {
            cmp: Cmp::Lt,
            ty: Ty::U32,
            dst: d,
            a: r[0].into(),
            b: Operand::Imm(20),
        });
        let q = emit_to(b, Ty::Pred, |d| Inst::Setp {
            cmp: Cmp::Ge,
            ty: Ty::U32,
            dst: d,
            a: r[0].into(),
            b: Operand::Imm(10),
        });
        let pq = b.bin(BinOp::And, Ty::Pred, p, q);
        let npq = emit_to(b, Ty::Pred, |d| Inst::Un {
            op: UnOp::Not,
            ty: Ty::Pred,
            dst: d,
            a: pq.into(),
        });
        emit_to(b, Ty::F32, |d| Inst::Selp {
            ty: Ty::F32,
            dst: d,
            a: Operand::f32(1.5),
            b: Operand::f32(-2.0),
            pred: npq,
        })
    });
    for (i, g) in got.iter().enumerate() {
        let inside = (10..20).contains(&i);
        assert_eq!(
            *g,
            if inside {
                (-2.0f32).to_bits()
            } else {
                1.5f32.to_bits()
            } as u64
        );
    }
}

#[test]
fn invalid_forms_are_rejected_before_running() {
    use humming_core::ir::emu::EmuError;
    // A u32 add into an f32 register.
    let err = try_lanes_op(&[Ty::U32], &[vec![0; 32]], Ty::U32, |b, r| {
        let d = b.reg(humming_core::ir::RegClass::F32);
        b.emit(Inst::Bin {
            op: BinOp::Add,
            ty: Ty::U32,
            dst: d,
            a: r[0].into(),
            b: Operand::Imm(1),
        });
        r[0]
    })
    .unwrap_err();
    assert!(matches!(err, EmuError::InvalidKernel { .. }), "{err}");
    assert!(err.to_string().contains("add.u32"), "{err}");
    // cvt float -> int without integer rounding.
    let err = try_lanes_op(&[Ty::F32], &[vec![0; 32]], Ty::U32, |b, r| {
        emit_to(b, Ty::S32, |d| Inst::Cvt {
            dst_ty: Ty::S32,
            src_ty: Ty::F32,
            rnd: None,
            sat: false,
            dst: d,
            src: r[0].into(),
        })
    })
    .unwrap_err();
    assert!(matches!(err, EmuError::InvalidKernel { .. }), "{err}");
    // fma.rz.f64 is not implemented (rather than silently wrong).
    let err = try_lanes_op(&[Ty::F64], &[vec![0; 32]], Ty::F64, |b, r| {
        emit_to(b, Ty::F64, |d| Inst::Fma {
            ty: Ty::F64,
            rnd: Rnd::Rz,
            dst: d,
            a: r[0].into(),
            b: r[0].into(),
            c: r[0].into(),
        })
    })
    .unwrap_err();
    assert!(matches!(err, EmuError::Unsupported { .. }), "{err}");
}
