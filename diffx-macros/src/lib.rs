//! The procedural macros of [diffx](https://docs.rs/diffx-ad): `#[autodiff]`,
//! `#[custom_derivative]` and `#[derive(Params)]`. Use them through the `diffx-ad` crate
//! (`use diffx::autodiff;`), whose documentation states their contracts with examples and holds
//! the guide; the code they write calls `diffx`'s runtime.
//!
//! Inside, `#[autodiff]` is a small compiler from a Rust numeric function to its derivative
//! functions (see `expand.rs`): `adapt` brings tuple results and methods into the form the core
//! takes, `parse` reads the attribute and signature, `desugar` rewrites Rust's conveniences into a
//! small core (after `analyze` has given every binding a name of its own), `analyze` finds what
//! the body does with each binding, `lower` turns the body into a Wengert list (`ir`), `check`
//! refuses what the order asked for cannot go through, `forward` and `reverse` rewrite the list into tangent and adjoint
//! programs using the one derivative table in `rules`, `emit` writes them as Rust in the
//! function's form (generic like it, methods of its `impl`), and `adapt` undoes its adaptations.
//! All of it is plain Rust over `proc_macro2`, tested without a compiler; this file only connects it to rustc. The repository's
//! `ARCHITECTURE.md` describes the layers.
//!
//! # Layers
//!
//! A module imports only from its own layer and earlier ones, and no two modules import each
//! other, directly or through others. A module split into files (`emit/` and its children, which
//! reach each other through `super::`) counts as one. The test in `layering.rs` reads this table
//! and checks both rules on every non-test file.
//!
//! | layer | modules | what they are |
//! |---|---|---|
//! | 0 | `rules`, `tokens`, `names` | the derivative table; token helpers; the generated names |
//! | 1 | `ir` | the Wengert list and its notation for operands |
//! | 2 | `parse` | the attribute's arguments and the signature |
//! | 3 | `desugar`, `analyze` | Rust's conveniences rewritten into a small core (syn → syn); every binding a name of its own, and what the body does with each, found once before lowering |
//! | 4 | `builder`, `lower` | the core lowered to the Wengert list |
//! | 5 | `liveness`, `tape`, `check` | analyses of the list: last reads; what a loop's tape keeps; what keeps the order asked for from being written |
//! | 6 | `forward`, `reverse` | the transforms: the tangent program; the adjoint program |
//! | 7 | `emit` | the programs written as Rust |
//! | 8 | `explain`, `adapt` | `explain_f`: the list instrumented to record a trace; the forms the core does not take (tuple and struct results, `&mut` outputs, function parameters, `wrt(self)`), adapted to it and back |
//! | 9 | `custom`, `derive`, `expand`, `items`, `lib` | the drivers: `#[custom_derivative]`; `#[derive(Params)]`; the pipeline of `#[autodiff]` (`expand`); the item it is on, a function or an `impl` block (`items`); the entry points |

#![warn(missing_docs)]

mod adapt;
mod analyze;
mod builder;
mod check;
mod custom;
mod derive;
mod desugar;
mod emit;
mod expand;
#[cfg(feature = "explain")]
mod explain;
mod forward;
pub(crate) mod ir;
mod items;
mod liveness;
mod lower;
mod names;
mod parse;
mod reverse;
pub(crate) mod rules;
mod tape;
mod tokens;

#[cfg(test)]
mod expansions;
#[cfg(test)]
mod layering;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod walkthrough;

use proc_macro::TokenStream;

/// `#[autodiff]`, defined in the `diffx-macros` crate and used as `diffx::autodiff` through
/// `diffx-ad`, whose documentation of it states the contract with examples.
#[proc_macro_attribute]
pub fn autodiff(attr: TokenStream, item: TokenStream) -> TokenStream {
    on_a_deep_stack(|| items::autodiff(attr.into(), item.into()).into())
}

/// Runs `f` on a stack of its own, grown as needed: parsing and every pass walk expressions by
/// recursion, and a sum of thousands of terms (which rustc compiles without the attribute) is a
/// tree that deep. rustc itself walks such trees on `stacker`'s stacks; the proc-macro bridge is
/// per thread, not per stack, so the tokens of `f` stay valid.
fn on_a_deep_stack<R>(f: impl FnOnce() -> R) -> R {
    // Address space only: the pages a run does not touch are never allocated.
    stacker::grow(STACK_BYTES, f)
}

/// The expansion's stack: enough for expressions of 10,000 terms or 500 nested parentheses (the
/// tests), in a debug build of the macro, as cargo builds it.
const STACK_BYTES: usize = 1 << 30;

/// `#[derive(Params)]`, defined in the `diffx-macros` crate and used as `diffx::Params` through
/// `diffx-ad`, whose documentation of it states the contract with examples.
#[proc_macro_derive(Params, attributes(params))]
pub fn derive_params(input: TokenStream) -> TokenStream {
    on_a_deep_stack(|| derive::params(input.into()).into())
}

/// `#[custom_derivative]`, defined in the `diffx-macros` crate and used as
/// `diffx::custom_derivative` through `diffx-ad`, whose documentation of it states the contract
/// with examples.
#[proc_macro_attribute]
pub fn custom_derivative(attr: TokenStream, item: TokenStream) -> TokenStream {
    on_a_deep_stack(|| {
        let item2: proc_macro2::TokenStream = item.into();
        match custom::expand(attr.into(), item2.clone()) {
            Ok(ts) => ts.into(),
            Err(e) => {
                let errors = e.to_compile_error();
                quote::quote!(#item2 #errors).into()
            }
        }
    })
}
