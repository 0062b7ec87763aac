//! Operators of the user's own type on parameters of free functions that the body calls no
//! method of (`*a - *b`, `r * f` by value): the parameter is a value of the type, its operators
//! are the type's `#[autodiff]` impls (a cross product for `V3 * V3`, which no number rule would
//! give); fields of a value of the type written (`s.x += …`, in loops and branches); compound
//! assignments through the type's `#[autodiff]` `AddAssign`, `SubAssign`, `MulAssign<f64>` and
//! `DivAssign<f64>` (written by field, or whole through `*self = …`); in both modes and at
//! second order. And the Jacobians of results of the type: a row per number, in the order the
//! struct declares its fields (as its literal writes them, without `Params`).

use std::ops::{Add, AddAssign, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use diffx::check::central_difference;
use diffx::{autodiff, Params};

use crate::common::{assert_close, check_hessian};

#[derive(Clone, Copy, Debug, PartialEq, Params)]
struct V3 {
    x: f64,
    y: f64,
    z: f64,
}

impl V3 {
    fn of(v: &[f64]) -> V3 {
        V3 {
            x: v[0],
            y: v[1],
            z: v[2],
        }
    }

    fn flat(self) -> [f64; 3] {
        [self.x, self.y, self.z]
    }
}

#[autodiff(order = 2)]
impl Add for V3 {
    type Output = V3;
    fn add(self, o: V3) -> V3 {
        V3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

#[autodiff(order = 2)]
impl Sub for V3 {
    type Output = V3;
    fn sub(self, o: V3) -> V3 {
        V3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

#[autodiff(order = 2)]
impl Neg for V3 {
    type Output = V3;
    fn neg(self) -> V3 {
        V3 {
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }
}

/// The cross product.
#[autodiff(order = 2)]
impl Mul for V3 {
    type Output = V3;
    fn mul(self, o: V3) -> V3 {
        V3 {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }
}

#[autodiff(order = 2)]
impl Mul<f64> for V3 {
    type Output = V3;
    fn mul(self, k: f64) -> V3 {
        V3 {
            x: self.x * k,
            y: self.y * k,
            z: self.z * k,
        }
    }
}

#[autodiff(order = 2)]
impl Mul<V3> for f64 {
    type Output = V3;
    fn mul(self, v: V3) -> V3 {
        V3 {
            x: self * v.x,
            y: self * v.y,
            z: self * v.z,
        }
    }
}

/// A spring's energy between two points: parameters behind references, read only by operators
/// (the float methods on names, `l2.sqrt()`, do not make them tensors).
#[autodiff(order = 2)]
fn spring(a: &V3, b: &V3, rest: f64) -> f64 {
    let d = *a - *b;
    let l2 = d.x * d.x + d.y * d.y + d.z * d.z;
    let len = l2.sqrt();
    (len - rest).powi(2)
}

/// Parameters by value: a cross product, negation, a number on either side.
#[autodiff(order = 2)]
fn torque(r: V3, f: V3, t: f64) -> f64 {
    let m = -(r * f) * t + 0.5 * (r + f);
    m.x * m.y + m.z * t
}

fn points() -> [[f64; 7]; 3] {
    [
        [0.7, 1.3, -0.4, 0.1, -0.4, 0.9, 0.8],
        [-1.1, 0.2, 0.5, 0.6, 0.3, -0.7, 1.9],
        [2.0, -0.5, 1.5, -0.3, 1.2, 0.4, 0.35],
    ]
}

/// A function of two vectors and a number as one of seven numbers.
type Of7 = fn(&[f64]) -> f64;

/// `jvp_` of a function of two vectors by value, a number and a count.
type CountedJvp = fn(V3, V3, f64, usize, V3, V3, f64) -> (f64, f64);

/// The generated functions of a function of two vectors by value, a number and a count.
struct Counted {
    f: fn(V3, V3, f64, usize) -> f64,
    grad: fn(V3, V3, f64, usize) -> (V3, V3, f64),
    jvp: CountedJvp,
    hessian: fn(V3, V3, f64, usize) -> Vec<Vec<f64>>,
}

impl Counted {
    /// [`check`] at each count of `counts`.
    #[track_caller]
    fn check(&self, counts: &[usize]) {
        let two = |p: &[f64]| (V3::of(&p[..3]), V3::of(&p[3..6]), p[6]);
        for &n in counts {
            let grad = |p: &[f64]| {
                let (a, b, k) = two(p);
                let (ga, gb, gk) = (self.grad)(a, b, k, n);
                [ga.flat().as_slice(), &gb.flat(), &[gk]].concat()
            };
            let jvp = |p: &[f64], t: &[f64]| {
                let ((a, b, k), (ta, tb, tk)) = (two(p), two(t));
                let (v, d) = (self.jvp)(a, b, k, n, ta, tb, tk);
                assert_eq!(v, (self.f)(a, b, k, n));
                d
            };
            let f = |p: &[f64]| {
                let (a, b, k) = two(p);
                (self.f)(a, b, k, n)
            };
            let hessian = |p: &[f64]| {
                let (a, b, k) = two(p);
                (self.hessian)(a, b, k, n)
            };
            check(f, grad, jvp, hessian);
        }
    }
}

/// Reverse mode against central differences; forward mode along a direction against the
/// gradient; the Hessian against central differences of the gradient.
#[track_caller]
fn check(
    f: impl Fn(&[f64]) -> f64,
    grad: impl Fn(&[f64]) -> Vec<f64>,
    jvp: impl Fn(&[f64], &[f64]) -> f64,
    hessian: impl Fn(&[f64]) -> Vec<Vec<f64>>,
) {
    for p in points() {
        let g = grad(&p);
        let fd = central_difference(&f, &p);
        for i in 0..7 {
            assert_close(g[i], fd[i], 1e-6, &format!("∂{i} at {p:?}"));
        }
        let dir = [0.3, -0.2, 0.5, 0.1, 0.7, -0.6, 0.4];
        let along: f64 = (0..7).map(|i| g[i] * dir[i]).sum();
        assert_close(jvp(&p, &dir), along, 1e-12, "jvp along dir");
        check_hessian(&hessian(&p), &grad, &p);
    }
}

#[test]
fn operators_on_parameters_read_by_nothing_else() {
    let f: Of7 = |p| spring(&V3::of(&p[..3]), &V3::of(&p[3..6]), p[6]);
    let grad = |p: &[f64]| {
        let (ga, gb, gr) = grad_spring(&V3::of(&p[..3]), &V3::of(&p[3..6]), p[6]);
        [ga.flat().as_slice(), &gb.flat(), &[gr]].concat()
    };
    let jvp = |p: &[f64], t: &[f64]| {
        let (a, b) = (V3::of(&p[..3]), V3::of(&p[3..6]));
        let (v, d) = jvp_spring(&a, &b, p[6], &V3::of(&t[..3]), &V3::of(&t[3..6]), t[6]);
        assert_eq!(v, spring(&a, &b, p[6]));
        d
    };
    check(f, grad, jvp, |p| {
        hessian_spring(&V3::of(&p[..3]), &V3::of(&p[3..6]), p[6])
    });
    // Analytic: ∂/∂a = 2(‖d‖ − rest) d/‖d‖ = −∂/∂b, ∂/∂rest = −2(‖d‖ − rest).
    for p in points() {
        let (a, b) = (V3::of(&p[..3]), V3::of(&p[3..6]));
        let d = [a.x - b.x, a.y - b.y, a.z - b.z];
        let len = d.iter().map(|v| v * v).sum::<f64>().sqrt();
        let (ga, gb, gr) = grad_spring(&a, &b, p[6]);
        for (i, di) in d.iter().enumerate() {
            assert_close(ga.flat()[i], 2.0 * (len - p[6]) * di / len, 1e-12, "∂a");
            assert_close(gb.flat()[i], -ga.flat()[i], 1e-12, "∂b");
        }
        assert_close(gr, -2.0 * (len - p[6]), 1e-12, "∂rest");
    }
}

#[test]
fn a_cross_product_negation_and_numbers_on_parameters_by_value() {
    let f: Of7 = |p| torque(V3::of(&p[..3]), V3::of(&p[3..6]), p[6]);
    let grad = |p: &[f64]| {
        let (gr, gf, gt) = grad_torque(V3::of(&p[..3]), V3::of(&p[3..6]), p[6]);
        [gr.flat().as_slice(), &gf.flat(), &[gt]].concat()
    };
    let jvp = |p: &[f64], t: &[f64]| {
        let (r, f) = (V3::of(&p[..3]), V3::of(&p[3..6]));
        let (v, d) = jvp_torque(r, f, p[6], V3::of(&t[..3]), V3::of(&t[3..6]), t[6]);
        assert_eq!(v, torque(r, f, p[6]));
        d
    };
    check(f, grad, jvp, |p| {
        hessian_torque(V3::of(&p[..3]), V3::of(&p[3..6]), p[6])
    });
}

/// Fields of a local value of the type written in a loop and a branch, the value read whole
/// after (`t = s`, `s - r`).
#[autodiff(order = 2)]
fn stepped(r: V3, f: V3, k: f64, n: usize) -> f64 {
    let mut s = r;
    for i in 0..n {
        s.x += k * s.y;
        if i % 2 == 0 {
            s.z = s.z * s.x - f.y;
        } else {
            s.y -= f.x * k;
        }
    }
    let t = s - r;
    t.x * t.y + s.z * t.z + s.x
}

#[test]
fn fields_of_a_value_of_the_type_written_in_loops_and_branches() {
    Counted {
        f: stepped,
        grad: grad_stepped,
        jvp: jvp_stepped,
        hessian: hessian_stepped,
    }
    .check(&[0, 1, 2, 5]);
}

/// Adds the other's `x` times its `y` to `x`, unlike `Add`: derivative code must go through this
/// impl, not through `+`.
#[autodiff(order = 2)]
impl AddAssign for V3 {
    fn add_assign(&mut self, o: V3) {
        self.x += o.x * o.y;
        self.y += o.y;
        self.z += o.z
    }
}

#[autodiff(order = 2)]
impl SubAssign for V3 {
    fn sub_assign(&mut self, o: V3) {
        *self = *self - o;
    }
}

#[autodiff(order = 2)]
impl MulAssign<f64> for V3 {
    fn mul_assign(&mut self, k: f64) {
        *self = V3 {
            x: self.x * k,
            y: self.y * k,
            z: self.z * k.sin(),
        };
    }
}

#[autodiff(order = 2)]
impl DivAssign<f64> for V3 {
    fn div_assign(&mut self, k: f64) {
        self.x /= k;
        self.y /= k;
        self.z /= k;
    }
}

/// Compound assignments of values of the type in a loop.
#[autodiff(order = 2)]
fn compounded(a: V3, b: V3, k: f64, n: usize) -> f64 {
    let mut s = a;
    for i in 0..n {
        s += b;
        if i % 2 == 1 {
            s -= a;
        }
        s *= k;
        s /= 1.0 + k * k;
    }
    s.x * s.y + s.z
}

#[test]
fn compound_assignments_through_the_types_impls() {
    // The impls' own derivatives: `x += o.x·o.y`, `y += o.y`, `z += o.z`.
    let (a, o) = (V3::of(&[0.7, 1.3, -0.4]), V3::of(&[0.1, -0.4, 0.9]));
    let ct = V3::of(&[1.0, 2.0, 3.0]);
    let (ga, go) = a.vjp_add_assign(o, ct);
    assert_eq!(ga, ct);
    assert_eq!(go, V3::of(&[o.y, o.x + 2.0, 3.0]));
    let (value, tangent) = a.jvp_add_assign(o, ct, ct);
    let mut want = a;
    want += o;
    assert_eq!(value, want);
    // (Along (ct, ct): ẋ = 1 + ȯ.x·o.y + o.x·ȯ.y.)
    let want = [1.0 + o.y + o.x * 2.0, 4.0, 6.0];
    for (t, w) in tangent.flat().iter().zip(want) {
        assert_close(*t, w, 1e-15, "jvp_add_assign");
    }
    Counted {
        f: compounded,
        grad: grad_compounded,
        jvp: jvp_compounded,
        hessian: hessian_compounded,
    }
    .check(&[0, 1, 2, 3]);
}

/// A value of the type started from a struct literal of constants, updated by operators and
/// compound assignments (`other = other + …` is `Add`, not this type's unlike `AddAssign`).
#[allow(clippy::assign_op_pattern)]
#[autodiff(order = 2)]
fn from_zero(a: V3, b: V3, k: f64, n: usize) -> f64 {
    let mut acc = V3 {
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };
    let mut other = V3 {
        x: 1.0,
        y: 0.5,
        z: -1.0,
    };
    for _ in 0..n {
        acc *= k;
        acc += a;
        other = other + b * k;
    }
    let m = acc * other;
    m.x + m.y * m.z + other.y
}

#[test]
fn values_of_the_type_started_from_constants() {
    Counted {
        f: from_zero,
        grad: grad_from_zero,
        jvp: jvp_from_zero,
        hessian: hessian_from_zero,
    }
    .check(&[0, 1, 3]);
}

/// An output of the type written by field: the field it does not write keeps the caller's value,
/// and `out.y += …` reads it, so the output's incoming value is an input too.
#[autodiff]
fn moved_into(r: &V3, k: f64, out: &mut V3) {
    out.x = r.x * k;
    out.y += r.y * k * out.z;
}

#[test]
fn an_output_of_the_type_written_by_field() {
    let (r, k) = (V3::of(&[0.7, 1.3, -0.4]), 1.5);
    let start = V3::of(&[9.0, 2.0, -0.5]);
    let mut out = start;
    let ct = V3::of(&[1.0, 2.0, 3.0]);
    let (gr, gk, gout) = vjp_moved_into(&r, k, &mut out, ct);
    let mut want = start;
    moved_into(&r, k, &mut want);
    assert_eq!(out, want);
    assert_eq!(want, V3::of(&[r.x * k, 2.0 + r.y * k * -0.5, -0.5]));
    // x = r.x k; y = y₀ + r.y k z₀; z = z₀.
    assert_eq!(gr, V3::of(&[k, 2.0 * k * start.z, 0.0]));
    assert_close(gk, r.x + 2.0 * r.y * start.z, 1e-15, "∂k");
    assert_eq!(gout, V3::of(&[0.0, 2.0, 3.0 + 2.0 * r.y * k]));
    // The tangent comes in through `out_dot` and leaves as the result's.
    let (mut out, mut out_dot) = (start, V3::of(&[1.0, 1.0, 1.0]));
    jvp_moved_into(
        &r,
        k,
        &mut out,
        &V3::of(&[0.0, 0.0, 0.0]),
        1.0,
        &mut out_dot,
    );
    assert_eq!(out, want);
    let want_dot = [r.x, 1.0 + r.y * start.z + r.y * k, 1.0];
    for (t, w) in out_dot.flat().iter().zip(want_dot) {
        assert_close(*t, w, 1e-15, "jvp_moved_into");
    }
}

#[autodiff]
impl V3 {
    /// A struct literal writing its fields in another order than the struct declares them.
    fn spun(a: f64, b: f64, c: f64, d: f64) -> V3 {
        V3 {
            z: a * b,
            x: c.sin() * d,
            y: a + d * d,
        }
    }
}

/// A value of the type an operator returns (the constant `base` not differentiated).
#[autodiff(wrt(a, b))]
fn scaled(a: f64, b: f64, base: &V3) -> V3 {
    *base * (a * b.sin())
}

/// The same written into an output whole.
#[autodiff(wrt(a, b))]
fn scaled_into(a: f64, b: f64, base: &V3, out: &mut V3) {
    *out = *base * (a * b.sin());
}

/// Each column of `jacobian` against central differences of `f`'s numbers (`Params`' order).
#[track_caller]
fn check_jacobian(jacobian: &[Vec<f64>], f: impl Fn(&[f64]) -> V3, at: &[f64]) {
    assert_eq!(jacobian.len(), 3, "a row per number of the result");
    for (r, row) in jacobian.iter().enumerate() {
        let column = central_difference(|p| f(p).flat()[r], at);
        assert_eq!(row.len(), at.len(), "a column per parameter");
        for (c, (j, fd)) in row.iter().zip(&column).enumerate() {
            assert_close(*j, *fd, 1e-7, &format!("J[{r}][{c}]"));
        }
    }
}

#[test]
fn jacobians_of_values_of_the_type() {
    // Four parameters, three numbers: reverse passes, rows in the declared order x, y, z.
    let at = [0.7, -1.3, 0.4, 2.0];
    let j = V3::jacobian_spun(at[0], at[1], at[2], at[3]);
    assert_eq!(j[0], vec![0.0, 0.0, at[2].cos() * at[3], at[2].sin()]);
    check_jacobian(&j, |p| V3::spun(p[0], p[1], p[2], p[3]), &at);
    // Two parameters, three numbers: forward passes.
    let base = V3::of(&[1.0, -2.0, 0.5]);
    let j = jacobian_scaled(1.5, 0.3, &base);
    check_jacobian(&j, |p| scaled(p[0], p[1], &base), &[1.5, 0.3]);
    // An output: the Jacobian of what is written, `out` left as the caller gave it.
    let mut out = V3::of(&[7.0, 8.0, 9.0]);
    assert_eq!(jacobian_scaled_into(1.5, 0.3, &base, &mut out), j);
    assert_eq!(out, V3::of(&[7.0, 8.0, 9.0]));
}

/// Tensor code (a tensor's `sum`) beside values of the type that only operators read, the
/// fields of whose result are read.
#[autodiff]
fn beside_tensors(w: &diffx::Tensor<f64>, a: &V3, b: &V3) -> f64 {
    let d = *a - *b;
    w.sum() * d.x + d.y * d.z
}

#[test]
fn operators_of_the_type_in_tensor_code() {
    let w = diffx::Tensor::<f64>::from_vec(vec![0.5, -1.0, 2.0], &[3]);
    let (a, b) = (V3::of(&[0.7, 1.3, -0.4]), V3::of(&[0.1, -0.4, 0.9]));
    let (gw, ga, gb) = grad_beside_tensors(&w, &a, &b);
    let d = [a.x - b.x, a.y - b.y, a.z - b.z];
    assert!(gw.data().iter().all(|g| *g == d[0]));
    assert_eq!(ga, V3::of(&[1.5, d[2], d[1]]));
    assert_eq!(gb, V3::of(&[-1.5, -d[2], -d[1]]));
}

/// A struct that does not derive `Params`, built by a literal.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Plain {
    a: f64,
    b: f64,
}

#[autodiff]
impl Plain {
    fn of(x: f64, y: f64, z: f64) -> Plain {
        Plain {
            b: x * y,
            a: z.sin(),
        }
    }
}

#[test]
fn a_struct_without_params_has_its_jacobian_in_the_literals_order() {
    let (x, y, z) = (0.5, 2.0, 0.3);
    assert_eq!(
        Plain::vjp_of(x, y, z, Plain { a: 0.0, b: 1.0 }),
        (y, x, 0.0)
    );
    // Rows b, then a, as the literal writes them.
    let j = Plain::jacobian_of(x, y, z);
    assert_eq!(j, vec![vec![y, x, 0.0], vec![0.0, 0.0, z.cos()]]);
}
