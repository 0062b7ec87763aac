//! `saddle`: Siskind and Pearlmutter's saddle point, nested AD. With
//! `f(p1, p) = (p1₀² + p1₁²) − (p₀² + p₁²)`, the point `r1` minimizing `max_p f(p1, p)` (a
//! gradient descent over `p1` whose objective is itself a gradient ascent over `p`), then `r2`
//! maximizing `f(r1, p)`, all from `start`. The inner ascent's gradient and the outer descent's
//! are each by forward or reverse mode: `ff`, `fr`, `rf`, `rr` (outer mode first).

use diffx::autodiff;
use serde::Deserialize;
use serde_json::Value;

use super::solver::{argmax, argmin, forward_gradient};
use super::{decode, four_modes};
use crate::protocol::{Evaluation, Runs};

/// `f(p1, p)`, the function whose saddle point is sought.
#[autodiff(order = 2)]
pub fn cost(p1_0: f64, p1_1: f64, p_0: f64, p_1: f64) -> f64 {
    (p1_0 * p1_0 + p1_1 * p1_1) - (p_0 * p_0 + p_1 * p_1)
}

/// `∇ₚf(p1, p)`, by forward mode (two `jvp_cost`s) if `FORWARD`, else by reverse mode.
#[autodiff]
pub fn ascent<const FORWARD: bool>(p1: [f64; 2], p: [f64; 2]) -> [f64; 2] {
    if FORWARD {
        let (_, g0) = jvp_cost(p1[0], p1[1], p[0], p[1], 0.0, 0.0, 1.0, 0.0);
        let (_, g1) = jvp_cost(p1[0], p1[1], p[0], p[1], 0.0, 0.0, 0.0, 1.0);
        [g0, g1]
    } else {
        let (_, _, g0, g1) = grad_cost(p1[0], p1[1], p[0], p[1]);
        [g0, g1]
    }
}

/// `max_p f(p1, p)` by gradient ascent from `start` (the solver's descent on −f, written out:
/// this loop is differentiated with respect to `p1`).
#[autodiff(wrt(p1))]
pub fn max_cost<const FORWARD: bool>(p1: [f64; 2], start: [f64; 2]) -> f64 {
    let mut p = start;
    let mut fp = -cost(p1[0], p1[1], p[0], p[1]);
    let g = ascent::<FORWARD>(p1, p);
    let mut gp = [-g[0], -g[1]];
    let mut eta = 1e-5;
    let mut i = 0;
    loop {
        if (gp[0] * gp[0] + gp[1] * gp[1]).sqrt() <= 1e-5 {
            break;
        }
        if i == 10 {
            eta *= 2.0;
            i = 0;
            continue;
        }
        let q = [p[0] - eta * gp[0], p[1] - eta * gp[1]];
        if ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt() <= 1e-5 {
            break;
        }
        let fq = -cost(p1[0], p1[1], q[0], q[1]);
        if fq < fp {
            let g = ascent::<FORWARD>(p1, q);
            gp = [-g[0], -g[1]];
            p = q;
            fp = fq;
            i += 1;
        } else {
            eta /= 2.0;
            i = 0;
        }
    }
    cost(p1[0], p1[1], p[0], p[1])
}

/// `r1` and `r2` concatenated: outer derivatives by forward mode (`jvp_max_cost`) if `OUTER_FORWARD`, else by
/// reverse mode (`grad_max_cost`).
pub fn saddle<const OUTER_FORWARD: bool, const INNER_FORWARD: bool>(start: [f64; 2]) -> [f64; 4] {
    let pair = |p: &[f64]| [p[0], p[1]];
    let r1_cost = |p1: &[f64]| max_cost::<INNER_FORWARD>(pair(p1), start);
    let r1_gradient = |p1: &[f64]| match OUTER_FORWARD {
        true => forward_gradient(
            |p1, e| jvp_max_cost::<INNER_FORWARD>(pair(p1), start, pair(e)).1,
            p1,
        ),
        false => grad_max_cost::<INNER_FORWARD>(pair(p1), start).to_vec(),
    };
    let r1 = pair(&argmin(r1_cost, r1_gradient, &start));
    let r2_cost = |p: &[f64]| cost(r1[0], r1[1], p[0], p[1]);
    let r2_gradient = |p: &[f64]| match OUTER_FORWARD {
        true => forward_gradient(
            |p, e| jvp_cost(r1[0], r1[1], p[0], p[1], 0.0, 0.0, e[0], e[1]).1,
            p,
        ),
        false => {
            let (_, _, g0, g1) = grad_cost(r1[0], r1[1], p[0], p[1]);
            vec![g0, g1]
        }
    };
    let r2 = argmax(r2_cost, r2_gradient, &start);
    [r1[0], r1[1], r2[0], r2[1]]
}

#[derive(Deserialize)]
struct Input {
    start: [f64; 2],
}

/// Evaluates `ff`, `fr`, `rf` or `rr`.
pub fn evaluate(function: &str, input: &Value, runs: Runs) -> Evaluation {
    let Input { start } = decode(input)?;
    four_modes(
        function,
        runs,
        [
            &|| saddle::<true, true>(start),
            &|| saddle::<true, false>(start),
            &|| saddle::<false, true>(start),
            &|| saddle::<false, false>(start),
        ],
    )
}
