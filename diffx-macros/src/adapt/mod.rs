//! The forms of function the core pipeline does not take, adapted to it on the way in and back on
//! the way out, each adapter's two halves in one file: a tuple result differentiated as an array
//! (`tuples.rs`), a method differentiated in its receiver as an associated function
//! (`receiver.rs`); and the dressing of what the core writes for a method or an associated
//! function (`methods.rs`) and for a generic function (`generics.rs`). No other stage knows about
//! these forms.

use syn::{Item, ItemFn, Receiver};

use crate::emit::tuples::Layout;
use crate::parse::{self, Signature};

pub mod generics;
pub mod methods;
pub mod receiver;
pub mod tuples;

/// An adaptation made on the way in, undone on the way out.
pub enum Adapter {
    /// The tuple result of `function` differentiated as an array ([`tuples`]).
    Tuple { function: ItemFn, layout: Layout },
    /// The `method` differentiated in its `receiver` as an associated function ([`receiver`]).
    Receiver { method: ItemFn, receiver: Receiver },
}

/// `item` in the form the pipeline differentiates, its arguments, and the adaptations made, the
/// outermost first.
pub fn into_core(
    mut item: ItemFn,
    mut args: parse::Args,
) -> syn::Result<(ItemFn, parse::Args, Vec<Adapter>)> {
    let mut adapters = Vec::new();
    if let Some((as_array, layout)) = tuples::into_core(&item)? {
        let function = std::mem::replace(&mut item, as_array);
        adapters.push(Adapter::Tuple { function, layout });
    }
    if let Some((as_fn, core_args, receiver)) = receiver::into_core(&item, &args) {
        let method = std::mem::replace(&mut item, as_fn);
        args = core_args;
        adapters.push(Adapter::Receiver { method, receiver });
    }
    Ok((item, args, adapters))
}

/// Whether what the pipeline writes for `core` needs dressing: it is generic, a method or an
/// associated function, or was adapted.
pub fn needed(core: &ItemFn, sig: &Signature, adapters: &[Adapter]) -> bool {
    let generic = !core.sig.generics.params.is_empty() || crate::tokens::is_generic(&sig.float);
    generic || sig.associated || !adapters.is_empty()
}

/// The items written for `core` in the user's form: generic like the user's function, methods of
/// its `impl`, then each adaptation undone, the innermost first.
pub fn dress(items: Vec<Item>, core: &ItemFn, sig: &Signature, adapters: &[Adapter]) -> Vec<Item> {
    let mut items = items;
    if !core.sig.generics.params.is_empty() || crate::tokens::is_generic(&sig.float) {
        let containers = sig
            .params
            .iter()
            .any(|p| p.differentiable && p.numbers && p.kind == crate::ir::Kind::Other);
        items = generics::dress(items, core, &sig.float, containers);
    }
    if sig.associated {
        items = methods::dress(items, sig.receiver.as_ref());
    }
    for adapter in adapters.iter().rev() {
        items = match adapter {
            Adapter::Tuple { function, layout } => tuples::dress(items, function, layout),
            Adapter::Receiver { method, receiver } => receiver::dress(items, receiver, method),
        };
    }
    items
}
