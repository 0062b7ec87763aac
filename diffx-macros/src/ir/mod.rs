//! The intermediate representation: a Wengert list.
//!
//! A function body is lowered to a list of statements, each binding a fresh value to one primitive
//! operation on earlier values (`v2 = mul(x1, x2)`), as in the evaluation traces of the AD
//! literature. Forward mode and reverse mode are rewrites of this list into longer lists; only
//! `emit/` turns a list into Rust. How an operand reads as Rust is part of the IR ([`operands`]):
//! the transforms write linear maps in it. `Display` prints the list (`print.rs`), so tests compare text.
//!
//! Code the list keeps as written (a constant expression, a `println!`, a loop's head, an index)
//! is a [`Code`]: its tokens with the names they mention, found where it is made, so that no pass
//! reads inside the tokens.

use proc_macro2::{Ident, Span, TokenStream};

use crate::rules::Rule;

mod code;
mod iter;
pub mod operands;
mod path;
mod print;

pub use code::Code;
pub use iter::{LoopIter, Range};
pub use path::{Index, Path, Step};

/// A value of the list, an index into [`Func::vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Var(pub usize);

/// Which `if` or loop of the lowered function a [`Stmt::If`] or [`Stmt::Loop`] is. Transforms
/// that copy one keep its id, so that a copy in a derived program (the backward sweep's `if`)
/// finds what was recorded for the original (the marks of its undo logs) without comparing text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ControlId(pub usize);

/// What a value is, as far as the macro can tell: it decides how operations are written
/// (`a + b` or `&a + &b`) and how adjoints are accumulated (`+=`, or summed over broadcast axes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Scalar,
    Tensor,
    /// A slice, `Vec` or array of floats (its elements `x[i]` are scalars).
    Slice,
    /// A parameter struct, one of its fields, or a value the macro cannot see the type of.
    Other,
}

impl Kind {
    /// The kind of an elementwise result.
    pub fn join(self, other: Kind) -> Kind {
        match (self, other) {
            (Kind::Tensor, _) | (_, Kind::Tensor) => Kind::Tensor,
            (Kind::Scalar, Kind::Scalar) => Kind::Scalar,
            _ => Kind::Other,
        }
    }
}

/// An operand: a differentiable value, a field of a differentiable parameter struct
/// (`model.l1.w`: its adjoint is `model_bar.l1.w`), or a constant expression (literal, integer
/// parameter, anything that does not depend on the differentiable inputs), kept as written.
#[derive(Clone, Debug)]
pub enum Atom {
    Var(Var),
    /// `base` followed by a path of fields and constant indices, `.l1.w` or `.layers[0].b`.
    Field(Var, Path),
    Const(Code),
}

impl Atom {
    /// Code kept as written as an operand, its names found now.
    pub fn constant(tokens: TokenStream) -> Atom {
        Atom::Const(Code::new(tokens))
    }

    /// The value this operand is or is a field of: `Some` for differentiable operands.
    pub fn var(&self) -> Option<Var> {
        match self {
            Atom::Var(v) | Atom::Field(v, _) => Some(*v),
            Atom::Const(_) => None,
        }
    }

    /// Whether `self` and `other` name the same value (`Const`s never do).
    pub fn same(&self, other: &Atom) -> bool {
        match (self, other) {
            (Atom::Var(a), Atom::Var(b)) => a == b,
            (Atom::Field(a, p), Atom::Field(b, q)) => a == b && p == q,
            _ => false,
        }
    }

    /// Whether `self` and `other` are the same operand: the same value, or constants written
    /// alike (token for token).
    pub fn alike(&self, other: &Atom) -> bool {
        match (self, other) {
            (Atom::Const(a), Atom::Const(b)) => crate::tokens::same(a.tokens(), b.tokens()),
            _ => self.same(other),
        }
    }

    /// The same path on another base: the tangent or adjoint of a field.
    pub fn rebase(&self, base: Var) -> Atom {
        match self {
            Atom::Field(_, path) => Atom::Field(base, path.clone()),
            _ => Atom::Var(base),
        }
    }

    /// Whether this is the literal `1.0` (or `-1.0` with `negative`), so products can be skipped.
    pub fn is_unit(&self, negative: bool) -> bool {
        let want = if negative { "- 1.0" } else { "1.0" };
        matches!(self, Atom::Const(t) if t.literal_value() == Some(want))
    }
}

