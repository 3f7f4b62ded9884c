//! Reads one argument value each. A bad value is an error spanning the value, with the reason
//! and the valid alternatives. Names may be written as identifiers (`u4`) or strings (`"u4"`).

use crate::args::Arg;
use humming_core::kernel::KernelPlan;
use humming_core::{ActFormat, Arch, FormatError, OutFormat, ScaleFormat, ScaleGroup, WeightFormat, ZeroPoint};
use quote::ToTokens;
use syn::{Expr, ExprLit, Lit};

pub const WEIGHT_VALID: &str = "u1..u8, i2..i8, a float e{E}m{M} with E >= 1 and 1 + E + M <= 8 (e2m1, e3m2, e2m3, \
                                e4m3, e5m2, ...), or fp4, fp6_e3m2, fp6_e2m3, fp8_e4m3, fp8_e5m2";
pub const ACT_VALID: &str = "f16 or bf16";
const OUT_VALID: &str = "f16 or bf16";
const SCALE_VALID: &str = "f16, bf16, e4m3, e5m2 or ue8m0";
const ARCH_VALID: &str = "sm_75, sm_80, sm_86, sm_89, sm_90 or sm_90a";
const PLAN_KEYS: [&str; 5] = ["m_tiles", "n_warps", "k_warps", "bk", "stages"];
/// The optional plan keys (bools).
const FLAG_KEYS: [&str; 4] = ["swap", "wgmma", "halves", "ws"];
const PLAN_EXAMPLE: &str = "plan = (m_tiles = 1, n_warps = 4, k_warps = 2, bk = 128, stages = 4)";

fn err(tokens: impl ToTokens, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new_spanned(tokens, msg)
}

/// A name written as a plain identifier or a string literal.
fn word(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => p.path.get_ident().map(|i| i.to_string()),
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
        _ => None,
    }
}

fn word_or(e: &Expr, what: &str, valid: &str) -> syn::Result<String> {
    word(e).ok_or_else(|| err(e, format!("expected {what} name (an identifier or a string); valid: {valid}")))
}

pub fn weight(e: &Expr) -> syn::Result<WeightFormat> {
    let w = word_or(e, "a weight format", WEIGHT_VALID)?;
    WeightFormat::parse(&w).map_err(|why| {
        let why = match why {
            FormatError::Unknown { .. } => format!("unknown weight format `{w}`"),
            other => format!("invalid weight `{w}`: {other}"),
        };
        err(e, format!("{why}; valid weights: {WEIGHT_VALID}"))
    })
}

pub fn act(e: &Expr) -> syn::Result<ActFormat> {
    let w = word_or(e, "an activation format", ACT_VALID)?;
    match ActFormat::parse(&w) {
        Ok(a) if a.is_16bit_float() => Ok(a),
        Ok(a) => Err(err(
            e,
            format!("act {a} is not generated yet: the #[humming_gemm] kernels take 16-bit activations; valid: {ACT_VALID}"),
        )),
        Err(_) => Err(err(e, format!("unknown act `{w}`; valid: {ACT_VALID}"))),
    }
}

pub fn out(e: &Expr) -> syn::Result<OutFormat> {
    let w = word_or(e, "an output format", OUT_VALID)?;
    OutFormat::parse(&w).map_err(|_| err(e, format!("unknown out `{w}`; valid: {OUT_VALID}")))
}

pub fn scale(e: &Expr) -> syn::Result<ScaleFormat> {
    let w = word_or(e, "a scale format", SCALE_VALID)?;
    ScaleFormat::parse(&w).map_err(|_| err(e, format!("unknown scale `{w}`; valid: {SCALE_VALID}")))
}

pub fn group(e: &Expr) -> syn::Result<ScaleGroup> {
    let expected = "expected a group size along K (a power of two in 16..=1024, e.g. `group = 128`) or `group = per_channel`";
    if let Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) = e {
        return i.base10_parse::<u32>().map(ScaleGroup::Group).map_err(|_| err(e, expected));
    }
    match word(e).map(|w| w.to_ascii_lowercase().replace('-', "_")) {
        Some(w) if w == "per_channel" => Ok(ScaleGroup::PerChannel),
        _ => Err(err(e, expected)),
    }
}

pub fn zero_point(e: &Expr) -> syn::Result<ZeroPoint> {
    let valid = "implicit (the codes of u{b} are centred on 2^(b-1)) or dynamic (a per-group zero point, u{b} only)";
    match word(e).as_deref() {
        Some("implicit") => Ok(ZeroPoint::Implicit),
        Some("dynamic") => Ok(ZeroPoint::Dynamic),
        Some(w) => Err(err(e, format!("unknown zero_point `{w}`; valid: {valid}"))),
        None => Err(err(e, format!("expected a zero point mode; valid: {valid}"))),
    }
}

pub fn global_scale(e: &Expr) -> syn::Result<bool> {
    match e {
        Expr::Lit(ExprLit { lit: Lit::Bool(b), .. }) => Ok(b.value),
        _ => Err(err(e, "expected `true` or `false` (whether one f32 scale multiplies the whole output)")),
    }
}

