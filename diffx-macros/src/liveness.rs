//! Last uses: which values a statement reads for the last time, so emission can hand a tensor over
//! (`t1 + &b` reuses `t1`'s buffer, an adjoint takes its contribution without a copy) instead of
//! borrowing it and allocating anew.

use std::collections::{HashMap, HashSet};

use proc_macro2::TokenStream;

use crate::ir::{Atom, Func, Kind, LoopHead, Op, Stmt, Var};
use crate::tokens;

/// `(statement index, value)` pairs where the statement is the value's last reader and the value is
/// an owned tensor (or a value of another type, such as a contribution to a parameter-struct field)
/// read once there: it may be moved.
pub fn movable(f: &Func, params: &HashSet<Var>) -> HashSet<(usize, Var)> {
    let ret = f.ret.iter().cloned().collect::<Vec<_>>();
    single_last_reads(f, &f.body, &ret, &|v| !params.contains(&v))
}

/// [`movable`] for a loop body or an arm (`body`, then its `yields` read at index `body.len()`):
/// only values defined in it, since one defined outside may be read again by the next iteration.
pub fn movable_in(f: &Func, body: &[Stmt], yields: &[Atom]) -> HashSet<(usize, Var)> {
    let defined: HashSet<Var> = body.iter().flat_map(defines).collect();
    single_last_reads(f, body, yields, &|v| defined.contains(&v))
}

/// The values a statement of a list binds with `let`.
fn defines(s: &Stmt) -> Vec<Var> {
    match s {
        Stmt::Let { dst, .. } | Stmt::Adjoint { dst, .. } | Stmt::Zeros { dst, .. } => vec![*dst],
        Stmt::If { outs, .. } => outs.clone(),
        _ => Vec::new(),
    }
}

/// The values that `keep` admits, owned (not references) and not numbers, whose last read in
/// `body` followed by `tail` is a single read, with where it is.
fn single_last_reads(
    f: &Func,
    body: &[Stmt],
    tail: &[Atom],
    keep: &dyn Fn(Var) -> bool,
) -> HashSet<(usize, Var)> {
    let by_name = by_name(f);
    let mut last: HashMap<Var, (usize, usize)> = HashMap::new();
    let tail_reads = tail.iter().filter_map(Atom::var).collect::<Vec<_>>();
    let lists = body.iter().map(|s| reads(s, &by_name)).chain([tail_reads]);
    for (i, list) in lists.enumerate() {
        for v in list {
            let entry = last.entry(v).or_insert((i, 0));
            if entry.0 != i {
                *entry = (i, 0);
            }
            entry.1 += 1;
        }
    }
    last.into_iter()
        .filter(|(v, (_, count))| {
            *count == 1
                && matches!(f.kind(*v), Kind::Tensor | Kind::Other)
                && !f.vars[v.0].is_ref
                && keep(*v)
        })
        .map(|(v, (i, _))| (i, v))
        .collect()
}

/// Each value of `f` by its name (statements that keep user code as tokens mention values by name).
pub(crate) fn by_name(f: &Func) -> HashMap<String, Var> {
    f.vars
        .iter()
        .enumerate()
        .map(|(i, v)| (v.name.to_string(), Var(i)))
        .collect()
}

/// The values statement `s` reads (once per mention).
pub(crate) fn reads(s: &Stmt, by_name: &HashMap<String, Var>) -> Vec<Var> {
    let named = |t: &TokenStream| {
        let mut out = Vec::new();
        tokens::substitute(t.clone(), &mut |id| {
            out.extend(by_name.get(&id.to_string()));
            None
        });
        out
    };
    // A constant operand may still name values (`f64::from(t13 > 0.0)`, a partial's condition).
    let atoms = |a: &[Atom]| {
        a.iter()
            .flat_map(|x| match x {
                Atom::Const(t) => named(t),
                _ => x.var().into_iter().collect(),
            })
            .collect::<Vec<_>>()
    };
    match s {
        Stmt::If {
            cond, then_, else_, ..
        } => {
            let mut r = named(cond);
            for b in [then_, else_] {
                r.extend(b.body.iter().flat_map(|s| reads(s, by_name)));
                r.extend(atoms(&b.yields));
            }
            r
        }
        Stmt::Loop {
            head, cells, body, ..
        } => {
            let mut r = match head {
                LoopHead::For { iter, exit, .. } => {
                    let mut r = named(iter);
                    r.extend(exit.iter().flat_map(named));
                    r
                }
                LoopHead::While { cond } => named(cond),
            };
            r.extend(cells.iter().copied());
            r.extend(body.body.iter().flat_map(|s| reads(s, by_name)));
            r.extend(atoms(&body.yields));
            r
        }
        Stmt::LoopBack { body, .. } => body.iter().flat_map(|s| reads(s, by_name)).collect(),
        Stmt::Set { value, .. } => value.var().into_iter().collect(),
        Stmt::SetElem {
            vec, index, value, ..
        } => {
            let mut r = vec![*vec];
            r.extend(value.var());
            r.extend(named(index));
            r
        }
        Stmt::Undo { vec, .. } => vec![*vec],
        Stmt::Let {
            op: Op::Expr(e), ..
        } => named(e),
        Stmt::Let { args, .. } => atoms(args),
        Stmt::Accum {
            dst, value, like, ..
        } => {
            let mut r = vec![*value];
            r.extend(dst.var());
            r.extend(like.as_ref().and_then(Atom::var));
            r
        }
        Stmt::Adjoint { value, like, .. } => {
            let mut r = atoms(std::slice::from_ref(value));
            r.extend(like.as_ref().and_then(Atom::var));
            r
        }
        Stmt::Zeros { like, .. } => like.var().into_iter().collect(),
        Stmt::Const { expr, .. } => named(expr),
        Stmt::Verbatim { binds, tokens } => {
            let mut r: Vec<Var> = binds.iter().filter_map(|(_, a)| a.var()).collect();
            r.extend(named(tokens));
            r
        }
        Stmt::Item(_) => Vec::new(),
        Stmt::CallJvp { args, tangents, .. } => {
            let mut r = atoms(args);
            r.extend(tangents.iter().flatten().filter_map(Atom::var));
            r
        }
        Stmt::CallVjp { args, ct, .. } => {
            let mut r = atoms(args);
            r.push(*ct);
            r
        }
        Stmt::CallHvp {
            args,
            tangents,
            ct,
            ct_dot,
            ..
        } => {
            let mut r = atoms(args);
            r.extend(
                tangents
                    .iter()
                    .chain([ct_dot])
                    .flatten()
                    .filter_map(Atom::var),
            );
            r.push(*ct);
            r
        }
    }
}
