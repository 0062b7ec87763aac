//! What a piece of code does with the names in it, read from syn's tree: which it assigns,
//! writes by element or by part, changes in place, indexes, passes by reference, reads by tuple
//! component, and calls methods of other types on. Analysis asks it of the whole body, lowering of
//! the expression or block at hand.
//!
//! A macro's arguments are read as the expressions they are (`assert!(x > 0.0, "…", v[0])`,
//! `vec![x; n]`); arguments that are not expressions (`matches!(k, 0 | 1)`) are opaque, and only
//! those are scanned as tokens (`tokens/scan.rs`).

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Span, TokenStream};
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{BinOp, Expr, Member};

use crate::{rules, tokens};

/// What code does with its names (each set holds names, see the module's documentation).
#[derive(Default)]
pub struct Uses {
    /// Assigned whole: `x = …`, `x += …`.
    pub assigned: BTreeSet<String>,
    /// Written by part: `s.x = …`, `s.vals[k] += …`.
    pub parts_assigned: BTreeSet<String>,
    /// Written by element: `v[…] = …`, `v[…] += …`, `v.push(…)`.
    pub element_written: BTreeSet<String>,
    /// Changed in place: a method that may change its receiver is called on it (`stack.pop()`;
    /// not the float methods of the rule table, nor methods that only read), or it is borrowed
    /// mutably (`&mut it`); with where that happens first.
    pub changed: BTreeMap<String, Span>,
    /// Indexed: `v[i]`.
    pub indexed: BTreeSet<String>,
    /// Passed by reference as a whole argument (`f(x, &k1)`).
    pub referenced: BTreeSet<String>,
    /// Read by tuple component (`t.0`).
    pub tuple_read: BTreeSet<String>,
    /// A method of no number, vector, option or rule is called on it (`e.det()`).
    pub others: BTreeSet<String>,
}

/// The uses in `e`.
pub fn of_expr(e: &Expr) -> Uses {
    let mut u = Uses::default();
    u.visit_expr(e);
    u
}

/// The uses in `e`.
pub fn of_if(e: &syn::ExprIf) -> Uses {
    let mut u = Uses::default();
    u.visit_expr_if(e);
    u
}

/// The uses in `b`.
pub fn of_block(b: &syn::Block) -> Uses {
    let mut u = Uses::default();
    u.visit_block(b);
    u
}

/// The uses in `ts`, a statement or expression kept as written (opaque tokens are scanned).
pub fn of_tokens(ts: TokenStream) -> Uses {
    let mut u = Uses::default();
    match syn::parse2::<syn::Block>(quote::quote!({ #ts })) {
        Ok(b) => u.visit_block(&b),
        Err(_) => u.scan(ts),
    }
    u
}

/// Whether `e` reads a name for which `pred` holds, other than for its length (`x.len()` is an
/// integer whatever `x` holds). Paths of more than one segment (`f64::EPSILON`) name no local.
pub fn mentions(e: &Expr, pred: &mut dyn FnMut(&proc_macro2::Ident) -> bool) -> bool {
    let mut m = Mentions { pred, found: false };
    m.visit_expr(e);
    m.found
}

struct Mentions<'p> {
    pred: &'p mut dyn FnMut(&proc_macro2::Ident) -> bool,
    found: bool,
}

impl<'ast> Visit<'ast> for Mentions<'_> {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let (None, Some(id)) = (&p.qself, p.path.get_ident()) {
            self.found |= (self.pred)(id);
        }
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let length = m.method == "len" && m.args.is_empty() && ident(&m.receiver).is_some();
        if !length {
            visit::visit_expr_method_call(self, m);
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        match macro_args(m) {
            Some(args) => args.iter().for_each(|a| self.visit_expr(a)),
            None => self.found |= tokens::mentions(m.tokens.clone(), self.pred),
        }
    }
}

impl Uses {
    /// What the token scanners find in opaque tokens.
    fn scan(&mut self, ts: TokenStream) {
        self.assigned.extend(tokens::assigned(ts.clone()));
        self.parts_assigned
            .extend(tokens::parts_assigned(ts.clone()));
        self.element_written
            .extend(tokens::element_written(ts.clone()));
        for (n, s) in tokens::method_receivers(ts.clone(), &float_method) {
            self.changed.entry(n).or_insert(s);
        }
        self.indexed.extend(tokens::element_read(ts.clone()));
        self.referenced.extend(tokens::referenced(ts.clone()));
        self.tuple_read.extend(tokens::component_read(ts.clone()));
        self.others
            .extend(tokens::receivers_of_others(ts, &super::known_method));
    }

