//! A function that writes a local vector in loops and `if` arms, elements overwritten after they
//! were read: second order (`second_order/hessians.rs`) and third order (`second_order/third.rs`)
//! through the undo logs of the vector and of its tangents.

use diffx::autodiff;

#[autodiff(order = 3)]
#[allow(clippy::needless_range_loop)]
pub fn written(x: &[f64]) -> f64 {
    let n = x.len();
    let mut y = vec![0.0; n];
    for i in 0..n {
        if x[i] > 0.0 {
            y[i] = x[i] * x[i] * x[i];
        } else {
            y[i] = (2.0 * x[i]).sin();
        }
    }
    let mut s = 0.0;
    for i in 1..n {
        y[i] = y[i] * y[i - 1] + x[i];
        s += y[i] * y[i];
    }
    s
}
