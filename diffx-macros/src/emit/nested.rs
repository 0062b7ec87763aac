//! Nested AD: a call of `grad_g` or `jvp_g` inside another `#[autodiff]` function.
//!
//! Their derivatives are second derivatives of `g`, which `__diffx_hvp_g` computes (forward mode
//! over `g`'s reverse program). Along tangents `t` of the arguments, `grad_g` changes by `H·t`;
//! a cotangent `c` of `grad_g` pulls back to `H·c`, the Hessian being symmetric. `jvp_g(x, v) =
//! (g, ∇g·v)` changes along `(t, u)` by `(∇g·t, (H·t)·v + ∇g·u)` and pulls a cotangent `(c₀, c₁)`
//! back to `(c₀∇g + c₁H·v, c₁∇g)`. So a function with `order = 2` also writes the hidden
//! functions a caller of its `grad_` and `jvp_` looks for (`__diffx_jvp_grad_g`,
//! `__diffx_vjp_grad_g`, …), each one call of `__diffx_hvp_g`. A caller with `order = 2` would need
//! third derivatives of `g` through them: none are written, and its call is a compile error.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::ItemFn;

use super::allow;
use super::form::{with, Form, Function, Ret, Role};
use super::signature::{
    grad_types, like, param_list, tangent_bound, tangent_convert, tangent_inputs, Typed,
};
use super::tuples::Layout;
use crate::ir::Kind;
use crate::names;
use crate::parse::{Param, Signature};

