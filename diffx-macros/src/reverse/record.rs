//! Loops that record: a loop's backward sweep reads what its forward sweep kept, not the body.
//!
//! A backward iteration needs, besides the iteration's entry state on the loop's tape, the values
//! of the body its adjoint reads. A loop that recomputes (`control.rs`) runs the body again from
//! the entry state for that, once per nesting level: the innermost body of three nested loops
//! runs four times per gradient. A recording loop keeps those values instead, as the forward sweep
//! makes them: each on a stack of its own, pushed after the statement that makes it
//! ([`Stmt::Record`]) and popped at the start of the backward iteration ([`Op::Recall`]): the
//! to-be-recorded values of Tapenade's TBR analysis, at the granularity of the Wengert list.
//!
//! What a backward iteration reads from its body is recorded, except:
//! - values one cheap scalar operation makes (a copy, `+`, `-`, `*`, `/`, a negation) from operands
//!   the backward sweep has (constants, values from outside the body, elements of vectors the
//!   body does not write, and other values of the body recomputed or recorded): computed again,
//!   as a few operations cost less than memory does;
//! - elements of vectors the body writes, read where every use of the value comes before the
//!   vector's next write: read from the vector again right before the backward iteration first
//!   needs them ([`reread`]);
//! - the body's constants (indices, conditions): computed again from their operands, but for a
//!   condition read from a vector the body writes, which is recorded (a `bool`).
//!
//! Vectors the body writes are not rewound at the start of a backward iteration: the adjoint of
//! each write undoes it from the vector's log, so at the adjoint of any statement a vector holds
//! what it held when the statement ran.
//!
//! A loop nested in a recording loop keeps its tape with the outermost loop's (`nest.rs`): every
//! run of it pushes there, and its backward loop takes its own run's entries, found from its
//! range: computed again where it names no value of the list (`0..d`), else recorded per run.
//!
//! A loop records when every loop nested in it does, and its body declares no vector it writes,
//! writes no vector a loop in it carries as a cell, runs no `println!` or other kept statement,
//! computes no constant but a condition from a vector it writes, and starts each nested loop's
//! cells in a `let` nothing else reads before that loop. Other loops recompute.
//!
//! An `if` of the function's top level with a loop in an arm records too, when each arm could be
//! a recording loop's body ([`if_records`]): its arms run once, so their records and their loops'
//! tapes are stacks the function declares ([`Func::stacks`]), from which the adjoint of the arm
//! that ran starts, not running the arm again. The rest of a body after an early `return` is such
//! an `if`: else the backward sweep of every loop after it would run the loop forward once more.

use std::collections::{BTreeSet, HashSet};

use proc_macro2::{Ident, Span};
use quote::ToTokens;

use super::Sweep;
use crate::ir::{Atom, ControlId, Func, Kind, Op, Stmt, Var};
use crate::liveness::{self, ByName};

/// A value a recording loop's backward sweep pops, pushed on `stack` after the statement that
/// makes it.
pub(super) struct Recorded {
    kept: Kept,
    stack: Ident,
    after: After,
}

/// What is recorded: a value of the list, or a condition (a constant the body computes from a
/// vector it writes, so that it cannot be computed again in the backward sweep).
#[derive(Clone)]
enum Kept {
    Value(Var),
    Condition(Ident),
}

/// Where the forward sweep pushes a recorded value.
#[derive(Clone, Copy, PartialEq)]
enum After {
    /// After the `let` or the `if` that defines it.
    Def,
    /// After this loop, whose cell it is: its final value.
    Loop(ControlId),
}

impl Recorded {
    /// Whether the forward sweep pushes this value right after `s`.
    fn follows(&self, s: &Stmt) -> bool {
        match (&self.kept, self.after, s) {
            (Kept::Value(v), After::Def, Stmt::Let { dst, op, .. }) => {
                dst == v && !matches!(op, Op::Recall(_))
            }
            (Kept::Value(v), After::Def, Stmt::If { outs, .. }) => outs.contains(v),
            (Kept::Value(_) | Kept::Condition(_), After::Loop(id), Stmt::Loop { id: l, .. }) => {
                id == *l
            }
            (Kept::Condition(c), After::Def, Stmt::Const { name, .. }) => name == c,
            _ => false,
        }
    }

