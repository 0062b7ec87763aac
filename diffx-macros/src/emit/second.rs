//! Second order: `hvp_f` (a Hessian-vector product by forward mode over the reverse program) and
//! `hessian_f` (one `hvp_f` per input direction).

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::ItemFn;

use super::{allow, body, place};
use crate::forward::Forward;
use crate::ir::Atom;
use crate::parse::Signature;
use crate::reverse::Reverse;

/// `hvp_f` and `hessian_f`, from `hvp`: the forward program of the reverse program `rev`, whose
/// last tangent parameter is the seed's.
pub fn functions(item: &ItemFn, sig: &Signature, hvp: &Forward, rev: &Reverse) -> TokenStream {
    let (vis, name, float) = (&item.vis, &item.sig.ident, &sig.float);
    let f = &hvp.b.func;
    let (hvp_name, hessian_name) = (
        format_ident!("hvp_{}", name),
        format_ident!("hessian_{}", name),
    );
    let params: Vec<TokenStream> = sig
        .params
        .iter()
        .map(|p| {
            let (n, t) = (&p.name, &p.ty);
            quote!(#n: #t)
        })
        .collect();
    let diff: Vec<usize> = (0..sig.params.len())
        .filter(|i| sig.params[*i].differentiable)
        .collect();
    let dot_names: Vec<&Ident> = diff
        .iter()
        .filter_map(|i| hvp.param_dots[*i].map(|d| f.name(d)))
        .collect();
    let tangent_params = diff.iter().zip(&dot_names).map(|(i, d)| {
        let t = &sig.params[*i].ty;
        quote!(#d: #t)
    });
    let ct = rev.b.func.name(rev.ct);
    let ct_dot = hvp
        .param_dots
        .last()
        .copied()
        .flatten()
        .map(|d| f.name(d).clone());
    let results: Vec<TokenStream> = diff
        .iter()
        .map(|i| match rev.grads[*i].and_then(|g| hvp.dots.get(&g)) {
            Some(d) => place(f, &Atom::Var(*d)),
            None => quote!(0.0),
        })
        .collect();
    let result = if results.len() == 1 {
        quote!(#(#results)*)
    } else {
        quote!((#(#results),*))
    };
    let grads: Vec<&syn::Type> = diff.iter().map(|i| &sig.params[*i].grad).collect();
    let gty = if grads.len() == 1 {
        quote!(#(#grads)*)
    } else {
        quote!((#(#grads),*))
    };
    let (code, allow) = (body(f), allow());
    let hvp_doc = doc(format!(
        "The Hessian of [`{name}`] times the direction given as tangents (as in `jvp_{name}`), shaped like its gradient: forward mode over the reverse program, a small constant times one gradient."
    ));
    let hvp_fn = quote! {
        #hvp_doc
        #[inline]
        #allow
        #vis fn #hvp_name(#(#params,)* #(#tangent_params),*) -> #gty {
            let #ct: #float = 1.0;
            let #ct_dot: #float = 0.0;
            #code
            #result
        }
    };
    // `hessian_` over scalar parameters only: slices need a unit direction per element.
    let scalars = diff
        .iter()
        .all(|i| sig.params[*i].kind == crate::ir::Kind::Scalar);
    let hessian = scalars.then(|| hessian(sig, &hvp_name, &hessian_name, &diff, vis, name));
    quote!(#hvp_fn #hessian)
}

/// `hessian_f`: row k is the Hessian-vector product along the k-th unit vector.
fn hessian(
    sig: &Signature,
    hvp: &Ident,
    hessian: &Ident,
    diff: &[usize],
    vis: &syn::Visibility,
    name: &Ident,
) -> TokenStream {
    let float = &sig.float;
    let params = sig.params.iter().map(|p| {
        let (n, t) = (&p.name, &p.ty);
        quote!(#n: #t)
    });
    let args = sig.params.iter().map(|p| {
        let n = &p.name;
        quote!(::core::clone::Clone::clone(&#n))
    });
    let k = Ident::new("__k", Span::mixed_site());
    let units = (0..diff.len()).map(|j| quote!(if #k == #j { 1.0 } else { 0.0 }));
    let g = Ident::new("__g", Span::mixed_site());
    let row = if diff.len() == 1 {
        quote!(::std::vec![#g])
    } else {
        let idx = (0..diff.len()).map(syn::Index::from);
        quote!(::std::vec![#(#g.#idx),*])
    };
    let n = diff.len();
    let doc = doc(format!(
        "The dense Hessian of [`{name}`] with respect to its differentiable parameters, in order: one `hvp_{name}` per unit direction."
    ));
    quote! {
        #doc
        #[allow(dead_code, clippy::too_many_arguments)]
        #vis fn #hessian(#(#params),*) -> ::std::vec::Vec<::std::vec::Vec<#float>> {
            (0..#n)
                .map(|#k| {
                    let #g = #hvp(#(#args,)* #(#units),*);
                    #row
                })
                .collect()
        }
    }
}

fn doc(text: String) -> TokenStream {
    let text = format!(" {text}\n\n Written by `#[autodiff]`.");
    quote!(#[doc = #text])
}

/// `jacobian_g` for a vector-valued `g` of scalar parameters: M rows, one column per parameter,
/// by N forward passes or M reverse passes, whichever is fewer.
pub fn jacobian(item: &ItemFn, sig: &Signature) -> TokenStream {
    let (vis, name, float, ret) = (&item.vis, &item.sig.ident, &sig.float, &sig.ret);
    let diff: Vec<usize> = (0..sig.params.len())
        .filter(|i| sig.params[*i].differentiable)
        .collect();
    if !diff
        .iter()
        .all(|i| sig.params[*i].kind == crate::ir::Kind::Scalar)
    {
        return TokenStream::new();
    }
    let (jvp, vjp, jac) = (
        format_ident!("jvp_{}", name),
        format_ident!("vjp_{}", name),
        format_ident!("jacobian_{}", name),
    );
    let params = sig.params.iter().map(|p| {
        let (n, t) = (&p.name, &p.ty);
        quote!(#n: #t)
    });
    let args: Vec<TokenStream> = sig
        .params
        .iter()
        .map(|p| {
            let n = &p.name;
            quote!(::core::clone::Clone::clone(&#n))
        })
        .collect();
    let id = |s: &str| Ident::new(s, Span::mixed_site());
    let (value, m, c, r, t, j, g, ct) = (
        id("__value"),
        id("__m"),
        id("__c"),
        id("__r"),
        id("__t"),
        id("__j"),
        id("__g"),
        id("__ct"),
    );
    let n = diff.len();
    let units = (0..n).map(|k| quote!(if #c == #k { 1.0 } else { 0.0 }));
    let row = if n == 1 {
        quote!(::std::vec![#g])
    } else {
        let idx = (0..n).map(syn::Index::from);
        quote!(::std::vec![#(#g.#idx),*])
    };
    let doc = doc(format!(
        "The Jacobian of [`{name}`]: one row per component of its result, one column per differentiable parameter — by forward passes (`jvp_{name}`) or reverse passes (`vjp_{name}`), whichever are fewer."
    ));
    quote! {
        #doc
        #[allow(dead_code, clippy::too_many_arguments, clippy::needless_range_loop)]
        #vis fn #jac(#(#params),*) -> ::std::vec::Vec<::std::vec::Vec<#float>> {
            let #value: #ret = #name(#(#args),*);
            let #m = #value.len();
            if #n <= #m {
                let mut #j = ::std::vec![::std::vec![0.0; #n]; #m];
                for #c in 0..#n {
                    let (_, #t) = #jvp(#(#args,)* #(#units),*);
                    for #r in 0..#m {
                        #j[#r][#c] = #t[#r];
                    }
                }
                #j
            } else {
                (0..#m)
                    .map(|#r| {
                        let mut #ct: #ret = ::diffx::__private::zero_like(&#value);
                        #ct[#r] = 1.0;
                        let #g = #vjp(#(#args,)* #ct);
                        #row
                    })
                    .collect()
            }
        }
    }
}
