//! Tokens written as trees. Inside the compiler every token stream lives on the other side of the
//! proc-macro bridge: `quote!` joins each interpolated stream with a call across it (and a clone
//! and a drop, each one more), and walking a stream brings its trees back. The statements a body
//! is made of (`let t3 = t1 * x;`, `g += t3;`) are mostly names and punctuation the macro writes,
//! so they are collected here as trees and cross once, when the statement becomes a stream.

use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::ToTokens;

use super::stmt::operand;
#[cfg(doc)]
use crate::ir::operands::by_ref;
use crate::ir::operands::place;
use crate::ir::{Atom, Func, Kind};

/// Trees of a statement or an expression in the making.
#[derive(Clone, Default)]
pub(super) struct Trees(Vec<TokenTree>);

impl Trees {
    /// A keyword or a name of the runtime, spanned as `quote!` spans its own: `let`, `clone`.
    pub fn word(&mut self, word: &str) -> &mut Self {
        self.ident(&Ident::new(word, Span::call_site()))
    }

    pub fn ident(&mut self, ident: &Ident) -> &mut Self {
        self.0.push(TokenTree::Ident(ident.clone()));
        self
    }

    /// Punctuation as `quote!` writes it: `+=` and `::` joint, the last character alone.
    pub fn punct(&mut self, op: &str) -> &mut Self {
        // (The commonest, one character alone, without counting.)
        if let [c] = op.as_bytes() {
            let c = char::from(*c);
            self.0.push(TokenTree::Punct(Punct::new(c, Spacing::Alone)));
            return self;
        }
        let n = op.chars().count();
        for (i, c) in op.chars().enumerate() {
            let spacing = if i + 1 < n {
                Spacing::Joint
            } else {
                Spacing::Alone
            };
            self.0.push(TokenTree::Punct(Punct::new(c, spacing)));
        }
        self
    }

    pub fn tree(&mut self, tree: TokenTree) -> &mut Self {
        self.0.push(tree);
        self
    }

    pub fn append(&mut self, other: Trees) -> &mut Self {
        // (Into nothing yet, the other's vector itself: unoptimised, a move costs less than
        // copying its trees over.)
        match self.0.is_empty() {
            true => self.0 = other.0,
            false => self.0.extend(other.0),
        }
        self
    }

    /// A path written in the table or the runtime, `::diffx::sigmoid`, each segment after `::`.
    pub fn path(&mut self, path: &str) -> &mut Self {
        for segment in path.split("::").filter(|s| !s.is_empty()) {
            self.punct("::").word(segment);
        }
        self
    }

    /// `a, b, c`: the items separated by commas (`#(#items),*`).
    pub fn separated(&mut self, items: Vec<Trees>) -> &mut Self {
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                self.punct(",");
            }
            self.append(item);
        }
        self
    }

    /// `(a, b, c)`: the items separated by commas in a group of `delimiter`.
    pub fn list(&mut self, delimiter: Delimiter, items: Vec<Trees>) -> &mut Self {
        let mut inner = Trees::default();
        inner.separated(items);
        self.tree(TokenTree::Group(Group::new(delimiter, inner.into_stream())))
    }

    /// The trees as a stream. Extending an empty stream keeps them on this side of the bridge
    /// until the stream is joined to others (`TokenStream::from_iter` would send them now).
    pub fn into_stream(self) -> TokenStream {
        let mut out = TokenStream::new();
        out.extend(self.0);
        out
    }
}

/// A statement written out: as trees, which join those of the statements beside it and cross the
/// bridge with them as one stream, or as a stream (`quote!`'s).
pub(super) enum Written {
    Trees(Trees),
    Stream(TokenStream),
}

impl Written {
    pub fn into_stream(self) -> TokenStream {
        match self {
            Written::Trees(t) => t.into_stream(),
            Written::Stream(s) => s,
        }
    }
}

/// Statements joined into one stream: each run of statements written as trees becomes one stream
/// (a stream per statement cost a crossing of the bridge each), and the streams are joined once.
#[derive(Default)]
pub(super) struct Joined {
    streams: Vec<TokenStream>,
    run: Trees,
}

impl Joined {
    pub fn push(&mut self, w: Written) {
        match w {
            Written::Trees(t) => {
                self.run.append(t);
            }
            Written::Stream(s) => {
                self.flush();
                self.streams.push(s);
            }
        }
    }

    fn flush(&mut self) {
        if !self.run.0.is_empty() {
            self.streams
                .push(std::mem::take(&mut self.run).into_stream());
        }
    }

    pub fn into_stream(mut self) -> TokenStream {
        self.flush();
        TokenStream::from_iter(self.streams)
    }
}

/// The trees of a stream written elsewhere (`quote!`, the IR's operand notation): one walk.
impl From<TokenStream> for Trees {
    fn from(tokens: TokenStream) -> Self {
        Trees(tokens.into_iter().collect())
    }
}

impl From<&Ident> for Trees {
    fn from(ident: &Ident) -> Self {
        Trees(vec![TokenTree::Ident(ident.clone())])
    }
}

impl ToTokens for Trees {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(self.0.iter().cloned());
    }
}

/// [`place`] as trees: a value's name without a walk across the bridge, a constant's tokens
/// walked once (`place` walks them to see whether they need parentheses, and its stream would be
/// walked again here).
pub(super) fn place_trees(f: &Func, a: &Atom) -> Trees {
    match a {
        Atom::Var(v) => Trees::from(f.name(*v)),
        // (In parentheses unless a single token, as `place` writes a constant of a function that
        // is not generic.)
        Atom::Const(t) if !f.float.as_ref().is_some_and(crate::tokens::is_generic) => {
            let trees: Vec<TokenTree> = t.tokens().clone().into_iter().collect();
            match trees.len() {
                1 => Trees(trees),
                _ => Trees(vec![TokenTree::Group(Group::new(
                    Delimiter::Parenthesis,
                    t.tokens().clone(),
                ))]),
            }
        }
        _ => Trees::from(place(f, a)),
    }
}

/// [`operand`] as trees: of a value, its name, by reference (`&t`) where [`by_ref`] puts one.
pub(super) fn operand_trees(f: &Func, a: &Atom) -> Trees {
    match a {
        Atom::Var(v) => {
            let mut t = Trees::default();
            let by_value = f.atom_kind(a) == Kind::Scalar
                || (f.numbers && f.atom_kind(a) == Kind::Other)
                || f.vars[v.0].is_ref;
            if !by_value {
                t.punct("&");
            }
            t.ident(f.name(*v));
            t
        }
        // (A constant is a scalar operand: its place.)
        Atom::Const(_) => place_trees(f, a),
        _ => Trees::from(operand(f, a)),
    }
}
