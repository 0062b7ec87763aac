// SILENT: a compound assignment to an element of a local vector of constants, with a compound
// right-hand side, ran without its parentheses in the derivative functions: `v[0] /= 1.0 + 0.25`
// as `v[0] = v[0] / 1.0 + 0.25` (finding Z's form, on an element). `value_and_grad_` returned
// 0.6875 where the function returns 0.625. (Found by random-program testing with loops, vector
// writes and in-place changes weighted up: diffx-fuzz seed 994501, f54, present before that work.)
use diffx::autodiff;

#[autodiff(order = 2)]
fn scaled(w: &[f64], x: f64) -> f64 {
    let mut v = vec![1.0, 2.0, 3.0];
    v[0] /= 1.0 + 0.25;
    v[1] -= 0.5 + 0.25;
    v[2] *= 2.0 - 0.5;
    x * v[0] + w[0] * v[1] + v[2]
}

pub fn main() {
    let (a, b, c) = (1.0 / (1.0 + 0.25), 2.0 - (0.5 + 0.25), 3.0 * (2.0 - 0.5));
    for x in [0.5, -1.5] {
        let w = [0.75];
        let want = x * a + w[0] * b + c;
        assert_eq!(scaled(&w, x), want);
        let (value, (gw, gx)) = value_and_grad_scaled(&w, x);
        assert_eq!(value, want);
        assert_eq!((gw[0], gx), (b, a));
        assert_eq!(jvp_scaled(&w, x, &[0.0], 1.0), (want, a));
        assert_eq!(hvp_scaled(&w, x, &[0.0], 1.0), (vec![0.0], 0.0));
    }
}
