//! Loops to trace, shared by the `explain` example and its tests (`#[path]`).

use diffx::autodiff;

/// The seed's power loop: x multiplied by itself n − 1 times, so xⁿ.
#[autodiff]
pub fn power(x: f64, n: u32) -> f64 {
    let mut p = x;
    for _ in 1..n {
        p *= x;
    }
    p
}

/// Heron's square root of `a`: g ← (g + a/g)/2 until g² is a to the last few bits, a trip count
/// known only at run time.
#[autodiff]
pub fn heron(a: f64) -> f64 {
    let mut g = a;
    while (g * g - a).abs() > 1e-12 * a {
        g = 0.5 * (g + a / g);
    }
    g
}
