//! A struct result (`fn cauchy_green(&self) -> Self { Self { vals: [1.0 + 2.0 * v[0], …] } }`),
//! written as an array result: on the way in, each struct literal the function returns becomes
//! the array of its numbers, field after field as the first one lists them; on the way out, the
//! user's function comes back as written, and the generated functions take and return the struct
//! (`jvp_` its value and tangent, `vjp_` a cotangent of it), the hidden ones too, so that a
//! caller's `e.cauchy_green().det()` goes through both methods.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{Expr, FnArg, Item, ItemFn, Pat, ReturnType, Stmt, Type};

use crate::emit::{called, rewrite_calls};
use crate::names;
use crate::parse;

/// The struct a function returns, as its literals write it: its path (`Self`, `KM`) and its
/// fields, each a number (`None`) or an array of `n` numbers written out.
pub struct Layout {
    path: syn::Path,
    fields: Vec<(syn::Member, Option<usize>)>,
    /// The struct type of the signature.
    ty: Type,
}

/// For a function returning struct literals of numbers and arrays of numbers: the function
/// returning the array of their numbers instead, with the layout.
pub fn into_core(item: &ItemFn, args: &parse::Args) -> syn::Result<Option<(ItemFn, Layout)>> {
    let ReturnType::Type(arrow, ty) = &item.sig.output else {
        return Ok(None);
    };
    if !matches!(&**ty, Type::Path(p) if p.qself.is_none()) {
        return Ok(None);
    }
    let Some(first) = first_literal(&item.block) else {
        return Ok(None);
    };
    let layout = Layout {
        path: first.path.clone(),
        fields: first
            .fields
            .iter()
            .map(|f| (f.member.clone(), width(&f.expr)))
            .collect(),
        ty: (**ty).clone(),
    };
    let associated =
        args.associated || item.sig.receiver().is_some() || parse::names_self(&item.sig);
    if !associated {
        return Err(syn::Error::new(ty.span(), "`#[autodiff]` differentiates a function returning a struct as a method or an associated function of an `#[autodiff]` `impl` block: put it in one"));
    }
    let float = float_of(item, args);
    let n = layout.width();
    let mut core = item.clone();
    core.sig.output = ReturnType::Type(*arrow, Box::new(syn::parse_quote!([#float; #n])));
    let written = super::rewrite_returned(&mut core.block, &mut |e| match e {
        Expr::Struct(s) => Some(layout.as_array(s).map(|a| *e = a).is_some()),
        _ => None,
    });
    if let Err(at) = written {
        return Err(syn::Error::new(at, "a function returning a struct returns it written out here (`Self { x: a, vals: [b, c] }`, also in each arm), with the same fields each time and arrays written element by element: `#[autodiff]` differentiates it as the array of its numbers"));
    }
    Ok(Some((core, layout)))
}

/// The float type of the struct's numbers: the function's or its block's type parameter bounded
/// by `Float`, else `f32` where the signature names it, else `f64`.
fn float_of(item: &ItemFn, args: &parse::Args) -> Ident {
    if let Some(f) = parse::float_param(&item.sig.generics).or_else(|| args.impl_float.clone()) {
        return f;
    }
    let mut f32 = false;
    crate::tokens::replace_all(quote!(#item), &mut |id| {
        f32 |= id == "f32";
        None
    });
    Ident::new(if f32 { "f32" } else { "f64" }, Span::call_site())
}

/// The width of a field's value: an array literal's length (`[a, b]`, `[x; 3]`), else a number.
fn width(e: &Expr) -> Option<usize> {
    match e {
        Expr::Array(a) => Some(a.elems.len()),
        Expr::Repeat(r) => match &*r.len {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) => n.base10_parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// The first struct literal the body returns: its tail's, or a `return`'s.
fn first_literal(block: &syn::Block) -> Option<syn::ExprStruct> {
    fn of(e: &Expr) -> Option<syn::ExprStruct> {
        match e {
            Expr::Struct(s) if s.rest.is_none() => Some(s.clone()),
            Expr::Block(b) => tail(&b.block),
            Expr::If(i) => {
                tail(&i.then_branch).or_else(|| i.else_branch.as_ref().and_then(|(_, e)| of(e)))
            }
            Expr::Match(m) => m.arms.iter().find_map(|a| of(&a.body)),
            Expr::Paren(p) => of(&p.expr),
            Expr::Return(r) => r.expr.as_deref().and_then(of),
            _ => None,
        }
    }
    fn tail(b: &syn::Block) -> Option<syn::ExprStruct> {
        b.stmts.iter().rev().find_map(|s| match s {
            Stmt::Expr(e, _) => of(e),
            _ => None,
        })
    }
    tail(block)
}

impl Layout {
    fn width(&self) -> usize {
        self.fields.iter().map(|(_, n)| n.unwrap_or(1)).sum()
    }

    /// `s` as the array of its numbers, if it has the layout's fields.
    fn as_array(&self, s: &syn::ExprStruct) -> Option<Expr> {
        if s.rest.is_some() || s.fields.len() != self.fields.len() {
            return None;
        }
        let mut numbers: Vec<TokenStream> = Vec::new();
        for (member, n) in &self.fields {
            let field = s.fields.iter().find(|f| f.member == *member)?;
            match (n, &field.expr) {
                (None, e) => numbers.push(quote!(#e)),
                (Some(n), Expr::Array(a)) if a.elems.len() == *n => {
                    numbers.extend(a.elems.iter().map(|x| quote!(#x)));
                }
                (Some(n), Expr::Repeat(r)) if width(&field.expr) == Some(*n) => {
                    let x = &r.expr;
                    numbers.extend((0..*n).map(|_| quote!(#x)));
                }
                _ => return None,
            }
        }
        Some(syn::parse_quote!([#(#numbers),*]))
    }

    /// The struct built from the array `v` of its numbers.
    fn rebuild(&self, v: &TokenStream) -> TokenStream {
        let mut at = 0usize;
        let fields = self.fields.iter().map(|(member, n)| {
            let value = match n {
                None => quote!(#v[#at]),
                Some(n) => {
                    let items = (at..at + n).map(|k| quote!(#v[#k]));
                    quote!([#(#items),*])
                }
            };
            at += n.unwrap_or(1);
            quote!(#member: #value)
        });
        let path = &self.path;
        quote!(#path { #(#fields),* })
    }

    /// The array of the numbers of the struct `s`.
    fn flatten(&self, s: &TokenStream) -> TokenStream {
        let numbers = self.fields.iter().flat_map(|(member, n)| match n {
            None => vec![quote!(#s.#member)],
            Some(n) => (0..*n).map(|k| quote!(#s.#member[#k])).collect(),
        });
        quote!([#(#numbers),*])
    }
}

/// `items`, written for the array version of `function`, for the user's `function` returning
/// the struct of `layout`.
pub fn dress(items: Vec<Item>, function: &ItemFn, layout: &Layout) -> Vec<Item> {
    let name = &function.sig.ident;
    let primal = [name.to_string()];
    let array = names::array(name);
    let (jvp, vjp) = (format_ident!("jvp_{}", name), format_ident!("vjp_{}", name));
    let (hidden_jvp, hidden_vjp) = (names::jvp(name), names::vjp(name));
    let explain = format_ident!("explain_{}", name);
    // (`jacobian_` reads the array versions; a struct's Jacobian is not written.)
    let jacobian = format_ident!("jacobian_{}", name);
    let mut out = Vec::new();
    for item in items {
        let Item::Fn(mut f) = item else {
            out.push(item);
            continue;
        };
        if f.sig.ident == jacobian {
            continue;
        }
        if f.sig.ident == *name {
            f.sig.ident = array.clone();
            f.attrs.push(syn::parse_quote!(#[doc(hidden)]));
            f.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
            let mut user = function.clone();
            user.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
            out.extend([Item::Fn(user), Item::Fn(f)]);
            continue;
        }
        // The generated functions call the array version.
        rewrite_calls(&mut f.block, &mut |c| {
            called(c, &|n| primal.iter().any(|p| p == n))?;
            let args = &c.args;
            Some(syn::parse_quote!(#array(#args)))
        });
        super::rename_self_calls(&mut f.block, &primal, &|_| array.clone());
        // The hidden functions convert; the public ones hand the structs through.
        let id = &f.sig.ident;
        let ty = &layout.ty;
        if *id == hidden_jvp {
            layout.returns_pair(&mut f);
        } else if *id == hidden_vjp {
            layout.takes_cotangent(&mut f);
            layout.returns_value_first(&mut f);
        } else if *id == explain {
            layout.takes_cotangent(&mut f);
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

impl Layout {
    /// `jvp_f`: the value and the tangent, each a struct.
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

    /// `__diffx_vjp_f`: the value, a struct, then the gradients.
    fn returns_value_first(&self, f: &mut ItemFn) {
        let (v, g) = (
            Ident::new("__value", Span::mixed_site()),
            Ident::new("__grads", Span::mixed_site()),
        );
        let rv = self.rebuild(&quote!(#v));
        let body = &f.block;
        f.block = syn::parse_quote!({ let (#v, #g) = #body; (#rv, #g) });
        if let ReturnType::Type(_, ty) = &mut f.sig.output {
            if let Type::Tuple(t) = &mut **ty {
                if let Some(first) = t.elems.first_mut() {
                    *first = self.ty.clone();
                }
            }
        }
    }

    /// The cotangent, last, as a struct.
    fn takes_cotangent(&self, f: &mut ItemFn) {
        let Some(FnArg::Typed(ct)) = f.sig.inputs.last_mut() else {
            return;
        };
        let Pat::Ident(pi) = &*ct.pat else { return };
        let name = pi.ident.clone();
        *ct.ty = self.ty.clone();
        let numbers = self.flatten(&quote!(#name));
        f.block
            .stmts
            .insert(0, syn::parse_quote!(let #name = #numbers;));
    }
}
