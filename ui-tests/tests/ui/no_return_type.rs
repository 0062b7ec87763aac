use diffx::autodiff;

#[autodiff]
fn f(x: f64) {
    println!("{x}");
}

fn main() {}
