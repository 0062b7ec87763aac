//! The `#[autodiff]` attribute of [diffx](https://docs.rs/diffx): a small compiler from a Rust
//! numeric function to its derivative functions, written at compile time.
//!
//! The pipeline (see `expand.rs`): `parse` reads the attribute and signature, `lower` turns the body
//! into a Wengert list ([`ir`]), `forward` and `reverse` rewrite the list into tangent and adjoint
//! programs using the one derivative table in [`rules`], and `emit` writes them as Rust. All of it
//! is plain Rust over `proc_macro2`, tested without a compiler; this file only connects it to rustc.

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

/// Writes the derivative functions of a numeric function: `grad_f`, `value_and_grad_f`, `vjp_f`
/// (reverse mode) and `jvp_f` (forward mode); `hvp_f` and `hessian_f` with `order = 2` (second
/// order is opt-in: it is most of the code), `dhvp_f` and `d3_f` with `order = 3`; with the `explain`
/// feature also `explain_f`, its evaluation trace at a point. See the `diffx` crate for the full
/// contract.
#[proc_macro_attribute]
pub fn autodiff(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::autodiff(attr.into(), item.into()).into()
}

/// Makes a struct of tensors one differentiable parameter (`diffx::Params`): its gradient is a
/// value of the same struct, and optimizers update every tensor in it. Fields that are not
/// parameters are marked `#[params(skip)]`.
#[proc_macro_derive(Params, attributes(params))]
pub fn derive_params(input: TokenStream) -> TokenStream {
    derive::params(input.into()).into()
}

/// Gives a function a hand-written derivative, used instead of differentiating its body, by both
/// modes and by every `#[autodiff]` function that calls it:
/// `#[custom_derivative(jvp = f_jvp, vjp = f_vjp)]`, with an optional second-order rule
/// `hvp = f_hvp` for `hvp_f`, `hessian_f` and callers with `#[autodiff(order = 2)]`. See the
/// `diffx` crate for the rules' signatures.
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
