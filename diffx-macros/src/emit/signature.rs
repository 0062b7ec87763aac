//! Pieces of the signatures that `#[autodiff]` and `#[custom_derivative]` both write: parameter
//! lists, gradient types, and tangent parameters with their conversions.

use proc_macro2::{Ident, Punct, Spacing, TokenStream, TokenTree};
use quote::{quote, ToTokens};

use crate::ir::Kind;
use crate::parse::{Param, Signature};
use crate::tokens;

/// A parameter of a generated function: `x: f64`, or `_: impl NoTangent` without a name.
#[derive(Clone)]
pub(crate) struct Typed {
    pub name: Option<Ident>,
    pub ty: TokenStream,
}

impl Typed {
    pub fn new(name: &Ident, ty: impl ToTokens) -> Typed {
        Typed {
            name: Some(name.clone()),
            ty: ty.to_token_stream(),
        }
    }

    /// A parameter without a name: `_: ty`.
    pub fn unnamed(ty: TokenStream) -> Typed {
        Typed { name: None, ty }
    }
}

impl Typed {
    /// `name: ty`, moved into `out`.
    pub fn write(self, out: &mut TokenStream) {
        self.head(out);
        out.extend(self.ty);
    }

    /// `name:`.
    fn head(&self, out: &mut TokenStream) {
        let name = match &self.name {
            Some(n) => n.clone(),
            None => Ident::new("_", proc_macro2::Span::call_site()),
        };
        out.extend([
            TokenTree::from(name),
            TokenTree::from(Punct::new(':', Spacing::Alone)),
        ]);
    }
}

impl ToTokens for Typed {
    fn to_tokens(&self, out: &mut TokenStream) {
        self.head(out);
        self.ty.to_tokens(out);
    }
}

/// `x: f64, n: usize`: the parameters as declared.
pub(crate) fn param_list(sig: &Signature) -> Vec<Typed> {
    sig.params
        .iter()
        .map(|p| Typed::new(&p.name, &p.ty))
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

/// The bound of a tangent argument for `p` in the hidden functions: a number or `Zero` for a
/// scalar, a slice, `Vec`, array (or a reference to one) or `Zero` for a sequence, read against the
/// parameter as a slice.
pub(crate) fn tangent_bound(p: &Param) -> TokenStream {
    let g = &p.grad;
    match (&p.kind, &p.elem) {
        (Kind::Scalar, _) => quote!(impl ::diffx::__private::ScalarTangent<#g>),
        (Kind::Slice, Some(e)) => quote!(impl ::diffx::__private::IntoTangent<#g, [#e]>),
        (Kind::Other, _) if matches!(p.owned, syn::Type::Slice(_)) => {
            let e = p
                .owned
                .to_token_stream()
                .into_iter()
                .next()
                .map(|t| match t {
                    proc_macro2::TokenTree::Group(g) => g.stream(),
                    other => other.into(),
                });
            quote!(impl ::diffx::__private::RowsTangent<#e>)
        }
        _ if tokens::same(&g.to_token_stream(), &p.owned.to_token_stream()) => {
            quote!(impl ::diffx::__private::IntoTangent<#g>)
        }
        _ => {
            let o = &p.owned;
            quote!(impl ::diffx::__private::IntoTangent<#g, #o>)
        }
    }
}

/// `let d: G = …;`: the tangent argument `d` for `p` as the parameter's gradient type; `like` is
/// the parameter by reference, which gives a zero its shape.
pub(crate) fn tangent_convert(p: &Param, d: &Ident, like: &TokenStream) -> TokenStream {
    let g = &p.grad;
    match (&p.kind, &p.elem) {
        (Kind::Scalar, _) => {
            quote!(let #d: #g = ::diffx::__private::ScalarTangent::into_scalar(#d);)
        }
        (Kind::Slice, Some(e)) => quote! {
            let #d: #g = <_ as ::diffx::__private::IntoTangent<#g, [#e]>>::into_tangent(#d, #like);
        },
        (Kind::Other, _) if matches!(p.owned, syn::Type::Slice(_)) => {
            quote!(let #d: #g = ::diffx::__private::RowsTangent::into_rows(#d, #like);)
        }
        _ => quote!(let #d: #g = ::diffx::__private::IntoTangent::into_tangent(#d, #like);),
    }
}

/// The tangent parameters of a hidden function, one per parameter (`dots` names those of the
/// differentiable ones; a constant's is ignored), and the statements that turn each into the
/// parameter's gradient type.
pub(crate) fn tangent_inputs(
    sig: &Signature,
    dots: &[Option<Ident>],
) -> (Vec<Typed>, Vec<TokenStream>) {
    let params = sig
        .params
        .iter()
        .zip(dots)
        .map(|(p, d)| match d {
            Some(d) => Typed::new(d, tangent_bound(p)),
            None => Typed::unnamed(quote!(impl ::diffx::__private::NoTangent)),
        })
        .collect();
    let converts = sig
        .params
        .iter()
        .zip(dots)
        .filter_map(|(p, d)| Some(tangent_convert(p, d.as_ref()?, &like(p))))
        .collect();
    (params, converts)
}
