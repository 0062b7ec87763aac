//! Ordinary Rust in `#[autodiff]` bodies (issue 13): iterator chains, local closures and
//! destructuring patterns, written as numeric crates write them. Each function is checked at
//! several points against its hand-derived gradient and central differences, forward mode against
//! reverse mode, and (where written) its Hessian against differences of the gradient.

#![allow(clippy::needless_range_loop)]

use diffx::autodiff;
use diffx::check::central_difference;

use crate::common;
use common::assert_close;

type Grad = fn(&[f64]) -> Vec<f64>;
type Jvp = fn(&[f64], &[f64]) -> (f64, f64);
type Vjp = fn(&[f64], f64) -> Vec<f64>;

/// Points of `n` elements, none at a kink of `max`, `filter` or `abs`.
fn points(n: usize) -> Vec<Vec<f64>> {
    (0..4)
        .map(|k| {
            (0..n)
                .map(|i| ((i * 7 + k * 3) as f64 * 0.61 + 0.3).sin() * 1.7 + 0.05 * i as f64)
                .collect()
        })
        .collect()
}

/// `grad` against `analytic` and central differences of `f`; `jvp` along two directions against
/// the gradient; `vjp` linear in its cotangent.
#[track_caller]
fn check(f: fn(&[f64]) -> f64, grad: Grad, jvp: Jvp, vjp: Vjp, analytic: Grad, n: usize) {
    for x in points(n) {
        let g = grad(&x);
        let want = analytic(&x);
        let fd = central_difference(f, &x);
        assert_eq!(g.len(), n);
        for i in 0..n {
            assert_close(g[i], want[i], 1e-12, &format!("∂{i} vs analytic at {x:?}"));
            assert_close(g[i], fd[i], 1e-6, &format!("∂{i} vs differences at {x:?}"));
        }
        for t in [
            (0..n).map(|i| (i as f64 * 1.3).cos()).collect::<Vec<_>>(),
            (0..n)
                .map(|i| if i % 2 == 0 { 1.0 } else { -0.5 })
                .collect(),
        ] {
            let (v, d) = jvp(&x, &t);
            assert_eq!(v, f(&x), "jvp value");
            let dot: f64 = g.iter().zip(&t).map(|(a, b)| a * b).sum();
            assert_close(d, dot, 1e-12, "jvp vs gradient");
        }
        let back = vjp(&x, -2.5);
        for i in 0..n {
            assert_close(back[i], -2.5 * g[i], 1e-13, "vjp linear");
        }
    }
}

/// `hessian` against central differences of `grad`.
#[track_caller]
fn check_hessian(grad: Grad, hessian: fn(&[f64]) -> Vec<Vec<f64>>, n: usize) {
    for x in points(n) {
        let h = hessian(&x);
        for i in 0..n {
            let row = central_difference(|v| grad(v)[i], &x);
            for j in 0..n {
                assert_close(h[i][j], row[j], 1e-5, &format!("H[{i}][{j}] at {x:?}"));
            }
        }
    }
}

#[autodiff(order = 2)]
fn sum_of_squares(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum()
}

#[test]
fn map_then_sum() {
    let analytic: Grad = |x| x.iter().map(|v| 2.0 * v).collect();
    check(
        sum_of_squares,
        grad_sum_of_squares,
        jvp_sum_of_squares,
        vjp_sum_of_squares,
        analytic,
        5,
    );
    check_hessian(grad_sum_of_squares, hessian_sum_of_squares, 5);
}

/// Rosenbrock as optimization crates write it: pairs of neighbours by `zip` and `skip`.
#[autodiff(order = 2)]
fn rosenbrock_chain(x: &[f64]) -> f64 {
    x.iter()
        .zip(x.iter().skip(1))
        .map(|(&a, &b)| 100.0 * (b - a * a).powi(2) + (1.0 - a).powi(2))
        .sum::<f64>()
}

fn rosenbrock_by_hand(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        let (a, b) = (x[i], x[i + 1]);
        g[i] += -400.0 * a * (b - a * a) - 2.0 * (1.0 - a);
        g[i + 1] += 200.0 * (b - a * a);
    }
    g
}

#[test]
fn zip_skip_map_sum() {
    check(
        rosenbrock_chain,
        grad_rosenbrock_chain,
        jvp_rosenbrock_chain,
        vjp_rosenbrock_chain,
        rosenbrock_by_hand,
        6,
    );
    check_hessian(grad_rosenbrock_chain, hessian_rosenbrock_chain, 4);
}

#[autodiff(order = 2)]
fn local_closures(x: &[f64]) -> f64 {
    let c = 2.0 * x[0];
    let sq = |a: f64| a * a;
    let lin = |a| c * a + 1.0;
    let both = |a: f64, b: f64| {
        let s = sq(a) + b;
        s * lin(b)
    };
    sq(x[1]) + both(x[1], x[2]) + lin(x[2])
}

fn local_closures_by_hand(x: &[f64]) -> Vec<f64> {
    // f = x1² + (x1² + x2)(2 x0 x2 + 1) + 2 x0 x2 + 1
    let (x0, x1, x2) = (x[0], x[1], x[2]);
    let s = x1 * x1 + x2;
    let l = 2.0 * x0 * x2 + 1.0;
    vec![
        s * 2.0 * x2 + 2.0 * x2,
        2.0 * x1 + 2.0 * x1 * l,
        l + s * 2.0 * x0 + 2.0 * x0,
    ]
}

#[test]
fn closures_bound_to_locals_capturing_and_nested() {
    check(
        local_closures,
        grad_local_closures,
        jvp_local_closures,
        vjp_local_closures,
        local_closures_by_hand,
        3,
    );
    check_hessian(grad_local_closures, hessian_local_closures, 3);
}

#[autodiff]
fn folds(x: &[f64]) -> f64 {
    let decayed = x.iter().fold(0.0, |acc, &v| acc * 0.5 + v * v);
    let top = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let bottom = x.iter().copied().fold(f64::INFINITY, f64::min);
    decayed + 3.0 * top - bottom
}

