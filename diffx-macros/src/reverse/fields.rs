//! Contributions to the fields of a parameter struct's adjoint: which one may be moved in.

use super::Sweep;
use crate::ir::{Atom, Path};

impl Sweep {
    /// Whether a contribution to the parameter-struct place `a` is the first to reach it, so that it
    /// can be moved into the zero adjoint's field instead of added to it (no add pass over zeros).
    /// It is, at top level, when no earlier contribution touched an overlapping place of the same
    /// base (`.layers[0]` overlaps `.layers[0].w`) and none came from inside a loop or an `if`, or
    /// through an index known only at run time (`.layers[i]` may be any layer). Records the
    /// contribution.
    pub(super) fn first_into(&mut self, a: &Atom) -> bool {
        let Some(base) = a.var() else { return false };
        let path = match a {
            Atom::Field(_, path) => path.clone(),
            _ => Path::default(),
        };
        if self.depth > 0 || !path.known() {
            self.nested_bases.push(base);
        }
        // (A path with an index known only at run time has made its base nested: paths compared
        // here have known indices only.)
        let overlaps = |p: &Path, q: &Path| p.starts_with(q) || q.starts_with(p);
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
