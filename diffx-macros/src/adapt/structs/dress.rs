//! The way out: the functions written for the array version of a function returning the user's
//! shape, dressed to take and return that shape ([`dress`]).

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::{Expr, FnArg, Item, ItemFn, Pat, ReturnType, Stmt, Type};

use super::Layout;
use crate::emit::{called, rewrite_calls};
use crate::names;

/// `items`, written for the array version of `function`, for the user's `function` returning
/// the struct of `layout`.
pub fn dress(items: Vec<Item>, function: &ItemFn, layout: &Layout) -> Vec<Item> {
    let name = &function.sig.ident;
    let array = names::array(name);
    let (jvp, vjp) = (format_ident!("jvp_{}", name), format_ident!("vjp_{}", name));
    let (hidden_jvp, hidden_vjp) = (names::jvp(name), names::vjp(name));
    let hidden_hvp = names::hvp(name);
    let explain = format_ident!("explain_{}", name);
    let split = names::split(name);
    let cut = calls_split(&items, &hidden_vjp, &split);
    let jacobian = format_ident!("jacobian_{}", name);
    let mut out = Vec::new();
    for item in items {
        let Item::Fn(mut f) = item else {
            out.push(item);
            continue;
        };
        if f.sig.ident == jacobian {
            out.push(Item::Fn(layout.jacobian(f, name, &array)));
            continue;
        }
        if f.sig.ident == *name {
            out.extend(super::super::user_beside_core(f, function, &array, true));
            continue;
        }
        if f.sig.ident == split {
            // The split function's value and cotangent are the user's type. A cut one is the
            // array version's, wrapped: the hidden `vjp_` calls that one, and converts.
            if cut {
                let mut array_split = f.clone();
                array_split.sig.ident = names::split(format_ident!("array_{}", name));
                out.push(Item::Fn(layout.split(&f, &array_split.sig.ident)));
                out.push(Item::Fn(array_split));
            } else {
                layout.recomputing_split(&mut f);
                out.push(Item::Fn(f));
            }
            continue;
        }
        // The generated functions call the array version.
        super::super::redirect_calls(&mut f.block, name, &array);
        if cut {
            let array_split = names::split(format_ident!("array_{}", name));
            rewrite_calls(&mut f.block, &mut |c| {
                called(c, &|n| split == n)?;
                let args = &c.args;
                Some(syn::parse_quote!(#array_split(#args)))
            });
        }
        // The hidden functions convert; the public ones hand the structs through.
        let id = &f.sig.ident;
        let ty = &layout.ty;
        if *id == hidden_jvp {
            layout.returns_pair(&mut f);
        } else if *id == hidden_vjp {
            layout.takes_cotangents(&mut f, 1);
            layout.returns_value_first(&mut f);
        } else if *id == hidden_hvp && !super::super::outputs::is_stub(&f) {
            // (The cotangent and its tangent, for callers' second order.)
            layout.takes_cotangents(&mut f, 2);
            layout.returns_value_first(&mut f);
        } else if *id == explain {
            layout.takes_cotangents(&mut f, 1);
        } else if *id == jvp {
            f.sig.output = syn::parse_quote!(-> (#ty, #ty));
        } else if *id == vjp {
            if let Some(FnArg::Typed(ct)) = f.sig.inputs.last_mut() {
                *ct.ty = ty.clone();
            }
        }
        out.push(Item::Fn(f));
    }
    out
}

/// Whether the hidden `vjp_` among `items` calls the split function `split`: whether it is the
/// split function followed by its pullback (`emit::split`).
fn calls_split(items: &[Item], hidden_vjp: &Ident, split: &Ident) -> bool {
    items.iter().any(|i| match i {
        Item::Fn(f) if f.sig.ident == *hidden_vjp => {
            let mut calls = false;
            rewrite_calls(&mut f.block.clone(), &mut |c| {
                calls |= called(c, &|n| split == n).is_some();
                None
            });
            calls
        }
        _ => false,
    })
}

impl Layout {
    /// `jvp_f`: the value and the tangent, each a struct.
    /// `jacobian_f` of the array version, a row per number of the result: in `Params`' order
    /// where the type derives it (a struct's fields as declared, a matrix's rows one after
    /// another), else as the literal writes the fields (`diffx::__private::Numbers` chooses at
    /// compile time). The tangents of `jvp_f` and the cotangents of `vjp_f` are converted
    /// between the value and the array of its numbers.
    fn jacobian(&self, mut f: ItemFn, name: &Ident, array: &Ident) -> ItemFn {
        super::super::redirect_calls(&mut f.block, name, array);
        let (jvp, vjp) = (format_ident!("jvp_{}", name), format_ident!("vjp_{}", name));
        let last = |c: &syn::ExprCall| match &*c.func {
            Expr::Path(p) => p.path.segments.last().map(|s| s.ident.clone()),
            _ => None,
        };
        rewrite_calls(&mut f.block, &mut |c| {
            let id = last(c)?;
            let numbers = quote!(
                use ::diffx::__private::{NoNumbers as _, ParamsNumbers as _};
            );
            if id == jvp {
                let t = self.flatten(&quote!(__t));
                return Some(syn::parse_quote!({
                    let (_, __t) = #c;
                    #numbers
                    let __n = (&::diffx::__private::Numbers(&__t)).numbers();
                    ((), __n.unwrap_or_else(|| #t.to_vec()))
                }));
            }
            if id != vjp {
                return None;
            }
            let mut c = c.clone();
            let ct = c.args.pop()?.into_value();
            let shaped = self.rebuild(&quote!((__ct)));
            c.args.push(syn::parse_quote!({
                let __ct = #ct;
                let __s = #shaped;
                #numbers
                let __n = (&::diffx::__private::Numbers(&__s)).shaped(&__ct[..]);
                __n.unwrap_or(__s)
            }));
            Some(Expr::Call(c))
        });
        f
    }

    fn returns_pair(&self, f: &mut ItemFn) {
        let (v, t) = (
            Ident::new("__value", Span::mixed_site()),
            Ident::new("__tangent", Span::mixed_site()),
        );
        let (rv, rt) = (self.rebuild(&quote!(#v)), self.rebuild(&quote!(#t)));
        let body = &f.block;
        f.block = syn::parse_quote!({ let (#v, #t) = #body; (#rv, #rt) });
        let ty = &self.ty;
        f.sig.output = syn::parse_quote!(-> (#ty, #ty));
    }

    /// `__diffx_vjp_f`, `__diffx_hvp_f`: the value, a struct, then the gradients (and their
    /// tangents).
    fn returns_value_first(&self, f: &mut ItemFn) {
        let v = Ident::new("__value", Span::mixed_site());
        // (The gradients, and for `__diffx_hvp_f` their tangents.)
        let n = match &f.sig.output {
            ReturnType::Type(_, ty) => match &**ty {
                Type::Tuple(t) => t.elems.len().saturating_sub(1),
                _ => 1,
            },
            ReturnType::Default => 1,
        };
        let rest: Vec<Ident> = (0..n)
            .map(|k| format_ident!("__rest{}", k, span = Span::mixed_site()))
            .collect();
        let rv = self.rebuild(&quote!(#v));
        let body = &f.block;
        f.block = syn::parse_quote!({ let (#v, #(#rest),*) = #body; (#rv, #(#rest),*) });
        if let ReturnType::Type(_, ty) = &mut f.sig.output {
            if let Type::Tuple(t) = &mut **ty {
                if let Some(first) = t.elems.first_mut() {
                    *first = self.ty.clone();
                }
            }
        }
    }

    /// `__diffx_split_f` (see `emit::split`) taking and returning the user's type, through
    /// `array_split`, the split function of the array version.
    fn split(&self, f: &ItemFn, array_split: &Ident) -> ItemFn {
        let mut out = f.clone();
        let inputs = self.split_signature(&mut out);
        let args: Vec<TokenStream> = f
            .sig
            .inputs
            .iter()
            .filter_map(|i| match i {
                FnArg::Typed(pt) => Some(pt.pat.to_token_stream()),
                FnArg::Receiver(_) => None,
            })
            .collect();
        let (v, pullback, ct, rest) = (
            Ident::new("__value", Span::mixed_site()),
            Ident::new("__pullback", Span::mixed_site()),
            Ident::new("__ct", Span::mixed_site()),
            [
                Ident::new("__wanted", Span::mixed_site()),
                Ident::new("__slots", Span::mixed_site()),
            ],
        );
        let closure_params = args
            .iter()
            .chain([&quote!(#ct)])
            .chain(rest.iter().map(|r| quote!(#r)).collect::<Vec<_>>().iter())
            .zip(&inputs)
            .map(|(a, t)| quote!(#a: #t))
            .collect::<Vec<_>>();
        let (value, numbers) = (self.rebuild(&quote!(#v)), self.flatten(&quote!(#ct)));
        let [w, sl] = &rest;
        out.block = syn::parse_quote!({
            let (#v, #pullback) = #array_split(#(#args),*);
            (#value, move |#(#closure_params),*| #pullback(#(#args,)* #numbers, #w, #sl))
        });
        out
    }

    /// The split function's signature with the user's type for the value and for the
    /// pullback's cotangent; the pullback's parameter types.
    fn split_signature(&self, f: &mut ItemFn) -> Vec<Type> {
        let n = f.sig.inputs.len();
        let ReturnType::Type(_, ret) = &mut f.sig.output else {
            return Vec::new();
        };
        let Type::Tuple(pair) = &mut **ret else {
            return Vec::new();
        };
        pair.elems[0] = self.ty.clone();
        let mut inputs: Vec<Type> = Vec::new();
        if let Some(Type::ImplTrait(pullback)) = pair.elems.iter_mut().nth(1) {
            for bound in pullback.bounds.iter_mut() {
                let syn::TypeParamBound::Trait(t) = bound else {
                    continue;
                };
                let Some(last) = t.path.segments.last_mut() else {
                    continue;
                };
                if let syn::PathArguments::Parenthesized(a) = &mut last.arguments {
                    if let Some(ct) = a.inputs.iter_mut().nth(n) {
                        *ct = self.ty.clone();
                    }
                    inputs = a.inputs.iter().cloned().collect();
                }
            }
        }
        inputs
    }

    /// A split function that calls the function and its hidden `vjp_` (`emit::split::
    /// recomputing`), with the user's type for the value and the cotangent.
    fn recomputing_split(&self, f: &mut ItemFn) {
        let n = f.sig.inputs.len();
        self.split_signature(f);
        let Some(Stmt::Expr(Expr::Tuple(t), None)) = f.block.stmts.last_mut() else {
            return;
        };
        if let Some(Expr::Closure(c)) = t.elems.iter_mut().nth(1) {
            if let Some(Pat::Type(ct)) = c.inputs.iter_mut().nth(n) {
                *ct.ty = self.ty.clone();
            }
        }
    }

    /// The last `n` parameters (the cotangent, and its tangent) as values of the user's type.
    fn takes_cotangents(&self, f: &mut ItemFn, n: usize) {
        let count = f.sig.inputs.len();
        for input in f.sig.inputs.iter_mut().skip(count.saturating_sub(n)) {
            let FnArg::Typed(ct) = input else { continue };
            let Pat::Ident(pi) = &*ct.pat else { continue };
            let name = pi.ident.clone();
            *ct.ty = self.ty.clone();
            let numbers = self.flatten(&quote!(#name));
            f.block
                .stmts
                .insert(0, syn::parse_quote!(let #name = #numbers;));
        }
    }
}
