//! Tuple results (`fn polar(r: f64, t: f64) -> (f64, f64)`), written as array results: the
//! pipeline differentiates the function with its tuples written as arrays (`[f64; 2]`,
//! `expand::tuple_as_array`), and here the user's function comes back as written, `jvp_` returns
//! tuples and `vjp_` (and `explain_`) take a tuple cotangent. `jacobian_` has a row per component
//! either way.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Expr, FnArg, Item, ReturnType, Stmt};

use crate::names;

/// `items`, written for `array` (the function returning `[F; n]`, `n` the layout's width), for
/// the user's `function` returning a tuple of that layout.
pub fn tuple_results(
    items: TokenStream,
    function: &syn::ItemFn,
    layout: &Layout,
) -> syn::Result<TokenStream> {
    let file: syn::File = syn::parse2(items)?;
    let ReturnType::Type(_, tuple) = &function.sig.output else {
        return Ok(quote!(#file));
    };
    let parts = |v: &syn::Ident| layout.parts(v);
    let array_name = names::array(&function.sig.ident);
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
        // Calls of the function and its `jvp_` and `vjp_` go to their array versions (for a
        // method, `self.jvp_f(…)` and `Self::jvp_f(…)` too).
        super::rewrite_calls(&mut f.block, &mut |c| {
            let id = super::called(c, &|n| renamed.iter().any(|r| r == n))?;
            let array = names::array(id);
            let args = &c.args;
            Some(syn::parse_quote!(#array(#args)))
        });
        syn::visit_mut::VisitMut::visit_block_mut(&mut ArrayMethods(&renamed), &mut f.block);
        let array_version = (name.starts_with("jvp_") || name.starts_with("vjp_")).then(|| {
            // `jacobian_` calls the array versions of the wrappers.
            let mut a = f.clone();
            a.sig.ident = names::array(&a.sig.ident);
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
                let numbers = layout.flattened(&quote!(#pat));
                let read: Stmt = syn::parse_quote!(let #pat = #numbers;);
                f.block.stmts.insert(0, read);
            }
        }
        out.push(quote!(#f));
    }
    // (For a method, an associated const: callers read `Self::__DIFFX_PARTS_f`.)
    out.push(layout.starts_const(&function.vis, &function.sig.ident));
    Ok(quote!(#(#out)*))
}

/// Rewrites `self.g(…)` and `Self::g(…)` for `g` among the names into calls of `g`'s array
/// version, `__diffx_array_g`.
struct ArrayMethods<'a>(&'a [String]);

impl syn::visit_mut::VisitMut for ArrayMethods<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        let is_ours = |id: &syn::Ident| self.0.iter().any(|r| id == r);
        match e {
            Expr::MethodCall(m) if is_ours(&m.method) && is_self(&m.receiver) => {
                m.method = names::array(&m.method);
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &mut *c.func else { return };
                let segments = &mut p.path.segments;
                if segments.len() == 2 && segments[0].ident == "Self" && is_ours(&segments[1].ident)
                {
                    let id = &segments[1].ident;
                    segments[1].ident = names::array(id);
                }
            }
            _ => {}
        }
    }
}

fn is_self(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.path.is_ident("self"))
}

/// The parts of a tuple result: a number (`None`) or an array of that many numbers.
#[derive(Clone)]
pub struct Layout(pub Vec<Option<usize>>);

impl Layout {
    /// How many numbers the parts hold: the length of the array the pipeline differentiates.
    pub fn width(&self) -> usize {
        self.0.iter().map(|p| p.unwrap_or(1)).sum()
    }

    /// `__DIFFX_PARTS_f`: where each part starts in the array of the numbers, which a caller's
    /// `t.1[j]` reads as element `__DIFFX_PARTS_f[1] + j`.
    pub fn starts_const(&self, vis: &syn::Visibility, f: &syn::Ident) -> TokenStream {
        let name = names::parts(f);
        let (n, mut at) = (self.0.len(), 0);
        let starts = self.0.iter().map(|p| {
            let start = at;
            at += p.unwrap_or(1);
            start
        });
        quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals, dead_code)]
            #vis const #name: [usize; #n] = [#(#starts),*];
        }
    }

    /// Whether some part is an array.
    pub fn nested(&self) -> bool {
        self.0.iter().any(Option::is_some)
    }

    /// The tuple of `v`'s elements, parted: `(v[0], [v[1], v[2]])`.
    fn parts(&self, v: &syn::Ident) -> TokenStream {
        let mut at = 0;
        let parts = self.0.iter().map(|p| match p {
            None => {
                at += 1;
                let k = at - 1;
                quote!(#v[#k])
            }
            Some(n) => {
                let idx = at..at + n;
                at += n;
                quote!([#(#v[#idx]),*])
            }
        });
        quote!((#(#parts,)*))
    }

    /// The array of the numbers of the tuple `t`: `[t.0, t.1[0], t.1[1]]`.
    pub(crate) fn flattened(&self, t: &TokenStream) -> TokenStream {
        let elems = self.0.iter().enumerate().flat_map(|(i, p)| {
            let i = syn::Index::from(i);
            match p {
                None => vec![quote!(#t.#i)],
                Some(n) => (0..*n).map(|k| quote!(#t.#i[#k])).collect(),
            }
        });
        quote!([#(#elems),*])
    }
}

/// `e` (the function's body or a `return`'s value) with its tuple values written as arrays:
/// tails of blocks, arms and branches; false where a value is not a tuple written out.
pub fn tuples_to_arrays(e: &mut Expr, layout: &Layout) -> bool {
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
        Expr::Block(b) => block_tail(&mut b.block, layout),
        Expr::If(i) => {
            let Some((_, els)) = &mut i.else_branch else {
                return false;
            };
            block_tail(&mut i.then_branch, layout) && tuples_to_arrays(els, layout)
        }
        Expr::Match(m) => m
            .arms
            .iter_mut()
            .all(|a| tuples_to_arrays(&mut a.body, layout)),
        Expr::Paren(p) => tuples_to_arrays(&mut p.expr, layout),
        _ => false,
    }
}

/// The tail of `b` as an array; a block ending in `return` has none to write.
pub fn block_tail(b: &mut syn::Block, layout: &Layout) -> bool {
    match b.stmts.last_mut() {
        Some(Stmt::Expr(tail, None)) => tuples_to_arrays(tail, layout),
        _ => true,
    }
}
