//! `&mut` outputs: a function writing its result into a `&mut [f64]`, `&mut Vec<f64>`, `&mut [f64;
//! N]` or `&mut f64`, as ODE right-hand sides and residuals are written. `jvp_` writes the value
//! and the tangent, `vjp_` writes the value and returns the input gradients; an output the body
//! also reads is an input too; another `#[autodiff]` function calling one (an ODE integrator) is
//! differentiated through it.

use diffx::autodiff;
use diffx::check::central_difference;
use diffx::num_traits::Float;

use crate::common::{assert_close, check_hessian};

/// A predator–prey right-hand side, written into `dy`.
#[autodiff]
fn lotka_volterra(y: &[f64], p: &[f64], dy: &mut [f64]) {
    dy[0] = p[0] * y[0] - p[1] * y[0] * y[1];
    dy[1] = p[2] * y[0] * y[1] - p[3] * y[1];
}

/// ∂dy/∂y and ∂dy/∂p of `lotka_volterra`, by hand.
fn lotka_volterra_jacobians(y: &[f64], p: &[f64]) -> ([[f64; 2]; 2], [[f64; 4]; 2]) {
    let dy = [
        [p[0] - p[1] * y[1], -p[1] * y[0]],
        [p[2] * y[1], p[2] * y[0] - p[3]],
    ];
    let dp = [
        [y[0], -y[0] * y[1], 0.0, 0.0],
        [0.0, 0.0, y[0] * y[1], -y[1]],
    ];
    (dy, dp)
}

const POINTS: [[f64; 2]; 3] = [[1.0, 0.5], [0.3, 2.0], [2.5, 1.5]];
const P: [f64; 4] = [1.1, 0.4, 0.1, 0.4];

#[test]
fn jvp_writes_the_value_and_the_tangent_into_outputs() {
    for y in POINTS {
        let (jy, jp) = lotka_volterra_jacobians(&y, &P);
        let (ty, tp) = ([0.5, -1.0], [1.0, 0.0, -2.0, 0.25]);
        // Whatever the outputs held before: the body writes every element.
        let (mut dy, mut t) = ([7.0; 2], [-3.0; 2]);
        jvp_lotka_volterra(&y, &P, &mut dy, &ty, &tp, &mut t);
        let mut want = [0.0; 2];
        lotka_volterra(&y, &P, &mut want);
        assert_eq!(dy, want);
        for r in 0..2 {
            let along = jy[r][0] * ty[0] + jy[r][1] * ty[1];
            let along_p: f64 = (0..4).map(|c| jp[r][c] * tp[c]).sum();
            assert_close(
                t[r],
                along + along_p,
                1e-14,
                "tangent against the Jacobians",
            );
        }
    }
}

#[test]
fn vjp_writes_the_value_and_returns_the_gradients() {
    for y in POINTS {
        for ct in [[1.0, 0.0], [0.0, 1.0], [0.7, -1.3]] {
            let mut dy = [0.0; 2];
            let (gy, gp) = vjp_lotka_volterra(&y, &P, &mut dy, ct.to_vec());
            let mut want = [0.0; 2];
            lotka_volterra(&y, &P, &mut want);
            assert_eq!(dy, want);
            // Against central differences of ⟨ct, f(y, p)⟩.
            let weighted = |y: &[f64], p: &[f64]| {
                let mut out = [0.0; 2];
                lotka_volterra(y, p, &mut out);
                ct[0] * out[0] + ct[1] * out[1]
            };
            let fy = central_difference(|v| weighted(v, &P), &y);
            let fp = central_difference(|v| weighted(&y, v), &P);
            for (g, f) in gy.iter().zip(&fy).chain(gp.iter().zip(&fp)) {
                assert_close(*g, *f, 1e-7, "vjp against central differences");
            }
        }
    }
}

/// An output the body also reads: `out += Δ`, the caller's values are an input.
#[allow(clippy::ptr_arg)] // (A `Vec` output, as such functions are written too.)
#[autodiff]
fn accumulate(x: &[f64], out: &mut Vec<f64>) {
    for i in 0..x.len() {
        out[i] += x[i].sin() * out[i];
    }
}

