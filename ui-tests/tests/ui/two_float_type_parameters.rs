use diffx::autodiff;
use diffx::num_traits::Float;

// A function computes in one float type: two parameters bounded by `Float` would need
// conversions the derivative code cannot guess.
#[autodiff]
fn f<T: Float, U: Float>(x: T, y: U) -> T {
    x * T::from(y).unwrap()
}

fn main() {}
