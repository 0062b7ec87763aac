use diffx::autodiff;

#[autodiff]
fn f(x: f64) -> f64 {
    let y = unsafe { core::mem::transmute::<u64, f64>(x.to_bits()) };
    y * x
}

fn main() {}