fn folds_by_hand(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut g: Vec<f64> = (0..n)
        .map(|i| 2.0 * x[i] * 0.5f64.powi((n - 1 - i) as i32))
        .collect();
    let top = (0..n).max_by(|&a, &b| x[a].total_cmp(&x[b])).unwrap();
    let bottom = (0..n).min_by(|&a, &b| x[a].total_cmp(&x[b])).unwrap();
    g[top] += 3.0;
    g[bottom] -= 1.0;
    g
}

#[test]
fn fold_with_a_closure_and_with_max_and_min() {
    check(folds, grad_folds, jvp_folds, vjp_folds, folds_by_hand, 5);
}

#[autodiff]
fn reductions(x: &[f64]) -> f64 {
    let hi = x
        .iter()
        .copied()
        .max_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap();
    let lo = x.iter().copied().min_by(|a, b| a.total_cmp(b)).unwrap();
    let prod = x.iter().copied().reduce(|a, b| a * b).expect("not empty");
    hi * lo + prod + x.iter().product::<f64>()
}

fn reductions_by_hand(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let hi = (0..n).max_by(|&a, &b| x[a].total_cmp(&x[b])).unwrap();
    let lo = (0..n).min_by(|&a, &b| x[a].total_cmp(&x[b])).unwrap();
    let mut g: Vec<f64> = (0..n)
        .map(|i| 2.0 * (0..n).filter(|&j| j != i).map(|j| x[j]).product::<f64>())
        .collect();
    g[hi] += x[lo];
    g[lo] += x[hi];
    g
}

#[test]
fn max_by_min_by_reduce_and_product() {
    check(
        reductions,
        grad_reductions,
        jvp_reductions,
        vjp_reductions,
        reductions_by_hand,
        4,
    );
}

#[test]
#[should_panic(expected = "called `Option::unwrap()` on a `None` value")]
fn max_by_of_nothing_panics_as_unwrap_does() {
    grad_reductions(&[]);
}

#[autodiff(order = 2)]
fn positions(x: &[f64]) -> f64 {
    let weighted: f64 = x
        .iter()
        .enumerate()
        .map(|(i, v)| (i as f64 + 1.0) * v)
        .sum();
    let mut tail = 0.0;
    for (i, &xi) in x.iter().enumerate().skip(1) {
        tail += xi * xi * i as f64;
    }
    let back: f64 = x.iter().rev().step_by(2).take(2).map(|v| v.sin()).sum();
    let ranged: f64 = (1..x.len()).map(|i| x[i] * x[i - 1]).sum();
    let sub: f64 = x[1..]
        .iter()
        .zip(&x[..x.len() - 1])
        .map(|(a, b)| a - b)
        .sum();
    weighted + tail + back + ranged + sub
}

fn positions_by_hand(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut g: Vec<f64> = (0..n)
        .map(|i| i as f64 + 1.0 + 2.0 * x[i] * i as f64)
        .collect();
    for i in (0..n).rev().step_by(2).take(2) {
        g[i] += x[i].cos();
    }
    for i in 1..n {
        g[i] += x[i - 1];
        g[i - 1] += x[i];
    }
    // Σ x[i] − x[i−1] telescopes to x[n−1] − x[0].
    g[n - 1] += 1.0;
    g[0] -= 1.0;
    g
}

#[test]
fn enumerate_skip_rev_step_by_take_and_ranges() {
    check(
        positions,
        grad_positions,
        jvp_positions,
        vjp_positions,
        positions_by_hand,
        6,
    );
    check_hessian(grad_positions, hessian_positions, 6);
}

/// Loops over reversed ranges: Horner's scheme over `(0..n - 1).rev()`, a reversed inclusive
/// range nested in a loop, and one that stops early.
#[autodiff(order = 2)]
fn reversed(x: &[f64]) -> f64 {
    let n = x.len();
    let mut horner = x[n - 1];
    for i in (0..n - 1).rev() {
        horner = x[i] + 0.7 * horner * x[0];
    }
    let mut acc = 0.0;
    for j in 0..n {
        let mut inner = x[j];
        for k in (1..=j).rev() {
            inner = inner * x[k - 1].sin() + 0.1 * k as f64;
        }
        acc += inner * x[j];
    }
    let mut stopped = 0.0;
    for i in (0..n).rev() {
        if stopped > 0.5 {
            break;
        }
        stopped += x[i] * x[i];
    }
    horner + acc + stopped
}

/// `reversed`'s gradient by hand, forward mode: each quantity carried with its gradient.
fn reversed_by_hand(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let unit = |i: usize| {
        (0..n)
            .map(|k| if k == i { 1.0 } else { 0.0 })
            .collect::<Vec<f64>>()
    };
    let (mut h, mut dh) = (x[n - 1], unit(n - 1));
    for i in (0..n - 1).rev() {
        let (e0, ei) = (unit(0), unit(i));
        dh = (0..n)
            .map(|k| ei[k] + 0.7 * (dh[k] * x[0] + h * e0[k]))
            .collect();
        h = x[i] + 0.7 * h * x[0];
    }
    let mut g = dh;
    for j in 0..n {
        let (mut v, mut dv) = (x[j], unit(j));
        for k in (1..=j).rev() {
            let s = x[k - 1].sin();
            dv = (0..n)
                .map(|m| dv[m] * s + if m == k - 1 { v * x[k - 1].cos() } else { 0.0 })
                .collect();
            v = v * s + 0.1 * k as f64;
        }
        for m in 0..n {
            g[m] += dv[m] * x[j] + if m == j { v } else { 0.0 };
        }
    }
    let mut stopped = 0.0;
    for i in (0..n).rev() {
        if stopped > 0.5 {
            break;
        }
        stopped += x[i] * x[i];
        g[i] += 2.0 * x[i];
    }
    g
}

#[test]
fn reversed_ranges() {
    check(
        reversed,
        grad_reversed,
        jvp_reversed,
        vjp_reversed,
        reversed_by_hand,
        5,
    );
    check_hessian(grad_reversed, hessian_reversed, 5);
}

