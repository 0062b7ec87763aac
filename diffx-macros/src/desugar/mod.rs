//! Desugaring: the conveniences of Rust rewritten into the small core that lowering knows, so every
//! mode gets them at once.
//!
//! 0. [`rows`]: a local array of arrays becomes one flat array, `m[i][j]` its element `i * k + j`;
//!    [`struct_locals`]: a local struct whose fields the body writes becomes one local per field;
//!    [`options`]: `if let` and `match` on an `Option` become `if`s.
//! 1. [`conversions`]: a float converted to `f64` and back (`let x: f64 = v.into();`,
//!    `T::from_f64(e).unwrap()`) computed in the function's float type;
//!    [`sugar`]: local closures are written out where they are called ([`closures`]), iterator
//!    chains become loops ([`iteration`], [`chains`]), an array's `map` an array written in a loop
//!    ([`array_map`]), and patterns become one `let` per name ([`patterns`]).
//!    [`mut_refs`]: `let r = &mut v[k]; *r = e;` (an `iter_mut()` chain's element) writes the place.
//! 2. [`flow`]: `break`, `continue`, `loop` and early `return` become flags and guarded remainders.
//! 3. [`elements`]: an array assigned whole inside a loop or an arm (`s = [a, b];`, an early
//!    `return [a, b]`) is written element by element.

mod arms;
mod array_map;
mod captures;
mod chains;
mod closures;
mod conversions;
mod elements;
mod flow;
mod holds;
mod iteration;
mod loop_values;
mod mut_refs;
mod options;
mod output_calls;
mod patterns;
mod rows;
mod struct_locals;
mod sugar;

use syn::Block;

use crate::parse::Signature;

pub(crate) use conversions::guarded;
pub(crate) use flow::{is_never, is_unit};
pub(crate) use rows::flat_literal;

/// The function body in the core language.
pub fn body(block: Block, sig: &Signature) -> syn::Result<Block> {
    let block = rows::flattened(mutable_params(block, sig))?;
    let block = struct_locals::split(output_calls::assigned(block));
    let differentiable = sig.params.iter().filter(|p| p.differentiable);
    let differentiable = differentiable.map(|p| p.name.to_string()).collect();
    let block = loop_values::loop_values(options::written_as_ifs(block, differentiable));
    let block = sugar::block(conversions::followed(block, sig)?, sig)?;
    let block = mut_refs::written_through(block);
    let block = flow::body(&block, &sig.float, &sig.ret)?;
    Ok(elements::spelled_out(block, sig))
}

/// `fn f(mut x: [f64; 2])`: the derivative functions take `x` as any parameter, and the body
/// begins with `let mut x = x;`, a local it may write.
fn mutable_params(mut block: Block, sig: &Signature) -> Block {
    let copies = sig.params.iter().filter(|p| p.mutable).map(|p| {
        let name = &p.name;
        let copy: syn::Stmt = syn::parse_quote!(let mut #name = #name;);
        copy
    });
    block.stmts.splice(0..0, copies);
    block
}
