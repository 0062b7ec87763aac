//! What a `for` loop runs over, classified once when the loop is lowered, so that no later pass
//! parses the iterated tokens again.

use proc_macro2::TokenStream;

/// What a `for` loop runs over, as written (with the user's names bound), and whether it is a
/// range, decided once when the loop is lowered: a range's items are owned numbers, and one with
/// both ends can be run reversed by the backward sweep instead of taping the index.
#[derive(Clone)]
pub enum LoopIter {
    /// `a..b`, `a..=b` (`bounded`), or `a..`.
    Range { tokens: TokenStream, bounded: bool },
    /// Anything else: `x.iter()`, `&v`, `(0..n).rev()`.
    Other(TokenStream),
}

impl LoopIter {
    /// The iterated expression `expr`, written `tokens`.
    pub fn new(expr: &syn::Expr, tokens: TokenStream) -> LoopIter {
        match expr {
            syn::Expr::Range(r) => LoopIter::Range {
                tokens,
                bounded: r.start.is_some() && r.end.is_some(),
            },
            _ => LoopIter::Other(tokens),
        }
    }

    pub fn tokens(&self) -> &TokenStream {
        match self {
            LoopIter::Range { tokens, .. } | LoopIter::Other(tokens) => tokens,
        }
    }
}

impl quote::ToTokens for LoopIter {
    fn to_tokens(&self, out: &mut TokenStream) {
        self.tokens().to_tokens(out);
    }
}
