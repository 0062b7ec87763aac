//! Every name the macros write into the user's code that is the macros' own, not the user's:
//! the hidden derivative functions of a function `f`, the locals that desugaring, emission and
//! `explain` introduce, and the markers one stage leaves for a later one to read back by name.
//! One module spells them (as serde_derive's `internals/symbol.rs` does), so the stage that
//! writes a name and the stage that reads it back agree by construction, and no stage imports
//! another for a name. All of them start with [`PREFIX`] (or `__DIFFX_` for a const), which user
//! code is not expected to use.
//!
//! The runtime's hidden items are spelled as paths in the `quote!`s that call them
//! (`::diffx::__private::zero_elems(…)`); the ones the macro also reads back or looks up as text
//! are here ([`TANGENT_PRODUCT_PATH`], [`EXIT_IF`]).
//!
//! Functions that build a name from an identifier (`jvp(&f)`) give the result `f`'s span, as
//! `format_ident!` does; names without an identifier argument get the call site's span.

use proc_macro2::{Ident, Span};
use quote::{format_ident, IdentFragment};

/// The prefix of every generated name: a name starting with it is the macro's (desugaring's loops
/// over them are in the core already).
pub(crate) const PREFIX: &str = "__diffx_";

/// Whether `name` is one the macro wrote (starts with [`PREFIX`]).
pub(crate) fn is_generated(name: &str) -> bool {
    name.starts_with(PREFIX)
}

/// The prefix of `__diffx_jvp_f`, the hidden forward-mode function of `f` that its public
/// `jvp_f`, `jacobian_f` (and a caller's forward mode) call.
pub(crate) const JVP: &str = "__diffx_jvp_";

/// `__diffx_jvp_f`: see [`JVP`].
pub(crate) fn jvp(f: impl IdentFragment) -> Ident {
    format_ident!("{}{}", JVP, f)
}

/// The prefix of `__diffx_vjp_f`, the hidden reverse-mode function of `f` (value and pullback)
/// that its public `grad_f`, `vjp_f` (and a caller's reverse mode) call.
pub(crate) const VJP: &str = "__diffx_vjp_";

/// `__diffx_vjp_f`: see [`VJP`].
pub(crate) fn vjp(f: impl IdentFragment) -> Ident {
    format_ident!("{}{}", VJP, f)
}

/// The prefix of `__diffx_hvp_f`, the hidden forward-over-reverse function of `f` behind
/// `hvp_f` and `hessian_f` (and a caller's second order).
pub(crate) const HVP: &str = "__diffx_hvp_";

/// `__diffx_hvp_f`: see [`HVP`].
pub(crate) fn hvp(f: impl IdentFragment) -> Ident {
    format_ident!("{}{}", HVP, f)
}

/// The prefix of `__diffx_split_f`, the reverse program of `f` cut between its sweeps
/// (`emit/split.rs`), for callers that pair a call with its pullback.
pub(crate) const SPLIT: &str = "__diffx_split_";

/// `__diffx_split_f`: see [`SPLIT`].
pub(crate) fn split(f: impl IdentFragment) -> Ident {
    format_ident!("{}{}", SPLIT, f)
}

/// The prefix of `__diffx_array_f`, the version of a tuple-valued `f` that returns the array of
/// its numbers (`adapt/tuples.rs`), which the generated code calls.
pub(crate) const ARRAY: &str = "__diffx_array_";

/// `__diffx_array_f`: see [`ARRAY`].
pub(crate) fn array(f: impl IdentFragment) -> Ident {
    format_ident!("{}{}", ARRAY, f)
}

/// The prefix of `__diffx_with_partials_f`, the version of `f` whose function parameters take
/// `diffx::DiffFn` (`adapt/functions.rs`), which derivative code calls with function arguments.
pub(crate) const WITH_PARTIALS: &str = "__diffx_with_partials_";

/// `__diffx_with_partials_f`: see [`WITH_PARTIALS`].
pub(crate) fn with_partials(f: impl IdentFragment) -> Ident {
    format_ident!("{}{}", WITH_PARTIALS, f)
}

/// The function a call in generated code reaches, without the prefix of the version it calls
/// ([`ARRAY`], [`WITH_PARTIALS`], [`RETURNING`]): its derivative functions are that function's.
pub(crate) fn callee(name: &str) -> &str {
    let name = name.strip_prefix(WITH_PARTIALS).unwrap_or(name);
    let name = name.strip_prefix(RETURNING).unwrap_or(name);
    name.strip_prefix(ARRAY).unwrap_or(name)
}

/// The prefix of `__diffx_returning_f`, the version of a function `f` with a `&mut` output that
/// takes the output by value and returns it (`adapt/outputs.rs`): what a caller calls.
pub(crate) const RETURNING: &str = "__diffx_returning_";

/// `__diffx_returning_f`: see [`RETURNING`].
pub(crate) fn returning(f: impl IdentFragment) -> Ident {
    format_ident!("{}{}", RETURNING, f)
}

/// `__diffx_{mode}_f`: the derivative function `mode` (`jvp`, `vjp`, `hvp`, or a nested one such
/// as `jvp_grad`) of `f`, for a mode chosen at run time of the macro.
pub(crate) fn derived(mode: &str, f: impl IdentFragment) -> Ident {
    format_ident!("{}{}_{}", PREFIX, mode, f)
}

/// The prefix of `__DIFFX_PARTS_f`, the const of where each part of a tuple-valued `f`'s result
/// starts in the array of its numbers (`emit/tuples.rs`).
pub(crate) const PARTS: &str = "__DIFFX_PARTS_";

/// `__DIFFX_PARTS_f`: see [`PARTS`].
pub(crate) fn parts(f: impl IdentFragment) -> Ident {
    format_ident!("{}{}", PARTS, f)
}

