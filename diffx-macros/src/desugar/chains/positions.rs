//! The positions a chain's loop runs over, and how each adaptor moves them or what it does with
//! the element at a position.

use proc_macro2::Span;
use quote::quote;
use syn::{Expr, Stmt, Type};

use super::loops::{apply, borrow, deref};
use super::{is_place, Chain, Source, Step};
use crate::desugar::patterns::{Elem, Temps};

/// The loop body being written: statements, and the `if`s that `filter`s open around the rest.
pub(super) struct Body {
    /// Before the loop: counters.
    pub(super) pre: Vec<Stmt>,
    pub(super) levels: Vec<(Option<Expr>, Vec<Stmt>)>,
}

impl Body {
    pub(super) fn push(&mut self, s: Stmt) {
        self.levels.last_mut().expect("a level").1.push(s);
    }

    pub(super) fn guard(&mut self, cond: Expr) {
        self.levels.push((Some(cond), Vec::new()));
    }

    pub(super) fn finish(mut self) -> Vec<Stmt> {
        while self.levels.len() > 1 {
            let (cond, stmts) = self.levels.pop().expect("a level");
            let cond = cond.expect("a guard");
            self.push(syn::parse_quote!(if #cond { #(#stmts)* }));
        }
        self.levels.pop().expect("a level").1
    }
}

/// The positions a loop runs over.
pub(super) enum Iter {
    /// `0..n`: positions that count elements from the first.
    Count(Expr),
    /// Any other constant iterator of positions.
    General(Expr),
}

impl Iter {
    pub(super) fn general(self) -> Expr {
        match self {
            Iter::Count(n) => syn::parse_quote!((0..#n)),
            Iter::General(e) => e,
        }
    }
}

/// How to get the element at a position: statements into the body, and the element.
type ElemAt = Box<dyn Fn(&mut Body, &mut Temps, Expr) -> syn::Result<Elem>>;

/// Positions as a constant iterator, and how to get the element at a position.
pub(super) struct Positions {
    pub(super) iter: Iter,
    /// Whether a `filter` came before: positions no longer count elements.
    pub(super) filtered: bool,
    pub(super) elem: ElemAt,
}

pub(super) fn positions(chain: Chain, float: &Type) -> syn::Result<Positions> {
    let mut p = match chain.source {
        Source::Slice {
            base,
            by_ref,
            mutable,
        } if subslice(&base).is_some() => {
            let (base, start, end) = subslice(&base).expect("a subslice");
            let start = paren(&start);
            Positions {
                iter: Iter::Count(syn::parse_quote!(#end - #start)),
                filtered: false,
                elem: Box::new(move |_, _, k| {
                    Ok(Elem::Expr(if mutable {
                        syn::parse_quote!(&mut #base[#start + #k])
                    } else if by_ref {
                        syn::parse_quote!(&#base[#start + #k])
                    } else {
                        syn::parse_quote!(#base[#start + #k])
                    }))
                }),
            }
        }
        Source::Slice {
            base,
            by_ref,
            mutable,
        } => Positions {
            iter: Iter::Count(syn::parse_quote!(#base.len())),
            filtered: false,
            elem: Box::new(move |_, _, k| {
                Ok(Elem::Expr(if mutable {
                    syn::parse_quote!(&mut #base[#k])
                } else if by_ref {
                    syn::parse_quote!(&#base[#k])
                } else {
                    syn::parse_quote!(#base[#k])
                }))
            }),
        },
        Source::Range(r) => Positions {
            iter: Iter::General(r),
            filtered: false,
            elem: Box::new(|_, _, k| Ok(Elem::Expr(k))),
        },
        Source::Windows { base, size, chunks } => {
            // The counts panic on a zero size, as `windows` and `chunks` do.
            let count = if chunks {
                quote!(chunk_count)
            } else {
                quote!(window_count)
            };
            Positions {
                iter: Iter::Count(
                    syn::parse_quote!(::diffx::__private::#count(#base.len(), #size)),
                ),
                filtered: false,
                elem: Box::new(move |_, _, k| {
                    Ok(Elem::Expr(if chunks {
                        syn::parse_quote!(&#base[#k * #size..::core::cmp::min(#k * #size + #size, #base.len())])
                    } else {
                        syn::parse_quote!(&#base[#k..#k + #size])
                    }))
                }),
            }
        }
    };
    for (step, span) in chain.steps {
        p = adapt(p, step, span, float)?;
    }
    Ok(p)
}

/// `x[a..b]` (also `x[a..]`, `x[..b]`, `x[..]`) as `x`, `a` and `b`: its elements are `x[a + k]`.
fn subslice(e: &Expr) -> Option<(Expr, Expr, Expr)> {
    let Expr::Index(i) = e else { return None };
    let Expr::Range(r) = &*i.index else {
        return None;
    };
    if matches!(r.limits, syn::RangeLimits::Closed(_)) {
        return None;
    }
    let base = (*i.expr).clone();
    let start = r
        .start
        .as_deref()
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(0));
    let end = match r.end.as_deref() {
        Some(b) => paren(b),
        None => syn::parse_quote!(#base.len()),
    };
    Some((base, start, end))
}

/// `chain` with each source that is not a place (an array written in the chain, a call) read
/// into a local first, so that the loop's length reads a name (`src.len()`) and each element is
/// computed once.
pub(super) fn hoist(mut chain: Chain, temps: &mut Temps, out: &mut Vec<Stmt>) -> Chain {
    if let Source::Slice { base, .. } = &mut chain.source {
        // A subslice `e[a..b]` keeps its range: `e` is the source.
        let inner = match base {
            Expr::Index(i) if matches!(*i.index, Expr::Range(_)) => &mut *i.expr,
            other => other,
        };
        if !is_place(inner) {
            let t = temps.fresh("source");
            out.push(syn::parse_quote!(let #t = #inner;));
            *inner = syn::parse_quote!(#t);
        }
    }
    for (step, _) in &mut chain.steps {
        if let Step::Zip(other) = step {
            **other = hoist((**other).clone(), temps, out);
        }
    }
    chain
}

/// `(e)`: an operand that keeps its meaning inside a larger expression.
pub(super) fn paren(e: &Expr) -> Expr {
    syn::parse_quote!((#e))
}

/// The element at position `f(j)` instead of `j`.
fn shifted(elem: ElemAt, f: impl Fn(&Expr) -> Expr + 'static) -> ElemAt {
    Box::new(move |b, t, j| elem(b, t, f(&j)))
}

fn adapt(p: Positions, step: Step, span: Span, float: &Type) -> syn::Result<Positions> {
    let Positions {
        iter,
        filtered,
        elem,
    } = p;
    let keep = |iter, elem| {
        Ok(Positions {
            iter,
            filtered,
            elem,
        })
    };
    match (step, iter) {
        (Step::Copied, iter) => keep(iter, Box::new(move |b, t, k| Ok(deref(elem(b, t, k)?)))),
        (Step::Map(f), iter) => keep(
            iter,
            Box::new(move |b, t, k| {
                let v = elem(b, t, k)?;
                let out = apply(&f, vec![v], t, span)?;
                let m = t.fresh("item");
                b.push(syn::parse_quote!(let #m = #out;));
                Ok(Elem::Expr(syn::parse_quote!(#m)))
            }),
        ),
        (Step::Filter(f), iter) => Ok(Positions {
            iter,
            filtered: true,
            elem: Box::new(move |b, t, k| {
                let v = elem(b, t, k)?;
                let cond = apply(&f, vec![borrow(&v)], t, span)?;
                b.guard(cond);
                Ok(v)
            }),
        }),
        // Positions counted from 0 stay a count: the loop runs over a range, which reverse mode
        // runs backwards without taping the index.
        (Step::Rev, Iter::Count(n)) => {
            let m = paren(&n);
            keep(
                Iter::Count(n),
                shifted(elem, move |j| syn::parse_quote!(#m - 1 - #j)),
            )
        }
        (Step::Enumerate, Iter::Count(n)) if !filtered => keep(
            Iter::Count(n),
            Box::new(move |b, t, j| Ok(Elem::Tuple(vec![Elem::Expr(j.clone()), elem(b, t, j)?]))),
        ),
        (Step::Skip(s), Iter::Count(n)) if !filtered => {
            let (n, s) = (paren(&n), paren(&s));
            let len = syn::parse_quote!(#n.saturating_sub(#s));
            keep(
                Iter::Count(len),
                shifted(elem, move |j| syn::parse_quote!(#s + #j)),
            )
        }
        (Step::Take(s), Iter::Count(n)) if !filtered => keep(
            Iter::Count(syn::parse_quote!(::core::cmp::min(#n, #s))),
            elem,
        ),
        (Step::Stride(s), Iter::Count(n)) if !filtered => {
            let (n, s) = (paren(&n), paren(&s));
            let len = syn::parse_quote!((#n + #s - 1) / #s);
            keep(
                Iter::Count(len),
                shifted(elem, move |j| syn::parse_quote!(#j * #s)),
            )
        }
        (Step::Zip(other), iter) if !filtered => {
            let other = positions(*other, float)?;
            if other.filtered {
                return Err(syn::Error::new(span, "`zip` with a filtered chain is not supported by `#[autodiff]`: filter the outer chain and index the other with a counter"));
            }
            let oelem = other.elem;
            match (iter, other.iter) {
                (Iter::Count(n), Iter::Count(m)) => keep(
                    Iter::Count(syn::parse_quote!(::core::cmp::min(#n, #m))),
                    Box::new(move |b, t, j| {
                        Ok(Elem::Tuple(vec![elem(b, t, j.clone())?, oelem(b, t, j)?]))
                    }),
                ),
                (a, o) => {
                    let (a, o) = (a.general(), o.general());
                    keep(
                        Iter::General(syn::parse_quote!(#a.zip(#o))),
                        Box::new(move |b, t, k| {
                            let x = elem(b, t, syn::parse_quote!(#k.0))?;
                            let y = oelem(b, t, syn::parse_quote!(#k.1))?;
                            Ok(Elem::Tuple(vec![x, y]))
                        }),
                    )
                }
            }
        }
        (Step::Rev, iter) => {
            let i = iter.general();
            keep(Iter::General(syn::parse_quote!(#i.rev())), elem)
        }
        (Step::Enumerate, iter) if !filtered => {
            let i = iter.general();
            keep(
                Iter::General(syn::parse_quote!(#i.enumerate())),
                Box::new(move |b, t, k| {
                    Ok(Elem::Tuple(vec![
                        Elem::Expr(syn::parse_quote!(#k.0)),
                        elem(b, t, syn::parse_quote!(#k.1))?,
                    ]))
                }),
            )
        }
        (Step::Skip(n), iter) if !filtered => {
            let i = iter.general();
            keep(Iter::General(syn::parse_quote!(#i.skip(#n))), elem)
        }
        (Step::Take(n), iter) if !filtered => {
            let i = iter.general();
            keep(Iter::General(syn::parse_quote!(#i.take(#n))), elem)
        }
        (Step::Stride(n), iter) if !filtered => {
            let i = iter.general();
            keep(Iter::General(syn::parse_quote!(#i.step_by(#n))), elem)
        }
        // After a `filter`: the k-th element that passed pairs with the other sequence's k-th.
        (Step::Zip(other), iter) => {
            let other = positions(*other, float)?;
            let (false, Iter::Count(m)) = (other.filtered, other.iter) else {
                return Err(syn::Error::new(span, "`zip` after a `filter` takes a slice, a `Vec`, an array or a range (or a chain of `map`s over one), not another filtered chain, in `#[autodiff]`: filter one chain and index the other with a counter"));
            };
            let oelem = other.elem;
            keep(
                iter,
                Box::new(move |b, t, k| {
                    let v = elem(b, t, k)?;
                    let c = t.fresh("count");
                    b.pre.push(syn::parse_quote!(let mut #c: usize = 0;));
                    // Past the other's end the zip has ended: no later element pairs.
                    b.guard(syn::parse_quote!(#c < #m));
                    let i = t.fresh("index");
                    b.push(syn::parse_quote!(let #i = #c;));
                    b.push(syn::parse_quote!(#c += 1;));
                    Ok(Elem::Tuple(vec![v, oelem(b, t, syn::parse_quote!(#i))?]))
                }),
            )
        }
        (step @ (Step::Enumerate | Step::Skip(_) | Step::Take(_) | Step::Stride(_)), iter) => {
            Ok(counted(
                Positions {
                    iter,
                    filtered,
                    elem,
                },
                step,
            ))
        }
    }
}

/// `enumerate`, `skip`, `take` and `step_by` after a `filter`: a counter of the elements that
/// passed.
fn counted(p: Positions, step: Step) -> Positions {
    let Positions {
        iter,
        filtered,
        elem,
    } = p;
    Positions {
        iter,
        filtered,
        elem: Box::new(move |b, t, k| {
            let v = elem(b, t, k)?;
            let c = t.fresh("count");
            b.pre.push(syn::parse_quote!(let mut #c: usize = 0;));
            Ok(match &step {
                Step::Enumerate => {
                    let i = t.fresh("index");
                    b.push(syn::parse_quote!(let #i = #c;));
                    b.push(syn::parse_quote!(#c += 1;));
                    Elem::Tuple(vec![Elem::Expr(syn::parse_quote!(#i)), v])
                }
                Step::Skip(n) => {
                    b.push(syn::parse_quote!(#c += 1;));
                    b.guard(syn::parse_quote!(#c > #n));
                    v
                }
                Step::Take(n) => {
                    b.guard(syn::parse_quote!(#c < #n));
                    b.push(syn::parse_quote!(#c += 1;));
                    v
                }
                Step::Stride(n) => {
                    let kept = t.fresh("kept");
                    b.push(syn::parse_quote!(let #kept = #c % #n == 0;));
                    b.push(syn::parse_quote!(#c += 1;));
                    b.guard(syn::parse_quote!(#kept));
                    v
                }
                _ => v,
            })
        }),
    }
}
