//! [`Params`]: a struct of tensors seen as one differentiable value.
//!
//! As in JAX, where a model is a pytree of arrays, a model here is any `Params` type, and its
//! gradient is a value of the same type: `grads.w` is the gradient of `model.w`. Optimizers, finite
//! differences and gradient clipping are written once, against the three visiting methods.

// The visitor signatures are spelled out in full: they are what every implementation writes.
#![allow(clippy::type_complexity)]

use crate::{Float, Tensor};
use num_traits::Float as _;

/// A struct of tensors that is one differentiable parameter (JAX pytree style).
///
/// Implement the three required methods by visiting every tensor field in a fixed order (the same
/// order in all three); the rest is provided.
///
/// ```
/// use diffx_runtime::{Params, Tensor};
/// let p = vec![Tensor::<f64>::ones(&[2, 2]), Tensor::full(&[3], 2.0)];
/// assert_eq!(p.num_params(), 7);
/// assert_eq!(p.to_flat_vec(), vec![1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0]);
/// let mut q = p.zeros_like();
/// q.add_assign(&p);
/// q.scale(0.5);
/// assert_eq!(q[1].data(), &[1.0, 1.0, 1.0]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a parameter struct, but `#[autodiff]` differentiates this parameter",
    label = "`{Self}` does not implement `Params`",
    note = "a struct parameter is differentiated unless the body decides on it (`match`, `==`): to differentiate it, `#[derive(Params)]` on it; to read it as settings, name the parameters to differentiate with `#[autodiff(wrt(x, …))]`"
)]
pub trait Params: Clone {
    /// The float type of every tensor.
    type Elem: Float;

    /// Calls `f` on every tensor, in a fixed order.
    fn visit(&self, f: &mut dyn FnMut(&Tensor<Self::Elem>));

    /// Calls `f` on every tensor, mutably, in the same order.
    fn visit_mut(&mut self, f: &mut dyn FnMut(&mut Tensor<Self::Elem>));

    /// Calls `f` on each (tensor of `self`, matching tensor of `other`) pair, in the same order.
    fn zip_mut(
        &mut self,
        other: &Self,
        f: &mut dyn FnMut(&mut Tensor<Self::Elem>, &Tensor<Self::Elem>),
    );

    /// The same structure with every element 0 (the starting point of a gradient accumulator).
    ///
    /// The default clones `self` and fills it with zeros; implementations override it to build
    /// fresh zero tensors instead (the derive does), which skips copying the parameters: reverse
    /// mode calls it once per gradient.
    fn zeros_like(&self) -> Self {
        let mut zeros = self.clone();
        zeros.visit_mut(&mut |t| t.data_mut().fill(Self::Elem::ZERO));
        zeros
    }

    /// The same structure with every tensor *unset*: shaped, but holding no elements yet. Reverse
    /// mode starts a parameter struct's gradient from it, so that a field's first contribution
    /// is moved in rather than added to zeros that were written for nothing; what is still unset
    /// at the end becomes zeros. For generated code only: an unset tensor is not a valid tensor.
    /// The default is [`Params::zeros_like`]; the derive builds unset tensors.
    #[doc(hidden)]
    fn unset_like(&self) -> Self {
        self.zeros_like()
    }

    /// `self += other`, tensor by tensor.
    ///
    /// # Panics
    /// If `other` does not have the tensors and shapes of `self`; nothing is changed then.
    #[track_caller]
    fn add_assign(&mut self, other: &Self) {
        assert_fits("Params::add_assign", self, other);
        self.zip_mut(other, &mut |a, b| a.axpy(Self::Elem::ONE, b));
    }

    /// `self += alpha·other`, tensor by tensor.
    ///
    /// # Panics
    /// If `other` does not have the tensors and shapes of `self`; nothing is changed then.
    #[track_caller]
    fn axpy(&mut self, alpha: Self::Elem, other: &Self) {
        assert_fits("Params::axpy", self, other);
        self.zip_mut(other, &mut |a, b| a.axpy(alpha, b));
    }

