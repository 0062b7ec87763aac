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
//!
//! In a recording scope (`record.rs`: a recording loop's nest at any depth, a recording `if`'s
//! arms), no call is made again: each call made once in the forward statements pushes its value
//! and pullback on a stack beside the scope's records, and the backward sweep pops them where it
//! would have popped the value. A call of the function itself is left to `vjp[f]`: a closure
//! holding closures of its own type would contain itself, and boxing them (every call's pullback
//! alive at once) measured slower than running the callee's forward sweep again.
//!
//! Every pullback called is offered, for each slice argument whose gradient the caller adds into
//! its own adjoint right after, that adjoint to add into in place ([`offer_buffers`]; the
//! callee's side is `emit/split.rs`).

use std::collections::HashSet;

use proc_macro2::Ident;
use quote::{format_ident, ToTokens};

use crate::ir::{Atom, Call, CallKind, ControlId, Func, Kind, Op, Stash, Stmt, Var};
use crate::names;

/// Pairs the calls of `f` (a reverse program, after its tapes are trimmed) with their pullbacks.
/// `own` is the function's name: its calls of itself are not kept (the type of a closure holding
/// its own type's closures would contain itself, and boxing them measured slower than running
/// the callee's forward sweep again for GradBench's `det`, whose every pullback would stay
/// alive).
pub fn pair_calls(f: &mut Func, own: &Ident, recording_ifs: &HashSet<ControlId>) {
    let mut body = std::mem::take(&mut f.body);
    pair_in(f, &mut body);
    stash_loops(f, &mut body);
    let mut stacks = Stacks::default();
    stash_in_ifs(f, &mut body, own, recording_ifs, &mut stacks);
    stash_in_recording_loops(f, &mut body, own);
    offer_buffers(f, &mut body);
    f.body = body;
    stacks.declare(&mut f.stacks);
    f.slots = single_entries(f);
}

/// The function's stacks pushed on once, outside every loop: each holds one entry at most.
fn single_entries(f: &Func) -> Vec<Ident> {
    fn visit(list: &[Stmt], in_loop: bool, pushes: &mut Vec<(Ident, bool)>) {
        for s in list {
            match s {
                Stmt::Record { stack, .. }
                | Stmt::Call(Call {
                    kind:
                        CallKind::Split {
                            stash: Some(Stash::Push(stack)),
                            ..
                        },
                    ..
                }) => pushes.push((stack.clone(), in_loop)),
                Stmt::If { then_, else_, .. } => {
                    visit(&then_.body, in_loop, pushes);
                    visit(&else_.body, in_loop, pushes);
                }
                Stmt::Loop { body, .. } => visit(&body.body, true, pushes),
                Stmt::LoopBack { body, .. } => visit(body, true, pushes),
                _ => {}
            }
        }
    }
    let mut pushes = Vec::new();
    visit(&f.body, false, &mut pushes);
    f.stacks
        .iter()
        .filter(|s| {
            let on: Vec<bool> = pushes
                .iter()
                .filter(|(p, _)| p == *s)
                .map(|p| p.1)
                .collect();
            on == [false]
        })
        .cloned()
        .collect()
}

/// The stacks a recording scope's declarations gain (the calls kept) and lose (the values
/// recorded beside calls kept, which come with the call's entry instead).
#[derive(Default)]
struct Stacks {
    added: Vec<Ident>,
    dropped: Vec<Ident>,
}

impl Stacks {
    fn declare(self, declared: &mut Vec<Ident>) {
        declared.retain(|s| !self.dropped.contains(s));
        declared.extend(self.added);
    }
}

/// The calls in the arms of the recording `if`s of the top level (`reverse/record.rs`), at any
/// depth, kept for their adjoints as [`stash_scope`] says, on stacks the function declares.
fn stash_in_ifs(
    f: &Func,
    list: &mut [Stmt],
    own: &Ident,
    recording: &HashSet<ControlId>,
    stacks: &mut Stacks,
) {
    for j in 0..list.len() {
        let Stmt::If { id, .. } = list[j] else {
            continue;
        };
        if !recording.contains(&id) {
            continue;
        }
        let forward = list[..j]
            .iter()
            .position(|s| matches!(s, Stmt::If { id: i, .. } if *i == id));
        let Some(i) = forward else { continue };
        let (before, after) = list.split_at_mut(j);
        let (
            Stmt::If { then_, else_, .. },
            Stmt::If {
                then_: t, else_: e, ..
            },
        ) = (&mut before[i], &mut after[0])
        else {
            continue;
        };
        stash_scope(f, &mut then_.body, &mut t.body, own, stacks);
        stash_scope(f, &mut else_.body, &mut e.body, own, stacks);
    }
}

