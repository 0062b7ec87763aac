//! Emission: the only module that writes tokens. Turns the lists of the primal, forward and
//! reverse programs into the functions `#[autodiff]` adds beside the user's function.

use std::collections::HashSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::ItemFn;

use crate::builder::Builder;
use crate::forward::Forward;
use crate::ir::{Atom, Func, Op, Stmt, Var};
use crate::parse::Signature;
use crate::reverse::Reverse;
use crate::rules::Syntax;
use crate::tokens::paren;

fn atom(f: &Func, a: &Atom) -> TokenStream {
    match a {
        Atom::Var(v) => f.name(*v).to_token_stream(),
        Atom::Const(t) => paren(t.clone()),
    }
}

fn atoms(f: &Func, args: &[Atom]) -> Vec<TokenStream> {
    args.iter().map(|a| atom(f, a)).collect()
}

/// The derivative function `prefix` of the function at `path`: `m::g` → `m::__diffx_vjp_g`.
pub fn derived_path(path: &syn::Path, prefix: &str) -> syn::Path {
    let mut p = path.clone();
    if let Some(last) = p.segments.last_mut() {
        last.ident = format_ident!(
            "__diffx_{}_{}",
            prefix,
            last.ident,
            span = last.ident.span()
        );
    }
    p
}

