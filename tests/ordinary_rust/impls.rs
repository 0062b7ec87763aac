//! `#[autodiff]` on `impl` blocks: every function of the block differentiated as if annotated
//! alone, associated functions calling each other through `Self::`, a method's own options, and
//! the derivative functions of a trait impl's methods callable on the value.

use diffx::check::{central_difference, derivative};
use diffx::num_traits::Float;
use diffx::{autodiff, Params};

use crate::common::{assert_close, check_hessian};

/// A chain of springs between points on a line.
#[derive(Clone, Debug, Params)]
struct Chain {
    k: f64,
    rest: f64,
}

#[autodiff(order = 2)]
impl Chain {
    /// A constructor of numbers: differentiated as a result of the type (`Chain::jvp_new`).
    fn new(k: f64, rest: f64) -> Self {
        Self { k, rest }
    }

    /// Takes `&mut self`: kept as written.
    fn stiffen(&mut self, by: f64) {
        self.k *= by;
    }

    /// An associated function whose signature does not name `Self`.
    fn link(a: f64, b: f64, rest: f64) -> f64 {
        (b - a - rest).powi(2)
    }

    /// Calls its sibling through `Self::`.
    fn total(x: &[f64], rest: f64) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() - 1 {
            s += Self::link(x[i], x[i + 1], rest);
        }
        s
    }

    /// A method: its receiver is a constant.
    fn energy(&self, x: &[f64]) -> f64 {
        0.5 * self.k * Self::total(x, self.rest)
    }

    /// Options of its own (these replace the block's): differentiated in `self` too.
    #[autodiff(wrt(self, x))]
    fn pinned(&self, x: f64) -> f64 {
        self.k * (x - self.rest).powi(2) * x.exp()
    }
}

/// ∂E/∂x_i of `Chain::energy`, by hand: each link pulls on its two ends.
fn energy_gradient(chain: &Chain, x: &[f64]) -> Vec<f64> {
    let mut g = vec![0.0; x.len()];
    for i in 0..x.len() - 1 {
        let d = x[i + 1] - x[i] - chain.rest;
        g[i] -= chain.k * d;
        g[i + 1] += chain.k * d;
    }
    g
}

#[test]
fn functions_of_an_inherent_impl_call_each_other_through_self() {
    for (a, b, rest) in [(0.3, 1.7, 1.0), (-0.4, 0.2, 0.5), (2.0, 1.0, -0.25)] {
        let (ga, gb, grest) = Chain::grad_link(a, b, rest);
        let d = b - a - rest;
        assert_close(ga, -2.0 * d, 1e-14, "∂a");
        assert_close(gb, 2.0 * d, 1e-14, "∂b");
        assert_close(grest, -2.0 * d, 1e-14, "∂rest");
        let fd = central_difference(|v| Chain::link(v[0], v[1], v[2]), &[a, b, rest]);
        for (g, f) in [ga, gb, grest].into_iter().zip(fd) {
            assert_close(g, f, 1e-7, "against central differences");
        }
        let (value, tangent) = Chain::jvp_link(a, b, rest, 1.0, -0.5, 2.0);
        assert_eq!(value, Chain::link(a, b, rest));
        assert_close(tangent, ga - 0.5 * gb + 2.0 * grest, 1e-13, "jvp_link");
    }
}

#[test]
fn a_constructor_of_numbers_is_differentiated() {
    let (value, tangent) = Chain::jvp_new(2.5, 0.75, 1.0, -2.0);
    assert_eq!((value.k, value.rest), (2.5, 0.75));
    assert_eq!((tangent.k, tangent.rest), (1.0, -2.0));
    assert_eq!(Chain::vjp_new(2.5, 0.75, Chain::new(3.0, 4.0)), (3.0, 4.0));
}

#[test]
fn a_method_and_the_associated_functions_it_calls() {
    let mut chain = Chain::new(2.5, 0.75);
    for x in [[0.0, 1.0, 1.5, 3.0], [0.3, -0.2, 0.9, 1.1]] {
        let g = chain.grad_energy(&x);
        let want = energy_gradient(&chain, &x);
        let fd = central_difference(|v| chain.energy(v), &x);
        for i in 0..x.len() {
            assert_close(
                g[i],
                want[i],
                1e-13,
                "grad_energy against the hand gradient",
            );
            assert_close(g[i], fd[i], 1e-7, "grad_energy against central differences");
        }
        let t = [0.5, -1.0, 0.25, 2.0];
        let (value, tangent) = chain.jvp_energy(&x, &t);
        assert_eq!(value, chain.energy(&x));
        let along: f64 = g.iter().zip(&t).map(|(g, t)| g * t).sum();
        assert_close(tangent, along, 1e-13, "jvp_energy");
        let h = chain.hessian_energy(&x);
        check_hessian(&h, |v| chain.grad_energy(v), &x);
    }
    // The mutator the block kept as written still mutates, and the derivatives follow it.
    chain.stiffen(2.0);
    assert_eq!(chain.k, 5.0);
    let x = [0.0, 2.0];
    assert_close(
        chain.grad_energy(&x)[1],
        5.0 * (2.0 - 0.75),
        1e-14,
        "after stiffen",
    );
}

