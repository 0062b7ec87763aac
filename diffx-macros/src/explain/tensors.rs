//! Recording values that need not be numbers: tensors, fields of parameter structs, the results of
//! calls of other `#[autodiff]` functions, and vector-valued results.
//!
//! Rows of tensors go through the runtime's `Value` (a number or a tensor, decided by type, so a
//! call whose result the macro cannot see is recorded all the same). A local partial is a number or
//! a tensor of elementwise partials, lowered from the rule table as both modes lower it; for a
//! linear map of the table (`matmul`, `sum`, `cross_entropy`) or a call, the edge carries two
//! closures: the tangent map, applied at once to the operand's tangent, and its transpose (or the
//! callee's pullback), which keeps copies of the operands for the reverse sweep.

use std::collections::HashSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, ToTokens};

use super::instrument::Instrument;
use crate::builder::Builder;
use crate::emit;
use crate::ir::operands::{by_ref, place, value};
use crate::ir::{Atom, Branch, Func, Index, Kind, Op, Path, Step, Stmt, Var};
use crate::lower::partials;
use crate::names;
use crate::rules::{template, Deriv, Rule};

mod calls;

/// Whether `f` can be recorded with values that are tensors or of types the macro cannot see:
/// every operand a number, a tensor, an element `x[i]`, a field of a parameter struct
/// (`model.layers[0].w`, `model.layers[i].w`) or a call's result; the result a value or a vector.
///
/// `structs`: the parameters read by field, parameter structs. They are only read by field, and
/// none of them (see [`Opaque`]) is passed to a call.
pub fn recordable(f: &Func, structs: &HashSet<Var>, ret_kind: Kind) -> bool {
    let ret_ok = match (&f.ret, ret_kind) {
        (Some(Atom::Var(v)), Kind::Slice) => f.kind(*v) == Kind::Slice,
        (Some(r), Kind::Scalar | Kind::Tensor) => operand(f, structs, r),
        (None, Kind::Scalar) => true,
        _ => false,
    };
    let opaque = Opaque::new(f, structs);
    let mut ok = ret_ok;
    for s in &f.body {
        s.walk(&mut |s| {
            ok &= stmt(f, structs, s);
            if let Stmt::Let {
                op: Op::Call(_),
                args,
                ..
            } = s
            {
                ok &= !args.iter().any(|a| opaque.contains(a));
            }
        });
    }
    ok
}

/// Operands that are structs whose fields are rows: a parameter struct read by field, a field
/// that holds other fields read (`model.layers[0]` when `model.layers[0].w` is read), and copies
/// of these (`let layer = &model.layers[0];`). A call's pullback gives such an argument a struct
/// of gradients, which no row could take, so the adjoints of its fields would be incomplete. (A
/// field or parameter that is a struct but has no field read is no row at all: the probes of the
/// recorder find that it is no value.)
struct Opaque {
    vars: HashSet<Var>,
    /// Every field of a parameter struct that the function reads.
    fields: Vec<Atom>,
}

impl Opaque {
    fn new(f: &Func, structs: &HashSet<Var>) -> Self {
        let mut opaque = Opaque {
            vars: structs.clone(),
            fields: all_fields(f, structs),
        };
        // Copies of copies, through loop cells and `if` outputs: until nothing changes.
        loop {
            let mut copies = Vec::new();
            for s in &f.body {
                s.walk(&mut |s| copies.extend(opaque.copies(s)));
            }
            let before = opaque.vars.len();
            opaque.vars.extend(copies);
            if opaque.vars.len() == before {
                return opaque;
            }
        }
    }

    fn contains(&self, a: &Atom) -> bool {
        match a {
            Atom::Var(v) => self.vars.contains(v),
            // `.w` holds `.w.x`.
            Atom::Field(v, path) => self.fields.iter().any(|other| match other {
                Atom::Field(w, p) => w == v && p.0.len() > path.0.len() && p.starts_with(path),
                _ => false,
            }),
            Atom::Const(_) => false,
        }
    }

    /// The values `s` makes copies of something opaque.
    fn copies(&self, s: &Stmt) -> Vec<Var> {
        let from = |outs: &[Var], yields: &[&[Atom]]| -> Vec<Var> {
            outs.iter()
                .enumerate()
                .filter(|(i, _)| {
                    yields
                        .iter()
                        .any(|y| y.get(*i).is_some_and(|a| self.contains(a)))
                })
                .map(|(_, o)| *o)
                .collect()
        };
        match s {
            Stmt::Let {
                dst,
                op: Op::Id,
                args,
                ..
            } if args.iter().any(|a| self.contains(a)) => vec![*dst],
            Stmt::If {
                then_, else_, outs, ..
            } => from(outs, &[&then_.yields, &else_.yields]),
            Stmt::Loop { cells, body, .. } => from(cells, &[&body.yields]),
            _ => Vec::new(),
        }
    }
}