/// `filter` decides on differentiable values; it is not differentiated.
#[autodiff]
fn filtered(x: &[f64]) -> f64 {
    let big = x.iter().filter(|v| **v > 0.5).count() as f64;
    let pos: f64 = x.iter().filter(|&&v| v > 0.0).map(|v| v.exp()).sum();
    let mut ranked = 0.0;
    for (rank, v) in x.iter().filter(|v| v.abs() < 1.0).enumerate().take(2) {
        ranked += (rank as f64 + 1.0) * v;
    }
    big * x[0] + pos + ranked
}

fn filtered_by_hand(x: &[f64]) -> Vec<f64> {
    let big = x.iter().filter(|v| **v > 0.5).count() as f64;
    let mut g: Vec<f64> = x
        .iter()
        .map(|&v| if v > 0.0 { v.exp() } else { 0.0 })
        .collect();
    g[0] += big;
    let small: Vec<usize> = (0..x.len()).filter(|&i| x[i].abs() < 1.0).take(2).collect();
    for (rank, &i) in small.iter().enumerate() {
        g[i] += rank as f64 + 1.0;
    }
    g
}

#[test]
fn filter_count_and_enumerate_after_filter() {
    check(
        filtered,
        grad_filtered,
        jvp_filtered,
        vjp_filtered,
        filtered_by_hand,
        6,
    );
}

#[autodiff]
fn collected(x: &[f64]) -> f64 {
    let doubled: Vec<f64> = x.iter().map(|a| a * 2.0).collect();
    let shifted = x.iter().skip(1).map(|a| a - x[0]).collect::<Vec<f64>>();
    doubled[1] * shifted[0] + doubled.iter().map(|d| d * d).sum::<f64>()
}

fn collected_by_hand(x: &[f64]) -> Vec<f64> {
    // 2 x1 (x1 − x0) + Σ 4 xi²
    let mut g: Vec<f64> = x.iter().map(|v| 8.0 * v).collect();
    g[0] -= 2.0 * x[1];
    g[1] += 4.0 * x[1] - 2.0 * x[0];
    g
}

#[test]
fn collect_into_a_vec() {
    check(
        collected,
        grad_collected,
        jvp_collected,
        vjp_collected,
        collected_by_hand,
        4,
    );
}

#[autodiff(order = 2)]
fn destructured(p: &[f64]) -> f64 {
    let [x1, x2, x3] = [p[0], p[1], p[2]];
    let (a, b) = (x1 * x3, x2);
    let (a, b) = (b, a);
    let &first = &p[0];
    let (_, c) = (x1, x2 * x2);
    a * 3.0 + b + first * c
}

fn destructured_by_hand(p: &[f64]) -> Vec<f64> {
    // 3 x2 + x1 x3 + x1 x2²
    vec![p[2] + p[1] * p[1], 3.0 + 2.0 * p[0] * p[1], p[0]]
}

#[test]
fn tuple_array_reference_and_wildcard_patterns() {
    check(
        destructured,
        grad_destructured,
        jvp_destructured,
        vjp_destructured,
        destructured_by_hand,
        3,
    );
    check_hessian(grad_destructured, hessian_destructured, 3);
}

#[autodiff]
fn beale(param: &[f64; 2]) -> f64 {
    let [x1, x2] = *param;
    (1.5 - x1 + x1 * x2).powi(2)
        + (2.25 - x1 + x1 * x2.powi(2)).powi(2)
        + (2.625 - x1 + x1 * x2.powi(3)).powi(2)
}

#[test]
fn array_parameter_destructured_by_deref() {
    for p in [[1.0, 0.5], [3.0, 0.5], [-0.7, 1.3]] {
        let [x, y] = p;
        let t = [
            1.5 - x + x * y,
            2.25 - x + x * y * y,
            2.625 - x + x * y * y * y,
        ];
        let want = [
            2.0 * t[0] * (y - 1.0) + 2.0 * t[1] * (y * y - 1.0) + 2.0 * t[2] * (y * y * y - 1.0),
            2.0 * t[0] * x + 2.0 * t[1] * 2.0 * x * y + 2.0 * t[2] * 3.0 * x * y * y,
        ];
        let g = grad_beale(&p);
        let (_, d) = jvp_beale(&p, &[0.3, -1.0]);
        for i in 0..2 {
            assert_close(g[i], want[i], 1e-12, "beale gradient");
        }
        assert_close(d, 0.3 * want[0] - want[1], 1e-12, "beale jvp");
    }
}

#[autodiff]
fn zipped_loop(x: &[f64], y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (a, b) in x.iter().zip(y.iter()) {
        s += a * b;
    }
    for (&a, b) in x.iter().zip(y) {
        s += a * a * b;
    }
    s
}

#[test]
fn for_over_zip_with_two_slices() {
    let (x, y) = ([0.5, -1.0, 2.0], [1.5, 0.25, -0.75]);
    let (gx, gy) = grad_zipped_loop(&x, &y);
    for i in 0..3 {
        assert_close(gx[i], y[i] + 2.0 * x[i] * y[i], 1e-12, "∂x");
        assert_close(gy[i], x[i] + x[i] * x[i], 1e-12, "∂y");
    }
    let (_, d) = jvp_zipped_loop(&x, &y, &[1.0, 0.0, 0.0], &[0.0, 0.0, 1.0]);
    assert_close(d, gx[0] + gy[2], 1e-12, "jvp");
}

#[derive(Clone, Copy, PartialEq)]
pub enum Act {
    Tanh,
    Relu,
    Id,
}

/// An enum matched in the body is a constant parameter without `wrt`: the gradient is `x`'s alone.
#[autodiff]
fn activate(x: f64, act: Act) -> f64 {
    match act {
        Act::Tanh => x.tanh(),
        Act::Relu => diffx::relu(x),
        Act::Id => x,
    }
}

