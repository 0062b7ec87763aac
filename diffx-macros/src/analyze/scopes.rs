//! Scopes resolved: every binding of a body gets a name of its own, so that a fact about a name
//! is a fact about one binding. A binding whose name is bound already (a parameter, an earlier
//! `let`, another loop's `i`, `let x = x * 2.0;`) is renamed apart, with every use that resolves
//! to it; the first binding of each name keeps it. This is the "Barendregt convention" of
//! compilers: after it, desugaring, analysis and lowering, which key their facts and scopes by
//! name, key them by binding. It runs on the user's body, before desugaring, and again on the
//! desugared body, for the names desugaring binds.
//!
//! What is not renamed shares its facts with the other bindings of its name (more names kept in
//! locals, more copies; never a different value): the macro's own names, names a format string
//! reads (`"{x}"`, which the macro cannot rename inside the literal), and names starting with an
//! uppercase letter (a pattern of that name may be a constant or a variant, not a binding). Names
//! inside a macro's arguments (`assert!(x > 0.0)`) are renamed as the scope says, as rustc
//! resolves them.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::Ident;
use quote::ToTokens;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Pat};

use crate::{names, tokens};

/// `block` (whose function has the parameters `params`) with its bindings renamed apart, and for
/// each new name the user's.
pub(super) fn apart(mut block: Block, params: &[String]) -> (Block, BTreeMap<String, String>) {
    let mut names = Identifiers::default();
    syn::visit::Visit::visit_block(&mut names, &block);
    let Identifiers { used, keep } = names;
    let mut apart = Apart {
        scopes: vec![params.iter().map(|p| (p.clone(), None)).collect()],
        bound: params.iter().map(|p| (p.clone(), 1)).collect(),
        used,
        keep,
        renamed: BTreeMap::new(),
    };
    apart.visit_block_mut(&mut block);
    (block, apart.renamed)
}

/// Every identifier of a body (new names avoid them), and the names its macros' format strings
/// read (never renamed), from syn's tree: only a macro's tokens are walked as tokens.
#[derive(Default)]
struct Identifiers {
    used: BTreeSet<String>,
    keep: BTreeSet<String>,
}

impl<'ast> syn::visit::Visit<'ast> for Identifiers {
    fn visit_ident(&mut self, id: &'ast Ident) {
        self.used.insert(id.to_string());
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        syn::visit::visit_macro(self, m);
        tokens::idents(m.tokens.clone(), &mut self.used);
        tokens::format_names(m.tokens.clone(), &mut self.keep);
    }
}

/// The walk: scopes from the outermost in, each name bound in one to its new name (`None`: kept).
struct Apart {
    scopes: Vec<BTreeMap<String, Option<String>>>,
    /// How many bindings of each name were met so far.
    bound: BTreeMap<String, usize>,
    /// Every identifier of the body: new names avoid them.
    used: BTreeSet<String>,
    /// Names never renamed (see the module's documentation).
    keep: BTreeSet<String>,
    /// Each new name, with the user's.
    renamed: BTreeMap<String, String>,
}

impl Apart {
    /// The name of `id` where it resolves to a renamed binding: the new name, at `id`'s place.
    fn resolved(&self, id: &Ident) -> Option<Ident> {
        let name = id.to_string();
        let new = self.scopes.iter().rev().find_map(|s| s.get(&name))?;
        new.as_ref().map(|n| Ident::new(n, id.span()))
    }

    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.scopes.push(BTreeMap::new());
        f(self);
        self.scopes.pop();
    }

    /// Binds the names of `pat` in the innermost scope, renaming those bound already.
    fn bind(&mut self, pat: &mut Pat) {
        let mut found = Vec::new();
        each_binder(pat, &mut |id| found.push(id.to_string()));
        let mut new_names = BTreeMap::new();
        for name in found {
            if new_names.contains_key(&name) {
                continue; // (the alternatives of `A(x) | B(x)` bind one `x`)
            }
            let count = self.bound.entry(name.clone()).or_insert(0);
            *count += 1;
            let fixed = self.keep.contains(&name) || names::is_generated(&name);
            let new = (*count > 1 && !fixed).then(|| self.fresh(&name));
            new_names.insert(name.clone(), new.clone());
            if let Some(scope) = self.scopes.last_mut() {
                scope.insert(name, new);
            }
        }
        each_binder(pat, &mut |id| {
            if let Some(Some(new)) = new_names.get(&id.to_string()) {
                *id = Ident::new(new, id.span());
            }
        });
    }

    /// A name for another binding of `name`, unused in the body.
    fn fresh(&mut self, name: &str) -> String {
        let sep = if name.ends_with('_') { "" } else { "_" };
        let mut k = 1;
        while self.used.contains(&format!("{name}{sep}diffx{k}")) {
            k += 1;
        }
        let new = format!("{name}{sep}diffx{k}");
        self.used.insert(new.clone());
        self.renamed.insert(new.clone(), name.to_string());
        new
    }
}

