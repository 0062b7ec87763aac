//! The programs written as Rust: adjoints accumulated, contributions moved in or added, values
//! and cotangents handed over at their last read, statements kept in every mode.

use quote::quote;

use super::{item_named, lists, reverse_program, vjp_code};
use crate::expand;

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

#[test]
fn a_square_gives_one_contribution() {
    let (_, _, rev) = lists(quote!(
        fn f(x: f64) -> f64 {
            x * x
        }
    ));
    assert_eq!(rev.matches("x_bar").count(), 1, "{rev}");
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