#[test]
fn a_method_with_options_of_its_own() {
    let chain = Chain::new(1.5, 0.25);
    for x in [-0.5, 0.4, 1.3] {
        let (g_self, gx) = chain.grad_pinned(x);
        let d = x - chain.rest;
        let want_x = chain.k * x.exp() * (2.0 * d + d * d);
        assert_close(gx, want_x, 1e-13, "∂x");
        assert_close(
            gx,
            derivative(|x| chain.pinned(x), x),
            1e-7,
            "∂x against FD",
        );
        assert_close(g_self.k, d * d * x.exp(), 1e-13, "∂k");
        assert_close(g_self.rest, -2.0 * chain.k * d * x.exp(), 1e-13, "∂rest");
        let moved = |k: f64, rest: f64| Chain { k, rest }.pinned(x);
        let fd = central_difference(|v| moved(v[0], v[1]), &[chain.k, chain.rest]);
        assert_close(g_self.k, fd[0], 1e-7, "∂k against FD");
        assert_close(g_self.rest, fd[1], 1e-7, "∂rest against FD");
    }
}

/// A volumetric energy density, as material models define it.
trait Volumetric<T> {
    fn psi(&self, j: T) -> T;
    fn name(&self) -> &'static str;
}

/// Ogden's volumetric energy, generic over its float type.
struct Ogden<T> {
    kappa: T,
    beta: T,
}

#[autodiff(order = 2)]
impl<T: Float> Volumetric<T> for Ogden<T> {
    fn psi(&self, j: T) -> T {
        self.kappa / (self.beta * self.beta) * (self.beta * j.ln() + j.powf(-self.beta) - T::one())
    }

    fn name(&self) -> &'static str {
        "Ogden"
    }
}

#[test]
fn the_derivatives_of_a_trait_method_are_called_on_the_value() {
    let ogden = Ogden {
        kappa: 3.0,
        beta: 2.5,
    };
    for j in [0.6, 1.0, 1.7] {
        let (k, b) = (ogden.kappa, ogden.beta);
        let d1 = k / b * (1.0 / j - j.powf(-b - 1.0));
        let d2 = k / b * (-1.0 / (j * j) + (b + 1.0) * j.powf(-b - 2.0));
        assert_close(ogden.grad_psi(j), d1, 1e-13, "grad_psi");
        assert_close(
            ogden.grad_psi(j),
            derivative(|j| ogden.psi(j), j),
            1e-7,
            "FD",
        );
        let (value, tangent) = ogden.jvp_psi(j, 1.0);
        assert_eq!(value, ogden.psi(j));
        assert_close(tangent, d1, 1e-13, "jvp_psi");
        assert_close(ogden.hvp_psi(j, 1.0), d2, 1e-12, "hvp_psi");
        assert_close(ogden.hessian_psi(j)[0][0], d2, 1e-12, "hessian_psi");
    }
    // In `f32` too, and through the trait as any impl.
    let single = Ogden {
        kappa: 3.0f32,
        beta: 2.5,
    };
    assert!((single.grad_psi(1.0f32)).abs() < 1e-6);
    let dynamic: &dyn Volumetric<f64> = &ogden;
    assert_eq!(dynamic.psi(1.2), ogden.psi(1.2));
    assert_eq!(dynamic.name(), "Ogden");
}

/// A trait whose method names its associated type.
trait Potential {
    type Scalar;
    fn at(&self, x: Self::Scalar) -> Self::Scalar;
}

struct Well {
    depth: f64,
}

#[autodiff]
impl Potential for Well {
    type Scalar = f64;

    fn at(&self, x: Self::Scalar) -> Self::Scalar {
        -self.depth * (-x * x).exp()
    }
}

#[test]
fn a_trait_methods_associated_types_are_written_out() {
    let well = Well { depth: 2.0 };
    for x in [-1.0, 0.0, 0.5] {
        let want = 2.0 * well.depth * x * (-x * x).exp();
        assert_close(well.grad_at(x), want, 1e-14, "grad_at");
        assert_close(well.grad_at(x), derivative(|x| well.at(x), x), 1e-7, "FD");
        assert_close(well.jvp_at(x, 2.0).1, 2.0 * want, 1e-14, "jvp_at");
    }
}
