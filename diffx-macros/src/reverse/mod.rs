//! Reverse mode: the list followed by its adjoint in reverse order.
//!
//! The forward sweep is the list itself, so every intermediate value stays in a local. The backward
//! sweep visits the statements from last to first and, for `z = op(a, b)`, adds `∂z/∂a·z̄` to `ā`
//! and `∂z/∂b·z̄` to `b̄` (for a linear map such as `matmul`, the transposed map of the table
//! applied to `z̄`). A value's adjoint is created by its first contribution and accumulated with
//! `+=` afterwards; tensor contributions are summed over the axes that broadcasting added. The
//! adjoint of a parameter struct starts unset: a field's first contribution is moved in where that
//! is sound (`fields.rs`), later ones are added, and fields that none reaches are zeros when it is
//! returned. A rule with a residual computes it in the forward sweep (`residual.rs`), and a value
//! the backward sweep reads only for its shape is not kept (`shapes.rs`).

use std::collections::HashMap;

use proc_macro2::{Ident, Span, TokenStream};
use quote::ToTokens;

use crate::builder::Builder;
use crate::ir::{Atom, Branch, ControlId, Index, Kind, LoopHead, Op, Path, Stmt, Var};
use crate::lower::partials;
use crate::rules::{Deriv, Rule};

mod cells;
mod fields;
mod pullbacks;
mod residual;
mod shapes;
mod tapes;

use cells::{carried, outer_reads};
pub use pullbacks::pair_calls;
use residual::{with_residuals, Residue};
use tapes::Tapes;

/// The adjoint program.
pub struct Reverse {
    pub b: Builder,
    /// The cotangent parameter (the seed `ȳ`).
    pub ct: Var,
    /// The adjoint of each differentiable parameter, if anything flows to it.
    pub grads: Vec<Option<Var>>,
    /// Where the backward sweep starts in the body: the statements before it are the forward sweep.
    pub backward: usize,
}

struct Sweep {
    b: Builder,
    adj: HashMap<Var, Var>,
    /// Places of parameter-struct adjoints contributed to so far (the base and the path), and the
    /// bases contributed to inside a loop or an `if`: see [`Sweep::first_into`].
    touched: Vec<(Var, Path)>,
    nested_bases: Vec<Var>,
    /// How many loops and `if`s enclose the statement being differentiated.
    depth: usize,
    /// The operations whose forward sweep computed a residual for their pullback.
    residuals: HashMap<Var, Residue>,
    /// The vectors written in each `if`'s arms (by its condition's name), as in [`Tapes`].
    if_marks: HashMap<ControlId, Vec<IfMark>>,
    /// The vectors written element by element (each has an undo log and an adjoint).
    vectors: Vec<Var>,
}

/// A vector written in an `if`'s arms, its undo log, and the local holding the log's length
/// before the `if`.
type IfMark = (Var, Ident, Ident);

