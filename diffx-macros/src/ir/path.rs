//! The path from a parameter to a place inside it (`.l1.w`, `.layers[0].b`, `.0`), typed, so that
//! passes compare places step by step instead of by their text.

use core::fmt;

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

use super::Code;

/// The fields and indices after an operand's base, in order; empty for the base itself.
#[derive(Clone, Default, PartialEq)]
pub struct Path(pub Vec<Step>);

/// One step of a [`Path`].
#[derive(Clone, PartialEq)]
pub enum Step {
    /// `.w`, or `.0` of a tuple.
    Field(syn::Member),
    /// `[i]`.
    Index(Index),
}

/// An index into a vector, array or slice. Only a constant can be one (an index that depends on
/// differentiable values is refused when lowering), but only a literal is known when the macro
/// runs.
#[derive(Clone)]
pub enum Index {
    /// An integer literal (`0`, `2usize`): its value, and its tokens as written. Two of them name
    /// the same element exactly when their values are equal.
    Known(usize, TokenStream),
    /// Any other constant (`i`, `n - 1`), kept as written: it may be any element, so it is the
    /// same index as another only if written the same.
    Expr(Code),
    /// Part `part` of a call's tuple result held as the array of its numbers, whose parts start
    /// at the constant `starts` (`P[k]`), or element `within` of that part (`P[k] + j`).
    Part {
        starts: Code,
        part: usize,
        within: Option<Box<Index>>,
    },
    /// The value of an optional field (`p.offset[Inner]`, see `desugar/options.rs`): one place,
    /// but only while the option holds a value.
    Inner,
}

