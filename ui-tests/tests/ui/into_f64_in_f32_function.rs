use diffx::autodiff;

#[autodiff]
fn f(x: f32) -> f32 {
    let y: f64 = x.into();
    (y * y) as f32
}

fn main() {}