/// The operation of a statement.
#[derive(Clone)]
pub enum Op {
    /// An elementary operation from the rule table.
    Rule(&'static Rule),
    /// A copy of the operand.
    Id,
    /// A call of another `#[autodiff]` function, differentiated through its own derivative code.
    Call(syn::Path),
    /// A map of the rule table applied to `args`: a tangent map (`t.matmul(&b)`), a transpose
    /// (`g.matmul_t(&b)`), a residual's forward computation or pullback, or a helper of the
    /// runtime. `binds[i]` is the template's placeholder that `args[i]` fills.
    Map {
        template: &'static str,
        binds: Vec<&'static str>,
    },
    /// The first contribution to an adjoint: the operand as it is (moved, not copied), or,
    /// with a second operand, summed over the axes broadcast in it to that operand's shape.
    Fit,
    /// Zeros shaped like the operand, of type `ty` (kept as written): the adjoint of a
    /// parameter struct or a vector before contributions arrive.
    Zeros(TokenStream),
    /// The value a [`Stmt::Record`] on this stack kept in the forward sweep, taken off it: a
    /// recording loop's backward sweep reads it instead of running the body again.
    Recall(Ident),
    /// `args[0]` with its place `path` replaced by `args[1]`: a field of a value of the user's
    /// type written (`s.x += k;` is `s = set.x(s, s.x + k)`), as JAX's `x.at[i].set(v)`.
    SetPart(path::Path),
}

impl Op {
    pub fn name(&self) -> String {
        match self {
            Op::Rule(r) => r.name.to_string(),
            Op::Id => "id".to_string(),
            Op::Call(p) => quote::quote!(#p).to_string().replace(' ', ""),
            Op::Map { template, .. } => format!("{{{template}}}"),
            Op::Zeros(_) => "zeros_like".to_string(),
            Op::Recall(stack) => format!("recall[{stack}]"),
            Op::Fit => "fit".to_string(),
            Op::SetPart(path) => format!("set{}", quote::quote!(#path)).replace(' ', ""),
        }
    }
}

/// One statement of the list.
#[derive(Clone)]
pub enum Stmt {
    /// `dst = op(args)`.
    Let {
        dst: Var,
        op: Op,
        args: Vec<Atom>,
        span: Span,
    },
    /// `dst += value`: accumulation into an adjoint (or into its field `path`), summed over the
    /// axes broadcast in the value if `like` (the primal operand) is given. With `first`, `dst`
    /// still holds the zero it started from, and the value replaces it: `dst = value`.
    Accum {
        dst: Atom,
        value: Var,
        like: Option<Atom>,
        first: bool,
    },
    /// A local that does not depend on the inputs, kept as written: `let k: usize = n / 2;`.
    Const {
        name: Ident,
        mutable: bool,
        ty: Option<syn::Type>,
        expr: Code,
    },
    /// A statement with no value, such as `println!(…)`, run as written after binding the user's
    /// names it mentions to their current values.
    Verbatim {
        binds: Vec<(Ident, Atom)>,
        tokens: Code,
    },
    /// An item declared in the body (`const K: f64 = 2.0;`).
    Item(TokenStream),
    /// `outs = if cond { then } else { else_ }`, each branch yielding one operand per output: the
    /// value of an `if` expression and the new values of the names the branches rebind.
    If {
        id: ControlId,
        cond: Ident,
        then_: Branch,
        else_: Branch,
        outs: Vec<Var>,
    },
    /// A loop. `cells` are the variables the body reassigns (mutable locals, written back from the
    /// body's yields at the end of each iteration; `active[i]` if cell i carries derivatives). With
    /// a `tape`, each iteration first pushes its entry state (cells, loop variables) on it.
    /// `logs`: the undo logs of the vectors the body writes; the tape records their lengths too.
    Loop {
        id: ControlId,
        head: LoopHead,
        cells: Vec<Var>,
        active: Vec<bool>,
        body: Branch,
        tape: Option<Tape>,
        logs: Vec<(Var, Ident)>,
    },
    /// The backward sweep of a taped loop: `while let Some((names…)) = tape.pop() { body }`, or
    /// `for i in range.rev() { let (names…) = tape.pop(); body }` when the tape has a range.
    /// `cells`: the loop's cells (and whether each carries derivatives), the first names. `id`:
    /// the loop's.
    LoopBack {
        id: ControlId,
        tape: Tape,
        names: Vec<Ident>,
        body: Vec<Stmt>,
        cells: Vec<(Var, bool)>,
        /// The adjoints carried into the loop, if nothing else flows in and its body keeps nothing
        /// on a stack: where all of them are zero, every iteration's adjoint is zero too, and the
        /// loop is skipped (`tape::guard_zeros`).
        skip_if_zero: Vec<Var>,
    },
    /// `dst = value` (an adjoint cell restarted at zero).
    Set { dst: Var, value: Atom },
    /// `vec[index] = value`, a write into a local vector that carries derivatives. With a `log`
    /// (reverse mode), the element's old value is pushed on it first.
    SetElem {
        vec: Var,
        index: Index,
        value: Atom,
        log: Option<Ident>,
        /// A write filling a vector just made (`[a, b]`), before anything reads it: its old value
        /// is never read again, and reverse mode neither logs nor restores it.
        init: bool,
    },
    /// `vec.push(value)` onto a local `Vec` that carries derivatives. With a `log` (reverse mode),
    /// the push is logged, and undoing it pops the element.
    Push {
        vec: Var,
        value: Atom,
        log: Option<Ident>,
    },
    /// `dst = vec.pop()`: the adjoint of a pushed element, taken off the adjoint vector.
    Pop { dst: Var, vec: Var },
    /// `stack.push(value)`: a recording loop's forward sweep keeps a value its backward sweep
    /// reads ([`Op::Recall`]), one entry per run of the statement before it.
    Record { stack: Ident, value: Atom },
    /// Restores `vec` from its log: the last write (`mark: None`), or every write logged since the
    /// log had length `mark`. `at`: the index of the last write, known here (the adjoint of that
    /// write); a log whose every undo knows it keeps values alone ([`Func::value_logs`]).
    Undo {
        vec: Var,
        log: Ident,
        mark: Option<Ident>,
        at: Option<Index>,
    },
    /// A call of another `#[autodiff]` function through one of its derived functions, or of a
    /// pullback: `(outs) = kind(args; tangents; ct)`.
    Call(Call),
}

/// A [`Stmt::Call`]. What `outs` binds and which of the other operands the call takes are the
/// [`CallKind`]'s.
#[derive(Clone)]
pub struct Call {
    pub kind: CallKind,
    /// The primal arguments, as the user's call passes them.
    pub args: Vec<Atom>,
    /// The arguments' tangents (`None`: zero), for [`CallKind::Jvp`] and [`CallKind::Hvp`].
    pub tangents: Vec<Option<Atom>>,
    /// The cotangent of the call's value, for a [`CallKind::Vjp`], [`CallKind::Pullback`] or
    /// [`CallKind::Hvp`].
    pub ct: Option<Var>,
    /// The values the call binds, `None` where one is not wanted.
    pub outs: Vec<Option<Var>>,
    /// Per argument, the caller's adjoint offered to a pullback to add its gradient into in
    /// place (a slice's: `reverse/pullbacks.rs`); a callee that takes it returns an empty
    /// gradient. Empty, or one entry per argument.
    pub into: Vec<Option<Var>>,
}

impl Call {
    /// A call of `kind` on `args` binding `outs`, with no tangents, cotangent or offers.
    pub fn new(kind: CallKind, args: Vec<Atom>, outs: Vec<Option<Var>>) -> Call {
        Call {
            kind,
            args,
            tangents: Vec::new(),
            ct: None,
            outs,
            into: Vec::new(),
        }
    }
}

/// What a [`Call`] calls, and what its `outs` are.
#[derive(Clone)]
pub enum CallKind {
    /// `(y, ẏ) = jvp[g](args; tangents)`: forward mode's call, the value and its tangent.
    /// `span`: the user's call, where a tangent the callee does not take is reported.
    Jvp { path: syn::Path, span: Span },
    /// `(grads) = vjp[g](args; ct)`: one gradient per argument, the callee's forward sweep run
    /// again before its backward one.
    Vjp(syn::Path),
    /// `(y, pullback) = split[g](args)`: the call's value, and its pullback (a closure) for the
    /// [`CallKind::Pullback`] later in the same list. Reverse mode's calls, once paired
    /// (`reverse/pullbacks.rs`): the callee's forward sweep runs once, not again in the pullback.
    /// `outs` is `[y]`.
    Split {
        path: syn::Path,
        pullback: Ident,
        stash: Option<Stash>,
    },
    /// `(grads) = pullback(args; ct)`: the second half of a [`CallKind::Split`] call.
    Pullback(Ident),
    /// `(grads, grad_dots) = hvp[g](args; tangents; ct, ct_dot)`: forward mode over a
    /// [`CallKind::Vjp`] (`hvp_` of a caller), the gradients and then their tangents, from the
    /// callee's forward-over-reverse function, along the arguments' tangents and the
    /// cotangent's tangent `ct_dot` (`None`: zero).
    Hvp {
        path: syn::Path,
        ct_dot: Option<Atom>,
    },
}

impl CallKind {
    /// The function called, but for a pullback (a closure of the list).
    pub fn path(&self) -> Option<&syn::Path> {
        match self {
            CallKind::Jvp { path, .. }
            | CallKind::Vjp(path)
            | CallKind::Split { path, .. }
            | CallKind::Hvp { path, .. } => Some(path),
            CallKind::Pullback(_) => None,
        }
    }

    /// The tangent of the cotangent, read by a [`CallKind::Hvp`].
    pub fn ct_dot(&self) -> Option<&Atom> {
        match self {
            CallKind::Hvp { ct_dot, .. } => ct_dot.as_ref(),
            _ => None,
        }
    }

    /// How the call prints: `jvp[g]`, `vjp[g]`, `split[g]`, `hvp[g]`, or the pullback's name.
    pub fn name(&self) -> String {
        let (form, path) = match self {
            CallKind::Jvp { path, .. } => ("jvp", path),
            CallKind::Vjp(path) => ("vjp", path),
            CallKind::Split { path, .. } => ("split", path),
            CallKind::Hvp { path, .. } => ("hvp", path),
            CallKind::Pullback(pullback) => return pullback.to_string(),
        };
        format!("{form}[{}]", Op::Call(path.clone()).name())
    }
}

/// A loop's tape in reverse mode: the stack each iteration pushes its entry state on.
#[derive(Clone)]
pub struct Tape {
    pub name: Ident,
    /// Which entries of the state (cells, loop variables, log lengths, in that order) are pushed:
    /// those the backward sweep reads, once `tape::trim` has run (`None`: all of them).
    pub keep: Option<Vec<bool>>,
    /// For a `for` over a range that always runs to its end: the loop variable and a copy of the
    /// range, which the backward sweep runs reversed instead of taping the variable.
    pub range: Option<(Ident, Ident)>,
    /// The tapes of the calls in the body that keep their value and pullback for the backward
    /// sweep ([`Stash::Push`]), declared with this one.
    pub calls: Vec<Ident>,
    /// The loop records: its backward sweep reads what the forward sweep kept and never runs the
    /// body again (`reverse/record.rs`). Every loop nested in a recording loop records too.
    pub record: bool,
    /// A recording loop nested in another: its tape and its records are declared with the
    /// outermost one's (they hold every run's entries), and its backward loop finds its own
    /// entries as [`Nested`] says.
    pub nest: Option<Nested>,
    /// The stacks of the outermost recording loop's nest, declared with its tape: the nested
    /// loops' tapes and runs, and every value recorded in the nest.
    pub stacks: Vec<Ident>,
    /// The loop is checkpointed (`reverse/checkpoint.rs`): its forward sweep runs as the primal
    /// does, keeping snapshots of its state, and its backward loop follows a binomial schedule.
    pub checkpoint: Option<Box<Checkpoint>>,
}

/// A checkpointed loop (`#[autodiff(checkpoint = s)]`), on the tapes of its forward and backward
/// loops.
#[derive(Clone)]
pub struct Checkpoint {
    /// The snapshots the schedule may keep besides the entry state's.
    pub snapshots: usize,
    /// What a snapshot holds: the loop's cells and the vectors its body writes.
    pub state: Vec<Var>,
    /// The body as the primal runs it (no tape, records or logs): the forward sweep runs it, and
    /// the backward sweep to bring the state to an iteration's start.
    pub primal: Branch,
    /// On the backward loop: the recording loop, run for one iteration (the one the schedule
    /// reverses) right before that iteration's adjoint.
    pub again: Option<Box<Stmt>>,
    /// The locals of the schedule: the loop's iterator, the `diffx::checkpoint::Schedule`, the
    /// snapshots.
    pub iter: Ident,
    pub schedule: Ident,
    pub snaps: Ident,
}

/// How the backward loop of a loop nested in a recording loop finds the entries of its own run.
#[derive(Clone)]
pub enum Nested {
    /// Each run pushes on this stack its range (or its tape's length, without a range).
    Runs(Ident),
    /// Its range, computed again in the backward sweep from constants it has (`0..d`, `0..j`).
    Again(LoopIter),
}

/// Where a [`CallKind::Split`] in a loop leaves or finds its value and pullback.
#[derive(Clone)]
pub enum Stash {
    /// In a loop's body: the call is made, and its value and pullback pushed on this tape.
    Push(Ident),
    /// In its backward sweep's recomputation of the body: popped from the tape, not made again.
    Pop(Ident),
}

impl Tape {
    /// Whether state entry `i`, named `name`, is pushed.
    pub fn pushes(&self, i: usize, name: &str) -> bool {
        let by_range = self.range.as_ref().is_some_and(|(v, _)| v == name);
        !by_range && self.keep.as_ref().is_none_or(|k| k[i])
    }
}

/// How a loop repeats.
#[derive(Clone)]
pub enum LoopHead {
    /// `for pat in iter`, binding `vars` (constants: indices, elements).
    /// `exit`: a condition checked before each iteration (from a `break`).
    For {
        pat: Code,
        iter: LoopIter,
        vars: Vec<Ident>,
        exit: Option<Code>,
    },
    /// `while cond`.
    While { cond: Code },
}

/// The statements of one arm of an `if`, and what it yields.
#[derive(Clone, Default)]
pub struct Branch {
    pub body: Vec<Stmt>,
    pub yields: Vec<Atom>,
}

impl Stmt {
    /// Calls `f` on this statement and on every statement nested in it.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Stmt)) {
        f(self);
        let nested: Vec<&'a Stmt> = match self {
            Stmt::If { then_, else_, .. } => then_.body.iter().chain(&else_.body).collect(),
            Stmt::Loop { body, .. } => body.body.iter().collect(),
            Stmt::LoopBack { body, .. } => body.iter().collect(),
            _ => Vec::new(),
        };
        for s in nested {
            s.walk(f);
        }
    }
}

/// A value's name and kind.
#[derive(Clone, Debug)]
pub struct VarInfo {
    pub name: Ident,
    /// `name` as text, kept beside it once asked for ([`VarInfo::text`]).
    pub text: std::cell::OnceCell<String>,
    pub kind: Kind,
    /// A parameter declared `&T`: it is a reference already.
    pub is_ref: bool,
    /// A vector the user passes to calls by value (an array to a `[f64; N]` parameter): calls
    /// get a copy of it, not a reference.
    pub by_value: bool,
}

impl VarInfo {
    /// `name` as text: passes that read code kept as written look values up by name, and an
    /// identifier's text is a call across the proc-macro bridge, made once per value.
    pub fn text(&self) -> &str {
        self.text.get_or_init(|| self.name.to_string())
    }
}

/// A lowered function: its values, its statements and its result.
#[derive(Clone, Default)]
pub struct Func {
    pub vars: Vec<VarInfo>,
    pub body: Vec<Stmt>,
    pub ret: Option<Atom>,
    /// The function's float type, `f64` or `f32`.
    pub float: Option<Ident>,
    /// Every value is a number (second order, which takes no tensors, or a function generic over
    /// its float): a parameter struct's field, whose kind the macro cannot see, is one.
    pub numbers: bool,
    /// A reverse program's stacks declared before its first statement: what the recording `if`s
    /// of its top level keep (their records, their loops' tapes and runs; `reverse/record.rs`).
    pub stacks: Vec<Ident>,
    /// Those of [`Func::stacks`] pushed on outside every loop, once per call of the function: a
    /// `None` or `Some` local, not a `Vec` (a scalar function's records and kept pullbacks then
    /// allocate nothing).
    pub slots: Vec<Ident>,
    /// Values of the user's types that calls return, read by place as parameter structs are
    /// (`let b = e.cauchy_green();` then `b.det()`, `b.vals[0]`).
    pub own_values: Vec<Var>,
    /// The undo logs that keep old values alone, not their indices: every undo of theirs restores
    /// the element of a write it knows the index of (`tape::value_logs`).
    pub value_logs: Vec<Ident>,
}

impl Func {
    pub fn name(&self, v: Var) -> &Ident {
        &self.vars[v.0].name
    }

    pub fn kind(&self, v: Var) -> Kind {
        self.vars[v.0].kind
    }

    /// Whether `a` and `b` read the same: [`Atom::alike`], or a value and a constant that is its
    /// name (lowering binds a name to the value it holds either way).
    pub fn same_operand(&self, a: &Atom, b: &Atom) -> bool {
        match (a, b) {
            (Atom::Var(v), Atom::Const(c)) | (Atom::Const(c), Atom::Var(v)) => {
                c.is_name(&self.name(*v).to_string())
            }
            _ => a.alike(b),
        }
    }

    /// The kind of an operand (constants count as scalars).
    pub fn atom_kind(&self, a: &Atom) -> Kind {
        match a {
            Atom::Var(v) => self.kind(*v),
            Atom::Field(v, _) if self.kind(*v) == Kind::Slice || self.numbers => Kind::Scalar,
            Atom::Field(..) => Kind::Other,
            Atom::Const(_) => Kind::Scalar,
        }
    }
}
