//! Runs the generator (the public [`GemmBundle::build`]) for every target, and writes the PTX for
//! inspection when `emit_ptx` asks for it.

use crate::args::Args;
use crate::errors::Errors;
use crate::spec::Targets;
use humming_core::kernel::{GemmBundle, KernelError};
use proc_macro2::Span;
use quote::ToTokens;
use std::path::PathBuf;

/// One bundle per target, in the targets' order; `None` on any generator error (in `errors`).
pub fn bundles(targets: &Targets, args: &Args, errors: &mut Errors) -> Option<Vec<GemmBundle>> {
    let mut out = Vec::new();
    for spec in &targets.specs {
        let built = match targets.plan {
            Some(plan) => GemmBundle::build(spec, &[(u32::MAX, plan)]),
            None => GemmBundle::build_default(spec),
        };
        match built {
            Ok(b) => out.push(b),
            Err(e) => {
                let msg = format!("cannot generate the kernels of {spec}: {e}");
                match (&e, &args.plan, &args.weight) {
                    (KernelError::Plan(_), Some(plan), _) => errors.spanning(&plan.expr, msg),
                    (KernelError::Unsupported { .. }, _, Some(w)) => errors.spanning(&w.expr, msg),
                    _ => errors.at(Span::call_site(), msg),
                }
            }
        }
    }
    (out.len() == targets.specs.len()).then_some(out)
}

/// Writes every PTX module of `bundles` to `dir` (relative to `CARGO_MANIFEST_DIR`) as
/// `<target>/<entry name>.ptx` (the split-K reduce has one name on every target). A failure is an error at the `emit_ptx` value.
pub fn emit_ptx(bundles: &[GemmBundle], args: &Args, errors: &mut Errors) {
    let Some(arg) = &args.emit_ptx else { return };
    let base = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_default();
    let dir = base.join(&arg.value);
    let result = bundles.iter().try_for_each(|b| {
        let dir = dir.join(b.spec.arch.name());
        std::fs::create_dir_all(&dir)?;
        b.all_variants()
            .map(|v| &v.main)
            .chain([&b.reduce])
            .try_for_each(|k| std::fs::write(dir.join(format!("{}.ptx", k.name)), k.ptx.as_bytes()))
    });
    if let Err(e) = result {
        errors.spanning(arg.expr.to_token_stream(), format!("emit_ptx: cannot write the PTX to {}: {e}", dir.display()));
    }
}
