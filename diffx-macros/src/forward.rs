//! Forward mode: the list rewritten to carry a tangent beside each value (dual numbers, unrolled).
//!
//! After each statement `z = op(a, b)` comes `ż = ∂z/∂a·ȧ + ∂z/∂b·ḃ`, the partials taken from the
//! rule table. A call of another `#[autodiff]` function becomes a call of its forward code.

use std::collections::HashMap;

use crate::builder::Builder;
use crate::ir::{Atom, Op, Stmt, Var};
use crate::lower::partials;

/// The tangent program.
pub struct Forward {
    pub b: Builder,
    /// The tangent parameter of each differentiable parameter.
    pub param_dots: Vec<Option<Var>>,
    /// The tangent of the result.
    pub ret_dot: Atom,
}

/// `params`: the value of each parameter (`None` for constants).
pub fn transform(primal: &Builder, params: &[Option<Var>]) -> syn::Result<Forward> {
    let mut b = primal.clone();
    b.func.body.clear();
    let mut dot: HashMap<Var, Var> = HashMap::new();
    let param_dots: Vec<Option<Var>> = params
        .iter()
        .map(|p| {
            p.map(|v| {
                let d = b.fresh(&format!("{}_dot", primal.func.name(v)));
                dot.insert(v, d);
                d
            })
        })
        .collect();
    for s in &primal.func.body {
        stmt(&mut b, &mut dot, s)?;
    }
    let ret_dot = match &primal.func.ret {
        Some(Atom::Var(v)) if dot.contains_key(v) => Atom::Var(dot[v]),
        _ => Atom::Const(quote::quote!(0.0)),
    };
    b.func.ret = primal.func.ret.clone();
    Ok(Forward {
        b,
        param_dots,
        ret_dot,
    })
}

fn stmt(b: &mut Builder, dot: &mut HashMap<Var, Var>, s: &Stmt) -> syn::Result<()> {
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
    let tangents: Vec<Option<Var>> = args
        .iter()
        .map(|a| a.var().and_then(|v| dot.get(&v).copied()))
        .collect();
    match op {
        Op::Call(path) => {
            let dst_dot = b.fresh(&format!("{}_dot", b.func.name(*dst)));
            b.push(Stmt::CallJvp {
                dst: *dst,
                dst_dot,
                path: path.clone(),
                args: args.clone(),
                tangents,
            });
            dot.insert(*dst, dst_dot);
            return Ok(());
        }
        Op::Id => {
            b.push(s.clone());
            if let Some(t) = tangents[0] {
                dot.insert(*dst, t);
            }
            return Ok(());
        }
        Op::Rule(rule) => {
            b.push(s.clone());
            if tangents.iter().all(Option::is_none) {
                return Ok(());
            }
            let mark = b.mark();
            let parts = partials(b, rule, args, &Atom::Var(*dst))?;
            let terms: Vec<Atom> = parts
                .into_iter()
                .zip(&tangents)
                .filter_map(|(p, t)| Some((p?, (*t)?)))
                .map(|(p, t)| b.mul(p, Atom::Var(t), *span))
                .collect();
            if let Some(t) = b.sum(terms, *span) {
                let name = format!("{}_dot", b.func.name(*dst));
                let t = match t {
                    Atom::Var(v) if b.is_new(&t, mark) => {
                        b.rename(v, &name);
                        v
                    }
                    other => {
                        let v = b.fresh(&name);
                        b.push(Stmt::Let {
                            dst: v,
                            op: Op::Id,
                            args: vec![other],
                            span: *span,
                        });
                        v
                    }
                };
                dot.insert(*dst, t);
            }
        }
    }
    Ok(())
}