    /// The forward sweep's push.
    fn push(&self) -> Stmt {
        let value = match (&self.kept, self.after) {
            (Kept::Value(v), _) => Atom::Var(*v),
            // (A constant a loop carries may be a vector changed in place, read again after.)
            (Kept::Condition(c), After::Loop(_)) => {
                Atom::constant(quote::quote!(::core::clone::Clone::clone(&#c)))
            }
            (Kept::Condition(c), After::Def) => Atom::constant(c.to_token_stream()),
        };
        Stmt::Record {
            stack: self.stack.clone(),
            value,
        }
    }
}

/// Whether a loop with this (taped) body records: see the module's documentation.
pub(super) fn records(f: &Func, cells: &[Var], body: &[Stmt]) -> bool {
    let mut ok = true;
    let mut written: HashSet<Var> = HashSet::new();
    let mut carried: HashSet<Var> = cells.iter().copied().collect();
    for s in body {
        s.walk(&mut |s| match s {
            Stmt::SetElem { vec, .. } | Stmt::Push { vec, .. } => {
                written.insert(*vec);
            }
            Stmt::Loop { tape, cells, .. } => {
                ok &= tape.as_ref().is_some_and(|t| t.record);
                carried.extend(cells.iter().copied());
            }
            Stmt::Let { .. } | Stmt::Const { .. } | Stmt::Item(_) | Stmt::If { .. } => {}
            _ => ok = false,
        });
    }
    let declared = super::tapes::declared_in(body);
    if !ok
        || written
            .iter()
            .any(|v| declared.contains(v) || carried.contains(v))
    {
        return false;
    }
    // (A condition read from a written vector is recorded; another constant would have to be
    // cloned, and may not be `Clone`.)
    let conditions = conditions(body);
    let from_written = reads_written(f, body, &written);
    from_written.is_subset(&conditions) && cells_start_fresh(f, body)
}

/// Whether the `if` `s`, a statement of the function's top level, records: its arms run once, so
/// what their adjoints read is kept on the function's own stacks ([`Func::stacks`]) rather than
/// the arm that ran being run again (its loops, its calls) before its adjoint. Its arms must be
/// what a recording loop's body may be.
pub(super) fn if_records(f: &Func, s: &Stmt) -> bool {
    let Stmt::If { then_, else_, .. } = s else {
        return false;
    };
    // Without a loop in it, an arm runs again for less than its records and kept pullbacks cost
    // (`benches/erf.rs`: 2.1x the gradient's time when such arms recorded).
    let mut loops = false;
    s.walk(&mut |s| loops |= matches!(s, Stmt::Loop { .. }));
    loops && records(f, &[], &then_.body) && records(f, &[], &else_.body)
}

/// The names of the conditions of the `if`s in `list`, at any depth.
fn conditions(list: &[Stmt]) -> HashSet<String> {
    let mut out = BTreeSet::new();
    for s in list {
        s.walk(&mut |s| {
            if let Stmt::If { cond, .. } = s {
                out.insert(cond.to_string());
            }
        });
    }
    out.into_iter().collect()
}

/// The names of the constants of `list` (at any depth) computed from a vector in `written`.
fn reads_written(f: &Func, list: &[Stmt], written: &HashSet<Var>) -> HashSet<String> {
    let names: HashSet<String> = written.iter().map(|v| f.name(*v).to_string()).collect();
    let mut out = HashSet::new();
    for s in list {
        s.walk(&mut |s| {
            if let Stmt::Const { name, expr, .. } = s {
                if expr.idents().iter().any(|n| names.contains(n)) {
                    out.insert(name.to_string());
                }
            }
        });
    }
    out
}

/// Whether every loop in `list` (at any depth) has cells that a `let` of the same list starts and
/// nothing reads between that `let` and the loop: then a cell read outside its loop holds the
/// loop's final value, which is what is recorded.
fn cells_start_fresh(f: &Func, list: &[Stmt]) -> bool {
    let by_name = liveness::by_name(f);
    list.iter().enumerate().all(|(p, s)| match s {
        Stmt::Loop { cells, body, .. } => {
            cells.iter().all(|c| {
                let start = list[..p]
                    .iter()
                    .rposition(|t| matches!(t, Stmt::Let { dst, .. } if dst == c));
                start.is_some_and(|d| {
                    list[d + 1..p]
                        .iter()
                        .all(|t| !liveness::reads(t, &by_name).contains(c))
                })
            }) && cells_start_fresh(f, &body.body)
        }
        Stmt::If { then_, else_, .. } => {
            cells_start_fresh(f, &then_.body) && cells_start_fresh(f, &else_.body)
        }
        _ => true,
    })
}

/// The vectors `list` writes, at any depth.
fn written(list: &[Stmt]) -> HashSet<Var> {
    let mut out = HashSet::new();
    for s in list {
        s.walk(&mut |s| {
            if let Stmt::SetElem { vec, .. } | Stmt::Push { vec, .. } = s {
                out.insert(*vec);
            }
        });
    }
    out
}

/// What `s` reads from before it: a backward loop reads its cells from its own tape.
fn reads(s: &Stmt, by_name: &ByName) -> Vec<Var> {
    let mut out = liveness::reads(s, by_name);
    if let Stmt::LoopBack { cells, body, .. } = s {
        let popped: HashSet<Var> = cells.iter().map(|(c, _)| *c).collect();
        out = body
            .iter()
            .flat_map(|s| reads(s, by_name))
            .filter(|v| !popped.contains(v))
            .collect();
    }
    out
}

/// Whether `dst = op(args)` is computed again rather than recorded: one cheap scalar operation on
/// operands the backward sweep has (a vector's element only if the scope does not write it).
fn cheap(f: &Func, dst: Var, op: &Op, args: &[Atom], written: &HashSet<Var>) -> bool {
    let cheap_op = match op {
        Op::Id => true,
        Op::Rule(r) => matches!(r.name, "add" | "sub" | "mul" | "div" | "neg"),
        _ => false,
    };
    cheap_op
        && f.kind(dst) == Kind::Scalar
        && args.iter().all(|a| match a {
            Atom::Field(v, _) => !written.contains(v),
            Atom::Var(v) => f.kind(*v) == Kind::Scalar,
            Atom::Const(_) => true,
        })
}

/// Whether the value `fwd[at]` makes, an element of a vector the scope writes (`x = v[k]`), can be
/// read again from the vector in the backward sweep instead of recorded: every statement after
/// `at` that reads `x` runs before the first write into `v` after `at`, if there is one. The
/// adjoint of each write undoes it, so where the backward sweep first needs `x` (the adjoint of
/// its last reader), every later write is undone and no earlier one: `v[k]` holds `x` again. (A
/// write filling a new vector is not undone, and is no such write.)
fn reread(f: &Func, fwd: &[Stmt], at: usize, written: &HashSet<Var>, by_name: &ByName) -> bool {
    let Stmt::Let {
        dst,
        op: Op::Id,
        args,
        ..
    } = &fwd[at]
    else {
        return false;
    };
    let [Atom::Field(v, _)] = args.as_slice() else {
        return false;
    };
    // (An element of a vector the scope does not write is computed again at the start.)
    if f.kind(*dst) != Kind::Scalar || !written.contains(v) {
        return false;
    }
    let writes = |s: &Stmt| {
        let mut found = false;
        s.walk(&mut |t| {
            found |= matches!(t, Stmt::SetElem { vec, .. } | Stmt::Push { vec, .. } if vec == v);
        });
        found
    };
    let mut filled = false;
    for s in &fwd[at + 1..] {
        s.walk(&mut |t| filled |= matches!(t, Stmt::SetElem { vec, init: true, .. } if vec == v));
    }
    let first_write = fwd[at + 1..].iter().position(writes).map(|q| q + at + 1);
    !filled
        && first_write.is_none_or(|q| {
            fwd[q..]
                .iter()
                .all(|s| !liveness::reads(s, by_name).contains(dst))
        })
}

/// The names `list` binds itself (values, constants, loop cells, what a loop's backward sweep
/// pops from its tape).
fn defined_in(f: &Func, list: &[Stmt]) -> HashSet<String> {
    let mut out = HashSet::new();
    for s in list {
        s.walk(&mut |s| match s {
            Stmt::Let { dst, .. } => {
                out.insert(f.name(*dst).to_string());
            }
            Stmt::Const { name, .. } => {
                out.insert(name.to_string());
            }
            Stmt::If { outs, .. } => out.extend(outs.iter().map(|o| f.name(*o).to_string())),
            Stmt::Loop { cells, .. } => out.extend(cells.iter().map(|c| f.name(*c).to_string())),
            Stmt::LoopBack { names, cells, .. } => {
                out.extend(names.iter().map(|n| n.to_string()));
                out.extend(cells.iter().map(|(c, _)| f.name(*c).to_string()));
            }
            _ => {}
        });
    }
    out
}

impl Sweep {
    /// The start of a recording scope's backward body `back` (a loop's backward iteration or an
    /// arm's adjoint), from the scope's forward statements `fwd`: the values `back` reads that
    /// `fwd` makes, popped or computed again, and the constants it reads, put before `back`; and
    /// the elements of written vectors read again where `back` first reads them ([`reread`]).
    pub(super) fn recall(&mut self, fwd: &[Stmt], back: &mut Vec<Stmt>) {
        let f = &self.b.func;
        let by_name = liveness::by_name(f);
        let written = written(fwd);
        let mut needed: HashSet<Var> = back.iter().flat_map(|s| reads(s, &by_name)).collect();
        // (What the statements computed again at the start read: those must be there too.)
        let mut needed_first: HashSet<Var> = HashSet::new();
        let mut names = BTreeSet::new();
        liveness::mentions(f, back, &mut names);
        let defined = defined_in(f, back);
        let from_written = reads_written(f, fwd, &written);
        let mut again = Vec::new();
        let mut rereads = Vec::new();
        let mut recorded: Vec<(Kept, After)> = Vec::new();
        for (at, s) in fwd.iter().enumerate().rev() {
            let keep = match s {
                Stmt::Const { name, .. } if from_written.contains(&name.to_string()) => {
                    if names.contains(&name.to_string()) {
                        recorded.push((Kept::Condition(name.clone()), After::Def));
                    }
                    false
                }
                Stmt::Const { name, .. } => names.contains(&name.to_string()),
                Stmt::Item(_) => true,
                Stmt::Let { dst, op, args, .. } if needed.remove(dst) => {
                    if !needed_first.contains(dst) && reread(f, fwd, at, &written, &by_name) {
                        liveness::mentions(f, std::slice::from_ref(s), &mut names);
                        rereads.push(s.clone());
                        false
                    } else {
                        let cheap = cheap(f, *dst, op, args, &written);
                        if !cheap {
                            recorded.push((Kept::Value(*dst), After::Def));
                        }
                        cheap
                    }
                }
                Stmt::If { outs, .. } => {
                    recorded.extend(if_kept(f, outs, &mut needed, &names, &defined));
                    false
                }
                Stmt::Loop {
                    id, cells, active, ..
                } => {
                    recorded.extend(loop_kept(
                        f,
                        *id,
                        cells,
                        active,
                        &mut needed,
                        &names,
                        &defined,
                    ));
                    false
                }
                _ => false,
            };
            if keep {
                let read = liveness::reads(s, &by_name);
                needed_first.extend(read.iter().copied());
                needed.extend(read);
                liveness::mentions(f, std::slice::from_ref(s), &mut names);
                again.push(s.clone());
            }
        }
        for s in rereads {
            let Stmt::Let { dst, .. } = &s else { continue };
            let first = back.iter().position(|t| reads(t, &by_name).contains(dst));
            back.insert(first.unwrap_or(back.len()), s);
        }
        let mut start: Vec<Stmt> = recorded
            .into_iter()
            .map(|(kept, after)| self.record(kept, after))
            .collect();
        start.extend(again.into_iter().rev());
        back.splice(0..0, start);
    }

    /// A stack for what is kept, and its pop.
    fn record(&mut self, kept: Kept, after: After) -> Stmt {
        let name = match &kept {
            Kept::Value(v) => self.b.func.name(*v).clone(),
            Kept::Condition(c) => c.clone(),
        };
        let stack = self.b.fresh_name(&format!("{name}_rec"));
        self.records.push(Recorded {
            kept: kept.clone(),
            stack: stack.clone(),
            after,
        });
        // (A condition, a `bool`, is popped into a value under its own name.)
        let dst = match kept {
            Kept::Value(var) => var,
            Kept::Condition(name) => self.b.named(name, Kind::Other, false),
        };
        Stmt::Let {
            dst,
            op: Op::Recall(stack),
            args: Vec::new(),
            span: Span::call_site(),
        }
    }
}

/// The pushes of the recorded values in every run of the statements that make them (the forward
/// sweep, and a recomputing loop's runs of its body), each stack declared with the outermost
/// recording loop around it, or by the function (a recording `if`'s).
pub(super) fn keep(f: &mut Func, records: &[Recorded]) {
    if !records.is_empty() {
        let mut stacks = Vec::new();
        keep_in(&mut f.body, records, &mut stacks);
        f.stacks.extend(stacks);
    }
}

fn keep_in(list: &mut Vec<Stmt>, records: &[Recorded], stacks: &mut Vec<Ident>) {
    let mut out = Vec::with_capacity(list.len());
    for mut s in std::mem::take(list) {
        match &mut s {
            Stmt::Loop { tape, body, .. } => match tape {
                Some(t) if t.record && t.nest.is_none() => {
                    let mut own = Vec::new();
                    keep_in(&mut body.body, records, &mut own);
                    t.stacks.extend(own);
                }
                _ => keep_in(&mut body.body, records, stacks),
            },
            Stmt::If { then_, else_, .. } => {
                keep_in(&mut then_.body, records, stacks);
                keep_in(&mut else_.body, records, stacks);
            }
            // (A recording loop's backward sweep runs nothing of the forward sweep again.)
            Stmt::LoopBack { tape, body, .. } if !tape.record => keep_in(body, records, stacks),
            _ => {}
        }
        let after: Vec<&Recorded> = records.iter().filter(|r| r.follows(&s)).collect();
        out.push(s);
        for r in after {
            out.push(r.push());
            if !stacks.contains(&r.stack) {
                stacks.push(r.stack.clone());
            }
        }
    }
    *list = out;
}

/// What the backward sweep needs of an `if`'s outputs: those it reads, and a constant the `if`
/// decides (`cnt` of `if … { cnt += 1 }`) that code kept as written names.
fn if_kept(
    f: &Func,
    outs: &[Var],
    needed: &mut HashSet<Var>,
    names: &BTreeSet<String>,
    defined: &HashSet<String>,
) -> Vec<(Kept, After)> {
    outs.iter()
        .filter(|o| needed.remove(o) | named_in_code(f, **o, names, defined))
        .map(|o| (Kept::Value(*o), After::Def))
        .collect()
}

/// What the backward sweep needs of a loop's cells: those it reads, and a constant the loop
/// carries (`cnt` of `cnt += 2`) that code kept as written names (an index, a condition).
fn loop_kept(
    f: &Func,
    id: ControlId,
    cells: &[Var],
    active: &[bool],
    needed: &mut HashSet<Var>,
    names: &BTreeSet<String>,
    defined: &HashSet<String>,
) -> Vec<(Kept, After)> {
    let mut out: Vec<(Kept, After)> = cells
        .iter()
        .filter(|c| needed.remove(c))
        .map(|c| (Kept::Value(*c), After::Loop(id)))
        .collect();
    out.extend(
        cells
            .iter()
            .zip(active)
            .filter(|(c, a)| !**a && named_in_code(f, **c, names, defined))
            .map(|(c, _)| (Kept::Condition(f.name(*c).clone()), After::Loop(id))),
    );
    out
}

/// Whether code kept as written in the backward sweep names `v`, which it does not define.
fn named_in_code(f: &Func, v: Var, names: &BTreeSet<String>, defined: &HashSet<String>) -> bool {
    let name = f.name(v).to_string();
    names.contains(&name) && !defined.contains(&name)
}
