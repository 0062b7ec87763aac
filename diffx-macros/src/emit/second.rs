//! Second order: `hvp_f` (a Hessian-vector product by forward mode over the reverse program, through
//! the hidden `__diffx_hvp_f` that callers' `hvp_` use too), `grad_and_hvp_f` (the gradient with
//! it, from the same sweep) and `hessian_f` (one `hvp_f` per input
//! direction).

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::ItemFn;

use super::form::{with, Form, Function, Ret, Role, Stub};
use super::signature::Typed;
use super::signature::{grad_types, like, param_list, tangent_inputs};
use super::{allow, body};
use crate::forward::Forward;
use crate::ir::operands::place;
use crate::ir::{Atom, Var};
use crate::names;
use crate::parse::Signature;
use crate::reverse::Reverse;

/// `__diffx_hvp_f`, from `hvp`, the forward program of the reverse program `rev` (its last
/// tangent parameter is the cotangent's): the value, `ct` times the gradient, and that product's
/// tangent along the parameters' tangents and `ct_dot` — the interface a caller's `hvp_` calls,
/// as `__diffx_vjp_` is for `grad_`. One tangent per parameter (constants' are ignored), as in
/// `__diffx_jvp_`.
pub fn hidden_hvp(
    item: &ItemFn,
    sig: &Signature,
    form: &Form,
    hvp: &Forward,
    rev: &Reverse,
) -> TokenStream {
    let (vis, float, ret_ty) = (&item.vis, &sig.float, &sig.ret);
    let name = names::hvp(&item.sig.ident);
    let f = &hvp.b.func;
    let params = param_list(sig);
    let dots: Vec<Option<Ident>> = hvp
        .param_dots
        .iter()
        .take(sig.params.len())
        .map(|d| d.map(|d| f.name(d).clone()))
        .collect();
    let (tangents, converts) = tangent_inputs(sig, &dots);
    let (ct, ct_dot) = cotangent_names(hvp, rev);
    let tys = grad_types(sig);
    let entry = |i: usize, v: Option<Var>| match v {
        Some(v) => place(f, &Atom::Var(v)),
        None if sig.params[i].differentiable => super::zero(f),
        None => quote!(::diffx::__private::Zero),
    };
    let grads = (0..sig.params.len()).map(|i| entry(i, rev.grads[i]));
    let grad_dots = (0..sig.params.len())
        .map(|i| entry(i, rev.grads[i].and_then(|g| hvp.dots.get(&g).copied())));
    let (code, allow) = (body(f), allow());
    // (The cotangent's tangent: a number, or a vector of a vector result.)
    let ct_ty = match sig.ret_kind {
        crate::ir::Kind::Scalar => quote!(#float),
        _ => quote!(#ret_ty),
    };
    let value = hvp
        .b
        .func
        .ret
        .as_ref()
        .map_or_else(|| super::zero(f), |r| place(f, r));
    form.function(Function {
        attrs: quote!(#[doc(hidden)] #[inline] #allow),
        vis: vis.clone(),
        name: name.clone(),
        role: Role::HiddenHvp,
        valued: None,
        stub: None,
        params: with(
            &with(&params, tangents),
            [Typed::new(ct, ret_ty), Typed::new(ct_dot, ct_ty)],
        ),
        ret: Some(Ret::Tuple(vec![
            quote!(#ret_ty),
            quote!((#(#tys,)*)),
            quote!((#(#tys,)*)),
        ])),
        body: quote! {
            #(#converts)*
            #code
            (#value, (#(#grads,)*), (#(#grad_dots,)*))
        },
    })
}

/// The names of the cotangent and its tangent (the last tangent parameter of `hvp`, the forward
/// program of `rev`).
pub(super) fn cotangent_names<'a>(hvp: &'a Forward, rev: &'a Reverse) -> (&'a Ident, &'a Ident) {
    let ct_dot = hvp.param_dots.last().copied().flatten();
    let ct_dot = ct_dot.expect("the cotangent is seeded in the program of `hvp_`");
    (rev.b.func.name(rev.ct), hvp.b.func.name(ct_dot))
}

/// `hvp_f` and `hessian_f`, over `__diffx_hvp_f` (written by `#[autodiff]`, or around a
/// hand-written rule by `#[custom_derivative]`); `dots` names each differentiable parameter's
/// tangent.
pub fn public(item: &ItemFn, sig: &Signature, form: &Form, dots: &[Option<Ident>]) -> TokenStream {
    let (vis, name) = (&item.vis, &item.sig.ident);
    let (hvp_name, hessian_name, hidden) = (
        format_ident!("hvp_{}", name),
        format_ident!("hessian_{}", name),
        names::hvp(name),
    );
    let params = param_list(sig);
    let diff: Vec<usize> = (0..sig.params.len())
        .filter(|i| sig.params[*i].differentiable)
        .collect();
    let (tangent_params, tangent_args) = direction(sig, dots);
    let args: Vec<&Ident> = sig.params.iter().map(|p| &p.name).collect();
    let id = |s: &str| Ident::new(s, Span::mixed_site());
    let names: Vec<Ident> = (0..sig.params.len())
        .map(|i| id(&format!("__h{i}")))
        .collect();
    let pattern: Vec<TokenStream> = names
        .iter()
        .zip(&sig.params)
        .map(|(n, p)| {
            if p.differentiable {
                quote!(#n)
            } else {
                quote!(_)
            }
        })
        .collect();
    let kept: Vec<&Ident> = diff.iter().map(|i| &names[*i]).collect();
    let result = if kept.len() == 1 {
        quote!(#(#kept)*)
    } else {
        quote!((#(#kept),*))
    };
    let gty = gradient_type(sig, &diff);
    let hvp_doc = doc(format!(
        "The Hessian of [`{name}`] times the direction given as tangents (as in `jvp_{name}`), shaped like its gradient: forward mode over the reverse program, a small constant times one gradient."
    ));
    let (one, zero) = (form.lit("1.0"), form.lit("0.0"));
    let call = form.call(
        Role::Hvp,
        &hidden,
        quote!(#(#args,)* #(#tangent_args,)* #one, #zero),
    );
    let hvp_fn = form.function(Function {
        attrs: quote!(#hvp_doc #[inline] #[allow(dead_code, clippy::too_many_arguments)]),
        vis: vis.clone(),
        name: hvp_name.clone(),
        role: Role::Hvp,
        valued: None,
        stub: None,
        params: with(&params, tangent_params.iter().cloned()),
        ret: Some(Ret::Type(gty.clone())),
        body: quote! {
            let (_, _, (#(#pattern,)*)) = #call;
            #result
        },
    });
    let both_name = format_ident!("grad_and_hvp_{}", name);
    let both_doc = doc(format!(
        "The gradient of [`{name}`] and its Hessian times the direction (as `grad_{name}` and `hvp_{name}` return them), from one forward-over-reverse sweep: the gradient is the primal part of what `hvp_{name}` computes."
    ));
    let (grad_pattern, grad_result) = gradient_parts(sig, &names, &diff, &kept);
    let both_fn = form.function(Function {
        attrs: quote!(#both_doc #[inline] #[allow(dead_code, clippy::too_many_arguments)]),
        vis: vis.clone(),
        name: both_name.clone(),
        role: Role::GradAndHvp,
        valued: None,
        stub: None,
        params: with(&params, tangent_params.iter().cloned()),
        ret: Some(Ret::Type(quote!((#gty, #gty)))),
        body: quote! {
            let (_, (#(#grad_pattern,)*), (#(#pattern,)*)) = #call;
            (#grad_result, #result)
        },
    });
    let hessian = hessian(sig, form, &hvp_name, &hessian_name, &diff, vis, name);
    quote!(#hvp_fn #both_fn #hessian)
}

/// The direction as `hvp_f`'s parameters (`d: T`, one per differentiable parameter) and as the
/// hidden function's tangents (`Zero` for the others).
fn direction(sig: &Signature, dots: &[Option<Ident>]) -> (Vec<Typed>, Vec<TokenStream>) {
    let tangent_params: Vec<Typed> = (sig.params.iter().zip(dots))
        .filter_map(|(p, d)| Some(Typed::new(d.as_ref()?, &p.ty)))
        .collect();
    let tangent_args: Vec<TokenStream> = dots
        .iter()
        .map(|d| {
            d.as_ref()
                .map_or(quote!(::diffx::__private::Zero), |d| quote!(#d))
        })
        .collect();
    (tangent_params, tangent_args)
}

/// The gradient's type: one differentiable parameter's, or the tuple of them.
fn gradient_type(sig: &Signature, diff: &[usize]) -> TokenStream {
    let grads: Vec<&syn::Type> = diff.iter().map(|i| &sig.params[*i].grad).collect();
    if grads.len() == 1 {
        quote!(#(#grads)*)
    } else {
        quote!((#(#grads),*))
    }
}

/// The hidden function's gradient as `grad_and_hvp_f` reads it: the pattern that binds each
/// parameter's (`_` for constants), and the result that gives the `kept` ones'.
fn gradient_parts(
    sig: &Signature,
    names: &[Ident],
    diff: &[usize],
    kept: &[&Ident],
) -> (Vec<TokenStream>, TokenStream) {
    let grad_pattern = names
        .iter()
        .zip(&sig.params)
        .map(|(n, p)| {
            let g = format_ident!("{}_g", n);
            if p.differentiable {
                quote!(#g)
            } else {
                quote!(_)
            }
        })
        .collect();
    let grad_kept = diff.iter().map(|i| format_ident!("{}_g", names[*i]));
    let grad_result = if kept.len() == 1 {
        quote!(#(#grad_kept)*)
    } else {
        quote!((#(#grad_kept),*))
    };
    (grad_pattern, grad_result)
}

/// For a function without second-order derivatives, a `__diffx_hvp_f` whose call (from a caller's
/// `hvp_`) is a compile error at the call that says what to add.
pub fn no_hvp(item: &ItemFn, sig: &Signature, form: &Form, custom: bool) -> TokenStream {
    let (vis, ret) = (&item.vis, &sig.ret);
    let name = names::hvp(&item.sig.ident);
    let tys = grad_types(sig);
    let a = Ident::new("__A", Span::mixed_site());
    let first = Ident::new("__first", Span::mixed_site());
    let trait_ = if custom {
        quote!(::diffx::__private::HvpRule)
    } else {
        quote!(::diffx::__private::SecondOrder)
    };
    let rest =
        (1..2 * sig.params.len() + 2).map(|_| Typed::unnamed(quote!(impl ::core::marker::Sized)));
    form.function(Function {
        attrs: quote!(#[doc(hidden)] #[allow(dead_code, clippy::too_many_arguments)]),
        vis: vis.clone(),
        name: name.clone(),
        role: Role::HiddenHvp,
        valued: None,
        stub: Some(Stub {
            param: a.clone(),
            bound: trait_.clone(),
        }),
        params: with(&[Typed::new(&first, &a)], rest),
        ret: Some(Ret::Type(quote!((#ret, (#(#tys,)*), (#(#tys,)*))))),
        body: quote!(#trait_::never(#first)),
    })
}

/// For a function without `order = 2`: an `hvp_f`, a `grad_and_hvp_f` and a `hessian_f` whose calls are compile errors
/// that say to add it (their first parameter has a bound no type has), with the real result types
/// so that nothing after the call reports an error of its own.
pub fn not_asked(item: &ItemFn, sig: &Signature, form: &Form) -> TokenStream {
    let (vis, name, float) = (&item.vis, &item.sig.ident, &sig.float);
    let (a, first) = (
        Ident::new("__A", Span::mixed_site()),
        Ident::new("__first", Span::mixed_site()),
    );
    let grads: Vec<&syn::Type> = sig
        .params
        .iter()
        .filter(|p| p.differentiable)
        .map(|p| &p.grad)
        .collect();
    let gty = if grads.len() == 1 {
        quote!(#(#grads)*)
    } else {
        quote!((#(#grads),*))
    };
    let stub = |role: Role, fn_name: Ident, arity: usize, ret: TokenStream| {
        let rest = (1..arity).map(|_| Typed::unnamed(quote!(impl ::core::marker::Sized)));
        form.function(Function {
            attrs: quote!(#[doc(hidden)] #[allow(dead_code, clippy::too_many_arguments)]),
            vis: vis.clone(),
            name: fn_name.clone(),
            role,
            valued: None,
            stub: Some(Stub {
                param: a.clone(),
                bound: quote!(::diffx::__private::OrderTwo),
            }),
            params: with(&[Typed::new(&first, &a)], rest),
            ret: Some(Ret::Type(ret)),
            body: quote!(::diffx::__private::OrderTwo::never(#first)),
        })
    };
    let n = sig.params.len();
    let hvp = stub(
        Role::Hvp,
        format_ident!("hvp_{}", name),
        n + grads.len(),
        gty.clone(),
    );
    let both = stub(
        Role::GradAndHvp,
        format_ident!("grad_and_hvp_{}", name),
        n + grads.len(),
        quote!((#gty, #gty)),
    );
    let hessian = stub(
        Role::Hessian,
        format_ident!("hessian_{}", name),
        n,
        quote!(::std::vec::Vec<::std::vec::Vec<#float>>),
    );
    quote!(#hvp #both #hessian)
}

/// `hessian_f`: row k is the Hessian-vector product along the k-th unit vector of all scalar
/// components of the differentiable parameters, flattened in parameter order (a scalar is one
/// component, a slice one per element).
fn hessian(
    sig: &Signature,
    form: &Form,
    hvp: &Ident,
    hessian: &Ident,
    diff: &[usize],
    vis: &syn::Visibility,
    name: &Ident,
) -> TokenStream {
    let float = &sig.float;
    let params = param_list(sig);
    let args = cloned_args(sig);
    let id = |s: &str| Ident::new(s, Span::mixed_site());
    let (which, elem, g, row) = (id("__which"), id("__elem"), id("__g"), id("__row"));
    let sizes = sizes(sig, diff);
    let units = unit_directions(sig, form, diff, &which, &elem);
    let flatten = flattened(sig, diff, &g, &row);
    let doc = doc(format!(
        "The dense Hessian of [`{name}`] over all scalar components of its differentiable parameters, flattened in parameter order (scalars, then each slice's elements): one `hvp_{name}` per unit direction."
    ));
    let call = form.call(Role::Hessian, hvp, quote!(#(#args,)* #(#units),*));
    form.function(Function {
        attrs: quote!(#doc #[allow(dead_code, clippy::too_many_arguments)]),
        vis: vis.clone(),
        name: hessian.clone(),
        role: Role::Hessian,
        valued: None,
        stub: None,
        params,
        ret: Some(Ret::Type(quote!(::std::vec::Vec<::std::vec::Vec<#float>>))),
        body: quote! {
            let __sizes: ::std::vec::Vec<usize> = ::std::vec![#(#sizes),*];
            let __n: usize = __sizes.iter().sum();
            let mut __rows = ::std::vec::Vec::with_capacity(__n);
            for #which in 0..__sizes.len() {
                for #elem in 0..__sizes[#which] {
                    let #g = #call;
                    let mut #row = ::std::vec::Vec::with_capacity(__n);
                    #(#flatten)*
                    __rows.push(#row);
                }
            }
            __rows
        },
    })
}

pub(super) fn doc(text: String) -> TokenStream {
    let text = format!(" {text}\n\n Written by `#[autodiff]`.");
    quote!(#[doc = #text])
}

/// Whether parameter `i` is a number.
fn scalar(sig: &Signature, i: usize) -> bool {
    sig.params[i].kind == crate::ir::Kind::Scalar
}

/// Whether parameter `i` is a tuple or nested container of numbers: its numbers through `Params`,
/// flattened in its visiting order.
fn nested(sig: &Signature, i: usize) -> bool {
    sig.params[i].kind == crate::ir::Kind::Other
}

/// A zero of parameter `i`'s gradient type, shaped like the argument.
fn zero_tangent(sig: &Signature, i: usize) -> TokenStream {
    let p = &sig.params[i];
    let (like, g) = (like(p), &p.grad);
    match p.owned {
        syn::Type::Slice(_) => {
            quote!(::diffx::__private::RowsTangent::into_rows(::diffx::__private::Zero, #like))
        }
        _ => {
            quote!(<::diffx::__private::Zero as ::diffx::__private::IntoTangent<#g>>::into_tangent(::diffx::__private::Zero, #like))
        }
    }
}

/// How many numbers each differentiable parameter holds: the Hessian's blocks.
fn sizes(sig: &Signature, diff: &[usize]) -> Vec<TokenStream> {
    diff.iter()
        .map(|i| {
            let n = &sig.params[*i].name;
            let (g, z) = (&sig.params[*i].grad, zero_tangent(sig, *i));
            if scalar(sig, *i) {
                quote!(1usize)
            } else if nested(sig, *i) {
                quote!({ let __z: #g = #z; ::diffx::Params::num_params(&__z) })
            } else {
                quote!(#n.len())
            }
        })
        .collect()
}

/// Each differentiable parameter's part of the unit direction: 1 in component `elem` of
/// parameter `which`.
fn unit_directions(
    sig: &Signature,
    form: &Form,
    diff: &[usize],
    which: &Ident,
    elem: &Ident,
) -> Vec<TokenStream> {
    let (one, zero) = (form.lit("1.0"), form.lit("0.0"));
    diff.iter()
        .enumerate()
        .map(|(q, i)| {
            let p = &sig.params[*i];
            if scalar(sig, *i) {
                return quote!(if #which == #q { #one } else { #zero });
            }
            let (gty, like) = (&p.grad, like(p));
            let unit = match nested(sig, *i) {
                true => {
                    let z = zero_tangent(sig, *i);
                    quote!({
                        let __z: #gty = #z;
                        let mut __f = ::diffx::Params::to_flat_vec(&__z);
                        if #which == #q { __f[#elem] = #one; }
                        ::diffx::Params::from_flat(&__z, &__f)
                    })
                }
                false => quote!({
                    let mut __u: #gty = ::diffx::__private::zeros_for::<#gty, _>(#like);
                    if #which == #q { __u[#elem] = #one; }
                    __u
                }),
            };
            if matches!(p.ty, syn::Type::Reference(_)) {
                quote!(&#unit)
            } else {
                unit
            }
        })
        .collect()
}

/// The statements that push the gradient `g`'s numbers onto `row`, parameter by parameter.
fn flattened(sig: &Signature, diff: &[usize], g: &Ident, row: &Ident) -> Vec<TokenStream> {
    diff.iter()
        .enumerate()
        .map(|(q, i)| {
            let part = if diff.len() == 1 {
                quote!(#g)
            } else {
                let q = syn::Index::from(q);
                quote!(#g.#q)
            };
            if scalar(sig, *i) {
                quote!(#row.push(#part);)
            } else if nested(sig, *i) {
                quote!(#row.extend(::diffx::Params::to_flat_vec(&#part));)
            } else {
                quote!(#row.extend(#part.iter().copied());)
            }
        })
        .collect()
}

/// A clone of each argument, for the repeated calls of `hvp_`, `jvp_` and `vjp_`.
pub(super) fn cloned_args(sig: &Signature) -> Vec<TokenStream> {
    sig.params
        .iter()
        .map(|p| {
            let n = &p.name;
            quote!(::core::clone::Clone::clone(&#n))
        })
        .collect()
}
