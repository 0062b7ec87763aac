//! A float converted to `f64` and back, as generic code written over num-traits does:
//!
//! ```text
//! let x1: f64 = param[0].into();                 // or param[0].to_f64().unwrap()
//! T::from_f64(-0.0001 * (x1.sin() + PI)).unwrap() // or T::from(…).unwrap()
//! ```
//!
//! Both conversions are the identity on the value, so the derivative passes through them: the
//! derivative code drops them and computes the `f64` part (the names declared `f64` from a
//! differentiable value, and what they flow into) in the function's float type `T`, which is the
//! function's own computation at `T = f64` alone: the derivative functions are bound to it
//! (`__private::through_f64`, a compile error at `f32` that says so). Its constants
//! of type `f64` (`PI`, `2.0 * PI`) become values of `T` (`lit::<T>(PI)`); bare literals already
//! do. In a function over `f64` the conversions are dropped and nothing else changes; over `f32`,
//! whose derivative code cannot compute in `f64`, a conversion of a differentiable value is an
//! error, as is `.into()` of one anywhere but a `let` declared `f64` or inside the conversion back.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Local, Pat, Type};

use crate::analyze::activity::active;
use crate::parse::Signature;
use crate::tokens;

/// The body with its conversions of differentiable values to `f64` and back dropped.
pub fn followed(mut block: Block, sig: &Signature) -> syn::Result<Block> {
    // (Most bodies convert nothing: one scan of their names spares them the analysis below.)
    if !super::holds::block(&block, &["into", "to_f64", "from_f64", "from"]) {
        return Ok(block);
    }
    let mut c = Conversions {
        float: sig.float.clone(),
        active: active(&block, sig),
        island: BTreeSet::new(),
        in_island: false,
        converted: false,
        errors: Vec::new(),
    };
    c.find_island(&block);
    c.visit_block_mut(&mut block);
    if c.converted && tokens::is_generic(&c.float) {
        // The derivative functions compute the `f64` part in `T`: the same computation at `f64`
        // alone, so they are written for it alone.
        let float = &c.float;
        block.stmts.insert(
            0,
            syn::parse_quote!(::diffx::__private::through_f64::<#float>();),
        );
    }
    match c.errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok(block),
    }
}

/// Whether the desugared `block` holds the guard [`followed`] writes for a generic function that
/// converts to `f64` and back: its derivative functions are bound to `T = f64`.
pub fn guarded(block: &Block) -> bool {
    struct Finds(bool);
    impl<'a> syn::visit::Visit<'a> for Finds {
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if let Expr::Path(p) = &*c.func {
                let s: Vec<_> = p.path.segments.iter().map(|s| &s.ident).collect();
                self.0 |= matches!(s.as_slice(), [d, p, t] if *d == "diffx" && *p == "__private" && *t == "through_f64");
            }
            syn::visit::visit_expr_call(self, c);
        }
    }
    let mut finds = Finds(false);
    syn::visit::Visit::visit_block(&mut finds, block);
    finds.0
}

struct Conversions {
    float: Ident,
    active: BTreeSet<String>,
    /// The names holding `f64` values computed from differentiable ones.
    island: BTreeSet<String>,
    /// Rewriting an expression of type `f64` in the user's code.
    in_island: bool,
    /// A conversion of a differentiable value was dropped.
    converted: bool,
    errors: Vec<syn::Error>,
}

/// Float methods whose arguments are floats of the receiver's type.
const FLOAT_ARGS: &[&str] = &[
    "powf", "max", "min", "atan2", "hypot", "mul_add", "log", "copysign",
];

impl Conversions {
    fn mentions(&self, e: &impl ToTokens) -> bool {
        tokens::mentions(e.to_token_stream(), &mut |id| {
            let id = id.to_string();
            self.active.contains(&id) || self.island.contains(&id)
        })
    }

    /// The names declared `f64` from a differentiable value, and those computed from them (outside
    /// a conversion back), to a fixed point.
    fn find_island(&mut self, block: &Block) {
        let mut lets = Lets(Vec::new());
        lets.visit_block_mut(&mut block.clone());
        loop {
            let before = self.island.len();
            for (names, ty, init) in &lets.0 {
                let is_f64 = ty.as_ref().is_some_and(is_f64);
                let from = self.without_conversions_back(init);
                let reads_island = tokens::mentions(from.clone(), &mut |id| {
                    self.island.contains(&id.to_string())
                });
                if reads_island || (is_f64 && self.mentions(&from)) {
                    self.island.extend(names.iter().cloned());
                }
            }
            if self.island.len() == before {
                return;
            }
        }
    }

