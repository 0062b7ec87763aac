//! A statement with its tangent: after `z = op(a, b)`, `ż = ∂z/∂a·ȧ + ∂z/∂b·ḃ` from the rule
//! table's partials (or a linear map's tangent map); a call of another `#[autodiff]` function as
//! a call of its forward code; writes of vectors with their tangents' writes.

use proc_macro2::Span;

use super::adjoint::adjoint_stmt;
use super::control::{if_stmt, loop_stmt, record_stmt, tangent_log};
use super::{copy_tangent, tangent, zero, Dots};
use crate::builder::Builder;
use crate::ir::{Atom, Call, CallKind, Kind, Op, Stmt, Var};
use crate::lower::partials;
use crate::names;
use crate::rules::{Deriv, Rule};

pub(super) fn stmt(b: &mut Builder, dot: &mut Dots, s: &Stmt) -> syn::Result<()> {
    if let Stmt::If {
        id,
        cond,
        then_,
        else_,
        outs,
    } = s
    {
        return if_stmt(b, dot, *id, cond, then_, else_, outs);
    }
    if let Stmt::Loop { .. } = s {
        return loop_stmt(b, dot, s);
    }
    if let Some(()) = vector_stmt(b, dot, s) {
        return Ok(());
    }
    if let Some(()) = record_stmt(b, dot, s) {
        return Ok(());
    }
    if let Some(()) = adjoint_stmt(b, dot, s) {
        return Ok(());
    }
    let Stmt::Let {
        dst,
        op,
        args,
        span,
    } = s
    else {
        b.push(s.clone());
        return Ok(());
    };
    b.push(s.clone());
    let tangents: Vec<Option<Atom>> = match op {
        // The maps in an adjoint program are shapes and constant-kind operations (order 2 refuses
        // tensor operations): no tangent flows through them.
        Op::Map { .. } | Op::Zeros(_) | Op::Fit | Op::Recall(_) => Vec::new(),
        _ => args.iter().map(|a| tangent(dot, a)).collect(),
    };
    if tangents.iter().all(Option::is_none) {
        // A local vector written element by element gets a tangent from the start (zero here),
        // and so does every value of an adjoint program.
        if b.func.kind(*dst) == Kind::Slice || b.dense {
            let zero = zero(b, &Atom::Var(*dst));
            copy_tangent(b, dot, *dst, zero, *span);
        }
        return Ok(());
    }
    let mark = b.mark();
    let t = match op {
        Op::Call(path) => {
            call_jvp(b, dot, *dst, path, args, tangents, *span);
            return Ok(());
        }
        Op::Id | Op::Map { .. } | Op::Zeros(_) | Op::Fit | Op::Recall(_) => tangents[0].clone(),
        Op::SetPart(path) => Some(set_part_tangent(b, *dst, path, args, &tangents, *span)),
        Op::Rule(rule) => {
            let terms = terms(b, rule, *dst, args, &tangents, *span)?;
            b.sum(terms, *span)
        }
    };
    let Some(t) = t else { return Ok(()) };
    let name = format!("{}_dot", b.func.name(*dst));
    let t = match t {
        Atom::Var(v) if b.is_new(&t, mark) => {
            b.rename(v, &name);
            v
        }
        other => copy_tangent(b, dot, *dst, other, *span),
    };
    dot.insert(*dst, t);
    Ok(())
}

/// `y = g(args)` with tangents: the call replaced by one of `g`'s `jvp`, giving `y` and its
/// tangent.
fn call_jvp(
    b: &mut Builder,
    dot: &mut Dots,
    dst: Var,
    path: &syn::Path,
    args: &[Atom],
    tangents: Vec<Option<Atom>>,
    span: proc_macro2::Span,
) {
    b.func.body.pop();
    let dst_dot = b.fresh(&format!("{}_dot", b.func.name(dst)), b.func.kind(dst));
    let kind = CallKind::Jvp {
        path: path.clone(),
        span,
    };
    b.push(Stmt::Call(Call {
        tangents,
        ..Call::new(kind, args.to_vec(), vec![Some(dst), Some(dst_dot)])
    }));
    dot.insert(dst, dst_dot);
}

