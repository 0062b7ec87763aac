//! The pipeline of `#[autodiff]`: adapt → parse → scopes → desugar → analyze → lower → check →
//! derive the programs → emit (in the function's form: generic, a method, its adaptations undone
//! as each function is written). Each stage is one call here, from one type to the next.

use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use syn::ItemFn;

use crate::adapt;
use crate::builder::Builder;
use crate::ir::{Kind, Stmt, Var};
use crate::parse::{self, Signature};
use crate::{analyze, check, desugar, emit, forward, lower, reverse, tape};

/// `#[autodiff]`: the function unchanged, and its derivative functions beside it. On an error the
/// function is still emitted unchanged, so its callers see no follow-on errors.
pub fn autodiff(attr: TokenStream, item: TokenStream) -> TokenStream {
    or_unchanged(expand(attr, item.clone()), item)
}

/// [`autodiff`] of the function `f`, already read from `item`.
pub fn autodiff_fn(attr: TokenStream, f: ItemFn, item: TokenStream) -> TokenStream {
    or_unchanged(expand_fn(attr, f), item)
}

fn or_unchanged(written: syn::Result<TokenStream>, item: TokenStream) -> TokenStream {
    match written {
        Ok(ts) => ts,
        Err(e) => {
            let errors = e.to_compile_error();
            quote!(#item #errors)
        }
    }
}

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let f: ItemFn = syn::parse2(item.clone()).map_err(|_| {
        syn::Error::new(
            first_token_span(&item),
            "`#[autodiff]` goes on a function or an `impl` block: `#[autodiff] fn f(x: f64) -> f64 { … }`",
        )
    })?;
    expand_fn(attr, f)
}

fn expand_fn(attr: TokenStream, f: ItemFn) -> syn::Result<TokenStream> {
    let args = parse::args(attr)?;
    let Written { primal, derived } = function(f, args)?;
    Ok(std::iter::once(primal).chain(derived).collect())
}

/// What is written for one function, in its form: the function and its derivative functions.
pub struct Written {
    /// The user's function.
    pub primal: TokenStream,
    /// Everything else, in pieces: a stream is joined once, where it is written.
    pub derived: Vec<TokenStream>,
}

/// The pipeline for one function.
pub fn function(item: ItemFn, args: parse::Args) -> syn::Result<Written> {
    let (core, args, adapters) = adapt::into_core(item, args)?;
    let sig = parse::signature(&core, &args)?;
    let programs = programs(&core, &sig, &args)?;
    let form =
        emit::form::Form::new(&core, &sig, programs.through_f64).undoing(adapt::ways_out(adapters));
    let (primal, core_kept) = form.primal(&core);
    let mut derived: Vec<TokenStream> = core_kept.into_iter().collect();
    derived.extend(emit_programs(&core, &sig, &form, &programs)?);
    derived.extend(form.after());
    Ok(Written { primal, derived })
}

/// The programs the derivative functions are written from.
pub struct Programs {
    // (Read by `explain_` alone, besides the programs derived from it.)
    #[cfg_attr(not(feature = "explain"), allow(dead_code))]
    pub primal: Builder,
    /// The value of each differentiable parameter in `primal`.
    #[cfg_attr(not(feature = "explain"), allow(dead_code))]
    pub params: Vec<Option<Var>>,
    pub fwd: forward::Forward,
    pub rev: reverse::Reverse,
    /// The reverse program the second-order programs differentiate: `rev` as the sweep wrote it,
    /// before its tapes are trimmed and its calls paired.
    pub base: Option<reverse::Reverse>,
    /// Forward over reverse (`order = 2`), and forward over that (`order = 3`).
    pub hvp: Option<forward::Forward>,
    pub third: Option<forward::Forward>,
    /// Whether desugaring bound the derivative functions to a float type of `f64` alone
    /// (`desugar/conversions.rs`).
    pub through_f64: bool,
}

