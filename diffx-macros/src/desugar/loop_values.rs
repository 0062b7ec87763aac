//! Values given by `loop`s (`let v = loop { … break x; … };`), written as assignments where the
//! loop breaks, before `flow.rs` turns the loops into `while`s.

use proc_macro2::Ident;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Stmt};

use super::flow::ident;
use crate::names;

/// `let v = loop { … break x; … };` as `let v; loop { … { v = x; break; } … }`: a `let` without
/// value, which `desugar/arms.rs` gives a placeholder, assigned where the loop breaks. So are
/// `v = loop { … };` and a `loop` giving a block its value.
pub fn loop_values(mut block: Block) -> Block {
    LoopValues.visit_block_mut(&mut block);
    block
}

struct LoopValues;

impl VisitMut for LoopValues {
    fn visit_block_mut(&mut self, b: &mut Block) {
        syn::visit_mut::visit_block_mut(self, b);
        // A `loop` whose breaks give no value has none: `()`, a statement.
        if let Some(Stmt::Expr(Expr::Loop(l), semi @ None)) = b.stmts.last_mut() {
            if breaks(l) == Some(false) {
                *semi = Some(Default::default());
            }
        }
        // A block's value given by a `loop`: bound to a local first.
        if let Some(Stmt::Expr(Expr::Loop(l), None)) = b.stmts.last() {
            let value = ident(names::LOOP_VALUE);
            let l = l.clone();
            b.stmts.pop();
            b.stmts.push(syn::parse_quote!(let #value = #l;));
            b.stmts.push(Stmt::Expr(syn::parse_quote!(#value), None));
        }
        let mut out = Vec::with_capacity(b.stmts.len());
        for s in b.stmts.drain(..) {
            match (loop_value(&s), loop_assigned(&s)) {
                (Some([declared, looped]), _) => out.extend([declared, looped]),
                (None, Some(looped)) => out.push(looped),
                (None, None) => out.push(s),
            }
        }
        b.stmts = out;
    }
}

/// `v = loop { … };` as the loop assigning `v` where it breaks.
fn loop_assigned(s: &Stmt) -> Option<Stmt> {
    let Stmt::Expr(Expr::Assign(a), Some(_)) = s else {
        return None;
    };
    let (Expr::Path(p), Expr::Loop(l)) = (&*a.left, &*a.right) else {
        return None;
    };
    let name = p.path.get_ident()?;
    Some(breaking_into(l, name))
}

/// The loop `l` with each `break x` that leaves it written `{ name = x; break; }`.
fn breaking_into(l: &syn::ExprLoop, name: &Ident) -> Stmt {
    let mut l = l.clone();
    let own = l.label.as_ref().map(|l| l.name.ident.to_string());
    BreakValues {
        name,
        own,
        depth: 0,
    }
    .visit_block_mut(&mut l.body);
    syn::parse_quote!(#l;)
}

/// `let v = loop { … };` (`v` a name, maybe typed) as the declaration and the loop.
fn loop_value(s: &Stmt) -> Option<[Stmt; 2]> {
    let Stmt::Local(local) = s else { return None };
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    let Expr::Loop(l) = &*init.expr else {
        return None;
    };
    let name = match &local.pat {
        syn::Pat::Ident(p) => &p.ident,
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(p) => &p.ident,
            _ => return None,
        },
        _ => return None,
    };
    let pat = &local.pat;
    Some([syn::parse_quote!(let #pat;), breaking_into(l, name)])
}

/// Whether some `break` that leaves `l` gives it a value (`None`: no `break` leaves it, as in a
/// loop left by `return` alone).
fn breaks(l: &syn::ExprLoop) -> Option<bool> {
    struct Breaks {
        own: Option<String>,
        depth: usize,
        found: Option<bool>,
    }
    impl VisitMut for Breaks {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            if matches!(e, Expr::Closure(_)) {
                return;
            }
            let nested = matches!(e, Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_));
            self.depth += usize::from(nested);
            syn::visit_mut::visit_expr_mut(self, e);
            self.depth -= usize::from(nested);
            if let Expr::Break(b) = e {
                let ours = match &b.label {
                    None => self.depth == 0,
                    Some(l) => self.own.as_deref() == Some(l.ident.to_string().as_str()),
                };
                if ours {
                    self.found = Some(self.found.unwrap_or(false) || b.expr.is_some());
                }
            }
        }
    }
    let own = l.label.as_ref().map(|l| l.name.ident.to_string());
    let mut v = Breaks {
        own,
        depth: 0,
        found: None,
    };
    // (On a copy: syn's read-only visitor is a feature the macro does not build.)
    v.visit_block_mut(&mut l.body.clone());
    v.found
}

/// Rewrites the `break x` that leave the loop of `name` into `{ name = x; break; }`.
struct BreakValues<'a> {
    name: &'a Ident,
    own: Option<String>,
    /// Loops nested in it: an unlabelled `break` there is theirs.
    depth: usize,
}

impl VisitMut for BreakValues<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let nested = matches!(e, Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_));
        if matches!(e, Expr::Closure(_)) {
            return;
        }
        self.depth += usize::from(nested);
        syn::visit_mut::visit_expr_mut(self, e);
        self.depth -= usize::from(nested);
        let Expr::Break(b) = e else { return };
        let ours = match &b.label {
            None => self.depth == 0,
            Some(l) => self.own.as_deref() == Some(l.ident.to_string().as_str()),
        };
        if let (true, Some(v)) = (ours, b.expr.take()) {
            let (name, label) = (self.name, &b.label);
            *e = syn::parse_quote_spanned!(v.span()=> { #name = #v; break #label; });
        }
    }
}
