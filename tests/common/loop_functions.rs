//! Functions with loops shared by the tests and `benches/loops.rs` (included with `#[path]`), with
//! their gradients written out by hand.

#![allow(dead_code)]

use diffx::autodiff;

/// Chained (extended) Rosenbrock: Σ 100(x[i+1] − x[i]²)² + (1 − x[i])².
#[autodiff(order = 2)]
pub fn rosenbrock(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        let b = 1.0 - x[i];
        s += 100.0 * a * a + b * b;
    }
    s
}

/// [`rosenbrock`] as iterator code: neighbours paired by `zip` and `skip`, summed.
#[autodiff]
pub fn rosenbrock_chain(x: &[f64]) -> f64 {
    x.iter()
        .zip(x.iter().skip(1))
        .map(|(&xi, &next)| {
            let a = next - xi * xi;
            let b = 1.0 - xi;
            100.0 * a * a + b * b
        })
        .sum()
}

/// [`rosenbrock_chain`] generic over its float type, as optimization crates write it: at `f64` its
/// gradient should cost what the twin's does.
#[autodiff]
pub fn rosenbrock_generic<T: diffx::Float>(x: &[T]) -> T {
    x.iter()
        .zip(x.iter().skip(1))
        .map(|(&xi, &next)| {
            let a = next - xi * xi;
            let b = T::one() - xi;
            T::from_f64(100.0).unwrap() * a * a + b * b
        })
        .sum()
}

/// The gradient of [`rosenbrock`] by hand.
pub fn rosenbrock_by_hand(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        let a = x[i + 1] - x[i] * x[i];
        g[i] += -400.0 * a * x[i] - 2.0 * (1.0 - x[i]);
        g[i + 1] += 200.0 * a;
    }
    g
}

/// A damped mass on a spring by explicit Euler: position and velocity overwritten every step.
#[autodiff]
pub fn spring(k: f64, x0: f64, steps: usize) -> f64 {
    let dt = 0.01;
    let mut x = x0;
    let mut v = 0.0;
    for _ in 0..steps {
        let a = -k * x - 0.3 * v;
        x += dt * v;
        v += dt * a;
    }
    x * x + v
}

/// The gradient of [`spring`] by hand: the forward sweep stores the positions, the backward sweep
/// runs the adjoint recurrences of `x' = x + dt·v`, `v' = v + dt(−kx − 0.3v)`.
pub fn spring_by_hand(k: f64, x0: f64, steps: usize) -> (f64, f64) {
    let dt = 0.01;
    let mut positions = Vec::with_capacity(steps);
    let (mut x, mut v): (f64, f64) = (x0, 0.0);
    for _ in 0..steps {
        positions.push(x);
        let a = -k * x - 0.3 * v;
        x += dt * v;
        v += dt * a;
    }
    let (mut xb, mut vb, mut kb) = (2.0 * x, 1.0, 0.0);
    for &x in positions.iter().rev() {
        let ab = dt * vb;
        kb += -x * ab;
        let new_xb = xb - k * ab;
        vb = vb - 0.3 * ab + dt * xb;
        xb = new_xb;
    }
    (kb, xb)
}

/// Early `return` from inside a loop and from a branch.
#[autodiff]
pub fn first_large(x: f64, limit: f64) -> f64 {
    if x < 0.0 {
        return -x * limit;
    }
    let mut p = x;
    for _ in 0..20 {
        p *= 1.5;
        if p > limit {
            return p.sqrt() * limit;
        }
    }
    p
}

/// The right-hand side of a pendulum, `[θ', ω']`: a function returning an array.
#[autodiff]
pub fn pendulum(s: [f64; 2], k: f64) -> [f64; 2] {
    [s[1], -k * s[0].sin()]
}

/// 200 classical Runge–Kutta steps calling `pendulum` four times each, with arrays built inline
/// as arguments and the state replaced whole.
#[autodiff]
pub fn rk4(x0: f64, v0: f64, k: f64) -> f64 {
    let h = 0.01;
    let mut s = [x0, v0];
    for _ in 0..200 {
        let k1 = pendulum(s, k);
        let k2 = pendulum([s[0] + 0.5 * h * k1[0], s[1] + 0.5 * h * k1[1]], k);
        let k3 = pendulum([s[0] + 0.5 * h * k2[0], s[1] + 0.5 * h * k2[1]], k);
        let k4 = pendulum([s[0] + h * k3[0], s[1] + h * k3[1]], k);
        s = [
            s[0] + h / 6.0 * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]),
            s[1] + h / 6.0 * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]),
        ];
    }
    s[0] * s[1]
}
