//! Lowering of `for` and `while` loops.
//!
//! A loop body is lowered into a list of its own; every name the body reassigns becomes a *cell*,
//! a mutable local that the body's values are written back to at the end of each iteration. A
//! cell whose value comes to depend on the inputs inside the body carries derivatives, which may
//! take another pass over the loop to find out. A `for` over a differentiable slice or a `Vec`
//! field of a parameter struct becomes a loop over the indices.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::Expr;

use super::messages::err;
use super::Lowerer;
use crate::ir::{
    operands, Atom, Branch, Index, Kind, LoopHead, LoopIter, Op, Path, Step, Stmt, Var,
};
use crate::{names, tokens};

impl Lowerer<'_> {
    /// `for`/`while`: the names the body reassigns become cells. A cell whose value comes to depend
    /// on the inputs inside the body carries derivatives; finding that out may take another pass.
    pub(super) fn loop_stmt(&mut self, e: &Expr) -> syn::Result<()> {
        let body = loop_body(e)?;
        let uses = super::uses::of_block(body);
        let mut assigned = uses.assigned;
        // (A value of the list a part of which the body writes, `s.x += …`, is replaced by one
        // with the part replaced: the loop carries it. A constant's part is changed in place.)
        assigned.extend(
            uses.parts_assigned
                .into_iter()
                .filter(|n| matches!(self.lookup(n), Some(Atom::Var(_)))),
        );
        // A `let mut` constant the body calls a method on may change (`stack.pop()`): a cell too,
        // while it is a constant (a vector the body pushes differentiable values onto becomes a
        // differentiable vector instead, whose writes are logged).
        let changed: BTreeSet<String> = uses
            .changed
            .into_keys()
            .filter(|n| self.mutable_consts.contains(n) && !assigned.contains(n))
            .collect();
        let written = uses.element_written;
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
            let owns = self.b.func.own_values.len();
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
            // (Values of the user's type the pass made are gone with it.)
            self.b.func.own_values.truncate(owns);
            self.restore(&before);
            active.extend(newly);
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
        // (Only for a vector to make differentiable: the loop's span is found by writing it out.)
        if written.iter().any(|n| active.contains(n)) {
            self.activate_vectors(written, active, e.span());
        }
        let receivers = super::uses::of_block(body).changed;
        let cells = self.start_cells(e, carried, active, kinds, &receivers);
        let (mut head, bindings) = self.loop_head(e)?;
        let (exit, stmts_of_body) = self.exit_check(body)?;
        if let LoopHead::For { exit: e, .. } = &mut head {
            *e = exit.map(Into::into);
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
            self.push_loop(head, carried, cells, stmts, yields);
        }
        Ok(newly)
    }

    /// A cell for each name the loop carries, starting from the name's value before the loop, and
    /// the name bound to it; each with whether it carries derivatives.
    fn start_cells(
        &mut self,
        e: &Expr,
        carried: &[(String, Atom)],
        active: &BTreeSet<String>,
        kinds: &HashMap<String, Kind>,
        receivers: &BTreeMap<String, Span>,
    ) -> Vec<(Var, bool)> {
        let mut cells = Vec::new();
        // (Found once, where needed: a span is found by writing the loop out.)
        let loop_span = std::cell::OnceCell::new();
        let loop_span = || *loop_span.get_or_init(|| e.span());
        for (n, init) in carried {
            let at = || receivers.get(n).copied().unwrap_or_else(loop_span);
            let init = self.replayable(n, init, &at);
            // (A value of the user's type carried through the loop is one in it too.)
            let own = init
                .var()
                .is_some_and(|v| self.b.func.own_values.contains(&v))
                || matches!(init, Atom::Var(v) if self.unseen_param(v))
                || matches!(&init, Atom::Const(c) if c.name().is_some_and(|n| self.struct_consts.contains(n)));
            let cell = match kinds.get(n) {
                Some(&kind) => (self.b).op_of_kind(Op::Id, vec![init], loop_span(), kind),
                None => self.b.op(Op::Id, vec![init], loop_span()),
            };
            if own && !self.b.func.own_values.contains(&cell) {
                self.b.func.own_values.push(cell);
            }
            self.b.rename_user(cell, n);
            cells.push((cell, active.contains(n)));
            self.rebind(n, self.cell_atom(cell, active.contains(n)));
        }
        cells
    }

    /// `__diffx_exit_if!(brk)` from desugaring, checked before each iteration of a `for`: its
    /// condition, and the body's statements after it.
    fn exit_check<'s>(
        &mut self,
        body: &'s syn::Block,
    ) -> syn::Result<(Option<TokenStream>, &'s [syn::Stmt])> {
        Ok(match body.stmts.first() {
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
        })
    }

    /// The loop, once no cell is found to need derivatives it does not carry: the names bound to
    /// its cells again, and the statement.
    fn push_loop(
        &mut self,
        head: LoopHead,
        carried: &[(String, Atom)],
        cells: Vec<(Var, bool)>,
        stmts: Vec<Stmt>,
        yields: Vec<Atom>,
    ) {
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

    /// A cell as the user's name sees it: a value that carries derivatives, or a plain local.
    fn cell_atom(&self, cell: Var, active: bool) -> Atom {
        if active {
            Atom::Var(cell)
        } else {
            Atom::constant(self.b.func.name(cell).to_token_stream())
        }
    }

    /// The loop's head and what its pattern binds in the body.
    fn loop_head(&mut self, e: &Expr) -> syn::Result<(LoopHead, Vec<(String, Atom)>)> {
        match e {
            Expr::ForLoop(f) if self.mentions_active(&f.expr) => self.element_loop(f),
            Expr::ForLoop(f) => {
                let vars = pattern_names(&f.pat)?;
                // (A loop variable keeps the user's name in the code: it is the loop's own.)
                let bindings = vars
                    .iter()
                    .map(|v| {
                        (
                            v.to_string(),
                            Atom::constant(self.b.as_written(v).to_token_stream()),
                        )
                    })
                    .collect();
                let pat = f.pat.to_token_stream();
                let head = LoopHead::For {
                    pat: tokens::substitute(pat, &mut |id| {
                        Some(self.b.as_written(id).into_token_stream())
                    })
                    .into(),
                    vars: vars.iter().map(|v| self.b.as_written(v)).collect(),
                    iter: LoopIter::new(&f.expr, &mut |e| self.constant(e)),
                    exit: None,
                };
                Ok((head, bindings))
            }
            // (`while let` is a `loop` by now: `desugar/options.rs`.)
            Expr::While(w) => Ok((
                LoopHead::While {
                    cond: self.constant(&w.cond).into(),
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
            pat: i.to_token_stream().into(),
            iter: LoopIter::Range(Box::new(crate::ir::Range {
                start: quote!(0).into(),
                end: quote!(#x.len()).into(),
                inclusive: false,
            })),
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
        let index = Index::Expr(i.to_token_stream().into());
        let mut bindings = vec![
            (i.to_string(), Atom::constant(i.to_token_stream())),
            (name, Atom::Field(base, path.then(Step::Index(index)))),
        ];
        bindings.extend(index_name.map(|n| (n, Atom::constant(i.to_token_stream()))));
        Ok((head, bindings))
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

/// The body of a loop lowering takes (`for` and `while`), refused with what to write instead if
/// it jumps or declares items.
fn loop_body(e: &Expr) -> syn::Result<&syn::Block> {
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
    if let Some(kw) = crate::tokens::find_ident(body.to_token_stream(), &["break", "continue"]) {
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
    Ok(body)
}
