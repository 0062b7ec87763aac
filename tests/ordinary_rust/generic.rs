//! Functions generic over their float type (issue 13, item 4): `fn f<T: Float>(…) -> T` with
//! num-traits' `Float` or `diffx::Float`, bounds inline or in a `where` clause, calls between
//! generic `#[autodiff]` functions, const generics. The generated functions are generic the same
//! way: checked at `f64` against hand gradients and central differences (both modes, Hessians),
//! and at `f32` against the `f64` values.

#![allow(clippy::needless_range_loop)]

use std::f64::consts::{E, PI};
use std::iter::Sum;

use diffx::autodiff;
use diffx::check::central_difference;
use diffx::num_traits::{Float, FromPrimitive};

use crate::common;
use common::assert_close;

/// Points of `n` elements, away from the kinks of `abs` and `max`.
fn points(n: usize) -> Vec<Vec<f64>> {
    (0..4)
        .map(|k| {
            (0..n)
                .map(|i| ((i * 5 + k * 3) as f64 * 0.73 + 0.4).sin() * 1.3 + 0.07 * i as f64)
                .collect()
        })
        .collect()
}

/// The `f32` result against the `f64` one, relative to the larger of 1 and its size.
#[track_caller]
fn assert_f32_close(a: &[f32], b: &[f64], what: &str) {
    for (x, y) in a.iter().zip(b) {
        assert_close(f64::from(*x), *y, 2e-4, what);
    }
}

/// `h` against central differences of the gradient `grad` at `x`.
#[track_caller]
fn assert_hessian(h: &[Vec<f64>], grad: impl Fn(&[f64]) -> Vec<f64>, x: &[f64]) {
    for (i, row) in h.iter().enumerate() {
        let want = central_difference(|v| grad(v)[i], x);
        for j in 0..x.len() {
            assert_close(row[j], want[j], 1e-5, "hessian vs differences of grad");
        }
    }
}

#[autodiff(order = 2)]
fn rosenbrock<T: Float + FromPrimitive + Sum>(x: &[T]) -> T {
    x.iter()
        .zip(x.iter().skip(1))
        .map(|(&a, &b)| T::from_f64(100.0).unwrap() * (b - a * a).powi(2) + (T::one() - a).powi(2))
        .sum()
}

/// ∂/∂xᵢ of Σ 100(xᵢ₊₁ − xᵢ²)² + (1 − xᵢ)².
fn rosenbrock_by_hand(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        let d = x[i + 1] - x[i] * x[i];
        g[i] += -400.0 * x[i] * d - 2.0 * (1.0 - x[i]);
        g[i + 1] += 200.0 * d;
    }
    g
}

#[test]
fn chains_generic_over_num_traits_float_at_f64_and_f32() {
    for x in points(5) {
        let g = grad_rosenbrock(&x);
        let (want, fd) = (rosenbrock_by_hand(&x), central_difference(rosenbrock, &x));
        for i in 0..5 {
            assert_close(g[i], want[i], 1e-12, "grad vs analytic");
            assert_close(g[i], fd[i], 1e-6, "grad vs differences");
        }
        // The same function named at its type, and forward mode along each axis.
        assert_eq!(grad_rosenbrock::<f64>(&x), g);
        for i in 0..5 {
            let e: Vec<f64> = (0..5).map(|j| f64::from(i == j)).collect();
            let (v, d) = jvp_rosenbrock(&x, &e);
            assert_eq!(v, rosenbrock(&x));
            assert_close(d, g[i], 1e-12, "jvp vs grad");
        }
        let h = hessian_rosenbrock(&x);
        assert_hessian(&h, grad_rosenbrock, &x);
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        assert_f32_close(&grad_rosenbrock::<f32>(&x32), &g, "grad at f32");
        let h32 = hessian_rosenbrock(&x32);
        for i in 0..5 {
            assert_f32_close(&h32[i], &h[i], "hessian at f32");
        }
    }
}

/// Beale's function as optimization crates write it: destructured, a local closure, constants
/// through `FromPrimitive`, bound by `diffx::Float` in a `where` clause.
#[autodiff(order = 2)]
fn beale<T>(param: &[T; 2]) -> T
where
    T: diffx::Float,
{
    let [x1, x2] = *param;
    let sq = |v: T| v * v;
    sq(T::from_f64(1.5).unwrap() - x1 + x1 * x2)
        + sq(T::from_f64(2.25).unwrap() - x1 + x1 * x2.powi(2))
        + sq(T::from_f64(2.625).unwrap() - x1 + x1 * x2.powi(3))
}

