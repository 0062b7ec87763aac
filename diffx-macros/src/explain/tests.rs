//! Unit tests of `explain_f` on token streams.

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
            "__diffx_split_f",
            "jvp_f",
            "vjp_f",
            "grad_f",
            "value_and_grad_f",
            "__diffx_hvp_f",
            "hvp_f",
            "grad_and_hvp_f",
            "hessian_f",
            "explain_f"
        ]
    );
    // Everything before `explain_f` is what emission alone writes, for numbers and tensors.
    let tensors = quote!(
        fn f(model: &Mlp, x: &Tensor) -> f32 {
            x.matmul(&model.w).tanh().sum()
        }
    );
    for item in [item, tensors] {
        let mut parsed: syn::ItemFn = syn::parse2(item).unwrap();
        let sig = crate::parse::signature(&parsed, &crate::parse::Args::default()).unwrap();
        let (block, facts) =
            crate::analyze::body((*parsed.block).clone(), &sig, Default::default());
        *parsed.block = block;
        let (primal, params) = crate::lower::function(&parsed, &sig, facts, false).unwrap();
        let fwd = crate::forward::transform(&primal, &params).unwrap();
        let typed: Vec<_> = params
            .iter()
            .zip(&sig.params)
            .map(|(v, p)| v.map(|v| (v, quote::ToTokens::to_token_stream(&p.grad))))
            .collect();
        let mut rev = crate::reverse::transform(&primal, &typed, sig.ret_kind, true).unwrap();
        crate::tape::trim(&mut rev.b.func);
        let form = crate::emit::form::Form::plain(&sig.float);
        let plain = crate::emit::functions(&parsed, &sig, &form, &fwd, &rev).to_string();
        let all = expand::expand(quote!(), quote!(#parsed))
            .unwrap()
            .to_string();
        assert!(all.contains(&plain), "{all}");
        assert!(all.contains("fn explain_f"), "{all}");
    }
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
fn tensors_and_vectors_are_recorded_as_values() {
    let items = [
        quote!(
            fn f(w: &Tensor<f64>) -> f64 {
                w.sum()
            }
        ),
        quote!(
            fn f(x: f64) -> [f64; 2] {
                [x, x * x]
            }
        ),
    ];
    for item in items {
        let explain = explain_of(item).expect("explain_f");
        assert!(explain.contains("operation_value"), "{explain}");
    }
    // A call from a function of slices returns a number: an operation with its partial.
    let explain = explain_of(quote!(
        fn f(x: &[f64]) -> f64 {
            g(x[0]) * 2.0
        }
    ))
    .unwrap();
    assert_contains_all(
        &explain,
        &["__rec . operation (1 , \"t1\" , \"g(x[0])\" , t1"],
    );
    assert!(!explain.contains("operation_value"), "{explain}");
    let explain = explain_of(quote!(
        fn f(x: f64) -> [f64; 2] {
            [x, x * x]
        }
    ))
    .unwrap();
    assert_contains_all(
        &explain,
        &[
            "x_dot : f64 , ct : [f64 ; 2])",
            "__rec . output_elements (\"f\" , & t1 [..] , & __diffx_rows , & ct [..]) ;",
        ],
    );
}

#[test]
fn linear_maps_carry_their_transpose() {
    let explain = explain_of(quote!(
        fn f(model: &Mlp, x: &Tensor<f64>) -> f64 {
            x.matmul(&model.w).sum()
        }
    ))
    .expect("explain_f");
    assert_contains_all(
        &explain,
        &[
            // The struct's field is an input row, its tangent the tangent struct's field.
            "__rec . input_field (\"model.w\" , (& :: diffx :: explain :: Probe :: < f64 , _ > :: new (& model . w)) . probe () , (& :: diffx :: explain :: Probe :: < f64 , _ > :: new (& model_dot . w)) . probe ()) ;",
            "__rec . input_value (1 , \"x\"",
            "\"matmul\" , __rec . tangent (__rec . field (0usize)) . map (",
            "__diffx_a . t_matmul (& __diffx_g)",
            // Only what the transpose reads is kept.
            "{ let __diffx_b = :: core :: clone :: Clone :: clone (& (model . w)) ; let __diffx_z",
        ],
    );
}

#[test]
fn fields_at_run_time_paths_are_recorded_where_first_read() {
    let explain = explain_of(quote!(
        fn f(model: &Mlp, n: usize) -> f64 {
            let layer = &model.layers[n - 1];
            layer.w.sum()
        }
    ))
    .expect("explain_f");
    assert_contains_all(
        &explain,
        &[
            // `layer.w` is read as the field it is a copy of.
            "__rec . touch_field (:: std :: format ! (\"model.layers[{}].w\" , (n - 1)) , | | (& :: diffx :: explain :: Probe :: < f64 , _ > :: new (& model . layers [n - 1] . w)) . probe () , | | (& :: diffx :: explain :: Probe :: < f64 , _ > :: new (& model_dot . layers [n - 1] . w)) . probe ()) ;",
            "__rec . field_named (& :: std :: format ! (\"model.layers[{}].w\" , (n - 1)))",
        ],
    );
}

#[test]
fn what_cannot_be_recorded_gets_no_explain() {
    let gaps = [
        // A parameter struct passed to a call, whole, by a field or a copy of one: its
        // gradient is a struct.
        quote!(
            fn f(model: &Mlp, x: &Tensor<f64>) -> f64 {
                loss(model, x) + model.w.sum()
            }
        ),
        quote!(
            fn f(model: &Mlp, x: &Tensor<f64>) -> f64 {
                layer(&model.layers[0], x) + model.layers[0].w.sum()
            }
        ),
        quote!(
            fn f(model: &Mlp, x: &Tensor<f64>) -> f64 {
                let l = &model.layers[0];
                layer(l, x) + model.layers[0].b.sum()
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
