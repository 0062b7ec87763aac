//! `explain_f`: the evaluation trace against the tutorials' published tables, its consistency with
//! the chain rule, the DOT graph's well-formedness, and snapshots of the printed code.
//!
//! The snapshots are `tests/snapshots/*.txt`; after a deliberate change of the generated code,
//! regenerate them with `DIFFX_BLESS=1 cargo test --features explain --test explain` and review
//! the diff.

use diffx::autodiff;
#[path = "../../examples/shared/seed_functions.rs"]
mod seed_functions;
use crate::trace_checks;
use diffx::explain::{Role, Trace};
use seed_functions::*;
use trace_checks::{assert_close, assert_connected, snapshot};

#[autodiff]
fn inner(x: f32) -> f32 {
    x.exp()
}

/// f32, a constant parameter, a call of another `#[autodiff]` function, a reused operand.
#[autodiff]
fn outer(x: f32, y: f32, k: usize) -> f32 {
    let s = inner(x) * (k as f32);
    s * y + y.tanh() * y
}

/// `x` rounded to the three decimals the paper prints.
fn paper(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0 + 0.0
}

#[track_caller]
fn assert_row(t: &Trace, name: &str, value: f64, tangent: f64, adjoint: f64) {
    let r = t
        .row(name)
        .unwrap_or_else(|| panic!("no row {name} in\n{t}"));
    let got = (paper(r.value), paper(r.tangent), paper(r.adjoint));
    assert_eq!(got, (value, tangent, adjoint), "row {name} in\n{t}");
}

#[test]
fn tutorial_trace_reproduces_the_paper_tables() {
    // Fang et al., tables of section 2: values; tangents for ẋ1 = 1 (∂/∂x1); adjoints for ȳ = 1.
    let t = explain_tutorial(2.0, 5.0, 1.0, 0.0);
    let names: Vec<&str> = t.rows().iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        ["x1", "x2", "v1", "v2", "v3", "v4", "v5", "tutorial"]
    );
    assert_row(&t, "x1", 2.0, 1.0, 5.5);
    assert_row(&t, "x2", 5.0, 0.0, 1.716);
    assert_row(&t, "v1", 0.693, 0.5, 1.0);
    assert_row(&t, "v2", 10.0, 5.0, 1.0);
    assert_row(&t, "v3", -0.959, 0.0, -1.0);
    assert_row(&t, "v4", 10.693, 5.5, 1.0);
    assert_row(&t, "v5", 11.652, 5.5, 1.0);
    assert_row(&t, "tutorial", 11.652, 5.5, 1.0);
    let out = t.output_row().unwrap();
    assert_eq!((out.role, out.expr.as_str()), (Role::Output, "v5"));
    assert_eq!(t.row("v1").unwrap().expr, "x1.ln()");
    assert_eq!(t.row("v5").unwrap().expr, "v4 - v3");

    // The same numbers as the derivative functions, exactly.
    let (y, (d1, d2)) = value_and_grad_tutorial(2.0, 5.0);
    assert_eq!(t.value("tutorial"), Some(y));
    assert_eq!((t.adjoint("x1"), t.adjoint("x2")), (Some(d1), Some(d2)));
    assert_eq!(
        t.tangent("tutorial"),
        Some(jvp_tutorial(2.0, 5.0, 1.0, 0.0).1)
    );
    // Along x2, the tangent of the output is the other partial.
    let t2 = explain_tutorial(2.0, 5.0, 0.0, 1.0);
    assert_eq!(paper(t2.tangent("tutorial").unwrap()), 1.716);
    assert_eq!(paper(t2.tangent("v3").unwrap()), 0.284);
}

#[test]
fn e_trace_matches_the_blog() {
    // e = (a·b)·(b+1) at (2, 3) = 24; ∂e/∂a = b(b+1) = 12, ∂e/∂b = 2ab + a = 14;
    // c̄ = d = 4, d̄ = c = 6.
    let t = explain_e(2.0, 3.0, 1.0, 1.0);
    assert_row(&t, "a", 2.0, 1.0, 12.0);
    assert_row(&t, "b", 3.0, 1.0, 14.0);
    assert_row(&t, "c", 6.0, 5.0, 4.0);
    assert_row(&t, "d", 4.0, 1.0, 6.0);
    assert_row(&t, "e", 24.0, 26.0, 1.0);
    assert_eq!(t.row("d").unwrap().expr, "b + 1.0");
}

