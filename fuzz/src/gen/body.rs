//! Statements: the generator's state (what is in scope, which loops and arms enclose the point
//! being written) and one function per kind of statement. Loops are bounded by construction:
//! `for` over short ranges, `while`/`loop` with a counter or a float that grows by at least 0.25
//! each iteration, incremented first so that `continue` cannot skip it.

use super::ast::{Block, Expr, Stmt};
use super::expr::E;
use super::rng::Rng;
use super::{Bug, Config, ParamKind, C};

#[derive(Clone, Debug)]
pub struct FloatVar {
    pub name: String,
    pub mutable: bool,
    /// `e` of `for e in w.iter()`: read as `*e`.
    pub deref: bool,
    /// A parameter or an element: |value| ≤ 2.
    pub small: bool,
    /// Depends on a differentiable parameter (once it does, for the rest of the function).
    pub active: bool,
}

#[derive(Clone, Debug)]
pub(super) struct IntVar {
    pub(super) name: String,
    /// Usable as an index and comparable with `usize` values (not an `i32` counter).
    pub(super) usize_ok: bool,
}

#[derive(Clone, Debug)]
pub(super) struct VecVar {
    pub(super) name: String,
    pub(super) len: usize,
    /// A vector written in a loop inside the `if` arm being generated (form L).
    pub(super) frozen: bool,
    pub(super) active: bool,
}

#[derive(Clone, Default)]
pub(super) struct Frame {
    pub(super) floats: Vec<FloatVar>,
    pub(super) ints: Vec<IntVar>,
    pub(super) vecs: Vec<VecVar>,
}

pub(super) struct LoopCtx {
    /// `conds.len()` when the loop was entered: the arms entered since are inside it.
    pub(super) conds_at_entry: usize,
    pub(super) block_stmts_at_entry: usize,
    pub(super) allow_continue: bool,
}

/// A function that the one being generated may call.
#[derive(Clone, Debug)]
pub struct Callee {
    pub name: String,
    /// Each parameter's kind, and whether the callee differentiates it (`wrt`).
    pub params: Vec<(ParamKind, bool)>,
    /// Whether it has second order (`order = 2` or 3), so its `grad_` and `jvp_` may be called.
    pub second_order: bool,
}

/// The slice, `Vec` or array parameter of the function being generated.
#[derive(Clone, Debug)]
pub struct SliceParam {
    pub name: String,
    pub kind: ParamKind,
    /// Constant indices stay below this.
    pub len: usize,
    /// Differentiated (not left out by `wrt`).
    pub active: bool,
}

pub struct Gen<'a> {
    pub rng: &'a mut Rng,
    pub cfg: &'a Config,
    pub used: Vec<u32>,
    pub methods: Vec<String>,
    pub callees: Vec<Callee>,
    pub calls_left: u32,
    pub slice: Option<SliceParam>,
    pub no_deref: bool,
    /// Statements left for the whole function.
    pub budget: i32,
    pub allow_return: bool,
    pub(super) frames: Vec<Frame>,
    pub(super) loops: Vec<LoopCtx>,
    /// For each enclosing `if`/`match` arm: whether its condition involves a float.
    pub(super) conds: Vec<bool>,
    /// Enclosing block statements `{ … }`.
    pub(super) block_stmts: usize,
    /// Enclosing arms of `if`s and `match`es used as values.
    pub(super) value_arms: usize,
    /// Vectors written in loops, per enclosing `if` statement (form L).
    pub(super) arm_loop_writes: Vec<Vec<String>>,
    pub(super) returned: bool,
    pub(super) fresh: usize,
    /// Progress variables of loops: never shadowed, or the loop might not end.
    pub(super) pinned: Vec<String>,
    /// Assignments of values that depend on a differentiable parameter, so far.
    pub(super) active_writes: usize,
    /// For each arm or loop body being generated: the variables that stopped depending on a
    /// differentiable parameter in it (see `assigned`).
    pub(super) downgrades: Vec<Vec<String>>,
    /// Float parameters left out by `wrt` (shadowing one is form W).
    pub const_params: Vec<String>,
}

