use diffx::autodiff;
use diffx::num_traits::{Float, FromPrimitive};

// The derivative functions compute the `f64` part in `T`: at `f32` they would not compute what
// the function computes, so they are written for `f64` alone.
#[autodiff]
fn scaled<T: Float + Into<f64> + FromPrimitive>(x: T) -> T {
    let v: f64 = x.into();
    T::from_f64(v.exp() * 1e40).unwrap()
}

fn main() {
    let _ = grad_scaled(1.0f64);
    let _ = grad_scaled(1.0f32);
}
