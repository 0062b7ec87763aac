//! The body of `explain_f`: the function's own Wengert list with a recording call after each value.
//!
//! The list is copied statement by statement, nested arms and loop bodies included; after each
//! `Let` come its local partial derivatives, lowered from the rule table as both modes lower them,
//! and a call appending its row (`Recorder::operation`) with an edge from the row of each operand.
//! The values of loop cells and `if` outputs are bound to the rows written into them
//! (`Recorder::bind`); loops and arms also tell the recorder where the rows are (`i = 3`,
//! `s > 1.0`). Nothing here needs the tangent or adjoint programs: the recorder runs forward and
//! reverse mode over the rows as they come.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::parts::TupleNames;
use super::pretty_expr;
use crate::builder::Builder;
use crate::emit;
use crate::ir::operands::place;
use crate::ir::{Atom, Branch, ControlId, Func, Kind, LoopHead, Op, Stmt, Var};
use crate::lower::partials;
use crate::rules::Deriv;
use crate::tokens;

/// Whether every statement and operand of `f` can be recorded: scalar values computed by rules
/// with partial derivatives, copies, calls with scalar arguments, slices read and local vectors
/// written element by element, and the control flow around them.
pub fn recordable(f: &Func) -> bool {
    let mut ok = f.ret.as_ref().is_none_or(|r| scalar(f, r));
    for s in &f.body {
        s.walk(&mut |s| ok &= stmt_recordable(f, s));
    }
    ok
}

fn stmt_recordable(f: &Func, s: &Stmt) -> bool {
    let all = |atoms: &[Atom], test: &dyn Fn(&Atom) -> bool| atoms.iter().all(test);
    let value = |v: &Var| matches!(f.kind(*v), Kind::Scalar | Kind::Slice);
    let yields = |b: &Branch, outs: &[Var]| {
        outs.iter().zip(&b.yields).all(|(o, y)| match f.kind(*o) {
            Kind::Scalar => scalar(f, y),
            _ => vector(f, y),
        })
    };
    match s {
        Stmt::Let { dst, op, args, .. } => match (f.kind(*dst), op) {
            (Kind::Scalar, Op::Rule(r)) => {
                matches!(r.deriv, Deriv::Partials(_)) && all(args, &|a| scalar(f, a))
            }
            (Kind::Scalar, Op::Call(_) | Op::Id) => all(args, &|a| scalar(f, a)),
            (Kind::Slice, Op::Id) => all(args, &|a| vector(f, a)),
            _ => false,
        },
        Stmt::If {
            then_, else_, outs, ..
        } => outs.iter().all(value) && yields(then_, outs) && yields(else_, outs),
        Stmt::Loop { cells, body, .. } => cells.iter().all(value) && yields(body, cells),
        Stmt::SetElem { vec, value, .. } | Stmt::Push { vec, value, .. } => {
            f.kind(*vec) == Kind::Slice && scalar(f, value)
        }
        Stmt::Const { .. } | Stmt::Verbatim { .. } | Stmt::Item(_) => true,
        _ => false,
    }
}

/// A scalar operand: a scalar value, an element `x[i]` of a vector, or a constant.
fn scalar(f: &Func, a: &Atom) -> bool {
    match a {
        Atom::Var(v) => f.kind(*v) == Kind::Scalar,
        Atom::Field(v, path) => f.kind(*v) == Kind::Slice && path.only_index().is_some(),
        Atom::Const(_) => true,
    }
}

/// A vector operand: a vector value, or a constant.
fn vector(f: &Func, a: &Atom) -> bool {
    match a {
        Atom::Var(v) => f.kind(*v) == Kind::Slice,
        Atom::Field(..) => false,
        Atom::Const(_) => true,
    }
}

/// Every loop cell of `f`.
fn loop_cells(f: &Func) -> HashSet<Var> {
    let mut cells = HashSet::new();
    for s in &f.body {
        s.walk(&mut |s| {
            if let Stmt::Loop { cells: c, .. } = s {
                cells.extend(c.iter().copied());
            }
        });
    }
    cells
}

