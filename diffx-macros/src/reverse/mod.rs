//! Reverse mode: the list followed by its adjoint in reverse order.
//!
//! The forward sweep is the list itself, so every intermediate value stays in a local. The backward
//! sweep visits the statements from last to first and, for `z = op(a, b)`, adds `∂z/∂a·z̄` to `ā`
//! and `∂z/∂b·z̄` to `b̄` (for a linear map such as `matmul`, the transposed map of the table
//! applied to `z̄`). A value's adjoint is created by its first contribution and accumulated with
//! `+=` afterwards; tensor contributions are summed over the axes that broadcasting added. The
//! adjoint of a parameter struct starts unset: a field's first contribution is moved in where that
//! is sound (`fields.rs`), later ones are added, and fields that none reaches are zeros when it is
//! returned. A rule with a residual computes it in the forward sweep (`residual.rs`), and a value
//! the backward sweep reads only for its shape is not kept (`shapes.rs`).
//!
//! `transform` sets up the sweeps; the backward sweep of one statement is in `stmt.rs`, of an `if`
//! or a loop in `control.rs` (with `tapes.rs` for what the forward sweep keeps for it and
//! `cells.rs` for what a loop's adjoint carries), and of a local vector's writes in `vectors.rs`.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, TokenStream};

use crate::builder::{Builder, Quick};
use crate::ir::{Atom, ControlId, Kind, Op, Path, Stmt, Var};

mod cells;
mod checkpoint;
mod control;
mod fields;
mod nest;
mod pullbacks;
mod record;
mod residual;
mod shapes;
mod stmt;
mod tapes;
mod vectors;

pub use checkpoint::checkpoint;
pub use pullbacks::pair_calls;
use residual::{with_residuals, Residue};
use tapes::Tapes;

/// The adjoint program.
#[derive(Clone)]
pub struct Reverse {
    pub b: Builder,
    /// The cotangent parameter (the seed `ȳ`).
    pub ct: Var,
    /// The adjoint of each differentiable parameter, if anything flows to it.
    pub grads: Vec<Option<Var>>,
    /// Where the backward sweep starts in the body: the statements before it are the forward sweep.
    pub backward: usize,
    /// The `if`s of the top level that record (`record.rs`): their backward arms run nothing of
    /// the forward sweep again.
    pub recording_ifs: HashSet<ControlId>,
}

struct Sweep {
    b: Builder,
    adj: HashMap<Var, Var, Quick>,
    /// Places of parameter-struct adjoints contributed to so far (the base and the path), and the
    /// bases contributed to inside a loop or an `if`: see [`Sweep::first_into`].
    touched: Vec<(Var, Path)>,
    nested_bases: Vec<Var>,
    /// How many loops and `if`s enclose the statement being differentiated.
    depth: usize,
    /// The operations whose forward sweep computed a residual for their pullback.
    residuals: HashMap<Var, Residue>,
    /// The vectors written in each `if`'s arms (by its condition's name), as in [`Tapes`].
    if_marks: HashMap<ControlId, Vec<IfMark>>,
    /// The vectors written element by element (each has an undo log and an adjoint).
    vectors: Vec<Var>,
    /// Inside a recording loop's backward sweep (`record.rs`): nothing is recomputed.
    recording: bool,
    /// Backward loops may be skipped where the adjoints carried in are zero (a program that is not
    /// differentiated again).
    skip_zeros: bool,
    /// The values recording loops and `if`s keep for their backward sweeps.
    records: Vec<record::Recorded>,
    /// The `if`s of the top level that record (`record.rs`): the backward sweep runs no arm again.
    recording_ifs: HashSet<ControlId>,
}

/// A vector written in an `if`'s arms, its undo log, and the local holding the log's length
/// before the `if`.
type IfMark = (Var, Ident, Ident);

