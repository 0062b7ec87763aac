//! Forward mode: the list rewritten to carry a tangent beside each value (dual numbers, unrolled).
//!
//! After each statement `z = op(a, b)` comes `ż = ∂z/∂a·ȧ + ∂z/∂b·ḃ`, the partials taken from the
//! rule table (for a linear map such as `matmul`, its tangent map from the table). A call of another
//! `#[autodiff]` function becomes a call of its forward code.

use std::collections::HashMap;

use proc_macro2::{Ident, Span};

use crate::builder::Builder;
use crate::ir::operands::by_ref;
use crate::ir::{Atom, Branch, Call, CallKind, ControlId, Kind, Op, Stmt, Var};
use crate::lower::partials;
use crate::names;
use crate::rules::{Deriv, Rule};

/// The tangent program.
pub struct Forward {
    pub b: Builder,
    /// The tangent parameter of each differentiable parameter.
    pub param_dots: Vec<Option<Var>>,
    /// The tangent of the result (`None`: it does not depend on the inputs).
    pub ret_dot: Option<Atom>,
    /// The tangent of each value that has one.
    pub dots: HashMap<Var, Var>,
}

/// `params`: the value of each parameter (`None` for constants).
pub fn transform(primal: &Builder, params: &[Option<Var>]) -> syn::Result<Forward> {
    let mut b = primal.clone();
    b.func.body.clear();
    b.tangent_logs.clear();
    b.tangent_stacks.clear();
    b.cell_tangents.clear();
    let mut dot: HashMap<Var, Var> = HashMap::new();
    let param_dots: Vec<Option<Var>> = params
        .iter()
        .map(|p| {
            p.map(|v| {
                let d = b.fresh(&format!("{}_dot", primal.func.name(v)), primal.func.kind(v));
                dot.insert(v, d);
                d
            })
        })
        .collect();
    for s in &primal.func.body {
        stmt(&mut b, &mut dot, s)?;
    }
    let twins = twin_stacks(&b, &b.func.stacks);
    b.func.stacks.extend(twins);
    let ret_dot = primal.func.ret.as_ref().and_then(|r| tangent(&dot, r));
    b.func.ret = primal.func.ret.clone();
    Ok(Forward {
        b,
        param_dots,
        ret_dot,
        dots: dot,
    })
}

/// The tangent of an operand: `ẋ`, or the field `model_dot.l1.w` of a parameter's tangent.
fn tangent(dot: &HashMap<Var, Var>, a: &Atom) -> Option<Atom> {
    a.var().and_then(|v| dot.get(&v)).map(|d| a.rebase(*d))
}

/// An arm of an `if` with tangents: its statements, and the tangent of each yield.
fn arm(
    b: &mut Builder,
    dot: &HashMap<Var, Var>,
    branch: &Branch,
) -> syn::Result<(Vec<Stmt>, Vec<Option<Atom>>)> {
    let mut local = dot.clone();
    let outer = std::mem::take(&mut b.func.body);
    let result = branch.body.iter().try_for_each(|s| stmt(b, &mut local, s));
    let body = std::mem::replace(&mut b.func.body, outer);
    result?;
    Ok((
        body,
        branch.yields.iter().map(|y| tangent(&local, y)).collect(),
    ))
}

/// `if`: each arm carries its tangents; an output gets a tangent output if either arm has one.
fn if_stmt(
    b: &mut Builder,
    dot: &mut HashMap<Var, Var>,
    id: ControlId,
    cond: &Ident,
    then_: &Branch,
    else_: &Branch,
    outs: &[Var],
) -> syn::Result<()> {
    let (then_body, then_dots) = arm(b, dot, then_)?;
    let (else_body, else_dots) = arm(b, dot, else_)?;
    let (mut then_yields, mut else_yields, mut all_outs) =
        (then_.yields.clone(), else_.yields.clone(), outs.to_vec());
    for (i, o) in outs.iter().enumerate() {
        if then_dots[i].is_none() && else_dots[i].is_none() {
            continue;
        }
        let d = b.fresh(&format!("{}_dot", b.func.name(*o)), b.func.kind(*o));
        then_yields.push(
            then_dots[i]
                .clone()
                .unwrap_or_else(|| zero(b, &then_.yields[i])),
        );
        else_yields.push(
            else_dots[i]
                .clone()
                .unwrap_or_else(|| zero(b, &else_.yields[i])),
        );
        all_outs.push(d);
        dot.insert(*o, d);
    }
    b.push(Stmt::If {
        id,
        cond: cond.clone(),
        then_: Branch {
            body: then_body,
            yields: then_yields,
        },
        else_: Branch {
            body: else_body,
            yields: else_yields,
        },
        outs: all_outs,
    });
    Ok(())
}

