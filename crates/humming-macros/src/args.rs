//! The attribute's arguments: `name = value` pairs, comma-separated. This file knows the names
//! and reports unknown and duplicate ones; `values.rs` reads each value.

use crate::errors::Errors;
use crate::values;
use humming_core::kernel::KernelPlan;
use humming_core::{ActFormat, Arch, OutFormat, ScaleFormat, ScaleGroup, WeightFormat, ZeroPoint};
use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Token};

/// Every argument name, in the order the docs list them.
pub const NAMES: [&str; 10] =
    ["weight", "act", "out", "scale", "group", "zero_point", "global_scale", "arch", "plan", "emit_ptx"];

/// One `name = value` as written.
pub struct RawArg {
    pub name: Ident,
    pub value: Expr,
}

impl Parse for RawArg {
    fn parse(input: ParseStream) -> syn::Result<RawArg> {
        // Any identifier, keywords included, so that `type = u4` is "unknown argument `type`"
        // rather than a syntax error.
        let name = input.call(Ident::parse_any)?;
        if !input.peek(Token![=]) {
            return Err(syn::Error::new(
                name.span(),
                format!("expected `{name} = value`: every argument of #[humming_gemm] is `name = value`"),
            ));
        }
        input.parse::<Token![=]>()?;
        let value = input.parse()?;
        Ok(RawArg { name, value })
    }
}

/// A parsed argument value with what it was parsed from, for error spans.
pub struct Arg<T> {
    pub value: T,
    /// The value as written.
    pub expr: Expr,
}

impl<T> Arg<T> {
    pub fn new(value: T, expr: &Expr) -> Arg<T> {
        Arg { value, expr: expr.clone() }
    }
}

/// The arguments that were given and valid. A missing optional argument is `None` (its default
/// is applied in `spec.rs`).
#[derive(Default)]
pub struct Args {
    pub weight: Option<Arg<WeightFormat>>,
    pub act: Option<Arg<ActFormat>>,
    pub out: Option<Arg<OutFormat>>,
    pub scale: Option<Arg<ScaleFormat>>,
    pub group: Option<Arg<ScaleGroup>>,
    pub zero_point: Option<Arg<ZeroPoint>>,
    pub global_scale: Option<Arg<bool>>,
    /// Each target with its own element for spans.
    pub arch: Option<Arg<Vec<Arg<Arch>>>>,
    pub plan: Option<Arg<KernelPlan>>,
    pub emit_ptx: Option<Arg<String>>,
}

/// Parses the attribute's tokens. Every problem (syntax, unknown or duplicate name, bad value,
/// missing required argument) is pushed to `errors`; the arguments that were valid are returned.
pub fn parse(attr: proc_macro2::TokenStream, errors: &mut Errors) -> Args {
    let mut args = Args::default();
    let raw = match syn::parse::Parser::parse2(Punctuated::<RawArg, Token![,]>::parse_terminated, attr) {
        Ok(raw) => raw,
        Err(e) => {
            errors.push(e);
            return args;
        }
    };
    let mut seen: Vec<Ident> = Vec::new();
    for RawArg { name, value } in raw {
        let key = name.to_string();
        if !NAMES.contains(&key.as_str()) {
            errors.at(name.span(), unknown_name(&key));
            continue;
        }
        if seen.contains(&name) {
            errors.at(name.span(), format!("duplicate argument `{key}`: it is already given above; give each argument once"));
            continue;
        }
        seen.push(name.clone());
        let result = match key.as_str() {
            "weight" => values::weight(&value).map(|v| args.weight = Some(Arg::new(v, &value))),
            "act" => values::act(&value).map(|v| args.act = Some(Arg::new(v, &value))),
            "out" => values::out(&value).map(|v| args.out = Some(Arg::new(v, &value))),
            "scale" => values::scale(&value).map(|v| args.scale = Some(Arg::new(v, &value))),
            "group" => values::group(&value).map(|v| args.group = Some(Arg::new(v, &value))),
            "zero_point" => values::zero_point(&value).map(|v| args.zero_point = Some(Arg::new(v, &value))),
            "global_scale" => values::global_scale(&value).map(|v| args.global_scale = Some(Arg::new(v, &value))),
            "arch" => values::arch(&value).map(|v| args.arch = Some(Arg::new(v, &value))),
            "plan" => values::plan(&value).map(|v| args.plan = Some(Arg::new(v, &value))),
            "emit_ptx" => values::emit_ptx(&value).map(|v| args.emit_ptx = Some(Arg::new(v, &value))),
            _ => Ok(()),
        };
        if let Err(e) = result {
            errors.push(e);
        }
    }
    for (required, example) in [("weight", "weight = u4"), ("act", "act = f16")] {
        if !seen.iter().any(|s| s == required) {
            errors.at(
                Span::call_site(),
                format!(
                    "missing argument `{required}`: #[humming_gemm] needs `{example}` (valid {required} values: {})",
                    if required == "weight" { values::WEIGHT_VALID } else { values::ACT_VALID }
                ),
            );
        }
    }
    args
}

fn unknown_name(key: &str) -> String {
    let close = NAMES.iter().copied().filter(|n| edit_distance(n, key) <= 2).min_by_key(|n| edit_distance(n, key));
    let hint = close.map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default();
    format!("unknown argument `{key}`{hint}; valid arguments: {}", NAMES.join(", "))
}

/// Levenshtein distance, for "did you mean" hints.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("weight", "wieght"), 2);
        assert_eq!(edit_distance("act", "acts"), 1);
        assert_eq!(edit_distance("scale", "scale"), 0);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
