//! Third derivatives (`#[autodiff(order = 3)]`): `dhvp_f`, forward mode over the
//! forward-over-reverse program of `hvp_f`, and `d3_f` for one variable — against analytic third
//! derivatives, central differences of `hvp_`, and the symmetry of the third-derivative tensor,
//! through straight-line code, a loop, a branch and vector writes.

use diffx::autodiff;
use diffx::check::{central_difference, derivative};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// f = x³y² + sin(x)·y.
#[autodiff(order = 3)]
fn poly(x: f64, y: f64) -> f64 {
    x * x * x * y * y + x.sin() * y
}

/// The third-derivative tensor of `poly`, T[i][j][k] = ∂³f/∂i∂j∂k over (x, y):
/// f_xxx = 6y² − cos(x)·y, f_xxy = 12xy − sin(x), f_xyy = 6x², f_yyy = 0.
fn poly_third(x: f64, y: f64) -> [[[f64; 2]; 2]; 2] {
    let (xxx, xxy, xyy, yyy) = (
        6.0 * y * y - x.cos() * y,
        12.0 * x * y - x.sin(),
        6.0 * x * x,
        0.0,
    );
    [[[xxx, xxy], [xxy, xyy]], [[xxy, xyy], [xyy, yyy]]]
}

/// D³f[u, v, ·] from the tensor: Σⱼₖ T[i][j][k]·uⱼ·vₖ.
fn contract(t: &[[[f64; 2]; 2]; 2], u: [f64; 2], v: [f64; 2]) -> [f64; 2] {
    let mut out = [0.0; 2];
    for (i, o) in out.iter_mut().enumerate() {
        for j in 0..2 {
            for k in 0..2 {
                *o += t[i][j][k] * u[j] * v[k];
            }
        }
    }
    out
}

const POINTS: [(f64, f64); 3] = [(0.7, -1.2), (1.5, 0.4), (-2.0, 3.0)];
const DIRECTIONS: [([f64; 2], [f64; 2]); 3] = [
    ([1.0, 0.0], [1.0, 0.0]),
    ([0.0, 1.0], [1.0, 0.0]),
    ([0.3, -1.1], [2.0, 0.5]),
];

#[test]
fn third_derivatives_of_a_polynomial_with_a_sine_are_analytic() {
    for (x, y) in POINTS {
        let t = poly_third(x, y);
        for (u, v) in DIRECTIONS {
            let (a, b) = dhvp_poly(x, y, u[0], u[1], v[0], v[1]);
            let want = contract(&t, u, v);
            assert!(
                close(a, want[0], 1e-12) && close(b, want[1], 1e-12),
                "at ({x}, {y}), u = {u:?}, v = {v:?}: ({a}, {b}) vs {want:?}"
            );
        }
    }
}

#[test]
fn third_derivatives_match_central_differences_of_hvp() {
    for (x, y) in POINTS {
        for (u, v) in DIRECTIONS {
            let (a, b) = dhvp_poly(x, y, u[0], u[1], v[0], v[1]);
            // D³f[u, v, ·] = d/dε hvp(p + εu, v) at ε = 0.
            let fd = |i: usize| {
                derivative(
                    |e| {
                        let h = hvp_poly(x + e * u[0], y + e * u[1], v[0], v[1]);
                        [h.0, h.1][i]
                    },
                    0.0,
                )
            };
            assert!(
                close(a, fd(0), 1e-7) && close(b, fd(1), 1e-7),
                "{a} {b} vs {} {}",
                fd(0),
                fd(1)
            );
        }
    }
}

#[test]
fn the_third_derivative_tensor_is_symmetric() {
    let (u, v, w) = ([0.3, -1.1], [2.0, 0.5], [-0.7, 1.9]);
    // D³f[a, b, c] = ⟨dhvp(a, b), c⟩ for every order of u, v, w.
    let form = |x: f64, y: f64, a: [f64; 2], b: [f64; 2], c: [f64; 2]| {
        let d = dhvp_poly(x, y, a[0], a[1], b[0], b[1]);
        d.0 * c[0] + d.1 * c[1]
    };
    for (x, y) in POINTS {
        let uvw = form(x, y, u, v, w);
        for other in [
            form(x, y, u, w, v),
            form(x, y, v, u, w),
            form(x, y, v, w, u),
            form(x, y, w, u, v),
            form(x, y, w, v, u),
        ] {
            assert!(close(other, uvw, 1e-12), "{other} vs {uvw}");
        }
    }
}

#[autodiff(order = 3)]
fn quartic(x: f64) -> f64 {
    x * x * x * x
}

#[autodiff(order = 3)]
fn exponential(x: f64) -> f64 {
    (0.5 * x).exp()
}