/// So is one compared with `==`, behind a reference, beside a `bool` and a `&str`.
#[autodiff]
fn configured(x: f64, act: &Act, flag: bool, name: &str) -> f64 {
    let k = if *act == Act::Id { 2.0 } else { 3.0 };
    if flag && name.len() > 2 {
        k * x * x
    } else {
        x
    }
}

#[test]
fn enums_bools_and_strs_are_constants() {
    for x in [-0.7, 0.5, 1.3] {
        assert_close(
            grad_activate(x, Act::Tanh),
            1.0 - x.tanh().powi(2),
            1e-14,
            "tanh",
        );
        assert_eq!(grad_activate(x, Act::Relu), if x > 0.0 { 1.0 } else { 0.0 });
        assert_eq!(jvp_activate(x, Act::Id, 2.0), (x, 2.0));
        assert_close(
            grad_configured(x, &Act::Id, true, "abc"),
            4.0 * x,
            1e-14,
            "Id",
        );
        assert_close(
            grad_configured(x, &Act::Tanh, true, "abc"),
            6.0 * x,
            1e-14,
            "Tanh",
        );
        assert_eq!(grad_configured(x, &Act::Id, false, "abc"), 1.0);
    }
}

pub struct Spring {
    k: f64,
    rest: f64,
}

impl Spring {
    /// A method: `self` is a constant, the derivatives are methods with the same receiver.
    #[autodiff]
    fn energy(&self, x: f64) -> f64 {
        0.5 * self.k * (x - self.rest).powi(2)
    }

    #[autodiff(order = 2)]
    pub fn chain_energy(&self, p: &[f64]) -> f64 {
        p.iter()
            .zip(p.iter().skip(1))
            .map(|(a, b)| self.k * (b - a - self.rest).powi(2))
            .sum()
    }
}

#[test]
fn methods_with_a_receiver() {
    let s = Spring { k: 3.0, rest: 0.5 };
    for x in [-1.0, 0.25, 1.5] {
        assert_close(s.grad_energy(x), 3.0 * (x - 0.5), 1e-14, "grad_energy");
        assert_eq!(s.jvp_energy(x, 2.0).1, 2.0 * s.grad_energy(x));
        assert_eq!(s.value_and_grad_energy(x).0, s.energy(x));
    }
    let p = [0.3, 1.1, 0.9];
    let g = s.grad_chain_energy(&p);
    let d = [1.1 - 0.3 - 0.5, 0.9 - 1.1 - 0.5];
    let want = [-6.0 * d[0], 6.0 * d[0] - 6.0 * d[1], 6.0 * d[1]];
    for i in 0..3 {
        assert_close(g[i], want[i], 1e-12, "grad_chain_energy");
    }
    let h = s.hessian_chain_energy(&p);
    assert_eq!(
        h,
        vec![
            vec![6.0, -6.0, 0.0],
            vec![-6.0, 12.0, -6.0],
            vec![0.0, -6.0, 6.0]
        ]
    );
}

/// A chain over an array written in place (its source read as one operand) and over a local.
#[autodiff]
fn over_a_sum(x: &[f64]) -> f64 {
    let s = [x[0] + x[1], x[1] + x[0] * 3.0];
    let t: f64 = [x[0] + x[1], x[1] + x[0] * 3.0].iter().map(|v| v * v).sum();
    s.iter().map(|v| v * v).sum::<f64>() + t
}

#[test]
fn chain_over_a_local_array() {
    let x = [0.5, -1.25];
    // twice (x0 + x1)² + (x1 + 3 x0)²
    let (p, q) = (x[0] + x[1], x[1] + 3.0 * x[0]);
    let g = grad_over_a_sum(&x);
    assert_close(g[0], 2.0 * (2.0 * p + 6.0 * q), 1e-14, "∂0");
    assert_close(g[1], 2.0 * (2.0 * p + 2.0 * q), 1e-14, "∂1");
}

/// Neighbours by `windows`, blocks by `chunks` (the last one shorter), and a nested chain over a
/// window; also in a `for`.
#[autodiff(order = 2)]
fn windowed(x: &[f64]) -> f64 {
    let pairs: f64 = x.windows(2).map(|w| w[0] * w[1]).sum();
    let blocks = x
        .chunks(3)
        .map(|c| c.iter().map(|v| v * v).sum::<f64>().sqrt())
        .fold(0.0, |acc, n| acc + n);
    let mut s = 0.0;
    for w in x.windows(3) {
        s += w[0] - 2.0 * w[1] + w[2].sin();
    }
    pairs + blocks + s
}

fn windowed_by_hand(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut g = vec![0.0; n];
    for i in 0..n - 1 {
        g[i] += x[i + 1];
        g[i + 1] += x[i];
    }
    for start in (0..n).step_by(3) {
        let end = (start + 3).min(n);
        let norm = x[start..end].iter().map(|v| v * v).sum::<f64>().sqrt();
        for j in start..end {
            g[j] += x[j] / norm;
        }
    }
    for i in 0..n.saturating_sub(2) {
        g[i] += 1.0;
        g[i + 1] -= 2.0;
        g[i + 2] += x[i + 2].cos();
    }
    g
}

#[test]
fn windows_and_chunks() {
    check(
        windowed,
        grad_windowed,
        jvp_windowed,
        vjp_windowed,
        windowed_by_hand,
        7,
    );
    check_hessian(grad_windowed, hessian_windowed, 5);
}

#[test]
#[should_panic(expected = "window size must be non-zero")]
fn a_window_of_zero_panics_as_windows_does() {
    grad_sized(&[1.0, 2.0], 0);
}

#[autodiff]
fn sized(x: &[f64], k: usize) -> f64 {
    x.windows(k).map(|w| w[0]).sum()
}

/// Rest patterns: first and last of an array, the rest as a subslice, tuples with `..`.
#[autodiff(order = 2)]
fn rests(x: &[f64; 4]) -> f64 {
    let [first, .., last] = *x;
    let [_, middle @ .., _] = *x;
    let inner: f64 = middle.iter().map(|v| v * v).sum();
    let (p, ..) = (first * last, inner);
    let (.., q) = (p, inner.sqrt(), first.sin());
    p + inner + q
}

