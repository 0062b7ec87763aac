//! Forms a material model's code takes (the std::autodiff book's neo-Hookean sample has each of
//! them), checked against central differences in both modes:
//! - a function parameter (`op: impl Fn(f64, f64) -> f64`) called with `f64::add` and `f64::sub`
//!   by `#[autodiff]` operator impls, and with `diffx::with_partials` from outside;
//! - a local struct filled by field through an `iter_mut()` chain ending in `for_each`, returned;
//! - a struct literal whose array field is another array's `map`, and `impl Mul<&Sym> for f64`
//!   beside `impl Mul<Sym> for f64`;
//! - `other: &Self` differentiated by `wrt(self, other)`; operators on the values of calls of the
//!   block's functions returning the type; `*m` of a matrix parameter passed by value;
//! - a field of a `mut` parameter struct written, then read;
//! - a value of the type written into a `&mut` output, and updated in a loop by `+=` and `*=`.

// (Index loops as numeric code writes them.)
#![allow(clippy::needless_range_loop)]

use std::ops::{Add, Mul, Sub};

use diffx::check::central_difference;
use diffx::{autodiff, DiffFn, Params};

use crate::common::assert_close;

type Mat3 = [[f64; 3]; 3];

/// A symmetric tensor in Kelvin–Mandel notation.
#[derive(Clone, Copy, Debug, PartialEq, Params)]
struct Sym {
    vals: [f64; 6],
}

#[autodiff(wrt(self))]
impl Sym {
    fn zero() -> Self {
        Self { vals: [0.0; 6] }
    }

    /// `op` on each pair of numbers, written into a local struct through `iter_mut()` (as the
    /// book writes it, `into_iter()` twice).
    #[allow(clippy::useless_conversion)]
    fn from_binary_op(x: Sym, y: Sym, op: impl Fn(f64, f64) -> f64) -> Self {
        let mut result = Sym::zero();
        result
            .vals
            .iter_mut()
            .zip(x.vals.into_iter().zip(y.vals.into_iter()))
            .for_each(|(r, (x, y))| *r = op(x, y));
        result
    }

    /// A field given as another array's `map`.
    #[autodiff(wrt(self, scale))]
    fn scale(&self, scale: f64) -> Self {
        Self {
            vals: self.vals.map(|v| v * scale),
        }
    }

    fn from_matrix(a: Mat3) -> Self {
        let s = 0.5_f64.sqrt();
        Sym {
            vals: [
                a[0][0],
                a[1][1],
                a[2][2],
                s * (a[1][2] + a[2][1]),
                s * (a[0][2] + a[2][0]),
                s * (a[0][1] + a[1][0]),
            ],
        }
    }

    /// `e = (H + Hᵀ + H Hᵀ)/2` in Mandel form: operators on the values of `from_matrix`.
    fn green_euler(h: Mat3) -> Self {
        Self::from_matrix(h) + 0.5 * Self::from_matrix(outer_product(&h))
    }

    /// The matrix parameter behind a reference, passed on by value.
    fn epsilon(m: &Mat3) -> Self {
        Self::from_matrix(*m)
    }

    /// Both tensors differentiated: `other: &Self` named in `wrt`.
    #[autodiff(wrt(self, other))]
    fn dot(&self, other: &Self) -> f64 {
        self.vals
            .into_iter()
            .zip(other.vals)
            .map(|(a, b)| a * b)
            .sum()
    }

    fn norm(&self) -> f64 {
        self.dot(self).sqrt()
    }

    /// Operators on parameters of the block's type, none of whose methods the body calls.
    fn gap(a: &Sym, b: &Sym) -> f64 {
        let d = *a - *b;
        d.vals[0] * d.vals[0] + d.vals[1]
    }
}

/// `H Hᵀ`.
#[autodiff]
fn outer_product(h: &Mat3) -> Mat3 {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                c[i][j] += h[i][k] * h[j][k];
            }
        }
    }
    c
}

#[autodiff]
impl Add for Sym {
    type Output = Sym;
    fn add(self, rhs: Self) -> Self::Output {
        Sym::from_binary_op(self, rhs, f64::add)
    }
}

