//! `explain_f`: the evaluation trace of an `#[autodiff]` function at a point, for learners.
//!
//! Written only with the `explain` feature, and beside the other generated functions, so `grad_f`
//! and `jvp_f` are the same tokens with or without it. Its body is two blocks, built from the very
//! programs the other functions are emitted from:
//! 1. the forward program (every primal value and its tangent, under the IR's names), followed by
//!    the local partial derivatives of each elementary operation, lowered from the rule table as
//!    both modes lower them; then one row per value and one edge per differentiable operand;
//! 2. the reverse program seeded with `ct = 1`; then the adjoint of each row.
//!
//! Rows are recorded in program order, so when loops come, a loop body will record a row per
//! executed iteration. The code `jvp_f` and `grad_f` run is formatted with `prettyplease` and
//! embedded as strings. Only functions of scalars are explained for now: rows hold `f64`s.

use std::collections::HashMap;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use syn::ItemFn;

use crate::builder::Builder;
use crate::emit::{self, place};
use crate::forward::Forward;
use crate::ir::{Atom, Func, Kind, Op, Stmt, Var};
use crate::lower::partials;
use crate::parse::Signature;
use crate::reverse::Reverse;
use crate::rules::Deriv;

/// The programs `explain_f` is written from.
pub struct Programs<'a> {
    pub primal: &'a Builder,
    /// The value of each parameter (`None` for constants).
    pub params: &'a [Option<Var>],
    pub fwd: &'a Forward,
    pub rev: &'a Reverse,
}