#[test]
fn rest_patterns_in_arrays_and_tuples() {
    let x = [0.3, -1.2, 0.8, 2.0];
    let g = grad_rests(&x);
    let want = [x[3] + x[0].cos(), 2.0 * x[1], 2.0 * x[2], x[0]];
    let fd = central_difference(|v| rests(&[v[0], v[1], v[2], v[3]]), &x);
    for i in 0..4 {
        assert_close(g[i], want[i], 1e-14, "grad vs analytic");
        assert_close(g[i], fd[i], 1e-6, "grad vs differences");
    }
    let (_, d) = jvp_rests(&x, &[1.0, 0.0, 0.0, 0.0]);
    assert_close(d, want[0], 1e-14, "jvp vs analytic");
    let h = hessian_rests(&x);
    assert_close(h[0][3], 1.0, 1e-14, "∂x0∂x3");
    assert_close(h[0][0], -x[0].sin(), 1e-14, "∂x0²");
    assert_close(h[1][1], 2.0, 1e-14, "∂x1²");
}

/// Values decided in arms: `let name;` assigned in each arm, and tuples and arrays bound from an
/// `if` or a `match` whose arms end in them (a swap among them).
#[autodiff(order = 2)]
fn decided_in_arms(x: &[f64], k: usize) -> f64 {
    let (a, b) = (x[0], x[1]);
    let scale: f64;
    let shift;
    if a > b {
        scale = a * b;
        shift = b.sin();
    } else {
        scale = b;
        shift = a * a;
    }
    let (a, b) = if a * b > 0.0 { (b, a) } else { (a, b * 2.0) };
    let [u, v] = match k {
        0 => [a * a, b],
        _ => {
            let t = a + b;
            [t.exp(), t * b]
        }
    };
    scale * shift + u + v
}

fn decided_in_arms_by_hand(x: &[f64], k: usize) -> Vec<f64> {
    let (x0, x1) = (x[0], x[1]);
    // scale·shift and its partials.
    let (d0, d1) = if x0 > x1 {
        (x1 * x1.sin(), x0 * x1.sin() + x0 * x1 * x1.cos())
    } else {
        (x1 * 2.0 * x0, x0 * x0)
    };
    // (a, b) after the swap, as functions of (x0, x1): their partials.
    let ((a, da), (b, db)) = if x0 * x1 > 0.0 {
        ((x1, [0.0, 1.0]), (x0, [1.0, 0.0]))
    } else {
        ((x0, [1.0, 0.0]), (2.0 * x1, [0.0, 2.0]))
    };
    let (du_da, du_db, dv_da, dv_db) = match k {
        0 => (2.0 * a, 0.0, 0.0, 1.0),
        _ => {
            let t = a + b;
            (t.exp(), t.exp(), b, t + b)
        }
    };
    (0..2)
        .map(|i| {
            let d = [d0, d1][i];
            d + (du_da + dv_da) * da[i] + (du_db + dv_db) * db[i]
        })
        .collect()
}

#[test]
fn values_decided_in_arms() {
    for k in [0, 1] {
        for x in [[0.7, -0.4], [-0.3, -1.1], [0.2, 0.9], [1.4, 0.6]] {
            let g = grad_decided_in_arms(&x, k);
            let want = decided_in_arms_by_hand(&x, k);
            let fd = central_difference(|v| decided_in_arms(v, k), &x);
            for i in 0..2 {
                assert_close(g[i], want[i], 1e-13, &format!("∂{i} vs analytic, k = {k}"));
                assert_close(g[i], fd[i], 1e-6, &format!("∂{i} vs differences, k = {k}"));
            }
            let (_, d) = jvp_decided_in_arms(&x, k, &[1.0, 0.0]);
            assert_close(d, g[0], 1e-13, "jvp vs grad");
            let h = hessian_decided_in_arms(&x, k);
            for i in 0..2 {
                let row = central_difference(|v| grad_decided_in_arms(v, k)[i], &x);
                for j in 0..2 {
                    assert_close(h[i][j], row[j], 1e-5, "hessian vs differences of grad");
                }
            }
        }
    }
}

/// `collect` after `filter`: the kept values, squared and weighted by their position among them.
#[autodiff(order = 2)]
fn kept(x: &[f64]) -> f64 {
    let big: Vec<f64> = x.iter().filter(|v| v.abs() > 0.5).map(|v| v * v).collect();
    let mut s = 0.0;
    for (i, b) in big.iter().enumerate() {
        s += (i as f64 + 1.0) * b;
    }
    s + big.len() as f64
}

fn kept_by_hand(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    let mut i = 0.0;
    for (j, v) in x.iter().enumerate() {
        if v.abs() > 0.5 {
            i += 1.0;
            g[j] = 2.0 * i * v;
        }
    }
    g
}

#[test]
fn collect_after_filter() {
    check(kept, grad_kept, jvp_kept, vjp_kept, kept_by_hand, 6);
    check_hessian(grad_kept, hessian_kept, 6);
}

/// `zip` after `filter`: the k-th element that passed pairs with the other's k-th.
#[autodiff]
fn zip_after_filter(x: &[f64], y: &[f64]) -> f64 {
    x.iter()
        .filter(|v| **v > 0.0)
        .zip(y.iter())
        .map(|(a, b)| a * b.sin())
        .sum()
}

/// `step_by` after `filter`: every other element that passed.
#[autodiff]
fn stride_after_filter(x: &[f64]) -> f64 {
    x.iter()
        .filter(|v| **v > 0.0)
        .step_by(2)
        .map(|v| v * v.exp())
        .sum::<f64>()
}

