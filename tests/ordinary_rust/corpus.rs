//! Issue 13's corpus: classic optimization test functions written the way Rust optimization crates
//! write them (argmin's `argmin-testfunctions`: generic over num-traits' `Float`, iterator chains,
//! `let [x1, x2] = *param;`, constants by `T::from_f64(…).unwrap()`), each under
//! `#[autodiff(order = 2)]` and each with its gradient and Hessian derived by hand.
//!
//! At several deterministic points per function (away from the kinks of `abs`): `grad_` equals the
//! hand gradient and central differences of the function; `hessian_` equals the hand Hessian and
//! central differences of `grad_`; `jvp_` equals the gradient dotted with a direction; and
//! `grad_::<f32>` equals the hand gradient rounded to `f32`.

#![allow(clippy::needless_range_loop)]

use std::f64::consts::PI;
use std::iter::Sum;

use diffx::autodiff;
use diffx::check::central_difference;
use diffx::num_traits::{Float, FromPrimitive};

// ---------------------------------------------------------------------------------------------
// The checking routine, shared by every function.
// ---------------------------------------------------------------------------------------------

/// A parameter shape: a slice `[f64]` or an array `[f64; N]`, viewed from a slice of points.
trait Arg {
    type F32: ?Sized;
    fn of(x: &[f64]) -> &Self;
    fn of_f32(x: &[f32]) -> &Self::F32;
}

impl Arg for [f64] {
    type F32 = [f32];
    fn of(x: &[f64]) -> &Self {
        x
    }
    fn of_f32(x: &[f32]) -> &[f32] {
        x
    }
}

impl<const N: usize> Arg for [f64; N] {
    type F32 = [f32; N];
    fn of(x: &[f64]) -> &Self {
        x.try_into().expect("point of the array's length")
    }
    fn of_f32(x: &[f32]) -> &[f32; N] {
        x.try_into().expect("point of the array's length")
    }
}

/// One function's generated derivatives (at `f64`, and `grad_` at `f32` where it is written) and
/// its hand-derived ones.
struct Case<A: ?Sized + Arg, G, G32> {
    f: fn(&A) -> f64,
    grad: fn(&A) -> G,
    grad_f32: Option<fn(&A::F32) -> G32>,
    jvp: fn(&A, &A) -> (f64, f64),
    hessian: fn(&A) -> Vec<Vec<f64>>,
    hand_grad: fn(&A) -> Vec<f64>,
    hand_hessian: fn(&A) -> Vec<Vec<f64>>,
}

/// `|got − want| ≤ tol · max(1, max |want|)` elementwise: relative to the size of the whole
/// vector, so a component that cancels to near zero is judged on the vector's scale.
#[track_caller]
fn assert_near(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let scale = want.iter().fold(1.0_f64, |m, w| m.max(w.abs()));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * scale,
            "{what} [{i}]: {g} vs {w} (tol {tol:e} × {scale:e})\n got  {got:?}\n want {want:?}"
        );
    }
}

impl<A: ?Sized + Arg, G: AsRef<[f64]>, G32: AsRef<[f32]>> Case<A, G, G32> {
    #[track_caller]
    fn check(&self, points: &[Vec<f64>]) {
        for x in points {
            self.check_f64(x);
            self.check_f32(x);
        }
    }

    /// The derivatives at `f64`: against the hand ones, differences, and each other.
    #[track_caller]
    fn check_f64(&self, x: &[f64]) {
        let at = A::of(x);
        let n = x.len();

        let grad = (self.grad)(at);
        let g = grad.as_ref();
        assert_near(
            g,
            &(self.hand_grad)(at),
            1e-10,
            &format!("grad vs hand at {x:?}"),
        );
        let fd = central_difference(|v| (self.f)(A::of(v)), x);
        assert_near(g, &fd, 1e-6, &format!("grad vs differences at {x:?}"));

        let h: Vec<f64> = (self.hessian)(at).concat();
        let hand: Vec<f64> = (self.hand_hessian)(at).concat();
        assert_near(&h, &hand, 1e-9, &format!("hessian vs hand at {x:?}"));
        // Row i of the Hessian is the gradient of ∂f/∂xᵢ.
        let fd: Vec<f64> = (0..n)
            .flat_map(|i| central_difference(|v| (self.grad)(A::of(v)).as_ref()[i], x))
            .collect();
        assert_near(&h, &fd, 1e-6, &format!("hessian vs differences at {x:?}"));

        let dir: Vec<f64> = (0..n).map(|i| (1.3 * i as f64 + 0.4).cos()).collect();
        let (value, tangent) = (self.jvp)(at, A::of(&dir));
        assert_eq!(value, (self.f)(at), "jvp value at {x:?}");
        let dot: f64 = g.iter().zip(&dir).map(|(a, b)| a * b).sum();
        assert_near(
            &[tangent],
            &[dot],
            1e-10,
            &format!("jvp vs grad·v at {x:?}"),
        );
    }

    /// `grad_` at `f32` against the hand gradient at the same (rounded) point.
    #[track_caller]
    fn check_f32(&self, x: &[f64]) {
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let rounded: Vec<f64> = x32.iter().map(|&v| v as f64).collect();
        let Some(grad_f32) = self.grad_f32 else {
            return;
        };
        let g32: Vec<f64> = grad_f32(A::of_f32(&x32))
            .as_ref()
            .iter()
            .map(|&v| v as f64)
            .collect();
        let want = (self.hand_grad)(A::of(&rounded));
        assert_near(&g32, &want, 1e-3, &format!("grad::<f32> vs hand at {x:?}"));
    }
}

/// Four deterministic, scattered points in the box `[lo, hi]ⁿ`.
fn points(n: usize, lo: f64, hi: f64) -> Vec<Vec<f64>> {
    (0..4)
        .map(|k| {
            (0..n)
                .map(|i| {
                    // A quadratic Weyl sequence: equidistributed, without the lattice pattern
                    // of a linear one.
                    let t = (k * n + i + 1) as f64;
                    lo + (hi - lo) * (t * 0.754_877_666 + t * t * 0.569_840_291).fract()
                })
                .collect()
        })
        .collect()
}

/// Points in `[-r, r]ⁿ` moved at least 0.3 away from zero: for `abs` and `ln(x²)`.
fn away_from_zero(n: usize, r: f64) -> Vec<Vec<f64>> {
    points(n, -r, r)
        .into_iter()
        .map(|p| p.into_iter().map(|v| v + 0.3 * v.signum()).collect())
        .collect()
}

/// A diagonal matrix.
fn diag(d: Vec<f64>) -> Vec<Vec<f64>> {
    let n = d.len();
    (0..n)
        .map(|i| (0..n).map(|j| if i == j { d[i] } else { 0.0 }).collect())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Functions of n variables.
// ---------------------------------------------------------------------------------------------

/// Sphere: Σ xᵢ².
#[autodiff(order = 2)]
fn sphere<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    param.iter().map(|x| x.powi(2)).sum()
}

fn sphere_grad(x: &[f64]) -> Vec<f64> {
    x.iter().map(|v| 2.0 * v).collect()
}

fn sphere_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    diag(vec![2.0; x.len()])
}

#[test]
fn sphere_derivatives() {
    Case {
        f: sphere::<f64>,
        grad: grad_sphere::<f64>,
        grad_f32: Some(grad_sphere::<f32>),
        jvp: jvp_sphere::<f64>,
        hessian: hessian_sphere::<f64>,
        hand_grad: sphere_grad,
        hand_hessian: sphere_hessian,
    }
    .check(&points(5, -3.0, 3.0));
}

/// Chained Rosenbrock: Σ (a − xᵢ)² + b (xᵢ₊₁ − xᵢ²)², neighbours paired by `zip` and `skip`.
#[autodiff(order = 2)]
fn rosenbrock<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let a = T::from_f64(1.0).unwrap();
    let b = T::from_f64(100.0).unwrap();
    param
        .iter()
        .zip(param.iter().skip(1))
        .map(|(&xi, &xi1)| (a - xi).powi(2) + b * (xi1 - xi.powi(2)).powi(2))
        .sum()
}

fn rosenbrock_grad(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        let (a, b) = (x[i], x[i + 1]);
        g[i] += -2.0 * (1.0 - a) - 400.0 * a * (b - a * a);
        g[i + 1] += 200.0 * (b - a * a);
    }
    g
}

fn rosenbrock_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for i in 0..n - 1 {
        let (a, b) = (x[i], x[i + 1]);
        h[i][i] += 2.0 - 400.0 * b + 1200.0 * a * a;
        h[i][i + 1] -= 400.0 * a;
        h[i + 1][i] -= 400.0 * a;
        h[i + 1][i + 1] += 200.0;
    }
    h
}

#[test]
fn rosenbrock_derivatives() {
    Case {
        f: rosenbrock::<f64>,
        grad: grad_rosenbrock::<f64>,
        grad_f32: Some(grad_rosenbrock::<f32>),
        jvp: jvp_rosenbrock::<f64>,
        hessian: hessian_rosenbrock::<f64>,
        hand_grad: rosenbrock_grad,
        hand_hessian: rosenbrock_hessian,
    }
    .check(&points(5, -1.5, 1.5));
}

/// Rastrigin: A·n + Σ (xᵢ² − A cos(2π xᵢ)), A = 10.
#[autodiff(order = 2)]
fn rastrigin<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let a = T::from_f64(10.0).unwrap();
    a * T::from_usize(param.len()).unwrap()
        + param
            .iter()
            .map(|&x| x.powi(2) - a * (T::from_f64(2.0 * PI).unwrap() * x).cos())
            .sum()
}

