//! Statements: the generator's state (what is in scope, which loops and arms enclose the point
//! being written) and one function per kind of statement. Loops are bounded by construction:
//! `for` over short ranges, `while`/`loop` with a counter or a float that grows by at least 0.25
//! each iteration, incremented first so that `continue` cannot skip it.

use super::ast::{Block, Else, Expr, If, Stmt};
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
struct IntVar {
    name: String,
    /// Usable as an index and comparable with `usize` values (not an `i32` counter).
    usize_ok: bool,
}

#[derive(Clone, Debug)]
struct VecVar {
    name: String,
    len: usize,
    /// A vector written in a loop inside the `if` arm being generated (form L).
    frozen: bool,
    active: bool,
}

#[derive(Default)]
struct Frame {
    floats: Vec<FloatVar>,
    ints: Vec<IntVar>,
    vecs: Vec<VecVar>,
}

struct LoopCtx {
    /// `conds.len()` when the loop was entered: the arms entered since are inside it.
    conds_at_entry: usize,
    block_stmts_at_entry: usize,
    allow_continue: bool,
}

/// A function that the one being generated may call.
#[derive(Clone, Debug)]
pub struct Callee {
    pub name: String,
    pub params: Vec<ParamKind>,
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
    frames: Vec<Frame>,
    loops: Vec<LoopCtx>,
    /// For each enclosing `if`/`match` arm: whether its condition involves a float.
    conds: Vec<bool>,
    /// Enclosing block statements `{ … }`.
    block_stmts: usize,
    /// Enclosing arms of `if`s and `match`es used as values.
    value_arms: usize,
    /// Vectors written in loops, per enclosing `if` statement (form L).
    arm_loop_writes: Vec<Vec<String>>,
    returned: bool,
    fresh: usize,
    /// Progress variables of loops: never shadowed, or the loop might not end.
    pinned: Vec<String>,
    /// Assignments of values that depend on a differentiable parameter, so far.
    active_writes: usize,
    /// Float parameters left out by `wrt` (shadowing one is form W).
    pub const_params: Vec<String>,
}

