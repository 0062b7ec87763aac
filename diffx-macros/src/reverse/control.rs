//! The backward sweep over `if` and loops: the adjoint of the arm that ran, after recomputing it,
//! and a loop's iterations backwards, each popping its entry state from the tape, recomputing its
//! body and running the body's adjoint.

use proc_macro2::{Ident, Span};

use super::cells::{carried, outer_reads};
use super::Sweep;
use crate::ir::{Atom, Branch, ControlId, Kind, LoopHead, Op, Stmt, Var};

impl Sweep {
    /// `if`: the adjoint of each arm, run in the arm that ran (its condition is a kept local), after
    /// recomputing the arm's values; the adjoints of values from outside start out here.
    pub(super) fn if_stmt(
        &mut self,
        id: ControlId,
        cond: &Ident,
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
        if !self.recording {
            self.b.func.body.extend(branch.body.iter().cloned());
        }
        self.local_vector_adjoints(&branch.body);
        let mark = self.b.mark();
        let span = Span::call_site();
        for (i, g) in seeds {
            self.accumulate(&branch.yields[*i], Atom::Var(*g), span, mark);
        }
        let result = branch.body.iter().rev().try_for_each(|s| self.stmt(s));
        let mut body = std::mem::replace(&mut self.b.func.body, outer);
        self.adj = saved;
        result?;
        if self.recording {
            self.recall(&branch.body, &mut body);
        }
        Ok(Branch {
            body,
            yields: Vec::new(),
        })
    }

    /// Values read in `arms` from outside get their adjoints out here (zero if nothing reached them).
    fn outer_adjoints(&mut self, arms: &[&Branch], also: &[Var]) {
        for v in outer_reads(arms).into_iter().chain(also.iter().copied()) {
            if !self.adj.contains_key(&v) {
                let bar = self.fresh_adjoint(v);
                let value = crate::forward::zero(&self.b, &Atom::Var(v));
                self.b.adjoint(bar, value, None);
                self.adj.insert(v, bar);
            }
        }
    }

    /// A loop: its iterations backwards, popping each one's entry state from the tape, recomputing
    /// its body, and running the body's adjoint with each cell's adjoint restarted at zero.
    pub(super) fn loop_stmt(&mut self, s: &Stmt) -> syn::Result<()> {
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
        self.own_cell_adjoints(&live);
        self.outer_adjoints(&[body], &active_cells);
        let saved = self.adj.clone();
        let outer = std::mem::take(&mut self.b.func.body);
        let was_recording = std::mem::replace(&mut self.recording, tape.record);
        // Recomputing, rewind the vectors to this iteration's start (their logs' lengths are on
        // the tape), then run the iteration again, which writes (and logs) them again.
        let marks = self.rewind(logs);
        if !tape.record {
            self.b.func.body.extend(body.body.iter().cloned());
        }
        self.local_vector_adjoints(&body.body);
        self.seed_cells(body, &live);
        let result = body.body.iter().rev().try_for_each(|s| self.stmt(s));
        let mut inner = std::mem::replace(&mut self.b.func.body, outer);
        self.adj = saved;
        self.recording = was_recording;
        result?;
        if tape.record {
            self.recall(&body.body, &mut inner);
        }
        let names = self.loop_back_names(cells, head, &marks);
        let skip_if_zero = self.carried_in(&live, &inner);
        let cells = cells.iter().copied().zip(active.iter().copied()).collect();
        self.b.push(Stmt::LoopBack {
            id: *id,
            tape: tape.clone(),
            names,
            body: inner,
            cells,
            skip_if_zero,
        });
        Ok(())
    }

    /// The adjoints of the `live` cells, which carry into a backward loop with body `inner`, if
    /// they are numbers and all that flows in: the body reads no adjoint vector's element. (Only
    /// where the program is not differentiated again, in `f32` or `f64`: `x != 0.0` must compile,
    /// and a tangent of a zero adjoint need not be zero.)
    fn carried_in(&self, live: &[(usize, Var)], inner: &[Stmt]) -> Vec<Var> {
        let f = &self.b.func;
        let concrete = f.float.as_ref().is_some_and(|t| t == "f64" || t == "f32");
        let seeds: Vec<Var> = live.iter().map(|(_, c)| self.adj[c]).collect();
        if !self.skip_zeros || !concrete || seeds.iter().any(|s| f.kind(*s) != Kind::Scalar) {
            return Vec::new();
        }
        let adjoints: std::collections::HashSet<Var> = self.adj.values().copied().collect();
        let mut reads_vector_adjoint = false;
        for s in inner {
            s.walk(&mut |s| match s {
                Stmt::Let { args, .. } => {
                    reads_vector_adjoint |= args
                        .iter()
                        .any(|a| matches!(a, Atom::Field(v, _) if adjoints.contains(v)));
                }
                Stmt::Pop { .. } => reads_vector_adjoint = true,
                _ => {}
            });
        }
        if reads_vector_adjoint {
            return Vec::new();
        }
        seeds
    }

    /// The cells' adjoints are reset in every backward iteration: each gets a variable of its own
    /// (the adjoint may be another value's, or the `ct` argument).
    fn own_cell_adjoints(&mut self, live: &[(usize, Var)]) {
        for (_, c) in live {
            let bar = self.fresh_adjoint(*c);
            let value = self.adj.get(c).map_or_else(
                || crate::forward::zero(&self.b, &Atom::Var(*c)),
                |a| Atom::Var(*a),
            );
            self.b.adjoint(bar, value, None);
            self.adj.insert(*c, bar);
        }
    }

    /// The undo of each vector's writes back to this iteration's start, at a mark read from the
    /// tape, unless the loop records; returns the marks.
    fn rewind(&mut self, logs: &[(Var, Ident)]) -> Vec<Ident> {
        let marks: Vec<Ident> = logs
            .iter()
            .map(|(_, l)| self.b.fresh_name(&format!("{l}_mark")))
            .collect();
        if self.recording {
            // (The marks still name the tape's entries, which trimming then drops.)
            return marks;
        }
        for ((vec, log), mark) in logs.iter().zip(&marks) {
            self.b.push(Stmt::Undo {
                vec: *vec,
                log: log.clone(),
                mark: Some(mark.clone()),
                at: None,
            });
        }
        marks
    }

    /// Each carried cell's adjoint handed to the value the body yields for it, the cell's adjoint
    /// restarting at zero.
    fn seed_cells(&mut self, body: &Branch, live: &[(usize, Var)]) {
        let (mark, span) = (self.b.mark(), Span::call_site());
        let mut seeds = Vec::new();
        for (i, c) in live {
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
    }

    /// The names each backward iteration of a loop pops from its tape: the cells, the loop
    /// variables and the logs' marks.
    fn loop_back_names(&self, cells: &[Var], head: &LoopHead, marks: &[Ident]) -> Vec<Ident> {
        let mut names: Vec<Ident> = cells.iter().map(|c| self.b.func.name(*c).clone()).collect();
        if let LoopHead::For { vars, .. } = head {
            names.extend(vars.iter().cloned());
        }
        names.extend(marks.iter().cloned());
        names
    }
}
