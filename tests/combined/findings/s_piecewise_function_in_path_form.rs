// COMPILE ERROR (spanned at the call): the piecewise-constant functions in path form. README: "the
// piecewise-constant `signum floor ceil round trunc` (derivative 0)" and methods "also in path form
// (`f64::sin(x)`)". Every other method of the README's list compiles in path form.
//   error[E0599]: no associated item named `__diffx_jvp_floor` found for type `f64` in the current scope
//   error[E0599]: no associated item named `__diffx_vjp_floor` found for type `f64` in the current scope
// (likewise signum, ceil, round, trunc). `x.floor()` compiles.
// (Found by random-program testing: diffx-fuzz seed 1, h32.)
use diffx::autodiff;

#[autodiff]
fn floor_path(x: f64) -> f64 {
    x * f64::floor(x)
}

#[autodiff]
fn all_path(x: f64) -> f64 {
    f64::signum(x) + f64::ceil(x) + f64::round(x) + f64::trunc(x) + x
}

pub fn main() {
    // Piecewise constant: d/dx (x·floor x) = floor x away from the integers.
    assert!((grad_floor_path(1.5) - 1.0).abs() < 1e-12, "MISMATCH floor_path grad_");
    assert!((grad_all_path(1.5) - 1.0).abs() < 1e-12, "MISMATCH all_path grad_");
}
