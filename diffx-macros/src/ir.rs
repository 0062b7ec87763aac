//! The intermediate representation: a Wengert list.
//!
//! A function body is lowered to a list of statements, each binding a fresh value to one primitive
//! operation on earlier values (`v2 = mul(x1, x2)`), as in the evaluation traces of the AD
//! literature. Forward mode and reverse mode are rewrites of this list into longer lists; only
//! `emit.rs` turns a list into Rust tokens. `Display` prints the list, so tests compare text.

use core::fmt;

use proc_macro2::{Ident, Span, TokenStream};

use crate::rules::Rule;

/// A value of the list, an index into [`Func::vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Var(pub usize);

/// An operand: a differentiable value, or a constant expression (literal, integer parameter,
/// anything that does not depend on the differentiable inputs), kept as the user wrote it.
#[derive(Clone, Debug)]
pub enum Atom {
    Var(Var),
    Const(TokenStream),
}

impl Atom {
    pub fn var(&self) -> Option<Var> {
        match self {
            Atom::Var(v) => Some(*v),
            Atom::Const(_) => None,
        }
    }

    /// Whether this is the literal `1.0` (or `-1.0` with `negative`), so products can be skipped.
    pub fn is_unit(&self, negative: bool) -> bool {
        let want = if negative { "- 1.0" } else { "1.0" };
        matches!(self, Atom::Const(t) if t.to_string() == want)
    }
}

/// The operation of a statement.
#[derive(Clone)]
pub enum Op {
    /// An elementary operation from the rule table.
    Rule(&'static Rule),
    /// A copy of the operand.
    Id,
    /// A call of another `#[autodiff]` function, differentiated through its own derivative code.
    Call(syn::Path),
}

impl Op {
    pub fn name(&self) -> String {
        match self {
            Op::Rule(r) => r.name.to_string(),
            Op::Id => "id".to_string(),
            Op::Call(p) => quote::quote!(#p).to_string().replace(' ', ""),
        }
    }
}

/// One statement of the list.
#[derive(Clone)]
pub enum Stmt {
    /// `dst = op(args)`.
    Let {
        dst: Var,
        op: Op,
        args: Vec<Atom>,
        span: Span,
    },
    /// `dst += value`: accumulation of an adjoint.
    Accum { dst: Var, value: Var },
    /// A local that does not depend on the inputs, kept as written: `let k: usize = n / 2;`.
    Const {
        name: Ident,
        mutable: bool,
        ty: Option<syn::Type>,
        expr: TokenStream,
    },
    /// A statement with no value, such as `println!(…)`, run as written after binding the user's
    /// names it mentions to their current values.
    Verbatim {
        binds: Vec<(Ident, Atom)>,
        tokens: TokenStream,
    },
    /// An item declared in the body (`const K: f64 = 2.0;`).
    Item(TokenStream),
    /// `(dst, dst_dot) = jvp of path(args) along tangents`.
    CallJvp {
        dst: Var,
        dst_dot: Var,
        path: syn::Path,
        args: Vec<Atom>,
        tangents: Vec<Option<Var>>,
    },
    /// `grads = vjp of path(args) with cotangent ct`; one gradient per argument that needs it.
    CallVjp {
        path: syn::Path,
        args: Vec<Atom>,
        ct: Var,
        grads: Vec<Option<Var>>,
    },
}

/// How the value of a variable was created, to name it readably.
#[derive(Clone, Debug)]
pub struct VarInfo {
    pub name: Ident,
}

/// A lowered function: its values, its statements and its result.
#[derive(Clone, Default)]
pub struct Func {
    pub vars: Vec<VarInfo>,
    pub body: Vec<Stmt>,
    pub ret: Option<Atom>,
}

impl Func {
    pub fn name(&self, v: Var) -> &Ident {
        &self.vars[v.0].name
    }

    fn atom(&self, a: &Atom) -> String {
        match a {
            Atom::Var(v) => self.name(*v).to_string(),
            Atom::Const(t) => t.to_string(),
        }
    }

    fn atoms(&self, args: &[Atom]) -> String {
        args.iter()
            .map(|a| self.atom(a))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn opt_names(&self, vs: &[Option<Var>]) -> String {
        let name = |v: &Option<Var>| v.map_or("_".to_string(), |v| self.name(v).to_string());
        vs.iter().map(name).collect::<Vec<_>>().join(", ")
    }

    fn fmt_stmt(&self, s: &Stmt, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match s {
            Stmt::Let { dst, op, args, .. } => {
                writeln!(
                    f,
                    "{} = {}({})",
                    self.name(*dst),
                    op.name(),
                    self.atoms(args)
                )
            }
            Stmt::Accum { dst, value } => {
                writeln!(f, "{} += {}", self.name(*dst), self.name(*value))
            }
            Stmt::Const { name, expr, .. } => writeln!(f, "{name} = const {expr}"),
            Stmt::Verbatim { tokens, .. } | Stmt::Item(tokens) => writeln!(f, "{tokens}"),
            Stmt::CallJvp {
                dst,
                dst_dot,
                path,
                args,
                tangents,
            } => writeln!(
                f,
                "({}, {}) = jvp[{}]({}; {})",
                self.name(*dst),
                self.name(*dst_dot),
                Op::Call(path.clone()).name(),
                self.atoms(args),
                self.opt_names(tangents)
            ),
            Stmt::CallVjp {
                path,
                args,
                ct,
                grads,
            } => writeln!(
                f,
                "({}) = vjp[{}]({}; {})",
                self.opt_names(grads),
                Op::Call(path.clone()).name(),
                self.atoms(args),
                self.name(*ct)
            ),
        }
    }
}

impl fmt::Display for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in &self.body {
            self.fmt_stmt(s, f)?;
        }
        match &self.ret {
            Some(r) => writeln!(f, "return {}", self.atom(r)),
            None => Ok(()),
        }
    }
}
