//! The generator of random `#[autodiff]` functions.
//!
//! `unit(seed, index, config)` writes function number `index` of a seed (`f{index}`), with the
//! small helper it may call (`h{index}`), from a stream of its own: a seed and an index name the
//! same program whatever the count. A [`Config`] gives each construct a weight and says which
//! known-bug forms ([`Bug`]) may appear. `emit` turns units into Rust: the functions, and a table
//! of [`crate::check::Subject`]s that adapts each one's derivative functions to flat vectors.
//!
//! The build script includes this file (`#[path = "src/gen.rs"]`), so it uses nothing outside
//! the standard library, and its submodules are named by path.

#[path = "gen/ast.rs"]
pub mod ast;
#[path = "gen/body.rs"]
mod body;
#[path = "gen/branches.rs"]
mod branches;
#[path = "gen/emit.rs"]
pub mod emit;
#[path = "gen/expr.rs"]
mod expr;
#[path = "gen/generic.rs"]
mod generic;
#[path = "gen/loops.rs"]
mod loops;
#[path = "gen/rng.rs"]
pub mod rng;
#[path = "gen/scope.rs"]
mod scope;
#[path = "gen/unit.rs"]
mod unit;

pub use unit::{unit, Function, Param, ParamKind, Unit};

/// Whether the text `text` reads the variable `name`.
pub fn reads(text: &str, name: &str) -> bool {
    expr::idents(text).contains(&name)
}

/// The constructs the generator weighs (and counts, with a few that are only counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum C {
    LetFloat,
    LetIfValue,
    LetMatchValue,
    LetVec,
    Assign,
    VecWrite,
    VecRead,
    IfStmt,
    ElseIf,
    IfExpr,
    MatchStmt,
    MatchBool,
    ForRange,
    ForN,
    ForSliceIndex,
    ForElems,
    ForIter,
    ForChain,
    WhileCounter,
    WhileFloat,
    LoopBreak,
    Break,
    Continue,
    Return,
    JumpIf,
    BlockStmt,
    Shadow,
    ConstItem,
    Assert,
    Call,
    Elementary,
    PiecewiseConstant,
    FloatCond,
    IntCond,
    MixedCond,
    IntToFloat,
    IntCount,
    Helper,
    RecursiveHelper,
    SliceParam,
    VecParam,
    ArrayParam,
    IntParam,
    Wrt,
    Order1,
    Order2,
    Order3,
    /// The unit (function and helper) generic over its float type.
    Generic,
    /// A local array replaced whole (`arr = [arr[1] * 0.5 + x, …]`), in loops and arms too.
    ArrayReplace,
    Push,
    /// Two differentiable numbers taken as one tuple parameter, destructured first:
    /// `fn f(xy: (f64, f64), …) { let (x, y) = xy; … }` (second order too).
    Packed,
    /// Two differentiable numbers as the fields of a `#[derive(Params)]` struct, read by field:
    /// `fn f(p: &P7, …) { let x = p.x; let y = p.y; … }` (second order too).
    Fields,
    /// A call of the helper's `grad_` or `jvp_` (nested AD: the helper has second order, the
    /// function first order only), one part of its result read.
    Nested,
    /// A loop over a local vector's elements (`for &e in &v`), which the body does not write.
    ForLocal,
    /// A `break` or `continue` in a nested loop that names an enclosing loop's label
    /// (`break 'l0;`): the chance, in percent, that a jump there does.
    Labelled,
    /// A `let mut stack = vec![…]` of constants declared first, and up to three of the body's
    /// `0.5` literals read as `stack.pop().unwrap_or(0.5)`: a constant changed in place wherever
    /// the body is (loops, arms, operands), which reverse mode must replay from where it was.
    Changed,
    /// The function writes its result into a `&mut f64` output instead of returning it:
    /// `fn f(…, written: &mut f64) { *written = { … }; }` (not with a `return`).
    Output,
    /// The function in an `#[autodiff]` `impl` block of a unit struct, called `Uf3::f3(…)`.
    ImplBlock,
    /// The fields of a parameter struct ([`C::Fields`]) read through its `#[autodiff(wrt(self))]`
    /// methods (`let x = pf.x_of();`), one of them through a method returning the struct
    /// (`let y = pf.swapped().x_of();`) where the function has first order only.
    OwnMethods,
    /// With [`C::OwnMethods`] (first order, not generic): the struct also built by
    /// `P::zip_with(p, q, f64::max)`, an associated function taking a function parameter and
    /// filling a local of the type by field, its operators and methods applied to the result.
    OwnForms,
    /// With [`C::OwnMethods`] (not generic): the first field read from a local copy of the
    /// struct changed by field (`acc.x += …`) and through the struct's `#[autodiff]` `AddAssign`
    /// and `MulAssign<f64>` impls (`acc += pf.clone(); acc *= 0.5;`), one written by field, one
    /// whole.
    OwnAssign,
    /// `checkpoint = s` (1 to 3 snapshots) on a function with a `for` loop at its top level: its
    /// reverse mode runs iterations again by a binomial schedule instead of recording them all.
    Checkpoint,
    /// A `for` over a range reversed, `(0..m).rev()`, with this chance in 100.
    ForRev,
}