impl<'a> Gen<'a> {
    pub fn new(rng: &'a mut Rng, cfg: &'a Config) -> Self {
        Gen {
            rng,
            cfg,
            used: vec![0; C::COUNT],
            methods: Vec::new(),
            callees: Vec::new(),
            calls_left: 2,
            slice: None,
            no_deref: false,
            budget: 10,
            allow_return: true,
            frames: vec![Frame::default()],
            loops: Vec::new(),
            conds: Vec::new(),
            block_stmts: 0,
            value_arms: 0,
            arm_loop_writes: Vec::new(),
            returned: false,
            fresh: 0,
            pinned: Vec::new(),
            active_writes: 0,
            downgrades: Vec::new(),
            const_params: Vec::new(),
        }
    }

    pub fn note_method(&mut self, name: &str) {
        if !self.methods.iter().any(|m| m == name) {
            self.methods.push(name.to_string());
        }
    }

    pub(super) fn w(&self, c: C) -> u32 {
        self.cfg.weights[c as usize]
    }

    pub(super) fn allows(&self, b: Bug) -> bool {
        self.cfg.bugs.allows(b)
    }

    // Scope.

    pub fn can_call(&self) -> bool {
        self.calls_left > 0
            && self.callees.iter().any(|c| self.can_pass(c))
            && (self.slice.is_none() || self.allows(Bug::CallInSliceFn))
    }

    /// Whether there is something to pass for each of `c`'s parameters (a vector for a slice).
    pub(super) fn can_pass(&self, c: &Callee) -> bool {
        let vectors = self.slice.is_some() || self.frames.iter().any(|f| !f.vecs.is_empty());
        c.params
            .iter()
            .all(|(p, _)| !matches!(p, ParamKind::Slice | ParamKind::VecParam) || vectors)
    }

    /// A call of a helper, with arguments of its parameter kinds.
    pub fn call(&mut self, depth: u32) -> E {
        self.calls_left -= 1;
        self.used[C::Call as usize] += 1;
        let callees: Vec<Callee> = self
            .callees
            .iter()
            .filter(|c| self.can_pass(c))
            .cloned()
            .collect();
        let callee = self.rng.pick(&callees).clone();
        let differentiable = callee.params.iter().filter(|(_, d)| *d).count();
        let numbers = callee
            .params
            .iter()
            .all(|(p, d)| !d || *p == ParamKind::Float);
        let nested = callee.second_order
            && differentiable > 0
            && numbers
            && self.rng.chance(self.w(C::Nested) as f64 / 100.0);
        let mut args = self.call_arguments(&callee, depth);
        if nested {
            self.used[C::Nested as usize] += 1;
            if self.rng.chance(0.5) {
                let call = format!("grad_{}({})", callee.name, args.join(", "));
                return match differentiable {
                    1 => E::new(call, 0),
                    n => E::new(format!("{call}.{}", self.rng.range(0, n - 1)), 0),
                };
            }
            for _ in 0..differentiable {
                args.push(self.float(depth).s);
            }
            let part = self.rng.range(0, 1);
            return E::new(
                format!("jvp_{}({}).{part}", callee.name, args.join(", ")),
                0,
            );
        }
        E::new(format!("{}({})", callee.name, args.join(", ")), 0)
    }

    /// Arguments of `callee`'s parameter kinds.
    fn call_arguments(&mut self, callee: &Callee, depth: u32) -> Vec<String> {
        let mut args = Vec::new();
        for (p, diff) in &callee.params {
            args.push(match p {
                // A differentiable value for a parameter left out by `wrt` is a compile error.
                ParamKind::Float if !diff => super::expr::constant(self.rng),
                ParamKind::Float => self.float(depth).s,
                ParamKind::Usize => {
                    let ints = self.int_vars(true);
                    if !ints.is_empty() && self.rng.chance(0.6) {
                        format!("{} % 4", self.rng.pick(&ints).0)
                    } else {
                        self.rng.range(0, 3).to_string()
                    }
                }
                ParamKind::Slice | ParamKind::VecParam => self.vec_argument(),
                ParamKind::Array(len) => self.array_argument(*len, depth),
                // Only a function that no other calls is packed.
                ParamKind::Pair | ParamKind::Fields => unreachable!("a helper is not packed"),
            });
        }
        args
    }

