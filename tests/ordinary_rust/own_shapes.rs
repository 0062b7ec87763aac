//! Results of the user's own shapes: arrays of arrays (`-> [[f64; 3]; 2]`, or a type alias of
//! one, `-> Mat3`) returned as a literal, a local or a call's value, and read by a caller as
//! `m[i][j]`; a method returning the matrix of its struct; a struct returned as another
//! function's value (`KM::from_matrix(matinv(&a))`). Each checked against central differences in
//! both modes.

// (Index loops as numeric code writes them.)
#![allow(clippy::needless_range_loop)]

use diffx::check::central_difference;
use diffx::{autodiff, Params};

use crate::common::assert_close;

type Mat3 = [[f64; 3]; 3];

/// `a · b`, either transposed: a result of a type alias, returned as a local array of arrays.
#[autodiff]
fn matmul(a: &Mat3, at: bool, b: &Mat3, bt: bool) -> Mat3 {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                let aa = if at { a[k][i] } else { a[i][k] };
                let bb = if bt { b[j][k] } else { b[k][j] };
                c[i][j] += aa * bb;
            }
        }
    }
    c
}

/// The inverse by cofactors: a literal array of arrays, then divided in place.
#[autodiff]
fn matinv(a: &Mat3) -> Mat3 {
    let mut b = [
        [
            a[1][1] * a[2][2] - a[1][2] * a[2][1],
            a[0][2] * a[2][1] - a[0][1] * a[2][2],
            a[0][1] * a[1][2] - a[0][2] * a[1][1],
        ],
        [
            a[1][2] * a[2][0] - a[1][0] * a[2][2],
            a[0][0] * a[2][2] - a[0][2] * a[2][0],
            a[0][2] * a[1][0] - a[0][0] * a[1][2],
        ],
        [
            a[1][0] * a[2][1] - a[1][1] * a[2][0],
            a[0][1] * a[2][0] - a[0][0] * a[2][1],
            a[0][0] * a[1][1] - a[0][1] * a[1][0],
        ],
    ];
    let det = a[0][0] * b[0][0] + a[0][1] * b[1][0] + a[0][2] * b[2][0];
    for i in 0..3 {
        for j in 0..3 {
            b[i][j] /= det;
        }
    }
    b
}

/// A non-square result written out: rows and columns must not trade places.
#[autodiff]
fn outer(u: [f64; 2], v: [f64; 3]) -> [[f64; 3]; 2] {
    [
        [u[0] * v[0], u[0] * v[1], u[0] * v[2].sin()],
        [u[1] * v[0], u[1] * v[1] * v[1], u[1] * v[2]],
    ]
}

/// A caller reading the matrices its callees return by two indices.
#[autodiff]
fn weighted_trace(a: &Mat3) -> f64 {
    let c = matmul(a, false, a, true);
    let inv = matinv(a);
    let mut s = 0.0;
    for i in 0..3 {
        s += c[i][i] * (i + 1) as f64 + inv[i][(i + 1) % 3];
    }
    s
}

fn matrices() -> [Mat3; 3] {
    [
        [[1.2, 0.1, 0.05], [0.3, 0.9, -0.2], [0.05, -0.4, 1.4]],
        [[2.0, 0.3, 0.0], [0.1, 1.0, 0.1], [0.7, 0.1, 0.5]],
        [[-0.8, -0.1, 0.2], [-0.1, 0.7, 0.6], [0.2, 0.0, 0.9]],
    ]
}

fn flat(m: &Mat3) -> Vec<f64> {
    m.iter().flatten().copied().collect()
}

fn unflat(v: &[f64]) -> Mat3 {
    std::array::from_fn(|i| std::array::from_fn(|j| v[3 * i + j]))
}

fn frobenius(a: &Mat3, b: &Mat3) -> f64 {
    flat(a).iter().zip(flat(b)).map(|(x, y)| x * y).sum()
}

