//! A whole function lowered: its parameters bound, its body a Wengert list.

use std::collections::BTreeSet;

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::ItemFn;

use super::Lowerer;
use crate::analyze::Facts;
use crate::builder::Builder;
use crate::ir::{Atom, Kind, Op, Var};
use crate::parse::Signature;
use crate::tokens;

/// The body as a Wengert list, and the value of each differentiable parameter; `facts` are the
/// body's ([`crate::analyze::body`]).
/// With `numbers` (second order asked for, which takes no tensors), a value of a kind the macro
/// cannot see (a struct's field) is a number: its methods take the rows for numbers.
pub fn function(
    item: &ItemFn,
    sig: &Signature,
    facts: Facts,
    numbers: bool,
) -> syn::Result<(Builder, Vec<Option<Var>>)> {
    let mut used = BTreeSet::new();
    tokens::idents(item.to_token_stream(), &mut used);
    let mut b = Builder::new(used, sig.float.clone());
    b.user_names = facts.user_names.clone();
    // Without tensors or parameter structs around, a call of another `#[autodiff]` function
    // returns a number (calls returning vectors are not supported yet).
    let numeric = |k: Kind| matches!(k, Kind::Scalar | Kind::Slice);
    if numeric(sig.ret_kind) && sig.params.iter().all(|p| !p.differentiable || p.numbers) {
        b.call_kind = Kind::Scalar;
    }
    // A function generic over its float type takes its struct's fields for numbers too: a
    // generic `T` has arithmetic by value only (`&T * T` is not `Float`'s).
    let structs = sig
        .params
        .iter()
        .any(|p| p.differentiable && p.kind == Kind::Other && !p.numbers);
    let numbers = numbers || (structs && tokens::is_generic(&sig.float));
    b.func.numbers = numbers;
    let mut l = Lowerer::new(&mut b);
    l.facts = facts;
    l.self_type = sig.self_type.clone();
    l.returning_self = sig.returning_self.clone();
    l.own_result = sig.ret_kind == Kind::Other;
    let mut params = Vec::new();
    for p in &sig.params {
        if p.differentiable {
            let v = l.b.named(
                p.name.clone(),
                p.kind,
                matches!(p.ty, syn::Type::Reference(_)),
            );
            l.bind(&p.name.to_string(), Atom::Var(v));
            l.param_types.insert(v, p.ty.clone());
            // (A parameter of the block's own type is a value of the user's type.)
            if p.kind == Kind::Other && names_type(&p.ty, sig.self_type.as_ref()) {
                l.b.func.own_values.push(v);
            }
            params.push(Some(v));
        } else {
            l.b.reserve(&p.name);
            l.bind(
                &p.name.to_string(),
                Atom::constant(p.name.to_token_stream()),
            );
            params.push(None);
        }
    }
    let ret = l.block(&item.block.stmts, true);
    let mut errors = std::mem::take(&mut l.errors);
    match ret {
        // A place of a parameter returned as it is (`x[0]`, `p.w`): a value of the list of its
        // own, which the backward sweep seeds (a place is not one).
        Ok(Some(r @ Atom::Field(..))) => {
            let kind = b.func.atom_kind(&r);
            let v = b.op_of_kind(Op::Id, vec![r], item.block.span(), kind);
            b.func.ret = Some(Atom::Var(v));
        }
        Ok(Some(r)) => b.func.ret = Some(r),
        Ok(None) if errors.is_empty() => errors.push(syn::Error::new(
            item.block.span(),
            "the body must end with the value to return: an expression without `;`, or `return …;`",
        )),
        Ok(None) => {}
        Err(e) => errors.push(e),
    }
    match errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok((b, params)),
    }
}

/// Whether `ty` (behind references) is the type named `name`.
fn names_type(ty: &syn::Type, name: Option<&proc_macro2::Ident>) -> bool {
    match ty {
        syn::Type::Reference(r) => names_type(&r.elem, name),
        syn::Type::Path(p) => p.path.segments.last().map(|s| &s.ident) == name && name.is_some(),
        _ => false,
    }
}
