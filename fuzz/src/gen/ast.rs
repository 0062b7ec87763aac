//! The statements of a generated body, kept as a tree so that the generator can ask what a
//! statement holds (a jump, a loop) and print it as Rust. Expressions that hold no block are text.

use std::fmt::Write as _;

#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let [mut] name[: ty] = init;`
    Let {
        name: String,
        mutable: bool,
        ty: Option<&'static str>,
        init: Expr,
    },
    /// `target op value;` with `op` one of `= += -= *= /=`.
    Assign {
        target: String,
        op: &'static str,
        value: Expr,
    },
    If(If),
    /// `match scrutinee { pat => { … } … }` as a statement; `expr_arms` writes
    /// `pat => assignment,` for arms that are a single assignment.
    Match {
        scrutinee: String,
        arms: Vec<(String, Block)>,
        expr_arms: bool,
    },
    For {
        pat: String,
        iter: String,
        body: Block,
    },
    While {
        cond: String,
        body: Block,
    },
    Loop {
        body: Block,
    },
    /// `break;`, or `break 'lD;` to the enclosing loop at depth `D` (0: the outermost).
    Break(Option<usize>),
    /// `continue;`, or `continue 'lD;`.
    Continue(Option<usize>),
    Return(Expr),
    Block(Block),
    /// A statement written as is (`const K: f64 = 0.5;`, `assert!(…);`).
    Raw(String),
}

#[derive(Clone, Debug)]
pub struct If {
    pub cond: String,
    /// Whether the condition reads a value that depends on a differentiable parameter.
    pub active: bool,
    pub then: Block,
    pub els: Option<Box<Else>>,
}

#[derive(Clone, Debug)]
pub enum Else {
    Block(Block),
    If(If),
}

/// Statements and, for a block used as a value, its final expression.
#[derive(Clone, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub tail: Option<Box<Expr>>,
}

#[derive(Clone, Debug)]
pub enum Expr {
    Text(String),
    /// `if … { …; value } else { …; value }` as a value: every block has a tail.
    If(Box<If>),
    /// `match scrutinee { pat => value, pat => { …; value } }`; an arm without statements is
    /// written without braces.
    Match {
        scrutinee: String,
        arms: Vec<(String, Block)>,
    },
}

impl Block {
    pub fn new(stmts: Vec<Stmt>) -> Self {
        Block { stmts, tail: None }
    }
}

impl Stmt {
    /// Whether the statement holds a `break` or `continue` of an enclosing loop, or a `return`.
    pub fn jumps_out(&self) -> bool {
        self.has_jump(true)
    }

    /// `loops_count`: whether a `break`/`continue` counts (false inside a nested loop, which is
    /// its target).
    fn has_jump(&self, loops_count: bool) -> bool {
        match self {
            Stmt::Break(None) | Stmt::Continue(None) => loops_count,
            // A labelled jump leaves the loops it is in as well.
            Stmt::Break(Some(_)) | Stmt::Continue(Some(_)) => true,
            Stmt::Return(_) => true,
            Stmt::Let { init, .. } => expr_has_jump(init, loops_count),
            Stmt::Assign { value, .. } => expr_has_jump(value, loops_count),
            Stmt::If(i) => if_has_jump(i, loops_count),
            Stmt::Match { arms, .. } => arms.iter().any(|(_, b)| block_has_jump(b, loops_count)),
            Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Loop { body } => {
                block_has_jump(body, false)
            }
            Stmt::Block(b) => block_has_jump(b, loops_count),
            Stmt::Raw(_) => false,
        }
    }

    /// Whether this is an `if` on no differentiable value that holds a jump (form E, last in a loop body).
    pub fn is_int_if_with_jump(&self) -> bool {
        matches!(self, Stmt::If(i) if !i.active && if_has_jump(i, true))
    }

    /// Whether this is a loop whose body holds a `break`, `continue` or `return` anywhere, also
    /// in a loop inside it (form E).
    pub fn is_loop_with_jump(&self) -> bool {
        match self {
            Stmt::For { body, .. } | Stmt::While { body, .. } | Stmt::Loop { body } => {
                body.any_jump()
            }
            _ => false,
        }
    }

    /// Whether this is an `if` on a differentiable value whose arms hold jumps only as their last
    /// statements (`if s > 1.0 { t += s; break; }`): the form a loop body may end with.
    pub fn is_simple_jump_if(&self) -> bool {
        fn arm_ok(b: &Block) -> bool {
            let n = b.stmts.len();
            b.stmts.iter().enumerate().all(|(k, s)| {
                matches!(s, Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(_)) && k + 1 == n
                    || !s.any_jump()
            })
        }
        fn if_ok(i: &If) -> bool {
            arm_ok(&i.then)
                && match i.els.as_deref() {
                    Some(Else::Block(b)) => arm_ok(b),
                    Some(Else::If(e)) => if_ok(e),
                    None => true,
                }
        }
        matches!(self, Stmt::If(i) if i.active && if_ok(i))
    }