#[test]
fn an_output_that_is_read_is_an_input_too() {
    for (x, start) in [([0.3, -1.2], [1.0, 2.0]), ([2.0, 0.5], [-0.5, 0.25])] {
        // out_i ← out_i (1 + sin x_i): ∂/∂x_i = out_i cos x_i, ∂/∂out_i = 1 + sin x_i.
        let mut out = start.to_vec();
        let (gx, gout) = vjp_accumulate(&x, &mut out, vec![1.0, 1.0]);
        for i in 0..2 {
            assert_close(out[i], start[i] * (1.0 + x[i].sin()), 1e-15, "value");
            assert_close(gx[i], start[i] * x[i].cos(), 1e-14, "∂x");
            assert_close(gout[i], 1.0 + x[i].sin(), 1e-14, "∂out");
        }
        // The tangent `out_dot` comes in as the incoming values' tangent and leaves as the result's.
        let mut out = start.to_vec();
        let mut out_dot = vec![1.0, -1.0];
        jvp_accumulate(&x, &mut out, &[0.0, 0.0], &mut out_dot);
        for i in 0..2 {
            let sign = if i == 0 { 1.0 } else { -1.0 };
            assert_close(
                out_dot[i],
                sign * (1.0 + x[i].sin()),
                1e-14,
                "tangent in and out",
            );
        }
        let mut out = start.to_vec();
        let mut out_dot = vec![0.0, 0.0];
        jvp_accumulate(&x, &mut out, &[1.0, 1.0], &mut out_dot);
        for i in 0..2 {
            assert_close(out_dot[i], gx[i], 1e-14, "tangent along x");
        }
    }
}

/// A number written through `&mut f64`, with second order.
#[autodiff(order = 2)]
fn energy(x: &[f64], e: &mut f64) {
    *e = 0.0;
    for &xi in x {
        *e += xi * xi * xi - xi;
    }
}

#[test]
fn a_number_output_has_a_gradient_and_a_hessian() {
    for x in [[1.0, 2.0, -0.5], [0.25, -1.5, 3.0]] {
        let mut e = f64::NAN;
        // `*e += …` reads `e`: its incoming value is an input (it is overwritten first, so its
        // gradient is 0).
        let (gx, ge) = grad_energy(&x, &mut e);
        let want: f64 = x.iter().map(|v| v * v * v - v).sum();
        assert_eq!(e, want);
        assert_eq!(ge, 0.0);
        let value = |v: &[f64]| {
            let mut e = 0.0;
            energy(v, &mut e);
            e
        };
        let fd = central_difference(value, &x);
        for i in 0..3 {
            assert_close(gx[i], 3.0 * x[i] * x[i] - 1.0, 1e-14, "∂x against analytic");
            assert_close(gx[i], fd[i], 1e-7, "∂x against central differences");
        }
        let mut e = 0.0;
        let (v, (g, _)) = value_and_grad_energy(&x, &mut e);
        assert_eq!((v, e), (want, want));
        assert_eq!(g, gx);
        let mut e = 0.0;
        let h = hessian_energy(&x, &mut e);
        let grad = |v: &[f64]| {
            let mut e = 0.0;
            let (g, ge) = grad_energy(&v[..3], &mut e);
            let mut all = g;
            all.push(ge);
            all
        };
        let mut at = x.to_vec();
        at.push(0.0);
        check_hessian(&h, grad, &at);
        assert_close(h[1][1], 6.0 * x[1], 1e-14, "∂²/∂x₁²");
        let mut e = 0.0;
        let mut t = 0.0;
        jvp_energy(&x, &mut e, &[1.0, 0.0, 0.0], &mut t);
        assert_eq!(e, want);
        assert_close(t, gx[0], 1e-14, "jvp_energy");
    }
}

/// An array output, and its Jacobian.
#[autodiff]
fn polar(r: f64, theta: f64, xy: &mut [f64; 2]) {
    xy[0] = r * theta.cos();
    xy[1] = r * theta.sin();
}