fn rastrigin_grad(x: &[f64]) -> Vec<f64> {
    x.iter()
        .map(|&v| 2.0 * v + 20.0 * PI * (2.0 * PI * v).sin())
        .collect()
}

fn rastrigin_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    diag(
        x.iter()
            .map(|&v| 2.0 + 40.0 * PI * PI * (2.0 * PI * v).cos())
            .collect(),
    )
}

#[test]
fn rastrigin_derivatives() {
    Case {
        f: rastrigin::<f64>,
        grad: grad_rastrigin::<f64>,
        grad_f32: Some(grad_rastrigin::<f32>),
        jvp: jvp_rastrigin::<f64>,
        hessian: hessian_rastrigin::<f64>,
        hand_grad: rastrigin_grad,
        hand_hessian: rastrigin_hessian,
    }
    .check(&points(5, -2.0, 2.0));
}

/// Ackley: −a exp(−b √(Σxᵢ²/n)) − exp(Σ cos(c xᵢ)/n) + a + e (its only kink is at the origin).
#[autodiff(order = 2)]
fn ackley<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let a = T::from_f64(20.0).unwrap();
    let b = T::from_f64(0.2).unwrap();
    let c = T::from_f64(2.0 * PI).unwrap();
    let num1 = T::from_f64(1.0).unwrap();
    let n = T::from_usize(param.len()).unwrap();
    -a * (-b * ((num1 / n) * param.iter().map(|x| x.powi(2)).sum()).sqrt()).exp()
        - ((num1 / n) * param.iter().map(|x| (c * *x).cos()).sum()).exp()
        + a
        + num1.exp()
}

const ACKLEY: (f64, f64, f64) = (20.0, 0.2, 2.0 * PI);

fn ackley_grad(x: &[f64]) -> Vec<f64> {
    let (a, b, c) = ACKLEY;
    let n = x.len() as f64;
    let r = (x.iter().map(|v| v * v).sum::<f64>() / n).sqrt();
    let e1 = (-b * r).exp();
    let e2 = (x.iter().map(|v| (c * v).cos()).sum::<f64>() / n).exp();
    x.iter()
        .map(|&v| a * b * e1 * v / (n * r) + e2 * c * (c * v).sin() / n)
        .collect()
}

fn ackley_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let (a, b, c) = ACKLEY;
    let n = x.len() as f64;
    let r = (x.iter().map(|v| v * v).sum::<f64>() / n).sqrt();
    let e1 = (-b * r).exp();
    let e2 = (x.iter().map(|v| (c * v).cos()).sum::<f64>() / n).exp();
    (0..x.len())
        .map(|i| {
            (0..x.len())
                .map(|j| {
                    let d = if i == j { 1.0 } else { 0.0 };
                    a * b * e1 / n * (d / r - x[i] * x[j] * (b * r + 1.0) / (n * r.powi(3)))
                        - e2 * c * c * (c * x[i]).sin() * (c * x[j]).sin() / (n * n)
                        + d * e2 * c * c * (c * x[i]).cos() / n
                })
                .collect()
        })
        .collect()
}

#[test]
fn ackley_derivatives() {
    Case {
        f: ackley::<f64>,
        grad: grad_ackley::<f64>,
        grad_f32: Some(grad_ackley::<f32>),
        jvp: jvp_ackley::<f64>,
        hessian: hessian_ackley::<f64>,
        hand_grad: ackley_grad,
        hand_hessian: ackley_hessian,
    }
    .check(&points(4, -2.0, 2.0));
}

/// Styblinski–Tang: ½ Σ (xᵢ⁴ − 16 xᵢ² + 5 xᵢ).
#[autodiff(order = 2)]
fn styblinski_tang<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let n05 = T::from_f64(0.5).unwrap();
    let n16 = T::from_f64(16.0).unwrap();
    let n5 = T::from_f64(5.0).unwrap();
    n05 * param
        .iter()
        .map(|x| x.powi(4) - n16 * x.powi(2) + n5 * *x)
        .sum()
}

fn styblinski_tang_grad(x: &[f64]) -> Vec<f64> {
    x.iter()
        .map(|&v| 2.0 * v.powi(3) - 16.0 * v + 2.5)
        .collect()
}

fn styblinski_tang_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    diag(x.iter().map(|&v| 6.0 * v * v - 16.0).collect())
}

#[test]
fn styblinski_tang_derivatives() {
    Case {
        f: styblinski_tang::<f64>,
        grad: grad_styblinski_tang::<f64>,
        grad_f32: Some(grad_styblinski_tang::<f32>),
        jvp: jvp_styblinski_tang::<f64>,
        hessian: hessian_styblinski_tang::<f64>,
        hand_grad: styblinski_tang_grad,
        hand_hessian: styblinski_tang_hessian,
    }
    .check(&points(5, -4.0, 4.0));
}

/// Levy: sin²(πw₁) + Σᵢ₌₁ⁿ⁻¹ (wᵢ − 1)² (1 + 10 sin²(πwᵢ + 1)) + (wₙ − 1)² (1 + sin²(2πwₙ)),
/// wᵢ = 1 + (xᵢ − 1)/4; a local closure for w, a subslice for the middle sum.
#[autodiff(order = 2)]
fn levy<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let plen = param.len();
    let n1 = T::from_f64(1.0).unwrap();
    let n2 = T::from_f64(2.0).unwrap();
    let n4 = T::from_f64(4.0).unwrap();
    let n10 = T::from_f64(10.0).unwrap();
    let pi = T::from_f64(PI).unwrap();

    let w = |x: T| n1 + (x - n1) / n4;

    (pi * w(param[0])).sin().powi(2)
        + param[..plen - 1]
            .iter()
            .map(|x| w(*x))
            .map(|wi: T| (wi - n1).powi(2) * (n1 + n10 * (pi * wi + n1).sin().powi(2)))
            .sum()
        + (w(param[plen - 1]) - n1).powi(2) * (n1 + (n2 * pi * w(param[plen - 1])).sin().powi(2))
}

/// Levy's three terms as functions of w: (value', value'') of sin²(πw), of
/// (w − 1)² (1 + 10 sin²(πw + 1)) and of (w − 1)² (1 + sin²(2πw)).
fn levy_terms(w: f64) -> [(f64, f64); 3] {
    // d/dz sin²(kz + c) = k sin(2(kz + c)), d²/dz² = 2k² cos(2(kz + c)).
    let sq = |k: f64, c: f64| {
        let t = k * w + c;
        (
            t.sin().powi(2),
            k * (2.0 * t).sin(),
            2.0 * k * k * (2.0 * t).cos(),
        )
    };
    let first = sq(PI, 0.0);
    let (s, s1, s2) = sq(PI, 1.0);
    let (q, q1, q2) = sq(2.0 * PI, 0.0);
    let u = w - 1.0;
    [
        (first.1, first.2),
        (
            2.0 * u * (1.0 + 10.0 * s) + u * u * 10.0 * s1,
            2.0 * (1.0 + 10.0 * s) + 40.0 * u * s1 + u * u * 10.0 * s2,
        ),
        (
            2.0 * u * (1.0 + q) + u * u * q1,
            2.0 * (1.0 + q) + 4.0 * u * q1 + u * u * q2,
        ),
    ]
}

/// First and second derivatives of Levy along each coordinate (its Hessian is diagonal).
fn levy_parts(x: &[f64]) -> Vec<(f64, f64)> {
    let n = x.len();
    (0..n)
        .map(|i| {
            let t = levy_terms(1.0 + (x[i] - 1.0) / 4.0);
            let mut d = (0.0, 0.0);
            for (k, on) in [i == 0, i < n - 1, i == n - 1].into_iter().enumerate() {
                if on {
                    d.0 += t[k].0 / 4.0;
                    d.1 += t[k].1 / 16.0;
                }
            }
            d
        })
        .collect()
}

fn levy_grad(x: &[f64]) -> Vec<f64> {
    levy_parts(x).into_iter().map(|d| d.0).collect()
}

fn levy_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    diag(levy_parts(x).into_iter().map(|d| d.1).collect())
}

#[test]
fn levy_derivatives() {
    Case {
        f: levy::<f64>,
        grad: grad_levy::<f64>,
        grad_f32: Some(grad_levy::<f32>),
        jvp: jvp_levy::<f64>,
        hessian: hessian_levy::<f64>,
        hand_grad: levy_grad,
        hand_hessian: levy_hessian,
    }
    .check(&points(5, -3.0, 3.0));
}

/// Zakharov: Σ xᵢ² + s² + s⁴ with s = Σ ½ i xᵢ (i from 1), weights by `enumerate`.
#[autodiff(order = 2)]
fn zakharov<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let n05 = T::from_f64(0.5).unwrap();
    let s1 = param.iter().map(|&x| x.powi(2)).sum::<T>();
    let s2 = param
        .iter()
        .enumerate()
        .map(|(i, &x)| n05 * T::from_usize(i + 1).unwrap() * x)
        .sum::<T>();
    s1 + s2.powi(2) + s2.powi(4)
}

fn zakharov_s(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .map(|(i, v)| 0.5 * (i + 1) as f64 * v)
        .sum()
}

fn zakharov_grad(x: &[f64]) -> Vec<f64> {
    let s = zakharov_s(x);
    (0..x.len())
        .map(|i| 2.0 * x[i] + (2.0 * s + 4.0 * s.powi(3)) * 0.5 * (i + 1) as f64)
        .collect()
}

fn zakharov_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let s = zakharov_s(x);
    let c = |i: usize| 0.5 * (i + 1) as f64;
    (0..x.len())
        .map(|i| {
            (0..x.len())
                .map(|j| (if i == j { 2.0 } else { 0.0 }) + (2.0 + 12.0 * s * s) * c(i) * c(j))
                .collect()
        })
        .collect()
}