/// Each construct's name (for `--weight name=value`) and default weight.
pub const CONSTRUCTS: [(C, &str, u32); C::COUNT] = [
    (C::LetFloat, "let", 10),
    (C::LetIfValue, "let_if_value", 4),
    (C::LetMatchValue, "let_match_value", 3),
    (C::LetVec, "let_vec", 3),
    (C::Assign, "assign", 14),
    (C::VecWrite, "vec_write", 7),
    (C::VecRead, "vec_read", 0),
    (C::IfStmt, "if", 7),
    (C::ElseIf, "else_if", 0),
    (C::IfExpr, "if_expr", 1),
    (C::MatchStmt, "match", 3),
    (C::MatchBool, "match_bool", 0),
    (C::ForRange, "for", 5),
    (C::ForN, "for_n", 0),
    (C::ForSliceIndex, "for_slice_index", 0),
    (C::ForElems, "for_elems", 3),
    (C::ForIter, "for_iter", 0),
    (C::ForChain, "for_chain", 0),
    (C::WhileCounter, "while", 3),
    (C::WhileFloat, "while_float", 2),
    (C::LoopBreak, "loop", 3),
    (C::Break, "break", 4),
    (C::Continue, "continue", 3),
    (C::Return, "return", 3),
    (C::JumpIf, "jump", 5),
    (C::BlockStmt, "block", 2),
    (C::Shadow, "shadow", 2),
    (C::ConstItem, "const", 1),
    (C::Assert, "assert", 1),
    (C::Call, "call", 3),
    (C::Elementary, "elementary", 0),
    (C::PiecewiseConstant, "piecewise_constant", 1),
    (C::FloatCond, "float_cond", 3),
    (C::IntCond, "int_cond", 2),
    (C::MixedCond, "mixed_cond", 0),
    (C::IntToFloat, "int_to_float", 0),
    (C::IntCount, "int_count", 2),
    (C::Helper, "helper", 40),
    (C::RecursiveHelper, "recursive_helper", 8),
    (C::SliceParam, "slice_param", 35),
    (C::VecParam, "vec_param", 20),
    (C::ArrayParam, "array_param", 20),
    (C::IntParam, "int_param", 50),
    (C::Wrt, "wrt", 8),
    (C::Order1, "order1", 8),
    (C::Order2, "order2", 50),
    (C::Order3, "order3", 8),
    (C::Generic, "generic", 15),
    (C::ArrayReplace, "array_replace", 30),
    (C::Push, "push", 15),
    (C::Packed, "packed", 10),
    (C::Fields, "fields", 10),
    (C::Nested, "nested", 25),
    (C::ForLocal, "for_local", 3),
    (C::Labelled, "labelled", 30),
    (C::Changed, "changed", 15),
    (C::Output, "output", 10),
    (C::ImplBlock, "impl_block", 10),
    (C::OwnMethods, "own_methods", 50),
    (C::OwnForms, "own_forms", 50),
    (C::OwnAssign, "own_assign", 70),
    (C::Checkpoint, "checkpoint", 20),
    (C::ForRev, "for_rev", 5),
];

impl C {
    pub const COUNT: usize = C::ForRev as usize + 1;

    pub fn name(self) -> &'static str {
        CONSTRUCTS[self as usize].1
    }
}