/// `explain_f` for `item`, given everything `#[autodiff]` emitted for it; nothing for functions
/// of tensors or parameter structs.
pub fn function(
    item: &ItemFn,
    sig: &Signature,
    p: &Programs,
    emitted: &TokenStream,
) -> syn::Result<TokenStream> {
    let scalar = sig.ret_kind == Kind::Scalar
        && sig
            .params
            .iter()
            .all(|p| !p.differentiable || p.kind == Kind::Scalar);
    // Branches are traced with the control-flow work (one row per value that ran); until then a
    // function with `if` gets no `explain_`.
    let branches = p.primal.func.body.iter().any(|s| {
        matches!(
            s,
            crate::ir::Stmt::If { .. }
                | crate::ir::Stmt::Loop { .. }
                | crate::ir::Stmt::SetElem { .. }
        )
    });
    if !scalar || branches {
        return Ok(TokenStream::new());
    }
    let trace = Ident::new("__trace", Span::mixed_site());
    let rows = Rows::new(item, p);
    let forward = forward_block(&trace, &rows, p)?;
    let reverse = reverse_block(&trace, &rows, sig, p);
    let name = &item.sig.ident;
    let (fn_name, vis) = (format_ident!("explain_{}", name), &item.vis);
    let params = sig.params.iter().map(|p| {
        let (n, t) = (&p.name, &p.ty);
        quote!(#n: #t)
    });
    let tangents = sig
        .params
        .iter()
        .zip(&p.fwd.param_dots)
        .filter_map(|(param, d)| {
            let (d, t) = (p.fwd.b.func.name((*d)?), &param.owned);
            Some(quote!(#d: #t))
        });
    let (fn_str, list) = (name.to_string(), p.primal.func.to_string());
    let jvp = pretty_item(emitted, &format_ident!("__diffx_jvp_{}", name));
    let vjp = pretty_item(emitted, &format_ident!("__diffx_vjp_{}", name));
    let doc = format!(
        " The evaluation trace of [`{name}`] at a point, for learning and debugging: each value of \
         its Wengert list with its expression, its value, its tangent along the given direction \
         (as in `jvp_{name}`) and its adjoint for the seed ȳ = 1 (as in `grad_{name}`), the local \
         partial derivatives, and the derivative code. Print it as a table with `{{}}`, or as a \
         graph with `to_dot()`.\n\n It computes everything twice and allocates: for speed, call \
         `jvp_{name}` and `grad_{name}`, which it does not change.\n\n Written by `#[autodiff]`."
    );
    Ok(quote! {
        #[doc = #doc]
        #[allow(dead_code, unused_variables, unused_mut, unused_parens, unused_braces, clippy::all, clippy::pedantic)]
        #vis fn #fn_name(#(#params,)* #(#tangents),*) -> ::diffx::explain::Trace {
            let mut #trace = ::diffx::explain::Trace::new(#fn_str).with_code(#list, #jvp, #vjp);
            #forward
            #reverse
            #trace
        }
    })
}

/// A row of the trace as the macro knows it.
struct RowSpec {
    /// The value recorded (`None`: the output, recorded from the returned operand).
    var: Option<Var>,
    input: bool,
    name: String,
    expr: String,
}

/// The rows in order: differentiable parameters, each statement's value, the output.
struct Rows {
    rows: Vec<RowSpec>,
    /// The row of each value (a lookup only: output order comes from `rows`).
    index: HashMap<Var, usize>,
}

impl Rows {
    fn new(item: &ItemFn, p: &Programs) -> Self {
        let f = &p.primal.func;
        let mut rows = Vec::new();
        for v in p.params.iter().flatten() {
            rows.push(RowSpec {
                var: Some(*v),
                input: true,
                name: f.name(*v).to_string(),
                expr: String::new(),
            });
        }
        for s in &f.body {
            if let Stmt::Let { dst, op, args, .. } = s {
                rows.push(RowSpec {
                    var: Some(*dst),
                    input: false,
                    name: f.name(*dst).to_string(),
                    expr: pretty_expr(&emit::op_expr(f, *dst, op, args)),
                });
            }
        }
        let ret = f.ret.as_ref().map(|r| place(f, r));
        rows.push(RowSpec {
            var: None,
            input: false,
            name: item.sig.ident.to_string(),
            expr: ret.map(|r| pretty_expr(&r)).unwrap_or_default(),
        });
        let index = rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((r.var?, i)))
            .collect();
        Rows { rows, index }
    }

    fn output(&self) -> usize {
        self.rows.len() - 1
    }
}

/// An edge of the graph: rows `from` → `to`, with the local partial as an operand if known.
type EdgeSpec = (usize, usize, Option<Atom>);

/// The forward program, the local partials, and the recording of rows and edges.
fn forward_block(trace: &Ident, rows: &Rows, p: &Programs) -> syn::Result<TokenStream> {
    let mut b = p.fwd.b.clone();
    let mut edges: Vec<EdgeSpec> = Vec::new();
    for s in &p.primal.func.body {
        let Stmt::Let { dst, op, args, .. } = s else {
            continue;
        };
        let to = rows.index[dst];
        let from = |a: &Atom| a.var().and_then(|v| rows.index.get(&v).copied());
        match op {
            Op::Rule(rule) if matches!(rule.deriv, Deriv::Partials(_)) => {
                let needed: Vec<bool> = args.iter().map(|a| a.var().is_some()).collect();
                let parts = partials(&mut b, rule, args, &Atom::Var(*dst), &needed)?;
                for (a, part) in args.iter().zip(parts) {
                    edges.extend(from(a).map(|i| (i, to, part)));
                }
            }
            Op::Id => edges.extend(from(&args[0]).map(|i| (i, to, Some(one())))),
            // Calls and linear maps: the dependency, without a partial to show.
            _ => edges.extend(args.iter().filter_map(from).map(|i| (i, to, None))),
        }
    }
    let f = &b.func;
    let tangent = |v: Var| {
        p.fwd
            .dots
            .get(&v)
            .map_or(quote!(0.0), |d| place(f, &Atom::Var(*d)))
    };
    let mut record = Vec::new();
    for r in &rows.rows {
        let (name, expr) = (&r.name, &r.expr);
        record.push(match r.var {
            Some(v) if r.input => {
                let (value, t) = (place(f, &Atom::Var(v)), tangent(v));
                quote!(#trace.input(#name, #value, #t);)
            }
            Some(v) => {
                let (value, t) = (place(f, &Atom::Var(v)), tangent(v));
                quote!(#trace.operation(#name, #expr, #value, #t);)
            }
            None => {
                let value = f.ret.as_ref().map_or(quote!(0.0), |r| place(f, r));
                let t = p.fwd.ret_dot.as_ref().map_or(quote!(0.0), |t| place(f, t));
                quote!(#trace.output(#name, #expr, #value, #t);)
            }
        });
    }
    let ret_row = f.ret.as_ref().and_then(Atom::var).map(|v| rows.index[&v]);
    edges.extend(ret_row.map(|i| (i, rows.output(), Some(one()))));
    for (from, to, part) in &edges {
        let (from, to) = (
            Literal::usize_unsuffixed(*from),
            Literal::usize_unsuffixed(*to),
        );
        record.push(match part {
            Some(part) => {
                let part = place(f, part);
                quote!(#trace.edge(#from, #to, #part);)
            }
            None => quote!(#trace.link(#from, #to);),
        });
    }
    let body = emit::body(f);
    Ok(quote!({ #body #(#record)* }))
}

fn one() -> Atom {
    Atom::Const(quote!(1.0))
}

/// The reverse program with the seed `ȳ = 1`, and the recording of adjoints.
fn reverse_block(trace: &Ident, rows: &Rows, sig: &Signature, p: &Programs) -> TokenStream {
    let f: &Func = &p.rev.b.func;
    let (ct, ty) = (f.name(p.rev.ct), &sig.ret);
    let adjoints = rows.rows.iter().enumerate().filter_map(|(i, r)| {
        let bar = place(f, &Atom::Var(*p.rev.adjoints.get(&r.var?)?));
        let i = Literal::usize_unsuffixed(i);
        Some(quote!(#trace.set_adjoint(#i, #bar);))
    });
    let body = emit::body(f);
    quote!({
        let #ct: #ty = 1.0;
        #body
        #(#adjoints)*
    })
}

/// `file` formatted as `rustfmt` would.
fn unparse(items: Vec<syn::Item>) -> String {
    prettyplease::unparse(&syn::File {
        shebang: None,
        attrs: Vec::new(),
        items,
    })
}

/// The function `name` of the emitted items, formatted, without its attributes.
fn pretty_item(emitted: &TokenStream, name: &Ident) -> String {
    let Ok(file) = syn::parse2::<syn::File>(emitted.clone()) else {
        return String::new();
    };
    file.items
        .into_iter()
        .find_map(|i| match i {
            syn::Item::Fn(mut f) if f.sig.ident == *name => {
                f.attrs.clear();
                Some(unparse(vec![syn::Item::Fn(f)]))
            }
            _ => None,
        })
        .unwrap_or_default()
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
mod tests {
    use quote::quote;

    use crate::expand;

    /// Everything `#[autodiff]` writes for `item`, as a file.
    fn expand(item: proc_macro2::TokenStream) -> syn::File {
        syn::parse2(expand::expand(quote!(), item).unwrap()).unwrap()
    }

    fn fn_names(file: &syn::File) -> Vec<String> {
        file.items
            .iter()
            .filter_map(|i| match i {
                syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn expressions_read_like_the_source() {
        assert_eq!(super::pretty_expr(&quote!(x1.ln())), "x1.ln()");
        assert_eq!(super::pretty_expr(&quote!(v4 - v3)), "v4 - v3");
        assert_eq!(super::pretty_expr(&quote!(b + (-1.0))), "b + (-1.0)");
    }

    #[test]
    fn explain_records_every_value_and_edge() {
        let file = expand(quote!(
            pub fn f(x1: f64, x2: f64, n: usize) -> f64 {
                let v1 = x1.ln();
                v1 * x2
            }
        ));
        let explain = file
            .items
            .iter()
            .find_map(|i| match i {
                syn::Item::Fn(f) if f.sig.ident == "explain_f" => Some(quote!(#f).to_string()),
                _ => None,
            })
            .expect("explain_f");
        let want = [
            "pub fn explain_f (x1 : f64 , x2 : f64 , n : usize , x1_dot : f64 , x2_dot : f64) -> :: diffx :: explain :: Trace",
            // Rows: x1, x2, v1 = x1.ln(), t2 = v1 * x2, and the output f = t2.
            "__trace . input (\"x1\" , x1 , x1_dot) ;",
            "__trace . operation (\"v1\" , \"x1.ln()\" , v1 , v1_dot) ;",
            "__trace . output (\"f\" , \"t2\" , t2 , t2_dot) ;",
            // ∂t2/∂v1 = x2 and ∂t2/∂x2 = v1, read straight from the values; ∂f/∂t2 = 1.
            "__trace . edge (2 , 3 , x2) ;",
            "__trace . edge (1 , 3 , v1) ;",
            "__trace . edge (3 , 4 , 1.0) ;",
            // The reverse sweep, seeded with ȳ = 1.
            "let ct : f64 = 1.0 ;",
            "__trace . set_adjoint (0 , x1_bar) ;",
            "__trace . set_adjoint (2 , v1_bar) ;",
        ];
        for w in want {
            assert!(explain.contains(w), "{w}\n in {explain}");
        }
    }

    #[test]
    fn the_other_functions_are_unchanged() {
        let item = quote!(
            fn f(x: f64, y: f64) -> f64 {
                x * y.sin()
            }
        );
        let file = expand(item.clone());
        assert_eq!(
            fn_names(&file),
            [
                "f",
                "__diffx_jvp_f",
                "__diffx_vjp_f",
                "jvp_f",
                "vjp_f",
                "grad_f",
                "value_and_grad_f",
                "hvp_f",
                "hessian_f",
                "explain_f"
            ]
        );
        // Everything before `explain_f` is what emission alone writes.
        let parsed: syn::ItemFn = syn::parse2(item).unwrap();
        let sig = crate::parse::signature(&parsed, &crate::parse::Args::default()).unwrap();
        let (primal, params) = expand::lower(&parsed, &sig).unwrap();
        let fwd = crate::forward::transform(&primal, &params).unwrap();
        let typed: Vec<_> = params.iter().map(|v| v.map(|v| (v, quote!(f64)))).collect();
        let rev = crate::reverse::transform(&primal, &typed, sig.ret_kind).unwrap();
        let plain = crate::emit::functions(&parsed, &sig, &fwd, &rev).to_string();
        let all = expand::expand(quote!(), quote!(#parsed))
            .unwrap()
            .to_string();
        assert!(all.starts_with(&plain), "{all}");
    }

    #[test]
    fn the_code_is_formatted_rust() {
        let file = expand(quote!(
            fn f(x: f64) -> f64 {
                x.exp()
            }
        ));
        let text = quote!(#file).to_string();
        assert!(
            text.contains("fn __diffx_vjp_f(x: f64, ct: f64) -> (f64, (f64,)) {\\n"),
            "{text}"
        );
    }

    #[test]
    fn functions_of_tensors_get_no_explain() {
        let file = expand(quote!(
            fn f(w: &Tensor<f64>) -> f64 {
                w.sum()
            }
        ));
        assert!(!fn_names(&file).contains(&"explain_f".to_string()));
    }
}
