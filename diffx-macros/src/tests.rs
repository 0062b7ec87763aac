//! Unit tests of the pipeline on token streams, without rustc.

use proc_macro2::TokenStream;
use quote::quote;

use crate::expand;
use crate::parse;

/// The primal, tangent and adjoint lists of `item`, as text.
fn lists(item: proc_macro2::TokenStream) -> (String, String, String) {
    let mut item: syn::ItemFn = syn::parse2(item).unwrap();
    let sig = parse::signature(&item, &parse::Args::default()).unwrap();
    let (block, facts) = crate::analyze::body(
        &crate::desugar::body(&item.block, &sig).unwrap(),
        &sig,
        Default::default(),
    );
    *item.block = block;
    let (primal, params) = crate::lower::function(&item, &sig, facts, false).unwrap();
    let fwd = crate::forward::transform(&primal, &params).unwrap();
    let typed: Vec<_> = params.iter().map(|v| v.map(|v| (v, quote!(f64)))).collect();
    let rev = crate::reverse::transform(&primal, &typed, crate::ir::Kind::Scalar, true).unwrap();
    (
        primal.func.to_string(),
        fwd.b.func.to_string(),
        rev.b.func.to_string(),
    )
}

#[test]
fn lowers_the_tutorial_function_to_its_evaluation_trace() {
    let (primal, _, _) = lists(quote! {
        fn f(x1: f64, x2: f64) -> f64 {
            let v1 = x1.ln();
            let v2 = x1 * x2;
            let v3 = x2.sin();
            let v4 = v1 + v2;
            v4 - v3
        }
    });
    assert_eq!(primal, "v1 = ln(x1)\nv2 = mul(x1, x2)\nv3 = sin(x2)\nv4 = add(v1, v2)\nt5 = sub(v4, v3)\nreturn t5\n");
}

#[test]
fn forward_mode_adds_a_tangent_after_each_value() {
    let (_, fwd, _) = lists(quote!(
        fn f(x: f64, y: f64) -> f64 {
            x * y
        }
    ));
    assert_eq!(
        fwd,
        "t1 = mul(x, y)\nt2 = mul(y, x_dot)\nt3 = mul(x, y_dot)\nt1_dot = add(t2, t3)\nreturn t1\n"
    );
}

#[test]
fn reverse_mode_sweeps_back_with_adjoints() {
    let (_, _, rev) = lists(quote!(
        fn f(x: f64) -> f64 {
            let y = x.exp();
            y * x
        }
    ));
    assert_eq!(
        rev,
        "y = exp(x)\nt2 = mul(y, x)\ny_bar = mul(ct, x)\nx_bar = mul(ct, y)\nt5 = mul(y_bar, y)\nx_bar += t5\nreturn t2\n"
    );
}

#[test]
fn constants_stay_as_written() {
    let (primal, _, _) = lists(quote!(
        fn f(x: f64, n: usize) -> f64 {
            let k = n as f64 * 2.0;
            k * x
        }
    ));
    assert_eq!(
        primal,
        "k = const n as f64 * 2.0\nt1 = mul(k, x)\nreturn t1\n"
    );
}

#[test]
fn facts_are_of_one_binding_not_of_every_binding_of_a_name() {
    // The first `v` is written by element: it is a vector of the list (`v_1`). The second `v` is
    // another binding, never written: its element is read in place, not kept in a local first
    // (`let c = v_2 [1];`) as an element of a vector the body writes would be.
    let (primal, _, _) = lists(quote!(
        fn f(x: f64, n: usize) -> f64 {
            let mut s = 0.0;
            {
                let mut v = vec![0.0; n];
                v[0] = 2.0;
                s += v[0] * x;
            }
            let v = vec![1.0, 2.0];
            s + v[1] * x
        }
    ));
    assert!(primal.contains("v_1[0] := 2.0"), "{primal}");
    assert!(primal.contains("t5 = mul(v_2 [1], x)"), "{primal}");
    assert!(!primal.contains("let c"), "{primal}");
}

#[test]
fn reassignment_makes_new_values() {
    let (primal, _, _) = lists(quote!(
        fn f(x: f64) -> f64 {
            let mut s = x;
            s += x;
            s *= 2.0;
            s
        }
    ));
    assert_eq!(primal, "s = add(x, x)\ns_1 = mul(s, 2.0)\nreturn s_1\n");
}

