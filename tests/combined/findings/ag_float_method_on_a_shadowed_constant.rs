// A float method read (`a.tanh()`) counted as changing its receiver in place when a `let mut a`
// shadowed the name in another arm: the loop's `if` gave the outer constant a new binding inside
// the loop, which code after the loop then named: "cannot find value `a_14`", at the attribute.
// A float method of the rule table takes its receiver by value and changes nothing. (Found by
// random-program testing, diffx-fuzz seed 32323, f339.)
use diffx::autodiff;

#[autodiff]
fn shadowed(w: [f64; 2], z: f64) -> f64 {
    let a: f64 = -0.4 * diffx::sigmoid(2.0);
    'outer: for _ in 1..=3 {
        let mut k: usize = 0;
        loop {
            k += 1;
            if (k as f64 * 0.25).abs() < 0.2 {
                let c = a;
                let mut a = a * (0.5 + 0.4 * c.tanh()).abs();
            } else if k < 2 {
                if w[k % 2].mul_add(a.tanh(), 0.5) > z {
                    break 'outer;
                }
            } else {
            }
        }
    }
    a + w[1] + a.max(w[1])
}

pub fn main() {
    // (At these points the inner loop leaves by `break 'outer` when k = 1.)
    let a: f64 = -0.4 * diffx::sigmoid(2.0);
    for (w, z) in [([1.0, 2.0], -1.0), ([1.0, -2.0], -5.0)] {
        let want = a + w[1] + a.max(w[1]);
        assert_eq!(shadowed(w, z), want);
        let (v, (gw, gz)) = value_and_grad_shadowed(w, z);
        assert_eq!(v, want);
        let d = if w[1] > a { 2.0 } else { 1.0 };
        assert_eq!((gw, gz), ([0.0, d], 0.0));
    }
}