/// `params`: the value of each parameter and the type of its gradient (`None` for constants).
/// With `record`, loops that can record (`record.rs`) do; the others recompute their bodies.
pub fn transform(
    primal: &Builder,
    params: &[Option<(Var, TokenStream)>],
    ret_kind: Kind,
    record: bool,
) -> syn::Result<Reverse> {
    let mut b = primal.clone();
    let mut tapes = Tapes {
        b: &mut b,
        logs: Vec::new(),
        filled: Vec::new(),
        if_marks: HashMap::new(),
        record,
    };
    let mut body = tapes.stmts(&primal.func.body);
    let (logs, if_marks, filled) = (tapes.logs, tapes.if_marks, tapes.filled);
    let recording_ifs: HashSet<ControlId> = body
        .iter()
        .filter(|s| record && record::if_records(&b.func, s))
        .filter_map(|s| match s {
            Stmt::If { id, .. } => Some(*id),
            _ => None,
        })
        .collect();
    nest::nest(&mut b, &mut body, &recording_ifs);
    let (body, residuals) = with_residuals(&mut b, body);
    // The logs live for the whole function: the backward sweep pops what the forward sweep pushed.
    b.func.body = logs
        .iter()
        .map(|(_, l)| Stmt::Verbatim {
            binds: Vec::new(),
            tokens: quote::quote!(let mut #l = ::std::vec::Vec::new();).into(),
        })
        .chain(body.iter().cloned())
        .collect();
    let ct = b.fresh("ct", ret_kind);
    // Everything from here on is the backward sweep.
    let backward = b.func.body.len();
    let mut sweep = Sweep {
        b,
        adj: HashMap::default(),
        touched: Vec::new(),
        nested_bases: Vec::new(),
        depth: 0,
        if_marks,
        residuals,
        vectors: logs.iter().map(|(v, _)| *v).collect(),
        recording: false,
        skip_zeros: record,
        records: Vec::new(),
        recording_ifs,
    };
    sweep.start_adjoints(primal, params, &body, &logs, filled);
    sweep.seed(primal, ret_kind, ct);
    for s in body.iter().rev() {
        sweep.stmt(s)?;
    }
    for (v, ty) in params.iter().flatten() {
        if primal.func.kind(*v) != Kind::Scalar && !sweep.adj.contains_key(v) {
            sweep.zeros(*v, ty.clone());
        }
    }
    record::keep(&mut sweep.b.func, &sweep.records);
    let recording_ifs = std::mem::take(&mut sweep.recording_ifs);
    let backward = shapes::take_shapes(&mut sweep.b, backward);
    let grads = params
        .iter()
        .map(|p| p.as_ref().and_then(|(v, _)| sweep.adj.get(v).copied()))
        .collect();
    Ok(Reverse {
        b: sweep.b,
        ct,
        grads,
        backward,
        recording_ifs,
    })
}

/// The vectors returned by calls in `body` (`let k1 = rhs(s, k);`, `k1[0]` read after).
fn returned_by_calls(f: &crate::ir::Func, body: &[Stmt]) -> Vec<Var> {
    let mut out = Vec::new();
    for s in body {
        s.walk(&mut |s| {
            if let Stmt::Let {
                dst,
                op: Op::Call(_),
                ..
            } = s
            {
                if f.kind(*dst) == Kind::Slice {
                    out.push(*dst);
                }
            }
        });
    }
    out
}

impl Sweep {
    /// The adjoints that exist before the backward sweep: zeros for the parameters that are
    /// structs or slices, and for the vectors written element by element (but those declared in a
    /// loop or an `if`, whose adjoints start where their body is recomputed).
    fn start_adjoints(
        &mut self,
        primal: &Builder,
        params: &[Option<(Var, TokenStream)>],
        body: &[Stmt],
        logs: &[(Var, Ident)],
        filled: Vec<Var>,
    ) {
        // Vectors returned by calls are read element by element: their adjoints are vectors too,
        // the cotangents of the calls.
        let call_vectors = returned_by_calls(&self.b.func, body);
        self.vectors.extend(call_vectors.iter().copied());
        // A vector declared inside a loop or an `if` gets its adjoint where its body is recomputed.
        // (Found where a vector or a value of the user's type asks: a function of numbers has
        // none.)
        let nested = std::cell::OnceCell::new();
        let nested = || {
            nested.get_or_init(|| {
                tapes::declared_in(body)
                    .difference(
                        &body
                            .iter()
                            .filter_map(|s| match s {
                                Stmt::Let { dst, .. } => Some(*dst),
                                _ => None,
                            })
                            .collect(),
                    )
                    .copied()
                    .collect::<std::collections::HashSet<Var>>()
            })
        };
        for (v, ty) in params.iter().flatten() {
            if matches!(primal.func.kind(*v), Kind::Other | Kind::Slice) {
                self.zeros(*v, ty.clone());
            }
        }
        for (vec, _) in logs.iter().filter(|(v, _)| !nested().contains(v)) {
            self.vector_adjoint(*vec);
        }
        for vec in call_vectors.iter().filter(|v| !nested().contains(v)) {
            self.vector_adjoint(*vec);
        }
        // Values of the user's types start at zero where they are declared at the top level; in
        // a loop or an `if`, at their first contribution (`Sweep::accumulate`).
        let inner = std::cell::OnceCell::new();
        let inner = || inner.get_or_init(|| made_by_inner_control(body));
        let top: Vec<Var> = (self.b.func.own_values.iter())
            .filter(|v| !nested().contains(v) && !inner().contains(v))
            .copied()
            .collect();
        for v in top {
            self.zeros(v, quote::quote!(_));
        }
        // Vectors only filled as they are made, written element by element all the same.
        let filled: Vec<Var> = filled
            .into_iter()
            .filter(|v| !self.vectors.contains(v))
            .collect();
        self.vectors.extend(filled.iter().copied());
        for vec in filled.iter().filter(|v| !nested().contains(v)) {
            self.vector_adjoint(*vec);
        }
    }

    /// The cotangent `ct` as the adjoint of the result.
    fn seed(&mut self, primal: &Builder, ret_kind: Kind, ct: Var) {
        match &primal.func.ret {
            // A vector result's adjoint is written element by element: a copy of the cotangent.
            Some(Atom::Var(r)) if ret_kind == Kind::Slice => {
                let bar = self
                    .b
                    .fresh(&format!("{}_bar", self.b.func.name(*r)), Kind::Slice);
                self.b.adjoint(bar, Atom::Var(ct), None);
                self.adj.insert(*r, bar);
            }
            Some(Atom::Var(r)) => {
                self.adj.insert(*r, ct);
            }
            _ => {}
        }
    }

    /// A new variable for `v`'s adjoint, `v_bar`: of `v`'s kind, and a value of the user's type
    /// if `v` is one.
    pub(super) fn fresh_adjoint(&mut self, v: Var) -> Var {
        let bar = self
            .b
            .fresh(&format!("{}_bar", self.b.func.name(v)), self.b.func.kind(v));
        if self.b.func.own_values.contains(&v) {
            self.b.func.own_values.push(bar);
        }
        bar
    }

    /// `v̄ = 0`, shaped like `v`.
    pub(super) fn zeros(&mut self, v: Var, ty: TokenStream) {
        let bar = self.fresh_adjoint(v);
        self.b.push(Stmt::Let {
            dst: bar,
            op: Op::Zeros(ty),
            args: vec![Atom::Var(v)],
            span: proc_macro2::Span::call_site(),
        });
        self.adj.insert(v, bar);
    }
}

/// The outputs of the `if`s and the cells of the loops inside loops and `if`s of `body`.
fn made_by_inner_control(body: &[Stmt]) -> std::collections::HashSet<Var> {
    let mut all = std::collections::HashSet::new();
    for s in body {
        s.walk(&mut |s| match s {
            Stmt::If { outs, .. } => all.extend(outs.iter().copied()),
            Stmt::Loop { cells, .. } => all.extend(cells.iter().copied()),
            _ => {}
        });
    }
    for s in body {
        match s {
            Stmt::If { outs, .. } => outs.iter().for_each(|o| _ = all.remove(o)),
            Stmt::Loop { cells, .. } => cells.iter().for_each(|c| _ = all.remove(c)),
            _ => {}
        }
    }
    all
}