impl VisitMut for Apart {
    fn visit_block_mut(&mut self, b: &mut Block) {
        self.scoped(|s| visit_mut::visit_block_mut(s, b));
    }

    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, diverge)) = &mut init.diverge {
                self.visit_expr_mut(diverge);
            }
        }
        self.bind(&mut l.pat);
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        self.scoped(|s| {
            c.inputs.iter_mut().for_each(|p| s.bind(p));
            s.visit_expr_mut(&mut c.body);
        });
    }

    fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
        self.visit_expr_mut(&mut f.expr);
        self.scoped(|s| {
            s.bind(&mut f.pat);
            s.visit_block_mut(&mut f.body);
        });
    }

    fn visit_arm_mut(&mut self, a: &mut syn::Arm) {
        self.scoped(|s| {
            s.bind(&mut a.pat);
            if let Some((_, guard)) = &mut a.guard {
                s.visit_expr_mut(guard);
            }
            s.visit_expr_mut(&mut a.body);
        });
    }

    // The names an `if let` or `while let` binds are bound in its condition and body only.
    fn visit_expr_if_mut(&mut self, i: &mut syn::ExprIf) {
        self.scoped(|s| {
            s.visit_expr_mut(&mut i.cond);
            s.visit_block_mut(&mut i.then_branch);
        });
        if let Some((_, e)) = &mut i.else_branch {
            self.visit_expr_mut(e);
        }
    }

    fn visit_expr_while_mut(&mut self, w: &mut syn::ExprWhile) {
        self.scoped(|s| {
            s.visit_expr_mut(&mut w.cond);
            s.visit_block_mut(&mut w.body);
        });
    }

    fn visit_expr_let_mut(&mut self, l: &mut syn::ExprLet) {
        self.visit_expr_mut(&mut l.expr);
        self.bind(&mut l.pat);
    }

    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if p.qself.is_none() {
            if let Some(new) = p.path.get_ident().and_then(|id| self.resolved(id)) {
                p.path.segments[0].ident = new;
            }
        }
    }

    // `S { x }` of a renamed `x` is `S { x: x_diffx1 }`.
    fn visit_expr_struct_mut(&mut self, s: &mut syn::ExprStruct) {
        visit_mut::visit_expr_struct_mut(self, s);
        for f in s.fields.iter_mut().filter(|f| f.colon_token.is_none()) {
            if let (syn::Member::Named(m), Expr::Path(p)) = (&f.member, &f.expr) {
                if p.path.get_ident() != Some(m) {
                    f.colon_token = Some(Default::default());
                }
            }
        }
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        let ts = std::mem::take(&mut m.tokens);
        m.tokens = tokens::substitute(ts, &mut |id| {
            self.resolved(id).map(|n| n.into_token_stream())
        });
    }

    // An item declared in the body sees none of its locals.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Calls `f` with each binding identifier of `pat` (not a constant's or variant's name), which it
/// may rename; `S { x }` binding a renamed `x` becomes `S { x: x_diffx1 }`.
fn each_binder(pat: &mut Pat, f: &mut dyn FnMut(&mut Ident)) {
    match pat {
        Pat::Ident(p) => {
            if is_binder(&p.ident) {
                f(&mut p.ident);
            }
            if let Some((_, sub)) = &mut p.subpat {
                each_binder(sub, f);
            }
        }
        Pat::Or(o) => o.cases.iter_mut().for_each(|c| each_binder(c, f)),
        Pat::Paren(p) => each_binder(&mut p.pat, f),
        Pat::Reference(r) => each_binder(&mut r.pat, f),
        Pat::Slice(s) => s.elems.iter_mut().for_each(|e| each_binder(e, f)),
        Pat::Struct(s) => {
            for fp in s.fields.iter_mut() {
                each_binder(&mut fp.pat, f);
                if let (syn::Member::Named(m), Pat::Ident(p)) = (&fp.member, &*fp.pat) {
                    if p.ident != *m {
                        fp.colon_token = Some(Default::default());
                    }
                }
            }
        }
        Pat::Tuple(t) => t.elems.iter_mut().for_each(|e| each_binder(e, f)),
        Pat::TupleStruct(t) => t.elems.iter_mut().for_each(|e| each_binder(e, f)),
        Pat::Type(t) => each_binder(&mut t.pat, f),
        _ => {}
    }
}