/// `jvp_` of a matrix function against central differences along `t`, and `vjp_` its
/// transpose: ⟨ct, J t⟩ = ⟨Jᵀ ct, t⟩.
#[track_caller]
fn check_matrix_function(
    f: impl Fn(&Mat3) -> Mat3,
    jvp: impl Fn(&Mat3, &Mat3) -> (Mat3, Mat3),
    vjp: impl Fn(&Mat3, Mat3) -> Mat3,
    what: &str,
) {
    let t = [[0.3, -0.2, 0.1], [0.05, 0.4, -0.1], [0.2, 0.0, -0.3]];
    let ct = [[1.0, 0.5, -0.25], [0.0, 2.0, 1.0], [-1.0, 0.3, 0.7]];
    for a in matrices() {
        let (value, tangent) = jvp(&a, &t);
        assert_eq!(value, f(&a), "{what}: the value");
        for i in 0..3 {
            for j in 0..3 {
                let along = |s: f64| {
                    let moved = unflat(
                        &flat(&a)
                            .iter()
                            .zip(flat(&t))
                            .map(|(x, d)| x + s * d)
                            .collect::<Vec<_>>(),
                    );
                    f(&moved)[i][j]
                };
                let fd = central_difference(|s| along(s[0]), &[0.0])[0];
                assert_close(
                    tangent[i][j],
                    fd,
                    1e-7,
                    &format!("{what}: tangent[{i}][{j}]"),
                );
            }
        }
        let g = vjp(&a, ct);
        assert_close(
            frobenius(&g, &t),
            frobenius(&ct, &tangent),
            1e-12,
            &format!("{what}: ⟨Jᵀ ct, t⟩ = ⟨ct, J t⟩"),
        );
    }
}

