// COMPILE ERROR at the attribute: `log` with a constant base. The derivative divides by the
// base's `ln`, which the macro writes as a method on the bare literal:
//   error[E0689]: can't call method `ln` on ambiguous numeric type `{float}`
//    --> #[autodiff]
// `(2.0 + x).log(b)` with `let b = 3.0;` compiles, and so does a base that depends on x. No span
// points into the function's body (issue 15 item 3).
// (Found by random-program testing: diffx-fuzz seed 1, h1.)
use diffx::autodiff;

#[autodiff]
fn log3(x: f64) -> f64 {
    (2.0 + x).log(3.0)
}

pub fn main() {
    // d/dx log₃(2 + x) = 1 / ((2 + x) ln 3)
    let x = 0.5;
    assert!((grad_log3(x) - 1.0 / ((2.0 + x) * 3f64.ln())).abs() < 1e-12, "MISMATCH log3 grad_");
}
