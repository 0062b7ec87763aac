//! A chain and its consumer written as a loop over the chain's positions.

use proc_macro2::Span;
use quote::quote;
use syn::{Expr, Stmt, Type};

use super::positions::{hoist, positions, Body, Iter};
use super::{Chain, Consumer, Func, Reducer};
use crate::desugar::patterns::{bind, bind_each, Elem, Temps};

/// The element one reference level down (`copied`): `&x[k]` → `x[k]`, else `*e`.
pub(super) fn deref(v: Elem) -> Elem {
    match v {
        Elem::Expr(Expr::Reference(r)) => Elem::Expr(*r.expr),
        Elem::Expr(e) => Elem::Expr(syn::parse_quote!(*#e)),
        Elem::Tuple(parts) => Elem::Tuple(parts.into_iter().map(deref).collect()),
    }
}

/// The element as `filter`'s closure sees it: by reference (a tuple part by part, as match
/// ergonomics binds it).
pub(super) fn borrow(v: &Elem) -> Elem {
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
    let (iter, at, slot, len) = loop_head(p.iter, collect, &k);
    let v = (p.elem)(&mut body, temps, at)?;
    let target = Target {
        acc: &acc,
        float,
        span,
    };
    let slots = Slots {
        slot,
        len,
        count,
        filled,
    };
    let (init, tail) = consume(consumer, v, target, slots, &mut body, temps)?;
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

/// What a consumer's statements name: its accumulator, the float type, and the chain's span.
#[derive(Clone, Copy)]
struct Target<'a> {
    acc: &'a syn::Ident,
    float: &'a Type,
    span: Span,
}

/// Where `collect` puts each element: the slot and the number of slots; after a `filter`, the
/// number of elements kept (`count`) and the counter that fills them.
struct Slots {
    slot: Expr,
    len: Expr,
    count: Option<Expr>,
    filled: syn::Ident,
}

/// The loop's head, the position of the element, and (for `collect`) the slot it goes to and
/// the number of slots.
fn loop_head(iter: Iter, collect: bool, k: &syn::Ident) -> (Expr, Expr, Expr, Expr) {
    match (iter, collect) {
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
    }
}

/// The statements before the loop and the block's value for `consumer` taking each element `v`;
/// the step it takes on `v` goes into `body`.
fn consume(
    consumer: Consumer,
    v: Elem,
    target: Target,
    slots: Slots,
    body: &mut Body,
    temps: &mut Temps,
) -> syn::Result<(Vec<Stmt>, Option<Expr>)> {
    let Target { acc, float, span } = target;
    Ok(match consumer {
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
            body.push(fold_step(&f, acc, v, temps, span)?);
            (
                vec![syn::parse_quote!(let mut #acc = #init;)],
                Some(syn::parse_quote!(#acc)),
            )
        }
        Consumer::Reduce(r, f, msg) => reduce(r, f, msg, v, target, body, temps)?,
        Consumer::Collect => collect(v, target, slots, body, temps),
        Consumer::ForEach(f) => {
            let call = apply(&f, vec![v], temps, span)?;
            body.push(syn::parse_quote!(#call;));
            (Vec::new(), None)
        }
        Consumer::For(pat, stmts) => {
            let mut binds = Vec::new();
            bind(&pat, v, None, temps, &mut binds)?;
            body.push(syn::parse_quote!({ #(#binds)* #(#stmts)* }));
            (Vec::new(), None)
        }
    })
}

/// `reduce`, `max_by` or `min_by`, unwrapped: the accumulator and a flag for the first element
/// before the loop, and a block that checks the flag and gives the accumulator.
fn reduce(
    r: Reducer,
    f: Func,
    msg: Option<Expr>,
    v: Elem,
    target: Target,
    body: &mut Body,
    temps: &mut Temps,
) -> syn::Result<(Vec<Stmt>, Option<Expr>)> {
    let Target { acc, float, span } = target;
    let first = temps.fresh("first");
    let e = v.expr();
    let update: Stmt = match r {
        Reducer::Reduce => fold_step(&f, acc, v, temps, span)?,
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
    Ok((
        vec![
            syn::parse_quote!(let mut #acc: #float = #zero;),
            syn::parse_quote!(let mut #first = true;),
        ],
        Some(syn::parse_quote!({ #check #acc })),
    ))
}

/// `collect` into a vector: the vector (and after a `filter`, the count and the counter) before
/// the loop, and the vector as the block's value.
fn collect(
    v: Elem,
    target: Target,
    slots: Slots,
    body: &mut Body,
    temps: &mut Temps,
) -> (Vec<Stmt>, Option<Expr>) {
    let Target { acc, float, .. } = target;
    let Slots {
        slot,
        len,
        count,
        filled,
    } = slots;
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
