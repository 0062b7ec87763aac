//! Lowering: the body of a function (syn's AST) to the Wengert list of [`crate::ir`].
//!
//! Every expression that depends on a differentiable input is split into primitive operations from
//! the rule table, one fresh value each; `let` names such a value after the user's variable, and
//! reassignment (`s += x`) binds the name to a new value, so the list never overwrites anything.
//! Expressions that do not depend on the inputs (integer arithmetic, `n as f64`, comparisons) are
//! kept as written, as constants. What cannot be differentiated is a `syn::Error` at its span.

use std::collections::BTreeSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Pat, Stmt as SynStmt, UnOp};

use crate::builder::Builder;
use crate::desugar::{is_never, is_unit};
use crate::ir::{operands, Atom, Index, Kind, Op, Path, Step, Stmt};
use crate::names;
use crate::rules::{self, template, Rule};
use crate::tokens;

mod control;
mod function;

pub use function::function;

/// Lowers statements into a [`Builder`], with the user's names in scope.
pub struct Lowerer<'b> {
    pub b: &'b mut Builder,
    scopes: Vec<Vec<(String, Atom)>>,
    pub errors: Vec<syn::Error>,
    /// How many arms or loop bodies enclose the statement being lowered.
    nesting: usize,
    /// How many loop bodies / `if` arms enclose it.
    loop_depth: usize,
    arm_depth: usize,
    /// Local vectors written element by element, carrying derivatives.
    vectors: std::collections::HashSet<crate::ir::Var>,
    /// Vectors a loop body writes differentiable values into while they are still constants: the
    /// loop is lowered again with them made differentiable before it.
    pending: Vec<String>,
    /// The first scope of the innermost arm or loop body (0 at top level): a name declared at or
    /// after it lives only there.
    local_from: usize,
    /// Loop elements bound by reference (`for e in w.iter()`): in code kept as written they
    /// stand for `(&w[i])`, so that `*e` reads the element.
    refs: BTreeSet<String>,
    /// Lowering a rule's template, whose operands are all floats: a method of constants is
    /// written in path form (`f64::ln(3.0)`) so that its literal has a type.
    in_template: bool,
    /// The declared types of the constants lowered to a `let` of their own, by name: a constant
    /// assigned to the same variable later keeps the type (`a = 0.5; a.sin()`).
    const_types: std::collections::HashMap<String, syn::Type>,
    /// Local vectors the body writes element by element (`v[i] = …`): a constant read from one
    /// is kept in a local where it is read, since the backward sweep evaluates partials later,
    /// after the vector may have changed.
    pub written: BTreeSet<String>,
    /// Constant locals declared `let mut`: a loop body that calls a method on one may change it
    /// (`stack.pop()`, `rng.next()`), so the loop carries it as a cell (the backward sweep
    /// recomputes the body from the value it had).
    pub(super) mutable_consts: BTreeSet<String>,
    /// The names the body calls a changing method on (`stack` of `stack.pop()`), anywhere.
    pub changed_in_place: BTreeSet<String>,
    /// Those of them that hold floats: even a constant written into one makes it a vector with
    /// an undo log, since the backward sweep recomputes code that reads it.
    pub(super) float_vectors: BTreeSet<String>,
    /// Names the body indexes (`k1[0]`): a call bound to one returns a vector
    /// (`let k1 = rhs(s, k);`), as does a call indexed itself (`rhs(s, k)[0]`).
    pub indexed: BTreeSet<String>,
    /// Names passed by reference as whole arguments (`g(x, &k1)`): in a function of numbers, a
    /// call bound to one returns a vector.
    pub referenced: BTreeSet<String>,
    /// The call being lowered returns a vector.
    vector_call: bool,
    /// The call being lowered returns a tuple that is read by component (`f(x).0`, `let (a, b) =
    /// f(x);`): it is called through its array version (`adapt/tuples.rs`), `__diffx_array_f`.
    tuple_call: bool,
    /// Names the body reads a tuple component of (`t.0`): a call bound to one returns a tuple.
    pub tuple_read: BTreeSet<String>,
    /// The values of such calls, arrays of their components, with the callee's const of where
    /// each part starts (`__DIFFX_PARTS_f`, `Self::__DIFFX_PARTS_f` for a method).
    tuple_values: std::collections::HashMap<crate::ir::Var, TokenStream>,
    /// The parts read from such values (`p` of `let (p, z) = f(x);`), read as numbers where they
    /// are used whole, and the tuple and offset they index when they are indexed (`p[1]`).
    tuple_parts: std::collections::HashMap<crate::ir::Var, (crate::ir::Var, Index)>,
    /// Names bound to a place by value (`let x = p.x;`, not `&p.x`): a `Copy` value, a number, which
    /// kept code reads by value too.
    copied: BTreeSet<String>,
    /// The declared types of the parameters read by place (tuples, nested containers, parameter
    /// structs): a place whose type is a float there is a number (`p.0`, `pts[i][1]`).
    pub param_types: std::collections::HashMap<crate::ir::Var, syn::Type>,
}

