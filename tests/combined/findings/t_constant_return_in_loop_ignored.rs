// WRONG VALUES AND DERIVATIVES (silent). Inside a loop, an early `return` of a value that depends on
// no differentiable parameter, under a condition that reads none either, is ignored by every
// derivative function: they run on as if the `return` were not there.
// Observed (x = 0.5, n = 3): f = 2, value_and_grad_ = (0.5, 1.0), jvp_ = (0.5, 1.0); want (2.0, 0.0).
// With `wrt`: `#[autodiff(wrt(y))] fn g(x, y) { for … { if x > 0.0 { return -x; } } y }` likewise
// returns y. Right when the condition reads a differentiable value (`if x > 0.0 { return 2.0; }`),
// when the returned value depends on one (`return x * y`), and outside loops.
// (Found by random-program testing: diffx-fuzz seed 1, f259.)
use diffx::autodiff;

#[autodiff]
fn ret_const(x: f64, n: usize) -> f64 {
    for _ in 0..2 {
        if n > 1 {
            return 2.0;
        }
    }
    x
}

#[autodiff(wrt(y))]
fn ret_const_wrt(x: f64, y: f64) -> f64 {
    for _ in 0..2 {
        if x > 0.0 {
            return -x;
        }
    }
    y
}

pub fn main() {
    println!("ret_const: f = {}, value_and_grad_ = {:?}, jvp_ = {:?}; want (2.0, 0.0)", ret_const(0.5, 3), value_and_grad_ret_const(0.5, 3), jvp_ret_const(0.5, 3, 1.0));
    println!("ret_const_wrt: f = {}, value_and_grad_ = {:?}, jvp_ = {:?}; want (-0.5, 0.0)", ret_const_wrt(0.5, 3.0), value_and_grad_ret_const_wrt(0.5, 3.0), jvp_ret_const_wrt(0.5, 3.0, 1.0));
    // The checks: a panic here is the bug.
    let close = |got: (f64, f64), want: (f64, f64)| (got.0 - want.0).abs() < 1e-9 && (got.1 - want.1).abs() < 1e-9;
    assert!(close(value_and_grad_ret_const(0.5, 3), (2.0, 0.0)), "MISMATCH ret_const value_and_grad_");
    assert!(close(jvp_ret_const(0.5, 3, 1.0), (2.0, 0.0)), "MISMATCH ret_const jvp_");
    assert!(close(value_and_grad_ret_const_wrt(0.5, 3.0), (-0.5, 0.0)), "MISMATCH ret_const_wrt value_and_grad_");
    assert!(close(jvp_ret_const_wrt(0.5, 3.0, 1.0), (-0.5, 0.0)), "MISMATCH ret_const_wrt jvp_");
}