    /// `w` (the slice parameter) or `&v` (a local vector) for a `&[f64]` parameter (form G).
    pub(super) fn vec_argument(&mut self) -> String {
        let locals: Vec<String> = self
            .frames
            .iter()
            .flat_map(|f| f.vecs.iter().map(|v| format!("&{}", v.name)))
            .collect();
        match &self.slice {
            Some(s) if locals.is_empty() || self.rng.chance(0.5) => match s.kind {
                ParamKind::Slice => s.name.clone(),
                _ => format!("&{}", s.name),
            },
            _ => self.rng.pick(&locals).clone(),
        }
    }

    /// `[a, b, c]` or the array parameter (form H).
    pub(super) fn array_argument(&mut self, len: usize, depth: u32) -> String {
        if let Some(s) = &self.slice {
            if s.kind == ParamKind::Array(len) && self.rng.chance(0.5) {
                return s.name.clone();
            }
        }
        let items: Vec<String> = (0..len).map(|_| self.float(depth).s).collect();
        format!("[{}]", items.join(", "))
    }

    // Blocks.

    /// A block of one to `max` statements in a new scope. `last_free`: the block's last
    /// statement may be anything (it is followed by a jump or a tail).
    pub fn block(&mut self, max: usize, loop_body: bool) -> Block {
        self.frames.push(Frame::default());
        let n = self.rng.range(1, max.max(1));
        let mut stmts = Vec::new();
        for _ in 0..n {
            if self.budget <= 0 {
                break;
            }
            stmts.extend(self.stmt());
        }
        // In the block's scope: a filler may update only what is visible here.
        self.fix_last(&mut stmts, loop_body);
        self.frames.pop();
        Block::new(stmts)
    }

    /// Forms D and E put a filler statement after a block statement, or a statement holding a
    /// jump, that would be last in its block; a loop body may end with a plain
    /// `if s > 1.0 { …; break; }`.
    pub(super) fn fix_last(&mut self, stmts: &mut Vec<Stmt>, loop_body: bool) {
        let bad = match stmts.last() {
            Some(Stmt::Block(_)) => !self.allows(Bug::BlockStmtLast),
            Some(Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(_)) => false,
            Some(s) if s.any_jump() && !(loop_body && s.is_simple_jump_if()) => {
                !self.allows(Bug::LoopWithJumpLast)
            }
            _ => false,
        };
        // E, too: after statements that hold jumps, a block ends with a write of a differentiable
        // value, not with one that computes constants only.
        let jumps = stmts.iter().rev().skip(1).any(Stmt::any_jump);
        let inert_last = match stmts.last() {
            Some(Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(_)) | None => false,
            Some(Stmt::Assign { value, .. } | Stmt::Let { init: value, .. }) => {
                !self.active(&super::ast::expr_text(value))
            }
            Some(_) => true,
        };
        if bad || (jumps && inert_last && !self.allows(Bug::LoopWithJumpLast)) {
            if let Some(s) = self.active_filler() {
                stmts.push(s);
            }
        }
    }

    /// An update of a variable that depends on a differentiable parameter, or a `let` of such a
    /// value.
    pub(super) fn active_filler(&mut self) -> Option<Stmt> {
        let targets: Vec<String> = self
            .mutable_floats()
            .into_iter()
            .filter(|t| self.active(t))
            .collect();
        if targets.is_empty() {
            // A value that depends on a parameter, under a new name.
            let name = self.fresh_name(None);
            let mut init = self.float(1);
            if !self.active(&init.s) {
                init = self.active_atom();
            }
            self.declare_float(&name, false, false, true);
            return Some(Stmt::Let {
                name,
                mutable: false,
                ty: None,
                init: Expr::Text(init.s),
            });
        }
        let target = self.rng.pick(&targets).clone();
        let mut b = self.bounded(1);
        if !self.active(&b.s) {
            let a = self.active_atom();
            b = E::new(format!("{} + 0.5 * {}", b.at(3), a.at(1)), 3);
        }
        self.assigned(&target, &b.s);
        Some(Stmt::Assign {
            target,
            op: "+=",
            value: Expr::Text(b.s),
        })
    }

