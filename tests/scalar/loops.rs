//! Loops in `#[autodiff]` functions: `for` over ranges, `while` with data-dependent trip counts,
//! variables overwritten in every iteration, branches inside loops, nested loops. Both modes against
//! derivatives worked out by hand (or by the implicit-function theorem) and finite differences.

use crate::common;

use common::{assert_close, check_binary, check_unary, close};
use diffx::autodiff;

#[path = "../common/loop_functions.rs"]
mod loop_functions;
use loop_functions::*;

/// The seed's power loop: x multiplied by itself n − 1 times.
#[autodiff]
fn power(x: f64, n: u32) -> f64 {
    let mut p = x;
    for _ in 1..n {
        p *= x;
    }
    p
}

#[test]
fn power_loop_for_n_1_to_8() {
    for n in 1..=8 {
        for x in [0.7_f64, -1.3, 2.0] {
            let d = n as f64 * x.powi(n as i32 - 1);
            assert_close(power(x, n), x.powi(n as i32), 1e-14, "value");
            assert_close(grad_power(x, n), d, 1e-13, &format!("reverse, n = {n}"));
            assert_close(
                jvp_power(x, n, 1.0).1,
                d,
                1e-13,
                &format!("forward, n = {n}"),
            );
            assert_close(vjp_power(x, n, 2.0), 2.0 * d, 1e-13, "vjp");
        }
    }
}

/// Heron's square root: iterate until converged (a trip count known only at run time).
#[autodiff]
fn heron(a: f64) -> f64 {
    let mut g = a;
    while (g * g - a).abs() > 1e-15 * a {
        g = 0.5 * (g + a / g);
    }
    g
}

#[test]
fn heron_derivative_is_one_over_two_sqrt() {
    for a in [0.5, 2.0, 9.0, 1e4] {
        check_unary(a, 0.5 / a.sqrt(), heron, grad_heron, jvp_heron, vjp_heron);
    }
}

/// The fixed point y = ½·cos y + p, by iteration with a data-dependent trip count.
#[autodiff]
fn fixed_point(p: f64) -> f64 {
    let mut y = p;
    let mut change = 1.0;
    while change > 1e-14 {
        let next = 0.5 * y.cos() + p;
        change = (next - y).abs();
        y = next;
    }
    y
}

#[test]
fn fixed_point_matches_the_implicit_function_theorem() {
    for p in [0.1, 1.0, 3.0] {
        let y = fixed_point(p);
        // F(y, p) = y − ½cos y − p = 0  ⇒  dy/dp = −F_p / F_y = 1 / (1 + ½ sin y).
        let d = 1.0 / (1.0 + 0.5 * y.sin());
        check_unary(
            p,
            d,
            fixed_point,
            grad_fixed_point,
            jvp_fixed_point,
            vjp_fixed_point,
        );
    }
}

#[test]
fn euler_simulation_against_finite_differences() {
    let f = |k: f64, x0: f64| spring(k, x0, 500);
    let fd = diffx::check::central_difference(|p| f(p[0], p[1]), &[4.0, 1.0]);
    let (gk, gx) = grad_spring(4.0, 1.0, 500);
    assert_close(gk, fd[0], 1e-6, "∂/∂k");
    assert_close(gx, fd[1], 1e-6, "∂/∂x0");
    let (_, t) = jvp_spring(4.0, 1.0, 500, 0.3, -0.7);
    assert_close(t, 0.3 * gk - 0.7 * gx, 1e-12, "forward along (0.3, −0.7)");
}

/// A branch inside a loop, and an integer counter carried along.
#[autodiff]
fn halving(x: f64, y: f64) -> f64 {
    let mut s = y;
    let mut count = 0;
    for i in 0..6 {
        if s > 1.0 {
            s *= 0.5;
            count += 1;
        } else {
            s = s * x + i as f64 * 0.1;
        }
    }
    s + count as f64
}

