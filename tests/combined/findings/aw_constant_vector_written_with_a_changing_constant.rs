// SILENT: a write into a vector of constants kept as written, whose right-hand side changes a
// constant in place (`v[k] *= (stack.pop()… * x).tanh()` with `x` left out by `wrt`), ran its
// right-hand side twice in the derivative functions: once lowered (kept in a local, as a
// constant that changes in place is) and once in the statement kept as written. The second `pop`
// read another element, and `value_and_grad_` returned another value than the function. The
// lowered right-hand side is now dropped where the write is kept as written; a push likewise.
// (Found by random-program testing with loops and in-place changes weighted up: diffx-fuzz seed
// 994601, f1650, present before.)
use diffx::autodiff;

#[autodiff(wrt(w), order = 2)]
fn scaled(x: f64, w: &[f64]) -> f64 {
    let mut stack = vec![0.25, 0.5, 2.0];
    let mut v = vec![x, -x];
    let k = 0;
    v[k % 2] *= (stack.pop().unwrap_or(0.5) * x).tanh();
    v.push(stack.pop().unwrap_or(0.5) * x);
    v[0] * w[1] + v[2] * w[0] + stack.pop().unwrap_or(0.0)
}

pub fn main() {
    for x in [0.8_f64, -0.4] {
        let w = [0.5, 0.25];
        let (a, b) = (x * (2.0 * x).tanh(), 0.5 * x);
        let want = a * w[1] + b * w[0] + 0.25;
        assert_eq!(scaled(x, &w), want);
        let (value, grad) = value_and_grad_scaled(x, &w);
        assert_eq!(value, want);
        assert_eq!(grad, vec![b, a]);
        assert_eq!(jvp_scaled(x, &w, &[1.0, 0.0]), (want, b));
        assert_eq!(hvp_scaled(x, &w, &[1.0, 0.0]), vec![0.0, 0.0]);
    }
}
