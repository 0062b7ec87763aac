//! Optimizers over any [`Params`]: [`Sgd`], [`Momentum`], [`Adam`], [`RmsProp`], each following
//! PyTorch's update formulas so that runs can be compared number for number.
//!
//! Per-parameter state (velocities, moment estimates) is a list of tensors, one per leaf in the
//! visiting order of [`Params`], created on the first [`Optimizer::step`]; one optimizer serves one model.
//!
//! Every step first checks that the gradient has the parameters' leaves and shapes, and that the
//! state was made for these parameters; a mismatch panics at the caller's `step`, naming the
//! optimizer, the tensor and both shapes, before anything is updated.

use crate::fastmath::vectorized;
use crate::params::{misfit, Against};
use crate::{Float, Params, Tensor};

/// Updates parameters from their gradients.
pub trait Optimizer<P: Params> {
    /// One update of `params` given `grads` (a value of the same type: gradient of each tensor).
    ///
    /// # Panics
    /// If `grads` does not have the tensors and shapes of `params`, or the optimizer's state was
    /// made on another model; nothing is updated then.
    #[track_caller]
    fn step(&mut self, params: &mut P, grads: &P);
}

/// Panics, at the caller of `op`, unless `grads` has the tensors and shapes of `params`, and so
/// has `state` (an optimizer's, in visiting order) unless it is empty (not made yet).
#[track_caller]
fn check_step<P: Params>(op: &str, params: &mut P, grads: &P, state: &[Tensor<P::Elem>]) {
    match misfit(params, grads, state) {
        None => {}
        Some((Against::Other, m)) => panic!(
            "{op}: the gradient does not match the parameters ({})",
            m.describe("the parameters", "the gradient")
        ),
        Some((Against::State, m)) => panic!(
            "{op}: the optimizer's state was made on another model ({}); an optimizer serves \
             one model: create a new one for this model",
            m.describe("the parameters", "the state")
        ),
    }
}

/// Plain gradient descent: `p ← p − lr·g`.
///
/// ```
/// use diffx::optim::{Optimizer, Sgd};
/// use diffx::Tensor;
/// let mut p = Tensor::from_vec(vec![1.0_f64, 2.0], &[2]);
/// let g = Tensor::from_vec(vec![10.0, -10.0], &[2]);
/// Sgd { lr: 0.1 }.step(&mut p, &g);
/// assert_eq!(p.data(), &[0.0, 3.0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sgd<F: Float = f32> {
    /// The learning rate.
    pub lr: F,
}

impl<F: Float> Sgd<F> {
    /// SGD with learning rate `lr`.
    pub fn new(lr: F) -> Self {
        Sgd { lr }
    }
}

impl<F: Float, P: Params<Elem = F>> Optimizer<P> for Sgd<F> {
    #[track_caller]
    fn step(&mut self, params: &mut P, grads: &P) {
        check_step("Sgd::step", params, grads, &[]);
        let lr = self.lr;
        params.zip_mut(grads, &mut |p, g| {
            vectorized(
                #[inline(always)]
                || {
                    p.data
                        .iter_mut()
                        .zip(g.data)
                        .for_each(|(p, &g)| *p -= lr * g)
                },
            )
        });
    }
}

/// State of one tensor per parameter tensor, created lazily.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct Slots<F: Float>(Vec<Tensor<F>>);

impl<F: Float> Slots<F> {
    /// Checks `grads` against `params` and the state against both, creating the state (zeros
    /// shaped like `params`) on the first step; panics at the caller of `op` on a mismatch.
    #[track_caller]
    fn prepare<P: Params<Elem = F>>(&mut self, op: &str, params: &mut P, grads: &P) {
        check_step(op, params, grads, &self.0);
        if self.0.is_empty() {
            params.visit(&mut |p| self.0.push(Tensor::zeros(p.shape)));
        }
    }
}

/// Calls `update(p, g, state)` for each parameter tensor with its gradient and its slot(s).
fn for_each_slot<F: Float, P: Params<Elem = F>>(
    params: &mut P,
    grads: &P,
    slots: &mut [Tensor<F>],
    mut update: impl FnMut(&mut [F], &[F], &mut [F]),
) {
    let mut slots = slots.iter_mut();
    params.zip_mut(grads, &mut |p, g| {
        let slot = slots.next().expect("one slot per tensor");
        let (p, g, slot) = (p.data, g.data, slot.data_mut());
        // The update loops are the optimizer's whole cost: 8 or 16 lanes where the CPU has them.
        vectorized(
            #[inline(always)]
            || update(p, g, slot),
        );
    });
}

/// SGD with momentum, PyTorch's form: `v ← μ·v + g`, `p ← p − lr·v`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Momentum<F: Float = f32> {
    /// The learning rate.
    pub lr: F,
    /// The momentum `μ`.
    pub momentum: F,
    velocity: Slots<F>,
}

impl<F: Float> Momentum<F> {
    /// Momentum SGD with learning rate `lr` and momentum `μ`.
    pub fn new(lr: F, momentum: F) -> Self {
        Momentum {
            lr,
            momentum,
            velocity: Slots(Vec::new()),
        }
    }
}

