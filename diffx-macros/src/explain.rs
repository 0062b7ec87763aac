//! `explain_f`: the evaluation trace of an `#[autodiff]` function at a point, for learners.
//!
//! Written only with the `explain` feature, and beside the other generated functions, so `grad_f`
//! and `jvp_f` are the same tokens with or without it. Its body is the function's own Wengert list,
//! instrumented (see [`instrument`]): each value appends a row to a `diffx::explain::Recorder` as
//! it is computed, with an edge from the row of each operand carrying the local partial derivative,
//! so a loop records a row per executed iteration and an `if` the rows of the arm that ran. The
//! recorder computes the tangents (forward mode over the rows, along the given direction) and the
//! adjoints (a reverse sweep over them from `ȳ = 1`): the sums `jvp_f` and `grad_f` compute. The
//! code `jvp_f` and `grad_f` run is formatted with `prettyplease` and embedded as strings.
//!
//! Functions of numbers and of slices, `Vec`s and arrays (one input row per element, `x[0]`, …)
//! with a scalar result are recorded with numbers for partials ([`Mode::Numbers`]). Functions of
//! tensors and parameter structs (an input row per field read, `model.layers[0].w`), vector- and
//! tensor-valued functions (with a cotangent argument `ct`) and functions that call other
//! `#[autodiff]` functions with arguments that are not all numbers are recorded through the
//! runtime's `Value`, a number or a tensor decided by type (see [`tensors`]). What neither can
//! record soundly gets no `explain_` (a parameter struct passed to a call beside rows of its
//! fields; a call of a method of the user's types, whose values have no row).

mod instrument;
mod parts;
mod tensors;

use std::collections::{BTreeSet, HashSet};

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::ItemFn;

use crate::builder::Builder;
use crate::emit;
use crate::emit::form::{Form, Function, Ret, Role};
use crate::emit::signature::Typed;
use crate::forward::Forward;
use crate::ir::operands::place;
use crate::ir::{Atom, Kind, Var};
use crate::names;
use crate::parse::Signature;
use instrument::Instrument;

/// The programs `explain_f` is written from.
pub struct Programs<'a> {
    pub primal: &'a Builder,
    /// The value of each parameter (`None` for constants).
    pub params: &'a [Option<Var>],
    /// The tangent program: its tangent parameters name those of `explain_f`.
    pub fwd: &'a Forward,
}

/// How `explain_f` records the values of the function.
enum Mode {
    /// Every value a number (or a vector of numbers): partials are numbers.
    Numbers,
    /// Values that may be tensors, parameter structs read by field, results of calls whose type
    /// the macro cannot see, or a vector-valued result (see [`tensors`]).
    Values,
}

/// How `explain_f` can record `p`, if it can.
fn mode(sig: &Signature, p: &Programs, others: &HashSet<Var>) -> Option<Mode> {
    if calls_own_types(&p.primal.func) {
        return None;
    }
    let numbers = sig.ret_kind == Kind::Scalar
        && sig
            .params
            .iter()
            .all(|p| !p.differentiable || matches!(p.kind, Kind::Scalar | Kind::Slice));
    if numbers && instrument::recordable(&p.primal.func) {
        Some(Mode::Numbers)
    } else if tensors::recordable(
        &p.primal.func,
        &tensors::structs(&p.primal.func, others),
        sig.ret_kind,
    ) {
        Some(Mode::Values)
    } else {
        None
    }
}

/// Whether `f` calls methods of the user's types on differentiable values, or holds values of
/// them: a trace has no row for a value that is not a number or a tensor.
fn calls_own_types(f: &crate::ir::Func) -> bool {
    let mut found = !f.own_values.is_empty();
    for s in &f.body {
        s.walk(&mut |s| {
            if let crate::ir::Stmt::Let {
                op: crate::ir::Op::Call(path),
                ..
            } = s
            {
                found |= path
                    .segments
                    .first()
                    .is_some_and(|s| s.ident == names::METHOD || s.ident == names::OPERATOR);
            }
        });
    }
    found
}