/// Forms that `#[autodiff]` gets wrong at the commit this tester was written against (bf4b46d),
/// named by their files in issue 15's regressions (A–N) and `fuzz/findings/`. Each is left out
/// unless it is listed in [`FIXED`] or asked for (`DIFFX_FUZZ_BUGS=A,C`, `--bugs all`), so that
/// the fixed seed of `cargo test` passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Bug {
    /// A: `break` under a condition on integers only.
    IntBreak,
    /// B: `break`/`continue`/`return` inside a block statement `{ … }`.
    JumpInBlockStmt,
    /// C: `match` as a statement.
    MatchStmt,
    /// D: a block statement last in its block.
    BlockStmtLast,
    /// E: a loop holding a jump, last in its block (also any statement holding one, last in a
    /// block, but for a plain `if c { …; break; }` ending a loop body; and after statements
    /// holding jumps, a last statement that computes constants only).
    LoopWithJumpLast,
    /// G: a slice, `Vec` or local vector passed to a call.
    SliceToCall,
    /// H: an array passed to a call.
    ArrayToCall,
    /// I: calls in a function with a slice parameter.
    CallInSliceFn,
    /// J: `*e` of `w.iter()` in a condition (or an `assert!`, or the argument of `floor` and the
    /// other piecewise-constant functions).
    IterDerefInCond,
    /// K, M: a local vector declared after an early return.
    VecAfterReturn,
    /// L: a vector written in a loop inside an `if` arm, then written after the `if`; or, if it
    /// started as constants (`vec![0.0; 3]`), written in a loop inside an arm at all, or after an
    /// early return.
    VecWriteAfterIfLoop,
    /// N: a vector written in a loop nested in another loop.
    VecWriteNestedLoop,
    /// O: `break`/`continue`/`return` in an arm of an `if` or `match` used as a value, also
    /// inside a loop there (a `loop` needs its `break`).
    JumpInValueArm,
    /// P: a method in path form on a constant (`f64::atan2(0.5 * 0.3, x)`, `f64::min(2.0, x)`).
    ConstantReceiver,
    /// Q: `match` on a `bool` computed from floats (`match x > 0.5 { true => …, false => … }`).
    MatchOnFloatBool,
    /// R: `log` with a constant base (`(2.0 + x).log(3.0)`).
    LogLiteralBase,
    /// S: `f64::floor(x)`, `f64::signum(x)`, … (the piecewise-constant functions in path form).
    PiecewisePathForm,
    /// T: in a loop, `return` of a value that depends on no differentiable parameter under a
    /// condition on none (`for i in 0..3 { if i == n { return 2.0; } }`): ignored.
    ConstReturnInLoop,
    /// V: an `if` with no effect on differentiable values (it writes none and holds no jump), last
    /// in an arm or block: "this `if` is used as a value"; in a loop, its integer work
    /// (`c += 1`) is dropped from the derivative programs; a loop of such work holding a jump,
    /// in an arm: "cannot find macro `__diffx_exit_if`".
    InertIf,
    /// W: a parameter left out by `wrt` shadowed by a value that depends on a differentiated one
    /// (`#[autodiff(wrt(y))] fn f(y: f64, x: f64) { let x = x * y; … }`): derivative code reads the
    /// new `x` where it means the parameter.
    ShadowConstParam,
    /// X: a constant assigned to a variable (`c = 0.5;`): in derivative code it loses the
    /// variable's type, and a method on it is "ambiguous numeric type".
    ConstAssign,
    /// U: a `break`/`continue` right after a statement that holds a jump, in the same block
    /// (`if a > 10.0 { break; } break;`): ignored by the derivative programs.
    JumpAfterJump,
    /// Y: a call of a function that has `wrt(…)` (`expected f64, found Zero`).
    CallWrtFunction,
    /// Z: a compound assignment to a constant local with a compound right-hand side
    /// (`a /= 1.0 + a * a` runs as `a = a / 1.0 + a * a` in the derivative programs).
    CompoundAssignConstant,
}

