// COMPILE ERROR: a `for` with a tuple pattern over an iterator chain on a slice that is not
// differentiated (`wrt(x)`), whose body reads a differentiable value, reached lowering unrewritten:
//   error: loop over a simple name here: `for i in …` or `for &x in …`
// The chain is now rewritten whenever lowering could not bind the pattern.
// (Found by random-program testing with the chain forms: diffx-fuzz seed 606, f36.)
use diffx::autodiff;

#[autodiff(wrt(x))]
fn pairs(w: Vec<f64>, x: f64) -> f64 {
    let mut s = 0.0;
    for (&a, &b) in w.iter().zip(w.iter().skip(1)) {
        s += a * b * x.sin();
    }
    s
}

pub fn main() {
    let w = vec![0.5, -1.0, 2.0];
    let x = 0.7;
    let want = (0.5 * -1.0 + -1.0 * 2.0) * f64::cos(x);
    assert!((grad_pairs(w.clone(), x) - want).abs() < 1e-12);
    assert!((jvp_pairs(w.clone(), x, 1.0).1 - want).abs() < 1e-12);
}