    /// Whether the statement holds a `break`, `continue` or `return` at any depth.
    pub fn any_jump(&self) -> bool {
        match self {
            Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return(_) => true,
            Stmt::Let { init: e, .. } | Stmt::Assign { value: e, .. } => e.any_jump(),
            Stmt::If(i) => i.any_jump(),
            Stmt::Match { arms, .. } => arms.iter().any(|(_, b)| b.any_jump()),
            Stmt::For { body, .. }
            | Stmt::While { body, .. }
            | Stmt::Loop { body }
            | Stmt::Block(body) => body.any_jump(),
            Stmt::Raw(_) => false,
        }
    }
}

impl Block {
    pub fn any_jump(&self) -> bool {
        self.stmts.iter().any(Stmt::any_jump) || self.tail.as_deref().is_some_and(Expr::any_jump)
    }
}

impl If {
    pub fn any_jump(&self) -> bool {
        self.then.any_jump()
            || match self.els.as_deref() {
                Some(Else::Block(b)) => b.any_jump(),
                Some(Else::If(i)) => i.any_jump(),
                None => false,
            }
    }
}

impl Expr {
    pub fn any_jump(&self) -> bool {
        match self {
            Expr::Text(_) => false,
            Expr::If(i) => i.any_jump(),
            Expr::Match { arms, .. } => arms.iter().any(|(_, b)| b.any_jump()),
        }
    }
}

fn block_has_jump(b: &Block, loops_count: bool) -> bool {
    b.stmts.iter().any(|s| s.has_jump(loops_count))
        || b.tail
            .as_deref()
            .is_some_and(|e| expr_has_jump(e, loops_count))
}

fn if_has_jump(i: &If, loops_count: bool) -> bool {
    block_has_jump(&i.then, loops_count)
        || match i.els.as_deref() {
            Some(Else::Block(b)) => block_has_jump(b, loops_count),
            Some(Else::If(i)) => if_has_jump(i, loops_count),
            None => false,
        }
}

fn expr_has_jump(e: &Expr, loops_count: bool) -> bool {
    match e {
        Expr::Text(_) => false,
        Expr::If(i) => if_has_jump(i, loops_count),
        Expr::Match { arms, .. } => arms.iter().any(|(_, b)| block_has_jump(b, loops_count)),
    }
}

impl Expr {
    /// Whether the value (the tails of an `if` or `match`, not their conditions) reads a variable.
    pub fn values_read_vars(&self) -> bool {
        match self {
            Expr::Text(t) => super::expr::has_var(t),
            Expr::If(i) => i.values_read_vars(),
            Expr::Match { arms, .. } => arms
                .iter()
                .any(|(_, b)| b.tail.as_deref().is_some_and(Expr::values_read_vars)),
        }
    }
}

impl If {
    fn values_read_vars(&self) -> bool {
        self.then
            .tail
            .as_deref()
            .is_some_and(Expr::values_read_vars)
            || match self.els.as_deref() {
                Some(Else::Block(b)) => b.tail.as_deref().is_some_and(Expr::values_read_vars),
                Some(Else::If(i)) => i.values_read_vars(),
                None => false,
            }
    }
}

// Printing, four spaces a level.

const INDENT: &str = "    ";

pub fn write_block_body(out: &mut String, b: &Block, level: usize) {
    for s in &b.stmts {
        write_stmt(out, s, level);
    }
    if let Some(t) = &b.tail {
        indent(out, level);
        write_expr(out, t, level);
        out.push('\n');
    }
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str(INDENT);
    }
}

/// `{`, the block's lines one level deeper, and `}` at `level` (no newline after it).
fn write_braced(out: &mut String, b: &Block, level: usize) {
    if b.stmts.is_empty() && b.tail.is_none() {
        out.push_str("{}");
        return;
    }
    out.push_str("{\n");
    write_block_body(out, b, level + 1);
    indent(out, level);
    out.push('}');
}

fn write_if(out: &mut String, i: &If, level: usize) {
    let _ = write!(out, "if {} ", i.cond);
    write_braced(out, &i.then, level);
    match i.els.as_deref() {
        Some(Else::Block(b)) => {
            out.push_str(" else ");
            write_braced(out, b, level);
        }
        Some(Else::If(e)) => {
            out.push_str(" else ");
            write_if(out, e, level);
        }
        None => {}
    }
}

/// An expression as one line of text (for looking at the names it reads).
pub fn expr_text(e: &Expr) -> String {
    let mut s = String::new();
    write_expr(&mut s, e, 0);
    s
}

fn write_expr(out: &mut String, e: &Expr, level: usize) {
    match e {
        Expr::Text(t) => out.push_str(t),
        Expr::If(i) => write_if(out, i, level),
        Expr::Match { scrutinee, arms } => {
            let _ = writeln!(out, "match {scrutinee} {{");
            for (pat, b) in arms {
                indent(out, level + 1);
                let _ = write!(out, "{pat} => ");
                match (&b.tail, b.stmts.is_empty()) {
                    (Some(t), true) => {
                        write_expr(out, t, level + 1);
                        out.push_str(",\n");
                    }
                    _ => {
                        write_braced(out, b, level + 1);
                        out.push('\n');
                    }
                }
            }
            indent(out, level);
            out.push('}');
        }
    }
}

