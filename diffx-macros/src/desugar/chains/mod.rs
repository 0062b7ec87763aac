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
use syn::spanned::Spanned;
use syn::{Expr, ExprMethodCall, Pat, Stmt, Type};

mod loops;
mod positions;

pub use loops::{apply, desugar, zero_of};
use positions::paren;

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
    Slice {
        base: Expr,
        by_ref: bool,
        /// `iter_mut()`: the elements are `&mut base[k]`.
        mutable: bool,
    },
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
    /// `for_each(f)`: `f` called on each element.
    ForEach(Func),
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
        "for_each" if m.args.len() == 1 => {
            let f = func(&m.args[0], resolve)?;
            (&*m.receiver, Consumer::ForEach(f))
        }
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
                    ("iter" | "iter_mut", true) => Source::Slice {
                        base: base(&m.receiver),
                        by_ref: true,
                        mutable: m.method == "iter_mut",
                    },
                    ("into_iter", true) => Source::Slice {
                        base: base(&m.receiver),
                        by_ref: matches!(strip(&m.receiver), Expr::Reference(_)),
                        mutable: false,
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
                mutable: false,
            },
            steps: Vec::new(),
        })),
        p if is_place(p) => Some(Ok(Chain {
            source: Source::Slice {
                base: p.clone(),
                by_ref: true,
                mutable: false,
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
pub(super) fn func(e: &Expr, resolve: &dyn Fn(&Expr) -> Option<Func>) -> Option<Func> {
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

pub(super) fn is_place(e: &Expr) -> bool {
    match strip(e) {
        Expr::Path(p) => p.path.get_ident().is_some(),
        Expr::Field(f) => is_place(&f.base),
        Expr::Index(i) => is_place(&i.expr),
        _ => false,
    }
}
