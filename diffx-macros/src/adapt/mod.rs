//! The forms of function the core pipeline does not take, adapted to it on the way in and back on
//! the way out, each adapter's two halves in one file: a tuple result differentiated as an array
//! (`tuples.rs`), a method differentiated in its receiver as an associated function
//! (`receiver.rs`), a function parameter taken with its partials (`functions.rs`), a `&mut` output
//! (`outputs.rs`), a struct result (`structs/`). No other stage knows about these forms. (Generic
//! functions and methods need no adapter: emission writes them in their form, `emit/form.rs`.)

use proc_macro2::Ident;
use syn::{Item, ItemFn, Receiver};

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

/// The ways out of the innermost adaptations, which emission undoes as it writes each function,
/// the innermost first; `adapters` keeps the others.
pub fn ways_out(adapters: &mut Vec<Adapter>) -> Vec<Box<dyn crate::emit::form::Dress>> {
    let mut steps: Vec<Box<dyn crate::emit::form::Dress>> = Vec::new();
    loop {
        match adapters.pop() {
            Some(Adapter::Receiver { method, receiver }) => {
                steps.push(Box::new(receiver::Dress { method, receiver }))
            }
            Some(Adapter::Struct { function, layout }) => {
                steps.push(Box::new(structs::Dress { function, layout }))
            }
            Some(Adapter::Tuple { function, layout }) => {
                steps.push(Box::new(tuples::Dress { function, layout }))
            }
            Some(Adapter::Output { function, output }) => {
                steps.push(Box::new(outputs::Dress::new(function, output)))
            }
            Some(other) => {
                adapters.push(other);
                return steps;
            }
            None => return steps,
        }
    }
}

/// The items written for `core`, with each adaptation undone, the innermost first.
pub fn dress(items: Vec<Item>, adapters: &[Adapter]) -> Vec<Item> {
    let mut items = items;
    for adapter in adapters.iter().rev() {
        items = match adapter {
            Adapter::Tuple { .. } => items,
            Adapter::Receiver { .. } => items,
            Adapter::Output { .. } => items,
            Adapter::Struct { .. } => items,
            Adapter::Functions { function } => functions::dress(items, function),
        };
    }
    items
}

/// The core's own function `core`, hidden under the name `to`, after the user's `function` as
/// written: what an adapter writes where the pipeline wrote the function. With `unused`, the
/// user's function may go unused (the derivative functions call the core's).
fn user_beside_core(mut core: ItemFn, function: &ItemFn, to: &Ident, unused: bool) -> [Item; 2] {
    core.sig.ident = to.clone();
    core.attrs.push(syn::parse_quote!(#[doc(hidden)]));
    core.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
    let mut user = function.clone();
    if unused {
        user.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
    }
    [Item::Fn(user), Item::Fn(core)]
}

/// Calls of the function `name` in `block` (`name(…)`, `self.name(…)`, `Self::name(…)`)
/// redirected to `to`: the generated functions call the core's version.
fn redirect_calls(block: &mut syn::Block, name: &Ident, to: &Ident) {
    let primal = [name.to_string()];
    crate::emit::rewrite_calls(block, &mut |c| {
        crate::emit::called(c, &|n| primal.iter().any(|p| p == n))?;
        let args = &c.args;
        Some(syn::parse_quote!(#to(#args)))
    });
    rename_self_calls(block, &primal, &|_| to.clone());
}

/// Rewrites `self.g(…)` and `Self::g(…)` for `g` among `names` into calls of `to(g)`: the
/// generated functions of a method call each other so, and an adapter renames some of them.
pub fn rename_self_calls(block: &mut syn::Block, names: &[String], to: &dyn Fn(&Ident) -> Ident) {
    syn::visit_mut::VisitMut::visit_block_mut(&mut SelfCalls { names, to }, block);
}

struct SelfCalls<'a> {
    names: &'a [String],
    to: &'a dyn Fn(&Ident) -> Ident,
}

impl syn::visit_mut::VisitMut for SelfCalls<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        let ours = |id: &Ident| self.names.iter().any(|r| id == r);
        match e {
            syn::Expr::MethodCall(m) if ours(&m.method) && is_self(&m.receiver) => {
                m.method = (self.to)(&m.method);
            }
            syn::Expr::Call(c) => {
                let syn::Expr::Path(p) = &mut *c.func else {
                    return;
                };
                let segments = &mut p.path.segments;
                if segments.len() == 2 && segments[0].ident == "Self" && ours(&segments[1].ident) {
                    segments[1].ident = (self.to)(&segments[1].ident);
                }
            }
            _ => {}
        }
    }
}

fn is_self(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Path(p) if p.path.is_ident("self"))
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
