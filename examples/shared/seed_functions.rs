//! The worked examples of the seed papers, shared by the examples and the tests (`#[path]`).

use diffx::autodiff;

/// Fang et al., "A Step-by-step Introduction to the Implementation of Automatic Differentiation":
/// y = ln x1 + x1·x2 − sin x2, written as its evaluation trace v1 … v5.
#[autodiff]
#[allow(clippy::let_and_return)]
pub fn tutorial(x1: f64, x2: f64) -> f64 {
    let v1 = x1.ln();
    let v2 = x1 * x2;
    let v3 = x2.sin();
    let v4 = v1 + v2;
    let v5 = v4 - v3;
    v5
}

/// The blog seed's first graph: e = (a·b)·(b + 1).
#[autodiff]
pub fn e(a: f64, b: f64) -> f64 {
    let c = a * b;
    let d = b + 1.0;
    c * d
}
