//! Values of the user's own types (a struct with `#[autodiff]` operators and methods, a type the
//! macro cannot see): which operands are of such a type, recorded as read by place, and the
//! copies made of them.

use proc_macro2::Span;

use super::Lowerer;
use crate::ir::{Atom, Kind, Op, Var};
use crate::rules;

impl Lowerer<'_> {
    /// Whether `a` is a value of the user's type: one a method of the type, or another operator
    /// of it, returned, a parameter of a type the macro cannot see or a copy of one (where the
    /// body does nothing tensors do), or a parameter read by place or a call's value that the
    /// body calls such a method of anywhere (`a.norm2()`, `let b = e.cauchy_green(); … b.det()`),
    /// which is then recorded as one. (In tensor code, another parameter read by place may be a
    /// tensor under another name, `type T = Tensor<f64>`, whose operators are the table's.)
    pub(super) fn own_type(&mut self, a: &Atom) -> bool {
        let Atom::Var(v) = a else { return false };
        if self.b.func.own_values.contains(v) {
            return true;
        }
        if self.unseen_param(*v) {
            self.mark_own(a);
            return true;
        }
        let name = self.b.func.vars[v.0].name.to_string();
        let param = self.b.func.kind(*v) == Kind::Other && self.param_types.contains_key(v);
        if !self.facts.own_types.contains(&name) {
            return false;
        }
        param || self.returned_own_value(*v)
    }

    /// Whether `v` is a parameter of a type the macro cannot see, or a copy of one, in code that
    /// does nothing tensors do ([`crate::analyze::Facts::tensor_code`]): a value of the user's
    /// type, whose operators are its impls'.
    pub(super) fn unseen_param(&self, mut v: Var) -> bool {
        loop {
            if self.b.func.kind(v) != Kind::Other {
                return false;
            }
            if self.param_types.contains_key(&v) {
                let name = self.b.func.vars[v.0].name.to_string();
                let tensor = self.facts.tensor_code || self.facts.float_receivers.contains(&name);
                return !tensor || self.facts.with_fields.contains(&name);
            }
            let copied = self.b.func.body.iter().rev().find_map(|s| match s {
                crate::ir::Stmt::Let {
                    dst,
                    op: Op::Id,
                    args,
                    ..
                } if *dst == v => match args[0] {
                    Atom::Var(u) => Some(u),
                    _ => None,
                },
                _ => None,
            });
            match copied {
                Some(u) => v = u,
                None => return false,
            }
        }
    }

    /// A constant bound to a struct literal (`let mut acc = V2 { x: 0.0, y: 0.0 };`), as a value
    /// of the user's type (a copy of it); any other operand as it is.
    pub(super) fn struct_constant(&mut self, a: Atom, span: Span) -> Atom {
        match &a {
            Atom::Const(c) if c.name().is_some_and(|n| self.struct_consts.contains(n)) => {
                self.constant_of_type(a, span)
            }
            _ => a,
        }
    }

    /// The constant `a` as a value of the user's type (a copy of it).
    pub(super) fn constant_of_type(&mut self, a: Atom, span: Span) -> Atom {
        let v = self.b.op_of_kind(Op::Id, vec![a], span, Kind::Other);
        self.b.func.vars[v.0].by_value = true;
        self.b.func.own_values.push(v);
        Atom::Var(v)
    }

    /// Records the value `a` as one of the user's type, read by place.
    pub(super) fn mark_own(&mut self, a: &Atom) {
        if let Atom::Var(v) = a {
            self.b.func.vars[v.0].kind = Kind::Other;
            if !self.b.func.own_values.contains(v) {
                self.b.func.own_values.push(*v);
            }
        }
    }

    /// `*p` of a parameter `p: &T` of a type the macro cannot see (a struct, `[[f64; 3]; 3]`): a
    /// copy, the value itself (`Self::from_matrix(*m)`, `*self` returned); the operand itself
    /// otherwise.
    pub(super) fn dereferenced(&mut self, a: Atom, span: Span) -> Atom {
        match a {
            Atom::Var(v) if self.b.func.vars[v.0].is_ref && self.b.func.kind(v) == Kind::Other => {
                let own = self.own_type(&a);
                let copy = self.b.op_of_kind(Op::Id, vec![a], span, Kind::Other);
                self.b.func.vars[copy.0].by_value = true;
                if own {
                    self.b.func.own_values.push(copy);
                }
                Atom::Var(copy)
            }
            a => a,
        }
    }

    /// Whether `v` is a call's value (not a vector): then recorded as a value of the user's type,
    /// read by place.
    pub(super) fn returned_own_value(&mut self, v: Var) -> bool {
        if self.b.func.kind(v) == Kind::Slice {
            return false;
        }
        let mut returned = false;
        for s in &self.b.func.body {
            s.walk(&mut |s| {
                returned |=
                    matches!(s, crate::ir::Stmt::Let { dst, op: Op::Call(_), .. } if *dst == v);
            });
        }
        if returned {
            self.b.func.vars[v.0].kind = Kind::Other;
            if !self.b.func.own_values.contains(&v) {
                self.b.func.own_values.push(v);
            }
        }
        returned
    }

    /// Whether `receiver.name(…)` calls a method of the user's type: the receiver is a
    /// differentiable value the macro reads by place (a parameter struct or a part of one) and
    /// `name` is no float or tensor method.
    pub(super) fn user_method(&self, receiver: &Atom, name: &str) -> bool {
        // (A part's kind is its base's: where every value is a number, a field reads as one.)
        receiver
            .var()
            .is_some_and(|base| self.b.func.kind(base) == Kind::Other)
            && rules::find_method(name, false).is_none()
            && rules::find_method(name, true).is_none()
    }

    /// Whether `receiver.name(…)` calls a method of the user's type on a value a call returned
    /// (`e.cauchy_green().det()`, `KM::from_matrix(m).trace()`): the value is then taken to be of
    /// that type, read by place as a parameter struct is (it is of the user's type, or rustc
    /// finds no such method).
    pub(super) fn user_value(&mut self, receiver: &Atom, name: &str) -> bool {
        let Atom::Var(v) = receiver else { return false };
        // (The cheap test first: the walk is over the whole list so far.)
        let rule =
            rules::find_method(name, false).is_some() || rules::find_method(name, true).is_some();
        !rule && self.returned_own_value(*v)
    }
}
