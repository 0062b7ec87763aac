//! What a `for` loop runs over, classified once when the loop is lowered, so that no later pass
//! parses the iterated tokens again: a range's ends are constants of their own.

use proc_macro2::TokenStream;
use quote::quote;

use super::Code;

/// What a `for` loop runs over, as written (with the user's names bound). A range's items are
/// owned numbers, and one with both ends can be run reversed by the backward sweep instead of
/// taping the index.
#[derive(Clone)]
pub enum LoopIter {
    /// A range with both ends.
    Range(Box<Range>),
    /// `start..`.
    From(Code),
    /// Anything else: `x.iter()`, `&v`, `(0..n).rev()`.
    Other(Code),
}

/// `start..end`, or `start..=end` (`inclusive`).
#[derive(Clone)]
pub struct Range {
    pub start: Code,
    pub end: Code,
    pub inclusive: bool,
}

impl LoopIter {
    /// The iterated expression `expr`, each constant in it written by `constant`.
    pub fn new(expr: &syn::Expr, constant: &mut dyn FnMut(&syn::Expr) -> TokenStream) -> LoopIter {
        // (A reversed range, `(0..n).rev()`, stays another iterator: run forward by the backward
        // sweep, it would let the split function hand its forward sweep over, whose tape, moved
        // into the pullback closure, is allocated on every call where the recomputing pullback's
        // is elided: erf's gradient in `benches/erf.rs` measures twice as slow that way.)
        let syn::Expr::Range(range) = expr else {
            return LoopIter::Other(Code::new(constant(expr)));
        };
        let inclusive = matches!(range.limits, syn::RangeLimits::Closed(_));
        match (&range.start, &range.end) {
            (Some(start), Some(end)) => LoopIter::Range(Box::new(Range {
                start: Code::new(constant(start)),
                end: Code::new(constant(end)),
                inclusive,
            })),
            (Some(start), None) => LoopIter::From(Code::new(constant(start))),
            _ => LoopIter::Other(Code::new(constant(expr))),
        }
    }

    /// The constants the loop's head reads.
    pub fn codes(&self) -> impl Iterator<Item = &Code> {
        let (first, second) = match self {
            LoopIter::Range(r) => (&r.start, Some(&r.end)),
            LoopIter::From(code) | LoopIter::Other(code) => (code, None),
        };
        std::iter::once(first).chain(second)
    }

    /// Whether it is a range, whose items are owned numbers.
    pub fn is_range(&self) -> bool {
        !matches!(self, LoopIter::Other(_))
    }

    /// The expression, written out.
    pub fn tokens(&self) -> TokenStream {
        quote!(#self)
    }
}

impl quote::ToTokens for LoopIter {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend(match self {
            LoopIter::Range(r) => {
                let Range {
                    start,
                    end,
                    inclusive,
                } = &**r;
                match inclusive {
                    false => quote!(#start..#end),
                    true => quote!(#start..=#end),
                }
            }
            LoopIter::From(start) => quote!(#start..),
            LoopIter::Other(code) => quote!(#code),
        });
    }
}