/// `explain_f` for `item`, given everything `#[autodiff]` emitted for it; nothing for the
/// functions it cannot record (see the module documentation).
pub fn function(
    item: &ItemFn,
    sig: &Signature,
    form: &Form,
    p: &Programs,
    emitted: &TokenStream,
) -> syn::Result<TokenStream> {
    let list = self_calls(&crate::analyze::as_written(
        &p.primal.func.to_string(),
        &p.primal.user_names,
    ));
    let others: HashSet<Var> = p
        .params
        .iter()
        .flatten()
        .filter(|v| p.primal.func.kind(**v) == Kind::Other)
        .copied()
        .collect();
    let f = &p.primal.func;
    let Some(mode) = mode(sig, p, &others) else {
        return Ok(TokenStream::new());
    };
    let rec = Ident::new("__rec", Span::mixed_site());
    let shown_as = &p.primal.user_names;
    let mut ins = Instrument::new(
        rec.clone(),
        sig.float.clone(),
        f,
        user_idents(item),
        shown_as,
    );
    if let Mode::Values = mode {
        let structs = tensors::structs(f, &others);
        ins.values = true;
        ins.fields = tensors::fields(f, &structs);
        for (v, d) in p.params.iter().zip(&p.fwd.param_dots) {
            if let (Some(v), Some(d)) = (v, d) {
                if structs.contains(v) {
                    ins.struct_tangents
                        .insert(*v, p.fwd.b.func.name(*d).clone());
                }
            }
        }
    }
    let body = recorded_body(&mut ins, item, sig, p)?;
    let name = &item.sig.ident;
    let (fn_name, vis, float) = (format_ident!("explain_{}", name), &item.vis, &sig.float);
    let params = emit::signature::param_list(sig);
    let tangents = (sig.params.iter().zip(&p.fwd.param_dots))
        .filter_map(|(param, d)| Some(Typed::new(p.fwd.b.func.name((*d)?), &param.ty)));
    let ct_name = cotangent_name(item);
    let ct = (sig.ret_kind != Kind::Scalar).then(|| Typed::new(&ct_name, &sig.ret));
    let fn_str = name.to_string();
    let [jvp, vjp] = pretty_items(emitted, [names::jvp(name), names::vjp(name)]);
    let values = proc_macro2::Literal::usize_unsuffixed(f.vars.len());
    let doc = doc(name, sig.ret_kind);
    Ok(form.function(Function {
        attrs: quote! {
            #[doc = #doc]
            #[allow(dead_code, unused_variables, unused_mut, unused_parens, unused_braces, clippy::all, clippy::pedantic)]
        },
        vis: vis.clone(),
        name: fn_name.clone(),
        role: Role::Explain,
        valued: None,
        stub: None,
        params: params.into_iter().chain(tangents).chain(ct).collect(),
        ret: Some(Ret::Type(quote!(::diffx::explain::Trace))),
        body: quote! {
            use ::diffx::explain::{CastNothing as _, CastValue as _, ProbeNothing as _, ProbeValue as _, ShowDisplay as _, ShowNothing as _};
            let mut #rec = ::diffx::explain::Recorder::<#float>::new(
                ::diffx::explain::Trace::new(#fn_str).with_code(#list, #jvp, #vjp),
                #values,
            );
            #body
            #rec.finish()
        },
    }))
}

/// The documentation of `explain_f`.
fn doc(name: &Ident, ret: Kind) -> String {
    let seed = match ret {
        Kind::Scalar => format!("its adjoint for the seed ȳ = 1 (as `grad_{name}` computes it)"),
        _ => format!(
            "its adjoint for the cotangent `ct` of the result (as `vjp_{name}` computes it)"
        ),
    };
    format!(
        " The evaluation trace of [`{name}`] at a point, for learning and debugging: each value of \
         its Wengert list as it is computed (a row per executed iteration of a loop, the rows of \
         the arm of an `if` that ran), with its expression, its value, its tangent along the given \
         direction (as `jvp_{name}` computes it) and {seed}, the local partial derivatives, and the \
         derivative code. Print it as a table with `{{}}`, or as a graph with `to_dot()`.\n\n It \
         records every value and allocates: for speed, call `jvp_{name}` and `vjp_{name}`, which it \
         does not change.\n\n Written by `#[autodiff]`."
    )
}

/// The cotangent parameter of `explain_f` for a vector or tensor result: `ct`, unless the function
/// has a name `ct` already.
fn cotangent_name(item: &ItemFn) -> Ident {
    let user = user_idents(item);
    let name = ["ct", "cotangent", "y_bar"]
        .into_iter()
        .find(|n| !user.contains(*n))
        .unwrap_or(names::COTANGENT);
    Ident::new(name, Span::call_site())
}

