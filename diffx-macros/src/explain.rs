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
//! Functions of scalars and of slices, `Vec`s and arrays (one input row per element, `x[0]`, …)
//! with a scalar result are explained. Not yet: functions of tensors and parameter structs,
//! vector-valued functions, and calls of other `#[autodiff]` functions from a function of slices
//! (what they return is not known to be a scalar there); those get no `explain_`.

mod instrument;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::ItemFn;

use crate::builder::Builder;
use crate::emit::{self, place};
use crate::forward::Forward;
use crate::ir::{Kind, Var};
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

/// `explain_f` for `item`, given everything `#[autodiff]` emitted for it; nothing for the
/// functions it cannot record (see the module documentation).
pub fn function(
    item: &ItemFn,
    sig: &Signature,
    p: &Programs,
    emitted: &TokenStream,
) -> syn::Result<TokenStream> {
    let supported = sig.ret_kind == Kind::Scalar
        && sig
            .params
            .iter()
            .all(|p| !p.differentiable || matches!(p.kind, Kind::Scalar | Kind::Slice));
    if !supported || !instrument::recordable(&p.primal.func) {
        return Ok(TokenStream::new());
    }
    let rec = Ident::new("__rec", Span::mixed_site());
    let body = recorded_body(&rec, item, p)?;
    let name = &item.sig.ident;
    let (fn_name, vis, float) = (format_ident!("explain_{}", name), &item.vis, &sig.float);
    let params = sig.params.iter().map(|p| {
        let (n, t) = (&p.name, &p.ty);
        quote!(#n: #t)
    });
    let tangents = sig
        .params
        .iter()
        .zip(&p.fwd.param_dots)
        .filter_map(|(param, d)| {
            let (d, t) = (p.fwd.b.func.name((*d)?), &param.ty);
            Some(quote!(#d: #t))
        });
    let (fn_str, list) = (name.to_string(), p.primal.func.to_string());
    let jvp = pretty_item(emitted, &format_ident!("__diffx_jvp_{}", name));
    let vjp = pretty_item(emitted, &format_ident!("__diffx_vjp_{}", name));
    let values = proc_macro2::Literal::usize_unsuffixed(p.primal.func.vars.len());
    let doc = format!(
        " The evaluation trace of [`{name}`] at a point, for learning and debugging: each value of \
         its Wengert list as it is computed (a row per executed iteration of a loop, the rows of \
         the arm of an `if` that ran), with its expression, its value, its tangent along the given \
         direction (as `jvp_{name}` computes it) and its adjoint for the seed ȳ = 1 (as \
         `grad_{name}` computes it), the local partial derivatives, and the derivative code. Print \
         it as a table with `{{}}`, or as a graph with `to_dot()`.\n\n It records every value and \
         allocates: for speed, call `jvp_{name}` and `grad_{name}`, which it does not change.\n\n \
         Written by `#[autodiff]`."
    );
    Ok(quote! {
        #[doc = #doc]
        #[allow(dead_code, unused_variables, unused_mut, unused_parens, unused_braces, clippy::all, clippy::pedantic)]
        #vis fn #fn_name(#(#params,)* #(#tangents),*) -> ::diffx::explain::Trace {
            use ::diffx::explain::{ShowDisplay as _, ShowNothing as _};
            let mut #rec = ::diffx::explain::Recorder::<#float>::new(
                ::diffx::explain::Trace::new(#fn_str).with_code(#list, #jvp, #vjp),
                #values,
            );
            #body
            #rec.finish()
        }
    })
}

/// The inputs, the instrumented list and the output.
fn recorded_body(rec: &Ident, item: &ItemFn, p: &Programs) -> syn::Result<TokenStream> {
    let f = &p.primal.func;
    let mut inputs = Vec::new();
    for (v, d) in p.params.iter().zip(&p.fwd.param_dots) {
        let (Some(v), Some(d)) = (v, d) else { continue };
        let (name, x, dx) = (f.name(*v).to_string(), f.name(*v), p.fwd.b.func.name(*d));
        let k = proc_macro2::Literal::usize_unsuffixed(v.0);
        inputs.push(match f.kind(*v) {
            Kind::Slice => quote!(#rec.input_elements(#k, #name, &#x[..], &#dx[..]);),
            _ => quote!(#rec.input(#k, #name, #x, #dx);),
        });
    }
    let mut b = p.primal.clone();
    b.func.body.clear();
    let mut user = std::collections::BTreeSet::new();
    crate::tokens::idents(quote!(#item), &mut user);
    let mut ins = Instrument::new(rec.clone(), f, user);
    ins.list(&mut b, &f.body)?;
    let body = emit::body(&b.func);
    let name = item.sig.ident.to_string();
    let (value, expr, row) = match &f.ret {
        Some(r) => (
            place(f, r),
            pretty_expr(&place(f, &ins.shown(r))),
            ins.source(r),
        ),
        None => (
            quote!(0.0),
            String::new(),
            quote!(::core::option::Option::None),
        ),
    };
    Ok(quote! {
        #(#inputs)*
        #body
        #rec.output(#name, #expr, #value, #row);
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

    /// `explain_f` of `item`, as a token string.
    fn explain_of(item: proc_macro2::TokenStream) -> Option<String> {
        expand(item).items.iter().find_map(|i| match i {
            syn::Item::Fn(f) if f.sig.ident.to_string().starts_with("explain_") => {
                Some(quote!(#f).to_string())
            }
            _ => None,
        })
    }

    #[track_caller]
    fn assert_contains_all(text: &str, want: &[&str]) {
        for w in want {
            assert!(text.contains(w), "{w}\n in {text}");
        }
    }

    #[test]
    fn explain_records_every_value_and_edge() {
        let explain = explain_of(quote!(
            pub fn f(x1: f64, x2: f64, n: usize) -> f64 {
                let v1 = x1.ln();
                v1 * x2
            }
        ))
        .expect("explain_f");
        assert_contains_all(
            &explain,
            &[
                "pub fn explain_f (x1 : f64 , x2 : f64 , n : usize , x1_dot : f64 , x2_dot : f64) -> :: diffx :: explain :: Trace",
                // Values 0 … 3 of the list: x1, x2, v1, t2 (n is a constant).
                "Recorder :: < f64 > :: new (:: diffx :: explain :: Trace :: new (\"f\") . with_code (\"v1 = ln(x1)\\nt2 = mul(v1, x2)\\nreturn t2\\n\"",
                "\") , 4 ,) ;",
                "__rec . input (0 , \"x1\" , x1 , x1_dot) ;",
                // v1 = x1.ln() and its partial 1/x1, then its row with an edge from x1's row.
                "let v1 = x1 . ln () ; let t3 = 1.0 / x1 ;",
                "__rec . operation (2 , \"v1\" , \"x1.ln()\" , v1 , & [(__rec . value (0) , :: core :: option :: Option :: Some (t3) , \"x1\")]) ;",
                // ∂t2/∂v1 = x2 and ∂t2/∂x2 = v1, read straight from the values.
                "(__rec . value (2) , :: core :: option :: Option :: Some (x2) , \"v1\") , (__rec . value (1) , :: core :: option :: Option :: Some (v1) , \"x2\")",
                "__rec . output (\"f\" , \"t2\" , t2 , __rec . value (3)) ;",
                "__rec . finish ()",
            ],
        );
    }

    #[test]
    fn loops_and_branches_record_as_they_run() {
        let explain = explain_of(quote!(
            fn f(x: &[f64], y: f64) -> f64 {
                let mut s = y;
                for i in 0..x.len() {
                    if x[i] > s {
                        s = s * x[i];
                    }
                }
                s
            }
        ))
        .expect("explain_f");
        assert_contains_all(
            &explain,
            &[
                "x_dot : & [f64] , y_dot : f64",
                "__rec . input_elements (0 , \"x\" , & x [..] , & x_dot [..]) ;",
                // The cell s starts at y's row; each iteration shows i.
                "__rec . bind (& [(2 , __rec . value (1))]) ; __rec . enter_loop () ; for i in 0 .. x . len () { __rec . iteration (& [(\"i\" , (& :: diffx :: explain :: Shown (& i)) . shown ())]) ;",
                "__rec . enter_arm (\"x[i] > s\") ;",
                "(__rec . element (0 , i) , :: core :: option :: Option :: Some (s) , \"x[i]\")",
                "__rec . exit_arm () ;",
                "__rec . enter_arm (\"!(x[i] > s)\") ;",
                // The write-back: the cell takes the row of the if's output.
                "__rec . bind (& [(2 , __rec . value (",
                "__rec . exit_loop () ;",
            ],
        );
    }

    #[test]
    fn calls_get_partials_from_the_callees_gradient() {
        let explain = explain_of(quote!(
            fn f(x: f64) -> f64 {
                g(x, 2.0) * x
            }
        ))
        .expect("explain_f");
        assert_contains_all(
            &explain,
            &[
                "let __g = __diffx_vjp_g (x , 2.0 , 1.0) . 1 ;",
                "\"g(x, 2.0)\"",
                "(__rec . value (0) , :: diffx :: explain :: CallPartial :: partial (& __g . 0) , \"x\")",
            ],
        );
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
                "__diffx_hvp_f",
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
    fn what_cannot_be_recorded_gets_no_explain() {
        let gaps = [
            // Tensors.
            quote!(
                fn f(w: &Tensor<f64>) -> f64 {
                    w.sum()
                }
            ),
            // A vector-valued result.
            quote!(
                fn f(x: f64) -> [f64; 2] {
                    [x, x * x]
                }
            ),
            // A call from a function of slices: what it returns is not known to be a scalar.
            quote!(
                fn f(x: &[f64]) -> f64 {
                    g(x[0]) * 2.0
                }
            ),
        ];
        for item in gaps {
            let file = expand(item);
            assert!(fn_names(&file).contains(&"jvp_f".to_string()));
            assert!(!fn_names(&file).contains(&"explain_f".to_string()));
        }
    }

    #[test]
    fn unusual_shapes_are_recorded_without_panicking() {
        let items = [
            // A constant result: an output row with no edge.
            quote!(
                fn f(x: f64) -> f64 {
                    2.0
                }
            ),
            // An element as the result, a branch yielding an element or an input.
            quote!(
                fn f(x: &[f64], k: usize) -> f64 {
                    let y = if k > 0 { x[k] } else { x[0] * 2.0 };
                    y
                }
            ),
            // A loop with nothing to record, and a `while` with no variables.
            quote!(
                fn f(x: f64, n: usize) -> f64 {
                    let mut c = 0;
                    for _ in 0..n {
                        c += 1;
                    }
                    let mut y = x;
                    while y > 1.0 {
                        y = y / 2.0;
                    }
                    y + c as f64
                }
            ),
        ];
        for item in items {
            assert!(explain_of(item).is_some());
        }
    }
}
