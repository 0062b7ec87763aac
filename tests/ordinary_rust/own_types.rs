//! Methods of the user's own types called on differentiable values: a symmetric tensor of six
//! numbers in Mandel notation whose `#[autodiff(wrt(self))]` methods (`det`, `trace`, `dot`,
//! `norm`) call each other, and functions that call them on parameters and on parts of
//! parameter structs, in both modes and at second order; methods and associated functions
//! returning the type (`cauchy_green`, `diagonal`), chained (`e.cauchy_green().det()`), as a
//! neo-Hookean material model is written.

use std::ops::{Add, Mul, Neg, Sub};

use diffx::check::central_difference;
use diffx::{autodiff, Params};

use crate::common::{assert_close, check_hessian};

/// A symmetric 3×3 tensor in Mandel notation: `[s₁₁, s₂₂, s₃₃, √2 s₂₃, √2 s₁₃, √2 s₁₂]`, where
/// the dot product of two tensors is the dot product of their six numbers.
#[derive(Clone, Copy, Debug, PartialEq, Params)]
struct Mandel {
    vals: [f64; 6],
}

#[autodiff(wrt(self), order = 2)]
impl Mandel {
    fn trace(&self) -> f64 {
        self.vals[0] + self.vals[1] + self.vals[2]
    }

    fn det(&self) -> f64 {
        let d = 0.5f64.sqrt();
        let v = self.vals;
        let (a, b, c) = (v[0], v[1], v[2]);
        let (yz, xz, xy) = (d * v[3], d * v[4], d * v[5]);
        a * (b * c - yz * yz) - xy * (xy * c - yz * xz) + xz * (xy * yz - b * xz)
    }

    /// Both tensors differentiated.
    #[autodiff(wrt(self, other), order = 2)]
    fn dot(&self, other: &Mandel) -> f64 {
        let mut s = 0.0;
        for i in 0..6 {
            s += self.vals[i] * other.vals[i];
        }
        s
    }

    /// Calls a method of its own type with itself twice.
    fn norm(&self) -> f64 {
        self.dot(self).sqrt()
    }

    /// `b = I + 2e`: the left Cauchy–Green tensor of the Euler–Almansi strain `e` (at second
    /// order too: `psi`'s Hessian goes through it).
    #[autodiff(wrt(self), order = 2)]
    fn cauchy_green(&self) -> Self {
        let v = self.vals;
        Self {
            vals: [
                1.0 + 2.0 * v[0],
                1.0 + 2.0 * v[1],
                1.0 + 2.0 * v[2],
                2.0 * v[3],
                2.0 * v[4],
                2.0 * v[5],
            ],
        }
    }

    /// A diagonal tensor: an associated function returning the type.
    #[autodiff]
    fn diagonal(a: f64, b: f64, c: f64) -> Mandel {
        Mandel {
            vals: [a, b, c, 0.0, 0.0, 0.0],
        }
    }
}

impl Mandel {
    fn matrix(&self) -> [[f64; 3]; 3] {
        let d = 0.5f64.sqrt();
        let v = &self.vals;
        [
            [v[0], d * v[5], d * v[4]],
            [d * v[5], v[1], d * v[3]],
            [d * v[4], d * v[3], v[2]],
        ]
    }

    fn from_matrix(m: [[f64; 3]; 3]) -> Self {
        let s = 0.5f64.sqrt();
        Mandel {
            vals: [
                m[0][0],
                m[1][1],
                m[2][2],
                s * (m[1][2] + m[2][1]),
                s * (m[0][2] + m[2][0]),
                s * (m[0][1] + m[1][0]),
            ],
        }
    }

    fn from_flat(v: &[f64]) -> Self {
        Mandel {
            vals: v.try_into().unwrap(),
        }
    }
}

fn matmul(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                c[i][j] += a[i][k] * b[k][j];
            }
        }
    }
    c
}

/// `ln det b`, whose gradient is `b⁻¹` (Mandel notation keeps the inner product).
#[autodiff(order = 2)]
fn logdet(b: &Mandel) -> f64 {
    b.det().ln()
}