/// The hidden functions through which another `#[autodiff]` function differentiates its calls of
/// `grad_g` and `jvp_g`: for a free function whose differentiable parameters are numbers, slices,
/// `Vec`s or arrays of numbers. Their own `__diffx_hvp_` (a caller's second order) is a compile
/// error at the call.
pub fn companions(item: &ItemFn, sig: &Signature, form: &Form) -> TokenStream {
    let Some(shapes) = Shapes::of(sig) else {
        return quote!();
    };
    let grad = grad_companions(item, sig, form, &shapes);
    let jvp = jvp_companions(item, sig, form);
    let third = form.item(stubs(item, &shapes, Missing::ThirdOrder));
    quote!(#grad #jvp #third)
}

/// For a function without `order = 2`: the companions' names, each a compile error at a
/// caller's call that says to add it.
pub fn not_asked(item: &ItemFn, sig: &Signature, form: &Form) -> TokenStream {
    match Shapes::of(sig) {
        Some(shapes) => form.item(stubs(item, &shapes, Missing::OrderTwo)),
        None => quote!(),
    }
}

/// The types of what `grad_g` and `jvp_g` take and give, as callers see them.
struct Shapes {
    params: usize,
    /// What `grad_g` gives a caller: one parameter's gradient, or the numbers of the tuple of
    /// them as one array (`None` where a slice's length is not in its type).
    gradient: Option<TokenStream>,
    /// The parts of that tuple (a number, or an array of that length).
    layout: Option<Layout>,
    /// How many directions `jvp_g` takes: one per differentiable parameter.
    directions: usize,
}

impl Shapes {
    fn of(sig: &Signature) -> Option<Shapes> {
        let simple = |p: &Param| {
            !p.differentiable
                || matches!(
                    (&p.kind, &p.elem),
                    (Kind::Scalar, _) | (Kind::Slice, Some(_))
                )
        };
        let diff = differentiable(sig);
        let scalar = sig.ret_kind == Kind::Scalar;
        if sig.receiver.is_some() || !sig.params.iter().all(simple) || diff.is_empty() || !scalar {
            return None;
        }
        let float = &sig.float;
        let n = diff.len();
        let part = |i: usize| match (&sig.params[i].kind, &sig.params[i].ty) {
            (Kind::Scalar, _) => Some(None),
            (_, syn::Type::Array(a)) => Some(Some(array_length(&a.len)?)),
            _ => None,
        };
        let layout = match n {
            1 => None,
            _ => diff
                .iter()
                .map(|&i| part(i))
                .collect::<Option<Vec<_>>>()
                .map(Layout),
        };
        let gradient = match (n, &layout) {
            (1, _) => {
                let t = &sig.params[diff[0]].grad;
                Some(quote!(#t))
            }
            (_, Some(l)) => {
                let width = l.width();
                Some(quote!([#float; #width]))
            }
            _ => None,
        };
        Some(Shapes {
            params: sig.params.len(),
            gradient,
            layout,
            directions: n,
        })
    }
}

/// Why a companion cannot be called.
enum Missing {
    /// `g` has no second order.
    OrderTwo,
    /// A caller's second order would need `g`'s third.
    ThirdOrder,
}

/// The companions' names for functions whose calls are compile errors that say what is missing:
/// `use`s of the runtime's functions of that arity (`__private::missing`), which cost nothing
/// until called (functions of their own, six for each first-order function, cost 9 % of the
/// compile time of `#[autodiff]` functions).
fn stubs(item: &ItemFn, shapes: &Shapes, missing: Missing) -> TokenStream {
    let (vis, name) = (&item.vis, &item.sig.ident);
    let kind = match missing {
        Missing::OrderTwo => "two",
        Missing::ThirdOrder => "three",
    };
    let stub = |prefix: &str, arity: usize| {
        let fn_name = names::derived(prefix, name);
        let missing = format_ident!("{}_{}", kind, arity);
        // (Beyond the runtime's arities, the call stops at rustc's "cannot find function".)
        match arity <= 32 {
            true => quote! {
                #[doc(hidden)]
                #[allow(unused_imports)]
                #vis use ::diffx::__private::missing::#missing as #fn_name;
            },
            false => quote!(),
        }
    };
    let (n, d) = (shapes.params, shapes.directions);
    let gradient = shapes.gradient.is_some();
    let mut out = Vec::new();
    match missing {
        Missing::OrderTwo => {
            if gradient {
                out.push(stub("jvp_grad", 2 * n));
                out.push(stub("vjp_grad", n + 1));
                if let Some(layout) = &shapes.layout {
                    out.push(stub("array_grad", n));
                    out.push(layout.starts_const(vis, &format_ident!("grad_{}", name)));
                }
            }
            out.push(pair_starts(vis, name));
            out.push(stub("array_jvp", n + d));
            out.push(stub("jvp_jvp", 2 * (n + d)));
            out.push(stub("vjp_jvp", n + d + 1));
        }
        Missing::ThirdOrder => {
            if gradient {
                out.push(stub("hvp_grad", 2 * n + 2));
            }
            out.push(stub("hvp_jvp", 2 * (n + d) + 2));
        }
    }
    quote!(#(#out)*)
}

/// The length of an array type written as a literal (`[f64; 2]`).
fn array_length(len: &syn::Expr) -> Option<usize> {
    match len {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse().ok(),
        _ => None,
    }
}

fn differentiable(sig: &Signature) -> Vec<usize> {
    (0..sig.params.len())
        .filter(|i| sig.params[*i].differentiable)
        .collect()
}

fn hygienic(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// `t.i`: entry `i` of a tuple with one entry per parameter.
fn entry(t: &Ident, i: usize) -> TokenStream {
    let i = syn::Index::from(i);
    quote!(#t.#i)
}

/// The sum of the terms (at least one).
fn sum(terms: Vec<TokenStream>) -> TokenStream {
    quote!(#(#terms)+*)
}

/// For `grad_g`: its value as a caller reads it (an array of the numbers when it returns a tuple
/// of them, `__diffx_array_grad_g`), its tangent and its pullback. A gradient holding arrays
/// beside other parts is a tuple a caller cannot index yet: none are written for it.
fn grad_companions(item: &ItemFn, sig: &Signature, form: &Form, shapes: &Shapes) -> TokenStream {
    let diff = differentiable(sig);
    let (vis, name) = (&item.vis, &item.sig.ident);
    let Some(g_ty) = &shapes.gradient else {
        return quote!();
    };
    let hvp = names::hvp(name);
    let (jvp_name, vjp_name) = (
        names::derived("jvp_grad", name),
        names::derived("vjp_grad", name),
    );
    let flat = flat_numbers(&diff, shapes);
    let params = param_list(sig);
    let args: Vec<&Ident> = sig.params.iter().map(|p| &p.name).collect();
    let dots: Vec<Option<Ident>> = (0..sig.params.len())
        .map(|i| {
            sig.params[i]
                .differentiable
                .then(|| hygienic(&format!("__t{i}")))
        })
        .collect();
    let (tangents, _) = tangent_inputs(sig, &dots);
    let passed = dots.iter().map(|d| match d {
        Some(d) => quote!(#d),
        None => quote!(::diffx::__private::Zero),
    });
    let ct = hygienic("__ct");
    let ct_parts = ct_parts(sig, &flat, &ct);
    let tys = grad_types(sig);
    let (g, h) = (hygienic("__g"), hygienic("__h"));
    let (sg, sh) = (shape(&flat, &diff, &g), shape(&flat, &diff, &h));
    let hidden = |name: &Ident| companion(vis, name);
    let array = (shapes.layout.as_ref()).map(|layout| grad_as_array(form, item, sig, layout, g_ty));
    let (one, zero) = (form.lit("1.0"), form.lit("0.0"));
    let along = form.call(
        Role::Companion,
        &hvp,
        quote!(#(#args,)* #(#passed,)* #one, #zero),
    );
    let back = form.call(
        Role::Companion,
        &hvp,
        quote!(#(#args,)* #(#ct_parts,)* #one, #zero),
    );
    let jvp = form.function(Function {
        params: with(&params, tangents),
        ret: Some(Ret::Type(quote!((#g_ty, #g_ty)))),
        body: quote! {
            let (_, #g, #h) = #along;
            (#sg, #sh)
        },
        ..hidden(&jvp_name)
    });
    let vjp = form.function(Function {
        params: with(&params, [Typed::new(&ct, g_ty)]),
        ret: Some(Ret::Type(quote!((#g_ty, (#(#tys,)*))))),
        body: quote! {
            let (_, #g, #h) = #back;
            (#sg, #h)
        },
        ..hidden(&vjp_name)
    });
    quote!(#array #jvp #vjp)
}

/// `__diffx_array_grad_g`: `grad_g`'s tuple of gradients as the array of their numbers (of type
/// `g_ty`), as a caller reads it, and where each part starts in it.
fn grad_as_array(
    form: &Form,
    item: &ItemFn,
    sig: &Signature,
    layout: &Layout,
    g_ty: &TokenStream,
) -> TokenStream {
    let (vis, name) = (&item.vis, &item.sig.ident);
    let grad_name = format_ident!("grad_{}", name);
    let r = hygienic("__r");
    let numbers = layout.flattened(&quote!(#r));
    let starts = form.item(layout.starts_const(vis, &grad_name));
    let args = sig.params.iter().map(|p| &p.name);
    let grad = form.call(Role::Companion, &grad_name, quote!(#(#args),*));
    let array = form.function(Function {
        params: param_list(sig),
        ret: Some(Ret::Type(g_ty.clone())),
        body: quote! {
            let #r = #grad;
            #numbers
        },
        ..companion(vis, &names::derived("array_grad", name))
    });
    quote!(#array #starts)
}

/// Each differentiable parameter's numbers in `grad_g`'s flat array: (parameter, start, length).
type Flat = Vec<(usize, usize, Option<usize>)>;

/// The numbers of each differentiable parameter in `grad_g`'s flat array; `None` where the
/// gradient is no array.
fn flat_numbers(diff: &[usize], shapes: &Shapes) -> Option<Flat> {
    shapes.layout.as_ref().map(|l| {
        let mut at = 0;
        diff.iter()
            .zip(&l.0)
            .map(|(&i, n)| {
                at += n.unwrap_or(1);
                (i, at - n.unwrap_or(1), *n)
            })
            .collect()
    })
}

/// The numbers of the per-parameter tuple `t` as `grad_g`'s caller sees them.
fn shape(flat: &Option<Flat>, diff: &[usize], t: &Ident) -> TokenStream {
    match flat {
        Some(flat) => {
            let numbers = flat.iter().flat_map(|&(i, _, n)| {
                let e = entry(t, i);
                match n {
                    None => vec![e],
                    Some(n) => (0..n).map(|k| quote!(#e[#k])).collect(),
                }
            });
            quote!([#(#numbers),*])
        }
        None => entry(t, diff[0]),
    }
}

/// The cotangent `ct` of `grad_g`'s value as each parameter's tangent: its numbers of the flat
/// array, `ct` itself for a gradient that is no array, `Zero` for a constant.
fn ct_parts(sig: &Signature, flat: &Option<Flat>, ct: &Ident) -> Vec<TokenStream> {
    (0..sig.params.len())
        .map(|i| {
            let at = flat.as_ref().and_then(|f| f.iter().find(|(j, ..)| *j == i));
            match (sig.params[i].differentiable, at) {
                (true, Some(&(_, start, None))) => quote!(#ct[#start]),
                (true, Some(&(_, start, Some(n)))) => {
                    let idx = start..start + n;
                    quote!([#(#ct[#idx]),*])
                }
                (true, None) => quote!(#ct),
                (false, _) => quote!(::diffx::__private::Zero),
            }
        })
        .collect()
}

/// `__DIFFX_PARTS_jvp_g`: `jvp_g`'s pair holds two numbers.
fn pair_starts(vis: &syn::Visibility, name: &Ident) -> TokenStream {
    Layout(vec![None, None]).starts_const(vis, &format_ident!("jvp_{}", name))
}

/// For `jvp_g(params…, directions…) -> (value, derivative)`: its array version (a caller reads
/// the pair as an array), its tangent and its pullback.
fn jvp_companions(item: &ItemFn, sig: &Signature, form: &Form) -> TokenStream {
    let diff = differentiable(sig);
    let (vis, name, float) = (&item.vis, &item.sig.ident, &sig.float);
    let jvp = format_ident!("jvp_{}", name);
    let hvp = names::hvp(name);
    let [jvp_name, vjp_name] = ["jvp_jvp", "vjp_jvp"].map(|m| names::derived(m, name));
    let named = |prefix: &str| -> Vec<Ident> {
        (diff.iter())
            .map(|i| hygienic(&format!("{prefix}{i}")))
            .collect()
    };
    // The directions `v`, the tangents `t` of the parameters and `u` of the directions.
    let (vs, us) = (named("__v"), named("__u"));
    let ts: Vec<Option<Ident>> = (sig.params.iter().enumerate())
        .map(|(i, p)| p.differentiable.then(|| hygienic(&format!("__t{i}"))))
        .collect();
    let params = param_list(sig);
    let (directions, u_inputs) = direction_inputs(sig, &diff, &vs, &us);
    let args: Vec<&Ident> = sig.params.iter().map(|p| &p.name).collect();
    let (t_inputs, t_converts) = tangent_inputs(sig, &ts);
    let (v_converts, u_converts) = (convert(sig, &diff, &vs), convert(sig, &diff, &us));
    let by_direction: Vec<Option<Ident>> = (0..sig.params.len())
        .map(|i| diff.iter().position(|&d| d == i).map(|k| vs[k].clone()))
        .collect();
    let (g, h, ct) = (hygienic("__g"), hygienic("__h"), hygienic("__ct"));
    let (value_dot, derivative_dot) = jvp_tangent(&diff, &ts, &vs, &us, &g, &h);
    let (t_along, v_along) = (along(&ts), along(&by_direction));
    // The value and derivative as `jvp_g` computes them, bit for bit: a caller's derivative
    // program takes the branches its primal takes.
    let primal = form.call(
        Role::Companion,
        &jvp,
        quote!(#(::core::clone::Clone::clone(&#args),)* #(::core::clone::Clone::clone(&#vs),)*),
    );
    let primal = quote!(let __primal = #primal;);
    let (param_bars, direction_bars) = jvp_pullback(sig, form, &diff, &g, &h, &ct);
    let starts = form.item(pair_starts(vis, name));
    let hidden = |name: &Ident| companion(vis, name);
    let (one, zero) = (form.lit("1.0"), form.lit("0.0"));
    let along = form.call(
        Role::Companion,
        &hvp,
        quote!(#(#args,)* #(#t_along,)* #one, #zero),
    );
    let back = form.call(
        Role::Companion,
        &hvp,
        quote!(#(#args,)* #(#v_along,)* #one, #zero),
    );
    let array = jvp_as_array(form, item, sig, &directions, &vs);
    let jvp = form.function(Function {
        params: with(
            &with(&with(&params, directions.iter().cloned()), t_inputs),
            u_inputs,
        ),
        ret: Some(Ret::Type(quote!(([#float; 2], [#float; 2])))),
        body: quote! {
            #primal
            #(#t_converts)*
            #(#u_converts)*
            #(#v_converts)*
            let (_, #g, #h) = #along;
            ([__primal.0, __primal.1], [#value_dot, #derivative_dot])
        },
        ..hidden(&jvp_name)
    });
    let vjp = form.function(Function {
        params: with(
            &with(&params, directions),
            [Typed::new(&ct, quote!([#float; 2]))],
        ),
        ret: Some(Ret::Type(pullback_type(sig, &diff))),
        body: quote! {
            #primal
            #(#v_converts)*
            let (_, #g, #h) = #back;
            ([__primal.0, __primal.1], (#(#param_bars,)* #(#direction_bars,)*))
        },
        ..hidden(&vjp_name)
    });
    quote!(#starts #array #jvp #vjp)
}

/// `__diffx_array_jvp_g`: `jvp_g`'s value and derivative as an array, as a caller reads the pair.
fn jvp_as_array(
    form: &Form,
    item: &ItemFn,
    sig: &Signature,
    directions: &[Typed],
    vs: &[Ident],
) -> TokenStream {
    let (name, float) = (&item.sig.ident, &sig.float);
    let args = sig.params.iter().map(|p| &p.name);
    let jvp = format_ident!("jvp_{}", name);
    let pair = form.call(Role::Companion, &jvp, quote!(#(#args,)* #(#vs,)*));
    form.function(Function {
        params: with(&param_list(sig), directions.iter().cloned()),
        ret: Some(Ret::Type(quote!([#float; 2]))),
        body: quote! {
            let (__a, __b) = #pair;
            [__a, __b]
        },
        ..companion(&item.vis, &names::derived("array_jvp", name))
    })
}

/// What the pullback of `jvp_g` gives: the pair, and the gradients of the parameters and of the
/// directions.
fn pullback_type(sig: &Signature, diff: &[usize]) -> TokenStream {
    let (float, tys) = (&sig.float, grad_types(sig));
    let direction_tys = diff.iter().map(|i| &sig.params[*i].grad);
    quote!(([#float; 2], (#(#tys,)* #(#direction_tys,)*)))
}

/// `jvp_g`'s directions as parameters (`__v0: T`), and their tangents as inputs (`__u0: …`).
fn direction_inputs(
    sig: &Signature,
    diff: &[usize],
    vs: &[Ident],
    us: &[Ident],
) -> (Vec<Typed>, Vec<Typed>) {
    let p = |i: usize| &sig.params[i];
    let directions = (diff.iter().zip(vs))
        .map(|(i, v)| Typed::new(v, &p(*i).ty))
        .collect();
    let u_inputs = (diff.iter().zip(us))
        .map(|(i, u)| Typed::new(u, tangent_bound(p(*i))))
        .collect();
    (directions, u_inputs)
}

/// `let d: G = …;` for each differentiable parameter's tangent in `names`: as its gradient type.
fn convert(sig: &Signature, diff: &[usize], names: &[Ident]) -> Vec<TokenStream> {
    let p = |i: usize| &sig.params[i];
    diff.iter()
        .zip(names)
        .map(|(i, n)| tangent_convert(p(*i), n, &like(p(*i))))
        .collect()
}

/// Each name borrowed, `Zero` where there is none: tangents `hvp` takes for each parameter.
fn along(names: &[Option<Ident>]) -> Vec<TokenStream> {
    names
        .iter()
        .map(|n| match n {
            Some(n) => quote!(&#n),
            None => quote!(::diffx::__private::Zero),
        })
        .collect()
}

/// `jvp_g`'s tangent along `(t, u)` from `g = ∇g` and `h = H·t`: the value's `∇g·t` and the
/// derivative's `(H·t)·v + ∇g·u`.
fn jvp_tangent(
    diff: &[usize],
    ts: &[Option<Ident>],
    vs: &[Ident],
    us: &[Ident],
    g: &Ident,
    h: &Ident,
) -> (TokenStream, TokenStream) {
    let dots = |x: &Ident, y: &[Ident]| {
        sum(diff
            .iter()
            .zip(y)
            .map(|(i, y)| {
                let x = entry(x, *i);
                quote!(::diffx::__private::dot(&#x, &#y))
            })
            .collect())
    };
    let t_named: Vec<Ident> = diff.iter().filter_map(|i| ts[*i].clone()).collect();
    let value_dot = dots(g, &t_named);
    let derivative_dot = {
        let (a, b) = (dots(h, vs), dots(g, us));
        quote!(#a + #b)
    };
    (value_dot, derivative_dot)
}

/// `jvp_g`'s pullback of `(c₀, c₁)` from `g = ∇g` and `h = H·v`: each parameter's
/// `c₀∇g + c₁H·v` (`Zero` where not differentiable) and each direction's `c₁∇g`.
fn jvp_pullback(
    sig: &Signature,
    form: &Form,
    diff: &[usize],
    g: &Ident,
    h: &Ident,
    ct: &Ident,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let p = |i: usize| &sig.params[i];
    let param_bars = (0..sig.params.len())
        .map(|i| match p(i).differentiable {
            true => {
                let (gi, hi) = (entry(g, i), entry(h, i));
                quote!(::diffx::__private::combine(#ct[0], &#gi, #ct[1], &#hi))
            }
            false => quote!(::diffx::__private::Zero),
        })
        .collect();
    let direction_bars = diff
        .iter()
        .map(|i| {
            let gi = entry(g, *i);
            let zero = form.lit("0.0");
            quote!(::diffx::__private::combine(#ct[1], &#gi, #zero, &#gi))
        })
        .collect();
    (param_bars, direction_bars)
}

/// A hidden companion `name`, to be given its parameters, result and body.
fn companion(vis: &syn::Visibility, name: &Ident) -> Function {
    let allow = allow();
    Function {
        attrs: quote!(#[doc(hidden)] #[inline] #allow),
        vis: vis.clone(),
        name: name.clone(),
        role: Role::Companion,
        valued: None,
        stub: None,
        params: Vec::new(),
        ret: None,
        body: TokenStream::new(),
    }
}
