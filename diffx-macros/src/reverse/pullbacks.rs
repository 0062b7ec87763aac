//! Calls paired with their pullbacks.
//!
//! The backward sweep's `vjp[g](args; ȳ)` runs `g`'s forward sweep again before its backward one.
//! Where the call `y = g(args)` is in the same list before it (the forward sweep at top level, or
//! a body or arm recomputed in the backward sweep), the pair becomes `(y, pb) = split[g](args)`,
//! which runs the forward sweep once and returns a closure holding what the backward sweep reads,
//! and `pb(args; ȳ)`, which runs only the backward sweep.
//!
//! In a loop, the pair is in the body's recomputation, and the call there need not be made again:
//! the body's run pushes the value and pullback on a tape of the call ([`Stash::Push`]), and the
//! recomputation pops them ([`Stash::Pop`]), iterations in reverse order as the loop's own tape.
//! A loop nested in another's forward sweep keeps plain calls: the outer loop's backward sweep
//! runs it again, and that run, in the same list as the inner backward sweep, pushes what it pops.

use proc_macro2::Ident;
use quote::format_ident;

use crate::ir::{Func, Op, Stash, Stmt, Var};
use crate::names;

/// Pairs the calls of `f` (a reverse program, after its tapes are trimmed) with their pullbacks.
pub fn pair_calls(f: &mut Func) {
    let mut body = std::mem::take(&mut f.body);
    pair_in(f, &mut body);
    stash_loops(f, &mut body);
    f.body = body;
}

/// In each list holding a loop and its backward sweep, the calls at the top of the loop's body
/// whose pullbacks are at the top of the backward sweep's body: the body's run pushes the value
/// and pullback, and the backward sweep pops them where it recomputed the call (or, if it has no
/// use for the value, just before the pullback).
fn stash_loops(f: &Func, list: &mut [Stmt]) {
    nested(list, &mut |l| stash_loops(f, l));
    for j in 0..list.len() {
        let Stmt::LoopBack { id, .. } = list[j] else {
            continue;
        };
        let forward = list[..j]
            .iter()
            .position(|s| matches!(s, Stmt::Loop { id: i, tape: Some(_), .. } if *i == id));
        let Some(i) = forward else { continue };
        let calls = loop_calls(f, &list[i]);
        let Stmt::LoopBack { body, .. } = &mut list[j] else {
            continue;
        };
        let popped = pop_calls(f, body, &calls);
        let Stmt::Loop {
            tape: Some(tape),
            body,
            ..
        } = &mut list[i]
        else {
            continue;
        };
        for s in body.body.iter_mut() {
            let Stmt::Let { dst, .. } = s else { continue };
            let dst = *dst;
            if popped.contains(&dst) {
                let name = call_tape(f, dst);
                split(s, &format_ident!("{}_pullback", f.name(dst)));
                if let Stmt::Split { stash, .. } = s {
                    *stash = Some(Stash::Push(name.clone()));
                }
                tape.calls.push(name);
            }
        }
    }
}

/// The calls at the top of `looped`'s body with what identifies their pullbacks (the callee and
/// the arguments); a call made twice alike is left out.
fn loop_calls(f: &Func, looped: &Stmt) -> Vec<(Var, (String, String))> {
    let Stmt::Loop { body, .. } = looped else {
        return Vec::new();
    };
    let calls: Vec<(Var, (String, String))> = body
        .body
        .iter()
        .filter_map(|s| match s {
            Stmt::Let {
                dst,
                op: Op::Call(path),
                args,
                ..
            } if splittable(path) => Some((*dst, (call_name(path), f.atoms(args)))),
            _ => None,
        })
        .collect();
    calls
        .iter()
        .filter(|(_, k)| calls.iter().filter(|(_, k2)| k2 == k).count() == 1)
        .cloned()
        .collect()
}

