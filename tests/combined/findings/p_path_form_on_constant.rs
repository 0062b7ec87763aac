// COMPILE ERROR at the attribute: a method in path form whose first argument is a constant
// expression. Valid Rust (`f64::` fixes the type), but the macro writes it as a method call on the
// bare literal, whose type Rust cannot infer:
//   error[E0689]: can't call method `atan2` on ambiguous numeric type `{float}`
//    --> #[autodiff]
// (likewise `f64::min(2.0, x)`, `f64::cos(0.5 * 0.3)` when it reaches derivative code). Writing
// `0.5_f64 * -0.3` compiles. No span points into the function's body (issue 15 item 3).
// (Found by random-program testing: diffx-fuzz seed 1, f1 and f4.)
use diffx::autodiff;

#[autodiff]
fn atan2_const(x: f64) -> f64 {
    x + f64::atan2(0.5 * -0.3, 1.0 + x * x)
}

#[autodiff]
fn min_const(x: f64) -> f64 {
    x + f64::min(2.0, x)
}

pub fn main() {
    // d/dx [x + atan2(-0.15, 1 + x²)] = 1 + 0.15·2x / ((1 + x²)² + 0.0225)
    let x = 0.5_f64;
    let want = 1.0 + 0.15 * 2.0 * x / ((1.0 + x * x).powi(2) + 0.0225);
    assert!((grad_atan2_const(x) - want).abs() < 1e-12, "MISMATCH atan2_const grad_");
    assert!((grad_min_const(0.5) - 2.0).abs() < 1e-12, "MISMATCH min_const grad_");
}
