//! The lists each stage makes of small functions, printed as text: the primal list, its tangents
//! and adjoints; the facts of one binding; every rule template lowered.

use quote::quote;

use super::lists;
use crate::expand;

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
