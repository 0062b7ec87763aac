//! `ode`: cmpad's `an_ode`, y′₀ = x₀ and y′ᵢ = xᵢ yᵢ₋₁ from y(0) = 0, solved to t = 2 by `s` steps of
//! the classical Runge–Kutta method; the gradient is that of the last component of y(2).

use serde::Deserialize;
use serde_json::Value;

use super::{decode, run, unknown};
use crate::protocol::{Evaluation, Runs};

// `ode_fn!`: the eval's function written under `#[autodiff]` with the arguments given (one file
// for this tool and the tests).
include!("../../../../tests/common/ode.rs");

ode_fn!(
    /// y(2) for the parameters `x`, by `s` Runge–Kutta steps.
    ///
    /// The right-hand side f(y)₀ = x₀, f(y)ᵢ = xᵢ yᵢ₋₁ is written out at each of the four stages. A
    /// helper `rhs(x, &y) -> Vec<f64>` called four times a step (with `along(&y, h / 2.0, &k1)` for
    /// the stage's state) gives the same gradient, but each call allocates its `Vec`s and its
    /// pullback's: `MIN_SECONDS=0.3 run.sh ode`, the two forms run one after the other (2026-11-26),
    /// took 4098 ms for the gradient at n = 100000, s = 100 against 1415 ms for this form (2.9×), and
    /// 75 ms against 53 ms for the primal.
    ode,
);

ode_fn!(
    /// [`ode`] with binomial checkpointing: reverse mode keeps 10 snapshots of the five vectors
    /// (`checkpoint = 9` and the entry state's), a tenth of the steps at the largest size
    /// (s = 100), instead of logging every element each step overwrites. `DIFFX_ODE_CHECKPOINT=1`
    /// makes the eval's `gradient` use it.
    ode_checkpointed,
    checkpoint = 9
);

/// The gradient of y(2)ₙ₋₁ with respect to `x`: one pullback of `ode` with the last unit vector.
pub fn gradient(x: &[f64], s: usize) -> Vec<f64> {
    let mut last = vec![0.0; x.len()];
    last[x.len() - 1] = 1.0;
    vjp_ode(x, s, last)
}

/// [`gradient`] through [`ode_checkpointed`].
pub fn gradient_checkpointed(x: &[f64], s: usize) -> Vec<f64> {
    let mut last = vec![0.0; x.len()];
    last[x.len() - 1] = 1.0;
    vjp_ode_checkpointed(x, s, last)
}

#[derive(Deserialize)]
struct Input {
    x: Vec<f64>,
    s: usize,
}

/// Evaluates `primal` or `gradient`.
pub fn evaluate(function: &str, input: &Value, runs: Runs) -> Evaluation {
    let Input { x, s } = decode(input)?;
    if x.is_empty() {
        return Err("x must not be empty".into());
    }
    match function {
        "primal" => run(runs, || ode(&x, s)),
        "gradient" if std::env::var_os("DIFFX_ODE_CHECKPOINT").is_some() => {
            run(runs, || gradient_checkpointed(&x, s))
        }
        "gradient" => run(runs, || gradient(&x, s)),
        _ => Err(unknown(function, &["primal", "gradient"])),
    }
}
