// A constant a loop body changes in place must be `Clone`: reverse mode replays each iteration
// from its value at the start.
use diffx::autodiff;

struct Counter(u32);

impl Counter {
    fn tick(&mut self) -> f64 {
        self.0 += 1;
        f64::from(self.0)
    }
}

#[autodiff]
fn f(x: f64) -> f64 {
    let mut c = Counter(0);
    let mut y = 0.0;
    for _ in 0..3 {
        y += c.tick() * x;
    }
    y
}

fn main() {}
