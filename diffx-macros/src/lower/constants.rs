//! Code kept as written: an expression that does not depend on the inputs becomes a constant, the
//! user's names in it replaced by the values they stand for now, and a statement such as
//! `println!` is kept with the names it mentions bound to their current values.

use std::collections::BTreeSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, ToTokens};
use syn::Expr;

use super::Lowerer;
use crate::ir::{operands, Atom, Code, Stmt};
use crate::tokens;

impl Lowerer<'_> {
    /// Whether `e` reads an element of a vector the body writes (`v[1]`, `v[i] * 2.0`), or changes
    /// a `let mut` constant in place.
    pub(super) fn reads_written(&self, e: &Expr) -> bool {
        if self.facts.written.is_empty() && self.mutable_consts.is_empty() {
            return false;
        }
        let uses = super::uses::of_expr(e);
        uses.indexed.iter().any(|n| self.facts.written.contains(n))
            // (`stack.pop()`: evaluated once, where it is, not again where a partial reads it.)
            || uses.changed.keys().any(|n| self.mutable_consts.contains(n))
    }

    /// `e`, a constant, as an operand: kept in a local where it is read if it reads a vector the
    /// body writes or changes a value in place (`(stack.pop().unwrap_or(0.5) + x).trunc()`), so
    /// that it runs once, where it is, and not again where a partial or a tangent reads it.
    pub(super) fn constant_atom(&mut self, e: &Expr) -> Atom {
        // (The commonest constant, and rule templates are full of them.)
        if let Expr::Lit(lit) = e {
            return Atom::Const(Code::literal(lit.to_token_stream()));
        }
        let value = self.constant(e);
        match self.reads_written(e) {
            true => self.snapshot(value),
            false => Atom::constant(value),
        }
    }

    /// A constant kept in a local of its own where it is read: `let c3 = v[1];`, `let c4 =
    /// stack.pop().unwrap_or(0.0);`.
    pub(super) fn snapshot(&mut self, value: TokenStream) -> Atom {
        let name = self.b.fresh_name("c");
        self.b.push(Stmt::Verbatim {
            binds: Vec::new(),
            tokens: quote!(let #name = #value;).into(),
        });
        Atom::constant(quote!(#name))
    }

    /// `e` as a constant: the user's names replaced by the values they stand for now.
    pub(super) fn constant(&mut self, e: &impl ToTokens) -> TokenStream {
        // `p.0` of a call's tuple held as an array: `p[0]`.
        let e = tokens::components_as_elements(e.to_token_stream(), &|id| self.parts_of(id));
        let mut named = Vec::new();
        let written = tokens::substitute(e, &mut |id| {
            let name = id.to_string();
            self.lookup(&name).map(|a| {
                named.extend(a.var());
                let place = operands::place(&self.b.func, a);
                match a {
                    Atom::Field(..) | Atom::Var(_) if self.refs.contains(&name) => {
                        quote!((&#place))
                    }
                    _ => place,
                }
            })
        });
        // (The values named stay so: a later rename would leave these tokens dangling.)
        self.named_in_code.extend(named);
        written
    }

    /// A statement run as written, after binding the names it mentions to their current values.
    pub(super) fn verbatim(&mut self, ts: TokenStream) {
        let ts = tokens::components_as_elements(ts, &|id| self.parts_of(id));
        let mut names = BTreeSet::new();
        tokens::format_names(ts.clone(), &mut names);
        tokens::substitute(ts.clone(), &mut |id| {
            names.insert(id.to_string());
            None
        });
        // A `let mut` constant the statement changes (`idx.push(i)`, `v[k] -= d`), held under
        // another name (a loop's copy, an `if`'s output): bound by `&mut`, so the change lands in
        // it.
        let uses = super::uses::of_tokens(ts.clone());
        let mut changed = uses.changed;
        for n in uses.element_written {
            changed.entry(n).or_insert_with(Span::call_site);
        }
        let looked: Vec<(String, Atom)> = names
            .iter()
            .filter_map(|n| self.lookup(n).map(|a| (n.clone(), a.clone())))
            .collect();
        // (A value under its own name is not bound again but named in the tokens, like the
        // places below: none of them may be renamed later.)
        self.named_in_code
            .extend(looked.iter().filter_map(|(_, a)| a.var()));
        let binds = looked
            .into_iter()
            // (An element bound by reference keeps its binding even under its own name: the
            // value is a number, the code reads `*e`.)
            .filter(|(n, a)| {
                let own_name = match a {
                    Atom::Var(v) => self.b.func.name(*v) == n,
                    Atom::Const(c) => c.is_name(n),
                    Atom::Field(..) => false,
                };
                self.refs.contains(n) || !own_name
            })
            .map(|(n, a)| {
                // An element bound by reference (`for e in w.iter()`) is `&w[i]` here too.
                let a = match a {
                    Atom::Field(..) | Atom::Var(_) if self.refs.contains(&n) => {
                        let place = operands::place(&self.b.func, &a);
                        Atom::constant(quote!(&#place))
                    }
                    Atom::Const(c)
                        if changed.contains_key(&n) && self.mutable_consts.contains(&n) =>
                    {
                        Atom::constant(quote!(&mut #c))
                    }
                    Atom::Field(..) if self.copied.contains(&n) => {
                        Atom::constant(operands::place(&self.b.func, &a))
                    }
                    a => a,
                };
                (Ident::new(&n, Span::call_site()), a)
            })
            .collect();
        self.b.push(Stmt::Verbatim {
            binds,
            tokens: ts.into(),
        });
    }
}
