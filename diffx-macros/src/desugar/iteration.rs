//! Iteration in the walk of `sugar.rs`: an iterator chain ending in a consumer, an array's
//! `map`, and a `for` over a chain (or with a pattern lowering does not bind), each rewritten
//! as a loop over positions.

use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, Pat, Stmt};

use super::array_map;
use super::chains::{self, Consumer};
use super::patterns;
use super::sugar::Sugar;
use crate::names;

impl Sugar {
    /// A chain ending in a consumer, as its loop.
    pub(super) fn chain(&mut self, e: &mut Expr) -> bool {
        let found = {
            let resolve = |p: &Expr| self.closure(p).map(|c| c.func.clone());
            chains::consumed(e, &resolve)
        };
        self.rewrite_found(e, found, |s, (chain, consumer), span| {
            chains::desugar(chain, consumer, &s.float.clone(), &mut s.temps(), span)
        })
    }

    /// `e` written anew by `write` from what a recognizer `found` in it: nothing if it found
    /// nothing, its error if it failed.
    fn rewrite_found<T>(
        &mut self,
        e: &mut Expr,
        found: Option<syn::Result<T>>,
        write: impl FnOnce(&mut Self, T, proc_macro2::Span) -> syn::Result<Expr>,
    ) -> bool {
        match found {
            None => false,
            Some(Err(err)) => {
                self.errors.push(err);
                true
            }
            Some(Ok(parts)) => {
                // (Where it is found only: a span is found by writing the expression out.)
                let span = e.span();
                self.check_captures(e, span);
                self.replace(e, |s| write(s, parts, span))
            }
        }
    }

    /// An array's `map` (`param.map(|x| …)`), as the array written element by element.
    pub(super) fn array_map(&mut self, e: &mut Expr) -> bool {
        let found = {
            let resolve = |p: &Expr| self.closure(p).map(|c| c.func.clone());
            array_map::array_map(e, &resolve).map(|r| r.map(|(m, f)| (m.clone(), f)))
        };
        self.rewrite_found(e, found, |s, (m, f), span| {
            array_map::written_out(&m, &f, &mut s.temps(), span)
        })
    }

    /// A `for` over a chain, or with a pattern lowering does not bind, as a loop over positions.
    pub(super) fn for_loop(&mut self, e: &mut Expr) -> bool {
        // `for v in [a, b]`: over the array's values, as `[a, b].iter().copied()` runs.
        if let Expr::ForLoop(f) = e {
            if matches!(&*f.expr, Expr::Array(_)) && self.mentions_active(&f.expr) {
                let array = &f.expr;
                *f.expr = syn::parse_quote_spanned!(array.span()=> #array.iter().copied());
            }
        }
        // `for v in g(x)`: over a call's vector, held in a local first.
        if let Expr::ForLoop(f) = e {
            if matches!(&*f.expr, Expr::Call(_)) && self.mentions_active(&f.expr) {
                let name = self.temps().fresh("items");
                self.active.insert(name.to_string());
                let (call, attrs, pat, body) = (&f.expr, &f.attrs, &f.pat, &f.body);
                *e = syn::parse_quote_spanned!(call.span()=> {
                    let #name = #call;
                    #(#attrs)* for #pat in #name #body
                });
                self.visit_expr_mut(e);
                return true;
            }
        }
        let Expr::ForLoop(f) = &*e else { return false };
        // A pattern lowering cannot bind is rewritten even over constants: the body may be active.
        // (A local vector of constants too: lowering keeps one written in place as a vector.)
        let needed =
            !loop_binds(&f.pat) || self.mentions_active(&f.expr) || self.over_local(&f.expr);
        if is_generated(&f.pat) || !needed {
            return false;
        }
        let label = f.label.clone();
        let found = {
            let resolve = |p: &Expr| self.closure(p).map(|c| c.func.clone());
            chains::header(&f.expr, &resolve)
        };
        let Some(found) = found else { return false };
        let span = e.span();
        match found {
            Err(err) => {
                self.errors.push(err);
                true
            }
            // (Lowering loops over a parameter's elements itself; over a local vector's, by
            // position, as a chain.)
            Ok((chain, simple)) if !simple || !loop_binds(&f.pat) || self.over_local(&f.expr) => {
                let consumer = Consumer::For((*f.pat).clone(), f.body.stmts.clone());
                self.check_captures(&f.expr, span);
                self.replace(e, |s| {
                    let looped =
                        chains::desugar(chain, consumer, &s.float.clone(), &mut s.temps(), span);
                    looped.map(|l| labelled(l, label))
                })
            }
            Ok(_) => false,
        }
    }

    /// Whether a loop's iterable (`&v`, `v.iter()`, `v.iter().enumerate()`) runs over a local
    /// vector's elements rather than a parameter's.
    fn over_local(&self, iterable: &Expr) -> bool {
        let mut e = iterable;
        loop {
            e = match e {
                Expr::Reference(r) => &r.expr,
                Expr::MethodCall(m) => &m.receiver,
                Expr::Paren(p) => &p.expr,
                Expr::Path(p) => {
                    let name = p.path.get_ident().map(|i| i.to_string());
                    return name
                        .and_then(|n| self.lookup(&n))
                        .is_some_and(|id| id > self.params);
                }
                _ => return false,
            };
        }
    }
}

/// Whether the loop's pattern is one lowering binds itself: a name, `&name` or `_`.
fn loop_binds(pat: &Pat) -> bool {
    match pat {
        Pat::Reference(r) => loop_binds(&r.pat),
        Pat::Wild(_) => true,
        p => patterns::is_plain(p),
    }
}

/// Whether `pat` is a loop variable this desugaring wrote (its loops are in the core already).
fn is_generated(pat: &Pat) -> bool {
    matches!(pat, Pat::Ident(p) if names::is_generated(&p.ident.to_string()))
}

/// The loop a chain became (the `for` in the block `chains::desugar` writes), with the label of
/// the loop it was (`'rows: for v in x.iter().take(n)`), which `continue 'rows` names.
fn labelled(mut e: Expr, label: Option<syn::Label>) -> Expr {
    let Some(label) = label else { return e };
    if let Expr::Block(b) = &mut e {
        for s in b.block.stmts.iter_mut().rev() {
            if let Stmt::Expr(Expr::ForLoop(f), _) = s {
                f.label = Some(label);
                break;
            }
        }
    }
    e
}
