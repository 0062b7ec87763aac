//! Lowering of control flow: `if`/`else` and loops.
//!
//! An arm of an `if` or the body of a loop is lowered into a list of its own. Every name an arm
//! rebinds becomes an output of the `if`; every name a loop body reassigns becomes a *cell*, a
//! mutable local that the body's values are written back to at the end of each iteration.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::Ident;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::Expr;

use super::messages::err;
use super::Lowerer;
use crate::ir::{
    operands, Atom, Branch, Index, Kind, LoopHead, LoopIter, Op, Path, Step, Stmt, Var,
};
use crate::names;

/// A lowered arm: its statements, its value, and every visible name's value at its end.
type Arm = (Vec<Stmt>, Option<Atom>, Vec<(String, Atom)>);

impl Lowerer<'_> {
    /// Every visible name with its current value.
    fn visible(&self) -> Vec<(String, Atom)> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for (n, a) in self.scopes.iter().rev().flat_map(|s| s.iter().rev()) {
            if seen.insert(n.clone()) {
                out.push((n.clone(), a.clone()));
            }
        }
        out
    }

    /// Lowers one arm of an `if` into a list of its own; returns it, its value and the names then.
    fn branch(
        &mut self,
        f: impl FnOnce(&mut Self) -> syn::Result<Option<Atom>>,
    ) -> syn::Result<Arm> {
        let outer = std::mem::take(&mut self.b.func.body);
        self.nesting += 1;
        let local_from = std::mem::replace(&mut self.local_from, self.scopes.len());
        let value = f(self);
        self.local_from = local_from;
        self.nesting -= 1;
        let body = std::mem::replace(&mut self.b.func.body, outer);
        Ok((body, value?, self.visible()))
    }

    /// `if c { … } else { … }`: the condition is kept in a local (the backward sweep takes the same
    /// arm), each arm is lowered into a list of its own, and every name an arm rebinds, with the
    /// value of the `if` when `want_value`, becomes an output of the statement.
    pub(super) fn if_expr(&mut self, e: &syn::ExprIf, want_value: bool) -> syn::Result<Atom> {
        // An arm writing differentiable values into a constant vector makes it differentiable:
        // then the vector becomes one before the `if` (or before the construct around it that
        // declares it), and the `if` is lowered again.
        let (len, before) = (self.b.func.body.len(), self.visible());
        let pending = std::mem::take(&mut self.pending);
        let result = self.if_once(e, want_value);
        let found = std::mem::replace(&mut self.pending, pending);
        let here = self.settle_pending(found);
        if here.is_empty() {
            return result;
        }
        self.b.func.body.truncate(len);
        self.restore(&before);
        self.activate_vectors(&here, &here, e.span());
        self.if_once(e, want_value)
    }

    /// Of the constant vectors a construct found written with differentiable values, those
    /// declared here (returned: the construct is lowered again with them made differentiable
    /// before it); the others are left for an enclosing construct.
    fn settle_pending(&mut self, found: Vec<String>) -> BTreeSet<String> {
        let mut here = BTreeSet::new();
        for n in found {
            if !matches!(self.lookup(&n), Some(Atom::Const(_))) {
                continue;
            }
            if self.declared_here(&n) {
                here.insert(n);
            } else if !self.pending.contains(&n) {
                self.pending.push(n);
            }
        }
        here
    }

    fn if_once(&mut self, e: &syn::ExprIf, want_value: bool) -> syn::Result<Atom> {
        let expr = self.constant(&e.cond);
        let cond = self.b.fresh_name("cond");
        self.b.push(Stmt::Const {
            name: cond.clone(),
            mutable: false,
            ty: None,
            expr,
        });
        let before = self.visible();
        self.arm_depth += 1;
        let arms = self.if_arms(e, want_value, &before);
        self.arm_depth -= 1;
        let ((then_body, then_value, then_env), (else_body, else_value, else_env)) = arms?;
        let key = |a: &Atom| operands::place(&self.b.func, a).to_string();
        let find = |env: &[(String, Atom)], n: &str| {
            env.iter().find(|(m, _)| m == n).map(|(_, a)| a.clone())
        };
        let mut names = Vec::new();
        let (mut then_yields, mut else_yields) = (Vec::new(), Vec::new());
        for (n, old) in &before {
            let (t, f) = (
                find(&then_env, n).unwrap_or(old.clone()),
                find(&else_env, n).unwrap_or(old.clone()),
            );
            if key(&t) != key(old) || key(&f) != key(old) {
                names.push(n.clone());
                then_yields.push(self.replayable(n, &t, e.span()));
                else_yields.push(self.replayable(n, &f, e.span()));
            }
        }
        // `()` (an arm ending in a unit `if`) is no value.
        let unit =
            |v: Option<Atom>| v.filter(|a| !matches!(a, Atom::Const(t) if t.to_string() == "()"));
        let (then_value, else_value) = (unit(then_value), unit(else_value));
        // An arm that stopped early (`return` inside it) has a placeholder that nothing reads.
        let never = |v: &Atom| matches!(v, Atom::Const(t) if t.to_string() == names::NEVER);
        let fill = |l: &Self, v: &Option<Atom>, other: &Option<Atom>| match v {
            Some(a) if never(a) => other.as_ref().filter(|o| !never(o)).map(|o| {
                Atom::Const(match l.b.func.atom_kind(o) {
                    Kind::Scalar => quote!(0.0),
                    _ => quote!(::core::default::Default::default()),
                })
            }),
            _ => v.clone(),
        };
        let (then_value, else_value) = (
            fill(self, &then_value, &else_value),
            fill(self, &else_value, &then_value),
        );
        // An `if` ending a block with unit arms is a statement, whatever its position.
        let want_value = want_value && (then_value.is_some() || else_value.is_some());
        if want_value {
            let missing = || {
                syn::Error::new(
                    e.span(),
                    "this `if` or `match` is used as a value, but an arm has none (an arm that ends in `return`, `break` or `continue` has no value here): assign the value to a variable in each arm and use the variable after it",
                )
            };
            then_yields.push(then_value.ok_or_else(missing)?);
            else_yields.push(else_value.ok_or_else(missing)?);
        }
        let outs: Vec<Var> = then_yields
            .iter()
            .zip(&else_yields)
            .enumerate()
            .map(|(i, (t, f))| {
                let kind = self.b.func.atom_kind(t).join(self.b.func.atom_kind(f));
                let base = names
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| "if_value".to_string());
                let v = self.b.fresh(&base, kind);
                self.b.rename_user(v, &base);
                v
            })
            .collect();
        let constant: Vec<bool> = then_yields
            .iter()
            .zip(&else_yields)
            .map(|(t, f)| t.var().is_none() && f.var().is_none())
            .collect();
        let then_ = Branch {
            body: then_body,
            yields: then_yields,
        };
        let else_ = Branch {
            body: else_body,
            yields: else_yields,
        };
        let id = self.b.control_id();
        self.b.push(Stmt::If {
            id,
            cond: cond.into_token_stream(),
            then_,
            else_,
            outs: outs.clone(),
        });
        // A name that no arm makes differentiable (a counter) stays a plain local.
        let atom = |l: &Self, i: usize, o: Var| {
            if constant[i] {
                Atom::Const(l.b.func.name(o).to_token_stream())
            } else {
                Atom::Var(o)
            }
        };
        for (i, (n, o)) in names.iter().zip(&outs).enumerate() {
            let a = atom(self, i, *o);
            self.rebind(n, a);
            // (A constant changed in place after the `if` is changed in a binding of its own.)
            if constant[i] && self.mutable_consts.contains(n) && self.changed_in_place.contains(n) {
                let held = self.b.user_name(n);
                let out = self.b.func.name(*o).clone();
                self.b.push(Stmt::Const {
                    name: held.clone(),
                    mutable: true,
                    ty: None,
                    expr: out.into_token_stream(),
                });
                self.rebind(n, Atom::Const(held.into_token_stream()));
            }
        }
        Ok(match (want_value, outs.last()) {
            (true, Some(v)) => atom(self, outs.len() - 1, *v),
            _ => Atom::Const(quote!(())),
        })
    }

    fn restore(&mut self, before: &[(String, Atom)]) {
        for (n, a) in before {
            self.rebind(n, a.clone());
        }
    }

    /// Both arms of an `if`, each lowered from the names as they were before it.
    fn if_arms(
        &mut self,
        e: &syn::ExprIf,
        want_value: bool,
        before: &[(String, Atom)],
    ) -> syn::Result<(Arm, Arm)> {
        // A constant an arm changes in place (`stack.pop()`) is changed in a copy in each arm,
        // which the `if` gives out: the backward sweep recomputes the arm that ran from the value
        // before it (in a loop, twice: with the iteration, and for the arm's adjoint).
        let changed: Vec<(String, proc_macro2::Span)> =
            crate::tokens::method_receivers(e.to_token_stream())
                .into_iter()
                .filter(|(n, _)| {
                    self.mutable_consts.contains(n)
                        && before.iter().any(|(m, a)| m == n && a.var().is_none())
                })
                .collect();
        let then_arm = self.branch(|l| {
            l.copies(&changed);
            l.block(&e.then_branch.stmts, want_value)
        })?;
        self.restore(before);
        let else_arm = match e.else_branch.as_ref().map(|(_, e)| &**e) {
            Some(Expr::If(inner)) => self.branch(|l| {
                l.copies(&changed);
                l.if_expr(inner, want_value).map(Some)
            })?,
            Some(Expr::Block(b)) => self.branch(|l| {
                l.copies(&changed);
                l.block(&b.block.stmts, want_value)
            })?,
            Some(other) => return err(other.span(), "write the `else` arm as a block"),
            None if changed.is_empty() => (Vec::new(), None, before.to_vec()),
            None => self.branch(|l| {
                l.copies(&changed);
                Ok(None)
            })?,
        };
        self.restore(before);
        Ok((then_arm, else_arm))
    }

    /// `a`, the value of `n`, as a cell's start or an arm's yield: a copy where `n` is a constant
    /// changed in place (the backward sweep recomputes the code that reads it, and reads it again).
    /// Spanned at `at`, where a type without `Clone` is reported.
    fn replayable(&self, n: &str, a: &Atom, at: proc_macro2::Span) -> Atom {
        match a {
            Atom::Const(c)
                if self.mutable_consts.contains(n) && self.changed_in_place.contains(n) =>
            {
                let c = crate::tokens::respan(c.clone(), at);
                Atom::Const(quote::quote_spanned!(at=> ::diffx::__private::replayed(&#c)))
            }
            a => a.clone(),
        }
    }

    /// `let mut n_1 = replayed(&n);` for each constant `n` changed in place, `n` bound to the copy.
    fn copies(&mut self, changed: &[(String, proc_macro2::Span)]) {
        for (n, at) in changed {
            let Some(Atom::Const(current)) = self.lookup(n).cloned() else {
                continue;
            };
            let copy = self.b.user_name(n);
            let current = crate::tokens::respan(current, *at);
            self.b.push(Stmt::Const {
                name: copy.clone(),
                mutable: true,
                ty: None,
                expr: quote::quote_spanned!(*at=> ::diffx::__private::replayed(&#current)),
            });
            self.rebind(n, Atom::Const(copy.into_token_stream()));
        }
    }

    /// `for`/`while`: the names the body reassigns become cells. A cell whose value comes to depend
    /// on the inputs inside the body carries derivatives; finding that out may take another pass.
    pub(super) fn loop_stmt(&mut self, e: &Expr) -> syn::Result<()> {
        // (Labels are gone: `desugar/flow.rs` made every jump a flag.)
        let body = match e {
            Expr::ForLoop(f) => &f.body,
            Expr::While(w) => &w.body,
            _ => {
                return err(
                    e.span(),
                    "`loop` needs `break`, which is not supported yet: write a `while` loop",
                )
            }
        };
        // Even in code that is kept as written: a `break` would also leave the backward loop.
        if let Some(kw) = crate::tokens::find_ident(body.to_token_stream(), &["break", "continue"])
        {
            return err(
                kw.span(),
                format!(
                    "`{kw}` is not supported in loops yet: put the condition in the loop's `while`"
                ),
            );
        }
        if let Some(item) = body.stmts.iter().find(|s| matches!(s, syn::Stmt::Item(_))) {
            return err(
                item.span(),
                "items (`fn`, `const`, `struct`, …) cannot be declared inside a loop here: move the declaration before the loop",
            );
        }
        let assigned = crate::tokens::assigned(body.to_token_stream());
        // A `let mut` constant the body calls a method on may change (`stack.pop()`): a cell too,
        // while it is a constant (a vector the body pushes differentiable values onto becomes a
        // differentiable vector instead, whose writes are logged).
        let receivers = crate::tokens::method_receivers(body.to_token_stream());
        let changed: BTreeSet<String> = receivers
            .into_keys()
            .filter(|n| self.mutable_consts.contains(n) && !assigned.contains(n))
            .collect();
        let written = crate::tokens::element_written(body.to_token_stream());
        let carried_now = |l: &Self, active: &BTreeSet<String>| -> Vec<(String, Atom)> {
            l.visible()
                .into_iter()
                .filter(|(n, _)| {
                    assigned.contains(n)
                        || (changed.contains(n) && !(written.contains(n) && active.contains(n)))
                })
                .collect()
        };
        let mut active: BTreeSet<String> = carried_now(self, &BTreeSet::new())
            .iter()
            .filter(|(_, a)| a.var().is_some())
            .map(|(n, _)| n.clone())
            .collect();
        // What each cell holds, as the previous pass found it: a cell that starts as a constant
        // (`let mut h = x.clone()`) may hold a tensor that carries derivatives.
        let mut kinds = HashMap::new();
        loop {
            let carried = carried_now(self, &active);
            let (len, before) = (self.b.func.body.len(), self.visible());
            let pending = std::mem::take(&mut self.pending);
            let result = self.lower_loop(e, body, &carried, &active, &written, &mut kinds);
            // Vectors this body (or a loop inside it) found written with differentiable values.
            let found = std::mem::replace(&mut self.pending, pending);
            let mut newly = result?;
            let here = self.settle_pending(found);
            newly.extend(here.into_iter().filter(|n| !active.contains(n)));
            if newly.is_empty() {
                return Ok(());
            }
            self.b.func.body.truncate(len);
            self.restore(&before);
            active.extend(newly);
        }
    }

    /// Makes the constant vectors in `written ∩ active` differentiable before a loop (or asks the
    /// enclosing loop to, when this one is nested).
    fn activate_vectors(
        &mut self,
        written: &BTreeSet<String>,
        active: &BTreeSet<String>,
        span: proc_macro2::Span,
    ) {
        for n in written.iter().filter(|n| active.contains(*n)) {
            let Some(Atom::Const(c)) = self.lookup(n).cloned() else {
                continue;
            };
            if !self.declared_here(n) {
                if !self.pending.contains(n) {
                    self.pending.push(n.clone());
                }
                continue;
            }
            self.type_declaration(n);
            let v = self
                .b
                .op_of_kind(Op::Id, vec![Atom::Const(c)], span, crate::ir::Kind::Slice);
            self.b.rename_user(v, n);
            self.vectors.insert(v);
            self.rebind(n, Atom::Var(v));
        }
    }

    /// One pass over a loop with the cells in `active` carrying derivatives; returns the cells found
    /// to need derivatives too (the loop is kept only if there are none).
    fn lower_loop(
        &mut self,
        e: &Expr,
        body: &syn::Block,
        carried: &[(String, Atom)],
        active: &BTreeSet<String>,
        written: &BTreeSet<String>,
        kinds: &mut HashMap<String, Kind>,
    ) -> syn::Result<Vec<String>> {
        self.activate_vectors(written, active, e.span());
        let receivers = crate::tokens::method_receivers(body.to_token_stream());
        let mut cells = Vec::new();
        for (n, init) in carried {
            let at = receivers.get(n).copied().unwrap_or_else(|| e.span());
            let init = self.replayable(n, init, at);
            let cell = match kinds.get(n) {
                Some(&kind) => (self.b).op_of_kind(Op::Id, vec![init], e.span(), kind),
                None => self.b.op(Op::Id, vec![init], e.span()),
            };
            self.b.rename_user(cell, n);
            cells.push((cell, active.contains(n)));
            self.rebind(n, self.cell_atom(cell, active.contains(n)));
        }
        let (mut head, bindings) = self.loop_head(e)?;
        // `__diffx_exit_if!(brk)` from desugaring: checked before each iteration of a `for`.
        let (exit, stmts_of_body) = match body.stmts.first() {
            Some(syn::Stmt::Macro(m))
                if m.mac
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == names::EXIT_IF) =>
            {
                let cond: Expr = m.mac.parse_body()?;
                (Some(self.constant(&cond)), &body.stmts[1..])
            }
            _ => (None, &body.stmts[..]),
        };
        if let LoopHead::For { exit: e, .. } = &mut head {
            *e = exit;
        }
        // A constant the body changes in place (`stack.pop()`) is changed in a copy made at the
        // start of each iteration, which the iteration writes back: the cell keeps the value the
        // iteration started from, which the backward sweep recomputes the body from.
        let in_place: Vec<(String, proc_macro2::Span)> = carried
            .iter()
            .zip(&cells)
            .filter(|((n, _), (_, is_active))| !is_active && self.mutable_consts.contains(n))
            .filter_map(|((n, _), _)| Some((n.clone(), *receivers.get(n)?)))
            .collect();
        self.loop_depth += 1;
        let lowered = self.branch(|l| {
            l.scopes.push(bindings);
            // (Spanned at the change: a type without `Clone` is reported there.)
            l.copies(&in_place);
            let r = l.block(stmts_of_body, false);
            l.scopes.pop();
            r
        });
        self.loop_depth -= 1;
        let (stmts, _, env) = lowered?;
        let yields: Vec<Atom> = carried
            .iter()
            .map(|(n, _)| {
                env.iter()
                    .find(|(m, _)| m == n)
                    .map(|(_, a)| a.clone())
                    .expect("still visible")
            })
            .collect();
        for ((n, _), y) in carried.iter().zip(&yields) {
            if y.var().is_some() {
                kinds.insert(n.clone(), self.b.func.atom_kind(y));
            }
        }
        let newly: Vec<String> = carried
            .iter()
            .zip(&yields)
            .filter(|((n, _), y)| !active.contains(n) && y.var().is_some())
            .map(|((n, _), _)| n.clone())
            .collect();
        if newly.is_empty() {
            for ((n, _), (cell, is_active)) in carried.iter().zip(&cells) {
                self.rebind(n, self.cell_atom(*cell, *is_active));
            }
            let (cells, active) = cells.into_iter().unzip();
            let body = Branch {
                body: stmts,
                yields,
            };
            let id = self.b.control_id();
            self.b.push(Stmt::Loop {
                id,
                head,
                cells,
                active,
                body,
                tape: None,
                logs: Vec::new(),
            });
        }
        Ok(newly)
    }

    /// A cell as the user's name sees it: a value that carries derivatives, or a plain local.
    fn cell_atom(&self, cell: Var, active: bool) -> Atom {
        if active {
            Atom::Var(cell)
        } else {
            Atom::Const(self.b.func.name(cell).to_token_stream())
        }
    }

    /// The loop's head and what its pattern binds in the body.
    fn loop_head(&mut self, e: &Expr) -> syn::Result<(LoopHead, Vec<(String, Atom)>)> {
        match e {
            Expr::ForLoop(f) if self.mentions_active(&f.expr) => self.element_loop(f),
            Expr::ForLoop(f) => {
                let vars = pattern_names(&f.pat)?;
                let bindings = vars
                    .iter()
                    .map(|v| (v.to_string(), Atom::Const(v.to_token_stream())))
                    .collect();
                let head = LoopHead::For {
                    pat: f.pat.to_token_stream(),
                    iter: LoopIter::new(&f.expr, self.constant(&f.expr)),
                    vars,
                    exit: None,
                };
                Ok((head, bindings))
            }
            // (`while let` is a `loop` by now: `desugar/options.rs`.)
            Expr::While(w) => Ok((
                LoopHead::While {
                    cond: self.constant(&w.cond),
                },
                Vec::new(),
            )),
            _ => err(e.span(), "expected a `for` or `while` loop"),
        }
    }

    /// `for &xi in x` (or `x.iter()`, `&x`) over a differentiable slice, `for row in rows` over a
    /// sequence of rows, or `for layer in &model.layers` (or `.iter().enumerate()` with `(i,
    /// layer)`) over a `Vec` field of a parameter struct: a loop over the indices, the element
    /// standing for the place `x[i]`.
    fn element_loop(
        &mut self,
        f: &syn::ExprForLoop,
    ) -> syn::Result<(LoopHead, Vec<(String, Atom)>)> {
        let refuse = || {
            err(
                f.expr.span(),
                "a loop over differentiable values is not supported here: loop over a slice parameter (`for &xi in x`), a `Vec` field of a parameter struct (`for layer in &model.layers`, `for (i, layer) in model.layers.iter().enumerate()`) or indices (`for i in 0..n`)",
            )
        };
        let (iter, enumerate) = iterated(&f.expr);
        // (A local vector that is written changes under the loop: loop over its indices instead.)
        let (base, path) = match self.expr(iter) {
            Ok(Atom::Var(v))
                if self.b.func.kind(v) == Kind::Slice && !self.vectors.contains(&v) =>
            {
                (v, Path::default())
            }
            Ok(Atom::Field(v, path)) if self.b.func.kind(v) == Kind::Other => (v, path),
            // A parameter that is a sequence of rows (`&[[f64; 2]]`, `Vec<Vec<f64>>`).
            Ok(Atom::Var(v))
                if self.b.func.kind(v) == Kind::Other && !self.vectors.contains(&v) =>
            {
                (v, Path::default())
            }
            _ => return refuse(),
        };
        let Some((index_name, name)) = element_names(&f.pat, enumerate)? else {
            return refuse();
        };
        let i = self.b.fresh_name("i");
        let x = operands::place(&self.b.func, &Atom::Field(base, path.clone()));
        let head = LoopHead::For {
            pat: i.to_token_stream(),
            iter: LoopIter::Range {
                tokens: quote!(0..#x.len()),
                bounded: true,
            },
            vars: vec![i.clone()],
            exit: None,
        };
        let element = match &*f.pat {
            syn::Pat::Tuple(t) if enumerate => t.elems.last(),
            pat => Some(pat),
        };
        if matches!(element, Some(syn::Pat::Reference(_))) {
            self.refs.remove(&name);
        } else {
            self.refs.insert(name.clone());
        }
        let index = Index::Expr(i.to_token_stream());
        let mut bindings = vec![
            (i.to_string(), Atom::Const(i.to_token_stream())),
            (name, Atom::Field(base, path.then(Step::Index(index)))),
        ];
        bindings.extend(index_name.map(|n| (n, Atom::Const(i.to_token_stream()))));
        Ok((head, bindings))
    }

    /// `match` on an integer or `bool`: an `if` chain on `matches!` of the scrutinee (kept in a
    /// local), the last arm its `else` (rustc has checked the original match is exhaustive).
    pub(super) fn match_expr(&mut self, m: &syn::ExprMatch, want_value: bool) -> syn::Result<Atom> {
        // The scrutinee only decides the arm (`match x > y { true => … }`); a name bound to a
        // differentiable scrutinee would lose its derivative.
        let binds_name = m.arms.iter().any(|a| matches!(&a.pat, syn::Pat::Ident(_)));
        if binds_name && self.mentions_active(&m.expr) {
            return err(m.expr.span(), "a `match` arm that names a differentiable scrutinee is not supported: compare it in an `if`/`else` chain");
        }
        let Some((last, rest)) = m.arms.split_last() else {
            return err(m.span(), "this `match` has no arms");
        };
        for arm in &m.arms {
            let plain_name = matches!(&arm.pat, syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() && p.mutability.is_none());
            if !plain_name && binds(&arm.pat) {
                return err(arm.pat.span(), "patterns that bind names are not supported here: match on literals, ranges and `_`");
            }
        }
        let scrutinee = self.b.fresh_name("scrutinee");
        let expr = self.constant(&m.expr);
        self.b.push(Stmt::Const {
            name: scrutinee.clone(),
            mutable: false,
            ty: None,
            expr,
        });
        // A plain name (`m if m > 100 =>`) is the scrutinee itself.
        let body = |arm: &syn::Arm| {
            let b = &arm.body;
            match &arm.pat {
                syn::Pat::Ident(p) => {
                    let name = &p.ident;
                    quote!({ let #name = #scrutinee; #b })
                }
                _ => quote!({ #b }),
            }
        };
        let mut chain = body(last);
        for arm in rest.iter().rev() {
            let (pat, then) = (&arm.pat, body(arm));
            let guard = arm.guard.as_ref().map(|(_, g)| quote!(if #g));
            // Spanned at the arm: an error about the `if` it becomes is reported there.
            chain = quote::quote_spanned!(arm.pat.span()=> if ::core::matches!(#scrutinee, #pat #guard) #then else #chain);
        }
        match syn::parse2::<Expr>(chain)? {
            Expr::If(chain) => self.if_expr(&chain, want_value),
            Expr::Block(b) if want_value => self.block_expr(&b.block),
            Expr::Block(b) => {
                self.block(&b.block.stmts, false)?;
                Ok(Atom::Const(quote!(())))
            }
            other => err(other.span(), "could not read this `match`"),
        }
    }
}

/// Whether a pattern binds a name (`x`, `Some(x)`, `n @ 1..=3`), as opposed to literals, ranges,
/// paths (`Mode::Fast`) and `_`.
fn binds(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Ident(_) => true,
        syn::Pat::Or(o) => o.cases.iter().any(binds),
        syn::Pat::Paren(p) => binds(&p.pat),
        syn::Pat::Lit(_) | syn::Pat::Range(_) | syn::Pat::Wild(_) | syn::Pat::Path(_) => false,
        _ => true,
    }
}

/// The names a loop pattern binds: `i`, `&x`, `_`.
fn pattern_names(pat: &syn::Pat) -> syn::Result<Vec<Ident>> {
    match pat {
        syn::Pat::Ident(p) if p.subpat.is_none() => Ok(vec![p.ident.clone()]),
        syn::Pat::Reference(r) => pattern_names(&r.pat),
        syn::Pat::Wild(_) => Ok(Vec::new()),
        other => err(
            other.span(),
            "loop over a simple name here: `for i in …` or `for &x in …`",
        ),
    }
}

impl Lowerer<'_> {
    /// `v[i] = x` (or `v[i] += x`) into a local vector: a write the list records, once the vector
    /// carries derivatives; a write of a constant into a constant vector stays as written.
    pub(super) fn element_write(
        &mut self,
        target: &syn::ExprIndex,
        rhs: &Expr,
        op: Option<&'static crate::rules::Rule>,
        e: &Expr,
    ) -> syn::Result<()> {
        let name = match &*target.expr {
            Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let Some(name) = name else {
            return err(
                target.expr.span(),
                "write elements of a local vector by its name: `v[i] = …`; for a field, copy it into a local first (`let mut w = p.w.clone();`)",
            );
        };
        if self.mentions_active(&target.index) {
            return err(
                target.index.span(),
                "an index must not depend on differentiable values: index with an integer",
            );
        }
        let index = Index::new(&target.index, self.constant(&target.index));
        let base = self.lookup(&name).cloned();
        let mut value = self.expr(rhs)?;
        if let Some(rule) = op {
            let old = match &base {
                Some(Atom::Var(v)) if self.vectors.contains(v) => Atom::Var(self.b.op(
                    Op::Id,
                    vec![Atom::Field(*v, Path::index(index.clone()))],
                    e.span(),
                )),
                _ => Atom::Const(self.constant(target)),
            };
            value = match (&old, &value) {
                (Atom::Const(l), Atom::Const(r)) => {
                    let o = rule.operator();
                    Atom::Const(quote!(#l #o #r))
                }
                _ => Atom::Var(self.b.op(Op::Rule(rule), vec![old, value], e.span())),
            };
        }
        let Some(vec) = self.written_vector(name, base, &value, e, target.span())? else {
            return Ok(());
        };
        self.b.push(Stmt::SetElem {
            vec,
            index,
            value,
            log: None,
            init: false,
        });
        Ok(())
    }

    /// `v.push(x)` onto a local `Vec`: a push the list records, once the vector carries
    /// derivatives; a constant pushed onto a constant vector stays as written.
    pub(super) fn push(&mut self, m: &syn::ExprMethodCall, e: &Expr) -> syn::Result<()> {
        let name = match &*m.receiver {
            Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let args: Vec<&Expr> = m.args.iter().collect();
        let (Some(name), [arg]) = (name, args.as_slice()) else {
            return err(
                m.receiver.span(),
                "push onto a local `Vec` by its name: `v.push(x)`",
            );
        };
        let base = self.lookup(&name).cloned();
        let value = self.expr(arg)?;
        let Some(vec) = self.written_vector(name, base, &value, e, m.receiver.span())? else {
            return Ok(());
        };
        self.b.push(Stmt::Push {
            vec,
            value,
            log: None,
        });
        Ok(())
    }

    /// `let mut v = Vec::new();` (or `Vec::with_capacity(n)`, `vec![]`), declared in the list being
    /// built, as a `Vec` of the float type: the derivative code copies it before any push tells
    /// its element type.
    fn type_declaration(&mut self, name: &str) {
        let float = self.b.float.clone();
        let declared = self.b.func.body.iter_mut().rev().find_map(|s| match s {
            Stmt::Const {
                name: n, ty, expr, ..
            } if n == name => Some((ty, expr)),
            _ => None,
        });
        if let Some((ty @ None, expr)) = declared {
            if empty_vec(expr) {
                *ty = Some(syn::parse_quote!(::std::vec::Vec<#float>));
            }
        }
    }

    /// The vector a write (`v[i] = x`, `v.push(x)`) goes into, made differentiable by it if `value`
    /// is; `None` where the write is kept as written (`e`) or waits for the construct around it.
    fn written_vector(
        &mut self,
        name: String,
        base: Option<Atom>,
        value: &Atom,
        e: &Expr,
        target: proc_macro2::Span,
    ) -> syn::Result<Option<Var>> {
        Ok(Some(match base {
            Some(Atom::Var(v)) if self.vectors.contains(&v) => v,
            Some(Atom::Const(_)) if value.var().is_none() && !self.float_vectors.contains(&name) => {
                self.verbatim(quote!(#e;));
                return Ok(None);
            }
            // A vector declared in this arm or body (or at top level) becomes differentiable here.
            Some(Atom::Const(c)) if self.declared_here(&name) => {
                self.type_declaration(&name);
                let v = self.b.op_of_kind(Op::Id, vec![Atom::Const(c)], e.span(), crate::ir::Kind::Slice);
                self.b.rename_user(v, &name);
                self.vectors.insert(v);
                self.rebind(&name, Atom::Var(v));
                v
            }
            // Made differentiable before the construct around the one that declares it, which is
            // then lowered again.
            Some(Atom::Const(_)) => {
                self.pending.push(name);
                return Ok(None);
            }
            _ => {
                return err(
                    target,
                    "only local vectors can be written element by element or pushed onto: a differentiable parameter cannot be written through",
                )
            }
        }))
    }
}

impl Lowerer<'_> {
    /// `[a, b]` or `vec![a, b]` holding differentiable values (a vector-valued result): a local
    /// vector written element by element.
    pub(super) fn vector_literal(
        &mut self,
        elems: Vec<Expr>,
        is_vec: bool,
        span: proc_macro2::Span,
    ) -> syn::Result<Atom> {
        let n = elems.len();
        let zero = crate::tokens::float_lit(&self.b.float, "0.0");
        let zeros = if is_vec {
            quote!(::std::vec![#zero; #n])
        } else {
            quote!([#zero; #n])
        };
        let v = self
            .b
            .op_of_kind(Op::Id, vec![Atom::Const(zeros)], span, Kind::Slice);
        self.vectors.insert(v);
        for (i, e) in elems.iter().enumerate() {
            let value = self.expr(e)?;
            self.b.push(Stmt::SetElem {
                vec: v,
                index: Index::Known(i, quote!(#i)),
                value,
                log: None,
                init: true,
            });
        }
        Ok(Atom::Var(v))
    }
}

/// Whether `e` is `Vec::new()`, `Vec::with_capacity(n)` or `vec![]`.
fn empty_vec(e: &proc_macro2::TokenStream) -> bool {
    match syn::parse2::<Expr>(e.clone()) {
        Ok(Expr::Call(call)) => match &*call.func {
            Expr::Path(p) => {
                let segs = crate::tokens::segment_names(&p.path);
                segs.len() >= 2
                    && segs[segs.len() - 2] == "Vec"
                    && matches!(segs[segs.len() - 1].as_str(), "new" | "with_capacity")
            }
            _ => false,
        },
        Ok(Expr::Macro(m)) => m.mac.path.is_ident("vec") && m.mac.tokens.is_empty(),
        _ => false,
    }
}

/// What a `for` loop iterates, without `&`, parentheses, `.iter()` and `.enumerate()`; and whether
/// it was enumerated.
fn iterated(mut e: &Expr) -> (&Expr, bool) {
    let mut enumerate = false;
    loop {
        e = match e {
            Expr::Reference(r) => &r.expr,
            Expr::Paren(p) => &p.expr,
            Expr::MethodCall(m) if m.args.is_empty() && m.method == "iter" => &m.receiver,
            Expr::MethodCall(m) if m.args.is_empty() && m.method == "enumerate" && !enumerate => {
                enumerate = true;
                &m.receiver
            }
            _ => return (e, enumerate),
        };
    }
}

/// The names an element loop binds: the element's, and the index's for `(i, x)` over an enumerated
/// iterator; `None` for any other pattern.
fn element_names(pat: &syn::Pat, enumerate: bool) -> syn::Result<Option<(Option<String>, String)>> {
    Ok(match (enumerate, pat) {
        (false, pat) => match pattern_names(pat)?.as_slice() {
            [name] => Some((None, name.to_string())),
            _ => None,
        },
        (true, syn::Pat::Tuple(t)) if t.elems.len() == 2 => {
            let (i, x) = (pattern_names(&t.elems[0])?, pattern_names(&t.elems[1])?);
            match (i.as_slice(), x.as_slice()) {
                ([i], [x]) => Some((Some(i.to_string()), x.to_string())),
                _ => None,
            }
        }
        _ => None,
    })
}
