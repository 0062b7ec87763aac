//! Calls of other `#[autodiff]` functions in reverse mode: split into value and pullback, what
//! a split function hands over, and what a pullback skips or adds into.

use quote::quote;

use super::{expanded, item_named, reverse_program, vjp_text};

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