/// Every edge's local partial, recorded separately from both sweeps, agrees with them by the chain
/// rule: v̇ = Σ ∂v/∂u·u̇ over v's operands, and ū = Σ ∂v/∂u·v̄ over u's users.
#[track_caller]
fn assert_chain_rule(t: &Trace) {
    let rows = t.rows();
    let mut tangent = vec![0.0; rows.len()];
    let mut adjoint = vec![0.0; rows.len()];
    let mut complete = vec![true; rows.len()];
    for e in t.edges() {
        match e.partial {
            Some(p) => {
                tangent[e.to] += p * rows[e.from].tangent;
                adjoint[e.from] += p * rows[e.to].adjoint;
            }
            None => {
                complete[e.to] = false;
                complete[e.from] = false;
            }
        }
    }
    for (i, r) in rows.iter().enumerate() {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-5 * b.abs().max(1.0);
        if r.role != Role::Input && complete[i] {
            assert!(
                close(tangent[i], r.tangent),
                "tangent of {} in\n{t}",
                r.name
            );
        }
        if r.role != Role::Output && complete[i] {
            assert!(
                close(adjoint[i], r.adjoint),
                "adjoint of {} in\n{t}",
                r.name
            );
        }
    }
}

#[test]
fn edges_carry_the_local_partials() {
    let t = explain_tutorial(2.0, 5.0, 1.0, 0.0);
    let partial = |from: &str, to: &str| {
        t.edges()
            .iter()
            .find(|e| t.rows()[e.from].name == from && t.rows()[e.to].name == to)
            .and_then(|e| e.partial)
            .map(paper)
    };
    // ∂v1/∂x1 = 1/x1, ∂v2/∂x1 = x2, ∂v2/∂x2 = x1, ∂v3/∂x2 = cos x2, ∂v5/∂v3 = −1.
    assert_eq!(partial("x1", "v1"), Some(0.5));
    assert_eq!(partial("x1", "v2"), Some(5.0));
    assert_eq!(partial("x2", "v2"), Some(2.0));
    assert_eq!(partial("x2", "v3"), Some(0.284));
    assert_eq!(partial("v3", "v5"), Some(-1.0));
    assert_eq!(partial("v5", "tutorial"), Some(1.0));
    assert_eq!(t.edges().len(), 9);
    assert_chain_rule(&t);
    assert_chain_rule(&explain_e(2.0, 3.0, 0.5, -2.0));
    assert_chain_rule(&explain_outer(0.3, 1.5, 2, 1.0, 1.0));
}

#[test]
fn calls_constants_and_f32_are_traced() {
    let t = explain_outer(0.3, 1.5, 2, 1.0, 0.0);
    let (y, (dx, dy)) = value_and_grad_outer(0.3, 1.5, 2);
    assert_eq!(t.value("outer"), Some(f64::from(y)));
    assert_eq!(t.adjoint("x"), Some(f64::from(dx)));
    assert_eq!(t.adjoint("y"), Some(f64::from(dy)));
    assert_eq!(
        t.tangent("outer"),
        Some(f64::from(jvp_outer(0.3, 1.5, 2, 1.0, 0.0).1))
    );
    // The call of `inner` is one row, its partial ∂inner/∂x = eˣ from `inner`'s own gradient.
    let call = t.rows().iter().position(|r| r.expr == "inner(x)").unwrap();
    let edge = t.edges().iter().find(|e| e.to == call).unwrap();
    assert_eq!(t.rows()[edge.from].name, "x");
    assert_eq!(edge.partial, Some(f64::from(0.3_f32.exp())));
    // The constant parameter `k` is no row.
    assert!(t.row("k").is_none());
}

