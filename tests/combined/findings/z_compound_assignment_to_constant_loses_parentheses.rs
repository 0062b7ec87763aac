// WRONG VALUES (silent). A compound assignment to a local that depends on no differentiable
// parameter, with a compound right-hand side, runs without its parentheses in the derivative
// programs: `a /= 1.0 + a * a` as `a = a / 1.0 + a * a`, `a -= 1.0 + a` as `a = a - 1.0 + a`,
// `a *= 1.0 + a` as `a = a * 1.0 + a`.
// Observed (x = 0.5): div: f = 0.7752…, value_and_grad_ = (0.89, 1.0); sub: f = -0.5,
// value_and_grad_ = (0.5, 1.0); mul: f = 1.25, value_and_grad_ = (1.5, 1.0). The gradients are right
// here only because `a` does not depend on x; where the wrong `a` feeds a product with x they are
// wrong too. `a /= (1.0 + a * a)` is right, and so is any of these when `a` depends on x.
// (Found by random-program testing: diffx-fuzz seed 2, f64, reduced.)
use diffx::autodiff;

#[autodiff]
fn div(x: f64) -> f64 {
    let mut a: f64 = 0.3;
    a /= 1.0 + a * a;
    x + a
}

#[autodiff]
fn sub(x: f64) -> f64 {
    let mut a = 0.5;
    a -= 1.0 + a;
    x + a
}

#[autodiff]
fn mul(x: f64) -> f64 {
    let mut a = 0.5;
    a *= 1.0 + a;
    x * a
}

pub fn main() {
    println!("div: f = {}, value_and_grad_ = {:?}", div(0.5), value_and_grad_div(0.5));
    println!("sub: f = {}, value_and_grad_ = {:?}", sub(0.5), value_and_grad_sub(0.5));
    println!("mul: f = {}, value_and_grad_ = {:?}", mul(0.5), value_and_grad_mul(0.5));
    // The checks: a panic here is the bug.
    let close = |got: (f64, f64), want: (f64, f64)| (got.0 - want.0).abs() < 1e-9 && (got.1 - want.1).abs() < 1e-9;
    assert!(close(value_and_grad_div(0.5), (0.5 + 0.3 / 1.09, 1.0)), "MISMATCH div value_and_grad_");
    assert!(close(value_and_grad_sub(0.5), (-0.5, 1.0)), "MISMATCH sub value_and_grad_");
    assert!(close(value_and_grad_mul(0.5), (0.375, 0.75)), "MISMATCH mul value_and_grad_");
    assert!(close(jvp_mul(0.5, 1.0), (0.375, 0.75)), "MISMATCH mul jvp_");
}