/// The body desugared and lowered, and the programs derived from it, trimmed.
fn programs(item: &ItemFn, sig: &Signature, args: &parse::Args) -> syn::Result<Programs> {
    let (asked, record) = (args.order, !args.recompute);
    let (block, user_names) = analyze::scopes(&item.block, sig);
    let as_written = |e| analyze::error_as_written(e, &user_names);
    let desugared = desugar::body(block, sig).map_err(as_written)?;
    let through_f64 = crate::tokens::is_generic(&sig.float) && desugar::guarded(&desugared);
    let (block, facts) = analyze::body(desugared, sig, user_names.clone());
    // (The item around the new body, without a copy of the old one.)
    let core = ItemFn {
        attrs: item.attrs.clone(),
        vis: item.vis.clone(),
        sig: item.sig.clone(),
        block: Box::new(block),
    };
    let second = asked.is_some_and(|o| o.n >= 2);
    let user_names = facts.user_names.clone();
    let as_written = |e| analyze::error_as_written(e, &user_names);
    let (primal, params) = lower::function(&core, sig, facts, second).map_err(as_written)?;
    let order = check::order(&primal, sig, item, asked)?;
    let fwd = forward::transform(&primal, &params)?;
    let typed: Vec<_> = params
        .iter()
        .zip(&sig.params)
        .map(|(v, p)| v.map(|v| (v, p.grad.to_token_stream())))
        .collect();
    let mut rev = reverse::transform(&primal, &typed, sig.ret_kind, record)?;
    // Forward over reverse differentiates the adjoint program as the sweep wrote it (its records
    // get tangents of their own), and a third pass the `hvp_` program as the second wrote it:
    // tapes are trimmed after the last pass.
    let base = (order >= 2).then(|| rev.clone());
    let mut hvp = match &base {
        Some(base) => {
            let with_ct: Vec<Option<Var>> = params.iter().copied().chain([Some(base.ct)]).collect();
            Some(over(&base.b, &with_ct)?)
        }
        None => None,
    };
    let mut third = match &hvp {
        Some(hvp) if order == 3 => Some(third_program(hvp, &params, sig)?),
        _ => None,
    };
    // (Tangents' logs are declared with indices, before trimming says which logs need none.)
    let tangent_logs: Vec<Ident> = (hvp.iter().chain(&third))
        .flat_map(|p| p.b.tangent_logs.iter().map(|(_, t)| t.clone()))
        .collect();
    for program in hvp.iter_mut().chain(third.iter_mut()) {
        tape::trim(&mut program.b.func);
        (program.b.func.value_logs).retain(|l| !tangent_logs.contains(l));
    }
    tape::trim(&mut rev.b.func);
    // (After the second-order programs, which differentiate the unpaired calls.)
    reverse::pair_calls(&mut rev.b.func, &item.sig.ident, &rev.recording_ifs);
    if let Some((snapshots, at)) = args.checkpoint {
        check::checkpoint(item, (!args.associated).then_some(at))?;
        reverse::checkpoint(&mut rev.b, snapshots);
    }
    Ok(Programs {
        primal,
        params,
        fwd,
        rev,
        base,
        hvp,
        third,
        through_f64,
    })
}

/// Every derivative function of `item`, for its core form.
fn emit_programs(
    item: &ItemFn,
    sig: &Signature,
    form: &emit::form::Form,
    p: &Programs,
) -> syn::Result<Vec<TokenStream>> {
    let mut out = vec![emit::functions(item, sig, form, &p.fwd, &p.rev)];
    if matches!(sig.ret_kind, Kind::Slice | Kind::Other) {
        out.push(emit::jacobian::jacobian(item, sig, form));
    }
    match (&p.hvp, &p.base) {
        (Some(hvp), Some(base)) => {
            let dots: Vec<Option<Ident>> = hvp.param_dots[..sig.params.len()]
                .iter()
                .map(|d| d.map(|d| hvp.b.func.name(d).clone()))
                .collect();
            out.push(emit::second::hidden_hvp(item, sig, form, hvp, base));
            if sig.ret_kind == Kind::Scalar {
                out.push(emit::second::public(item, sig, form, &dots));
                out.push(emit::nested::companions(item, sig, form));
            } else {
                // (A vector result: its callers' second order goes through the hidden function.)
                out.push(emit::second::not_asked(item, sig, form));
                out.push(emit::nested::not_asked(item, sig, form));
            }
        }
        _ => {
            out.push(emit::second::no_hvp(item, sig, form, false));
            out.push(emit::second::not_asked(item, sig, form));
            out.push(emit::nested::not_asked(item, sig, form));
        }
    }
    if let (Some(third), Some(hvp), Some(base)) = (&p.third, &p.hvp, &p.base) {
        out.push(emit::third::functions(item, sig, form, third, hvp, base));
    }
    #[cfg(feature = "explain")]
    {
        let programs = crate::explain::Programs {
            primal: &p.primal,
            params: &p.params,
            fwd: &p.fwd,
        };
        // The derivative programs as a learner reads them: free functions of one float type,
        // the reverse program as one function (the emitted `__diffx_vjp_` may call the split
        // function instead).
        let shown = emit::plain(item, sig, &p.fwd, &p.rev);
        let explain = crate::explain::function(item, sig, form, &programs, &shown)?;
        out.push(explain);
    }
    Ok(out)
}

pub fn first_token_span(item: &TokenStream) -> proc_macro2::Span {
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
                tokens:
                    quote!(let mut #log: ::std::vec::Vec<(usize, #float)> = ::std::vec::Vec::new();)
                        .into(),
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