#[autodiff]
impl Sub for Sym {
    type Output = Sym;
    fn sub(self, rhs: Self) -> Self::Output {
        Sym::from_binary_op(self, rhs, f64::sub)
    }
}

#[autodiff]
impl Mul<Sym> for f64 {
    type Output = Sym;
    fn mul(self, rhs: Sym) -> Self::Output {
        rhs.scale(self)
    }
}

#[autodiff]
impl Mul<&Sym> for f64 {
    type Output = Sym;
    fn mul(self, rhs: &Sym) -> Self::Output {
        rhs.scale(self)
    }
}

/// Operators through `from_binary_op` and a number on the left, by reference and by value (`a`
/// is of the type for the macro because the body calls a method of it).
#[autodiff]
fn distance(a: &Sym, b: &Sym, k: f64) -> f64 {
    let d = *a - *b + k * a;
    (d + 0.5 * d).norm() + 0.1 * a.dot(b)
}

fn sym(v: &[f64]) -> Sym {
    Sym {
        vals: v.try_into().unwrap(),
    }
}

fn points() -> [(Sym, Sym); 2] {
    [
        (
            sym(&[1.0, 2.0, -0.5, 0.3, 0.2, -0.1]),
            sym(&[0.4, -1.0, 0.7, 0.1, 0.0, 0.5]),
        ),
        (
            sym(&[-0.2, 0.1, 1.5, -0.6, 0.9, 0.2]),
            sym(&[1.1, 0.3, -0.4, 0.2, -0.3, 0.8]),
        ),
    ]
}

#[test]
fn a_function_parameter_called_with_the_tables_functions() {
    for (a, b) in points() {
        let k = 0.7;
        let (ga, gb, gk) = grad_distance(&a, &b, k);
        let mut at = a.vals.to_vec();
        at.extend(b.vals);
        at.push(k);
        let fd = central_difference(|v| distance(&sym(&v[..6]), &sym(&v[6..12]), v[12]), &at);
        let mut g = ga.vals.to_vec();
        g.extend(gb.vals);
        g.push(gk);
        for (i, (g, d)) in g.iter().zip(&fd).enumerate() {
            assert_close(*g, *d, 1e-7, &format!("∇distance[{i}]"));
        }
        let (ta, tb) = (sym(&[1.0; 6]), sym(&[0.5, 0.0, -1.0, 0.0, 2.0, 0.0]));
        let (value, tangent) = jvp_distance(&a, &b, k, &ta, &tb, 1.0);
        assert_eq!(value, distance(&a, &b, k));
        let along: f64 = (0..6)
            .map(|i| ga.vals[i] * ta.vals[i] + gb.vals[i] * tb.vals[i])
            .sum::<f64>()
            + gk;
        assert_close(tangent, along, 1e-12, "jvp_distance");
    }
}

#[test]
fn the_derivative_functions_take_a_function_with_its_partials() {
    let (a, b) = points()[0];
    // ∂(a ⊙ b): the product's partials given by hand.
    let times = diffx::with_partials(|x: f64, y: f64| x * y, |x, y, _| [y, x]);
    assert_eq!(times.value_and_partials([2.0, 3.0]), (6.0, [3.0, 2.0]));
    let (value, tangent) = Sym::jvp_from_binary_op(a, b, times, a, Sym::zero());
    for i in 0..6 {
        assert_eq!(value.vals[i], a.vals[i] * b.vals[i]);
        assert_close(
            tangent.vals[i],
            a.vals[i] * b.vals[i],
            1e-15,
            "tangent of a ⊙ b",
        );
    }
    let ct = sym(&[1.0, -1.0, 2.0, 0.5, 0.0, 3.0]);
    let (gx, gy) = Sym::vjp_from_binary_op(a, b, times, ct);
    for i in 0..6 {
        assert_close(gx.vals[i], ct.vals[i] * b.vals[i], 1e-15, "∂/∂x");
        assert_close(gy.vals[i], ct.vals[i] * a.vals[i], 1e-15, "∂/∂y");
    }
}

