//! Statements: blocks, `let` (a new value named after the user's variable, or a constant in a
//! `let` of its own), assignment and compound assignment (the name bound to a new value), and
//! statements kept for their effect.

use proc_macro2::{Ident, Span};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{Expr, Pat, Stmt as SynStmt};

use super::expr::{compound, is_self};
use super::messages::err;
use super::Lowerer;
use crate::desugar::{is_never, is_unit};
use crate::ir::{Atom, Code, Kind, Op, Stmt};
use crate::names;
use crate::tokens;

impl Lowerer<'_> {
    /// Lowers a block's statements; returns the value of its tail expression or `return` when
    /// `want` (a block in statement position runs its tail for its effects only).
    pub(super) fn block(&mut self, stmts: &[SynStmt], want: bool) -> syn::Result<Option<Atom>> {
        self.scopes.push(Vec::new());
        // A name the block shadows is the outer one again after it (`let z = p.z;` outside, `let
        // z = z * 2.0;` in an arm, `z` read by a kept statement in the other arm).
        let copied = self.copied.clone();
        let mut tail = None;
        for (i, s) in stmts.iter().enumerate() {
            let last = i + 1 == stmts.len() && want;
            match self.stmt(s, last) {
                Ok(t) => tail = t,
                Err(e) => self.errors.push(e),
            }
        }
        self.scopes.pop();
        self.copied = copied;
        Ok(tail)
    }

    fn stmt(&mut self, s: &SynStmt, last: bool) -> syn::Result<Option<Atom>> {
        if is_never(s) {
            let never = Ident::new(names::NEVER, Span::call_site());
            return Ok(last.then(|| Atom::constant(quote!(#never))));
        }
        match s {
            SynStmt::Local(local) => self.local(local).map(|()| None),
            SynStmt::Item(item) => {
                self.b.push(Stmt::Item(item.to_token_stream()));
                Ok(None)
            }
            SynStmt::Macro(m) => {
                self.verbatim(m.to_token_stream());
                Ok(None)
            }
            SynStmt::Expr(Expr::Return(r), _) if self.nesting > 0 => err(
                r.span(),
                "`return` inside a branch or loop is not supported yet: assign the result to a variable and return it at the end",
            ),
            SynStmt::Expr(Expr::Return(r), _) if last => match &r.expr {
                Some(e) => {
                    self.expect_own = self.own_result && self.nesting == 0 && self.scopes.len() == 2;
                    self.expr(e).map(Some)
                }
                None => err(r.span(), "`#[autodiff]` functions must return a value: write `return <float expression>;`"),
            },
            SynStmt::Expr(Expr::Return(r), _) => err(
                r.span(),
                "early `return` is not supported yet: compute the result into a variable and return it at the end",
            ),
            SynStmt::Expr(e @ (Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_)), None) => {
                self.effect(e).map(|()| None)
            }
            SynStmt::Expr(e, None) if last && !is_unit(e) => {
                self.expect_own = self.own_result && self.nesting == 0 && self.scopes.len() == 2;
                self.expr(e).map(Some)
            }
            SynStmt::Expr(e, _) => self.effect(e).map(|()| None),
        }
    }

    /// A statement kept for its effect: assignment, `println!`, a call.
    fn effect(&mut self, e: &Expr) -> syn::Result<()> {
        match e {
            Expr::Assign(a) if matches!(&*a.left, Expr::Index(_)) => {
                let Expr::Index(target) = &*a.left else { return Ok(()) };
                self.element_write(target, &a.right, None, e)
            }
            Expr::Binary(b) if compound(&b.op).is_some() && matches!(&*b.left, Expr::Index(_)) => {
                let Expr::Index(target) = &*b.left else { return Ok(()) };
                self.element_write(target, &b.right, compound(&b.op).map(|(r, _)| r), e)
            }
            Expr::Assign(a) if self.literal_written(&a.left, &a.right).is_some() => {
                let Expr::Struct(literal) = &*a.right else { return Ok(()) };
                self.set_fields(&a.left, literal)
            }
            Expr::Assign(a) if self.part_written(&a.left).is_some() => {
                let value = self.expr(&a.right)?;
                self.set_part(&a.left, value)
            }
            Expr::Assign(a) => self.assign_expr(a),
            Expr::Binary(b) if compound(&b.op).is_some() => self.compound_assign(b, e),
            Expr::Macro(m) => {
                self.verbatim(quote!(#m;));
                Ok(())
            }
            Expr::MethodCall(m) if m.method == "push" && self.mentions_active(e) => self.push(m, e),
            Expr::Block(b) if b.label.is_none() => {
                self.block(&b.block.stmts, false)?;
                Ok(())
            }
            Expr::Break(_) | Expr::Continue(_) => err(
                e.span(),
                "`break` and `continue` are not supported yet: put the condition in the loop's `while`",
            ),
            Expr::If(i) if self.mentions_active(e) || self.reassigns(e) => {
                self.if_expr(i, false).map(|_| ())
            }
            Expr::Match(m) if self.mentions_active(e) || self.reassigns(e) => {
                self.match_expr(m, false).map(|_| ())
            }
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) if self.mentions_active(e) || self.reassigns(e) => {
                self.loop_stmt(e)
            }
            _ if !self.mentions_active(e) => {
                self.verbatim(quote!(#e;));
                Ok(())
            }
            _ => self.expr(e).map(|_| ()),
        }
    }

    /// `left = right`, a whole value assigned.
    fn assign_expr(&mut self, a: &syn::ExprAssign) -> syn::Result<()> {
        let mark = self.b.mark();
        // (`dy = __diffx_returning_rhs(y, k, dy)`, an output call's, or any call assigned
        // to a vector: a call returning a vector.)
        let name = match &*a.left {
            Expr::Path(p) => p.path.get_ident().map(|n| n.to_string()),
            _ => None,
        };
        let vector = name.is_some_and(|n| {
            self.facts.indexed.contains(&n)
                || matches!(self.lookup(&n), Some(Atom::Var(v)) if self.vectors.contains(v))
        });
        self.vector_call = vector && matches!(&*a.right, Expr::Call(_));
        let value = self.expr(&a.right);
        self.vector_call = false;
        self.assign(&a.left, value?, mark, float_literal(&a.right))
    }

    /// `left op= right` (`+=`, `*=`, …) of a name or a place.
    fn compound_assign(&mut self, b: &syn::ExprBinary, e: &Expr) -> syn::Result<()> {
        let (rule, _) = compound(&b.op).expect("checked");
        let (mark, before) = (self.b.mark(), self.b.func.body.len());
        let old = self.place(&b.left)?;
        let rhs = self.expr(&b.right)?;
        let old = self.struct_constant(old, b.left.span());
        if self.own_type(&old) {
            // `a += b` of a value of the user's type: through its `AddAssign` impl, as
            // the value `a` becomes.
            let number = self.b.func.atom_kind(&rhs) == crate::ir::Kind::Scalar;
            let op = Ident::new(&format!("{}_assign", rule.name), b.op.span());
            let op = if number { names::by_number(&op) } else { op };
            let value = self.operator(&op, vec![old, rhs]);
            return self.assign(&b.left, value, mark, false);
        }
        if self.part_written(&b.left).is_some() {
            let value = self.apply_or_fold(rule, vec![old, rhs], e, before)?;
            return self.set_part(&b.left, value);
        }
        let value = match (&old, &rhs) {
            (Atom::Const(l), Atom::Const(r)) => {
                Atom::constant(super::expr::infix(rule, l.tokens(), r.tokens()))
            }
            _ => self.apply_or_fold(rule, vec![old, rhs], e, before)?,
        };
        self.assign(&b.left, value, mark, false)
    }

    /// The name of the value of the list whose part `e` is (`s` of `s.x`, `s.vals[k]`), where
    /// that value is read by place (a value of the user's type): a write of the part replaces
    /// the value by one with the part replaced ([`Op::SetPart`]).
    fn part_written(&self, e: &Expr) -> Option<String> {
        let Expr::Field(f) = e else { return None };
        let mut base = &*f.base;
        while let Expr::Field(syn::ExprField { base: b, .. })
        | Expr::Index(syn::ExprIndex { expr: b, .. }) = base
        {
            base = b;
        }
        let Expr::Path(p) = base else { return None };
        let name = p.path.get_ident()?.to_string();
        match self.lookup(&name) {
            Some(Atom::Var(v)) if self.b.func.kind(*v) == Kind::Other => Some(name),
            _ => None,
        }
    }

    /// The name of a value read by place that `left = right` replaces by a struct literal that
    /// names every field (`*self = V2 { x: …, y: … }` of a compound assignment's impl).
    fn literal_written(&self, left: &Expr, right: &Expr) -> Option<String> {
        let (Expr::Path(p), Expr::Struct(s)) = (left, right) else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        match (self.lookup(&name), &s.rest) {
            (Some(Atom::Var(v)), None)
                if self.b.func.own_values.contains(v) || self.unseen_param(*v) =>
            {
                Some(name)
            }
            _ => None,
        }
    }

    /// `s = S { x: …, y: … }` of a value read by place: every field's value, then each field of
    /// `s` replaced by its own (`s = set.y(set.x(s, …), …)`).
    fn set_fields(&mut self, left: &Expr, literal: &syn::ExprStruct) -> syn::Result<()> {
        let name = self
            .literal_written(left, &Expr::Struct(literal.clone()))
            .expect("checked");
        let mut values = Vec::new();
        for f in &literal.fields {
            values.push((f.member.clone(), self.expr(&f.expr)?));
        }
        let Some(&Atom::Var(mut s)) = self.lookup(&name) else {
            return Ok(());
        };
        for (member, value) in values {
            let path = crate::ir::Path(vec![crate::ir::Step::Field(member)]);
            let (kind, span) = (self.b.func.kind(s), left.span());
            s = self
                .b
                .op_of_kind(Op::SetPart(path), vec![Atom::Var(s), value], span, kind);
            self.b.func.own_values.push(s);
        }
        self.rebind(&name, Atom::Var(s));
        Ok(())
    }

    /// `s.x = value` of a part of a value read by place: `s` is bound to `set.x(s, value)`.
    fn set_part(&mut self, left: &Expr, value: Atom) -> syn::Result<()> {
        let name = self.part_written(left).expect("checked by the caller");
        let Atom::Field(base, path) = self.expr(left)? else {
            return err(
                left.span(),
                "write a part of this value as `name.field = …`",
            );
        };
        let span = left.span();
        let kind = self.b.func.kind(base);
        let new = self
            .b
            .op_of_kind(Op::SetPart(path), vec![Atom::Var(base), value], span, kind);
        // (Both are whole values of the user's type, not numbers, at second order too.)
        for v in [base, new] {
            if !self.b.func.own_values.contains(&v) {
                self.b.func.own_values.push(v);
            }
        }
        self.rebind(&name, Atom::Var(new));
        Ok(())
    }

    /// The current value of an assignable place (a variable, or a part of a value read by
    /// place).
    fn place(&mut self, e: &Expr) -> syn::Result<Atom> {
        match e {
            Expr::Path(p) if p.path.get_ident().is_some() => self.expr(e),
            _ if self.part_written(e).is_some() => self.expr(e),
            // (`desugar/mut_refs.rs` writes `*r` of a `let r = &mut v[i];` as `v[i]` where it can.)
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => err(
                e.span(),
                "`#[autodiff]` writes through a `&mut` only as the element it borrows, `let r = &mut v[i]; *r = …` with `i` unchanged in between: write the element itself (`v[i] = …`)",
            ),
            _ => err(
                e.span(),
                "`#[autodiff]` can assign only to local variables here: write `name = …` or `name += …`",
            ),
        }
    }

    /// `left = value`; `literal`: the value is written as a float literal.
    fn assign(&mut self, left: &Expr, value: Atom, mark: usize, literal: bool) -> syn::Result<()> {
        let old = self.place(left)?;
        let name = left.to_token_stream().to_string();
        let vector = matches!(&value, Atom::Var(v) if self.vectors.contains(v));
        if vector && self.nesting > 0 && !self.declared_here(&name) {
            return err(
                left.span(),
                format!("a vector declared outside this loop or `if` cannot be replaced whole inside it yet: write its elements (`{name}[i] = …`)"),
            );
        }
        // (A float literal assigned to a constant of no declared type, `x = -1.2;` after `let mut
        // x = x * 2.0;`, is of the function's float type: `x.sin()` then has a type.)
        let literal = literal && matches!(value, Atom::Const(_));
        let float = &self.b.float;
        let ty = self
            .type_of(&old)
            .or_else(|| literal.then(|| syn::parse_quote!(#float)));
        self.let_binding(&name, ty, value, mark, false);
        // An assignment changes the variable where it was declared, not a shadow in this block.
        let new = self
            .scopes
            .last_mut()
            .and_then(|s| s.pop())
            .expect("just bound");
        self.rebind(&name, new.1);
        Ok(())
    }

    /// The type a variable holding `atom` was given, where a constant assigned to it needs one:
    /// the float type for a scalar of the list, the declared type for a constant.
    fn type_of(&self, atom: &Atom) -> Option<syn::Type> {
        match atom {
            Atom::Var(v) if self.b.func.kind(*v) == crate::ir::Kind::Scalar => {
                let float = &self.b.float;
                Some(syn::parse_quote!(#float))
            }
            Atom::Const(c) => c.name().and_then(|n| self.const_types.get(n)).cloned(),
            _ => None,
        }
    }

    /// Binds the user's `name` to `value`: a new value of the list is named after it, a constant
    /// becomes a `let` of its own.
    fn let_binding(
        &mut self,
        name: &str,
        ty: Option<syn::Type>,
        value: Atom,
        mark: usize,
        mutable: bool,
    ) {
        match value {
            // A value made before the last statement (a loop's cell, the tail of a block) may
            // already be written into kept code by its name: it keeps that name.
            Atom::Var(v) if self.b.is_new(&value, mark) && self.b.made_last(v) => {
                self.b.rename_user(v, name);
                self.bind(name, Atom::Var(v));
            }
            // A vector this `let` built (`let y = [a, b];`), written element by element, that no
            // kept code names: it takes the user's name (which `explain_` shows). One a block
            // built under a name of its own and named in kept code there (`let y = { let mut v =
            // …; for i in 0..v.len() { … } v };`) keeps that name.
            Atom::Var(v)
                if self.b.is_new(&value, mark)
                    && self.vectors.contains(&v)
                    && !self.named_in_code.contains(&v) =>
            {
                self.b.rename_user(v, name);
                self.bind(name, Atom::Var(v));
            }
            // `let a: f64 = p.a;`: a field the macro cannot see the type of, declared a number.
            Atom::Var(_) | Atom::Field(..)
                if self.b.func.atom_kind(&value) == Kind::Other
                    && ty
                        .as_ref()
                        .is_some_and(|t| tokens::is_float_type(t, &self.b.float)) =>
            {
                let v = self
                    .b
                    .op_of_kind(Op::Id, vec![value], Span::call_site(), Kind::Scalar);
                self.b.rename_user(v, name);
                self.bind(name, Atom::Var(v));
            }
            // `let mut s = s0;` of a vector the body then writes (`s[0] = …`, `s = [a, b]` in a
            // loop): a vector of its own, so `s0` keeps its value.
            Atom::Var(v)
                if mutable
                    && self.facts.written.contains(name)
                    && self.b.func.kind(v) == Kind::Slice
                    && !self.vectors.contains(&v) =>
            {
                self.vector_of_its_own(name, value)
            }
            // `let mut out = self.vals.clone();` of a field the body then writes element by
            // element (an array's `map`): a vector of its own, so the parameter keeps its value.
            Atom::Field(..) if mutable && self.facts.written.contains(name) => {
                self.vector_of_its_own(name, value)
            }
            Atom::Var(_) | Atom::Field(..) => self.bind(name, value),
            Atom::Const(expr) => self.let_constant(name, ty, expr, mutable),
        }
    }

    /// `name` bound to a copy of the vector `value`, which the body then writes.
    fn vector_of_its_own(&mut self, name: &str, value: Atom) {
        let copy = self
            .b
            .op_of_kind(Op::Id, vec![value], Span::call_site(), Kind::Slice);
        self.b.rename_user(copy, name);
        self.vectors.insert(copy);
        self.bind(name, Atom::Var(copy));
    }

    /// `let name: ty = expr;` of a constant, kept as written under the user's name.
    fn let_constant(&mut self, name: &str, ty: Option<syn::Type>, expr: Code, mutable: bool) {
        let float = &self.b.float;
        let holds_floats = tokens::has_float(expr.tokens().clone(), float)
            || ty
                .as_ref()
                .is_some_and(|t| tokens::has_float(t.to_token_stream(), float));
        if self.facts.written.contains(name) && holds_floats {
            self.float_vectors.insert(name.to_string());
        }
        let fresh = self.b.user_name(name);
        if let Some(ty) = &ty {
            self.const_types.insert(fresh.to_string(), ty.clone());
        }
        if mutable {
            self.mutable_consts.insert(name.to_string());
        } else {
            self.mutable_consts.remove(name);
        }
        self.b.push(Stmt::Const {
            name: fresh.clone(),
            mutable,
            ty,
            expr,
        });
        self.bind(name, Atom::constant(fresh.into_token_stream()));
    }

    fn local(&mut self, local: &syn::Local) -> syn::Result<()> {
        let mark = self.b.mark();
        let (pat, ty) = match &local.pat {
            Pat::Type(t) => (&*t.pat, Some((*t.ty).clone())),
            p => (p, None),
        };
        let Pat::Ident(pi) = pat else {
            return err(
                pat.span(),
                "`#[autodiff]` supports only simple names in `let`: write `let name = …;`",
            );
        };
        let Some(init) = &local.init else {
            return err(
                local.span(),
                "declare the variable with its value: `let name = …;`",
            );
        };
        if let Some((_, diverge)) = &init.diverge {
            return err(
                diverge.span(),
                "`let … else` is not supported in `#[autodiff]` functions",
            );
        }
        let name = pi.ident.to_string();
        // (`self.g(…)` calls another `#[autodiff]` method.)
        let call = matches!(&*init.expr, Expr::Call(_))
            || matches!(&*init.expr, Expr::MethodCall(m) if is_self(&m.receiver));
        self.tuple_call = call && self.facts.tuple_read.contains(&name);
        let numbers = self.b.call_kind == Kind::Scalar;
        // (`let m = self.to_matrix(); … m[i][j]`: an array of arrays, read by place.)
        let rows = call && self.facts.rows_read.contains(&name);
        self.vector_call = call
            && !rows
            && (self.facts.indexed.contains(&name)
                || self.tuple_call
                || (numbers && self.facts.referenced.contains(&name)));
        let value = self.expr(&init.expr)?;
        self.vector_call = false;
        self.tuple_call = false;
        // (A call's value bound to a name the body calls methods of the user's types on is one
        // of those types from here, in the loops it goes through too.)
        if let (true, Atom::Var(v)) = (rows || self.facts.own_types.contains(&name), &value) {
            self.returned_own_value(*v);
        }
        if matches!(value, Atom::Field(..)) && !matches!(&*init.expr, Expr::Reference(_)) {
            self.copied.insert(name.clone());
        } else {
            self.copied.remove(&name);
        }
        // `let e = &v[k];` (a chain's element by reference): a number here, `&` of it in code
        // kept as written, where the body reads `*e`.
        let number_ref = matches!(&*init.expr, Expr::Reference(_))
            && match value {
                Atom::Var(v) => self.b.func.kind(v) == Kind::Scalar,
                // `let v = &x[k];` of a slice's element.
                Atom::Field(v, _) => self.b.func.kind(v) == Kind::Slice,
                Atom::Const(_) => false,
            };
        if number_ref {
            self.refs.insert(name.clone());
        } else if !matches!(value, Atom::Field(..)) {
            self.refs.remove(&name);
        }
        self.let_binding(
            &pi.ident.to_string(),
            ty,
            value,
            mark,
            pi.mutability.is_some(),
        );
        // (A struct literal of constants, `let mut acc = V2 { x: 0.0, y: 0.0 };`, is a value of
        // the user's type where an operator takes it with another.)
        if let (Expr::Struct(_), Some(Atom::Const(c))) = (&*init.expr, self.lookup(&name)) {
            self.struct_consts.insert(c.to_string());
        }
        Ok(())
    }

    pub(super) fn block_expr(&mut self, block: &syn::Block) -> syn::Result<Atom> {
        match self.block(&block.stmts, true)? {
            Some(a) => Ok(a),
            None => err(
                block.span(),
                "this block has no value: end it with an expression",
            ),
        }
    }
}

/// Whether `e` is a float literal without a suffix, maybe negated (`-1.2`).
fn float_literal(e: &Expr) -> bool {
    match e {
        Expr::Lit(l) => matches!(&l.lit, syn::Lit::Float(f) if f.suffix().is_empty()),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => float_literal(&u.expr),
        Expr::Paren(p) => float_literal(&p.expr),
        _ => false,
    }
}
