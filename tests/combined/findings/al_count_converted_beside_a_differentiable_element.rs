// A count converted to the float type, `T::from(i).unwrap()`, where `i` is bound beside a
// differentiable element (`for (i, &xi) in w.iter().enumerate()`): the conversions through
// `f64` took it for a differentiable value converted back and dropped the conversion, so the
// derivative code multiplied a `usize` by a `T` and did not compile. A conversion back is dropped
// only for an `f64` computed from a differentiable value. (Found by random-program testing,
// diffx-fuzz seed 888003, f136, on the commit that followed conversions through `f64`.)
use diffx::autodiff;

#[autodiff(order = 2)]
fn weighted<T: diffx::Float>(w: &[T], x: T) -> T {
    let mut s = T::from_f64(0.0).unwrap();
    for (i, &wi) in w.iter().enumerate() {
        s = s + wi * x * T::from(i).unwrap() * T::from_f64(0.25).unwrap();
    }
    s
}

pub fn main() {
    let w = [0.5, -1.0, 2.0];
    for x in [-0.3_f64, 1.7] {
        // s = x/4 · Σ i·wᵢ.
        let sum: f64 = w.iter().enumerate().map(|(i, wi)| i as f64 * wi).sum();
        let (gw, gx) = grad_weighted(&w, x);
        assert!((gx - 0.25 * sum).abs() < 1e-15, "{gx}");
        for (i, g) in gw.iter().enumerate() {
            assert!((g - 0.25 * x * i as f64).abs() < 1e-15, "{g}");
        }
        assert!((jvp_weighted(&w, x, &[0.0; 3], 1.0).1 - gx).abs() < 1e-15);
    }
}