fn beale_by_hand(p: &[f64; 2]) -> [f64; 2] {
    let [x, y] = *p;
    let (a, b, c) = (
        1.5 - x + x * y,
        2.25 - x + x * y * y,
        2.625 - x + x * y * y * y,
    );
    [
        2.0 * a * (y - 1.0) + 2.0 * b * (y * y - 1.0) + 2.0 * c * (y * y * y - 1.0),
        2.0 * a * x + 2.0 * b * 2.0 * x * y + 2.0 * c * 3.0 * x * y * y,
    ]
}

#[test]
fn diffx_float_bound_in_a_where_clause_with_patterns_and_closures() {
    for p in points(2) {
        let p = [p[0], p[1]];
        let g = grad_beale(&p);
        let want = beale_by_hand(&p);
        let fd = central_difference(|v| beale(&[v[0], v[1]]), &p);
        for i in 0..2 {
            assert_close(g[i], want[i], 1e-12, "grad vs analytic");
            assert_close(g[i], fd[i], 1e-6, "grad vs differences");
        }
        let (_, d) = jvp_beale(&p, &[0.3, -1.1]);
        assert_close(d, 0.3 * g[0] - 1.1 * g[1], 1e-12, "jvp vs grad");
        let p32 = [p[0] as f32, p[1] as f32];
        assert_f32_close(&grad_beale(&p32), &g, "grad at f32");
        let h = hessian_beale(&p);
        assert_hessian(&h, |v| grad_beale(&[v[0], v[1]]).to_vec(), &p);
    }
}

#[autodiff(order = 2)]
fn bump<T: Float>(a: T, b: T) -> T {
    a * b.sin()
}

/// Calls the generic `bump` in a loop, its second argument depending on earlier iterations.
#[autodiff(order = 2)]
fn chained<T: Float>(x: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..x.len() {
        s = s + bump(x[i], s + T::one());
    }
    s
}

#[test]
fn generic_calls_between_autodiff_functions() {
    for x in points(4) {
        let g = grad_chained(&x);
        let fd = central_difference(chained, &x);
        for i in 0..4 {
            assert_close(g[i], fd[i], 1e-6, "grad vs differences");
        }
        let (_, d) = jvp_chained(&x, &[1.0, 0.0, 0.0, 0.0]);
        assert_close(d, g[0], 1e-12, "jvp vs grad");
        let h = hessian_chained(&x);
        assert_hessian(&h, grad_chained, &x);
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        assert_f32_close(&grad_chained(&x32), &g, "grad at f32");
    }
}

/// Every elementary function of the rule table, generic; `elementary_f64` is the same body at
/// `f64`. The two programs compute the same operations, so their gradients agree to rounding: a
/// rule whose generic form differs (a literal, an indicator, a constant) shows here.
#[autodiff(order = 2)]
fn elementary<T: Float + FromPrimitive>(a: T, b: T) -> T {
    let k = T::from_f64(0.25).unwrap();
    let u = (a * b).sin() + a.cos() * b.tan() + (a / b).exp() + b.ln() + a.sqrt() * b.cbrt();
    let v = a.powi(3) + b.powf(a) + a.abs() + a.max(b) + b.min(a) + a.atan2(b) + a.hypot(b);
    let w = a.tanh() + b.sinh() + a.cosh() + a.asinh() + a.atan() + b.log10() + a.exp2();
    let z = b.recip() + a.ln_1p() + a.exp_m1() + a.to_radians() + a.mul_add(b, a) + b.log2();
    u + v + w + z * k + (a * k).asin() + (b * k).acos() + b.acosh() + (a * k).atanh()
}

