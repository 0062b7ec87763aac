//! Errors: the constructs rejected anywhere in the body, and the message for an expression that
//! cannot be differentiated.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::Expr;

/// An error at `span`.
pub(super) fn err<T>(span: Span, msg: impl std::fmt::Display) -> syn::Result<T> {
    Err(syn::Error::new(span, msg))
}

/// Constructs rejected anywhere in the body, active or not.
pub(super) fn reject(e: &Expr) -> syn::Result<()> {
    match e {
        Expr::Closure(c) => err(
            c.span(),
            "closures are not supported in `#[autodiff]` functions: write the closure as a separate `#[autodiff]` function and call it",
        ),
        Expr::Unsafe(u) => err(
            u.unsafe_token.span,
            "`unsafe` blocks cannot be differentiated: move the unsafe code into a function outside the `#[autodiff]` function",
        ),
        Expr::Async(a) => err(a.async_token.span, "`async` blocks cannot be differentiated"),
        _ => Ok(()),
    }
}

pub(super) fn unsupported(e: &Expr) -> String {
    let what = match e {
        Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
            return "a loop used as a value (`let v = loop { … break x; }`) is not supported: assign the value to a variable inside the loop and use the variable after it".to_string();
        }
        Expr::Index(_) => "indexing is",
        Expr::Field(_) => "field access is",
        Expr::Macro(_) => "macros in expressions are",
        Expr::Reference(_) => "`&mut` references are",
        Expr::Tuple(_) | Expr::Array(_) => "tuples and arrays of differentiable values are",
        _ => "this expression is",
    };
    format!(
        "{what} not supported in `#[autodiff]` functions yet: compute the value with `let`, `if`/`else`, arithmetic and float methods"
    )
}