/// A tiny reader of the DOT this crate writes: `digraph "name" {`, then one statement per line,
/// `key=value;` attributes, `nI [attrs];` nodes and `nI -> nJ [attrs];` edges, then `}`.
#[test]
fn dot_is_well_formed_and_connected() {
    for t in [
        explain_tutorial(2.0, 5.0, 1.0, 0.0),
        explain_e(2.0, 3.0, 0.0, 1.0),
        explain_outer(0.3, 1.5, 2, 1.0, 0.0),
    ] {
        let dot = t.to_dot();
        assert_connected(&t, &dot);
        assert!(
            dot.contains("label=\"v1 = x1.ln()\\nvalue 0.693\\ngrad 1\"")
                || t.function() != "tutorial"
        );
    }
}

fn everything(t: &Trace) -> String {
    format!(
        "{t}\n# Wengert list\n{}\n# forward code\n{}\n# reverse code\n{}\n# graph\n{}",
        t.wengert_list(),
        t.forward_code(),
        t.reverse_code(),
        t.to_dot()
    )
}

#[test]
fn printed_code_and_tables_are_stable() {
    snapshot(
        "tutorial",
        &everything(&explain_tutorial(2.0, 5.0, 1.0, 0.0)),
    );
    snapshot("e", &everything(&explain_e(2.0, 3.0, 0.0, 1.0)));
    // A loop's table and graph (its code is the loop modes' business, pinned elsewhere).
    let t = explain_power(2.0, 4, 1.0);
    snapshot("power", &format!("{t}\n# graph\n{}", t.to_dot()));
}

// Loops, branches and slices: a row per executed value.

#[path = "../../examples/shared/loop_functions.rs"]
mod loop_functions;
#[path = "../common/loop_functions.rs"]
mod test_loops;
use loop_functions::{explain_heron, explain_power, grad_heron, grad_power, jvp_heron, jvp_power};
use test_loops::{explain_first_large, first_large, grad_first_large, jvp_first_large};

/// What both modes compute: the output's tangent is `jvp_`'s, the input rows' adjoints (in order)
/// are `grad_`'s; and every row agrees with its edges by the chain rule.
#[track_caller]
fn assert_both_modes(t: &Trace, jvp: f64, grad: &[f64]) {
    assert_close(t.output_row().unwrap().tangent, jvp, "output tangent");
    let adjoints: Vec<f64> = t.inputs().map(|r| r.adjoint).collect();
    assert_eq!(adjoints.len(), grad.len(), "{t}");
    for (i, (a, g)) in adjoints.iter().zip(grad).enumerate() {
        assert_close(*a, *g, &format!("adjoint of input {i} in\n{t}"));
    }
    assert_chain_rule(t);
}

/// The rows called `name`: (where, value, tangent, adjoint).
fn rows_of(t: &Trace, name: &str) -> Vec<(String, f64, f64, f64)> {
    t.rows_named(name)
        .map(|r| (r.context.clone(), r.value, r.tangent, r.adjoint))
        .collect()
}

#[test]
fn power_loop_records_each_iteration() {
    // x⁴ at x = 2 along ẋ = 1: p ← p·x three times, 4, 8, 16, with tangents 2x, 3x², 4x³; the
    // adjoint of p after k steps is x^(3−k), and x̄ collects 4x³ = 32.
    let t = explain_power(2.0, 4, 1.0);
    let p = t.output_row().unwrap().expr.clone();
    let step = &t.rows()[1].name;
    assert_eq!(
        rows_of(&t, step),
        [
            ("iteration 1".to_string(), 4.0, 4.0, 4.0),
            ("iteration 2".to_string(), 8.0, 12.0, 2.0),
            ("iteration 3".to_string(), 16.0, 32.0, 1.0),
        ],
        "{t}"
    );
    assert_eq!(t.rows().len(), 5, "x, three steps, the output:\n{t}");
    assert_eq!(t.row(step).unwrap().expr, format!("{p} * x"));
    // The first step reads p = x: both its edges come from x, with ∂/∂p = x and ∂/∂x = p.
    let first: Vec<(usize, Option<f64>)> = t
        .edges()
        .iter()
        .filter(|e| e.to == 1)
        .map(|e| (e.from, e.partial))
        .collect();
    assert_eq!(first, [(0, Some(2.0)), (0, Some(2.0))]);
    assert_both_modes(&t, jvp_power(2.0, 4, 1.0).1, &[grad_power(2.0, 4)]);
    // n = 1: no iteration, the output is the input.
    let t = explain_power(3.0, 1, 1.0);
    assert_eq!(t.rows().len(), 2);
    assert_both_modes(&t, 1.0, &[1.0]);
}

