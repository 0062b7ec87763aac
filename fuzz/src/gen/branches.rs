//! Branches: `if` and `match` as statements and as values, their arms, and the jumps an arm may
//! end with (only those the known-bug forms allowed leave possible).

use super::ast::{Block, Else, Expr, If, Stmt};
use super::body::{Frame, Gen};
use super::expr::E;
use super::{Bug, C};

impl Gen<'_> {
    /// An arm: a block whose condition is recorded for the jumps inside it.
    pub(super) fn arm(&mut self, cond_active: bool, max: usize) -> Block {
        self.conds.push(cond_active);
        self.enter_region();
        let b = self.block(max, false);
        self.leave_region();
        self.conds.pop();
        b
    }

    /// A jump to end `stmts` with; after a statement that holds one, only with form U.
    pub(super) fn jump_after(&mut self, stmts: &[Stmt], cond_active: bool) -> Option<Stmt> {
        if stmts.iter().any(Stmt::any_jump) && !self.allows(Bug::JumpAfterJump) {
            return None;
        }
        self.jump(cond_active)
    }

    /// The jump a conditional arm may end with, if any is allowed here.
    pub(super) fn jump(&mut self, cond_active: bool) -> Option<Stmt> {
        let mut options: Vec<(u32, u8)> = Vec::new();
        // A jump to the innermost loop, or (labelled) to an enclosing one.
        let depth = self.loops.len();
        let target = match depth {
            0 | 1 => depth.checked_sub(1),
            _ if self.rng.chance(self.w(C::Labelled) as f64 / 100.0) => {
                self.used[C::Labelled as usize] += 1;
                Some(self.rng.below(depth - 1))
            }
            _ => Some(depth - 1),
        };
        if let Some(l) = target.map(|d| &self.loops[d]) {
            let in_block = self.block_stmts > l.block_stmts_at_entry;
            let loop_ok = (!in_block || self.allows(Bug::JumpInBlockStmt))
                && (self.value_arms == 0 || self.allows(Bug::JumpInValueArm));
            let _ = l.conds_at_entry;
            if loop_ok && (cond_active || self.allows(Bug::IntBreak)) {
                options.push((self.w(C::Break), 0));
            }
            if loop_ok && l.allow_continue {
                options.push((self.w(C::Continue), 1));
            }
        }
        let label = target.filter(|&d| d + 1 < depth);
        if self.allow_return
            && (self.block_stmts == 0 || self.allows(Bug::JumpInBlockStmt))
            && (self.value_arms == 0 || self.allows(Bug::JumpInValueArm))
        {
            options.push((self.w(C::Return), 2));
        }
        let weights: Vec<u32> = options.iter().map(|o| o.0).collect();
        if weights.iter().all(|&w| w == 0) {
            return None;
        }
        let kind = options[self.rng.weighted(&weights)].1;
        Some(match kind {
            0 => {
                self.used[C::Break as usize] += 1;
                Stmt::Break(label)
            }
            1 => {
                self.used[C::Continue as usize] += 1;
                Stmt::Continue(label)
            }
            _ => {
                self.used[C::Return as usize] += 1;
                self.returned = true;
                let mut e = self.float(self.cfg.expr_depth);
                // In a loop, under a condition on no differentiable value, a `return` of a value
                // that depends on none is form T.
                if !self.loops.is_empty()
                    && !cond_active
                    && !self.active(&e.s)
                    && !self.allows(Bug::ConstReturnInLoop)
                {
                    let a = self.active_atom();
                    e = E::new(format!("{} + 0.5 * {}", e.at(3), a.at(1)), 3);
                }
                Stmt::Return(Expr::Text(e.s))
            }
        })
    }

    /// An `if` statement; one that has no effect on differentiable values (no jump, no write of
    /// such a value) is form V: without it, a plain update instead.
    pub(super) fn inert_checked_if(&mut self, with_jump: bool) -> Stmt {
        let writes = self.active_writes;
        let s = self.if_stmt(with_jump);
        let Stmt::If(i) = &s else { unreachable!() };
        if self.inert(i, writes) {
            return self.filler().unwrap_or(s);
        }
        s
    }

    /// Whether `i`, generated since `writes` active writes, is an inert `if` (form V):
    /// it writes no differentiable value and holds no jump.
    pub(super) fn inert(&self, i: &If, writes: usize) -> bool {
        self.active_writes == writes && !i.any_jump() && !self.allows(Bug::InertIf)
    }

    /// `if c { … } [else if c { … }] [else { … }]`; with `with_jump`, an arm ends with a jump.
    pub(super) fn if_stmt(&mut self, with_jump: bool) -> Stmt {
        self.used[if with_jump { C::JumpIf } else { C::IfStmt } as usize] += 1;
        self.arm_loop_writes.push(Vec::new());
        let (cond, cf) = self.cond();
        // Half the arms that end with a jump hold nothing else.
        let only_jump = with_jump && self.rng.chance(0.5);
        let mut then = if only_jump {
            Block::default()
        } else {
            self.arm(cf, if with_jump { 2 } else { 3 })
        };
        if with_jump || self.rng.chance(0.15) {
            if let Some(j) = self.jump_after(&then.stmts, cf) {
                then.stmts.push(j);
            }
        }
        let els = match self.rng.below(5) {
            0 | 1 => None,
            2 if self.conds.len() + 1 < self.cfg.max_nesting => {
                self.used[C::ElseIf as usize] += 1;
                let writes = self.active_writes;
                let Stmt::If(i) = self.if_stmt(false) else {
                    unreachable!()
                };
                // An inert `else if` (form V) is left out.
                (!self.inert(&i, writes)).then(|| Box::new(Else::If(i)))
            }
            _ => {
                let mut b = self.arm(cf, 3);
                let then_jumps = then.stmts.last().is_some_and(|s| {
                    matches!(s, Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(_))
                });
                if !then_jumps && self.rng.chance(0.1) {
                    if let Some(j) = self.jump_after(&b.stmts, cf) {
                        b.stmts.push(j);
                    }
                }
                Some(Box::new(Else::Block(b)))
            }
        };
        self.freeze_loop_writes();
        Stmt::If(If {
            cond,
            active: cf,
            then,
            els,
        })
    }

    /// Form L: vectors written in a loop inside the arms just generated are not written after.
    pub(super) fn freeze_loop_writes(&mut self) {
        let written = self.arm_loop_writes.pop().unwrap_or_default();
        if let Some(outer) = self.arm_loop_writes.last_mut() {
            outer.extend(written.iter().cloned());
        }
        if self.allows(Bug::VecWriteAfterIfLoop) {
            return;
        }
        for f in &mut self.frames {
            for v in &mut f.vecs {
                if written.contains(&v.name) {
                    v.frozen = true;
                }
            }
        }
    }

    /// A scrutinee and arm patterns, the last one `_`.
    pub(super) fn match_head(&mut self) -> (String, Vec<String>, bool) {
        let ints = self.int_vars(false);
        if ints.is_empty() || self.rng.chance(0.1) {
            self.used[C::MatchBool as usize] += 1;
            // A `bool` computed from floats is form Q.
            let (c, cf) = if self.allows(Bug::MatchOnFloatBool) {
                self.cond()
            } else {
                (self.int_cond(), false)
            };
            return (c, vec!["true".into(), "false".into()], cf);
        }
        let (i, _) = self.rng.pick(&ints).clone();
        let m = self.rng.range(2, 4);
        let scrutinee = if self.rng.chance(0.7) {
            format!("{i} % {m}")
        } else {
            i.clone()
        };
        let mut pats = vec!["0".to_string()];
        match self.rng.below(4) {
            0 => pats.push("1 | 2".into()),
            1 => pats.push("1..=2".into()),
            2 => {
                let (c, _) = (self.float_cond(), true);
                pats.push(format!("_ if {c}"));
            }
            _ => pats.push("m if m > 2".into()),
        }
        pats.push("_".into());
        (scrutinee, pats, false)
    }

    pub(super) fn match_stmt(&mut self) -> Stmt {
        self.used[C::MatchStmt as usize] += 1;
        self.arm_loop_writes.push(Vec::new());
        let (scrutinee, pats, cf) = self.match_head();
        let mut arms = Vec::new();
        for pat in pats {
            let mut b = if self.rng.chance(0.2) {
                Block::default()
            } else {
                self.arm(cf, 2)
            };
            if self.rng.chance(0.2) {
                if let Some(j) = self.jump_after(&b.stmts, cf) {
                    b.stmts.push(j);
                }
            }
            arms.push((pat, b));
        }
        self.freeze_loop_writes();
        let expr_arms = self.rng.chance(0.3);
        Stmt::Match {
            scrutinee,
            arms,
            expr_arms,
        }
    }

    /// A block used as a value: statements (maybe none) and a tail.
    pub(super) fn value_arm(&mut self, cond_active: bool, nested: u32) -> Block {
        self.value_arms += 1;
        let mut b = if self.rng.chance(0.5) {
            Block::default()
        } else {
            self.arm(cond_active, 2)
        };
        self.value_arms -= 1;
        self.frames.push(Frame::default());
        // The tail is in the arm's scope: a float the arm shadowed (`let a = a * 0.5;`, not
        // `mut`) is the shadow there, and may not be assigned (finding s4040-f164).
        for stmt in &b.stmts {
            if let Stmt::Let {
                name,
                mutable,
                init,
                ..
            } = stmt
            {
                if self.floats().iter().any(|f| f.name == *name) {
                    let active = self.active(&super::ast::expr_text(init));
                    self.declare_float(name, *mutable, false, active);
                }
            }
        }
        let tail = if nested < 1 && self.rng.chance(0.1) {
            self.if_value(nested + 1)
        } else {
            Expr::Text(self.float(self.cfg.expr_depth).s)
        };
        self.frames.pop();
        b.tail = Some(Box::new(tail));
        b
    }

    pub(super) fn if_value(&mut self, nested: u32) -> Expr {
        self.arm_loop_writes.push(Vec::new());
        let (cond, cf) = self.cond();
        let then = self.value_arm(cf, nested);
        let els = if self.rng.chance(0.2) && nested < 1 {
            self.used[C::ElseIf as usize] += 1;
            match self.if_value(nested + 1) {
                Expr::If(i) => Else::If(*i),
                _ => unreachable!(),
            }
        } else {
            Else::Block(self.value_arm(cf, nested))
        };
        self.freeze_loop_writes();
        Expr::If(Box::new(If {
            cond,
            active: cf,
            then,
            els: Some(Box::new(els)),
        }))
    }

    pub(super) fn let_if_value(&mut self) -> Stmt {
        self.used[C::LetIfValue as usize] += 1;
        let init = self.if_value(0);
        self.let_value(init)
    }

    /// `let name = init;` for an `if` or `match` value, typed if its arms are constants.
    pub(super) fn let_value(&mut self, init: Expr) -> Stmt {
        let name = self.fresh_name(None);
        let mutable = self.rng.chance(0.4);
        let text = super::ast::expr_text(&init);
        // Constant arms need the type, for a method called on the variable.
        let ty = if init.values_read_vars() {
            None
        } else {
            Some("f64")
        };
        let active = self.active(&text);
        self.declare_float(&name, mutable, false, active);
        Stmt::Let {
            name,
            mutable,
            ty,
            init,
        }
    }

    pub fn match_value(&mut self) -> Expr {
        self.arm_loop_writes.push(Vec::new());
        let (scrutinee, pats, cf) = self.match_head();
        let arms = pats
            .into_iter()
            .map(|p| (p, self.value_arm(cf, 1)))
            .collect();
        self.freeze_loop_writes();
        Expr::Match { scrutinee, arms }
    }

    pub(super) fn let_match_value(&mut self) -> Stmt {
        self.used[C::LetMatchValue as usize] += 1;
        let init = self.match_value();
        self.let_value(init)
    }

    pub(super) fn block_stmt(&mut self) -> Stmt {
        self.used[C::BlockStmt as usize] += 1;
        self.block_stmts += 1;
        let b = self.block(3, false);
        self.block_stmts -= 1;
        Stmt::Block(b)
    }

    // Loops.
}
