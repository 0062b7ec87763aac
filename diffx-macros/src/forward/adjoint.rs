//! Forward mode over reverse mode (`hvp_`): the tangents of an adjoint program's statements
//! and of a callee's pullback, through its forward-over-reverse function.

use proc_macro2::{Ident, Span};

use super::stmt::stmt;
use super::{copy_tangent, tangent, zero, Dots};
use crate::builder::Builder;
use crate::ir::{Atom, Call, CallKind, Op, Stmt, Var};

/// The statements of an adjoint program, when forward mode runs over reverse mode (`hvp_`):
/// `ā = c` carries `c`'s tangent, `ā += c` accumulates it.
pub(super) fn adjoint_stmt(b: &mut Builder, dot: &mut Dots, s: &Stmt) -> Option<()> {
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
        Stmt::LoopBack { .. } => loop_back(b, dot, s),
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

/// A taped loop's backward sweep, differentiated: each cell that carries derivatives pops its
/// tangent too, and the body is the tangent program of the body.
fn loop_back(b: &mut Builder, dot: &mut Dots, s: &Stmt) -> Option<()> {
    let Stmt::LoopBack {
        id,
        tape,
        names,
        body,
        cells,
        ..
    } = s
    else {
        return None;
    };
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

/// A callee's pullback, differentiated: its gradients and their tangents from its
/// forward-over-reverse function `__diffx_hvp_`.
fn call_hvp(
    b: &mut Builder,
    dot: &mut Dots,
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