/// `halving` written out by hand: the same branches, with the derivatives carried along.
fn halving_by_hand(x: f64, y: f64) -> [f64; 2] {
    let (mut s, mut ds) = (y, [0.0, 1.0]);
    for i in 0..6 {
        if s > 1.0 {
            s *= 0.5;
            ds = [ds[0] * 0.5, ds[1] * 0.5];
        } else {
            ds = [ds[0] * x + s, ds[1] * x];
            s = s * x + i as f64 * 0.1;
        }
    }
    ds
}

#[test]
fn branches_inside_loops() {
    for p in [[1.5, 3.0], [0.8, 0.5], [2.0, 10.0], [-0.5, 2.5]] {
        check_binary(
            p,
            halving_by_hand(p[0], p[1]),
            halving,
            grad_halving,
            jvp_halving,
            vjp_halving,
        );
    }
}

/// Nested loops: Σᵢ Σⱼ (x·i + y·j)² over a grid.
#[autodiff]
fn grid(x: f64, y: f64, n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        let mut row = 0.0;
        for j in 0..n {
            let t = x * i as f64 + y * j as f64;
            row += t * t;
        }
        total += row;
    }
    total
}

#[test]
fn nested_loops() {
    let n = 5;
    let (x, y) = (0.3, -0.7);
    let (mut dx, mut dy) = (0.0, 0.0);
    for i in 0..n {
        for j in 0..n {
            let t = x * i as f64 + y * j as f64;
            dx += 2.0 * t * i as f64;
            dy += 2.0 * t * j as f64;
        }
    }
    fn g(x: f64, y: f64) -> f64 {
        grid(x, y, 5)
    }
    fn gg(x: f64, y: f64) -> (f64, f64) {
        grad_grid(x, y, 5)
    }
    fn jj(x: f64, y: f64, tx: f64, ty: f64) -> (f64, f64) {
        jvp_grid(x, y, 5, tx, ty)
    }
    fn vv(x: f64, y: f64, c: f64) -> (f64, f64) {
        vjp_grid(x, y, 5, c)
    }
    check_binary([x, y], [dx, dy], g, gg, jj, vv);
}

/// The hand-written spring gradient of `benches/loops.rs` agrees (the bench compares like with like).
#[test]
fn spring_gradient_matches_the_adjoint_recurrence() {
    let (gk, gx) = grad_spring(4.0, 1.0, 500);
    let (hk, hx) = spring_by_hand(4.0, 1.0, 500);
    assert_close(gk, hk, 1e-12, "∂/∂k");
    assert_close(gx, hx, 1e-12, "∂/∂x0");
}

/// Heron's method as `loop` with `break`.
#[autodiff]
fn heron_loop(a: f64) -> f64 {
    let mut g = a;
    loop {
        let next = 0.5 * (g + a / g);
        if (next - g).abs() <= 1e-15 * next {
            break;
        }
        g = next;
    }
    g
}

/// `continue` skips every third term; `break` stops at a threshold.
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

fn partial_sums_by_hand(x: f64, n: u32) -> f64 {
    let (mut s, mut d) = (0.0, 0.0);
    for k in 0..n {
        if k % 3 == 2 {
            continue;
        }
        s += (x * k as f64).sin();
        d += k as f64 * (x * k as f64).cos();
        if s > 2.5 {
            break;
        }
    }
    d
}

#[test]
fn loop_with_break() {
    for a in [0.5, 2.0, 10.0] {
        check_unary(
            a,
            0.5 / a.sqrt(),
            heron_loop,
            grad_heron_loop,
            jvp_heron_loop,
            vjp_heron_loop,
        );
    }
}

#[test]
fn continue_and_break_in_for() {
    for (x, n) in [(0.3, 10), (0.9, 25), (-0.4, 7)] {
        let d = partial_sums_by_hand(x, n);
        assert_close(grad_partial_sums(x, n), d, 1e-13, "reverse");
        assert_close(jvp_partial_sums(x, n, 1.0).1, d, 1e-13, "forward");
    }
}

