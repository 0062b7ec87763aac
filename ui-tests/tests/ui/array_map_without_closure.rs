use diffx::autodiff;

fn adder(k: f64) -> impl Fn(f64) -> f64 {
    move |v| v + k
}

#[autodiff]
fn f(p: &[f64; 2]) -> f64 {
    let q = p.map(adder(2.0));
    q[0] * q[1]
}

fn main() {}
