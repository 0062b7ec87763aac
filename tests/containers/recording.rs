//! Loops that record against loops that recompute: each function is written twice, once as is
//! (its loops record what their backward sweeps read) and once with `loops = "recompute"` (the
//! backward sweeps run the bodies again); both gradients must be the same at every point, and
//! match central differences, and so must both Hessian-vector products (against central
//! differences of the gradient), with `grad_and_hvp_` giving the gradient and the product of
//! `grad_` and `hvp_`. The bodies nest loops, write and push into outer vectors, branch on
//! recorded values, call other functions and break out early: what recording changes.

// (Indexed loops are what is tested.)
#![allow(clippy::needless_range_loop)]

use diffx::autodiff;
use diffx::check::central_difference;

use crate::common::assert_close;

/// The same body as a recording and a recomputing function (with second order: `hvp_`
/// differentiates the same reverse program).
macro_rules! both {
    ($recompute:ident, fn $record:ident $($function:tt)*) => {
        #[autodiff(order = 2)]
        fn $record $($function)*

        #[autodiff(order = 2, loops = "recompute")]
        fn $recompute $($function)*
    };
}

// A Cholesky-like triangle in three nested loops, its rows written into an outer vector that the
// loop then reads (the shape of GradBench's gmm).
both!(
    triangle_recomputed,
    fn triangle(x: &[f64], l: &[f64], d: usize) -> f64 {
        let n = x.len() / d;
        let mut beta = vec![0.0; n];
        let mut total = 0.0;
        for i in 0..n {
            let mut sq = 0.0;
            for j in 0..d {
                let mut row = x[i * d + j] * l[j * d + j].exp();
                for k in 0..j {
                    row += l[j * d + k] * (x[i * d + k] - l[k]);
                }
                sq += row * row;
            }
            beta[i] = (1.0 + sq).ln();
            total += beta[i] * beta[i] + beta[i].sin() * x[i * d];
        }
        total
    }
);

// A `while` on a float condition inside a `for` (its runs have no range), with a counter.
both!(
    newton_recomputed,
    fn newton(x: &[f64], n: usize) -> f64 {
        let mut total = 0.0;
        for i in 0..n {
            let mut y = 1.0 + x[i % x.len()] * x[i % x.len()];
            let mut k = 0;
            while k < 2 + i % 3 && y > 1e-3 {
                y = y - (y * y - 2.0) / (2.0 * y);
                k += 1;
            }
            total += y.sin() * x[0] + y * y;
        }
        total
    }
);

// Sweeps that overwrite an outer vector element by element, reading what the same sweep wrote
// before, with a branch on the values.
both!(
    smooth_recomputed,
    fn smooth(x: &[f64], sweeps: usize) -> f64 {
        let mut v = vec![0.0; x.len()];
        for i in 0..x.len() {
            v[i] = x[i].sin();
        }
        for _ in 0..sweeps {
            for i in 1..x.len() - 1 {
                let m = (v[i - 1] + v[i + 1]) * 0.5;
                if m > v[i] {
                    v[i] = m.tanh() + v[i] * 0.25;
                } else {
                    v[i] *= m;
                }
            }
        }
        let mut s = 0.0;
        for i in 0..x.len() {
            s += v[i] * v[i] * (i as f64 + 1.0);
        }
        s
    }
);

// Pushes into an outer `Vec` from a nested loop, read back after.
both!(
    pushes_recomputed,
    fn pushes(x: &[f64], n: usize) -> f64 {
        let mut out = Vec::new();
        for i in 0..n {
            let a = x[i % x.len()].exp();
            for j in 0..3 {
                out.push(a * j as f64 + a.cos());
            }
        }
        let mut s = 0.0;
        for k in 0..out.len() {
            s += out[k] * out[k].sin();
        }
        s
    }
);