#[test]
fn zakharov_derivatives() {
    Case {
        f: zakharov::<f64>,
        grad: grad_zakharov::<f64>,
        grad_f32: Some(grad_zakharov::<f32>),
        jvp: jvp_zakharov::<f64>,
        hessian: hessian_zakharov::<f64>,
        hand_grad: zakharov_grad,
        hand_hessian: zakharov_hessian,
    }
    .check(&points(4, -1.0, 1.0));
}

/// Sum of squares (axis-parallel hyper-ellipsoid): Σ i xᵢ² (i from 1).
#[autodiff(order = 2)]
fn sum_of_squares<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    param
        .iter()
        .enumerate()
        .map(|(i, &x)| T::from_usize(i + 1).unwrap() * x * x)
        .sum()
}

fn sum_of_squares_grad(x: &[f64]) -> Vec<f64> {
    (0..x.len()).map(|i| 2.0 * (i + 1) as f64 * x[i]).collect()
}

fn sum_of_squares_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    diag((0..x.len()).map(|i| 2.0 * (i + 1) as f64).collect())
}

#[test]
fn sum_of_squares_derivatives() {
    Case {
        f: sum_of_squares::<f64>,
        grad: grad_sum_of_squares::<f64>,
        grad_f32: Some(grad_sum_of_squares::<f32>),
        jvp: jvp_sum_of_squares::<f64>,
        hessian: hessian_sum_of_squares::<f64>,
        hand_grad: sum_of_squares_grad,
        hand_hessian: sum_of_squares_hessian,
    }
    .check(&points(6, -5.0, 5.0));
}

/// Trid: Σ (xᵢ − 1)² − Σ xᵢ xᵢ₋₁.
#[autodiff(order = 2)]
fn trid<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let n1 = T::one();
    param.iter().map(|&x| (x - n1).powi(2)).sum::<T>()
        - param
            .iter()
            .zip(param.iter().skip(1))
            .map(|(&a, &b)| a * b)
            .sum::<T>()
}

fn trid_grad(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    (0..n)
        .map(|i| {
            let left = if i > 0 { x[i - 1] } else { 0.0 };
            let right = if i + 1 < n { x[i + 1] } else { 0.0 };
            2.0 * (x[i] - 1.0) - left - right
        })
        .collect()
}

fn trid_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    (0..n)
        .map(|i| {
            (0..n)
                .map(|j| match i.abs_diff(j) {
                    0 => 2.0,
                    1 => -1.0,
                    _ => 0.0,
                })
                .collect()
        })
        .collect()
}

#[test]
fn trid_derivatives() {
    Case {
        f: trid::<f64>,
        grad: grad_trid::<f64>,
        grad_f32: Some(grad_trid::<f32>),
        jvp: jvp_trid::<f64>,
        hessian: hessian_trid::<f64>,
        hand_grad: trid_grad,
        hand_hessian: trid_hessian,
    }
    .check(&points(5, -5.0, 5.0));
}

/// Dixon–Price: (x₁ − 1)² + Σᵢ₌₂ⁿ i (2xᵢ² − xᵢ₋₁)², pairs with their index by `zip(…).enumerate()`.
#[autodiff(order = 2)]
fn dixon_price<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let n1 = T::one();
    let n2 = T::from(2).unwrap();
    (param[0] - n1).powi(2)
        + param
            .iter()
            .zip(param.iter().skip(1))
            .enumerate()
            .map(|(i, (&prev, &x))| T::from_usize(i + 2).unwrap() * (n2 * x.powi(2) - prev).powi(2))
            .sum::<T>()
}

fn dixon_price_grad(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    g[0] = 2.0 * (x[0] - 1.0);
    for i in 1..x.len() {
        let (k, u) = ((i + 1) as f64, 2.0 * x[i] * x[i] - x[i - 1]);
        g[i] += 8.0 * k * x[i] * u;
        g[i - 1] -= 2.0 * k * u;
    }
    g
}

fn dixon_price_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    h[0][0] = 2.0;
    for i in 1..n {
        let (k, u) = ((i + 1) as f64, 2.0 * x[i] * x[i] - x[i - 1]);
        h[i][i] += 8.0 * k * u + 32.0 * k * x[i] * x[i];
        h[i][i - 1] -= 8.0 * k * x[i];
        h[i - 1][i] -= 8.0 * k * x[i];
        h[i - 1][i - 1] += 2.0 * k;
    }
    h
}

#[test]
fn dixon_price_derivatives() {
    Case {
        f: dixon_price::<f64>,
        grad: grad_dixon_price::<f64>,
        grad_f32: Some(grad_dixon_price::<f32>),
        jvp: jvp_dixon_price::<f64>,
        hessian: hessian_dixon_price::<f64>,
        hand_grad: dixon_price_grad,
        hand_hessian: dixon_price_hessian,
    }
    .check(&points(5, -1.5, 1.5));
}

/// Griewank: 1 + Σ xᵢ²/4000 − Π cos(xᵢ/√i), the product by `product()`.
#[autodiff(order = 2)]
fn griewank<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum + std::iter::Product,
{
    let n1 = T::one();
    let n4000 = T::from_f64(4000.0).unwrap();
    n1 + param.iter().map(|&x| x.powi(2)).sum::<T>() / n4000
        - param
            .iter()
            .enumerate()
            .map(|(i, &x)| (x / T::from_usize(i + 1).unwrap().sqrt()).cos())
            .product::<T>()
}

/// cos(xₖ/√k), sin(xₖ/√k) and 1/√k for each coordinate.
fn griewank_parts(x: &[f64]) -> Vec<(f64, f64, f64)> {
    (0..x.len())
        .map(|i| {
            let d = 1.0 / ((i + 1) as f64).sqrt();
            ((x[i] * d).cos(), (x[i] * d).sin(), d)
        })
        .collect()
}

/// The product of the cosines of all coordinates but `skip`.
fn cos_product_except(p: &[(f64, f64, f64)], skip: &[usize]) -> f64 {
    (0..p.len())
        .filter(|k| !skip.contains(k))
        .map(|k| p[k].0)
        .product()
}

fn griewank_grad(x: &[f64]) -> Vec<f64> {
    let p = griewank_parts(x);
    (0..x.len())
        .map(|i| x[i] / 2000.0 + p[i].1 * p[i].2 * cos_product_except(&p, &[i]))
        .collect()
}

fn griewank_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let p = griewank_parts(x);
    let all = cos_product_except(&p, &[]);
    (0..x.len())
        .map(|i| {
            (0..x.len())
                .map(|j| {
                    if i == j {
                        1.0 / 2000.0 + p[i].2 * p[i].2 * all
                    } else {
                        -p[i].1 * p[i].2 * p[j].1 * p[j].2 * cos_product_except(&p, &[i, j])
                    }
                })
                .collect()
        })
        .collect()
}

#[test]
fn griewank_derivatives() {
    Case {
        f: griewank::<f64>,
        grad: grad_griewank::<f64>,
        grad_f32: Some(grad_griewank::<f32>),
        jvp: jvp_griewank::<f64>,
        hessian: hessian_griewank::<f64>,
        hand_grad: griewank_grad,
        hand_hessian: griewank_hessian,
    }
    .check(&points(4, -6.0, 6.0));
}

/// Powell: blocks of four, (a + 10b)² + 5(c − d)² + (b − 2c)⁴ + 10(a − d)⁴.
#[autodiff(order = 2)]
fn powell<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let n2 = T::from(2).unwrap();
    let n5 = T::from(5).unwrap();
    let n10 = T::from(10).unwrap();
    param
        .chunks(4)
        .map(|block| {
            let [a, b, c, d] = [block[0], block[1], block[2], block[3]];
            (a + n10 * b).powi(2)
                + n5 * (c - d).powi(2)
                + (b - n2 * c).powi(4)
                + n10 * (a - d).powi(4)
        })
        .sum()
}

fn powell_grad(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in (0..x.len()).step_by(4) {
        let [a, b, c, d] = [x[i], x[i + 1], x[i + 2], x[i + 3]];
        let (u, v, w, z) = (a + 10.0 * b, c - d, b - 2.0 * c, a - d);
        g[i] = 2.0 * u + 40.0 * z.powi(3);
        g[i + 1] = 20.0 * u + 4.0 * w.powi(3);
        g[i + 2] = 10.0 * v - 8.0 * w.powi(3);
        g[i + 3] = -10.0 * v - 40.0 * z.powi(3);
    }
    g
}

fn powell_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for i in (0..n).step_by(4) {
        let (w, z) = (x[i + 1] - 2.0 * x[i + 2], x[i] - x[i + 3]);
        let (w2, z2) = (12.0 * w * w, 120.0 * z * z);
        let block = [
            [2.0 + z2, 20.0, 0.0, -z2],
            [20.0, 200.0 + w2, -2.0 * w2, 0.0],
            [0.0, -2.0 * w2, 10.0 + 4.0 * w2, -10.0],
            [-z2, 0.0, -10.0, 10.0 + z2],
        ];
        for r in 0..4 {
            for c in 0..4 {
                h[i + r][i + c] = block[r][c];
            }
        }
    }
    h
}

#[test]
fn powell_derivatives() {
    Case {
        f: powell::<f64>,
        grad: grad_powell::<f64>,
        grad_f32: Some(grad_powell::<f32>),
        jvp: jvp_powell::<f64>,
        hessian: hessian_powell::<f64>,
        hand_grad: powell_grad,
        hand_hessian: powell_hessian,
    }
    .check(&points(8, -2.0, 2.0));
}