/// A zero shaped like `a`.
pub fn zero(b: &Builder, a: &Atom) -> Atom {
    // (Where values the macro cannot see are numbers, a value of the user's type is not one.)
    let own = matches!(a, Atom::Var(v) if b.func.own_values.contains(v));
    let number = b.func.numbers && b.func.atom_kind(a) == Kind::Other && !own;
    if b.func.atom_kind(a) == Kind::Scalar || number {
        return Atom::Const(quote::quote!(0.0));
    }
    let r = by_ref(&b.func, a);
    if b.func.atom_kind(a) == Kind::Slice {
        return Atom::Const(quote::quote!(::diffx::__private::zero_elems(#r)));
    }
    Atom::Const(quote::quote!(::diffx::__private::zero_like(#r)))
}

/// A loop: every cell that carries derivatives gets a tangent cell, updated with it.
fn loop_stmt(b: &mut Builder, dot: &mut HashMap<Var, Var>, s: &Stmt) -> syn::Result<()> {
    let Stmt::Loop {
        id,
        head,
        cells,
        active,
        body,
        tape,
        logs,
    } = s
    else {
        return Ok(());
    };
    let span = Span::call_site();
    let (mut all_cells, mut all_active, mut yields) =
        (cells.clone(), active.clone(), body.yields.clone());
    let mut tangent_cells = Vec::new();
    for (i, c) in cells.iter().enumerate().filter(|(i, _)| active[*i]) {
        // A copy: the initial tangent may be a parameter's, which the loop must not overwrite.
        let init = dot
            .get(c)
            .map_or_else(|| zero(b, &Atom::Var(*c)), |d| Atom::Var(*d));
        let d = copy_tangent(b, dot, *c, init, span);
        b.cell_tangents.insert(*c, d);
        tangent_cells.push((i, d));
    }
    let (stmts, dots) = arm(b, dot, body)?;
    let mut tape = tape.clone();
    if let Some(t) = &mut tape {
        // The body's records have been seen: their tangents' stacks are declared beside them.
        let twins = twin_stacks(b, &t.stacks);
        t.stacks.extend(twins);
    }
    for (i, d) in tangent_cells {
        yields.push(dots[i].clone().unwrap_or_else(|| zero(b, &body.yields[i])));
        all_cells.push(d);
        all_active.push(true);
    }
    let body = Branch {
        body: stmts,
        yields,
    };
    b.push(Stmt::Loop {
        id: *id,
        head: head.clone(),
        cells: all_cells,
        active: all_active,
        body,
        tape,
        logs: logs.clone(),
    });
    Ok(())
}

/// The undo log of a vector's tangent, beside the vector's own `log` (pushed and popped with it,
/// so the marks of `log` serve both); `expand` declares each one `b.tangent_logs` lists.
fn tangent_log(b: &mut Builder, log: &Ident) -> Ident {
    if let Some((_, t)) = b.tangent_logs.iter().find(|(l, _)| l == log) {
        return t.clone();
    }
    let t = b.fresh_name(&format!("{log}_dot"));
    b.tangent_logs.push((log.clone(), t.clone()));
    t
}

/// The stacks of the tangents of what is recorded on `stacks`.
fn twin_stacks(b: &Builder, stacks: &[Ident]) -> Vec<Ident> {
    stacks
        .iter()
        .filter_map(|s| b.tangent_stacks.iter().find(|(v, _)| v == s))
        .map(|(_, d)| d.clone())
        .collect()
}

/// The stack of the tangents of the values recorded on `stack`.
fn tangent_stack(b: &mut Builder, stack: &Ident) -> Ident {
    if let Some((_, t)) = b.tangent_stacks.iter().find(|(s, _)| s == stack) {
        return t.clone();
    }
    let t = b.fresh_name(&format!("{stack}_dot"));
    b.tangent_stacks.push((stack.clone(), t.clone()));
    t
}

/// Over a recording reverse program: a recorded value's tangent is recorded beside it (zero
/// where it has none, so the two stacks stay in step), and recalled with it.
fn record_stmt(b: &mut Builder, dot: &mut HashMap<Var, Var>, s: &Stmt) -> Option<()> {
    match s {
        Stmt::Record { stack, value } => {
            b.push(s.clone());
            let t = tangent(dot, value).unwrap_or_else(|| zero(b, value));
            let stack = tangent_stack(b, stack);
            b.push(Stmt::Record { stack, value: t });
        }
        Stmt::Let {
            dst,
            op: Op::Recall(stack),
            span,
            ..
        } => {
            b.push(s.clone());
            let stack = tangent_stack(b, stack);
            let d = b.fresh(&format!("{}_dot", b.func.name(*dst)), b.func.kind(*dst));
            b.push(Stmt::Let {
                dst: d,
                op: Op::Recall(stack),
                args: Vec::new(),
                span: *span,
            });
            dot.insert(*dst, d);
        }
        _ => return None,
    }
    Some(())
}

/// A new tangent `v_dot` of `v`, holding a copy of `value`, recorded as `v`'s tangent.
fn copy_tangent(
    b: &mut Builder,
    dot: &mut HashMap<Var, Var>,
    v: Var,
    value: Atom,
    span: Span,
) -> Var {
    let d = b.fresh(&format!("{}_dot", b.func.name(v)), b.func.kind(v));
    b.push(Stmt::Let {
        dst: d,
        op: Op::Id,
        args: vec![value],
        span,
    });
    dot.insert(v, d);
    d
}

/// The statements of an adjoint program, when forward mode runs over reverse mode (`hvp_`):
/// `ā = c` carries `c`'s tangent, `ā += c` accumulates it.
fn adjoint_stmt(b: &mut Builder, dot: &mut HashMap<Var, Var>, s: &Stmt) -> Option<()> {
    match s {
        Stmt::Let {
            dst,
            op: Op::Fit,
            args,
            ..
        } if args.len() == 1 => {
            b.push(s.clone());
            let t = tangent(dot, &args[0]).unwrap_or_else(|| zero(b, &Atom::Var(*dst)));
            copy_tangent(b, dot, *dst, t, Span::call_site());
            Some(())
        }
        // Summing a contribution to an adjoint's shape (`like`) is linear: its tangent is summed
        // the same way.
        Stmt::Let {
            dst,
            op: Op::Fit,
            args,
            ..
        } => {
            b.push(s.clone());
            let t = tangent(dot, &args[0]).unwrap_or_else(|| zero(b, &args[0]));
            let d = b.fresh(&format!("{}_dot", b.func.name(*dst)), b.func.kind(*dst));
            b.adjoint(d, t, args.get(1).cloned());
            dot.insert(*dst, d);
            Some(())
        }
        Stmt::Accum {
            dst,
            value,
            like,
            first,
        } => {
            b.push(s.clone());
            if let (Some(dd), Some(dv)) = (tangent(dot, dst), dot.get(value).copied()) {
                b.push(Stmt::Accum {
                    dst: dd,
                    value: dv,
                    like: like.clone(),
                    first: *first,
                });
            }
            Some(())
        }
        Stmt::Set { dst, value } => {
            b.push(s.clone());
            if let Some(d) = dot.get(dst).copied() {
                // (A value of the user's type is reset to a zero shaped like it.)
                let like = match b.func.own_values.contains(dst) {
                    true => Atom::Var(*dst),
                    false => value.clone(),
                };
                let t = tangent(dot, value).unwrap_or_else(|| zero(b, &like));
                b.push(Stmt::Set { dst: d, value: t });
            }
            Some(())
        }
        // Zeros have zero tangents: zeros of the same shape.
        Stmt::Let {
            dst,
            op: op @ Op::Zeros(_),
            args,
            span,
        } => {
            b.push(s.clone());
            let d = b.fresh(&format!("{}_dot", b.func.name(*dst)), b.func.kind(*dst));
            b.push(Stmt::Let {
                dst: d,
                op: op.clone(),
                args: args.clone(),
                span: *span,
            });
            dot.insert(*dst, d);
            Some(())
        }
        Stmt::LoopBack {
            id,
            tape,
            names,
            body,
            cells,
            ..
        } => {
            // The forward loop pushed a tangent cell after the cells for each cell that carries
            // derivatives: pop it under its name too.
            // They are cells of the new loop, so a pass over this program pops their tangents too.
            let tangents: Vec<Var> = cells
                .iter()
                .filter(|(_, a)| *a)
                .filter_map(|(c, _)| {
                    let d = dot.get(c).or_else(|| b.cell_tangents.get(c)).copied()?;
                    dot.insert(*c, d);
                    Some(d)
                })
                .collect();
            let mut all: Vec<Ident> = names[..cells.len()].to_vec();
            all.extend(tangents.iter().map(|d| b.func.name(*d).clone()));
            all.extend(names[cells.len()..].iter().cloned());
            let mut all_cells = cells.clone();
            all_cells.extend(tangents.iter().map(|d| (*d, true)));
            let mut local = dot.clone();
            let outer = std::mem::take(&mut b.func.body);
            let result = body.iter().try_for_each(|s| stmt(b, &mut local, s));
            let inner = std::mem::replace(&mut b.func.body, outer);
            result.ok()?;
            // (The tangents of zero adjoints need not be zero: no loop is skipped.)
            b.push(Stmt::LoopBack {
                id: *id,
                tape: tape.clone(),
                names: all,
                body: inner,
                cells: all_cells,
                skip_if_zero: Vec::new(),
            });
            Some(())
        }
        Stmt::Call(Call {
            kind: CallKind::Vjp(path),
            args,
            ct: Some(ct),
            outs: grads,
            ..
        }) => {
            call_hvp(b, dot, path, args, *ct, grads);
            Some(())
        }
        _ => None,
    }
}

/// A callee's pullback, differentiated: its gradients and their tangents from its
/// forward-over-reverse function `__diffx_hvp_`.
fn call_hvp(
    b: &mut Builder,
    dot: &mut HashMap<Var, Var>,
    path: &syn::Path,
    args: &[Atom],
    ct: Var,
    grads: &[Option<Var>],
) {
    let grad_dots: Vec<Option<Var>> = grads
        .iter()
        .map(|g| {
            g.map(|g| {
                let d = b.fresh(&format!("{}_dot", b.func.name(g)), b.func.kind(g));
                dot.insert(g, d);
                d
            })
        })
        .collect();
    let kind = CallKind::Hvp {
        path: path.clone(),
        ct_dot: tangent(dot, &Atom::Var(ct)),
    };
    b.push(Stmt::Call(Call {
        tangents: args.iter().map(|a| tangent(dot, a)).collect(),
        ct: Some(ct),
        ..Call::new(kind, args.to_vec(), [grads, &grad_dots].concat())
    }));
}

fn stmt(b: &mut Builder, dot: &mut HashMap<Var, Var>, s: &Stmt) -> syn::Result<()> {
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
            let value = tangent(dot, value).unwrap_or(Atom::Const(quote::quote!(0.0)));
            let log = log.as_ref().map(|l| tangent_log(b, l));
            b.push(Stmt::SetElem {
                vec: d,
                index: index.clone(),
                value,
                log,
                init: *init,
            });
        }
        return Ok(());
    }
    // A push pushes the tangent too (zero for a constant), keeping the lengths in step.
    if let Stmt::Push { vec, value, log } = s {
        b.push(s.clone());
        if let Some(d) = dot.get(vec).copied() {
            let value = tangent(dot, value).unwrap_or(Atom::Const(quote::quote!(0.0)));
            let log = log.as_ref().map(|l| tangent_log(b, l));
            b.push(Stmt::Push { vec: d, value, log });
        }
        return Ok(());
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
        return Ok(());
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
            b.func.body.pop();
            let dst_dot = b.fresh(&format!("{}_dot", b.func.name(*dst)), b.func.kind(*dst));
            let kind = CallKind::Jvp {
                path: path.clone(),
                span: *span,
            };
            b.push(Stmt::Call(Call {
                tangents,
                ..Call::new(kind, args.clone(), vec![Some(*dst), Some(dst_dot)])
            }));
            dot.insert(*dst, dst_dot);
            return Ok(());
        }
        Op::Id | Op::Map { .. } | Op::Zeros(_) | Op::Fit | Op::Recall(_) => tangents[0].clone(),
        // (The tangent of a value with a part replaced: the base's tangent with that part's.)
        Op::SetPart(path) => {
            // (A constant written has a zero tangent shaped like the part it replaces.)
            let part = match &args[0] {
                Atom::Var(v) => Atom::Field(*v, path.clone()),
                a => a.clone(),
            };
            let t = [&args[0], &part].into_iter().zip(&tangents);
            let t = t
                .map(|(a, t)| t.clone().unwrap_or_else(|| zero(b, a)))
                .collect();
            let kind = b.func.kind(*dst);
            Some(Atom::Var(b.op_of_kind(
                Op::SetPart(path.clone()),
                t,
                *span,
                kind,
            )))
        }
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