/// A write, push, pop or undo of a vector, with the same on its tangent if it has one: `None`
/// for any other statement.
fn vector_stmt(b: &mut Builder, dot: &mut Dots, s: &Stmt) -> Option<()> {
    if let Stmt::SetElem {
        vec,
        index,
        value,
        log,
        init,
    } = s
    {
        b.push(s.clone());
        if let Some(d) = dot.get(vec).copied() {
            let value = tangent(dot, value).unwrap_or(Atom::constant(quote::quote!(0.0)));
            let log = log.as_ref().map(|l| tangent_log(b, l));
            b.push(Stmt::SetElem {
                vec: d,
                index: index.clone(),
                value,
                log,
                init: *init,
            });
        }
        return Some(());
    }
    // A push pushes the tangent too (zero for a constant), keeping the lengths in step.
    if let Stmt::Push { vec, value, log } = s {
        b.push(s.clone());
        if let Some(d) = dot.get(vec).copied() {
            let value = tangent(dot, value).unwrap_or(Atom::constant(quote::quote!(0.0)));
            let log = log.as_ref().map(|l| tangent_log(b, l));
            b.push(Stmt::Push { vec: d, value, log });
        }
        return Some(());
    }
    // Over reverse mode: a pushed element's adjoint is popped with its tangent.
    if let Stmt::Pop { dst, vec } = s {
        b.push(s.clone());
        if let Some(d) = dot.get(vec).copied() {
            let dst_dot = b.fresh(&format!("{}_dot", b.func.name(*dst)), Kind::Scalar);
            dot.insert(*dst, dst_dot);
            b.push(Stmt::Pop {
                dst: dst_dot,
                vec: d,
            });
        }
        return Some(());
    }
    // Over reverse mode: a vector's tangent is restored with it, from a log kept in step.
    if let Stmt::Undo { vec, log, mark, at } = s {
        b.push(s.clone());
        if let Some(d) = dot.get(vec).copied() {
            let log = tangent_log(b, log);
            b.push(Stmt::Undo {
                vec: d,
                log,
                mark: mark.clone(),
                at: at.clone(),
            });
        }
        return Some(());
    }
    None
}

/// The tangent of a value with a part replaced: the base's tangent with that part's (a constant
/// written has a zero tangent shaped like the part it replaces).
fn set_part_tangent(
    b: &mut Builder,
    dst: Var,
    path: &crate::ir::Path,
    args: &[Atom],
    tangents: &[Option<Atom>],
    span: proc_macro2::Span,
) -> Atom {
    let part = match &args[0] {
        Atom::Var(v) => Atom::Field(*v, path.clone()),
        a => a.clone(),
    };
    let t = [&args[0], &part].into_iter().zip(tangents);
    let t = t
        .map(|(a, t)| t.clone().unwrap_or_else(|| zero(b, a)))
        .collect();
    let kind = b.func.kind(dst);
    Atom::Var(b.op_of_kind(Op::SetPart(path.clone()), t, span, kind))
}

/// `∂z/∂aᵢ·ȧᵢ` (or the tangent map of aᵢ) for each operand with a tangent.
fn terms(
    b: &mut Builder,
    rule: &Rule,
    dst: Var,
    args: &[Atom],
    tangents: &[Option<Atom>],
    span: Span,
) -> syn::Result<Vec<Atom>> {
    match &rule.deriv {
        Deriv::Partials(_) => {
            let needed: Vec<bool> = tangents.iter().map(Option::is_some).collect();
            let parts = partials(b, rule, args, &Atom::Var(dst), &needed)?;
            Ok(parts
                .into_iter()
                .zip(tangents)
                .filter_map(|(p, t)| Some((p?, t.clone()?)))
                .map(
                    |(p, t)| match b.dense && !p.is_unit(false) && !p.is_unit(true) {
                        true => b.rule(names::TANGENT_PRODUCT, vec![p, t], span),
                        false => b.mul(p, t, span),
                    },
                )
                .collect())
        }
        Deriv::Linear(maps) => {
            let mut out = Vec::new();
            for ((jvp, _), t) in maps.iter().zip(tangents) {
                let Some(t) = t.as_ref().filter(|_| !jvp.is_empty()) else {
                    continue;
                };
                let kind = b.func.kind(dst);
                let more = [("t", t.clone())];
                out.push(Atom::Var(b.map(jvp, args, dst, &more, span, kind)));
            }
            Ok(out)
        }
    }
}
