// A counter an `if` inside a loop decides (`else { cnt += 1 }`), then read only by name in an
// index of the value returned (`return w[(cnt + 1) % 2]`): the loop's backward iteration named
// the `if`'s value of it, which only the forward sweep had, and the program did not compile. The
// loop's recording keeps it. (Found by random-program testing, diffx-fuzz seed 991701, function
// 122; older than this session.)
use diffx::autodiff;

use crate::common::check_hessian;

#[autodiff(order = 2)]
fn decided(x: f64, w: &[f64]) -> f64 {
    let mut cnt = 0;
    let mut c = x;
    loop {
        c += 0.25 * x.tanh();
        if c * x >= w[(cnt + 1) % 2] {
        } else {
            cnt += 1;
        }
        return w[(cnt + 1) % 2] * c;
    }
}

pub fn main() {
    for (x, w) in [(0.5, [1.0, 2.0]), (2.0, [1.0, 0.5])] {
        let grad = |v: &[f64]| {
            let (gx, gw) = grad_decided(v[0], &v[1..]);
            vec![gx, gw[0], gw[1]]
        };
        let at = [x, w[0], w[1]];
        check_hessian(&hessian_decided(x, &w), grad, &at);
        let fd = diffx::check::central_difference(|v| decided(v[0], &v[1..]), &at);
        let g = grad(&at);
        for i in 0..3 {
            assert!((g[i] - fd[i]).abs() < 1e-6, "∂/∂[{i}]: {} vs {}", g[i], fd[i]);
        }
    }
}