    /// A plain update of a variable in scope (or a fresh `let`).
    pub(super) fn filler(&mut self) -> Option<Stmt> {
        let targets = self.mutable_floats();
        if targets.is_empty() {
            let name = self.fresh_name(None);
            let init = self.float(1);
            return Some(Stmt::Let {
                name,
                mutable: false,
                ty: None,
                init: Expr::Text(init.s),
            });
        }
        let target = self.rng.pick(&targets).clone();
        let b = self.bounded(1);
        Some(Stmt::Assign {
            target,
            op: "+=",
            value: Expr::Text(b.s),
        })
    }

    /// One statement (two for a loop with its counter).
    pub fn stmt(&mut self) -> Vec<Stmt> {
        self.budget -= 1;
        let top = self.frames.len() == 1;
        let nest = self.conds.len() + self.loops.len() + self.block_stmts;
        let deep = nest >= self.cfg.max_nesting;
        let in_loop = !self.loops.is_empty();
        let loops_ok = self.loops.len() < self.cfg.max_loop_depth && !deep;
        let has_mut = !self.mutable_floats().is_empty();
        let vec_ok = top && (!self.returned || self.allows(Bug::VecAfterReturn));
        // Nested blocks mostly update the variables outside them: a value declared there and
        // read by nothing would test nothing.
        let let_w = if !top && has_mut {
            self.w(C::LetFloat) / 3
        } else {
            self.w(C::LetFloat)
        };
        let w = [
            let_w,
            if deep { 0 } else { self.w(C::LetIfValue) },
            if deep || !self.can_match() {
                0
            } else {
                self.w(C::LetMatchValue)
            },
            if vec_ok { self.w(C::LetVec) } else { 0 },
            if has_mut { self.w(C::Assign) } else { 0 },
            if self.writable_vecs().is_empty() {
                0
            } else {
                self.w(C::VecWrite)
            },
            if deep { 0 } else { self.w(C::IfStmt) },
            if deep || !self.allows(Bug::MatchStmt) || !self.can_match() {
                0
            } else {
                self.w(C::MatchStmt)
            },
            if loops_ok { self.w(C::ForRange) } else { 0 },
            if loops_ok && self.slice.is_some() {
                self.w(C::ForElems)
            } else {
                0
            },
            if loops_ok { self.w(C::WhileCounter) } else { 0 },
            if loops_ok { self.w(C::WhileFloat) } else { 0 },
            if loops_ok && (self.value_arms == 0 || self.allows(Bug::JumpInValueArm)) {
                self.w(C::LoopBreak)
            } else {
                0
            },
            if deep { 0 } else { self.w(C::BlockStmt) },
            self.w(C::Shadow),
            if top { self.w(C::ConstItem) } else { 0 },
            self.w(C::Assert),
            if in_loop || self.allow_return {
                self.w(C::JumpIf)
            } else {
                0
            },
            // An integer count: declared at the top, incremented anywhere (in a loop, form V).
            if top || (self.counts_declared() && (!in_loop || self.allows(Bug::InertIf))) {
                self.w(C::IntCount)
            } else {
                0
            },
            if loops_ok && self.frames.iter().any(|f| !f.vecs.is_empty()) {
                self.w(C::ForLocal)
            } else {
                0
            },
        ];
        if w.iter().all(|&x| x == 0) {
            return vec![self.let_float()];
        }
        match self.rng.weighted(&w) {
            0 => vec![self.let_float()],
            1 => vec![self.let_if_value()],
            2 => vec![self.let_match_value()],
            3 => vec![self.let_vec()],
            4 => vec![self.assign()],
            5 => vec![self.vec_write()],
            6 => vec![self.inert_checked_if(false)],
            7 => vec![self.match_stmt()],
            8 => self.inert_checked_loop(|g| vec![g.for_range()]),
            9 => self.inert_checked_loop(|g| vec![g.for_elems()]),
            10 => self.inert_checked_loop(Self::while_counter),
            11 => self.inert_checked_loop(Self::while_float),
            12 => self.inert_checked_loop(Self::loop_break),
            13 => vec![self.block_stmt()],
            14 => vec![self.shadow()],
            15 => vec![self.const_item()],
            16 => vec![self.assert()],
            17 => vec![self.inert_checked_if(true)],
            18 => vec![self.int_count()],
            _ => self.inert_checked_loop(|g| vec![g.for_local()]),
        }
    }

