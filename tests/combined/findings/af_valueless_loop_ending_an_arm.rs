// A `loop` whose breaks give no value, ending a block (a `match` arm, an `if` arm, a loop's body):
// its value is `()`, but desugaring bound it to a float placeholder, so the arm had a float value
// beside `{}` arms: "`match` arms have incompatible types", at the attribute. (Found by
// random-program testing, diffx-fuzz seed 51515, f1126 and f1291, seed 32323, f78 and f129.)
use diffx::autodiff;

#[autodiff(order = 2)]
fn in_match(x: f64, w: &[f64]) -> f64 {
    let mut c = 0usize;
    for i in 0..5 {
        match i % 3 {
            0 => {}
            1 => {
                let mut k = 0;
                'count: loop {
                    k += 1;
                    c += 1;
                    if k >= 2 {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    w[0] * x * c as f64
}

#[autodiff]
fn in_if<T: diffx::Float>(x: T, n: usize) -> T {
    let mut k = 0;
    if n > 1 {
        'outer: loop {
            k += n;
            loop {
                break 'outer;
            }
        }
    }
    x * x * T::from(k).unwrap()
}

#[autodiff(order = 2)]
fn arms<T: diffx::Float>(w: [T; 3], y: T, n: usize, x: T) -> T {
    match n {
        0 => match n % 3 {
            0 => {
                let mut k = 0;
                'l0: loop {
                    k += 1;
                    if k >= 5 {
                        break;
                    }
                }
            }
            _ => {}
        },
        _ if x < w[1] * y.cos() => {}
        _ => {
            return x;
        }
    }
    w[2] + T::from_f64(0.75).unwrap() * y
}

pub fn main() {
    let w = [1.0, 2.0, 3.0];
    assert_eq!(value_and_grad_arms(w, 0.5, 0, 0.1), (3.375, ([0.0, 0.0, 1.0], 0.75, 0.0)));
    assert_eq!(value_and_grad_arms(w, 0.5, 2, 9.0), (9.0, ([0.0; 3], 0.0, 1.0)));
    // c = 4 (i = 1 and i = 4 run the inner loop twice each): f = 4·w₀·x.
    let (x, w) = (0.7, [2.0, 0.0]);
    assert_eq!(in_match(x, &w), 2.0 * 0.7 * 4.0);
    assert_eq!(value_and_grad_in_match(x, &w), (in_match(x, &w), (8.0, vec![2.8, 0.0])));
    assert_eq!(hessian_in_match(x, &w)[0][1], 4.0);
    // k = n when n > 1: f = n·x².
    assert_eq!(in_if(0.5f64, 3), 0.75);
    assert_eq!(grad_in_if(0.5f64, 3), 3.0);
    assert_eq!(jvp_in_if(0.5f32, 0, 1.0).1, 0.0);
}