/// Schwefel 2.22: Σ |xᵢ| + Π |xᵢ| (kinks where a coordinate is zero: points stay away).
#[autodiff(order = 2)]
fn schwefel_2_22<T>(param: &[T]) -> T
where
    T: Float + Sum + std::iter::Product,
{
    param.iter().map(|x| x.abs()).sum::<T>() + param.iter().map(|x| x.abs()).product::<T>()
}

/// Π |xₖ| over k not in `skip`.
fn abs_product_except(x: &[f64], skip: &[usize]) -> f64 {
    (0..x.len())
        .filter(|k| !skip.contains(k))
        .map(|k| x[k].abs())
        .product()
}

fn schwefel_2_22_grad(x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| x[i].signum() * (1.0 + abs_product_except(x, &[i])))
        .collect()
}

fn schwefel_2_22_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    (0..x.len())
        .map(|i| {
            (0..x.len())
                .map(|j| match i == j {
                    true => 0.0,
                    false => x[i].signum() * x[j].signum() * abs_product_except(x, &[i, j]),
                })
                .collect()
        })
        .collect()
}

#[test]
fn schwefel_2_22_derivatives() {
    Case {
        f: schwefel_2_22::<f64>,
        grad: grad_schwefel_2_22::<f64>,
        grad_f32: Some(grad_schwefel_2_22::<f32>),
        jvp: jvp_schwefel_2_22::<f64>,
        hessian: hessian_schwefel_2_22::<f64>,
        hand_grad: schwefel_2_22_grad,
        hand_hessian: schwefel_2_22_hessian,
    }
    .check(&away_from_zero(4, 1.2));
}

/// Michalewicz: −Σ sin(xᵢ) sin²ᵐ(i xᵢ²/π), m = 10 (an integer power from a local).
#[autodiff(order = 2)]
fn michalewicz<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let m = 10;
    let pi = T::from_f64(PI).unwrap();
    -param
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            x.sin()
                * (T::from_usize(i + 1).unwrap() * x.powi(2) / pi)
                    .sin()
                    .powi(2 * m)
        })
        .sum::<T>()
}

/// Per coordinate, the first and second derivative of −sin(x) sin²ᵐ(φ), φ = k x²/π.
fn michalewicz_parts(x: &[f64]) -> Vec<(f64, f64)> {
    let m = 20; // 2m
    (0..x.len())
        .map(|i| {
            let (v, k) = (x[i], (i + 1) as f64);
            let phi = k * v * v / PI;
            let (d1, d2) = (2.0 * k * v / PI, 2.0 * k / PI);
            let (s, c) = (phi.sin(), phi.cos());
            let p = |e: i32| s.powi(e);
            // t = sin x · S^m, S = sin φ
            let dp = m as f64 * p(m - 1) * c * d1; // (S^m)'
            let ddp = m as f64
                * ((m - 1) as f64 * p(m - 2) * c * c * d1 * d1 - p(m) * d1 * d1
                    + p(m - 1) * c * d2);
            let t1 = v.cos() * p(m) + v.sin() * dp;
            let t2 = -v.sin() * p(m) + 2.0 * v.cos() * dp + v.sin() * ddp;
            (-t1, -t2)
        })
        .collect()
}

fn michalewicz_grad(x: &[f64]) -> Vec<f64> {
    michalewicz_parts(x).into_iter().map(|d| d.0).collect()
}

fn michalewicz_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    diag(michalewicz_parts(x).into_iter().map(|d| d.1).collect())
}

#[test]
fn michalewicz_derivatives() {
    Case {
        f: michalewicz::<f64>,
        grad: grad_michalewicz::<f64>,
        grad_f32: Some(grad_michalewicz::<f32>),
        jvp: jvp_michalewicz::<f64>,
        hessian: hessian_michalewicz::<f64>,
        hand_grad: michalewicz_grad,
        hand_hessian: michalewicz_hessian,
    }
    .check(&points(4, 1.0, 2.5));
}

/// Qing: Σ (xᵢ² − i)².
#[autodiff(order = 2)]
fn qing<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    param
        .iter()
        .enumerate()
        .map(|(i, x)| (x.powi(2) - T::from_usize(i + 1).unwrap()).powi(2))
        .sum()
}

fn qing_grad(x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| 4.0 * x[i] * (x[i] * x[i] - (i + 1) as f64))
        .collect()
}

fn qing_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    diag(
        (0..x.len())
            .map(|i| 12.0 * x[i] * x[i] - 4.0 * (i + 1) as f64)
            .collect(),
    )
}

#[test]
fn qing_derivatives() {
    Case {
        f: qing::<f64>,
        grad: grad_qing::<f64>,
        grad_f32: Some(grad_qing::<f32>),
        jvp: jvp_qing::<f64>,
        hessian: hessian_qing::<f64>,
        hand_grad: qing_grad,
        hand_hessian: qing_hessian,
    }
    .check(&points(5, -2.5, 2.5));
}

/// Rotated hyper-ellipsoid: Σᵢ Σⱼ≤ᵢ xⱼ², a chain inside a chain over growing prefixes.
#[autodiff(order = 2)]
fn rotated_hyper_ellipsoid<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    (1..=param.len())
        .map(|i| param[..i].iter().map(|x| x.powi(2)).sum::<T>())
        .sum()
}

// Coordinate j (from 0) appears in n − j prefixes.
fn rotated_hyper_ellipsoid_grad(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    (0..n).map(|j| 2.0 * (n - j) as f64 * x[j]).collect()
}

fn rotated_hyper_ellipsoid_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    diag((0..n).map(|j| 2.0 * (n - j) as f64).collect())
}

#[test]
fn rotated_hyper_ellipsoid_derivatives() {
    Case {
        f: rotated_hyper_ellipsoid::<f64>,
        grad: grad_rotated_hyper_ellipsoid::<f64>,
        grad_f32: Some(grad_rotated_hyper_ellipsoid::<f32>),
        jvp: jvp_rotated_hyper_ellipsoid::<f64>,
        hessian: hessian_rotated_hyper_ellipsoid::<f64>,
        hand_grad: rotated_hyper_ellipsoid_grad,
        hand_hessian: rotated_hyper_ellipsoid_hessian,
    }
    .check(&points(5, -3.0, 3.0));
}

/// Brown: Σ (xᵢ²)^(xᵢ₊₁² + 1) + (xᵢ₊₁²)^(xᵢ² + 1), `powf` with a differentiable exponent (the
/// base x² must stay away from 0).
#[autodiff(order = 2)]
fn brown<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let n1 = T::one();
    param
        .iter()
        .zip(param.iter().skip(1))
        .map(|(&a, &b)| a.powi(2).powf(b.powi(2) + n1) + b.powi(2).powf(a.powi(2) + n1))
        .sum()
}

/// p(a, b) = (a²)^(b² + 1): value' along a and b, and the second derivatives (aa, ab, bb).
fn brown_p(a: f64, b: f64) -> ([f64; 2], [f64; 3]) {
    let (e, l) = (b * b + 1.0, (a * a).ln());
    let p = (a * a).powf(e);
    (
        [p * 2.0 * e / a, p * 2.0 * b * l],
        [
            p * (4.0 * e * e - 2.0 * e) / (a * a),
            p * (4.0 * b * e * l / a + 4.0 * b / a),
            p * ((2.0 * b * l).powi(2) + 2.0 * l),
        ],
    )
}

fn brown_grad(x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        let (pa, _) = brown_p(x[i], x[i + 1]);
        let (qb, _) = brown_p(x[i + 1], x[i]); // the second term with the roles swapped
        g[i] += pa[0] + qb[1];
        g[i + 1] += pa[1] + qb[0];
    }
    g
}

fn brown_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let n = x.len();
    let mut h = vec![vec![0.0; n]; n];
    for i in 0..n - 1 {
        let (_, p) = brown_p(x[i], x[i + 1]);
        let (_, q) = brown_p(x[i + 1], x[i]);
        h[i][i] += p[0] + q[2];
        h[i][i + 1] += p[1] + q[1];
        h[i + 1][i] += p[1] + q[1];
        h[i + 1][i + 1] += p[2] + q[0];
    }
    h
}

#[test]
fn brown_derivatives() {
    Case {
        f: brown::<f64>,
        grad: grad_brown::<f64>,
        grad_f32: Some(grad_brown::<f32>),
        jvp: jvp_brown::<f64>,
        hessian: hessian_brown::<f64>,
        hand_grad: brown_grad,
        hand_hessian: brown_hessian,
    }
    .check(&away_from_zero(4, 0.9));
}

/// Schwefel 2.21: maxᵢ |xᵢ| (points have a unique largest |xᵢ| and no zero coordinate).
#[autodiff(order = 2)]
fn schwefel_2_21<T: Float>(param: &[T]) -> T {
    param
        .iter()
        .map(|x| x.abs())
        .fold(T::neg_infinity(), T::max)
}

fn schwefel_2_21_grad(x: &[f64]) -> Vec<f64> {
    let k = (0..x.len())
        .max_by(|&i, &j| x[i].abs().total_cmp(&x[j].abs()))
        .unwrap();
    (0..x.len())
        .map(|i| if i == k { x[i].signum() } else { 0.0 })
        .collect()
}

fn schwefel_2_21_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    diag(vec![0.0; x.len()])
}

#[test]
fn schwefel_2_21_derivatives() {
    Case {
        f: schwefel_2_21::<f64>,
        grad: grad_schwefel_2_21::<f64>,
        grad_f32: Some(grad_schwefel_2_21::<f32>),
        jvp: jvp_schwefel_2_21::<f64>,
        hessian: hessian_schwefel_2_21::<f64>,
        hand_grad: schwefel_2_21_grad,
        hand_hessian: schwefel_2_21_hessian,
    }
    .check(&away_from_zero(5, 2.0));
}

