//! Which names may carry derivatives, for desugaring: only code that may depend on a
//! differentiable value is rewritten. Name-level and order-free, so it errs on the side of more;
//! lowering knows exactly, value by value, as it folds constants.

use std::collections::BTreeSet;

use syn::visit::{self, Visit};
use syn::{Block, Expr, Local, Pat};

use super::uses;
use crate::parse::Signature;

/// The names that may hold a value depending on a differentiable parameter: those parameters,
/// and every name bound or assigned from an expression that mentions one, to a fixed point. The
/// body's bindings have names of their own by now (`analyze::scopes`), so a name is a binding;
/// order is ignored, which can only add names.
pub fn active(block: &Block, sig: &Signature) -> BTreeSet<String> {
    let mut flows = Flows(Vec::new());
    flows.visit_block(block);
    let mut active: BTreeSet<String> = sig
        .params
        .iter()
        .filter(|p| p.differentiable)
        .map(|p| p.name.to_string())
        .collect();
    spread(&flows, &mut active);
    active
}

/// `active` with every name that `flows` writes from an active name, to a fixed point.
pub fn spread(flows: &Flows, active: &mut BTreeSet<String>) {
    loop {
        let before = active.len();
        for (names, from) in &flows.0 {
            // (A flow into names all active already adds nothing: its expression is not read.)
            if names.iter().all(|n| active.contains(n)) {
                continue;
            }
            if uses::mentions(from, &mut |id| active.contains(&id.to_string())) {
                active.extend(names.iter().cloned());
            }
        }
        if active.len() == before {
            return;
        }
    }
}

/// Every binding and assignment: the names it writes and the expression it reads.
pub struct Flows(pub Vec<(Vec<String>, Expr)>);

impl<'ast> Visit<'ast> for Flows {
    fn visit_local(&mut self, l: &'ast Local) {
        if let Some(init) = &l.init {
            self.0.push((names(&l.pat), (*init.expr).clone()));
        }
        visit::visit_local(self, l);
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Assign(a) => self.0.push((place_name(&a.left), (*a.right).clone())),
            Expr::Binary(b) if is_compound(&b.op) => {
                self.0.push((place_name(&b.left), (*b.right).clone()))
            }
            Expr::ForLoop(f) => {
                self.0.push((names(&f.pat), (*f.expr).clone()));
                // `for r in v.iter_mut() { *r = … }`: `v` holds what the body writes.
                if let Some(v) = mutably_iterated(&f.expr) {
                    let body = Expr::Block(syn::ExprBlock {
                        attrs: Vec::new(),
                        label: None,
                        block: f.body.clone(),
                    });
                    self.0.push((v, body));
                }
            }
            // `v.iter_mut().zip(x).for_each(|(r, a)| *r = …)`: `v` holds what the chain reads.
            Expr::MethodCall(m) if mutably_iterated(&m.receiver).is_some() => {
                let v = mutably_iterated(&m.receiver).unwrap_or_default();
                self.0.push((v, Expr::MethodCall(m.clone())));
            }
            // `v.push(x)`, `v.extend_from_slice(&w)`: `v` holds what it is given.
            // (Each argument, as the tuple of them.)
            Expr::MethodCall(m) if GROWS.contains(&m.method.to_string().as_str()) => {
                let args = Expr::Tuple(syn::ExprTuple {
                    attrs: Vec::new(),
                    paren_token: Default::default(),
                    elems: m.args.clone(),
                });
                self.0.push((place_name(&m.receiver), args))
            }
            _ => {}
        }
        visit::visit_expr(self, e);
    }
}

/// The place an iterator chain iterates mutably (`v` of `v.iter_mut().zip(…)`), if it does.
fn mutably_iterated(e: &Expr) -> Option<Vec<String>> {
    match e {
        Expr::MethodCall(m) if m.method == "iter_mut" => Some(place_name(&m.receiver)),
        Expr::MethodCall(m) => mutably_iterated(&m.receiver),
        Expr::Paren(p) => mutably_iterated(&p.expr),
        _ => None,
    }
}

/// The methods by which a `Vec` takes values in.
const GROWS: &[&str] = &["push", "extend_from_slice", "extend"];

pub fn place_name(e: &Expr) -> Vec<String> {
    match e {
        Expr::Path(p) => p
            .path
            .get_ident()
            .map(|i| vec![i.to_string()])
            .unwrap_or_default(),
        Expr::Index(i) => place_name(&i.expr),
        Expr::Field(f) => place_name(&f.base),
        Expr::Paren(p) => place_name(&p.expr),
        Expr::Unary(u) => place_name(&u.expr),
        _ => Vec::new(),
    }
}

pub(crate) fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_) | RemAssign(_)
    )
}

/// The names `pat` binds.
pub fn names(pat: &Pat) -> Vec<String> {
    let mut out = Vec::new();
    collect(pat, &mut out);
    out
}

fn collect(pat: &Pat, out: &mut Vec<String>) {
    match pat {
        Pat::Ident(p) => {
            out.push(p.ident.to_string());
            if let Some((_, sub)) = &p.subpat {
                collect(sub, out);
            }
        }
        Pat::Paren(p) => collect(&p.pat, out),
        Pat::Type(t) => collect(&t.pat, out),
        Pat::Reference(r) => collect(&r.pat, out),
        Pat::Tuple(t) => t.elems.iter().for_each(|p| collect(p, out)),
        Pat::Slice(s) => s.elems.iter().for_each(|p| collect(p, out)),
        Pat::TupleStruct(t) => t.elems.iter().for_each(|p| collect(p, out)),
        Pat::Struct(s) => s.fields.iter().for_each(|f| collect(&f.pat, out)),
        Pat::Or(o) => o.cases.iter().take(1).for_each(|p| collect(p, out)),
        _ => {}
    }
}
