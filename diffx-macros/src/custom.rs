//! `#[custom_derivative(jvp = f_jvp, vjp = f_vjp)]`: a function whose derivative is written by hand
//! (a numerically stable formula, an implicit-function-theorem derivative of an iterative solver,
//! an external routine), used instead of differentiating its body — by both modes, and by every
//! `#[autodiff]` function that calls it.
//!
//! The rules, for `fn f(x: f64, y: f64, n: usize) -> f64` (differentiable `x`, `y`):
//! - `jvp = f_jvp`: `fn f_jvp(x: f64, y: f64, n: usize, tx: f64, ty: f64) -> (f64, f64)`, the
//!   value and the directional derivative, as `jvp_f`;
//! - `vjp = f_vjp`: `fn f_vjp(x: f64, y: f64, n: usize, ct: f64) -> (f64, (f64, f64))`, the value
//!   and the cotangent times the gradient (bare for one differentiable parameter).
//!
//! - `hvp = f_hvp` (optional, for a scalar result): `fn f_hvp(x: f64, y: f64, n: usize, tx: f64,
//!   ty: f64) -> (f64, f64)`, the Hessian times the tangents, shaped like the gradient, as `hvp_f`.
//!   With it come `hvp_f`, `grad_and_hvp_f` and `hessian_f`, and callers with
//!   `#[autodiff(order = 2)]` go through `f`; without it, such a caller is a compile error at the
//!   call that asks for the rule.
//!
//! The attribute writes the hidden `__diffx_jvp_f`/`__diffx_vjp_f` around them, so the public
//! `grad_f`, `jvp_f`, … and calls from other `#[autodiff]` functions work as usual. A rule whose
//! signature does not fit is a type error at the rule's name in the attribute.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::ItemFn;

use crate::emit::signature::{grad_types, param_list, tangent_inputs};
use crate::names;
use crate::parse::{self, Signature};

struct Rules {
    jvp: syn::Path,
    vjp: syn::Path,
    /// The optional second-order rule.
    hvp: Option<syn::Path>,
}