/// Exponential: −exp(−½ Σ xᵢ²), the sum by `fold`.
#[autodiff(order = 2)]
fn exponential<T: Float + FromPrimitive>(param: &[T]) -> T {
    -(T::from_f64(-0.5).unwrap() * param.iter().fold(T::zero(), |acc, &x| acc + x * x)).exp()
}

fn exponential_grad(x: &[f64]) -> Vec<f64> {
    let e = (-0.5 * x.iter().map(|v| v * v).sum::<f64>()).exp();
    x.iter().map(|v| e * v).collect()
}

fn exponential_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let e = (-0.5 * x.iter().map(|v| v * v).sum::<f64>()).exp();
    (0..x.len())
        .map(|i| {
            (0..x.len())
                .map(|j| e * ((if i == j { 1.0 } else { 0.0 }) - x[i] * x[j]))
                .collect()
        })
        .collect()
}

#[test]
fn exponential_derivatives() {
    Case {
        f: exponential::<f64>,
        grad: grad_exponential::<f64>,
        grad_f32: Some(grad_exponential::<f32>),
        jvp: jvp_exponential::<f64>,
        hessian: hessian_exponential::<f64>,
        hand_grad: exponential_grad,
        hand_hessian: exponential_hessian,
    }
    .check(&points(4, -1.0, 1.0));
}

/// Salomon: 1 − cos(2π‖x‖) + 0.1 ‖x‖ (its kink is at the origin).
#[autodiff(order = 2)]
fn salomon<T>(param: &[T]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let r = param.iter().map(|x| x.powi(2)).sum::<T>().sqrt();
    T::one() - (T::from_f64(2.0 * PI).unwrap() * r).cos() + T::from_f64(0.1).unwrap() * r
}

/// ‖x‖ and the first two derivatives of Salomon as a function of it.
fn salomon_radial(x: &[f64]) -> (f64, f64, f64) {
    let r = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    (
        r,
        2.0 * PI * (2.0 * PI * r).sin() + 0.1,
        4.0 * PI * PI * (2.0 * PI * r).cos(),
    )
}

fn salomon_grad(x: &[f64]) -> Vec<f64> {
    let (r, d1, _) = salomon_radial(x);
    x.iter().map(|v| d1 * v / r).collect()
}

fn salomon_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    // ∇²f = f″ x xᵀ/r² + f′ (I/r − x xᵀ/r³)
    let (r, d1, d2) = salomon_radial(x);
    (0..x.len())
        .map(|i| {
            (0..x.len())
                .map(|j| {
                    let d = if i == j { 1.0 } else { 0.0 };
                    d2 * x[i] * x[j] / (r * r) + d1 * (d / r - x[i] * x[j] / r.powi(3))
                })
                .collect()
        })
        .collect()
}

#[test]
fn salomon_derivatives() {
    Case {
        f: salomon::<f64>,
        grad: grad_salomon::<f64>,
        grad_f32: Some(grad_salomon::<f32>),
        jvp: jvp_salomon::<f64>,
        hessian: hessian_salomon::<f64>,
        hand_grad: salomon_grad,
        hand_hessian: salomon_hessian,
    }
    .check(&points(3, -2.0, 2.0));
}

/// Colville, a function of four variables taking a slice, destructured into names.
#[autodiff(order = 2)]
fn colville<T: Float + FromPrimitive>(x: &[T]) -> T {
    let [x1, x2, x3, x4] = [x[0], x[1], x[2], x[3]];
    let c = |v: f64| T::from_f64(v).unwrap();
    let n1 = T::one();
    c(100.0) * (x1.powi(2) - x2).powi(2)
        + (x1 - n1).powi(2)
        + (x3 - n1).powi(2)
        + c(90.0) * (x3.powi(2) - x4).powi(2)
        + c(10.1) * ((x2 - n1).powi(2) + (x4 - n1).powi(2))
        + c(19.8) * (x2 - n1) * (x4 - n1)
}

fn colville_grad(x: &[f64]) -> Vec<f64> {
    let [x1, x2, x3, x4] = [x[0], x[1], x[2], x[3]];
    vec![
        400.0 * x1 * (x1 * x1 - x2) + 2.0 * (x1 - 1.0),
        -200.0 * (x1 * x1 - x2) + 20.2 * (x2 - 1.0) + 19.8 * (x4 - 1.0),
        2.0 * (x3 - 1.0) + 360.0 * x3 * (x3 * x3 - x4),
        -180.0 * (x3 * x3 - x4) + 20.2 * (x4 - 1.0) + 19.8 * (x2 - 1.0),
    ]
}

fn colville_hessian(x: &[f64]) -> Vec<Vec<f64>> {
    let [x1, x2, x3, x4] = [x[0], x[1], x[2], x[3]];
    vec![
        vec![1200.0 * x1 * x1 - 400.0 * x2 + 2.0, -400.0 * x1, 0.0, 0.0],
        vec![-400.0 * x1, 220.2, 0.0, 19.8],
        vec![0.0, 0.0, 2.0 + 1080.0 * x3 * x3 - 360.0 * x4, -360.0 * x3],
        vec![0.0, 19.8, -360.0 * x3, 200.2],
    ]
}

#[test]
fn colville_derivatives() {
    Case {
        f: colville::<f64>,
        grad: grad_colville::<f64>,
        grad_f32: Some(grad_colville::<f32>),
        jvp: jvp_colville::<f64>,
        hessian: hessian_colville::<f64>,
        hand_grad: colville_grad,
        hand_hessian: colville_hessian,
    }
    .check(&points(4, -2.0, 2.0));
}

/// A function of two variables at a point: value, gradient, Hessian entries (xx, xy, yy).
type Jet2 = (f64, [f64; 2], [f64; 3]);

// ---------------------------------------------------------------------------------------------
// Functions of two variables, taking `&[T; 2]` and destructuring it.
// ---------------------------------------------------------------------------------------------

/// Beale: (1.5 − x + xy)² + (2.25 − x + xy²)² + (2.625 − x + xy³)².
#[autodiff(order = 2)]
fn beale<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
    let [x1, x2] = *param;
    (T::from_f64(1.5).unwrap() - x1 + x1 * x2).powi(2)
        + (T::from_f64(2.25).unwrap() - x1 + x1 * x2.powi(2)).powi(2)
        + (T::from_f64(2.625).unwrap() - x1 + x1 * x2.powi(3)).powi(2)
}

/// Beale's terms uₖ = cₖ − x + x yᵏ with their gradients and Hessians: f = Σ uₖ².
fn beale_terms(&[x, y]: &[f64; 2]) -> Vec<Jet2> {
    [1.5, 2.25, 2.625]
        .iter()
        .zip(1..)
        .map(|(&c, k)| {
            let kf = k as f64;
            (
                c - x + x * y.powi(k),
                [y.powi(k) - 1.0, kf * x * y.powi(k - 1)],
                [0.0, kf * y.powi(k - 1), kf * (kf - 1.0) * x * y.powi(k - 2)],
            )
        })
        .collect()
}

fn beale_grad(p: &[f64; 2]) -> Vec<f64> {
    beale_terms(p).iter().fold(vec![0.0, 0.0], |g, (u, du, _)| {
        vec![g[0] + 2.0 * u * du[0], g[1] + 2.0 * u * du[1]]
    })
}

fn beale_hessian(p: &[f64; 2]) -> Vec<Vec<f64>> {
    // ∇²(u²) = 2(∇u ∇uᵀ + u ∇²u)
    let mut h = [0.0; 3];
    for (u, du, ddu) in beale_terms(p) {
        h[0] += 2.0 * (du[0] * du[0] + u * ddu[0]);
        h[1] += 2.0 * (du[0] * du[1] + u * ddu[1]);
        h[2] += 2.0 * (du[1] * du[1] + u * ddu[2]);
    }
    vec![vec![h[0], h[1]], vec![h[1], h[2]]]
}

#[test]
fn beale_derivatives() {
    Case {
        f: beale::<f64>,
        grad: grad_beale::<f64>,
        grad_f32: Some(grad_beale::<f32>),
        jvp: jvp_beale::<f64>,
        hessian: hessian_beale::<f64>,
        hand_grad: beale_grad,
        hand_hessian: beale_hessian,
    }
    .check(&points(2, -2.0, 2.0));
}

/// Himmelblau: (x² + y − 11)² + (x + y² − 7)².
#[autodiff(order = 2)]
fn himmelblau<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
    let [x1, x2] = *param;
    let n7 = T::from_f64(7.0).unwrap();
    let n11 = T::from_f64(11.0).unwrap();
    (x1.powi(2) + x2 - n11).powi(2) + (x1 + x2.powi(2) - n7).powi(2)
}

fn himmelblau_grad(&[x, y]: &[f64; 2]) -> Vec<f64> {
    let (u, v) = (x * x + y - 11.0, x + y * y - 7.0);
    vec![4.0 * x * u + 2.0 * v, 2.0 * u + 4.0 * y * v]
}

fn himmelblau_hessian(&[x, y]: &[f64; 2]) -> Vec<Vec<f64>> {
    let (u, v) = (x * x + y - 11.0, x + y * y - 7.0);
    let xy = 4.0 * (x + y);
    vec![
        vec![4.0 * u + 8.0 * x * x + 2.0, xy],
        vec![xy, 2.0 + 4.0 * v + 8.0 * y * y],
    ]
}

#[test]
fn himmelblau_derivatives() {
    Case {
        f: himmelblau::<f64>,
        grad: grad_himmelblau::<f64>,
        grad_f32: Some(grad_himmelblau::<f32>),
        jvp: jvp_himmelblau::<f64>,
        hessian: hessian_himmelblau::<f64>,
        hand_grad: himmelblau_grad,
        hand_hessian: himmelblau_hessian,
    }
    .check(&points(2, -4.0, 4.0));
}