#[test]
fn early_returns() {
    // x < 0: −x·limit.
    assert_eq!(grad_first_large(-2.0, 3.0), (-3.0, 2.0));
    assert_eq!(jvp_first_large(-2.0, 3.0, 1.0, 0.0).1, -3.0);
    // Returns from the loop after k steps: p = 1.5ᵏx, value √p·limit.
    for (x, limit) in [(1.0, 5.0), (0.2, 40.0)] {
        let fd = diffx::check::central_difference(|v| first_large(v[0], v[1]), &[x, limit]);
        let (gx, gl) = grad_first_large(x, limit);
        assert_close(gx, fd[0], 1e-6, "∂x");
        assert_close(gl, fd[1], 1e-6, "∂limit");
        assert_close(
            jvp_first_large(x, limit, 1.0, 0.0).1,
            gx,
            1e-12,
            "forward ∂x",
        );
    }
    // Never returns early: 1.5²⁰·x, derivative 1.5²⁰.
    assert_close(
        grad_first_large(1e-9, 1e9).0,
        1.5f64.powi(20),
        1e-12,
        "no early return",
    );
}

/// A loop bound that was reassigned before the loop: the loop runs to its new value.
#[autodiff]
fn power_by_reassigned_bound(x: f64) -> f64 {
    let mut n = 1;
    n += 1;
    let mut y = x;
    for _ in 0..n {
        y *= x;
    }
    y
}

#[test]
fn a_reassigned_loop_bound_is_read_at_its_new_value() {
    for x in [2.0, -0.5, 1.3] {
        assert_eq!(power_by_reassigned_bound(x), x * x * x);
        let want = 3.0 * x * x;
        assert!((grad_power_by_reassigned_bound(x) - want).abs() < 1e-12);
        let (value, tangent) = jvp_power_by_reassigned_bound(x, 1.0);
        assert!((value - x * x * x).abs() < 1e-12 && (tangent - want).abs() < 1e-12);
    }
}

/// `a` is not read after the loop, but each iteration adds it into `b`: b = x + x² + x³.
#[autodiff]
fn series(x: f64) -> f64 {
    let mut a = x;
    let mut b = 0.0;
    for _ in 0..3 {
        b += a;
        a *= x;
    }
    b
}

#[test]
fn a_cell_read_only_inside_the_loop_carries_its_adjoint() {
    for x in [-1.5, 0.5, 2.0] {
        let exact = 1.0 + 2.0 * x + 3.0 * x * x;
        assert!((grad_series(x) - exact).abs() < 1e-12, "grad at {x}");
        assert!((jvp_series(x, 1.0).1 - exact).abs() < 1e-12, "jvp at {x}");
    }
}

/// A cell whose final value is never used, feeding the result through another cell in later
/// iterations: its adjoint must still be carried back from iteration to iteration.
#[autodiff]
fn sines_of_a_geometric_sequence(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    let mut p = x;
    for _ in 0..3 {
        s += p.sin();
        p *= y;
    }
    s
}

#[test]
fn an_unused_cell_carries_its_adjoint_through_the_loop() {
    for (x, y) in [(0.4_f64, 0.2_f64), (1.3, -0.7), (-2.0, 1.1)] {
        // f = sin x + sin xy + sin xy²: ∂f/∂x = cos x + y cos xy + y² cos xy²,
        // ∂f/∂y = x cos xy + 2xy cos xy².
        let analytic = [
            x.cos() + y * (x * y).cos() + y * y * (x * y * y).cos(),
            x * (x * y).cos() + 2.0 * x * y * (x * y * y).cos(),
        ];
        check_binary(
            [x, y],
            analytic,
            sines_of_a_geometric_sequence,
            grad_sines_of_a_geometric_sequence,
            jvp_sines_of_a_geometric_sequence,
            vjp_sines_of_a_geometric_sequence,
        );
    }
}

/// `break 'outer` from an inner loop: the first row whose running product passes a bound.
#[autodiff]
fn first_big_row(x: &[f64], n: usize) -> f64 {
    let mut found = 0.0;
    let mut s = 1.0;
    'rows: for i in 0..n {
        let mut p = 1.0;
        for j in 0..n {
            p *= x[i * n + j];
            if p > 2.0 {
                found = p * s;
                break 'rows;
            }
        }
        s += p;
    }
    found + s
}