    /// `self *= alpha`.
    fn scale(&mut self, alpha: Self::Elem) {
        self.visit_mut(&mut |t| t.scale(alpha));
    }

    /// The total number of elements.
    fn num_params(&self) -> usize {
        let mut n = 0;
        self.visit(&mut |t| n += t.len());
        n
    }

    /// Every element, tensor after tensor in visiting order (for finite-difference checks).
    fn to_flat_vec(&self) -> Vec<Self::Elem> {
        let mut flat = Vec::with_capacity(self.num_params());
        self.visit(&mut |t| flat.extend_from_slice(t.data()));
        flat
    }

    /// A copy of `self` with the elements taken from `flat`, in the order of
    /// [`Params::to_flat_vec`].
    ///
    /// # Panics
    /// If `flat.len()` is not [`Params::num_params`].
    #[track_caller]
    #[allow(clippy::wrong_self_convention)] // `self` is the template giving the shapes.
    fn from_flat(&self, flat: &[Self::Elem]) -> Self {
        let n = self.num_params();
        assert!(
            flat.len() == n,
            "from_flat: {} values for {n} parameters",
            flat.len()
        );
        let mut out = self.clone();
        let mut rest = flat;
        out.visit_mut(&mut |t| {
            let (head, tail) = rest.split_at(t.len());
            t.data_mut().copy_from_slice(head);
            rest = tail;
        });
        out
    }

    /// `Σ self·other` over all elements.
    ///
    /// # Panics
    /// If `other` does not have the tensors and shapes of `self`.
    #[track_caller]
    fn dot(&self, other: &Self) -> Self::Elem {
        let mut total = Self::Elem::ZERO;
        let mut copy = self.clone();
        assert_fits("Params::dot", &mut copy, other);
        copy.zip_mut(other, &mut |a, b| total += a.zip_map(b, |x, y| x * y).sum());
        total
    }

    /// The Euclidean norm of all elements together (for gradient clipping and tests).
    fn norm(&self) -> Self::Elem {
        let mut squares = Self::Elem::ZERO;
        self.visit(&mut |t| squares += t.data().iter().fold(Self::Elem::ZERO, |s, &x| s + x * x));
        squares.sqrt()
    }
}

/// How two values of one [`Params`] type fail to match tensor for tensor (a `Vec` of another
/// length, a tensor of another shape), found before anything is updated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Misfit {
    /// The numbers of tensors differ.
    Count(usize, usize),
    /// Tensor `index` (in visiting order) has shape `.1` in the first value and `.2` in the other.
    Shape(usize, Vec<usize>, Vec<usize>),
}

impl Misfit {
    /// A sentence naming the first value `a` and the other `b` ("the parameters", "the gradient").
    pub(crate) fn describe(&self, a: &str, b: &str) -> String {
        match self {
            Misfit::Count(n, m) => format!("{n} tensors in {a}, {m} in {b}"),
            Misfit::Shape(i, x, y) => {
                format!("tensor {i} has shape {x:?} in {a} but {y:?} in {b}")
            }
        }
    }
}

/// The number of tensors of `p`.
pub(crate) fn tensor_count<P: Params>(p: &P) -> usize {
    let mut n = 0;
    p.visit(&mut |_| n += 1);
    n
}

/// Which value failed to match: the other value of the type, or a list of tensors kept beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Against {
    Other,
    State,
}

/// How `b`, or `state` (tensors kept in `a`'s visiting order, such as an optimizer's; empty for
/// none yet), fails to match `a` tensor for tensor, if one does; `a` is only read. One pass
/// comparing shapes, after counting the tensors; no allocation unless something differs.
pub(crate) fn misfit<P: Params>(
    a: &mut P,
    b: &P,
    state: &[Tensor<P::Elem>],
) -> Option<(Against, Misfit)> {
    let (n, m) = (tensor_count(a), tensor_count(b));
    if n != m {
        return Some((Against::Other, Misfit::Count(n, m)));
    }
    if !state.is_empty() && state.len() != n {
        return Some((Against::State, Misfit::Count(n, state.len())));
    }
    let (mut index, mut found) = (0, None);
    a.zip_mut(b, &mut |x, y| {
        if found.is_none() {
            let shape = |against, t: &Tensor<P::Elem>| {
                Some((
                    against,
                    Misfit::Shape(index, x.shape().to_vec(), t.shape().to_vec()),
                ))
            };
            if !x.same_shape(y) {
                found = shape(Against::Other, y);
            } else if let Some(s) = state.get(index).filter(|s| !x.same_shape(s)) {
                found = shape(Against::State, s);
            }
        }
        index += 1;
    });
    found
}