fn err<T>(span: Span, msg: impl std::fmt::Display) -> syn::Result<T> {
    Err(syn::Error::new(span, msg))
}

impl<'b> Lowerer<'b> {
    pub fn new(b: &'b mut Builder) -> Self {
        Lowerer {
            b,
            scopes: vec![Vec::new()],
            errors: Vec::new(),
            nesting: 0,
            loop_depth: 0,
            arm_depth: 0,
            vectors: std::collections::HashSet::new(),
            pending: Vec::new(),
            local_from: 0,
            refs: BTreeSet::new(),
            in_template: false,
            const_types: std::collections::HashMap::new(),
            written: BTreeSet::new(),
            mutable_consts: BTreeSet::new(),
            changed_in_place: BTreeSet::new(),
            float_vectors: BTreeSet::new(),
            indexed: BTreeSet::new(),
            referenced: BTreeSet::new(),
            vector_call: false,
            tuple_call: false,
            tuple_read: BTreeSet::new(),
            tuple_values: std::collections::HashMap::new(),
            tuple_parts: std::collections::HashMap::new(),
            copied: BTreeSet::new(),
            param_types: std::collections::HashMap::new(),
        }
    }

    pub fn bind(&mut self, name: &str, atom: Atom) {
        self.scopes
            .last_mut()
            .expect("a scope")
            .push((name.to_string(), atom));
    }

