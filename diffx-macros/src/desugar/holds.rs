//! Whether code holds one of some identifiers, as its tokens would: read from syn's tree, where
//! writing the code out as tokens to walk them cost more than the pass that asks. Only the tokens
//! syn keeps unread (a macro's, an attribute's, what it could not parse) are walked as tokens.

use proc_macro2::TokenStream;
use syn::visit::{self, Visit};
use syn::{Block, Expr};

use crate::tokens;

/// Whether statement `s` holds one of `names`, or the keyword `return`, `break` or `continue`
/// where `names` has it.
pub(super) fn stmt(s: &syn::Stmt, names: &[&str]) -> bool {
    let mut h = Holds {
        names,
        found: false,
    };
    h.visit_stmt(s);
    h.found
}

/// [`stmt`] of a block.
pub(super) fn block(b: &Block, names: &[&str]) -> bool {
    let mut h = Holds {
        names,
        found: false,
    };
    h.visit_block(b);
    h.found
}

struct Holds<'n> {
    names: &'n [&'n str],
    found: bool,
}

impl Holds<'_> {
    fn tokens(&mut self, tokens: &TokenStream) {
        self.found |= tokens::find_ident(tokens.clone(), self.names).is_some();
    }
}

impl<'ast> Visit<'ast> for Holds<'_> {
    fn visit_ident(&mut self, id: &'ast proc_macro2::Ident) {
        if !self.found {
            let id = id.to_string();
            self.found = self.names.contains(&id.as_str());
        }
    }
    // (A keyword is no identifier of syn's tree: `return`, `break` and `continue` are asked for
    // by their expressions.)
    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        self.found |= self.names.contains(&"return");
        visit::visit_expr_return(self, r);
    }
    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        self.found |= self.names.contains(&"break");
        visit::visit_expr_break(self, b);
    }
    fn visit_expr_continue(&mut self, c: &'ast syn::ExprContinue) {
        self.found |= self.names.contains(&"continue");
        visit::visit_expr_continue(self, c);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(&m.tokens);
        visit::visit_macro(self, m);
    }
    fn visit_meta_list(&mut self, m: &'ast syn::MetaList) {
        self.tokens(&m.tokens);
        visit::visit_meta_list(self, m);
    }
    fn visit_expr(&mut self, e: &'ast Expr) {
        if let Expr::Verbatim(t) = e {
            self.tokens(t);
        }
        visit::visit_expr(self, e);
    }
    fn visit_item(&mut self, i: &'ast syn::Item) {
        if let syn::Item::Verbatim(t) = i {
            self.tokens(t);
        }
        visit::visit_item(self, i);
    }
    fn visit_pat(&mut self, p: &'ast syn::Pat) {
        if let syn::Pat::Verbatim(t) = p {
            self.tokens(t);
        }
        visit::visit_pat(self, p);
    }
    fn visit_type(&mut self, t: &'ast syn::Type) {
        if let syn::Type::Verbatim(v) = t {
            self.tokens(v);
        }
        visit::visit_type(self, t);
    }
    fn visit_type_param_bound(&mut self, b: &'ast syn::TypeParamBound) {
        if let syn::TypeParamBound::Verbatim(t) = b {
            self.tokens(t);
        }
        visit::visit_type_param_bound(self, b);
    }
    fn visit_impl_item(&mut self, i: &'ast syn::ImplItem) {
        if let syn::ImplItem::Verbatim(t) = i {
            self.tokens(t);
        }
        visit::visit_impl_item(self, i);
    }
    fn visit_trait_item(&mut self, i: &'ast syn::TraitItem) {
        if let syn::TraitItem::Verbatim(t) = i {
            self.tokens(t);
        }
        visit::visit_trait_item(self, i);
    }
    fn visit_foreign_item(&mut self, i: &'ast syn::ForeignItem) {
        if let syn::ForeignItem::Verbatim(t) = i {
            self.tokens(t);
        }
        visit::visit_foreign_item(self, i);
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn holds(body: proc_macro2::TokenStream, names: &[&str]) -> bool {
        super::block(&syn::parse2(body).unwrap(), names)
    }

    #[test]
    fn finds_names_as_the_tokens_hold_them() {
        let conversions = ["into", "to_f64", "from_f64", "from"];
        assert!(holds(
            quote!({
                let y: f64 = x.into();
                y
            }),
            &conversions
        ));
        assert!(holds(
            quote!({ T::from_f64(0.5).unwrap() * x }),
            &conversions
        ));
        assert!(holds(
            quote!({
                println!("{}", f64::from(x));
                x
            }),
            &conversions
        ));
        assert!(!holds(
            quote!({
                let into_x = x * 2.0;
                into_x
            }),
            &conversions
        ));
        assert!(holds(
            quote!({
                if x > 0.0 {
                    return x;
                }
                -x
            }),
            &["return"]
        ));
        assert!(holds(
            quote!({
                let g = || {
                    return 1.0;
                };
                x
            }),
            &["return"]
        ));
        assert!(holds(
            quote!({
                assert!(x > 0.0, "{}", { return 0.0 });
                x
            }),
            &["return"]
        ));
        assert!(!holds(
            quote!({
                let r#return = x;
                r#return
            }),
            &["return"]
        ));
        let jumps = ["break", "continue"];
        let stops = quote!({
            for i in 0..n {
                if x > 1.0 {
                    break;
                }
            }
            x
        });
        assert!(holds(stops, &jumps));
        assert!(holds(
            quote!({
                'a: for i in 0..n {
                    continue 'a;
                }
                x
            }),
            &jumps
        ));
        assert!(!holds(
            quote!({
                let breaks = x;
                breaks
            }),
            &jumps
        ));
    }
}