#[test]
fn zip_and_step_by_after_filter() {
    let x: [f64; 6] = [0.5, -1.0, 2.0, 3.0, -0.5, 1.5];
    let y: [f64; 3] = [1.0, 2.0, -3.0];
    // The same chains without the attribute.
    let plain_zip: f64 = x
        .iter()
        .filter(|v| **v > 0.0)
        .zip(y.iter())
        .map(|(a, b)| a * b.sin())
        .sum();
    let plain_stride: f64 = x
        .iter()
        .filter(|v| **v > 0.0)
        .step_by(2)
        .map(|v| v * v.exp())
        .sum();
    assert_eq!(zip_after_filter(&x, &y), plain_zip);
    assert_eq!(stride_after_filter(&x), plain_stride);
    let (gx, gy) = grad_zip_after_filter(&x, &y);
    // Pairs (0.5, 1), (2, 2), (3, −3); 1.5 has no partner.
    assert_eq!(
        gx,
        vec![1f64.sin(), 0.0, 2f64.sin(), (-3f64).sin(), 0.0, 0.0]
    );
    assert_eq!(
        gy,
        vec![0.5 * 1f64.cos(), 2.0 * 2f64.cos(), 3.0 * (-3f64).cos()]
    );
    let g = grad_stride_after_filter(&x);
    let d = |v: f64| (1.0 + v) * v.exp();
    assert_eq!(g, vec![d(0.5), 0.0, 0.0, d(3.0), 0.0, 0.0]);
    let fd = central_difference(
        |v| zip_after_filter(&v[..6], &v[6..]),
        &[x.as_slice(), &y].concat(),
    );
    for (a, b) in gx.iter().chain(&gy).zip(&fd) {
        assert_close(*a, *b, 1e-7, "zip after filter");
    }
    let (_, t) = jvp_stride_after_filter(&x, &[1.0; 6]);
    assert_close(t, g.iter().sum(), 1e-12, "jvp");
}

/// Loops over a local vector's elements: `for &y in &v`, `v.iter()`, `.iter().enumerate()` over a
/// `Vec` collected from a chain, over a local array, an array written in place and a call's array
/// (lowered by position, as chains are).
#[autodiff]
fn over_locals(x: &[f64]) -> f64 {
    let v: Vec<f64> = x.iter().map(|xi| xi * 0.5).collect();
    let a = [x[0] * x[1], x[1] + 1.0];
    let mut s = 0.0;
    for &y in &v {
        s += y.sin();
    }
    for y in a.iter() {
        s += y * y;
    }
    for (i, y) in v.iter().enumerate() {
        s += y * (i as f64);
    }
    for y in [x[0], 2.0 * x[2]] {
        s += y * y;
    }
    for y in pair(x[3]) {
        s += y * x[0];
    }
    s
}

#[autodiff]
fn pair(t: f64) -> [f64; 2] {
    [t, t * t]
}

#[test]
fn loops_over_local_vectors() {
    // Σ sin(xᵢ/2) + (x₀x₁)² + (x₁ + 1)² + Σ i·xᵢ/2 + x₀² + 4x₂² + (x₃ + x₃²)·x₀.
    let analytic: Grad = |x| {
        (0..x.len())
            .map(|i| {
                let mut g = 0.5 * (0.5 * x[i]).cos() + 0.5 * i as f64;
                match i {
                    0 => g += 2.0 * x[0] * x[1] * x[1] + 2.0 * x[0] + x[3] + x[3] * x[3],
                    1 => g += 2.0 * x[0] * x[0] * x[1] + 2.0 * (x[1] + 1.0),
                    2 => g += 8.0 * x[2],
                    _ => g += (1.0 + 2.0 * x[3]) * x[0],
                }
                g
            })
            .collect()
    };
    check(
        over_locals,
        grad_over_locals,
        jvp_over_locals,
        vjp_over_locals,
        analytic,
        4,
    );
}

/// `*e` of a local vector's element by reference, in a condition and in an `if` value kept as a
/// constant (the tester's s9999-f155: it read `*` of the number the element was bound to).
#[autodiff]
fn derefs_of_local_elements(x: &[f64]) -> f64 {
    let v = [-0.5 * x[0], x[1]];
    let mut s = 0.0;
    for e in v.iter() {
        if *e <= 0.7 {
            s += *e * 2.0;
        }
        let t = if (if v[0] <= x[2] { *e } else { v[0] }) <= 0.7 {
            *e
        } else {
            v[0]
        };
        s += t;
    }
    s
}

#[test]
fn local_elements_read_by_reference() {
    for x in [[0.3, 0.2, 0.9], [-0.8, 1.1, -0.4], [0.6, -0.3, 0.1]] {
        let g = grad_derefs_of_local_elements(&x);
        let fd = central_difference(derefs_of_local_elements, &x);
        for i in 0..3 {
            assert_close(g[i], fd[i], 1e-6, &format!("∂{i} at {x:?}"));
        }
        let (_, t) = jvp_derefs_of_local_elements(&x, &[1.0, 0.0, 0.0]);
        assert_close(t, g[0], 1e-12, "jvp");
    }
}

/// `to_vec()` of an array written in place and of the slice parameter, then written.
#[autodiff]
fn copies_by_to_vec(x: &[f64]) -> f64 {
    let v: Vec<f64> = [-0.5 * x[0], x[1]].to_vec();
    let mut w = x.to_vec();
    w[0] *= 3.0;
    v[0] * v[1] + w[0] + w[1] * w[1]
}

#[test]
fn to_vec_copies() {
    // −x₀x₁/2 + 3x₀ + x₁² (+ nothing from the rest).
    let analytic: Grad = |x| {
        let mut g = vec![0.0; x.len()];
        g[0] = -0.5 * x[1] + 3.0;
        g[1] = -0.5 * x[0] + 2.0 * x[1];
        g
    };
    check(
        copies_by_to_vec,
        grad_copies_by_to_vec,
        jvp_copies_by_to_vec,
        vjp_copies_by_to_vec,
        analytic,
        3,
    );
}

