//! The pipeline: parse → lower → forward | reverse → emit.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::ItemFn;

use crate::builder::Builder;
use crate::ir::{Atom, Kind, Op, Stmt, Var};
use crate::lower::Lowerer;
use crate::parse::{self, Order, Signature};
use crate::{desugar, emit, forward, names, reverse, tape, tokens};

/// `#[autodiff]`: the function unchanged, and its derivative functions beside it. On an error the
/// function is still emitted unchanged, so its callers see no follow-on errors.
pub fn autodiff(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr, item.clone()) {
        Ok(ts) => ts,
        Err(e) => {
            let errors = e.to_compile_error();
            quote!(#item #errors)
        }
    }
}

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let item: ItemFn = syn::parse2(item.clone()).map_err(|_| {
        syn::Error::new(
            first_token_span(&item),
            "`#[autodiff]` goes on a function: `#[autodiff] fn f(x: f64) -> f64 { … }`",
        )
    })?;
    let args = parse::args(attr)?;
    expand_item(item, args)
}

fn expand_item(item: ItemFn, args: parse::Args) -> syn::Result<TokenStream> {
    if let Some((as_array, layout)) = tuple_as_array(&item)? {
        let out = expand_item(as_array, args)?;
        return emit::tuples::tuple_results(out, &item, &layout);
    }
    if let Some((as_fn, args, receiver)) = receiver_as_param(&item, &args) {
        let out = expand_parsed(as_fn, args)?;
        return emit::methods::receiver_wrappers(out, &receiver, &item);
    }
    expand_parsed(item, args)
}

