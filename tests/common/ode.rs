// GradBench's `ode`: y(2) for the parameters `x` of y′₀ = x₀, y′ᵢ = xᵢ yᵢ₋₁ from y(0) = 0, by `s`
// steps of the classical Runge–Kutta method. `ode_fn!(name, attribute arguments)` writes it under
// `#[autodiff(…)]` (doc comments before the name go on the function). The GradBench tool
// (`benches/gradbench/src/evals/ode.rs`) includes this file, and the tests compare the same body
// recorded and checkpointed.

#[macro_export]
macro_rules! ode_fn {
    ($(#[$doc:meta])* $name:ident, $($attr:tt)*) => {
        $(#[$doc])*
        #[diffx::autodiff($($attr)*)]
        #[allow(clippy::needless_range_loop)]
        pub fn $name(x: &[f64], s: usize) -> Vec<f64> {
            let n = x.len();
            let h = 2.0 / (s as f64);
            let mut y = vec![0.0; n];
            let mut k1 = vec![0.0; n];
            let mut k2 = vec![0.0; n];
            let mut k3 = vec![0.0; n];
            let mut k4 = vec![0.0; n];
            for _ in 0..s {
                k1[0] = x[0];
                for i in 1..n {
                    k1[i] = x[i] * y[i - 1];
                }
                k2[0] = x[0];
                for i in 1..n {
                    k2[i] = x[i] * (y[i - 1] + h * k1[i - 1] / 2.0);
                }
                k3[0] = x[0];
                for i in 1..n {
                    k3[i] = x[i] * (y[i - 1] + h * k2[i - 1] / 2.0);
                }
                k4[0] = x[0];
                for i in 1..n {
                    k4[i] = x[i] * (y[i - 1] + h * k3[i - 1]);
                }
                for i in 0..n {
                    y[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
                }
            }
            y
        }
    };
}
