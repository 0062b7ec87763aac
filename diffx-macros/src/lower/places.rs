//! Places: fields of parameter structs (`model.l1.w`), elements at constant indices
//! (`model.layers[0]`), and the parts of a call's tuple result, held as the array of its numbers
//! (`f(x).0`, `t.0` of `let t = f(x);`).

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::Expr;

use super::messages::err;
use super::Lowerer;
use crate::ir::{Atom, Index, Kind, Op, Path, Step};
use crate::tokens;

impl Lowerer<'_> {
    /// `model.l1.w`: a field of a differentiable parameter struct; `f(x).0`, `t.0` of `let t =
    /// f(x);`: a component of a call's tuple, an element of its array version.
    pub(super) fn field(&mut self, f: &syn::ExprField) -> syn::Result<Atom> {
        let member = &f.member;
        if let syn::Member::Unnamed(i) = member {
            let k = i.index as usize;
            if matches!(&*f.base, Expr::Call(_)) {
                (self.vector_call, self.tuple_call) = (true, true);
                let call = self.expr(&f.base);
                (self.vector_call, self.tuple_call) = (false, false);
                return match call? {
                    Atom::Var(v) => Ok(self.tuple_part(v, k, f.span())),
                    _ => err(
                        f.span(),
                        "read a part of this call's result from a `let` of it: `let t = f(x); t.0`",
                    ),
                };
            }
            if let Expr::Path(p) = &*f.base {
                let tuple = p
                    .path
                    .get_ident()
                    .and_then(|id| self.lookup(&id.to_string()));
                if let Some(&Atom::Var(v)) = tuple {
                    if self.tuple_values.contains_key(&v) {
                        return Ok(self.tuple_part(v, k, f.span()));
                    }
                }
            }
        }
        self.extend_place(&f.base, Step::Field(member.clone()), f.span())
    }

    /// `model.layers[0]`: an element of a field, at a constant index.
    pub(super) fn index(&mut self, i: &syn::ExprIndex) -> syn::Result<Atom> {
        if self.mentions_active(&i.index) {
            return err(
                i.index.span(),
                "an index must not depend on differentiable values: index with an integer",
            );
        }
        let idx = Index::new(&i.index, self.constant(&i.index));
        self.vector_call = matches!(&*i.expr, Expr::Call(_));
        let place = self.extend_place(&i.expr, Step::Index(idx), i.span());
        // Only the call indexed here returns a vector (a constant call never takes the flag).
        self.vector_call = false;
        place
    }

    /// Part `k` of the tuple value `v` (a call's, held as the array of its numbers): read as a
    /// number, and remembered, so that indexing it (`p[1]`) reads the element of `v` it stands for.
    fn tuple_part(&mut self, v: crate::ir::Var, k: usize, span: Span) -> Atom {
        let offset = match self.tuple_values.get(&v) {
            Some(parts) => Index::Part {
                starts: parts.clone().into(),
                part: k,
                within: None,
            },
            None => Index::literal(k),
        };
        let part = self.b.op(
            Op::Id,
            vec![Atom::Field(v, Path::index(offset.clone()))],
            span,
        );
        self.tuple_parts.insert(part, (v, offset));
        Atom::Var(part)
    }

    /// Where the parts of the tuple value bound to `id` start, if it is one: `None` for a name of
    /// something else; the literal component index where the callee gives no starts.
    pub(super) fn parts_of(&self, id: &proc_macro2::Ident) -> Option<Option<TokenStream>> {
        match self.lookup(&id.to_string()) {
            Some(Atom::Var(v)) => self.tuple_values.get(v).map(|p| Some(p.clone())),
            _ => None,
        }
    }

    fn extend_place(&mut self, base: &Expr, step: Step, span: Span) -> syn::Result<Atom> {
        match self.expr(base)? {
            // An element of an array part of a call's tuple: the element of the tuple's array.
            Atom::Var(v) if self.tuple_parts.contains_key(&v) => {
                let (tuple, offset) = self.tuple_parts[&v].clone();
                let Step::Index(inner) = step else {
                    return err(span, "index a part of a call's tuple result by `[i]`");
                };
                let index = offset
                    .within(inner.clone())
                    .unwrap_or_else(|| Index::Expr(quote!(#offset + #inner).into()));
                let place = Atom::Field(tuple, Path::index(index));
                Ok(Atom::Var(self.b.op(Op::Id, vec![place], span)))
            }
            // A local vector changes: its element is read into a value of its own now.
            Atom::Var(v) if self.vectors.contains(&v) => {
                let place = Atom::Field(v, Path(vec![step]));
                Ok(Atom::Var(self.b.op(Op::Id, vec![place], span)))
            }
            Atom::Var(v) if matches!(self.b.func.kind(v), Kind::Other | Kind::Slice) => {
                Ok(self.typed_place(v, Path(vec![step]), span))
            }
            Atom::Field(v, path) => Ok(self.typed_place(v, path.then(step), span)),
            _ => err(
                span,
                "only fields of parameter structs can be read here: indexing tensors and slices is not supported yet",
            ),
        }
    }

    /// The place `path` of parameter `v`; read into a number of its own when the parameter's
    /// declared type says the place holds one (`p.0` of a `(f64, [f64; 2])`, `pts[i][1]`), so
    /// that methods of it take their rows for numbers.
    fn typed_place(&mut self, v: crate::ir::Var, path: Path, span: Span) -> Atom {
        let Some(ty) = self.param_types.get(&v) else {
            return Atom::Field(v, path);
        };
        let place_type = path.type_within(ty);
        let place = Atom::Field(v, path);
        match place_type {
            Some(t)
                if tokens::is_float_type(&t, &self.b.float)
                    && self.b.func.kind(v) == Kind::Other =>
            {
                Atom::Var(self.b.op_of_kind(Op::Id, vec![place], span, Kind::Scalar))
            }
            _ => place,
        }
    }
}