/// The parameters of `others` that `f` reads by field: parameter structs.
pub fn structs(f: &Func, others: &HashSet<Var>) -> HashSet<Var> {
    all_fields(f, others).iter().filter_map(Atom::var).collect()
}

fn stmt(f: &Func, structs: &HashSet<Var>, s: &Stmt) -> bool {
    let value = |v: &Var| !structs.contains(v);
    let yields = |b: &Branch, outs: &[Var]| {
        outs.iter().zip(&b.yields).all(|(o, y)| match f.kind(*o) {
            Kind::Slice => {
                matches!(y, Atom::Var(v) if f.kind(*v) == Kind::Slice)
                    || matches!(y, Atom::Const(_))
            }
            _ => operand(f, structs, y),
        })
    };
    match s {
        Stmt::Let { dst, op, args, .. } => {
            let args_ok = args.iter().all(|a| operand(f, structs, a));
            // A call may take vectors whole and return one.
            let call_ok = args.iter().all(|a| {
                operand(f, structs, a) || matches!(a, Atom::Var(v) if f.kind(*v) == Kind::Slice)
            });
            match (f.kind(*dst), op) {
                (_, Op::Call(_)) => call_ok,
                (Kind::Slice, Op::Id) => {
                    matches!(&args[..], [Atom::Var(v)] if f.kind(*v) == Kind::Slice)
                        || matches!(&args[..], [Atom::Const(_)])
                }
                (Kind::Slice, _) => false,
                (_, Op::Rule(_) | Op::Id) => args_ok,
                (_, Op::Map { .. } | Op::Zeros(_) | Op::Fit | Op::Recall(_) | Op::SetPart(_)) => {
                    false
                }
            }
        }
        Stmt::If {
            then_, else_, outs, ..
        } => outs.iter().all(value) && yields(then_, outs) && yields(else_, outs),
        Stmt::Loop { cells, body, .. } => cells.iter().all(value) && yields(body, cells),
        Stmt::SetElem { vec, value, .. } | Stmt::Push { vec, value, .. } => {
            f.kind(*vec) == Kind::Slice && operand(f, structs, value)
        }
        Stmt::Const { .. } | Stmt::Verbatim { .. } | Stmt::Item(_) => true,
        _ => false,
    }
}

/// An operand with a row (or a constant): not a whole vector or parameter struct.
fn operand(f: &Func, structs: &HashSet<Var>, a: &Atom) -> bool {
    match a {
        Atom::Var(v) => f.kind(*v) != Kind::Slice && !structs.contains(v),
        Atom::Field(v, path) if f.kind(*v) == Kind::Slice => path.only_index().is_some(),
        Atom::Field(v, _) => structs.contains(v),
        Atom::Const(_) => true,
    }
}

/// The fields of the parameters `structs` that `f` reads at constant paths, in the order they are
/// first read: the input rows recorded before the body runs.
pub fn fields(f: &Func, structs: &HashSet<Var>) -> Vec<Atom> {
    all_fields(f, structs)
        .into_iter()
        .filter(|a| matches!(a, Atom::Field(_, path) if path.known()))
        .collect()
}

/// Every field of the parameters `structs` that `f` reads, in the order they are first read.
fn all_fields(f: &Func, structs: &HashSet<Var>) -> Vec<Atom> {
    let mut out: Vec<Atom> = Vec::new();
    let mut add = |a: &Atom| {
        if matches!(a, Atom::Field(v, _) if structs.contains(v)) && !out.iter().any(|o| o.same(a)) {
            out.push(a.clone());
        }
    };
    for s in &f.body {
        s.walk(&mut |s| match s {
            Stmt::Let { args, .. } => args.iter().for_each(&mut add),
            Stmt::If { then_, else_, .. } => {
                then_.yields.iter().chain(&else_.yields).for_each(&mut add);
            }
            Stmt::Loop { body, .. } => body.yields.iter().for_each(&mut add),
            Stmt::SetElem { value, .. } | Stmt::Push { value, .. } => add(value),
            _ => {}
        });
    }
    if let Some(r) = &f.ret {
        add(r);
    }
    out
}

