//! Contributions to the fields of a parameter struct's adjoint: which one may be moved in.

use proc_macro2::TokenStream;

use super::Sweep;
use crate::ir::Atom;

impl Sweep {
    /// Whether a contribution to the parameter-struct place `a` is the first to reach it, so that it
    /// can be moved into the zero adjoint's field instead of added to it (no add pass over zeros).
    /// It is, at top level, when no earlier contribution touched an overlapping place of the same
    /// base (`.layers[0]` overlaps `.layers[0].w`) and none came from inside a loop or an `if`, or
    /// through an index known only at run time (`.layers[i]` may be any layer). Records the
    /// contribution.
    pub(super) fn first_into(&mut self, a: &Atom) -> bool {
        let Some(base) = a.var() else { return false };
        let (path, known) = match a {
            Atom::Field(_, path) => (path.to_string(), literal_indices(path)),
            _ => (String::new(), true),
        };
        let overlaps = |p: &str, q: &str| {
            p == q || p.is_empty() || q.is_empty() || p.starts_with(&format!("{q} ")) || {
                q.starts_with(&format!("{p} "))
            }
        };
        if self.depth > 0 || !known {
            self.nested_bases.push(base);
        }
        let first = matches!(a, Atom::Field(..))
            && !self.nested_bases.contains(&base)
            && !self
                .touched
                .iter()
                .any(|(b, p)| *b == base && overlaps(p, &path));
        self.touched.push((base, path));
        first
    }
}

/// Whether every index in a field path is an integer literal (`.layers[0].w`, not `.layers[i].w`),
/// so that the path names one place, and different paths different places.
fn literal_indices(path: &TokenStream) -> bool {
    path.clone().into_iter().all(|t| match t {
        proc_macro2::TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Bracket => {
            let inner: Vec<_> = g.stream().into_iter().collect();
            matches!(inner.as_slice(), [proc_macro2::TokenTree::Literal(l)]
                if l.to_string().trim_end_matches("usize").parse::<usize>().is_ok())
        }
        _ => true,
    })
}
