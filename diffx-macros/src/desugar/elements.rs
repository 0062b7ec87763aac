//! An array (or a `Vec`, by `vec![…]`) assigned whole inside a loop or an arm (`s = [s[0] + h *
//! k[0], s[1] + h * k[1]];`), written element by element: lowering follows a vector's elements through loops and arms, not
//! a vector replaced there. Every element is read before any is written, as the array literal
//! would be.

use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr};

/// `block` with its arrays assigned whole inside loops and arms written by element.
pub fn spelled_out(mut block: Block) -> Block {
    Elements { nesting: 0 }.visit_block_mut(&mut block);
    block
}

struct Elements {
    /// How many loops and arms enclose the expression being visited.
    nesting: usize,
}

impl VisitMut for Elements {
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
            _ => return,
        };
        let temps: Vec<syn::Ident> = (0..values.len())
            .map(|i| quote::format_ident!("__diffx_elem{}", i))
            .collect();
        let at = 0..temps.len();
        *e = syn::parse_quote!({
            #check
            #(let #temps = #values;)*
            #(#left[#at] = #temps;)*
        });
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
