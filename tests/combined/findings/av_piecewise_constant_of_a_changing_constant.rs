// SILENT: a piecewise-constant method of a differentiable value whose operand changes a constant
// in place (`(stack.pop().unwrap_or(0.5) + 0.4 * x.tanh()).trunc()`) was kept as the user wrote
// it, and forward mode wrote it twice, for the value and for the tangent of the product it is a
// factor of: the second `pop` read another element, and `jvp_` gave 0 where the gradient gives
// 0.25. Such a constant is now kept in a local where it is read. (Found by random-program testing
// with loops and in-place changes weighted up: diffx-fuzz seed 994501, f1027, present before.)
use diffx::autodiff;

#[autodiff(order = 2)]
fn truncated(x: f64, z: f64) -> f64 {
    let mut stack = vec![0.25, 0.5, 0.125, 0.375, 0.0625, 0.4375];
    for _ in 1..=3 {
        return z * ((2.0 * (stack.pop().unwrap_or(0.5) + 0.4 * x.tanh())).trunc() * 0.25);
    }
    z
}

#[autodiff(order = 2)]
fn floored(x: f64) -> f64 {
    let mut stack = vec![1.5, 2.5];
    let k = f64::floor(stack.pop().unwrap_or(0.0) + x.sin());
    x * k + stack.pop().unwrap_or(0.0)
}

pub fn main() {
    for x in [1.17, -0.3] {
        let k = (2.0 * (0.4375 + 0.4 * f64::tanh(x))).trunc() * 0.25;
        let z = -0.8675;
        assert_eq!(truncated(x, z), z * k);
        assert_eq!(value_and_grad_truncated(x, z), (z * k, (0.0, k)));
        assert_eq!(jvp_truncated(x, z, 0.0, 1.0), (z * k, k));
        assert_eq!(jvp_truncated(x, z, 1.0, 0.0), (z * k, 0.0));
        assert_eq!(hvp_truncated(x, z, 1.0, 1.0), (0.0, 0.0));
        let k = (2.5 + x.sin()).floor();
        let want = x * k + 1.5;
        assert_eq!(floored(x), want);
        assert_eq!(value_and_grad_floored(x), (want, k));
        assert_eq!(jvp_floored(x, 1.0), (want, k));
    }
}
