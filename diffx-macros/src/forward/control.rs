//! Control flow with tangents: an `if` whose arms carry them, a loop whose cells get tangent
//! cells, and, over a recording reverse program, the tangents of recorded values on stacks of
//! their own and of vectors' undo logs.

use proc_macro2::{Ident, Span};

use super::stmt::stmt;
use super::{copy_tangent, tangent, zero, Dots};
use crate::builder::Builder;
use crate::ir::{Atom, Branch, ControlId, Op, Stmt, Var};

/// An arm of an `if` with tangents: its statements, and the tangent of each yield.
fn arm(
    b: &mut Builder,
    dot: &Dots,
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
pub(super) fn if_stmt(
    b: &mut Builder,
    dot: &mut Dots,
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

/// A loop: every cell that carries derivatives gets a tangent cell, updated with it.
pub(super) fn loop_stmt(b: &mut Builder, dot: &mut Dots, s: &Stmt) -> syn::Result<()> {
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
pub(super) fn tangent_log(b: &mut Builder, log: &Ident) -> Ident {
    if let Some((_, t)) = b.tangent_logs.iter().find(|(l, _)| l == log) {
        return t.clone();
    }
    let t = b.fresh_name(&format!("{log}_dot"));
    b.tangent_logs.push((log.clone(), t.clone()));
    t
}

/// The stacks of the tangents of what is recorded on `stacks`.
pub(super) fn twin_stacks(b: &Builder, stacks: &[Ident]) -> Vec<Ident> {
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
pub(super) fn record_stmt(b: &mut Builder, dot: &mut Dots, s: &Stmt) -> Option<()> {
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
