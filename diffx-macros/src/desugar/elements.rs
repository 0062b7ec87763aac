//! An array (or a `Vec`, by `vec![…]`) assigned whole inside a loop or an arm (`s = [s[0] + h *
//! k[0], s[1] + h * k[1]];`), written element by element: lowering follows a vector's elements through loops and arms, not
//! a vector replaced there. Every element is read before any is written, as the array literal
//! would be. So is a local array (or `Vec`) of known length assigned a call's result or another
//! local array there (`p = rotate(p, a);`, `p = q;`): the value is taken first, then copied in
//! element by element.

use std::collections::HashMap;

use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr};

use crate::names;
use crate::parse::Signature;

/// `block` with its arrays assigned whole inside loops and arms written by element.
pub fn spelled_out(mut block: Block, sig: &Signature) -> Block {
    // A parameter array's length is in its type: `let mut p = start;` has it too.
    let lengths = sig
        .params
        .iter()
        .filter_map(|p| match &p.ty {
            syn::Type::Array(a) => Some((p.name.to_string(), (literal(&a.len)?, false))),
            _ => None,
        })
        .collect();
    Elements {
        nesting: 0,
        lengths,
    }
    .visit_block_mut(&mut block);
    block
}

struct Elements {
    /// How many loops and arms enclose the expression being visited.
    nesting: usize,
    /// The local arrays and `Vec`s declared with a length written out (`[a, b]`, `[0.0; 3]`,
    /// `vec![a, b]`), and whether each is a `Vec`.
    lengths: HashMap<String, (usize, bool)>,
}

impl VisitMut for Elements {
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        visit_mut::visit_local_mut(self, local);
        let syn::Pat::Ident(p) = strip_type(&local.pat) else {
            return;
        };
        let name = p.ident.to_string();
        let copied = |e: &Expr| name_of(e).and_then(|n| self.lengths.get(&n).copied());
        match local
            .init
            .as_ref()
            .and_then(|i| length(&i.expr).or_else(|| copied(&i.expr)))
        {
            Some(n) => self.lengths.insert(name, n),
            None => self.lengths.remove(&name),
        };
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let nested = matches!(
            e,
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) | Expr::If(_) | Expr::Match(_)
        );
        self.nesting += usize::from(nested);
        visit_mut::visit_expr_mut(self, e);
        self.nesting -= usize::from(nested);
        if self.nesting == 0 {
            return;
        }
        let Expr::Assign(a) = e else { return };
        let left = &a.left;
        let (values, check) = match strip(&a.right) {
            Expr::Array(values) => (values.elems.iter().cloned().collect::<Vec<Expr>>(), None),
            Expr::Macro(m) => match vec_items(&m.mac) {
                // A `Vec` may change length, which its elements cannot follow: a loud stop.
                Some(items) => {
                    let n = items.len();
                    let at = syn::spanned::Spanned::span(&*a.left);
                    let check: syn::Stmt = syn::parse_quote_spanned!(at=>
                        ::core::assert!(
                            #left.len() == #n,
                            "#[autodiff]: a `Vec` replaced whole inside a loop or an arm keeps its length here ({} elements replaced by {})",
                            #left.len(),
                            #n
                        );
                    );
                    (items, Some(check))
                }
                None => return,
            },
            // A call's result, or another local array (`p = q;`).
            Expr::Call(_) | Expr::Path(_) => {
                let Some(&(n, is_vec)) = name_of(left).and_then(|l| self.lengths.get(&l)) else {
                    return;
                };
                *e = from_call(a, n, is_vec);
                return;
            }
            _ => return,
        };
        let temps: Vec<syn::Ident> = (0..values.len())
            .map(|i| names::numbered("elem", i))
            .collect();
        let at = 0..temps.len();
        *e = syn::parse_quote!({
            #check
            #(let #temps = #values;)*
            #(#left[#at] = #temps;)*
        });
    }
}

/// `left = f(…)` (or `left = other;`) for a local array or `Vec` of `n` elements: the value,
/// copied in.
fn from_call(a: &syn::ExprAssign, n: usize, is_vec: bool) -> Expr {
    let (left, right) = (&a.left, &a.right);
    let value = proc_macro2::Ident::new(names::VALUE, proc_macro2::Span::call_site());
    let at = syn::spanned::Spanned::span(&*a.left);
    let check: Option<syn::Stmt> = is_vec.then(|| {
        syn::parse_quote_spanned!(at=>
            ::core::assert!(
                #value.len() == #n,
                "#[autodiff]: a `Vec` replaced whole inside a loop or an arm keeps its length here ({} elements replaced by {})",
                #n,
                #value.len()
            );
        )
    });
    let idx = 0..n;
    syn::parse_quote!({
        let #value = #right;
        #check
        #(#left[#idx] = #value[#idx];)*
    })
}

/// The length of an array or `Vec` written out (`[a, b]`, `[0.0; 3]`, `vec![a, b]`,
/// `vec![0.0; 3]`), and whether it is a `Vec`.
fn length(e: &Expr) -> Option<(usize, bool)> {
    match strip(e) {
        Expr::Array(a) => Some((a.elems.len(), false)),
        Expr::Repeat(r) => Some((literal(&r.len)?, false)),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            if let Some(items) = vec_items(&m.mac) {
                return Some((items.len(), true));
            }
            let repeat: syn::ExprRepeat = syn::parse2(m.mac.tokens.clone()).ok().or_else(|| {
                let t = &m.mac.tokens;
                syn::parse2(quote::quote!([#t])).ok()
            })?;
            Some((literal(&repeat.len)?, true))
        }
        _ => None,
    }
}

/// The value of an integer literal (`3`, `3usize`).
fn literal(e: &Expr) -> Option<usize> {
    match strip(e) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse::<usize>().ok(),
        _ => None,
    }
}

fn name_of(e: &Expr) -> Option<String> {
    match strip(e) {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

fn strip_type(p: &syn::Pat) -> &syn::Pat {
    match p {
        syn::Pat::Type(t) => &t.pat,
        p => p,
    }
}

/// The items of `vec![a, b, …]` (not `vec![x; n]`).
fn vec_items(mac: &syn::Macro) -> Option<Vec<Expr>> {
    if !mac.path.is_ident("vec") {
        return None;
    }
    let items = mac
        .parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)
        .ok()?;
    Some(items.into_iter().collect())
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        e => e,
    }
}
