//! Loops, bounded by construction: `for` over short ranges and over a slice's elements, `while`
//! and `loop` with a counter or a float that grows by at least 0.25 each iteration, incremented
//! first so that `continue` cannot skip it.

use super::ast::{Block, Expr, If, Stmt};
use super::body::{FloatVar, Frame, Gen, LoopCtx};
use super::expr::E;
use super::{Bug, ParamKind, C};

impl Gen<'_> {
    /// A loop body: `prefix` statements first (the counter's increment), then a block.
    pub(super) fn loop_body(
        &mut self,
        prefix: Vec<Stmt>,
        allow_continue: bool,
        declare: impl FnOnce(&mut Self),
    ) -> Block {
        self.loops.push(LoopCtx {
            conds_at_entry: self.conds.len(),
            block_stmts_at_entry: self.block_stmts,
            allow_continue,
        });
        self.frames.push(Frame::default());
        self.enter_region();
        declare(self);
        let inner = self.block(3, true);
        self.leave_region();
        self.frames.pop();
        self.loops.pop();
        let mut stmts = prefix;
        stmts.extend(inner.stmts);
        Block::new(stmts)
    }

    /// The bound of a range: short when nested.
    pub(super) fn trip(&mut self) -> usize {
        if self.loops.is_empty() {
            self.rng.range(1, 5)
        } else {
            self.rng.range(1, 3)
        }
    }

    pub(super) fn for_range(&mut self) -> Stmt {
        self.used[C::ForRange as usize] += 1;
        let var = if self.rng.chance(0.15) {
            "_".to_string()
        } else {
            self.fresh_name(Some(["i", "j"][self.loops.len().min(1)]))
        };
        let has_n = self.int_vars(false).iter().any(|(n, _)| n == "n");
        let m = self.trip();
        let iter = match self.rng.below(6) {
            0 | 1 => format!("0..{m}"),
            2 if has_n && self.loops.is_empty() => {
                self.used[C::ForN as usize] += 1;
                "0..n".to_string()
            }
            3 if has_n && self.loops.is_empty() => {
                self.used[C::ForN as usize] += 1;
                "1..n".to_string()
            }
            4 if self.slice.is_some() => {
                self.used[C::ForSliceIndex as usize] += 1;
                format!("0..{}.len()", self.slice.as_ref().unwrap().name)
            }
            5 => format!("1..={}", m.min(3)),
            _ => format!("0..{m}"),
        };
        let rev = self.w(C::ForRev);
        let iter = match rev > 0 && self.rng.below(100) < rev.min(100) as usize {
            true => {
                self.used[C::ForRev as usize] += 1;
                format!("({iter}).rev()")
            }
            false => iter,
        };
        let v = var.clone();
        let body = self.loop_body(Vec::new(), true, |g| {
            if v != "_" {
                g.declare_int(&v, true);
            }
        });
        Stmt::For {
            pat: var,
            iter,
            body,
        }
    }

    /// A loop over a local vector's elements (`for &e in &v`, `for e in v.iter()`), which the
    /// body does not write (Rust's borrow of `v` forbids it): `v` is frozen while it runs.
    pub(super) fn for_local(&mut self) -> Stmt {
        self.used[C::ForLocal as usize] += 1;
        let locals: Vec<(String, bool)> = self
            .frames
            .iter()
            .flat_map(|f| f.vecs.iter().map(|v| (v.name.clone(), v.active)))
            .collect();
        let (v, active) = self.rng.pick(&locals).clone();
        let deref = self.rng.chance(0.35);
        let name = self.fresh_name(Some(if deref { "e" } else { "wi" }));
        let (pat, iter) = match (deref, self.rng.chance(0.5)) {
            (true, _) => (name.clone(), format!("{v}.iter()")),
            (false, true) => (format!("&{name}"), format!("&{v}")),
            (false, false) => (format!("&{name}"), format!("{v}.iter()")),
        };
        let frozen = self.set_frozen(&v, true);
        let n = name.clone();
        let body = self.loop_body(Vec::new(), true, |g| {
            if deref {
                g.declare_deref(&n, active);
            } else {
                g.declare_float(&n, false, true, active);
            }
        });
        self.set_frozen(&v, frozen);
        Stmt::For { pat, iter, body }
    }

    /// Sets whether the local vector `name` may be written; returns what it was.
    fn set_frozen(&mut self, name: &str, frozen: bool) -> bool {
        let mut was = false;
        for f in &mut self.frames {
            for v in f.vecs.iter_mut().filter(|v| v.name == name) {
                was = v.frozen;
                v.frozen = frozen;
            }
        }
        was
    }

    pub(super) fn for_elems(&mut self) -> Stmt {
        self.used[C::ForElems as usize] += 1;
        let s = self.slice.clone().unwrap();
        let by_ref = if s.kind == ParamKind::Slice {
            s.name.clone()
        } else {
            format!("&{}", s.name)
        };
        if self.rng.chance(0.4) {
            return self.for_chain(&s.name, s.active);
        }
        let deref = self.rng.chance(0.35);
        let name = self.fresh_name(Some(if deref { "e" } else { "wi" }));
        let (pat, iter) = if deref {
            self.used[C::ForIter as usize] += 1;
            (name.clone(), format!("{}.iter()", s.name))
        } else if self.rng.chance(0.5) {
            (format!("&{name}"), by_ref)
        } else {
            (format!("&{name}"), format!("{}.iter()", s.name))
        };
        let n = name.clone();
        let body = self.loop_body(Vec::new(), true, |g| {
            if deref {
                g.declare_deref(&n, s.active);
            } else {
                g.declare_float(&n, false, true, s.active);
            }
        });
        Stmt::For { pat, iter, body }
    }

    /// A `for` over an iterator chain on the slice (rewritten into a loop over positions by the
    /// macro): `enumerate`, `zip` with its shifted self, `rev`, `skip`, `take`, `step_by`,
    /// `filter` on the element's value (then `zip` or `step_by`), with tuple and reference
    /// patterns.
    fn for_chain(&mut self, slice: &str, active: bool) -> Stmt {
        self.used[C::ForChain as usize] += 1;
        let name = self.fresh_name(Some("xi"));
        let (pat, iter, index, other) = match self.rng.below(8) {
            0 | 1 => {
                let i = self.fresh_name(Some("i"));
                let skip = if self.rng.chance(0.5) { ".skip(1)" } else { "" };
                (
                    format!("({i}, &{name})"),
                    format!("{slice}.iter().enumerate(){skip}"),
                    Some(i),
                    None,
                )
            }
            2 | 3 => {
                let o = self.fresh_name(Some("xn"));
                (
                    format!("(&{name}, &{o})"),
                    format!("{slice}.iter().zip({slice}.iter().skip(1))"),
                    None,
                    Some(o),
                )
            }
            4 => (
                format!("&{name}"),
                format!("{slice}.iter().rev()"),
                None,
                None,
            ),
            5 => (
                format!("&{name}"),
                format!("{slice}.iter().step_by(2).take(2)"),
                None,
                None,
            ),
            // After a `filter`, the macro counts the elements that passed.
            6 => match self.rng.below(3) {
                0 => (
                    format!("&{name}"),
                    format!("{slice}.iter().filter(|v| **v > 0.2)"),
                    None,
                    None,
                ),
                1 => {
                    let o = self.fresh_name(Some("xn"));
                    (
                        format!("(&{name}, &{o})"),
                        format!("{slice}.iter().filter(|v| **v > 0.2).zip({slice}.iter().skip(1))"),
                        None,
                        Some(o),
                    )
                }
                _ => (
                    format!("&{name}"),
                    format!("{slice}.iter().filter(|v| **v > -0.2).step_by(2)"),
                    None,
                    None,
                ),
            },
            _ => (
                name.clone(),
                format!("{slice}.iter().copied().skip(1).rev()"),
                None,
                None,
            ),
        };
        let n = name.clone();
        let body = self.loop_body(Vec::new(), true, |g| {
            g.declare_float(&n, false, true, active);
            if let Some(o) = &other {
                g.declare_float(o, false, true, active);
            }
            if let Some(i) = &index {
                g.declare_int(i, true);
            }
        });
        Stmt::For { pat, iter, body }
    }

    /// A counter: `let mut k = 0;` (typed now and then), and its increment.
    pub(super) fn counter(&mut self) -> (String, Stmt, Stmt, bool) {
        let k = self.fresh_name(Some("k"));
        let (ty, usize_ok) = match self.rng.below(4) {
            0 => (Some("i32"), false),
            1 => (Some("usize"), true),
            _ => (None, true),
        };
        let decl = Stmt::Let {
            name: k.clone(),
            mutable: true,
            ty,
            init: Expr::Text("0".into()),
        };
        let inc = Stmt::Assign {
            target: k.clone(),
            op: "+=",
            value: Expr::Text("1".into()),
        };
        (k, decl, inc, usize_ok)
    }

    pub(super) fn while_counter(&mut self) -> Vec<Stmt> {
        self.used[C::WhileCounter as usize] += 1;
        let (k, decl, inc, usize_ok) = self.counter();
        let m = self.trip();
        let kk = k.clone();
        let body = self.loop_body(vec![inc], true, |g| g.declare_int(&kk, usize_ok));
        vec![
            decl,
            Stmt::While {
                cond: format!("{k} < {m}"),
                body,
            },
        ]
    }

    /// `while <float condition> && k < m`, or a float that grows by at least 0.25 a step.
    pub(super) fn while_float(&mut self) -> Vec<Stmt> {
        self.used[C::WhileFloat as usize] += 1;
        if self.rng.chance(0.5) {
            let (k, decl, inc, usize_ok) = self.counter();
            let m = self.trip();
            let c = self.float_cond();
            let kk = k.clone();
            let body = self.loop_body(vec![inc], true, |g| g.declare_int(&kk, usize_ok));
            let cond = if self.rng.chance(0.5) {
                format!("{c} && {k} < {m}")
            } else {
                format!("{k} < {m} && {c}")
            };
            return vec![decl, Stmt::While { cond, body }];
        }
        let (t, decl, step) = self.progress();
        let body = self.loop_body(vec![step], true, |_| {});
        let bound = *self.rng.pick(&["1.0", "1.5", "0.5"]);
        vec![
            decl,
            Stmt::While {
                cond: format!("{t} < {bound}"),
                body,
            },
        ]
    }

    /// A comparison that reads a differentiable value.
    pub(super) fn active_cond(&mut self) -> String {
        for _ in 0..4 {
            let c = self.float_cond();
            if self.active(&c) {
                return c;
            }
        }
        let a = self.active_atom();
        format!("{} > 0.5", a.at(3))
    }

    /// A variable (or element) that depends on a differentiable parameter, not `*e` in
    /// conditions unless form J is on.
    pub fn active_atom(&mut self) -> E {
        let no_deref = !self.allows(Bug::IterDerefInCond);
        let vars: Vec<FloatVar> = self
            .floats()
            .into_iter()
            .filter(|v| v.active && !(no_deref && v.deref))
            .collect();
        if !vars.is_empty() {
            let v = self.rng.pick(&vars).clone();
            return if v.deref {
                E::new(format!("*{}", v.name), 1)
            } else {
                E::new(v.name, 0)
            };
        }
        match &self.slice {
            Some(s) if s.active => E::new(format!("{}[0]", s.name), 0),
            _ => E::new(
                self.floats()
                    .first()
                    .map_or("0.5".into(), |v| v.name.clone()),
                0,
            ),
        }
    }

    /// `let mut t = N.tanh();` and `t += 0.25 + 0.25 * B * B;`: t < 1.5 fails within 11 steps.
    pub(super) fn progress(&mut self) -> (String, Stmt, Stmt) {
        let t = self.fresh_name(None);
        let mut a = self.float(1);
        if !self.active(&a.s) {
            // A `break` on it must read a differentiable value (form A).
            a = self.active_atom();
        }
        let init = self.method_of(&a, "tanh");
        let active = self.active(&init.s);
        let decl = Stmt::Let {
            name: t.clone(),
            mutable: true,
            ty: None,
            init: Expr::Text(init.s),
        };
        let b = self.bounded(1);
        let step = Stmt::Assign {
            target: t.clone(),
            op: "+=",
            value: Expr::Text(format!("0.25 + 0.25 * {} * {}", b.at(1), b.at(1))),
        };
        self.declare_float(&t, false, false, active);
        self.pinned.push(t.clone());
        (t, decl, step)
    }

    /// `loop { k += 1; …; if k >= m { break; } }`: the break's condition is on an integer (form
    /// A), on a float that grows, or on both.
    pub(super) fn loop_break(&mut self) -> Vec<Stmt> {
        self.used[C::LoopBreak as usize] += 1;
        let int_only = self.allows(Bug::IntBreak) && self.rng.chance(0.5);
        let at_end = self.rng.chance(0.5);
        let (decl, step, cond, var, is_int) = if int_only || self.rng.chance(0.5) {
            let (k, decl, inc, usize_ok) = self.counter();
            let m = self.trip();
            let cond = if int_only {
                format!("{k} >= {m}")
            } else {
                let c = self.active_cond();
                format!("{k} >= {m} || {c}")
            };
            (decl, inc, cond, k, Some(usize_ok))
        } else {
            let (t, decl, step) = self.progress();
            (decl, step, format!("{t} > 1.0"), t, None)
        };
        let stop = Stmt::If(If {
            active: self.active(&cond),
            cond,
            then: Block::new(vec![Stmt::Break(None)]),
            els: None,
        });
        let v = var.clone();
        let mut body = self.loop_body(vec![step], !at_end, |g| {
            if let Some(u) = is_int {
                g.declare_int(&v, u)
            }
        });
        if at_end {
            body.stmts.push(stop);
        } else {
            body.stmts.insert(1, stop);
        }
        vec![decl, Stmt::Loop { body }]
    }
}
