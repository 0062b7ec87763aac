//! Loops nested in a recording loop: each keeps its tape with the outermost loop's, and its
//! backward loop takes its own run's entries, found from its range (computed again where it names
//! no value of the list, `0..d`), else from a stack of its runs.

use std::collections::HashSet;

use proc_macro2::Ident;

use crate::builder::Builder;
use crate::ir::{ControlId, LoopHead, LoopIter, Nested, Stmt, Tape};
use crate::liveness::{self, ByName};

/// The loops nested in recording loops keep their tapes with the outermost one's: each gets a
/// stack of its runs, and the outermost declares them all. The loops in a recording `if`'s arms
/// (one of `ifs`) keep theirs with the function's.
pub(super) fn nest(b: &mut Builder, list: &mut [Stmt], ifs: &HashSet<ControlId>) {
    for s in list {
        match s {
            Stmt::If {
                id, then_, else_, ..
            } if ifs.contains(id) => {
                let mut stacks = Vec::new();
                nested_runs(b, &mut then_.body, &mut stacks);
                nested_runs(b, &mut else_.body, &mut stacks);
                b.func.stacks.extend(stacks);
            }
            Stmt::Loop {
                tape: Some(t),
                body,
                ..
            } if t.record => {
                let mut stacks = Vec::new();
                nested_runs(b, &mut body.body, &mut stacks);
                t.stacks.extend(stacks);
            }
            Stmt::Loop { body, .. } => nest(b, &mut body.body, ifs),
            Stmt::If { then_, else_, .. } => {
                nest(b, &mut then_.body, ifs);
                nest(b, &mut else_.body, ifs);
            }
            _ => {}
        }
    }
}

fn nested_runs(b: &mut Builder, list: &mut [Stmt], stacks: &mut Vec<Ident>) {
    // (Whether each range is computed again, decided first: the table borrows the builder.)
    let by_name = liveness::by_name(&b.func);
    let mut again = Vec::new();
    taped_loops(list, &mut |t, head| {
        again.push(match (&t.range, head) {
            (Some(_), LoopHead::For { iter, .. }) => names_no_value(iter, &by_name),
            _ => false,
        })
    });
    let mut again = again.into_iter();
    taped_loops(list, &mut |t, head| {
        stacks.push(t.name.clone());
        t.nest = Some(match (again.next(), head) {
            // (A range that names no value of the list is the same in the backward sweep.)
            (Some(true), LoopHead::For { iter, .. }) => Nested::Again(iter.clone()),
            _ => {
                let runs = b.fresh_name(&format!("{}_runs", t.name));
                stacks.push(runs.clone());
                Nested::Runs(runs)
            }
        });
    });
}

/// Calls `f` on each taped loop of `list` (its tape and head), at any depth, outer loops first.
fn taped_loops(list: &mut [Stmt], f: &mut dyn FnMut(&mut Tape, &LoopHead)) {
    for s in list {
        match s {
            Stmt::Loop {
                head,
                tape: Some(t),
                body,
                ..
            } => {
                f(t, head);
                taped_loops(&mut body.body, f);
            }
            Stmt::If { then_, else_, .. } => {
                taped_loops(&mut then_.body, f);
                taped_loops(&mut else_.body, f);
            }
            _ => {}
        }
    }
}

/// Whether a loop's range mentions no value of the list: only constants, loop variables and
/// parameters, which the backward sweep has as they were (the constants computed again).
fn names_no_value(iter: &LoopIter, by_name: &ByName) -> bool {
    (iter.codes())
        .flat_map(|c| c.idents())
        .all(|n| !by_name.contains_key(n.as_str()))
}