    /// A loop that holds a jump but writes no differentiable value is form V (its integer work
    /// is dropped, or it does not compile in an arm): without V, a plain update instead.
    fn inert_checked_loop(&mut self, make: impl FnOnce(&mut Self) -> Vec<Stmt>) -> Vec<Stmt> {
        let writes = self.active_writes;
        // The loop may declare its counter or progress variable here: undone with it.
        let frame = self.frames.last().cloned().unwrap_or_default();
        let stmts = make(self);
        let inert = self.active_writes == writes && stmts.iter().any(Stmt::any_jump);
        if inert && !self.allows(Bug::InertIf) {
            *self.frames.last_mut().unwrap() = frame;
            return self.filler().into_iter().collect();
        }
        stmts
    }

    fn counts_declared(&self) -> bool {
        self.int_vars(false)
            .iter()
            .any(|(n, _)| n.starts_with("cnt"))
    }

    /// `let mut cnt = 0;` at the top, `cnt += 1;` (or `+= 2`) elsewhere: integer bookkeeping that
    /// reaches the result through `cnt as f64`.
    fn int_count(&mut self) -> Stmt {
        self.used[C::IntCount as usize] += 1;
        let counts: Vec<String> = self
            .int_vars(false)
            .into_iter()
            .filter(|(n, _)| n.starts_with("cnt"))
            .map(|(n, _)| n)
            .collect();
        if counts.is_empty() || (self.frames.len() == 1 && self.rng.chance(0.3)) {
            let name = self.fresh_name(Some("cnt"));
            self.declare_int(&name, true);
            return Stmt::Let {
                name,
                mutable: true,
                ty: None,
                init: Expr::Text("0".into()),
            };
        }
        let target = self.rng.pick(&counts).clone();
        let by = if self.rng.chance(0.7) { "1" } else { "2" };
        Stmt::Assign {
            target,
            op: "+=",
            value: Expr::Text(by.into()),
        }
    }

    pub(super) fn let_float(&mut self) -> Stmt {
        self.used[C::LetFloat as usize] += 1;
        let name = self.fresh_name(None);
        let init = self.float(self.cfg.expr_depth);
        let mutable = self.rng.chance(0.6);
        // A constant needs its type where a method may be called on it.
        let ty = if self.rng.chance(0.15) || !super::expr::has_var(&init.s) {
            Some("f64")
        } else {
            None
        };
        let active = self.active(&init.s);
        self.declare_float(&name, mutable, false, active);
        Stmt::Let {
            name,
            mutable,
            ty,
            init: Expr::Text(init.s),
        }
    }

    pub(super) fn shadow(&mut self) -> Stmt {
        // Not a `const` (`let K0 = …` would be a pattern), nor a loop's progress variable.
        let floats: Vec<FloatVar> = self
            .floats()
            .into_iter()
            .filter(|f| !f.deref && !f.name.starts_with('K') && !self.pinned.contains(&f.name))
            .filter(|f| !self.const_params.contains(&f.name) || self.allows(Bug::ShadowConstParam))
            .collect();
        if floats.is_empty() {
            return self.let_float();
        }
        self.used[C::Shadow as usize] += 1;
        let v = self.rng.pick(&floats).clone();
        let b = self.bounded(1);
        let init = E::new(format!("{} * {}", v.name, b.at(1)), 2);
        let mutable = self.rng.chance(0.3);
        let active = self.active(&init.s);
        self.declare_float(&v.name, mutable, false, active);
        Stmt::Let {
            name: v.name,
            mutable,
            ty: None,
            init: Expr::Text(init.s),
        }
    }

