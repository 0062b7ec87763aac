//! Lowering of `if`/`else` and `match`.
//!
//! Each arm of an `if` is lowered into a list of its own, and every name an arm rebinds becomes an
//! output of the `if`. A `match` on an integer or `bool` is lowered as the `if` chain it stands
//! for. A constant an arm changes in place (`stack.pop()`) is changed in a copy of its own, which
//! the backward sweep can recompute the arm from.

use proc_macro2::Span;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::Expr;

use super::messages::err;
use super::Lowerer;
use crate::ir::{Atom, Branch, Kind, Stmt, Var};
use crate::names;

impl Lowerer<'_> {
    /// Lowers one arm of an `if` into a list of its own; returns it, its value and the names then.
    pub(super) fn branch(
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
        let owns = self.b.func.own_values.len();
        let pending = std::mem::take(&mut self.pending);
        let result = self.if_once(e, want_value);
        let found = std::mem::replace(&mut self.pending, pending);
        let here = self.settle_pending(found);
        if here.is_empty() {
            return result;
        }
        self.b.func.body.truncate(len);
        self.b.func.own_values.truncate(owns);
        self.restore(&before);
        self.activate_vectors(&here, &here, e.span());
        self.if_once(e, want_value)
    }

    /// One lowering of an `if` (which [`Self::if_expr`] may repeat): the condition kept in a local,
    /// the arms, and the statement with its outputs.
    fn if_once(&mut self, e: &syn::ExprIf, want_value: bool) -> syn::Result<Atom> {
        let expr = self.constant(&e.cond);
        let cond = self.b.fresh_name("cond");
        self.b.push(Stmt::Const {
            name: cond.clone(),
            mutable: false,
            ty: None,
            expr: expr.into(),
        });
        let before = self.visible();
        self.arm_depth += 1;
        let arms = self.if_arms(e, want_value, &before);
        self.arm_depth -= 1;
        let ((then_body, then_value, then_env), (else_body, else_value, else_env)) = arms?;
        let (names, mut then_yields, mut else_yields) =
            self.rebound(&before, &then_env, &else_env, &|| e.span());
        let (then_value, else_value) = self.arm_values(then_value, else_value);
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
        let outs = self.if_outputs(&names, &then_yields, &else_yields);
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
            cond,
            then_,
            else_,
            outs: outs.clone(),
        });
        self.rebind_outputs(&names, &outs, &constant);
        Ok(match (want_value, outs.last()) {
            (true, Some(v)) => self.output_atom(constant[outs.len() - 1], *v),
            _ => Atom::constant(quote!(())),
        })
    }

    /// The names either arm rebinds (its value at the arm's end is not the one from `before`),
    /// with the value each arm yields for each.
    fn rebound(
        &self,
        before: &[(String, Atom)],
        then_env: &[(String, Atom)],
        else_env: &[(String, Atom)],
        span: &dyn Fn() -> Span,
    ) -> (Vec<String>, Vec<Atom>, Vec<Atom>) {
        let find = |env: &[(String, Atom)], n: &str| {
            env.iter().find(|(m, _)| m == n).map(|(_, a)| a.clone())
        };
        let mut names = Vec::new();
        let (mut then_yields, mut else_yields) = (Vec::new(), Vec::new());
        for (n, old) in before {
            let (t, f) = (
                find(then_env, n).unwrap_or(old.clone()),
                find(else_env, n).unwrap_or(old.clone()),
            );
            let func = &self.b.func;
            if !func.same_operand(&t, old) || !func.same_operand(&f, old) {
                names.push(n.clone());
                then_yields.push(self.replayable(n, &t, span));
                else_yields.push(self.replayable(n, &f, span));
            }
        }
        (names, then_yields, else_yields)
    }

    /// The values of the two arms, as the `if` gives them: none for `()`, and a stand-in for an
    /// arm that stopped early where the other has a value.
    fn arm_values(
        &self,
        then_value: Option<Atom>,
        else_value: Option<Atom>,
    ) -> (Option<Atom>, Option<Atom>) {
        // `()` (an arm ending in a unit `if`) is no value.
        let unit = |v: Option<Atom>| v.filter(|a| !matches!(a, Atom::Const(t) if t.is_unit()));
        let (then_value, else_value) = (unit(then_value), unit(else_value));
        // An arm that stopped early (`return` inside it) has a placeholder that nothing reads.
        let never = |v: &Atom| matches!(v, Atom::Const(t) if t.is_name(names::NEVER));
        let fill = |v: &Option<Atom>, other: &Option<Atom>| match v {
            Some(a) if never(a) => other.as_ref().filter(|o| !never(o)).map(|o| {
                Atom::constant(match self.b.func.atom_kind(o) {
                    Kind::Scalar => quote!(0.0),
                    _ => quote!(::core::default::Default::default()),
                })
            }),
            _ => v.clone(),
        };
        (
            fill(&then_value, &else_value),
            fill(&else_value, &then_value),
        )
    }

    /// A value of the list for each output of an `if`, named after the name it rebinds
    /// (`if_value` for the value of the `if` itself).
    fn if_outputs(
        &mut self,
        names: &[String],
        then_yields: &[Atom],
        else_yields: &[Atom],
    ) -> Vec<Var> {
        then_yields
            .iter()
            .zip(else_yields)
            .enumerate()
            .map(|(i, (t, f))| {
                let kind = self.b.func.atom_kind(t).join(self.b.func.atom_kind(f));
                let base = names
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| "if_value".to_string());
                let v = self.b.fresh(&base, kind);
                self.b.rename_user(v, &base);
                // (An arm's value of the user's type makes the output one.)
                let own = |a: &Atom| a.var().is_some_and(|a| self.b.func.own_values.contains(&a));
                if own(t) || own(f) {
                    self.b.func.own_values.push(v);
                }
                v
            })
            .collect()
    }

    /// An output of an `if` as the user's name sees it: a name that no arm makes differentiable
    /// (a counter) stays a plain local.
    fn output_atom(&self, constant: bool, o: Var) -> Atom {
        if constant {
            Atom::constant(self.b.func.name(o).to_token_stream())
        } else {
            Atom::Var(o)
        }
    }

    /// Binds each name an `if` rebinds to its output.
    fn rebind_outputs(&mut self, names: &[String], outs: &[Var], constant: &[bool]) {
        for (i, (n, o)) in names.iter().zip(outs).enumerate() {
            let a = self.output_atom(constant[i], *o);
            self.rebind(n, a);
            // (A constant changed in place after the `if` is changed in a binding of its own.)
            if constant[i]
                && self.mutable_consts.contains(n)
                && self.facts.changed_in_place.contains(n)
            {
                let held = self.b.user_name(n);
                let out = self.b.func.name(*o).clone();
                self.b.push(Stmt::Const {
                    name: held.clone(),
                    mutable: true,
                    ty: None,
                    expr: out.into_token_stream().into(),
                });
                self.rebind(n, Atom::constant(held.into_token_stream()));
            }
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
        let changed: Vec<(String, proc_macro2::Span)> = super::uses::of_if(e)
            .changed
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
    pub(super) fn replayable(&self, n: &str, a: &Atom, at: &dyn Fn() -> Span) -> Atom {
        match a {
            Atom::Const(c)
                if self.mutable_consts.contains(n) && self.facts.changed_in_place.contains(n) =>
            {
                let at = at();
                let c = crate::tokens::respan(c.tokens().clone(), at);
                Atom::constant(quote::quote_spanned!(at=> ::diffx::__private::replayed(&#c)))
            }
            a => a.clone(),
        }
    }

    /// `let mut n_1 = replayed(&n);` for each constant `n` changed in place, `n` bound to the copy.
    pub(super) fn copies(&mut self, changed: &[(String, proc_macro2::Span)]) {
        for (n, at) in changed {
            let Some(Atom::Const(current)) = self.lookup(n).cloned() else {
                continue;
            };
            let copy = self.b.user_name(n);
            let current = crate::tokens::respan(current.tokens().clone(), *at);
            self.b.push(Stmt::Const {
                name: copy.clone(),
                mutable: true,
                ty: None,
                expr: quote::quote_spanned!(*at=> ::diffx::__private::replayed(&#current)).into(),
            });
            self.rebind(n, Atom::constant(copy.into_token_stream()));
        }
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
            expr: expr.into(),
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
                Ok(Atom::constant(quote!(())))
            }
            other => err(other.span(), "could not read this `match`"),
        }
    }
}

/// A lowered arm: its statements, its value, and every visible name's value at its end.
type Arm = (Vec<Stmt>, Option<Atom>, Vec<(String, Atom)>);

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
