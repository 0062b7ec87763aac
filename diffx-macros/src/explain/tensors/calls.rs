//! Recording a call of another `#[autodiff]` function: per argument, an edge whose tangent map is
//! the callee's `jvp_` along that argument and whose transpose is its `vjp_`, with copies of the
//! arguments kept for the reverse sweep.

use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};

use super::super::instrument::Instrument;
use super::local;
use crate::emit;
use crate::ir::operands::{place, value};
use crate::ir::{Atom, Func, Kind, Op, Var};
use crate::names;

impl Instrument<'_> {
    /// A call of another `#[autodiff]` function, whose result may be a number, a tensor or a
    /// vector: per argument, its forward code along that argument and its pullback. A vector
    /// passed whole is first gathered into one row from its elements' rows; a vector result is
    /// split into a row per element, which is what the function reads.
    pub(in crate::explain) fn value_call(
        &self,
        dst: Var,
        path: &syn::Path,
        args: &[Atom],
    ) -> TokenStream {
        let f = self.primal;
        let (rec, val) = (&self.rec, self.value_type());
        let (jvp, vjp) = (
            Op::Call(emit::derived_path(path, "jvp")),
            Op::Call(emit::derived_path(path, "vjp")),
        );
        let (copies, copied, values) = call_copies(f, args);
        let (rows, gathers) = self.call_rows(args);
        let shown_path = shown_callee(path);
        let map = super::super::self_calls(&Op::Call(shown_path.clone()).name());
        let float = &self.float;
        let zero = crate::tokens::float_lit(float, "0.0");
        let (cast, probe) = (
            quote!(::diffx::explain::CastTo::<#float, _>::new),
            quote!(::diffx::explain::Probe::<#float, _>::new),
        );
        let result = place(f, &Atom::Var(dst));
        let operands: Vec<TokenStream> = args
            .iter()
            .enumerate()
            .filter(|(_, a)| a.var().is_some())
            .map(|(i, a)| {
                let [dt, t, dg, z, grad] = ["dt", "t", "dg", "z", "grad"].map(names::local);
                let mut with_tangents = args.to_vec();
                with_tangents.extend((0..args.len()).map(|j| {
                    Atom::constant(if i == j {
                        passed(f, a, &quote!(#t))
                    } else {
                        quote!(::diffx::__private::Zero)
                    })
                }));
                let forward = emit::op_expr(f, dst, &jvp, &with_tangents);
                let mut with_ct = copied.clone();
                with_ct.push(Atom::constant(quote!(::diffx::explain::cast(#dg, &#z))));
                let pullback = emit::op_expr(f, dst, &vjp, &with_ct);
                let k = proc_macro2::Literal::usize_unsuffixed(i);
                let (row, name) = (&rows[i], self.operand_name(a));
                let like = &values[i];
                quote!(::diffx::explain::Operand::linear(
                    #row, #name, #map,
                    #rec.tangent(#row)
                        .and_then(|#dt: &#val| (&#cast(&(#like))).cast(#dt))
                        .map(|#t| #val::of(&#forward.1)),
                    {
                        #(let #copies = #values;)*
                        let #z = ::core::clone::Clone::clone(&(#result));
                        move |#dg: &#val| {
                            let #grad = #pullback.1.#k;
                            (&#probe(&#grad)).probe().unwrap_or(#val::Scalar(#zero))
                        }
                    },
                ))
            })
            .collect();
        let record = self.record_value(dst, &Op::Call(shown_path), args, operands);
        let split = (f.kind(dst) == Kind::Slice).then(|| {
            let (k, name) = (Self::key(dst), self.row_name(dst));
            let parts = match self.parts.get(&dst) {
                Some(parts) => parts.split_args(),
                None => quote!(&[], &[]),
            };
            quote!(#rec.split(#k, #name, #parts);)
        });
        quote!({ #(#gathers)* #record #split })
    }

    /// Each argument's row (a vector passed whole: the row it is gathered into), and the
    /// statements that gather those vectors.
    fn call_rows(&self, args: &[Atom]) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let f = self.primal;
        let (rec, val) = (&self.rec, self.value_type());
        let rows: Vec<TokenStream> = args
            .iter()
            .enumerate()
            .map(|(i, a)| match a {
                Atom::Var(v) if vector(f, a) => local(&format!("v{i}")).to_token_stream(),
                _ => self.source(a),
            })
            .collect();
        let gathers = args
            .iter()
            .zip(&rows)
            .filter(|(a, _)| vector(f, a))
            .map(|(a, row)| {
                let Atom::Var(v) = a else { return quote!() };
                let (k, name, value) = (Self::key(*v), self.operand_name(a), value(f, a));
                quote!(let #row = #rec.gather(#k, #name, #val::of(&(#value)));)
            })
            .collect();
        (rows, gathers)
    }
}

/// The copies of a call's arguments that its pullback keeps: their names, the arguments as the
/// call passes the copies, and what each copy is made of.
fn call_copies(f: &Func, args: &[Atom]) -> (Vec<Ident>, Vec<Atom>, Vec<TokenStream>) {
    let copies: Vec<Ident> = (0..args.len()).map(|i| local(&format!("a{i}"))).collect();
    let copied: Vec<Atom> = args
        .iter()
        .zip(&copies)
        .map(|(a, c)| Atom::constant(passed(f, a, &c.to_token_stream())))
        .collect();
    // What each copy is made of: the referent of an argument written `&(…)`, whose temporary
    // would not outlive the statement; a vector as an owned one (`x.to_vec()` of a slice).
    let values: Vec<TokenStream> = args
        .iter()
        .map(|a| match a {
            Atom::Const(t) if borrows(a) => quote!(::core::clone::Clone::clone(&(*#t))),
            _ if vector(f, a) => {
                let v = value(f, a);
                quote!(::std::borrow::ToOwned::to_owned(&(#v)))
            }
            _ => {
                let v = value(f, a);
                quote!(::core::clone::Clone::clone(&(#v)))
            }
        })
        .collect();
    (copies, copied, values)
}

/// The copy `c` of argument `a` as the call passes its arguments: numbers and vectors passed by
/// value as values, the rest by reference.
fn passed(f: &Func, a: &Atom, c: &TokenStream) -> TokenStream {
    let owned = |a: &Atom| matches!(a, Atom::Var(v) if f.vars[v.0].by_value && !f.vars[v.0].is_ref);
    match f.atom_kind(a) {
        // (A constant may be a vector, `dy.clone()` of an output call; a vector passed by
        // value is one: the closure that calls the pullback hands it a copy each time.)
        Kind::Scalar if matches!(a, Atom::Const(_)) && !borrows(a) => {
            quote!(::core::clone::Clone::clone(&#c))
        }
        Kind::Scalar if !borrows(a) => c.clone(),
        Kind::Slice if owned(a) => quote!(::core::clone::Clone::clone(&#c)),
        // A value of a kind the macro cannot see, passed by value (a number).
        Kind::Other if owned(a) => c.clone(),
        _ => quote!(&#c),
    }
}

/// Whether `a` is a vector (a slice) variable.
fn vector(f: &Func, a: &Atom) -> bool {
    matches!(a, Atom::Var(v) if f.kind(*v) == Kind::Slice)
}

/// The callee as the user wrote it: `polar`, not `__diffx_array_polar` (the array version of a
/// function returning a tuple, which the list calls).
fn shown_callee(path: &syn::Path) -> syn::Path {
    let mut p = path.clone();
    if let Some(last) = p.segments.last_mut() {
        let name = last.ident.to_string();
        last.ident = Ident::new(names::callee(&name), last.ident.span());
    }
    p
}

/// Whether `a` is a constant argument written as a borrow, `&(x * 0.5)`.
fn borrows(a: &Atom) -> bool {
    let Atom::Const(t) = a else { return false };
    let mut t = t.tokens().clone();
    loop {
        let first = t.clone().into_iter().next();
        match first {
            Some(proc_macro2::TokenTree::Group(g))
                if g.delimiter() == proc_macro2::Delimiter::Parenthesis
                    && t.clone().into_iter().count() == 1 =>
            {
                t = g.stream()
            }
            Some(proc_macro2::TokenTree::Punct(p)) => return p.as_char() == '&',
            _ => return false,
        }
    }
}
