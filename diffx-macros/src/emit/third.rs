//! Third order, with `#[autodiff(order = 3)]`: `dhvp_f`, the third-derivative tensor contracted
//! with two directions (forward mode once more, over the program of `hvp_f`), and `d3_f`, the
//! third derivative of a function of one scalar.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use syn::ItemFn;

use super::form::{with, Form, Function, Ret, Role};
use super::second::doc;
use super::signature::Typed;
use super::signature::{like, param_list};
use super::{allow, body};
use crate::forward::Forward;
use crate::ir::operands::place;
use crate::ir::{Atom, Kind};
use crate::parse::Signature;
use crate::reverse::Reverse;

/// `dhvp_f` (and `d3_f` for one scalar parameter) from `third`, the forward program of `hvp`,
/// itself the forward program of the reverse program `rev`.
pub fn functions(
    item: &ItemFn,
    sig: &Signature,
    form: &Form,
    third: &Forward,
    hvp: &Forward,
    rev: &Reverse,
) -> TokenStream {
    let (vis, name, float) = (&item.vis, &item.sig.ident, &sig.float);
    let f = &third.b.func;
    let diff: Vec<usize> = (0..sig.params.len())
        .filter(|i| sig.params[*i].differentiable)
        .collect();
    // Direction u is the tangent of this pass, v the tangent of `hvp_`'s.
    let dirs = |dots: &[Option<crate::ir::Var>]| -> Vec<Ident> {
        diff.iter()
            .filter_map(|i| dots[*i].map(|d| f.name(d).clone()))
            .collect()
    };
    let (us, vs) = (dirs(&third.param_dots), dirs(&hvp.param_dots));
    let (u_params, v_params) = (typed(sig, &diff, &us), typed(sig, &diff, &vs));
    let converts = converts(sig, &diff, &us, &vs);
    let (ct, ct_dot) = super::second::cotangent_names(hvp, rev);
    let (result, gty) = contracted(sig, &diff, third, hvp, rev);
    let params = param_list(sig);
    let dhvp = format_ident!("dhvp_{}", name);
    let (code, allow) = (body(f), allow());
    let dhvp_doc = doc(format!(
        "The third derivative of [`{name}`] contracted with the directions `u` and `v`, D³{name}[u, v, ·], shaped like its gradient: the derivative of `hvp_{name}` (along `v`) along `u`, by forward mode over its forward-over-reverse program. Symmetric in `u` and `v`; each direction is given as tangents, as in `jvp_{name}`."
    ));
    let (one, zero) = (
        crate::tokens::float_lit(float, "1.0"),
        crate::tokens::float_lit(float, "0.0"),
    );
    let dhvp_fn = form.function(Function {
        attrs: quote!(#dhvp_doc #[inline] #allow),
        vis: vis.clone(),
        name: dhvp.clone(),
        role: Role::Dhvp,
        valued: None,
        stub: None,
        params: with(&with(&params, u_params), v_params),
        ret: Some(Ret::Type(gty)),
        body: quote! {
            #(#converts)*
            let #ct: #float = #one;
            let #ct_dot: #float = #zero;
            #code
            #result
        },
    });
    let one_scalar = diff.len() == 1 && sig.params[diff[0]].kind == Kind::Scalar;
    if !one_scalar {
        return dhvp_fn;
    }
    let d3 = format_ident!("d3_{}", name);
    let args = sig.params.iter().map(|p| &p.name);
    let d3_doc = doc(format!(
        "The third derivative of [`{name}`], a function of one scalar: `dhvp_{name}` along 1 and 1."
    ));
    let one = form.lit("1.0");
    let d3_fn = form.function(Function {
        attrs: quote!(#d3_doc #[inline] #[allow(dead_code, clippy::too_many_arguments)]),
        vis: vis.clone(),
        name: d3.clone(),
        role: Role::D3,
        valued: None,
        stub: None,
        params,
        ret: Some(Ret::Type(quote!(#float))),
        body: form.call(Role::D3, &dhvp, quote!(#(#args,)* #one, #one)),
    });
    quote!(#dhvp_fn #d3_fn)
}

/// Each differentiable parameter's direction `names` as parameters: `d: T`.
fn typed(sig: &Signature, diff: &[usize], names: &[Ident]) -> Vec<Typed> {
    diff.iter()
        .zip(names)
        .map(|(i, d)| Typed::new(d, &sig.params[*i].ty))
        .collect()
}

/// Each direction's tangents `u` and `v` converted to the parameter's gradient type, as in the
/// hidden functions.
fn converts(sig: &Signature, diff: &[usize], us: &[Ident], vs: &[Ident]) -> Vec<TokenStream> {
    diff.iter()
        .zip(us.iter().zip(vs))
        .flat_map(|(i, (u, v))| {
            let p = &sig.params[*i];
            let like = like(p);
            [u, v].map(|d| super::signature::tangent_convert(p, d, &like))
        })
        .collect()
}

/// `dhvp_f`'s result, shaped like the gradient, and its type: each differentiable parameter's
/// tangent of `hvp_f`'s tangent of its gradient (zero where there is none).
fn contracted(
    sig: &Signature,
    diff: &[usize],
    third: &Forward,
    hvp: &Forward,
    rev: &Reverse,
) -> (TokenStream, TokenStream) {
    let f = &third.b.func;
    let results: Vec<TokenStream> = diff
        .iter()
        .map(|i| {
            let d = rev.grads[*i]
                .and_then(|g| hvp.dots.get(&g))
                .and_then(|h| third.dots.get(h));
            d.map_or_else(|| super::zero(f), |d| place(f, &Atom::Var(*d)))
        })
        .collect();
    let grads: Vec<&syn::Type> = diff.iter().map(|i| &sig.params[*i].grad).collect();
    if diff.len() == 1 {
        (quote!(#(#results)*), quote!(#(#grads)*))
    } else {
        (quote!((#(#results),*)), quote!((#(#grads),*)))
    }
}