#[test]
fn a_map_field_and_a_number_on_the_left() {
    let (a, _) = points()[1];
    let (value, tangent) = a.jvp_scale(2.5, &a, 1.0);
    assert_eq!(value, 2.5 * a);
    assert_eq!(value, 2.5 * &a);
    for i in 0..6 {
        // d(s a) = s da + a ds, along da = a, ds = 1.
        assert_close(tangent.vals[i], 3.5 * a.vals[i], 1e-15, "tangent of s·a");
    }
    let (g, gs) = a.vjp_scale(2.5, a);
    let squares: f64 = a.vals.iter().map(|v| v * v).sum();
    assert_close(gs, squares, 1e-14, "∂/∂s");
    assert_eq!(g, 2.5 * a);
}

#[test]
fn operators_on_the_values_of_the_blocks_functions() {
    let h = [[0.1, 0.2, -0.3], [0.0, -0.1, 0.25], [0.3, 0.1, 0.05]];
    let t = [[1.0, 0.0, 0.5], [0.2, -1.0, 0.0], [0.0, 0.3, 1.0]];
    let (value, tangent) = Sym::jvp_green_euler(h, t);
    assert_eq!(value, Sym::green_euler(h));
    let flat: Vec<f64> = h.iter().flatten().copied().collect();
    let dir: Vec<f64> = t.iter().flatten().copied().collect();
    for i in 0..6 {
        let along = |s: f64| {
            let moved: Vec<f64> = flat.iter().zip(&dir).map(|(x, d)| x + s * d).collect();
            let m: Mat3 = std::array::from_fn(|r| std::array::from_fn(|c| moved[3 * r + c]));
            Sym::green_euler(m).vals[i]
        };
        let fd = central_difference(|s| along(s[0]), &[0.0])[0];
        assert_close(tangent.vals[i], fd, 1e-8, &format!("tangent of e[{i}]"));
    }
    let ct = sym(&[1.0, 0.5, -0.5, 2.0, 0.0, 1.0]);
    let g = Sym::vjp_green_euler(h, ct);
    let left: f64 = (0..3)
        .flat_map(|r| (0..3).map(move |c| (r, c)))
        .map(|(r, c)| g[r][c] * t[r][c])
        .sum();
    let right: f64 = (0..6).map(|i| ct.vals[i] * tangent.vals[i]).sum();
    assert_close(left, right, 1e-12, "⟨Jᵀ ct, t⟩ = ⟨ct, J t⟩");
    // `*m` passed by value: ε is linear, its tangent is ε of the tangent.
    let (e, te) = Sym::jvp_epsilon(&h, &t);
    assert_eq!(e, Sym::epsilon(&h));
    assert_eq!(te, Sym::from_matrix(t));
}

#[test]
fn both_tensors_of_a_method_taking_another() {
    let (a, b) = points()[0];
    let (ga, gb) = a.grad_dot(&b);
    assert_eq!((ga, gb), (b, a));
    let g = a.grad_norm();
    for i in 0..6 {
        assert_close(g.vals[i], a.vals[i] / a.norm(), 1e-15, "∇‖a‖");
    }
}

/// Weights whose first entry the function overwrites.
#[derive(Clone, Debug, PartialEq, Params)]
struct Weights {
    w: Vec<f64>,
}

#[autodiff]
fn overwritten(mut p: Weights, x: f64) -> f64 {
    p.w[0] = x * x;
    p.w.iter_mut().for_each(|v| *v *= 2.0);
    p.w[0] * p.w[1] + p.w[2]
}

#[test]
fn a_field_of_a_mut_parameter_written() {
    let p = Weights {
        w: vec![5.0, 3.0, -1.0],
    };
    let x = 1.5;
    let (g, gx) = grad_overwritten(p.clone(), x);
    // f = 4 x² w₁ + 2 w₂: w₀ is overwritten.
    assert_eq!(g.w, vec![0.0, 4.0 * x * x, 2.0]);
    assert_close(gx, 8.0 * x * p.w[1], 1e-14, "∂/∂x");
    let t = Weights {
        w: vec![1.0, 1.0, 1.0],
    };
    let (value, tangent) = jvp_overwritten(p.clone(), x, t, 0.5);
    assert_eq!(value, overwritten(p.clone(), x));
    assert_close(
        tangent,
        4.0 * x * x + 2.0 + 8.0 * x * p.w[1] * 0.5,
        1e-13,
        "jvp",
    );
}