// An inner loop over a vector the outer loop grows: its range is kept per run, as the backward
// sweep's vector has another length.
both!(
    growing_recomputed,
    fn growing(x: &[f64], n: usize) -> f64 {
        let mut out = Vec::new();
        let mut s = 0.0_f64;
        for i in 0..n {
            out.push(x[i % x.len()].sin());
            for k in 0..out.len() {
                s += out[k] * x[k % x.len()] * s.cos();
            }
        }
        s
    }
);

// The nearest of several centres, as kmeans' cost: only the nearest one's distance has a nonzero
// adjoint, and the backward loops over the others' coordinates are skipped.
both!(
    nearest_recomputed,
    fn nearest(points: &[f64], centres: &[f64], d: usize) -> f64 {
        let mut total = 0.0;
        for i in 0..points.len() / d {
            let mut closest = f64::INFINITY;
            for j in 0..centres.len() / d {
                let mut dist = 0.0;
                for e in 0..d {
                    let diff = points[i * d + e] - centres[j * d + e];
                    dist += diff * diff;
                }
                closest = closest.min(dist);
            }
            total += closest;
        }
        total
    }
);

#[autodiff(order = 2)]
fn bump(a: f64, b: f64) -> f64 {
    (a * b).sin() + a * a
}

// Calls in nested loops, and a `break` on a recorded value.
both!(
    calls_recomputed,
    fn calls(x: &[f64], n: usize) -> f64 {
        let mut s = 0.5;
        for i in 0..n {
            let mut inner = 0.0;
            for j in 0..x.len() {
                inner += bump(x[j], s) * (i + j) as f64;
                if inner > 4.0 {
                    break;
                }
            }
            s = (s + inner * 0.1).tanh();
        }
        s
    }
);

// An early return before a loop (the rest of the body is an `if` the return makes), calls in
// the arms and in the loop: the arms record, and the calls keep their pullbacks.
both!(
    early_recomputed,
    fn early(x: &[f64], n: usize) -> f64 {
        if n == 0 {
            return bump(x[0], x[1]).sin();
        }
        let mut s = 0.0;
        for i in 0..x.len() {
            s += bump(x[i], s) * (i as f64 + 1.0);
            if s > 2.0 {
                s = s.sqrt() + bump(s, x[0]);
            }
        }
        if s > 1.0 {
            s = s.ln() + bump(s, x[1]) * n as f64;
        } else {
            let mut t = s;
            for _ in 0..n {
                t = (t * t + x[0]).tanh();
            }
            s *= t;
        }
        s
    }
);

/// The determinant of the minor of rows `row..n` and the columns not in `used`, expanded along
/// its first row (GradBench's `det`): a recursive call in an arm of a loop in the `if` an early
/// return makes (its adjoint runs the callee's forward sweep again: a pullback of the function
/// itself is not kept). Written once for both programs, each calling itself.
macro_rules! minor {
    ($name:ident, $($attr:tt)*) => {
        #[autodiff($($attr)*)]
        fn $name(a: &[f64], n: usize, row: usize, used: u64) -> f64 {
            if row + 1 == n {
                return a[row * n + used.trailing_ones() as usize];
            }
            let (mut det, mut sign) = (0.0, 1.0);
            for j in 0..n {
                if used & (1 << j) == 0 {
                    det += sign * a[row * n + j] * $name(a, n, row + 1, used | (1 << j));
                    sign = -sign;
                }
            }
            det
        }
    };
}

minor!(minor,);
minor!(minor_recomputed, loops = "recompute");

/// A recursive call in an arm of the top level (an error function's odd symmetry), and a call
/// of another function in the other.
macro_rules! odd {
    ($name:ident, $($attr:tt)*) => {
        #[autodiff($($attr)*)]
        fn $name(x: f64, k: f64) -> f64 {
            if x < 0.0 {
                return -$name(-x, k);
            }
            bump(x, k) * (x * k).tanh()
        }
    };
}

odd!(odd,);
odd!(odd_recomputed, loops = "recompute");

