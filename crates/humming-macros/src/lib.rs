//! The `#[humming_gemm(...)]` attribute macro: generates a quantized GEMM's kernels at compile
//! time (PTX for every target, one plan per M bucket) and a function that launches them.
//!
//! ```ignore
//! use humming::macros::humming_gemm;
//!
//! /// My layer's GEMM.
//! #[humming_gemm(weight = u4, act = f16, group = 128, arch = [sm_80, sm_90])]
//! pub fn w4a16() {}
//!
//! // pub mod w4a16 { pub static BUNDLES: &[GemmBundle]; pub fn spec() -> Spec }
//! // pub fn w4a16(stream: &Stream, x: &DeviceBuf<f16>, w: &GpuWeights, y: &mut DeviceBuf<f16>)
//! //     -> Result<(), RuntimeError>
//! ```
//!
//! Arguments (`name = value`, comma-separated; names may be identifiers or strings):
//!
//! | argument | values | default |
//! |---|---|---|
//! | `weight` | any weight format: `u1`..`u8`, `i2`..`i8`, `e{E}m{M}` (`e2m1`, `e3m2`, ...), `fp8_e4m3`, ... | required |
//! | `act` | `f16`, `bf16` | required |
//! | `out` | `f16`, `bf16` | act's type |
//! | `scale` | `f16`, `bf16`, `e4m3`, `e5m2`, `ue8m0` | act's type |
//! | `group` | a power of two `16..=1024`, or `per_channel` | `128` |
//! | `zero_point` | `implicit`, `dynamic` | `implicit` |
//! | `global_scale` | `true`, `false` | `false` |
//! | `arch` | `sm_80` or a list `[sm_80, sm_90]` (`sm_75`, `sm_80`, `sm_86`, `sm_89`, `sm_90`, `sm_90a`) | `sm_80` |
//! | `plan` | `(m_tiles = 1, n_warps = 4, k_warps = 2, bk = 128, stages = 4)`: one kernel for every M | one plan per M bucket |
//! | `emit_ptx` | `"dir"`: writes every PTX module to `dir/<target>/<entry>.ptx` (relative to `CARGO_MANIFEST_DIR`) | none |
//!
//! Every error (a bad argument, each violated spec rule, a bad plan, a non-empty body, ...) is
//! reported at the argument or code to blame, all at once; the function is then emitted
//! unchanged so that the rest of the crate still type-checks.

mod args;
mod emit;
mod errors;
mod generate;
mod literal;
mod signature;
mod spec;
mod values;

use errors::Errors;
use proc_macro::TokenStream;
use quote::quote;

/// Generates the kernels of a quantized GEMM spec and a function that launches them; see the
/// [crate docs](crate) for the arguments.
#[proc_macro_attribute]
pub fn humming_gemm(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand(attr.into(), item.into()).into()
}

fn expand(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let mut errors = Errors::default();
    let args = args::parse(attr, &mut errors);
    let f = match syn::parse2::<syn::ItemFn>(item.clone()) {
        Ok(f) => Some(f),
        Err(_) => {
            errors.at(
                proc_macro2::Span::call_site(),
                "#[humming_gemm] goes on a function: `#[humming_gemm(weight = u4, act = f16)] pub fn my_gemm() {}`",
            );
            None
        }
    };
    let params = f.as_ref().and_then(|f| signature::check(f, &mut errors));
    let targets = spec::build(&args, &mut errors);
    let (Some(f), Some(targets), true) = (f, targets, errors.is_empty()) else {
        return with_item(errors, item);
    };
    let Some(bundles) = generate::bundles(&targets, &args, &mut errors) else {
        return with_item(errors, item);
    };
    generate::emit_ptx(&bundles, &args, &mut errors);
    if !errors.is_empty() {
        return with_item(errors, item);
    }
    emit::expand(&f, &params, &bundles)
}

/// The errors and the user's item unchanged, so that editors and the rest of the crate keep
/// working while the attribute is wrong.
fn with_item(errors: Errors, item: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let errors = errors.into_compile_errors();
    quote!(#errors #item)
}