#[test]
fn an_array_output_has_a_jacobian() {
    for (r, theta) in [(2.0, 0.3), (0.5, -2.0)] {
        let mut xy = [0.0; 2];
        let j = jacobian_polar(r, theta, &mut xy);
        let want = [
            [theta.cos(), -r * theta.sin()],
            [theta.sin(), r * theta.cos()],
        ];
        for (row, w) in j.iter().zip(&want) {
            assert_close(row[0], w[0], 1e-15, "∂/∂r");
            assert_close(row[1], w[1], 1e-15, "∂/∂θ");
        }
        let (gr, gt) = vjp_polar(r, theta, &mut xy, [1.0, 1.0]);
        assert_eq!(xy, [r * theta.cos(), r * theta.sin()]);
        assert_close(gr, want[0][0] + want[1][0], 1e-15, "vjp ∂r");
        assert_close(gt, want[0][1] + want[1][1], 1e-15, "vjp ∂θ");
    }
}

/// A method writing into an output, generic over its float type.
struct Decay<T> {
    rates: Vec<T>,
}

#[autodiff]
impl<T: Float> Decay<T> {
    fn rhs(&self, y: &[T], dy: &mut [T]) {
        for i in 0..y.len() {
            dy[i] = -self.rates[i] * y[i] * y[i].sqrt();
        }
    }
}

#[test]
fn a_generic_method_with_an_output() {
    let decay = Decay {
        rates: vec![0.5, 2.0],
    };
    let y = [4.0, 0.25];
    let (mut dy, mut t) = ([0.0; 2], [0.0; 2]);
    decay.jvp_rhs(&y, &mut dy, &[1.0, 1.0], &mut t);
    for i in 0..2 {
        assert_eq!(dy[i], -decay.rates[i] * y[i] * y[i].sqrt());
        assert_close(t[i], -1.5 * decay.rates[i] * y[i].sqrt(), 1e-14, "∂dy/∂y");
    }
    let single = Decay {
        rates: vec![1.0f32],
    };
    let mut out = [0.0f32];
    let g = single.vjp_rhs(&[4.0f32], &mut out, vec![1.0]);
    assert_eq!(out, [-8.0]);
    assert!((g[0] + 3.0).abs() < 1e-6);
}

/// An array output written whole.
#[autodiff]
fn both_ways(x: f64, out: &mut [f64; 2]) {
    *out = [x * x, 2.0 * x];
}

#[test]
fn an_array_output_written_whole() {
    for x in [-1.5, 3.0] {
        let (mut out, mut t) = ([0.0; 2], [0.0; 2]);
        jvp_both_ways(x, &mut out, 1.0, &mut t);
        assert_eq!((out, t), ([x * x, 2.0 * x], [2.0 * x, 2.0]));
        assert_eq!(jacobian_both_ways(x, &mut out), [[2.0 * x], [2.0]]);
        assert_eq!(vjp_both_ways(x, &mut out, [1.0, 1.0]), 2.0 * x + 2.0);
    }
}

/// The predator–prey right-hand side at second order, for callers that are.
#[autodiff(order = 2)]
fn lotka_volterra_2(y: &[f64], p: &[f64], dy: &mut [f64]) {
    dy[0] = p[0] * y[0] - p[1] * y[0] * y[1];
    dy[1] = p[2] * y[0] * y[1] - p[3] * y[1];
}

/// Explicit Euler steps of an ODE whose right-hand side writes into a buffer, as solvers call
/// it: each call is differentiated through the callee's derivative functions.
#[autodiff(order = 2)]
fn integrated(y0: &[f64], p: &[f64], dt: f64, steps: usize) -> f64 {
    let mut y = y0.to_vec();
    for _ in 0..steps {
        let mut dy = vec![0.0; 2];
        lotka_volterra_2(&y, p, &mut dy);
        for i in 0..2 {
            y[i] += dt * dy[i];
        }
    }
    let mut last = vec![0.0; 2];
    lotka_volterra_2(&y, p, &mut last);
    y[0] * y[1] + last[0]
}

/// The right-hand side with its output named in `wrt`: an input too, whose elements the body does
/// not write would keep their derivatives, so a caller may pass a buffer that carries one.
#[autodiff(order = 2, wrt(y, p, dy))]
fn lotka_volterra_into(y: &[f64], p: &[f64], dy: &mut [f64]) {
    dy[0] = p[0] * y[0] - p[1] * y[0] * y[1];
    dy[1] = p[2] * y[0] * y[1] - p[3] * y[1];
}

