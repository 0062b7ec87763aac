//! Rules with a residual ([`crate::rules::Residual`]): at top level, reverse mode's forward sweep
//! computes the result together with what its pullback needs.

use std::collections::HashMap;

use crate::builder::Builder;
use crate::forward::operand_bindings;
use crate::ir::{Atom, Kind, Op, Stmt, Var};
use crate::lower::linear_map;
use crate::rules::Rule;

/// A top-level operation computed with its [`Residual`]: the rule, its operands, and the local
/// `(z, r)` that the forward sweep bound.
#[derive(Clone)]
pub(super) struct Residue {
    pub(super) rule: &'static Rule,
    pub(super) args: Vec<Atom>,
    pub(super) pair: Var,
}

/// The top-level operations of the forward sweep whose rule has a [`Residual`] compute it:
/// `let z_fwd = a.cross_entropy_with_grad(b); let z = z_fwd.0;`, and the backward sweep reads
/// `z_fwd.1`. (In loops and `if`s the residual would need a tape: they keep the plain operation.)
pub(super) fn with_residuals(
    b: &mut Builder,
    body: Vec<Stmt>,
) -> syn::Result<(Vec<Stmt>, HashMap<Var, Residue>)> {
    let mut out = Vec::with_capacity(body.len());
    let mut residues = HashMap::new();
    for s in body {
        let Stmt::Let {
            dst,
            op: Op::Rule(rule),
            args,
            span,
        } = &s
        else {
            out.push(s);
            continue;
        };
        let Some(residual) = rule.residual.as_ref().filter(|_| args[0].var().is_some()) else {
            out.push(s);
            continue;
        };
        let pair = b.fresh(&format!("{}_fwd", b.func.name(*dst)), Kind::Other);
        let bindings = operand_bindings(b, args, *dst);
        let forward = linear_map(residual.forward, &b.float, &bindings)?;
        let name = b.func.name(pair).clone();
        for (dst, op) in [(pair, forward), (*dst, quote::quote!(#name.0))] {
            out.push(Stmt::Let {
                dst,
                op: Op::Expr(op),
                args: Vec::new(),
                span: *span,
            });
        }
        let (rule, args) = (*rule, args.clone());
        residues.insert(*dst, Residue { rule, args, pair });
    }
    Ok((out, residues))
}
