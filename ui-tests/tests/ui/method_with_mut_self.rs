use diffx::autodiff;

struct Model {
    w: f64,
}

impl Model {
    #[autodiff]
    fn f(&mut self, x: f64) -> f64 {
        self.w * x
    }
}

fn main() {}
