//! What keeps a function's derivative functions of the order asked for from being written, as an
//! error at the user's code (serde's `check.rs`: one named function per rule).

use syn::ItemFn;

use crate::builder::Builder;
use crate::ir::{Kind, Op, Stmt};
use crate::parse::{Order, Signature};

/// The highest order of derivative functions to write: `order = n` if asked (an error at the
/// first thing in the way otherwise), else 1. Second order is opt-in: its programs are most of the
/// code the macro writes, and every build compiles them.
pub fn order(
    primal: &Builder,
    sig: &Signature,
    item: &ItemFn,
    asked: Option<Order>,
) -> syn::Result<u8> {
    match asked {
        None | Some(Order { n: 1, .. }) => Ok(1),
        Some(Order { n, .. }) => match obstacle(primal, sig, item, n, n == 2) {
            Some(e) => Err(e),
            None => Ok(n),
        },
    }
}

/// `checkpoint = s` on a function with no `for` loop at its top level, where it would change
/// nothing: an error at the argument. (Not for the functions of an `impl` block it is given to.)
pub fn checkpoint(item: &ItemFn, at: Option<proc_macro2::Span>) -> syn::Result<()> {
    let top_for = |s: &syn::Stmt| matches!(s, syn::Stmt::Expr(syn::Expr::ForLoop(_), _));
    match at {
        Some(at) if !item.block.stmts.iter().any(top_for) => Err(syn::Error::new(
            at,
            "`checkpoint` applies to the `for` loops of the function's top level (not in an `if` or another loop): this function has none (leave `checkpoint` out, or move the loop to the top level)",
        )),
        _ => Ok(()),
    }
}

/// What keeps derivatives of order `n` from being written, as an error at it: a result or
/// parameter that is not a scalar (or slice), an operation on tensors, or a call (unless
/// `calls`).
fn obstacle(
    primal: &Builder,
    sig: &Signature,
    item: &ItemFn,
    n: u8,
    calls: bool,
) -> Option<syn::Error> {
    let what = if n == 3 {
        "`dhvp_`"
    } else {
        "`hvp_` and `hessian_`"
    };
    // (A vector result at second order has the hidden `__diffx_hvp_f` its callers' second order
    // goes through, and no `hvp_` of its own.)
    let vector = matches!(sig.ret_kind, Kind::Slice | Kind::Other) && n == 2;
    if sig.ret_kind != Kind::Scalar && !vector {
        return Some(syn::Error::new_spanned(
            &item.sig.output,
            format!("`order = {n}` needs a scalar result: {what} are for functions returning `f64` or `f32` (for a vector result, use `jacobian_`)"),
        ));
    }
    if let Some(p) = sig
        .params
        .iter()
        .find(|p| p.differentiable && !matches!(p.kind, Kind::Scalar | Kind::Slice | Kind::Other))
    {
        return Some(syn::Error::new_spanned(
            &p.ty,
            format!("`order = {n}`: {what} take `f64`/`f32` parameters, their slices, `Vec`s, arrays, tuples and nested containers, and parameter structs of numbers, not tensors yet; leave this one out with `wrt(…)`"),
        ));
    }
    let mut found = None;
    for s in &primal.func.body {
        s.walk(&mut |s| match s {
            Stmt::Let { op: Op::Map { .. }, span, .. } if found.is_none() => {
                found = Some(syn::Error::new(*span, format!("`order = {n}`: {what} do not go through tensor operations yet")));
            }
            // (A tensor method on a value of a kind the macro cannot see, a struct's field, may
            // be a number's, which forward over reverse goes through.)
            Stmt::Let { op: Op::Rule(r), span, args, .. }
                if found.is_none()
                    && matches!(r.syntax, crate::rules::Syntax::TensorMethod)
                    && args.iter().any(|a| primal.func.atom_kind(a) == Kind::Tensor) =>
            {
                found = Some(syn::Error::new(*span, format!("`order = {n}`: {what} do not go through tensor operations yet")));
            }
            Stmt::Let { op: Op::Call(_), span, .. } if found.is_none() && !calls => {
                found = Some(syn::Error::new(*span, format!("`order = {n}` does not go through calls of other functions yet: use `order = 2` for `hvp_` and `hessian_` through calls, or write the callee's body here")));
            }
            _ => {}
        });
    }
    found
}
