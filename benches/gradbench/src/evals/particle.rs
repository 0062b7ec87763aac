//! `particle`: Siskind and Pearlmutter's charged particle, nested AD. A particle starts at (0, 8)
//! with velocity (0.75, 0), accelerated by the force −∇ₓp of the potential of two unit charges;
//! Euler steps of 0.1 until it would cross the x axis; the squared x of the crossing is minimized
//! over the control `w` by gradient descent. The force is a derivative (inner AD) and so is the
//! descent's gradient (outer AD), each by forward or reverse mode: `ff`, `fr`, `rf`, `rr` (outer
//! mode first).

use diffx::autodiff;
use serde::Deserialize;
use serde_json::Value;

use super::solver::argmin;
use super::{decode, four_modes};
use crate::protocol::{Evaluation, Runs};

/// The electric potential at `(x, y)` of unit charges at (10, 10 − w) and (10, 0).
#[autodiff(order = 2)]
pub fn potential(x: f64, y: f64, w: f64) -> f64 {
    let first = ((x - 10.0).powi(2) + (y - (10.0 - w)).powi(2)).sqrt();
    let second = ((x - 10.0).powi(2) + y.powi(2)).sqrt();
    1.0 / first + 1.0 / second
}

/// The squared x where the particle crosses the x axis, under the control `w`. The force is
/// −∇ₓp by forward mode (two `jvp_potential`s) if `FORWARD`, else by reverse mode
/// (`grad_potential`).
#[autodiff]
pub fn naive_euler<const FORWARD: bool>(w: f64) -> f64 {
    let (mut x, mut y) = (0.0, 8.0);
    let (mut vx, mut vy) = (0.75, 0.0);
    let delta_t = 0.1;
    loop {
        let (px, py) = if FORWARD {
            let (_, px) = jvp_potential(x, y, w, 1.0, 0.0, 0.0);
            let (_, py) = jvp_potential(x, y, w, 0.0, 1.0, 0.0);
            (px, py)
        } else {
            let (px, py, _) = grad_potential(x, y, w);
            (px, py)
        };
        let (x_new, y_new) = (x + delta_t * vx, y + delta_t * vy);
        if y_new <= 0.0 {
            break;
        }
        (x, y) = (x_new, y_new);
        (vx, vy) = (vx - delta_t * px, vy - delta_t * py);
    }
    let delta_t_f = -y / vy;
    let x_t_f = x + delta_t_f * vx;
    x_t_f * x_t_f
}

/// The control that makes the particle hit the origin: outer derivative by forward mode
/// (`jvp_naive_euler`) if `OUTER_FORWARD`, else by reverse mode.
pub fn particle<const OUTER_FORWARD: bool, const INNER_FORWARD: bool>(w0: f64) -> f64 {
    let f = |w: &[f64]| naive_euler::<INNER_FORWARD>(w[0]);
    let gradient = |w: &[f64]| match OUTER_FORWARD {
        true => vec![jvp_naive_euler::<INNER_FORWARD>(w[0], 1.0).1],
        false => vec![grad_naive_euler::<INNER_FORWARD>(w[0])],
    };
    argmin(f, gradient, &[w0])[0]
}

#[derive(Deserialize)]
struct Input {
    w: f64,
}

/// Evaluates `ff`, `fr`, `rf` or `rr`.
pub fn evaluate(function: &str, input: &Value, runs: Runs) -> Evaluation {
    let Input { w } = decode(input)?;
    four_modes(
        function,
        runs,
        [
            &|| particle::<true, true>(w),
            &|| particle::<true, false>(w),
            &|| particle::<false, true>(w),
            &|| particle::<false, false>(w),
        ],
    )
}