    /// `&x` among a list's items (a call's arguments, a tuple's or array's elements).
    fn referenced_items<'a>(&mut self, items: impl IntoIterator<Item = &'a Expr>) {
        for e in items {
            if let Expr::Reference(r) = e {
                if let (None, Some(id)) = (r.mutability, ident(&r.expr)) {
                    self.referenced.insert(id.to_string());
                }
            }
        }
    }

    fn changed_at(&mut self, id: &proc_macro2::Ident) {
        self.changed.entry(id.to_string()).or_insert(id.span());
    }
}

/// A macro's arguments as the expressions they are: a list (`assert!(x > 0.0, "…", v[0])`), or
/// the one array a `vec![x; n]` writes; `None` for arguments that are not expressions.
fn macro_args(m: &syn::Macro) -> Option<Vec<Expr>> {
    let list = Punctuated::<Expr, syn::Token![,]>::parse_terminated;
    if let Ok(args) = m.parse_body_with(list) {
        return Some(args.into_iter().collect());
    }
    let ts = &m.tokens;
    syn::parse2::<Expr>(quote::quote!([#ts]))
        .ok()
        .map(|e| vec![e])
}

/// The name `e` is, if it is one.
fn ident(e: &Expr) -> Option<&proc_macro2::Ident> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    }
}

/// The name an expression starts with (`v` of `v.x[k]`, of `v.iter_mut()`, `f` of `f(x)`), if
/// it starts with one: what `&mut` borrows.
fn root(e: &Expr) -> Option<&proc_macro2::Ident> {
    match e {
        Expr::Field(f) => root(&f.base),
        Expr::Index(i) => root(&i.expr),
        Expr::MethodCall(m) => root(&m.receiver),
        Expr::Call(c) => root(&c.func),
        Expr::Try(t) => root(&t.expr),
        e => ident(e),
    }
}

/// Whether `op` is one the token scanners take for an assignment (`+=`, `-=`, `*=`, `/=`).
fn is_arithmetic_assign(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_) | BinOp::SubAssign(_) | BinOp::MulAssign(_) | BinOp::DivAssign(_)
    )
}

/// A float method of the rule table (`a.tanh()`): it takes its receiver by value.
fn float_method(m: &str) -> bool {
    rules::find_method(m, false).is_some_and(|r| r.syntax == rules::Syntax::Method)
}

impl<'ast> Visit<'ast> for Uses {
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        self.written(&a.left);
        visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if is_arithmetic_assign(&b.op) {
            self.written(&b.left);
        }
        visit::visit_expr_binary(self, b);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if let (Some(id), None) = (ident(&m.receiver), &m.turbofish) {
            let method = m.method.to_string();
            if method == "push" {
                self.element_written.insert(id.to_string());
            }
            if !tokens::READ_ONLY.contains(&method.as_str()) && !float_method(&method) {
                self.changed_at(id);
            }
            if !super::known_method(&method) {
                self.others.insert(id.to_string());
            }
        }
        self.referenced_items(&m.args);
        visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_reference(&mut self, r: &'ast syn::ExprReference) {
        if r.mutability.is_some() {
            if let Some(id) = root(&r.expr) {
                self.changed_at(id);
            }
        }
        visit::visit_expr_reference(self, r);
    }

    fn visit_expr_index(&mut self, i: &'ast syn::ExprIndex) {
        if let Some(id) = ident(&i.expr) {
            self.indexed.insert(id.to_string());
        }
        self.referenced_items([&*i.index]);
        visit::visit_expr_index(self, i);
    }

    fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
        if let (Some(id), Member::Unnamed(_)) = (ident(&f.base), &f.member) {
            self.tuple_read.insert(id.to_string());
        }
        visit::visit_expr_field(self, f);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        self.referenced_items(&c.args);
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_tuple(&mut self, t: &'ast syn::ExprTuple) {
        self.referenced_items(&t.elems);
        visit::visit_expr_tuple(self, t);
    }

    fn visit_expr_array(&mut self, a: &'ast syn::ExprArray) {
        self.referenced_items(&a.elems);
        visit::visit_expr_array(self, a);
    }