/// Goldstein–Price: [1 + (x + y + 1)² (19 − 14x + 3x² − 14y + 6xy + 3y²)]
///                · [30 + (2x − 3y)² (18 − 32x + 12x² + 48y − 36xy + 27y²)].
#[autodiff(order = 2)]
fn goldstein_price<T>(param: &[T; 2]) -> T
where
    T: Float + FromPrimitive,
{
    let [x1, x2] = *param;
    let c = |v: f64| T::from_f64(v).unwrap();
    let a = c(1.0)
        + (x1 + x2 + c(1.0)).powi(2)
            * (c(19.0) - c(14.0) * x1 + c(3.0) * x1.powi(2) - c(14.0) * x2
                + c(6.0) * x1 * x2
                + c(3.0) * x2.powi(2));
    let b = c(30.0)
        + (c(2.0) * x1 - c(3.0) * x2).powi(2)
            * (c(18.0) - c(32.0) * x1 + c(12.0) * x1.powi(2) + c(48.0) * x2 - c(36.0) * x1 * x2
                + c(27.0) * x2.powi(2));
    a * b
}

/// Value, gradient and Hessian (xx, xy, yy) of 1 + s² q, s linear (gradient `ds`), q quadratic.
fn square_times_quadratic(s: f64, ds: [f64; 2], q: f64, dq: [f64; 2], ddq: [f64; 3]) -> Jet2 {
    let g = |i: usize| 2.0 * s * ds[i] * q + s * s * dq[i];
    let h = |i: usize, j: usize, k: usize| {
        2.0 * ds[i] * ds[j] * q + 2.0 * s * (ds[i] * dq[j] + ds[j] * dq[i]) + s * s * ddq[k]
    };
    (
        s * s * q,
        [g(0), g(1)],
        [h(0, 0, 0), h(0, 1, 1), h(1, 1, 2)],
    )
}

fn goldstein_price_parts(&[x, y]: &[f64; 2]) -> [Jet2; 2] {
    let (mut a, mut b) = (
        square_times_quadratic(
            x + y + 1.0,
            [1.0, 1.0],
            19.0 - 14.0 * x + 3.0 * x * x - 14.0 * y + 6.0 * x * y + 3.0 * y * y,
            [-14.0 + 6.0 * x + 6.0 * y, -14.0 + 6.0 * x + 6.0 * y],
            [6.0, 6.0, 6.0],
        ),
        square_times_quadratic(
            2.0 * x - 3.0 * y,
            [2.0, -3.0],
            18.0 - 32.0 * x + 12.0 * x * x + 48.0 * y - 36.0 * x * y + 27.0 * y * y,
            [-32.0 + 24.0 * x - 36.0 * y, 48.0 - 36.0 * x + 54.0 * y],
            [24.0, -36.0, 54.0],
        ),
    );
    a.0 += 1.0;
    b.0 += 30.0;
    [a, b]
}

fn goldstein_price_grad(p: &[f64; 2]) -> Vec<f64> {
    let [(a, da, _), (b, db, _)] = goldstein_price_parts(p);
    vec![da[0] * b + a * db[0], da[1] * b + a * db[1]]
}

fn goldstein_price_hessian(p: &[f64; 2]) -> Vec<Vec<f64>> {
    let [(a, da, dda), (b, db, ddb)] = goldstein_price_parts(p);
    // (AB)ᵢⱼ = Aᵢⱼ B + Aᵢ Bⱼ + Aⱼ Bᵢ + A Bᵢⱼ
    let h = |i: usize, j: usize, k: usize| dda[k] * b + da[i] * db[j] + da[j] * db[i] + a * ddb[k];
    vec![vec![h(0, 0, 0), h(0, 1, 1)], vec![h(0, 1, 1), h(1, 1, 2)]]
}

#[test]
fn goldstein_price_derivatives() {
    Case {
        f: goldstein_price::<f64>,
        grad: grad_goldstein_price::<f64>,
        grad_f32: Some(grad_goldstein_price::<f32>),
        jvp: jvp_goldstein_price::<f64>,
        hessian: hessian_goldstein_price::<f64>,
        hand_grad: goldstein_price_grad,
        hand_hessian: goldstein_price_hessian,
    }
    .check(&points(2, -1.0, 1.0));
}

/// Booth: (x + 2y − 7)² + (2x + y − 5)².
#[autodiff(order = 2)]
fn booth<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
    let [x1, x2] = *param;
    let n2 = T::from_f64(2.0).unwrap();
    (x1 + n2 * x2 - T::from_f64(7.0).unwrap()).powi(2)
        + (n2 * x1 + x2 - T::from_f64(5.0).unwrap()).powi(2)
}

fn booth_grad(&[x, y]: &[f64; 2]) -> Vec<f64> {
    let (u, v) = (x + 2.0 * y - 7.0, 2.0 * x + y - 5.0);
    vec![2.0 * u + 4.0 * v, 4.0 * u + 2.0 * v]
}

fn booth_hessian(_: &[f64; 2]) -> Vec<Vec<f64>> {
    vec![vec![10.0, 8.0], vec![8.0, 10.0]]
}

#[test]
fn booth_derivatives() {
    Case {
        f: booth::<f64>,
        grad: grad_booth::<f64>,
        grad_f32: Some(grad_booth::<f32>),
        jvp: jvp_booth::<f64>,
        hessian: hessian_booth::<f64>,
        hand_grad: booth_grad,
        hand_hessian: booth_hessian,
    }
    .check(&points(2, -10.0, 10.0));
}

/// Matyas: 0.26 (x² + y²) − 0.48 xy.
#[autodiff(order = 2)]
fn matyas<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
    let [x1, x2] = *param;
    T::from_f64(0.26).unwrap() * (x1.powi(2) + x2.powi(2)) - T::from_f64(0.48).unwrap() * x1 * x2
}

fn matyas_grad(&[x, y]: &[f64; 2]) -> Vec<f64> {
    vec![0.52 * x - 0.48 * y, 0.52 * y - 0.48 * x]
}

fn matyas_hessian(_: &[f64; 2]) -> Vec<Vec<f64>> {
    vec![vec![0.52, -0.48], vec![-0.48, 0.52]]
}

#[test]
fn matyas_derivatives() {
    Case {
        f: matyas::<f64>,
        grad: grad_matyas::<f64>,
        grad_f32: Some(grad_matyas::<f32>),
        jvp: jvp_matyas::<f64>,
        hessian: hessian_matyas::<f64>,
        hand_grad: matyas_grad,
        hand_hessian: matyas_hessian,
    }
    .check(&points(2, -10.0, 10.0));
}

/// McCormick: sin(x + y) + (x − y)² − 1.5x + 2.5y + 1.
#[autodiff(order = 2)]
fn mccormick<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
    let [x1, x2] = *param;
    (x1 + x2).sin() + (x1 - x2).powi(2) - T::from_f64(1.5).unwrap() * x1
        + T::from_f64(2.5).unwrap() * x2
        + T::one()
}

fn mccormick_grad(&[x, y]: &[f64; 2]) -> Vec<f64> {
    let c = (x + y).cos();
    vec![c + 2.0 * (x - y) - 1.5, c - 2.0 * (x - y) + 2.5]
}

fn mccormick_hessian(&[x, y]: &[f64; 2]) -> Vec<Vec<f64>> {
    let s = (x + y).sin();
    vec![vec![2.0 - s, -2.0 - s], vec![-2.0 - s, 2.0 - s]]
}

#[test]
fn mccormick_derivatives() {
    Case {
        f: mccormick::<f64>,
        grad: grad_mccormick::<f64>,
        grad_f32: Some(grad_mccormick::<f32>),
        jvp: jvp_mccormick::<f64>,
        hessian: hessian_mccormick::<f64>,
        hand_grad: mccormick_grad,
        hand_hessian: mccormick_hessian,
    }
    .check(&points(2, -3.0, 4.0));
}

/// Three-hump camel: 2x² − 1.05x⁴ + x⁶/6 + xy + y².
#[autodiff(order = 2)]
fn three_hump_camel<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
    let [x1, x2] = *param;
    T::from_f64(2.0).unwrap() * x1.powi(2) - T::from_f64(1.05).unwrap() * x1.powi(4)
        + x1.powi(6) / T::from_f64(6.0).unwrap()
        + x1 * x2
        + x2.powi(2)
}

fn three_hump_camel_grad(&[x, y]: &[f64; 2]) -> Vec<f64> {
    vec![4.0 * x - 4.2 * x.powi(3) + x.powi(5) + y, x + 2.0 * y]
}

fn three_hump_camel_hessian(&[x, _]: &[f64; 2]) -> Vec<Vec<f64>> {
    vec![
        vec![4.0 - 12.6 * x * x + 5.0 * x.powi(4), 1.0],
        vec![1.0, 2.0],
    ]
}

#[test]
fn three_hump_camel_derivatives() {
    Case {
        f: three_hump_camel::<f64>,
        grad: grad_three_hump_camel::<f64>,
        grad_f32: Some(grad_three_hump_camel::<f32>),
        jvp: jvp_three_hump_camel::<f64>,
        hessian: hessian_three_hump_camel::<f64>,
        hand_grad: three_hump_camel_grad,
        hand_hessian: three_hump_camel_hessian,
    }
    .check(&points(2, -2.0, 2.0));
}

/// Six-hump camel: (4 − 2.1x² + x⁴/3) x² + xy + (4y² − 4) y².
#[autodiff(order = 2)]
fn six_hump_camel<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
    let [x1, x2] = *param;
    let n4 = T::from(4).unwrap();
    (n4 - T::from_f64(2.1).unwrap() * x1.powi(2) + x1.powi(4) / T::from(3).unwrap()) * x1.powi(2)
        + x1 * x2
        + (n4 * x2.powi(2) - n4) * x2.powi(2)
}

