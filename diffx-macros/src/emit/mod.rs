//! Emission: the only module that writes the final Rust. Turns the lists of the primal, forward and
//! reverse programs into the functions `#[autodiff]` adds beside the user's function.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::ir::Func;
use crate::names;
use crate::tokens;

mod calls;
mod checkpoint;
mod control;
pub mod form;
mod functions;
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

/// Replaces each call in `block` for which `f` gives an expression (inner calls first): the
/// calls among the generated functions of an adapted function redirected (`adapt/`).
pub(crate) fn rewrite_calls(
    block: &mut syn::Block,
    f: &mut dyn FnMut(&syn::ExprCall) -> Option<syn::Expr>,
) {
    struct Calls<'a>(&'a mut dyn FnMut(&syn::ExprCall) -> Option<syn::Expr>);
    impl syn::visit_mut::VisitMut for Calls<'_> {
        fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
            syn::visit_mut::visit_expr_mut(self, e);
            if let syn::Expr::Call(c) = e {
                if let Some(new) = (self.0)(c) {
                    *e = new;
                }
            }
        }
    }
    syn::visit_mut::VisitMut::visit_block_mut(&mut Calls(f), block);
}

/// The name a call calls, if it is a single identifier among `names`.
pub(crate) fn called<'c>(c: &'c syn::ExprCall, names: &dyn Fn(&str) -> bool) -> Option<&'c Ident> {
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    p.path.get_ident().filter(|i| names(&i.to_string()))
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
