//! Local vectors written element by element, backwards: their adjoints (vectors too), and the
//! adjoints of an element write and of a push, each undone from the vector's log.

use proc_macro2::{Ident, Span};

use super::Sweep;
use crate::ir::{Atom, Index, Kind, Op, Path, Stmt, Var};

impl Sweep {
    /// `v̄ = 0` for a vector written element by element, shaped like it is now.
    pub(super) fn vector_adjoint(&mut self, vec: Var) {
        let bar = (self.b).fresh(&format!("{}_bar", self.b.func.name(vec)), Kind::Slice);
        let value = crate::forward::zero(&self.b, &Atom::Var(vec));
        self.b.adjoint(bar, value, None);
        self.adj.insert(vec, bar);
    }

    /// The adjoints of the vectors `body` itself declares, after it is recomputed.
    pub(super) fn local_vector_adjoints(&mut self, body: &[Stmt]) {
        for s in body {
            if let Stmt::Let { dst, .. } = s {
                if self.vectors.contains(dst) {
                    self.vector_adjoint(*dst);
                }
            }
        }
    }

    /// `vec[i] = value`, backwards: the element's adjoint goes to `value` and restarts at zero, and
    /// the element gets its old value back from the log (if it has one: a write filling a vector
    /// just made has none).
    pub(super) fn set_elem(
        &mut self,
        vec: Var,
        index: &Index,
        value: &Atom,
        log: Option<&Ident>,
    ) -> syn::Result<()> {
        let span = Span::call_site();
        let bar = self.adj[&vec];
        let mark = self.b.mark();
        let g = self.b.op(
            Op::Id,
            vec![Atom::Field(bar, Path::index(index.clone()))],
            span,
        );
        self.b.push(Stmt::SetElem {
            vec: bar,
            index: index.clone(),
            value: Atom::constant(quote::quote!(0.0)),
            log: None,
            init: false,
        });
        self.accumulate(value, Atom::Var(g), span, mark);
        if let Some(log) = log {
            self.b.push(Stmt::Undo {
                vec,
                log: log.clone(),
                mark: None,
                at: Some(index.clone()),
            });
        }
        Ok(())
    }

    /// `vec.push(value)`, backwards: the last element of the vector's adjoint goes to `value`, and
    /// the push is undone.
    pub(super) fn push(&mut self, vec: Var, value: &Atom, log: &Ident) -> syn::Result<()> {
        let bar = self.adj[&vec];
        let mark = self.b.mark();
        let g = self.b.temp(Kind::Scalar);
        self.b.push(Stmt::Pop { dst: g, vec: bar });
        self.accumulate(value, Atom::Var(g), Span::call_site(), mark);
        self.b.push(Stmt::Undo {
            vec,
            log: log.clone(),
            mark: None,
            at: None,
        });
        Ok(())
    }
}