/// A compressible neo-Hookean energy of the right Cauchy–Green tensor `c`, J = √det c.
#[autodiff(order = 2)]
fn neo_hookean(c: &Mandel, mu: f64, lambda: f64) -> f64 {
    let j = c.det().sqrt();
    0.5 * mu * (c.trace() - 3.0) - mu * j.ln() + 0.5 * lambda * j.ln().powi(2)
}

/// The tensors the checks run at: positive definite (a stretch with shear, and a compression).
fn tensors() -> [Mandel; 3] {
    [
        Mandel::from_matrix([[1.2, 0.1, 0.05], [0.1, 0.9, -0.2], [0.05, -0.2, 1.4]]),
        Mandel::from_matrix([[2.0, 0.3, 0.0], [0.3, 1.0, 0.1], [0.0, 0.1, 0.5]]),
        Mandel::from_matrix([[0.8, -0.1, 0.2], [-0.1, 0.7, 0.0], [0.2, 0.0, 0.9]]),
    ]
}

/// The gradient of a function of a tensor against central differences of its six numbers.
#[track_caller]
fn against_differences(f: impl Fn(&Mandel) -> f64, g: &Mandel, at: &Mandel, what: &str) {
    let fd = central_difference(|v| f(&Mandel::from_flat(v)), &at.vals);
    for (i, (g, d)) in g.vals.iter().zip(&fd).enumerate() {
        assert_close(*g, *d, 1e-7, &format!("{what}[{i}]"));
    }
}

#[test]
fn the_gradient_of_logdet_is_the_inverse() {
    for b in tensors() {
        let g = grad_logdet(&b);
        // g · b = I, as matrices.
        let product = matmul(&g.matrix(), &b.matrix());
        for (i, row) in product.iter().enumerate() {
            for (j, p) in row.iter().enumerate() {
                let want = if i == j { 1.0 } else { 0.0 };
                assert_close(*p, want, 1e-13, &format!("(∇ ln det b · b)[{i}][{j}]"));
            }
        }
        against_differences(logdet, &g, &b, "∇ ln det");
        // The method's own derivatives, called on the value.
        let det = b.det();
        let inverse_times_det = b.grad_det();
        for i in 0..6 {
            assert_close(inverse_times_det.vals[i], det * g.vals[i], 1e-12, "∇ det");
        }
    }
    // Where the determinant is negative `ln` has no value, but the gradient of `ln |det|` is
    // still the inverse: as computed, `∇ det / det`.
    let b = Mandel::from_matrix([[1.0, 0.2, 0.0], [0.2, 2.0, 0.3], [0.0, 0.3, -3.2]]);
    assert!(b.det() < 0.0);
    let g = b.grad_det();
    let product = matmul(&g.matrix(), &b.matrix());
    for (i, row) in product.iter().enumerate() {
        assert_close(row[i] / b.det(), 1.0, 1e-13, "∇ det / det · b");
    }
}

