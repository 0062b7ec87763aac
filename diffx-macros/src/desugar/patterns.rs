//! Destructuring into plain `let`s: `let (a, b) = (x, y);`, `let [x1, x2] = *p;`, `|&v|`,
//! `|(i, v)|`. Lowering knows only `let name = value;`, so every pattern becomes one `let` per name
//! it binds, reading the matching part of the value (`p[0]`, `t.1`, `*r`).
//!
//! A value is an [`Elem`]: an expression, or a tuple known at compile time (a tuple literal, the
//! items of `zip` and `enumerate`), whose parts bind without a tuple ever being built.

use proc_macro2::Ident;
use quote::quote;
use syn::spanned::Spanned;
use syn::{Expr, Pat, Stmt, Type};

use crate::analyze::activity::names as bound_names;
use crate::names;

/// A value to bind: an expression, or a tuple of values known part by part.
#[derive(Clone)]
pub enum Elem {
    Expr(Expr),
    Tuple(Vec<Elem>),
}

impl Elem {
    /// `e`, split into parts where it is a tuple literal.
    pub fn of(e: Expr) -> Elem {
        match e {
            Expr::Tuple(t) if !t.elems.is_empty() => {
                Elem::Tuple(t.elems.into_iter().map(Elem::of).collect())
            }
            Expr::Paren(p) => Elem::of(*p.expr),
            e => Elem::Expr(e),
        }
    }