#[autodiff(order = 2)]
fn elementary_f64(a: f64, b: f64) -> f64 {
    let k = 0.25;
    let u = (a * b).sin() + a.cos() * b.tan() + (a / b).exp() + b.ln() + a.sqrt() * b.cbrt();
    let v = a.powi(3) + b.powf(a) + a.abs() + a.max(b) + b.min(a) + a.atan2(b) + a.hypot(b);
    let w = a.tanh() + b.sinh() + a.cosh() + a.asinh() + a.atan() + b.log10() + a.exp2();
    let z = b.recip() + a.ln_1p() + a.exp_m1() + a.to_radians() + a.mul_add(b, a) + b.log2();
    u + v + w + z * k + (a * k).asin() + (b * k).acos() + b.acosh() + (a * k).atanh()
}

#[test]
fn every_rule_generic_agrees_with_its_f64_twin() {
    for (a, b) in [(0.7, 1.9), (1.3, 2.4), (0.2, 3.1)] {
        let (g, want) = (grad_elementary(a, b), grad_elementary_f64(a, b));
        assert_close(g.0, want.0, 1e-14, "∂a");
        assert_close(g.1, want.1, 1e-14, "∂b");
        let fd = central_difference(|v| elementary(v[0], v[1]), &[a, b]);
        assert_close(g.0, fd[0], 1e-6, "∂a vs differences");
        assert_close(g.1, fd[1], 1e-6, "∂b vs differences");
        assert_eq!(
            jvp_elementary(a, b, 1.0, 0.0),
            jvp_elementary_f64(a, b, 1.0, 0.0)
        );
        let (h, hw) = (hessian_elementary(a, b), hessian_elementary_f64(a, b));
        for i in 0..2 {
            for j in 0..2 {
                assert_close(h[i][j], hw[i][j], 1e-12, "hessian vs f64 twin");
            }
        }
        let g32 = grad_elementary(a as f32, b as f32);
        assert_f32_close(&[g32.0, g32.1], &[want.0, want.1], "grad at f32");
    }
}

/// A const-generic array: its gradient is an array of the same length.
#[autodiff(order = 2)]
fn norm<const N: usize>(x: [f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += x[i] * x[i];
    }
    s.sqrt()
}

/// Generic over the float type and the length.
#[autodiff]
fn weighted<T: Float, const N: usize>(x: [T; N], w: &[T; N]) -> T {
    let mut s = T::zero();
    for i in 0..N {
        s = s + w[i] * x[i] * x[i];
    }
    s
}

#[test]
fn const_generic_arrays() {
    let g: [f64; 3] = grad_norm([3.0, 4.0, 12.0]);
    assert_eq!(g, [3.0 / 13.0, 4.0 / 13.0, 12.0 / 13.0]);
    let (v, d) = jvp_norm([3.0, 4.0], [1.0, 1.0]);
    assert_eq!(v, 5.0);
    assert_close(d, 7.0 / 5.0, 1e-15, "jvp along (1, 1)");
    let h = hessian_norm([3.0, 4.0]);
    assert_close(h[0][0], 16.0 / 125.0, 1e-14, "∂²/∂x0²");
    assert_close(h[0][1], -12.0 / 125.0, 1e-14, "∂²/∂x0∂x1");
    let (gx, gw) = grad_weighted([1.0f32, 2.0], &[3.0, 0.5]);
    assert_eq!(gx, [6.0, 2.0]);
    assert_eq!(gw, [1.0, 4.0]);
}

/// `[x; N]` of a differentiable value and a const generic `N`, and a copy of an array parameter
/// written in a loop; generic over the float type too.
#[autodiff(order = 2)]
fn spread<T: Float, const N: usize>(x: T, p: [T; N]) -> T {
    let v = [x * x; N];
    let mut s = p;
    for i in 0..N {
        s[i] = s[i] * v[i] + x;
    }
    let mut total = T::zero();
    for i in 0..N {
        total = total + s[i] * T::from(i + 1).unwrap();
    }
    total
}

