//! Forward mode: the list rewritten to carry a tangent beside each value (dual numbers, unrolled).
//!
//! After each statement `z = op(a, b)` comes `ż = ∂z/∂a·ȧ + ∂z/∂b·ḃ`, the partials taken from the
//! rule table (for a linear map such as `matmul`, its tangent map from the table). A call of another
//! `#[autodiff]` function becomes a call of its forward code.
//!
//! `stmt.rs` writes the tangent of one statement; `control.rs` of an `if` and a loop, and of what
//! a recording reverse program records; `adjoint.rs` of an adjoint program's statements (forward
//! over reverse, `hvp_`).

use std::collections::HashMap;

use proc_macro2::Span;

use crate::builder::{Builder, Quick};
use crate::ir::operands::by_ref;
use crate::ir::{Atom, Kind, Op, Stmt, Var};

mod adjoint;
mod control;
mod stmt;

use control::twin_stacks;
use stmt::stmt;

/// The tangent of each value that has one.
pub type Dots = HashMap<Var, Var, Quick>;

/// The tangent program.
pub struct Forward {
    pub b: Builder,
    /// The tangent parameter of each differentiable parameter.
    pub param_dots: Vec<Option<Var>>,
    /// The tangent of the result (`None`: it does not depend on the inputs).
    pub ret_dot: Option<Atom>,
    /// The tangent of each value that has one.
    pub dots: Dots,
}

/// `params`: the value of each parameter (`None` for constants).
pub fn transform(primal: &Builder, params: &[Option<Var>]) -> syn::Result<Forward> {
    let mut b = primal.clone();
    b.func.body.clear();
    b.tangent_logs.clear();
    b.tangent_stacks.clear();
    b.cell_tangents.clear();
    let mut dot = Dots::default();
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
pub(super) fn tangent(dot: &Dots, a: &Atom) -> Option<Atom> {
    a.var().and_then(|v| dot.get(&v)).map(|d| a.rebase(*d))
}

/// A zero shaped like `a`.
pub fn zero(b: &Builder, a: &Atom) -> Atom {
    // (Where values the macro cannot see are numbers, a value of the user's type is not one.)
    let own = matches!(a, Atom::Var(v) if b.func.own_values.contains(v));
    let number = b.func.numbers && b.func.atom_kind(a) == Kind::Other && !own;
    if b.func.atom_kind(a) == Kind::Scalar || number {
        return Atom::constant(quote::quote!(0.0));
    }
    let r = by_ref(&b.func, a);
    if b.func.atom_kind(a) == Kind::Slice {
        return Atom::constant(quote::quote!(::diffx::__private::zero_elems(#r)));
    }
    Atom::constant(quote::quote!(::diffx::__private::zero_like(#r)))
}

/// A new tangent `v_dot` of `v`, holding a copy of `value`, recorded as `v`'s tangent.
pub(super) fn copy_tangent(
    b: &mut Builder,
    dot: &mut Dots,
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
