//! Code the macro does not take is an error at the user's code, not a panic; deep expressions
//! expand on a stack of their own.

use quote::quote;

use crate::expand;

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
