//! Newton's method with derivatives written at compile time: a root of x³ − 2x − 5 (Andrews et
//! al.'s Newton–Raphson, with `jvp_`), and the minimum of 2-D Rosenbrock from (−1.2, 1) with
//! `grad_` and `hessian_`.
//!
//! ```text
//! cargo run --release --example newton
//! ```

use diffx::autodiff;

#[autodiff]
fn cubic(x: f64) -> f64 {
    x * x * x - 2.0 * x - 5.0
}

#[autodiff]
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

fn main() {
    let r = root(2.0);
    println!("root {r:.15}\n");
    let m = minimize([-1.2, 1.0]);
    println!("minimum at ({:.12}, {:.12})", m[0], m[1]);
}
