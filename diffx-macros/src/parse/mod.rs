//! The attribute's arguments and the function's signature: which parameters are differentiable.
//!
//! `args.rs` reads the attribute's arguments; `signature.rs` the signature, its parameters and
//! result, and which functions of an `impl` block are differentiated; `types.rs` what the
//! signature's types are (the float type, how a parameter of a type is differentiated).

mod args;
mod signature;
mod types;

pub use args::{args, Args, BlockFacts, Order};
pub use signature::{
    differentiable_alone, names_self, returns_other_than_number, returns_own_type, signature,
    Param, Signature,
};
pub use types::{float_named, float_param, is_own_type};

fn error(span: proc_macro2::Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}