fn six_hump_camel_grad(&[x, y]: &[f64; 2]) -> Vec<f64> {
    vec![
        8.0 * x - 8.4 * x.powi(3) + 2.0 * x.powi(5) + y,
        x - 8.0 * y + 16.0 * y.powi(3),
    ]
}

fn six_hump_camel_hessian(&[x, y]: &[f64; 2]) -> Vec<Vec<f64>> {
    vec![
        vec![8.0 - 25.2 * x * x + 10.0 * x.powi(4), 1.0],
        vec![1.0, -8.0 + 48.0 * y * y],
    ]
}

#[test]
fn six_hump_camel_derivatives() {
    Case {
        f: six_hump_camel::<f64>,
        grad: grad_six_hump_camel::<f64>,
        grad_f32: Some(grad_six_hump_camel::<f32>),
        jvp: jvp_six_hump_camel::<f64>,
        hessian: hessian_six_hump_camel::<f64>,
        hand_grad: six_hump_camel_grad,
        hand_hessian: six_hump_camel_hessian,
    }
    .check(&points(2, -2.0, 2.0));
}

/// Bohachevsky N.1: x² + 2y² − 0.3 cos(3πx) − 0.4 cos(4πy) + 0.7.
#[autodiff(order = 2)]
fn bohachevsky<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
    let [x1, x2] = *param;
    let pi = T::from_f64(PI).unwrap();
    let c = |v: f64| T::from_f64(v).unwrap();
    x1.powi(2) + c(2.0) * x2.powi(2)
        - c(0.3) * (c(3.0) * pi * x1).cos()
        - c(0.4) * (c(4.0) * pi * x2).cos()
        + c(0.7)
}

fn bohachevsky_grad(&[x, y]: &[f64; 2]) -> Vec<f64> {
    vec![
        2.0 * x + 0.9 * PI * (3.0 * PI * x).sin(),
        4.0 * y + 1.6 * PI * (4.0 * PI * y).sin(),
    ]
}

fn bohachevsky_hessian(&[x, y]: &[f64; 2]) -> Vec<Vec<f64>> {
    diag(vec![
        2.0 + 2.7 * PI * PI * (3.0 * PI * x).cos(),
        4.0 + 6.4 * PI * PI * (4.0 * PI * y).cos(),
    ])
}

#[test]
fn bohachevsky_derivatives() {
    Case {
        f: bohachevsky::<f64>,
        grad: grad_bohachevsky::<f64>,
        grad_f32: Some(grad_bohachevsky::<f32>),
        jvp: jvp_bohachevsky::<f64>,
        hessian: hessian_bohachevsky::<f64>,
        hand_grad: bohachevsky_grad,
        hand_hessian: bohachevsky_hessian,
    }
    .check(&points(2, -1.5, 1.5));
}

/// Easom: −cos x cos y exp(−((x − π)² + (y − π)²)).
#[autodiff(order = 2)]
fn easom<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
    let [x1, x2] = *param;
    let pi = T::from_f64(PI).unwrap();
    -x1.cos() * x2.cos() * (-(x1 - pi).powi(2) - (x2 - pi).powi(2)).exp()
}

fn easom_grad(&[x, y]: &[f64; 2]) -> Vec<f64> {
    let (p, q) = (x - PI, y - PI);
    let e = (-p * p - q * q).exp();
    vec![
        y.cos() * e * (x.sin() + 2.0 * p * x.cos()),
        x.cos() * e * (y.sin() + 2.0 * q * y.cos()),
    ]
}

fn easom_hessian(&[x, y]: &[f64; 2]) -> Vec<Vec<f64>> {
    let (p, q) = (x - PI, y - PI);
    let e = (-p * p - q * q).exp();
    let (sx, cx, sy, cy) = (x.sin(), x.cos(), y.sin(), y.cos());
    let xy = -e * (sx + 2.0 * p * cx) * (sy + 2.0 * q * cy);
    vec![
        vec![cy * e * (3.0 * cx - 4.0 * p * sx - 4.0 * p * p * cx), xy],
        vec![xy, cx * e * (3.0 * cy - 4.0 * q * sy - 4.0 * q * q * cy)],
    ]
}

#[test]
fn easom_derivatives() {
    Case {
        f: easom::<f64>,
        grad: grad_easom::<f64>,
        grad_f32: Some(grad_easom::<f32>),
        jvp: jvp_easom::<f64>,
        hessian: hessian_easom::<f64>,
        hand_grad: easom_grad,
        hand_hessian: easom_hessian,
    }
    .check(&points(2, PI - 1.5, PI + 1.5));
}

/// Levy N.13: sin²(3πx) + (x − 1)² (1 + sin²(3πy)) + (y − 1)² (1 + sin²(2πy)).
#[autodiff(order = 2)]
fn levy_n13<T>(param: &[T; 2]) -> T
where
    T: Float + FromPrimitive + Sum,
{
    let [x1, x2] = *param;

    let n1 = T::from_f64(1.0).unwrap();
    let n2 = T::from_f64(2.0).unwrap();
    let n3 = T::from_f64(3.0).unwrap();
    let pi = T::from_f64(PI).unwrap();

    (n3 * pi * x1).sin().powi(2)
        + (x1 - n1).powi(2) * (n1 + (n3 * pi * x2).sin().powi(2))
        + (x2 - n1).powi(2) * (n1 + (n2 * pi * x2).sin().powi(2))
}

/// sin²(kπz) and its first two derivatives.
fn sin_sq(k: f64, z: f64) -> (f64, f64, f64) {
    let t = k * PI * z;
    (
        t.sin().powi(2),
        k * PI * (2.0 * t).sin(),
        2.0 * (k * PI).powi(2) * (2.0 * t).cos(),
    )
}

fn levy_n13_grad(&[x, y]: &[f64; 2]) -> Vec<f64> {
    let (a, b, c) = (sin_sq(3.0, x), sin_sq(3.0, y), sin_sq(2.0, y));
    vec![
        a.1 + 2.0 * (x - 1.0) * (1.0 + b.0),
        (x - 1.0).powi(2) * b.1 + 2.0 * (y - 1.0) * (1.0 + c.0) + (y - 1.0).powi(2) * c.1,
    ]
}

fn levy_n13_hessian(&[x, y]: &[f64; 2]) -> Vec<Vec<f64>> {
    let (a, b, c) = (sin_sq(3.0, x), sin_sq(3.0, y), sin_sq(2.0, y));
    let xy = 2.0 * (x - 1.0) * b.1;
    vec![
        vec![a.2 + 2.0 * (1.0 + b.0), xy],
        vec![
            xy,
            (x - 1.0).powi(2) * b.2
                + 2.0 * (1.0 + c.0)
                + 4.0 * (y - 1.0) * c.1
                + (y - 1.0).powi(2) * c.2,
        ],
    ]
}

#[test]
fn levy_n13_derivatives() {
    Case {
        f: levy_n13::<f64>,
        grad: grad_levy_n13::<f64>,
        grad_f32: Some(grad_levy_n13::<f32>),
        jvp: jvp_levy_n13::<f64>,
        hessian: hessian_levy_n13::<f64>,
        hand_grad: levy_n13_grad,
        hand_hessian: levy_n13_hessian,
    }
    .check(&points(2, -3.0, 3.0));
}

/// Schaffer N.2: 0.5 + (sin²(x² − y²) − 0.5) / (1 + 0.001 (x² + y²))².
#[autodiff(order = 2)]
fn schaffer_n2<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
    let [x1, x2] = *param;
    let n05 = T::from_f64(0.5).unwrap();
    let n1 = T::from_f64(1.0).unwrap();
    let n0001 = T::from_f64(0.001).unwrap();
    n05 + ((x1.powi(2) - x2.powi(2)).sin().powi(2) - n05)
        / (n1 + n0001 * (x1.powi(2) + x2.powi(2))).powi(2)
}

fn schaffer_n2_parts(&[x, y]: &[f64; 2]) -> (Jet2, Jet2) {
    let u = x * x - y * y;
    let (s2, c2) = ((2.0 * u).sin(), (2.0 * u).cos());
    // N = sin²u − ½, ∇u = (2x, −2y), ∇²u = diag(2, −2)
    let num = (
        u.sin().powi(2) - 0.5,
        [2.0 * x * s2, -2.0 * y * s2],
        [
            8.0 * x * x * c2 + 2.0 * s2,
            -8.0 * x * y * c2,
            8.0 * y * y * c2 - 2.0 * s2,
        ],
    );
    // D = m², m = 1 + 0.001 (x² + y²)
    let m = 1.0 + 0.001 * (x * x + y * y);
    let den = (
        m * m,
        [0.004 * m * x, 0.004 * m * y],
        [
            0.004 * m + 8e-6 * x * x,
            8e-6 * x * y,
            0.004 * m + 8e-6 * y * y,
        ],
    );
    (num, den)
}

fn schaffer_n2_grad(p: &[f64; 2]) -> Vec<f64> {
    let ((n, dn, _), (d, dd, _)) = schaffer_n2_parts(p);
    (0..2).map(|i| dn[i] / d - n * dd[i] / (d * d)).collect()
}