#[test]
fn a_type_alias_of_an_array_of_arrays_as_the_result() {
    check_matrix_function(
        |a| matmul(a, false, a, true),
        |a, t| jvp_matmul(a, false, a, true, t, t),
        |a, ct| {
            let (ga, gb) = vjp_matmul(a, false, a, true, ct);
            unflat(
                &flat(&ga)
                    .iter()
                    .zip(flat(&gb))
                    .map(|(x, y)| x + y)
                    .collect::<Vec<_>>(),
            )
        },
        "a aᵀ",
    );
    check_matrix_function(matinv, jvp_matinv, vjp_matinv, "a⁻¹");
    // d(a⁻¹) = −a⁻¹ da a⁻¹.
    let a = matrices()[1];
    let t = [[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let (inv, tangent) = jvp_matinv(&a, &t);
    let want = matmul(&matmul(&inv, false, &t, false), false, &inv, false);
    for i in 0..3 {
        for j in 0..3 {
            assert_close(tangent[i][j], -want[i][j], 1e-13, "d(a⁻¹)");
        }
    }
}

#[test]
fn a_non_square_result_keeps_its_rows_and_columns() {
    let (u, v) = ([1.5, -0.5], [0.3, 2.0, -1.0]);
    let (value, tangent) = jvp_outer(u, v, [1.0, 0.0], [0.0, 0.0, 1.0]);
    assert_eq!(value, outer(u, v));
    // ∂/∂u₀ along u₀, ∂/∂v₂ along v₂.
    let want = [
        [v[0], v[1], v[2].sin() + u[0] * v[2].cos()],
        [0.0, 0.0, u[1]],
    ];
    for i in 0..2 {
        for j in 0..3 {
            assert_close(
                tangent[i][j],
                want[i][j],
                1e-14,
                &format!("tangent[{i}][{j}]"),
            );
        }
    }
    let ct = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let (gu, gv) = vjp_outer(u, v, ct);
    assert_close(gu[0], v[0] + 2.0 * v[1] + 3.0 * v[2].sin(), 1e-14, "∂/∂u₀");
    assert_close(
        gu[1],
        4.0 * v[0] + 5.0 * v[1] * v[1] + 6.0 * v[2],
        1e-14,
        "∂/∂u₁",
    );
    assert_close(gv[1], 2.0 * u[0] + 10.0 * u[1] * v[1], 1e-14, "∂/∂v₁");
    assert_close(gv[2], 3.0 * u[0] * v[2].cos() + 6.0 * u[1], 1e-14, "∂/∂v₂");
}

#[test]
fn a_caller_reads_the_matrices_its_callees_return() {
    for a in matrices() {
        let g = grad_weighted_trace(&a);
        let fd = central_difference(|v| weighted_trace(&unflat(v)), &flat(&a));
        for (k, (g, d)) in flat(&g).iter().zip(&fd).enumerate() {
            assert_close(*g, *d, 1e-6, &format!("∇[{k}]"));
        }
        let t = matrices()[0];
        let (value, tangent) = jvp_weighted_trace(&a, &t);
        assert_eq!(value, weighted_trace(&a));
        assert_close(tangent, frobenius(&g, &t), 1e-12, "jvp_weighted_trace");
    }
}

/// A symmetric tensor in Kelvin–Mandel notation whose methods go through its matrix.
#[derive(Clone, Copy, Debug, PartialEq, Params)]
struct KM {
    vals: [f64; 6],
}

#[autodiff(wrt(self))]
impl KM {
    fn from_matrix(a: Mat3) -> Self {
        let s = 0.5_f64.sqrt();
        KM {
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

    /// A method returning a type alias of an array of arrays, written out.
    fn matrix(&self) -> Mat3 {
        let d = 0.5_f64.sqrt();
        let v = &self.vals;
        [
            [v[0], d * v[5], d * v[4]],
            [d * v[5], v[1], d * v[3]],
            [d * v[4], d * v[3], v[2]],
        ]
    }

    /// Reads the matrix another method returns.
    fn det(&self) -> f64 {
        let m = self.matrix();
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }

    /// Returns the struct another function returns.
    fn inv(&self) -> Self {
        let a = self.matrix();
        KM::from_matrix(matinv(&a))
    }
}

fn tensors() -> [KM; 2] {
    [
        KM::from_matrix([[1.2, 0.1, 0.05], [0.1, 0.9, -0.2], [0.05, -0.2, 1.4]]),
        KM::from_matrix([[1.0, 0.2, 0.0], [0.2, 2.0, 0.3], [0.0, 0.3, -3.2]]),
    ]
}

#[test]
fn methods_through_the_matrix_of_a_struct() {
    let dir = KM {
        vals: [0.3, -0.2, 0.1, 0.05, 0.4, -0.1],
    };
    for b in tensors() {
        // ∇ det = det · b⁻¹, which `inv` computes through two other functions.
        let g = b.grad_det();
        let inv = b.inv();
        for i in 0..6 {
            assert_close(g.vals[i], b.det() * inv.vals[i], 1e-12, "∇ det");
        }
        let fd = central_difference(
            |v| {
                KM {
                    vals: v.try_into().unwrap(),
                }
                .det()
            },
            &b.vals,
        );
        for i in 0..6 {
            assert_close(g.vals[i], fd[i], 1e-7, "∇ det by differences");
        }
        let (m, tm) = b.jvp_matrix(&dir);
        assert_eq!(m, b.matrix());
        assert_eq!(tm, dir.matrix());
        // The struct result of a call: its tangent against differences, its cotangent the
        // transpose.
        let (value, tangent) = b.jvp_inv(&dir);
        assert_eq!(value, inv);
        let moved = |s: f64, i: usize| {
            let v: Vec<f64> = b
                .vals
                .iter()
                .zip(dir.vals)
                .map(|(x, d)| x + s * d)
                .collect();
            KM {
                vals: v.try_into().unwrap(),
            }
            .inv()
            .vals[i]
        };
        for i in 0..6 {
            let fd = central_difference(|s| moved(s[0], i), &[0.0])[0];
            assert_close(tangent.vals[i], fd, 1e-7, &format!("tangent of inv [{i}]"));
        }
        let ct = KM {
            vals: [1.0, 0.5, -0.25, 2.0, 1.0, -1.0],
        };
        let g = b.vjp_inv(ct);
        let left: f64 = (0..6).map(|i| g.vals[i] * dir.vals[i]).sum();
        let right: f64 = (0..6).map(|i| ct.vals[i] * tangent.vals[i]).sum();
        assert_close(left, right, 1e-12, "⟨Jᵀ ct, t⟩ = ⟨ct, J t⟩ of inv");
    }
}

/// A struct result that is another function's value, at second order.
#[derive(Clone, Copy, Debug, PartialEq, Params)]
struct V2 {
    x: f64,
    y: f64,
}

#[autodiff(wrt(self), order = 2)]
impl V2 {
    fn make(x: f64, y: f64) -> V2 {
        V2 {
            x: x * y,
            y: y.sin(),
        }
    }

    fn twisted(&self) -> V2 {
        V2::make(self.y, self.x)
    }

    fn norm2(&self) -> f64 {
        self.x * self.x + self.y * self.y
    }
}

#[autodiff(order = 2)]
fn twisted_norm(v: &V2) -> f64 {
    v.twisted().norm2()
}

#[test]
fn second_order_through_a_struct_another_function_returns() {
    for (x, y) in [(0.7, 1.3), (-0.4, 2.0)] {
        let h = hessian_twisted_norm(&V2 { x, y });
        let grad = |p: &[f64]| {
            let g = grad_twisted_norm(&V2 { x: p[0], y: p[1] });
            vec![g.x, g.y]
        };
        crate::common::check_hessian(&h, grad, &[x, y]);
        // f = x² y² + sin² x: ∂²f/∂x∂y = 4xy.
        assert_close(h[0][1], 4.0 * x * y, 1e-12, "∂²f/∂x∂y");
    }
}
