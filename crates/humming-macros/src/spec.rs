//! From arguments to validated [`Spec`]s (one per target), with every violated rule reported at
//! the argument that [`SpecError::field`] blames, and the plan override checked per target.

use crate::args::{Arg, Args};
use crate::errors::Errors;
use humming_core::kernel::KernelPlan;
use humming_core::{Arch, Spec, SpecError, SpecField, SpecParts};
use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// What to generate: the specs (first target first) and the plan override.
pub struct Targets {
    pub specs: Vec<Spec>,
    pub plan: Option<KernelPlan>,
}

/// Builds one spec per target. `None` when a required argument is missing or any rule fails
/// (the errors are in `errors`).
pub fn build(args: &Args, errors: &mut Errors) -> Option<Targets> {
    let (weight, act) = (args.weight.as_ref()?, args.act.as_ref()?);
    let arches: Vec<Arch> = match &args.arch {
        Some(list) => list.value.iter().map(|a| a.value).collect(),
        None => vec![Arch::Sm80],
    };
    // (where, message, targets it fails on): a rule that fails the same way on several targets
    // is reported once, naming the targets unless it fails on all of them.
    let mut found: Vec<(TokenStream, String, Vec<Arch>)> = Vec::new();
    let mut specs = Vec::new();
    for &arch in &arches {
        let mut parts = SpecParts::new(weight.value, act.value);
        parts.arch = arch;
        set(&mut parts.out, &args.out);
        set(&mut parts.scale, &args.scale);
        set(&mut parts.group, &args.group);
        set(&mut parts.zero_point, &args.zero_point);
        set(&mut parts.global_scale, &args.global_scale);
        match Spec::new(parts) {
            Ok(spec) => specs.push(spec),
            Err(all) => {
                for e in all.iter() {
                    let (tokens, msg) = blame(args, &parts, e);
                    match found.iter_mut().find(|(t, m, _)| *m == msg && t.to_string() == tokens.to_string()) {
                        Some((_, _, on)) => on.push(arch),
                        None => found.push((tokens, msg, vec![arch])),
                    }
                }
            }
        }
    }
    for (tokens, msg, on) in found {
        if on.len() == arches.len() {
            errors.spanning(tokens, msg);
        } else {
            let on: Vec<String> = on.iter().map(|a| a.to_string()).collect();
            errors.spanning(tokens, format!("on target {}: {msg}", on.join(", ")));
        }
    }
    let plan = args.plan.as_ref().map(|p| p.value);
    if let (Some(p), true) = (&args.plan, specs.len() == arches.len()) {
        for spec in &specs {
            if let Err(e) = p.value.validate(spec.arch(), spec.weight().bits()) {
                let target = if specs.len() > 1 { format!("on target {}: ", spec.arch()) } else { String::new() };
                errors.spanning(
                    &p.expr,
                    format!("{target}{e}; a valid plan has {}", humming_core::kernel::plan::PLAN_RULES),
                );
            }
        }
    }
    (errors.is_empty() && specs.len() == arches.len()).then_some(Targets { specs, plan })
}

fn set<T: Copy>(field: &mut T, arg: &Option<Arg<T>>) {
    if let Some(a) = arg {
        *field = a.value;
    }
}

/// Where to report `e` and what to say.
fn blame(args: &Args, parts: &SpecParts, e: &SpecError) -> (TokenStream, String) {
    let field = e.field();
    let given = match field {
        SpecField::Weight => args.weight.as_ref().map(|a| a.expr.to_token_stream()),
        SpecField::Act => args.act.as_ref().map(|a| a.expr.to_token_stream()),
        SpecField::Scale => args.scale.as_ref().map(|a| a.expr.to_token_stream()),
        SpecField::Group => args.group.as_ref().map(|a| a.expr.to_token_stream()),
        SpecField::ZeroPoint => args.zero_point.as_ref().map(|a| a.expr.to_token_stream()),
        SpecField::GlobalScale => args.global_scale.as_ref().map(|a| a.expr.to_token_stream()),
        SpecField::Out => args.out.as_ref().map(|a| a.expr.to_token_stream()),
        SpecField::Arch => args.arch.as_ref().map(|a| arch_tokens(a, parts.arch)),
    };
    if let Some(tokens) = given {
        return (tokens, format!("{e}"));
    }
    // A defaulted argument: scale and out default from act, so point there; anything else at
    // the attribute.
    let value = default_value(parts, field);
    match (field, &args.act) {
        (SpecField::Scale | SpecField::Out, Some(act)) => (
            act.expr.to_token_stream(),
            format!(
                "{e}\n(`{field} = {value}` was not written: it is the default for act = {}; write `{field} = ...` to choose another)",
                act.value
            ),
        ),
        _ => (
            tokens_at(Span::call_site()),
            format!("{e}\n(`{field} = {value}` was not written: it is the default; write `{field} = ...` to choose another)"),
        ),
    }
}

/// The element of an `arch = [...]` list for `arch`, else the whole value.
fn arch_tokens(list: &Arg<Vec<Arg<Arch>>>, arch: Arch) -> TokenStream {
    list.value.iter().find(|a| a.value == arch).map_or_else(|| list.expr.to_token_stream(), |a| a.expr.to_token_stream())
}

fn default_value(parts: &SpecParts, field: SpecField) -> String {
    match field {
        SpecField::Weight => parts.weight.to_string(),
        SpecField::Act => parts.act.to_string(),
        SpecField::Scale => parts.scale.to_string(),
        SpecField::Group => match parts.group {
            humming_core::ScaleGroup::Group(g) => g.to_string(),
            humming_core::ScaleGroup::PerChannel => "per_channel".into(),
        },
        SpecField::ZeroPoint => format!("{:?}", parts.zero_point).to_ascii_lowercase(),
        SpecField::GlobalScale => parts.global_scale.to_string(),
        SpecField::Out => parts.out.to_string(),
        SpecField::Arch => parts.arch.to_string(),
    }
}

/// A token at `span`, so that `syn::Error::new_spanned` reports exactly there.
fn tokens_at(span: Span) -> TokenStream {
    proc_macro2::Ident::new("humming_gemm", span).into_token_stream()
}
