//! Local vectors written element by element (`v[i] = x`, `v[i] += x`, `v.push(x)`, `[a, b]`,
//! `vec![a, b]`): writes the list records once the vector carries derivatives.
//!
//! A constant vector that a write makes differentiable becomes a vector of the list where it is
//! declared; when that is outside the `if` or loop being lowered, the enclosing construct that
//! declares it is lowered again with the vector made differentiable before it (`pending`).

use std::collections::BTreeSet;

use quote::quote;
use syn::spanned::Spanned;
use syn::Expr;

use super::messages::err;
use super::Lowerer;
use crate::ir::{Atom, Index, Kind, Op, Path, Stmt, Var};

impl Lowerer<'_> {
    /// Of the constant vectors a construct found written with differentiable values, those
    /// declared here (returned: the construct is lowered again with them made differentiable
    /// before it); the others are left for an enclosing construct.
    pub(super) fn settle_pending(&mut self, found: Vec<String>) -> BTreeSet<String> {
        let mut here = BTreeSet::new();
        for n in found {
            if !matches!(self.lookup(&n), Some(Atom::Const(_))) {
                continue;
            }
            if self.declared_here(&n) {
                here.insert(n);
            } else if !self.pending.contains(&n) {
                self.pending.push(n);
            }
        }
        here
    }

    /// Makes the constant vectors in `written ∩ active` differentiable before a loop (or asks the
    /// enclosing loop to, when this one is nested).
    pub(super) fn activate_vectors(
        &mut self,
        written: &BTreeSet<String>,
        active: &BTreeSet<String>,
        span: proc_macro2::Span,
    ) {
        for n in written.iter().filter(|n| active.contains(*n)) {
            let Some(Atom::Const(c)) = self.lookup(n).cloned() else {
                continue;
            };
            if !self.declared_here(n) {
                if !self.pending.contains(n) {
                    self.pending.push(n.clone());
                }
                continue;
            }
            self.type_declaration(n);
            let v = self
                .b
                .op_of_kind(Op::Id, vec![Atom::Const(c)], span, crate::ir::Kind::Slice);
            self.b.rename_user(v, n);
            self.vectors.insert(v);
            self.rebind(n, Atom::Var(v));
        }
    }

    /// `v[i] = x` (or `v[i] += x`) into a local vector: a write the list records, once the vector
    /// carries derivatives; a write of a constant into a constant vector stays as written.
    pub(super) fn element_write(
        &mut self,
        target: &syn::ExprIndex,
        rhs: &Expr,
        op: Option<&'static crate::rules::Rule>,
        e: &Expr,
    ) -> syn::Result<()> {
        let name = match &*target.expr {
            Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let Some(name) = name else {
            return err(
                target.expr.span(),
                "write elements of a local vector by its name: `v[i] = …`; for a field, copy it into a local first (`let mut w = p.w.clone();`)",
            );
        };
        if self.mentions_active(&target.index) {
            return err(
                target.index.span(),
                "an index must not depend on differentiable values: index with an integer",
            );
        }
        let index = Index::new(&target.index, self.constant(&target.index));
        let base = self.lookup(&name).cloned();
        let before = self.b.func.body.len();
        let mut value = self.expr(rhs)?;
        if let Some(rule) = op {
            let old = match &base {
                Some(Atom::Var(v)) if self.vectors.contains(v) => Atom::Var(self.b.op(
                    Op::Id,
                    vec![Atom::Field(*v, Path::index(index.clone()))],
                    e.span(),
                )),
                _ => Atom::constant(self.constant(target)),
            };
            value = match (&old, &value) {
                (Atom::Const(l), Atom::Const(r)) => {
                    Atom::constant(super::expr::infix(rule, l.tokens(), r.tokens()))
                }
                _ => Atom::Var(self.b.op(Op::Rule(rule), vec![old, value], e.span())),
            };
        }
        let Some(vec) = self.written_vector(name, base, &value, e, target.span(), before)? else {
            return Ok(());
        };
        self.b.push(Stmt::SetElem {
            vec,
            index,
            value,
            log: None,
            init: false,
        });
        Ok(())
    }

    /// `v.push(x)` onto a local `Vec`: a push the list records, once the vector carries
    /// derivatives; a constant pushed onto a constant vector stays as written.
    pub(super) fn push(&mut self, m: &syn::ExprMethodCall, e: &Expr) -> syn::Result<()> {
        let name = match &*m.receiver {
            Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let args: Vec<&Expr> = m.args.iter().collect();
        let (Some(name), [arg]) = (name, args.as_slice()) else {
            return err(
                m.receiver.span(),
                "push onto a local `Vec` by its name: `v.push(x)`",
            );
        };
        let base = self.lookup(&name).cloned();
        let before = self.b.func.body.len();
        let value = self.expr(arg)?;
        let Some(vec) = self.written_vector(name, base, &value, e, m.receiver.span(), before)?
        else {
            return Ok(());
        };
        self.b.push(Stmt::Push {
            vec,
            value,
            log: None,
        });
        Ok(())
    }

    /// `let mut v = Vec::new();` (or `Vec::with_capacity(n)`, `vec![]`), declared in the list being
    /// built, as a `Vec` of the float type: the derivative code copies it before any push tells
    /// its element type.
    fn type_declaration(&mut self, name: &str) {
        let float = self.b.float.clone();
        let declared = self.b.func.body.iter_mut().rev().find_map(|s| match s {
            Stmt::Const {
                name: n, ty, expr, ..
            } if n == name => Some((ty, expr)),
            _ => None,
        });
        if let Some((ty @ None, expr)) = declared {
            if empty_vec(expr.tokens()) {
                *ty = Some(syn::parse_quote!(::std::vec::Vec<#float>));
            }
        }
    }

    /// The vector a write (`v[i] = x`, `v.push(x)`) goes into, made differentiable by it if `value`
    /// is; `None` where the write is kept as written (`e`) or waits for the construct around it.
    /// `before`: the list's length before `value` was lowered, which a write kept as written
    /// drops (it runs the value as written: `v[0] *= stack.pop()…` pops once).
    fn written_vector(
        &mut self,
        name: String,
        base: Option<Atom>,
        value: &Atom,
        e: &Expr,
        target: proc_macro2::Span,
        before: usize,
    ) -> syn::Result<Option<Var>> {
        Ok(Some(match base {
            Some(Atom::Var(v)) if self.vectors.contains(&v) => v,
            Some(Atom::Const(_)) if value.var().is_none() && !self.float_vectors.contains(&name) => {
                self.b.func.body.truncate(before);
                self.verbatim(quote!(#e;));
                return Ok(None);
            }
            // A vector declared in this arm or body (or at top level) becomes differentiable here.
            Some(Atom::Const(c)) if self.declared_here(&name) => {
                self.type_declaration(&name);
                let v = self.b.op_of_kind(Op::Id, vec![Atom::Const(c)], e.span(), crate::ir::Kind::Slice);
                self.b.rename_user(v, &name);
                self.vectors.insert(v);
                self.rebind(&name, Atom::Var(v));
                v
            }
            // Made differentiable before the construct around the one that declares it, which is
            // then lowered again.
            Some(Atom::Const(_)) => {
                self.pending.push(name);
                return Ok(None);
            }
            _ => {
                return err(
                    target,
                    "only local vectors can be written element by element or pushed onto: a differentiable parameter cannot be written through",
                )
            }
        }))
    }

    /// `[a, b]` or `vec![a, b]` holding differentiable values (a vector-valued result): a local
    /// vector written element by element.
    pub(super) fn vector_literal(
        &mut self,
        elems: Vec<Expr>,
        is_vec: bool,
        span: proc_macro2::Span,
    ) -> syn::Result<Atom> {
        let n = elems.len();
        let zero = crate::tokens::float_lit(&self.b.float, "0.0");
        let zeros = if is_vec {
            quote!(::std::vec![#zero; #n])
        } else {
            quote!([#zero; #n])
        };
        let v = self
            .b
            .op_of_kind(Op::Id, vec![Atom::constant(zeros)], span, Kind::Slice);
        self.vectors.insert(v);
        for (i, e) in elems.iter().enumerate() {
            let value = self.expr(e)?;
            self.b.push(Stmt::SetElem {
                vec: v,
                index: Index::Known(i, quote!(#i)),
                value,
                log: None,
                init: true,
            });
        }
        Ok(Atom::Var(v))
    }
}

/// Whether `e` is `Vec::new()`, `Vec::with_capacity(n)` or `vec![]`.
fn empty_vec(e: &proc_macro2::TokenStream) -> bool {
    match syn::parse2::<Expr>(e.clone()) {
        Ok(Expr::Call(call)) => match &*call.func {
            Expr::Path(p) => {
                let segs = crate::tokens::segment_names(&p.path);
                segs.len() >= 2
                    && segs[segs.len() - 2] == "Vec"
                    && matches!(segs[segs.len() - 1].as_str(), "new" | "with_capacity")
            }
            _ => false,
        },
        Ok(Expr::Macro(m)) => m.mac.path.is_ident("vec") && m.mac.tokens.is_empty(),
        _ => false,
    }
}