    pub(super) fn const_item(&mut self) -> Stmt {
        self.used[C::ConstItem as usize] += 1;
        let name = format!("K{}", self.fresh);
        self.fresh += 1;
        let v = *self.rng.pick(&["0.5", "1.5", "0.25", "2.0"]);
        // A const is visible in the whole block: declare it as a readable float.
        self.declare_float(&name, false, true, false);
        Stmt::Raw(format!("const {name}: f64 = {v};"))
    }

    pub(super) fn assert(&mut self) -> Stmt {
        self.used[C::Assert as usize] += 1;
        // `*e` of `w.iter()` in an `assert!` is form J, as in a condition.
        self.no_deref = !self.allows(Bug::IterDerefInCond);
        let mut a = self.float(1);
        if !super::expr::has_var(&a.s) {
            a = self.float(0);
        }
        self.no_deref = false;
        if !super::expr::has_var(&a.s) {
            return self.let_float();
        }
        Stmt::Raw(format!("assert!({}.is_finite());", a.at(0)))
    }

    pub(super) fn assign(&mut self) -> Stmt {
        let targets = self.mutable_floats();
        let target = self.rng.pick(&targets).clone();
        self.used[C::Assign as usize] += 1;
        let (op, mut value) = self.update();
        // `c /= 1.0 + c * c` on a constant `c` loses its parentheses (form Z).
        if op != "=" && !self.active(&target) && !self.allows(Bug::CompoundAssignConstant) {
            if let Expr::Text(t) = &value {
                if super::expr::has_var(t) || t.contains(' ') {
                    value = Expr::Text(format!("({t})"));
                }
            }
        }
        self.assigned(&target, &super::ast::expr_text(&value));
        Stmt::Assign { target, op, value }
    }

    /// An operator and value that keep the target bounded: `= N`, `+= B`, `-= B`, `*= F`,
    /// `/= (1 + B²)`; now and then `= if … { … } else { … }`.
    pub(super) fn update(&mut self) -> (&'static str, Expr) {
        let d = self.cfg.expr_depth;
        match self.rng.below(7) {
            0 | 1 => {
                if self.rng.chance(0.15)
                    && self.conds.len() + self.loops.len() < self.cfg.max_nesting
                {
                    self.used[C::IfExpr as usize] += 1;
                    let e = self.if_value(0);
                    // A constant assigned to a variable is form X.
                    if e.values_read_vars() || self.allows(Bug::ConstAssign) {
                        return ("=", e);
                    }
                }
                let mut e = self.float(d);
                if !super::expr::has_var(&e.s) && !self.allows(Bug::ConstAssign) {
                    e = self.var_atom();
                }
                ("=", Expr::Text(e.s))
            }
            2 => ("+=", Expr::Text(self.bounded(d).s)),
            3 => ("-=", Expr::Text(self.bounded(d).s)),
            4 | 5 => ("*=", Expr::Text(self.factor(d).s)),
            _ => {
                let b = self.bounded(d.saturating_sub(1));
                ("/=", Expr::Text(format!("1.0 + {} * {}", b.at(1), b.at(1))))
            }
        }
    }