#[test]
fn while_loop_records_as_many_iterations_as_ran() {
    for a in [2.0_f64, 9.0, 1e4] {
        // The same iteration by hand, counted.
        let (mut g, mut steps, mut values) = (a, 0, Vec::new());
        while (g * g - a).abs() > 1e-12 * a {
            g = 0.5 * (g + a / g);
            steps += 1;
            values.push(g);
        }
        let t = explain_heron(a, 1.0);
        let update = &t.output_row().unwrap().expr;
        let last = t
            .rows()
            .iter()
            .rev()
            .find(|r| r.role == Role::Operation)
            .unwrap();
        let recorded: Vec<f64> = t.rows_named(&last.name).map(|r| r.value).collect();
        assert_eq!(recorded, values, "{t}");
        assert_eq!(last.context, format!("iteration {steps}"));
        assert!(update.starts_with('g'), "{update}");
        // Three rows per iteration: a/g, g + a/g, half of it.
        assert_eq!(t.rows().len(), 2 + 3 * steps, "{t}");
        assert_both_modes(&t, jvp_heron(a, 1.0).1, &[grad_heron(a)]);
        assert_close(t.adjoint("a").unwrap(), 0.5 / a.sqrt(), "1/(2√a)");
    }
}

/// A branch whose arms compute different rows.
#[autodiff]
fn bump(x: f64, y: f64) -> f64 {
    let z = if x > y { x.sin() * y } else { x * x + y };
    z * 2.0
}

#[test]
fn branches_record_the_arm_that_ran() {
    // x > y: 2·y·sin x; ∂x = 2y cos x, ∂y = 2 sin x.
    let t = explain_bump(2.0, 1.0, 1.0, 0.0);
    let exprs: Vec<(&str, &str)> = t
        .rows()
        .iter()
        .map(|r| (r.context.as_str(), r.expr.as_str()))
        .collect();
    assert_eq!(exprs[2], ("x > y", "x.sin()"), "{t}");
    assert!(exprs.iter().all(|(c, _)| !c.starts_with('!')), "{t}");
    assert_both_modes(
        &t,
        2.0 * 2.0_f64.cos(),
        &[2.0 * 2.0_f64.cos(), 2.0 * 2.0_f64.sin()],
    );
    // x ≤ y: 2(x² + y); ∂x = 4x, ∂y = 2.
    let t = explain_bump(1.0, 2.0, 0.0, 1.0);
    assert_eq!(t.rows()[2].context, "!(x > y)", "{t}");
    assert_eq!(t.rows()[2].expr, "x * x");
    assert!(t.rows().iter().all(|r| !r.expr.contains("sin")));
    assert_both_modes(&t, 2.0, &[4.0, 2.0]);
    assert_eq!(grad_bump(1.0, 2.0), (4.0, 2.0));
}

/// `match` on an integer: an arm may be the input itself.
#[autodiff]
fn by_case(x: f64, k: u32) -> f64 {
    match k {
        0 => x,
        1 => x * x,
        _ => x.exp(),
    }
}

#[test]
fn match_arms_are_branches() {
    let t = explain_by_case(1.5, 0, 1.0);
    assert_eq!(t.rows().len(), 2, "the output is x:\n{t}");
    assert_both_modes(&t, 1.0, &[1.0]);
    let t = explain_by_case(1.5, 1, 1.0);
    assert_eq!(t.rows()[1].expr, "x * x");
    assert_eq!(t.rows()[1].context, "!(matches!(k, 0)), matches!(k, 1)");
    assert_both_modes(&t, 3.0, &[3.0]);
    let t = explain_by_case(1.5, 7, 1.0);
    assert_both_modes(&t, 1.5_f64.exp(), &[grad_by_case(1.5, 7)]);
}

/// Nested loops, a branch in the inner one, a cell updated in both arms.
#[autodiff]
fn grid(x: f64, y: f64, n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        for j in 0..n {
            let t = x * i as f64 + y * j as f64;
            if t > 1.0 {
                total += t.sin();
            } else {
                total += t * t;
            }
        }
    }
    total
}

