//! The walk that rewrites closures, iterator chains and patterns, in order through the body.
//!
//! Only code that may depend on a differentiable value is rewritten ([`active`]): code over
//! constants stays as written, as lowering keeps it. A local closure is written out at each call
//! (`sq(x)` → `{ let a = x; a * a }`); that reads its captured names at the call. Bindings have
//! names of their own by now (`analyze::scopes`), but for the few it cannot rename (a name a
//! format string reads), so the walk tracks which declaration each name refers to and refuses a
//! call where a captured name was declared again since the closure was made.
//!
//! The walk is spread over three files: this one the walk itself (scopes, `let`s, patterns,
//! repeated values), `closures.rs` the closures, `iteration.rs` chains and `for` loops.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Local, Stmt, Type};

use super::arms;
use super::captures::value_use;
use super::chains;
use super::closures::{closure_init, Closure};
use super::patterns::{self, Elem, Temps};
use crate::analyze::activity::{active, spread, Flows};
use crate::names;
use crate::parse::Signature;

/// The body with its closures, chains and patterns rewritten.
pub fn block(block: Block, sig: &Signature) -> syn::Result<Block> {
    let float = &sig.float;
    let mut s = Sugar {
        active: active(&block, sig),
        float: syn::parse_quote!(#float),
        scopes: vec![Vec::new()],
        closures: Vec::new(),
        next_id: 0,
        counter: 0,
        errors: Vec::new(),
        params: sig.params.len(),
    };
    for p in &sig.params {
        s.declare(&p.name.to_string());
    }
    let mut out = block;
    s.visit_block_mut(&mut out);
    match s.errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

pub(super) struct Sugar {
    pub(super) active: BTreeSet<String>,
    pub(super) float: Type,
    /// The names declared in each scope, with their declaration's id.
    pub(super) scopes: Vec<Vec<(String, usize)>>,
    pub(super) closures: Vec<(usize, Closure)>,
    pub(super) next_id: usize,
    pub(super) counter: usize,
    pub(super) errors: Vec<syn::Error>,
    /// How many parameters there are: the first declarations.
    pub(super) params: usize,
}

impl Sugar {
    pub(super) fn declare(&mut self, name: &str) -> usize {
        self.next_id += 1;
        let id = self.next_id;
        self.scopes
            .last_mut()
            .expect("a scope")
            .push((name.to_string(), id));
        id
    }

    pub(super) fn lookup(&self, name: &str) -> Option<usize> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.iter().rev().find(|(n, _)| n == name).map(|(_, id)| *id))
    }

    pub(super) fn mentions_active(&self, e: &Expr) -> bool {
        crate::analyze::uses::mentions(e, &mut |id| self.active.contains(&id.to_string()))
    }

    pub(super) fn temps(&mut self) -> Temps<'_> {
        Temps {
            counter: &mut self.counter,
        }
    }

    /// A `let`: a closure is recorded (and its statement dropped), a pattern destructured.
    fn local(&mut self, mut l: Local, rest: &[Stmt], out: &mut Vec<Stmt>) {
        if let Some(d) = arms::declared_without_value(&l, &self.float) {
            return self.local(d, rest, out);
        }
        if let Some(stmts) = arms::tuple_from_arms(&l, &mut self.temps()) {
            for s in stmts {
                match s {
                    Stmt::Local(l) => self.local(l, rest, out),
                    Stmt::Expr(mut e, semi) => {
                        self.visit_expr_mut(&mut e);
                        out.push(Stmt::Expr(e, semi));
                    }
                    other => out.push(other),
                }
            }
            return;
        }
        if let Some((name, c)) = closure_init(&l) {
            let rest = quote!(#(#rest)*);
            match value_use(rest.clone(), &name, false) {
                None => return self.record(name, c, rest),
                Some(span) if self.mentions_active(&c.body) => self.errors.push(syn::Error::new(span, format!(
                    "the closure `{name}` is used here as a value: `#[autodiff]` differentiates a closure where it is \
                     called (`{name}(…)`) or given to an iterator adaptor (`map`, `filter`, `fold`, …), not passed to \
                     another function, stored or returned; call it here instead"))),
                Some(_) => {}
            }
        }
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, d)) = &mut init.diverge {
                self.visit_expr_mut(d);
            }
        }
        let names = crate::analyze::activity::names(&l.pat);
        match &l.init {
            Some(init) if init.diverge.is_none() && !patterns::is_plain(&l.pat) => {
                let value = Elem::of((*init.expr).clone());
                let mut stmts = Vec::new();
                if let Err(e) = patterns::bind(&l.pat, value, None, &mut self.temps(), &mut stmts) {
                    self.errors.push(e);
                }
                out.extend(stmts);
            }
            _ => out.push(Stmt::Local(l)),
        }
        for n in names {
            self.declare(&n);
        }
    }

    /// `(a, b) = value;`: `let (t1, t2) = value;`, then `a = t1; b = t2;` (every part read
    /// before any is assigned, so `(a, b) = (b, a);` swaps).
    fn destructured(&mut self, a: syn::ExprAssign) -> (Local, Vec<Expr>) {
        let mut sets = Vec::new();
        let pat = self.assigned_pattern(&a.left, &mut sets);
        let value = &a.right;
        let l: Stmt = syn::parse_quote_spanned!(a.left.span()=> let #pat = #value;);
        let Stmt::Local(l) = l else {
            unreachable!("a `let` statement parses as one")
        };
        (l, sets)
    }

    /// The pattern a destructuring assignment's left side reads as, a fresh name for each place;
    /// `sets` gets the assignments of those names to the places.
    fn assigned_pattern(&mut self, left: &Expr, sets: &mut Vec<Expr>) -> TokenStream {
        match left {
            Expr::Tuple(t) => {
                let parts = t.elems.iter().map(|e| self.assigned_pattern(e, sets));
                quote!((#(#parts,)*))
            }
            Expr::Array(a) => {
                let parts = a.elems.iter().map(|e| self.assigned_pattern(e, sets));
                quote!([#(#parts),*])
            }
            Expr::Paren(p) => self.assigned_pattern(&p.expr, sets),
            Expr::Infer(_) => quote!(_),
            place => {
                let name = self.temps().fresh("set");
                sets.push(syn::parse_quote_spanned!(place.span()=> #place = #name));
                quote!(#name)
            }
        }
    }

    /// `[x; N]` or `vec![x; n]` of a differentiable `x`, written with the value once.
    fn repeated(&mut self, e: &Expr) -> Option<Expr> {
        let (value, len, vec) = match e {
            Expr::Repeat(r) => ((*r.expr).clone(), (*r.len).clone(), false),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                let tokens = &m.mac.tokens;
                let r: syn::ExprRepeat = syn::parse2(quote!([#tokens])).ok()?;
                ((*r.expr).clone(), (*r.len).clone(), true)
            }
            _ => return None,
        };
        if !self.mentions_active(&value) {
            return None;
        }
        let t = self.temps().fresh("repeated");
        self.active.insert(t.to_string());
        let span = e.span();
        let count = match &len {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) => n.base10_parse::<usize>().ok(),
            _ => None,
        };
        Some(match (count, vec) {
            (Some(n), false) => {
                let ts = std::iter::repeat_n(&t, n);
                syn::parse_quote_spanned!(span=> { let #t = #value; [#(#ts),*] })
            }
            (Some(n), true) => {
                let ts = std::iter::repeat_n(&t, n);
                syn::parse_quote_spanned!(span=> { let #t = #value; vec![#(#ts),*] })
            }
            (None, true) => {
                let v = self.temps().fresh("repeat");
                self.active.insert(v.to_string());
                syn::parse_quote_spanned!(span=> {
                    let #t = #value;
                    let mut #v = Vec::new();
                    for _ in 0..#len { #v.push(#t); }
                    #v
                })
            }
            // `[x; N]` of a const generic: an array of zeros filled in a loop.
            (None, false) => {
                let (v, at) = (self.temps().fresh("repeat"), self.temps().fresh("at"));
                self.active.insert(v.to_string());
                let zero = chains::zero_of(&self.float);
                syn::parse_quote_spanned!(span=> {
                    let #t = #value;
                    let mut #v = [#zero; #len];
                    for #at in 0..#len { #v[#at] = #t; }
                    #v
                })
            }
        })
    }

    pub(super) fn replace(
        &mut self,
        e: &mut Expr,
        f: impl FnOnce(&mut Self) -> syn::Result<Expr>,
    ) -> bool {
        match f(self) {
            Ok(new) => {
                *e = new;
                // Names the rewriting binds (a closure's parameter bound to a window, `let c =
                // &x[…]`) are active where their values are: a chain over them is rewritten too.
                let mut flows = Flows(Vec::new());
                syn::visit::Visit::visit_expr(&mut flows, e);
                spread(&flows, &mut self.active);
                self.visit_expr_mut(e);
            }
            Err(err) => self.errors.push(err),
        }
        true
    }

    /// `v.extend_from_slice(&w)`, `v.extend(chain)` of a differentiable value, as a loop that
    /// pushes each element.
    fn extend(&mut self, e: &mut Expr) -> bool {
        if let Expr::MethodCall(m) = e {
            let extend = m.method == "extend_from_slice" || m.method == "extend";
            if extend && m.args.len() == 1 && self.mentions_active(&m.args[0]) {
                let (v, from) = (&m.receiver, &m.args[0]);
                // (Not a `__diffx_` name: this loop is the user's, to be rewritten like one.)
                self.counter += 1;
                let item = quote::format_ident!("{}{}", names::EXTENDED, self.counter);
                *e = match m.method == "extend" {
                    true => syn::parse_quote_spanned!(m.method.span()=>
                        for #item in #from { #v.push(#item); }),
                    false => syn::parse_quote_spanned!(m.method.span()=>
                        for &#item in #from.iter() { #v.push(#item); }),
                };
                self.active.insert(item.to_string());
                self.visit_expr_mut(e);
                return true;
            }
        }
        false
    }
}

/// Whether an assignment's left side destructures: `(a, b) = …`, `[x, y] = …`.
fn destructuring(left: &Expr) -> bool {
    matches!(left, Expr::Tuple(_) | Expr::Array(_))
}

impl VisitMut for Sugar {
    fn visit_block_mut(&mut self, b: &mut Block) {
        self.scopes.push(Vec::new());
        let stmts = std::mem::take(&mut b.stmts);
        let mut out = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            match s.clone() {
                Stmt::Local(l) => self.local(l, &stmts[i + 1..], &mut out),
                Stmt::Expr(Expr::Assign(a), _) if destructuring(&a.left) => {
                    let (l, sets) = self.destructured(a);
                    self.local(l, &stmts[i + 1..], &mut out);
                    for mut e in sets {
                        self.visit_expr_mut(&mut e);
                        out.push(Stmt::Expr(e, Some(Default::default())));
                    }
                }
                Stmt::Expr(mut e, semi) => {
                    self.visit_expr_mut(&mut e);
                    out.push(Stmt::Expr(e, semi));
                }
                other => out.push(other),
            }
        }
        b.stmts = out;
        self.scopes.pop();
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if self.call(e) {
            return;
        }
        if self.extend(e) {
            return;
        }
        // `[x; 3]`, `vec![x; 4]`: the value repeated, `[t, t, t]` (`vec![x; n]` of a count known
        // only at run time: pushed `n` times).
        if let Some(new) = self.repeated(e) {
            *e = new;
            self.visit_expr_mut(e);
            return;
        }
        // `x.to_vec()`: the elements collected, as `x.iter().copied().collect()` does.
        if let Expr::MethodCall(m) = e {
            if m.method == "to_vec" && m.args.is_empty() && self.mentions_active(&m.receiver) {
                let (recv, float) = (&m.receiver, &self.float);
                *e = syn::parse_quote_spanned!(m.method.span()=>
                    #recv.iter().copied().collect::<Vec<#float>>());
            }
        }
        if matches!(e, Expr::MethodCall(_)) && self.mentions_active(e) && self.chain(e) {
            return;
        }
        if matches!(e, Expr::MethodCall(_)) && self.mentions_active(e) && self.array_map(e) {
            return;
        }
        if self.for_loop(e) {
            return;
        }
        match e {
            Expr::ForLoop(f) => {
                self.visit_expr_mut(&mut f.expr);
                self.scopes.push(Vec::new());
                for n in crate::analyze::activity::names(&f.pat) {
                    self.declare(&n);
                }
                self.visit_block_mut(&mut f.body);
                self.scopes.pop();
            }
            Expr::Match(m) => {
                self.visit_expr_mut(&mut m.expr);
                for arm in &mut m.arms {
                    self.scopes.push(Vec::new());
                    for n in crate::analyze::activity::names(&arm.pat) {
                        self.declare(&n);
                    }
                    if let Some((_, g)) = &mut arm.guard {
                        self.visit_expr_mut(g);
                    }
                    self.visit_expr_mut(&mut arm.body);
                    self.scopes.pop();
                }
            }
            // Closures outside chains stay as written (lowering keeps those over constants).
            Expr::Closure(_) => {}
            Expr::Path(_) if self.closure(e).is_some() => {
                let name = e.to_token_stream().to_string();
                self.errors.push(syn::Error::new(e.span(), format!(
                    "the closure `{name}` is used here as a value: `#[autodiff]` differentiates a closure where it is called (`{name}(…)`) or given to an iterator adaptor")));
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }
}