// Elements of a vector the loop writes: read and used before the writes (read again from the
// vector by the backward sweep, as in an LSTM cell), read and used again after a write of the
// same vector (recorded), and read after every write (read again), in nested loops.
both!(
    cell_recomputed,
    fn cell(x: &[f64], n: usize) -> f64 {
        let b = x.len();
        let mut st = vec![0.5; 2 * b];
        let mut total = 0.0;
        for t in 0..n {
            for i in 0..b {
                let h = st[i];
                let c = st[b + i];
                let gate = (h * x[i] + 0.1 * t as f64).tanh();
                let hc = h * c;
                let next = c * gate + x[(i + t) % b];
                st[b + i] = next;
                st[i] = next.sin() * gate;
                total += hc;
            }
            for i in 1..b {
                let before = st[i - 1];
                st[i - 1] = before * 0.5 + st[i];
                total += before * before;
            }
            let last = st[b - 1] * st[2 * b - 1];
            total += last.exp();
        }
        total
    }
);

/// Both gradients at `points`: equal to each other, and to central differences.
#[track_caller]
fn check(
    what: &str,
    points: &[Vec<f64>],
    f: impl Fn(&[f64]) -> f64,
    recorded: impl Fn(&[f64]) -> Vec<f64>,
    recomputed: impl Fn(&[f64]) -> Vec<f64>,
) {
    for p in points {
        let (a, b) = (recorded(p), recomputed(p));
        let numeric = central_difference(&f, p);
        for i in 0..p.len() {
            let at = format!("{what}: ∂{i} at {p:?}");
            assert_close(a[i], b[i], 1e-12, &format!("recorded vs recomputed {at}"));
            assert_close(a[i], numeric[i], 1e-6, &at);
        }
    }
}

fn points(len: usize) -> Vec<Vec<f64>> {
    crate::common::wavy_points(4, len)
}

#[test]
fn nested_loops_writing_an_outer_vector() {
    let (d, l) = (3, [0.2, -0.4, 0.1, 0.3, 0.05, -0.2, 0.25, 0.15, -0.1]);
    check(
        "the triangle, in x",
        &points(6),
        |x| triangle(x, &l, d),
        |x| grad_triangle(x, &l, d).0,
        |x| grad_triangle_recomputed(x, &l, d).0,
    );
    let x = [0.4, -0.2, 0.7, 0.1, 0.3, -0.5];
    check(
        "the triangle, in l",
        &points(9),
        |l| triangle(&x, l, d),
        |l| grad_triangle(&x, l, d).1,
        |l| grad_triangle_recomputed(&x, l, d).1,
    );
}

/// A function of a slice and a count, and its gradient.
type Scalar = fn(&[f64], usize) -> f64;
type Gradient = fn(&[f64], usize) -> Vec<f64>;

#[test]
fn loops_over_one_vector() {
    let cases: [(&str, Scalar, Gradient, Gradient, usize, usize); 6] = [
        (
            "elements of a written vector, read before and after writes",
            cell,
            grad_cell,
            grad_cell_recomputed,
            3,
            4,
        ),
        (
            "a while inside a for",
            newton,
            grad_newton,
            grad_newton_recomputed,
            3,
            7,
        ),
        (
            "sweeps overwriting a vector",
            smooth,
            grad_smooth,
            grad_smooth_recomputed,
            5,
            3,
        ),
        (
            "pushes from a nested loop",
            pushes,
            grad_pushes,
            grad_pushes_recomputed,
            3,
            5,
        ),
        (
            "calls and breaks",
            calls,
            grad_calls,
            grad_calls_recomputed,
            4,
            4,
        ),
        (
            "a loop over a growing vector",
            growing,
            grad_growing,
            grad_growing_recomputed,
            3,
            5,
        ),
    ];
    for (what, f, recorded, recomputed, len, n) in cases {
        check(
            what,
            &points(len),
            |x| f(x, n),
            |x| recorded(x, n),
            |x| recomputed(x, n),
        );
    }
}

