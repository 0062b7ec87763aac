//! A call of a function with a `&mut` output (`rhs(&y, k, &mut dy);`) as the assignment of what
//! its version returning the output gives (`dy = __diffx_returning_rhs(&y, k, dy.clone());`),
//! whose derivative functions take the output by value and return it (`adapt/outputs.rs`).

use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Stmt};

/// `block` with its calls of functions with a `&mut` output written as assignments.
pub fn assigned(mut block: syn::Block) -> syn::Block {
    OutputCalls.visit_block_mut(&mut block);
    block
}

struct OutputCalls;

impl VisitMut for OutputCalls {
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        if let Stmt::Expr(Expr::Call(c), Some(semi)) = s {
            if let Some(assigned) = as_assignment(c) {
                *s = Stmt::Expr(assigned, Some(*semi));
                return;
            }
        }
        visit_mut::visit_stmt_mut(self, s);
    }
}

/// `out = __diffx_returning_f(args…, out)` for `f(args…, &mut out)`, with one `&mut` of a name
/// among the arguments and `f` a path.
fn as_assignment(c: &syn::ExprCall) -> Option<Expr> {
    let Expr::Path(path) = &*c.func else {
        return None;
    };
    let outputs: Vec<(usize, &syn::Ident)> = c
        .args
        .iter()
        .enumerate()
        .filter_map(|(i, a)| match a {
            Expr::Reference(r) if r.mutability.is_some() => match &*r.expr {
                Expr::Path(p) => p.path.get_ident().map(|id| (i, id)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let [(at, out)] = outputs.as_slice() else {
        return None;
    };
    let mut path = path.clone();
    let last = path.path.segments.last_mut()?;
    last.ident = crate::names::returning(&last.ident);
    let mut call = c.clone();
    *call.func = Expr::Path(path);
    // (A copy: derivative code hands the arguments to the callee's forward and backward sweeps.)
    call.args[*at] = syn::parse_quote!(#out.clone());
    Some(syn::parse_quote!(#out = #call))
}
