//! What each loop's tape keeps: the entries its backward sweep reads, and nothing more.
//!
//! The backward sweep recomputes an iteration's body from the state popped off the tape before it
//! runs the body's adjoint. Much of that state is never read there: a running sum `s += t` has
//! constant partials, so no adjoint needs `s`; an Euler step `v += dt * a` needs no `v`. This pass
//! drops the recomputations no adjoint reads, then the tape entries nothing reads any more, and the
//! tapes of loops the result does not depend on: a tape costs what the derivative needs.

use std::collections::{BTreeSet, HashMap, HashSet};

use proc_macro2::Ident;

use crate::ir::{Func, Nested, Op, Stmt, Var};
use crate::liveness;

/// Trims every tape of `f`: run on a finished reverse (or forward-over-reverse) program.
pub fn trim(f: &mut Func) {
    let mut body = std::mem::take(&mut f.body);
    let mut kept = HashMap::new();
    trim_backward(f, &mut body, &mut kept);
    set_pushes(&mut body, &kept);
    f.body = body;
    drop_unread(f);
    let mut used = HashSet::new();
    for s in &f.body {
        s.walk(&mut |s| used_stacks(s, &mut used));
    }
    declare_used(&mut f.body, &used);
    f.stacks.retain(|s| used.contains(s));
    guard_zeros(&mut f.body);
    f.value_logs = value_logs(&f.body);
}

/// The undo logs whose every undo restores the element of a write it knows the index of (the
/// adjoint of that write): they keep old values alone, half the memory, and restore without a
/// test. A log a push shares, or one rewound to a mark (a recomputing loop, an `if` run again),
/// keeps each value's index.
fn value_logs(body: &[Stmt]) -> Vec<Ident> {
    let mut indexed = HashSet::new();
    for s in body {
        s.walk(&mut |s| match s {
            Stmt::Push { log: Some(l), .. } => _ = indexed.insert(l.clone()),
            Stmt::Undo { log, mark, at, .. } if mark.is_some() || at.is_none() => {
                indexed.insert(log.clone());
            }
            _ => {}
        });
    }
    let mut out: Vec<Ident> = Vec::new();
    for s in body {
        s.walk(&mut |s| match s {
            Stmt::SetElem { log: Some(l), .. } if !indexed.contains(l) && !out.contains(l) => {
                out.push(l.clone())
            }
            _ => {}
        });
    }
    out
}

/// A backward loop over a range that takes nothing off a stack (no tape entries, records, logs or
/// calls' closures) is skipped where the adjoints carried into it are zero ([`Stmt::LoopBack`]'s
/// `skip_if_zero`): kmeans' distances to the centroids a point is not closest to. Others run.
fn guard_zeros(list: &mut [Stmt]) {
    for s in list {
        match s {
            Stmt::LoopBack {
                tape,
                cells,
                body,
                skip_if_zero,
                ..
            } => {
                guard_zeros(body);
                let own = tape.range.is_some()
                    && tape.keep.as_ref().is_some_and(|keep| {
                        keep.iter().enumerate().all(|(i, k)| !k || i == cells.len())
                    });
                if !own || !body.iter().all(keeps_nothing) {
                    skip_if_zero.clear();
                }
            }
            Stmt::Loop { body, .. } => guard_zeros(&mut body.body),
            Stmt::If { then_, else_, .. } => {
                guard_zeros(&mut then_.body);
                guard_zeros(&mut else_.body);
            }
            _ => {}
        }
    }
}

/// Whether `s` neither takes anything off a stack nor puts anything on one.
fn keeps_nothing(s: &Stmt) -> bool {
    let mut nothing = true;
    s.walk(&mut |s| {
        nothing &= match s {
            Stmt::Let { op, .. } => !matches!(op, Op::Recall(_)),
            Stmt::SetElem { log, .. } | Stmt::Push { log, .. } => log.is_none(),
            Stmt::Accum { .. } | Stmt::Const { .. } | Stmt::Set { .. } | Stmt::If { .. } => true,
            _ => false,
        };
    });
    nothing
}

/// The stacks a statement pushes on: a recorded value's, and a nested recording loop's runs and
/// (unless it pushes nothing) its tape.
fn used_stacks(s: &Stmt, used: &mut HashSet<Ident>) {
    match s {
        Stmt::Record { stack, .. } => {
            used.insert(stack.clone());
        }
        Stmt::Loop {
            tape: Some(t),
            cells,
            ..
        } => {
            let Some(nest) = &t.nest else { return };
            if let Nested::Runs(runs) = nest {
                used.insert(runs.clone());
            }
            // (Over a range, the loop variable is not pushed: it is the entry after the cells.)
            let pushes = t.keep.as_ref().is_none_or(|keep| {
                keep.iter()
                    .enumerate()
                    .any(|(i, k)| *k && !(t.range.is_some() && i == cells.len()))
            });
            if pushes || t.range.is_none() {
                used.insert(t.name.clone());
            }
        }
        _ => {}
    }
}