#[test]
fn one_variable_third_derivatives() {
    for x in [-1.5, 0.0, 0.3, 2.0] {
        // (x⁴)‴ = 24x.
        assert!(close(d3_quartic(x), 24.0 * x, 1e-14), "{}", d3_quartic(x));
        assert!(close(dhvp_quartic(x, 2.0, -0.5), -24.0 * x, 1e-14));
        // (e^{x/2})‴ = e^{x/2} / 8.
        let e = (0.5 * x).exp() / 8.0;
        assert!(close(d3_exponential(x), e, 1e-14), "{}", d3_exponential(x));
        let fd = derivative(|x| hvp_exponential(x, 1.0), x);
        assert!(close(d3_exponential(x), fd, 1e-8));
    }
}

/// The seed's power loop: xⁿ by n − 1 multiplications, through a taped loop.
#[autodiff(order = 3)]
fn power(x: f64, n: u32) -> f64 {
    let mut p = x;
    for _ in 1..n {
        p *= x;
    }
    p
}

#[test]
fn third_derivative_through_a_loop() {
    for n in 1..=6_u32 {
        for x in [0.7_f64, -1.3, 2.0] {
            // (xⁿ)‴ = n(n − 1)(n − 2)·xⁿ⁻³.
            let k = f64::from(n);
            let want = k * (k - 1.0) * (k - 2.0) * x.powi(n as i32 - 3);
            assert!(
                close(d3_power(x, n), want, 1e-12),
                "n = {n}, x = {x}: {} vs {want}",
                d3_power(x, n)
            );
            let fd = derivative(|x| hvp_power(x, n, 1.0), x);
            assert!(
                close(d3_power(x, n), fd, 1e-7),
                "n = {n}: {} vs {fd}",
                d3_power(x, n)
            );
        }
    }
}

/// A branch and a `while` loop (Heron's square root of x·y, iterated to a fixed count).
#[autodiff(order = 3)]
fn branchy(x: f64, y: f64) -> f64 {
    let s = if x > y {
        x.powi(3) * y
    } else {
        (x * y).sin() + y * y * y
    };
    let mut r = 1.0;
    let mut k = 0;
    while k < 8 {
        r = 0.5 * (r + x * y / r);
        k += 1;
    }
    s + r
}

#[test]
fn third_derivatives_through_a_branch_and_a_while_loop() {
    for (x, y) in [(1.5, 0.8), (0.6, 1.1), (2.0, 1.7)] {
        for (u, v) in DIRECTIONS {
            let (a, b) = dhvp_branchy(x, y, u[0], u[1], v[0], v[1]);
            let fd = central_difference(
                |p| {
                    let h = hvp_branchy(x + p[0] * u[0], y + p[0] * u[1], v[0], v[1]);
                    h.0 * 0.37 + h.1 * 1.3
                },
                &[0.0],
            )[0];
            assert!(
                close(a * 0.37 + b * 1.3, fd, 1e-6),
                "at ({x}, {y}): {} vs {fd}",
                a * 0.37 + b * 1.3
            );
        }
        // Analytic in the `x > y` arm, away from the square root: s = x³y.
        if x > y {
            let (a, _) = dhvp_branchy(x, y, 1.0, 0.0, 1.0, 0.0);
            let sqrt = (x * y).sqrt();
            // ∂³/∂x³ of √(xy) = (3/8)·√y·x^(−5/2).
            let want = 6.0 * y + 0.375 * y.sqrt() * x.powf(-2.5);
            assert!(close(a, want, 1e-9), "{a} vs {want} (√xy = {sqrt})");
        }
    }
}

use crate::vector_writes;
use vector_writes::*;

#[test]
fn third_derivatives_through_slices_and_vector_writes() {
    let (u, v) = ([0.5, -1.0, 2.0], [1.0, 0.3, -0.4]);
    for x in [[1.0, -2.0, 0.5], [0.3, 0.8, -0.4]] {
        let d = dhvp_written(&x, &u, &v);
        for (i, di) in d.iter().enumerate() {
            let fd = derivative(
                |e| {
                    let p: Vec<f64> = x.iter().zip(&u).map(|(x, u)| x + e * u).collect();
                    hvp_written(&p, &v)[i]
                },
                0.0,
            );
            assert!(close(*di, fd, 1e-6), "{i} at {x:?}: {di} vs {fd}");
        }
    }
}

/// `f32`, and `wrt` leaving a parameter constant: its direction is not asked for.
#[autodiff(order = 3)]
fn cube32(x: f32) -> f32 {
    x * x * x - x
}

#[autodiff(wrt(x), order = 3)]
fn only_x(x: f64, y: f64) -> f64 {
    x.powi(4) * y.sin()
}

#[test]
fn f32_and_wrt() {
    // (x³ − x)‴ = 6.
    assert_eq!(d3_cube32(0.7), 6.0);
    for (x, y) in [(0.5_f64, 1.2_f64), (-1.5, 0.3)] {
        // ∂³/∂x³ (x⁴ sin y) = 24x·sin y.
        let want = 24.0 * x * y.sin();
        assert!(
            close(d3_only_x(x, y), want, 1e-13),
            "{} vs {want}",
            d3_only_x(x, y)
        );
        assert!(close(dhvp_only_x(x, y, 0.5, 2.0), want, 1e-13));
    }
}