/// `params`: the value of each parameter and the type of its gradient (`None` for constants).
pub fn transform(
    primal: &Builder,
    params: &[Option<(Var, TokenStream)>],
    ret_kind: Kind,
) -> syn::Result<Reverse> {
    let mut b = primal.clone();
    let mut tapes = Tapes {
        b: &mut b,
        logs: Vec::new(),
        filled: Vec::new(),
        if_marks: HashMap::new(),
    };
    let body = tapes.stmts(&primal.func.body);
    let (logs, if_marks, filled) = (tapes.logs, tapes.if_marks, tapes.filled);
    let (body, residuals) = with_residuals(&mut b, body);
    // The logs live for the whole function: the backward sweep pops what the forward sweep pushed.
    b.func.body = logs
        .iter()
        .map(|(_, l)| Stmt::Verbatim {
            binds: Vec::new(),
            tokens: quote::quote!(let mut #l = ::std::vec::Vec::new();),
        })
        .chain(body.iter().cloned())
        .collect();
    let ct = b.fresh("ct", ret_kind);
    // Everything from here on is the backward sweep.
    let backward = b.func.body.len();
    let mut sweep = Sweep {
        b,
        adj: HashMap::new(),
        touched: Vec::new(),
        nested_bases: Vec::new(),
        depth: 0,
        if_marks,
        residuals,
        vectors: logs.iter().map(|(v, _)| *v).collect(),
    };
    // Vectors returned by calls are read element by element: their adjoints are vectors too,
    // the cotangents of the calls.
    let call_vectors = returned_by_calls(&sweep.b.func, &body);
    sweep.vectors.extend(call_vectors.iter().copied());
    // A vector declared inside a loop or an `if` gets its adjoint where its body is recomputed.
    let nested = tapes::declared_in(&body)
        .difference(
            &body
                .iter()
                .filter_map(|s| match s {
                    Stmt::Let { dst, .. } => Some(*dst),
                    _ => None,
                })
                .collect(),
        )
        .copied()
        .collect::<std::collections::HashSet<Var>>();
    for (v, ty) in params.iter().flatten() {
        if matches!(primal.func.kind(*v), Kind::Other | Kind::Slice) {
            sweep.zeros(*v, ty.clone());
        }
    }
    for (vec, _) in logs.iter().filter(|(v, _)| !nested.contains(v)) {
        sweep.vector_adjoint(*vec);
    }
    for vec in call_vectors.iter().filter(|v| !nested.contains(v)) {
        sweep.vector_adjoint(*vec);
    }
    // Vectors only filled as they are made, written element by element all the same.
    let filled: Vec<Var> = filled
        .into_iter()
        .filter(|v| !sweep.vectors.contains(v))
        .collect();
    sweep.vectors.extend(filled.iter().copied());
    for vec in filled.iter().filter(|v| !nested.contains(v)) {
        sweep.vector_adjoint(*vec);
    }
    match &primal.func.ret {
        // A vector result's adjoint is written element by element: a copy of the cotangent.
        Some(Atom::Var(r)) if ret_kind == Kind::Slice => {
            let bar = sweep
                .b
                .fresh(&format!("{}_bar", sweep.b.func.name(*r)), Kind::Slice);
            sweep.b.push(Stmt::Adjoint {
                dst: bar,
                value: Atom::Var(ct),
                like: None,
            });
            sweep.adj.insert(*r, bar);
        }
        Some(Atom::Var(r)) => {
            sweep.adj.insert(*r, ct);
        }
        _ => {}
    }
    for s in body.iter().rev() {
        sweep.stmt(s)?;
    }
    for (v, ty) in params.iter().flatten() {
        if primal.func.kind(*v) != Kind::Scalar && !sweep.adj.contains_key(v) {
            sweep.zeros(*v, ty.clone());
        }
    }
    let backward = shapes::take_shapes(&mut sweep.b, backward);
    let grads = params
        .iter()
        .map(|p| p.as_ref().and_then(|(v, _)| sweep.adj.get(v).copied()))
        .collect();
    Ok(Reverse {
        b: sweep.b,
        ct,
        grads,
        backward,
    })
}

/// The vectors returned by calls in `body` (`let k1 = rhs(s, k);`, `k1[0]` read after).
fn returned_by_calls(f: &crate::ir::Func, body: &[Stmt]) -> Vec<Var> {
    let mut out = Vec::new();
    for s in body {
        s.walk(&mut |s| {
            if let Stmt::Let {
                dst,
                op: Op::Call(_),
                ..
            } = s
            {
                if f.kind(*dst) == Kind::Slice {
                    out.push(*dst);
                }
            }
        });
    }
    out
}

impl Sweep {
    /// `v̄ = 0` for a vector written element by element, shaped like it is now.
    fn vector_adjoint(&mut self, vec: Var) {
        let bar = (self.b).fresh(&format!("{}_bar", self.b.func.name(vec)), Kind::Slice);
        let value = crate::forward::zero(&self.b, &Atom::Var(vec));
        self.b.push(Stmt::Adjoint {
            dst: bar,
            value,
            like: None,
        });
        self.adj.insert(vec, bar);
    }

    /// The adjoints of the vectors `body` itself declares, after it is recomputed.
    fn local_vector_adjoints(&mut self, body: &[Stmt]) {
        for s in body {
            if let Stmt::Let { dst, .. } = s {
                if self.vectors.contains(dst) {
                    self.vector_adjoint(*dst);
                }
            }
        }
    }

    /// `v̄ = 0`, shaped like `v`.
    fn zeros(&mut self, v: Var, ty: TokenStream) {
        let name = format!("{}_bar", self.b.func.name(v));
        let bar = self.b.fresh(&name, self.b.func.kind(v));
        self.b.push(Stmt::Zeros {
            dst: bar,
            like: Atom::Var(v),
            ty,
        });
        self.adj.insert(v, bar);
    }

    /// `if`: the adjoint of each arm, run in the arm that ran (its condition is a kept local), after
    /// recomputing the arm's values; the adjoints of values from outside start out here.
    fn if_stmt(
        &mut self,
        id: ControlId,
        cond: &TokenStream,
        then_: &Branch,
        else_: &Branch,
        outs: &[Var],
        writes: bool,
    ) -> syn::Result<()> {
        let seeds: Vec<(usize, Var)> = outs
            .iter()
            .enumerate()
            .filter_map(|(i, o)| self.adj.get(o).map(|g| (i, *g)))
            .collect();
        if seeds.is_empty() && !writes {
            return Ok(());
        }
        self.outer_adjoints(&[then_, else_], &[]);
        let then_ = self.arm(then_, &seeds)?;
        let else_ = self.arm(else_, &seeds)?;
        self.b.push(Stmt::If {
            id,
            cond: cond.clone(),
            then_,
            else_,
            outs: Vec::new(),
        });
        Ok(())
    }

    fn arm(&mut self, branch: &Branch, seeds: &[(usize, Var)]) -> syn::Result<Branch> {
        let saved = self.adj.clone();
        let outer = std::mem::take(&mut self.b.func.body);
        self.b.func.body.extend(branch.body.iter().cloned());
        self.local_vector_adjoints(&branch.body);
        let mark = self.b.mark();
        let span = Span::call_site();
        for (i, g) in seeds {
            self.accumulate(&branch.yields[*i], Atom::Var(*g), span, mark);
        }
        let result = branch.body.iter().rev().try_for_each(|s| self.stmt(s));
        let body = std::mem::replace(&mut self.b.func.body, outer);
        self.adj = saved;
        result?;
        Ok(Branch {
            body,
            yields: Vec::new(),
        })
    }

    /// Values read in `arms` from outside get their adjoints out here (zero if nothing reached them).
    fn outer_adjoints(&mut self, arms: &[&Branch], also: &[Var]) {
        for v in outer_reads(arms).into_iter().chain(also.iter().copied()) {
            if !self.adj.contains_key(&v) {
                let bar = self
                    .b
                    .fresh(&format!("{}_bar", self.b.func.name(v)), self.b.func.kind(v));
                let value = crate::forward::zero(&self.b, &Atom::Var(v));
                self.b.push(Stmt::Adjoint {
                    dst: bar,
                    value,
                    like: None,
                });
                self.adj.insert(v, bar);
            }
        }
    }

    /// A loop: its iterations backwards, popping each one's entry state from the tape, recomputing
    /// its body, and running the body's adjoint with each cell's adjoint restarted at zero.
    fn loop_stmt(&mut self, s: &Stmt) -> syn::Result<()> {
        let Stmt::Loop {
            id,
            head,
            cells,
            active,
            body,
            tape: Some(tape),
            logs,
        } = s
        else {
            return Ok(());
        };
        // A loop reaches the result through its cells or through the vectors it writes.
        let reached = cells
            .iter()
            .enumerate()
            .any(|(i, c)| active[i] && self.adj.contains_key(c));
        if !reached && logs.is_empty() {
            return Ok(());
        }
        let active_cells: Vec<Var> = cells
            .iter()
            .copied()
            .enumerate()
            .filter(|(i, _)| active[*i])
            .map(|(_, c)| c)
            .collect();
        // A cell's adjoint is carried from one backward iteration to the one before if the result
        // reaches the cell after the loop, or through another such cell in a later iteration, even
        // if its own final value is not used: `p` in `for … { s += p.sin(); p = p * y; }`.
        let carried = carried(body, cells, active, &|c| self.adj.contains_key(&c));
        let live: Vec<(usize, Var)> = cells
            .iter()
            .copied()
            .enumerate()
            .filter(|(i, _)| carried[*i])
            .collect();
        // The cells' adjoints are reset in every backward iteration: give each its own variable
        // (the adjoint may be another value's, or the `ct` argument).
        for (_, c) in &live {
            let bar = self.b.fresh(
                &format!("{}_bar", self.b.func.name(*c)),
                self.b.func.kind(*c),
            );
            let value = self.adj.get(c).map_or_else(
                || crate::forward::zero(&self.b, &Atom::Var(*c)),
                |a| Atom::Var(*a),
            );
            self.b.push(Stmt::Adjoint {
                dst: bar,
                value,
                like: None,
            });
            self.adj.insert(*c, bar);
        }
        self.outer_adjoints(&[body], &active_cells);
        let saved = self.adj.clone();
        let outer = std::mem::take(&mut self.b.func.body);
        // Rewind the vectors to this iteration's start (their logs' lengths are on the tape), then
        // recompute the iteration, which writes (and logs) them again.
        let marks: Vec<Ident> = logs
            .iter()
            .map(|(_, l)| self.b.fresh_name(&format!("{l}_mark")))
            .collect();
        for ((vec, log), mark) in logs.iter().zip(&marks) {
            self.b.push(Stmt::Undo {
                vec: *vec,
                log: log.clone(),
                mark: Some(mark.clone()),
            });
        }
        self.b.func.body.extend(body.body.iter().cloned());
        self.local_vector_adjoints(&body.body);
        let (mark, span) = (self.b.mark(), Span::call_site());
        let mut seeds = Vec::new();
        for (i, c) in &live {
            let bar = self.adj[c];
            let g = self.b.op(Op::Id, vec![Atom::Var(bar)], span);
            let zero = crate::forward::zero(&self.b, &Atom::Var(*c));
            self.b.push(Stmt::Set {
                dst: bar,
                value: zero,
            });
            seeds.push((*i, g));
        }
        for (i, g) in seeds {
            self.accumulate(&body.yields[i], Atom::Var(g), span, mark);
        }
        let result = body.body.iter().rev().try_for_each(|s| self.stmt(s));
        let inner = std::mem::replace(&mut self.b.func.body, outer);
        self.adj = saved;
        result?;
        let mut names: Vec<TokenStream> = cells
            .iter()
            .map(|c| self.b.func.name(*c).to_token_stream())
            .collect();
        if let LoopHead::For { vars, .. } = head {
            names.extend(vars.iter().map(|v| v.to_token_stream()));
        }
        names.extend(marks.iter().map(|m| m.to_token_stream()));
        let cells = cells.iter().copied().zip(active.iter().copied()).collect();
        self.b.push(Stmt::LoopBack {
            id: *id,
            tape: tape.clone(),
            names,
            body: inner,
            cells,
        });
        Ok(())
    }

    /// `vec[i] = value`, backwards: the element's adjoint goes to `value` and restarts at zero, and
    /// the element gets its old value back from the log (if it has one: a write filling a vector
    /// just made has none).
    fn set_elem(
        &mut self,
        vec: Var,
        index: &Index,
        value: &Atom,
        log: Option<&Ident>,
    ) -> syn::Result<()> {
        let span = Span::call_site();
        let bar = self.adj[&vec];
        let mark = self.b.mark();
        let g = self.b.op(
            Op::Id,
            vec![Atom::Field(bar, Path::index(index.clone()))],
            span,
        );
        self.b.push(Stmt::SetElem {
            vec: bar,
            index: index.clone(),
            value: Atom::Const(quote::quote!(0.0)),
            log: None,
            init: false,
        });
        self.accumulate(value, Atom::Var(g), span, mark);
        if let Some(log) = log {
            self.b.push(Stmt::Undo {
                vec,
                log: log.clone(),
                mark: None,
            });
        }
        Ok(())
    }

    /// `vec.push(value)`, backwards: the last element of the vector's adjoint goes to `value`, and
    /// the push is undone.
    fn push(&mut self, vec: Var, value: &Atom, log: &Ident) -> syn::Result<()> {
        let bar = self.adj[&vec];
        let mark = self.b.mark();
        let g = self.b.temp(Kind::Scalar);
        self.b.push(Stmt::Pop { dst: g, vec: bar });
        self.accumulate(value, Atom::Var(g), Span::call_site(), mark);
        self.b.push(Stmt::Undo {
            vec,
            log: log.clone(),
            mark: None,
        });
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> syn::Result<()> {
        if let Stmt::If {
            id,
            cond,
            then_,
            else_,
            outs,
        } = s
        {
            let marks = self.if_marks.get(id).cloned();
            for (vec, log, mark) in marks.iter().flatten() {
                self.b.push(Stmt::Undo {
                    vec: *vec,
                    log: log.clone(),
                    mark: Some(mark.clone()),
                });
            }
            self.depth += 1;
            let done = self.if_stmt(*id, cond, then_, else_, outs, marks.is_some());
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
        let Some(&g) = self.adj.get(dst) else {
            return Ok(());
        };
        let mark = self.b.mark();
        if let Some(residue) = self.residuals.get(dst).cloned() {
            let residual = residue
                .rule
                .residual
                .as_ref()
                .expect("a rule with a residual");
            let r = ("r", residue.residual());
            for (a, vjp) in residue.args.iter().zip(residual.vjp) {
                if a.var().is_some() && !vjp.is_empty() {
                    let more = std::slice::from_ref(&r);
                    let c = self.transposed(vjp, a, &residue.args, *dst, g, more, *span);
                    self.accumulate(a, c, *span, mark);
                }
            }
            return Ok(());
        }
        match op {
            // Maps are written by the transforms; the lists reverse mode reverses have none.
            Op::Map { .. } => {}
            Op::Id => {
                if let Some(a) = args.first().filter(|a| a.var().is_some()) {
                    self.accumulate(a, Atom::Var(g), *span, mark);
                }
            }
            Op::Call(path) => {
                let grads: Vec<Option<Var>> = args
                    .iter()
                    .map(|a| a.var().map(|_| self.b.temp(self.b.func.atom_kind(a))))
                    .collect();
                let call = Stmt::CallVjp {
                    path: path.clone(),
                    args: args.clone(),
                    ct: g,
                    grads: grads.clone(),
                };
                self.b.push(call);
                for (a, gv) in args.iter().zip(grads) {
                    if let Some(gv) = gv {
                        self.accumulate(a, Atom::Var(gv), *span, mark);
                    }
                }
            }
            Op::Rule(rule) => {
                let mut contributions = self.contributions(rule, *dst, g, args, *span)?;
                // Accumulating into an existing adjoint borrows the contribution; a new adjoint
                // can take it over (`b̄ += z̄; ā = z̄` moves z̄ where `ā = z̄; b̄ += z̄` copies it).
                contributions.sort_by_key(|(a, _)| self.starts_adjoint(a));
                for (a, c) in contributions {
                    self.accumulate(&a, c, *span, mark);
                }
            }
        }
        Ok(())
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
    fn accumulate(&mut self, a: &Atom, c: Atom, span: Span, mark: usize) {
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
                let bar = self.b.fresh(
                    &format!("{}_bar", self.b.func.name(base)),
                    self.b.func.kind(base),
                );
                self.b.push(Stmt::Adjoint {
                    dst: bar,
                    value: Atom::Var(c),
                    like,
                });
                self.adj.insert(base, bar);
            }
            (Atom::Field(..), None) | (Atom::Const(_), _) => {}
        }
    }
}