/// The identifiers of the user's function.
fn user_idents(item: &ItemFn) -> BTreeSet<String> {
    let mut user = BTreeSet::new();
    crate::tokens::idents(quote!(#item), &mut user);
    user
}

/// The input rows of the parameters: numbers, elements of vectors, tensors, and the fields of
/// parameter structs the function reads.
fn inputs(ins: &Instrument, p: &Programs) -> Vec<TokenStream> {
    let (f, rec, float) = (&p.primal.func, &ins.rec, &ins.float);
    let mut inputs = Vec::new();
    for (v, d) in p.params.iter().zip(&p.fwd.param_dots) {
        let (Some(v), Some(d)) = (v, d) else { continue };
        let (name, x, dx) = (f.name(*v).to_string(), f.name(*v), p.fwd.b.func.name(*d));
        let k = proc_macro2::Literal::usize_unsuffixed(v.0);
        let val = quote!(::diffx::explain::Value::<#float>);
        inputs.push(match f.kind(*v) {
            Kind::Slice => quote!(#rec.input_elements(#k, #name, &#x[..], &#dx[..]);),
            Kind::Scalar => quote!(#rec.input(#k, #name, #x, #dx);),
            Kind::Tensor => quote!(#rec.input_value(#k, #name, #val::of(&#x), #val::of(&#dx));),
            Kind::Other if !ins.struct_tangents.contains_key(v) => {
                // Not read by field: a tensor under another name (`&T`), recorded if its type
                // says it is a value; else it is never read as one.
                let (value, tangent) = (names::local("v"), names::local("t"));
                quote! {
                    if let (::core::option::Option::Some(#value), ::core::option::Option::Some(#tangent)) = (
                        (&::diffx::explain::Probe::<#float, _>::new(&#x)).probe(),
                        (&::diffx::explain::Probe::<#float, _>::new(&#dx)).probe(),
                    ) {
                        #rec.input_value(#k, #name, #value, #tangent);
                    } else {
                        #rec.not_a_value(#name);
                    }
                }
            }
            Kind::Other => {
                let fields = ins.fields.iter().filter(|a| a.var() == Some(*v)).map(|a| {
                    let Atom::Field(_, path) = a else {
                        return TokenStream::new();
                    };
                    let (value, shown) = (quote!(#x #path), ins.pretty(&place(f, a)));
                    let probe = quote!(::diffx::explain::Probe::<#float, _>::new);
                    quote!(#rec.input_field(#shown, (&#probe(&#value)).probe(), (&#probe(&#dx #path)).probe());)
                });
                quote!(#(#fields)*)
            }
        });
    }
    inputs
}

/// The inputs, the instrumented list and the output.
fn recorded_body(
    ins: &mut Instrument,
    item: &ItemFn,
    sig: &Signature,
    p: &Programs,
) -> syn::Result<TokenStream> {
    let f = &p.primal.func;
    let ct = cotangent_name(item);
    let inputs = inputs(ins, p);
    let mut b = p.primal.clone();
    b.func.body.clear();
    ins.list(&mut b, &f.body)?;
    let body = emit::body(&b.func);
    let name = item.sig.ident.to_string();
    let rec = &ins.rec;
    let touches = f
        .ret
        .iter()
        .flat_map(|r| ins.touches(std::slice::from_ref(r)));
    let touches: TokenStream = touches
        .map(|s| match s {
            crate::ir::Stmt::Verbatim { tokens, .. } => tokens.tokens().clone(),
            _ => TokenStream::new(),
        })
        .collect();
    let output = match &f.ret {
        Some(r) => {
            let (value, expr, row) = (
                place(f, r),
                ins.pretty(&place(f, &ins.shown(r))),
                ins.source(r),
            );
            let float = &sig.float;
            let val = quote!(::diffx::explain::Value::<#float>);
            match (sig.ret_kind, r) {
                (Kind::Slice, Atom::Var(v)) => {
                    let k = Instrument::key(*v);
                    let rows = names::local("rows");
                    quote! {
                        let #rows = #rec.elements(#k);
                        #rec.output_elements(#name, &#value[..], &#rows, &#ct[..]);
                    }
                }
                (Kind::Scalar, _) => quote!(#rec.output(#name, #expr, #value, #row);),
                _ => {
                    quote!(#rec.output_tensor(#name, #expr, #val::of(&#value), #row, #val::of(&#ct));)
                }
            }
        }
        None => quote!(#rec.output(#name, "", 0.0, ::core::option::Option::None);),
    };
    Ok(quote! {
        #(#inputs)*
        #body
        #touches
        #output
    })
}

/// `file` formatted as `rustfmt` would.
fn unparse(items: Vec<syn::Item>) -> String {
    let text = prettyplease::unparse(&syn::File {
        shebang: None,
        attrs: Vec::new(),
        items,
    });
    self_calls(&text)
}

/// `text` with lowering's calls of another method (`__diffx_self::g(x)`) as written, `self.g(x)`.
fn self_calls(text: &str) -> String {
    text.replace(&format!("{}::", names::SELF_PARAM), "self.")
}

/// The functions `names` of the emitted items, formatted, without their attributes (one parse
/// of the emitted items for all of them: it is most of `explain_`'s expansion time).
fn pretty_items<const N: usize>(emitted: &TokenStream, names: [Ident; N]) -> [String; N] {
    let Ok(file) = syn::parse2::<syn::File>(emitted.clone()) else {
        return names.map(|_| String::new());
    };
    names.map(|name| {
        file.items
            .iter()
            .find_map(|i| match i {
                syn::Item::Fn(f) if f.sig.ident == name => {
                    let mut f = f.clone();
                    f.attrs.clear();
                    Some(unparse(vec![syn::Item::Fn(f)]))
                }
                _ => None,
            })
            .unwrap_or_default()
    })
}

/// An expression formatted on one line: `x1.ln()`, `v4 - v3`.
fn pretty_expr(e: &TokenStream) -> String {
    let Ok(expr) = syn::parse2::<syn::Expr>(e.clone()) else {
        return e.to_string();
    };
    let text = unparse(vec![syn::parse_quote!(const _: () = #expr;)]);
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    one_line
        .strip_prefix("const _: () = ")
        .and_then(|s| s.strip_suffix(';'))
        .map_or(one_line.clone(), str::to_string)
}

#[cfg(test)]
mod tests;
