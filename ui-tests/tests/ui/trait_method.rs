use diffx::autodiff;

trait Energy {
    fn energy(&self, x: f64) -> f64;
}

struct Spring;

// In a trait impl the derivative functions cannot be written beside the method: they are not
// members of the trait. The attribute on one method does not see the `impl` it is in: put it on
// the `impl` block, which writes them into an inherent `impl` of the type.
impl Energy for Spring {
    #[autodiff]
    fn energy(&self, x: f64) -> f64 {
        x * x
    }
}

fn main() {}