#[test]
fn ifs_of_the_top_level_and_recursive_calls() {
    for n in [0, 1, 3] {
        check(
            &format!("an early return, loops and calls in arms, n = {n}"),
            &points(4),
            |x| early(x, n),
            |x| grad_early(x, n),
            |x| grad_early_recomputed(x, n),
        );
    }
    for n in [2, 3, 4] {
        let at: Vec<Vec<f64>> = points(n * n)
            .into_iter()
            .map(|a| {
                a.iter()
                    .enumerate()
                    .map(|(i, v)| v + (i % (n + 1)) as f64)
                    .collect()
            })
            .collect();
        check(
            &format!("the determinant by minors, {n}×{n}"),
            &at,
            |a| minor(a, n, 0, 0),
            |a| grad_minor(a, n, 0, 0),
            |a| grad_minor_recomputed(a, n, 0, 0),
        );
    }
    check(
        "a recursive call in an arm",
        &[
            vec![0.7, 1.3],
            vec![-0.4, 0.9],
            vec![-1.1, -0.6],
            vec![0.3, -2.0],
        ],
        |p| odd(p[0], p[1]),
        |p| {
            let (gx, gk) = grad_odd(p[0], p[1]);
            vec![gx, gk]
        },
        |p| {
            let (gx, gk) = grad_odd_recomputed(p[0], p[1]);
            vec![gx, gk]
        },
    );
}

#[test]
fn loops_whose_adjoint_is_zero() {
    let points = [0.1, 0.9, -0.4, 0.3, 0.8, -0.7, 0.2, 0.05];
    check(
        "the nearest centre",
        &points_at(6),
        |c| nearest(&points, c, 2),
        |c| grad_nearest(&points, c, 2).1,
        |c| grad_nearest_recomputed(&points, c, 2).1,
    );
}

/// Three centres in the plane, at several placements.
fn points_at(len: usize) -> Vec<Vec<f64>> {
    points(len)
        .into_iter()
        .map(|p| {
            p.iter()
                .enumerate()
                .map(|(i, x)| x + 0.2 * i as f64)
                .collect()
        })
        .collect()
}

/// A Hessian-vector product, `(point, direction) → H·direction`.
type Hvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> Vec<f64>;

/// The gradient and a Hessian-vector product, `(point, direction) → (∇f, H·direction)`.
type GradHvp<'a> = &'a dyn Fn(&[f64], &[f64]) -> (Vec<f64>, Vec<f64>);

/// `hvp_` of a function of a slice and a count.
type SliceHvp = fn(&[f64], usize, &[f64]) -> Vec<f64>;

/// Both Hessian-vector products at `points` along a direction: equal to each other, to central
/// differences of the gradient along it, and `grad_and_hvp_` equal to `grad_` and `hvp_`.
#[track_caller]
fn check_second(
    what: &str,
    points: &[Vec<f64>],
    grad: &dyn Fn(&[f64]) -> Vec<f64>,
    [recorded, recomputed]: [Hvp; 2],
    both: GradHvp,
) {
    for p in points {
        let t: Vec<f64> = (0..p.len()).map(|i| (1.3 * i as f64 + 0.4).cos()).collect();
        let (a, b) = (recorded(p, &t), recomputed(p, &t));
        let (g, h) = both(p, &t);
        let step = 1e-5;
        let moved = |s: f64| -> Vec<f64> { p.iter().zip(&t).map(|(x, t)| x + s * t).collect() };
        let (up, down) = (grad(&moved(step)), grad(&moved(-step)));
        let here = grad(p);
        for i in 0..p.len() {
            let at = format!("{what}: (H·t){i} at {p:?}");
            assert_close(a[i], b[i], 1e-12, &format!("recorded vs recomputed {at}"));
            assert_close(a[i], (up[i] - down[i]) / (2.0 * step), 1e-5, &at);
            assert_close(h[i], a[i], 1e-12, &format!("grad_and_hvp_ vs hvp_ {at}"));
            assert_close(
                g[i],
                here[i],
                1e-12,
                &format!("grad_and_hvp_ vs grad_ {at}"),
            );
        }
    }
}