/// Two cells updated together in a loop, each feeding the other, one of them in alternating arms.
#[autodiff(order = 3)]
fn iterated(x: f64, y: f64, n: u32) -> f64 {
    let mut a = x;
    let mut b = y;
    for k in 0..n {
        let t = 0.5 * (a * b).sin() + 0.1 * a;
        if k % 2 == 0 {
            b = 0.9 * b + 0.1 * t * t;
        } else {
            b = 0.5 * b.cos() + t;
        }
        a = t;
    }
    a * b + b
}

mod random_points {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// At random points and directions: `hvp_` against central differences of `grad_`, `dhvp_`
        /// against central differences of `hvp_`, and D³f[u, v, w] = D³f[w, u, v].
        #[test]
        fn third_order_of_a_loop_with_two_cells_and_a_branch(
            x in -1.5..1.5_f64, y in -1.5..1.5_f64, n in 0..6_u32,
            u in prop::array::uniform2(-1.0..1.0_f64), v in prop::array::uniform2(-1.0..1.0_f64),
            w in prop::array::uniform2(-1.0..1.0_f64),
        ) {
            let h = hvp_iterated(x, y, n, v[0], v[1]);
            let fd = |i: usize| derivative(|e| {
                let g = grad_iterated(x + e * v[0], y + e * v[1], n);
                [g.0, g.1][i]
            }, 0.0);
            prop_assert!(close(h.0, fd(0), 1e-6) && close(h.1, fd(1), 1e-6), "{h:?} vs {} {}", fd(0), fd(1));
            let d = dhvp_iterated(x, y, n, u[0], u[1], v[0], v[1]);
            let fd = |i: usize| derivative(|e| {
                let h = hvp_iterated(x + e * u[0], y + e * u[1], n, v[0], v[1]);
                [h.0, h.1][i]
            }, 0.0);
            prop_assert!(close(d.0, fd(0), 1e-6) && close(d.1, fd(1), 1e-6), "{d:?} vs {} {}", fd(0), fd(1));
            let form = |a: [f64; 2], b: [f64; 2], c: [f64; 2]| {
                let d = dhvp_iterated(x, y, n, a[0], a[1], b[0], b[1]);
                d.0 * c[0] + d.1 * c[1]
            };
            prop_assert!(close(form(u, v, w), form(w, u, v), 1e-12));
        }
    }
}

/// A parameter struct with a `Vec` field and an optional one.
#[derive(Clone, Debug, diffx::Params)]
struct Curve {
    a: f64,
    c: Vec<f64>,
    shift: Option<f64>,
}

/// (a·x + Σ cᵢ xⁱ⁺¹ + shift)³ + sin(a)·x: third order over a parameter struct.
#[autodiff(order = 3)]
fn curve(p: &Curve, x: f64) -> f64 {
    let mut s = p.a * x;
    let mut xp = x;
    for i in 0..p.c.len() {
        xp *= x;
        s += p.c[i] * xp;
    }
    if let Some(b) = p.shift {
        s += b;
    }
    s.powi(3) + p.a.sin() * x
}

/// A function that ignores its struct (the tester's s9393-f166 refused then).
#[autodiff(order = 3)]
fn quartic_beside(_p: &Curve, x: f64) -> f64 {
    x.powi(4)
}

#[test]
fn third_order_of_parameter_structs() {
    use diffx::Params;
    for shift in [Some(0.3), None] {
        let p = Curve {
            a: 0.5,
            c: vec![0.25, -0.5],
            shift,
        };
        let u = Curve {
            a: 0.5,
            c: vec![1.0, 0.25],
            shift: shift.map(|_| -1.0),
        };
        let v = Curve {
            a: -1.0,
            c: vec![0.5, 0.5],
            shift: shift.map(|_| 2.0),
        };
        let (x, ux, vx) = (0.8, 0.3, -0.6);
        let d = dhvp_curve(&p, x, &u, ux, &v, vx);
        // D³f[u, v, ·] = d/dε hvp(p + εu, v) at ε = 0, for every flat coordinate.
        let mut flat = d.0.to_flat_vec();
        flat.push(d.1);
        for (i, got) in flat.iter().enumerate() {
            let fd = derivative(
                |e| {
                    let mut q = p.clone();
                    q.axpy(e, &u);
                    let h = hvp_curve(&q, x + e * ux, &v, vx);
                    let mut hf = h.0.to_flat_vec();
                    hf.push(h.1);
                    hf[i]
                },
                0.0,
            );
            assert!(close(*got, fd, 1e-6), "coordinate {i}: {got} vs {fd}");
        }
        assert_eq!(d.0.shift.is_some(), shift.is_some());
    }
    let p = Curve {
        a: 1.0,
        c: vec![2.0],
        shift: None,
    };
    let d = dhvp_quartic_beside(&p, 2.0, &p, 1.0, &p, 1.0);
    assert_eq!((d.0.a, d.0.c.clone(), d.1), (0.0, vec![0.0], 48.0));
}
