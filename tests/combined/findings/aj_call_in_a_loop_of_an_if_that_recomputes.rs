// A call in a loop in an arm of a `match` of the top level whose other arm holds a labelled loop
// (so that the `if` the `match` becomes does not record: its backward arm runs the arm again):
// the call's pullback was kept from the forward sweep's run of the arm, whose record of the
// call's value went unread and its stack's element type uninferred, "type annotations needed"
// at the attribute. Only the `if`s that record keep their calls' pullbacks across the sweeps.
// (Found by random-program testing, diffx-fuzz seed 95959, f539, on the commit that made calls in
// recording scopes keep their pullbacks.)
use diffx::autodiff;

#[autodiff]
fn h539(x: f64, n: usize, y: f64) -> f64 {
    x
}

#[autodiff]
fn call_in_a_loop_of_an_if_that_recomputes(w: &[f64], x: f64, n: usize) -> f64 {
    match n {
        0 => {
            'l0: for _ in 0..w.len() {
                if n % 3 != 1 {
                    return h539(x, n % 4, w[3]).mul_add(w[(n + 1) % 4].cos(), (0.5 * f64::sin(x)).tan());
                }
            }
        }
        _ => {
            'l0: for i in 1..n {}
        }
    }
    x
}

pub fn main() {
    let w = [0.3, -0.2, 0.5, 0.7];
    for (x, n) in [(0.4, 0), (0.4, 2), (-0.8, 0)] {
        let (value, (gw, gx)) = value_and_grad_call_in_a_loop_of_an_if_that_recomputes(&w, x, n);
        // n = 0: x·cos(w₁) + tan(sin(x)/2), from the first iteration; otherwise x.
        let (c, t) = (w[1].cos(), (0.5 * x.sin()).tan());
        let (want, dx, dw1) = match n {
            0 => (x * c + t, c + 0.5 * x.cos() / ((0.5 * x.sin()).cos().powi(2)), -x * w[1].sin()),
            _ => (x, 1.0, 0.0),
        };
        assert!((value - want).abs() < 1e-15, "{value} vs {want}");
        assert!((gx - dx).abs() < 1e-14, "{gx} vs {dx}");
        assert_eq!(gw, [0.0, dw1, 0.0, 0.0]);
    }
}