pub fn write_stmt(out: &mut String, s: &Stmt, level: usize) {
    indent(out, level);
    match s {
        Stmt::Let {
            name,
            mutable,
            ty,
            init,
        } => {
            let _ = write!(out, "let {}{name}", if *mutable { "mut " } else { "" });
            if let Some(ty) = ty {
                let _ = write!(out, ": {ty}");
            }
            out.push_str(" = ");
            write_expr(out, init, level);
            out.push(';');
        }
        Stmt::Assign { target, op, value } => {
            let _ = write!(out, "{target} {op} ");
            write_expr(out, value, level);
            out.push(';');
        }
        Stmt::If(i) => write_if(out, i, level),
        Stmt::Match {
            scrutinee,
            arms,
            expr_arms,
        } => {
            let _ = writeln!(out, "match {scrutinee} {{");
            for (pat, b) in arms {
                indent(out, level + 1);
                let _ = write!(out, "{pat} => ");
                match (&b.stmts[..], expr_arms) {
                    ([Stmt::Assign { target, op, value }], true) => {
                        let _ = write!(out, "{target} {op} ");
                        write_expr(out, value, level + 1);
                        out.push(',');
                    }
                    _ => write_braced(out, b, level + 1),
                }
                out.push('\n');
            }
            indent(out, level);
            out.push('}');
        }
        Stmt::For { pat, iter, body } => {
            let _ = write!(out, "{}for {pat} in {iter} ", loop_label());
            write_loop_body(out, body, level);
        }
        Stmt::While { cond, body } => {
            let _ = write!(out, "{}while {cond} ", loop_label());
            write_loop_body(out, body, level);
        }
        Stmt::Loop { body } => {
            let _ = write!(out, "{}loop ", loop_label());
            write_loop_body(out, body, level);
        }
        Stmt::Break(None) => out.push_str("break;"),
        Stmt::Continue(None) => out.push_str("continue;"),
        Stmt::Break(Some(d)) => {
            let _ = write!(out, "break 'l{d};");
        }
        Stmt::Continue(Some(d)) => {
            let _ = write!(out, "continue 'l{d};");
        }
        Stmt::Return(e) => {
            out.push_str("return ");
            write_expr(out, e, level);
            out.push(';');
        }
        Stmt::Block(b) => write_braced(out, b, level),
        Stmt::Raw(t) => out.push_str(t),
    }
    out.push('\n');
}

thread_local! {
    /// How many loops enclose the statement being written: loops are labelled by it (`'l0` the
    /// outermost), which a labelled jump names.
    static LOOP_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `'lD: ` for a loop at depth `D`, where a jump names it.
fn loop_label() -> String {
    format!("'l{}: ", LOOP_DEPTH.get())
}

fn write_loop_body(out: &mut String, body: &Block, level: usize) {
    LOOP_DEPTH.set(LOOP_DEPTH.get() + 1);
    write_braced(out, body, level);
    LOOP_DEPTH.set(LOOP_DEPTH.get() - 1);
}

// Rewriting every piece of text (names, for renaming a function and its calls).

impl Block {
    pub fn map_text(&mut self, f: &mut dyn FnMut(&str) -> String) {
        for s in &mut self.stmts {
            s.map_text(f);
        }
        if let Some(t) = &mut self.tail {
            t.map_text(f);
        }
    }
}

impl If {
    pub fn map_text(&mut self, f: &mut dyn FnMut(&str) -> String) {
        self.cond = f(&self.cond);
        self.then.map_text(f);
        match self.els.as_deref_mut() {
            Some(Else::Block(b)) => b.map_text(f),
            Some(Else::If(i)) => i.map_text(f),
            None => {}
        }
    }
}

impl Expr {
    pub fn map_text(&mut self, f: &mut dyn FnMut(&str) -> String) {
        match self {
            Expr::Text(t) => *t = f(t),
            Expr::If(i) => i.map_text(f),
            Expr::Match { scrutinee, arms } => {
                *scrutinee = f(scrutinee);
                for (p, b) in arms {
                    *p = f(p);
                    b.map_text(f);
                }
            }
        }
    }
}

impl Stmt {
    pub fn map_text(&mut self, f: &mut dyn FnMut(&str) -> String) {
        match self {
            Stmt::Let { init, .. } => init.map_text(f),
            Stmt::Assign { target, value, .. } => {
                *target = f(target);
                value.map_text(f);
            }
            Stmt::If(i) => i.map_text(f),
            Stmt::Match {
                scrutinee, arms, ..
            } => {
                *scrutinee = f(scrutinee);
                for (p, b) in arms {
                    *p = f(p);
                    b.map_text(f);
                }
            }
            Stmt::For { iter, body, .. } => {
                *iter = f(iter);
                body.map_text(f);
            }
            Stmt::While { cond, body } => {
                *cond = f(cond);
                body.map_text(f);
            }
            Stmt::Loop { body } | Stmt::Block(body) => body.map_text(f),
            Stmt::Return(e) => e.map_text(f),
            Stmt::Raw(t) => *t = f(t),
            Stmt::Break(_) | Stmt::Continue(_) => {}
        }
    }
}