/// A function returning a tuple of numbers and arrays of them (`-> (f64, f64)`, `-> ([f64; 2],
/// f64)`) as one returning an array of all its numbers, its tuples written as arrays
/// (`emit::tuples`), with the tuple's layout.
fn tuple_as_array(item: &ItemFn) -> syn::Result<Option<(ItemFn, emit::tuples::Layout)>> {
    let syn::ReturnType::Type(arrow, ty) = &item.sig.output else {
        return Ok(None);
    };
    let syn::Type::Tuple(t) = &**ty else {
        return Ok(None);
    };
    // Each part a number of one float type, or an array of them of a length written out.
    let part = |e: &syn::Type| -> Option<(String, Option<usize>)> {
        match e {
            syn::Type::Path(p) if p.path.get_ident().is_some() => {
                Some((e.to_token_stream().to_string(), None))
            }
            syn::Type::Array(a) => {
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) = &a.len
                else {
                    return None;
                };
                let syn::Type::Path(p) = &*a.elem else {
                    return None;
                };
                p.path.get_ident()?;
                Some((
                    a.elem.to_token_stream().to_string(),
                    Some(n.base10_parse().ok()?),
                ))
            }
            _ => None,
        }
    };
    let Some(parts) = t.elems.iter().map(part).collect::<Option<Vec<_>>>() else {
        return Ok(None);
    };
    let Some((float, _)) = parts.first().cloned() else {
        return Ok(None);
    };
    if parts.iter().any(|(f, _)| *f != float) {
        return Ok(None);
    }
    let layout = emit::tuples::Layout(parts.into_iter().map(|(_, n)| n).collect());
    let (float, n): (syn::Type, usize) = (syn::parse_str(&float)?, layout.width());
    let mut as_array = item.clone();
    as_array.sig.output = syn::ReturnType::Type(*arrow, Box::new(syn::parse_quote!([#float; #n])));
    let mut returns = Returns {
        layout: layout.clone(),
        bad: None,
    };
    syn::visit_mut::VisitMut::visit_block_mut(&mut returns, &mut as_array.block);
    let tail_ok = emit::tuples::block_tail(&mut as_array.block, &layout);
    let bad = returns.bad.or_else(|| {
        (!tail_ok).then(|| {
            item.block
                .stmts
                .last()
                .map_or(item.sig.ident.span(), |s| s.span())
        })
    });
    match bad {
        Some(at) => Err(syn::Error::new(at, format!("a function returning a tuple returns it written out here (`(a, b)`, also in each arm): `#[autodiff]` differentiates it as the array of its {n} numbers"))),
        None => Ok(Some((as_array, layout))),
    }
}

/// Writes the tuple of each `return` as an array; remembers where one is not written out.
struct Returns {
    layout: emit::tuples::Layout,
    bad: Option<proc_macro2::Span>,
}

impl syn::visit_mut::VisitMut for Returns {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Return(r) = e {
            if let Some(v) = &mut r.expr {
                if !emit::tuples::tuples_to_arrays(v, &self.layout) {
                    self.bad.get_or_insert(v.span());
                }
            }
            return;
        }
        // A closure's `return` is its own.
        if !matches!(e, syn::Expr::Closure(_)) {
            syn::visit_mut::visit_expr_mut(self, e);
        }
    }
}

/// For a method with `wrt(self, …)`: the method as an associated function taking `self` as its
/// first parameter `__diffx_self: &Self` (differentiated as a parameter struct), the arguments
/// with `self` renamed, and the receiver to give back to the public functions.
fn receiver_as_param(
    item: &ItemFn,
    args: &parse::Args,
) -> Option<(ItemFn, parse::Args, syn::Receiver)> {
    let wrt = args.wrt.as_ref()?;
    wrt.iter().find(|n| *n == "self")?;
    let receiver = item.sig.receiver()?.clone();
    let name = Ident::new(names::SELF_PARAM, receiver.self_token.span);
    let mut as_fn = item.clone();
    let ty = &receiver.ty;
    as_fn.sig.inputs[0] = syn::parse_quote!(#name: #ty);
    let body = tokens::replace_all(item.block.to_token_stream(), &mut |id| {
        (id == "self").then(|| name.to_token_stream())
    });
    *as_fn.block = syn::parse2(body).ok()?;
    let wrt = wrt
        .iter()
        .map(|n| if n == "self" { name.clone() } else { n.clone() })
        .collect();
    let args = parse::Args {
        wrt: Some(wrt),
        order: args.order,
    };
    Some((as_fn, args, receiver))
}

fn expand_parsed(item: ItemFn, args: parse::Args) -> syn::Result<TokenStream> {
    let sig = parse::signature(&item, &args)?;
    let mut normalized = item.clone();
    *normalized.block = desugar::body(&item.block, &sig)?;
    let second = args.order.is_some_and(|o| o.n >= 2);
    let (primal, params) = lower(&normalized, &sig, second)?;
    let fwd = forward::transform(&primal, &params)?;
    let typed: Vec<_> = params
        .iter()
        .zip(&sig.params)
        .map(|(v, p)| v.map(|v| (v, p.grad.to_token_stream())))
        .collect();
    let mut rev = reverse::transform(&primal, &typed, sig.ret_kind)?;
    let order = order(&primal, &sig, &item, args.order)?;
    // Forward over reverse differentiates the adjoint program as the sweep wrote it, and a third
    // pass the `hvp_` program as the second wrote it: tapes are trimmed after the last pass.
    let mut hvp = match order {
        2.. => Some(over(
            &rev.b,
            &params
                .iter()
                .copied()
                .chain([Some(rev.ct)])
                .collect::<Vec<_>>(),
        )?),
        _ => None,
    };
    let mut third = match &hvp {
        Some(hvp) if order == 3 => Some(third_program(hvp, &params, &sig)?),
        _ => None,
    };
    for program in hvp.iter_mut().chain(third.iter_mut()) {
        tape::trim(&mut program.b.func);
    }
    tape::trim(&mut rev.b.func);
    // (After the second-order programs, which differentiate the unpaired calls.)
    reverse::pair_calls(&mut rev.b.func);
    let mut out = emit::functions(&item, &sig, &fwd, &rev);
    if sig.ret_kind == Kind::Slice {
        let jacobian = emit::second::jacobian(&item, &sig);
        out = quote!(#out #jacobian);
    }
    let second = match &hvp {
        Some(hvp) => {
            let dots: Vec<Option<Ident>> = hvp.param_dots[..sig.params.len()]
                .iter()
                .map(|d| d.map(|d| hvp.b.func.name(d).clone()))
                .collect();
            let hidden = emit::second::hidden_hvp(&item, &sig, hvp, &rev);
            let public = emit::second::public(&item, &sig, &dots);
            let nested = emit::nested::companions(&item, &sig);
            quote!(#hidden #public #nested)
        }
        None => {
            let hidden = emit::second::no_hvp(&item, &sig, false);
            let public = emit::second::not_asked(&item, &sig);
            let nested = emit::nested::not_asked(&item, &sig);
            quote!(#hidden #public #nested)
        }
    };
    out = quote!(#out #second);
    if let (Some(third), Some(hvp)) = (&third, &hvp) {
        let extra = emit::third::functions(&item, &sig, third, hvp, &rev);
        out = quote!(#out #extra);
    }
    #[cfg(feature = "explain")]
    let out = {
        let programs = crate::explain::Programs {
            primal: &primal,
            params: &params,
            fwd: &fwd,
        };
        // The reverse program as one function, as a learner reads it (the emitted
        // `__diffx_vjp_` may call the split function instead).
        let shown = emit::plain_vjp(&item, &sig, &rev);
        let explain = crate::explain::function(&item, &sig, &programs, &quote!(#shown #out))?;
        quote!(#out #explain)
    };
    let generic = !item.sig.generics.params.is_empty() || tokens::is_generic(&sig.float);
    let out = match generic {
        true => {
            let containers = sig
                .params
                .iter()
                .any(|p| p.differentiable && p.numbers && p.kind == Kind::Other);
            emit::generics::generic(out, &item, &sig.float, containers)?
        }
        false => out,
    };
    match (&sig.receiver, names_self(&item.sig)) {
        (Some(r), _) => emit::methods::methods(out, Some(r)),
        (None, true) => emit::methods::methods(out, None),
        (None, false) => Ok(out),
    }
}

/// Whether the signature names `Self` (`fn loss(model: &Self, x: f64)`): the function is an
/// associated function of an `impl`, whose derivative functions call each other through `Self::`.
fn names_self(sig: &syn::Signature) -> bool {
    let mut found = false;
    tokens::replace_all(sig.to_token_stream(), &mut |id| {
        found |= id == "Self";
        None
    });
    found
}

fn first_token_span(item: &TokenStream) -> proc_macro2::Span {
    item.clone()
        .into_iter()
        .next()
        .map_or_else(proc_macro2::Span::call_site, |t| t.span())
}

/// Forward mode over `program`, an adjoint program (or its forward program), with every value
/// carrying a tangent; `seeded` gets tangent parameters. Declares the tangents' undo logs.
fn over(program: &Builder, seeded: &[Option<Var>]) -> syn::Result<forward::Forward> {
    let mut dense = program.clone();
    dense.dense = true;
    let mut out = forward::transform(&dense, seeded)?;
    let float = out.b.float.clone();
    for (_, log) in out.b.tangent_logs.clone() {
        out.b.func.body.insert(
            0,
            Stmt::Verbatim {
                binds: Vec::new(),
                tokens: quote!(let mut #log: ::std::vec::Vec<(usize, #float)> = ::std::vec::Vec::new();),
            },
        );
    }
    Ok(out)
}

/// The program of `dhvp_`: forward mode over `hvp`'s, along a new direction `u` of the parameters
/// (`hvp`'s own direction `v` and the cotangent stay as they are). The directions are renamed
/// `u_x`, `v_x` for the signature.
fn third_program(
    hvp: &forward::Forward,
    params: &[Option<Var>],
    sig: &Signature,
) -> syn::Result<forward::Forward> {
    let mut third = over(&hvp.b, params)?;
    for (i, p) in sig.params.iter().enumerate() {
        if let (Some(u), Some(v)) = (third.param_dots[i], hvp.param_dots[i]) {
            third.b.rename(u, &format!("u_{}", p.name));
            third.b.rename(v, &format!("v_{}", p.name));
        }
    }
    Ok(third)
}

/// The highest order of derivative functions to write: `order = n` if asked (an error at the
/// first thing in the way otherwise), else 1. Second order is opt-in: its programs are most of the
/// code the macro writes, and every build compiles them.
fn order(
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
    if sig.ret_kind != Kind::Scalar {
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

/// The body as a Wengert list, and the value of each differentiable parameter.
/// With `numbers` (second order asked for, which takes no tensors), a value of a kind the macro
/// cannot see (a struct's field) is a number: its methods take the rows for numbers.
pub fn lower(
    item: &ItemFn,
    sig: &Signature,
    numbers: bool,
) -> syn::Result<(Builder, Vec<Option<Var>>)> {
    let mut used = BTreeSet::new();
    tokens::idents(item.to_token_stream(), &mut used);
    let mut b = Builder::new(used, sig.float.clone());
    // Without tensors or parameter structs around, a call of another `#[autodiff]` function
    // returns a number (calls returning vectors are not supported yet).
    let numeric = |k: Kind| matches!(k, Kind::Scalar | Kind::Slice);
    if numeric(sig.ret_kind) && sig.params.iter().all(|p| !p.differentiable || p.numbers) {
        b.call_kind = Kind::Scalar;
    }
    // A function generic over its float type takes its struct's fields for numbers too: a
    // generic `T` has arithmetic by value only (`&T * T` is not `Float`'s).
    let structs = sig
        .params
        .iter()
        .any(|p| p.differentiable && p.kind == Kind::Other && !p.numbers);
    let numbers = numbers || (structs && tokens::is_generic(&sig.float));
    b.func.numbers = numbers;
    let mut l = Lowerer::new(&mut b);
    l.written = tokens::element_written(item.block.to_token_stream());
    l.changed_in_place = tokens::method_receivers(item.block.to_token_stream())
        .into_keys()
        .collect();
    l.indexed = tokens::element_read(item.block.to_token_stream());
    l.referenced = tokens::referenced(item.block.to_token_stream());
    l.tuple_read = tokens::component_read(item.block.to_token_stream());
    let mut params = Vec::new();
    for p in &sig.params {
        if p.differentiable {
            let v = l.b.named(
                p.name.clone(),
                p.kind,
                matches!(p.ty, syn::Type::Reference(_)),
            );
            l.bind(&p.name.to_string(), Atom::Var(v));
            l.param_types.insert(v, p.ty.clone());
            params.push(Some(v));
        } else {
            l.b.reserve(&p.name);
            l.bind(&p.name.to_string(), Atom::Const(p.name.to_token_stream()));
            params.push(None);
        }
    }
    let ret = l.block(&item.block.stmts, true);
    let mut errors = std::mem::take(&mut l.errors);
    match ret {
        // A place of a parameter returned as it is (`x[0]`, `p.w`): a value of the list of its
        // own, which the backward sweep seeds (a place is not one).
        Ok(Some(r @ Atom::Field(..))) => {
            let kind = b.func.atom_kind(&r);
            let v = b.op_of_kind(Op::Id, vec![r], item.block.span(), kind);
            b.func.ret = Some(Atom::Var(v));
        }
        Ok(Some(r)) => b.func.ret = Some(r),
        Ok(None) if errors.is_empty() => errors.push(syn::Error::new(
            item.block.span(),
            "the body must end with the value to return: an expression without `;`, or `return …;`",
        )),
        Ok(None) => {}
        Err(e) => errors.push(e),
    }
    match errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok((b, params)),
    }
}
