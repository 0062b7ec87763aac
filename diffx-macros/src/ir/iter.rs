//! What a `for` loop runs over, classified once when the loop is lowered, so that no later pass
//! parses the iterated tokens again.

use proc_macro2::TokenStream;

use super::Code;

/// What a `for` loop runs over, as written (with the user's names bound), and whether it is a
/// range, decided once when the loop is lowered: a range's items are owned numbers, and one with
/// both ends can be run reversed by the backward sweep instead of taping the index.
#[derive(Clone)]
pub enum LoopIter {
    /// `a..b`, `a..=b` (`bounded`), or `a..`.
    Range { code: Code, bounded: bool },
    /// Anything else: `x.iter()`, `&v`, `(0..n).rev()`.
    Other(Code),
}

impl LoopIter {
    /// The iterated expression `expr`, written `tokens`.
    pub fn new(expr: &syn::Expr, tokens: TokenStream) -> LoopIter {
        match expr {
            syn::Expr::Range(r) => LoopIter::Range {
                code: Code::new(tokens),
                bounded: r.start.is_some() && r.end.is_some(),
            },
            _ => LoopIter::Other(Code::new(tokens)),
        }
    }

    pub fn tokens(&self) -> &TokenStream {
        self.code().tokens()
    }

    /// The iterated expression with the names it mentions.
    pub fn code(&self) -> &Code {
        match self {
            LoopIter::Range { code, .. } | LoopIter::Other(code) => code,
        }
    }
}

impl quote::ToTokens for LoopIter {
    fn to_tokens(&self, out: &mut TokenStream) {
        self.tokens().to_tokens(out);
    }
}
