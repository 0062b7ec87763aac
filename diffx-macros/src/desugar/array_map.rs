//! An array's `map`: `a.map(|x| n4 * x - n2)` (`[T; N]::map`, a new array of `f(a[k])`) becomes
//!
//! ```text
//! { let mut out = a.clone(); for k in 0..a.len() { out[k] = { let x = a[k]; n4 * x - n2 }; } out }
//! ```
//!
//! an array local written element by element in a loop over constants, which lowering knows.
//! The macro does not see types: a `map` is an array's when its receiver is not an iterator chain
//! (those are [`chains`](super::chains)' adaptors) but an array named by place (`param`,
//! `self.vals`, `*p`), an array literal or another array's `map`. The result starts as a copy of
//! the source, so the closure maps numbers to numbers of the same type.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprMethodCall};

use super::chains::{self, apply, strip, Func};
use super::patterns::{Elem, Temps};

/// The receiver and function of `e` if it is an array's `map` (see the module's documentation);
/// an error for one whose argument is not a closure or a function.
pub fn array_map<'e>(
    e: &'e Expr,
    resolve: &dyn Fn(&Expr) -> Option<Func>,
) -> Option<syn::Result<(&'e ExprMethodCall, Func)>> {
    let Expr::MethodCall(m) = e else { return None };
    if m.method != "map" || m.args.len() != 1 || !is_array(&m.receiver, resolve) {
        return None;
    }
    Some(
        chains::func(&m.args[0], resolve)
            .map(|f| (m, f))
            .ok_or_else(|| {
                syn::Error::new(
            m.args.span(),
            "an array's `map` in an `#[autodiff]` function takes a closure (`|x| …`), a local \
             closure or a function path",
        )
            }),
    )
}

/// Whether `e` is an array by its form: a place, an array literal or repetition, or an array's
/// `map`, possibly behind `&`, `*` or parentheses; never an iterator chain.
fn is_array(e: &Expr, resolve: &dyn Fn(&Expr) -> Option<Func>) -> bool {
    if chains::chain(e, resolve).is_some() {
        return false;
    }
    match strip(e) {
        Expr::Reference(r) => is_array(&r.expr, resolve),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => is_array(&u.expr, resolve),
        Expr::Array(_) | Expr::Repeat(_) => true,
        Expr::MethodCall(m) => m.method == "map" && is_array(&m.receiver, resolve),
        p => chains::is_place(p),
    }
}

/// The length of an array of a form [`is_array`] takes, from the form: `3` for `[a, b, c]`, `N`
/// for `[x; N]`, `a.len()` for a place `a` or `*a`, the source's for a `map`. (Never the length of
/// a local of the block: lowering holds a copied array under the name of its copy.)
fn length(e: &Expr) -> Expr {
    match strip(e) {
        Expr::Reference(r) => length(&r.expr),
        Expr::Unary(u) => length(&u.expr),
        Expr::MethodCall(m) => length(&m.receiver),
        Expr::Array(a) => {
            let n = a.elems.len();
            syn::parse_quote!(#n)
        }
        Expr::Repeat(r) => (*r.len).clone(),
        p => syn::parse_quote!(#p.len()),
    }
}

/// The block that builds the mapped array element by element.
pub fn written_out(
    m: &ExprMethodCall,
    f: &Func,
    temps: &mut Temps,
    span: Span,
) -> syn::Result<Expr> {
    let (out, k) = (temps.fresh("mapped"), temps.fresh("at"));
    // A place is read where it is; anything else once, into a local.
    let (source, bound): (Expr, Option<syn::Stmt>) = match chains::is_place(&m.receiver) {
        true => ((*m.receiver).clone(), None),
        false => {
            let name = temps.fresh("source");
            let recv = &m.receiver;
            (
                syn::parse_quote!(#name),
                Some(syn::parse_quote_spanned!(span=> let #name = #recv;)),
            )
        }
    };
    let value = apply(
        f,
        vec![Elem::Expr(syn::parse_quote!(#source[#k]))],
        temps,
        span,
    )?;
    let len = length(&m.receiver);
    Ok(syn::parse_quote_spanned!(span=> {
        #bound
        let mut #out = #source.clone();
        for #k in 0..#len {
            #out[#k] = #value;
        }
        #out
    }))
}
