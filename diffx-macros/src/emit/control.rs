//! Emission of control flow: `if`, loops (with their tapes in reverse mode) and the backward loops.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::stmt::Mutable;
use super::{checkpoint, list};
use crate::ir::operands::{owned, place};
use crate::ir::{Atom, Branch, Func, LoopHead, Nested, Stmt, Var};
use crate::liveness;

/// Statements nested in an arm or a body, and its yields: a value defined there is handed over at
/// its last read there (a value from outside is not: a loop repeats the body).
pub(super) fn nested(
    f: &Func,
    body: &[Stmt],
    yields: &[Atom],
    mutable: &Mutable,
) -> (TokenStream, Vec<TokenStream>) {
    let moves = &liveness::movable_in(f, body, yields);
    let moved = |i: usize, a: &Atom| matches!(a, Atom::Var(v) if moves.contains(&(i, *v)));
    let tokens = list(f, body, mutable, &moved);
    let yields = yields
        .iter()
        .map(|y| {
            if moved(body.len(), y) {
                place(f, y)
            } else {
                owned(f, y)
            }
        })
        .collect();
    (tokens, yields)
}

/// `if`, a loop, a backward loop or a reset; other statements give no tokens here.
pub fn stmt(f: &Func, s: &Stmt, mutable: &Mutable) -> TokenStream {
    if let Some(tokens) = checkpointed(f, s, mutable) {
        return tokens;
    }
    match s {
        Stmt::If {
            cond,
            then_,
            else_,
            outs,
            ..
        } => if_stmt(f, cond, then_, else_, outs, mutable),
        Stmt::SetElem { .. } => set_elem(f, s),
        Stmt::Push { vec, value, log } => {
            let (v, x) = (f.name(*vec), place(f, value));
            // (A push is logged at an index no element has: undoing it pops.)
            let log = log.as_ref().map(|l| quote!(#l.push((usize::MAX, #x));));
            quote!(#log #v.push(#x);)
        }
        Stmt::Pop { dst, vec } => {
            let (d, v) = (f.name(*dst), f.name(*vec));
            let mt = mutable.contains(dst).then(|| quote!(mut));
            quote!(let ::core::option::Option::Some(#mt #d) = #v.pop() else {
                ::core::unreachable!("the adjoint of a pushed vector has an element per push")
            };)
        }
        // (A copy, whatever the kind says: a vector of constants carried out of an `if` may be
        // taken for a number, and the forward sweep reads it after the record.)
        Stmt::Record { stack, value } => {
            let v = match value {
                Atom::Const(_) => owned(f, value),
                _ => {
                    let p = place(f, value);
                    quote!(::core::clone::Clone::clone(&#p))
                }
            };
            match f.slots.contains(stack) {
                true => quote!(#stack = ::core::option::Option::Some(#v);),
                false => quote!(#stack.push(#v);),
            }
        }
        Stmt::Undo { .. } => undo(f, s),
        Stmt::Loop { .. } => loop_stmt(f, s, mutable),
        Stmt::LoopBack { .. } => loop_back(f, s, mutable),
        Stmt::Set { dst, value } => {
            let (d, v) = (f.name(*dst), owned(f, value));
            quote!(#d = #v;)
        }
        _ => TokenStream::new(),
    }
}

/// `vec[index] = value`, with the element it overwrites logged first if the write has a log.
fn set_elem(f: &Func, s: &Stmt) -> TokenStream {
    match s {
        Stmt::SetElem {
            vec,
            index,
            value,
            log,
            ..
        } => {
            let (v, x) = (f.name(*vec), place(f, value));
            match log {
                // (Its undo knows the index.)
                Some(log) if f.value_logs.contains(log) => {
                    let k = proc_macro2::Ident::new("__k", proc_macro2::Span::mixed_site());
                    quote!({ let #k = #index; #log.push(#v[#k]); #v[#k] = #x; })
                }
                Some(log) => {
                    let k = proc_macro2::Ident::new("__k", proc_macro2::Span::mixed_site());
                    quote!({ let #k = #index; #log.push((#k, #v[#k])); #v[#k] = #x; })
                }
                None => quote!(#v[#index] = #x;),
            }
        }
        _ => TokenStream::new(),
    }
}

/// The adjoint of a logged write: the element it overwrote put back from the log.
fn undo(f: &Func, s: &Stmt) -> TokenStream {
    match s {
        Stmt::Undo {
            vec,
            log,
            at: Some(at),
            ..
        } if f.value_logs.contains(log) => {
            let (v, old) = (f.name(*vec), Ident::new("__old", Span::mixed_site()));
            quote!(if let ::core::option::Option::Some(#old) = #log.pop() { #v[#at] = #old; })
        }
        Stmt::Undo { vec, log, mark, .. } => {
            let v = f.name(*vec);
            let k = proc_macro2::Ident::new("__k", proc_macro2::Span::mixed_site());
            let old = proc_macro2::Ident::new("__old", proc_macro2::Span::mixed_site());
            let restore = quote!(if let ::core::option::Option::Some((#k, #old)) = #log.pop() {
                ::diffx::__private::Restore::restore(&mut #v, #k, #old);
            });
            match mark {
                Some(m) => quote!(while #log.len() > #m { #restore }),
                None => restore,
            }
        }
        _ => TokenStream::new(),
    }
}

/// A loop: its tape declared and pushed on if it has one, the cells written back each iteration.
fn loop_stmt(f: &Func, s: &Stmt, mutable: &Mutable) -> TokenStream {
    let Stmt::Loop {
        head,
        cells,
        body,
        tape,
        logs,
        ..
    } = s
    else {
        return TokenStream::new();
    };
    let names: Vec<_> = cells.iter().map(|c| f.name(*c)).collect();
    let (inner, yields) = nested(f, &body.body, &body.yields, mutable);
    let write_back = (!names.is_empty()).then(|| quote!((#(#names,)*) = (#(#yields,)*);));
    let it = proc_macro2::Ident::new("__iter", proc_macro2::Span::mixed_site());
    // Without logs (whose lengths are taken as the iteration starts), and where nothing in
    // the body writes a cell, the entry state is pushed as the iteration ends, the cells
    // handed over just before they are overwritten instead of copied.
    let at_end = logs.is_empty() && !writes_cells(&body.body, cells);
    let run = proc_macro2::Ident::new("__run", proc_macro2::Span::mixed_site());
    let mut after = TokenStream::new();
    let (decl, push) = match tape {
        Some(t) => taped(f, s, t, at_end, &it, &run, &mut after),
        None => (TokenStream::new(), TokenStream::new()),
    };
    let head = match head {
        LoopHead::For {
            pat, iter, exit, ..
        } if tape.is_some() => {
            // The exit check comes before the push: the tape holds the iterations that ran.
            let exit = exit.as_ref().map(|x| quote!(if #x { break; }));
            let decl = quote!(let #it = ::core::iter::IntoIterator::into_iter(#iter); #decl);
            let (first, last) = if at_end {
                (None, Some(push))
            } else {
                (Some(push), None)
            };
            let (sizing, sized) = tape
                .as_ref()
                .filter(|_| exit.is_none())
                .map(|t| size_once(t, &split_stacks(t, &body.body).1, &it))
                .unwrap_or_default();
            return quote!(#decl #sizing for #pat in #it { #exit #first #inner #last #write_back #sized } #after);
        }
        LoopHead::For {
            pat,
            iter,
            exit: Some(x),
            ..
        } => {
            return quote!(for #pat in #iter { if #x { break; } #inner #write_back });
        }
        LoopHead::For { pat, iter, .. } => quote!(for #pat in #iter),
        LoopHead::While { cond } => quote!(while #cond),
    };
    let (first, last) = if at_end {
        (None, Some(push))
    } else {
        (Some(push), None)
    };
    quote!(#decl #head { #first #inner #last #write_back } #after)
}

/// A taped loop's declarations before it (its tape, the stacks of its nest, its range) and
/// what each iteration pushes; what a nested loop leaves after it goes in `after`.
fn taped(
    f: &Func,
    s: &Stmt,
    t: &crate::ir::Tape,
    at_end: bool,
    it: &Ident,
    run: &Ident,
    after: &mut TokenStream,
) -> (TokenStream, TokenStream) {
    let Stmt::Loop {
        head,
        cells,
        active,
        body,
        logs,
        ..
    } = s
    else {
        return (TokenStream::new(), TokenStream::new());
    };
    let entries = entries(f, head, cells, active, logs, at_end);
    let saved: Vec<&TokenStream> = entries
        .iter()
        .enumerate()
        .filter(|(i, (name, _))| t.pushes(*i, name))
        .map(|(_, (_, e))| e)
        .collect();
    let range = t
        .range
        .as_ref()
        .map(|(_, r)| quote!(let #r = ::core::clone::Clone::clone(&#it);));
    // Sized once from the iterator's length, not grown push by push.
    let capacity = match head {
        LoopHead::For { .. } => quote!(#it.size_hint().0),
        LoopHead::While { .. } => quote!(0),
    };
    let name = &t.name;
    let calls = t.calls.iter();
    // (A stack the body pushes on once per iteration is sized from the iterator.)
    let (direct, nested) = split_stacks(t, &body.body);
    let range = quote! {
        #(let mut #direct = ::std::vec::Vec::with_capacity(#capacity);)*
        #(let mut #nested = ::std::vec::Vec::new();)*
        #range
        #(let mut #calls = ::std::vec::Vec::with_capacity(#capacity);)*
    };
    let push = quote!(#name.push((#(#saved,)*)););
    match &t.nest {
        // Nested in a recording loop: the tape is the outermost loop's, and the run
        // leaves where its entries start (its range, or the tape's length), unless
        // the backward loop computes its range again. (Pushed after the loop: a
        // call before it would take the registers of the values the loop carries.)
        Some(nest) => {
            let start = match (nest, &t.range) {
                (Nested::Again(_), _) => TokenStream::new(),
                (Nested::Runs(_), Some(_)) => {
                    quote!(let #run = ::core::clone::Clone::clone(&#it);)
                }
                (Nested::Runs(_), None) => quote!(let #run = #name.len();),
            };
            if let Nested::Runs(runs) = nest {
                *after = quote!(#runs.push(#run););
            }
            let push = (!saved.is_empty() || t.range.is_none()).then_some(push);
            (start, push.unwrap_or_default())
        }
        None if saved.is_empty() && t.range.is_some() => (range, TokenStream::new()),
        None => (
            quote!(#range let mut #name = ::std::vec::Vec::with_capacity(#capacity);),
            push,
        ),
    }
}

/// What an iteration of a taped loop may push, each with its name: the cells (as they are at
/// the iteration's end with `at_end`, else copies), the loop's variables, the logs' lengths.
fn entries(
    f: &Func,
    head: &LoopHead,
    cells: &[Var],
    active: &[bool],
    logs: &[(Var, Ident)],
    at_end: bool,
) -> Vec<(String, TokenStream)> {
    let vars = match head {
        LoopHead::For { vars, .. } => vars.clone(),
        LoopHead::While { .. } => Vec::new(),
    };
    cells
        .iter()
        .zip(active)
        .map(|(c, is_active)| {
            let c = Atom::Var(*c);
            // (A constant cell pushed as the iteration starts may be read after:
            // a copy, which a constant changed in place has.)
            let value = match (at_end, is_active) {
                (true, _) => place(f, &c),
                (false, true) => owned(f, &c),
                (false, false) => {
                    let p = place(f, &c);
                    quote!(::core::clone::Clone::clone(&#p))
                }
            };
            (f.name(c.var().expect("a cell")).to_string(), value)
        })
        .chain(vars.iter().map(|v| (v.to_string(), quote!(#v))))
        .chain(logs.iter().map(|(_, l)| (String::new(), quote!(#l.len()))))
        .collect()
}

/// A taped loop's backward sweep: each iteration pops its entry and runs the body's adjoint.
fn loop_back(f: &Func, s: &Stmt, mutable: &Mutable) -> TokenStream {
    let Stmt::LoopBack {
        tape,
        names,
        body,
        skip_if_zero,
        ..
    } = s
    else {
        return TokenStream::new();
    };
    let (body, _) = nested(f, body, &[], mutable);
    // (All zero: so is every iteration's adjoint.)
    let seeds = skip_if_zero.iter().map(|v| f.name(*v));
    let unless_zero = (!skip_if_zero.is_empty()).then(|| quote!(if #(#seeds != 0.0)||*));
    let names: Vec<&Ident> = names
        .iter()
        .enumerate()
        .filter(|(i, n)| tape.pushes(*i, &n.to_string()))
        .map(|(_, n)| n)
        .collect();
    let t = &tape.name;
    let start = proc_macro2::Ident::new("__start", proc_macro2::Span::mixed_site());
    let into = tape.range.as_ref().map_or(&start, |(_, range)| range);
    let run = tape.nest.as_ref().map(|nest| match nest {
        Nested::Runs(runs) => {
            quote!(let #into = #runs.pop().unwrap_or_else(|| ::core::unreachable!(
            "a recording loop's backward sweep takes what its forward sweep kept"
        ));)
        }
        Nested::Again(range) => {
            quote!(let #into = ::core::iter::IntoIterator::into_iter(#range);)
        }
    });
    let pop = quote!(let ::core::option::Option::Some((#(#names,)*)) = #t.pop() else {
        ::core::unreachable!("the tape holds one entry per iteration")
    };);
    let Some((var, range)) = &tape.range else {
        if run.is_some() {
            return quote!(#run while #t.len() > #start { #pop #body });
        }
        return quote!(while let ::core::option::Option::Some((#(#names,)*)) = #t.pop() { #body });
    };
    let pop = (!names.is_empty()).then_some(pop);
    let backward = quote!(for #var in #range.rev() { #pop #body });
    match unless_zero {
        Some(guard) => quote!(#run #guard { #backward }),
        None => quote!(#run #backward),
    }
}

/// The stacks of a recording loop's nest that its body pushes on once per iteration (a record of
/// a value its top level makes), and the others (pushed in nested loops and arms).
fn split_stacks<'t>(t: &'t crate::ir::Tape, body: &[Stmt]) -> (Vec<&'t Ident>, Vec<&'t Ident>) {
    let direct: Vec<&Ident> = (body.iter())
        .filter_map(|s| match s {
            Stmt::Record { stack, .. } => Some(stack),
            _ => None,
        })
        .collect();
    t.stacks.iter().partition(|s| direct.contains(s))
}

/// The storage of an outermost recording loop's nest, allocated once where its trip count is known
/// at entry: the stacks pushed on in nested loops and arms, after the first iteration, are given
/// room for as many entries per remaining iteration (the declarations before the loop, the
/// reservation in it); those pushed once per iteration are declared with room for all.
fn size_once(t: &crate::ir::Tape, stacks: &[&Ident], it: &Ident) -> (TokenStream, TokenStream) {
    if !t.record || t.nest.is_some() || stacks.is_empty() {
        return Default::default();
    }
    let (rest, sized) = (
        Ident::new("__rest", Span::mixed_site()),
        Ident::new("__sized", Span::mixed_site()),
    );
    (
        quote! {
            let #rest = match ::core::iter::Iterator::size_hint(&#it) {
                (low, ::core::option::Option::Some(high)) if low == high => low.saturating_sub(1),
                _ => 0,
            };
            let mut #sized = #rest == 0;
        },
        quote! {
            if !#sized {
                #sized = true;
                #(#stacks.reserve(#stacks.len().saturating_mul(#rest));)*
            }
        },
    )
}

/// A checkpointed loop or backward loop (`emit/checkpoint.rs`).
fn checkpointed(f: &Func, s: &Stmt, mutable: &Mutable) -> Option<TokenStream> {
    match s {
        Stmt::Loop {
            head,
            cells,
            tape: Some(t),
            ..
        } => (t.checkpoint.as_deref()).map(|c| checkpoint::forward(f, head, cells, c, mutable)),
        Stmt::LoopBack { tape, .. } => tape.checkpoint.as_deref().map(|c| {
            let mut back = s.clone();
            if let Stmt::LoopBack { tape, .. } = &mut back {
                tape.checkpoint = None;
            }
            checkpoint::backward(f, &back, c, mutable)
        }),
        _ => None,
    }
}

fn if_stmt(
    f: &Func,
    cond: &Ident,
    then_: &Branch,
    else_: &Branch,
    outs: &[Var],
    mutable: &Mutable,
) -> TokenStream {
    let arm = |b: &Branch| {
        let (body, yields) = nested(f, &b.body, &b.yields, mutable);
        if outs.is_empty() {
            quote!({ #body })
        } else {
            quote!({ #body (#(#yields,)*) })
        }
    };
    let (t, e) = (arm(then_), arm(else_));
    if outs.is_empty() {
        return quote!(if #cond #t else #e);
    }
    let names = outs.iter().map(|o| {
        let (mt, n) = (mutable.contains(o).then(|| quote!(mut)), f.name(*o));
        quote!(#mt #n)
    });
    quote!(let (#(#names,)*) = if #cond #t else #e;)
}

/// Whether `body` may write any of `cells` before the iteration's end (a nested loop, a reset, an
/// element).
fn writes_cells(body: &[Stmt], cells: &[Var]) -> bool {
    let mut writes = false;
    for s in body {
        s.walk(&mut |s| match s {
            Stmt::Loop { .. } => writes = true,
            Stmt::Set { dst, .. } => writes |= cells.contains(dst),
            Stmt::SetElem { vec, .. } | Stmt::Undo { vec, .. } | Stmt::Push { vec, .. } => {
                writes |= cells.contains(vec)
            }
            _ => {}
        });
    }
    writes
}
