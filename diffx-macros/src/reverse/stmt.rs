//! The backward sweep over one statement: for `z = op(a, b)`, the contribution of `z̄` to each
//! differentiable operand (`∂z/∂a·z̄`, or the transposed map of a linear operation applied to
//! `z̄`), accumulated into the operand's adjoint, which the first contribution creates.

use proc_macro2::Span;

use super::residual::Residue;
use super::Sweep;
use crate::ir::{Atom, Call, CallKind, Kind, Op, Stmt, Var};
use crate::lower::partials;
use crate::rules::{Deriv, Rule};

impl Sweep {
    /// The adjoint of `s`: written after those of the statements that follow it.
    pub(super) fn stmt(&mut self, s: &Stmt) -> syn::Result<()> {
        if let Stmt::If {
            id,
            cond,
            then_,
            else_,
            outs,
        } = s
        {
            let marks = self.if_marks.get(id).cloned();
            // (Recording, the arm is not run again: its writes are undone one by one.)
            let records = self.recording || self.recording_ifs.contains(id);
            let rewinds = marks.iter().flatten().filter(|_| !records);
            for (vec, log, mark) in rewinds {
                self.b.push(Stmt::Undo {
                    vec: *vec,
                    log: log.clone(),
                    mark: Some(mark.clone()),
                    at: None,
                });
            }
            self.depth += 1;
            let was_recording = std::mem::replace(&mut self.recording, records);
            let done = self.if_stmt(*id, cond, then_, else_, outs, marks.is_some());
            self.recording = was_recording;
            self.depth -= 1;
            return done;
        }
        if let Stmt::Loop { .. } = s {
            self.depth += 1;
            let done = self.loop_stmt(s);
            self.depth -= 1;
            return done;
        }
        if let Stmt::SetElem {
            vec,
            index,
            value,
            log,
            ..
        } = s
        {
            if log.is_some() || self.vectors.contains(vec) {
                return self.set_elem(*vec, index, value, log.as_ref());
            }
        }
        if let Stmt::Push {
            vec,
            value,
            log: Some(log),
        } = s
        {
            return self.push(*vec, value, log);
        }
        let Stmt::Let {
            dst,
            op,
            args,
            span,
        } = s
        else {
            return Ok(());
        };
        self.let_stmt(*dst, op, args, *span)
    }

    /// `dst = op(args)`, backwards: `dst`'s adjoint, if anything reached it, handed to the
    /// operands' adjoints.
    fn let_stmt(&mut self, dst: Var, op: &Op, args: &[Atom], span: Span) -> syn::Result<()> {
        let Some(&g) = self.adj.get(&dst) else {
            return Ok(());
        };
        let mark = self.b.mark();
        if let Some(residue) = self.residuals.get(&dst).cloned() {
            self.residual_adjoint(&residue, dst, g, span, mark);
            return Ok(());
        }
        match op {
            // Maps are written by the transforms; the lists reverse mode reverses have none.
            Op::Map { .. } | Op::Zeros(_) | Op::Fit | Op::Recall(_) => {}
            Op::Id => {
                if let Some(a) = args.first().filter(|a| a.var().is_some()) {
                    self.accumulate(a, Atom::Var(g), span, mark);
                }
            }
            Op::Call(path) => {
                let grads: Vec<Option<Var>> = args
                    .iter()
                    .map(|a| a.var().map(|_| self.b.temp(self.b.func.atom_kind(a))))
                    .collect();
                let call = Call::new(CallKind::Vjp(path.clone()), args.to_vec(), grads.clone());
                self.b.push(Stmt::Call(Call {
                    ct: Some(g),
                    into: vec![None; args.len()],
                    ..call
                }));
                for (a, gv) in args.iter().zip(grads) {
                    if let Some(gv) = gv {
                        self.accumulate(a, Atom::Var(gv), span, mark);
                    }
                }
            }
            // The part's adjoint is the cotangent's part; the base's, the rest of the cotangent.
            Op::SetPart(path) => {
                if args[1].var().is_some() {
                    self.accumulate(&args[1], Atom::Field(g, path.clone()), span, mark);
                }
                if let Some(base) = args[0].var() {
                    let part = Atom::Field(base, path.clone());
                    let zero = crate::forward::zero(&self.b, &part);
                    let rest = vec![Atom::Var(g), zero];
                    let rest = self.b.op_of_kind(op.clone(), rest, span, Kind::Other);
                    self.accumulate(&args[0], Atom::Var(rest), span, mark);
                }
            }
            Op::Rule(rule) => {
                let mut contributions = self.contributions(rule, dst, g, args, span)?;
                // Accumulating into an existing adjoint borrows the contribution; a new adjoint
                // can take it over (`b̄ += z̄; ā = z̄` moves z̄ where `ā = z̄; b̄ += z̄` copies it).
                contributions.sort_by_key(|(a, _)| self.starts_adjoint(a));
                for (a, c) in contributions {
                    self.accumulate(&a, c, span, mark);
                }
            }
        }
        Ok(())
    }

