//! Local closures in the walk of `sugar.rs`: each one recorded where it is bound, with the names
//! it captures, and written out where it is called; a call is refused where a captured name was
//! declared again since the closure was made.

use std::collections::BTreeSet;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, Local, Pat};

use super::chains::{self, strip, Func};
use super::patterns::Elem;
use super::sugar::Sugar;
use crate::tokens;

/// A local closure, written out where it is called.
pub(super) struct Closure {
    pub(super) name: String,
    pub(super) func: Func,
    /// The names it reads from around it, with the declaration each referred to.
    pub(super) captures: Vec<(String, Option<usize>)>,
}
impl Sugar {
    /// The local closure a path names here, if it names one.
    pub(super) fn closure(&self, e: &Expr) -> Option<&Closure> {
        let Expr::Path(p) = e else { return None };
        self.closure_named(&p.path.get_ident()?.to_string())
    }

    fn closure_named(&self, name: &str) -> Option<&Closure> {
        let id = self.lookup(name)?;
        self.closures.iter().find(|(i, _)| *i == id).map(|(_, c)| c)
    }

    /// An error at `span` for each closure named in `e` whose captured names were declared again.
    pub(super) fn check_captures(&mut self, e: &impl ToTokens, span: Span) {
        let mut names = BTreeSet::new();
        tokens::idents(e.to_token_stream(), &mut names);
        let mut errors = Vec::new();
        for name in names {
            let Some(c) = self.closure_named(&name) else {
                continue;
            };
            for (captured, id) in &c.captures {
                if self.lookup(captured) != *id {
                    errors.push(syn::Error::new(span, format!(
                        "the closure `{}` reads `{captured}`, which is declared again between the closure and here: \
                         `#[autodiff]` writes a closure out where it is used, so it would read the new `{captured}`; \
                         give one of them another name", c.name)));
                }
            }
        }
        self.errors.extend(errors);
    }

    pub(super) fn record(&mut self, name: String, c: syn::ExprClosure, rest: TokenStream) {
        let inputs: Vec<Pat> = c.inputs.iter().cloned().collect();
        let mut bound: BTreeSet<String> = inputs
            .iter()
            .flat_map(crate::analyze::activity::names)
            .collect();
        Bound(&mut bound).visit_expr_mut(&mut (*c.body).clone());
        let mut read = BTreeSet::new();
        tokens::idents(c.body.to_token_stream(), &mut read);
        let captures: Vec<(String, Option<usize>)> = read
            .into_iter()
            .filter(|n| !bound.contains(n))
            .filter_map(|n| self.lookup(&n).map(|id| (n, Some(id))))
            .collect();
        if c.capture.is_some() {
            let assigned = tokens::assigned(rest);
            if let Some((n, _)) = captures.iter().find(|(n, _)| assigned.contains(n)) {
                self.errors.push(syn::Error::new(c.span(), format!(
                    "this `move` closure copies `{n}` when it is made, and `{n}` changes afterwards: `#[autodiff]` writes \
                     the closure out where it is called, so copy the value into a new name first (`let {n}0 = {n};`) and \
                     read that in the closure")));
            }
        }
        let id = self.declare(&name);
        let func = Func::Closure {
            inputs,
            body: *c.body,
        };
        self.closures.push((
            id,
            Closure {
                name,
                func,
                captures,
            },
        ));
    }

    /// A call of a local closure, written out.
    pub(super) fn call(&mut self, e: &mut Expr) -> bool {
        let Expr::Call(c) = e else { return false };
        let Some(func) = self.closure(&c.func).map(|c| c.func.clone()) else {
            return false;
        };
        let span = e.span();
        let Expr::Call(c) = e else { return false };
        for a in c.args.iter_mut() {
            self.visit_expr_mut(a);
        }
        let args: Vec<Elem> = c.args.iter().cloned().map(Elem::of).collect();
        let func_path = (*c.func).clone();
        self.check_captures(&func_path, span);
        self.replace(e, |s| chains::apply(&func, args, &mut s.temps(), span))
    }
}

/// The names a closure body binds itself (its own `let`s, loop variables, inner closures'
/// parameters): not captures.
struct Bound<'a>(&'a mut BTreeSet<String>);

impl VisitMut for Bound<'_> {
    fn visit_pat_mut(&mut self, p: &mut Pat) {
        self.0.extend(crate::analyze::activity::names(p));
    }
}

/// The name and closure of `let name = |…| …;`.
pub(super) fn closure_init(l: &Local) -> Option<(String, syn::ExprClosure)> {
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    match (&l.pat, strip(&init.expr)) {
        (Pat::Ident(p), Expr::Closure(c)) if p.subpat.is_none() && p.by_ref.is_none() => {
            Some((p.ident.to_string(), c.clone()))
        }
        _ => None,
    }
}
