//! Emission: the only module that writes the final Rust. Turns the lists of the primal, forward and
//! reverse programs into the functions `#[autodiff]` adds beside the user's function.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::Func;
use crate::names;
use crate::tokens;

mod calls;
mod checkpoint;
mod control;
pub mod form;
mod functions;
pub mod jacobian;
pub mod nested;
pub mod second;
pub(crate) mod signature;
pub mod split;
mod stmt;
pub mod third;
mod trees;
pub mod tuples;

pub(crate) use functions::*;
pub(crate) use stmt::*;

/// The derivative function `prefix` of the function at `path`: `m::g` → `m::__diffx_vjp_g`.
/// A call of a tuple-valued function through its array version, `__diffx_array_g`, has the
/// derivative functions of `g` (which work on arrays), and so has a call with function arguments
/// through `__diffx_with_partials_g`.
pub fn derived_path(path: &syn::Path, prefix: &str) -> syn::Path {
    let mut p = path.clone();
    if let Some(last) = p.segments.last_mut() {
        let name = last.ident.to_string();
        let callee = names::callee(&name);
        let mut derived = names::derived(prefix, callee);
        derived.set_span(last.ident.span());
        last.ident = derived;
    }
    p
}

/// Whether `f` computes in a type parameter rather than `f64` or `f32`.
fn generic(f: &Func) -> bool {
    f.float.as_ref().is_some_and(tokens::is_generic)
}

/// `0.0` as a value of `f`'s float type.
pub(crate) fn zero(f: &Func) -> TokenStream {
    match &f.float {
        Some(float) => tokens::float_lit(float, "0.0"),
        None => quote!(0.0),
    }
}