fn rules(attr: TokenStream) -> syn::Result<Rules> {
    let (mut jvp, mut vjp, mut hvp) = (None, None, None);
    let parser = syn::meta::parser(|meta| {
        let slot = if meta.path.is_ident("jvp") {
            &mut jvp
        } else if meta.path.is_ident("vjp") {
            &mut vjp
        } else if meta.path.is_ident("hvp") {
            &mut hvp
        } else {
            return Err(meta.error(
                "`#[custom_derivative]` takes `jvp = function`, `vjp = function` and optionally `hvp = function`",
            ));
        };
        *slot = Some(meta.value()?.parse::<syn::Path>()?);
        Ok(())
    });
    syn::parse::Parser::parse2(parser, attr)?;
    match (jvp, vjp) {
        (Some(jvp), Some(vjp)) => Ok(Rules { jvp, vjp, hvp }),
        _ => Err(syn::Error::new(
            Span::call_site(),
            "give both rules: `#[custom_derivative(jvp = f_jvp, vjp = f_vjp)]` (forward and reverse mode)",
        )),
    }
}

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let item: ItemFn = syn::parse2(item)?;
    let rules = rules(attr)?;
    let sig = parse::signature(&item, &parse::Args::default())?;
    let dots: Vec<Option<Ident>> = sig
        .params
        .iter()
        .map(|p| p.differentiable.then(|| format_ident!("{}_dot", p.name)))
        .collect();
    let ct = Ident::new("ct", Span::call_site());
    let form = crate::emit::form::Form::plain(&sig.float);
    let mut hidden = vec![
        hidden_jvp(&item, &sig, &rules.jvp, &dots),
        hidden_vjp(&item, &sig, &rules.vjp, &ct),
    ];
    if crate::emit::split::wanted(&item, &sig) {
        let parts = crate::emit::split::Parts {
            item: &item,
            sig: &sig,
            form: &form,
            ct: &ct,
        };
        hidden.push(crate::emit::split::recomputing(&parts));
    }
    let public = crate::emit::public(&item, &sig, &form, &dots, &ct);
    let second = match &rules.hvp {
        Some(hvp) if sig.ret_kind != crate::ir::Kind::Scalar => return Err(syn::Error::new(
            hvp.span(),
            "an `hvp` rule is for a function with a scalar result (`-> f64`): leave it out here",
        )),
        Some(hvp) => {
            let hidden = hidden_hvp(&item, &sig, &rules.vjp, hvp, &dots);
            let public = crate::emit::second::public(&item, &sig, &form, &dots);
            quote!(#hidden #public)
        }
        None => crate::emit::second::no_hvp(&item, &sig, &form, true),
    };
    Ok(quote!(#item #(#hidden)* #public #second))
}

fn hidden_jvp(
    item: &ItemFn,
    sig: &Signature,
    rule: &syn::Path,
    dots: &[Option<Ident>],
) -> TokenStream {
    let (vis, ret) = (&item.vis, &sig.ret);
    let name = names::jvp(&item.sig.ident);
    let params = param_list(sig);
    let (tangents, converts) = tangent_inputs(sig, dots);
    let args = sig.params.iter().map(|p| p.name.to_token_stream());
    let tangent_args = dots.iter().flatten();
    // Spanned at the rule, so a rule of the wrong shape is reported there.
    let call = quote_spanned!(rule.span() => {
        let __rule: (#ret, #ret) = #rule(#(#args,)* #(#tangent_args),*);
        __rule
    });
    quote! {
        #[doc(hidden)]
        #[inline]
        #[allow(clippy::all)]
        #vis fn #name(#(#params,)* #(#tangents),*) -> (#ret, #ret) {
            #(#converts)*
            #call
        }
    }
}

/// `__diffx_hvp_f` from the rules: the gradient by the `vjp` rule (at cotangent 1) and the Hessian
/// times the tangents by the `hvp` rule, scaled as the interface asks: `ct·∇f` and its tangent
/// `ct·H·ṫ + ct_dot·∇f`.
fn hidden_hvp(
    item: &ItemFn,
    sig: &Signature,
    vjp: &syn::Path,
    hvp: &syn::Path,
    dots: &[Option<Ident>],
) -> TokenStream {
    let (vis, ret) = (&item.vis, &sig.ret);
    let name = names::hvp(&item.sig.ident);
    let params = param_list(sig);
    let (tangents, converts) = tangent_inputs(sig, dots);
    let id = |s: String| Ident::new(&s, Span::mixed_site());
    let diff: Vec<usize> = (0..sig.params.len())
        .filter(|i| sig.params[*i].differentiable)
        .collect();
    let (gs, hs): (Vec<Ident>, Vec<Ident>) = diff
        .iter()
        .map(|i| (id(format!("__g{i}")), id(format!("__h{i}"))))
        .unzip();
    let pattern = |names: &[Ident]| {
        if names.len() == 1 {
            quote!(#(#names)*)
        } else {
            quote!((#(#names),*))
        }
    };
    let (gp, hp) = (pattern(&gs), pattern(&hs));
    let gtys: Vec<&syn::Type> = diff.iter().map(|i| &sig.params[*i].grad).collect();
    let gty = if gtys.len() == 1 {
        quote!(#(#gtys)*)
    } else {
        quote!((#(#gtys),*))
    };
    let tys = grad_types(sig);
    let (ct, ct_dot, value) = (
        id("__ct".into()),
        id("__ct_dot".into()),
        id("__value".into()),
    );
    let entries = |f: &dyn Fn(&Ident, &Ident) -> TokenStream| {
        let mut k = 0;
        sig.params
            .iter()
            .map(|p| {
                if !p.differentiable {
                    return quote!(::diffx::__private::Zero);
                }
                k += 1;
                f(&gs[k - 1], &hs[k - 1])
            })
            .collect::<Vec<_>>()
    };
    let grads = entries(&|g, _| quote!(::diffx::__private::combine(#ct, &#g, 0.0, &#g)));
    let grad_dots = entries(&|g, h| quote!(::diffx::__private::combine(#ct, &#h, #ct_dot, &#g)));
    let args: Vec<TokenStream> = sig
        .params
        .iter()
        .map(|p| p.name.to_token_stream())
        .collect();
    let tangent_args = dots.iter().flatten();
    // Spanned at the rules, so a rule of the wrong shape is reported there.
    let by_vjp =
        quote_spanned!(vjp.span() => let (#value, #gp): (#ret, #gty) = #vjp(#(#args,)* 1.0););
    let by_hvp = quote_spanned!(hvp.span() => let #hp: #gty = #hvp(#(#args,)* #(#tangent_args),*););
    quote! {
        #[doc(hidden)]
        #[inline]
        #[allow(clippy::all)]
        #vis fn #name(#(#params,)* #(#tangents,)* #ct: #ret, #ct_dot: #ret) -> (#ret, (#(#tys,)*), (#(#tys,)*)) {
            #(#converts)*
            #by_vjp
            #by_hvp
            (#value, (#(#grads,)*), (#(#grad_dots,)*))
        }
    }
}

fn hidden_vjp(item: &ItemFn, sig: &Signature, rule: &syn::Path, ct: &Ident) -> TokenStream {
    let (vis, ret) = (&item.vis, &sig.ret);
    let name = names::vjp(&item.sig.ident);
    let params = sig.params.iter().map(|p| {
        let (n, t) = (&p.name, &p.ty);
        quote!(#n: #t)
    });
    let args = sig.params.iter().map(|p| p.name.to_token_stream());
    let tys = grad_types(sig);
    let grads: Vec<Ident> = (0..sig.params.iter().filter(|p| p.differentiable).count())
        .map(|i| Ident::new(&format!("__g{i}"), Span::mixed_site()))
        .collect();
    let pattern = if grads.len() == 1 {
        quote!(#(#grads)*)
    } else {
        quote!((#(#grads),*))
    };
    let mut next = grads.iter();
    let all = sig.params.iter().map(|p| {
        if p.differentiable {
            next.next()
                .map_or(quote!(::diffx::__private::Zero), |g| quote!(#g))
        } else {
            quote!(::diffx::__private::Zero)
        }
    });
    let value = Ident::new("__value", Span::mixed_site());
    let gtys: Vec<&syn::Type> = sig
        .params
        .iter()
        .filter(|p| p.differentiable)
        .map(|p| &p.grad)
        .collect();
    let gty = if gtys.len() == 1 {
        quote!(#(#gtys)*)
    } else {
        quote!((#(#gtys),*))
    };
    // Spanned at the rule, so a rule of the wrong shape is reported there.
    let call = quote_spanned!(rule.span() => let (#value, #pattern): (#ret, #gty) = #rule(#(#args,)* #ct););
    quote! {
        #[doc(hidden)]
        #[inline]
        #[allow(clippy::all)]
        #vis fn #name(#(#params,)* #ct: #ret) -> (#ret, (#(#tys,)*)) {
            #call
            (#value, (#(#all,)*))
        }
    }
}