/// A value of the type written into a `&mut` output: `k * b`, whose operand of the type the
/// macro knows from the output's type.
#[autodiff]
fn scaled_into(e: &Sym, k: f64, tau: &mut Sym) {
    let b = e.scale(2.0);
    *tau = k * b;
}

/// The same value returned.
#[autodiff]
fn scaled(e: &Sym, k: f64) -> Sym {
    let b = e.scale(2.0);
    k * b
}

#[test]
fn a_value_of_the_type_written_into_an_output() {
    let (e, t) = points()[0];
    let k = 1.5;
    let mut tau = Sym::zero();
    scaled_into(&e, k, &mut tau);
    assert_eq!(tau, scaled(&e, k));
    assert_eq!(tau, (2.0 * k) * e);
    // d(2k e) = 2k de + 2e dk.
    let (mut value, mut tangent) = (Sym::zero(), Sym::zero());
    jvp_scaled_into(&e, k, &mut value, &t, 0.5, &mut tangent);
    assert_eq!(value, tau);
    for i in 0..6 {
        let want = 2.0 * k * t.vals[i] + 2.0 * e.vals[i] * 0.5;
        assert_close(tangent.vals[i], want, 1e-14, "tangent written");
    }
    let (v2, t2) = jvp_scaled(&e, k, &t, 0.5);
    assert_eq!((v2, t2), (value, tangent));
    let mut written = Sym::zero();
    let (ge, gk) = vjp_scaled_into(&e, k, &mut written, t);
    assert_eq!(written, tau);
    assert_eq!(ge, (2.0 * k) * t);
    let dot: f64 = (0..6).map(|i| 2.0 * e.vals[i] * t.vals[i]).sum();
    assert_close(gk, dot, 1e-14, "∂/∂k");
    assert_eq!(vjp_scaled(&e, k, t), (ge, gk));
}

#[autodiff]
impl Mul<f64> for Sym {
    type Output = Sym;
    fn mul(self, k: f64) -> Sym {
        self.scale(k)
    }
}

// The compound assignments, written through `Add` and `Mul<f64>`.
#[autodiff]
impl std::ops::AddAssign for Sym {
    fn add_assign(&mut self, rhs: Sym) {
        *self = *self + rhs;
    }
}

#[autodiff]
impl std::ops::MulAssign<f64> for Sym {
    fn mul_assign(&mut self, k: f64) {
        *self = *self * k;
    }
}

/// Compound assignments of a value of the type, in a loop: `acc += …`, `acc *= k`, through the
/// `#[autodiff]` impls of `AddAssign` and `MulAssign<f64>` (which go through `Add` and
/// `Mul<f64>`).
#[autodiff]
fn accumulated(a: &Sym, k: f64, n: usize) -> f64 {
    let mut acc = a.scale(0.5);
    for _ in 0..n {
        acc += k * a;
        acc *= 0.5;
    }
    acc.norm()
}

#[test]
fn compound_assignments_of_a_value_of_the_type() {
    let (a, t) = points()[1];
    for (k, n) in [(0.7, 0), (0.7, 1), (1.3, 3)] {
        let (g, gk) = grad_accumulated(&a, k, n);
        let mut at = a.vals.to_vec();
        at.push(k);
        let fd = central_difference(|v| accumulated(&sym(&v[..6]), v[6], n), &at);
        for i in 0..6 {
            assert_close(g.vals[i], fd[i], 1e-7, &format!("∂/∂a[{i}] (n = {n})"));
        }
        assert_close(gk, fd[6], 1e-7, "∂/∂k");
        let (value, tangent) = jvp_accumulated(&a, k, n, &t, 1.0);
        assert_eq!(value, accumulated(&a, k, n));
        let along: f64 = (0..6).map(|i| g.vals[i] * t.vals[i]).sum::<f64>() + gk;
        assert_close(tangent, along, 1e-12, "jvp_accumulated");
    }
}

#[test]
fn operators_on_parameters_of_the_blocks_type() {
    let (a, b) = points()[0];
    let (ga, gb) = Sym::grad_gap(&a, &b);
    let d0 = a.vals[0] - b.vals[0];
    let want = sym(&[2.0 * d0, 1.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(ga, want);
    assert_eq!(gb, -1.0 * want);
}
