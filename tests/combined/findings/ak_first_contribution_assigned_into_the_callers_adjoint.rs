// A helper taking the slice `w` called twice, one call the other's argument: each pullback is
// offered the caller's adjoint of `w` to add into, and the caller's own first contribution to
// an element of its adjoint (`w̄[0] = c`, sound for a fresh adjoint of zeros) overwrote, in the
// helper's pullback, what its caller had added there: a wrong gradient, with no error. A
// contribution to an adjoint that may be the caller's is added. (Found by random-program
// testing, diffx-fuzz seed 97979, f58, on the commit that made calls accumulate in place.)
use diffx::autodiff;

#[autodiff(order = 2)]
fn h58<T: diffx::Float>(x: T, y: T, n: usize, w: &[T]) -> T {
    let b: T = x;
    b + w[0] + T::from_f64(0.5).unwrap() * (b + w[1])
}

#[autodiff(order = 2)]
fn first_contribution<T: diffx::Float>(x: T, w: &[T]) -> T {
    let mut a = h58(h58(w[1], -T::from_f64(1.2).unwrap(), 0, w), x, 3, w);
    let c: T = x;
    a + c + w[2] + w[0] / (T::from_f64(1.0).unwrap() + (-(c * c)).exp() * (-(c * c)).exp())
}

pub fn main() {
    let w = [0.3, -0.7, 1.1];
    for x in [-0.4_f64, 0.2, 1.3] {
        // h(b, y, n, w) = 1.5·b + w₀ + 0.5·w₁ (y unused), so the inner call is 2·w₁ + w₀ and
        // a = 2.5·w₀ + 3.5·w₁.
        let e = (-2.0 * x * x).exp();
        let want = 2.5 * w[0] + 3.5 * w[1] + x + w[2] + w[0] / (1.0 + e);
        let (value, (gx, gw)) = value_and_grad_first_contribution(x, &w);
        assert!((value - want).abs() < 1e-14, "{value} vs {want}");
        let dw = [2.5 + 1.0 / (1.0 + e), 3.5, 1.0];
        for i in 0..3 {
            assert!((gw[i] - dw[i]).abs() < 1e-14, "∂w{i}: {} vs {}", gw[i], dw[i]);
        }
        let dx = 1.0 + 4.0 * x * w[0] * e / ((1.0 + e) * (1.0 + e));
        assert!((gx - dx).abs() < 1e-14, "∂x: {gx} vs {dx}");
    }
}
