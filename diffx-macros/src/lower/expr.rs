//! Expressions: operators, casts and float methods, each differentiable operation a row of the
//! rule table applied to its lowered operands (or folded into a constant when none of them is
//! differentiable). Calls are in `calls.rs`, values of the user's own types in `own.rs`.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, UnOp};

use super::messages::{err, reject, unsupported};
use super::Lowerer;
use crate::ir::{operands, Atom, Code, Kind, Op};
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
                // (A literal, negated or not, names nothing and reads no vector:
                // `constant_atom` would give its tokens back after walking them twice.)
                (_, Expr::Lit(_)) => return Ok(Atom::Const(Code::literal(e.to_token_stream()))),
                (_, Expr::Unary(u))
                    if matches!(u.op, UnOp::Neg(_)) && matches!(&*u.expr, Expr::Lit(_)) =>
                {
                    return Ok(Atom::Const(Code::literal(e.to_token_stream())))
                }
                _ => {}
            }
            return Ok(self.constant_atom(e));
        }
        match e {
            Expr::Path(p) => match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                Some(a) => Ok(a.clone()),
                None => Ok(Atom::constant(self.constant(e))),
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
        let to = |float: &dyn Fn(&Ident) -> bool| matches!(&*c.ty, syn::Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(float));
        if to(&|t| *t == self.b.float) {
            // A differentiable value of the function's own type casts to itself; anything else
            // (`x.len() as f64`) is a constant that keeps its cast, which for a type parameter
            // (`b as T` of a rule) is a conversion.
            return match self.expr(&c.expr)? {
                Atom::Const(_) if tokens::is_generic(&self.b.float) => {
                    let value = self.constant(&c.expr);
                    let float = &self.b.float;
                    Ok(Atom::constant(
                        quote!(::diffx::__private::cast::<#float, _>(#value)),
                    ))
                }
                Atom::Const(_) => Ok(self.constant_atom(e)),
                a => Ok(a),
            };
        }
        if !to(&|t| t == "f32" || t == "f64") {
            return Ok(self.constant_atom(e));
        }
        let target = c.ty.to_token_stream();
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
            // derivative methods (`emit/stmt.rs::call` writes `self.__diffx_vjp_g(…)`).
            let (method, args) = (&m.method, &m.args);
            let this = Ident::new(names::SELF_PARAM, m.method.span());
            let call: syn::ExprCall =
                syn::parse_quote_spanned!(m.method.span()=> #this::#method(#args));
            return self.call(&call, e);
        }
        let before = self.b.func.body.len();
        let receiver = self.expr(&m.receiver)?;
        // (Only a field is read as an option: its receiver is written out only then.)
        if let Atom::Field(..) = receiver {
            if let Some(read) = option_read(m) {
                return self.expr(&read);
            }
        }
        if self.user_value(&receiver, &name) || self.user_method(&receiver, &name) {
            return self.own_method(m, receiver);
        }
        let rule = self.method_rule(m, &name, &receiver)?;
        let mut args = vec![receiver];
        for a in &m.args {
            args.push(self.expr(a)?);
        }
        self.check_arity(rule, args.len(), m.method.span())?;
        if args.iter().all(|a| a.var().is_none()) && rule.syntax == rules::Syntax::Method {
            // In path form: `(3.0).ln()` alone would leave Rust to guess the literal's type.
            let (float, method) = (&self.b.float, &m.method);
            let args = args.iter().map(|a| operands::place(&self.b.func, a));
            return Ok(Atom::constant(quote!(#float::#method(#(#args),*))));
        }
        self.apply_or_fold(rule, args, e, before)
    }

    /// `e.det()` of a value of the user's type: its `#[autodiff(wrt(self))]` method, called
    /// through its derivative methods (`emit::call`) on the receiver as lowered.
    fn own_method(&mut self, m: &syn::ExprMethodCall, receiver: Atom) -> syn::Result<Atom> {
        let mut args = vec![receiver];
        for a in &m.args {
            args.push(self.call_arg(a)?);
        }
        let span = m.method.span();
        let (marker, method) = (Ident::new(names::METHOD, span), &m.method);
        let path: syn::Path = syn::parse_quote_spanned!(span=> #marker::#method);
        let kind = self.b.call_kind;
        Ok(Atom::Var(self.b.op_of_kind(
            Op::Call(path),
            args,
            span,
            kind,
        )))
    }

    /// The rule of the method `name` on `receiver`: a number's or a tensor's, refused with the
    /// list of differentiable methods if there is none.
    fn method_rule(
        &self,
        m: &syn::ExprMethodCall,
        name: &str,
        receiver: &Atom,
    ) -> syn::Result<&'static Rule> {
        let tensor = match self.b.func.atom_kind(receiver) {
            _ if receiver.var().is_none() => false,
            Kind::Scalar => false,
            // (Where every value is a number, `Func::numbers`, a field's method is a number's.)
            Kind::Other => !self.b.func.numbers,
            _ => true,
        };
        // A float method's row on a value known to be a tensor, where tensors lack the method.
        let known_tensor = self.b.func.atom_kind(receiver) == Kind::Tensor;
        let rule = rules::find_method(name, tensor).filter(|r| {
            !known_tensor || r.syntax == rules::Syntax::TensorMethod || r.tensors.method
        });
        match rule {
            Some(r) => Ok(r),
            None => {
                let of = if known_tensor { " for tensors" } else { "" };
                err(
                    m.method.span(),
                    format!(
                        "`{name}` has no derivative rule{of} in `#[autodiff]`; the differentiable methods{of} are: {}. \
                         To use the value without its derivative, write `diffx::stop_gradient(…)` around it",
                        rules::method_names(tensor)
                    ),
                )
            }
        }
    }

    pub(super) fn check_arity(&self, rule: &Rule, n: usize, span: Span) -> syn::Result<()> {
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
            return Ok(Atom::constant(match self.b.func.body.len() > before {
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

/// Whether `e` is `self`.
pub(super) fn is_self(e: &Expr) -> bool {
    matches!(e, Expr::Path(p) if p.path.is_ident("self"))
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
