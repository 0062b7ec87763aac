//! What the body does with its names, found once after desugaring and before lowering (the
//! annotations Google Tangent computes before it transforms), so that lowering reads them and
//! does not rediscover them.
//!
//! The facts are keyed by name and found by scanning the body's tokens: scopes are not told
//! apart yet, so a name declared again in an inner block shares the facts of the outer one (which
//! can only add names: more values kept in locals, more copies).

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;

use crate::{rules, tokens};

/// What the body does with each name.
#[derive(Default)]
pub struct Facts {
    /// Local vectors written element by element (`v[i] = …`, `v.push(…)`): a constant read from
    /// one is kept in a local where it is read, since the backward sweep evaluates partials
    /// later, after the vector may have changed.
    pub written: BTreeSet<String>,
    /// Names a method that may change its receiver is called on (`stack` of `stack.pop()`), or
    /// that are borrowed mutably, anywhere.
    pub changed_in_place: BTreeSet<String>,
    /// Names indexed (`k1[0]`): a call bound to one returns a vector (`let k1 = rhs(s, k);`).
    pub indexed: BTreeSet<String>,
    /// Names passed by reference as whole arguments (`g(x, &k1)`): in a function of numbers, a
    /// call bound to one returns a vector.
    pub referenced: BTreeSet<String>,
    /// Names whose tuple components are read (`t.0`): a call bound to one returns a tuple.
    pub tuple_read: BTreeSet<String>,
    /// Names a method of no number, vector or rule is called on (`e` of `e.det()`): values of
    /// the user's types, whose operators are their `#[autodiff]` impls'.
    pub own_types: BTreeSet<String>,
    /// Names read by two indices (`m[i][j]`): a call bound to one returns an array of arrays
    /// (`let m = self.to_matrix();`), a value of the user's shape read by place.
    pub rows_read: BTreeSet<String>,
}

/// The facts of a desugared body.
pub fn body(block: &syn::Block) -> Facts {
    let ts = block.to_token_stream();
    Facts {
        written: tokens::element_written(ts.clone()),
        changed_in_place: changed_in_place(ts.clone()).into_keys().collect(),
        indexed: tokens::element_read(ts.clone()),
        referenced: tokens::referenced(ts.clone()),
        tuple_read: tokens::component_read(ts.clone()),
        own_types: tokens::receivers_of_others(ts, &known_method),
        rows_read: rows_read(block),
    }
}

/// The names read by two indices (`m[i][j]`).
fn rows_read(block: &syn::Block) -> BTreeSet<String> {
    struct Rows(BTreeSet<String>);
    impl syn::visit_mut::VisitMut for Rows {
        fn visit_expr_index_mut(&mut self, i: &mut syn::ExprIndex) {
            if let syn::Expr::Index(inner) = &*i.expr {
                if let syn::Expr::Path(p) = &*inner.expr {
                    if let Some(name) = p.path.get_ident() {
                        self.0.insert(name.to_string());
                    }
                }
            }
            syn::visit_mut::visit_expr_index_mut(self, i);
        }
    }
    let mut rows = Rows(BTreeSet::new());
    syn::visit_mut::VisitMut::visit_block_mut(&mut rows, &mut block.clone());
    rows.0
}

/// Methods of numbers, vectors, options and the rule table: a value they are called on may be
/// any of those, not necessarily one of the user's types.
fn known_method(m: &str) -> bool {
    const KNOWN: &[&str] = &[
        "len",
        "is_empty",
        "iter",
        "iter_mut",
        "into_iter",
        "get",
        "contains",
        "clone",
        "first",
        "last",
        "to_vec",
        "as_slice",
        "push",
        "pop",
        "extend",
        "extend_from_slice",
        "swap",
        "fill",
        "copy_from_slice",
        "reverse",
        "insert",
        "remove",
        "truncate",
        "resize",
        "clear",
        "is_finite",
        "is_nan",
        "is_infinite",
        "is_sign_positive",
        "is_sign_negative",
        "is_normal",
        "classify",
        "to_bits",
        "partial_cmp",
        "total_cmp",
        "to_string",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "unwrap",
        "unwrap_or",
        "expect",
        "is_some",
        "is_none",
        "map",
        "signum",
        "floor",
        "ceil",
        "round",
        "trunc",
        "clamp",
        "shape",
        "rows",
        "cols",
        "data",
    ];
    KNOWN.contains(&m)
        || rules::find_method(m, false).is_some()
        || rules::find_method(m, true).is_some()
}

/// The names a method that may change its receiver is called on in `tokens`, or that are
/// borrowed mutably, each with where it is first (see [`tokens::method_receivers`]); a float
/// method of the rule table (`a.tanh()`) takes its receiver by value and changes nothing.
pub fn changed_in_place(tokens: TokenStream) -> BTreeMap<String, Span> {
    let float_method =
        |m: &str| rules::find_method(m, false).is_some_and(|r| r.syntax == rules::Syntax::Method);
    tokens::method_receivers(tokens, &float_method)
}
