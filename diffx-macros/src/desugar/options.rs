//! `if let` and `match` on `Option`s, into the `if` lowering knows.
//!
//! `if let Some(b) = p.offset { A } else { B }` on a place under a differentiable parameter becomes
//! `if p.offset.is_some() { let b = p.offset[Inner]; A } else { B }`: the value is the place
//! `p.offset[Inner]` (the runtime indexes an `Option` by `Inner`), which reverse mode writes the
//! adjoint through (`p_bar.offset[Inner] += …`) as through any field of a parameter struct. So an
//! optional field of a parameter struct (`bias: Option<Tensor>`) is differentiated where it is
//! `Some`. `match p.offset { Some(b) => A, None => B }` is the same `if let`.
//!
//! `while let PAT = E { A }` becomes `loop { if let PAT = E { A } else { break; } }`.
//!
//! Any other `if let PAT = E` becomes `if matches!(E, PAT) { let (a, …) = match E { PAT => (a,
//! …), _ => unreachable!() }; A } else { B }`, `E` bound first unless it is a place: its names
//! are constants there (lowering refuses a differentiable `E` at the `match`).

use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Pat};

use super::patterns::is_place;
use crate::names;

/// `block` with its `if let`s and `match`es on `Option`s written as `if`s; `differentiable` are
/// the parameters differentiated (the place form is for their fields: elsewhere the general form
/// moves the value as `if let` does, which a value without `Copy` needs).
pub fn written_as_ifs(mut block: Block, differentiable: Vec<String>) -> Block {
    IfLets {
        counter: 0,
        differentiable,
    }
    .visit_block_mut(&mut block);
    block
}

struct IfLets {
    counter: usize,
    differentiable: Vec<String>,
}

impl IfLets {
    /// Whether `e` is a place under a differentiable parameter (`p.offset`, `&l.bias`).
    fn parameter_place(&self, e: &Expr) -> bool {
        let mut root = e;
        loop {
            root = match root {
                Expr::Field(f) => &f.base,
                Expr::Index(i) => &i.expr,
                Expr::Reference(r) if r.mutability.is_none() => &r.expr,
                Expr::Paren(p) => &p.expr,
                Expr::Path(p) => {
                    return p
                        .path
                        .get_ident()
                        .is_some_and(|id| self.differentiable.iter().any(|d| id == d));
                }
                _ => return false,
            };
        }
    }
}

impl VisitMut for IfLets {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        visit_mut::visit_expr_mut(self, e);
        if let Expr::Match(m) = e {
            if let Some(as_if) = option_match(m) {
                *e = as_if;
            }
        }
        if let Expr::While(w) = e {
            if let Expr::Let(l) = &*w.cond {
                self.counter += 1;
                *e = while_let(w, l, self.counter);
            }
            return;
        }
        let Expr::If(i) = e else { return };
        let Expr::Let(l) = &*i.cond else { return };
        let (then_, else_) = (&i.then_branch, i.else_branch.as_ref().map(|(_, e)| e));
        let else_block: Expr = match else_ {
            Some(e) => (**e).clone(),
            None => syn::parse_quote!({}),
        };
        *e = match some_binding(&l.pat) {
            Some(name) if self.parameter_place(&l.expr) => {
                some_of_place(&l.expr, name, then_, &else_block)
            }
            _ => {
                self.counter += 1;
                general(l, then_, &else_block, self.counter)
            }
        };
    }
}