fn op_expr(f: &Func, op: &Op, args: &[Atom]) -> TokenStream {
    let a = atoms(f, args);
    match op {
        Op::Id => a[0].clone(),
        Op::Call(path) => quote!(#path(#(#a),*)),
        Op::Rule(rule) => match &rule.syntax {
            Syntax::Infix(o) | Syntax::Prefix(o) => {
                let o: TokenStream = o.parse().expect("operator tokens");
                if a.len() == 1 {
                    quote!(#o #(#a)*)
                } else {
                    let (l, r) = (&a[0], &a[1]);
                    quote!(#l #o #r)
                }
            }
            Syntax::Method => {
                let m = Ident::new(rule.name, Span::call_site());
                let (recv, rest) = (&a[0], &a[1..]);
                quote!(#recv.#m(#(#rest),*))
            }
            Syntax::Func(path) => {
                let path: TokenStream = path.parse().expect("path tokens");
                quote!(#path(#(#a),*))
            }
        },
    }
}

fn stmt(f: &Func, s: &Stmt, mutable: &HashSet<Var>) -> TokenStream {
    let m = |v: &Var| mutable.contains(v).then(|| quote!(mut));
    match s {
        Stmt::Let { dst, op, args, .. } => {
            let (mt, name, e) = (m(dst), f.name(*dst), op_expr(f, op, args));
            quote!(let #mt #name = #e;)
        }
        Stmt::Accum { dst, value } => {
            let (d, v) = (f.name(*dst), f.name(*value));
            quote!(#d += #v;)
        }
        Stmt::Const {
            name,
            mutable,
            ty,
            expr,
        } => {
            let mt = mutable.then(|| quote!(mut));
            let ty = ty.as_ref().map(|t| quote!(: #t));
            quote!(let #mt #name #ty = #expr;)
        }
        Stmt::Verbatim { binds, tokens } if binds.is_empty() => tokens.clone(),
        Stmt::Verbatim { binds, tokens } => {
            let names = binds.iter().map(|(n, _)| n);
            let values = binds.iter().map(|(_, a)| atom(f, a));
            quote!({ #(let #names = #values;)* #tokens })
        }
        Stmt::Item(tokens) => tokens.clone(),
        Stmt::CallJvp {
            dst,
            dst_dot,
            path,
            args,
            tangents,
        } => {
            let path = derived_path(path, "jvp");
            let (d, dd, a) = (f.name(*dst), f.name(*dst_dot), atoms(f, args));
            let t = tangents.iter().map(|t| match t {
                Some(v) => f.name(*v).to_token_stream(),
                None => quote!(::diffx::__private::Zero),
            });
            quote!(let (#d, #dd) = #path(#(#a,)* #(#t),*);)
        }
        Stmt::CallVjp {
            path,
            args,
            ct,
            grads,
        } => {
            let path = derived_path(path, "vjp");
            let (a, ct) = (atoms(f, args), f.name(*ct));
            let g = grads.iter().map(|g| match g {
                Some(v) => f.name(*v).to_token_stream(),
                None => quote!(_),
            });
            quote!(let (_, (#(#g,)*)) = #path(#(#a,)* #ct);)
        }
    }
}

/// The statements of `f`, with `mut` on exactly the values that are accumulated into.
pub fn body(f: &Func) -> TokenStream {
    let mutable: HashSet<Var> = f
        .body
        .iter()
        .filter_map(|s| {
            if let Stmt::Accum { dst, .. } = s {
                Some(*dst)
            } else {
                None
            }
        })
        .collect();
    f.body.iter().map(|s| stmt(f, s, &mutable)).collect()
}

fn allow() -> TokenStream {
    quote!(#[allow(unused_variables, unused_mut, unused_parens, unused_braces, clippy::all, clippy::pedantic)])
}

/// Everything `#[autodiff]` writes for `item`.
pub fn functions(item: &ItemFn, sig: &Signature, fwd: &Forward, rev: &Reverse) -> TokenStream {
    let g = Generated::new(item, sig);
    let hidden = [g.hidden_jvp(fwd), g.hidden_vjp(rev)];
    let public = [g.jvp(fwd), g.vjp(rev), g.grad(rev), g.value_and_grad(rev)];
    quote!(#item #(#hidden)* #(#public)*)
}

/// The pieces of the signature every generated function repeats.
struct Generated<'a> {
    sig: &'a Signature,
    vis: &'a syn::Visibility,
    name: &'a Ident,
    float: &'a Ident,
    /// `x: f64, n: usize`.
    params: Vec<TokenStream>,
    /// `x, n`.
    args: Vec<&'a Ident>,
}

impl<'a> Generated<'a> {
    fn new(item: &'a ItemFn, sig: &'a Signature) -> Self {
        let params = sig.params.iter().map(|p| {
            let (n, t) = (&p.name, &p.ty);
            quote!(#n: #t)
        });
        Generated {
            sig,
            vis: &item.vis,
            name: &item.sig.ident,
            float: &sig.float,
            params: params.collect(),
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
            .map(|p| &p.ty)
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
        let (name, params, float, allow) = (
            self.fn_name("__diffx_jvp_"),
            &self.params,
            self.float,
            allow(),
        );
        let f = &fwd.b.func;
        let tangents = self
            .sig
            .params
            .iter()
            .zip(&fwd.param_dots)
            .map(|(p, d)| match d {
                Some(d) => {
                    let (d, t) = (f.name(*d), &p.ty);
                    quote!(#d: impl ::diffx::__private::IntoTangent<#t>)
                }
                None => quote!(_: impl ::core::marker::Sized),
            });
        let converts = self
            .sig
            .params
            .iter()
            .zip(&fwd.param_dots)
            .filter_map(|(p, d)| {
                let (d, t) = (f.name((*d)?), &p.ty);
                Some(quote!(let #d: #t = ::diffx::__private::IntoTangent::into_tangent(#d);))
            });
        let (body, ret, ret_dot) = (body(f), ret(&fwd.b), atom(f, &fwd.ret_dot));
        let vis = self.vis;
        quote! {
            #[doc(hidden)]
            #[inline]
            #allow
            #vis fn #name(#(#params,)* #(#tangents),*) -> (#float, #float) {
                #(#converts)*
                #body
                (#ret, #ret_dot)
            }
        }
    }

    fn hidden_vjp(&self, rev: &Reverse) -> TokenStream {
        let (name, params, float, allow) = (
            self.fn_name("__diffx_vjp_"),
            &self.params,
            self.float,
            allow(),
        );
        let f = &rev.b.func;
        let ct = f.name(rev.ct);
        let tys = self.sig.params.iter().map(|p| {
            if p.differentiable {
                p.ty.to_token_stream()
            } else {
                quote!(::diffx::__private::Zero)
            }
        });
        let grads = self
            .sig
            .params
            .iter()
            .zip(&rev.grads)
            .map(|(p, g)| match g {
                Some(g) => f.name(*g).to_token_stream(),
                None if p.differentiable => quote!(0.0),
                None => quote!(::diffx::__private::Zero),
            });
        let (body, ret, vis) = (body(f), ret(&rev.b), self.vis);
        quote! {
            #[doc(hidden)]
            #[inline]
            #allow
            #vis fn #name(#(#params,)* #ct: #float) -> (#float, (#(#tys,)*)) {
                #body
                (#ret, (#(#grads,)*))
            }
        }
    }

    fn jvp(&self, fwd: &Forward) -> TokenStream {
        let (name, hidden, params, args, float) = (
            self.fn_name("jvp_"),
            self.fn_name("__diffx_jvp_"),
            &self.params,
            &self.args,
            self.float,
        );
        let f = &fwd.b.func;
        let dots: Vec<Option<&Ident>> = fwd
            .param_dots
            .iter()
            .map(|d| d.map(|d| f.name(d)))
            .collect();
        let tangent_params = self.sig.params.iter().zip(&dots).filter_map(|(p, d)| {
            let (d, t) = ((*d)?, &p.ty);
            Some(quote!(#d: #t))
        });
        let tangent_args = dots
            .iter()
            .map(|d| d.map_or(quote!(::diffx::__private::Zero), |d| quote!(#d)));
        let doc = format!(
            " The value of [`{0}`] and its directional derivative along the given tangents, by forward mode.\n\n Written by `#[autodiff]`.",
            self.name
        );
        let vis = self.vis;
        quote! {
            #[doc = #doc]
            #[inline]
            #vis fn #name(#(#params,)* #(#tangent_params),*) -> (#float, #float) {
                #hidden(#(#args,)* #(#tangent_args),*)
            }
        }
    }

    fn vjp(&self, rev: &Reverse) -> TokenStream {
        let (name, hidden, params, args, float) = (
            self.fn_name("vjp_"),
            self.fn_name("__diffx_vjp_"),
            &self.params,
            &self.args,
            self.float,
        );
        let ct = rev.b.func.name(rev.ct);
        let (pat, result, gty) = (
            self.grad_pattern().0,
            self.grad_pattern().1,
            self.grad_type(),
        );
        let doc = format!(
            " The pullback of [`{0}`]: `{1}` times its gradient, by reverse mode.\n\n Written by `#[autodiff]`.",
            self.name, ct
        );
        let vis = self.vis;
        quote! {
            #[doc = #doc]
            #[inline]
            #vis fn #name(#(#params,)* #ct: #float) -> #gty {
                let (_, #pat) = #hidden(#(#args,)* #ct);
                #result
            }
        }
    }

    fn grad(&self, _rev: &Reverse) -> TokenStream {
        let (name, hidden, params, args) = (
            self.fn_name("grad_"),
            self.fn_name("__diffx_vjp_"),
            &self.params,
            &self.args,
        );
        let (pat, result, gty) = (
            self.grad_pattern().0,
            self.grad_pattern().1,
            self.grad_type(),
        );
        let doc = format!(
            " The gradient of [`{0}`] with respect to its differentiable parameters, by reverse mode.\n\n Written by `#[autodiff]`.",
            self.name
        );
        let vis = self.vis;
        quote! {
            #[doc = #doc]
            #[inline]
            #vis fn #name(#(#params),*) -> #gty {
                let (_, #pat) = #hidden(#(#args,)* 1.0);
                #result
            }
        }
    }

    fn value_and_grad(&self, _rev: &Reverse) -> TokenStream {
        let (name, hidden, params, args, float) = (
            self.fn_name("value_and_grad_"),
            self.fn_name("__diffx_vjp_"),
            &self.params,
            &self.args,
            self.float,
        );
        let (pat, result, gty) = (
            self.grad_pattern().0,
            self.grad_pattern().1,
            self.grad_type(),
        );
        let value = Ident::new("__value", Span::mixed_site());
        let doc = format!(
            " The value of [`{0}`] and its gradient, by reverse mode (one forward and one backward sweep).\n\n Written by `#[autodiff]`.",
            self.name
        );
        let vis = self.vis;
        quote! {
            #[doc = #doc]
            #[inline]
            #vis fn #name(#(#params),*) -> (#float, #gty) {
                let (#value, #pat) = #hidden(#(#args,)* 1.0);
                (#value, #result)
            }
        }
    }
}

fn ret(b: &Builder) -> TokenStream {
    b.func
        .ret
        .as_ref()
        .map_or(quote!(0.0), |r| atom(&b.func, r))
}