/// The calls in recording loops' bodies, at any depth of their nests, kept for their adjoints as
/// [`stash_scope`] says, on stacks declared with the outermost loop's.
fn stash_in_recording_loops(f: &Func, list: &mut [Stmt], own: &Ident) {
    nested(list, &mut |l| stash_in_recording_loops(f, l, own));
    for j in 0..list.len() {
        let Stmt::LoopBack { id, .. } = list[j] else {
            continue;
        };
        let forward = list[..j].iter().position(|s| {
            matches!(s, Stmt::Loop { id: i, tape: Some(t), .. }
                if *i == id && t.record && t.nest.is_none())
        });
        let Some(i) = forward else { continue };
        let (before, after) = list.split_at_mut(j);
        let (
            Stmt::Loop {
                tape: Some(tape),
                body,
                ..
            },
            Stmt::LoopBack { body: back, .. },
        ) = (&mut before[i], &mut after[0])
        else {
            continue;
        };
        let mut stacks = Stacks::default();
        stash_scope(f, &mut body.body, back, own, &mut stacks);
        stacks.declare(&mut tape.stacks);
    }
}

/// In a recording scope's forward statements `fwd` and its backward sweep `back` (a recording
/// loop's body and backward body, or a recording `if`'s arm and its adjoint), and in the loops
/// and `if`s nested in them: each call made once in `fwd` whose pullback `back` calls once pushes
/// its value and pullback on a stack of its own, which `back` pops, instead of `back` running the
/// callee's forward sweep again (`vjp[g]`), but for calls of the function `own` itself. A call's
/// value recorded for `back` comes with its entry instead.
fn stash_scope(
    f: &Func,
    fwd: &mut Vec<Stmt>,
    back: &mut Vec<Stmt>,
    own: &Ident,
    stacks: &mut Stacks,
) {
    let keys: Vec<Option<CallKey>> = fwd
        .iter()
        .map(|s| match s {
            Stmt::Let {
                op: Op::Call(path),
                args,
                ..
            } if splittable(path) && !is_own(path, own) => Some(CallKey::new(path, args)),
            _ => None,
        })
        .collect();
    for (i, key) in keys.iter().enumerate() {
        let Some(key) = key else { continue };
        let once = keys.iter().flatten().filter(|k| *k == key).count() == 1;
        let pullbacks: Vec<usize> = (0..back.len())
            .filter(|&k| vjp_key(&back[k]).as_ref() == Some(key))
            .collect();
        let (true, [k]) = (once, pullbacks.as_slice()) else {
            continue;
        };
        let Stmt::Let {
            dst,
            op: Op::Call(path),
            args,
            ..
        } = &fwd[i]
        else {
            continue;
        };
        let (dst, path, args) = (*dst, path.clone(), args.clone());
        let stack = call_tape(f, dst);
        let pullback = format_ident!("{}_pullback", f.name(dst));
        split_value(&mut fwd[i], &pullback, Some(Stash::Push(stack.clone())));
        split_pullback(&mut back[*k], &pullback);
        let pop = split_call(dst, path, args, pullback, Some(Stash::Pop(stack.clone())));
        let recalled = back
            .iter()
            .position(|s| matches!(s, Stmt::Let { dst: d, op: Op::Recall(_), .. } if *d == dst));
        match recalled.map(|r| std::mem::replace(&mut back[r], pop.clone())) {
            Some(Stmt::Let {
                op: Op::Recall(record),
                ..
            }) => {
                stacks.dropped.push(record);
            }
            _ => back.insert(*k, pop),
        }
        stacks.added.push(stack);
    }
    // (After the calls: their places in `fwd` are where `keys` found them.)
    fwd.retain(|s| !matches!(s, Stmt::Record { stack, .. } if stacks.dropped.contains(stack)));
    stash_nested(f, fwd, back, own, stacks);
}

