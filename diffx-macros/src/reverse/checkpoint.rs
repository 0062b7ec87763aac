//! Checkpointed loops (`#[autodiff(checkpoint = s)]`): memory bounded by `s + 1` snapshots of a
//! loop's state instead of a record per iteration.
//!
//! A recording loop of the function's top level that runs to its end (`for … in …` with no
//! `break` or `return`) becomes, in the forward sweep, the loop as the primal runs it (no tape,
//! records or logs), which also keeps the snapshots a binomial schedule asks for
//! (`diffx::checkpoint::Schedule`, Griewank and Walther's revolve). Its backward loop follows the
//! schedule: it brings the state to an iteration's start (restoring a snapshot, running the primal
//! body forward), runs that one iteration as the recording loop does, then its adjoint, which
//! reads the records and undoes the iteration's vector writes. A snapshot holds the loop's cells
//! and the vectors its body writes.
//!
//! Other loops keep what they keep without the argument: a `while` or `loop`, a loop with a
//! `break` or an early `return`, one nested in an `if` or another loop (it runs inside its
//! enclosing loop's iterations), and one that recomputes (`record.rs` says which). Second order
//! (`hvp_`) differentiates the recording program, before this pass.
//!
//! With `s` snapshots and `n` iterations, each iteration runs at most `t + 2` times (the forward
//! sweep, `t` advances, its recording run), for the smallest `t` with `C(s + t, s) ≥ n`.

use proc_macro2::{Ident, Span};
use quote::quote;

use crate::builder::Builder;
use crate::ir::{Branch, Call, CallKind, Checkpoint, ControlId, LoopHead, LoopIter, Op, Stmt, Var};

/// Checkpoints every loop of `b`'s top level that can be: run on a finished reverse program.
pub fn checkpoint(b: &mut Builder, snapshots: usize) {
    let ids: Vec<ControlId> = b.func.body.iter().filter_map(candidate).collect();
    let with_backward: Vec<ControlId> = ids
        .into_iter()
        .filter(|id| b.func.body.iter().any(|s| backward_of(s, *id)))
        .collect();
    for id in with_backward {
        let step = Ident::new("__step", Span::mixed_site());
        let names = [
            b.fresh_name("steps"),
            b.fresh_name("schedule"),
            b.fresh_name("snapshots"),
        ];
        let at = b.func.body.iter().position(|s| forward_of(s, id));
        let Some(at) = at else { continue };
        let forward = b.func.body[at].clone();
        let made = made(&forward, snapshots, names);
        let again = once(&forward, &made.iter, &step);
        for s in &mut b.func.body {
            if forward_of(s, id) {
                set(s, made.clone());
            } else if backward_of(s, id) {
                let mut back = made.clone();
                back.again = Some(Box::new(again.clone()));
                set(s, back);
            }
        }
    }
}

/// The id of `s` if it is a loop that can be checkpointed: a recording `for` loop, not nested in
/// another, that runs to its end.
fn candidate(s: &Stmt) -> Option<ControlId> {
    match s {
        Stmt::Loop {
            id,
            head: LoopHead::For { exit: None, .. },
            tape: Some(t),
            ..
        } if t.record && t.nest.is_none() => Some(*id),
        _ => None,
    }
}

fn forward_of(s: &Stmt, id: ControlId) -> bool {
    matches!(s, Stmt::Loop { id: i, .. } if *i == id)
}

fn backward_of(s: &Stmt, id: ControlId) -> bool {
    matches!(s, Stmt::LoopBack { id: i, .. } if *i == id)
}

/// The checkpoint of the forward loop `s`: its state, and its body as the primal runs it.
fn made(s: &Stmt, snapshots: usize, [iter, schedule, snaps]: [Ident; 3]) -> Checkpoint {
    let Stmt::Loop { cells, body, .. } = s else {
        unreachable!("a checkpointed loop")
    };
    let mut state: Vec<Var> = cells.clone();
    for s in &body.body {
        s.walk(&mut |s| match s {
            Stmt::SetElem {
                vec, log: Some(_), ..
            }
            | Stmt::Push {
                vec, log: Some(_), ..
            } if !state.contains(vec) => state.push(*vec),
            _ => {}
        });
    }
    Checkpoint {
        snapshots,
        state,
        primal: Branch {
            body: primal(&body.body),
            yields: body.yields.clone(),
        },
        again: None,
        iter,
        schedule,
        snaps,
    }
}

/// `body` as the primal runs it: no records, tapes or logs, and calls made plainly.
fn primal(body: &[Stmt]) -> Vec<Stmt> {
    let mut out: Vec<Stmt> = (body.iter())
        .filter(|s| !matches!(s, Stmt::Record { .. }))
        .cloned()
        .collect();
    for s in &mut out {
        match s {
            Stmt::SetElem { log, .. } | Stmt::Push { log, .. } => *log = None,
            Stmt::Call(Call {
                kind: CallKind::Split { path, .. },
                args,
                outs,
                ..
            }) => {
                if let [Some(dst)] = outs[..] {
                    *s = Stmt::Let {
                        dst,
                        op: Op::Call(path.clone()),
                        args: std::mem::take(args),
                        span: Span::call_site(),
                    }
                }
            }
            Stmt::Loop {
                body, tape, logs, ..
            } => {
                body.body = primal(&body.body);
                (*tape, *logs) = (None, Vec::new());
            }
            Stmt::If { then_, else_, .. } => {
                then_.body = primal(&then_.body);
                else_.body = primal(&else_.body);
            }
            _ => {}
        }
    }
    out
}

/// The recording loop `s` run for the one iteration `step` of the loop's iterator `iter`.
fn once(s: &Stmt, iter: &Ident, step: &Ident) -> Stmt {
    let mut s = s.clone();
    if let Stmt::Loop {
        head: LoopHead::For { iter: it, .. },
        ..
    } = &mut s
    {
        *it = LoopIter::Other(
            quote! {
                ::core::iter::once(
                    ::core::iter::Iterator::nth(&mut ::core::clone::Clone::clone(&#iter), #step)
                        .expect("the schedule reverses the iterations the loop ran"),
                )
            }
            .into(),
        );
    }
    s
}

/// Marks `s`, a loop or its backward loop, checkpointed; a backward loop is never skipped (its
/// iteration's run pushed what it pops).
fn set(s: &mut Stmt, c: Checkpoint) {
    match s {
        Stmt::Loop { tape: Some(t), .. } => t.checkpoint = Some(Box::new(c)),
        Stmt::LoopBack {
            tape, skip_if_zero, ..
        } => {
            tape.checkpoint = Some(Box::new(c));
            skip_if_zero.clear();
        }
        _ => {}
    }
}
