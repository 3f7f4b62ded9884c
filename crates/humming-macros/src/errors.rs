//! [`Errors`]: every error of one expansion, combined into one `syn::Error` so that the user sees
//! all of them at once (rustc reports each at its own span).

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

/// An accumulator of `syn::Error`s.
#[derive(Default)]
pub struct Errors {
    all: Option<syn::Error>,
}

impl Errors {
    pub fn push(&mut self, e: syn::Error) {
        match &mut self.all {
            Some(all) => all.combine(e),
            None => self.all = Some(e),
        }
    }

    /// An error at `span`.
    pub fn at(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.push(syn::Error::new(span, msg));
    }

    /// An error spanning every token of `tokens` (first to last, also on stable rustc).
    pub fn spanning(&mut self, tokens: impl ToTokens, msg: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, msg));
    }

    pub fn is_empty(&self) -> bool {
        self.all.is_none()
    }

    /// The `compile_error!` invocations of every error pushed so far.
    pub fn into_compile_errors(self) -> TokenStream {
        self.all.map(|e| e.to_compile_error()).unwrap_or_default()
    }
}