/// `continue 'outer` from an inner `while`, and a labelled `continue` to the loop it is in.
#[autodiff]
fn skip_rows(x: &[f64], n: usize) -> f64 {
    let mut total = 0.0;
    'outer: for i in 0..n {
        let mut j = 0;
        while j < n {
            let v = x[i * n + j];
            if v < 0.0 {
                continue 'outer;
            }
            total += v * v;
            j += 1;
        }
        total *= 0.5;
    }
    'again: for v in x.iter().take(n) {
        if *v > 1.0 {
            continue 'again;
        }
        total += v;
    }
    total
}

/// A `loop` used as a value: `break` with the value, from an arm (the UI test `break_with_value`
/// before), and a labelled `break 'search value` from a nested loop.
#[autodiff]
fn halve_until(x: f64, y: f64) -> f64 {
    let mut s = x;
    let last = loop {
        s *= 0.5;
        if s < 1.0 {
            break s * y;
        }
    };
    let mut k = 0.0;
    let found: f64 = 'search: loop {
        k += 1.0;
        for _ in 0..3 {
            k += 0.5;
            if k > 4.0 {
                break 'search k * last;
            }
        }
    };
    last * x + found
}

#[test]
fn labelled_loops_and_loop_values() {
    let grids = [
        vec![0.5, 1.5, 2.0, 0.9, 1.1, 3.0, 1.2, 0.8, 1.3],
        vec![0.5, 0.6, 0.7, 1.1, 1.9, 1.2, 2.5, 0.1, 1.0],
        vec![0.9, -0.5, 2.0, 1.5, 0.7, 0.3, -0.2, 1.4, 0.6],
    ];
    for x in &grids {
        for (f, g, j) in [
            (
                first_big_row as fn(&[f64], usize) -> f64,
                grad_first_big_row as fn(&[f64], usize) -> Vec<f64>,
                jvp_first_big_row as fn(&[f64], usize, &[f64]) -> (f64, f64),
            ),
            (skip_rows, grad_skip_rows, jvp_skip_rows),
        ] {
            let grad = g(x, 3);
            let fd = diffx::check::central_difference(|v: &[f64]| f(v, 3), x);
            for k in 0..x.len() {
                assert!(
                    close(grad[k], fd[k], 1e-6),
                    "∂{k}: {} vs {} at {x:?}",
                    grad[k],
                    fd[k]
                );
            }
            let mut t = vec![0.0; x.len()];
            t[4] = 1.0;
            let (v, d) = j(x, 3, &t);
            assert_eq!(v, f(x, 3));
            assert!(close(d, grad[4], 1e-12));
        }
    }
    for (x, y) in [(5.0, 0.5), (1.5, -2.0), (17.0, 3.0)] {
        let (gx, gy) = grad_halve_until(x, y);
        let fd = diffx::check::central_difference(|v: &[f64]| halve_until(v[0], v[1]), &[x, y]);
        assert!(
            close(gx, fd[0], 1e-6) && close(gy, fd[1], 1e-6),
            "({gx}, {gy}) vs {fd:?}"
        );
        assert_eq!(jvp_halve_until(x, y, 1.0, 0.0).0, halve_until(x, y));
        assert!(close(jvp_halve_until(x, y, 1.0, 0.0).1, gx, 1e-12));
    }
}

/// A `loop` assigned to a variable and one giving a function its value.
#[autodiff]
fn newton_sqrt(a: f64) -> f64 {
    let mut root = a;
    for _ in 0..2 {
        let mut x = root;
        let mut steps = 0;
        root = loop {
            let next = 0.5 * (x + a / x);
            steps += 1;
            if (next - x).abs() < 1e-12 || steps > 50 {
                break next;
            }
            x = next;
        };
    }
    let mut k = 0.0;
    loop {
        k += 1.0;
        if k >= 3.0 {
            break root * k;
        }
    }
}

#[test]
fn loops_assigned_and_returned() {
    for a in [2.0, 9.0, 0.3] {
        // 3·√a: ∂ = 3 / (2√a).
        assert!(close(newton_sqrt(a), 3.0 * a.sqrt(), 1e-12));
        assert!(
            close(grad_newton_sqrt(a), 1.5 / a.sqrt(), 1e-9),
            "{}",
            grad_newton_sqrt(a)
        );
        assert!(close(jvp_newton_sqrt(a, 1.0).1, grad_newton_sqrt(a), 1e-12));
    }
}

