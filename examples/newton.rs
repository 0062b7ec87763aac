//! Newton's method with derivatives written at compile time: a root of x³ − 2x − 5 (Andrews et
//! al.'s Newton–Raphson, with `jvp_`), the same root by Halley's method as the minimum of
//! x⁴/4 − x² − 5x (with its first, second and third derivatives: `grad_`, `hvp_`, `d3_`), the
//! minimum of 2-D Rosenbrock from (−1.2, 1) with `grad_` and `hessian_`, and the extended
//! Rosenbrock with n = 100 by Newton–CG: conjugate gradients on H·p = −∇f with Hessian-vector
//! products from `hvp_`, never forming H.
//!
//! ```text
//! cargo run --release --example newton
//! ```

use diffx::autodiff;

#[autodiff]
fn cubic(x: f64) -> f64 {
    x * x * x - 2.0 * x - 5.0
}

#[autodiff(order = 2)]
fn rosenbrock(x: f64, y: f64) -> f64 {
    let a = 1.0 - x;
    let b = y - x * x;
    a * a + 100.0 * b * b
}

/// Newton–Raphson: x ← x − f(x)/f′(x), the derivative by forward mode.
fn root(mut x: f64) -> f64 {
    println!("Newton–Raphson for x³ − 2x − 5 = 0 from x = {x}");
    for k in 0..50 {
        let (fx, dfx) = jvp_cubic(x, 1.0);
        println!("  {k:>2}: x = {x:.15}  f(x) = {fx:+.3e}");
        if fx.abs() < 1e-14 {
            break;
        }
        x -= fx / dfx;
    }
    x
}

/// g(x) = x⁴/4 − x² − 5x, whose derivative is x³ − 2x − 5: its minimum is the cubic's root.
/// `order = 3` adds `d3_quartic`, g‴.
#[autodiff(order = 3)]
fn quartic(x: f64) -> f64 {
    0.25 * x * x * x * x - x * x - 5.0 * x
}

/// Halley's method on g′(x) = 0: x ← x − 2g′g″ / (2g″² − g′g‴), cubically convergent, with g′ by
/// reverse mode, g″ by forward over reverse and g‴ by forward over forward over reverse.
fn halley(mut x: f64) -> f64 {
    println!(
        "Halley's method for the minimum of x⁴/4 − x² − 5x (where x³ − 2x − 5 = 0) from x = {x}"
    );
    for k in 0..20 {
        let (d1, d2, d3) = (grad_quartic(x), hvp_quartic(x, 1.0), d3_quartic(x));
        println!("  {k:>2}: x = {x:.15}  g′(x) = {d1:+.3e}  g‴(x) = {d3:.6}");
        if d1.abs() < 1e-14 {
            break;
        }
        x -= 2.0 * d1 * d2 / (2.0 * d2 * d2 - d1 * d3);
    }
    x
}

/// Newton's method for a minimum: solve H·step = −∇f with the 2×2 Hessian.
fn minimize(mut p: [f64; 2]) -> [f64; 2] {
    println!("Newton's method on 2-D Rosenbrock from {p:?}");
    for k in 0..30 {
        let (value, (gx, gy)) = value_and_grad_rosenbrock(p[0], p[1]);
        let h = hessian_rosenbrock(p[0], p[1]);
        println!(
            "  {k:>2}: (x, y) = ({:.12}, {:.12})  f = {value:.3e}  |∇f| = {:.3e}",
            p[0],
            p[1],
            gx.hypot(gy)
        );
        if gx.hypot(gy) < 1e-12 {
            break;
        }
        let det = h[0][0] * h[1][1] - h[0][1] * h[1][0];
        let step = [
            (-gx * h[1][1] + gy * h[0][1]) / det,
            (gx * h[1][0] - gy * h[0][0]) / det,
        ];
        p = [p[0] + step[0], p[1] + step[1]];
    }
    p
}

/// The extended Rosenbrock function of Moré, Garbow and Hillstrom: n/2 independent pairs
/// 100(x₂ᵢ₊₁ − x₂ᵢ²)² + (1 − x₂ᵢ)², minimum 0 at (1, …, 1). (The chained form
/// Σ 100(xᵢ₊₁ − xᵢ²)² + (1 − xᵢ)² has a second local minimum, f ≈ 3.98662 near x₀ = −1, for n ≥ 4,
/// which Newton's method from (−1.2, 1, 1, …) reaches instead.)
#[autodiff(order = 2)]
fn extended(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() / 2 {
        let a = x[2 * i + 1] - x[2 * i] * x[2 * i];
        let b = 1.0 - x[2 * i];
        s += 100.0 * a * a + b * b;
    }
    s
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A Newton direction from truncated conjugate gradients on H·p = −g (stopping at negative
/// curvature), with H·d from `hvp_extended`.
fn newton_direction(x: &[f64], g: &[f64]) -> Vec<f64> {
    let n = x.len();
    let (mut p, mut r) = (vec![0.0; n], g.iter().map(|v| -v).collect::<Vec<_>>());
    let mut d = r.clone();
    let mut rr = dot(&r, &r);
    let tol = 1e-3_f64.min(rr.sqrt()) * rr.sqrt();
    for _ in 0..n {
        let hd = hvp_extended(x, &d);
        let curvature = dot(&d, &hd);
        if curvature <= 0.0 {
            break;
        }
        let alpha = rr / curvature;
        for i in 0..n {
            p[i] += alpha * d[i];
            r[i] -= alpha * hd[i];
        }
        let next = dot(&r, &r);
        if next.sqrt() < tol {
            break;
        }
        for i in 0..n {
            d[i] = r[i] + next / rr * d[i];
        }
        rr = next;
    }
    if dot(&p, g) >= 0.0 {
        return g.iter().map(|v| -v).collect();
    }
    p
}

/// Newton–CG with a backtracking (Armijo) line search; returns the number of Newton steps.
pub fn newton_cg(x: &mut [f64], verbose: bool) -> usize {
    for k in 0..200 {
        let (f, g) = value_and_grad_extended(x);
        let gnorm = dot(&g, &g).sqrt();
        if verbose {
            println!(
                "  {k:>3}: f = {f:.6e}  |∇f| = {gnorm:.3e}  x[0..3] = {:.6?}",
                &x[..3]
            );
        }
        if gnorm < 1e-10 {
            return k;
        }
        let p = newton_direction(x, &g);
        let slope = dot(&g, &p);
        let mut t = 1.0;
        let trial = |t: f64| x.iter().zip(&p).map(|(a, b)| a + t * b).collect::<Vec<_>>();
        while extended(&trial(t)) > f + 1e-4 * t * slope && t > 1e-12 {
            t *= 0.5;
        }
        let next = trial(t);
        x.copy_from_slice(&next);
    }
    200
}

fn main() {
    let r = root(2.0);
    println!("root {r:.15}\n");
    let h = halley(2.0);
    println!("root {h:.15}\n");
    let m = minimize([-1.2, 1.0]);
    println!("minimum at ({:.12}, {:.12})\n", m[0], m[1]);
    let mut x: Vec<f64> = (0..100)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect();
    println!("Newton–CG on the extended Rosenbrock, n = 100, from (−1.2, 1, −1.2, 1, …)");
    let steps = newton_cg(&mut x, true);
    let worst = x.iter().map(|v| (v - 1.0).abs()).fold(0.0, f64::max);
    println!("converged in {steps} Newton steps; max |xᵢ − 1| = {worst:.1e}");
}