    fn visit_expr_paren(&mut self, p: &'ast syn::ExprParen) {
        self.referenced_items([&*p.expr]);
        visit::visit_expr_paren(self, p);
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        if let [syn::Stmt::Expr(e, None)] = &b.stmts[..] {
            self.referenced_items([e]);
        }
        visit::visit_block(self, b);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        match macro_args(m) {
            Some(args) => {
                self.referenced_items(&args);
                args.iter().for_each(|a| self.visit_expr(a));
            }
            None => self.scan(m.tokens.clone()),
        }
    }
}

impl Uses {
    /// The target of an assignment: a name (`x`, `*x`), an element (`v[i]`), or a part
    /// (`s.x`, `s.vals[k]`).
    fn written(&mut self, left: &Expr) {
        let left = match left {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &*u.expr,
            e => e,
        };
        if let Some(id) = ident(left) {
            self.assigned.insert(id.to_string());
        } else if let Some(id) = element_of(left) {
            self.element_written.insert(id.to_string());
        } else if let Some(id) = part_of(left) {
            self.parts_assigned.insert(id.to_string());
        }
    }
}

/// `v` of `v[i]`.
fn element_of(e: &Expr) -> Option<&proc_macro2::Ident> {
    match e {
        Expr::Index(i) => ident(&i.expr),
        _ => None,
    }
}

/// `s` of `s.x`, `s.0`, `s.vals[k]`, `s.a.b[i][j]`: a name followed by fields and indices, with a
/// field first.
fn part_of(e: &Expr) -> Option<&proc_macro2::Ident> {
    match e {
        Expr::Field(f) => ident(&f.base).or_else(|| part_of(&f.base)),
        Expr::Index(i) => part_of(&i.expr),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn sets(ts: proc_macro2::TokenStream) -> String {
        let u = super::of_block(&syn::parse2(quote!({ #ts })).unwrap());
        let list = |s: &std::collections::BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>();
        let changed: std::collections::BTreeSet<String> = u.changed.keys().cloned().collect();
        format!(
            "assigned {:?} parts {:?} elements {:?} changed {:?} indexed {:?} referenced {:?} \
             tuples {:?} others {:?}",
            list(&u.assigned),
            list(&u.parts_assigned),
            list(&u.element_written),
            list(&changed),
            list(&u.indexed),
            list(&u.referenced),
            list(&u.tuple_read),
            list(&u.others),
        )
    }

    #[test]
    fn writes_by_name_element_and_part() {
        assert_eq!(
            sets(quote!(x = 1.0; *r += 2.0; v[i] -= a; s.vals[k] *= 2.0; w.push(y);)),
            "assigned [\"r\", \"x\"] parts [\"s\"] elements [\"v\", \"w\"] changed [\"w\"] \
             indexed [\"v\"] referenced [] tuples [] others []"
        );
    }

    #[test]
    fn methods_references_and_components() {
        assert_eq!(
            sets(quote!(
                let a = stack.pop().unwrap_or(z.tanh()) + v.len() as f64 + t.0;
                f(x, &k1);
                g(&mut it);
                e.det();
            )),
            "assigned [] parts [] elements [] changed [\"e\", \"it\", \"stack\"] indexed [] \
             referenced [\"k1\"] tuples [\"t\"] others [\"e\"]"
        );
    }

    #[test]
    fn mentions_reads_names_not_lengths_fields_or_paths() {
        let reads_x = |e: syn::Expr| super::mentions(&e, &mut |id| id == "x");
        assert!(reads_x(syn::parse_quote!(f(y, x + 1.0))));
        assert!(reads_x(syn::parse_quote!(P { a: 1.0, x })));
        assert!(reads_x(syn::parse_quote!({
            assert!(x > 0.0);
            1.0
        })));
        assert!(reads_x(syn::parse_quote!(vec![x; 3])));
        assert!(!reads_x(syn::parse_quote!(x.len() as f64)));
        assert!(!reads_x(syn::parse_quote!(P { x: 1.0 }.x + f64::x(y))));
    }

    #[test]
    fn macro_arguments_are_read_as_expressions_or_scanned() {
        // `assert!` and `vec!` take expressions; `matches!` takes a pattern, so its tokens are
        // scanned.
        assert_eq!(
            sets(quote!(
                assert!(v[0] > 0.0, "{}", &x);
                let w = vec![q.pop(); n];
                let m = matches!(s.pop(), Some(0 | 1));
            )),
            "assigned [] parts [] elements [] changed [\"q\", \"s\"] indexed [\"v\"] \
             referenced [\"x\"] tuples [] others []"
        );
    }
}