impl<F: Float, P: Params<Elem = F>> Optimizer<P> for Momentum<F> {
    #[track_caller]
    fn step(&mut self, params: &mut P, grads: &P) {
        self.velocity.prepare("Momentum::step", params, grads);
        let (lr, mu) = (self.lr, self.momentum);
        for_each_slot(params, grads, &mut self.velocity.0, |p, g, v| {
            for ((p, &g), v) in p.iter_mut().zip(g).zip(v) {
                *v = mu * *v + g;
                *p -= lr * *v;
            }
        });
    }
}

/// Adam with bias correction, PyTorch's form (defaults `lr = 1e-3`, `β₁ = 0.9`, `β₂ = 0.999`,
/// `ε = 1e-8`): `m ← β₁m + (1 − β₁)g`, `v ← β₂v + (1 − β₂)g²`,
/// `p ← p − (lr / (1 − β₁ᵗ))·m / (√v / √(1 − β₂ᵗ) + ε)`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Adam<F: Float = f32> {
    /// The learning rate.
    pub lr: F,
    /// Decay of the first-moment estimate.
    pub beta1: F,
    /// Decay of the second-moment estimate.
    pub beta2: F,
    /// Added to the denominator.
    pub eps: F,
    steps: i32,
    m: Slots<F>,
    v: Slots<F>,
}

impl<F: Float> Adam<F> {
    /// Adam with learning rate `lr` and PyTorch's other defaults (change the public fields to tune).
    pub fn new(lr: F) -> Self {
        let (beta1, beta2, eps) = (F::of_f64(0.9), F::of_f64(0.999), F::of_f64(1e-8));
        Adam {
            lr,
            beta1,
            beta2,
            eps,
            steps: 0,
            m: Slots(Vec::new()),
            v: Slots(Vec::new()),
        }
    }
}

impl<F: Float> Default for Adam<F> {
    /// PyTorch's defaults, `lr = 1e-3`.
    fn default() -> Self {
        Adam::new(F::of_f64(1e-3))
    }
}

impl<F: Float, P: Params<Elem = F>> Optimizer<P> for Adam<F> {
    #[track_caller]
    fn step(&mut self, params: &mut P, grads: &P) {
        self.m.prepare("Adam::step", params, grads);
        if self.v.0.is_empty() {
            // `v` is made with `m` and never changes apart from it.
            self.v.0 = self.m.0.clone();
        }
        self.steps += 1;
        let (b1, b2, eps) = (self.beta1, self.beta2, self.eps);
        let step_size = self.lr / (F::ONE - b1.powi(self.steps));
        let correction2 = (F::ONE - b2.powi(self.steps)).sqrt();
        let mut vs = self.v.0.iter_mut();
        for_each_slot(params, grads, &mut self.m.0, |p, g, m| {
            let v = vs.next().expect("one slot per tensor").data_mut();
            for (((p, &g), m), v) in p.iter_mut().zip(g).zip(m).zip(v) {
                *m = b1 * *m + (F::ONE - b1) * g;
                *v = b2 * *v + (F::ONE - b2) * g * g;
                *p -= step_size * *m / (v.sqrt() / correction2 + eps);
            }
        });
    }
}

/// RMSprop, PyTorch's form (defaults `lr = 1e-2`, `α = 0.99`, `ε = 1e-8`, no momentum, not
/// centered): `v ← αv + (1 − α)g²`, `p ← p − lr·g / (√v + ε)`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RmsProp<F: Float = f32> {
    /// The learning rate.
    pub lr: F,
    /// Decay of the squared-gradient average.
    pub alpha: F,
    /// Added to the denominator.
    pub eps: F,
    v: Slots<F>,
}

impl<F: Float> RmsProp<F> {
    /// RMSprop with learning rate `lr` and PyTorch's other defaults.
    pub fn new(lr: F) -> Self {
        RmsProp {
            lr,
            alpha: F::of_f64(0.99),
            eps: F::of_f64(1e-8),
            v: Slots(Vec::new()),
        }
    }
}

impl<F: Float> Default for RmsProp<F> {
    /// PyTorch's defaults, `lr = 1e-2`.
    fn default() -> Self {
        RmsProp::new(F::of_f64(1e-2))
    }
}

