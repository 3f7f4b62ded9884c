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
//! | `plan` | `(m_tiles = 1, n_warps = 4, k_warps = 2, bk = 128, stages = 4)`, optionally `swap = true`: one kernel for every M | one plan per M bucket |
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

#[cfg(test)]
mod tests {
    use super::expand;
    use proc_macro2::TokenStream;

    fn run(attr: &str, item: &str) -> String {
        let attr: TokenStream = attr.parse().expect("test attribute tokens");
        let item: TokenStream = item.parse().expect("test item tokens");
        expand(attr, item).to_string()
    }

    /// Odd input is an error, never a panic, and the item comes back unchanged.
    #[test]
    fn bad_input_is_an_error_with_the_item_kept() {
        let item = "pub fn kept_as_written () { }";
        for attr in [
            "",
            ",",
            "= u4",
            "weight",
            "weight =",
            "weight = u4 act = f16",
            "weight = u4, act = f16, weight = u4, act = bf16",
            "weight = [u4], act = (f16)",
            "weight = u0, act = f16",
            "weight = i1, act = f16",
            "weight = e0m3, act = f16",
            "weight = e7m1, act = f16",
            "weight = \"\", act = \"\"",
            "weight = u4, act = f16, group = 0",
            "weight = u4, act = f16, group = 4294967296",
            "weight = u4, act = f16, group = 2048",
            "weight = u4, act = f16, arch = [[sm_80]]",
            "weight = u4, act = f16, arch = sm_80 + sm_90",
            "weight = u4, act = f16, plan = ()",
            "weight = u4, act = f16, plan = (m_tiles = 0, n_warps = 0, k_warps = 0, bk = 0, stages = 0)",
            "weight = u4, act = f16, plan = (m_tiles = 99999999999, n_warps = 1, k_warps = 1, bk = 64, stages = 2)",
            "weight = u4, act = f16, plan = (m_tiles = 1, m_tiles = 1)",
            "weight = u4, act = f16, plan = (1, 2, 3, 4, 5)",
            "weight = u4, act = f16, plan = (m_tiles = 8, n_warps = 8, k_warps = 2, bk = 256, stages = 8)",
            "weight = u4, act = f16, emit_ptx = \"\"",
            "weight = u4, act = f16, global_scale = 1",
            "r#type = u4",
            "weight = u4, act = f16, zero_point = dynamic, zero_point = implicit",
        ] {
            let out = run(attr, item);
            assert!(out.contains("compile_error"), "`{attr}` gave no error: {out}");
            assert!(out.contains(item), "`{attr}` lost the item: {out}");
        }
        // Items that are not a fn, or fns the macro cannot take.
        for item in ["struct S;", "fn f() { 1 }", "fn f(a: u8) {}", "fn f(self) {}", "const fn f() {}", "extern \"C\" fn f() {}"] {
            let out = run("weight = u4, act = f16", item);
            assert!(out.contains("compile_error"), "`{item}` gave no error: {out}");
        }
    }

    /// On success: the module with the bundles and spec, the fn, and docs naming the spec and
    /// the plan of every M bucket.
    #[test]
    fn success_emits_the_module_and_the_fn_with_docs() {
        let out = run("weight = u4, act = bf16, arch = [sm_80, sm_90]", "/// Mine.\npub(crate) fn gemm() {}");
        assert!(!out.contains("compile_error"), "{out}");
        let (top, first) = humming_core::kernel::KernelPlan::buckets(humming_core::Arch::Sm80, 4)[0];
        let first_bucket = format!("M in 1..={top}: plan `{first}`");
        for want in [
            "pub (crate) mod gemm",
            "pub static BUNDLES",
            "pub fn spec ()",
            "pub (crate) fn gemm (stream",
            "launch_gemm :: < :: humming :: half :: bf16 , :: humming :: half :: bf16 >",
            "\" Mine.\"",
            "w_u4-a_bf16-s_bf16-g128-zp_implicit-o_bf16-sm_80",
            "w_u4-a_bf16-s_bf16-g128-zp_implicit-o_bf16-sm_90",
            first_bucket.as_str(),
            ".target sm_90",
        ] {
            assert!(out.contains(want), "missing `{want}`");
        }
    }
}
