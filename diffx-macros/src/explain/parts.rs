//! The parts of a call's tuple result as the user bound them (`let (p, s) = state(x);`): the
//! list holds the call's value as the array of its numbers, read at `[__DIFFX_PARTS_state[k] + j]`;
//! `explain_` names its rows and shows its reads `p[j]` and `s` instead.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::quote;

use crate::ir::{Atom, Func, Index, Kind, Op, Path, Stmt, Var};

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
        Some(Atom::constant(
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
/// number; an element at an index other than a literal is none of these).
fn tuple_element(path: &Path) -> Option<(TokenStream, usize, Option<usize>)> {
    let Index::Part {
        starts,
        part,
        within,
    } = path.only_index()?
    else {
        return None;
    };
    let j = match within.as_deref() {
        None => None,
        Some(Index::Known(j, _)) => Some(*j),
        Some(_) => return None,
    };
    Some((starts.tokens().clone(), *part, j))
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