#[test]
fn nested_loops_name_their_iterations() {
    let (x, y, n) = (0.3, 0.4, 3);
    let t = explain_grid(x, y, n, 0.5, -1.0);
    assert_eq!(t.rows().len(), 2 + 5 * n * n + 1, "{t}");
    for i in 0..n {
        for j in 0..n {
            // Three rows for `t`, then the two of the arm that ran, under its condition.
            let at = format!("i = {i}, j = {j}");
            let rows: Vec<&diffx::explain::Row> = t
                .rows()
                .iter()
                .filter(|r| r.context == at || r.context.starts_with(&format!("{at}, ")))
                .collect();
            assert_eq!(rows.len(), 5, "{at} in\n{t}");
            let v = x * i as f64 + y * j as f64;
            assert_close(rows[2].value, v, &at);
            let cond = format!("{} > 1.0", rows[2].name);
            let arm = if v > 1.0 { cond } else { format!("!({cond})") };
            assert_eq!(rows[3].context, format!("{at}, {arm}"));
            assert_eq!(rows[4].context, format!("{at}, {arm}"));
        }
    }
    let (gx, gy) = grad_grid(x, y, n);
    assert_both_modes(&t, jvp_grid(x, y, n, 0.5, -1.0).1, &[gx, gy]);
}

/// Σ xᵢ² over a slice, read by index.
#[autodiff]
#[allow(clippy::needless_range_loop)]
fn sum_squares(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * x[i];
    }
    s
}

#[test]
fn slices_have_a_row_per_element() {
    let x = [0.5, -1.0, 2.0];
    let tx = [1.0, 0.5, -0.25];
    let t = explain_sum_squares(&x, &tx);
    let inputs: Vec<(&str, f64, f64, f64)> = t
        .inputs()
        .map(|r| (r.name.as_str(), r.value, r.tangent, r.adjoint))
        .collect();
    // x̄ᵢ = 2xᵢ.
    assert_eq!(
        inputs,
        [
            ("x[0]", 0.5, 1.0, 1.0),
            ("x[1]", -1.0, 0.5, -2.0),
            ("x[2]", 2.0, -0.25, 4.0)
        ]
    );
    // Each square reads x[i] twice, from the row of element i, with ∂/∂x[i] = x[i] each time.
    for (i, xi) in x.iter().enumerate() {
        let square = t
            .rows()
            .iter()
            .position(|r| r.context == format!("i = {i}") && r.expr == "x[i] * x[i]")
            .unwrap_or_else(|| panic!("no square of x[{i}] in\n{t}"));
        let edges: Vec<(usize, Option<f64>)> = t
            .edges()
            .iter()
            .filter(|e| e.to == square)
            .map(|e| (e.from, e.partial))
            .collect();
        assert_eq!(edges, [(i, Some(*xi)), (i, Some(*xi))]);
    }
    assert_both_modes(&t, jvp_sum_squares(&x, &tx).1, &grad_sum_squares(&x));
    assert!(t
        .to_string()
        .starts_with("sum_squares at (x[0], x[1], x[2]) = (0.5, -1, 2)\n"));
    assert!(t
        .to_string()
        .contains("along (x\u{307}[0], x\u{307}[1], x\u{307}[2]) = (1, 0.5, -0.25)"));
}

/// A `Vec` and a scalar parameter, and a loop over the elements.
#[autodiff]
fn weighted(w: Vec<f64>, scale: f64) -> f64 {
    let mut s = 0.0;
    for &wi in &w {
        s += (wi * scale).tanh();
    }
    s / w.len() as f64
}

/// An array, and a local vector written element by element (its first element stays a constant).
#[autodiff]
#[allow(clippy::needless_range_loop)]
fn smoothed(x: [f64; 4]) -> f64 {
    let mut y = [0.0; 4];
    for i in 1..4 {
        y[i] = 0.5 * (x[i] + x[i - 1]);
    }
    let mut s = 0.0;
    for i in 0..4 {
        s += y[i] * y[i];
    }
    s.sqrt()
}