/// Vectors built the ways numeric code builds them: `[x; 3]`, `vec![x; 4]`, `vec![x; n]` of a
/// count known at run time, `extend_from_slice` and `extend` with a chain, then read by chains.
#[autodiff]
fn built_vectors(x: &[f64]) -> f64 {
    let a = [x[0]; 3];
    #[allow(clippy::useless_vec)] // (the form under test)
    let b = vec![x[1] * 2.0; 4];
    let mut c = vec![x[2]; x.len()];
    c[0] *= x[0];
    let mut v = Vec::new();
    v.extend_from_slice(x);
    v.extend(x.iter().map(|t| t * t));
    v.push(a[0] * a[2]);
    v.iter().sum::<f64>() + b[3] + c.iter().sum::<f64>()
}

#[test]
fn vectors_built_by_repeat_and_extend() {
    // Σx + Σx² + x₀² + 2x₁ + x₂x₀ + (n − 1)x₂, n = 3.
    let analytic: Grad = |x| {
        vec![
            1.0 + 2.0 * x[0] + 2.0 * x[0] + x[2],
            1.0 + 2.0 * x[1] + 2.0,
            1.0 + 2.0 * x[2] + x[0] + 2.0,
        ]
    };
    check(
        built_vectors,
        grad_built_vectors,
        jvp_built_vectors,
        vjp_built_vectors,
        analytic,
        3,
    );
}

/// A loop over a local array of constants written in place (the tester's s10202-f238: lowering
/// keeps such an array as a vector, and refused the loop over it).
#[autodiff]
fn over_written_constants(x: &[f64]) -> f64 {
    let mut arr = [0.5, 1.0, 2.0];
    arr[x.len() % 3] = arr[0] * 3.0;
    let mut s = 0.0;
    for e in arr.iter() {
        s += e * x[0];
    }
    s * x[1]
}

#[test]
fn loops_over_local_constants() {
    // arr = [1.5, 1.0, 2.0] for n = 3: s = 4.5·x₀, result 4.5·x₀·x₁.
    let analytic: Grad = |x| vec![4.5 * x[1], 4.5 * x[0], 0.0];
    check(
        over_written_constants,
        grad_over_written_constants,
        jvp_over_written_constants,
        vjp_over_written_constants,
        analytic,
        3,
    );
}

/// A state copied from an array parameter and replaced whole in a loop (`let mut s = s0;`): the
/// copy is a vector of its own ("a differentiable parameter cannot be written through" before).
#[autodiff]
fn damped(s0: [f64; 2], k: f64) -> f64 {
    let mut s = s0;
    for _ in 0..4 {
        s = [s[0] + 0.1 * s[1], s[1] - 0.1 * k * s[0]];
    }
    s[0] * s0[1] + s[1]
}

/// A `Vec` taken by value, then written element by element.
#[autodiff]
fn rescaled(v: Vec<f64>, c: f64) -> f64 {
    let mut w = v;
    for i in 0..w.len() {
        w[i] = w[i] * c + 1.0;
    }
    w[0] * w[1] * w[2]
}

#[test]
fn parameters_copied_into_written_locals() {
    let f = |p: &[f64]| damped([p[0], p[1]], p[2]);
    let g = |p: &[f64]| rescaled(p[..3].to_vec(), p[3]);
    for x in points(4) {
        let (gs, gk) = grad_damped([x[0], x[1]], x[2]);
        let fd = central_difference(f, &x[..3]);
        for (i, gi) in [gs[0], gs[1], gk].iter().enumerate() {
            assert_close(*gi, fd[i], 1e-6, &format!("∂damped/∂{i} at {x:?}"));
        }
        let (_, dy) = jvp_damped([x[0], x[1]], x[2], [0.3, -0.7], 0.5);
        assert_close(
            dy,
            0.3 * gs[0] - 0.7 * gs[1] + 0.5 * gk,
            1e-12,
            "jvp_damped",
        );
        let (gv, gc) = grad_rescaled(x[..3].to_vec(), x[3]);
        let fd = central_difference(g, &x);
        for (i, gi) in gv.iter().chain([&gc]).enumerate() {
            assert_close(*gi, fd[i], 1e-6, &format!("∂rescaled/∂{i} at {x:?}"));
        }
        // ∂/∂v₀ = c·w₁·w₂ with w = c·v + 1.
        let w: Vec<f64> = x[..3].iter().map(|v| v * x[3] + 1.0).collect();
        assert_close(gv[0], x[3] * w[1] * w[2], 1e-12, "analytic ∂v₀");
        let (_, dy) = jvp_rescaled(x[..3].to_vec(), x[3], vec![1.0, 0.0, 0.0], 0.0);
        assert_close(dy, gv[0], 1e-12, "jvp_rescaled");
    }
}

/// `mut` parameters, written and pushed onto as locals (UI test `push_onto_parameter` before).
#[autodiff]
fn appended(x: f64, mut v: Vec<f64>) -> f64 {
    v.push(x * x);
    v[0] *= x;
    v[0] + v[v.len() - 1] * v[1]
}

#[autodiff]
fn shifted(mut s: [f64; 2], k: f64) -> f64 {
    for _ in 0..3 {
        s = [s[1] * k, s[0] - s[1]];
    }
    s[0] * s[1]
}

#[test]
fn mutable_parameters_are_locals() {
    for x in points(4) {
        let v = x[1..].to_vec();
        // v₀x + x²·v₁
        let (gx, gv) = grad_appended(x[0], v.clone());
        assert_close(gx, v[0] + 2.0 * x[0] * v[1], 1e-12, "∂x");
        assert_close(gv[0], x[0], 1e-12, "∂v₀");
        assert_close(gv[1], x[0] * x[0], 1e-12, "∂v₁");
        assert_close(gv[2], 0.0, 1e-12, "∂v₂");
        let (_, dy) = jvp_appended(x[0], v.clone(), 1.0, vec![0.0; 3]);
        assert_close(dy, gx, 1e-12, "jvp_appended");
        let f = |p: &[f64]| shifted([p[0], p[1]], p[2]);
        let (gs, gk) = grad_shifted([x[0], x[1]], x[2]);
        let fd = central_difference(f, &x[..3]);
        for (i, gi) in [gs[0], gs[1], gk].iter().enumerate() {
            assert_close(*gi, fd[i], 1e-6, &format!("∂shifted/∂{i} at {x:?}"));
        }
    }
}

