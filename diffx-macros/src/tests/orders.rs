//! Higher orders: second order written only when asked, through callees too, and third order.

use quote::quote;

use super::expanded;

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
