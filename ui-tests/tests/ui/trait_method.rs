use diffx::autodiff;

trait Energy {
    fn energy(&self, x: f64) -> f64;
}

struct Spring;

// In a trait impl the derivative functions cannot be written beside the method: they are not
// members of the trait. Write the method in an inherent `impl` (or a free function) and call it.
impl Energy for Spring {
    #[autodiff]
    fn energy(&self, x: f64) -> f64 {
        x * x
    }
}

fn main() {}
