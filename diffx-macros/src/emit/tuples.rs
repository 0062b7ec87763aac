//! Tuple results (`fn polar(r: f64, t: f64) -> (f64, f64)`), written as array results: the
//! pipeline differentiates the function with its tuples written as arrays (`[f64; 2]`,
//! `expand::tuple_as_array`), and here the user's function comes back as written, `jvp_` returns
//! tuples and `vjp_` (and `explain_`) take a tuple cotangent. `jacobian_` has a row per component
//! either way.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Expr, FnArg, Item, ReturnType, Stmt};

/// `items`, written for `array` (the function returning `[F; n]`), for the user's `function`
/// returning an `n`-tuple.
pub fn tuple_results(
    items: TokenStream,
    function: &syn::ItemFn,
    n: usize,
) -> syn::Result<TokenStream> {
    let file: syn::File = syn::parse2(items)?;
    let ReturnType::Type(_, tuple) = &function.sig.output else {
        return Ok(quote!(#file));
    };
    let parts = |v: &syn::Ident| {
        let idx = (0..n).map(syn::Index::from);
        quote!((#(#v[#idx],)*))
    };
    let array_name = quote::format_ident!("__diffx_array_{}", function.sig.ident);
    let renamed: Vec<String> = ["", "jvp_", "vjp_"]
        .iter()
        .map(|p| format!("{p}{}", function.sig.ident))
        .collect();
    let mut out = Vec::new();
    for item in file.items {
        let Item::Fn(mut f) = item else {
            out.push(quote!(#item));
            continue;
        };
        let name = f.sig.ident.to_string();
        if f.sig.ident == function.sig.ident {
            // The user's function as written, and the array version for the generated code.
            f.sig.ident = array_name.clone();
            f.attrs.push(syn::parse_quote!(#[doc(hidden)]));
            f.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
            out.push(quote!(#function #f));
            continue;
        }
        // Calls of the function and its `jvp_` and `vjp_` go to their array versions.
        super::rewrite_calls(&mut f.block, &mut |c| {
            let id = super::called(c, &|n| renamed.iter().any(|r| r == n))?;
            let array = quote::format_ident!("__diffx_array_{}", id);
            let args = &c.args;
            Some(syn::parse_quote!(#array(#args)))
        });
        let array_version = (name.starts_with("jvp_") || name.starts_with("vjp_")).then(|| {
            // `jacobian_` calls the array versions of the wrappers.
            let mut a = f.clone();
            a.sig.ident = quote::format_ident!("__diffx_array_{}", a.sig.ident);
            a.attrs.push(syn::parse_quote!(#[doc(hidden)]));
            quote!(#a)
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
                let idx = (0..n).map(syn::Index::from);
                let read: Stmt = syn::parse_quote!(let #pat = [#(#pat.#idx),*];);
                f.block.stmts.insert(0, read);
            }
        }
        out.push(quote!(#f));
    }
    Ok(quote!(#(#out)*))
}

/// `e` (the function's body or a `return`'s value) with its tuple values written as arrays:
/// tails of blocks, arms and branches; false where a value is not a tuple written out.
pub fn tuples_to_arrays(e: &mut Expr, n: usize) -> bool {
    match e {
        Expr::Tuple(t) if t.elems.len() == n => {
            let elems = &t.elems;
            *e = syn::parse_quote!([#elems]);
            true
        }
        Expr::Block(b) => block_tail(&mut b.block, n),
        Expr::If(i) => {
            let Some((_, els)) = &mut i.else_branch else {
                return false;
            };
            block_tail(&mut i.then_branch, n) && tuples_to_arrays(els, n)
        }
        Expr::Match(m) => m.arms.iter_mut().all(|a| tuples_to_arrays(&mut a.body, n)),
        Expr::Paren(p) => tuples_to_arrays(&mut p.expr, n),
        _ => false,
    }
}

/// The tail of `b` as an array; a block ending in `return` has none to write.
pub fn block_tail(b: &mut syn::Block, n: usize) -> bool {
    match b.stmts.last_mut() {
        Some(Stmt::Expr(tail, None)) => tuples_to_arrays(tail, n),
        _ => true,
    }
}
