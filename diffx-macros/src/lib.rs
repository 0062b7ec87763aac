//! The procedural macros of [diffx](https://docs.rs/diffx-ad): `#[autodiff]`,
//! `#[custom_derivative]` and `#[derive(Params)]`. Use them through the `diffx-ad` crate
//! (`use diffx::autodiff;`), whose documentation states their contracts with examples and holds
//! the guide; the code they write calls `diffx`'s runtime.
//!
//! Inside, `#[autodiff]` is a small compiler from a Rust numeric function to its derivative
//! functions (see `expand.rs`): `parse` reads the attribute and signature, `desugar` rewrites
//! Rust's conveniences into a small core, `lower` turns the body into a Wengert list (`ir`),
//! `forward` and `reverse` rewrite the list into tangent and adjoint programs using the one
//! derivative table in `rules`, and `emit` writes them as Rust. All of it is plain Rust over
//! `proc_macro2`, tested without a compiler; this file only connects it to rustc. The repository's
//! `ARCHITECTURE.md` describes the layers.

mod builder;
mod custom;
mod derive;
mod desugar;
mod emit;
mod expand;
#[cfg(feature = "explain")]
mod explain;
mod forward;
pub(crate) mod ir;
mod liveness;
mod lower;
mod parse;
mod reverse;
pub(crate) mod rules;
mod tape;
mod tokens;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;

/// In short: `grad_f`, `value_and_grad_f` and `vjp_f` (reverse mode) and `jvp_f` (forward mode)
/// beside `f`; `hvp_f` and `hessian_f` with `order = 2`, `dhvp_f` and `d3_f` with `order = 3`;
/// `explain_f` with the `explain` feature. Arguments: `wrt(…)`, `order = 1 | 2 | 3`.
#[proc_macro_attribute]
pub fn autodiff(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::autodiff(attr.into(), item.into()).into()
}

/// In short: implements `diffx::Params` for a struct of numbers, arrays, `Vec`s, tensors and
/// parameter structs, so that its gradient is a value of the same struct; fields that are not
/// parameters are marked `#[params(skip)]`.
#[proc_macro_derive(Params, attributes(params))]
pub fn derive_params(input: TokenStream) -> TokenStream {
    derive::params(input.into()).into()
}

/// In short: `#[custom_derivative(jvp = f_jvp, vjp = f_vjp)]`, optionally with `hvp = f_hvp`:
/// hand-written rules used instead of differentiating the body, by `f`'s generated functions and
/// by every `#[autodiff]` function that calls `f`.
#[proc_macro_attribute]
pub fn custom_derivative(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item2: proc_macro2::TokenStream = item.into();
    match custom::expand(attr.into(), item2.clone()) {
        Ok(ts) => ts.into(),
        Err(e) => {
            let errors = e.to_compile_error();
            quote::quote!(#item2 #errors).into()
        }
    }
}
