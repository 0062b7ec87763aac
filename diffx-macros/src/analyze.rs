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
}

/// The facts of a desugared body.
pub fn body(block: &syn::Block) -> Facts {
    let ts = block.to_token_stream();
    Facts {
        written: tokens::element_written(ts.clone()),
        changed_in_place: changed_in_place(ts.clone()).into_keys().collect(),
        indexed: tokens::element_read(ts.clone()),
        referenced: tokens::referenced(ts.clone()),
        tuple_read: tokens::component_read(ts),
    }
}

/// The names a method that may change its receiver is called on in `tokens`, or that are
/// borrowed mutably, each with where it is first (see [`tokens::method_receivers`]); a float
/// method of the rule table (`a.tanh()`) takes its receiver by value and changes nothing.
pub fn changed_in_place(tokens: TokenStream) -> BTreeMap<String, Span> {
    let float_method =
        |m: &str| rules::find_method(m, false).is_some_and(|r| r.syntax == rules::Syntax::Method);
    tokens::method_receivers(tokens, &float_method)
}
