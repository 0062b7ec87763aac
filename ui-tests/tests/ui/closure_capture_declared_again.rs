use diffx::autodiff;

// `c` is read by a format string, so `#[autodiff]` cannot give its second binding a name of its
// own, and the closure written out at its call would read the second `c`.
#[autodiff]
fn f(x: f64) -> f64 {
    let c = 2.0 * x;
    let scaled = |t: f64| t * c;
    let c = 5.0;
    println!("{c}");
    scaled(x) + c
}

fn main() {}
