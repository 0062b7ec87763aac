//! Emission of checkpointed loops (`reverse/checkpoint.rs`): the forward loop that keeps the
//! schedule's snapshots, and the backward loop that follows the schedule.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::control::{nested, stmt};
use super::stmt::Mutable;
use crate::ir::{Checkpoint, Func, LoopHead, Stmt, Var};

/// The forward sweep of a checkpointed loop: the body as the primal runs it, with a snapshot of
/// the state where the schedule keeps one.
pub(super) fn forward(
    f: &Func,
    head: &LoopHead,
    cells: &[Var],
    c: &Checkpoint,
    mutable: &Mutable,
) -> TokenStream {
    let LoopHead::For { pat, iter, .. } = head else {
        unreachable!("a checkpointed loop is a `for` loop")
    };
    let (all, schedule, snaps, n) = (&c.iter, &c.schedule, &c.snaps, c.snapshots);
    let body = primal_body(f, cells, c, mutable);
    let push = push(f, c);
    let j = Ident::new("__j", Span::mixed_site());
    quote! {
        let #all = ::core::iter::IntoIterator::into_iter(#iter);
        let mut #schedule = ::diffx::__private::Schedule::new(::diffx::__private::trip_count(&#all), #n);
        let mut #snaps = ::std::vec::Vec::new();
        for (#j, #pat) in ::core::iter::Iterator::enumerate(::core::clone::Clone::clone(&#all)) {
            if #schedule.keeps(#j) { #push }
            #body
        }
    }
}

/// The backward sweep of a checkpointed loop: the schedule's actions, until every iteration's
/// adjoint has run. `back` is the loop's backward loop, and `c.again` its recording loop, each
/// run for the one iteration the schedule reverses. The cells are the driver's own: the values
/// the forward sweep left are read on.
pub(super) fn backward(f: &Func, back: &Stmt, c: &Checkpoint, mutable: &Mutable) -> TokenStream {
    let again = c
        .again
        .as_deref()
        .expect("a checkpointed backward loop runs its iteration again");
    let Stmt::Loop {
        head: LoopHead::For { pat, .. },
        cells,
        ..
    } = again
    else {
        unreachable!("a checkpointed loop is a `for` loop")
    };
    let names: Vec<&Ident> = cells.iter().map(|c| f.name(*c)).collect();
    let (all, schedule, snaps) = (&c.iter, &c.schedule, &c.snaps);
    let body = primal_body(f, cells, c, mutable);
    let (push, restore) = (push(f, c), restore(f, c));
    let run = stmt(f, again, mutable);
    let back = stmt(f, back, mutable);
    let [from, to, step] = ["__from", "__to", "__step"].map(|n| Ident::new(n, Span::mixed_site()));
    let action = quote!(::diffx::__private::Action);
    quote! {{
        #(let mut #names = ::core::clone::Clone::clone(&#names);)*
        loop {
            match #schedule.next() {
                #action::Advance(#from, #to) => {
                    let __advance = ::core::iter::Iterator::skip(::core::clone::Clone::clone(&#all), #from);
                    for #pat in ::core::iter::Iterator::take(__advance, #to - #from) { #body }
                }
                #action::Push => { #push }
                #action::Restore => { #restore }
                #action::Pop => { #snaps.pop(); }
                #action::Reverse(#step) => { #run #back }
                #action::Done => break,
            }
        }
    }}
}

/// The loop's body as the primal runs it, and the cells written back.
fn primal_body(f: &Func, cells: &[Var], c: &Checkpoint, mutable: &Mutable) -> TokenStream {
    let (inner, yields) = nested(f, &c.primal.body, &c.primal.yields, mutable);
    let names = cells.iter().map(|c| f.name(*c));
    let write_back = (!cells.is_empty()).then(|| quote!((#(#names,)*) = (#(#yields,)*);));
    quote!(#inner #write_back)
}

/// A snapshot of the state, pushed.
fn push(f: &Func, c: &Checkpoint) -> TokenStream {
    let (snaps, state) = (&c.snaps, c.state.iter().map(|v| f.name(*v)));
    quote!(#snaps.push((#(::core::clone::Clone::clone(&#state),)*));)
}

/// The state set to the newest snapshot (a vector's storage reused).
fn restore(f: &Func, c: &Checkpoint) -> TokenStream {
    let snaps = &c.snaps;
    let top = Ident::new("__top", Span::mixed_site());
    let set = c.state.iter().enumerate().map(|(k, v)| {
        let (v, k) = (f.name(*v), syn::Index::from(k));
        quote!(::core::clone::Clone::clone_from(&mut #v, &#top.#k);)
    });
    quote! {
        let #top = #snaps.last().expect("the schedule restores a snapshot it keeps");
        #(#set)*
    }
}
