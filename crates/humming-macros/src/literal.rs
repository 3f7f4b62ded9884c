//! A [`GemmBundle`] as a constant expression: the value the generator returned, written out with
//! every `Cow` borrowed, so that it can be a `static`.

use humming_core::kernel::{CompiledKernel, GemmBundle, GemmVariant, KernelPlan};
use humming_core::{ActFormat, Arch, OutFormat, ScaleFormat, ScaleGroup, SpecParts, WeightFormat, ZeroPoint};
use proc_macro2::TokenStream;
use quote::quote;

pub fn bundle(b: &GemmBundle) -> TokenStream {
    let spec = spec_parts(&b.spec);
    let generator = b.generator.as_ref();
    let variants = b.variants.iter().map(variant);
    let lean = b.lean.iter().map(variant);
    let reduce = kernel(&b.reduce);
    quote! {
        ::humming::core::kernel::GemmBundle {
            spec: #spec,
            generator: ::std::borrow::Cow::Borrowed(#generator),
            variants: ::std::borrow::Cow::Borrowed(&[#(#variants),*]),
            lean: ::std::borrow::Cow::Borrowed(&[#(#lean),*]),
            reduce: #reduce,
        }
    }
}

fn variant(v: &GemmVariant) -> TokenStream {
    let max_m = v.max_m;
    let plan = plan(&v.plan);
    let main = kernel(&v.main);
    quote! { ::humming::core::kernel::GemmVariant { max_m: #max_m, plan: #plan, main: #main } }
}

pub fn plan(p: &KernelPlan) -> TokenStream {
    let KernelPlan { m_tiles, n_warps, k_warps, bk, stages, swap, wgmma, halves, ws } = *p;
    quote! {
        ::humming::core::kernel::KernelPlan {
            m_tiles: #m_tiles, n_warps: #n_warps, k_warps: #k_warps, bk: #bk, stages: #stages, swap: #swap, wgmma: #wgmma, halves: #halves, ws: #ws,
        }
    }
}

fn kernel(k: &CompiledKernel) -> TokenStream {
    let (name, ptx, threads, ptx_id) = (k.name.as_ref(), k.ptx.as_ref(), k.threads, k.ptx_id);
    let (major, minor) = (k.ptx_version.major, k.ptx_version.minor);
    quote! {
        ::humming::core::kernel::CompiledKernel {
            name: ::std::borrow::Cow::Borrowed(#name),
            ptx: ::std::borrow::Cow::Borrowed(#ptx),
            ptx_version: ::humming::core::ir::ptx::PtxVersion::new(#major, #minor),
            threads: #threads,
            ptx_id: #ptx_id,
        }
    }
}

pub fn spec_parts(p: &SpecParts) -> TokenStream {
    let weight = match p.weight {
        WeightFormat::UInt(b) => quote!(::humming::core::WeightFormat::UInt(#b)),
        WeightFormat::SInt(b) => quote!(::humming::core::WeightFormat::SInt(#b)),
        WeightFormat::Float(f) => {
            let (e, m) = (f.exp_bits(), f.man_bits());
            // Valid by construction (it was parsed).
            quote!(::humming::core::WeightFormat::Float(::humming::core::FloatFormat::new_const(#e, #m)))
        }
    };
    let act = match p.act {
        ActFormat::F16 => quote!(F16),
        ActFormat::Bf16 => quote!(Bf16),
        ActFormat::E4m3 => quote!(E4m3),
        ActFormat::E5m2 => quote!(E5m2),
        ActFormat::Int8 => quote!(Int8),
        ActFormat::Int4 => quote!(Int4),
    };
    let scale = match p.scale {
        ScaleFormat::F16 => quote!(F16),
        ScaleFormat::Bf16 => quote!(Bf16),
        ScaleFormat::E4m3 => quote!(E4m3),
        ScaleFormat::E5m2 => quote!(E5m2),
        ScaleFormat::Ue8m0 => quote!(Ue8m0),
    };
    let group = match p.group {
        ScaleGroup::Group(g) => quote!(Group(#g)),
        ScaleGroup::PerChannel => quote!(PerChannel),
    };
    let zero_point = match p.zero_point {
        ZeroPoint::Implicit => quote!(Implicit),
        ZeroPoint::Dynamic => quote!(Dynamic),
    };
    let out = match p.out {
        OutFormat::F16 => quote!(F16),
        OutFormat::Bf16 => quote!(Bf16),
    };
    let arch = match p.arch {
        Arch::Sm75 => quote!(Sm75),
        Arch::Sm80 => quote!(Sm80),
        Arch::Sm86 => quote!(Sm86),
        Arch::Sm89 => quote!(Sm89),
        Arch::Sm90 => quote!(Sm90),
        Arch::Sm90a => quote!(Sm90a),
    };
    let global_scale = p.global_scale;
    quote! {
        ::humming::core::SpecParts {
            weight: #weight,
            act: ::humming::core::ActFormat::#act,
            scale: ::humming::core::ScaleFormat::#scale,
            group: ::humming::core::ScaleGroup::#group,
            zero_point: ::humming::core::ZeroPoint::#zero_point,
            global_scale: #global_scale,
            out: ::humming::core::OutFormat::#out,
            arch: ::humming::core::Arch::#arch,
        }
    }
}