#[test]
fn repeats_of_a_const_generic_length() {
    // f = Σ (i+1)·(pᵢx² + x): ∂/∂x = Σ (i+1)(2pᵢx + 1), ∂/∂pᵢ = (i+1)x².
    let (x, p) = (1.5, [0.5, -1.0, 2.0]);
    let (gx, gp) = grad_spread(x, p);
    let want_x: f64 = (0..3)
        .map(|i| (i as f64 + 1.0) * (2.0 * p[i] * x + 1.0))
        .sum();
    assert_close(gx, want_x, 1e-14, "∂x");
    for i in 0..3 {
        assert_close(gp[i], (i as f64 + 1.0) * x * x, 1e-14, "∂p");
    }
    let f = |q: &[f64]| spread(q[0], [q[1], q[2], q[3]]);
    let fd = central_difference(f, &[x, p[0], p[1], p[2]]);
    assert_close(gx, fd[0], 1e-6, "∂x vs differences");
    assert_close(jvp_spread(x, p, 1.0, [0.0; 3]).1, gx, 1e-14, "jvp");
    let h = hessian_spread(x, p);
    assert_close(
        h[0][0],
        (0..3).map(|i| (i as f64 + 1.0) * 2.0 * p[i]).sum(),
        1e-13,
        "∂²x",
    );
    let (gx32, _) = grad_spread(1.5f32, [0.5f32, -1.0, 2.0]);
    assert!((f64::from(gx32) - want_x).abs() < 1e-5);
}

/// A polyline's length, generic over its float: a slice of points `&[[T; 2]]`.
#[autodiff(order = 2)]
fn polyline<T: Float>(p: &[[T; 2]]) -> T {
    let mut s = T::zero();
    for i in 1..p.len() {
        let dx = p[i][0] - p[i - 1][0];
        let dy = p[i][1] - p[i - 1][1];
        s = s + (dx * dx + dy * dy).sqrt();
    }
    s
}

/// xᵀAx over rows (`&[Vec<T>]`), generic over its float.
#[autodiff]
fn quadratic<T: Float>(a: &[Vec<T>], x: &[T]) -> T {
    let mut s = T::zero();
    for i in 0..x.len() {
        for j in 0..x.len() {
            s = s + x[i] * a[i][j] * x[j];
        }
    }
    s
}

#[test]
fn nested_containers_in_generic_functions() {
    let p = [[0.0, 0.0], [3.0, 4.0], [3.0, 5.0]];
    let g: Vec<[f64; 2]> = grad_polyline(&p);
    // Each point's gradient: the unit vector of the segment before it minus that after it.
    let want = [[-0.6, -0.8], [0.6, -0.2], [0.0, 1.0]];
    for (got, want) in g.iter().zip(want) {
        assert_close(got[0], want[0], 1e-12, "∂x");
        assert_close(got[1], want[1], 1e-12, "∂y");
    }
    let g32: Vec<[f32; 2]> = grad_polyline(&[[0.0f32, 0.0], [3.0, 4.0]]);
    assert_eq!(g32, vec![[-0.6, -0.8], [0.6, 0.8]]);
    let (_, t) = jvp_polyline(&p, &[[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]]);
    assert_close(t, g[1][0], 1e-12, "jvp along p[1][0]");
    let h = hessian_polyline(&p);
    let point = [0.0, 0.0, 3.0, 4.0, 3.0, 5.0];
    for i in 0..6 {
        let gi = |q: &[f64]| {
            let pts = [[q[0], q[1]], [q[2], q[3]], [q[4], q[5]]];
            grad_polyline(&pts).concat()[i]
        };
        let fd = central_difference(gi, &point);
        for j in 0..6 {
            assert_close(h[i][j], fd[j], 1e-6, "Hessian against differences of grad_");
        }
    }
    let (ga, gx) = grad_quadratic(&[vec![1.0f32, 2.0], vec![0.0, 1.0]], &[1.0, 2.0]);
    assert_eq!(
        (ga, gx),
        (vec![vec![1.0, 2.0], vec![2.0, 4.0]], vec![6.0, 6.0])
    );
}

struct Spring {
    k: f64,
}

impl Spring {
    /// A method generic over the float type of its argument.
    #[autodiff]
    fn energy<T: Float + FromPrimitive>(&self, x: T) -> T {
        T::from_f64(0.5 * self.k).unwrap() * x * x
    }
}

#[test]
fn generic_methods() {
    let s = Spring { k: 4.0 };
    assert_eq!(s.grad_energy(1.5f64), 6.0);
    assert_eq!(s.grad_energy(1.5f32), 6.0);
    assert_eq!(s.jvp_energy(1.5f64, 2.0), (4.5, 12.0));
}

#[cfg(feature = "explain")]
#[test]
fn explain_of_a_generic_function() {
    let t = explain_bump(0.5f64, 1.5, 1.0, 0.0);
    assert_eq!(t.value("bump"), Some(0.5 * 1.5f64.sin()));
    assert_eq!(t.tangent("bump"), Some(1.5f64.sin()));
    assert_eq!(t.adjoint("a"), Some(1.5f64.sin()));
}