    fn lookup(&self, name: &str) -> Option<&Atom> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, a)| a)
    }

    /// Whether `name` is declared in the innermost arm or loop body (anywhere, at top level): a
    /// vector declared there can be made differentiable where it is, without lowering the
    /// construct again.
    fn declared_here(&self, name: &str) -> bool {
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
    fn mentions_active(&self, e: &Expr) -> bool {
        let path_of = |p: &syn::ExprPath| p.path.get_ident().map(|id| self.is_active(id));
        match e {
            Expr::Lit(_) => false,
            Expr::Path(p) if path_of(p).is_some() => path_of(p) == Some(true),
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
                None => tokens::mentions(e.to_token_stream(), &mut |id| self.is_active(id)),
            },
        }
    }

    /// Whether `e` assigns to a name declared outside it: kept as written, the assignment would
    /// change a shadow, not the value the list tracks. Operators and calls assign nothing
    /// themselves, so only their operands are looked at.
    fn reassigns(&self, e: &Expr) -> bool {
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
                None => tokens::assigned(e.to_token_stream())
                    .iter()
                    .any(|n| self.lookup(n).is_some()),
            },
        }
    }

    /// Whether `e` reads an element of a vector the body writes (`v[1]`, `v[i] * 2.0`), or changes
    /// a `let mut` constant in place.
    fn reads_written(&self, e: &Expr) -> bool {
        let changes = || {
            // (`stack.pop()`: evaluated once, where it is, not again where a partial reads it.)
            tokens::method_receivers(e.to_token_stream())
                .keys()
                .any(|n| self.mutable_consts.contains(n))
        };
        (!self.written.is_empty()
            && tokens::element_read(e.to_token_stream())
                .iter()
                .any(|n| self.written.contains(n)))
            || (!self.mutable_consts.is_empty() && changes())
    }

    /// A constant kept in a local of its own where it is read: `let c3 = v[1];`, `let c4 =
    /// stack.pop().unwrap_or(0.0);`.
    fn snapshot(&mut self, value: TokenStream) -> Atom {
        let name = self.b.fresh_name("c");
        self.b.push(Stmt::Verbatim {
            binds: Vec::new(),
            tokens: quote!(let #name = #value;),
        });
        Atom::Const(quote!(#name))
    }

    /// `e` as a constant: the user's names replaced by the values they stand for now.
    fn constant(&self, e: &impl ToTokens) -> TokenStream {
        // `p.0` of a call's tuple held as an array: `p[0]`.
        let e = tokens::components_as_elements(e.to_token_stream(), &|id| self.parts_of(id));
        tokens::substitute(e, &mut |id| {
            let name = id.to_string();
            self.lookup(&name).map(|a| {
                let place = operands::place(&self.b.func, a);
                match a {
                    Atom::Field(..) | Atom::Var(_) if self.refs.contains(&name) => {
                        quote!((&#place))
                    }
                    _ => place,
                }
            })
        })
    }

    /// Lowers a block's statements; returns the value of its tail expression or `return` when
    /// `want` (a block in statement position runs its tail for its effects only).
    pub fn block(&mut self, stmts: &[SynStmt], want: bool) -> syn::Result<Option<Atom>> {
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
            return Ok(last.then(|| Atom::Const(quote!(#never))));
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
                Some(e) => self.expr(e).map(Some),
                None => err(r.span(), "`#[autodiff]` functions must return a value: write `return <float expression>;`"),
            },
            SynStmt::Expr(Expr::Return(r), _) => err(
                r.span(),
                "early `return` is not supported yet: compute the result into a variable and return it at the end",
            ),
            SynStmt::Expr(e @ (Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_)), None) => {
                self.effect(e).map(|()| None)
            }
            SynStmt::Expr(e, None) if last && !is_unit(e) => self.expr(e).map(Some),
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
            Expr::Assign(a) => {
                let mark = self.b.mark();
                let value = self.expr(&a.right)?;
                self.assign(&a.left, value, mark)
            }
            Expr::Binary(b) if compound(&b.op).is_some() => {
                let (rule, _) = compound(&b.op).expect("checked");
                let (mark, before) = (self.b.mark(), self.b.func.body.len());
                let old = self.place(&b.left)?;
                let rhs = self.expr(&b.right)?;
                let value = match (&old, &rhs) {
                    (Atom::Const(l), Atom::Const(r)) => {
                        let op = rule.operator();
                        let (l, r) = (tokens::grouped(l.clone()), tokens::grouped(r.clone()));
                        Atom::Const(quote!(#l #op #r))
                    }
                    _ => self.apply_or_fold(rule, vec![old, rhs], e, before)?,
                };
                self.assign(&b.left, value, mark)
            }
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

    /// The current value of an assignable place (a variable).
    fn place(&mut self, e: &Expr) -> syn::Result<Atom> {
        match e {
            Expr::Path(p) if p.path.get_ident().is_some() => self.expr(e),
            _ => err(
                e.span(),
                "`#[autodiff]` can assign only to local variables here: write `name = …` or `name += …`",
            ),
        }
    }

    fn assign(&mut self, left: &Expr, value: Atom, mark: usize) -> syn::Result<()> {
        let old = self.place(left)?;
        let name = left.to_token_stream().to_string();
        let vector = matches!(&value, Atom::Var(v) if self.vectors.contains(v));
        if vector && self.nesting > 0 && !self.declared_here(&name) {
            return err(
                left.span(),
                format!("a vector declared outside this loop or `if` cannot be replaced whole inside it yet: write its elements (`{name}[i] = …`)"),
            );
        }
        let ty = self.type_of(&old);
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

    /// Sets the binding of `name` in the scope that declares it.
    fn rebind(&mut self, name: &str, atom: Atom) {
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

    /// The type a variable holding `atom` was given, where a constant assigned to it needs one:
    /// the float type for a scalar of the list, the declared type for a constant.
    fn type_of(&self, atom: &Atom) -> Option<syn::Type> {
        match atom {
            Atom::Var(v) if self.b.func.kind(*v) == crate::ir::Kind::Scalar => {
                let float = &self.b.float;
                Some(syn::parse_quote!(#float))
            }
            Atom::Const(name) => self.const_types.get(&name.to_string()).cloned(),
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
            // A vector this `let` built (`let y = [a, b];`), written element by element: no code
            // names it yet, so it takes the user's name (which `explain_` shows).
            Atom::Var(v) if self.b.is_new(&value, mark) && self.vectors.contains(&v) => {
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
                    && self.written.contains(name)
                    && self.b.func.kind(v) == Kind::Slice
                    && !self.vectors.contains(&v) =>
            {
                let copy = self
                    .b
                    .op_of_kind(Op::Id, vec![value], Span::call_site(), Kind::Slice);
                self.b.rename_user(copy, name);
                self.vectors.insert(copy);
                self.bind(name, Atom::Var(copy));
            }
            Atom::Var(_) | Atom::Field(..) => self.bind(name, value),
            Atom::Const(expr) => {
                let float = &self.b.float;
                let holds_floats = tokens::has_float(expr.clone(), float)
                    || ty
                        .as_ref()
                        .is_some_and(|t| tokens::has_float(t.to_token_stream(), float));
                if self.written.contains(name) && holds_floats {
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
                self.bind(name, Atom::Const(fresh.into_token_stream()));
            }
        }
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
        self.tuple_call = call && self.tuple_read.contains(&name);
        let numbers = self.b.call_kind == Kind::Scalar;
        self.vector_call = call
            && (self.indexed.contains(&name)
                || self.tuple_call
                || (numbers && self.referenced.contains(&name)));
        let value = self.expr(&init.expr)?;
        self.vector_call = false;
        self.tuple_call = false;
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
        Ok(())
    }

    /// A statement run as written, after binding the names it mentions to their current values.
    fn verbatim(&mut self, ts: TokenStream) {
        let ts = tokens::components_as_elements(ts, &|id| self.parts_of(id));
        let mut names = BTreeSet::new();
        tokens::format_names(ts.clone(), &mut names);
        tokens::substitute(ts.clone(), &mut |id| {
            names.insert(id.to_string());
            None
        });
        // A `let mut` constant the statement changes (`idx.push(i)`), held under another name
        // (a loop's copy): bound by `&mut`, so the change lands in it.
        let changed = tokens::method_receivers(ts.clone());
        let binds = names
            .iter()
            .filter_map(|n| self.lookup(n).map(|a| (n.clone(), a.clone())))
            // (An element bound by reference keeps its binding even under its own name: the
            // value is a number, the code reads `*e`.)
            .filter(|(n, a)| {
                self.refs.contains(n) || operands::place(&self.b.func, a).to_string() != *n
            })
            .map(|(n, a)| {
                // An element bound by reference (`for e in w.iter()`) is `&w[i]` here too.
                let a = match a {
                    Atom::Field(..) | Atom::Var(_) if self.refs.contains(&n) => {
                        let place = operands::place(&self.b.func, &a);
                        Atom::Const(quote!(&#place))
                    }
                    Atom::Const(c)
                        if changed.contains_key(&n) && self.mutable_consts.contains(&n) =>
                    {
                        Atom::Const(quote!(&mut #c))
                    }
                    Atom::Field(..) if self.copied.contains(&n) => {
                        Atom::Const(operands::place(&self.b.func, &a))
                    }
                    a => a,
                };
                (Ident::new(&n, Span::call_site()), a)
            })
            .collect();
        self.b.push(Stmt::Verbatim { binds, tokens: ts });
    }

    /// Lowers an expression to an operand.
    pub fn expr(&mut self, e: &Expr) -> syn::Result<Atom> {
        reject(e)?;
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
            let value = self.constant(e);
            if self.reads_written(e) {
                return Ok(self.snapshot(value));
            }
            return Ok(Atom::Const(value));
        }
        match e {
            Expr::Path(p) => match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                Some(a) => Ok(a.clone()),
                None => Ok(Atom::Const(self.constant(e))),
            },
            Expr::Paren(p) => self.expr(&p.expr),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Block(b) if b.label.is_none() => self.block_expr(&b.block),
            Expr::Binary(b) => self.binary(b, e),
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => {
                    let before = self.b.func.body.len();
                    let a = self.expr(&u.expr)?;
                    self.apply_or_fold(rule("neg"), vec![a], e, before)
                }
                UnOp::Deref(_) => self.expr(&u.expr),
                _ => Ok(Atom::Const(self.constant(e))),
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

    /// `model.l1.w`: a field of a differentiable parameter struct; `f(x).0`, `t.0` of `let t =
    /// f(x);`: a component of a call's tuple, an element of its array version.
    fn field(&mut self, f: &syn::ExprField) -> syn::Result<Atom> {
        let member = &f.member;
        if let syn::Member::Unnamed(i) = member {
            let k = i.index as usize;
            if matches!(&*f.base, Expr::Call(_)) {
                (self.vector_call, self.tuple_call) = (true, true);
                let call = self.expr(&f.base);
                (self.vector_call, self.tuple_call) = (false, false);
                return match call? {
                    Atom::Var(v) => Ok(self.tuple_part(v, k, f.span())),
                    _ => err(
                        f.span(),
                        "read a part of this call's result from a `let` of it: `let t = f(x); t.0`",
                    ),
                };
            }
            if let Expr::Path(p) = &*f.base {
                let tuple = p
                    .path
                    .get_ident()
                    .and_then(|id| self.lookup(&id.to_string()));
                if let Some(&Atom::Var(v)) = tuple {
                    if self.tuple_values.contains_key(&v) {
                        return Ok(self.tuple_part(v, k, f.span()));
                    }
                }
            }
        }
        self.extend_place(&f.base, Step::Field(member.clone()), f.span())
    }

    /// `model.layers[0]`: an element of a field, at a constant index.
    fn index(&mut self, i: &syn::ExprIndex) -> syn::Result<Atom> {
        if self.mentions_active(&i.index) {
            return err(
                i.index.span(),
                "an index must not depend on differentiable values: index with an integer",
            );
        }
        let idx = Index::new(&i.index, self.constant(&i.index));
        self.vector_call = matches!(&*i.expr, Expr::Call(_));
        let place = self.extend_place(&i.expr, Step::Index(idx), i.span());
        // Only the call indexed here returns a vector (a constant call never takes the flag).
        self.vector_call = false;
        place
    }

    /// Part `k` of the tuple value `v` (a call's, held as the array of its numbers): read as a
    /// number, and remembered, so that indexing it (`p[1]`) reads the element of `v` it stands for.
    fn tuple_part(&mut self, v: crate::ir::Var, k: usize, span: Span) -> Atom {
        let offset = match self.tuple_values.get(&v) {
            Some(parts) => Index::Expr(quote!(#parts[#k])),
            None => Index::literal(k),
        };
        let part = self.b.op(
            Op::Id,
            vec![Atom::Field(v, Path::index(offset.clone()))],
            span,
        );
        self.tuple_parts.insert(part, (v, offset));
        Atom::Var(part)
    }

    /// Where the parts of the tuple value bound to `id` start, if it is one: `None` for a name of
    /// something else; the literal component index where the callee gives no starts.
    fn parts_of(&self, id: &proc_macro2::Ident) -> Option<Option<TokenStream>> {
        match self.lookup(&id.to_string()) {
            Some(Atom::Var(v)) => self.tuple_values.get(v).map(|p| Some(p.clone())),
            _ => None,
        }
    }

    fn extend_place(&mut self, base: &Expr, step: Step, span: Span) -> syn::Result<Atom> {
        match self.expr(base)? {
            // An element of an array part of a call's tuple: the element of the tuple's array.
            Atom::Var(v) if self.tuple_parts.contains_key(&v) => {
                let (tuple, offset) = self.tuple_parts[&v].clone();
                let Step::Index(inner) = step else {
                    return err(span, "index a part of a call's tuple result by `[i]`");
                };
                let index = Index::Expr(quote!(#offset + #inner));
                let place = Atom::Field(tuple, Path::index(index));
                Ok(Atom::Var(self.b.op(Op::Id, vec![place], span)))
            }
            // A local vector changes: its element is read into a value of its own now.
            Atom::Var(v) if self.vectors.contains(&v) => {
                let place = Atom::Field(v, Path(vec![step]));
                Ok(Atom::Var(self.b.op(Op::Id, vec![place], span)))
            }
            Atom::Var(v) if matches!(self.b.func.kind(v), Kind::Other | Kind::Slice) => {
                Ok(self.typed_place(v, Path(vec![step]), span))
            }
            Atom::Field(v, path) => Ok(self.typed_place(v, path.then(step), span)),
            _ => err(
                span,
                "only fields of parameter structs can be read here: indexing tensors and slices is not supported yet",
            ),
        }
    }

    /// The place `path` of parameter `v`; read into a number of its own when the parameter's
    /// declared type says the place holds one (`p.0` of a `(f64, [f64; 2])`, `pts[i][1]`), so
    /// that methods of it take their rows for numbers.
    fn typed_place(&mut self, v: crate::ir::Var, path: Path, span: Span) -> Atom {
        let Some(ty) = self.param_types.get(&v) else {
            return Atom::Field(v, path);
        };
        let place_type = path.type_within(ty);
        let place = Atom::Field(v, path);
        match place_type {
            Some(t)
                if tokens::is_float_type(&t, &self.b.float)
                    && self.b.func.kind(v) == Kind::Other =>
            {
                Atom::Var(self.b.op_of_kind(Op::Id, vec![place], span, Kind::Scalar))
            }
            _ => place,
        }
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

    fn binary(&mut self, b: &syn::ExprBinary, e: &Expr) -> syn::Result<Atom> {
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
                return Ok(Atom::Const(self.constant(e)));
            }
            BinOp::And(_) | BinOp::Or(_) => return Ok(Atom::Const(self.constant(e))),
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
        self.apply_or_fold(rule(name), vec![l, r], e, before)
    }

    fn cast(&mut self, c: &syn::ExprCast, e: &Expr) -> syn::Result<Atom> {
        let target = c.ty.to_token_stream().to_string();
        if self.b.float == target {
            // A differentiable value of the function's own type casts to itself; anything else
            // (`x.len() as f64`) is a constant that keeps its cast, which for a type parameter
            // (`b as T` of a rule) is a conversion.
            return match self.expr(&c.expr)? {
                Atom::Const(_) if tokens::is_generic(&self.b.float) => {
                    let (float, value) = (&self.b.float, self.constant(&c.expr));
                    Ok(Atom::Const(
                        quote!(::diffx::__private::cast::<#float, _>(#value)),
                    ))
                }
                Atom::Const(_) => Ok(Atom::Const(self.constant(e))),
                a => Ok(a),
            };
        }
        if !matches!(target.as_str(), "f32" | "f64") {
            return Ok(Atom::Const(self.constant(e)));
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
            return Ok(Atom::Const(self.constant(e)));
        }
        if name == "clone" && m.args.is_empty() {
            return self.expr(&m.receiver);
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
            return Ok(Atom::Const(self.constant(e)));
        }
        // `f64::floor(x)`: piecewise constant in path form too.
        if rules::PIECEWISE_CONSTANT.contains(&last.as_str()) && float_path(path, &self.b.float) {
            return Ok(Atom::Const(self.constant(e)));
        }
        let mut args = Vec::new();
        for a in &c.args {
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
                Atom::Var(v) if by_value => self.b.func.vars[v.0].by_value = true,
                _ => {}
            }
            if by_value
                && matches!(arg, Atom::Field(..))
                && self.b.func.atom_kind(&arg) == Kind::Other
            {
                // A field passed by value is `Copy`: a number (a tensor would be moved out).
                arg = Atom::Var(self.b.op_of_kind(Op::Id, vec![arg], a.span(), Kind::Scalar));
            }
            args.push(arg);
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
        let mut path = path.clone();
        if let (true, Some(last)) = (tuple, path.segments.last_mut()) {
            last.ident = names::array(&last.ident);
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
        Ok(Atom::Var(v))
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
    fn apply_or_fold(
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

fn rule(name: &str) -> &'static Rule {
    rules::find(name).expect("arithmetic rules are in the table")
}

/// `a op= b` as (rule, operator).
fn compound(op: &BinOp) -> Option<(&'static Rule, &'static str)> {
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

/// `f64::…` or `f32::…`.
/// Whether `e` is `self`.
fn is_self(e: &Expr) -> bool {
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

/// Constructs rejected anywhere in the body, active or not.
fn reject(e: &Expr) -> syn::Result<()> {
    match e {
        Expr::Closure(c) => err(
            c.span(),
            "closures are not supported in `#[autodiff]` functions: write the closure as a separate `#[autodiff]` function and call it",
        ),
        Expr::Unsafe(u) => err(
            u.unsafe_token.span,
            "`unsafe` blocks cannot be differentiated: move the unsafe code into a function outside the `#[autodiff]` function",
        ),
        Expr::Async(a) => err(a.async_token.span, "`async` blocks cannot be differentiated"),
        _ => Ok(()),
    }
}

fn unsupported(e: &Expr) -> String {
    let what = match e {
        Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
            return "a loop used as a value (`let v = loop { … break x; }`) is not supported: assign the value to a variable inside the loop and use the variable after it".to_string();
        }
        Expr::Index(_) => "indexing is",
        Expr::Field(_) => "field access is",
        Expr::Macro(_) => "macros in expressions are",
        Expr::Reference(_) => "`&mut` references are",
        Expr::Tuple(_) | Expr::Array(_) => "tuples and arrays of differentiable values are",
        _ => "this expression is",
    };
    format!(
        "{what} not supported in `#[autodiff]` functions yet: compute the value with `let`, `if`/`else`, arithmetic and float methods"
    )
}

/// Lowers the partial derivatives of `rule` at operands `args` with result `z` into `b`, for the
/// operands where `needed` holds.
pub fn partials(
    b: &mut Builder,
    rule: &Rule,
    args: &[Atom],
    z: &Atom,
    needed: &[bool],
) -> syn::Result<Vec<Option<Atom>>> {
    let float = b.float.clone();
    let rules::Deriv::Partials(templates) = &rule.deriv else {
        return Ok(vec![None; args.len()]);
    };
    templates
        .iter()
        .zip(needed)
        .map(|(template, &needed)| {
            if template.is_empty() || !needed {
                return Ok(None);
            }
            let expr = template::expr(&b.templates, template, &float)?;
            let mut l = Lowerer::new(b);
            l.in_template = true;
            for (name, a) in ["a", "b", "c"].iter().zip(args) {
                l.bind(name, a.clone());
            }
            l.bind("z", z.clone());
            l.expr(&expr).map(Some)
        })
        .collect()
}

/// `p.offset.unwrap()` (or `expect`) and `p.offset.unwrap_or(v)` of an optional field: its value
/// as the place `p.offset[Inner]` (see `desugar/options.rs`), in an `if` for `unwrap_or`.
fn option_read(m: &syn::ExprMethodCall) -> Option<Expr> {
    let r = &m.receiver;
    let inner = quote!(#r[::diffx::__private::Inner]);
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
