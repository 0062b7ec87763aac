// An integer counter a loop inside an arm changes (`cnt += 2`), then an index of the arm's
// differentiable code (`w[cnt % 2]`): the backward sweep of the recording `if` read the counter's
// final value by its name, which only the forward sweep had, and the program did not compile. The
// arm's recording keeps it. (Found by random-program testing, diffx-fuzz seed 991402, function
// 122; in the code before this session too.)
use diffx::autodiff;

use crate::common::check_hessian;

#[autodiff(order = 2)]
fn counted(x: f64, w: &[f64]) -> f64 {
    let mut cnt = 0;
    if x > 0.0 {
        for _ in 0..3 {
            cnt += 1;
        }
        return 0.5 * ((w[cnt % 2] * w[cnt % 2] + 0.5).sqrt() + (w[0] + 0.75) * x);
    }
    x * w[1]
}

pub fn main() {
    for (x, w) in [(0.5, [1.0, 2.0]), (-0.5, [1.0, 2.0])] {
        let (gx, gw) = grad_counted(x, &w);
        // cnt = 3 reads w[1]: ∂/∂w₁ = ½ w₁ / √(w₁² + ½).
        if x > 0.0 {
            assert!((gx - 0.5 * (w[0] + 0.75)).abs() < 1e-14);
            assert!((gw[1] - 0.5 * w[1] / (w[1] * w[1] + 0.5).sqrt()).abs() < 1e-14);
            assert!((gw[0] - 0.5 * x).abs() < 1e-14);
        } else {
            assert_eq!((gx, gw), (w[1], vec![0.0, x]));
        }
        let grad = |v: &[f64]| {
            let (gx, gw) = grad_counted(v[0], &v[1..]);
            vec![gx, gw[0], gw[1]]
        };
        check_hessian(&hessian_counted(x, &w), grad, &[x, w[0], w[1]]);
    }
}
