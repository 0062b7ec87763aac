// A counter an inner loop carries (`cnt += 2`) inside a recording outer loop, read afterwards
// only by name in an index (`w[cnt % 4]`) of code that ends in a `loop` with an early `return`:
// the outer loop's backward iteration popped the counter, but its trimming dropped the pop as
// unread (the name is read in kept code, not as a value), and the program did not compile. A
// pop read by name is kept. (Found by random-program testing, diffx-fuzz seed 991501, function
// 156; older than this session.)
use diffx::autodiff;

use crate::common::check_hessian;

#[autodiff(order = 2)]
fn counted(w: Vec<f64>, x: f64) -> f64 {
    let mut cnt = 0;
    for _ in 1..=2 {
        for _ in 0..3 {
            cnt += 2;
        }
        let mut u = (w[(cnt + 1) % 4] + w[1].cos()).tanh();
        loop {
            u += 0.25 * diffx::sigmoid(w[cnt % 4]);
            if u * x > 2.0 {
                return x * u;
            }
            break;
        }
    }
    x * w[cnt % 4]
}

pub fn main() {
    let w = vec![0.1, 0.2, 0.3, 0.4];
    for x in [0.5, 9.0] {
        let grad = |v: &[f64]| {
            let (gw, gx) = grad_counted(v[..4].to_vec(), v[4]);
            let mut all = gw;
            all.push(gx);
            all
        };
        let mut at = w.clone();
        at.push(x);
        check_hessian(&hessian_counted(w.clone(), x), grad, &at);
        let fd = diffx::check::central_difference(|v| counted(v[..4].to_vec(), v[4]), &at);
        let (gw, gx) = grad_counted(w.clone(), x);
        for (i, g) in gw.iter().chain([&gx]).enumerate() {
            assert!((g - fd[i]).abs() < 1e-6, "∂/∂[{i}]: {g} vs {}", fd[i]);
        }
    }
}