    /// The value as one expression (a tuple literal for a tuple).
    pub fn expr(&self) -> Expr {
        match self {
            Elem::Expr(e) => e.clone(),
            Elem::Tuple(parts) => {
                let parts = parts.iter().map(Elem::expr);
                syn::parse_quote!((#(#parts,)*))
            }
        }
    }

    fn mentions(&self, names: &[String]) -> bool {
        match self {
            Elem::Expr(e) => {
                crate::tokens::mentions(quote!(#e), &mut |id| names.iter().any(|n| id == n))
            }
            Elem::Tuple(parts) => parts.iter().any(|p| p.mentions(names)),
        }
    }
}

/// Fresh names for the parts of values that must be read more than once.
pub struct Temps<'a> {
    pub counter: &'a mut usize,
}

impl Temps<'_> {
    pub fn fresh(&mut self, what: &str) -> Ident {
        *self.counter += 1;
        names::numbered(what, *self.counter)
    }
}

/// The `let`s that bind `pat` to `value`, appended to `out`. Parts of a tuple that mention a name
/// the pattern binds are read into temporaries first, so `let (a, b) = (b, a);` swaps.
pub fn bind(
    pat: &Pat,
    value: Elem,
    ty: Option<&Type>,
    temps: &mut Temps,
    out: &mut Vec<Stmt>,
) -> syn::Result<()> {
    let value = match value {
        Elem::Tuple(parts) => Elem::Tuple(read_first(parts, &bound_names(pat), temps, out)),
        v => v,
    };
    bind_part(pat, value, ty, temps, out)
}

/// Each pattern bound to its value, as the parameters of a call are: all values are read
/// before any name is bound, where a value mentions one of the names.
pub fn bind_each(
    pats: &[Pat],
    values: Vec<Elem>,
    temps: &mut Temps,
    out: &mut Vec<Stmt>,
) -> syn::Result<()> {
    let bound: Vec<String> = pats.iter().flat_map(bound_names).collect();
    let values = read_first(values, &bound, temps, out);
    for (p, v) in pats.iter().zip(values) {
        bind(p, v, None, temps, out)?;
    }
    Ok(())
}

/// `values`, each read into a temporary first if one of them mentions a name in `bound`.
fn read_first(
    values: Vec<Elem>,
    bound: &[String],
    temps: &mut Temps,
    out: &mut Vec<Stmt>,
) -> Vec<Elem> {
    match values.len() > 1 && values.iter().any(|v| v.mentions(bound)) {
        true => values.into_iter().map(|v| spill(v, temps, out)).collect(),
        false => values,
    }
}

fn bind_part(
    pat: &Pat,
    value: Elem,
    ty: Option<&Type>,
    temps: &mut Temps,
    out: &mut Vec<Stmt>,
) -> syn::Result<()> {
    match pat {
        Pat::Ident(p) if p.subpat.is_none() => {
            let (name, mutability) = (&p.ident, &p.mutability);
            let e = value.expr();
            let e: Expr = match &p.by_ref {
                Some(_) => syn::parse_quote!(&#e),
                None => e,
            };
            let ty = ty.map(|t| quote!(: #t));
            out.push(syn::parse_quote_spanned!(p.span()=> let #mutability #name #ty = #e;));
            Ok(())
        }
        Pat::Wild(_) => {
            // `_` binds nothing; a value with possible effects still runs, as in Rust.
            if let Elem::Expr(e) = value {
                if !is_place(&e) {
                    let t = temps.fresh("unused");
                    out.push(syn::parse_quote!(let #t = #e;));
                }
            }
            Ok(())
        }
        Pat::Paren(p) => bind_part(&p.pat, value, ty, temps, out),
        Pat::Type(t) => bind_part(&t.pat, value, Some(&t.ty), temps, out),
        Pat::Reference(r) if r.mutability.is_none() => match value {
            Elem::Expr(Expr::Reference(e)) if e.mutability.is_none() => {
                bind_part(&r.pat, Elem::Expr(*e.expr), None, temps, out)
            }
            Elem::Expr(e) => bind_part(&r.pat, Elem::Expr(syn::parse_quote!(*#e)), None, temps, out),
            Elem::Tuple(_) => Err(syn::Error::new(r.span(), "this `&` pattern meets a tuple: remove the `&`")),
        },
        Pat::Tuple(t) => bind_tuple(t, value, temps, out),
        Pat::Slice(s) => bind_slice(s, value, temps, out),
        other => Err(syn::Error::new(
            other.span(),
            "`#[autodiff]` binds names, tuples `(a, b)`, arrays `[a, b]`, references `&a` and `_` here; \
             for other patterns write `let name = …;` and read its parts",
        )),
    }
}

/// Binds tuple pattern `t`'s parts to `value`'s, by position (`..` skips parts).
fn bind_tuple(
    t: &syn::PatTuple,
    value: Elem,
    temps: &mut Temps,
    out: &mut Vec<Stmt>,
) -> syn::Result<()> {
    let elems: Vec<&Pat> = t.elems.iter().collect();
    let rest = elems.iter().position(|p| is_rest(p));
    let rest_last = rest.is_none_or(|r| r + 1 == elems.len());
    let parts = match value {
        Elem::Tuple(parts) => parts,
        // `(a, b, ..)`: the parts before the rest, by position.
        Elem::Expr(e) if rest_last => {
            let base = once(e, temps, out);
            (0..elems.len() - usize::from(rest.is_some()))
                .map(|i| {
                    let i = syn::Index::from(i);
                    Elem::Expr(syn::parse_quote!(#base.#i))
                })
                .collect()
        }
        Elem::Expr(_) => {
            let at = rest.map_or(t.span(), |r| elems[r].span());
            return Err(syn::Error::new(at, "`..` before the last part of a tuple pattern needs the tuple's length, which `#[autodiff]` does not see here: name each part (`_` for those you skip)"));
        }
    };
    let enough = match rest {
        Some(_) => parts.len() + 1 >= elems.len(),
        None => parts.len() == elems.len(),
    };
    if !enough {
        return Err(syn::Error::new(
            t.span(),
            "this tuple pattern does not have as many parts as the value",
        ));
    }
    for (p, v) in aligned(&elems, parts, rest) {
        bind_part(p, v, None, temps, out)?;
    }
    Ok(())
}

/// Binds array pattern `s`'s elements to `value`'s, indexed from the front, from the back after
/// `..`, and `rest @ ..` to the subslice between.
fn bind_slice(
    s: &syn::PatSlice,
    value: Elem,
    temps: &mut Temps,
    out: &mut Vec<Stmt>,
) -> syn::Result<()> {
    let Elem::Expr(e) = value else {
        return Err(syn::Error::new(
            s.span(),
            "an array pattern needs an array value",
        ));
    };
    let base = once(strip_deref(e), temps, out);
    let elems: Vec<&Pat> = s.elems.iter().collect();
    let rest = elems.iter().position(|p| is_rest(p));
    let after = rest.map_or(0, |r| elems.len() - r - 1);
    for (i, p) in elems.iter().enumerate() {
        let value: Expr = match rest {
            // `rest @ ..`: the elements between, as a subslice.
            Some(r) if i == r => {
                let (from, to) = (syn::Index::from(r), syn::Index::from(after));
                syn::parse_quote!(&#base[#from..#base.len() - #to])
            }
            // After the rest: counted from the end.
            Some(r) if i > r => {
                let back = syn::Index::from(elems.len() - i);
                syn::parse_quote!(#base[#base.len() - #back])
            }
            _ => {
                let i = syn::Index::from(i);
                syn::parse_quote!(#base[#i])
            }
        };
        match p {
            Pat::Rest(_) => {}
            Pat::Ident(id) if id.subpat.is_some() => {
                let name = &id.ident;
                out.push(syn::parse_quote_spanned!(id.span()=> let #name = #value;));
            }
            p => bind_part(p, Elem::Expr(value), None, temps, out)?,
        }
    }
    Ok(())
}

/// `..` or `name @ ..`.
fn is_rest(p: &Pat) -> bool {
    match p {
        Pat::Rest(_) => true,
        Pat::Ident(i) => matches!(i.subpat.as_ref().map(|s| &*s.1), Some(Pat::Rest(_))),
        _ => false,
    }
}

/// Each pattern of a tuple pattern with its part: those after a `..` from the end.
fn aligned<'p>(pats: &[&'p Pat], parts: Vec<Elem>, rest: Option<usize>) -> Vec<(&'p Pat, Elem)> {
    let n = parts.len();
    let mut parts: Vec<Option<Elem>> = parts.into_iter().map(Some).collect();
    pats.iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != rest)
        .filter_map(|(i, p)| {
            let at = match rest {
                Some(r) if i > r => n - (pats.len() - i),
                _ => i,
            };
            parts.get_mut(at).and_then(Option::take).map(|v| (*p, v))
        })
        .collect()
}

/// A temporary holding `value` (a literal stays as it is).
fn spill(value: Elem, temps: &mut Temps, out: &mut Vec<Stmt>) -> Elem {
    match value {
        Elem::Expr(e @ Expr::Lit(_)) => Elem::Expr(e),
        Elem::Expr(e) => {
            let t = temps.fresh("part");
            out.push(syn::parse_quote!(let #t = #e;));
            Elem::Expr(syn::parse_quote!(#t))
        }
        Elem::Tuple(parts) => {
            Elem::Tuple(parts.into_iter().map(|p| spill(p, temps, out)).collect())
        }
    }
}

/// `e` to read several times: itself if it is a name, else a temporary holding it.
fn once(e: Expr, temps: &mut Temps, out: &mut Vec<Stmt>) -> Expr {
    match is_name(&e) {
        true => e,
        false => spill(Elem::Expr(e), temps, out).expr(),
    }
}

/// `e` without a leading `*` (indexing reaches through references by itself).
fn strip_deref(e: Expr) -> Expr {
    match e {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => strip_deref(*u.expr),
        Expr::Paren(p) => strip_deref(*p.expr),
        e => e,
    }
}

fn is_name(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.path.get_ident().is_some())
}

/// A place or constant, whose evaluation has no effect: reading it for `_` can be left out.
pub(super) fn is_place(e: &Expr) -> bool {
    match e {
        Expr::Path(_) | Expr::Lit(_) => true,
        Expr::Field(f) => is_place(&f.base),
        Expr::Index(i) => is_place(&i.expr),
        Expr::Reference(r) => is_place(&r.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => is_place(&u.expr),
        Expr::Paren(p) => is_place(&p.expr),
        _ => false,
    }
}

/// Whether `pat` is a plain name (`x`, `mut x`, `x: f64`): lowering binds it as it is.
pub fn is_plain(pat: &Pat) -> bool {
    match pat {
        Pat::Ident(p) => p.subpat.is_none() && p.by_ref.is_none(),
        Pat::Type(t) => is_plain(&t.pat),
        _ => false,
    }
}