/// `integrated` with one buffer for every step, declared before the loop, as solvers reuse one:
/// after the first step it carries a derivative into each call.
#[autodiff(order = 2)]
fn integrated_in_one_buffer(y0: &[f64], p: &[f64], dt: f64, steps: usize) -> f64 {
    let mut y = y0.to_vec();
    let mut dy = vec![0.0; 2];
    for _ in 0..steps {
        lotka_volterra_into(&y, p, &mut dy);
        for i in 0..2 {
            y[i] += dt * dy[i];
        }
    }
    lotka_volterra_into(&y, p, &mut dy);
    y[0] * y[1] + dy[0]
}

#[test]
fn a_function_with_an_output_called_by_another() {
    for n in [0, 1, 4] {
        let at = [1.0, 0.5, 1.1, 0.4, 0.3, 0.9, 0.1];
        let (gy, gp, gdt) = grad_integrated(&at[..2], &at[2..6], at[6], n);
        let (by, bp, bdt) = grad_integrated_in_one_buffer(&at[..2], &at[2..6], at[6], n);
        for (a, b) in gy
            .iter()
            .chain(&gp)
            .chain([&gdt])
            .zip(by.iter().chain(&bp).chain([&bdt]))
        {
            assert_close(*a, *b, 1e-14, "one buffer against one per call");
        }
        let h = hessian_integrated_in_one_buffer(&at[..2], &at[2..6], at[6], n);
        assert_eq!(h, hessian_integrated(&at[..2], &at[2..6], at[6], n));
    }
    let flat = |v: &[f64]| integrated(&v[..2], &v[2..6], v[6], 3);
    let grad = |v: &[f64]| {
        let (gy, gp, gdt) = grad_integrated(&v[..2], &v[2..6], v[6], 3);
        [gy.as_slice(), &gp, &[gdt]].concat()
    };
    for at in [
        [1.0, 0.5, 1.1, 0.4, 0.3, 0.9, 0.1],
        [0.7, 1.2, 0.8, 0.6, 0.5, 0.4, 0.05],
    ] {
        let g = grad(&at);
        let fd = central_difference(flat, &at);
        for (i, (a, b)) in g.iter().zip(&fd).enumerate() {
            assert_close(*a, *b, 1e-6, &format!("∂{i}"));
        }
        let dir = [0.3, -0.2, 0.5, 0.1, 0.7, -0.6, 0.4];
        let (value, tangent) =
            jvp_integrated(&at[..2], &at[2..6], at[6], 3, &dir[..2], &dir[2..6], dir[6]);
        assert_eq!(value, flat(&at));
        let along: f64 = g.iter().zip(&dir).map(|(a, b)| a * b).sum();
        assert_close(tangent, along, 1e-12, "jvp_integrated");
        let h = hessian_integrated(&at[..2], &at[2..6], at[6], 3);
        check_hessian(&h, grad, &at);
    }
}

#[autodiff]
fn add_square(x: f64, total: &mut f64) {
    *total += x * x;
}

#[autodiff]
fn sine_and_double(x: f64, out: &mut [f64; 2]) {
    out[0] = x.sin();
    out[1] = x * 2.0;
}

/// Calls of functions writing a number (read too: `+=`) and an array.
#[autodiff]
fn calls_outputs(x: f64, y: f64) -> f64 {
    let mut t = 1.0;
    add_square(x, &mut t);
    add_square(y, &mut t);
    let mut o = [0.0; 2];
    sine_and_double(x * y, &mut o);
    t * o[0] + o[1]
}

#[test]
fn calls_of_functions_writing_a_number_and_an_array() {
    for at in [[0.3, 0.7], [-1.2, 0.4]] {
        let (gx, gy) = grad_calls_outputs(at[0], at[1]);
        let fd = central_difference(|v| calls_outputs(v[0], v[1]), &at);
        assert_close(gx, fd[0], 1e-7, "∂x");
        assert_close(gy, fd[1], 1e-7, "∂y");
        // t = 1 + x² + y², s = sin(xy): ∂/∂x = 2x·s + t·y·cos(xy) + 2y.
        let (x, y) = (at[0], at[1]);
        let (t, s, c) = (1.0 + x * x + y * y, (x * y).sin(), (x * y).cos());
        assert_close(gx, 2.0 * x * s + t * y * c + 2.0 * y, 1e-12, "∂x by hand");
        let (_, d) = jvp_calls_outputs(x, y, 1.0, 0.0);
        assert_close(d, gx, 1e-12, "jvp along x");
    }
}
