//! The derivative functions of a method, as methods of the same `impl`: each takes the method's
//! receiver first, and calls among the generated functions go through `self`
//! (`spring.grad_energy(x)` calls `self.__diffx_vjp_energy(x, 1.0)`). Those of an associated
//! function without a receiver (one whose signature names `Self`) are associated functions that
//! call each other through `Self::`.
//!
//! The functions are written as for a free function and rewritten here, so no other stage knows
//! about receivers. `self` itself is a constant: the body reads it as it reads any name that is not
//! a differentiable parameter.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Expr, FnArg, Item, Receiver};

use crate::names;

/// `items` (the method and its derivative functions) as associated functions taking `receiver`,
/// if there is one.
pub fn methods(items: TokenStream, receiver: Option<&Receiver>) -> syn::Result<TokenStream> {
    let file: syn::File = syn::parse2(items)?;
    let mut fns: Vec<syn::ItemFn> = file
        .items
        .into_iter()
        .filter_map(|i| match i {
            Item::Fn(f) => Some(f),
            // `const _: () = { let _ = f; };` keeps a free function used; an `impl` has no such item.
            _ => None,
        })
        .collect();
    let names: BTreeSet<String> = fns.iter().map(|f| f.sig.ident.to_string()).collect();
    // The first function is the user's: the derivative functions follow it.
    let primal_name = fns.first().map(|f| f.sig.ident.to_string());
    for f in &mut fns {
        let primal = Some(f.sig.ident.to_string()) == primal_name;
        match receiver {
            // The method itself: the user may call only its derivatives.
            _ if primal => f.attrs.push(syn::parse_quote!(#[allow(dead_code)])),
            Some(r) => f.sig.inputs.insert(0, FnArg::Receiver(r.clone())),
            None => {}
        }
        if !primal {
            through_self(&mut f.block, &names, receiver.is_some());
        }
    }
    Ok(quote!(#(#fns)*))
}

/// `items` written for a method with `wrt(self, …)` as an associated function (`__diffx_self: &Self`
/// first): the user's method as written, the hidden functions associated, and the public ones
/// methods again, taking `receiver` and reading it as `__diffx_self`.
pub fn receiver_wrappers(
    items: TokenStream,
    receiver: &Receiver,
    method: &syn::ItemFn,
) -> syn::Result<TokenStream> {
    let file: syn::File = syn::parse2(items)?;
    let mut out = Vec::new();
    for item in file.items {
        let Item::Fn(mut f) = item else { continue };
        if f.sig.ident == method.sig.ident {
            let mut m = method.clone();
            m.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
            out.push(quote!(#m));
            continue;
        }
        // The stubs that report a misuse (`hessian_` without `order = 2`) take a type parameter
        // first and stay associated functions.
        let stub = !f.sig.generics.params.is_empty();
        if !names::is_generated(&f.sig.ident.to_string()) && !f.sig.inputs.is_empty() && !stub {
            if let FnArg::Typed(t) = f.sig.inputs[0].clone() {
                f.sig.inputs[0] = FnArg::Receiver(receiver.clone());
                let pat = &t.pat;
                f.block.stmts.insert(0, syn::parse_quote!(let #pat = self;));
            }
        }
        out.push(quote!(#f));
    }
    Ok(quote!(#(#out)*))
}

/// Rewrites `g(args)` into `self.g(args)` (or `Self::g(args)` without a receiver) for the
/// generated functions `g`, and lowering's `__diffx_self::g(args)` (a call of another
/// `#[autodiff]` method, `self.g(…)`) into `self.g(args)`.
fn through_self(block: &mut syn::Block, names: &BTreeSet<String>, receiver: bool) {
    super::rewrite_calls(block, &mut |c| {
        let args = &c.args;
        if let Expr::Path(p) = &*c.func {
            if let [first, g] = p.path.segments.iter().collect::<Vec<_>>().as_slice() {
                if first.ident == names::SELF_PARAM {
                    let g = &g.ident;
                    return Some(syn::parse_quote!(self.#g(#args)));
                }
            }
        }
        let name = super::called(c, &|n| names.contains(n))?;
        Some(match receiver {
            true => syn::parse_quote!(self.#name(#args)),
            false => syn::parse_quote!(Self::#name(#args)),
        })
    });
}
