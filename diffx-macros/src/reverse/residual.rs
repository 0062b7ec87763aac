//! Rules with a residual ([`crate::rules::Residual`]): at top level, reverse mode's forward sweep
//! computes the result together with what its pullback needs.

use std::collections::HashMap;

use crate::builder::{map_op, Builder};
use crate::ir::{Atom, Kind, Op, Path, Stmt, Var};
use crate::rules::Rule;

/// A top-level operation computed with its [`Residual`]: the rule, its operands, and the local
/// `(z, r)` that the forward sweep bound.
#[derive(Clone)]
pub(super) struct Residue {
    pub(super) rule: &'static Rule,
    pub(super) args: Vec<Atom>,
    pub(super) pair: Var,
}

impl Residue {
    /// `r`, the residual: the pair's second part.
    pub(super) fn residual(&self) -> Atom {
        Atom::Field(self.pair, Path::part(1))
    }
}

/// The top-level operations of the forward sweep whose rule has a [`Residual`] compute it:
/// `let z_fwd = a.cross_entropy_with_grad(b); let z = z_fwd.0;`, and the backward sweep reads
/// `z_fwd.1`. (In loops and `if`s the residual would need a tape: they keep the plain operation.)
pub(super) fn with_residuals(
    b: &mut Builder,
    body: Vec<Stmt>,
) -> (Vec<Stmt>, HashMap<Var, Residue>) {
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
        let (op, forward) = map_op(residual.forward, args, *dst, &[]);
        out.push(Stmt::Let {
            dst: pair,
            op,
            args: forward,
            span: *span,
        });
        out.push(Stmt::Let {
            dst: *dst,
            op: Op::Id,
            args: vec![Atom::Field(pair, Path::part(0))],
            span: *span,
        });
        let (rule, args) = (*rule, args.clone());
        residues.insert(*dst, Residue { rule, args, pair });
    }
    (out, residues)
}