fn schaffer_n2_hessian(p: &[f64; 2]) -> Vec<Vec<f64>> {
    let ((n, dn, ddn), (d, dd, ddd)) = schaffer_n2_parts(p);
    // (N/D)ᵢⱼ = Nᵢⱼ/D − (Nᵢ Dⱼ + Nⱼ Dᵢ)/D² − N Dᵢⱼ/D² + 2N Dᵢ Dⱼ/D³
    let h = |i: usize, j: usize| {
        let k = i + j;
        ddn[k] / d - (dn[i] * dd[j] + dn[j] * dd[i]) / (d * d) - n * ddd[k] / (d * d)
            + 2.0 * n * dd[i] * dd[j] / d.powi(3)
    };
    vec![vec![h(0, 0), h(0, 1)], vec![h(1, 0), h(1, 1)]]
}

#[test]
fn schaffer_n2_derivatives() {
    Case {
        f: schaffer_n2::<f64>,
        grad: grad_schaffer_n2::<f64>,
        grad_f32: Some(grad_schaffer_n2::<f32>),
        jvp: jvp_schaffer_n2::<f64>,
        hessian: hessian_schaffer_n2::<f64>,
        hand_grad: schaffer_n2_grad,
        hand_hessian: schaffer_n2_hessian,
    }
    .check(&points(2, -1.5, 1.5));
}

/// Branin: a (y − b x² + c x − r)² + s (1 − t) cos x + s, with b = 5.1/(4π²), c = 5/π,
/// t = 1/(8π): constants computed from π in `T`.
#[autodiff(order = 2)]
fn branin<T: Float + FromPrimitive>(param: &[T; 2]) -> T {
    let [x1, x2] = *param;
    let pi = T::from_f64(PI).unwrap();
    let a = T::one();
    let b = T::from_f64(5.1).unwrap() / (T::from(4).unwrap() * pi.powi(2));
    let c = T::from(5).unwrap() / pi;
    let r = T::from(6).unwrap();
    let s = T::from(10).unwrap();
    let t = T::one() / (T::from(8).unwrap() * pi);
    a * (x2 - b * x1.powi(2) + c * x1 - r).powi(2) + s * (T::one() - t) * x1.cos() + s
}

const BRANIN: (f64, f64, f64) = (
    5.1 / (4.0 * PI * PI),
    5.0 / PI,
    10.0 * (1.0 - 1.0 / (8.0 * PI)),
);

fn branin_grad(&[x, y]: &[f64; 2]) -> Vec<f64> {
    let (b, c, st) = BRANIN;
    let u = y - b * x * x + c * x - 6.0;
    vec![2.0 * u * (c - 2.0 * b * x) - st * x.sin(), 2.0 * u]
}

fn branin_hessian(&[x, y]: &[f64; 2]) -> Vec<Vec<f64>> {
    let (b, c, st) = BRANIN;
    let (u, ux) = (y - b * x * x + c * x - 6.0, c - 2.0 * b * x);
    vec![
        vec![2.0 * (ux * ux - 2.0 * b * u) - st * x.cos(), 2.0 * ux],
        vec![2.0 * ux, 2.0],
    ]
}

#[test]
fn branin_derivatives() {
    Case {
        f: branin::<f64>,
        grad: grad_branin::<f64>,
        grad_f32: Some(grad_branin::<f32>),
        jvp: jvp_branin::<f64>,
        hessian: hessian_branin::<f64>,
        hand_grad: branin_grad,
        hand_hessian: branin_hessian,
    }
    .check(&points(2, -3.0, 5.0));
}

/// Picheny: (log₁₀(A(x̄) B(x̄)) − 8.693) / 2.427, A and B Goldstein–Price's factors at the point
/// rescaled from [0, 1]² by an array's `map`, x̄ = 4x − 2.
#[autodiff(order = 2)]
fn picheny<T>(param: &[T; 2]) -> T
where
    T: Float + FromPrimitive,
{
    let n1 = T::from_f64(1.0).unwrap();
    let n2 = T::from_f64(2.0).unwrap();
    let n3 = T::from_f64(3.0).unwrap();
    let n4 = T::from_f64(4.0).unwrap();
    let n6 = T::from_f64(6.0).unwrap();
    let n12 = T::from_f64(12.0).unwrap();
    let n14 = T::from_f64(14.0).unwrap();
    let n18 = T::from_f64(18.0).unwrap();
    let n19 = T::from_f64(19.0).unwrap();
    let n27 = T::from_f64(27.0).unwrap();
    let n30 = T::from_f64(30.0).unwrap();
    let n32 = T::from_f64(32.0).unwrap();
    let n36 = T::from_f64(36.0).unwrap();
    let n48 = T::from_f64(48.0).unwrap();

    let [x1, x2] = param.map(|x| n4 * x - n2);

    let a = n1
        + (x1 + x2 + n1).powi(2)
            * (n19 - n14 * (x1 + x2) + n3 * (x1.powi(2) + x2.powi(2)) + n6 * x1 * x2);
    let b = n30
        + (n2 * x1 - n3 * x2).powi(2)
            * (n18 - n32 * x1 + n12 * x1.powi(2) + n48 * x2 - n36 * x1 * x2 + n27 * x2.powi(2));
    T::from_f64(1.0 / 2.427).unwrap() * ((a * b).log10() - T::from_f64(8.693).unwrap())
}

/// log(A B) / (2.427 ln 10) at x̄ = 4x − 2: the gradient (∇A/A + ∇B/B)·4/c and the Hessian
/// (∇²A/A − ∇A∇Aᵀ/A² + the same of B)·16/c, c = 2.427 ln 10.
fn picheny_parts(&[x, y]: &[f64; 2]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let c = 2.427 * 10f64.ln();
    let parts = goldstein_price_parts(&[4.0 * x - 2.0, 4.0 * y - 2.0]);
    let mut g = vec![0.0; 2];
    let mut h = vec![vec![0.0; 2]; 2];
    for (v, d, dd) in parts {
        for i in 0..2 {
            g[i] += 4.0 * d[i] / (v * c);
            for j in 0..2 {
                h[i][j] += 16.0 * (dd[i + j] / v - d[i] * d[j] / (v * v)) / c;
            }
        }
    }
    (g, h)
}

/// At `f64` only: the derivative functions of a function that converts to `f64` and back are
/// written for `f64` (`__private::ThroughF64`), where they compute what it computes.
#[test]
fn picheny_derivatives() {
    Case {
        f: picheny::<f64>,
        grad: grad_picheny::<f64>,
        grad_f32: None::<fn(&[f32; 2]) -> [f32; 2]>,
        jvp: jvp_picheny::<f64>,
        hessian: hessian_picheny::<f64>,
        hand_grad: |p| picheny_parts(p).0,
        hand_hessian: |p| picheny_parts(p).1,
    }
    .check(&points(2, 0.0, 1.0));
}

/// Cross-in-tray: −10⁻⁴ (|sin x sin y e^|100 − ‖x‖/π|| + 1)^0.1, computed in `f64` from a
/// generic float converted by `.into()` and back by `T::from_f64(…).unwrap()`.
#[autodiff(order = 2)]
fn cross_in_tray<T>(param: &[T; 2]) -> T
where
    T: Float + Into<f64> + FromPrimitive,
{
    let x1: f64 = param[0].into();
    let x2: f64 = param[1].into();
    let e = (100.0 - (x1.powi(2) + x2.powi(2)).sqrt() / PI).abs().exp();
    T::from_f64(-0.0001 * ((x1.sin() * x2.sin() * e).abs() + 1.0).powf(0.1)).unwrap()
}

/// g = sin x sin y e^h, h = 100 − r/π (r/π < 100 in the box), f = −10⁻⁴ (|g| + 1)^0.1: the
/// gradient and Hessian of f from those of g.
fn cross_in_tray_parts(&[x, y]: &[f64; 2]) -> (Vec<f64>, Vec<Vec<f64>>) {
    let p = [x, y];
    let r = (x * x + y * y).sqrt();
    let e = (100.0 - r / PI).exp();
    let s = x.sin() * y.sin();
    let ds = [x.cos() * y.sin(), x.sin() * y.cos()];
    let dds = [[-s, x.cos() * y.cos()], [x.cos() * y.cos(), -s]];
    let dh = [-x / (PI * r), -y / (PI * r)];
    let ddh = |i: usize, j: usize| -(f64::from(i == j) / r - p[i] * p[j] / r.powi(3)) / PI;
    let g = s * e;
    let dg = [0, 1].map(|i| (ds[i] + s * dh[i]) * e);
    let ddg = |i: usize, j: usize| {
        (dds[i][j] + ds[i] * dh[j] + ds[j] * dh[i] + s * (dh[i] * dh[j] + ddh(i, j))) * e
    };
    let (u, sign) = (g.abs() + 1.0, g.signum());
    let grad = (0..2)
        .map(|i| -1e-5 * u.powf(-0.9) * sign * dg[i])
        .collect();
    let hess = (0..2)
        .map(|i| {
            (0..2)
                .map(|j| {
                    -1e-5 * (-0.9 * u.powf(-1.9) * dg[i] * dg[j] + u.powf(-0.9) * sign * ddg(i, j))
                })
                .collect()
        })
        .collect();
    (grad, hess)
}

/// At `f64` only, as `picheny`.
#[test]
fn cross_in_tray_derivatives() {
    let case = Case {
        f: cross_in_tray::<f64>,
        grad: grad_cross_in_tray::<f64>,
        grad_f32: None::<fn(&[f32; 2]) -> [f32; 2]>,
        jvp: jvp_cross_in_tray::<f64>,
        hessian: hessian_cross_in_tray::<f64>,
        hand_grad: |p| cross_in_tray_parts(p).0,
        hand_hessian: |p| cross_in_tray_parts(p).1,
    };
    // Points where no sine is zero: the kinks of |g|.
    for x in points(2, 0.2, 2.9).iter().chain(&points(2, -2.9, -0.2)) {
        case.check_f64(x);
    }
}