/// [`stash_scope`] in the bodies of `fwd`'s loops and arms, each paired with its backward
/// sweep's.
fn stash_nested(f: &Func, fwd: &mut [Stmt], back: &mut [Stmt], own: &Ident, stacks: &mut Stacks) {
    for s in fwd.iter_mut() {
        match s {
            Stmt::Loop { id, body, .. } => {
                let back_loop = back.iter_mut().find_map(|b| match b {
                    Stmt::LoopBack { id: i, body, .. } if i == id => Some(body),
                    _ => None,
                });
                if let Some(b) = back_loop {
                    stash_scope(f, &mut body.body, b, own, stacks);
                }
            }
            Stmt::If {
                id, then_, else_, ..
            } => {
                let back_if = back.iter_mut().find_map(|b| match b {
                    Stmt::If {
                        id: i,
                        then_,
                        else_,
                        ..
                    } if i == id => Some((then_, else_)),
                    _ => None,
                });
                if let Some((t, e)) = back_if {
                    stash_scope(f, &mut then_.body, &mut t.body, own, stacks);
                    stash_scope(f, &mut else_.body, &mut e.body, own, stacks);
                }
            }
            _ => {}
        }
    }
}

/// Each call's pullback is offered the caller's adjoint of a slice argument that its gradient
/// is added into right after (`ā += ḡ`): the callee adds into it in place and returns an empty
/// gradient (if its parameter takes the offer: a slice or `Vec`), which the addition then skips.
fn offer_buffers(f: &Func, list: &mut [Stmt]) {
    nested(list, &mut |l| offer_buffers(f, l));
    for k in 0..list.len() {
        let (head, rest) = list.split_at_mut(k + 1);
        let Stmt::Call(c) = &mut head[k] else {
            continue;
        };
        let (grads, into) = match &c.kind {
            CallKind::Vjp(path) if splittable(path) => (&c.outs, &mut c.into),
            CallKind::Pullback(_) => (&c.outs, &mut c.into),
            _ => continue,
        };
        // The additions of the call's gradients follow it, one per argument.
        for s in rest.iter().take(grads.len()) {
            let Stmt::Accum {
                dst: Atom::Var(adjoint),
                value,
                first: false,
                ..
            } = s
            else {
                continue;
            };
            let arg = grads.iter().position(|g| *g == Some(*value));
            if let Some(i) = arg.filter(|_| f.kind(*adjoint) == Kind::Slice) {
                if !into.contains(&Some(*adjoint)) {
                    into[i] = Some(*adjoint);
                }
            }
        }
    }
}

/// Whether `path` calls the function `own`.
fn is_own(path: &syn::Path, own: &Ident) -> bool {
    path.segments.len() == 1 && path.segments[0].ident == *own
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
        let calls = loop_calls(&list[i]);
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
                let pullback = format_ident!("{}_pullback", f.name(dst));
                split_value(s, &pullback, Some(Stash::Push(name.clone())));
                tape.calls.push(name);
            }
        }
    }
}

