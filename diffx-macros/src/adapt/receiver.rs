//! A method differentiated with respect to its receiver (`#[autodiff(wrt(self, x))]`): on the way
//! in, an associated function taking the receiver as its first parameter `__diffx_self: &Self`,
//! which the pipeline differentiates as a parameter struct; on the way out, the public functions
//! methods again.

use proc_macro2::Ident;
use quote::quote;
use quote::ToTokens;
use syn::{Item, ItemFn, Receiver};

use crate::emit::{self, form::Parts};

use crate::names;
use crate::parse;
use crate::tokens;

/// For a method with `wrt(self, …)`: the method as an associated function taking `self` as its
/// first parameter, the arguments with `self` renamed, and the receiver to give back.
pub fn into_core(item: &ItemFn, args: &parse::Args) -> Option<(ItemFn, parse::Args, Receiver)> {
    let wrt = args.wrt.as_ref()?;
    wrt.iter().find(|n| *n == "self")?;
    let receiver = item.sig.receiver()?.clone();
    let name = Ident::new(names::SELF_PARAM, receiver.self_token.span);
    let mut as_fn = item.clone();
    let ty = &receiver.ty;
    as_fn.sig.inputs[0] = syn::parse_quote!(#name: #ty);
    // (On tokens, so that `self` in the user's macros, `println!("{}", self.k)`, is renamed too.)
    let body = tokens::replace_all(item.block.to_token_stream(), &mut |id| {
        (id == "self").then(|| name.to_token_stream())
    });
    *as_fn.block = syn::parse2(body).ok()?;
    let wrt = wrt
        .iter()
        .map(|n| if n == "self" { name.clone() } else { n.clone() })
        .collect();
    let args = parse::Args {
        wrt: Some(wrt),
        ..args.clone()
    };
    Some((as_fn, args, receiver))
}

/// The way out: what was written for the associated function, with the user's `method` as
/// written, and the functions written for it methods again, taking `receiver` and reading it as
/// `__diffx_self`.
pub struct Dress {
    pub method: ItemFn,
    pub receiver: Receiver,
}

impl emit::form::Dress for Dress {
    fn primal(&self, items: Vec<Item>) -> Vec<Item> {
        super::at_primal(items, &self.method.sig.ident, |_| {
            vec![super::user(&self.method, true)]
        })
    }

    // The stubs that report a misuse (`hessian_` without `order = 2`) take a type parameter
    // first and stay associated functions. The hidden functions are methods too: a caller's
    // `e.det()` calls `e.__diffx_vjp_det(ct)` on a receiver whose type it does not know.
    fn function(&self, p: &mut Parts) -> Vec<Parts> {
        if p.f.stub.is_some() || p.f.params.is_empty() {
            return Vec::new();
        }
        let first = p.f.params.remove(0);
        p.receiver = Some(self.receiver.clone());
        if let Some(name) = &first.name {
            p.f.prepend(quote!(let #name = self;));
        }
        Vec::new()
    }
}
