//! The IR's notation for operands: how an [`Atom`] reads as Rust (a name, a field path, a constant
//! in parentheses), as a place, a value, a reference or an owned copy.
//!
//! It belongs to the IR, not to emission: a rule's maps ([`super::Op::Map`]) bind their operands
//! in it, and lowering compares operands by it.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use super::{Atom, Func, Kind};
use crate::tokens::paren;

/// An operand as a value or place: `x`, `model.l1.w`, `(n as f64)`.
pub fn place(f: &Func, a: &Atom) -> TokenStream {
    match a {
        Atom::Var(v) => f.name(*v).to_token_stream(),
        Atom::Field(v, path) => {
            let base = f.name(*v);
            quote!(#base #path)
        }
        Atom::Const(t) => match &f.float {
            // A literal the transforms wrote (a zero, a seed) in a function generic over `T`.
            Some(float)
                if crate::tokens::is_generic(float)
                    && crate::tokens::is_bare_literal(t.tokens()) =>
            {
                paren(crate::tokens::typed_floats(t.tokens().clone(), float))
            }
            _ => paren(t.tokens().clone()),
        },
    }
}

/// An operand as the value itself, for rule templates that write `&a`: `*x` for a `&Tensor`
/// parameter `x`.
pub fn value(f: &Func, a: &Atom) -> TokenStream {
    match a {
        Atom::Var(v) if f.vars[v.0].is_ref => {
            let p = place(f, a);
            quote!(*#p)
        }
        _ => place(f, a),
    }
}

/// A differentiable operand by reference (`&t`, `&model.l1.w`, or `x` if it is a `&Tensor`
/// parameter); constants as they are.
pub fn by_ref(f: &Func, a: &Atom) -> TokenStream {
    match a {
        Atom::Var(v) if f.vars[v.0].is_ref => place(f, a),
        Atom::Var(_) | Atom::Field(..) => {
            let p = place(f, a);
            quote!(&#p)
        }
        Atom::Const(_) => place(f, a),
    }
}

/// An operand as an owned value: a copy of a scalar, a clone of anything else.
pub fn owned(f: &Func, a: &Atom) -> TokenStream {
    let p = place(f, a);
    match a {
        Atom::Const(_) => p,
        _ if f.atom_kind(a) == Kind::Scalar => p,
        _ => quote!(::core::clone::Clone::clone(&#p)),
    }
}