#[test]
fn vectors_arrays_and_element_writes() {
    let w = vec![0.2, -0.5, 1.5];
    let t = explain_weighted(w.clone(), 0.8, vec![1.0, 0.0, 2.0], 0.5);
    assert_eq!(t.inputs().count(), 4);
    let (gw, gs) = grad_weighted(w.clone(), 0.8);
    let grad: Vec<f64> = gw.iter().copied().chain([gs]).collect();
    let jvp = jvp_weighted(w, 0.8, vec![1.0, 0.0, 2.0], 0.5).1;
    assert_both_modes(&t, jvp, &grad);

    let x = [1.0, 2.0, -1.0, 0.5];
    let t = explain_smoothed(x, [0.0, 1.0, 0.0, 0.0]);
    // y[0] is never written: its square, and the first sum, are constants (no rows).
    assert!(t.rows().iter().all(|r| r.context != "i = 0"), "{t}");
    assert_eq!(t.rows_named("x[3]").count(), 1);
    assert_both_modes(
        &t,
        jvp_smoothed(x, [0.0, 1.0, 0.0, 0.0]).1,
        &grad_smoothed(x),
    );
}

#[autodiff]
fn shifted_square(x: f64, c: f64) -> f64 {
    x * x + c
}

/// Calls of another `#[autodiff]` function in a loop.
#[autodiff]
fn calls_in_a_loop(x: f64, n: u32) -> f64 {
    let mut s = x;
    for k in 0..n {
        s = shifted_square(s, k as f64) * 0.5;
    }
    s
}

#[test]
fn calls_in_loops_carry_their_gradients() {
    let t = explain_calls_in_a_loop(0.9, 3, 1.0);
    let calls: Vec<&str> = t
        .rows()
        .iter()
        .filter(|r| r.expr.starts_with("shifted_square("))
        .map(|r| r.context.as_str())
        .collect();
    assert_eq!(calls, ["k = 0", "k = 1", "k = 2"]);
    assert!(t.edges().iter().all(|e| e.partial.is_some()));
    assert_both_modes(
        &t,
        jvp_calls_in_a_loop(0.9, 3, 1.0).1,
        &[grad_calls_in_a_loop(0.9, 3)],
    );
}

#[test]
fn loop_graphs_are_well_formed_and_connected() {
    for t in [
        explain_power(2.0, 4, 1.0),
        explain_heron(2.0, 1.0),
        explain_grid(0.3, 0.4, 2, 1.0, 0.0),
        explain_sum_squares(&[1.0, 2.0], &[1.0, 0.0]),
        explain_smoothed([1.0, 2.0, -1.0, 0.5], [1.0; 4]),
    ] {
        let dot = t.to_dot();
        assert_connected(&t, &dot);
        assert!(
            dot.contains("\\n(iteration 2)\\n") || t.function() != "power",
            "{dot}"
        );
    }
}

/// `continue` and `break` in a `for`: rewritten into flags before lowering, which the trace does
/// not show as conditions.
#[autodiff]
fn partial_sums(x: f64, n: u32) -> f64 {
    let mut s = 0.0;
    for k in 0..n {
        if k % 3 == 2 {
            continue;
        }
        s += (x * k as f64).sin();
        if s > 2.5 {
            break;
        }
    }
    s
}

#[test]
fn break_continue_and_return_are_traced() {
    for (x, n) in [(0.3, 10), (0.9, 25)] {
        let t = explain_partial_sums(x, n, 1.0);
        assert!(
            t.rows().iter().all(|r| !r.context.contains("__diffx")),
            "{t}"
        );
        // The terms of the iterations that ran: k = 2, 5, 8, … are skipped.
        let sines: Vec<&str> = t
            .rows()
            .iter()
            .filter(|r| r.expr.ends_with(".sin()"))
            .map(|r| r.context.as_str())
            .collect();
        assert!(
            sines
                .iter()
                .all(|c| !["k = 2", "k = 5", "k = 8"].contains(c)),
            "{t}"
        );
        assert_both_modes(
            &t,
            jvp_partial_sums(x, n, 1.0).1,
            &[grad_partial_sums(x, n)],
        );
    }
    for (x, limit) in [(-2.0, 3.0), (1.0, 5.0), (0.2, 40.0), (1e-9, 1e9)] {
        let t = explain_first_large(x, limit, 1.0, 0.5);
        let (gx, gl) = grad_first_large(x, limit);
        assert_both_modes(&t, jvp_first_large(x, limit, 1.0, 0.5).1, &[gx, gl]);
        assert_eq!(t.value("first_large"), Some(first_large(x, limit)));
    }
    // From 1 with limit 3: p = 1.5, 2.25, 3.375, and it returns.
    let t = explain_first_large(1.0, 3.0, 1.0, 0.0);
    let products = t.rows().iter().filter(|r| r.expr.ends_with("* 1.5"));
    assert_eq!(products.count(), 3, "{t}");
}