impl Index {
    /// The index `expr`, written `tokens` (`expr` with the user's names bound).
    pub fn new(expr: &syn::Expr, tokens: TokenStream) -> Index {
        if crate::names::is_option_inner(expr) {
            return Index::Inner;
        }
        let value = match expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(l),
                ..
            }) if matches!(l.suffix(), "" | "usize") => l.base10_parse::<usize>().ok(),
            _ => None,
        };
        match value {
            Some(k) => Index::Known(k, tokens),
            None => Index::Expr(Code::new(tokens)),
        }
    }

    /// The literal index `k`.
    pub fn literal(k: usize) -> Index {
        let lit = proc_macro2::Literal::usize_unsuffixed(k);
        Index::Known(k, quote!(#lit))
    }

    /// Element `within` of the tuple part this index stands for, if it is one ([`Index::Part`]).
    pub fn within(&self, within: Index) -> Option<Index> {
        match self {
            Index::Part {
                starts,
                part,
                within: None,
            } => Some(Index::Part {
                starts: starts.clone(),
                part: *part,
                within: Some(Box::new(within)),
            }),
            _ => None,
        }
    }

    /// The names of the values the index reads (`i` and `n` in `[n - i]`), once per mention.
    pub fn variables(&self) -> Vec<&str> {
        self.names(Code::variables)
    }

    /// Every identifier the index is written with, for passes that keep what is named.
    pub fn idents(&self) -> Vec<&str> {
        match self {
            Index::Inner => vec!["diffx", "__private", "Inner"],
            _ => self.names(Code::idents),
        }
    }

    /// The names `of` finds in the code the index is written with.
    fn names(&self, of: fn(&Code) -> &[String]) -> Vec<&str> {
        match self {
            Index::Expr(c) => of(c).iter().map(String::as_str).collect(),
            Index::Part { starts, within, .. } => {
                let mut out: Vec<&str> = of(starts).iter().map(String::as_str).collect();
                out.extend(within.iter().flat_map(|j| j.names(of)));
                out
            }
            Index::Known(..) | Index::Inner => Vec::new(),
        }
    }

    /// The index as written, without brackets.
    pub fn tokens(&self) -> TokenStream {
        match self {
            Index::Known(_, t) => t.clone(),
            Index::Expr(c) => c.tokens().clone(),
            Index::Part {
                starts,
                part,
                within,
            } => {
                let part = proc_macro2::Literal::usize_suffixed(*part);
                match within {
                    Some(j) => quote!(#starts[#part] + #j),
                    None => quote!(#starts[#part]),
                }
            }
            Index::Inner => quote!(::diffx::__private::Inner),
        }
    }
}

impl PartialEq for Index {
    fn eq(&self, other: &Index) -> bool {
        match (self, other) {
            (Index::Known(a, _), Index::Known(b, _)) => a == b,
            (Index::Expr(a), Index::Expr(b)) => crate::tokens::same(a.tokens(), b.tokens()),
            (
                Index::Part {
                    starts: a,
                    part: k,
                    within: i,
                },
                Index::Part {
                    starts: b,
                    part: l,
                    within: j,
                },
            ) => crate::tokens::same(a.tokens(), b.tokens()) && k == l && i == j,
            (Index::Inner, Index::Inner) => true,
            _ => false,
        }
    }
}

impl Path {
    /// Every identifier the path is written with: its fields' names and its indices'.
    pub fn idents(&self) -> Vec<String> {
        let mut out = Vec::new();
        for step in &self.0 {
            match step {
                Step::Field(syn::Member::Named(name)) => out.push(name.to_string()),
                Step::Field(syn::Member::Unnamed(_)) => {}
                Step::Index(i) => out.extend(i.idents().into_iter().map(str::to_string)),
            }
        }
        out
    }

    /// `.k`: part `k` of a tuple.
    pub fn part(k: usize) -> Path {
        Path(vec![Step::Field(syn::Member::Unnamed(syn::Index::from(k)))])
    }

    /// The path of one index, `[i]`.
    pub fn index(i: Index) -> Path {
        Path(vec![Step::Index(i)])
    }

    /// This path followed by `step`.
    pub fn then(&self, step: Step) -> Path {
        let mut steps = self.0.clone();
        steps.push(step);
        Path(steps)
    }

    /// Whether every index on the path is known when the macro runs (`.layers[0].w`, not
    /// `.layers[i].w`): the path names one place wherever it is read.
    pub fn known(&self) -> bool {
        self.0
            .iter()
            .all(|s| matches!(s, Step::Field(_) | Step::Index(Index::Known(..))))
    }

    /// Whether `self` starts with the steps of `prefix` (`.layers[0].w` with `.layers[0]`).
    pub fn starts_with(&self, prefix: &Path) -> bool {
        self.0.starts_with(&prefix.0)
    }

    /// The index, if the path is one index (an element `x[i]` of a vector).
    #[cfg(feature = "explain")]
    pub fn only_index(&self) -> Option<&Index> {
        match &self.0[..] {
            [Step::Index(i)] => Some(i),
            _ => None,
        }
    }

    /// The type of the place within a value of type `ty`, as far as the type's syntax tells:
    /// tuple components, array, slice and `Vec` elements, through references.
    pub fn type_within(&self, ty: &syn::Type) -> Option<syn::Type> {
        let mut ty = ty.clone();
        for step in &self.0 {
            ty = match (step, crate::tokens::strip_refs(ty)) {
                (Step::Field(syn::Member::Unnamed(i)), syn::Type::Tuple(t)) => {
                    t.elems.into_iter().nth(i.index as usize)?
                }
                (Step::Index(_), t) => crate::tokens::element_type(&t)?,
                _ => return None,
            };
        }
        Some(crate::tokens::strip_refs(ty))
    }
}

impl ToTokens for Step {
    fn to_tokens(&self, out: &mut TokenStream) {
        match self {
            Step::Field(member) => out.extend(quote!(.#member)),
            Step::Index(i) => out.extend(quote!([#i])),
        }
    }
}

impl ToTokens for Path {
    fn to_tokens(&self, out: &mut TokenStream) {
        for step in &self.0 {
            step.to_tokens(out);
        }
    }
}

impl ToTokens for Index {
    fn to_tokens(&self, out: &mut TokenStream) {
        self.tokens().to_tokens(out);
    }
}

impl fmt::Display for Index {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.tokens().fmt(f)
    }
}

impl fmt::Debug for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_token_stream())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path `steps`, each `.name`, `.0` or `[index]` lowered as an index expression is.
    fn path(steps: &[&str]) -> Path {
        let step = |s: &str| match s.strip_prefix('.') {
            Some(m) => Step::Field(syn::parse_str(m).unwrap()),
            None => {
                let inner = &s[1..s.len() - 1];
                let e: syn::Expr = syn::parse_str(inner).unwrap();
                Step::Index(Index::new(&e, e.to_token_stream()))
            }
        };
        Path(steps.iter().map(|s| step(s)).collect())
    }

    #[test]
    fn literal_indices_compare_by_value() {
        assert!(path(&[".layers", "[0]"]) == path(&[".layers", "[0usize]"]));
        assert!(path(&[".layers", "[0]"]) != path(&[".layers", "[1]"]));
        assert!(path(&[".layers", "[i]"]) == path(&[".layers", "[i]"]));
        assert!(path(&[".layers", "[i]"]) != path(&[".layers", "[0]"]));
        assert!(path(&[".0"]) != path(&[".w"]));
    }

    #[test]
    fn only_literal_indices_are_known() {
        assert!(path(&[".layers", "[0]", ".w"]).known());
        assert!(!path(&[".layers", "[i]", ".w"]).known());
        assert!(!path(&["[n - 1]"]).known());
        assert!(!path(&["[0u32]"]).known());
    }

    #[test]
    fn prefixes_are_whole_steps() {
        let w = path(&[".w"]);
        assert!(path(&[".w", ".x"]).starts_with(&w));
        assert!(!path(&[".weights"]).starts_with(&w));
        assert!(path(&[".layers", "[0]", ".b"]).starts_with(&path(&[".layers", "[0]"])));
    }

    #[test]
    fn written_as_lowered() {
        let p = path(&[".layers", "[0]", ".w", "[i + 1]", ".1"]);
        assert_eq!(
            p.to_token_stream().to_string(),
            ". layers [0] . w [i + 1] . 1"
        );
    }

    #[test]
    fn type_of_a_place() {
        let ty: syn::Type = syn::parse_str("&(f64, Vec<[f32; 2]>)").unwrap();
        let t = path(&[".1", "[k]", "[0]"]).type_within(&ty).unwrap();
        assert_eq!(t.to_token_stream().to_string(), "f32");
        assert!(path(&[".w"]).type_within(&ty).is_none());
    }
}