    pub(super) fn let_vec(&mut self) -> Stmt {
        self.used[C::LetVec as usize] += 1;
        let base = if self.rng.chance(0.7) { "v" } else { "arr" };
        let name = self.fresh_name(Some(base));
        let array = name.starts_with("arr");
        let mut ty = None;
        let (init, len) = match self.rng.below(3) {
            0 => {
                // Zeros need their type: `0.0_f64`, or `: Vec<f64>` on the `let`.
                let len = self.rng.range(2, 4);
                let open = if array { "[" } else { "vec![" };
                if self.rng.chance(0.5) {
                    ty = Some(if array {
                        ["[f64; 2]", "[f64; 3]", "[f64; 4]"][len - 2]
                    } else {
                        "Vec<f64>"
                    });
                    (format!("{open}0.0; {len}]"), len)
                } else {
                    (format!("{open}0.0_f64; {len}]"), len)
                }
            }
            _ => {
                let len = self.rng.range(2, 3);
                let items: Vec<String> = (0..len).map(|_| self.float(1).s).collect();
                // Constants need their type, for a method called on an element.
                if items.iter().all(|i| !super::expr::has_var(i)) {
                    ty = Some(if array {
                        ["[f64; 2]", "[f64; 3]"][len - 2]
                    } else {
                        "Vec<f64>"
                    });
                }
                (
                    format!("{}{}]", if array { "[" } else { "vec![" }, items.join(", ")),
                    len,
                )
            }
        };
        let active = self.active(&init);
        self.declare_vec(&name, len, active);
        Stmt::Let {
            name,
            mutable: true,
            ty,
            init: Expr::Text(init),
        }
    }

    pub(super) fn vec_write(&mut self) -> Stmt {
        self.used[C::VecWrite as usize] += 1;
        let vecs = self.writable_vecs();
        let (name, len) = self.rng.pick(&vecs).clone();
        if !self.loops.is_empty() {
            if let Some(w) = self.arm_loop_writes.last_mut() {
                w.push(name.clone());
            }
        }
        if name.starts_with("arr") && self.rng.chance(self.w(C::ArrayReplace) as f64 / 100.0) {
            return self.array_replace(name, len);
        }
        if name.starts_with('v') && self.rng.chance(self.w(C::Push) as f64 / 100.0) {
            return self.push(name);
        }
        let idx = self.index(len);
        let (op, value) = self.update();
        self.assigned(&name, &super::ast::expr_text(&value));
        Stmt::Assign {
            target: format!("{name}[{idx}]"),
            op,
            value,
        }
    }

    /// `v.push(e)`: the vector grows (its elements below the length it was declared with stay
    /// readable).
    fn push(&mut self, name: String) -> Stmt {
        self.used[C::Push as usize] += 1;
        let value = self.float(1).s;
        self.assigned(&name, &value);
        Stmt::Raw(format!("{name}.push({value});"))
    }

    /// `arr = [arr[1] * 0.5 + e, …]`: every element read before any is written.
    fn array_replace(&mut self, name: String, len: usize) -> Stmt {
        self.used[C::ArrayReplace as usize] += 1;
        let items: Vec<String> = (0..len)
            .map(|i| format!("{name}[{}] * 0.5 + {}", (i + 1) % len, self.float(1).s))
            .collect();
        let value = Expr::Text(format!("[{}]", items.join(", ")));
        self.assigned(&name, &super::ast::expr_text(&value));
        Stmt::Assign {
            target: name,
            op: "=",
            value,
        }
    }

    // Branches.

    /// The function's result: a combination of the variables in scope, sometimes an `if` or
    /// `match` value.
    pub fn tail(&mut self) -> Expr {
        match self.rng.below(8) {
            0 => {
                self.used[C::IfExpr as usize] += 1;
                self.if_value(1)
            }
            1 if self.can_match() => {
                self.used[C::LetMatchValue as usize] += 1;
                self.match_value()
            }
            _ => {
                // Every variable declared at the top level that a loop or branch may have updated,
                // and an element of each vector: what went wrong anywhere shows in the result.
                let mut terms: Vec<String> = self.frames[0]
                    .floats
                    .iter()
                    .filter(|f| !f.small && !f.deref)
                    .map(|f| f.name.clone())
                    .collect();
                self.rng.shuffle(&mut terms);
                terms.truncate(5);
                for (v, len) in self.readable_vecs().into_iter().take(3) {
                    // The last element of a `Vec`: the one pushed last, if any was.
                    if v.starts_with('v') && self.rng.chance(0.5) {
                        terms.push(format!("{v}[{v}.len() - 1]"));
                    } else {
                        terms.push(format!("{v}[{}]", self.rng.below(len)));
                    }
                }
                terms.push(self.float(1).at(2));
                Expr::Text(terms.join(" + "))
            }
        }
    }
}