/// The element each value written into a vector goes into, as written: `s[0]`.
fn elements_written(f: &Func) -> HashMap<Var, String> {
    let mut out = HashMap::new();
    for s in &f.body {
        s.walk(&mut |s| {
            if let Stmt::SetElem {
                vec,
                index,
                value: Atom::Var(v),
                ..
            } = s
            {
                let name = f.name(*vec);
                let index = crate::tokens::unsuffixed(index.tokens().clone());
                let element = super::pretty_expr(&quote!(#name[#index]));
                out.insert(*v, element);
            }
        });
    }
    out
}

/// Copies a list into a builder, recording as it goes.
pub struct Instrument<'a> {
    /// The recorder, `__rec`.
    pub(super) rec: Ident,
    /// The function's float type.
    pub(super) float: Ident,
    /// Whether values may be tensors or of types the macro cannot see (see `tensors`): then every
    /// value is recorded through the runtime's `Value`.
    pub(super) values: bool,
    /// The fields of parameter structs the function reads at constant paths, in the recorder's
    /// order.
    pub(super) fields: Vec<Atom>,
    /// The tangent of each parameter struct, `model_dot`: its fields are the fields' tangents.
    pub(super) struct_tangents: HashMap<Var, Ident>,
    /// The gradient of a call, `__g`, read for its partials.
    grads: Ident,
    /// The function's own list, for names and kinds.
    pub(super) primal: &'a Func,
    /// The bindings analysis renamed apart, with the user's names: code is shown with those.
    shown_as: &'a BTreeMap<String, String>,
    /// Every constant local seen so far: `cond = s > 1.0` labels the arms of an `if`.
    consts: HashMap<String, TokenStream>,
    /// The identifiers of the user's function: the other names in a condition were generated
    /// (the `scrutinee` of a `match`) and are shown as what they stand for.
    user: BTreeSet<String>,
    /// Values that are reads of a vector's element (`t12 = y[i]`): no rows of their own, so
    /// expressions show the element instead (`y[i] * y[i]`, not `t12 * t13`).
    reads: HashMap<Var, Atom>,
    /// Loop cells: a cell initialized from an element changes, so it is no read.
    cells: HashSet<Var>,
    /// The parts of calls' tuple results that the user named (`let (r, t) = polar(x, y);`).
    pub(super) parts: HashMap<Var, TupleNames>,
    /// The element each value written into one is written into, `s[0]`.
    elements_written: HashMap<Var, String>,
}

impl<'a> Instrument<'a> {
    pub fn new(
        rec: Ident,
        float: Ident,
        primal: &'a Func,
        mut user: BTreeSet<String>,
        shown_as: &'a BTreeMap<String, String>,
    ) -> Self {
        // (A binding renamed apart is the user's too.)
        user.extend(shown_as.keys().cloned());
        let parts = super::parts::named_parts(primal, &user);
        Instrument {
            rec,
            float,
            values: false,
            fields: Vec::new(),
            struct_tangents: HashMap::new(),
            grads: Ident::new("__g", Span::mixed_site()),
            primal,
            shown_as,
            consts: HashMap::new(),
            user,
            reads: HashMap::new(),
            cells: loop_cells(primal),
            parts,
            elements_written: elements_written(primal),
        }
    }

    /// Code as the learner reads it: formatted on one line, each binding analysis renamed apart
    /// under the user's name.
    pub(super) fn pretty(&self, e: &TokenStream) -> String {
        let e = crate::tokens::substitute(e.clone(), &mut |id| {
            let user = self.shown_as.get(&id.to_string())?;
            Some(quote::ToTokens::into_token_stream(Ident::new(
                user,
                id.span(),
            )))
        });
        pretty_expr(&e)
    }

    /// The name of the row of `dst`: its own, but for a value the macro named that is written
    /// into an element (`y[0]` of `let y = [x[0] - h * g[0], …];`), or a call's tuple result whose
    /// parts the user named (`(r, t)`).
    pub(super) fn row_name(&self, dst: Var) -> String {
        let own = self.primal.name(dst).to_string();
        if let Some(parts) = self.parts.get(&dst) {
            return parts.row_name();
        }
        if !self.user.contains(&own) {
            if let Some(element) = self.elements_written.get(&dst) {
                return element.clone();
            }
        }
        own
    }

    /// An operand as an expression shows it: an element read, as the element.
    pub fn shown(&self, a: &Atom) -> Atom {
        let shown = match a {
            Atom::Var(v) => self.reads.get(v).cloned().unwrap_or_else(|| a.clone()),
            _ => a.clone(),
        };
        // A part of a call's tuple result, as the user named it (`p[1]`).
        match &shown {
            Atom::Field(v, path) => self
                .parts
                .get(v)
                .and_then(|p| p.shown(path))
                .unwrap_or(shown),
            _ => shown,
        }
    }

    /// `tokens` as a statement of the list.
    pub(super) fn record(tokens: TokenStream) -> Stmt {
        Stmt::Verbatim {
            binds: Vec::new(),
            tokens: tokens.into(),
        }
    }

    /// The index of `v` in the recorder's tables.
    pub(super) fn key(v: Var) -> proc_macro2::Literal {
        proc_macro2::Literal::usize_unsuffixed(v.0)
    }

    /// The row of a scalar operand now, as an `Option<usize>` expression.
    pub fn source(&self, a: &Atom) -> TokenStream {
        let rec = &self.rec;
        match (a, a.var().map(Self::key)) {
            (Atom::Var(_), Some(k)) => quote!(#rec.value(#k)),
            (Atom::Field(v, path), Some(k)) if self.primal.kind(*v) == Kind::Slice => {
                match path.only_index() {
                    Some(i) => quote!(#rec.element(#k, #i)),
                    None => quote!(::core::option::Option::None),
                }
            }
            (Atom::Field(..), _) if self.runtime_field(a) => self.field_source(a),
            (Atom::Field(..), _) => match self.fields.iter().position(|x| x.same(a)) {
                Some(j) => quote!(#rec.field(#j)),
                None => quote!(::core::option::Option::None),
            },
            _ => quote!(::core::option::Option::None),
        }
    }

    /// The rows of a vector operand's elements now, as a `Vec<Option<usize>>` expression.
    fn sources(&self, a: &Atom) -> TokenStream {
        let rec = &self.rec;
        match a {
            Atom::Var(v) => {
                let k = Self::key(*v);
                quote!(#rec.elements(#k))
            }
            _ => quote!(::std::vec::Vec::new()),
        }
    }

    /// Appends `list`, instrumented, to the builder's current list.
    pub fn list(&mut self, b: &mut Builder, list: &[Stmt]) -> syn::Result<()> {
        for s in list {
            self.stmt(b, s)?;
        }
        Ok(())
    }

    /// `list` instrumented as a list of its own (an arm, a body), between `before` and `after`.
    fn nested(
        &mut self,
        b: &mut Builder,
        before: Vec<Stmt>,
        list: &[Stmt],
        after: Vec<Stmt>,
    ) -> syn::Result<Vec<Stmt>> {
        let outer = std::mem::replace(&mut b.func.body, before);
        let result = self.list(b, list);
        let mut inner = std::mem::replace(&mut b.func.body, outer);
        result?;
        inner.extend(after);
        Ok(inner)
    }

    fn stmt(&mut self, b: &mut Builder, s: &Stmt) -> syn::Result<()> {
        let read: &[Atom] = match s {
            Stmt::Let { args, .. } => args,
            Stmt::SetElem { value, .. } | Stmt::Push { value, .. } => std::slice::from_ref(value),
            _ => &[],
        };
        for touch in self.touches(read) {
            b.push(touch);
        }
        match s {
            Stmt::Let { dst, op, args, .. } => {
                b.push(s.clone());
                self.let_stmt(b, *dst, op, args)
            }
            Stmt::If {
                id,
                cond,
                then_,
                else_,
                outs,
            } => self.if_stmt(b, *id, cond, then_, else_, outs),
            Stmt::Loop { .. } => self.loop_stmt(b, s),
            Stmt::SetElem {
                vec, index, value, ..
            } => {
                b.push(s.clone());
                let (rec, k, row) = (&self.rec, Self::key(*vec), self.source(value));
                b.push(Self::record(quote!(#rec.set_element(#k, #index, #row);)));
                Ok(())
            }
            // A pushed element is the new last one.
            Stmt::Push { vec, value, .. } => {
                b.push(s.clone());
                let (rec, k, row) = (&self.rec, Self::key(*vec), self.source(value));
                let v = self.primal.name(*vec).clone();
                b.push(Self::record(
                    quote!(#rec.set_element(#k, #v.len() - 1, #row);),
                ));
                Ok(())
            }
            Stmt::Const { name, expr, .. } => {
                self.consts.insert(name.to_string(), expr.tokens().clone());
                b.push(s.clone());
                Ok(())
            }
            _ => {
                b.push(s.clone());
                Ok(())
            }
        }
    }

    /// After `dst = op(args)`: its row, or for a copy, the copied row.
    fn let_stmt(&mut self, b: &mut Builder, dst: Var, op: &Op, args: &[Atom]) -> syn::Result<()> {
        let (rec, k) = (self.rec.clone(), Self::key(dst));
        let stmt = match (op, args) {
            (Op::Id, [a]) if self.primal.kind(dst) == Kind::Slice => {
                // A copy the macro made (to pass a vector by value) shows as what it copies.
                let generated = !self.user.contains(&self.primal.name(dst).to_string());
                if generated && a.var().is_some() && !self.cells.contains(&dst) {
                    self.reads.insert(dst, self.shown(a));
                }
                let rows = self.sources(a);
                quote!(#rec.bind_vector(#k, #rows);)
            }
            (Op::Id, [a]) => {
                // A part the user named (`r` of `let (r, t) = …`) has a row of that name.
                let own = self.primal.name(dst);
                let named_part = matches!(a, Atom::Field(v, _)
                    if self.parts.get(v).is_some_and(|p| p.names_part(&own.to_string())));
                if matches!(a, Atom::Field(..)) && !self.cells.contains(&dst) && !named_part {
                    self.reads.insert(dst, a.clone());
                }
                let row = self.source(a);
                quote!(#rec.bind(&[(#k, #row)]);)
            }
            (Op::Rule(rule), _) if self.values => self.value_rule(b, dst, rule, args)?,
            (Op::Call(path), _) if self.values => self.value_call(dst, path, args),
            (Op::Rule(rule), _) => {
                let needed: Vec<bool> = args.iter().map(|a| a.var().is_some()).collect();
                let parts = partials(b, rule, args, &Atom::Var(dst), &needed)?;
                let float = &self.float;
                let parts = parts.iter().map(|p| {
                    p.as_ref()
                        .map_or(quote!(::core::option::Option::None), |a| {
                            let p = place(&b.func, a);
                            match a {
                                // (A constant may be a reference, `&f64` of `iter().next()`.)
                                Atom::Const(_) => quote!(::core::option::Option::Some(*::core::borrow::Borrow::<#float>::borrow(&#p))),
                                _ => quote!(::core::option::Option::Some(#p)),
                            }
                        })
                });
                self.operation(dst, op, args, parts.collect())
            }
            (Op::Call(path), _) => self.call(dst, path, args),
            _ => return Ok(()),
        };
        b.push(Self::record(stmt));
        Ok(())
    }

    /// `rec.operation(k, name, expr, value, &[(row of operand, partial, operand), …])`, for the
    /// operands that are values (constants have no row).
    fn operation(&self, dst: Var, op: &Op, args: &[Atom], parts: Vec<TokenStream>) -> TokenStream {
        let f = self.primal;
        let (rec, k) = (&self.rec, Self::key(dst));
        let name = self.row_name(dst);
        let shown: Vec<Atom> = args.iter().map(|a| self.shown(a)).collect();
        let expr = self.pretty(&emit::op_expr(f, dst, op, &shown));
        let value = place(f, &Atom::Var(dst));
        let edges = args
            .iter()
            .zip(parts)
            .filter(|(a, _)| a.var().is_some())
            .map(|(a, p)| {
                let (row, operand) = (self.source(a), self.pretty(&place(f, &self.shown(a))));
                quote!((#row, #p, #operand))
            });
        quote!(#rec.operation(#k, #name, #expr, #value, &[#(#edges),*]);)
    }

    /// A call of another `#[autodiff]` function: its partials are its gradient at the arguments,
    /// from its pullback with the cotangent 1.
    fn call(&self, dst: Var, path: &syn::Path, args: &[Atom]) -> TokenStream {
        let f = self.primal;
        let mut with_ct = args.to_vec();
        with_ct.push(Atom::constant(quote!(1.0)));
        let vjp = Op::Call(emit::derived_path(path, "vjp"));
        let pullback = emit::op_expr(f, dst, &vjp, &with_ct);
        let g = &self.grads;
        let parts = (0..args.len())
            .map(|i| {
                let i = proc_macro2::Literal::usize_unsuffixed(i);
                quote!(::diffx::explain::CallPartial::partial(&#g.#i))
            })
            .collect();
        let record = self.operation(dst, &Op::Call(path.clone()), args, parts);
        quote!({ let #g = #pullback.1; #record })
    }

    /// `rec.bind` of each scalar in `outs` to the row of its operand in `yields`, and
    /// `rec.bind_vector` of each vector: all read before any is written, as a write-back does.
    fn bind_all(&self, outs: &[Var], yields: &[Atom]) -> Vec<Stmt> {
        let rec = &self.rec;
        let (mut scalars, mut vectors) = (Vec::new(), Vec::new());
        for (o, y) in outs.iter().zip(yields) {
            let k = Self::key(*o);
            if self.primal.kind(*o) == Kind::Slice {
                let rows = self.sources(y);
                vectors.push(quote!((#k, #rows)));
            } else {
                let row = self.source(y);
                scalars.push(quote!((#k, #row)));
            }
        }
        let mut stmts = self.touches(yields);
        if !vectors.is_empty() {
            // Before the scalars: a vector's rows are read from the tables as they were.
            stmts.push(Self::record(quote! {
                for (k, rows) in [#(#vectors),*] { #rec.bind_vector(k, rows); }
            }));
        }
        if !scalars.is_empty() {
            stmts.push(Self::record(quote!(#rec.bind(&[#(#scalars),*]);)));
        }
        stmts
    }

    /// The condition of an `if` as written (`s > 1.0`), where it reads as the user's: not the
    /// flags that `break`, `continue` and early `return` are rewritten into.
    fn condition(&self, cond: &Ident) -> Option<String> {
        let expr = match self.consts.get(&cond.to_string()) {
            Some(e) => e.clone(),
            None => quote!(#cond),
        };
        let expr = tokens::substitute(expr, &mut |id| {
            let name = id.to_string();
            let generated = self
                .consts
                .get(&name)
                .filter(|_| !self.user.contains(&name));
            generated.map(|e| tokens::paren(e.clone()))
        });
        let text = self.pretty(&expr).replace("::core::", "");
        (!text.contains(crate::names::PREFIX)).then_some(text)
    }

    fn if_stmt(
        &mut self,
        b: &mut Builder,
        id: ControlId,
        cond: &Ident,
        then_: &Branch,
        else_: &Branch,
        outs: &[Var],
    ) -> syn::Result<()> {
        let label = self.condition(cond);
        let negated = label.as_ref().map(|l| format!("!({l})"));
        let then_body = self.arm(b, then_, outs, label)?;
        let else_body = self.arm(b, else_, outs, negated)?;
        b.push(Stmt::If {
            id,
            cond: cond.clone(),
            then_: Branch {
                body: then_body,
                yields: then_.yields.clone(),
            },
            else_: Branch {
                body: else_body,
                yields: else_.yields.clone(),
            },
            outs: outs.to_vec(),
        });
        Ok(())
    }

    /// An arm: its rows under its condition, then the outputs bound to what it yields.
    fn arm(
        &mut self,
        b: &mut Builder,
        arm: &Branch,
        outs: &[Var],
        label: Option<String>,
    ) -> syn::Result<Vec<Stmt>> {
        let rec = &self.rec;
        let (mut before, mut after) = (Vec::new(), self.bind_all(outs, &arm.yields));
        if let Some(label) = label {
            before.push(Self::record(quote!(#rec.enter_arm(#label);)));
            after.push(Self::record(quote!(#rec.exit_arm();)));
        }
        self.nested(b, before, &arm.body, after)
    }

    /// A loop: each iteration starts with its loop variables, and ends with the cells bound to
    /// the rows of the values written back into them.
    fn loop_stmt(&mut self, b: &mut Builder, s: &Stmt) -> syn::Result<()> {
        let Stmt::Loop {
            id,
            head,
            cells,
            active,
            body,
            tape,
            logs,
        } = s
        else {
            return Ok(());
        };
        let rec = self.rec.clone();
        let vars = match head {
            LoopHead::For { vars, .. } => vars.clone(),
            LoopHead::While { .. } => Vec::new(),
        };
        let shown = vars.iter().map(|v| {
            let name = v.to_string();
            quote!((#name, (&::diffx::explain::Shown(&#v)).shown()))
        });
        let start = Self::record(quote!(#rec.iteration(&[#(#shown),*]);));
        let end = self.bind_all(cells, &body.yields);
        let stmts = self.nested(b, vec![start], &body.body, end)?;
        b.push(Self::record(quote!(#rec.enter_loop();)));
        b.push(Stmt::Loop {
            id: *id,
            head: head.clone(),
            cells: cells.clone(),
            active: active.clone(),
            body: Branch {
                body: stmts,
                yields: body.yields.clone(),
            },
            tape: tape.clone(),
            logs: logs.clone(),
        });
        b.push(Self::record(quote!(#rec.exit_loop();)));
        Ok(())
    }
}