    fn without_conversions_back(&self, e: &Expr) -> TokenStream {
        struct Strip<'a>(&'a Ident);
        impl VisitMut for Strip<'_> {
            fn visit_expr_mut(&mut self, e: &mut Expr) {
                if conversion_back(e, self.0).is_some() {
                    *e = syn::parse_quote!(0);
                } else {
                    visit_mut::visit_expr_mut(self, e);
                }
            }
        }
        let mut e = e.clone();
        Strip(&self.float).visit_expr_mut(&mut e);
        e.to_token_stream()
    }

    fn refuse(&mut self, span: proc_macro2::Span, what: &str) {
        self.errors.push(syn::Error::new(span, what.to_string()));
    }

    /// `value` in island mode: an expression of type `f64` of the user's code.
    fn island_expr(&mut self, e: &mut Expr) {
        let was = std::mem::replace(&mut self.in_island, true);
        self.visit_expr_mut(e);
        self.in_island = was;
    }

    /// A constant of type `f64` beside a differentiable value, as a value of `T`.
    fn typed(&self, e: &mut Expr) {
        if !tokens::is_generic(&self.float) || self.mentions(e) {
            return;
        }
        if tokens::is_bare_literal(&e.to_token_stream()) {
            return;
        }
        let float = &self.float;
        *e = syn::parse_quote_spanned!(e.span()=> ::diffx::__private::lit::<#float>(#e));
    }

    /// `v.into()` or `v.to_f64().unwrap()` of a differentiable `v`: `v`, where the value is an
    /// `f64` of the user's code; an error elsewhere.
    fn conversion_to_f64(&mut self, e: &mut Expr) -> bool {
        let Some(value) = conversion_to(e).cloned() else {
            return false;
        };
        if !self.mentions(&value) {
            return false;
        }
        let span = match &*e {
            Expr::MethodCall(m) if m.method == "into" => m.method.span(),
            other => other.span(),
        };
        if self.float == "f32" {
            self.refuse(span, F32);
        } else if !self.in_island {
            self.refuse(span, "`#[autodiff]` follows `.into()` of a differentiable value only as `let x: f64 = v.into();` or inside `T::from_f64(…)`, where it is the identity on the value: write it so");
        }
        *e = syn::parse_quote_spanned!(span=> (#value));
        self.converted = true;
        self.visit_expr_mut(e);
        true
    }
}

const F32: &str = "`#[autodiff]` differentiates a function over `f32` in `f32`, and cannot follow a differentiable value converted to `f64`: compute in `f32`, or in `f64`";

impl VisitMut for Conversions {
    fn visit_local_mut(&mut self, l: &mut Local) {
        let names = crate::analyze::activity::names(&l.pat);
        if !names.iter().any(|n| self.island.contains(n)) {
            return visit_mut::visit_local_mut(self, l);
        }
        if let Pat::Type(t) = &mut l.pat {
            let ty = &t.ty;
            if is_f64(ty) && tokens::is_generic(&self.float) {
                let float = &self.float;
                *t.ty = syn::parse_quote_spanned!(t.ty.span()=> #float);
            }
        }
        if let Some(init) = &mut l.init {
            self.island_expr(&mut init.expr);
        }
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Some(value) = conversion_back(e, &self.float) {
            // (Back from an `f64` computed from a differentiable value: `T::from(i)` of a
            // count, even one bound beside a differentiable element, is a constant.)
            if self.mentions_island(value) || self.converts_to_f64(value) {
                let span = e.span();
                if self.float == "f32" {
                    self.refuse(span, F32);
                }
                let mut value = value.clone();
                self.island_expr(&mut value);
                *e = syn::parse_quote_spanned!(span=> (#value));
                self.converted = true;
                return;
            }
        }
        if self.conversion_to_f64(e) {
            return;
        }
        match e {
            Expr::Assign(a) if self.in_island || self.mentions_island_place(&a.left) => {
                self.typed(&mut a.right);
                self.island_expr(&mut a.right);
                return;
            }
            // `s += PI * r;` of an `f64` name `s`.
            Expr::Binary(b)
                if crate::analyze::activity::is_compound(&b.op)
                    && self.mentions_island_place(&b.left) =>
            {
                self.typed(&mut b.right);
                self.island_expr(&mut b.right);
                return;
            }
            Expr::Binary(b) if self.in_island && is_float_op(&b.op) => {
                match (self.mentions(&b.left), self.mentions(&b.right)) {
                    (true, false) => self.typed(&mut b.right),
                    (false, true) => self.typed(&mut b.left),
                    _ => {}
                }
            }
            Expr::MethodCall(m)
                if self.in_island && FLOAT_ARGS.contains(&m.method.to_string().as_str()) =>
            {
                if self.mentions(&m.receiver) {
                    for a in m.args.iter_mut() {
                        self.typed(a);
                    }
                } else if self.mentions(&m.args) {
                    self.typed(&mut m.receiver);
                }
            }
            _ => {}
        }
        visit_mut::visit_expr_mut(self, e);
    }
}

impl Conversions {
    fn mentions_island(&self, e: &Expr) -> bool {
        tokens::mentions(e.to_token_stream(), &mut |id| {
            self.island.contains(&id.to_string())
        })
    }

    /// Whether `e` holds a conversion to `f64` of a differentiable value (`T::from_f64(x.into())`).
    fn converts_to_f64(&self, e: &Expr) -> bool {
        struct Finds<'a>(&'a Conversions, bool);
        impl VisitMut for Finds<'_> {
            fn visit_expr_mut(&mut self, e: &mut Expr) {
                self.1 |= conversion_to(e).is_some_and(|v| self.0.mentions(v));
                visit_mut::visit_expr_mut(self, e);
            }
        }
        let mut finds = Finds(self, false);
        finds.visit_expr_mut(&mut e.clone());
        finds.1
    }

    fn mentions_island_place(&self, e: &Expr) -> bool {
        crate::analyze::activity::place_name(e)
            .iter()
            .any(|n| self.island.contains(n))
    }
}

/// Arithmetic and comparisons: operators whose operands are both floats when one is.
fn is_float_op(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        Add(_)
            | Sub(_)
            | Mul(_)
            | Div(_)
            | Rem(_)
            | AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | Lt(_)
            | Le(_)
            | Gt(_)
            | Ge(_)
            | Eq(_)
            | Ne(_)
    )
}

/// The value converted by `v.into()` or `v.to_f64().unwrap()`.
fn conversion_to(e: &Expr) -> Option<&Expr> {
    let Expr::MethodCall(m) = e else { return None };
    if m.method == "into" && m.args.is_empty() {
        return Some(&m.receiver);
    }
    let inner = unwrapped(e)?;
    match inner {
        Expr::MethodCall(i) if i.method == "to_f64" && i.args.is_empty() => Some(&i.receiver),
        _ => None,
    }
}

/// The value converted by `T::from_f64(v).unwrap()` or `T::from(v).unwrap()` (or `.expect(…)`),
/// `T` the float type.
fn conversion_back<'e>(e: &'e Expr, float: &Ident) -> Option<&'e Expr> {
    let Expr::Call(c) = unwrapped(e)? else {
        return None;
    };
    let Expr::Path(p) = &*c.func else { return None };
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let [ty, f] = segs.as_slice() else {
        return None;
    };
    let converts = f == "from_f64" || f == "from" || f == "from_f32";
    (converts && float == ty && c.args.len() == 1).then(|| &c.args[0])
}

/// `e` without its `.unwrap()` or `.expect(…)`.
fn unwrapped(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::MethodCall(m)
            if (m.method == "unwrap" && m.args.is_empty())
                || (m.method == "expect" && m.args.len() == 1) =>
        {
            Some(&m.receiver)
        }
        _ => None,
    }
}

/// Every `let` with a value: the names it declares, its declared type, its value.
struct Lets(Vec<(Vec<String>, Option<Type>, Expr)>);

impl VisitMut for Lets {
    fn visit_local_mut(&mut self, l: &mut Local) {
        if let Some(init) = &l.init {
            let ty = match &l.pat {
                Pat::Type(t) => Some((*t.ty).clone()),
                _ => None,
            };
            self.0.push((
                crate::analyze::activity::names(&l.pat),
                ty,
                (*init.expr).clone(),
            ));
        }
        visit_mut::visit_local_mut(self, l);
    }
}

/// Whether `ty` is `f64`, as written.
fn is_f64(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("f64"))
}