/// A tiny linear congruential generator: state changed by `&mut self`.
#[derive(Clone)]
struct Lcg(u64);

impl Lcg {
    fn next_unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Constants a loop body changes in place through methods (`stack.pop()`, `rng.next_unit()`,
/// an iterator's `next()`). SILENT before: the backward sweep recomputed each iteration from the
/// constants' final state (an empty stack, a generator run on), so `grad_` was 0 where `jvp_`
/// gave 6. Each such constant is now a loop cell, changed in a copy per iteration.
#[autodiff(wrt(x))]
fn consumed(x: f64, seeds: &[f64], n: usize) -> f64 {
    let mut stack = seeds.to_vec();
    let mut rng = Lcg(7);
    let mut steps = seeds.iter();
    let mut y = 0.0;
    for _ in 0..n {
        let r = stack.pop().unwrap_or(0.0);
        let u = rng.next_unit();
        if let Some(s) = steps.next() {
            y += s * x;
        }
        if u > 0.3 {
            y += r * x * x;
        } else {
            y += u * x;
        }
    }
    y
}

#[test]
fn constants_changed_in_place_in_loops() {
    let seeds = [1.0, 2.0, 3.0, -0.5];
    for n in [0, 1, 3, 5] {
        for x in [0.5, -1.25] {
            let g = grad_consumed(x, &seeds, n);
            let fd =
                diffx::check::central_difference(|v: &[f64]| consumed(v[0], &seeds, n), &[x])[0];
            assert!(close(g, fd, 1e-6), "n = {n}, x = {x}: {g} vs {fd}");
            let (v, t) = jvp_consumed(x, &seeds, n, 1.0);
            assert_eq!(v, consumed(x, &seeds, n));
            assert!(close(t, g, 1e-12));
        }
    }
}

/// A constant vector pushed onto in a loop whose condition reads it: SILENT before (the backward
/// sweep replayed the pushes on the final vector, so `idx.len() < 2` failed and the arm's adjoint
/// was skipped).
#[autodiff]
fn first_two_positive(x: &[f64]) -> f64 {
    let mut idx: Vec<usize> = Vec::new();
    let mut y = 0.0;
    for (i, &v) in x.iter().enumerate() {
        if idx.len() < 2 && v > 0.0 {
            idx.push(i);
            y += v * v;
        }
    }
    y + idx.len() as f64
}

#[test]
fn constant_vectors_pushed_in_loops() {
    let x = [-1.0, 0.5, 2.0, 3.0];
    assert_eq!(grad_first_two_positive(&x), vec![0.0, 1.0, 4.0, 0.0]);
    assert_eq!(jvp_first_two_positive(&x, &[0.0, 0.0, 1.0, 0.0]).1, 4.0);
}

/// A constant changed in place in an arm outside any loop (SILENT before: the backward sweep
/// recomputed the arm, popping a second element), and in a `match` arm.
#[autodiff]
fn popped_in_arm(x: f64, n: usize) -> f64 {
    let mut stack = vec![1.0, 2.0];
    let r = if x > 0.0 {
        let k = stack.pop().unwrap_or(0.0);
        k * x * x
    } else {
        x
    };
    let s = match n {
        0 => stack.pop().unwrap_or(5.0) * x,
        _ => x,
    };
    r + s + stack.len() as f64
}

#[test]
fn constants_changed_in_place_in_arms() {
    for (x, n) in [(0.5, 0), (0.5, 1), (-0.5, 0), (-0.5, 1)] {
        let g = grad_popped_in_arm(x, n);
        let fd = diffx::check::central_difference(|v: &[f64]| popped_in_arm(v[0], n), &[x])[0];
        assert!(close(g, fd, 1e-6), "x = {x}, n = {n}: {g} vs {fd}");
        assert!(close(jvp_popped_in_arm(x, n, 1.0).1, g, 1e-12));
    }
}