/// A function generic over its float type returning an array: `explain_` records its vector
/// values too.
#[autodiff]
fn rotate<T: diffx::Float>(p: [T; 2], a: T) -> [T; 2] {
    [
        p[0] * a.cos() - p[1] * a.sin(),
        p[0] * a.sin() + p[1] * a.cos(),
    ]
}

#[cfg(feature = "explain")]
#[test]
fn explain_of_a_generic_function_returning_an_array() {
    let (p, a) = ([0.5f64, -0.25], 0.3);
    let t = explain_rotate(p, a, [1.0, 0.0], 0.0, [1.0, 0.0]);
    let (gp, ga) = vjp_rotate(p, a, [1.0, 0.0]);
    assert_close(t.adjoint("a").unwrap(), ga, 1e-15, "a");
    assert_close(ga, -p[0] * a.sin() - p[1] * a.cos(), 1e-15, "∂a by hand");
    assert_close(gp[0], a.cos(), 1e-15, "∂p0");
    let ga32 = vjp_rotate([0.5f32, -0.25], 0.3, [1.0, 0.0]).1;
    assert_close(ga32 as f64, ga, 1e-6, "∂a at f32");
}

/// Float methods in path form: on the type parameter, on the trait, on the trait's full path.
#[autodiff]
fn path_forms<T: Float>(x: T, y: T) -> T {
    T::sin(x) * Float::exp(y) + diffx::num_traits::Float::cos(x * y) + T::max(x, y)
}

#[test]
fn float_methods_in_path_form() {
    let (x, y) = (0.3f64, 0.8);
    let (gx, gy) = grad_path_forms(x, y);
    let want_x = x.cos() * y.exp() - y * (x * y).sin();
    let want_y = x.sin() * y.exp() - x * (x * y).sin() + 1.0;
    assert_close(gx, want_x, 1e-14, "∂x");
    assert_close(gy, want_y, 1e-14, "∂y");
}

struct Pendulum {
    length: f64,
}

impl Pendulum {
    /// An associated function (no receiver) whose signature names `Self`: its derivative
    /// functions are associated functions too, called as `Pendulum::grad_height(&p, θ)`.
    #[autodiff]
    fn height(p: &Self, theta: f64) -> f64 {
        p.length * (1.0 - theta.cos())
    }
}

#[test]
fn associated_functions_naming_self() {
    let p = Pendulum { length: 2.0 };
    assert_close(
        Pendulum::grad_height(&p, 0.5),
        2.0 * 0.5f64.sin(),
        1e-15,
        "∂θ",
    );
    let (v, d) = Pendulum::jvp_height(&p, 0.5, 1.0);
    assert_eq!(v, Pendulum::height(&p, 0.5));
    assert_close(d, 2.0 * 0.5f64.sin(), 1e-15, "jvp");
}

/// A struct generic over its float type: the method names the `impl`'s `T`.
struct Well<T> {
    depth: T,
}

impl<T: Float> Well<T> {
    #[autodiff(order = 2)]
    fn potential(&self, x: T) -> T {
        -self.depth * (-x * x).exp()
    }
}

#[test]
fn methods_of_an_impl_generic_over_the_float_type() {
    let w = Well { depth: 2.0f64 };
    let x = 0.7;
    let want = 4.0 * x * (-x * x).exp();
    assert_close(w.grad_potential(x), want, 1e-14, "∂x at f64");
    assert_close(w.jvp_potential(x, 1.0).1, want, 1e-14, "jvp at f64");
    let h = w.hessian_potential(x);
    let want_h = 4.0 * (-x * x).exp() * (1.0 - 2.0 * x * x);
    assert_close(h[0][0], want_h, 1e-13, "∂²x at f64");
    let w32 = Well { depth: 2.0f32 };
    assert_close(
        f64::from(w32.grad_potential(0.7f32)),
        want,
        1e-6,
        "∂x at f32",
    );
}

struct Chain2 {
    k: f64,
}

impl Chain2 {
    #[autodiff(order = 2)]
    fn link(&self, a: f64, b: f64) -> f64 {
        0.5 * self.k * (b - a) * (b - a)
    }

