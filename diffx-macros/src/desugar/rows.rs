//! A local array of arrays (`let m = [[a, b], [c, d]];`, `let mut m = [[0.0; 3]; 3];`) kept as
//! one flat array, row after row: lowering follows the elements of one-dimensional vectors. Its
//! reads and writes `m[i][j]` become `m[i * k + j]`, `m.len()` the number of rows and `m[i].len()`
//! the row length; any other use of `m` is refused, since the flat array would answer it
//! differently.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident, Pat, Stmt};

/// `block` with its local arrays of arrays flattened.
pub fn flattened(mut block: Block) -> syn::Result<Block> {
    let mut f = Flatten { errors: Vec::new() };
    f.visit_block_mut(&mut block);
    match f.errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok(block),
    }
}

struct Flatten {
    errors: Vec<syn::Error>,
}

impl VisitMut for Flatten {
    fn visit_block_mut(&mut self, block: &mut Block) {
        for i in 0..block.stmts.len() {
            let Some((name, rows, cols)) = flatten_local(&mut block.stmts[i]) else {
                continue;
            };
            let mut reads = Reads {
                name,
                rows,
                cols,
                errors: &mut self.errors,
            };
            reads.statements(&mut block.stmts[i + 1..]);
        }
        visit_mut::visit_block_mut(self, block);
    }
}

/// `let m = [[…], […]];` rewritten flat, with the name, the number of rows and the row length.
fn flatten_local(stmt: &mut Stmt) -> Option<(Ident, usize, usize)> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let (pat, ty) = match &mut local.pat {
        Pat::Type(t) => (&*t.pat, Some(&mut t.ty)),
        p => (&*p, None),
    };
    let Pat::Ident(pi) = pat else { return None };
    let name = pi.ident.clone();
    let init = &mut local.init.as_mut()?.expr;
    let (flat, rows, cols) = flat_literal(init)?;
    **init = flat;
    if let Some(ty) = ty {
        if let syn::Type::Array(outer) = &**ty {
            if let syn::Type::Array(inner) = &*outer.elem {
                let elem = &inner.elem;
                let n = rows * cols;
                **ty = syn::parse_quote!([#elem; #n]);
            }
        }
    }
    Some((name, rows, cols))
}

/// `[[a, b], [c, d]]` as `[a, b, c, d]`, `[[v; k]; n]` as `[v; n * k]`, with the shape.
pub fn flat_literal(e: &Expr) -> Option<(Expr, usize, usize)> {
    match e {
        Expr::Array(rows) => {
            let mut items = Vec::new();
            let mut cols = None;
            for row in &rows.elems {
                let Expr::Array(r) = row else { return None };
                if *cols.get_or_insert(r.elems.len()) != r.elems.len() {
                    return None;
                }
                items.extend(r.elems.iter().cloned());
            }
            let cols = cols.filter(|&c| c > 0)?;
            Some((syn::parse_quote!([#(#items),*]), rows.elems.len(), cols))
        }
        Expr::Repeat(outer) => {
            let Expr::Repeat(inner) = &*outer.expr else {
                return None;
            };
            let (rows, cols) = (literal(&outer.len)?, literal(&inner.len)?);
            let v = &inner.expr;
            let n = rows * cols;
            Some((syn::parse_quote!([#v; #n]), rows, cols))
        }
        _ => None,
    }
}

fn literal(e: &Expr) -> Option<usize> {
    match e {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// Rewrites the uses of one flattened array in the statements after its `let`.
struct Reads<'e> {
    name: Ident,
    rows: usize,
    cols: usize,
    errors: &'e mut Vec<syn::Error>,
}

impl Reads<'_> {
    /// Rewrites `stmts` up to a `let` that binds the name again.
    fn statements(&mut self, stmts: &mut [Stmt]) {
        for s in stmts {
            self.visit_stmt_mut(s);
            if let Stmt::Local(l) = s {
                if binds(&l.pat, &self.name) {
                    return;
                }
            }
        }
    }

    fn is_name(&self, e: &Expr) -> bool {
        matches!(e, Expr::Path(p) if p.path.is_ident(&self.name))
    }

    /// A macro's tokens cannot be rewritten reliably: one that names the array is refused.
    fn refuse_in_macro(&mut self, mac: &syn::Macro) {
        let mentioned = mac
            .tokens
            .clone()
            .into_iter()
            .any(|t| matches!(&t, proc_macro2::TokenTree::Ident(i) if *i == self.name));
        if mentioned {
            self.refuse(mac.span());
        }
    }

    fn refuse(&mut self, span: Span) {
        let m = &self.name;
        self.errors.push(syn::Error::new(
            span,
            format!("`{m}` is an array of arrays: read and write it by element (`{m}[i][j]`), with `{m}.len()` and `{m}[i].len()`; to pass a row, copy it into an array of its own first"),
        ));
    }
}

impl VisitMut for Reads<'_> {
    fn visit_block_mut(&mut self, block: &mut Block) {
        self.statements(&mut block.stmts);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Index(outer) => {
                if let Expr::Index(inner) = &mut *outer.expr {
                    if self.is_name(&inner.expr) {
                        self.visit_expr_mut(&mut inner.index);
                        self.visit_expr_mut(&mut outer.index);
                        let (name, i, j, k) = (&self.name, &inner.index, &outer.index, self.cols);
                        let at = outer.bracket_token.span.join();
                        let flat: Expr = syn::parse_quote_spanned!(at=> #name[(#i) * #k + (#j)]);
                        *e = flat;
                        return;
                    }
                }
            }
            Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => {
                if self.is_name(&m.receiver) {
                    let n = self.rows;
                    *e = syn::parse_quote!(#n);
                    return;
                }
                if let Expr::Index(row) = &mut *m.receiver {
                    if self.is_name(&row.expr) {
                        self.visit_expr_mut(&mut row.index);
                        let k = self.cols;
                        *e = syn::parse_quote!(#k);
                        return;
                    }
                }
            }
            Expr::Path(_) if self.is_name(e) => {
                self.refuse(e.span());
                return;
            }
            Expr::Macro(m) => {
                self.refuse_in_macro(&m.mac);
                return;
            }
            _ => {}
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        if let Stmt::Macro(m) = s {
            self.refuse_in_macro(&m.mac);
            return;
        }
        visit_mut::visit_stmt_mut(self, s);
    }
}

/// Whether `pat` binds `name`.
fn binds(pat: &Pat, name: &Ident) -> bool {
    match pat {
        Pat::Ident(p) => p.ident == *name,
        Pat::Type(t) => binds(&t.pat, name),
        Pat::Tuple(t) => t.elems.iter().any(|p| binds(p, name)),
        Pat::Slice(s) => s.elems.iter().any(|p| binds(p, name)),
        _ => false,
    }
}