const FLOAT_NAMES: [&str; 10] = ["a", "b", "c", "s", "t", "u", "p", "q", "r", "g"];

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
            const_params: Vec::new(),
        }
    }

    pub fn note_method(&mut self, name: &str) {
        if !self.methods.iter().any(|m| m == name) {
            self.methods.push(name.to_string());
        }
    }

    fn w(&self, c: C) -> u32 {
        self.cfg.weights[c as usize]
    }

    fn allows(&self, b: Bug) -> bool {
        self.cfg.bugs.allows(b)
    }

    // Scope.

    pub fn declare_float(&mut self, name: &str, mutable: bool, small: bool, active: bool) {
        let f = self.frames.last_mut().unwrap();
        f.floats.retain(|v| v.name != name);
        f.floats.push(FloatVar {
            name: name.to_string(),
            mutable,
            deref: false,
            small,
            active,
        });
    }

    fn declare_deref(&mut self, name: &str, active: bool) {
        self.frames.last_mut().unwrap().floats.push(FloatVar {
            name: name.to_string(),
            mutable: false,
            deref: true,
            small: true,
            active,
        });
    }

    /// Whether `text` reads a value that depends on a differentiable parameter.
    pub fn active(&self, text: &str) -> bool {
        let slice = self
            .slice
            .as_ref()
            .filter(|s| s.active)
            .map(|s| s.name.as_str());
        super::expr::idents(text).into_iter().any(|name| {
            Some(name) == slice
                || self.frames.iter().rev().find_map(|f| {
                    f.floats
                        .iter()
                        .rev()
                        .find(|v| v.name == name)
                        .map(|v| v.active)
                        .or_else(|| f.vecs.iter().find(|v| v.name == name).map(|v| v.active))
                }) == Some(true)
        })
    }

    /// After `target = value` (`target` a variable or `v[i]`): the target depends on what the
    /// value depends on.
    fn assigned(&mut self, target: &str, value: &str) {
        if !self.active(value) {
            return;
        }
        self.active_writes += 1;
        let name = target.split('[').next().unwrap_or(target);
        for f in self.frames.iter_mut().rev() {
            if let Some(v) = f.floats.iter_mut().rev().find(|v| v.name == name) {
                v.active = true;
                return;
            }
            if let Some(v) = f.vecs.iter_mut().find(|v| v.name == name) {
                v.active = true;
                return;
            }
        }
    }

    pub fn declare_int(&mut self, name: &str, usize_ok: bool) {
        self.frames.last_mut().unwrap().ints.push(IntVar {
            name: name.to_string(),
            usize_ok,
        });
    }

    fn declare_vec(&mut self, name: &str, len: usize, active: bool) {
        self.frames.last_mut().unwrap().vecs.push(VecVar {
            name: name.to_string(),
            len,
            frozen: false,
            active,
        });
    }

    /// Every float in scope, the innermost declaration of each name.
    fn floats(&self) -> Vec<FloatVar> {
        let mut out: Vec<FloatVar> = Vec::new();
        for f in self.frames.iter().rev() {
            for v in f.floats.iter().rev() {
                if !out.iter().any(|o| o.name == v.name) {
                    out.push(v.clone());
                }
            }
        }
        out
    }

    pub fn readable_floats(&self) -> Vec<FloatVar> {
        let mut v = self.floats();
        if self.no_deref {
            v.retain(|f| !f.deref);
        }
        v
    }

    pub fn small_floats(&self) -> Vec<FloatVar> {
        let mut v = self.readable_floats();
        v.retain(|f| f.small);
        v
    }

    fn mutable_floats(&self) -> Vec<String> {
        self.floats()
            .into_iter()
            .filter(|f| f.mutable)
            .map(|f| f.name)
            .collect()
    }

    /// Integers in scope, as (name, usable as usize); only the usize ones with `index_only`.
    pub fn int_vars(&self, index_only: bool) -> Vec<(String, bool)> {
        let mut out = Vec::new();
        for f in &self.frames {
            for v in &f.ints {
                if !index_only || v.usize_ok {
                    out.push((v.name.clone(), v.usize_ok));
                }
            }
        }
        out
    }

    /// Vectors that may be read: local ones and the slice parameter, as (name, length).
    pub fn readable_vecs(&self) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = self
            .frames
            .iter()
            .flat_map(|f| f.vecs.iter().map(|v| (v.name.clone(), v.len)))
            .collect();
        if let Some(s) = &self.slice {
            out.push((s.name.clone(), s.len));
        }
        out
    }

    /// Whether a `match` can be written here: on an integer, or on a `bool` from floats (form Q).
    fn can_match(&self) -> bool {
        !self.int_vars(false).is_empty() || self.allows(Bug::MatchOnFloatBool)
    }

    /// Local vectors that may be written here.
    fn writable_vecs(&self) -> Vec<(String, usize)> {
        if self.loops.len() >= 2 && !self.allows(Bug::VecWriteNestedLoop) {
            return Vec::new();
        }
        self.frames
            .iter()
            .flat_map(|f| f.vecs.iter())
            .filter(|v| !v.frozen)
            .map(|v| (v.name.clone(), v.len))
            .collect()
    }

    fn fresh_name(&mut self, base: Option<&str>) -> String {
        let k = self.fresh;
        self.fresh += 1;
        let base = base.unwrap_or(FLOAT_NAMES[k % FLOAT_NAMES.len()]);
        let taken = |n: &str, g: &Gen| {
            g.frames.iter().any(|f| {
                f.floats.iter().any(|v| v.name == n)
                    || f.ints.iter().any(|v| v.name == n)
                    || f.vecs.iter().any(|v| v.name == n)
            })
        };
        if !taken(base, self) && self.fresh <= FLOAT_NAMES.len() {
            return base.to_string();
        }
        let mut i = 1;
        loop {
            let n = format!("{base}{i}");
            if !taken(&n, self) && !["t1", "x1", "x2"].contains(&n.as_str()) || i > 50 {
                return n;
            }
            i += 1;
        }
    }

    pub fn can_call(&self) -> bool {
        self.calls_left > 0
            && self.callees.iter().any(|c| self.can_pass(c))
            && (self.slice.is_none() || self.allows(Bug::CallInSliceFn))
    }

    /// Whether there is something to pass for each of `c`'s parameters (a vector for a slice).
    fn can_pass(&self, c: &Callee) -> bool {
        let vectors = self.slice.is_some() || self.frames.iter().any(|f| !f.vecs.is_empty());
        c.params
            .iter()
            .all(|p| !matches!(p, ParamKind::Slice | ParamKind::VecParam) || vectors)
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
        let mut args = Vec::new();
        for p in &callee.params {
            args.push(match p {
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
            });
        }
        E::new(format!("{}({})", callee.name, args.join(", ")), 0)
    }

    /// `w` (the slice parameter) or `&v` (a local vector) for a `&[f64]` parameter (form G).
    fn vec_argument(&mut self) -> String {
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
    fn array_argument(&mut self, len: usize, depth: u32) -> String {
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
        self.frames.pop();
        self.fix_last(&mut stmts, loop_body);
        Block::new(stmts)
    }

    /// Forms D and E put a filler statement after a block statement, or a statement holding a
    /// jump, that would be last in its block: in a loop body, a loop with a jump or an `if` on no
    /// differentiable value with one; in an arm or block, any statement holding one.
    fn fix_last(&mut self, stmts: &mut Vec<Stmt>, loop_body: bool) {
        let bad = match stmts.last() {
            Some(Stmt::Block(_)) => !self.allows(Bug::BlockStmtLast),
            Some(Stmt::Break | Stmt::Continue | Stmt::Return(_)) => false,
            Some(s)
                if s.is_loop_with_jump()
                    || s.is_int_if_with_jump()
                    || (!loop_body && s.any_jump()) =>
            {
                !self.allows(Bug::LoopWithJumpLast)
            }
            _ => false,
        };
        if bad {
            if let Some(s) = self.filler() {
                stmts.push(s);
            }
        }
    }

    /// A plain update of a variable in scope (or a fresh `let`).
    fn filler(&mut self) -> Option<Stmt> {
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
            8 => vec![self.for_range()],
            9 => vec![self.for_elems()],
            10 => self.while_counter(),
            11 => self.while_float(),
            12 => self.loop_break(),
            13 => vec![self.block_stmt()],
            14 => vec![self.shadow()],
            15 => vec![self.const_item()],
            16 => vec![self.assert()],
            _ => vec![self.inert_checked_if(true)],
        }
    }

    fn let_float(&mut self) -> Stmt {
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

    fn shadow(&mut self) -> Stmt {
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

    fn const_item(&mut self) -> Stmt {
        self.used[C::ConstItem as usize] += 1;
        let name = format!("K{}", self.fresh);
        self.fresh += 1;
        let v = *self.rng.pick(&["0.5", "1.5", "0.25", "2.0"]);
        // A const is visible in the whole block: declare it as a readable float.
        self.declare_float(&name, false, true, false);
        Stmt::Raw(format!("const {name}: f64 = {v};"))
    }

    fn assert(&mut self) -> Stmt {
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

    fn assign(&mut self) -> Stmt {
        let targets = self.mutable_floats();
        let target = self.rng.pick(&targets).clone();
        self.used[C::Assign as usize] += 1;
        let (op, value) = self.update();
        self.assigned(&target, &super::ast::expr_text(&value));
        Stmt::Assign { target, op, value }
    }

    /// An operator and value that keep the target bounded: `= N`, `+= B`, `-= B`, `*= F`,
    /// `/= (1 + B²)`; now and then `= if … { … } else { … }`.
    fn update(&mut self) -> (&'static str, Expr) {
        let d = self.cfg.expr_depth;
        match self.rng.below(7) {
            0 | 1 => {
                if self.rng.chance(0.15)
                    && self.conds.len() + self.loops.len() < self.cfg.max_nesting
                {
                    self.used[C::IfExpr as usize] += 1;
                    let e = self.if_value(0);
                    return ("=", e);
                }
                ("=", Expr::Text(self.float(d).s))
            }
            2 => ("+=", Expr::Text(self.bounded(d).s)),
            3 => ("-=", Expr::Text(self.bounded(d).s)),
            4 | 5 => ("*=", Expr::Text(self.factor(d).s)),
            _ => {
                let b = self.bounded(d - 1);
                ("/=", Expr::Text(format!("1.0 + {} * {}", b.at(1), b.at(1))))
            }
        }
    }

    fn let_vec(&mut self) -> Stmt {
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

    fn vec_write(&mut self) -> Stmt {
        self.used[C::VecWrite as usize] += 1;
        let vecs = self.writable_vecs();
        let (name, len) = self.rng.pick(&vecs).clone();
        if !self.loops.is_empty() {
            if let Some(w) = self.arm_loop_writes.last_mut() {
                w.push(name.clone());
            }
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

    // Branches.

    /// An arm: a block whose condition is recorded for the jumps inside it.
    fn arm(&mut self, cond_active: bool, max: usize) -> Block {
        self.conds.push(cond_active);
        let b = self.block(max, false);
        self.conds.pop();
        b
    }

    /// The jump a conditional arm may end with, if any is allowed here.
    fn jump(&mut self, cond_active: bool) -> Option<Stmt> {
        let mut options: Vec<(u32, u8)> = Vec::new();
        if let Some(l) = self.loops.last() {
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
                Stmt::Break
            }
            1 => {
                self.used[C::Continue as usize] += 1;
                Stmt::Continue
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

    /// An `if` statement; in a loop, one that has no effect on differentiable values (no jump, no
    /// write of such a value, a condition on none) is form V: without it, a plain update instead.
    fn inert_checked_if(&mut self, with_jump: bool) -> Stmt {
        let writes = self.active_writes;
        let s = self.if_stmt(with_jump);
        let Stmt::If(i) = &s else { unreachable!() };
        if self.inert(i, writes) {
            return self.filler().unwrap_or(s);
        }
        s
    }

    /// Whether `i`, generated since `writes` active writes, is an inert `if` in a loop (form V).
    fn inert(&self, i: &If, writes: usize) -> bool {
        !i.active
            && self.active_writes == writes
            && !i.any_jump()
            && !self.loops.is_empty()
            && !self.allows(Bug::InertIfInLoop)
    }

    /// `if c { … } [else if c { … }] [else { … }]`; with `with_jump`, an arm ends with a jump.
    fn if_stmt(&mut self, with_jump: bool) -> Stmt {
        self.used[if with_jump { C::JumpIf } else { C::IfStmt } as usize] += 1;
        self.arm_loop_writes.push(Vec::new());
        let (cond, cf) = self.cond();
        let mut then = self.arm(cf, if with_jump { 2 } else { 3 });
        if with_jump || self.rng.chance(0.15) {
            if with_jump && self.rng.chance(0.5) {
                then.stmts.clear();
            }
            if let Some(j) = self.jump(cf) {
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
                let then_jumps = then
                    .stmts
                    .last()
                    .is_some_and(|s| matches!(s, Stmt::Break | Stmt::Continue | Stmt::Return(_)));
                if !then_jumps && self.rng.chance(0.1) {
                    if let Some(j) = self.jump(cf) {
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
    fn freeze_loop_writes(&mut self) {
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
    fn match_head(&mut self) -> (String, Vec<String>, bool) {
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

    fn match_stmt(&mut self) -> Stmt {
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
                if let Some(j) = self.jump(cf) {
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
    fn value_arm(&mut self, cond_active: bool, nested: u32) -> Block {
        self.value_arms += 1;
        let mut b = if self.rng.chance(0.5) {
            Block::default()
        } else {
            self.arm(cond_active, 2)
        };
        self.value_arms -= 1;
        self.frames.push(Frame::default());
        let tail = if nested < 1 && self.rng.chance(0.1) {
            self.if_value(nested + 1)
        } else {
            Expr::Text(self.float(self.cfg.expr_depth).s)
        };
        self.frames.pop();
        b.tail = Some(Box::new(tail));
        b
    }

    fn if_value(&mut self, nested: u32) -> Expr {
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

    fn let_if_value(&mut self) -> Stmt {
        self.used[C::LetIfValue as usize] += 1;
        let init = self.if_value(0);
        self.let_value(init)
    }

    /// `let name = init;` for an `if` or `match` value, typed if its arms are constants.
    fn let_value(&mut self, init: Expr) -> Stmt {
        let name = self.fresh_name(None);
        let mutable = self.rng.chance(0.4);
        let text = super::ast::expr_text(&init);
        // Typed: an `if` on an integer (`if n == 3 { 1.25 } else { 0.7 }`) has no float
        // variable to give its literals a type.
        let ty = Some("f64");
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

    fn let_match_value(&mut self) -> Stmt {
        self.used[C::LetMatchValue as usize] += 1;
        let init = self.match_value();
        self.let_value(init)
    }

    fn block_stmt(&mut self) -> Stmt {
        self.used[C::BlockStmt as usize] += 1;
        self.block_stmts += 1;
        let b = self.block(3, false);
        self.block_stmts -= 1;
        Stmt::Block(b)
    }

    // Loops.

    /// A loop body: `prefix` statements first (the counter's increment), then a block.
    fn loop_body(
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
        declare(self);
        let inner = self.block(3, true);
        self.frames.pop();
        self.loops.pop();
        let mut stmts = prefix;
        stmts.extend(inner.stmts);
        Block::new(stmts)
    }

    /// The bound of a range: short when nested.
    fn trip(&mut self) -> usize {
        if self.loops.is_empty() {
            self.rng.range(1, 5)
        } else {
            self.rng.range(1, 3)
        }
    }

    fn for_range(&mut self) -> Stmt {
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

    fn for_elems(&mut self) -> Stmt {
        self.used[C::ForElems as usize] += 1;
        let s = self.slice.clone().unwrap();
        let by_ref = if s.kind == ParamKind::Slice {
            s.name.clone()
        } else {
            format!("&{}", s.name)
        };
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

    /// A counter: `let mut k = 0;` (typed now and then), and its increment.
    fn counter(&mut self) -> (String, Stmt, Stmt, bool) {
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

    fn while_counter(&mut self) -> Vec<Stmt> {
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
    fn while_float(&mut self) -> Vec<Stmt> {
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
    fn active_cond(&mut self) -> String {
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
    fn progress(&mut self) -> (String, Stmt, Stmt) {
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
    fn loop_break(&mut self) -> Vec<Stmt> {
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
            then: Block::new(vec![Stmt::Break]),
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
                    terms.push(format!("{v}[{}]", self.rng.below(len)));
                }
                terms.push(self.float(1).at(2));
                Expr::Text(terms.join(" + "))
            }
        }
    }
}