/// Each known-bug form: its letter or name, and what it is.
pub const BUGS: [(Bug, &str, &str); 24] = [
    (Bug::IntBreak, "A", "int_break"),
    (Bug::JumpInBlockStmt, "B", "jump_in_block"),
    (Bug::MatchStmt, "C", "match_stmt"),
    (Bug::BlockStmtLast, "D", "block_last"),
    (Bug::LoopWithJumpLast, "E", "loop_jump_last"),
    (Bug::SliceToCall, "G", "slice_to_call"),
    (Bug::ArrayToCall, "H", "array_to_call"),
    (Bug::CallInSliceFn, "I", "call_in_slice_fn"),
    (Bug::IterDerefInCond, "J", "iter_deref_cond"),
    (Bug::VecAfterReturn, "K", "vec_after_return"),
    (Bug::VecWriteAfterIfLoop, "L", "vec_write_after_if_loop"),
    (Bug::VecWriteNestedLoop, "N", "vec_write_nested_loop"),
    (Bug::JumpInValueArm, "O", "jump_in_value_arm"),
    (Bug::ConstantReceiver, "P", "constant_receiver"),
    (Bug::MatchOnFloatBool, "Q", "match_on_float_bool"),
    (Bug::LogLiteralBase, "R", "log_literal_base"),
    (Bug::PiecewisePathForm, "S", "piecewise_path_form"),
    (Bug::ConstReturnInLoop, "T", "const_return_in_loop"),
    (Bug::InertIf, "V", "inert_if"),
    (Bug::ShadowConstParam, "W", "shadow_const_param"),
    (Bug::ConstAssign, "X", "const_assign"),
    (Bug::JumpAfterJump, "U", "jump_after_jump"),
    (Bug::CallWrtFunction, "Y", "call_wrt_function"),
    (Bug::CompoundAssignConstant, "Z", "compound_assign_constant"),
];

/// The known-bug forms that `#[autodiff]` gets right now, generated by default (by `cargo test`
/// and long runs): add each form's letter here as its fix lands, so that the tester keeps it
/// fixed. `DIFFX_FUZZ_BUGS` and `--bugs` override it.
pub const FIXED: &str = "all";

/// Which known-bug forms may be generated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bugs(u32);

impl Bugs {
    pub fn none() -> Self {
        Bugs(0)
    }

    pub fn all() -> Self {
        Bugs((1 << BUGS.len()) - 1)
    }

    pub fn allows(self, b: Bug) -> bool {
        self.0 & (1 << b as u32) != 0
    }

    pub fn with(self, b: Bug) -> Self {
        Bugs(self.0 | 1 << b as u32)
    }

    /// `none`, `all`, or a comma-separated list of letters or names (`A,C,match_stmt`).
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut out = Bugs::none();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part {
                "none" => {}
                "all" => out = Bugs::all(),
                _ => {
                    let b = BUGS
                        .iter()
                        .find(|(_, letter, name)| {
                            part.eq_ignore_ascii_case(letter) || part == *name
                        })
                        .ok_or_else(|| {
                            format!("unknown form `{part}`: known are {}", Bugs::names())
                        })?;
                    out = out.with(b.0);
                }
            }
        }
        Ok(out)
    }

    pub fn names() -> String {
        BUGS.iter()
            .map(|(_, l, n)| format!("{l} ({n})"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The letters of the forms allowed, `none` if none.
    pub fn describe(self) -> String {
        let on: Vec<&str> = BUGS
            .iter()
            .filter(|b| self.allows(b.0))
            .map(|b| b.1)
            .collect();
        if on.is_empty() {
            "none".into()
        } else {
            on.join(",")
        }
    }
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct Config {
    /// By [`C`]: how often each construct is chosen where it may appear (0 turns it off).
    pub weights: [u32; C::COUNT],
    pub bugs: Bugs,
    /// Statements of a function body, counted over all nesting levels.
    pub max_stmts: usize,
    pub max_loop_depth: usize,
    /// Arms, loops and blocks inside each other.
    pub max_nesting: usize,
    pub expr_depth: u32,
}

impl Default for Config {
    fn default() -> Self {
        let mut weights = [0; C::COUNT];
        for (c, _, w) in CONSTRUCTS {
            weights[c as usize] = w;
        }
        Config {
            weights,
            bugs: Bugs::parse(FIXED).expect("FIXED names known forms"),
            max_stmts: 12,
            max_loop_depth: 2,
            max_nesting: 3,
            expr_depth: 2,
        }
    }
}

impl Config {
    /// `name=weight`: sets a construct's weight.
    pub fn set_weight(&mut self, spec: &str) -> Result<(), String> {
        let (name, value) = spec
            .split_once('=')
            .ok_or_else(|| format!("`{spec}`: write name=weight"))?;
        let c = CONSTRUCTS
            .iter()
            .find(|(_, n, _)| *n == name.trim())
            .ok_or_else(|| format!("unknown construct `{name}`"))?;
        self.weights[c.0 as usize] = value
            .trim()
            .parse()
            .map_err(|_| format!("`{value}` is not a weight"))?;
        Ok(())
    }
}