/// Pops the value and pullback of each of `calls` in the backward sweep's `body`: where it
/// recomputed the call, or before its pullback. Returns the calls popped.
fn pop_calls(f: &Func, body: &mut Vec<Stmt>, calls: &[(Var, (String, String))]) -> Vec<Var> {
    let mut popped = Vec::new();
    let mut k = 0;
    while k < body.len() {
        match &mut body[k] {
            Stmt::Split { dst, stash, .. } if calls.iter().any(|(d, _)| d == dst) => {
                *stash = Some(Stash::Pop(call_tape(f, *dst)));
                popped.push(*dst);
            }
            Stmt::CallVjp { path, args, .. } => {
                let key = (call_name(path), f.atoms(args));
                let call = calls.iter().find(|(d, k)| *k == key && !popped.contains(d));
                if let Some(&(dst, _)) = call {
                    let pullback = format_ident!("{}_pullback", f.name(dst));
                    let pop = Stmt::Split {
                        dst,
                        pullback: pullback.clone(),
                        path: path.clone(),
                        args: args.clone(),
                        stash: Some(Stash::Pop(call_tape(f, dst))),
                    };
                    split(&mut body[k], &pullback);
                    body.insert(k, pop);
                    popped.push(dst);
                    k += 1;
                }
            }
            _ => {}
        }
        k += 1;
    }
    popped
}

fn call_tape(f: &Func, dst: Var) -> Ident {
    format_ident!("{}_calls", f.name(dst))
}

/// Runs `f` on the statement lists nested in `list`'s statements (arms, loop bodies).
fn nested(list: &mut [Stmt], f: &mut dyn FnMut(&mut [Stmt])) {
    for s in list.iter_mut() {
        match s {
            Stmt::If { then_, else_, .. } => {
                f(&mut then_.body);
                f(&mut else_.body);
            }
            Stmt::Loop { body, .. } => f(&mut body.body),
            Stmt::LoopBack { body, .. } => f(body),
            _ => {}
        }
    }
}

fn pair_in(f: &Func, list: &mut [Stmt]) {
    nested(list, &mut |l| pair_in(f, l));
    for i in 0..list.len() {
        let Stmt::Let {
            dst,
            op: Op::Call(path),
            args,
            ..
        } = &list[i]
        else {
            continue;
        };
        if !splittable(path) {
            continue;
        }
        let key = (call_name(path), f.atoms(args));
        let later = list[i + 1..].iter().position(|s| {
            matches!(s, Stmt::CallVjp { path, args, .. } if (call_name(path), f.atoms(args)) == key)
        });
        let Some(j) = later.map(|k| i + 1 + k) else {
            continue;
        };
        let pullback = format_ident!("{}_pullback", f.name(*dst));
        split(&mut list[i], &pullback);
        split(&mut list[j], &pullback);
    }
}

/// The call or pullback `s` as half of the split pair `pullback` names.
fn split(s: &mut Stmt, pullback: &Ident) {
    let pullback = pullback.clone();
    *s = match std::mem::replace(s, Stmt::Item(Default::default())) {
        Stmt::Let {
            dst,
            op: Op::Call(path),
            args,
            ..
        } => Stmt::Split {
            dst,
            pullback,
            path,
            args,
            stash: None,
        },
        Stmt::CallVjp {
            args, ct, grads, ..
        } => Stmt::Pullback {
            pullback,
            args,
            ct,
            grads,
        },
        other => other,
    };
}

fn call_name(path: &syn::Path) -> String {
    Op::Call(path.clone()).name()
}

/// Whether the callee is a free function, which has a split form: not a method (`self.g(…)`,
/// lowered as `__diffx_self::g`) nor an associated function (`Self::g`, `Model::g`), whose
/// `impl`'s generic parameters its derivative functions could not name; nor another function's
/// `grad_g` or `jvp_g` (nested AD, `emit/nested.rs`: their pullback is one Hessian-vector product,
/// with no forward sweep to keep).
fn splittable(path: &syn::Path) -> bool {
    let last = path.segments.last().map(|s| s.ident.to_string());
    let nested = last.is_some_and(|l| {
        let l = l.strip_prefix(names::ARRAY).unwrap_or(&l);
        l.starts_with("grad_") || l.starts_with("jvp_")
    });
    !nested
        && path.segments.iter().all(|s| {
            let name = s.ident.to_string();
            name != names::SELF_PARAM && !name.starts_with(char::is_uppercase)
        })
}
