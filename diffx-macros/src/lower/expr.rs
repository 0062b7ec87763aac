//! Expressions: operators, casts, float methods and calls, each differentiable operation a row of
//! the rule table applied to its lowered operands (or folded into a constant when none of them
//! is differentiable), and calls of other `#[autodiff]` functions.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, UnOp};

use super::messages::{err, reject, unsupported};
use super::Lowerer;
use crate::ir::{operands, Atom, Kind, Op, Var};
use crate::names;
use crate::rules::{self, template, Rule};
use crate::tokens;

impl Lowerer<'_> {
    /// Lowers an expression to an operand.
    pub(super) fn expr(&mut self, e: &Expr) -> syn::Result<Atom> {
        reject(e)?;
        // (Only the operator the value is, through parentheses, is of the user's type.)
        let own = std::mem::take(&mut self.expect_own);
        // An expression that reassigns a variable from outside (an `if` that counts) is lowered
        // for that effect even when its value is a constant.
        if !self.mentions_active(e) && !self.reassigns(e) {
            match (self.in_template, e) {
                (true, Expr::MethodCall(m)) => return self.method(m, e),
                // `b as F` of a rule, a conversion where `F` is a type parameter.
                (true, Expr::Cast(c)) if tokens::is_generic(&self.b.float) => {
                    return self.cast(c, e)
                }
                (true, Expr::Paren(p)) => return self.expr(&p.expr),
                _ => {}
            }
            return Ok(self.constant_atom(e));
        }
        match e {
            Expr::Path(p) => match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                Some(a) => Ok(a.clone()),
                None => Ok(Atom::Const(self.constant(e))),
            },
            Expr::Paren(p) => {
                self.expect_own = own;
                self.expr(&p.expr)
            }
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Block(b) if b.label.is_none() => self.block_expr(&b.block),
            Expr::Binary(b) => self.binary(b, e, own),
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => {
                    let before = self.b.func.body.len();
                    let a = self.expr(&u.expr)?;
                    if own {
                        self.mark_own(&a);
                    }
                    if self.own_type(&a) {
                        let neg = Ident::new("neg", u.op.span());
                        return Ok(self.operator(&neg, vec![a]));
                    }
                    self.apply_or_fold(rule("neg"), vec![a], e, before)
                }
                UnOp::Deref(_) => {
                    let a = self.expr(&u.expr)?;
                    Ok(self.dereferenced(a, u.span()))
                }
                _ => Ok(self.constant_atom(e)),
            },
            Expr::Cast(c) => self.cast(c, e),
            Expr::MethodCall(m) => self.method(m, e),
            Expr::Call(c) => self.call(c, e),
            Expr::Reference(r) if r.mutability.is_none() => self.expr(&r.expr),
            Expr::If(i) => self.if_expr(i, true),
            Expr::Array(a) => {
                self.vector_literal(a.elems.iter().cloned().collect(), false, e.span())
            }
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
                let elems = m.mac.parse_body_with(parser).map_err(|_| {
                    syn::Error::new(
                        m.span(),
                        "write a vector of differentiable values as `vec![a, b, …]`",
                    )
                })?;
                self.vector_literal(elems.into_iter().collect(), true, e.span())
            }
            Expr::Match(m) => self.match_expr(m, true),
            Expr::Field(f) => self.field(f),
            Expr::Index(i) => self.index(i),
            _ => err(e.span(), unsupported(e)),
        }
    }

    /// `own`: the value is known to be of the user's type (the value a function returning one
    /// returns), so one of its operands is.
    fn binary(&mut self, b: &syn::ExprBinary, e: &Expr, own: bool) -> syn::Result<Atom> {
        let name = match b.op {
            BinOp::Add(_) => "add",
            BinOp::Sub(_) => "sub",
            BinOp::Mul(_) => "mul",
            BinOp::Div(_) => "div",
            BinOp::Eq(_)
            | BinOp::Ne(_)
            | BinOp::Lt(_)
            | BinOp::Le(_)
            | BinOp::Gt(_)
            | BinOp::Ge(_) => {
                return Ok(self.constant_atom(e));
            }
            BinOp::And(_) | BinOp::Or(_) => return Ok(self.constant_atom(e)),
            _ if compound(&b.op).is_some() => {
                return err(
                    e.span(),
                    "write compound assignments (`+=`, `-=`, `*=`, `/=`) as statements",
                );
            }
            _ => {
                let op = b.op.to_token_stream();
                return err(b.op.span(), format!("the operator `{op}` has no derivative rule: write it with `+ - * /` and the float methods"));
            }
        };
        let before = self.b.func.body.len();
        let l = self.expr(&b.left)?;
        let r = self.expr(&b.right)?;
        let (mut l, r) = match self.own_type(&l) || self.own_type(&r) {
            true => (
                self.struct_constant(l, b.left.span()),
                self.struct_constant(r, b.right.span()),
            ),
            false => (l, r),
        };
        if own && !self.own_type(&l) && !self.own_type(&r) {
            // (`k * b`: a number on the left, the value of the type on the right; `*base * k`
            // of a constant `base`: the constant is the value of the type.)
            let kinds = (self.b.func.atom_kind(&l), self.b.func.atom_kind(&r));
            match (&l, kinds) {
                (Atom::Const(_), (_, Kind::Scalar)) => l = self.constant_of_type(l, b.left.span()),
                (_, (Kind::Scalar, _)) => self.mark_own(&r),
                _ => self.mark_own(&l),
            }
        }
        // (`s - r` of a value the macro cannot see and one of the type: both are of the type.)
        let other_left = self.b.func.atom_kind(&l) == Kind::Other;
        if self.own_type(&l) || other_left && self.own_type(&r) {
            // `a + b` of a value of the user's type: its `#[autodiff]` operator impl.
            let number = self.b.func.atom_kind(&r) == Kind::Scalar;
            let op = Ident::new(name, b.op.span());
            let op = if number { names::by_number(&op) } else { op };
            return Ok(self.operator(&op, vec![l, r]));
        }
        if self.own_type(&r) && self.b.func.atom_kind(&l) != Kind::Other {
            // `2.0 * v`: the number's `#[autodiff]` impl, through methods of `v`'s type.
            let op = names::reflected(&Ident::new(name, b.op.span()), false);
            return Ok(self.operator(&op, vec![r, l]));
        }
        if self.own_type(&r) {
            return err(b.op.span(), format!("`{}` with a value of your type on the right only is not differentiated yet: write the value of your type on the left (`value {} number`) with an `#[autodiff]` impl of the operator for its type", b.op.to_token_stream(), b.op.to_token_stream()));
        }
        self.apply_or_fold(rule(name), vec![l, r], e, before)
    }

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
            Atom::Const(name) if self.struct_consts.contains(&name.to_string()) => {
                self.constant_of_type(a, span)
            }
            _ => a,
        }
    }

    /// The constant `a` as a value of the user's type (a copy of it).
    fn constant_of_type(&mut self, a: Atom, span: Span) -> Atom {
        let v = self.b.op_of_kind(Op::Id, vec![a], span, Kind::Other);
        self.b.func.vars[v.0].by_value = true;
        self.b.func.own_values.push(v);
        Atom::Var(v)
    }

    /// Records the value `a` as one of the user's type, read by place.
    fn mark_own(&mut self, a: &Atom) {
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
    fn dereferenced(&mut self, a: Atom, span: Span) -> Atom {
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

    /// The operator `op` of the user's type on `operands`, called through the derivative
    /// methods of its `#[autodiff]` impl, which takes them by value (copies here); its value is
    /// of the type too.
    pub(super) fn operator(&mut self, op: &Ident, operands: Vec<Atom>) -> Atom {
        let span = op.span();
        let args = operands
            .into_iter()
            .map(|a| match self.b.func.atom_kind(&a) {
                Kind::Other => {
                    let copy = self.b.op_of_kind(Op::Id, vec![a], span, Kind::Other);
                    self.b.func.vars[copy.0].by_value = true;
                    Atom::Var(copy)
                }
                _ => a,
            })
            .collect();
        let marker = Ident::new(names::OPERATOR, span);
        let path: syn::Path = syn::parse_quote_spanned!(span=> #marker::#op);
        let v = self.b.op_of_kind(Op::Call(path), args, span, Kind::Other);
        self.b.func.own_values.push(v);
        Atom::Var(v)
    }

    fn cast(&mut self, c: &syn::ExprCast, e: &Expr) -> syn::Result<Atom> {
        let target = c.ty.to_token_stream().to_string();
        if self.b.float == target {
            // A differentiable value of the function's own type casts to itself; anything else
            // (`x.len() as f64`) is a constant that keeps its cast, which for a type parameter
            // (`b as T` of a rule) is a conversion.
            return match self.expr(&c.expr)? {
                Atom::Const(_) if tokens::is_generic(&self.b.float) => {
                    let value = self.constant(&c.expr);
                    let float = &self.b.float;
                    Ok(Atom::Const(
                        quote!(::diffx::__private::cast::<#float, _>(#value)),
                    ))
                }
                Atom::Const(_) => Ok(self.constant_atom(e)),
                a => Ok(a),
            };
        }
        if !matches!(target.as_str(), "f32" | "f64") {
            return Ok(self.constant_atom(e));
        }
        err(
            c.ty.span(),
            format!(
                "casting a differentiable value to `{target}` is not supported: this function computes in `{}`; use that type throughout",
                self.b.float
            ),
        )
    }

    fn method(&mut self, m: &syn::ExprMethodCall, e: &Expr) -> syn::Result<Atom> {
        let name = m.method.to_string();
        if rules::PIECEWISE_CONSTANT.contains(&name.as_str()) {
            return Ok(self.constant_atom(e));
        }
        if name == "clone" && m.args.is_empty() {
            // (Of a value of the user's type behind a reference, a copy: the value itself.)
            let value = self.expr(&m.receiver)?;
            return Ok(match self.own_type(&value) {
                true => self.dereferenced(value, m.method.span()),
                false => value,
            });
        }
        if is_self(&m.receiver) && rules::find_method(&name, false).is_none() {
            // `self.g(x)`: another `#[autodiff]` method of the same `impl`, called through its
            // derivative methods (`adapt/methods.rs` writes `self.__diffx_vjp_g(…)`).
            let (method, args) = (&m.method, &m.args);
            let this = Ident::new(names::SELF_PARAM, m.method.span());
            let call: syn::ExprCall =
                syn::parse_quote_spanned!(m.method.span()=> #this::#method(#args));
            return self.call(&call, e);
        }
        let before = self.b.func.body.len();
        let receiver = self.expr(&m.receiver)?;
        if let (Atom::Field(..), Some(read)) = (&receiver, option_read(m)) {
            return self.expr(&read);
        }
        if self.user_value(&receiver, &name) || self.user_method(&receiver, &name) {
            // `e.det()` of a value of the user's type: its `#[autodiff(wrt(self))]` method,
            // called through its derivative methods (`emit::call`) on the receiver as lowered.
            let mut args = vec![receiver];
            for a in &m.args {
                args.push(self.call_arg(a)?);
            }
            let span = m.method.span();
            let (marker, method) = (Ident::new(names::METHOD, span), &m.method);
            let path: syn::Path = syn::parse_quote_spanned!(span=> #marker::#method);
            let kind = self.b.call_kind;
            return Ok(Atom::Var(self.b.op_of_kind(
                Op::Call(path),
                args,
                span,
                kind,
            )));
        }
        let tensor = match self.b.func.atom_kind(&receiver) {
            _ if receiver.var().is_none() => false,
            Kind::Scalar => false,
            // (Where every value is a number, `Func::numbers`, a field's method is a number's.)
            Kind::Other => !self.b.func.numbers,
            _ => true,
        };
        // A float method's row on a value known to be a tensor, where tensors lack the method.
        let known_tensor = self.b.func.atom_kind(&receiver) == Kind::Tensor;
        let rule = rules::find_method(&name, tensor).filter(|r| {
            !known_tensor || r.syntax == rules::Syntax::TensorMethod || r.tensors.method
        });
        let rule = match rule {
            Some(r) => r,
            None => {
                let of = if known_tensor { " for tensors" } else { "" };
                return err(
                    m.method.span(),
                    format!(
                        "`{name}` has no derivative rule{of} in `#[autodiff]`; the differentiable methods{of} are: {}. \
                         To use the value without its derivative, write `diffx::stop_gradient(…)` around it",
                        rules::method_names(tensor)
                    ),
                );
            }
        };
        let mut args = vec![receiver];
        for a in &m.args {
            args.push(self.expr(a)?);
        }
        self.check_arity(rule, args.len(), m.method.span())?;
        if args.iter().all(|a| a.var().is_none()) && rule.syntax == rules::Syntax::Method {
            // In path form: `(3.0).ln()` alone would leave Rust to guess the literal's type.
            let (float, method) = (&self.b.float, &m.method);
            let args = args.iter().map(|a| operands::place(&self.b.func, a));
            return Ok(Atom::Const(quote!(#float::#method(#(#args),*))));
        }
        self.apply_or_fold(rule, args, e, before)
    }

    /// Whether `receiver.name(…)` calls a method of the user's type: the receiver is a
    /// differentiable value the macro reads by place (a parameter struct or a part of one) and
    /// `name` is no float or tensor method.
    fn user_method(&self, receiver: &Atom, name: &str) -> bool {
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
    fn user_value(&mut self, receiver: &Atom, name: &str) -> bool {
        let Atom::Var(v) = receiver else { return false };
        // (The cheap test first: the walk is over the whole list so far.)
        let rule =
            rules::find_method(name, false).is_some() || rules::find_method(name, true).is_some();
        !rule && self.returned_own_value(*v)
    }

    /// A call: a function of the rule table (`sigmoid(x)`, `f64::sin(x)`), a constant, or another
    /// `#[autodiff]` function, called through its derivative functions.
    fn call(&mut self, c: &syn::ExprCall, e: &Expr) -> syn::Result<Atom> {
        let before = self.b.func.body.len();
        let vector = std::mem::take(&mut self.vector_call);
        let tuple = std::mem::take(&mut self.tuple_call);
        let Expr::Path(fp) = &*c.func else {
            return err(c.func.span(), "call a function by its name or path here");
        };
        let path = &fp.path;
        let last = path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if rules::CONSTANT_FUNCTIONS.contains(&last.as_str()) && is_runtime_path(path) {
            return Ok(self.constant_atom(e));
        }
        // `f64::floor(x)`: piecewise constant in path form too.
        if rules::PIECEWISE_CONSTANT.contains(&last.as_str()) && float_path(path, &self.b.float) {
            return Ok(self.constant_atom(e));
        }
        let mut args = Vec::new();
        for a in &c.args {
            args.push(self.call_arg(a)?);
        }
        if let Some(rule) = function_rule(path, &self.b.float) {
            self.check_arity(rule, args.len(), path.span())?;
            // These functions take numbers: a parameter struct's field (or a value computed from
            // one) passed to one is a number.
            let args = args
                .into_iter()
                .map(|a| match a {
                    Atom::Field(..) | Atom::Var(_) if self.b.func.atom_kind(&a) == Kind::Other => {
                        Atom::Var(
                            self.b
                                .op_of_kind(Op::Id, vec![a], path.span(), Kind::Scalar),
                        )
                    }
                    a => a,
                })
                .collect();
            return self.apply_or_fold(rule, args, e, before);
        }
        if path
            .get_ident()
            .is_some_and(|i| self.lookup(&i.to_string()).is_some())
        {
            return err(path.span(), "calling a local value is not supported: write a separate `#[autodiff]` function and call it");
        }
        let kind = match vector {
            true => Kind::Slice,
            false => self.b.call_kind,
        };
        let parts = parts_path(path);
        let own_value = self.returns_self(path);
        let mut path = path.clone();
        if let (true, Some(last)) = (tuple, path.segments.last_mut()) {
            last.ident = names::array(&last.ident);
        }
        // (With a function argument, the callee's version taking it with its partials.)
        let functions = c.args.iter().any(|a| self.function_argument(a).is_some());
        if let (true, Some(last)) = (functions, path.segments.last_mut()) {
            last.ident = names::with_partials(&last.ident);
        }
        let v = self
            .b
            .op_of_kind(Op::Call(path.clone()), args, path.span(), kind);
        if vector {
            // Read element by element, as a local vector is.
            self.vectors.insert(v);
        }
        if tuple {
            self.tuple_values.insert(v, parts);
        }
        if own_value {
            self.b.func.vars[v.0].kind = Kind::Other;
            self.b.func.own_values.push(v);
        }
        Ok(Atom::Var(v))
    }

    /// A function of the derivative table passed by path (`f64::add`, `f64::max`), as a callee's
    /// function parameter takes it in derivative code: with its partials
    /// (`diffx::with_partials(f64::max, |a, b, z| [∂a, ∂b])`, see `adapt/functions.rs`).
    fn function_argument(&self, a: &Expr) -> Option<TokenStream> {
        let Expr::Path(p) = a else { return None };
        let float = &self.b.float;
        if p.qself.is_some() || !float_path(&p.path, float) {
            return None;
        }
        let name = p.path.segments.last()?.ident.to_string();
        let rule = rules::find_method(&name, false)
            .filter(|r| r.syntax == rules::Syntax::Method)
            .or_else(|| {
                rules::find(&name).filter(|r| matches!(r.syntax, rules::Syntax::Infix(_)))
            })?;
        let rules::Deriv::Partials(partials) = rule.deriv else {
            return None;
        };
        if !(1..=2).contains(&partials.len()) || partials.iter().any(|d| d.is_empty()) {
            return None;
        }
        let operands: Vec<Ident> = ["a", "b"][..partials.len()]
            .iter()
            .map(|n| Ident::new(n, p.span()))
            .collect();
        let z = Ident::new("z", p.span());
        let bindings: Vec<(&str, TokenStream)> = ["a", "b", "z"]
            .iter()
            .map(|n| (*n, Ident::new(n, p.span()).to_token_stream()))
            .collect();
        let written = partials
            .iter()
            .map(|d| template::write(d, float, &bindings).ok())
            .collect::<Option<Vec<_>>>()?;
        let (path, n) = (&p.path, partials.len());
        let floats = vec![float; n];
        // (As function pointers: the argument is written again at each use, one type each time.)
        Some(quote! {
            ::diffx::with_partials(
                #path as fn(#(#floats),*) -> #float,
                (|#(#operands: #float,)* #z: #float| [#(#written),*]) as fn(#(#floats,)* #float) -> [#float; #n],
            )
        })
    }

    /// Whether `path` (`Self::f`, `KM::f`) names a function of the `impl` block that returns
    /// the block's type.
    fn returns_self(&self, path: &syn::Path) -> bool {
        let [ty, f] = path.segments.iter().collect::<Vec<_>>()[..] else {
            return false;
        };
        let own = ty.ident == "Self" || Some(&ty.ident) == self.self_type.as_ref();
        own && self.returning_self.contains(&f.ident)
    }

    /// An argument of a call, lowered: a local vector passed by value goes as a copy of its own, a
    /// field passed by value as a number.
    fn call_arg(&mut self, a: &Expr) -> syn::Result<Atom> {
        if let Some(f) = self.function_argument(a) {
            return Ok(Atom::Const(f));
        }
        // `&g(…)` passed on: a call's vector, by reference.
        self.vector_call = self.b.call_kind == Kind::Scalar
            && matches!(a, Expr::Reference(r) if matches!(&*r.expr, Expr::Call(_)));
        let mut arg = self.expr(a)?;
        self.vector_call = false;
        // (A loop's element bound by reference, `layer` of `for layer in &model.layers`, is a
        // reference already.)
        let bound_by_ref = matches!(a, Expr::Path(p)
            if p.path.get_ident().is_some_and(|i| self.refs.contains(&i.to_string())));
        let by_value = !matches!(a, Expr::Reference(_)) && !bound_by_ref;
        match &arg {
            // A local vector passed by value (`g(p)` for `p: [f64; 2]`) goes as a copy of its
            // own, so that `h(&p)` elsewhere still passes a reference.
            Atom::Var(v)
                if by_value
                    && self.b.func.kind(*v) == Kind::Slice
                    && !self.b.func.vars[v.0].is_ref =>
            {
                let copy = self.b.op_of_kind(Op::Id, vec![arg], a.span(), Kind::Slice);
                self.b.func.vars[copy.0].by_value = true;
                arg = Atom::Var(copy);
            }
            // A value of a type the macro cannot see passed by value (`from_matrix(m)`) goes as
            // a copy of its own too, so that `g(&m)` elsewhere still passes a reference.
            Atom::Var(v)
                if by_value
                    && self.b.func.kind(*v) == Kind::Other
                    && !self.b.func.vars[v.0].is_ref
                    && self.param_types.contains_key(v) =>
            {
                let copy = self.b.op_of_kind(Op::Id, vec![arg], a.span(), Kind::Other);
                self.b.func.vars[copy.0].by_value = true;
                arg = Atom::Var(copy);
            }
            Atom::Var(v) if by_value => self.b.func.vars[v.0].by_value = true,
            _ => {}
        }
        if by_value && matches!(arg, Atom::Field(..)) && self.b.func.atom_kind(&arg) == Kind::Other
        {
            // A field passed by value is `Copy`: a number (a tensor would be moved out).
            arg = Atom::Var(self.b.op_of_kind(Op::Id, vec![arg], a.span(), Kind::Scalar));
        }
        Ok(arg)
    }

    fn check_arity(&self, rule: &Rule, n: usize, span: Span) -> syn::Result<()> {
        if rule.arity() == n {
            Ok(())
        } else {
            err(
                span,
                format!(
                    "`{}` takes {} operand(s) here, found {n}",
                    rule.name,
                    rule.arity()
                ),
            )
        }
    }

    /// `rule(args)` as a new value, or as a constant if no operand is differentiable: as written,
    /// unless lowering the operands (since the body had `before` statements) kept some of them in
    /// locals where they are read (see [`Self::snapshot`]); then from the operands, so that a
    /// `stack.pop()` among them runs once.
    pub(super) fn apply_or_fold(
        &mut self,
        rule: &'static Rule,
        args: Vec<Atom>,
        e: &Expr,
        before: usize,
    ) -> syn::Result<Atom> {
        if args.iter().all(|a| a.var().is_none()) {
            return Ok(Atom::Const(match self.b.func.body.len() > before {
                true => self.folded(rule, &args),
                false => self.constant(e),
            }));
        }
        Ok(Atom::Var(self.b.op(Op::Rule(rule), args, first_span(e))))
    }

    /// `rule` applied to constant operands, written from them.
    fn folded(&self, rule: &Rule, args: &[Atom]) -> TokenStream {
        let a: Vec<TokenStream> = args
            .iter()
            .map(|a| tokens::grouped(operands::place(&self.b.func, a)))
            .collect();
        let (op, m) = (rule.operator(), Ident::new(rule.name, Span::call_site()));
        match (&rule.syntax, a.as_slice()) {
            (rules::Syntax::Infix(_), [l, r]) => quote!(#l #op #r),
            (rules::Syntax::Prefix(_), [x]) => quote!(#op #x),
            (rules::Syntax::Method, _) => {
                let float = &self.b.float;
                quote!(#float::#m(#(#a),*))
            }
            (rules::Syntax::Func(path), _) => {
                let path = template::path(path);
                quote!(#path(#(#a),*))
            }
            (_, [recv, rest @ ..]) => quote!(#recv.#m(#(&#rest),*)),
            _ => quote!(#m()),
        }
    }
}

/// The span of `e`'s first token, which is what `e.span()` gives on stable Rust (where spans do
/// not join), found without writing `e` out as tokens: at every node of a long expression that
/// made lowering quadratic in its length.
fn first_span(e: &Expr) -> Span {
    let mut e = e;
    loop {
        e = match e {
            Expr::Binary(b) => &b.left,
            Expr::MethodCall(m) => &m.receiver,
            Expr::Field(f) => &f.base,
            Expr::Index(i) => &i.expr,
            Expr::Cast(c) => &c.expr,
            Expr::Call(c) => &c.func,
            Expr::Paren(p) => return p.paren_token.span.open(),
            Expr::Unary(u) => return u.op.span(),
            Expr::Lit(l) => return l.lit.span(),
            Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => {
                return match (&p.path.leading_colon, p.path.segments.first()) {
                    (Some(c), _) => c.spans[0],
                    (None, Some(s)) => s.ident.span(),
                    (None, None) => e.span(),
                }
            }
            _ => return e.span(),
        };
    }
}

fn rule(name: &str) -> &'static Rule {
    rules::find(name).expect("arithmetic rules are in the table")
}

/// `a op= b` as (rule, operator).
/// `l op r` of constants, each operand in parentheses where it is more than a token (`v[0] /= 1.0
/// + a` is `v[0] / (1.0 + a)`).
pub(super) fn infix(rule: &Rule, l: &TokenStream, r: &TokenStream) -> TokenStream {
    let (op, l, r) = (
        rule.operator(),
        tokens::grouped(l.clone()),
        tokens::grouped(r.clone()),
    );
    quote!(#l #op #r)
}

pub(super) fn compound(op: &BinOp) -> Option<(&'static Rule, &'static str)> {
    match op {
        BinOp::AddAssign(_) => Some((rule("add"), "+=")),
        BinOp::SubAssign(_) => Some((rule("sub"), "-=")),
        BinOp::MulAssign(_) => Some((rule("mul"), "*=")),
        BinOp::DivAssign(_) => Some((rule("div"), "/=")),
        _ => None,
    }
}

/// `sigmoid`, `diffx::sigmoid`, `::diffx::sigmoid`, `diffx_runtime::sigmoid`.
fn is_runtime_path(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    segs.len() == 1 || (segs.len() == 2 && matches!(segs[0].as_str(), "diffx" | "diffx_runtime"))
}

/// Whether `e` is `self`.
pub(super) fn is_self(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.path.is_ident("self"))
}

/// Whether `path` is a float method in path form: `f64::sin`, `T::sin` where the function
/// computes in the type parameter `T`, or the trait's `Float::sin`, `num_traits::Float::sin`.
fn float_path(path: &syn::Path, float: &Ident) -> bool {
    let n = path.segments.len();
    n >= 2 && {
        let owner = &path.segments[n - 2].ident;
        owner == "Float" || n == 2 && (owner == "f64" || owner == "f32" || owner == float)
    }
}

/// The rule for `f64::sin(x)`-style paths and the runtime's functions.
fn function_rule(path: &syn::Path, float: &Ident) -> Option<&'static Rule> {
    let last = path.segments.last()?.ident.to_string();
    if float_path(path, float) {
        return rules::find_method(&last, false).filter(|r| r.syntax == rules::Syntax::Method);
    }
    rules::find_function(&last).filter(|_| is_runtime_path(path))
}

/// `p.offset.unwrap()` (or `expect`) and `p.offset.unwrap_or(v)` of an optional field: its value
/// as the place `p.offset[Inner]` (see `desugar/options.rs`), in an `if` for `unwrap_or`.
fn option_read(m: &syn::ExprMethodCall) -> Option<Expr> {
    let r = &m.receiver;
    let marker = crate::names::option_inner();
    let inner = quote!(#r[#marker]);
    match (m.method.to_string().as_str(), m.args.first()) {
        ("unwrap" | "expect", _) => Some(syn::parse_quote_spanned!(m.method.span()=> #inner)),
        ("unwrap_or", Some(v)) => Some(syn::parse_quote_spanned!(m.method.span()=>
            if #r.is_some() { #inner } else { #v }
        )),
        _ => None,
    }
}

/// The const holding where the parts of `f`'s tuple result start in its array version, by the
/// path of `f` (`m::__DIFFX_PARTS_f`, `Self::__DIFFX_PARTS_f` for a method called `self.f(…)`).
fn parts_path(path: &syn::Path) -> TokenStream {
    let mut p = path.clone();
    if p.segments
        .first()
        .is_some_and(|s| s.ident == names::SELF_PARAM)
    {
        p.segments[0].ident = Ident::new("Self", p.segments[0].ident.span());
    }
    if let Some(last) = p.segments.last_mut() {
        last.ident = names::parts(&last.ident);
        last.arguments = syn::PathArguments::None;
    }
    quote!(#p)
}
