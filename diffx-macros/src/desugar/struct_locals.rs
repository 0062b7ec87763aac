//! A local struct whose fields the body writes (`let mut result = KM::zero();`, then
//! `result.vals[k] = …` or `result.vals.iter_mut()…`), read only by field: one local per field
//! (`result_vals`), which lowering follows as it does any local vector or number.

use std::collections::BTreeSet;

use proc_macro2::Span;
use quote::ToTokens;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident, Member, Pat, Stmt};

/// `block` with such struct locals split into their fields.
pub fn split(mut block: Block) -> Block {
    // (Most bodies write no field of a local: one look at them then.)
    let mut writes = FieldWrites(false);
    writes.visit_block_mut(&mut block);
    if !writes.0 {
        return block;
    }
    let mut used = BTreeSet::new();
    crate::tokens::idents(block.to_token_stream(), &mut used);
    Splitter { used }.visit_block_mut(&mut block);
    block
}

/// Whether the body writes a field of a name (`r.f = …`, `r.f[k] = …`, `r.f.iter_mut()`).
struct FieldWrites(bool);

impl FieldWrites {
    fn field_place(e: &Expr) -> bool {
        match e {
            Expr::Field(f) => matches!(&*f.base, Expr::Path(_)),
            Expr::Index(i) => Self::field_place(&i.expr),
            Expr::Paren(p) => Self::field_place(&p.expr),
            _ => false,
        }
    }
}

impl VisitMut for FieldWrites {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        self.0 |= match e {
            Expr::Assign(a) => Self::field_place(&a.left),
            Expr::Binary(b) => {
                crate::analyze::activity::is_compound(&b.op) && Self::field_place(&b.left)
            }
            Expr::MethodCall(m) => m.method == "iter_mut" && Self::field_place(&m.receiver),
            _ => false,
        };
        if !self.0 {
            visit_mut::visit_expr_mut(self, e);
        }
    }
}

struct Splitter {
    used: BTreeSet<String>,
}

impl VisitMut for Splitter {
    fn visit_block_mut(&mut self, block: &mut Block) {
        let mut i = 0;
        while i < block.stmts.len() {
            if let Some(n) = self.split_at(&mut block.stmts, i) {
                i += n;
                continue;
            }
            i += 1;
        }
        visit_mut::visit_block_mut(self, block);
    }
}

impl Splitter {
    /// Splits the struct local `stmts[i]` binds, if it is one: the number of statements its
    /// `let` became.
    fn split_at(&mut self, stmts: &mut Vec<Stmt>, i: usize) -> Option<usize> {
        let Stmt::Local(l) = &stmts[i] else {
            return None;
        };
        let Pat::Ident(pi) = &l.pat else { return None };
        let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
        if pi.mutability.is_none() || matches!(&*init.expr, Expr::Struct(_)) {
            return None;
        }
        let name = pi.ident.clone();
        let value = (*init.expr).clone();
        let mut uses = Uses {
            name: &name,
            fields: Vec::new(),
            whole: false,
            written: false,
        };
        stmts[i + 1..]
            .iter_mut()
            .for_each(|s| uses.visit_stmt_mut(s));
        if uses.whole || !uses.written || uses.fields.is_empty() {
            return None;
        }
        let fields = uses.fields;
        let locals: Vec<Ident> = fields.iter().map(|f| self.fresh(&name, f)).collect();
        let whole = self.fresh(
            &name,
            &Member::Named(Ident::new("value", Span::call_site())),
        );
        let mut lets: Vec<Stmt> = vec![syn::parse_quote!(let #whole = #value;)];
        for (f, local) in fields.iter().zip(&locals) {
            lets.push(syn::parse_quote!(let mut #local = #whole.#f;));
        }
        let mut rename = Rename {
            name: &name,
            fields: &fields,
            locals: &locals,
        };
        stmts[i + 1..]
            .iter_mut()
            .for_each(|s| rename.visit_stmt_mut(s));
        let n = lets.len();
        stmts.splice(i..=i, lets);
        Some(n)
    }

    fn fresh(&mut self, name: &Ident, field: &Member) -> Ident {
        let base = match field {
            Member::Named(f) => format!("{name}_{f}"),
            Member::Unnamed(k) => format!("{name}_{}", k.index),
        };
        let mut candidate = base.clone();
        let mut k = 1;
        while self.used.contains(&candidate) {
            candidate = format!("{base}{k}");
            k += 1;
        }
        self.used.insert(candidate.clone());
        Ident::new(&candidate, name.span())
    }
}

/// How the statements after the `let` use the name: by which fields, whole, and whether they
/// write a field.
struct Uses<'a> {
    name: &'a Ident,
    fields: Vec<Member>,
    whole: bool,
    written: bool,
}

impl Uses<'_> {
    fn field_of_name(&self, e: &Expr) -> Option<Member> {
        match e {
            Expr::Field(f) if matches!(&*f.base, Expr::Path(p) if p.path.is_ident(self.name)) => {
                Some(f.member.clone())
            }
            _ => None,
        }
    }

    /// Whether `e` writes into the field it names: `name.f[k]`, `name.f`, `name.f.iter_mut()`.
    fn writes(&self, e: &Expr) -> bool {
        match e {
            Expr::Index(i) => self.writes(&i.expr),
            Expr::Paren(p) => self.writes(&p.expr),
            e => self.field_of_name(e).is_some(),
        }
    }
}

impl VisitMut for Uses<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Some(f) = self.field_of_name(e) {
            if !self.fields.contains(&f) {
                self.fields.push(f);
            }
            return;
        }
        match e {
            Expr::Path(p) if p.path.is_ident(self.name) => self.whole = true,
            Expr::Assign(a) => self.written |= self.writes(&a.left),
            Expr::Binary(b) if crate::analyze::activity::is_compound(&b.op) => {
                self.written |= self.writes(&b.left)
            }
            Expr::MethodCall(m) if m.method == "iter_mut" => {
                self.written |= self.writes(&m.receiver)
            }
            _ => {}
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        // (Bound again: what follows reads another value.)
        self.whole |= p.ident == *self.name;
    }
}

/// Rewrites `name.f` into the field's local.
struct Rename<'a> {
    name: &'a Ident,
    fields: &'a [Member],
    locals: &'a [Ident],
}

impl VisitMut for Rename<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Field(f) = e {
            if matches!(&*f.base, Expr::Path(p) if p.path.is_ident(self.name)) {
                if let Some(k) = self.fields.iter().position(|m| *m == f.member) {
                    let local = &self.locals[k];
                    *e = syn::parse_quote!(#local);
                    return;
                }
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }
}