impl<F: Float, P: Params<Elem = F>> Optimizer<P> for RmsProp<F> {
    #[track_caller]
    fn step(&mut self, params: &mut P, grads: &P) {
        self.v.prepare("RmsProp::step", params, grads);
        let (lr, alpha, eps) = (self.lr, self.alpha, self.eps);
        for_each_slot(params, grads, &mut self.v.0, |p, g, v| {
            for ((p, &g), v) in p.iter_mut().zip(g).zip(v) {
                *v = alpha * *v + (F::ONE - alpha) * g * g;
                *p -= lr * g / (v.sqrt() + eps);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "serde")]
    #[test]
    fn a_saved_optimizer_continues_as_the_original() {
        // Adam's state (step count, both moments) survives a round trip: the reloaded optimizer's
        // next steps are the original's, bit for bit.
        let grad = |p: &Tensor<f64>| p.map(|x| 2.0 * x - 1.0);
        let (mut p, mut adam) = (Tensor::from_vec(vec![3.0, -1.0], &[2]), Adam::new(0.1));
        for _ in 0..3 {
            let g = grad(&p);
            adam.step(&mut p, &g);
        }
        let mut reloaded: Adam<f64> =
            serde_json::from_str(&serde_json::to_string(&adam).unwrap()).unwrap();
        assert_eq!(reloaded, adam);
        let mut q = p.clone();
        for _ in 0..3 {
            let (g, h) = (grad(&p), grad(&q));
            adam.step(&mut p, &g);
            reloaded.step(&mut q, &h);
        }
        assert_eq!(p, q);
    }

    fn scalar(x: f64) -> Tensor<f64> {
        Tensor::from_vec(vec![x], &[1])
    }

    /// The gradient of `f(p) = Σ cᵢ (pᵢ − tᵢ)²` with targets t = (1, −2, 3) and curvatures c = (1, 2, 0.5).
    fn quadratic_grad(p: &[Tensor<f64>]) -> Vec<Tensor<f64>> {
        let (t, c) = ([1.0, -2.0, 3.0], [1.0, 2.0, 0.5]);
        (0..3)
            .map(|i| scalar(2.0 * c[i] * (p[i].item() - t[i])))
            .collect()
    }

    fn minimizes(mut opt: impl Optimizer<Vec<Tensor<f64>>>, steps: usize) {
        let mut p = vec![scalar(0.0), scalar(0.0), scalar(0.0)];
        for _ in 0..steps {
            let g = quadratic_grad(&p);
            opt.step(&mut p, &g);
        }
        let got: Vec<f64> = p.iter().map(Tensor::item).collect();
        for (x, t) in got.iter().zip([1.0, -2.0, 3.0]) {
            assert!((x - t).abs() < 1e-3, "{got:?}");
        }
    }

    #[test]
    fn all_minimize_a_quadratic() {
        minimizes(Sgd::new(0.1), 200);
        minimizes(Momentum::new(0.05, 0.9), 300);
        minimizes(Adam::new(0.05), 2000);
        let mut rms = RmsProp::new(0.01);
        rms.alpha = 0.9;
        minimizes(rms, 3000);
    }

    #[test]
    fn momentum_by_hand() {
        // v1 = g1 = 1, p1 = 1 − 0.1·1 = 0.9; v2 = 0.5·1 + 2 = 2.5, p2 = 0.9 − 0.25 = 0.65.
        let mut opt = Momentum::new(0.1, 0.5);
        let mut p = scalar(1.0);
        opt.step(&mut p, &scalar(1.0));
        assert!((p.item() - 0.9).abs() < 1e-15);
        opt.step(&mut p, &scalar(2.0));
        assert!((p.item() - 0.65).abs() < 1e-15);
    }

    #[test]
    fn adam_by_hand() {
        // Step 1: m = 0.1g, v = 0.001g², m̂ = g, v̂ = g²: p moves by lr·g/(|g| + ε) ≈ lr·sign(g).
        let mut opt = Adam::new(0.1);
        let mut p = scalar(1.0);
        opt.step(&mut p, &scalar(4.0));
        assert!((p.item() - (1.0 - 0.1 * 4.0 / (4.0 + 1e-8))).abs() < 1e-12);
        // Step 2 with g = 2: m = 0.9·0.4 + 0.2 = 0.56, v = 0.999·0.016 + 0.004 = 0.019984.
        let (m, v): (f64, f64) = (0.56, 0.019984);
        let expected =
            p.item() - (0.1 / (1.0 - 0.81)) * m / (v.sqrt() / (1.0 - 0.998001_f64).sqrt() + 1e-8);
        opt.step(&mut p, &scalar(2.0));
        assert!(
            (p.item() - expected).abs() < 1e-12,
            "{} {expected}",
            p.item()
        );
    }

    #[test]
    fn rmsprop_by_hand() {
        // v = 0.01·9 = 0.09, p = 1 − 0.01·3/(0.3 + 1e-8).
        let mut opt = RmsProp::default();
        let mut p = scalar(1.0);
        opt.step(&mut p, &scalar(3.0));
        assert!((p.item() - (1.0 - 0.01 * 3.0 / (0.3 + 1e-8))).abs() < 1e-15);
    }

    #[test]
    #[should_panic(
        expected = "Adam::step: the optimizer's state was made on another model (2 leaves in the parameters, 1 in the state)"
    )]
    fn state_belongs_to_one_model() {
        let mut opt = Adam::default();
        let (mut one, g1) = (vec![scalar(1.0)], vec![scalar(1.0)]);
        opt.step(&mut one, &g1);
        let mut two = vec![scalar(1.0), scalar(2.0)];
        let g2 = two.clone();
        opt.step(&mut two, &g2);
    }
}