/// The calls at the top of `looped`'s body with what identifies their pullbacks (the callee and
/// the arguments); a call made twice alike is left out.
fn loop_calls(looped: &Stmt) -> Vec<(Var, CallKey)> {
    let Stmt::Loop { body, .. } = looped else {
        return Vec::new();
    };
    let calls: Vec<(Var, CallKey)> = body
        .body
        .iter()
        .filter_map(|s| match s {
            Stmt::Let {
                dst,
                op: Op::Call(path),
                args,
                ..
            } if splittable(path) => Some((*dst, CallKey::new(path, args))),
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
fn pop_calls(f: &Func, body: &mut Vec<Stmt>, calls: &[(Var, CallKey)]) -> Vec<Var> {
    let mut popped = Vec::new();
    let mut k = 0;
    while k < body.len() {
        match &mut body[k] {
            Stmt::Call(Call {
                kind: CallKind::Split { stash, .. },
                outs,
                ..
            }) => {
                if let Some(&(dst, _)) = calls.iter().find(|(d, _)| outs[..] == [Some(*d)]) {
                    *stash = Some(Stash::Pop(call_tape(f, dst)));
                    popped.push(dst);
                }
            }
            Stmt::Call(Call {
                kind: CallKind::Vjp(path),
                args,
                ..
            }) => {
                let key = CallKey::new(path, args);
                let call = calls.iter().find(|(d, k)| *k == key && !popped.contains(d));
                if let Some(&(dst, _)) = call {
                    let pullback = format_ident!("{}_pullback", f.name(dst));
                    let stash = Some(Stash::Pop(call_tape(f, dst)));
                    let pop = split_call(dst, path.clone(), args.clone(), pullback.clone(), stash);
                    split_pullback(&mut body[k], &pullback);
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
        let key = CallKey::new(path, args);
        let later = list[i + 1..]
            .iter()
            .position(|s| vjp_key(s).as_ref() == Some(&key));
        let Some(j) = later.map(|k| i + 1 + k) else {
            continue;
        };
        let pullback = format_ident!("{}_pullback", f.name(*dst));
        split_value(&mut list[i], &pullback, None);
        split_pullback(&mut list[j], &pullback);
    }
}

/// The call `s` (`y = g(args)`) as the first half of the split pair `pullback` names, its value
/// and pullback kept or found as `stash` says.
fn split_value(s: &mut Stmt, pullback: &Ident, stash: Option<Stash>) {
    if let Stmt::Let {
        dst,
        op: Op::Call(path),
        args,
        ..
    } = s
    {
        let args = std::mem::take(args);
        *s = split_call(*dst, path.clone(), args, pullback.clone(), stash);
    }
}

/// The pullback `s` (`vjp[g](args; ȳ)`) as the second half of the split pair `pullback` names.
fn split_pullback(s: &mut Stmt, pullback: &Ident) {
    if let Stmt::Call(Call {
        kind: kind @ CallKind::Vjp(_),
        ..
    }) = s
    {
        *kind = CallKind::Pullback(pullback.clone());
    }
}

/// `(dst, pullback) = split[path](args)`, its value and pullback kept or found as `stash` says.
fn split_call(
    dst: Var,
    path: syn::Path,
    args: Vec<Atom>,
    pullback: Ident,
    stash: Option<Stash>,
) -> Stmt {
    let kind = CallKind::Split {
        path,
        pullback,
        stash,
    };
    Stmt::Call(Call::new(kind, args, vec![Some(dst)]))
}

/// What identifies the pullback `vjp[g](args; ct)` of `s`, if it is one: the callee and the
/// arguments.
/// A call as its pullback names it: the function called and its operands.
#[derive(Clone)]
struct CallKey {
    path: syn::Path,
    args: Vec<Atom>,
}

impl CallKey {
    fn new(path: &syn::Path, args: &[Atom]) -> CallKey {
        CallKey {
            path: path.clone(),
            args: args.to_vec(),
        }
    }
}

/// The same function, on the same values (or on constants written alike).
impl PartialEq for CallKey {
    fn eq(&self, other: &Self) -> bool {
        crate::tokens::same(&self.path.to_token_stream(), &other.path.to_token_stream())
            && self.args.len() == other.args.len()
            && self.args.iter().zip(&other.args).all(|(a, b)| a.alike(b))
    }
}

fn vjp_key(s: &Stmt) -> Option<CallKey> {
    match s {
        Stmt::Call(Call {
            kind: CallKind::Vjp(path),
            args,
            ..
        }) => Some(CallKey::new(path, args)),
        _ => None,
    }
}

/// Whether the callee is a free function, which has a split form: not a method (`self.g(…)`,
/// lowered as `__diffx_self::g`) nor an associated function (`Self::g`, `Model::g`), whose
/// `impl`'s generic parameters its derivative functions could not name; nor another function's
/// `grad_g` or `jvp_g` (nested AD, `emit/nested.rs`: their pullback is one Hessian-vector product,
/// with no forward sweep to keep).
fn splittable(path: &syn::Path) -> bool {
    let last = path.segments.last().map(|s| s.ident.to_string());
    let nested = last.is_some_and(|l| {
        let l = names::callee(&l);
        l.starts_with("grad_") || l.starts_with("jvp_")
    });
    !nested
        && path.segments.iter().all(|s| {
            let name = s.ident.to_string();
            name != names::SELF_PARAM
                && name != names::METHOD
                && name != names::OPERATOR
                && !name.starts_with(char::is_uppercase)
        })
}
