//! Tensors that the backward sweep reads only for their shape.
//!
//! A contribution is summed to the shape of the value it flows to (`fit(t2_bar, &t1)`), and that is
//! often the backward sweep's only use of `t1`. Read there, `t1` would stay alive through the whole
//! forward sweep, and its last real use (`&t1 + &b`) could not hand its buffer over. So the forward
//! sweep takes its shape where it is computed (`let t1_shape = shape_of(&t1);`, no elements) and the
//! backward sweep reads that: reverse mode keeps what the backward sweep reads, nothing more.

use std::collections::HashSet;

use crate::builder::{map_op, Builder};
use crate::ir::{Atom, Kind, Op, Stmt, Var};
use crate::liveness;
use crate::names;

/// Gives every top-level tensor local of the forward sweep (`body[..backward]`) that the backward
/// sweep (`body[backward..]`) reads only as the shape of a contribution a shape of its own, and
/// returns where the backward sweep starts now.
pub(super) fn take_shapes(b: &mut Builder, backward: usize) -> usize {
    let only_shapes = shape_only_reads(b, backward);
    if only_shapes.is_empty() {
        return backward;
    }
    let mut shapes = Vec::new();
    let forward: Vec<Stmt> = b.func.body.drain(..backward).collect();
    let mut body = Vec::with_capacity(forward.len() + only_shapes.len());
    for s in forward {
        let defined = match &s {
            Stmt::Let { dst, span, .. } if only_shapes.contains(dst) => Some((*dst, *span)),
            _ => None,
        };
        body.push(s);
        if let Some((v, span)) = defined {
            let shape = b.fresh(&format!("{}_shape", b.func.name(v)), Kind::Tensor);
            let (op, args) = map_op(names::SHAPE_OF, &[Atom::Var(v)], v, &[]);
            body.push(Stmt::Let {
                dst: shape,
                op,
                args,
                span,
            });
            shapes.push((v, shape));
        }
    }
    body.append(&mut b.func.body);
    for s in &mut body[backward + shapes.len()..] {
        if let Some(like @ Atom::Var(_)) = like_mut(s) {
            if let Some(&(_, shape)) = shapes.iter().find(|(v, _)| like.var() == Some(*v)) {
                *like = Atom::Var(shape);
            }
        }
    }
    b.func.body = body;
    backward + shapes.len()
}

/// The tensor locals defined at top level of the forward sweep that the backward sweep reads only
/// as the `like` of top-level `fit`s and `accumulate`s.
fn shape_only_reads(b: &Builder, backward: usize) -> HashSet<Var> {
    let f = &b.func;
    // (Only a tensor's shape is taken: a function of numbers has none, and needs no reading.)
    let tensor = |v: Var| f.kind(v) == Kind::Tensor && !f.vars[v.0].is_ref;
    let backward_sweep = &f.body[backward..];
    if !(backward_sweep.iter()).any(|s| like(s).and_then(Atom::var).is_some_and(tensor)) {
        return HashSet::new();
    }
    let by_name = liveness::by_name(f);
    let (mut likes, mut other) = (HashSet::new(), HashSet::new());
    for s in backward_sweep {
        let mut reads = liveness::reads(s, &by_name);
        if let Some(v) = like(s).and_then(Atom::var) {
            if let Some(i) = reads.iter().position(|r| *r == v) {
                reads.remove(i);
                likes.insert(v);
            }
        }
        other.extend(reads);
    }
    let defined: HashSet<Var> = f.body[..backward]
        .iter()
        .filter_map(|s| match s {
            Stmt::Let { dst, .. } => Some(*dst),
            _ => None,
        })
        .collect();
    likes
        .into_iter()
        .filter(|v| tensor(*v) && !other.contains(v) && defined.contains(v))
        .collect()
}

fn like(s: &Stmt) -> Option<&Atom> {
    match s {
        Stmt::Let {
            op: Op::Fit, args, ..
        } => args.get(1),
        Stmt::Accum { like, .. } => like.as_ref(),
        _ => None,
    }
}

fn like_mut(s: &mut Stmt) -> Option<&mut Atom> {
    match s {
        Stmt::Let {
            op: Op::Fit, args, ..
        } => args.get_mut(1),
        Stmt::Accum { like, .. } => like.as_mut(),
        _ => None,
    }
}