/// The first segment of lowering's call of an `#[autodiff]` method on a differentiable value of
/// a user type, `__diffx_method::g(recv, args)` for `recv.g(args)`: emission writes it as a
/// method call again (`recv.g(args)`, `recv.__diffx_vjp_g(args, ct)`), which rustc resolves on
/// the receiver's type, unknown to the macro.
pub(crate) const METHOD: &str = "__diffx_method";

/// The first segment of lowering's operator on a value of a user type, `__diffx_operator::add(a,
/// b)` for `a + b` (`sub`, `mul`, `div`, `neg`): emission writes the operator again, and its
/// derivatives as methods of the left operand from the user's `#[autodiff] impl Add for T`
/// (`a.__diffx_vjp_add(b, ct)`; `a.__diffx_vjp_mul_by_number(2.0, ct)` for `Mul<f64>`).
pub(crate) const OPERATOR: &str = "__diffx_operator";

/// The name of the derivative functions of an operator impl of a number with the user's type on
/// the right (`impl Mul<V2> for f64`): `rmul`, methods of the right operand's type; `rmul_ref` for
/// `impl Mul<&V2> for f64`, which operators never call (the method of `V2` by value serves both).
pub(crate) fn reflected(op: &Ident, by_ref: bool) -> Ident {
    if by_ref {
        format_ident!("r{}_ref", op)
    } else {
        format_ident!("r{}", op)
    }
}

/// The name of the derivative functions of an operator impl whose right operand is a number
/// (`impl Mul<f64> for V2`): `mul_by_number`, beside `mul` of `impl Mul for V2`.
pub(crate) fn by_number(op: &Ident) -> Ident {
    format_ident!("{}_by_number", op)
}

/// The name `self` gets in the pipeline when `wrt(self, …)` differentiates it: the method's
/// first parameter `__diffx_self: &Self` (`adapt::receiver::into_core`), and the first segment of
/// lowering's call of another method, `__diffx_self::g(…)`, which emission writes back as
/// `self.g(…)`.
pub(crate) const SELF_PARAM: &str = "__diffx_self";

/// The placeholder constant lowering gives a block that stopped early (a `return` inside an
/// arm), which nothing reads.
pub(crate) const NEVER: &str = "__diffx_never";

/// The runtime's hidden macro `::diffx::__diffx_exit_if!(brk)` that desugaring writes first in a
/// `for` body with its own exit flag, and lowering reads back as the loop's exit condition.
pub(crate) const EXIT_IF: &str = "__diffx_exit_if";

/// The local holding a function's return value in desugared code (and an array's value copied
/// in, `desugar/elements.rs`).
pub(crate) const VALUE: &str = "__diffx_value";

/// The flag of desugared code saying the function has returned.
pub(crate) const RETURNED: &str = "__diffx_returned";

/// The local holding the value of a block that ends in a `loop`.
pub(crate) const LOOP_VALUE: &str = "__diffx_loop_value";

/// The name of the cotangent parameter of `explain`'s functions when the user's names take
/// `ct`, `cotangent` and `y_bar`.
#[cfg_attr(not(feature = "explain"), allow(dead_code))]
pub(crate) const COTANGENT: &str = "__diffx_ct";

/// The shape of a tensor, as a map of the rule table's template language: reverse mode keeps a
/// tensor's shape instead of the tensor where the backward sweep reads nothing else of it.
pub(crate) const SHAPE_OF: &str = "::diffx::__private::shape_of(&a)";

/// The rule (in `rules/table.rs`) of forward over reverse's product of a partial by a tangent.
pub(crate) const TANGENT_PRODUCT: &str = "__diffx_tangent_product";

/// The runtime function of [`TANGENT_PRODUCT`], which emission also recognises by its path.
pub(crate) const TANGENT_PRODUCT_PATH: &str = "::diffx::__private::tangent_product";

/// The prefix of the loop variable of desugaring's `v.extend(…)` loop, `__extended1`, which is
/// deliberately not a [`PREFIX`] name: that loop is the user's, to be rewritten like one.
pub(crate) const EXTENDED: &str = "__extended";

/// `__diffx_{what}` at the call site: a generated local (`__diffx_acc`, `explain`'s `__diffx_dt`).
pub(crate) fn local(what: &str) -> Ident {
    local_at(what, Span::call_site())
}

/// `__diffx_{what}` with the span `span` (`Span::mixed_site()` for a hygienic one).
pub(crate) fn local_at(what: &str, span: Span) -> Ident {
    Ident::new(&format!("{PREFIX}{what}"), span)
}

/// `__diffx_{what}{n}` at the call site: the `n`th generated local of a kind (desugaring's
/// `__diffx_let1`, `__diffx_elem0`, `__diffx_rhs_2`, `__diffx_break_1`; emission's `__diffx_part0`).
pub(crate) fn numbered(what: &str, n: usize) -> Ident {
    format_ident!("{}{}{}", PREFIX, what, n)
}

/// `::diffx::__private::Inner`, the index of an optional field's value (`p.offset[Inner]`):
/// desugaring writes it for `if let Some(b) = p.offset`, lowering reads it back as
/// [`crate::ir::Index::Inner`].
pub(crate) fn option_inner() -> proc_macro2::TokenStream {
    quote::quote!(::diffx::__private::Inner)
}

/// Whether `e` is the index [`option_inner`] writes.
pub(crate) fn is_option_inner(e: &syn::Expr) -> bool {
    let syn::Expr::Path(p) = e else { return false };
    let segments: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    p.path.leading_colon.is_some() && segments == ["diffx", "__private", "Inner"]
}