/// `*e` of a local vector's element in kept code (`assert!`), in a loop with a `break`: the
/// element was bound under its own name and lost its reference (the tester's labelled-jump run).
#[autodiff(order = 3)]
fn deref_in_assert(w: &[f64], y: f64) -> f64 {
    let v = [y, y * y];
    let mut s = 0.0;
    for &wi in w {
        for e in v.iter() {
            if wi > 1.5 {
                break;
            } else {
                assert!((*e).is_finite());
                s += wi * *e;
            }
        }
    }
    s + v[1]
}

#[test]
fn elements_by_reference_in_kept_code() {
    // w = [1, 2, 0.5]: rows with w < 1.5 add w·(y + y²): s = 1.5·(y + y²), plus y².
    let (w, y) = ([1.0, 2.0, 0.5], 0.7);
    let (gw, gy) = grad_deref_in_assert(&w, y);
    assert_close(gy, 1.5 * (1.0 + 2.0 * y) + 2.0 * y, 1e-12, "∂y");
    assert_close(gw[0], y + y * y, 1e-12, "∂w₀");
    assert_close(gw[1], 0.0, 1e-12, "∂w₁");
    let h = hessian_deref_in_assert(&w, y);
    assert_close(h[3][3], 1.5 * 2.0 + 2.0, 1e-12, "∂²y");
}

/// An array's `map`: capturing a differentiable value, of an array literal, with a local closure
/// and a function path, one `map` after another, and indexed inside a loop.
#[autodiff(order = 2)]
fn mapped(p: &[f64; 3]) -> f64 {
    let scale = p[0] * 0.5;
    let sq = |v: f64| v * v;
    let [a, b, c] = p.map(|x| x * scale + 1.0);
    let w = [a, b, c].map(sq).map(f64::sin);
    let mut s = 0.0;
    for i in 0..3 {
        s += p.map(|x| x * b)[i];
    }
    w[0] + w[1] * w[2] + s
}

/// y = (p₀²/2 + 1, p₀p₁/2 + 1, p₀p₂/2 + 1), f = sin y₀² + sin y₁² sin y₂² + y₁ Σp.
fn mapped_by_hand(p: &[f64]) -> Vec<f64> {
    let y = [
        p[0] * p[0] / 2.0 + 1.0,
        p[0] * p[1] / 2.0 + 1.0,
        p[0] * p[2] / 2.0 + 1.0,
    ];
    let dy = [
        [p[0], 0.0, 0.0],
        [p[1] / 2.0, p[0] / 2.0, 0.0],
        [p[2] / 2.0, 0.0, p[0] / 2.0],
    ];
    let w = y.map(|v| (v * v).sin());
    let dw = y.map(|v| 2.0 * v * (v * v).cos());
    let total: f64 = p.iter().sum();
    (0..3)
        .map(|i| {
            dw[0] * dy[0][i]
                + w[2] * dw[1] * dy[1][i]
                + w[1] * dw[2] * dy[2][i]
                + total * dy[1][i]
                + y[1]
        })
        .collect()
}

#[test]
fn an_arrays_map() {
    let at = |x: &[f64]| -> [f64; 3] { x.try_into().unwrap() };
    check(
        |x| mapped(&[x[0], x[1], x[2]]),
        |x| grad_mapped(&[x[0], x[1], x[2]]).to_vec(),
        |x, t| jvp_mapped(&[x[0], x[1], x[2]], &[t[0], t[1], t[2]]),
        |x, ct| vjp_mapped(&[x[0], x[1], x[2]], ct).to_vec(),
        mapped_by_hand,
        3,
    );
    check_hessian(
        |x| grad_mapped(&[x[0], x[1], x[2]]).to_vec(),
        |x| hessian_mapped(&[x[0], x[1], x[2]]),
        3,
    );
    let p = at(&[0.4, -0.3, 1.1]);
    assert_eq!(value_and_grad_mapped(&p).0, mapped(&p));
}

pub struct Weights {
    vals: [f64; 3],
}

impl Weights {
    /// A field that is an array, mapped by a closure capturing a differentiable value.
    #[autodiff(order = 2)]
    fn scaled(&self, p: &[f64]) -> f64 {
        let scale = p[0] * p[1];
        let w = self.vals.map(|v| v * scale);
        w[0] + w[1] * w[2] + p[1]
    }
}

#[test]
fn an_array_fields_map() {
    let m = Weights {
        vals: [1.5, -0.5, 2.0],
    };
    for p in points(2) {
        // f = v₀s + v₁v₂s² + p₁, s = p₀p₁.
        let s = p[0] * p[1];
        let df = 1.5 - 2.0 * s;
        let want = [df * p[1], df * p[0] + 1.0];
        let g = m.grad_scaled(&p);
        let fd = central_difference(|x| m.scaled(x), &p);
        for i in 0..2 {
            assert_close(g[i], want[i], 1e-12, "grad vs analytic");
            assert_close(g[i], fd[i], 1e-6, "grad vs differences");
        }
        let (v, d) = m.jvp_scaled(&p, &[0.7, -0.2]);
        assert_eq!(v, m.scaled(&p));
        assert_close(d, 0.7 * want[0] - 0.2 * want[1], 1e-12, "jvp vs gradient");
        // ∂²f/∂s² = −2 (v₁v₂ = −1), s = p₀p₁.
        let h = m.hessian_scaled(&p);
        let want_h = [
            [-2.0 * p[1] * p[1], -2.0 * p[0] * p[1] + df],
            [-2.0 * p[0] * p[1] + df, -2.0 * p[0] * p[0]],
        ];
        for i in 0..2 {
            for j in 0..2 {
                assert_close(h[i][j], want_h[i][j], 1e-12, "hessian vs analytic");
            }
        }
    }
}
