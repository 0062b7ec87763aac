//! Reverse mode: the list followed by its adjoint in reverse order.
//!
//! The forward sweep is the list itself, so every intermediate value stays in a local. The backward
//! sweep visits the statements from last to first and, for `z = op(a, b)`, adds `∂z/∂a·z̄` to `ā`
//! and `∂z/∂b·z̄` to `b̄`, the partials taken from the rule table. A value's adjoint is created by
//! its first contribution and accumulated with `+=` afterwards.

use std::collections::HashMap;

use proc_macro2::Span;

use crate::builder::Builder;
use crate::ir::{Atom, Op, Stmt, Var};
use crate::lower::partials;

/// The adjoint program.
pub struct Reverse {
    pub b: Builder,
    /// The cotangent parameter (the seed `ȳ`).
    pub ct: Var,
    /// The adjoint of each differentiable parameter, if anything flows to it.
    pub grads: Vec<Option<Var>>,
}

struct Sweep {
    b: Builder,
    adj: HashMap<Var, Var>,
}

pub fn transform(primal: &Builder, params: &[Option<Var>]) -> syn::Result<Reverse> {
    let mut b = primal.clone();
    let ct = b.fresh("ct");
    let mut sweep = Sweep {
        b,
        adj: HashMap::new(),
    };
    if let Some(Atom::Var(r)) = &primal.func.ret {
        sweep.adj.insert(*r, ct);
    }
    for s in primal.func.body.iter().rev() {
        sweep.stmt(s)?;
    }
    let grads = params
        .iter()
        .map(|p| p.and_then(|v| sweep.adj.get(&v).copied()))
        .collect();
    Ok(Reverse {
        b: sweep.b,
        ct,
        grads,
    })
}

impl Sweep {
    fn stmt(&mut self, s: &Stmt) -> syn::Result<()> {
        let Stmt::Let {
            dst,
            op,
            args,
            span,
        } = s
        else {
            return Ok(());
        };
        let Some(&g) = self.adj.get(dst) else {
            return Ok(());
        };
        let mark = self.b.mark();
        match op {
            Op::Id => {
                if let Some(a) = args[0].var() {
                    self.accumulate(a, Atom::Var(g), *span, mark);
                }
            }
            Op::Call(path) => {
                let grads: Vec<Option<Var>> = args
                    .iter()
                    .map(|a| a.var().map(|_| self.b.temp()))
                    .collect();
                let call = Stmt::CallVjp {
                    path: path.clone(),
                    args: args.clone(),
                    ct: g,
                    grads: grads.clone(),
                };
                self.b.push(call);
                for (a, gv) in args.iter().zip(grads) {
                    if let (Some(a), Some(gv)) = (a.var(), gv) {
                        self.accumulate(a, Atom::Var(gv), *span, mark);
                    }
                }
            }
            Op::Rule(rule) => {
                let parts = partials(&mut self.b, rule, args, &Atom::Var(*dst))?;
                for (a, p) in args.iter().zip(parts) {
                    if let (Some(a), Some(p)) = (a.var(), p) {
                        let contribution = self.b.mul(Atom::Var(g), p, *span);
                        self.accumulate(a, contribution, *span, mark);
                    }
                }
            }
        }
        Ok(())
    }

    /// `ā += c`; the first contribution creates `ā` (values from `mark` on are this step's own).
    fn accumulate(&mut self, a: Var, c: Atom, span: Span, mark: usize) {
        match (self.adj.get(&a).copied(), c) {
            (Some(bar), Atom::Var(value)) => self.b.push(Stmt::Accum { dst: bar, value }),
            (Some(bar), c @ Atom::Const(_)) => {
                let value = self.b.op(Op::Id, vec![c], span);
                self.b.push(Stmt::Accum { dst: bar, value });
            }
            (None, Atom::Var(c)) if c.0 >= mark => {
                self.b.rename(c, &format!("{}_bar", self.b.func.name(a)));
                self.adj.insert(a, c);
            }
            (None, c) => {
                // A copy, not an alias: `ā` may be accumulated into later.
                let bar = self.b.fresh(&format!("{}_bar", self.b.func.name(a)));
                self.b.push(Stmt::Let {
                    dst: bar,
                    op: Op::Id,
                    args: vec![c],
                    span,
                });
                self.adj.insert(a, bar);
            }
        }
    }
}
