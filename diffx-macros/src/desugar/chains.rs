//! Iterator chains as loops: `x.iter().zip(y).map(|(a, b)| a * b).sum()` becomes
//!
//! ```text
//! { let mut acc = 0.0; for k in (0..x.len()).zip(0..y.len()) { acc += { let (a, b) = (&x[k.0], &y[k.1]); a * b }; } acc }
//! ```
//!
//! The loop runs over *positions*: a constant iterator of indices built from the source's length
//! and the adaptors that only choose positions (`skip`, `take`, `step_by`, `rev`, `enumerate`,
//! `zip`), which Rust evaluates exactly as it would the chain. What the chain does with the
//! elements (`map`, `filter`, the consumer) becomes statements of the loop body, so lowering sees
//! only indexing, `let`s, `if`s and a `for` over constants, and every mode differentiates it.
//! After a `filter`, positions no longer count elements: `enumerate`, `skip`, `take`, `step_by`
//! and `zip` count with a counter instead (the k-th element that passed pairs with the other
//! sequence's k-th).

use proc_macro2::Span;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Expr, ExprMethodCall, Pat, Stmt, Type};

use super::patterns::{bind, bind_each, Elem, Temps};

/// A function applied to elements: a closure's parameters and body, or a path (`f64::max`).
#[derive(Clone)]
pub enum Func {
    Closure { inputs: Vec<Pat>, body: Expr },
    Path(Expr),
}

/// Where elements come from.
#[derive(Clone)]
enum Source {
    /// `base[k]` (or `&base[k]`) for `k` in `0..base.len()`.
    Slice { base: Expr, by_ref: bool },
    /// The values of a range.
    Range(Expr),
    /// `base.windows(size)` (`&base[k..k + size]`) or `base.chunks(size)` (`&base[k * size..]`
    /// up to `size` elements).
    Windows {
        base: Expr,
        size: Expr,
        chunks: bool,
    },
}

#[derive(Clone)]
enum Step {
    Copied,
    Map(Func),
    Filter(Func),
    Enumerate,
    Zip(Box<Chain>),
    Skip(Expr),
    Take(Expr),
    Stride(Expr),
    Rev,
}

/// A source and its adaptors.
#[derive(Clone)]
pub struct Chain {
    source: Source,
    steps: Vec<(Step, Span)>,
}

/// What consumes the chain.
pub enum Consumer {
    Sum(Option<Type>),
    Product(Option<Type>),
    Count,
    Fold(Expr, Func),
    /// `reduce`, `max_by`, `min_by`, then `unwrap()` or `expect(msg)`.
    Reduce(Reducer, Func, Option<Expr>),
    Collect,
    /// The body of `for pat in chain { … }`.
    For(Pat, Vec<Stmt>),
}

#[derive(Clone, Copy)]
pub enum Reducer {
    Reduce,
    MaxBy,
    MinBy,
}

const ADAPTORS: &[&str] = &[
    "map",
    "filter",
    "enumerate",
    "zip",
    "skip",
    "take",
    "step_by",
    "rev",
    "copied",
    "cloned",
];

/// The consumer and chain of `e`, if `e` is a chain ending in a consumer the desugaring knows;
/// an error at an adaptor it does not know in such a chain.
pub fn consumed(
    e: &Expr,
    resolve: &dyn Fn(&Expr) -> Option<Func>,
) -> Option<syn::Result<(Chain, Consumer)>> {
    let Expr::MethodCall(m) = e else { return None };
    let name = m.method.to_string();
    let (inner, consumer) = match name.as_str() {
        "sum" | "product" => {
            let ty = turbofish(m);
            let c = if name == "sum" {
                Consumer::Sum(ty)
            } else {
                Consumer::Product(ty)
            };
            (&*m.receiver, c)
        }
        "count" if m.args.is_empty() => (&*m.receiver, Consumer::Count),
        "collect" => (&*m.receiver, Consumer::Collect),
        "fold" if m.args.len() == 2 => {
            let f = func(&m.args[1], resolve)?;
            (&*m.receiver, Consumer::Fold(m.args[0].clone(), f))
        }
        "unwrap" | "expect" => {
            let Expr::MethodCall(r) = &*m.receiver else {
                return None;
            };
            let reducer = match r.method.to_string().as_str() {
                "reduce" => Reducer::Reduce,
                "max_by" => Reducer::MaxBy,
                "min_by" => Reducer::MinBy,
                _ => return None,
            };
            let f = func(r.args.first()?, resolve)?;
            (
                &*r.receiver,
                Consumer::Reduce(reducer, f, m.args.first().cloned()),
            )
        }
        _ => return None,
    };
    chain(inner, resolve).map(|c| c.map(|c| (c, consumer)))
}

