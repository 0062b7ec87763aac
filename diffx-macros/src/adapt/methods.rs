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

use syn::{Expr, FnArg, Item, Receiver};

use crate::emit::{called, rewrite_calls};
use crate::names;

/// `items` (the method and its derivative functions) as associated functions taking `receiver`,
/// if there is one.
pub fn dress(items: Vec<Item>, receiver: Option<&Receiver>) -> Vec<Item> {
    let mut fns: Vec<syn::ItemFn> = items
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
    fns.into_iter().map(Item::Fn).collect()
}

/// Rewrites `g(args)` into `self.g(args)` (or `Self::g(args)` without a receiver) for the
/// generated functions `g`, and lowering's `__diffx_self::g(args)` (a call of another
/// `#[autodiff]` method, `self.g(…)`) into `self.g(args)`.
fn through_self(block: &mut syn::Block, names: &BTreeSet<String>, receiver: bool) {
    rewrite_calls(block, &mut |c| {
        let args = &c.args;
        if let Expr::Path(p) = &*c.func {
            if let [first, g] = p.path.segments.iter().collect::<Vec<_>>().as_slice() {
                if first.ident == names::SELF_PARAM {
                    let g = &g.ident;
                    return Some(syn::parse_quote!(self.#g(#args)));
                }
            }
        }
        let name = called(c, &|n| names.contains(n))?;
        Some(match receiver {
            true => syn::parse_quote!(self.#name(#args)),
            false => syn::parse_quote!(Self::#name(#args)),
        })
    });
}