/// A hygienic local of the recording code: `__diffx_a`.
fn local(name: &str) -> Ident {
    names::local_at(name, Span::mixed_site())
}

impl Instrument<'_> {
    /// Whether `a` is a field of a parameter struct at a path known only at run time,
    /// `model.layers[i].w`: its input row is recorded where it is first read.
    pub(super) fn runtime_field(&self, a: &Atom) -> bool {
        matches!(a, Atom::Field(v, path)
            if self.struct_tangents.contains_key(v) && !path.known())
    }

    /// The name of a field at run time: `format!("model.layers[{}].w", i)`.
    fn field_name(&self, base: Var, path: &Path) -> TokenStream {
        let (mut text, mut args) = (self.primal.name(base).to_string(), Vec::new());
        for step in &path.0 {
            match step {
                Step::Field(member) => text.push_str(&format!(".{}", member.to_token_stream())),
                Step::Index(index @ Index::Known(..)) => text.push_str(&format!("[{index}]")),
                // The value of an optional field (`if let Some(b) = p.offset`) reads as the field.
                Step::Index(Index::Inner) => {}
                Step::Index(index) => {
                    text.push_str("[{}]");
                    args.push(quote!((#index)));
                }
            }
        }
        quote!(::std::format!(#text, #(#args),*))
    }

    /// The row of a field read at a run-time path, once [`Instrument::touches`] has recorded it.
    pub(super) fn field_source(&self, a: &Atom) -> TokenStream {
        let Atom::Field(base, path) = a else {
            return quote!(::core::option::Option::None);
        };
        let (rec, name) = (&self.rec, self.field_name(*base, path));
        quote!(#rec.field_named(&#name))
    }

    /// Before reading `atoms`: the input rows of the fields among them at run-time paths, each
    /// recorded the first time it is read.
    pub(super) fn touches(&self, atoms: &[Atom]) -> Vec<Stmt> {
        let (rec, float) = (&self.rec, &self.float);
        let probe = quote!(::diffx::explain::Probe::<#float, _>::new);
        atoms
            .iter()
            .filter(|a| self.runtime_field(a))
            .filter_map(|a| {
                let Atom::Field(base, path) = a else { return None };
                let (x, dx) = (self.primal.name(*base), self.struct_tangents.get(base)?);
                let name = self.field_name(*base, path);
                Some(Self::record(quote! {
                    #rec.touch_field(#name, || (&#probe(&#x #path)).probe(), || (&#probe(&#dx #path)).probe());
                }))
            })
            .collect()
    }

    /// `::diffx::explain::Value::<F>`.
    fn value_type(&self) -> TokenStream {
        let float = &self.float;
        quote!(::diffx::explain::Value::<#float>)
    }

    /// `rec.operation_value(…)` of `dst` with the given operands.
    fn record_value(
        &self,
        dst: Var,
        op: &Op,
        args: &[Atom],
        operands: Vec<TokenStream>,
    ) -> TokenStream {
        let f = self.primal;
        let (rec, k, val) = (&self.rec, Self::key(dst), self.value_type());
        let name = self.row_name(dst);
        let shown: Vec<Atom> = args.iter().map(|a| self.shown(a)).collect();
        let expr = match op {
            // As written: `rhs(s, k)`, not the copies and borrows the call is emitted with.
            Op::Call(path) => {
                let shown: Vec<TokenStream> = args
                    .iter()
                    .zip(&shown)
                    .map(|(a, s)| match a {
                        Atom::Var(v) if f.vars[v.0].by_value && !f.vars[v.0].is_ref => place(f, s),
                        _ if f.atom_kind(a) == Kind::Scalar => place(f, s),
                        _ => by_ref(f, s),
                    })
                    .collect();
                self.pretty(&quote!(#path(#(#shown),*)))
            }
            _ => self.pretty(&emit::op_expr(f, dst, op, &shown)),
        };
        let value = place(f, &Atom::Var(dst));
        // (An array, not `vec![…]`: a method's calls in it are rewritten to `self.g(…)` later,
        // and a macro's tokens are not visited.)
        quote!(#rec.operation_value(#k, #name, #expr, #val::of(&#value), ::std::vec::Vec::from([#(#operands),*]));)
    }

    /// The operand `a` as its expression shows it: `x`, `model.layers[0].w`.
    fn operand_name(&self, a: &Atom) -> String {
        self.pretty(&place(self.primal, &self.shown(a)))
    }

    /// `dst = rule(args)` where values may be tensors: elementwise partials as values, linear maps
    /// as closures.
    pub(super) fn value_rule(
        &self,
        b: &mut Builder,
        dst: Var,
        rule: &'static Rule,
        args: &[Atom],
    ) -> syn::Result<TokenStream> {
        let float = &self.float;
        let operands: Vec<TokenStream> = match &rule.deriv {
            Deriv::Partials(_) => {
                let needed: Vec<bool> = args.iter().map(|a| a.var().is_some()).collect();
                let parts = partials(b, rule, args, &Atom::Var(dst), &needed)?;
                let map = rule.map_label();
                args.iter()
                    .zip(parts)
                    .filter(|(a, _)| a.var().is_some())
                    .map(|(a, p)| {
                        let partial = match p {
                            Some(p) => {
                                let p = place(&b.func, &p);
                                quote!(::diffx::explain::Partial::<#float>::elementwise(&#p))
                            }
                            None => quote!(::diffx::explain::Partial::None),
                        };
                        let (row, name) = (self.source(a), self.operand_name(a));
                        quote!(::diffx::explain::Operand::new(#row, #partial, #name).with_map(#map))
                    })
                    .collect()
            }
            Deriv::Linear(maps) => {
                let mut out = Vec::new();
                for (i, (a, (jvp, vjp))) in args.iter().zip(maps.iter()).enumerate() {
                    if a.var().is_none() || jvp.is_empty() {
                        continue;
                    }
                    out.push(self.linear_operand(dst, args, i, jvp, vjp, &rule.map_label())?);
                }
                out
            }
        };
        Ok(self.record_value(dst, &Op::Rule(rule), args, operands))
    }

    /// An operand of a linear map: its tangent map in the tangent `t`, and its transpose in the
    /// cotangent `g` over copies of the operands and the result.
    fn linear_operand(
        &self,
        dst: Var,
        args: &[Atom],
        i: usize,
        jvp: &str,
        vjp: &'static str,
        map: &str,
    ) -> syn::Result<TokenStream> {
        let f = self.primal;
        let (val, float) = (self.value_type(), &self.float);
        let names = ["a", "b", "c"];
        let (t, g, z) = (local("t"), local("g"), local("z"));
        let mut fwd: Vec<(&str, TokenStream)> = names
            .iter()
            .copied()
            .zip(args.iter().map(|a| value(f, a)))
            .collect();
        fwd.push(("z", place(f, &Atom::Var(dst))));
        fwd.push(("t", t.to_token_stream()));
        let tangent_map = template::write(jvp, float, &fwd)?;
        let copies: Vec<Ident> = names[..args.len()].iter().map(|n| local(n)).collect();
        let mut bwd: Vec<(&str, TokenStream)> = names
            .iter()
            .copied()
            .zip(copies.iter().map(ToTokens::to_token_stream))
            .collect();
        bwd.push(("z", z.to_token_stream()));
        bwd.push(("g", g.to_token_stream()));
        let transpose = template::write(vjp, float, &bwd)?;
        // Copies of the operands the transpose reads, for the reverse sweep.
        let read = template::placeholders(vjp);
        let values: Vec<TokenStream> = args.iter().map(|a| value(f, a)).collect();
        let kept = copies
            .iter()
            .zip(&values)
            .zip(names)
            .filter(|(_, n)| read.contains(n))
            .map(|(kept, _)| kept);
        let (kept, kept_values): (Vec<&Ident>, Vec<&TokenStream>) = kept.unzip();
        let operand = &values[i];
        let result = place(f, &Atom::Var(dst));
        // The result's copy types the cotangent.
        let z_copy = quote!(let #z = ::core::clone::Clone::clone(&(#result)););
        let (row, name) = (self.source(&args[i]), self.operand_name(&args[i]));
        let rec = &self.rec;
        let (dt, dg) = (names::local("dt"), names::local("dg"));
        Ok(quote!(::diffx::explain::Operand::linear(
            #row, #name, #map,
            #rec.tangent(#row).map(|#dt: &#val| {
                let #t = ::diffx::explain::cast(#dt, &(#operand));
                #val::of(&(#tangent_map))
            }),
            {
                #(let #kept = ::core::clone::Clone::clone(&(#kept_values));)*
                #z_copy
                move |#dg: &#val| {
                    let #g = ::diffx::explain::cast(#dg, &#z);
                    #val::of(&(#transpose))
                }
            },
        )))
    }
}
