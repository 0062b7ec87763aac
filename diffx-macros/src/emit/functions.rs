//! The catalogue of functions `#[autodiff]` writes for a function: the hidden derivative functions
//! and the public `jvp_`, `vjp_`, `grad_`, `value_and_grad_`.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::{Index, ItemFn};

use super::form::{with, Form, Function, Ret, Role, Stub};
use super::signature::Typed;
use super::trees::Written;
use super::{body, body_parts, signature, split, zero};
use crate::builder::Builder;
use crate::forward::Forward;
use crate::ir::operands::{by_ref, place};
use crate::ir::{Atom, Func, Kind, Op, Stmt, Var};
use crate::names;
use crate::parse::Signature;
use crate::reverse::Reverse;

pub(crate) fn allow() -> TokenStream {
    quote!(#[allow(dead_code, unused_variables, unused_mut, unused_parens, unused_braces, clippy::all, clippy::pedantic)])
}

/// The first-order derivative functions `#[autodiff]` writes for `item`, in `form`.
pub fn functions(
    item: &ItemFn,
    sig: &Signature,
    form: &Form,
    fwd: &Forward,
    rev: &Reverse,
) -> TokenStream {
    let g = Generated::new(item, sig, form);
    let mut hidden = vec![g.hidden_jvp(fwd)];
    match g.hidden_split(item, rev) {
        Some((split, cut)) => {
            let parts = split::Parts {
                item,
                sig,
                form,
                ct: rev.b.func.name(rev.ct),
            };
            let through = cut.then(|| split::vjp_through_split(&parts)).flatten();
            hidden.push(through.unwrap_or_else(|| g.hidden_vjp(rev)));
            hidden.push(split);
        }
        None => hidden.push(g.hidden_vjp(rev)),
    }
    let dots: Vec<Option<Ident>> = fwd
        .param_dots
        .iter()
        .map(|d| d.map(|d| fwd.b.func.name(d).clone()))
        .collect();
    let public = public(item, sig, form, &dots, rev.b.func.name(rev.ct));
    quote!(#(#hidden)* #public)
}

/// `__diffx_jvp_` and `__diffx_vjp_` of `item` as free functions of one float type, the latter
/// written as one function, its sweeps one after the other.
#[cfg_attr(not(feature = "explain"), allow(dead_code))]
pub fn plain(item: &ItemFn, sig: &Signature, fwd: &Forward, rev: &Reverse) -> TokenStream {
    let form = Form::plain(&sig.float);
    let g = Generated::new(item, sig, &form);
    let (jvp, vjp) = (g.hidden_jvp(fwd), g.hidden_vjp(rev));
    quote!(#vjp #jvp)
}

/// The public derivative functions of `item`, over its hidden `__diffx_jvp_`/`__diffx_vjp_`
/// (written by `#[autodiff]`, or around a hand-written rule by `#[custom_derivative]`); `dots`
/// names each differentiable parameter's tangent, `ct` the cotangent.
pub fn public(
    item: &ItemFn,
    sig: &Signature,
    form: &Form,
    dots: &[Option<Ident>],
    ct: &Ident,
) -> TokenStream {
    let g = Generated::new(item, sig, form);
    let mut public = vec![g.jvp(dots), g.vjp(ct)];
    if sig.ret_kind == Kind::Scalar {
        public.extend([g.grad(), g.value_and_grad()]);
    } else {
        public.extend(g.no_grad());
    }
    // The user may call only a derivative: `f` is still used, as far as lints go.
    let used = form.keep_used(&item.sig.ident);
    quote! {
        #(#public)*
        #used
    }
}

/// `__diffx_vjp_f` of `item` over `body`: it takes the parameters and the cotangent `ct`, and
/// gives the value and every parameter's gradient (`Zero` for a constant's).
pub(super) fn hidden_vjp(
    item: &ItemFn,
    sig: &Signature,
    ct: &Ident,
    body: TokenStream,
) -> Function {
    let (ret_ty, allow, tys) = (&sig.ret, allow(), signature::grad_types(sig));
    Function {
        attrs: quote!(#[doc(hidden)] #[inline(always)] #allow),
        vis: item.vis.clone(),
        name: names::vjp(&item.sig.ident),
        role: Role::HiddenVjp,
        valued: None,
        stub: None,
        params: with(&signature::param_list(sig), [Typed::new(ct, ret_ty)]),
        ret: Some(Ret::Tuple(vec![quote!(#ret_ty), quote!((#(#tys,)*))])),
        body,
    }
}

/// The pieces of the signature every generated function repeats.
pub(super) struct Generated<'a> {
    item: &'a ItemFn,
    sig: &'a Signature,
    form: &'a Form,
    vis: &'a syn::Visibility,
    name: &'a Ident,
    ret: &'a syn::Type,
    /// `x: f64, n: usize`.
    params: Vec<Typed>,
    /// `x, n`.
    args: Vec<&'a Ident>,
}

pub(super) fn doc(text: String) -> TokenStream {
    let text = format!(" {text}\n\n Written by `#[autodiff]`.");
    quote!(#[doc = #text])
}

impl<'a> Generated<'a> {
    fn new(item: &'a ItemFn, sig: &'a Signature, form: &'a Form) -> Self {
        Generated {
            item,
            sig,
            form,
            vis: &item.vis,
            name: &item.sig.ident,
            ret: &sig.ret,
            params: signature::param_list(sig),
            args: sig.params.iter().map(|p| &p.name).collect(),
        }
    }

    fn fn_name(&self, prefix: &str) -> Ident {
        format_ident!("{}{}", prefix, self.name)
    }

    /// The gradient type: one entry per differentiable parameter, bare if there is one.
    fn grad_type(&self) -> TokenStream {
        let tys: Vec<&syn::Type> = self
            .sig
            .params
            .iter()
            .filter(|p| p.differentiable)
            .map(|p| &p.grad)
            .collect();
        if tys.len() == 1 {
            tys[0].to_token_stream()
        } else {
            quote!((#(#tys),*))
        }
    }

    /// `(g0, _, g2)` in a pattern over all parameters, and `(g0, g2)` for the result.
    fn grad_pattern(&self) -> (TokenStream, TokenStream) {
        let names: Vec<Option<Ident>> = self
            .sig
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                p.differentiable
                    .then(|| Ident::new(&format!("__g{i}"), Span::mixed_site()))
            })
            .collect();
        let pat = names
            .iter()
            .map(|n| n.as_ref().map_or(quote!(_), |n| quote!(#n)));
        let kept: Vec<&Ident> = names.iter().flatten().collect();
        let result = if kept.len() == 1 {
            quote!(#(#kept)*)
        } else {
            quote!((#(#kept),*))
        };
        (quote!((#(#pat,)*)), result)
    }

    fn hidden_jvp(&self, fwd: &Forward) -> TokenStream {
        let (name, params, ret_ty, allow) =
            (self.fn_name(names::JVP), &self.params, self.ret, allow());
        let f = &fwd.b.func;
        let tangents = self
            .sig
            .params
            .iter()
            .zip(&fwd.param_dots)
            .map(|(p, d)| match d {
                Some(d) => Typed::new(f.name(*d), signature::tangent_bound(p)),
                None => Typed::unnamed(quote!(impl ::diffx::__private::NoTangent)),
            });
        let converts = self
            .sig
            .params
            .iter()
            .zip(&fwd.param_dots)
            .filter_map(|(p, d)| {
                let d = f.name((*d)?);
                let like = by_ref(f, &Atom::Var(param_var(f, &p.name)?));
                Some(signature::tangent_convert(p, d, &like))
            });
        let (body, ret) = (body(f), ret(&fwd.b));
        let ret_dot = match &fwd.ret_dot {
            Some(t) => place(f, t),
            None if self.sig.ret_kind == Kind::Scalar => zero(f),
            None if self.sig.ret_kind == Kind::Slice => {
                quote!(::diffx::__private::zero_elems(&#ret))
            }
            None => quote!(::diffx::__private::zeros_like::<#ret_ty, _>(&#ret)),
        };
        self.form.function(Function {
            attrs: quote!(#[doc(hidden)] #[inline] #allow),
            vis: self.vis.clone(),
            name: name.clone(),
            role: Role::HiddenJvp,
            valued: None,
            stub: None,
            params: params.iter().cloned().chain(tangents).collect(),
            ret: Some(Ret::Type(quote!((#ret_ty, #ret_ty)))),
            body: quote! {
                #(#converts)*
                #body
                let __ret_dot = #ret_dot;
                (#ret, __ret_dot)
            },
        })
    }

    /// The gradient of each parameter at the end of the backward sweep.
    fn grads(&self, rev: &Reverse) -> Vec<TokenStream> {
        let f = &rev.b.func;
        self.sig
            .params
            .iter()
            .zip(&rev.grads)
            .map(|(p, g)| match g {
                Some(g) if f.kind(*g) == Kind::Other => {
                    let g = f.name(*g);
                    quote!(::diffx::__private::settled(#g))
                }
                Some(g) => f.name(*g).to_token_stream(),
                None if p.differentiable => zero(f),
                None => quote!(::diffx::__private::Zero),
            })
            .collect()
    }

    /// The split function, and whether it cuts the reverse program (rather than recomputing).
    fn hidden_split(&self, item: &ItemFn, rev: &Reverse) -> Option<(TokenStream, bool)> {
        if !split::wanted(item, self.sig) {
            return None;
        }
        let f = &rev.b.func;
        let parts = split::Parts {
            item,
            sig: self.sig,
            form: self.form,
            ct: f.name(rev.ct),
        };
        let Some(mentioned) = split::cut(f, rev.backward) else {
            return Some((split::recomputing(&parts), false));
        };
        let guards = split::guards(f, rev.backward, &rev.grads);
        // The adjoint of a slice or `Vec` parameter starts as the buffer its caller offers, if
        // any, and is returned empty then; contributions to it are added, never assigned.
        let slotted = split::slotted(f, self.sig, &rev.grads);
        // (A copy of the program only where a contribution changes.)
        let added = (!slotted.is_empty()).then(|| split::added_only(f, &slotted));
        let f = added.as_ref().unwrap_or(f);
        let into = split::into_slots();
        let wrap = |k: usize, w: Written| {
            let s = &f.body[rev.backward + k];
            let slot = match s {
                Stmt::Let {
                    dst,
                    op: Op::Zeros(_),
                    ..
                } => slotted.iter().find(|(_, g)| g == dst),
                _ => None,
            };
            match slot {
                Some((i, g)) => {
                    let (own, x, i) = (
                        split::own(f, *g),
                        &self.sig.params[*i].name,
                        Index::from(*i),
                    );
                    let g = f.name(*g);
                    Written::Stream(quote! {
                        let mut #own = ::std::vec::Vec::new();
                        let mut #g = ::diffx::__private::slice_adjoint(#into.#i, &mut #own, &#x[..]);
                    })
                }
                None if guards[k].is_none() => w,
                None => Written::Stream(split::guarded(s, guards[k].as_ref(), w.into_stream())),
            }
        };
        let sweeps = body_parts(f, Some(rev.backward), &wrap);
        let mut grads = self.grads(rev);
        for (i, g) in &slotted {
            grads[*i] = split::own(f, *g).to_token_stream();
        }
        let split = split::function(&parts, &mentioned, sweeps, ret(&rev.b), &grads);
        Some((split, true))
    }

    fn hidden_vjp(&self, rev: &Reverse) -> TokenStream {
        let f = &rev.b.func;
        let grads = self.grads(rev);
        let (mut body, mut ret) = (body(f), ret(&rev.b));
        if restores_result(rev) {
            // The backward sweep undoes the writes into the returned vector: its value is taken
            // where the forward sweep ends.
            let (forward, backward) = super::stmt::body_parts(f, Some(rev.backward), &|_, t| t);
            let value = Ident::new("__value", Span::mixed_site());
            body = quote!(#forward let #value = ::core::clone::Clone::clone(&#ret); #backward);
            ret = quote!(#value);
        }
        let body = quote! {
            #body
            (#ret, (#(#grads,)*))
        };
        (self.form).function(hidden_vjp(self.item, self.sig, f.name(rev.ct), body))
    }

    /// The body of `vjp_` or `grad_` (`role`) that uses the value of its pullback's `call`, if
    /// its form asks.
    fn valued(
        &self,
        role: Role,
        call: &TokenStream,
        pat: &TokenStream,
        result: &TokenStream,
    ) -> Option<TokenStream> {
        let value = Ident::new("__value", Span::mixed_site());
        let write = self.form.pullback_value(role, &value)?;
        Some(quote!(let (#value, #pat) = #call; #write #result))
    }

    fn jvp(&self, dots: &[Option<Ident>]) -> TokenStream {
        let (name, hidden, params, args, ret_ty) = (
            self.fn_name("jvp_"),
            self.fn_name(names::JVP),
            &self.params,
            &self.args,
            self.ret,
        );
        let tangent_params = (self.sig.params.iter().zip(dots))
            .filter_map(|(p, d)| Some(Typed::new(d.as_ref()?, &p.ty)));
        let tangent_args = dots.iter().map(|d| {
            d.as_ref()
                .map_or(quote!(::diffx::__private::Zero), |d| quote!(#d))
        });
        let doc = doc(format!(
            "The value of [`{}`] and its directional derivative along the given tangents, by forward mode.",
            self.name
        ));
        self.form.function(Function {
            attrs: quote!(#[allow(dead_code, clippy::too_many_arguments)] #doc #[inline]),
            vis: self.vis.clone(),
            name: name.clone(),
            role: Role::Jvp,
            valued: None,
            stub: None,
            params: params.iter().cloned().chain(tangent_params).collect(),
            ret: Some(Ret::Type(quote!((#ret_ty, #ret_ty)))),
            body: self
                .form
                .call(Role::Jvp, &hidden, quote!(#(#args,)* #(#tangent_args),*)),
        })
    }

    fn vjp(&self, ct: &Ident) -> TokenStream {
        let (name, hidden, params, args, ret_ty) = (
            self.fn_name("vjp_"),
            self.fn_name(names::VJP),
            &self.params,
            &self.args,
            self.ret,
        );
        let ((pat, result), gty) = (self.grad_pattern(), self.grad_type());
        let doc = doc(format!(
            "The pullback of [`{}`]: the cotangent `{ct}` of its result carried back to its parameters, by reverse mode.",
            self.name
        ));
        let call = self.form.call(Role::Vjp, &hidden, quote!(#(#args,)* #ct));
        let valued = self.valued(Role::Vjp, &call, &pat, &result);
        self.form.function(Function {
            attrs: quote!(#[allow(dead_code, clippy::too_many_arguments)] #doc #[inline]),
            vis: self.vis.clone(),
            name: name.clone(),
            role: Role::Vjp,
            valued,
            stub: None,
            params: with(params, [Typed::new(ct, ret_ty)]),
            ret: Some(Ret::Type(gty)),
            body: quote! {
                let (_, #pat) = #call;
                #result
            },
        })
    }

    fn grad(&self) -> TokenStream {
        let (name, hidden, params, args) = (
            self.fn_name("grad_"),
            self.fn_name(names::VJP),
            &self.params,
            &self.args,
        );
        let ((pat, result), gty) = (self.grad_pattern(), self.grad_type());
        let doc = doc(format!(
            "The gradient of [`{}`] with respect to its differentiable parameters, by reverse mode.",
            self.name
        ));
        let one = self.form.lit("1.0");
        let call = self.form.call(Role::Grad, &hidden, quote!(#(#args,)* #one));
        let valued = self.valued(Role::Grad, &call, &pat, &result);
        self.form.function(Function {
            attrs: quote!(#[allow(dead_code, clippy::too_many_arguments)] #doc #[inline]),
            vis: self.vis.clone(),
            name: name.clone(),
            role: Role::Grad,
            valued,
            stub: None,
            params: params.clone(),
            ret: Some(Ret::Type(gty)),
            body: quote! {
                let (_, #pat) = #call;
                #result
            },
        })
    }

    /// For a vector result: a `grad_g` whose call is a compile error that says what to use instead.
    fn no_grad(&self) -> Option<TokenStream> {
        let name = self.fn_name("grad_");
        let first = self.args.first()?;
        let rest = &self.params[1..];
        let a = Ident::new("__A", Span::mixed_site());
        Some(self.form.function(Function {
            attrs: quote! {
                #[allow(dead_code, clippy::too_many_arguments)]
                #[doc(hidden)]
                #[allow(unused_variables)]
            },
            vis: self.vis.clone(),
            name: name.clone(),
            role: Role::Grad,
            valued: None,
            stub: Some(Stub {
                param: a.clone(),
                bound: quote!(::diffx::__private::ScalarResult),
            }),
            params: with(&[Typed::new(first, &a)], rest.iter().cloned()),
            ret: Some(Ret::Type(quote!(!))),
            body: quote!(::diffx::__private::ScalarResult::never(#first)),
        }))
    }

    fn value_and_grad(&self) -> TokenStream {
        let (name, hidden, params, args, ret_ty) = (
            self.fn_name("value_and_grad_"),
            self.fn_name(names::VJP),
            &self.params,
            &self.args,
            self.ret,
        );
        let ((pat, result), gty) = (self.grad_pattern(), self.grad_type());
        let value = Ident::new("__value", Span::mixed_site());
        let doc = doc(format!(
            "The value of [`{}`] and its gradient, by reverse mode (one forward and one backward sweep).",
            self.name
        ));
        let one = self.form.lit("1.0");
        let call = self
            .form
            .call(Role::ValueAndGrad, &hidden, quote!(#(#args,)* #one));
        self.form.function(Function {
            attrs: quote!(#[allow(dead_code, clippy::too_many_arguments)] #doc #[inline]),
            vis: self.vis.clone(),
            name: name.clone(),
            role: Role::ValueAndGrad,
            valued: None,
            stub: None,
            params: params.clone(),
            ret: Some(Ret::Type(quote!((#ret_ty, #gty)))),
            body: quote! {
                let (#value, #pat) = #call;
                (#value, #result)
            },
        })
    }
}

/// Whether the backward sweep of `rev` restores elements of the vector it returns.
fn restores_result(rev: &Reverse) -> bool {
    let f = &rev.b.func;
    let Some(result) = f.ret.as_ref().and_then(|r| r.var()) else {
        return false;
    };
    let mut found = false;
    for s in &f.body[rev.backward.min(f.body.len())..] {
        s.walk(&mut |s| found |= matches!(s, Stmt::Undo { vec, .. } if *vec == result));
    }
    found
}

/// The value of the parameter called `name`.
pub(super) fn param_var(f: &Func, name: &Ident) -> Option<Var> {
    f.vars.iter().position(|v| v.name == *name).map(Var)
}

pub(super) fn ret(b: &Builder) -> TokenStream {
    b.func
        .ret
        .as_ref()
        .map_or_else(|| zero(&b.func), |r| place(&b.func, r))
}