    /// Calls another `#[autodiff]` method of the same `impl` through `self`.
    #[autodiff(order = 2)]
    fn energy(&self, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() - 1 {
            s += self.link(x[i], x[i + 1]);
        }
        s
    }
}

#[test]
fn calls_between_autodiff_methods() {
    let c = Chain2 { k: 3.0 };
    let x = [0.2, 1.1, 0.7, -0.4];
    let g = c.grad_energy(&x);
    let fd = central_difference(|v| c.energy(v), &x);
    for i in 0..4 {
        assert_close(g[i], fd[i], 1e-6, "grad vs differences");
    }
    // ∂/∂x1 = k(x1 − x0) − k(x2 − x1).
    assert_close(g[1], 3.0 * (1.1 - 0.2) - 3.0 * (0.7 - 1.1), 1e-14, "∂x1");
    let (_, d) = c.jvp_energy(&x, &[0.0, 1.0, 0.0, 0.0]);
    assert_close(d, g[1], 1e-14, "jvp vs grad");
    let h = c.hessian_energy(&x);
    assert_close(h[1][1], 6.0, 1e-12, "∂²x1");
    assert_close(h[1][2], -3.0, 1e-12, "∂x1∂x2");
}

/// A parameter struct whose method differentiates `self` too: `wrt(self, x)`.
#[derive(Clone, diffx::Params)]
struct Quadratic {
    a: diffx::Tensor<f64>,
}

impl Quadratic {
    #[autodiff(wrt(self, x))]
    fn value(&self, x: f64) -> f64 {
        let a = self.a.sum();
        a * x * x
    }
}

#[test]
fn wrt_self_differentiates_the_receiver() {
    let q = Quadratic {
        a: diffx::Tensor::from_vec(vec![1.0, 2.0], &[2]),
    };
    let (gq, gx) = q.grad_value(1.5);
    // ∂/∂aᵢ = x², ∂/∂x = 2·Σa·x.
    assert_eq!(gq.a.data(), &[2.25, 2.25]);
    assert_eq!(gx, 2.0 * 3.0 * 1.5);
    assert_eq!(q.value(1.5), 3.0 * 2.25);
}

#[autodiff]
fn pair_product<T: Float>(a: &[T]) -> T {
    a[0] * a[1]
}

/// A local array passed as `&arr` in a kept statement and in arithmetic (random-program tester
/// finding s3838-f134: the kept statement read `&&[T; 3]`, which does not coerce while `T` is
/// inferred).
#[autodiff]
fn array_in_kept_statement<T: Float>(x: &[T]) -> T {
    let arr = [x[0], x[1], x[2]];
    assert!(pair_product(&arr).is_finite(), "{:?}", arr.len());
    pair_product(&arr) * x[2]
}

#[test]
fn local_array_borrowed_in_a_kept_statement() {
    assert_eq!(
        grad_array_in_kept_statement(&[1.0, 2.0, 3.0]),
        vec![6.0, 3.0, 2.0]
    );
    assert_eq!(
        grad_array_in_kept_statement(&[1.0_f32, 2.0, 3.0]),
        vec![6.0, 3.0, 2.0]
    );
}

/// A parameter struct generic over its float, in a function generic over it (issue 14).
#[derive(Clone, Debug, PartialEq, diffx::Params)]
struct Line<F: diffx::Float> {
    slope: F,
    intercept: F,
}

/// The mean squared residual of the line, generic over the float, with a branch on a field and
/// `tanh` of one: second order too.
#[autodiff(order = 2, wrt(line))]
fn line_loss<T: diffx::Float>(line: &Line<T>, xs: &[T], ys: &[T]) -> T {
    let mut total = T::zero();
    for i in 0..xs.len() {
        let r = line.slope * xs[i] + line.intercept - ys[i];
        total += r * r;
    }
    let bend = if line.slope > T::zero() {
        line.slope.tanh()
    } else {
        line.slope
    };
    total / T::from(xs.len()).unwrap() + bend * line.intercept
}

