//! The parts of a call's tuple result as the user bound them (`let (p, s) = state(x);`): the
//! list holds the call's value as the array of its numbers, read at `[__DIFFX_PARTS_state[k] + j]`;
//! `explain_` names its rows and shows its reads `p[j]` and `s` instead.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::quote;

use crate::ir::{Atom, Func, Kind, Op, Path, Stmt, Var};

/// The parts of one call's tuple result that the user named.
pub struct TupleNames {
    /// The callee's const of where each part starts (`__DIFFX_PARTS_state`).
    pub starts: TokenStream,
    /// Part `k`'s name, for the parts bound to a name.
    pub names: Vec<(usize, String)>,
}

impl TupleNames {
    fn name(&self, k: usize) -> Option<&str> {
        self.names
            .iter()
            .find(|(i, _)| *i == k)
            .map(|(_, n)| n.as_str())
    }

    /// `(p, s)`: the row of the whole call.
    pub fn row_name(&self) -> String {
        let names: Vec<&str> = self.names.iter().map(|(_, n)| n.as_str()).collect();
        format!("({})", names.join(", "))
    }

    /// Whether `name` is one of the parts' names.
    pub fn names_part(&self, name: &str) -> bool {
        self.names.iter().any(|(_, n)| n == name)
    }

    /// The read at `path` as the user wrote it, `p[1]` or `s`, as one token (no parentheses
    /// around it in a shown expression).
    pub fn shown(&self, path: &Path) -> Option<Atom> {
        let (_, k, j) = tuple_element(path)?;
        let name: TokenStream = self.name(k)?.parse().ok()?;
        let read = match j {
            Some(j) => {
                let j = proc_macro2::Literal::usize_unsuffixed(j);
                quote!(#name[#j])
            }
            None => name,
        };
        Some(Atom::Const(
            TokenTree::Group(Group::new(Delimiter::None, read)).into(),
        ))
    }

    /// `(starts, &[(k, "p"), …])`: what the recorder names the element rows by.
    pub fn split_args(&self) -> TokenStream {
        let starts = &self.starts;
        let names = self.names.iter().map(|(k, n)| quote!((#k, #n)));
        quote!(&#starts, &[#(#names),*])
    }
}

/// `(P, k, j)` of an element path `[P[k] + j]` (`j` is `None` for `[P[k]]`, a part that is a
/// number).
fn tuple_element(path: &Path) -> Option<(TokenStream, usize, Option<usize>)> {
    let index = path.only_index()?.tokens().clone();
    let trees: Vec<TokenTree> = index.into_iter().collect();
    let at = trees
        .iter()
        .position(|t| matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket))?;
    let starts: TokenStream = trees[..at].iter().cloned().collect();
    let TokenTree::Group(k) = &trees[at] else {
        return None;
    };
    let k = literal(&k.stream())?;
    let j = match &trees[at + 1..] {
        [] => None,
        [TokenTree::Punct(p), TokenTree::Literal(j)] if p.as_char() == '+' => {
            Some(literal(&TokenTree::Literal(j.clone()).into())?)
        }
        _ => return None,
    };
    Some((starts, k, j))
}

fn literal(t: &TokenStream) -> Option<usize> {
    let text = t.to_string();
    text.trim_end_matches("usize").parse().ok()
}

/// For each call whose tuple result the user destructured or read by part, the names of its
/// parts, by the call's value.
pub fn named_parts(f: &Func, user: &BTreeSet<String>) -> HashMap<Var, TupleNames> {
    let mut calls = BTreeSet::new();
    let mut parts: HashMap<Var, TupleNames> = HashMap::new();
    for s in &f.body {
        s.walk(&mut |s| match s {
            Stmt::Let {
                dst,
                op: Op::Call(_),
                ..
            } if f.kind(*dst) == Kind::Slice => {
                calls.insert(*dst);
            }
            Stmt::Let {
                dst,
                op: Op::Id,
                args,
                ..
            } => {
                let name = f.name(*dst).to_string();
                let [Atom::Field(v, path)] = &args[..] else {
                    return;
                };
                let Some((starts, k, None)) = tuple_element(path) else {
                    return;
                };
                if calls.contains(v) && user.contains(&name) {
                    let entry = parts.entry(*v).or_insert_with(|| TupleNames {
                        starts,
                        names: Vec::new(),
                    });
                    entry.names.push((k, name));
                }
            }
            _ => {}
        });
    }
    parts
}
