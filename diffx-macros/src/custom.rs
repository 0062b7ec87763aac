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
//! The attribute writes the hidden `__diffx_jvp_f`/`__diffx_vjp_f` around them, so the public
//! `grad_f`, `jvp_f`, … and calls from other `#[autodiff]` functions work as usual. A rule whose
//! signature does not fit is a type error at the rule's name in the attribute.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::ItemFn;

use crate::parse::{self, Signature};

struct Rules {
    jvp: syn::Path,
    vjp: syn::Path,
}

fn rules(attr: TokenStream) -> syn::Result<Rules> {
    let (mut jvp, mut vjp) = (None, None);
    let parser = syn::meta::parser(|meta| {
        let slot = if meta.path.is_ident("jvp") {
            &mut jvp
        } else if meta.path.is_ident("vjp") {
            &mut vjp
        } else {
            return Err(
                meta.error("`#[custom_derivative]` takes `jvp = function` and `vjp = function`")
            );
        };
        *slot = Some(meta.value()?.parse::<syn::Path>()?);
        Ok(())
    });
    syn::parse::Parser::parse2(parser, attr)?;
    match (jvp, vjp) {
        (Some(jvp), Some(vjp)) => Ok(Rules { jvp, vjp }),
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
    let hidden = [
        hidden_jvp(&item, &sig, &rules.jvp, &dots),
        hidden_vjp(&item, &sig, &rules.vjp, &ct),
    ];
    let public = crate::emit::public(&item, &sig, &dots, &ct);
    Ok(quote!(#item #(#hidden)* #public))
}

/// `x` for a `&T` parameter, `&x` otherwise: the value a zero tangent is shaped like.
fn like(p: &parse::Param) -> TokenStream {
    let n = &p.name;
    if matches!(p.ty, syn::Type::Reference(_)) {
        quote!(#n)
    } else {
        quote!(&#n)
    }
}

fn hidden_jvp(
    item: &ItemFn,
    sig: &Signature,
    rule: &syn::Path,
    dots: &[Option<Ident>],
) -> TokenStream {
    let (vis, ret) = (&item.vis, &sig.ret);
    let name = format_ident!("__diffx_jvp_{}", item.sig.ident);
    let params = sig.params.iter().map(|p| {
        let (n, t) = (&p.name, &p.ty);
        quote!(#n: #t)
    });
    let tangents = sig.params.iter().zip(dots).map(|(p, d)| match d {
        Some(d) => {
            let (g, o) = (&p.grad, &p.owned);
            quote!(#d: impl ::diffx::__private::IntoTangent<#g, #o>)
        }
        None => quote!(_: impl ::core::marker::Sized),
    });
    let converts = sig.params.iter().zip(dots).filter_map(|(p, d)| {
        let (d, g, l) = (d.as_ref()?, &p.grad, like(p));
        Some(quote!(let #d: #g = ::diffx::__private::IntoTangent::into_tangent(#d, #l);))
    });
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

fn hidden_vjp(item: &ItemFn, sig: &Signature, rule: &syn::Path, ct: &Ident) -> TokenStream {
    let (vis, ret) = (&item.vis, &sig.ret);
    let name = format_ident!("__diffx_vjp_{}", item.sig.ident);
    let params = sig.params.iter().map(|p| {
        let (n, t) = (&p.name, &p.ty);
        quote!(#n: #t)
    });
    let args = sig.params.iter().map(|p| p.name.to_token_stream());
    let tys = sig.params.iter().map(|p| {
        if p.differentiable {
            p.grad.to_token_stream()
        } else {
            quote!(::diffx::__private::Zero)
        }
    });
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