#[test]
fn a_generic_struct_in_a_generic_function() {
    let (xs, ys) = ([0.0, 1.0, 2.0, 3.0], [0.1, 0.9, 2.2, 2.9]);
    for (s, b) in [(0.8, 0.1), (-0.4, 0.6)] {
        let line = Line {
            slope: s,
            intercept: b,
        };
        let g = grad_line_loss(&line, &xs, &ys);
        let f = |v: &[f64]| {
            let l = Line {
                slope: v[0],
                intercept: v[1],
            };
            line_loss(&l, &xs, &ys)
        };
        let fd = central_difference(f, &[s, b]);
        assert_close(g.slope, fd[0], 1e-7, "∂/∂slope");
        assert_close(g.intercept, fd[1], 1e-7, "∂/∂intercept");
        // At f32: the same gradient, to f32's precision.
        let l32 = Line {
            slope: s as f32,
            intercept: b as f32,
        };
        let (xs32, ys32) = (xs.map(|x| x as f32), ys.map(|y| y as f32));
        let g32 = grad_line_loss(&l32, &xs32, &ys32);
        assert_close(g32.slope as f64, g.slope, 1e-5, "f32 ∂/∂slope");
        // The Hessian against differences of the gradient.
        let h = hessian_line_loss(&line, &xs, &ys);
        for (i, row) in h.iter().enumerate() {
            let column = central_difference(
                |v| {
                    let l = Line {
                        slope: v[0],
                        intercept: v[1],
                    };
                    let g = grad_line_loss(&l, &xs, &ys);
                    [g.slope, g.intercept][i]
                },
                &[s, b],
            );
            assert_close(row[0], column[0], 1e-6, "H");
            assert_close(row[1], column[1], 1e-6, "H");
        }
    }
}

/// A generic float converted to `f64` (`.into()`, `.to_f64().unwrap()`), computed on in `f64`
/// with `f64` constants, and converted back (`T::from(…)`, `T::from_f64(…)`).
#[autodiff(order = 2)]
fn through_f64<T>(x: &[T]) -> T
where
    T: Float + Into<f64> + FromPrimitive,
{
    let a: f64 = x[0].into();
    let b: f64 = x[1].to_f64().unwrap();
    let r = (a * a + b * b).sqrt();
    let mut s: f64 = a * b;
    s += PI * r;
    T::from(s / (2.0 * PI) + r.sin()).unwrap() * x[1]
        + T::from_f64((a * a + 1.0).powf(E)).expect("finite")
}

/// f = ((ab + πr)/(2π) + sin r)·b + (a² + 1)^e, r = ‖(a, b)‖.
fn through_f64_by_hand(x: &[f64]) -> Vec<f64> {
    let (a, b) = (x[0], x[1]);
    let r = (a * a + b * b).sqrt();
    let u = (a * b + PI * r) / (2.0 * PI) + r.sin();
    vec![
        ((b + PI * a / r) / (2.0 * PI) + r.cos() * a / r) * b
            + E * (a * a + 1.0).powf(E - 1.0) * 2.0 * a,
        ((a + PI * b / r) / (2.0 * PI) + r.cos() * b / r) * b + u,
    ]
}

#[test]
fn a_generic_float_through_f64_and_back() {
    for x in points(2) {
        let g = grad_through_f64(&x);
        let (want, fd) = (through_f64_by_hand(&x), central_difference(through_f64, &x));
        for i in 0..2 {
            assert_close(g[i], want[i], 1e-12, "grad vs analytic");
            assert_close(g[i], fd[i], 1e-6, "grad vs differences");
        }
        let (v, d) = jvp_through_f64(&x, &[0.6, -1.1]);
        assert_eq!(v, through_f64(&x));
        assert_close(d, 0.6 * want[0] - 1.1 * want[1], 1e-12, "jvp vs gradient");
        assert_hessian(&hessian_through_f64(&x), grad_through_f64, &x);
    }
}

/// In a function over `f64` the conversions are the identity, dropped.
#[allow(clippy::useless_conversion)]
#[autodiff]
fn into_itself(x: f64, y: f64) -> f64 {
    let a: f64 = x.into();
    f64::from_f64(a * y).unwrap() + y
}

#[test]
fn conversions_of_f64_to_itself() {
    for (x, y) in [(0.5, -1.5), (2.0, 3.0)] {
        assert_eq!(grad_into_itself(x, y), (y, x + 1.0));
        assert_eq!(jvp_into_itself(x, y, 1.0, 0.0), (x * y + y, y));
    }
}
