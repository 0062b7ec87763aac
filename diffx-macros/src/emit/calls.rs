//! Calls of other `#[autodiff]` functions through their derived functions (`__diffx_jvp_g`,
//! `__diffx_vjp_g`, `__diffx_split_g`, `__diffx_hvp_g`), and of the pullbacks split calls return,
//! as Rust.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::stmt::{call, call_args, operand, Mutable};
use super::{derived_path, zero};
use crate::ir::operands::{by_ref, place};
use crate::ir::{Atom, Call, CallKind, Func, Kind, Stash, Var};
use crate::names;

/// The statement `c`, binding with `mut` the values in `mutable`.
pub(super) fn stmt(f: &Func, c: &Call, mutable: &Mutable) -> TokenStream {
    // What binds `outs`: `mut g`, or `_` for a value not wanted.
    let pattern = |vs: &[Option<Var>]| -> Vec<TokenStream> {
        vs.iter()
            .map(|v| match v {
                Some(v) => {
                    let (mt, name) = (mutable.contains(v).then(|| quote!(mut)), f.name(*v));
                    quote!(#mt #name)
                }
                None => quote!(_),
            })
            .collect()
    };
    let a = call_args(f, &c.args);
    let ct = c.ct.map(|ct| f.name(ct));
    let (outs, wanted) = (pattern(&c.outs), c.outs.iter().map(Option::is_some));
    match &c.kind {
        CallKind::Jvp { path, span } => {
            let path = derived_path(path, "jvp");
            let outs = c.outs.iter().flatten().map(|v| f.name(*v));
            // At the user's call: a tangent for a parameter the callee leaves out (`NoTangent`).
            let t = c.tangents.iter().map(|t| match t {
                Some(t) => crate::tokens::locate(tangent_arg(f, t), *span),
                None => quote!(::diffx::__private::Zero),
            });
            let call = call(&path, a.into_iter().chain(t).collect());
            quote!(let (#(#outs),*) = #call;)
        }
        CallKind::Vjp(path) if c.into.iter().all(Option::is_none) => {
            let path = derived_path(path, "vjp");
            let call = call(&path, a.into_iter().chain([quote!(#ct)]).collect());
            quote!(let (_, (#(#outs,)*)) = #call;)
        }
        // Offered buffers go through the pullback: `vjp` takes none.
        CallKind::Vjp(path) => {
            let path = derived_path(path, "split");
            let pb = Ident::new("__pullback", Span::mixed_site());
            let slots = slots(f, &c.into);
            let split = call(&path, a.clone());
            quote! {
                let (#(#outs,)*) = {
                    let (_, #pb) = #split;
                    #pb(#(#a,)* #ct, [#(#wanted),*], #slots)
                };
            }
        }
        CallKind::Pullback(pullback) => {
            let slots = slots(f, &c.into);
            quote!(let (#(#outs,)*) = #pullback(#(#a,)* #ct, [#(#wanted),*], #slots);)
        }
        CallKind::Split {
            path,
            pullback,
            stash,
        } => {
            let path = derived_path(path, "split");
            split(f, c, &outs, pullback, call(&path, a), stash.as_ref())
        }
        CallKind::Hvp { path, ct_dot } => {
            let path = derived_path(path, "hvp");
            let mut a = a;
            receiver_at_call(&path, &mut a);
            let t = c.tangents.iter().map(|t| match t {
                Some(t) => tangent_arg(f, t),
                None => quote!(::diffx::__private::Zero),
            });
            let ct_dot = ct_dot.as_ref().map_or_else(|| zero(f), |t| place(f, t));
            // (`outs`: the gradients, then their tangents.)
            let (g, d) = outs.split_at(outs.len() / 2);
            let tail = [quote!(#ct), ct_dot];
            let call = call(&path, a.into_iter().chain(t).chain(tail).collect());
            quote!(let (_, (#(#g,)*), (#(#d,)*)) = #call;)
        }
    }
}

/// `(y, pullback) = call` of a split call `c`, binding `outs`, its value and pullback pushed on or
/// popped from a tape as `stash` says.
fn split(
    f: &Func,
    c: &Call,
    outs: &[TokenStream],
    pullback: &Ident,
    call: TokenStream,
    stash: Option<&Stash>,
) -> TokenStream {
    // (`outs` is the value alone.)
    let value = c.outs.iter().flatten().map(|v| f.name(*v));
    match stash {
        None => quote!(let (#(#outs,)* #pullback) = #call;),
        Some(Stash::Push(tape)) if f.slots.contains(tape) => quote! {
            let (#(#outs,)* #pullback) = #call;
            #tape = ::core::option::Option::Some((#(::core::clone::Clone::clone(&#value),)* #pullback));
        },
        Some(Stash::Push(tape)) => quote! {
            let (#(#outs,)* #pullback) = #call;
            #tape.push((#(::core::clone::Clone::clone(&#value),)* #pullback));
        },
        Some(Stash::Pop(tape)) => {
            let pop = match f.slots.contains(tape) {
                true => quote!(take),
                false => quote!(pop),
            };
            quote! {
                let ::core::option::Option::Some((#(#outs,)* #pullback)) = #tape.#pop() else {
                    ::core::unreachable!("the call's tape holds one entry per iteration")
                };
            }
        }
    }
}

/// The first argument of the `hvp` call `path` spanned at the user's call, where a callee without
/// second order is reported. (A method's receiver by reference: the backward sweep reads it
/// again, and a value of the user's type need not be `Copy`.)
fn receiver_at_call(path: &syn::Path, args: &mut [TokenStream]) {
    let method = path
        .segments
        .first()
        .is_some_and(|s| s.ident == names::METHOD);
    if let (Some(first), Some(seg)) = (args.first_mut(), path.segments.last()) {
        let a = Ident::new("__arg", seg.ident.span().resolved_at(Span::mixed_site()));
        let by_ref = match method {
            true => quote!(&),
            false => quote!(),
        };
        *first = quote::quote_spanned!(seg.ident.span() => { let #a = #by_ref #first; #a });
    }
}

/// A tangent handed to a call: a whole value of a kind the macro cannot see (a struct's tangent)
/// by reference, as the callee may take it more than once; anything else as an operand.
fn tangent_arg(f: &Func, t: &Atom) -> TokenStream {
    match t {
        Atom::Var(v) if f.kind(*v) == Kind::Other => by_ref(f, t),
        _ => operand(f, t),
    }
}

/// What a call's pullback is offered for each argument's gradient (`diffx::__private::Slot`):
/// the caller's adjoint `into` names, or nothing.
fn slots(f: &Func, into: &[Option<Var>]) -> TokenStream {
    let offers = into.iter().map(|v| match v {
        Some(v) => {
            let name = f.name(*v);
            quote!(::diffx::__private::Slot::slot(&mut #name))
        }
        None => quote!(::diffx::__private::NoSlot::none()),
    });
    quote!((#(#offers,)*))
}