/// `sm_80` or `[sm_80, sm_90]`: each target once.
pub fn arch(e: &Expr) -> syn::Result<Vec<Arg<Arch>>> {
    let one = |x: &Expr| -> syn::Result<Arch> {
        let w = word_or(x, "a target", ARCH_VALID)?;
        Arch::parse(&w).ok_or_else(|| err(x, format!("unknown arch `{w}`; valid: {ARCH_VALID}")))
    };
    let items: Vec<&Expr> = match e {
        Expr::Array(a) => a.elems.iter().collect(),
        single => vec![single],
    };
    if items.is_empty() {
        return Err(err(e, format!("the arch list is empty; give one or more of {ARCH_VALID}")));
    }
    let mut out: Vec<Arg<Arch>> = Vec::new();
    let mut errors: Option<syn::Error> = None;
    for x in items {
        let r = one(x).and_then(|a| {
            if out.iter().any(|o| o.value == a) {
                Err(err(x, format!("arch {a} is listed twice; list each target once")))
            } else {
                Ok(a)
            }
        });
        match r {
            Ok(a) => out.push(Arg::new(a, x)),
            Err(e) => match &mut errors {
                Some(all) => all.combine(e),
                None => errors = Some(e),
            },
        }
    }
    errors.map_or(Ok(out), Err)
}

/// `(m_tiles = 1, n_warps = 4, k_warps = 2, bk = 128, stages = 4)`: all five, each once, and
/// optionally `swap = true` ([`KernelPlan::swap`], with `halves = true` for
/// [`KernelPlan::halves`]) or `wgmma = true` ([`KernelPlan::wgmma`], with `ws = true` for
/// [`KernelPlan::ws`]). Checked against the
/// generator's rules in `spec.rs`, where the target is known.
pub fn plan(e: &Expr) -> syn::Result<KernelPlan> {
    let pairs: Vec<&Expr> = match e {
        Expr::Tuple(t) => t.elems.iter().collect(),
        Expr::Paren(p) => vec![&*p.expr],
        _ => return Err(err(e, format!("expected a kernel plan: `{PLAN_EXAMPLE}`"))),
    };
    let mut vals: [Option<u32>; 5] = [None; 5];
    let mut flags: [Option<bool>; 4] = [None; 4];
    for p in pairs {
        let Expr::Assign(a) = p else {
            return Err(err(p, format!("expected `key = integer`, one of {}: `{PLAN_EXAMPLE}`", PLAN_KEYS.join(", "))));
        };
        let key = word(&a.left).filter(|_| matches!(&*a.left, Expr::Path(_)));
        if let Some(f) = key.as_deref().and_then(|k| FLAG_KEYS.iter().position(|&n| n == k)) {
            if flags[f].is_some() {
                return Err(err(&a.left, format!("plan key `{}` is given twice", FLAG_KEYS[f])));
            }
            let Expr::Lit(ExprLit { lit: Lit::Bool(v), .. }) = &*a.right else {
                return Err(err(&a.right, format!("plan `{}` must be `true` or `false`", FLAG_KEYS[f])));
            };
            flags[f] = Some(v.value);
            continue;
        }
        let Some(slot) = key.as_deref().and_then(|k| PLAN_KEYS.iter().position(|&n| n == k)) else {
            return Err(err(&a.left, format!("unknown plan key; valid keys: {}, {}", PLAN_KEYS.join(", "), FLAG_KEYS.join(", "))));
        };
        if vals[slot].is_some() {
            return Err(err(&a.left, format!("plan key `{}` is given twice", PLAN_KEYS[slot])));
        }
        let Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) = &*a.right else {
            return Err(err(&a.right, format!("plan `{}` must be an integer literal", PLAN_KEYS[slot])));
        };
        vals[slot] = Some(i.base10_parse::<u32>().map_err(|_| err(&a.right, "expected a small non-negative integer"))?);
    }
    match vals {
        [Some(m_tiles), Some(n_warps), Some(k_warps), Some(bk), Some(stages)] => {
            let [swap, wgmma, halves, ws] = flags.map(|f| f.unwrap_or(false));
            Ok(KernelPlan { m_tiles, n_warps, k_warps, bk, stages, swap, wgmma, halves, ws })
        }
        _ => {
            let missing: Vec<String> =
                PLAN_KEYS.iter().zip(vals).filter(|(_, v)| v.is_none()).map(|(k, _)| format!("`{k}`")).collect();
            Err(err(e, format!("the plan is missing {}: give all of `{PLAN_EXAMPLE}`", missing.join(", "))))
        }
    }
}

pub fn emit_ptx(e: &Expr) -> syn::Result<String> {
    match e {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) if !s.value().is_empty() => Ok(s.value()),
        _ => Err(err(
            e,
            "expected a directory as a non-empty string, relative to the crate's CARGO_MANIFEST_DIR, e.g. `emit_ptx = \"target/ptx\"`",
        )),
    }
}
