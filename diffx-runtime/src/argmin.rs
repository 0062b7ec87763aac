//! `#[autodiff]` functions as [argmin](https://argmin-rs.org) problems (feature `argmin`).
//!
//! argmin's solvers ask a problem for its cost ([`CostFunction`]), its gradient ([`Gradient`])
//! and, for Newton methods, its Hessian ([`Hessian`]). [`Problem`] answers all three from a
//! function of one slice and the functions `#[autodiff]` writes for it, so handing a function to
//! a solver takes one line:
//!
//! ```
//! use argmin::core::{Executor, State};
//! use argmin::solver::linesearch::MoreThuenteLineSearch;
//! use argmin::solver::quasinewton::LBFGS;
//! use diffx::{argmin::Problem, autodiff};
//!
//! #[autodiff(order = 2)]
//! fn rosenbrock(x: &[f64]) -> f64 {
//!     (1.0 - x[0]).powi(2) + 100.0 * (x[1] - x[0] * x[0]).powi(2)
//! }
//!
//! let problem = Problem::new(rosenbrock, grad_rosenbrock).with_hessian(hessian_rosenbrock);
//! let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7);
//! let result = Executor::new(problem, solver)
//!     .configure(|state| state.param(vec![-1.2, 1.0]).max_iters(100))
//!     .run()
//!     .unwrap();
//! let best = result.state().get_best_param().unwrap();
//! assert!((best[0] - 1.0).abs() < 1e-6 && (best[1] - 1.0).abs() < 1e-6);
//! ```
//!
//! The parameter vector is a `Vec<F>` (argmin-math's `vec` backend, on by default in argmin);
//! the gradient is a `Vec<F>` and the Hessian a `Vec<Vec<F>>`, as `grad_f` and `hessian_f` of a
//! function `fn f(x: &[F]) -> F` return them. For a function of several parameters, write a
//! wrapper `fn g(x: &[f64]) -> f64 { f(x[0], x[1]) }` and annotate that.

use core::fmt;
use core::marker::PhantomData;

use argmin::core::{CostFunction, Error, Gradient, Hessian};

/// An argmin problem made of a cost function and its derivative functions (see the
/// [module docs](self)): `F` is the float type, `C` the cost `fn(&[F]) -> F`, `G` its gradient
/// `fn(&[F]) -> Vec<F>` and `H` its Hessian `fn(&[F]) -> Vec<Vec<F>>` ([`NoHessian`] until
/// [`Problem::with_hessian`] gives one).
pub struct Problem<F, C, G, H = NoHessian> {
    cost: C,
    gradient: G,
    hessian: H,
    float: PhantomData<fn() -> F>,
}

/// The Hessian of a [`Problem`] made without one: solvers that need a Hessian do not accept it.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoHessian;

impl<F, C, G> Problem<F, C, G>
where
    C: Fn(&[F]) -> F,
    G: Fn(&[F]) -> Vec<F>,
{
    /// The problem of minimizing `cost`, whose gradient is `gradient` (for gradient-based
    /// solvers: L-BFGS, BFGS, conjugate gradients, steepest descent, …).
    pub fn new(cost: C, gradient: G) -> Self {
        Problem {
            cost,
            gradient,
            hessian: NoHessian,
            float: PhantomData,
        }
    }
}

impl<F, C, G, H> Problem<F, C, G, H> {
    /// The same problem with a Hessian, `hessian_f` of an `#[autodiff(order = 2)]` function, for
    /// Newton methods.
    pub fn with_hessian<H2>(self, hessian: H2) -> Problem<F, C, G, H2>
    where
        H2: Fn(&[F]) -> Vec<Vec<F>>,
    {
        Problem {
            cost: self.cost,
            gradient: self.gradient,
            hessian,
            float: PhantomData,
        }
    }
}

impl<F, C: Fn(&[F]) -> F, G, H> CostFunction for Problem<F, C, G, H> {
    type Param = Vec<F>;
    type Output = F;

    fn cost(&self, param: &Vec<F>) -> Result<F, Error> {
        Ok((self.cost)(param))
    }
}

impl<F, C, G: Fn(&[F]) -> Vec<F>, H> Gradient for Problem<F, C, G, H> {
    type Param = Vec<F>;
    type Gradient = Vec<F>;

    fn gradient(&self, param: &Vec<F>) -> Result<Vec<F>, Error> {
        Ok((self.gradient)(param))
    }
}

impl<F, C, G, H: Fn(&[F]) -> Vec<Vec<F>>> Hessian for Problem<F, C, G, H> {
    type Param = Vec<F>;
    type Hessian = Vec<Vec<F>>;

    fn hessian(&self, param: &Vec<F>) -> Result<Vec<Vec<F>>, Error> {
        Ok((self.hessian)(param))
    }
}

impl<F, C, G, H> fmt::Debug for Problem<F, C, G, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Problem").finish_non_exhaustive()
    }
}
