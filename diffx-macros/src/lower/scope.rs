//! The names in scope: which value of the list or constant each of the user's names is bound to
//! now, and whether an expression reads a differentiable value through them or assigns one of
//! them.

use std::collections::BTreeSet;

use proc_macro2::Ident;
use quote::ToTokens;
use syn::Expr;

use super::expr::compound;
use super::Lowerer;
use crate::ir::Atom;
use crate::tokens;

impl Lowerer<'_> {
    pub(super) fn bind(&mut self, name: &str, atom: Atom) {
        self.scopes
            .last_mut()
            .expect("a scope")
            .push((name.to_string(), atom));
    }

    pub(super) fn lookup(&self, name: &str) -> Option<&Atom> {
        // (Plain loops: the macro is built unoptimised, where an iterator chain costs a call per
        // step, and lowering looks up every name of every operand.)
        for scope in self.scopes.iter().rev() {
            for (n, a) in scope.iter().rev() {
                if n == name {
                    return Some(a);
                }
            }
        }
        None
    }

    /// Whether `name` is declared in the innermost arm or loop body (anywhere, at top level): a
    /// vector declared there can be made differentiable where it is, without lowering the
    /// construct again.
    pub(super) fn declared_here(&self, name: &str) -> bool {
        let scope = self
            .scopes
            .iter()
            .rposition(|s| s.iter().any(|(n, _)| n == name));
        scope.is_some_and(|i| i >= self.local_from)
    }

    fn is_active(&self, id: &Ident) -> bool {
        matches!(
            self.lookup(&id.to_string()),
            Some(Atom::Var(_) | Atom::Field(..))
        )
    }

    /// Whether `e` depends on a differentiable value. Operators, calls and the like are walked in
    /// the tree, the rest by its tokens: lowering asks again for every operand, and writing each
    /// one out as tokens made that quadratic in the depth of an expression.
    pub(super) fn mentions_active(&self, e: &Expr) -> bool {
        let path_of = |p: &syn::ExprPath| p.path.get_ident().map(|id| self.is_active(id));
        match e {
            Expr::Lit(_) => false,
            // (The guard asks for a name only: looking it up is the arm's.)
            Expr::Path(p) if p.path.get_ident().is_some() => path_of(p) == Some(true),
            // A length is an integer, whatever it measures (`0..model.weights.len()`).
            Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => false,
            Expr::MethodCall(m)
                if m.turbofish.is_none() && !(m.method == "len" && m.args.is_empty()) =>
            {
                self.mentions_active(&m.receiver) || m.args.iter().any(|a| self.mentions_active(a))
            }
            Expr::Call(c) if matches!(&*c.func, Expr::Path(_)) => {
                tokens::mentions(c.func.to_token_stream(), &mut |id| self.is_active(id))
                    || c.args.iter().any(|a| self.mentions_active(a))
            }
            Expr::Cast(c) => {
                self.mentions_active(&c.expr)
                    || tokens::mentions(c.ty.to_token_stream(), &mut |id| self.is_active(id))
            }
            _ => match operands_of(e) {
                Some(ops) => ops.iter().flatten().any(|o| self.mentions_active(o)),
                None => super::uses::mentions(e, &mut |id| self.is_active(id)),
            },
        }
    }

    /// Whether `e` assigns to a name declared outside it: kept as written, the assignment would
    /// change a shadow, not the value the list tracks. Operators and calls assign nothing
    /// themselves, so only their operands are looked at.
    pub(super) fn reassigns(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(_) | Expr::Path(_) => false,
            Expr::MethodCall(m) => {
                self.reassigns(&m.receiver) || m.args.iter().any(|a| self.reassigns(a))
            }
            Expr::Call(c) if matches!(&*c.func, Expr::Path(_)) => {
                c.args.iter().any(|a| self.reassigns(a))
            }
            Expr::Cast(c) => self.reassigns(&c.expr),
            _ => match operands_of(e) {
                Some(ops) => ops.iter().flatten().any(|o| self.reassigns(o)),
                None => super::uses::of_expr(e)
                    .assigned
                    .iter()
                    .any(|n| self.lookup(n).is_some()),
            },
        }
    }

    /// Sets the binding of `name` in the scope that declares it.
    pub(super) fn rebind(&mut self, name: &str, atom: Atom) {
        let slot = self
            .scopes
            .iter_mut()
            .rev()
            .flat_map(|s| s.iter_mut().rev())
            .find(|(n, _)| n == name);
        match slot {
            Some(slot) => slot.1 = atom,
            None => self.bind(name, atom),
        }
    }

    /// Every visible name with its current value.
    pub(super) fn visible(&self) -> Vec<(String, Atom)> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for (n, a) in self.scopes.iter().rev().flat_map(|s| s.iter().rev()) {
            if seen.insert(n.clone()) {
                out.push((n.clone(), a.clone()));
            }
        }
        out
    }

    /// Binds each name in `before` to its value there again.
    pub(super) fn restore(&mut self, before: &[(String, Atom)]) {
        for (n, a) in before {
            self.rebind(n, a.clone());
        }
    }
}

/// The operands of an operator, a field or an index expression, whose own tokens name no variable
/// and assign nothing (`.w`, `-`; not `+=`, which is a statement).
fn operands_of(e: &Expr) -> Option<[Option<&Expr>; 2]> {
    fn one(e: &Expr) -> Option<&Expr> {
        Some(e)
    }
    Some(match e {
        Expr::Binary(b) if compound(&b.op).is_none() => [one(&b.left), one(&b.right)],
        Expr::Unary(u) => [one(&u.expr), None],
        Expr::Paren(p) => [one(&p.expr), None],
        Expr::Group(g) => [one(&g.expr), None],
        Expr::Field(f) => [one(&f.base), None],
        Expr::Index(i) => [one(&i.expr), one(&i.index)],
        Expr::Reference(r) => [one(&r.expr), None],
        Expr::Range(r) => [r.start.as_deref(), r.end.as_deref()],
        _ => return None,
    })
}