/// The chain of `e` (a source and adaptors), if its source is one the desugaring knows.
pub fn chain(e: &Expr, resolve: &dyn Fn(&Expr) -> Option<Func>) -> Option<syn::Result<Chain>> {
    let mut steps = Vec::new();
    let mut cur = e;
    loop {
        match strip(cur) {
            Expr::MethodCall(m) if ADAPTORS.contains(&m.method.to_string().as_str()) => {
                steps.push(m);
                cur = &m.receiver;
            }
            Expr::MethodCall(m) => {
                let source = match (m.method.to_string().as_str(), m.args.is_empty()) {
                    ("iter", true) => Source::Slice {
                        base: base(&m.receiver),
                        by_ref: true,
                    },
                    ("into_iter", true) => Source::Slice {
                        base: base(&m.receiver),
                        by_ref: matches!(strip(&m.receiver), Expr::Reference(_)),
                    },
                    ("windows" | "chunks", false) if m.args.len() == 1 => Source::Windows {
                        base: base(&m.receiver),
                        size: paren(&m.args[0]),
                        chunks: m.method == "chunks",
                    },
                    _ => {
                        // An unknown adaptor between a known source and consumer is the user's
                        // chain: say what to write instead of leaving it to a derivative rule.
                        return chain(&m.receiver, resolve).map(|_| {
                            Err(syn::Error::new(
                                m.method.span(),
                                format!(
                                    "`{}` is not supported in an iterator chain by `#[autodiff]`; \
                                     the chain may use {}; write a `for` loop for the rest",
                                    m.method,
                                    ADAPTORS.join(", ")
                                ),
                            ))
                        });
                    }
                };
                return Some(build(source, steps, resolve));
            }
            Expr::Range(r) if r.start.is_some() && r.end.is_some() => {
                return Some(build(
                    Source::Range(syn::parse_quote!((#r))),
                    steps,
                    resolve,
                ));
            }
            _ => return None,
        }
    }
}

/// The chain of a `zip` argument or a `for` header: a chain, or a slice given by name or `&name`.
fn operand(e: &Expr, resolve: &dyn Fn(&Expr) -> Option<Func>) -> Option<syn::Result<Chain>> {
    match strip(e) {
        Expr::Reference(r) if r.mutability.is_none() && is_place(&r.expr) => Some(Ok(Chain {
            source: Source::Slice {
                base: (*r.expr).clone(),
                by_ref: true,
            },
            steps: Vec::new(),
        })),
        p if is_place(p) => Some(Ok(Chain {
            source: Source::Slice {
                base: p.clone(),
                by_ref: true,
            },
            steps: Vec::new(),
        })),
        other => chain(other, resolve),
    }
}

/// The chain of a `for` header, and whether it is simple (a slice or range without adaptors),
/// unless it runs over a field (`model.layers`: lowering's loops over layers).
pub fn header(
    e: &Expr,
    resolve: &dyn Fn(&Expr) -> Option<Func>,
) -> Option<syn::Result<(Chain, bool)>> {
    let c = operand(e, resolve)?;
    Some(c.map(|c| {
        // `windows` and `chunks` are sources lowering does not know, even without adaptors.
        let simple = c.steps.is_empty() && !matches!(c.source, Source::Windows { .. });
        (c, simple)
    }))
    .filter(|c| {
        !matches!(
            c,
            Ok((
                Chain {
                    source: Source::Slice {
                        base: Expr::Field(_),
                        ..
                    },
                    ..
                },
                _
            ))
        )
    })
}

fn build(
    source: Source,
    mut calls: Vec<&ExprMethodCall>,
    resolve: &dyn Fn(&Expr) -> Option<Func>,
) -> syn::Result<Chain> {
    calls.reverse();
    let mut steps = Vec::new();
    for m in calls {
        let span = m.method.span();
        let arg = |what: &str| {
            m.args
                .first()
                .cloned()
                .ok_or_else(|| syn::Error::new(span, format!("`{}` takes {what}", m.method)))
        };
        let step = match m.method.to_string().as_str() {
            "copied" | "cloned" => Step::Copied,
            "map" | "filter" => {
                let f = m.args.first().and_then(|a| func(a, resolve)).ok_or_else(|| {
                    syn::Error::new(m.args.span(), format!("`{}` in an `#[autodiff]` function takes a closure (`|v| …`), a local closure or a function path", m.method))
                })?;
                if m.method == "map" {
                    Step::Map(f)
                } else {
                    Step::Filter(f)
                }
            }
            "enumerate" => Step::Enumerate,
            "zip" => {
                let other = arg("an iterator")?;
                let chain = operand(&other, resolve).unwrap_or_else(|| {
                    Err(syn::Error::new(other.span(), "`zip` in an `#[autodiff]` function takes a slice, a `Vec`, an array, a range or an iterator chain over one of them"))
                })?;
                Step::Zip(Box::new(chain))
            }
            "skip" => Step::Skip(arg("a count")?),
            "take" => Step::Take(arg("a count")?),
            "step_by" => Step::Stride(arg("a step")?),
            _ => Step::Rev,
        };
        steps.push((step, span));
    }
    Ok(Chain { source, steps })
}

/// The closure or function `e` names: a closure literal, a local closure (through `resolve`), or
/// a function path such as `f64::max`.
fn func(e: &Expr, resolve: &dyn Fn(&Expr) -> Option<Func>) -> Option<Func> {
    match strip(e) {
        Expr::Closure(c) => Some(Func::Closure {
            inputs: c.inputs.iter().cloned().collect(),
            body: (*c.body).clone(),
        }),
        p @ Expr::Path(_) => resolve(p).or_else(|| Some(Func::Path(p.clone()))),
        _ => None,
    }
}

fn turbofish(m: &ExprMethodCall) -> Option<Type> {
    m.turbofish.as_ref().and_then(|t| match t.args.first() {
        Some(syn::GenericArgument::Type(ty)) => Some(ty.clone()),
        _ => None,
    })
}

/// `e` without parentheses or invisible groups around it.
pub fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        e => e,
    }
}

/// The slice under `x.iter()`: `x`, `self.x`, `*x`, or `&x` without its `&`.
fn base(e: &Expr) -> Expr {
    match strip(e) {
        Expr::Reference(r) => base(&r.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => base(&u.expr),
        e => e.clone(),
    }
}

fn is_place(e: &Expr) -> bool {
    match strip(e) {
        Expr::Path(p) => p.path.get_ident().is_some(),
        Expr::Field(f) => is_place(&f.base),
        Expr::Index(i) => is_place(&i.expr),
        _ => false,
    }
}

/// The loop body being written: statements, and the `if`s that `filter`s open around the rest.
struct Body {
    /// Before the loop: counters.
    pre: Vec<Stmt>,
    levels: Vec<(Option<Expr>, Vec<Stmt>)>,
}

impl Body {
    fn push(&mut self, s: Stmt) {
        self.levels.last_mut().expect("a level").1.push(s);
    }

    fn guard(&mut self, cond: Expr) {
        self.levels.push((Some(cond), Vec::new()));
    }

    fn finish(mut self) -> Vec<Stmt> {
        while self.levels.len() > 1 {
            let (cond, stmts) = self.levels.pop().expect("a level");
            let cond = cond.expect("a guard");
            self.push(syn::parse_quote!(if #cond { #(#stmts)* }));
        }
        self.levels.pop().expect("a level").1
    }
}

/// The positions a loop runs over.
enum Iter {
    /// `0..n`: positions that count elements from the first.
    Count(Expr),
    /// Any other constant iterator of positions.
    General(Expr),
}

impl Iter {
    fn general(self) -> Expr {
        match self {
            Iter::Count(n) => syn::parse_quote!((0..#n)),
            Iter::General(e) => e,
        }
    }
}

/// How to get the element at a position: statements into the body, and the element.
type ElemAt = Box<dyn Fn(&mut Body, &mut Temps, Expr) -> syn::Result<Elem>>;

/// Positions as a constant iterator, and how to get the element at a position.
struct Positions {
    iter: Iter,
    /// Whether a `filter` came before: positions no longer count elements.
    filtered: bool,
    elem: ElemAt,
}

fn positions(chain: Chain, float: &Type) -> syn::Result<Positions> {
    let mut p = match chain.source {
        Source::Slice { base, by_ref } if subslice(&base).is_some() => {
            let (base, start, end) = subslice(&base).expect("a subslice");
            let start = paren(&start);
            Positions {
                iter: Iter::Count(syn::parse_quote!(#end - #start)),
                filtered: false,
                elem: Box::new(move |_, _, k| {
                    Ok(Elem::Expr(if by_ref {
                        syn::parse_quote!(&#base[#start + #k])
                    } else {
                        syn::parse_quote!(#base[#start + #k])
                    }))
                }),
            }
        }
        Source::Slice { base, by_ref } => Positions {
            iter: Iter::Count(syn::parse_quote!(#base.len())),
            filtered: false,
            elem: Box::new(move |_, _, k| {
                Ok(Elem::Expr(if by_ref {
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
fn hoist(mut chain: Chain, temps: &mut Temps, out: &mut Vec<Stmt>) -> Chain {
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
fn paren(e: &Expr) -> Expr {
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

/// The element one reference level down (`copied`): `&x[k]` → `x[k]`, else `*e`.
fn deref(v: Elem) -> Elem {
    match v {
        Elem::Expr(Expr::Reference(r)) => Elem::Expr(*r.expr),
        Elem::Expr(e) => Elem::Expr(syn::parse_quote!(*#e)),
        Elem::Tuple(parts) => Elem::Tuple(parts.into_iter().map(deref).collect()),
    }
}

/// The element as `filter`'s closure sees it: by reference (a tuple part by part, as match
/// ergonomics binds it).
fn borrow(v: &Elem) -> Elem {
    match v {
        Elem::Expr(e) => Elem::Expr(syn::parse_quote!(&#e)),
        Elem::Tuple(parts) => Elem::Tuple(parts.iter().map(borrow).collect()),
    }
}

/// `acc = f(acc, v);`: one step of `fold` and `reduce`.
fn fold_step(
    f: &Func,
    acc: &syn::Ident,
    v: Elem,
    temps: &mut Temps,
    span: Span,
) -> syn::Result<Stmt> {
    let next = apply(f, vec![Elem::Expr(syn::parse_quote!(#acc)), v], temps, span)?;
    Ok(syn::parse_quote!(#acc = #next;))
}

/// `f` applied to `args`: a block binding the closure's parameters, then its body; or a call.
pub fn apply(f: &Func, args: Vec<Elem>, temps: &mut Temps, span: Span) -> syn::Result<Expr> {
    match f {
        Func::Path(p) => {
            let args = args.iter().map(Elem::expr);
            Ok(syn::parse_quote_spanned!(span=> #p(#(#args),*)))
        }
        Func::Closure { inputs, body } => {
            if inputs.len() != args.len() {
                return Err(syn::Error::new(
                    span,
                    format!(
                        "this closure takes {} parameters but is given {}",
                        inputs.len(),
                        args.len()
                    ),
                ));
            }
            if let Some(r) = crate::tokens::find_ident(quote!(#body), &["return"]) {
                return Err(syn::Error::new(r.span(), "`return` inside a closure is not supported by `#[autodiff]`, which writes the closure out where it is called: make the value the closure's last expression"));
            }
            let mut stmts = Vec::new();
            bind_each(inputs, args, temps, &mut stmts)?;
            Ok(syn::parse_quote_spanned!(span=> { #(#stmts)* #body }))
        }
    }
}

/// The loop that runs `chain` into `consumer`, as a block expression.
pub fn desugar(
    chain: Chain,
    consumer: Consumer,
    float: &Type,
    temps: &mut Temps,
    span: Span,
) -> syn::Result<Expr> {
    let collect = matches!(consumer, Consumer::Collect);
    // After a `filter`, `collect` sizes its vector by counting the elements first (the
    // predicate decides; it runs twice, as a pure predicate may) and fills it by a counter.
    let counted = match collect {
        true => Some(chain.clone()),
        false => None,
    };
    let mut sources = Vec::new();
    let chain = hoist(chain, temps, &mut sources);
    let p = positions(chain, float)?;
    let k = temps.fresh("k");
    let acc = temps.fresh("acc");
    let mut body = Body {
        pre: Vec::new(),
        levels: vec![(None, Vec::new())],
    };
    let filled = temps.fresh("filled");
    let count = match (counted, p.filtered) {
        (Some(c), true) => Some(desugar(c, Consumer::Count, float, temps, span)?),
        _ => None,
    };
    // The loop's head, the position of the element, and (for `collect`) the slot it goes to and
    // the number of slots.
    let (iter, at, slot, len): (Expr, Expr, Expr, Expr) = match (p.iter, collect) {
        (Iter::Count(n), _) => (
            syn::parse_quote!(0..#n),
            syn::parse_quote!(#k),
            syn::parse_quote!(#k),
            n,
        ),
        (Iter::General(e), true) => (
            syn::parse_quote!(#e.enumerate()),
            syn::parse_quote!(#k.1),
            syn::parse_quote!(#k.0),
            syn::parse_quote!(#e.len()),
        ),
        (Iter::General(e), false) => (
            e,
            syn::parse_quote!(#k),
            syn::parse_quote!(#k),
            syn::parse_quote!(0),
        ),
    };
    let v = (p.elem)(&mut body, temps, at)?;
    let (init, tail): (Vec<Stmt>, Option<Expr>) = match consumer {
        Consumer::Sum(ty) => {
            let ty = ty.unwrap_or_else(|| float.clone());
            let e = v.expr();
            // Not `+=`: num-traits' `Float` has no `AddAssign`.
            body.push(syn::parse_quote!(#acc = #acc + #e;));
            let zero = zero(&ty);
            (
                vec![syn::parse_quote!(let mut #acc: #ty = #zero;)],
                Some(syn::parse_quote!(#acc)),
            )
        }
        Consumer::Product(ty) => {
            let ty = ty.unwrap_or_else(|| float.clone());
            let e = v.expr();
            body.push(syn::parse_quote!(#acc = #acc * #e;));
            let one = one(&ty);
            (
                vec![syn::parse_quote!(let mut #acc: #ty = #one;)],
                Some(syn::parse_quote!(#acc)),
            )
        }
        Consumer::Count => {
            body.push(syn::parse_quote!(#acc += 1;));
            (
                vec![syn::parse_quote!(let mut #acc: usize = 0;)],
                Some(syn::parse_quote!(#acc)),
            )
        }
        Consumer::Fold(init, f) => {
            body.push(fold_step(&f, &acc, v, temps, span)?);
            (
                vec![syn::parse_quote!(let mut #acc = #init;)],
                Some(syn::parse_quote!(#acc)),
            )
        }
        Consumer::Reduce(r, f, msg) => {
            let first = temps.fresh("first");
            let e = v.expr();
            let update: Stmt = match r {
                Reducer::Reduce => fold_step(&f, &acc, v, temps, span)?,
                Reducer::MaxBy | Reducer::MinBy => {
                    let ord = apply(
                        &f,
                        vec![Elem::Expr(syn::parse_quote!(&#acc)), borrow(&v)],
                        temps,
                        span,
                    )?;
                    let cond: Expr = match r {
                        Reducer::MaxBy => syn::parse_quote!(#ord != ::core::cmp::Ordering::Greater),
                        _ => syn::parse_quote!(#ord == ::core::cmp::Ordering::Greater),
                    };
                    syn::parse_quote!(if #cond { #acc = #e; })
                }
            };
            body.push(syn::parse_quote!(if #first { #acc = #e; #first = false; } else { #update }));
            let check: Stmt = match msg {
                Some(m) => syn::parse_quote!(::core::assert!(!#first, "{}", #m);),
                None => {
                    syn::parse_quote!(::core::assert!(!#first, "called `Option::unwrap()` on a `None` value");)
                }
            };
            let zero = zero(float);
            (
                vec![
                    syn::parse_quote!(let mut #acc: #float = #zero;),
                    syn::parse_quote!(let mut #first = true;),
                ],
                Some(syn::parse_quote!({ #check #acc })),
            )
        }
        Consumer::Collect => {
            let e = v.expr();
            let zero = zero(float);
            let (len, mut init): (Expr, Vec<Stmt>) = match count {
                Some(n) => {
                    body.push(syn::parse_quote!(#acc[#filled] = #e;));
                    body.push(syn::parse_quote!(#filled += 1;));
                    let kept = temps.fresh("kept");
                    let init = vec![
                        syn::parse_quote!(let #kept: usize = #n;),
                        syn::parse_quote!(let mut #filled: usize = 0;),
                    ];
                    (syn::parse_quote!(#kept), init)
                }
                None => {
                    body.push(syn::parse_quote!(#acc[#slot] = #e;));
                    (len, Vec::new())
                }
            };
            init.push(syn::parse_quote!(let mut #acc: ::std::vec::Vec<#float> = ::std::vec![#zero; #len];));
            (init, Some(syn::parse_quote!(#acc)))
        }
        Consumer::For(pat, stmts) => {
            let mut binds = Vec::new();
            bind(&pat, v, None, temps, &mut binds)?;
            body.push(syn::parse_quote!({ #(#binds)* #(#stmts)* }));
            (Vec::new(), None)
        }
    };
    let pre = std::mem::take(&mut body.pre);
    let stmts = body.finish();
    let tail = tail.map(|t| quote!(#t));
    Ok(syn::parse_quote_spanned!(span=> {
        #(#sources)*
        #(#init)*
        #(#pre)*
        for #k in #iter { #(#stmts)* }
        #tail
    }))
}

fn is_integer(ty: &Type) -> bool {
    let t = quote!(#ty).to_string();
    [
        "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
    ]
    .contains(&t.as_str())
}

/// Zero of the float type `ty` (a type parameter too).
pub fn zero_of(ty: &Type) -> Expr {
    float_literal(ty, "0.0")
}

fn zero(ty: &Type) -> Expr {
    if is_integer(ty) {
        syn::parse_quote!(0)
    } else {
        float_literal(ty, "0.0")
    }
}

/// `text` as a value of the float type `ty`, which may be a type parameter.
fn float_literal(ty: &Type, text: &str) -> Expr {
    match ty {
        Type::Path(p) if p.path.get_ident().is_some() => {
            let float = p.path.get_ident().expect("checked");
            syn::parse2(crate::tokens::float_lit(float, text)).expect("a literal or a call")
        }
        _ => syn::parse_str(text).expect("a literal"),
    }
}

fn one(ty: &Type) -> Expr {
    if is_integer(ty) {
        syn::parse_quote!(1)
    } else {
        float_literal(ty, "1.0")
    }
}
