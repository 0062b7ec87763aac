//! Pieces of the signatures that `#[autodiff]` and `#[custom_derivative]` both write: parameter
//! lists, gradient types, and tangent parameters with their conversions.

use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};

use crate::parse::{Param, Signature};

/// `x: f64, n: usize`: the parameters as declared.
pub(crate) fn param_list(sig: &Signature) -> Vec<TokenStream> {
    sig.params
        .iter()
        .map(|p| {
            let (n, t) = (&p.name, &p.ty);
            quote!(#n: #t)
        })
        .collect()
}

/// The gradient type of each parameter in the uniform interface of the hidden functions: `Zero`
/// for a constant.
pub(crate) fn grad_types(sig: &Signature) -> Vec<TokenStream> {
    sig.params
        .iter()
        .map(|p| {
            if p.differentiable {
                p.grad.to_token_stream()
            } else {
                quote!(::diffx::__private::Zero)
            }
        })
        .collect()
}

/// `x` for a `&T` parameter, `&x` otherwise: the value a zero tangent is shaped like.
pub(crate) fn like(p: &Param) -> TokenStream {
    let n = &p.name;
    if matches!(p.ty, syn::Type::Reference(_)) {
        quote!(#n)
    } else {
        quote!(&#n)
    }
}

/// The tangent parameters of a hidden function, one per parameter (`dots` names those of the
/// differentiable ones; a constant's is ignored), and the statements that turn each into the
/// parameter's gradient type.
pub(crate) fn tangent_inputs(
    sig: &Signature,
    dots: &[Option<Ident>],
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let params = sig
        .params
        .iter()
        .zip(dots)
        .map(|(p, d)| match d {
            Some(d) => {
                let (g, o) = (&p.grad, &p.owned);
                quote!(#d: impl ::diffx::__private::IntoTangent<#g, #o>)
            }
            None => quote!(_: impl ::diffx::__private::NoTangent),
        })
        .collect();
    let converts = sig
        .params
        .iter()
        .zip(dots)
        .filter_map(|(p, d)| {
            let (d, g, l) = (d.as_ref()?, &p.grad, like(p));
            Some(quote!(let #d: #g = ::diffx::__private::IntoTangent::into_tangent(#d, #l);))
        })
        .collect();
    (params, converts)
}