/// Panics, at the caller of `op`, unless `b` matches `a` tensor for tensor.
#[track_caller]
fn assert_fits<P: Params>(op: &str, a: &mut P, b: &P) {
    if let Some((_, m)) = misfit(a, b, &[]) {
        panic!("{op}: {}", m.describe("self", "other"));
    }
}

impl<F: Float> Params for Tensor<F> {
    type Elem = F;

    fn visit(&self, f: &mut dyn FnMut(&Tensor<F>)) {
        f(self);
    }

    fn visit_mut(&mut self, f: &mut dyn FnMut(&mut Tensor<F>)) {
        f(self);
    }

    fn zip_mut(&mut self, other: &Self, f: &mut dyn FnMut(&mut Tensor<F>, &Tensor<F>)) {
        f(self, other);
    }

    fn zeros_like(&self) -> Self {
        Tensor::zeros(self.shape())
    }

    fn unset_like(&self) -> Self {
        Tensor::unset(self.shape())
    }
}

impl<T: Params> Params for Vec<T> {
    type Elem = T::Elem;

    fn visit(&self, f: &mut dyn FnMut(&Tensor<T::Elem>)) {
        self.iter().for_each(|p| p.visit(f));
    }

    fn visit_mut(&mut self, f: &mut dyn FnMut(&mut Tensor<T::Elem>)) {
        self.iter_mut().for_each(|p| p.visit_mut(f));
    }

    /// # Panics
    /// If the vectors have different lengths.
    #[track_caller]
    fn zip_mut(&mut self, other: &Self, f: &mut dyn FnMut(&mut Tensor<T::Elem>, &Tensor<T::Elem>)) {
        assert!(
            self.len() == other.len(),
            "zip_mut: {} and {} elements",
            self.len(),
            other.len()
        );
        self.iter_mut()
            .zip(other)
            .for_each(|(p, q)| p.zip_mut(q, f));
    }

    fn zeros_like(&self) -> Self {
        self.iter().map(Params::zeros_like).collect()
    }

    fn unset_like(&self) -> Self {
        self.iter().map(Params::unset_like).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_round_trip() {
        let p = vec![Tensor::<f32>::randn(&[2, 3], 1), Tensor::randn(&[1, 3], 2)];
        let flat = p.to_flat_vec();
        assert_eq!(flat.len(), 9);
        assert_eq!(p.from_flat(&flat), p);
        let doubled: Vec<f32> = flat.iter().map(|x| 2.0 * x).collect();
        let mut q = p.clone();
        q.scale(2.0);
        assert_eq!(q.to_flat_vec(), doubled);
    }

    #[test]
    fn norm_dot_axpy() {
        let mut p = Tensor::from_vec(vec![3.0_f64, 4.0], &[2]);
        assert_eq!(Params::norm(&p), 5.0);
        assert_eq!(Params::dot(&p, &p), 25.0);
        Params::axpy(&mut p, -1.0, &Tensor::from_vec(vec![1.0, 1.0], &[2]));
        assert_eq!(p.data(), &[2.0, 3.0]);
        assert_eq!(Params::zeros_like(&p).data(), &[0.0, 0.0]);
    }

    #[test]
    #[should_panic(expected = "from_flat: 2 values for 3 parameters")]
    fn from_flat_checks_length() {
        Tensor::<f64>::zeros(&[3]).from_flat(&[1.0, 2.0]);
    }
}
