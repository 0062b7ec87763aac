use diffx::autodiff;
use diffx::num_traits::Float;

fn half(v: f64) -> f64 {
    v / 2.0
}

#[autodiff]
fn f<T: Float + Into<f64>>(x: T) -> T {
    let h = half(x.into());
    x * T::from(h).unwrap()
}

fn main() {}
