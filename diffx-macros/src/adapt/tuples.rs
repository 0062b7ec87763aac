//! Tuple results (`fn polar(r: f64, t: f64) -> (f64, f64)`), written as array results: on the way
//! in, the pipeline gets the function with its tuples written as arrays (`[f64; 2]`); on the way
//! out, the user's function comes back as written, `jvp_` returns tuples and `vjp_` (and
//! `explain_`) take a tuple cotangent. `jacobian_` has a row per component either way.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::{Expr, Item, ItemFn, ReturnType};

use crate::emit::form::{self, Parts, Ret, Role};
use crate::emit::tuples::Layout;
use crate::names;

/// The way out of a tuple result: the functions written for the array version of `function`
/// (returning `[F; n]`, `n` the layout's width), for the user's `function` returning a tuple of
/// that layout.
pub struct Dress {
    pub function: ItemFn,
    pub layout: Layout,
}

impl Dress {
    /// The tuple type of the user's result.
    fn tuple(&self) -> TokenStream {
        match &self.function.sig.output {
            ReturnType::Type(_, tuple) => quote!(#tuple),
            ReturnType::Default => quote!(()),
        }
    }
}

impl form::Dress for Dress {
    // The user's function as written, and the array version for the generated code.
    fn primal(&self, items: Vec<Item>) -> Vec<Item> {
        let name = &self.function.sig.ident;
        super::at_primal(items, name, |f| {
            vec![
                super::user(&self.function, false),
                super::hidden_core(f, names::array(name)),
            ]
        })
    }

    // Calls of the function and its `jvp_` and `vjp_` go to their array versions.
    fn callee(&self, _: Role, callee: &Ident) -> Option<Ident> {
        let name = &self.function.sig.ident;
        let ours = [
            name.clone(),
            format_ident!("jvp_{}", name),
            format_ident!("vjp_{}", name),
        ];
        ours.contains(callee).then(|| names::array(callee))
    }

    fn function(&self, p: &mut Parts) -> Vec<Parts> {
        let tuple = self.tuple();
        let f = &mut p.f;
        // `jacobian_` calls the array versions of the wrappers.
        let array_version = matches!(f.role, Role::Jvp | Role::Vjp).then(|| {
            let mut a = Parts {
                f: f.clone(),
                receiver: p.receiver.clone(),
            };
            let attrs = &a.f.attrs;
            a.f.attrs = quote!(#attrs #[doc(hidden)]);
            a.f.name = names::array(&a.f.name);
            a
        });
        match f.role {
            Role::Jvp => {
                let (v, t) = (
                    Ident::new("__v", f.name.span()),
                    Ident::new("__t", f.name.span()),
                );
                let (pv, pt) = (self.layout.parts(&v), self.layout.parts(&t));
                let body = &f.body;
                f.body = quote!(let (#v, #t) = { #body }; (#pv, #pt));
                f.ret = Some(Ret::Type(quote!((#tuple, #tuple))));
            }
            // The cotangent, last, as the tuple it is the cotangent of.
            Role::Vjp | Role::Explain => {
                let numbers = (f.params.last().and_then(|ct| ct.name.as_ref()))
                    .map(|name| self.layout.flattened(&quote!(#name)));
                if let Some(ct) = f.params.last_mut() {
                    ct.ty = tuple;
                    if let Some(name) = ct.name.clone() {
                        f.prepend(quote!(let #name = #numbers;));
                    }
                }
            }
            _ => {}
        }
        array_version.into_iter().collect()
    }

    // (For a method, an associated const: callers read `Self::__DIFFX_PARTS_f`.)
    fn after(&self) -> (TokenStream, Vec<Parts>) {
        let starts = (self.layout).starts_const(&self.function.vis, &self.function.sig.ident);
        (starts, Vec::new())
    }
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
