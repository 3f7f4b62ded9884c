//! The annotated function: what the user may write (a name, a visibility, attributes, and either
//! no parameters or the four `stream, x, w, y` with their types) and what they may not (a body,
//! generics, a return type, qualifiers).

use crate::errors::Errors;
use syn::{FnArg, Ident, ItemFn, Pat, ReturnType, Type};

/// The parameter names, in order.
pub const PARAMS: [&str; 4] = ["stream", "x", "w", "y"];

/// A parameter as the user wrote it.
pub struct Param {
    pub name: Ident,
    pub ty: Type,
}

/// The user's parameters: `None` when they wrote none (the macro writes them).
pub type Params = Option<Vec<Param>>;

/// Checks `f`; every problem goes to `errors`.
pub fn check(f: &ItemFn, errors: &mut Errors) -> Params {
    let sig = &f.sig;
    if !f.block.stmts.is_empty() {
        errors.spanning(&f.block, "the body is generated; leave it empty: `{}`");
    }
    if let Some(c) = &sig.constness {
        errors.spanning(c, "a #[humming_gemm] fn cannot be `const`: it launches a kernel");
    }
    if let Some(a) = &sig.asyncness {
        errors.spanning(a, "a #[humming_gemm] fn cannot be `async`: the launch is asynchronous on the stream already");
    }
    if let Some(u) = &sig.unsafety {
        errors.spanning(u, "a #[humming_gemm] fn is safe: the launch checks every shape and type; remove `unsafe`");
    }
    if let Some(abi) = &sig.abi {
        errors.spanning(abi, "a #[humming_gemm] fn has the Rust ABI; remove the `extern`");
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.spanning(&sig.generics, "a #[humming_gemm] fn takes no generic parameters: the spec fixes every type");
    }
    if let Some(v) = &sig.variadic {
        errors.spanning(v, "a #[humming_gemm] fn is not variadic");
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        errors.spanning(
            &sig.output,
            format!(
                "the return type is generated (`Result<(), humming::cuda::RuntimeError>`); remove `-> {}`",
                quote::ToTokens::to_token_stream(ty)
            ),
        );
    }
    if sig.inputs.is_empty() {
        return None;
    }
    if sig.inputs.len() != PARAMS.len() {
        errors.spanning(
            &sig.inputs,
            format!(
                "a #[humming_gemm] fn takes no parameters (the macro writes them) or exactly four: \
                 `stream: &Stream, x: &DeviceBuf<A>, w: &GpuWeights, y: &mut DeviceBuf<O>`; found {}",
                sig.inputs.len()
            ),
        );
        return None;
    }
    let mut params = Vec::new();
    for (arg, role) in sig.inputs.iter().zip(PARAMS) {
        match arg {
            FnArg::Receiver(r) => errors.spanning(r, "a #[humming_gemm] fn is a free function; it takes no `self`"),
            FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                    params.push(Param { name: p.ident.clone(), ty: (*t.ty).clone() })
                }
                other => errors.spanning(
                    other,
                    format!("the parameter in the place of `{role}` needs a plain name (the macro passes it on)"),
                ),
            },
        }
    }
    (params.len() == PARAMS.len()).then_some(params)
}