#[test]
fn second_order_differentiates_the_recording_program() {
    let (d, l) = (3, [0.2, -0.4, 0.1, 0.3, 0.05, -0.2, 0.25, 0.15, -0.1]);
    check_second(
        "the triangle, in x",
        &points(6),
        &|x| grad_triangle(x, &l, d).0,
        [&|x, t| hvp_triangle(x, &l, d, t, &[0.0; 9]).0, &|x, t| {
            hvp_triangle_recomputed(x, &l, d, t, &[0.0; 9]).0
        }],
        &|x, t| {
            let ((g, _), (h, _)) = grad_and_hvp_triangle(x, &l, d, t, &[0.0; 9]);
            (g, h)
        },
    );
    let cases = [
        SecondCase {
            what: "elements of a written vector, read before and after writes",
            grad: grad_cell,
            hvp: [hvp_cell, hvp_cell_recomputed],
            both: grad_and_hvp_cell,
            len: 3,
            n: 4,
        },
        SecondCase {
            what: "a while inside a for",
            grad: grad_newton,
            hvp: [hvp_newton, hvp_newton_recomputed],
            both: grad_and_hvp_newton,
            len: 3,
            n: 7,
        },
        SecondCase {
            what: "sweeps overwriting a vector",
            grad: grad_smooth,
            hvp: [hvp_smooth, hvp_smooth_recomputed],
            both: grad_and_hvp_smooth,
            len: 5,
            n: 3,
        },
        SecondCase {
            what: "pushes from a nested loop",
            grad: grad_pushes,
            hvp: [hvp_pushes, hvp_pushes_recomputed],
            both: grad_and_hvp_pushes,
            len: 3,
            n: 5,
        },
        SecondCase {
            what: "calls and breaks",
            grad: grad_calls,
            hvp: [hvp_calls, hvp_calls_recomputed],
            both: grad_and_hvp_calls,
            len: 4,
            n: 4,
        },
        SecondCase {
            what: "a loop over a growing vector",
            grad: grad_growing,
            hvp: [hvp_growing, hvp_growing_recomputed],
            both: grad_and_hvp_growing,
            len: 3,
            n: 5,
        },
    ];
    for SecondCase {
        what,
        grad,
        hvp: [recorded, recomputed],
        both,
        len,
        n,
    } in cases
    {
        check_second(
            what,
            &points(len),
            &|x| grad(x, n),
            [&|x, t| recorded(x, n, t), &|x, t| recomputed(x, n, t)],
            &|x, t| both(x, n, t),
        );
    }
    let data = [0.1, 0.9, -0.4, 0.3, 0.8, -0.7, 0.2, 0.05];
    check_second(
        "the nearest centre",
        &points_at(6),
        &|c| grad_nearest(&data, c, 2).1,
        [&|c, t| hvp_nearest(&data, c, 2, &[0.0; 8], t).1, &|c, t| {
            hvp_nearest_recomputed(&data, c, 2, &[0.0; 8], t).1
        }],
        &|c, t| {
            let ((_, g), (_, h)) = grad_and_hvp_nearest(&data, c, 2, &[0.0; 8], t);
            (g, h)
        },
    );
}

/// `grad_and_hvp_` of a function of a slice and a count.
type Both = fn(&[f64], usize, &[f64]) -> (Vec<f64>, Vec<f64>);

/// A function of a slice and a count, its gradient and second order, and where to check them.
struct SecondCase {
    what: &'static str,
    grad: Gradient,
    hvp: [SliceHvp; 2],
    both: Both,
    len: usize,
    n: usize,
}
