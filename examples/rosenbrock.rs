//! Rosenbrock's function minimized by argmin's solvers, its gradient and Hessian written by
//! `#[autodiff]`: L-BFGS (cost and gradient) and Newton's method (cost, gradient and Hessian), each
//! printing its iterations. Newton's steps are taken inside a trust region (argmin's `TrustRegion`
//! with Steihaug's conjugate gradients, which in two dimensions solve the Newton system exactly in
//! two iterations), as Newton's method is run far from the minimum.
//!
//! ```text
//! cargo run --release --example rosenbrock --features argmin
//! ```

use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{Error, Executor, IterState, State, KV};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use argmin::solver::trustregion::{Steihaug, TrustRegion};
use diffx::{argmin::Problem, autodiff};

/// f(x, y) = (1 − x)² + 100·(y − x²)², minimal (0) at (1, 1) at the bottom of a curved valley.
#[autodiff(order = 2)]
fn rosenbrock(x: &[f64]) -> f64 {
    (1.0 - x[0]).powi(2) + 100.0 * (x[1] - x[0] * x[0]).powi(2)
}

/// Prints each iteration: its number, the cost and the point.
struct Print;

impl<G, J, H, R> Observe<IterState<Vec<f64>, G, J, H, R, f64>> for Print {
    fn observe_iter(
        &mut self,
        state: &IterState<Vec<f64>, G, J, H, R, f64>,
        _kv: &KV,
    ) -> Result<(), Error> {
        let p = state.get_param().map_or(&[][..], |p| p.as_slice());
        println!(
            "  {:>3}  f = {:<12.6e}  x = {p:.6?}",
            state.get_iter(),
            state.get_cost()
        );
        Ok(())
    }
}

fn main() -> Result<(), Error> {
    let start = vec![-1.2, 1.0];

    println!("L-BFGS (cost and gradient):");
    let problem = Problem::new(rosenbrock, grad_rosenbrock);
    let lbfgs = LBFGS::new(MoreThuenteLineSearch::new(), 7);
    let result = Executor::new(problem, lbfgs)
        .configure(|state| state.param(start.clone()).max_iters(100))
        .add_observer(Print, ObserverMode::Always)
        .run()?;
    report(result.state());

    println!("Newton (trust region, Steihaug's CG: cost, gradient and Hessian):");
    let problem = Problem::new(rosenbrock, grad_rosenbrock).with_hessian(hessian_rosenbrock);
    let newton = TrustRegion::new(Steihaug::new().with_max_iters(2));
    let result = Executor::new(problem, newton)
        .configure(|state| state.param(start).max_iters(100).target_cost(1e-20))
        .add_observer(Print, ObserverMode::Always)
        .run()?;
    report(result.state());
    Ok(())
}

fn report<G, J, H, R>(state: &IterState<Vec<f64>, G, J, H, R, f64>) {
    let best = state
        .get_best_param()
        .expect("a solver run has a best point");
    println!(
        "  minimum {:.3e} at {best:.9?} after {} iterations ({:?})\n",
        state.get_best_cost(),
        state.get_iter(),
        state.get_termination_status()
    );
}