#[test]
fn every_rule_template_parses_and_lowers() {
    for rule in crate::rules::RULES {
        let args: Vec<_> = (0..rule.arity()).map(|i| format!("a{i}")).collect();
        let call = match rule.syntax {
            crate::rules::Syntax::Infix(op) if args.len() == 2 => format!("a0 {op} a1"),
            crate::rules::Syntax::Prefix(op) => format!("{op}a0"),
            // (A function parameter's value and partials are a constant: `adapt/functions.rs`.)
            crate::rules::Syntax::Func(_) if rule.name.starts_with("linear") => format!(
                "{}(diffx::stop_gradient(a0), {})",
                rule.name,
                args[1..].join(", ")
            ),
            crate::rules::Syntax::Func(_) => format!("{}({})", rule.name, args.join(", ")),
            _ => format!("a0.{}({})", rule.name, args[1..].join(", ")),
        };
        let params = args
            .iter()
            .map(|a| format!("{a}: f64"))
            .collect::<Vec<_>>()
            .join(", ");
        let params = if rule.name == "powi" {
            "a0: f64, a1: i32".to_string()
        } else if let Some(n) = rule.name.strip_prefix("linear") {
            // (A function parameter's call: its value and partials, then its arguments.)
            let rest: Vec<String> = args[1..].iter().map(|a| format!("{a}: f64")).collect();
            format!("a0: (f64, [f64; {n}]), {}", rest.join(", "))
        } else {
            params
        };
        let src = format!("fn f({params}) -> f64 {{ {call} }}");
        let item: syn::ItemFn = syn::parse_str(&src).unwrap();
        let out = expand::expand(quote!(), quote!(#item));
        assert!(out.is_ok(), "{src}: {}", out.err().unwrap());
    }
}

#[test]
fn unsupported_code_is_an_error_not_a_panic() {
    let cases = [
        quote!(
            fn f(x: f64) -> f64 {
                let g = |t: f64| t * x;
                h(g)
            }
        ),
        quote!(
            fn f(x: &[f64]) -> f64 {
                x.iter().scan(0.0, |s, v| Some(*s + v)).sum()
            }
        ),
        quote!(
            fn f(p: [f64; 3]) -> f64 {
                let (.., a) = g(p);
                a
            }
        ),
        quote!(
            fn f(x: f64) -> f64 {
                let g = |t: f64| {
                    return t;
                };
                g(x)
            }
        ),
        quote!(
            fn f(x: f64) -> f64 {
                let mut c = 2.0 * x;
                let g = move |t: f64| t * c;
                c = 3.0;
                g(x) + c
            }
        ),
        quote!(
            fn f(x: &[f64]) -> f64 {
                x.iter()
                    .zip(x.iter().filter(|v| **v > 0.0))
                    .map(|(a, b)| a * b)
                    .sum()
            }
        ),
        quote!(
            fn f(x: f64) -> f64 {
                x.rem_euclid(2.0)
            }
        ),
        quote!(
            fn f(x: &mut f64) -> f64 {
                *x
            }
        ),
        quote!(
            fn f(n: usize) -> f64 {
                n as f64
            }
        ),
        quote!(
            fn f(x: f64) -> i32 {
                1
            }
        ),
        quote!(
            struct S;
        ),
    ];
    for c in cases {
        assert!(expand::expand(quote!(), c.clone()).is_err(), "{c}");
    }
    assert!(expand::expand(
        quote!(wrt(y)),
        quote!(
            fn f(x: f64) -> f64 {
                x
            }
        )
    )
    .is_err());
    // `wrt(self)` on a function without a receiver: `self` is no parameter of it.
    assert!(expand::expand(
        quote!(wrt(self, x)),
        quote!(
            fn f(x: f64) -> f64 {
                x
            }
        )
    )
    .is_err());
    assert!(expand::expand(
        quote!(foo),
        quote!(
            fn f(x: f64) -> f64 {
                x
            }
        )
    )
    .is_err());
}

/// The tokens of the item called `name` in `out`.
fn item_named(out: &proc_macro2::TokenStream, name: &str) -> String {
    let file: syn::File = syn::parse2(out.clone()).unwrap();
    file.items
        .iter()
        .find_map(|i| match i {
            syn::Item::Fn(f) if f.sig.ident == name => Some(quote!(#f).to_string()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no `{name}` in {out}"))
}

#[test]
fn emits_the_adjoint_program_as_plain_rust() {
    let out = expand::expand(
        quote!(),
        quote!(
            pub fn f(x: f64, y: f64, n: usize) -> f64 {
                x * y
            }
        ),
    )
    .unwrap();
    let vjp = item_named(&out, "__diffx_vjp_f");
    assert!(vjp.contains("pub fn __diffx_vjp_f (x : f64 , y : f64 , n : usize , ct : f64) -> (f64 , (f64 , f64 , :: diffx :: __private :: Zero ,))"), "{vjp}");
    // The forward sweep, then the backward sweep in the pullback closure (`__diffx_vjp_f` calls
    // both).
    let split = reverse_program(&out, "f");
    assert!(split.contains("let t1 = x * y ; (t1 , move | x : f64 , y : f64 , n : usize , ct : f64 , __wanted : [bool ; 3usize] , __into : (() , () , () ,) | { let x_bar = ct * y ; let y_bar = ct * x ; (x_bar , y_bar , :: diffx :: __private :: Zero ,) })"), "{split}");
    let grad = item_named(&out, "grad_f");
    assert!(
        grad.contains("pub fn grad_f (x : f64 , y : f64 , n : usize) -> (f64 , f64)"),
        "{grad}"
    );
    let jvp = item_named(&out, "__diffx_jvp_f");
    assert!(jvp.contains("let t1_dot = t2 + t3 ;"), "{jvp}");
}

#[test]
fn accumulated_adjoints_are_mutable() {
    let out = expand::expand(
        quote!(),
        quote!(
            fn f(x: f64) -> f64 {
                x * x.sin()
            }
        ),
    )
    .unwrap();
    let vjp = reverse_program(&out, "f");
    assert!(vjp.contains("let mut x_bar"), "{vjp}");
    assert!(vjp.contains("x_bar += "), "{vjp}");
}

/// The reverse program `#[autodiff]` writes for `item`, as token text.
fn vjp_text(item: proc_macro2::TokenStream) -> String {
    let name = syn::parse2::<syn::ItemFn>(item.clone()).unwrap().sig.ident;
    let out = crate::expand::autodiff(proc_macro2::TokenStream::new(), item);
    reverse_program(&out, &name.to_string())
}

/// The function holding the reverse program of `name` in `out`: `__diffx_split_name` if it has
/// one cut between the sweeps, which `__diffx_vjp_name` then calls, else `__diffx_vjp_name`.
fn reverse_program(out: &proc_macro2::TokenStream, name: &str) -> String {
    let vjp = item_named(out, &format!("__diffx_vjp_{name}"));
    match vjp.contains(&format!("__diffx_split_{name} (")) {
        true => item_named(out, &format!("__diffx_split_{name}")),
        false => vjp,
    }
}

#[test]
fn a_running_sum_over_a_range_needs_no_tape() {
    // The adjoint reads neither `s` (its partial in `s + t` is 1) nor a taped index: the backward
    // loop runs the range reversed.
    let text = vjp_text(quote! {
        fn rosenbrock(x: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() - 1 {
                let a = x[i + 1] - x[i] * x[i];
                let b = 1.0 - x[i];
                s += 100.0 * a * a + b * b;
            }
            s
        }
    });
    assert!(!text.contains("tape"), "{text}");
    assert!(text.contains("for i in range . rev ()"), "{text}");
}

#[test]
fn a_tape_keeps_only_what_the_adjoint_reads() {
    // `a = -k * x - 0.3 * v` needs x for ∂a/∂k; nothing needs v (its partials are constants).
    let text = vjp_text(quote! {
        fn spring(k: f64, x0: f64, steps: usize) -> f64 {
            let mut x = x0;
            let mut v = 0.0;
            for _ in 0..steps {
                let a = -k * x - 0.3 * v;
                x += 0.01 * v;
                v += 0.01 * a;
            }
            x * x + v
        }
    });
    assert!(text.contains("tape . push ((x_2 ,))"), "{text}");
    assert!(
        text.contains("while let :: core :: option :: Option :: Some ((x_2 ,)) = tape . pop ()"),
        "{text}"
    );
}

#[test]
fn a_square_gives_one_contribution() {
    let (_, _, rev) = lists(quote!(
        fn f(x: f64) -> f64 {
            x * x
        }
    ));
    assert_eq!(rev.matches("x_bar").count(), 1, "{rev}");
}

/// The item `#[autodiff(attr)]` writes for `item`, as text.
fn expanded(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> String {
    expand::expand(attr, item).unwrap().to_string()
}

#[test]
fn second_order_is_written_only_when_asked() {
    for item in [
        quote!(
            fn f(x: f64, y: f64) -> f64 {
                (x * y).sin() + x
            }
        ),
        quote!(
            fn f(x: f64, y: f64) -> f64 {
                g(x * y) + x
            }
        ),
    ] {
        // Without `order = 2`: `hvp_f` and `hessian_f` whose calls are errors that say to ask,
        // and a `__diffx_hvp_f` whose call from a caller's `hvp_` is one.
        let plain = expanded(quote!(), item.clone());
        assert!(
            plain.contains("fn hvp_f < __A : :: diffx :: __private :: OrderTwo > (__first : __A , _ : impl :: core :: marker :: Sized , _ : impl :: core :: marker :: Sized , _ : impl :: core :: marker :: Sized) -> (f64 , f64)"),
            "{plain}"
        );
        assert!(plain.contains("fn hessian_f < __A : :: diffx :: __private :: OrderTwo > (__first : __A , _ : impl :: core :: marker :: Sized) -> :: std :: vec :: Vec < :: std :: vec :: Vec < f64 >>"), "{plain}");
        assert!(plain.contains("fn __diffx_hvp_f < __A : :: diffx :: __private :: SecondOrder >"));
        assert!(!plain.contains("x_bar_dot"), "{plain}");
        let asked = expanded(quote!(order = 2), item);
        assert!(
            asked.contains("fn hvp_f (x : f64 , y : f64 , x_dot : f64 , y_dot : f64)"),
            "{asked}"
        );
        assert!(
            asked.contains("fn grad_and_hvp_f (x : f64 , y : f64 , x_dot : f64 , y_dot : f64) -> ((f64 , f64) , (f64 , f64))"),
            "{asked}"
        );
        assert!(
            plain.contains("fn grad_and_hvp_f < __A : :: diffx :: __private :: OrderTwo >"),
            "{plain}"
        );
        assert!(!asked.contains("OrderTwo"), "{asked}");
    }
}

#[test]
fn a_caller_gets_second_order_through_its_callees() {
    let item = quote!(
        fn f(x: f64, y: f64) -> f64 {
            g(x * y) + x
        }
    );
    let asked = expanded(quote!(order = 2), item);
    // The callee's pullback, differentiated: its gradient and that gradient's tangent.
    assert!(
        asked.contains("let (_ , (t1_bar ,) , (t1_bar_dot ,)) = __diffx_hvp_g ({ let __arg = t1 ; __arg } , t1_dot , t2_bar , t2_bar_dot) ;"),
        "{asked}"
    );
}

#[test]
fn order_three_adds_dhvp_and_d3_for_one_variable() {
    let one = expanded(
        quote!(order = 3),
        quote!(
            fn f(x: f64) -> f64 {
                x * x * x * x
            }
        ),
    );
    assert!(
        one.contains("fn dhvp_f (x : f64 , u_x : f64 , v_x : f64) -> f64"),
        "{one}"
    );
    assert!(one.contains("fn d3_f (x : f64) -> f64"), "{one}");
    let two = expanded(
        quote!(order = 3),
        quote!(
            fn f(x: f64, y: f64) -> f64 {
                x * y
            }
        ),
    );
    assert!(two.contains("fn dhvp_f (x : f64 , y : f64 , u_x : f64 , u_y : f64 , v_x : f64 , v_y : f64) -> (f64 , f64)"), "{two}");
    assert!(!two.contains("fn d3_f"), "{two}");
    assert!(!expanded(
        quote!(),
        quote!(
            fn f(x: f64) -> f64 {
                x * x * x
            }
        )
    )
    .contains("dhvp_f"));
}

#[test]
fn cotangents_and_values_read_back_for_their_shape_are_handed_over() {
    // `logits = t4 + b`: the bias's adjoint borrows `logits_bar` first, then `t4_bar` takes it.
    // The backward sweep needs only the shapes of `t4` and `logits`: the forward sweep takes them
    // where they are computed, so `t4 + &model.b` reuses `t4`'s buffer. `h` is read back for real
    // (`hᵀ·ḡ`), so it keeps no shape of its own.
    let (out, code) = vjp_code(
        quote!(wrt(model)),
        quote! {
            fn loss(model: &Mlp, h: &Tensor, labels: &[usize]) -> f32 {
                let t4 = h.matmul(&model.w);
                let logits = &t4 + &model.b;
                logits.cross_entropy(labels)
            }
        },
    );
    assert!(code.contains("fit(logits_bar,&t4_shape)"), "{out}");
    assert!(!code.contains("fit(&logits_bar,&t4"), "{out}");
    assert!(
        code.contains("lett4_shape=::diffx::__private::shape_of(&t4);"),
        "{out}"
    );
    assert!(code.contains("letlogits=t4+&model.b;"), "{out}");
    assert!(!code.contains("h_shape"), "{out}");
}

#[test]
fn a_fields_first_contribution_is_moved_in_and_later_ones_added() {
    // `w` is read twice: its first contribution (from the later read) replaces the unset tensor
    // it started from, the second is added; `b`'s one contribution is summed over the batch by
    // `fit`. The struct starts unset (nothing allocated for fields that are then replaced) and is
    // settled, zeros where nothing arrived, as it is returned.
    let item = quote! {
        fn loss(model: &Mlp, h: &Tensor, labels: &[usize]) -> f32 {
            let t4 = h.matmul(&model.w);
            let logits = &t4 + &model.b;
            logits.cross_entropy(labels) + (&model.w * &model.w).sum()
        }
    };
    let (out, code) = vjp_code(quote!(wrt(model)), item);
    assert!(
        code.contains("model_bar.w=::diffx::__private::fit(t"),
        "{out}"
    );
    assert!(
        code.contains("model_bar.b=::diffx::__private::fit(&logits_bar"),
        "{out}"
    );
    assert_eq!(
        code.matches("accumulate(&mutmodel_bar.w").count(),
        1,
        "{out}"
    );
    assert!(!code.contains("accumulate(&mutmodel_bar.b"), "{out}");
    assert!(code.contains("unset_like::<Mlp,_>(&model)"), "{out}");
    assert!(
        code.contains("(::diffx::__private::settled(model_bar),"),
        "{out}"
    );
}

#[test]
fn contributions_inside_a_loop_are_always_added() {
    // The places a loop writes may be indexed at run time: no contribution there or after it
    // (in the backward sweep) replaces a field.
    let item = quote! {
        fn loss(model: &Mlp, x: &Tensor, labels: &[usize]) -> f32 {
            let extra = model.layers[0].b.sum();
            let mut h = x.clone();
            for layer in &model.layers {
                h = h.matmul(&layer.w) + &layer.b;
            }
            h.cross_entropy(labels) + extra
        }
    };
    let (out, code) = vjp_code(quote!(wrt(model)), item);
    assert!(!code.contains("model_bar.layers[0].b=::diffx"), "{out}");
    assert!(
        code.contains("accumulate(&mutmodel_bar.layers[0].b"),
        "{out}"
    );
}

/// What `#[autodiff(attr)]` writes for `item`, and the body of its `__diffx_vjp_loss` in it.
fn vjp_code(attr: TokenStream, item: TokenStream) -> (String, String) {
    let out = expand::expand(attr, item).unwrap().to_string();
    let code = vjp_body(&out);
    (out, code)
}

/// The body of the generated `__diffx_vjp_loss`, without white space (`hvp_` repeats the reverse
/// code, so whole-output counts would see it twice).
fn vjp_body(out: &str) -> String {
    let code: String = out.split_whitespace().collect();
    let start = code
        .find("fn__diffx_split_loss")
        .filter(|_| code.contains("=__diffx_split_loss("))
        .or_else(|| code.find("fn__diffx_vjp_loss"))
        .expect("a vjp function");
    let len = code[start..].find("#[").unwrap_or(code.len() - start);
    code[start..start + len].to_string()
}

#[test]
fn cross_entropy_takes_its_softmax_once_in_reverse_mode() {
    // At top level the forward sweep computes the loss with its gradient and the pullback scales
    // that; in a loop body the plain operation and its transposed map stay.
    let top = quote! {
        fn loss(x: &Tensor, labels: &[usize]) -> f32 {
            (x * 2.0).cross_entropy(labels)
        }
    };
    let (out, code) = vjp_code(quote!(), top);
    assert!(code.contains(".cross_entropy_with_grad(labels)"), "{out}");
    assert!(code.contains("__private::scaled((t2_fwd.1),ct)"), "{out}");
    assert!(!code.contains("cross_entropy_grad"), "{out}");
    let in_loop = quote! {
        fn loss(x: &Tensor, labels: &[usize], n: usize) -> f32 {
            let mut total = 0.0;
            for _ in 0..n {
                total += x.cross_entropy(labels);
            }
            total
        }
    };
    let (out, code) = vjp_code(quote!(), in_loop);
    assert!(!code.contains("cross_entropy_with_grad"), "{out}");
    assert!(code.contains("cross_entropy_grad"), "{out}");
}

#[test]
fn a_loop_body_hands_over_its_own_values_but_not_outer_ones() {
    // Inside the body, `t` and `z` are read for the last time where they are used (`t + &c`
    // reuses `t`, the cell takes `z` without a copy); `c` comes from outside the loop, which may
    // read it again in the next iteration, so it stays borrowed.
    let item = quote! {
        fn loss(x: &Tensor, w: &Tensor, labels: &[usize], n: usize) -> f32 {
            let c = x * 2.0;
            let mut h = x.clone();
            for _ in 0..n {
                let t = h.matmul(w);
                let z = t + &c;
                h = z.tanh();
            }
            h.cross_entropy(labels)
        }
    };
    let (out, code) = vjp_code(quote!(wrt(x, w)), item);
    assert!(code.contains("letz=t+&c;"), "{out}");
    assert!(!code.contains("t+c"), "{out}");
    assert!(
        code.contains("(h,)=(h_1,);"),
        "the cell takes the new value: {out}"
    );
    // `z.tanh()` is computed in `z`'s buffer; the tape takes the iteration's entry state as the
    // iteration ends, by value, and the backward iteration takes the adjoint carried into it
    // without a copy.
    assert!(
        code.contains("leth_1=::diffx::__private::owned::tanh(z);h_1_rec.push("),
        "{out}"
    );
    assert!(code.contains("tape.push((h,));(h,)=(h_1,);"), "{out}");
    assert!(code.contains("=::core::mem::replace(&muth_bar_1,"), "{out}");
}

#[test]
fn nothing_is_moved_in_after_a_path_indexed_at_run_time() {
    // The backward sweep meets `layers[last].w` first; `layers[last]` may be `layers[0]`, so the
    // contributions to `layers[0]` after it are added, not moved in.
    let (out, code) = vjp_code(
        quote!(wrt(model)),
        quote! {
            fn loss(model: &Mlp, x: &Tensor, labels: &[usize]) -> f32 {
                let last = model.layers.len() - 1;
                let logits = x.matmul(&model.layers[0].w) + &model.layers[0].b;
                logits.cross_entropy(labels) + model.layers[last].w.sum()
            }
        },
    );
    assert!(
        code.contains("accumulate(&mutmodel_bar.layers[last].w"),
        "{out}"
    );
    assert!(
        code.contains("accumulate(&mutmodel_bar.layers[0].w"),
        "{out}"
    );
    assert!(
        code.contains("accumulate(&mutmodel_bar.layers[0].b"),
        "{out}"
    );
    assert!(!code.contains("model_bar.layers[0].w=::diffx"), "{out}");
}

/// Derivative programs run every statement of the primal: a statement with no float in it (a
/// flag set under a condition on integers, the tail of a loop body) is kept in every mode, so
/// the derivative programs take the primal's path. Only `let`s of values that nothing reads are
/// dropped, from the backward sweep's recomputations (`tape::trim`).
#[test]
fn statements_without_floats_stay_in_every_mode() {
    let (primal, fwd, rev) = lists(quote!(
        fn f(x: f64, n: usize) -> f64 {
            let mut s = x;
            let mut k = 0;
            for i in 0..n {
                s *= x;
                if i >= 2 {
                    break;
                }
                {
                    k += 1;
                }
            }
            s
        }
    ));
    for (mode, list) in [("primal", &primal), ("forward", &fwd), ("reverse", &rev)] {
        assert!(list.contains("cond = const i >= 2"), "{mode}:\n{list}");
        assert!(list.contains("= if cond {"), "{mode}:\n{list}");
        assert!(list.contains("k_2 = const k_1 + 1"), "{mode}:\n{list}");
    }
}

/// A flag set before a `break` on an integer condition is part of the forward sweep, but the
/// backward sweep replays the taped iterations and needs neither the flag nor the index.
#[test]
fn a_break_flag_is_not_taped() {
    let text = vjp_text(quote! {
        fn f(x: f64, n: usize) -> f64 {
            let mut s = x;
            for i in 0..n {
                s *= x;
                if i >= 2 {
                    break;
                }
            }
            s
        }
    });
    assert!(text.contains("let cond = i >= 2"), "{text}");
    assert!(text.contains("tape . push ((s ,))"), "{text}");
    assert!(
        text.contains("while let :: core :: option :: Option :: Some ((s ,)) = tape . pop ()"),
        "{text}"
    );
}

/// Reverse mode pairs a call with its pullback: at top level the callee's forward sweep runs once
/// (`__diffx_split_g`), and in a loop the body's run keeps the value and pullback on a tape that
/// the recomputation pops instead of calling again.
#[test]
fn calls_are_split_into_value_and_pullback() {
    let straight = vjp_text(quote! {
        fn f(x: f64) -> f64 {
            let y = g(x);
            y * x
        }
    });
    assert!(
        straight.contains("let (y , y_pullback) = __diffx_split_g (x)"),
        "{straight}"
    );
    assert!(straight.contains("= y_pullback (x ,"), "{straight}");
    assert!(!straight.contains("__diffx_vjp_g"), "{straight}");
    let looped = vjp_text(quote! {
        fn f(x: f64, n: usize) -> f64 {
            let mut s = x;
            for _ in 0..n {
                s = g(s) + x;
            }
            s
        }
    });
    assert!(looped.contains("t2_calls . push (("), "{looped}");
    assert!(looped.contains("= t2_calls . pop ()"), "{looped}");
    assert_eq!(looped.matches("__diffx_split_g").count(), 1, "{looped}");
    // A method is called through `self`, and an associated function through its type: no split.
    let method = vjp_text(quote! {
        fn f(x: f64) -> f64 {
            Model::g(x) * x
        }
    });
    assert!(method.contains("Model :: __diffx_vjp_g"), "{method}");
}

/// The split function hands the forward sweep's values to the pullback closure; a forward sweep
/// with a loop whose tape may borrow the arguments is not cut, and the closure calls
/// `__diffx_vjp_` instead.
#[test]
fn a_split_function_cuts_what_it_can_hand_over() {
    let split = |item| {
        let out = crate::expand::autodiff(proc_macro2::TokenStream::new(), item);
        item_named(&out, "__diffx_split_f")
    };
    let cut = split(quote! {
        fn f(x: f64) -> f64 {
            x.exp() * 2.0
        }
    });
    assert!(cut.contains("+ use < >"), "{cut}");
    assert!(
        cut.contains("move | x : f64 , ct : f64 , __wanted : [bool ; 1usize] , __into : (() ,) |"),
        "{cut}"
    );
    assert!(!cut.contains("__diffx_vjp_f"), "{cut}");
    // `exp`'s pullback reads its result, which is also the value returned: a copy goes each way.
    let kept = split(quote! {
        fn f(x: f64) -> f64 {
            x.exp()
        }
    });
    assert!(
        kept.contains("(:: core :: clone :: Clone :: clone (& t1) , move"),
        "{kept}"
    );
    let looped = split(quote! {
        fn f(x: &[f64]) -> f64 {
            let mut s = 0.0;
            for v in x {
                s += v * v;
            }
            s
        }
    });
    // A loop over positions tapes integers: the closure takes the range and the cells' tape.
    assert!(looped.contains("for i_1 in range . rev ()"), "{looped}");
    assert!(!looped.contains("__diffx_vjp_f"), "{looped}");
    // Over another iterator, the loop variables on the tape could be references: not cut.
    let reversed = split(quote! {
        fn f(x: &[f64], n: usize) -> f64 {
            let mut s = 0.0;
            for i in (0..n).rev() {
                s = s * x[i] + 1.0;
            }
            s
        }
    });
    assert!(
        reversed.contains("__diffx_vjp_f (x , n , ct) . 1"),
        "{reversed}"
    );
    let generic = split(quote! {
        fn f<T: Float, const N: usize>(x: [T; N]) -> T {
            x[0] * x[N - 1]
        }
    });
    assert!(generic.contains("+ use < T , N >"), "{generic}");
}

/// The pullback closure skips what only unwanted gradients need: the input's gradient of a layer
/// whose input is data.
#[test]
fn a_pullback_skips_unwanted_gradients() {
    let out = crate::expand::autodiff(
        proc_macro2::TokenStream::new(),
        quote! {
            fn dense(layer: &Linear, x: &Tensor) -> Tensor {
                x.matmul(&layer.w) + &layer.b
            }
        },
    );
    let split = item_named(&out, "__diffx_split_dense");
    assert!(
        split.contains("let t3 = if __wanted [1usize] { t1_bar . matmul_t (& (layer . w)) } else { :: diffx :: __private :: NotWanted :: not_wanted () } ;"),
        "{split}"
    );
    assert!(
        split.contains("if __wanted [0usize] { layer_bar . w ="),
        "{split}"
    );
    // The shared cotangent is always computed.
    assert!(
        split.contains("let t1_bar = :: diffx :: __private :: fit (ct , & t1_shape) ;"),
        "{split}"
    );
    let caller = crate::expand::autodiff(
        quote!(wrt(layer)),
        quote! {
            fn loss(layer: &Linear, x: &Tensor) -> f64 {
                dense(layer, x).sum()
            }
        },
    );
    let caller = reverse_program(&caller, "loss");
    assert!(
        caller.contains(", [true , false] , (:: diffx :: __private :: NoSlot :: none () , :: diffx :: __private :: NoSlot :: none () ,))"),
        "{caller}"
    );
}

#[test]
fn deep_expressions_expand_on_a_stack_of_their_own() {
    // 3,000 terms in one sum (rustc compiles 5,000 without the attribute; its own parser overflows
    // near 7,000) and 500 nested parentheses: parsing and every pass recurse that deep. On the test
    // thread's stack (2 MiB) the sum overflows; the entry points expand on `on_a_deep_stack`.
    let sum = (1..=3000)
        .map(|i| format!("x * {i}.0"))
        .collect::<Vec<_>>()
        .join(" + ");
    let nested = format!("{}x{}", "(".repeat(500), " * 1.0)".repeat(500));
    for body in [sum, nested] {
        let item: proc_macro2::TokenStream =
            format!("fn f(x: f64) -> f64 {{ {body} }}").parse().unwrap();
        let out = crate::on_a_deep_stack(|| expand::expand(quote!(), item).map(|t| t.to_string()));
        let out = out.unwrap();
        assert!(out.contains("fn grad_f") && out.contains("fn jvp_f"));
    }
}

#[test]
fn a_loop_records_what_its_backward_sweep_reads_and_runs_no_body_again() {
    // Three nested loops, as kmeans: the distance (a loop's result) is recorded, the difference
    // (one subtraction of elements the loops do not write) computed again; the backward loop over
    // the coordinates is skipped where the distance's adjoint is zero (all but the nearest centre).
    let item = quote! {
        fn loss(p: &[f64], c: &[f64], d: usize) -> f64 {
            let mut total = 0.0;
            for i in 0..p.len() / d {
                let mut closest = f64::INFINITY;
                for j in 0..c.len() / d {
                    let mut dist = 0.0;
                    for e in 0..d {
                        let diff = p[i * d + e] - c[j * d + e];
                        dist += diff * diff;
                    }
                    closest = closest.min(dist);
                }
                total += closest;
            }
            total
        }
    };
    let (out, code) = vjp_code(quote!(wrt(c)), item);
    let backward = &code[code.find("move|").expect("a pullback closure")..];
    assert!(
        code.contains("dist_18_rec.push(::core::clone::Clone::clone(&dist_18));"),
        "{out}"
    );
    assert!(backward.contains("=dist_18_rec.pop()"), "{out}");
    // The forward sweep's loops run once: no loop of the backward sweep runs a body forward.
    assert!(!backward.contains("__iter"), "{out}");
    assert!(backward.contains("letdiff_7=(p[i*d+e])-c[j*d+e];"), "{out}");
    assert!(
        backward.contains("ifdist_18_bar_1!=0.0{foreinrange.rev()"),
        "{out}"
    );
    // Recomputing keeps no records, and runs the bodies again.
    let attr = quote!(wrt(c), loops = "recompute");
    let item = quote! {
        fn loss(p: &[f64], c: &[f64], d: usize) -> f64 {
            let mut total = 0.0;
            for i in 0..p.len() / d {
                let mut dist = 0.0;
                for e in 0..d {
                    dist += (p[i * d + e] - c[e]).powi(2);
                }
                total += dist.sqrt();
            }
            total
        }
    };
    let (out, code) = vjp_code(attr, item);
    assert!(!code.contains("_rec"), "{out}");
    let backward = &code[code.find("move|").expect("a pullback closure")..];
    assert!(backward.contains("__iter"), "{out}");
}

#[test]
fn elements_of_written_vectors_are_read_again_where_no_write_comes_between() {
    // An LSTM cell: `h` and `c` are read, used, and only then their elements overwritten; the
    // backward sweep undoes the writes before it needs them, and reads them from the vector.
    // `before` is used after a write of the vector: it is recorded.
    let item = quote! {
        fn loss(x: &[f64], n: usize) -> f64 {
            let b = x.len();
            let mut st = vec![0.5; 2 * b];
            let mut total = 0.0;
            for _ in 0..n {
                for i in 0..b {
                    let h = st[i];
                    let c = st[b + i];
                    let next = c * (h * x[i]).tanh();
                    st[b + i] = next;
                    st[i] = next.sin();
                }
                let before = st[0];
                st[0] = before * 0.5;
                total += before * before;
            }
            total
        }
    };
    let (out, code) = vjp_code(TokenStream::new(), item);
    let backward = &code[code.find("move|").expect("a pullback closure")..];
    // `h` is read again; `c` is recorded all the same, since the product `c * tanh(…)`, which
    // the backward sweep computes again at the start of the iteration (before any undo), reads it.
    assert!(!code.contains("h_2_rec"), "{out}");
    assert!(code.contains("c_5_rec.push("), "{out}");
    assert!(code.contains("before_2_rec.push("), "{out}");
    // Read again after the undo of both writes, right before the first adjoint that needs it.
    let undo = backward.find("st_2[i]=__old;").expect("the undo of st[i]");
    let read = backward.find("leth_2=st_2[i];").expect("h read again");
    assert!(undo < read, "{out}");
}

#[test]
fn element_writes_undone_where_their_index_is_known_log_values_alone() {
    // A vector rewritten in a loop: each write's adjoint knows its index, so its log keeps the old
    // value alone and the undo restores that element.
    let item = quote! {
        fn loss(x: &[f64], n: usize) -> f64 {
            let mut v = vec![0.0; x.len()];
            for _ in 0..n {
                for i in 0..x.len() {
                    v[i] = v[i] * 0.5 + x[i];
                }
            }
            v[0] * v[1]
        }
    };
    let (out, code) = vjp_code(TokenStream::new(), item);
    assert!(code.contains("v_1_log.push(v_1[__k]);"), "{out}");
    assert!(
        code.contains("iflet::core::option::Option::Some(__old)=v_1_log.pop(){v_1[i]=__old;}"),
        "{out}"
    );
    // Shared with a push, the log keeps indices (undoing the push pops the element).
    let item = quote! {
        fn loss(x: &[f64], n: usize) -> f64 {
            let mut v = vec![x[0]];
            for i in 0..n {
                v[0] = v[0] * x[1];
                v.push(v[i] * 0.5);
            }
            v[n]
        }
    };
    let (out, code) = vjp_code(TokenStream::new(), item);
    assert!(code.contains("log.push((__k,"), "{out}");
    assert!(code.contains("Restore::restore"), "{out}");
}

#[test]
fn a_checkpointed_loop_runs_the_primal_forward_and_follows_the_schedule_backward() {
    let item = quote! {
        fn loss(x: &[f64], n: usize) -> f64 {
            let mut s = 0.5;
            for _ in 0..n {
                s = (s * x[0]).sin().exp() + x[1];
            }
            s
        }
    };
    let (out, code) = vjp_code(quote!(checkpoint = 3), item);
    let backward = &code[code.find("move|").expect("a pullback closure")..];
    let forward = &code[..code.find("move|").expect("a pullback closure")];
    // The forward sweep: the primal loop and the snapshots, no tape and no records.
    assert!(
        forward.contains("::diffx::__private::Schedule::new("),
        "{out}"
    );
    assert!(forward.contains(",3usize)"), "{out}");
    assert!(forward.contains(".keeps(__j)"), "{out}");
    assert!(!forward.contains("_rec"), "{out}");
    assert!(!forward.contains("tape"), "{out}");
    // The backward sweep: the schedule's actions, and one recorded iteration at a time.
    for action in [
        "Advance(",
        "Push=>",
        "Restore=>",
        "Pop=>",
        "Reverse(__step)",
        "Done=>break",
    ] {
        assert!(backward.contains(action), "{action}: {out}");
    }
    assert!(backward.contains("::core::iter::once("), "{out}");
    assert!(backward.contains("_rec.pop()"), "{out}");
    // Without the argument, the loop records.
    let item = quote! {
        fn loss(x: &[f64], n: usize) -> f64 {
            let mut s = 0.5;
            for _ in 0..n {
                s = (s * x[0]).sin().exp() + x[1];
            }
            s
        }
    };
    let (out, code) = vjp_code(TokenStream::new(), item);
    assert!(!code.contains("Schedule"), "{out}");
}

#[test]
fn the_rest_after_an_early_return_records_and_keeps_its_calls_pullbacks() {
    // The loop after the `return` is in the `if` the return makes; that `if` records: its
    // backward arm runs no loop forward and makes no call again, but pops the call's pullback.
    let item = quote! {
        fn loss(x: &[f64], n: usize) -> f64 {
            if n == 0 {
                return x[0];
            }
            let mut s = 0.0;
            for i in 0..x.len() {
                s += g(x[i], s);
            }
            s * s
        }
    };
    let (out, code) = vjp_code(quote!(), item.clone());
    let backward = &code[code.find("move|").expect("a pullback closure")..];
    assert!(!backward.contains("__iter"), "{out}");
    assert!(!backward.contains("__diffx_split_g("), "{out}");
    assert!(!backward.contains("__diffx_vjp_g("), "{out}");
    assert!(code.contains("t5_calls.push("), "{out}");
    assert!(backward.contains("=t5_calls.pop()"), "{out}");
    // Recomputing, the backward arm runs the loop again, splitting the call there.
    let (out, code) = vjp_code(quote!(loops = "recompute"), item);
    let backward = &code[code.find("move|").expect("a pullback closure")..];
    assert!(backward.contains("__iter"), "{out}");
    assert!(!code.contains("_rec"), "{out}");
}

#[test]
fn a_pullback_adds_into_the_adjoint_its_caller_offers() {
    // The caller offers its adjoint of `x` to the call's pullback; the callee's pullback starts
    // its adjoint of the slice as the offer, adds to it, and returns it through `finish`.
    let caller = expanded(
        quote!(),
        quote! {
            fn loss(x: &[f64]) -> f64 {
                let mut s = 0.0;
                for i in 0..x.len() {
                    s += g(x, i);
                }
                s
            }
        },
    );
    let caller: String = caller.split_whitespace().collect();
    assert!(
        caller.contains("::diffx::__private::Slot::slot(&mutx_bar)"),
        "{caller}"
    );
    let callee = expanded(
        quote!(wrt(x)),
        quote! {
            fn g(x: &[f64], i: usize) -> f64 {
                x[i] * x[i]
            }
        },
    );
    let callee: String = callee.split_whitespace().collect();
    assert!(
        callee.contains("__into:(::core::option::Option<&mut[f64]>,(),)|{letmutx_bar_own=::std::vec::Vec::new();letmutx_bar=::diffx::__private::slice_adjoint(__into.0,&mutx_bar_own,&x[..]);"),
        "{callee}"
    );
    // (The element's contribution is added, not assigned: the buffer holds the caller's.)
    assert!(callee.contains("x_bar[i]+="), "{callee}");
    assert!(
        callee.contains("(x_bar_own,::diffx::__private::Zero,)"),
        "{callee}"
    );
}