#[test]
fn methods_on_a_parameter_in_both_modes() {
    let (mu, lambda) = (0.8, 1.5);
    for c in tensors() {
        let (g, gmu, glambda) = grad_neo_hookean(&c, mu, lambda);
        // By hand: ∂/∂c = μ/2 I − μ/2 c⁻¹ + λ/2 ln J c⁻¹, with ∂ ln J/∂c = c⁻¹/2.
        let inverse = grad_logdet(&c);
        let ln_j = 0.5 * c.det().ln();
        let identity = Mandel::from_matrix([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
        for i in 0..6 {
            let want = 0.5 * mu * identity.vals[i] - 0.5 * mu * inverse.vals[i]
                + 0.5 * lambda * ln_j * inverse.vals[i];
            assert_close(g.vals[i], want, 1e-13, &format!("∂ψ/∂c[{i}]"));
        }
        against_differences(|c| neo_hookean(c, mu, lambda), &g, &c, "∂ψ/∂c");
        assert_close(gmu, 0.5 * (c.trace() - 3.0) - ln_j, 1e-13, "∂ψ/∂μ");
        assert_close(glambda, 0.5 * ln_j * ln_j, 1e-13, "∂ψ/∂λ");
        // Forward mode along a direction of the tensor and of μ.
        let dir = Mandel {
            vals: [0.3, -0.2, 0.1, 0.05, 0.4, -0.1],
        };
        let (value, tangent) = jvp_neo_hookean(&c, mu, lambda, &dir, 0.5, 0.0);
        assert_eq!(value, neo_hookean(&c, mu, lambda));
        let along: f64 = (0..6).map(|i| g.vals[i] * dir.vals[i]).sum::<f64>() + 0.5 * gmu;
        assert_close(tangent, along, 1e-13, "jvp_neo_hookean");
    }
}

/// The Hessian of an energy of a tensor and two moduli against central differences of its
/// gradient, over the tensor's six numbers then the moduli.
#[track_caller]
fn check_energy_hessian(
    h: &[Vec<f64>],
    grad: fn(&Mandel, f64, f64) -> (Mandel, f64, f64),
    c: &Mandel,
    mu: f64,
    lambda: f64,
) {
    let mut flat = c.vals.to_vec();
    flat.extend([mu, lambda]);
    let flat_grad = |v: &[f64]| {
        let (g, gmu, glambda) = grad(&Mandel::from_flat(&v[..6]), v[6], v[7]);
        let mut all = g.vals.to_vec();
        all.extend([gmu, glambda]);
        all
    };
    check_hessian(h, flat_grad, &flat);
}

#[test]
fn methods_on_a_parameter_at_second_order() {
    let (mu, lambda) = (0.8, 1.5);
    for c in tensors() {
        let h = hessian_neo_hookean(&c, mu, lambda);
        check_energy_hessian(&h, grad_neo_hookean, &c, mu, lambda);
        let dir = Mandel {
            vals: [0.1, 0.2, -0.3, 0.0, 0.1, 0.2],
        };
        let (hc, hmu, hlambda) = hvp_neo_hookean(&c, mu, lambda, &dir, 1.0, -1.0);
        let mut hv: Vec<f64> = hc.vals.to_vec();
        hv.extend([hmu, hlambda]);
        let mut v = dir.vals.to_vec();
        v.extend([1.0, -1.0]);
        for (i, row) in h.iter().enumerate() {
            let want: f64 = row.iter().zip(&v).map(|(a, b)| a * b).sum();
            assert_close(hv[i], want, 1e-12, &format!("hvp[{i}]"));
        }
    }
}

#[test]
fn a_method_called_with_its_receiver_twice() {
    for c in tensors() {
        let g = c.grad_norm();
        let norm = c.norm();
        for i in 0..6 {
            assert_close(g.vals[i], c.vals[i] / norm, 1e-14, "∇‖c‖");
        }
        let (gs, go) = c.grad_dot(&tensors()[0]);
        assert_eq!(gs, tensors()[0]);
        assert_eq!(go, c);
    }
}

/// A material holding its tensor: the method called on a part of a parameter struct.
#[derive(Clone, Debug, Params)]
struct Material {
    stretch: Mandel,
    stiffness: f64,
}

#[autodiff(order = 2)]
fn stored(m: &Material) -> f64 {
    m.stiffness * m.stretch.det().ln()
}

#[test]
fn a_method_on_a_part_of_a_parameter_struct() {
    for c in tensors() {
        let m = Material {
            stretch: c,
            stiffness: 2.5,
        };
        let g = grad_stored(&m);
        let inverse = grad_logdet(&c);
        for i in 0..6 {
            assert_close(
                g.stretch.vals[i],
                2.5 * inverse.vals[i],
                1e-13,
                "∂/∂stretch",
            );
        }
        assert_close(g.stiffness, c.det().ln(), 1e-14, "∂/∂stiffness");
        let t = Material {
            stretch: Mandel { vals: [1.0; 6] },
            stiffness: 0.0,
        };
        let (_, tangent) = jvp_stored(&m, &t);
        let along: f64 = g.stretch.vals.iter().sum();
        assert_close(tangent, along, 1e-13, "jvp_stored");
    }
}

/// The Helmholtz free energy of a compressible neo-Hookean material, of the strain `e`.
#[autodiff(order = 2)]
fn psi(e: &Mandel, mu: f64, lambda: f64) -> f64 {
    let j = e.cauchy_green().det().sqrt();
    0.25 * lambda * (j * j - 1.0 - 2.0 * j.ln()) + mu * (e.trace() - j.ln())
}

/// The Kirchhoff stress in closed form: ½λ(J² − 1) I + 2μ e.
fn stress(e: &Mandel, mu: f64, lambda: f64) -> [[f64; 3]; 3] {
    let j2 = e.cauchy_green().det();
    let m = e.matrix();
    let mut tau = [[0.0; 3]; 3];
    for i in 0..3 {
        for k in 0..3 {
            let identity = if i == k { 1.0 } else { 0.0 };
            tau[i][k] = 0.5 * lambda * (j2 - 1.0) * identity + 2.0 * mu * m[i][k];
        }
    }
    tau
}

#[test]
fn the_stress_of_grad_psi_is_the_closed_form() {
    let (mu, lambda) = (1.0 / 2.6, 0.3 / (1.3 * 0.4));
    let strains = [
        Mandel::from_matrix([[0.1, 0.12, 0.13], [0.12, 0.2, 0.14], [0.13, 0.14, -0.27]]),
        Mandel::from_matrix([[0.05, 0.0, 0.02], [0.0, -0.1, 0.03], [0.02, 0.03, 0.15]]),
    ];
    for e in strains {
        let (g, _, _) = grad_psi(&e, mu, lambda);
        // τ = ∂ψ/∂e · b.
        let tau = matmul(&g.matrix(), &e.cauchy_green().matrix());
        let want = stress(&e, mu, lambda);
        for i in 0..3 {
            for k in 0..3 {
                assert_close(tau[i][k], want[i][k], 1e-13, &format!("τ[{i}][{k}]"));
            }
        }
        against_differences(|e| psi(e, mu, lambda), &g, &e, "∂ψ/∂e");
        let dir = Mandel {
            vals: [0.2, -0.1, 0.3, 0.1, 0.0, -0.2],
        };
        let (value, tangent) = jvp_psi(&e, mu, lambda, &dir, 0.0, 0.0);
        assert_eq!(value, psi(&e, mu, lambda));
        let along: f64 = (0..6).map(|i| g.vals[i] * dir.vals[i]).sum();
        assert_close(tangent, along, 1e-13, "jvp_psi");
    }
}

#[test]
fn a_method_returning_the_type_has_struct_derivatives() {
    let e = tensors()[0];
    let dir = Mandel {
        vals: [1.0, 0.0, -1.0, 0.5, 0.0, 2.0],
    };
    let (value, tangent) = e.jvp_cauchy_green(&dir);
    assert_eq!(value, e.cauchy_green());
    for i in 0..6 {
        assert_close(
            tangent.vals[i],
            2.0 * dir.vals[i],
            1e-15,
            "tangent of b = I + 2e",
        );
    }
    let ct = Mandel {
        vals: [0.5, 1.0, 1.5, 2.0, 2.5, 3.0],
    };
    let g = e.vjp_cauchy_green(ct);
    for i in 0..6 {
        assert_close(
            g.vals[i],
            2.0 * ct.vals[i],
            1e-15,
            "cotangent of b = I + 2e",
        );
    }
    let (v, t) = Mandel::jvp_diagonal(1.0, 2.0, 3.0, 0.5, 0.0, -1.0);
    assert_eq!(v, Mandel::diagonal(1.0, 2.0, 3.0));
    assert_eq!(t.vals, [0.5, 0.0, -1.0, 0.0, 0.0, 0.0]);
    let (ga, gb, gc) = Mandel::vjp_diagonal(1.0, 2.0, 3.0, ct);
    assert_eq!((ga, gb, gc), (0.5, 1.0, 1.5));
}

/// `returned_values` with its loop recording in the backward sweep (the default) and
/// `returned_values_recomputed` with its loop made again there: a returned value read by field and
/// by method, in a loop and an arm, and an associated function's value chained.
macro_rules! returned_values {
    ($($name:ident $(, $loops:literal)?;)*) => {$(
        #[autodiff$((loops = $loops))?]
        fn $name(e: &Mandel, x: f64, n: usize) -> f64 {
            let mut s = Mandel::diagonal(x, x * x, 1.0).det();
            for i in 0..n {
                let b = e.cauchy_green();
                s += b.vals[i] * x + b.det();
                if s > 2.0 {
                    let c = e.cauchy_green();
                    s += c.vals[5] * c.trace();
                }
            }
            s
        }
    )*};
}

returned_values! {
    returned_values;
    returned_values_recomputed, "recompute";
}

#[test]
fn returned_values_read_by_field_and_by_method() {
    for x in [0.5, 1.3] {
        for e in tensors() {
            let (g, gx) = grad_returned_values(&e, x, 4);
            assert_eq!(grad_returned_values_recomputed(&e, x, 4), (g, gx));
            against_differences(|e| returned_values(e, x, 4), &g, &e, "∂/∂e");
            let fd = central_difference(|v| returned_values(&e, v[0], 4), &[x]);
            assert_close(gx, fd[0], 1e-7, "∂/∂x");
            let (_, t) = jvp_returned_values(&e, x, 4, &e, 1.0);
            let along: f64 = (0..6).map(|i| g.vals[i] * e.vals[i]).sum::<f64>() + gx;
            assert_close(t, along, 1e-12, "jvp");
        }
    }
}

/// Operator impls of the tensor, `#[autodiff]`: both operands differentiable.
#[autodiff]
impl Add for Mandel {
    type Output = Mandel;
    fn add(self, rhs: Self) -> Self::Output {
        let (a, b) = (self.vals, rhs.vals);
        Mandel {
            vals: [
                a[0] + b[0],
                a[1] + b[1],
                a[2] + b[2],
                a[3] + b[3],
                a[4] + b[4],
                a[5] + b[5],
            ],
        }
    }
}

#[autodiff]
impl Sub for Mandel {
    type Output = Mandel;
    fn sub(self, rhs: Self) -> Mandel {
        let (a, b) = (self.vals, rhs.vals);
        Mandel {
            vals: [
                a[0] - b[0],
                a[1] - b[1],
                a[2] - b[2],
                a[3] - b[3],
                a[4] - b[4],
                a[5] - b[5],
            ],
        }
    }
}

#[autodiff]
impl Mul<f64> for Mandel {
    type Output = Mandel;
    fn mul(self, k: f64) -> Mandel {
        let a = self.vals;
        Mandel {
            vals: [a[0] * k, a[1] * k, a[2] * k, a[3] * k, a[4] * k, a[5] * k],
        }
    }
}

#[autodiff]
impl Neg for Mandel {
    type Output = Mandel;
    fn neg(self) -> Mandel {
        let a = self.vals;
        Mandel {
            vals: [-a[0], -a[1], -a[2], -a[3], -a[4], -a[5]],
        }
    }
}

/// Operators on values of the type the function has called methods of: through the impls'
/// derivative functions.
#[autodiff]
fn mixed(e: &Mandel, k: f64) -> f64 {
    let b = e.cauchy_green();
    let c = b.cauchy_green();
    let s = b.trace() + c.trace();
    let mean = (b + c) * 0.5;
    let d = -(mean - b) * k;
    s + mean.det() + d.trace() * d.trace()
}

#[test]
fn operators_on_values_of_the_type() {
    for e in tensors() {
        let e = Mandel {
            vals: e.vals.map(|v| 0.1 * v),
        };
        for k in [0.5, 2.0] {
            let (g, gk) = grad_mixed(&e, k);
            against_differences(|e| mixed(e, k), &g, &e, "∂/∂e");
            let fd = central_difference(|v| mixed(&e, v[0]), &[k]);
            assert_close(gk, fd[0], 1e-7, "∂/∂k");
            let dir = Mandel {
                vals: [0.5, -0.5, 1.0, 0.25, 0.0, -1.0],
            };
            let (value, tangent) = jvp_mixed(&e, k, &dir, 1.0);
            assert_eq!(value, mixed(&e, k));
            let along: f64 = (0..6).map(|i| g.vals[i] * dir.vals[i]).sum::<f64>() + gk;
            assert_close(tangent, along, 1e-12, "jvp_mixed");
        }
    }
    // The operators' own derivative functions, on the value.
    let (a, b) = (tensors()[0], tensors()[1]);
    let (sum, tangent) = a.jvp_add(b, b, a);
    assert_eq!(sum, a + b);
    assert_eq!(tangent, b + a);
    let (ga, gk) = a.vjp_mul_by_number(3.0, b);
    assert_eq!(ga, b * 3.0);
    let dot: f64 = (0..6).map(|i| a.vals[i] * b.vals[i]).sum();
    assert_close(gk, dot, 1e-15, "∂(a k)/∂k");
}

/// Operators on parameters: `e` is a value of the type because the body calls a method of it.
#[autodiff]
fn relative(e: &Mandel, reference: &Mandel, k: f64) -> f64 {
    let d = *e - *reference;
    let scaled = -(d * k);
    scaled.trace() * scaled.trace() + e.det()
}

#[test]
fn operators_on_parameters_the_body_calls_methods_of() {
    let reference = tensors()[1];
    for e in tensors() {
        let k = 0.7;
        let (ge, gr, gk) = grad_relative(&e, &reference, k);
        against_differences(|e| relative(e, &reference, k), &ge, &e, "∂/∂e");
        against_differences(|r| relative(&e, r, k), &gr, &reference, "∂/∂reference");
        let fd = central_difference(|v| relative(&e, &reference, v[0]), &[k]);
        assert_close(gk, fd[0], 1e-7, "∂/∂k");
    }
}

/// A number times the tensor: the derivative functions of `impl Mul<Mandel> for f64` are methods
/// of `Mandel` (`rmul`).
#[autodiff]
impl Mul<Mandel> for f64 {
    type Output = Mandel;
    fn mul(self, m: Mandel) -> Mandel {
        let a = m.vals;
        Mandel {
            vals: [
                self * a[0],
                self * a[1],
                self * a[2],
                self * a[3],
                self * a[4],
                self * a[5],
            ],
        }
    }
}

/// `½ e + k e`, with the number on the left both times.
#[autodiff]
fn number_on_the_left(e: &Mandel, k: f64) -> f64 {
    let half = 0.5 * *e;
    (half + k * *e).det() + e.trace()
}

#[test]
fn a_number_times_a_value_of_the_type() {
    for e in tensors() {
        let k = 1.5;
        let (g, gk) = grad_number_on_the_left(&e, k);
        against_differences(|e| number_on_the_left(e, k), &g, &e, "∂/∂e");
        // det((½ + k) e) = (½ + k)³ det e.
        assert_close(gk, 3.0 * (0.5f64 + k).powi(2) * e.det(), 1e-12, "∂/∂k");
        let (v, t) = jvp_number_on_the_left(&e, k, &e, 0.0);
        assert_eq!(v, number_on_the_left(&e, k));
        let along: f64 = (0..6).map(|i| g.vals[i] * e.vals[i]).sum();
        assert_close(t, along, 1e-12, "jvp");
    }
    let m = tensors()[0];
    assert_eq!(
        m.vjp_rmul(2.0, m),
        (m * 2.0, m.vals.iter().map(|v| v * v).sum())
    );
}

/// A call's value in an operator before the body calls a method of it.
#[autodiff]
fn value_in_an_operator_first(e: &Mandel, k: f64) -> f64 {
    let b = e.cauchy_green();
    let doubled = b + b;
    let scaled = doubled * k;
    scaled.det() + b.trace()
}

#[test]
fn a_calls_value_in_an_operator_before_its_methods() {
    for e in tensors() {
        let e = Mandel {
            vals: e.vals.map(|v| 0.1 * v),
        };
        let k = 0.8;
        let (g, gk) = grad_value_in_an_operator_first(&e, k);
        against_differences(|e| value_in_an_operator_first(e, k), &g, &e, "∂/∂e");
        // det(2k b) = 8k³ det b.
        assert_close(gk, 24.0 * k * k * e.cauchy_green().det(), 1e-12, "∂/∂k");
    }
}

#[test]
fn second_order_through_a_struct_result() {
    let (mu, lambda) = (1.0 / 2.6, 0.3 / (1.3 * 0.4));
    let e = Mandel::from_matrix([[0.1, 0.12, 0.13], [0.12, 0.2, 0.14], [0.13, 0.14, -0.27]]);
    check_energy_hessian(&hessian_psi(&e, mu, lambda), grad_psi, &e, mu, lambda);
    // The hidden second-order function of the struct result, as a caller's second order calls
    // it: the cotangent's tangent carried back.
    let ct = Mandel { vals: [1.0; 6] };
    let (value, g, g_dot) = e.__diffx_hvp_cauchy_green(e, ct, ct);
    assert_eq!(value, e.cauchy_green());
    // b = I + 2e is linear: the gradient is 2 ct, its tangent 2 ct_dot.
    assert_eq!((g.0.vals, g_dot.0.vals), ([2.0; 6], [2.0; 6]));
}
