//! The gradient descent of Siskind and Pearlmutter's nested-AD benchmarks (`particle`, `saddle`),
//! as GradBench's tools write it: steps of `eta` along the negative gradient, `eta` doubled after
//! ten accepted steps in a row and halved after a rejected one, until the gradient or the step is
//! below 1e-5. The derivatives it is given come from `#[autodiff]`; the descent itself is not
//! differentiated (the inner descents, which are, are written inside the `#[autodiff]` functions).

/// The minimizer of `f` from `x`, given `f`'s gradient.
pub fn argmin(
    f: impl Fn(&[f64]) -> f64,
    gradient: impl Fn(&[f64]) -> Vec<f64>,
    x: &[f64],
) -> Vec<f64> {
    let mut x = x.to_vec();
    let mut fx = f(&x);
    let mut gx = gradient(&x);
    let mut eta = 1e-5;
    let mut i = 0;
    loop {
        if magnitude(&gx) <= 1e-5 {
            return x;
        }
        if i == 10 {
            eta *= 2.0;
            i = 0;
            continue;
        }
        let x_prime: Vec<f64> = x.iter().zip(&gx).map(|(x, g)| x - eta * g).collect();
        let step: Vec<f64> = x.iter().zip(&x_prime).map(|(a, b)| a - b).collect();
        if magnitude(&step) <= 1e-5 {
            return x;
        }
        let fx_prime = f(&x_prime);
        if fx_prime < fx {
            gx = gradient(&x_prime);
            (x, fx) = (x_prime, fx_prime);
            i += 1;
        } else {
            eta /= 2.0;
            i = 0;
        }
    }
}

/// The maximizer of `f` from `x`, given `f`'s gradient.
pub fn argmax(
    f: impl Fn(&[f64]) -> f64,
    gradient: impl Fn(&[f64]) -> Vec<f64>,
    x: &[f64],
) -> Vec<f64> {
    let neg = |g: Vec<f64>| g.into_iter().map(|g| -g).collect();
    argmin(|x| -f(x), |x| neg(gradient(x)), x)
}

fn magnitude(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// The gradient of a function of `x.len()` numbers by forward mode: one directional derivative
/// (`derivative(x, e_i)`) per unit vector.
pub fn forward_gradient(derivative: impl Fn(&[f64], &[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let mut e = vec![0.0; x.len()];
            e[i] = 1.0;
            derivative(x, &e)
        })
        .collect()
}