/// An element of a slice as a branch's value, in `f32`.
#[autodiff]
fn pick(x: &[f32], k: usize) -> f32 {
    if k > 0 {
        x[k]
    } else {
        x[0] * 2.0
    }
}

/// A loop over data whose items cannot be printed (`Vec`s), and a loop with nothing to record.
#[autodiff(wrt(x))]
fn rows_dot(x: f64, rows: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    let mut count = 0;
    for row in rows.iter() {
        s += row[0] * x;
        count += 1;
    }
    for _ in 0..2 {
        count -= 1;
    }
    s + count as f64
}

#[test]
fn odd_shapes() {
    let t = explain_pick(&[1.0, 2.0, 3.0], 2, &[0.0, 0.0, 1.0]);
    assert_eq!(t.rows().len(), 4, "the output is x[2] itself:\n{t}");
    let grad: Vec<f64> = grad_pick(&[1.0, 2.0, 3.0], 2)
        .iter()
        .map(|g| f64::from(*g))
        .collect();
    assert_both_modes(&t, 1.0, &grad);
    let t = explain_pick(&[1.0, 2.0, 3.0], 0, &[1.0, 0.0, 0.0]);
    assert_both_modes(&t, 2.0, &[2.0, 0.0, 0.0]);

    let rows = vec![vec![1.0, 5.0], vec![-2.0, 5.0]];
    let t = explain_rows_dot(0.5, &rows, 1.0);
    let contexts: Vec<&str> = t
        .rows()
        .iter()
        .filter(|r| r.role == Role::Operation)
        .map(|r| r.context.as_str())
        .collect();
    assert_eq!(
        contexts,
        [
            "iteration 1",
            "iteration 1",
            "iteration 2",
            "iteration 2",
            ""
        ],
        "{t}"
    );
    println!(
        "jvp {:?} vjp {:?} f {}",
        jvp_rows_dot(0.5, &rows, 1.0),
        value_and_grad_rows_dot(0.5, &rows),
        rows_dot(0.5, &rows)
    );
    println!("{}", t.wengert_list());
    assert_eq!(t.value("rows_dot"), Some(rows_dot(0.5, &rows)));
    assert_both_modes(&t, -1.0, &[grad_rows_dot(0.5, &rows)]);
}

/// A closure called twice: each call's parameter is a binding of its own inside the macro, shown
/// under the name the user gave it.
#[autodiff]
fn scaled_twice(x: f64) -> f64 {
    let c = |v: f64| {
        let w: f64 = v * 2.0;
        w
    };
    let k: f64 = 1.5;
    let k2: f64 = {
        let k: f64 = 2.0;
        k
    };
    c(k) * x + c(k2) * x * x
}

#[test]
fn bindings_show_the_names_the_user_gave_them() {
    let t = explain_scaled_twice(0.5, 1.0);
    let text = format!("{t}\n{}", t.wengert_list());
    assert!(!text.contains("diffx"), "{text}");
    assert!(
        text.contains("{ let v: f64 = k2; { let w: f64 = v * 2.0; w } } * x"),
        "{text}"
    );
    assert!(
        text.contains("k2 = const { let k : f64 = 2.0; k }"),
        "{text}"
    );
    // f = 3x + 4x²: at x = 0.5, 2.5, and 3 + 8x = 7.
    let (value, tangent) = jvp_scaled_twice(0.5, 1.0);
    assert_close(value, 2.5, "value");
    assert_close(tangent, 7.0, "tangent");
    assert_close(grad_scaled_twice(0.5), 7.0, "gradient");
}
