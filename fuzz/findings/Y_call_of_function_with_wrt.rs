// COMPILE ERROR at the attribute: calling a function that has `wrt(…)` from another `#[autodiff]`
// function.
//   error[E0308]: mismatched types: expected `f64`, found `Zero`
//    --> #[autodiff]
// Observed for `pass_params` (the caller's parameters passed to the callee, one of them for the
// callee's non-differentiated parameter) and `pass_constant` (a constant for the callee's
// differentiated parameter). `let a = x * y; a + hw(a, x)` compiles. README: "Calls to other
// #[autodiff] functions … differentiated through in both modes" names no exception for `wrt`.
// With `order = 2` on the caller the error is `cannot multiply Zero by {float}`, and with a callee
// of `order = 3` `+= cannot be applied to Zero`. No span points into the function's body (issue
// 15 item 3).
// (Found by random-program testing: diffx-fuzz seed 2, f130, and seed 5, f8, reduced.)
use diffx::autodiff;

#[autodiff(wrt(x))]
fn hw(y: f64, x: f64) -> f64 {
    x * y
}

#[autodiff]
fn pass_params(x: f64, y: f64) -> f64 {
    hw(y, x)
}

#[autodiff]
fn pass_constant(x: f64, y: f64) -> f64 {
    hw(y, 0.7) + x
}

fn main() {
    // hw(y, x) = xy, differentiated in x only: through the call, ∂/∂x = y, and ∂/∂y = x as well
    // (the caller differentiates its own parameters).
    assert!((grad_pass_params(0.5, 2.0).0 - 2.0).abs() < 1e-12, "MISMATCH pass_params grad_");
    assert!((grad_pass_constant(0.5, 2.0).0 - 1.0).abs() < 1e-12, "MISMATCH pass_constant grad_");
}
