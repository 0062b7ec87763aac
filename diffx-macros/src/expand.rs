//! The pipeline: parse → lower → forward | reverse → emit.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::ItemFn;

use crate::builder::Builder;
use crate::ir::{Atom, Kind, Var};
use crate::lower::Lowerer;
use crate::parse::{self, Signature};
use crate::{desugar, emit, forward, reverse, tape, tokens};

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
    let sig = parse::signature(&item, &args)?;
    let mut normalized = item.clone();
    *normalized.block = desugar::body(&item.block, &sig.float)?;
    let (primal, params) = lower(&normalized, &sig)?;
    let fwd = forward::transform(&primal, &params)?;
    let typed: Vec<_> = params
        .iter()
        .zip(&sig.params)
        .map(|(v, p)| v.map(|v| (v, p.grad.to_token_stream())))
        .collect();
    let mut rev = reverse::transform(&primal, &typed, sig.ret_kind)?;
    // Forward over reverse differentiates the adjoint program as the sweep wrote it: its tapes
    // are trimmed after it has added its tangents.
    let hvp = if second_order_supported(&primal, &sig) {
        let mut over = rev.b.clone();
        over.dense = true;
        let seeded: Vec<Option<Var>> = params.iter().copied().chain([Some(rev.ct)]).collect();
        let mut hvp = forward::transform(&over, &seeded)?;
        let float = &sig.float;
        for (_, log) in &rev.logs {
            let log = forward::tangent_log(log);
            hvp.b.func.body.insert(
                    0,
                    crate::ir::Stmt::Verbatim {
                        binds: Vec::new(),
                        tokens: quote!(let mut #log: ::std::vec::Vec<(usize, #float)> = ::std::vec::Vec::new();),
                    },
                );
        }
        tape::trim(&mut hvp.b.func);
        Some(hvp)
    } else {
        None
    };
    tape::trim(&mut rev.b.func);
    let mut out = emit::functions(&item, &sig, &fwd, &rev);
    if sig.ret_kind == Kind::Slice {
        let jacobian = emit::second::jacobian(&item, &sig);
        out = quote!(#out #jacobian);
    }
    if let Some(hvp) = &hvp {
        let extra = emit::second::functions(&item, &sig, hvp, &rev);
        out = quote!(#out #extra);
    }
    #[cfg(feature = "explain")]
    let out = {
        let programs = crate::explain::Programs {
            primal: &primal,
            params: &params,
            fwd: &fwd,
        };
        let explain = crate::explain::function(&item, &sig, &programs, &out)?;
        quote!(#out #explain)
    };
    Ok(out)
}

fn first_token_span(item: &TokenStream) -> proc_macro2::Span {
    item.clone()
        .into_iter()
        .next()
        .map_or_else(proc_macro2::Span::call_site, |t| t.span())
}

/// Whether `hvp_`/`hessian_` are written: scalar or slice parameters, a scalar result, and no
/// calls (a callee would need a forward-over-reverse function of its own) or verbatim expressions.
fn second_order_supported(primal: &Builder, sig: &Signature) -> bool {
    let scalar = sig.ret_kind == Kind::Scalar
        && sig
            .params
            .iter()
            .all(|p| !p.differentiable || matches!(p.kind, Kind::Scalar | Kind::Slice));
    let mut simple = true;
    for s in &primal.func.body {
        s.walk(&mut |s| {
            if let crate::ir::Stmt::Let {
                op: crate::ir::Op::Call(_) | crate::ir::Op::Expr(_),
                ..
            } = s
            {
                simple = false;
            }
        });
    }
    scalar && simple
}

/// The body as a Wengert list, and the value of each differentiable parameter.
pub fn lower(item: &ItemFn, sig: &Signature) -> syn::Result<(Builder, Vec<Option<Var>>)> {
    let mut used = BTreeSet::new();
    tokens::idents(item.to_token_stream(), &mut used);
    let mut b = Builder::new(used, sig.float.clone());
    if sig
        .params
        .iter()
        .all(|p| !p.differentiable || p.kind == Kind::Scalar)
    {
        b.call_kind = Kind::Scalar;
    }
    let mut l = Lowerer::new(&mut b);
    let mut params = Vec::new();
    for p in &sig.params {
        if p.differentiable {
            let v = l.b.named(
                p.name.clone(),
                p.kind,
                matches!(p.ty, syn::Type::Reference(_)),
            );
            l.bind(&p.name.to_string(), Atom::Var(v));
            params.push(Some(v));
        } else {
            l.bind(&p.name.to_string(), Atom::Const(p.name.to_token_stream()));
            params.push(None);
        }
    }
    let ret = l.block(&item.block.stmts);
    let mut errors = std::mem::take(&mut l.errors);
    match ret {
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