/// `while let PAT = e { A }` as `loop { if let PAT = e { A } else { break; } }`, the `if let` in
/// its general form (`e` is evaluated once per iteration).
fn while_let(w: &syn::ExprWhile, l: &syn::ExprLet, n: usize) -> Expr {
    let else_: Expr = syn::parse_quote!({
        break;
    });
    let arm = general(l, &w.body, &else_, n);
    let label = &w.label;
    syn::parse_quote!(#label loop { #arm })
}

/// `match e { Some(b) => A, None => B }` (either order, `_` for `None`) as `if let Some(b) = e`.
fn option_match(m: &syn::ExprMatch) -> Option<Expr> {
    let [a, b] = &m.arms[..] else { return None };
    if a.guard.is_some() || b.guard.is_some() {
        return None;
    }
    let none =
        |p: &Pat| matches!(p, Pat::Wild(_)) || matches!(p, Pat::Ident(i) if i.ident == "None");
    let is_some = |p: &Pat| matches!(p, Pat::TupleStruct(t) if t.path.is_ident("Some"));
    let (some, other) = match (is_some(&a.pat), is_some(&b.pat)) {
        (true, false) if none(&b.pat) => (a, b),
        (false, true) if matches!(&a.pat, Pat::Ident(i) if i.ident == "None") => (b, a),
        _ => return None,
    };
    let (pat, scrutinee) = (&some.pat, &m.expr);
    let (then_, else_) = (block_of(&some.body), block_of(&other.body));
    Some(syn::parse_quote!(if let #pat = #scrutinee #then_ else #else_))
}

/// An arm's body as a block.
fn block_of(body: &Expr) -> Block {
    match body {
        Expr::Block(b) if b.label.is_none() => b.block.clone(),
        e => syn::parse_quote!({ #e }),
    }
}

/// `b` of `Some(b)` (`None` for `Some(_)`), and whether it is bound by reference.
struct Binding {
    name: Option<syn::Ident>,
    by_ref: bool,
    mutable: bool,
}

fn some_binding(p: &Pat) -> Option<Binding> {
    let Pat::TupleStruct(t) = p else { return None };
    if !t.path.is_ident("Some") || t.elems.len() != 1 {
        return None;
    }
    match &t.elems[0] {
        Pat::Ident(i) if i.subpat.is_none() => Some(Binding {
            name: Some(i.ident.clone()),
            by_ref: i.by_ref.is_some(),
            mutable: i.mutability.is_some(),
        }),
        Pat::Wild(_) => Some(Binding {
            name: None,
            by_ref: false,
            mutable: false,
        }),
        _ => None,
    }
}

/// `if place.is_some() { let b = place[Inner]; A } else { B }` (`&place[Inner]` for `&place` or
/// `ref b`).
fn some_of_place(scrutinee: &Expr, b: Binding, then_: &Block, else_: &Expr) -> Expr {
    let (place, borrowed) = match scrutinee {
        Expr::Reference(r) => (&*r.expr, true),
        e => (e, false),
    };
    let place: Expr = match place {
        Expr::Unary(_) => syn::parse_quote!((#place)),
        p => p.clone(),
    };
    let marker = crate::names::option_inner();
    let inner = quote::quote!(#place[#marker]);
    let bind: Option<syn::Stmt> = b.name.map(|name| {
        let m = b.mutable.then(|| quote::quote!(mut));
        match borrowed || b.by_ref {
            true => syn::parse_quote!(let #m #name = &#inner;),
            false => syn::parse_quote!(let #m #name = #inner;),
        }
    });
    let stmts = &then_.stmts;
    syn::parse_quote!(if #place.is_some() { #bind #(#stmts)* } else #else_)
}

/// `if matches!(e, PAT) { let (a, …) = match e { PAT => (a, …), _ => unreachable!() }; A }
/// else { B }`, `e` bound to a local first unless it is a place.
fn general(l: &syn::ExprLet, then_: &Block, else_: &Expr, n: usize) -> Expr {
    let pat = &l.pat;
    let names: Vec<syn::Ident> = crate::analyze::activity::names(pat)
        .iter()
        .map(|n| quote::format_ident!("{}", n))
        .collect();
    let (bind_value, scrutinee): (Option<syn::Stmt>, Expr) = match is_place(&l.expr) {
        true => (None, (*l.expr).clone()),
        false => {
            let value = names::numbered("let", n);
            let e = &l.expr;
            (
                Some(syn::parse_quote!(let #value = #e;)),
                syn::parse_quote!(#value),
            )
        }
    };
    let stmts = &then_.stmts;
    let bindings: Option<syn::Stmt> = (!names.is_empty()).then(|| {
        syn::parse_quote!(
            let (#(#names,)*) = match #scrutinee {
                #pat => (#(#names,)*),
                _ => ::core::unreachable!("`if let` matched above"),
            };
        )
    });
    syn::parse_quote!({
        #bind_value
        if ::core::matches!(#scrutinee, #pat) { #bindings #(#stmts)* } else #else_
    })
}
