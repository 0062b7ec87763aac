// WRONG DERIVATIVES (silent). A parameter left out by `wrt(…)`, shadowed by a value that depends on
// a differentiated parameter: the derivative code of the shadowing expression reads the new binding
// where it means the parameter. In `let x = x * y;` the partial ∂(x·y)/∂y is the parameter x, but
// `grad_` and `jvp_` use the new x (= x·y).
// Observed (y = 2, x = 3): value_and_grad_ = (6.0, 6.0), jvp_ = (6.0, 6.0); want (6.0, 3.0).
// `square`: value_and_grad_ = (36.0, 72.0); want (36.0, 36.0) (d/dy (xy)² = 2x²y).
// Without `wrt` (x differentiated) the same bodies are right; so is a local constant shadowed
// (`let c = 2.0; let c = c * x;`) and a new name (`let u = x * y;`).
// (Found by random-program testing: diffx-fuzz seed 2024, f142.)
use diffx::autodiff;

#[autodiff(wrt(y))]
fn scale(y: f64, x: f64) -> f64 {
    let x = x * y;
    x
}

#[autodiff(wrt(y), order = 2)]
fn square(y: f64, x: f64) -> f64 {
    let x = x * y;
    x * x
}

pub fn main() {
    println!("scale: value_and_grad_ = {:?}, jvp_ = {:?}; want (6.0, 3.0)", value_and_grad_scale(2.0, 3.0), jvp_scale(2.0, 3.0, 1.0));
    println!("square: value_and_grad_ = {:?}, jvp_ = {:?}; want (36.0, 36.0)", value_and_grad_square(2.0, 3.0), jvp_square(2.0, 3.0, 1.0));
    // The checks: a panic here is the bug.
    let close = |got: (f64, f64), want: (f64, f64)| (got.0 - want.0).abs() < 1e-9 && (got.1 - want.1).abs() < 1e-9;
    assert!(close(value_and_grad_scale(2.0, 3.0), (6.0, 3.0)), "MISMATCH scale value_and_grad_");
    assert!(close(jvp_scale(2.0, 3.0, 1.0), (6.0, 3.0)), "MISMATCH scale jvp_");
    assert!(close(value_and_grad_square(2.0, 3.0), (36.0, 36.0)), "MISMATCH square value_and_grad_");
    assert!((hvp_square(2.0, 3.0, 1.0) - 18.0).abs() < 1e-9, "MISMATCH square hvp_ (d²/dy² (xy)² = 2x² = 18)");
}
