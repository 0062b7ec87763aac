//! Values decided in arms: `let a;` assigned later, and a tuple or array bound from an `if` or
//! `match` whose arms end in tuples (`let (r0, r1) = if c { (x, y) } else { (y, x) };`).
//!
//! Lowering knows variables declared with a value and reassigned in arms. A `let name;` gets a
//! placeholder value (never read: Rust checks the assignments), and a tuple from arms becomes one
//! temporary per part, assigned at the end of each arm and bound after the `if` or `match`.

use syn::{Expr, Local, Pat, Stmt, Type};

use super::patterns::Temps;

/// `let name;` (or `let name: T;`) as `let mut name = placeholder;`: zero of the float type,
/// `Default::default()` where another type is declared.
pub fn declared_without_value(l: &Local, float: &Type) -> Option<Local> {
    if l.init.is_some() {
        return None;
    }
    let (name, ty) = match &l.pat {
        Pat::Ident(p) if p.subpat.is_none() => (&p.ident, None),
        Pat::Type(t) => match &*t.pat {
            Pat::Ident(p) if p.subpat.is_none() => (&p.ident, Some(&*t.ty)),
            _ => return None,
        },
        _ => return None,
    };
    // Untyped, it is taken for a number: the derivative code declares it apart from the
    // assignments, where Rust could not infer its type.
    let value: Expr = match ty {
        Some(t) if !same(t, float) => syn::parse_quote!(::core::default::Default::default()),
        _ => super::chains::zero_of(float),
    };
    let ty = ty.map(|t| quote::quote!(: #t));
    let stmt: Stmt = syn::parse_quote!(let mut #name #ty = #value;);
    match stmt {
        Stmt::Local(l) => Some(l),
        _ => None,
    }
}

fn same(a: &Type, b: &Type) -> bool {
    use quote::ToTokens;
    crate::tokens::same(&a.to_token_stream(), &b.to_token_stream())
}

/// `let (a, b) = if … { …; (x, y) } else { … };` (or a `match`, or `[a, b]` and arrays) as a
/// temporary per part, declared first, assigned where each arm ends, and bound afterwards.
pub fn tuple_from_arms(l: &Local, temps: &mut Temps) -> Option<Vec<Stmt>> {
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    let n = parts(&l.pat)?;
    let mut arms = (*init.expr).clone();
    let names: Vec<syn::Ident> = (0..n).map(|_| temps.fresh("arm")).collect();
    if !assign_tails(&mut arms, &names) {
        return None;
    }
    let pat = &l.pat;
    let mut out: Vec<Stmt> = names
        .iter()
        .map(|t| syn::parse_quote!(let #t;))
        .collect::<Vec<Stmt>>();
    out.push(Stmt::Expr(arms, Some(Default::default())));
    let value: Expr = match strip_type(pat) {
        Pat::Slice(_) => syn::parse_quote!([#(#names),*]),
        _ => syn::parse_quote!((#(#names,)*)),
    };
    out.push(syn::parse_quote!(let #pat = #value;));
    Some(out)
}

/// The number of parts a tuple or array pattern has, without `..`.
fn parts(p: &Pat) -> Option<usize> {
    let elems = match strip_type(p) {
        Pat::Tuple(t) => &t.elems,
        Pat::Slice(s) => &s.elems,
        _ => return None,
    };
    match elems.iter().any(|e| matches!(e, Pat::Rest(_))) {
        true => None,
        false => Some(elems.len()),
    }
}

fn strip_type(p: &Pat) -> &Pat {
    match p {
        Pat::Type(t) => strip_type(&t.pat),
        Pat::Paren(p) => strip_type(&p.pat),
        p => p,
    }
}

/// Replaces each arm's tail, a tuple or array of `names.len()` parts, by assignments to `names`;
/// false if some arm ends otherwise (a call returning a tuple: left to the usual error).
fn assign_tails(e: &mut Expr, names: &[syn::Ident]) -> bool {
    match e {
        Expr::If(i) => {
            let Some((_, els)) = &mut i.else_branch else {
                return false;
            };
            block_tail(&mut i.then_branch, names) && assign_tails(els, names)
        }
        Expr::Block(b) if b.label.is_none() => block_tail(&mut b.block, names),
        Expr::Match(m) => m.arms.iter_mut().all(|a| {
            let mut body = (*a.body).clone();
            if !matches!(body, Expr::Block(_)) {
                body = syn::parse_quote!({ #body });
            }
            let ok = assign_tails(&mut body, names);
            *a.body = body;
            ok
        }),
        Expr::Paren(p) => assign_tails(&mut p.expr, names),
        _ => false,
    }
}

fn block_tail(b: &mut syn::Block, names: &[syn::Ident]) -> bool {
    let Some(Stmt::Expr(tail, None)) = b.stmts.last_mut() else {
        return false;
    };
    let values: Vec<Expr> = match tail {
        Expr::Tuple(t) => t.elems.iter().cloned().collect(),
        Expr::Array(a) => a.elems.iter().cloned().collect(),
        other => return assign_tails(other, names),
    };
    if values.len() != names.len() {
        return false;
    }
    b.stmts.pop();
    // All parts are read before any is assigned, as the tuple would be.
    for (t, v) in names.iter().zip(values) {
        b.stmts.push(syn::parse_quote!(#t = #v;));
    }
    true
}
