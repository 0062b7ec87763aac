//! Tuple results (`fn polar(r: f64, t: f64) -> (f64, f64)`), written as array results: on the way
//! in, the pipeline gets the function with its tuples written as arrays (`[f64; 2]`); on the way
//! out, the user's function comes back as written, `jvp_` returns tuples and `vjp_` (and
//! `explain_`) take a tuple cotangent. `jacobian_` has a row per component either way.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{Expr, FnArg, Item, ItemFn, ReturnType, Stmt};

use crate::emit::tuples::Layout;
use crate::emit::{called, rewrite_calls};
use crate::names;

/// `items`, written for the array version of `function` (returning `[F; n]`, `n` the layout's
/// width), for the user's `function` returning a tuple of that layout.
pub fn dress(items: Vec<Item>, function: &ItemFn, layout: &Layout) -> Vec<Item> {
    let ReturnType::Type(_, tuple) = &function.sig.output else {
        return items;
    };
    let parts = |v: &syn::Ident| layout.parts(v);
    let array_name = names::array(&function.sig.ident);
    let renamed: Vec<String> = ["", "jvp_", "vjp_"]
        .iter()
        .map(|p| format!("{p}{}", function.sig.ident))
        .collect();
    let mut out = Vec::new();
    for item in items {
        let Item::Fn(mut f) = item else {
            out.push(item);
            continue;
        };
        let name = f.sig.ident.to_string();
        if f.sig.ident == function.sig.ident {
            // The user's function as written, and the array version for the generated code.
            out.extend(super::user_beside_core(f, function, &array_name, false));
            continue;
        }
        // Calls of the function and its `jvp_` and `vjp_` go to their array versions (for a
        // method, `self.jvp_f(…)` and `Self::jvp_f(…)` too).
        rewrite_calls(&mut f.block, &mut |c| {
            let id = called(c, &|n| renamed.iter().any(|r| r == n))?;
            let array = names::array(id);
            let args = &c.args;
            Some(syn::parse_quote!(#array(#args)))
        });
        super::rename_self_calls(&mut f.block, &renamed, &|id| names::array(id));
        let array_version = (name.starts_with("jvp_") || name.starts_with("vjp_")).then(|| {
            // `jacobian_` calls the array versions of the wrappers.
            let mut a = f.clone();
            a.sig.ident = names::array(&a.sig.ident);
            a.attrs.push(syn::parse_quote!(#[doc(hidden)]));
            Item::Fn(a)
        });
        out.extend(array_version);
        if name.starts_with("jvp_") {
            let (v, t) = (
                syn::Ident::new("__v", f.sig.ident.span()),
                syn::Ident::new("__t", f.sig.ident.span()),
            );
            let body = &f.block;
            let (pv, pt) = (parts(&v), parts(&t));
            f.block = syn::parse_quote!({ let (#v, #t) = #body; (#pv, #pt) });
            f.sig.output = syn::parse_quote!(-> (#tuple, #tuple));
        } else if name.starts_with("vjp_") || name.starts_with("explain_") {
            // The cotangent, last, as the tuple it is the cotangent of.
            if let Some(FnArg::Typed(ct)) = f.sig.inputs.last_mut() {
                let pat = (*ct.pat).clone();
                *ct.ty = (**tuple).clone();
                let numbers = layout.flattened(&quote!(#pat));
                let read: Stmt = syn::parse_quote!(let #pat = #numbers;);
                f.block.stmts.insert(0, read);
            }
        }
        out.push(Item::Fn(f));
    }
    // (For a method, an associated const: callers read `Self::__DIFFX_PARTS_f`.)
    let starts = layout.starts_const(&function.vis, &function.sig.ident);
    out.push(syn::parse_quote!(#starts));
    out
}

/// A function returning a tuple of numbers and arrays of them (`-> (f64, f64)`, `-> ([f64; 2],
/// f64)`) as one returning an array of all its numbers, its tuples written as arrays, with the
/// tuple's layout.
pub fn into_core(item: &ItemFn) -> syn::Result<Option<(ItemFn, Layout)>> {
    let syn::ReturnType::Type(arrow, ty) = &item.sig.output else {
        return Ok(None);
    };
    let syn::Type::Tuple(t) = &**ty else {
        return Ok(None);
    };
    // Each part a number of one float type, or an array of them of a length written out.
    let part = |e: &syn::Type| -> Option<(String, Option<usize>)> {
        match e {
            syn::Type::Path(p) if p.path.get_ident().is_some() => {
                Some((e.to_token_stream().to_string(), None))
            }
            syn::Type::Array(a) => {
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) = &a.len
                else {
                    return None;
                };
                let syn::Type::Path(p) = &*a.elem else {
                    return None;
                };
                p.path.get_ident()?;
                Some((
                    a.elem.to_token_stream().to_string(),
                    Some(n.base10_parse().ok()?),
                ))
            }
            _ => None,
        }
    };
    let Some(parts) = t.elems.iter().map(part).collect::<Option<Vec<_>>>() else {
        return Ok(None);
    };
    let Some((float, _)) = parts.first().cloned() else {
        return Ok(None);
    };
    if parts.iter().any(|(f, _)| *f != float) {
        return Ok(None);
    }
    let layout = Layout(parts.into_iter().map(|(_, n)| n).collect());
    let (float, n): (syn::Type, usize) = (syn::parse_str(&float)?, layout.width());
    let mut as_array = item.clone();
    as_array.sig.output = syn::ReturnType::Type(*arrow, Box::new(syn::parse_quote!([#float; #n])));
    let written = super::rewrite_returned(&mut as_array.block, &mut |e| match e {
        Expr::Tuple(_) => Some(tuple_as_array(e, &layout)),
        _ => None,
    });
    match written.err() {
        Some(at) => Err(syn::Error::new(at, format!("a function returning a tuple returns it written out here (`(a, b)`, also in each arm): `#[autodiff]` differentiates it as the array of its {n} numbers"))),
        None => Ok(Some((as_array, layout))),
    }
}

/// The tuple `e`, written out, as an array of its numbers; false if it does not have the layout.
fn tuple_as_array(e: &mut Expr, layout: &Layout) -> bool {
    match e {
        Expr::Tuple(t) if t.elems.len() == layout.0.len() && !layout.nested() => {
            let elems = &t.elems;
            *e = syn::parse_quote!([#elems]);
            true
        }
        // The numbers of each part, as one array literal: `([a, b], c)` → `[a, b, c]`, `(p, c)` →
        // `[p[0], p[1], c]`; a part of another form is taken into a local first.
        Expr::Tuple(t) if t.elems.len() == layout.0.len() => {
            let mut locals = Vec::new();
            let mut numbers: Vec<TokenStream> = Vec::new();
            for (i, (p, part)) in layout.0.iter().zip(&t.elems).enumerate() {
                match (p, part) {
                    (None, part) => numbers.push(quote!(#part)),
                    (Some(n), Expr::Array(a)) if a.elems.len() == *n => {
                        numbers.extend(a.elems.iter().map(|x| quote!(#x)));
                    }
                    (Some(n), part) => {
                        let name = match part {
                            Expr::Path(p) if p.path.get_ident().is_some() => quote!(#part),
                            _ => {
                                let local = names::numbered("part", i);
                                locals.push(quote!(let #local = #part;));
                                quote!(#local)
                            }
                        };
                        numbers.extend((0..*n).map(|k| quote!(#name[#k])));
                    }
                }
            }
            *e = match locals.is_empty() {
                true => syn::parse_quote!([#(#numbers),*]),
                false => syn::parse_quote!({ #(#locals)* [#(#numbers),*] }),
            };
            true
        }
        _ => false,
    }
}