/// Whether a `Pat::Ident` of this name binds (`x`, `_acc`), rather than naming a constant or a
/// variant (`None`, `MAX`).
fn is_binder(id: &Ident) -> bool {
    let s = id.to_string();
    s != "self" && !s.starts_with(|c: char| c.is_uppercase())
}

#[cfg(test)]
mod tests {
    use quote::quote;

    fn renamed(body: proc_macro2::TokenStream) -> String {
        let block: syn::Block = syn::parse2(body).unwrap();
        let (block, user) = super::apart(block, &["x".to_string()]);
        let user: Vec<String> = user.iter().map(|(n, u)| format!("{n}={u}")).collect();
        // (How syn prints a last match arm's comma depends on its features: not compared.)
        let block = quote!(#block).to_string().replace(" , }", " }");
        format!("{block} | {}", user.join(" "))
    }

    #[test]
    fn a_name_bound_again_is_renamed_with_its_uses() {
        let out = renamed(quote!({
            let x = x * 2.0;
            let y = x + 1.0;
            let y = y * y;
            y
        }));
        assert_eq!(
            out,
            "{ let x_diffx1 = x * 2.0 ; let y = x_diffx1 + 1.0 ; let y_diffx1 = y * y ; y_diffx1 } \
             | x_diffx1=x y_diffx1=y"
        );
    }

    #[test]
    fn scopes_end_where_rust_ends_them() {
        // Sibling loops, an inner block, an arm and an `if let` each bind their own `t`; the
        // outer `t` is read again after each of them.
        let out = renamed(quote!({
            let t = 1.0;
            for i in 0..2 {
                let t = t + 1.0;
            }
            for i in 0..3 {
                s += i;
            }
            {
                let t = 2.0;
            }
            match k {
                0 => t,
                t => t + 1,
            }
            if let Some(t) = o {
                t
            } else {
                t
            }
        }));
        assert_eq!(
            out,
            "{ let t = 1.0 ; \
             for i in 0 .. 2 { let t_diffx1 = t + 1.0 ; } \
             for i_diffx1 in 0 .. 3 { s += i_diffx1 ; } \
             { let t_diffx2 = 2.0 ; } \
             match k { 0 => t , t_diffx3 => t_diffx3 + 1 } \
             if let Some (t_diffx4) = o { t_diffx4 } else { t } } \
             | i_diffx1=i t_diffx1=t t_diffx2=t t_diffx3=t t_diffx4=t"
        );
    }

    #[test]
    fn closures_shorthand_and_macro_arguments_follow_the_binding() {
        let out = renamed(quote!({
            let f = |x: f64| x * x;
            let p = P { x };
            let P { x, .. } = p;
            assert!(x > 0.0, "x = {}", x);
            x
        }));
        assert_eq!(
            out,
            "{ let f = | x_diffx1 : f64 | x_diffx1 * x_diffx1 ; \
             let p = P { x } ; \
             let P { x : x_diffx2 , .. } = p ; \
             assert ! (x_diffx2 > 0.0 , \"x = {}\" , x_diffx2) ; \
             x_diffx2 } \
             | x_diffx1=x x_diffx2=x"
        );
    }

    #[test]
    fn what_cannot_be_renamed_is_kept() {
        // A name a format string reads, a constant's or variant's pattern, the macro's own names,
        // and items, which see no locals.
        let out = renamed(quote!({
            let y = 1.0;
            let y = y + 1.0;
            println!("{y}");
            match o {
                None => 0.0,
                MAX => 1.0,
            }
            let __diffx_k = 0;
            let __diffx_k = 1;
            fn g(x: f64) -> f64 {
                let x = x;
                x
            }
            y
        }));
        assert_eq!(
            out,
            "{ let y = 1.0 ; let y = y + 1.0 ; println ! (\"{y}\") ; \
             match o { None => 0.0 , MAX => 1.0 } \
             let __diffx_k = 0 ; let __diffx_k = 1 ; \
             fn g (x : f64) -> f64 { let x = x ; x } \
             y } | "
        );
    }

    #[test]
    fn new_names_avoid_the_users() {
        let out = renamed(quote!({
            let x_diffx1 = 1.0;
            let x = x_diffx1;
            x
        }));
        assert_eq!(
            out,
            "{ let x_diffx1 = 1.0 ; let x_diffx2 = x_diffx1 ; x_diffx2 } | x_diffx2=x"
        );
    }
}
