//! The forms of function the core pipeline does not take, adapted to it on the way in and back on
//! the way out, each adapter's two halves in one file: a tuple result differentiated as an array
//! (`tuples.rs`), a method differentiated in its receiver as an associated function
//! (`receiver.rs`), a function parameter taken with its partials (`functions.rs`), a `&mut` output
//! (`outputs.rs`), a struct result (`structs/`). The way in (`into_core`) rewrites the user's
//! function; the way out is a [`Dress`] that emission consults as it writes each function. No
//! other stage knows about these forms. (Generic functions and methods need no adapter: emission
//! writes them in their form, `emit/form.rs`.)

use proc_macro2::Ident;
use syn::{Item, ItemFn, Receiver};

use crate::emit::form::Dress;
use crate::emit::tuples::Layout;
use crate::parse;

pub mod functions;
pub mod outputs;
pub mod receiver;
pub mod structs;
pub mod tuples;

/// An adaptation made on the way in, undone on the way out.
pub enum Adapter {
    /// The function parameters of `function` taken as `impl DiffFn` ([`functions`]).
    Functions { function: ItemFn },
    /// The `&mut` output of `function` taken by value and returned ([`outputs`]).
    Output {
        function: ItemFn,
        output: outputs::Output,
    },
    /// The tuple result of `function` differentiated as an array ([`tuples`]).
    Tuple { function: ItemFn, layout: Layout },
    /// The struct result of `function` differentiated as an array ([`structs`]).
    Struct {
        function: ItemFn,
        layout: structs::Layout,
    },
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
    if let Some(with_partials) = functions::into_core(&item, &mut args)? {
        let function = std::mem::replace(&mut item, with_partials);
        adapters.push(Adapter::Functions { function });
    }
    if let Some((returning, output)) = outputs::into_core(&item, &mut args)? {
        let function = std::mem::replace(&mut item, returning);
        adapters.push(Adapter::Output { function, output });
    }
    if let Some((as_array, layout)) = tuples::into_core(&item)? {
        let function = std::mem::replace(&mut item, as_array);
        adapters.push(Adapter::Tuple { function, layout });
    }
    if let Some((as_array, layout)) = structs::into_core(&item, &args)? {
        let function = std::mem::replace(&mut item, as_array);
        adapters.push(Adapter::Struct { function, layout });
    }
    if let Some((as_fn, core_args, receiver)) = receiver::into_core(&item, &args) {
        let method = std::mem::replace(&mut item, as_fn);
        args = core_args;
        adapters.push(Adapter::Receiver { method, receiver });
    }
    Ok((item, args, adapters))
}

/// The ways out of the adaptations, which emission undoes as it writes each function, the
/// innermost first.
pub fn ways_out(adapters: Vec<Adapter>) -> Vec<Box<dyn Dress>> {
    (adapters.into_iter().rev())
        .map(|adapter| -> Box<dyn Dress> {
            match adapter {
                Adapter::Receiver { method, receiver } => {
                    Box::new(receiver::Dress { method, receiver })
                }
                Adapter::Struct { function, layout } => {
                    Box::new(structs::Dress { function, layout })
                }
                Adapter::Tuple { function, layout } => Box::new(tuples::Dress { function, layout }),
                Adapter::Output { function, output } => {
                    Box::new(outputs::Dress::new(function, output))
                }
                Adapter::Functions { function } => Box::new(functions::Dress { function }),
            }
        })
        .collect()
}

/// `items` with the core's own function (`name`) replaced by what `with` makes of it: what an
/// adapter writes where the pipeline wrote the function.
fn at_primal(items: Vec<Item>, name: &Ident, with: impl Fn(ItemFn) -> Vec<Item>) -> Vec<Item> {
    (items.into_iter())
        .flat_map(|item| match item {
            Item::Fn(f) if f.sig.ident == *name => with(f),
            other => vec![other],
        })
        .collect()
}

/// The core's own function `core`, kept hidden under the name `to` for the derivative functions.
fn hidden_core(mut core: ItemFn, to: Ident) -> Item {
    core.sig.ident = to;
    core.attrs.push(syn::parse_quote!(#[doc(hidden)]));
    core.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
    Item::Fn(core)
}

/// The user's `function` as written; with `unused`, it may go unused (the derivative functions
/// call the core's).
fn user(function: &ItemFn, unused: bool) -> Item {
    let mut user = function.clone();
    if unused {
        user.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
    }
    Item::Fn(user)
}

/// Rewrites each value the function body `block` returns by `literal`: its tail (through blocks,
/// both arms of an `if`, every arm of a `match`) and each `return`'s value (not a closure's).
/// `literal` rewrites a value written out (a tuple, a struct literal) and says whether it could;
/// the result is where a value is not one, if one is not.
pub fn rewrite_returned(
    block: &mut syn::Block,
    literal: &mut dyn FnMut(&mut syn::Expr) -> Option<bool>,
) -> Result<(), proc_macro2::Span> {
    let mut returns = Returns { literal, bad: None };
    syn::visit_mut::VisitMut::visit_block_mut(&mut returns, block);
    match returns.bad {
        Some(at) => Err(at),
        None => tail_returned(block, returns.literal),
    }
}

/// The tail of `b` rewritten; a block ending in `return` has none to write.
fn tail_returned(
    b: &mut syn::Block,
    literal: &mut dyn FnMut(&mut syn::Expr) -> Option<bool>,
) -> Result<(), proc_macro2::Span> {
    match b.stmts.last_mut() {
        Some(syn::Stmt::Expr(tail, None)) => value_returned(tail, literal),
        _ => Ok(()),
    }
}

/// `e` rewritten, or where a value in it is not written out.
fn value_returned(
    e: &mut syn::Expr,
    literal: &mut dyn FnMut(&mut syn::Expr) -> Option<bool>,
) -> Result<(), proc_macro2::Span> {
    let span = syn::spanned::Spanned::span(&*e);
    if let Some(done) = literal(e) {
        return if done { Ok(()) } else { Err(span) };
    }
    match e {
        syn::Expr::Block(b) => tail_returned(&mut b.block, literal),
        syn::Expr::If(i) => {
            let Some((_, els)) = &mut i.else_branch else {
                return Err(span);
            };
            tail_returned(&mut i.then_branch, literal)?;
            value_returned(els, literal)
        }
        syn::Expr::Match(m) => m
            .arms
            .iter_mut()
            .try_for_each(|a| value_returned(&mut a.body, literal)),
        syn::Expr::Paren(p) => value_returned(&mut p.expr, literal),
        _ => Err(span),
    }
}

/// Rewrites the value of each `return`; remembers where one could not be.
struct Returns<'a> {
    literal: &'a mut dyn FnMut(&mut syn::Expr) -> Option<bool>,
    bad: Option<proc_macro2::Span>,
}

impl syn::visit_mut::VisitMut for Returns<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Return(r) = e {
            if let Some(v) = &mut r.expr {
                if let Err(at) = value_returned(v, self.literal) {
                    self.bad.get_or_insert(at);
                }
            }
            return;
        }
        // A closure's `return` is its own.
        if !matches!(e, syn::Expr::Closure(_)) {
            syn::visit_mut::visit_expr_mut(self, e);
        }
    }
}
