use diffx::autodiff;

// A trait's default method has no type to write derivative functions for: annotate the `impl`.
#[autodiff]
trait Energy {
    fn energy(&self, x: f64) -> f64 {
        x * x
    }
}

fn main() {}
