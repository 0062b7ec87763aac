// SILENT: an operator whose operands are constants only after lowering (`signum` of a
// differentiable value is piecewise constant) was written out again as the user wrote it, after
// its operands had been kept in locals where they are read: a `stack.pop()` in it ran twice, so
// `value_and_grad_` returned another value than the function (1.096… for 1.036…). The operator is
// now written from the locals (also a function or method applied to such constants). (Found by random-program testing with parameter structs and second
// order weighted up: diffx-fuzz seed 51515, f22.)
use diffx::autodiff;

#[autodiff(order = 2)]
fn popped(z: f64) -> f64 {
    let mut stack = vec![0.25, 0.5];
    1.25 * f64::cos(stack.pop().unwrap_or(0.5)) - (-(z * z)).exp().signum() * stack.pop().unwrap_or(0.5)
}

#[autodiff(order = 2)]
fn negated(z: f64) -> f64 {
    let mut stack = vec![0.25, 0.5];
    let a = -(stack.pop().unwrap_or(1.0) * z.signum());
    let r = diffx::relu(z.signum() * stack.pop().unwrap_or(1.0) - 0.1);
    a + z * r
}

pub fn main() {
    for z in [-0.7, 1.3] {
        let want = 1.25 * 0.5f64.cos() - 0.25;
        assert_eq!(popped(z), want);
        assert_eq!(value_and_grad_popped(z), (want, 0.0));
        assert_eq!(jvp_popped(z, 1.0), (want, 0.0));
        assert_eq!(hvp_popped(z, 1.0), 0.0);
        let r = diffx::relu(z.signum() * 0.25 - 0.1);
        let want = -0.5 * z.signum() + z * r;
        assert_eq!(negated(z), want);
        assert_eq!(value_and_grad_negated(z), (want, r));
        assert_eq!(jvp_negated(z, 1.0), (want, r));
    }
}
