//! A mutable reference to a place, bound by `let` (`let r = &mut v[k];`, which a chain over
//! `iter_mut()` and its closure `|r| *r = …` come to) and written through (`*r = e;`, `*r += e;`),
//! becomes the place itself: `v[k] = e;`. Lowering follows writes to places, not references.

use std::collections::BTreeSet;

use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident, Pat, Stmt};

/// `block` with its `let r = &mut place;` written through as the place.
pub fn written_through(mut block: Block) -> Block {
    Places.visit_block_mut(&mut block);
    block
}

struct Places;

impl VisitMut for Places {
    fn visit_block_mut(&mut self, block: &mut Block) {
        let mut i = 0;
        while i < block.stmts.len() {
            if let Some((name, place)) = mutable_ref(&block.stmts[i]) {
                let rest = &mut block.stmts[i + 1..];
                // (`let r = t;` of such a reference, as binding a closure's tuple parameter
                // writes it, names the same place.)
                let mut aliases = vec![name];
                collect_aliases(rest, &mut aliases);
                if aliases.iter().all(|n| only_dereferenced(rest, n, &aliases))
                    && !reassigns(rest, &place)
                {
                    let mut deref = Deref { aliases, place };
                    rest.iter_mut().for_each(|s| deref.visit_stmt_mut(s));
                    block.stmts.remove(i);
                    block.stmts.retain(|s| !deref.is_alias_let(s));
                    continue;
                }
            }
            i += 1;
        }
        visit_mut::visit_block_mut(self, block);
    }
}

/// The names bound to one of `aliases` (`let r = t;`), added to them.
fn collect_aliases(stmts: &[Stmt], aliases: &mut Vec<Ident>) {
    for s in stmts {
        if let Some(bound) = alias_of(s, aliases) {
            aliases.push(bound);
        }
    }
}

/// `let b = a;` for `a` among `aliases`: `b`.
fn alias_of(s: &Stmt, aliases: &[Ident]) -> Option<Ident> {
    let Stmt::Local(l) = s else { return None };
    let Pat::Ident(pi) = &l.pat else { return None };
    let init = l.init.as_ref()?;
    match &*init.expr {
        Expr::Path(p) if p.path.get_ident().is_some_and(|i| aliases.contains(i)) => {
            Some(pi.ident.clone())
        }
        _ => None,
    }
}

/// `let r = &mut place;`: the name and the place.
fn mutable_ref(s: &Stmt) -> Option<(Ident, Expr)> {
    let Stmt::Local(l) = s else { return None };
    let Pat::Ident(pi) = &l.pat else { return None };
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    match &*init.expr {
        Expr::Reference(r) if r.mutability.is_some() && is_place(&r.expr) => {
            Some((pi.ident.clone(), (*r.expr).clone()))
        }
        _ => None,
    }
}

/// A place whose indices are names or literals: it means the same element until one of its names
/// is assigned.
fn is_place(e: &Expr) -> bool {
    match e {
        Expr::Path(p) => p.path.get_ident().is_some(),
        Expr::Field(f) => is_place(&f.base),
        Expr::Index(i) => is_place(&i.expr) && matches!(&*i.index, Expr::Path(_) | Expr::Lit(_)),
        Expr::Paren(p) => is_place(&p.expr),
        _ => false,
    }
}

/// The names a place reads.
fn names(e: &Expr, out: &mut BTreeSet<String>) {
    match e {
        Expr::Path(p) => {
            if let Some(id) = p.path.get_ident() {
                out.insert(id.to_string());
            }
        }
        Expr::Field(f) => names(&f.base, out),
        Expr::Index(i) => {
            names(&i.expr, out);
            names(&i.index, out);
        }
        Expr::Paren(p) => names(&p.expr, out),
        _ => {}
    }
}

/// Whether every use of `name` in `stmts` is `*name`, or `let b = name;` of an alias.
fn only_dereferenced(stmts: &mut [Stmt], name: &Ident, aliases: &[Ident]) -> bool {
    struct Uses<'a> {
        name: &'a Ident,
        bare: bool,
    }
    impl VisitMut for Uses<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            match e {
                Expr::Unary(u)
                    if matches!(u.op, syn::UnOp::Deref(_))
                        && matches!(&*u.expr, Expr::Path(p) if p.path.is_ident(self.name)) => {}
                Expr::Path(p) if p.path.is_ident(self.name) => self.bare = true,
                _ => visit_mut::visit_expr_mut(self, e),
            }
        }
    }
    let mut uses = Uses { name, bare: false };
    for s in stmts.iter_mut() {
        if alias_of(s, aliases).is_none() {
            uses.visit_stmt_mut(s);
        }
    }
    !uses.bare
}

/// Whether `stmts` assign or bind again a name the place reads.
fn reassigns(stmts: &mut [Stmt], place: &Expr) -> bool {
    let mut read = BTreeSet::new();
    names(place, &mut read);
    struct Assigns<'a> {
        read: &'a BTreeSet<String>,
        found: bool,
    }
    impl VisitMut for Assigns<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            let target = match e {
                Expr::Assign(a) => Some(&*a.left),
                Expr::Binary(b) if crate::analyze::activity::is_compound(&b.op) => Some(&*b.left),
                _ => None,
            };
            let named = |t: &Expr| matches!(t, Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.read.contains(&i.to_string())));
            if target.is_some_and(named) {
                self.found = true;
            }
            visit_mut::visit_expr_mut(self, e);
        }
        fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
            self.found |= self.read.contains(&p.ident.to_string());
        }
    }
    let mut a = Assigns {
        read: &read,
        found: false,
    };
    stmts.iter_mut().for_each(|s| a.visit_stmt_mut(s));
    a.found
}

/// Rewrites `*name` into the place, for the name and its aliases.
struct Deref {
    aliases: Vec<Ident>,
    place: Expr,
}

impl Deref {
    fn is_alias_let(&self, s: &Stmt) -> bool {
        alias_of(s, &self.aliases).is_some()
    }
}

impl VisitMut for Deref {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Unary(u) = e {
            if matches!(u.op, syn::UnOp::Deref(_))
                && matches!(&*u.expr, Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.aliases.contains(i)))
            {
                *e = self.place.clone();
                return;
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }
}