    /// The adjoint of a rule whose forward sweep computed a residual: each operand's transposed
    /// map, which reads the residual `r`.
    fn residual_adjoint(&mut self, residue: &Residue, dst: Var, g: Var, span: Span, mark: usize) {
        let residual = residue
            .rule
            .residual
            .as_ref()
            .expect("a rule with a residual");
        let r = ("r", residue.residual());
        for (a, vjp) in residue.args.iter().zip(residual.vjp) {
            if a.var().is_some() && !vjp.is_empty() {
                let more = std::slice::from_ref(&r);
                let c = self.transposed(vjp, a, &residue.args, dst, g, more, span);
                self.accumulate(a, c, span, mark);
            }
        }
    }

    /// `(aᵢ, ∂z/∂aᵢ·z̄)` (or the transposed map of aᵢ applied to z̄) for each differentiable operand.
    fn contributions(
        &mut self,
        rule: &Rule,
        dst: Var,
        g: Var,
        args: &[Atom],
        span: Span,
    ) -> syn::Result<Vec<(Atom, Atom)>> {
        let mut out = Vec::new();
        match &rule.deriv {
            Deriv::Partials(_) => {
                let needed: Vec<bool> = args.iter().map(|a| a.var().is_some()).collect();
                let parts = partials(&mut self.b, rule, args, &Atom::Var(dst), &needed)?;
                // `x * x`: one contribution with the partials summed, not two into one adjoint.
                let mut merged: Vec<(Atom, Atom)> = Vec::new();
                for (a, p) in args.iter().zip(parts) {
                    let Some(p) = p else { continue };
                    match merged.iter_mut().find(|(m, _)| m.same(a)) {
                        Some((_, sum)) => *sum = self.b.rule("add", vec![sum.clone(), p], span),
                        None => merged.push((a.clone(), p)),
                    }
                }
                for (a, p) in merged {
                    out.push((a, self.b.mul(Atom::Var(g), p, span)));
                }
            }
            Deriv::Linear(maps) => {
                for (a, (_, vjp)) in args.iter().zip(maps.iter()) {
                    if a.var().is_none() || vjp.is_empty() {
                        continue;
                    }
                    let c = self.transposed(vjp, a, args, dst, g, &[], span);
                    out.push((a.clone(), c));
                }
            }
        }
        Ok(out)
    }

    /// The contribution to operand `a` of `dst = op(args)`: the transposed map `vjp` applied to
    /// `dst`'s cotangent `g`, with the operands, `z` and `more` bound.
    #[allow(clippy::too_many_arguments)]
    fn transposed(
        &mut self,
        vjp: &'static str,
        a: &Atom,
        args: &[Atom],
        dst: Var,
        g: Var,
        more: &[(&'static str, Atom)],
        span: Span,
    ) -> Atom {
        let mut more = more.to_vec();
        more.push(("g", Atom::Var(g)));
        let kind = self.b.func.atom_kind(a);
        Atom::Var(self.b.map(vjp, args, dst, &more, span, kind))
    }

    /// Whether a contribution to `a` would create its adjoint rather than add to one.
    fn starts_adjoint(&self, a: &Atom) -> bool {
        matches!(a, Atom::Var(v) if !self.adj.contains_key(v))
    }

    /// `ā += c`; the first contribution creates `ā` (values from `mark` on are this step's own).
    pub(super) fn accumulate(&mut self, a: &Atom, c: Atom, span: Span, mark: usize) {
        let Some(base) = a.var() else { return };
        let c = match c {
            Atom::Var(v) => v,
            other => self.b.op(Op::Id, vec![other], span),
        };
        let scalar =
            self.b.func.atom_kind(a) == Kind::Scalar && self.b.func.kind(c) == Kind::Scalar;
        // (Vectors are added element by element: nothing is broadcast.)
        let vector = self.b.func.atom_kind(a) == Kind::Slice;
        let like = (!scalar && !vector).then(|| a.clone());
        // A part of a value read by place with no adjoint yet (a value of the user's type a call
        // returned, or its copy in a loop's backward sweep): the adjoint starts at zero here, as
        // a parameter struct's starts before the sweep. (Constants are never read by place.)
        if matches!(a, Atom::Field(..))
            && self.b.func.kind(base) == Kind::Other
            && !self.adj.contains_key(&base)
        {
            self.zeros(base, quote::quote!(_));
        }
        match (a, self.adj.get(&base).copied()) {
            (Atom::Field(..), Some(bar)) | (Atom::Var(_), Some(bar)) => {
                let first = self.first_into(a);
                self.b.push(Stmt::Accum {
                    dst: a.rebase(bar),
                    value: c,
                    like,
                    first,
                });
            }
            (Atom::Var(_), None) if scalar && c.0 >= mark => {
                self.b.rename(c, &format!("{}_bar", self.b.func.name(base)));
                self.adj.insert(base, c);
            }
            (Atom::Var(_), None) => {
                // A copy, not an alias: `ā` may be accumulated into later.
                let bar = self.fresh_adjoint(base);
                self.b.adjoint(bar, Atom::Var(c), like);
                self.adj.insert(base, bar);
            }
            (Atom::Field(..), None) | (Atom::Const(_), _) => {}
        }
    }
}