/// The outermost recording loops declare only the stacks something pushes on (an empty one's
/// element type could not be inferred).
fn declare_used(list: &mut [Stmt], used: &HashSet<Ident>) {
    for s in list {
        match s {
            Stmt::Loop { tape, body, .. } => {
                if let Some(t) = tape {
                    t.stacks.retain(|s| used.contains(s));
                }
                declare_used(&mut body.body, used);
            }
            Stmt::If { then_, else_, .. } => {
                declare_used(&mut then_.body, used);
                declare_used(&mut else_.body, used);
            }
            Stmt::LoopBack { body, .. } => declare_used(body, used),
            _ => {}
        }
    }
}

/// Trims the backward loops in `body` (inner ones first) and records what each tape keeps.
fn trim_backward(f: &Func, body: &mut [Stmt], kept: &mut HashMap<String, Vec<bool>>) {
    for s in body {
        match s {
            Stmt::LoopBack {
                tape, names, body, ..
            } => {
                trim_backward(f, body, kept);
                *body = live(f, body);
                let mut used = BTreeSet::new();
                liveness::mentions(f, body, &mut used);
                let keep: Vec<bool> = names
                    .iter()
                    .map(|n| used.contains(&n.to_string()))
                    .collect();
                kept.insert(tape.name.to_string(), keep.clone());
                tape.keep = Some(keep);
            }
            Stmt::If { then_, else_, .. } => {
                trim_backward(f, &mut then_.body, kept);
                trim_backward(f, &mut else_.body, kept);
            }
            Stmt::Loop { body, .. } => trim_backward(f, &mut body.body, kept),
            _ => {}
        }
    }
}

/// `body` without the values nothing after them reads (in the statement list's own scope): dead
/// `let`s, constants, and `if`s without effects whose outputs nothing reads (a flag a `break`
/// sets, which the backward sweep does not need: the tape already replays the iterations).
fn live(f: &Func, body: &[Stmt]) -> Vec<Stmt> {
    let by_name = liveness::by_name(f);
    let mut needed: HashSet<Var> = HashSet::new();
    // Identifiers later statements mention: constants are read by name.
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut kept = Vec::new();
    for s in body.iter().rev() {
        let unread = |v: &Var| !needed.contains(v) && !names.contains(&f.name(*v).to_string());
        let dead = match s {
            // (A constant popped from a record, `cnt` of `w[cnt % 2]`, is read by name.)
            Stmt::Let {
                dst,
                op: Op::Recall(_),
                ..
            } => unread(dst),
            Stmt::Let { dst, .. } => !needed.contains(dst),
            Stmt::Const { name, .. } => !names.contains(&name.to_string()),
            Stmt::If { outs, .. } => outs.iter().all(unread) && without_effects(s),
            _ => false,
        };
        if dead {
            continue;
        }
        liveness::mentions(f, std::slice::from_ref(s), &mut names);
        needed.extend(liveness::reads(s, &by_name));
        if let Stmt::Set { dst, .. } = s {
            needed.insert(*dst);
        }
        kept.push(s.clone());
    }
    kept.reverse();
    kept
}

/// Whether `s` only computes values: `let`s, constants and `if`s of them, nothing written,
/// printed or accumulated.
fn without_effects(s: &Stmt) -> bool {
    let mut pure = true;
    s.walk(&mut |s| {
        pure &= matches!(s, Stmt::Let { .. } | Stmt::Const { .. } | Stmt::If { .. });
    });
    pure
}

/// Each forward loop pushes what its backward loop pops; a loop without one needs no tape.
fn set_pushes(body: &mut [Stmt], kept: &HashMap<String, Vec<bool>>) {
    for s in body {
        match s {
            Stmt::Loop { tape, body, .. } => {
                if let Some(t) = tape {
                    match kept.get(&t.name.to_string()) {
                        Some(keep) => t.keep = Some(keep.clone()),
                        None => *tape = None,
                    }
                }
                set_pushes(&mut body.body, kept);
            }
            Stmt::If { then_, else_, .. } => {
                set_pushes(&mut then_.body, kept);
                set_pushes(&mut else_.body, kept);
            }
            Stmt::LoopBack { body, .. } => set_pushes(body, kept),
            _ => {}
        }
    }
}

/// The records a trimmed program still pops: a push whose pop the trimming dropped goes too.
fn drop_unread(f: &mut Func) {
    let mut popped = BTreeSet::new();
    for s in &f.body {
        s.walk(&mut |s| {
            if let Stmt::Let {
                op: Op::Recall(stack),
                ..
            } = s
            {
                popped.insert(stack.to_string());
            }
        });
    }
    retain(&mut f.body, &popped);
}

fn retain(list: &mut Vec<Stmt>, popped: &BTreeSet<String>) {
    list.retain(
        |s| !matches!(s, Stmt::Record { stack, .. } if !popped.contains(&stack.to_string())),
    );
    for s in list {
        match s {
            Stmt::Loop { body, .. } => retain(&mut body.body, popped),
            Stmt::If { then_, else_, .. } => {
                retain(&mut then_.body, popped);
                retain(&mut else_.body, popped);
            }
            Stmt::LoopBack { body, .. } => retain(body, popped),
            _ => {}
        }
    }
}
