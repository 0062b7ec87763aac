//! [`Params`]: a struct of tensors seen as one differentiable value.
//!
//! As in JAX, where a model is a pytree of arrays, a model here is any `Params` type, and its
//! gradient is a value of the same type: `grads.w` is the gradient of `model.w`. Optimizers, finite
//! differences and gradient clipping are written once, against the three visiting methods.

// The visitor signatures are spelled out in full: they are what every implementation writes.
#![allow(clippy::type_complexity)]

use crate::tensor::same_dims;
use crate::{Float, Tensor};
use num_traits::Float as _;

/// One run of parameter elements, as [`Params`] visits it: a tensor's elements, a scalar field
/// (shape `[]`), an array or `Vec` of numbers (shape `[n]`, `[n, k]` for `[[F; k]; n]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leaf<'a, F> {
    /// The shape of the run (its element count is the product).
    pub shape: &'a [usize],
    /// The elements, row-major.
    pub data: &'a [F],
}

/// A [`Leaf`] whose elements may be changed.
#[derive(Debug, PartialEq)]
pub struct LeafMut<'a, F> {
    /// The shape of the run.
    pub shape: &'a [usize],
    /// The elements, row-major.
    pub data: &'a mut [F],
}

/// A struct of numbers that is one differentiable parameter (JAX pytree style): its leaves are
/// tensors, scalar fields, arrays and `Vec`s of numbers, nested parameter structs, `Vec`s and
/// arrays of them.
///
/// `#[derive(Params)]` writes it. By hand, implement the three required methods by visiting every
/// leaf in a fixed order (the same order in all three); the rest is provided.
///
/// ```
/// use diffx::{Params, Tensor};
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
    /// The float type of every leaf.
    type Elem: Float;

    /// Calls `f` on every leaf, in a fixed order.
    fn visit(&self, f: &mut dyn FnMut(Leaf<'_, Self::Elem>));

    /// Calls `f` on every leaf, mutably, in the same order.
    fn visit_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, Self::Elem>));

    /// Calls `f` on each (leaf of `self`, matching leaf of `other`) pair, in the same order.
    fn zip_mut(
        &mut self,
        other: &Self,
        f: &mut dyn FnMut(LeafMut<'_, Self::Elem>, Leaf<'_, Self::Elem>),
    );

    /// The same structure with every element 0 (the starting point of a gradient accumulator).
    ///
    /// The default clones `self` and fills it with zeros; implementations override it to build
    /// fresh zero tensors instead (the derive does), which skips copying the parameters: reverse
    /// mode calls it once per gradient.
    fn zeros_like(&self) -> Self {
        let mut zeros = self.clone();
        zeros.visit_mut(&mut |t| t.data.fill(Self::Elem::ZERO));
        zeros
    }

    /// The same structure with every tensor *unset*: shaped, but holding no elements yet. Reverse
    /// mode starts a parameter struct's gradient from it, so that a field's first contribution
    /// is moved in rather than added to zeros that were written for nothing; [`Params::settle`]
    /// makes zeros of what is still unset at the end. For generated code only: an unset tensor
    /// is not a valid tensor. The default is [`Params::zeros_like`]; the derive builds unset
    /// tensors (and scalar leaves zero).
    #[doc(hidden)]
    fn unset_like(&self) -> Self {
        self.zeros_like()
    }

    /// Makes zeros of every tensor [`Params::unset_like`] left unset. Implementations that
    /// override `unset_like` override this too.
    #[doc(hidden)]
    fn settle(&mut self) {}

    /// `self += other` for generated code, where `self` may hold unset tensors (a callee's
    /// gradient of a struct added into the caller's gradient of that part): each unset one takes
    /// `other`'s. The default settles `self` first.
    #[doc(hidden)]
    #[track_caller]
    fn accumulate(&mut self, other: &Self) {
        self.settle();
        self.add_assign(other);
    }

    /// `self += other`, leaf by leaf.
    ///
    /// # Panics
    /// If `other` does not have the leaves and shapes of `self`; nothing is changed then.
    #[track_caller]
    fn add_assign(&mut self, other: &Self) {
        assert_fits("Params::add_assign", self, other);
        self.zip_mut(other, &mut |a, b| {
            axpy_slice(a.data, Self::Elem::ONE, b.data)
        });
    }

    /// `self += alpha·other`, leaf by leaf.
    ///
    /// # Panics
    /// If `other` does not have the leaves and shapes of `self`; nothing is changed then.
    #[track_caller]
    fn axpy(&mut self, alpha: Self::Elem, other: &Self) {
        assert_fits("Params::axpy", self, other);
        self.zip_mut(other, &mut |a, b| axpy_slice(a.data, alpha, b.data));
    }

    /// `self *= alpha`.
    fn scale(&mut self, alpha: Self::Elem) {
        self.visit_mut(&mut |t| t.data.iter_mut().for_each(|x| *x *= alpha));
    }

    /// The total number of elements.
    fn num_params(&self) -> usize {
        let mut n = 0;
        self.visit(&mut |t| n += t.data.len());
        n
    }

    /// Every element, leaf after leaf in visiting order (for finite-difference checks).
    fn to_flat_vec(&self) -> Vec<Self::Elem> {
        let mut flat = Vec::with_capacity(self.num_params());
        self.visit(&mut |t| flat.extend_from_slice(t.data));
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
            let (head, tail) = rest.split_at(t.data.len());
            t.data.copy_from_slice(head);
            rest = tail;
        });
        out
    }

    /// `Σ self·other` over all elements.
    ///
    /// # Panics
    /// If `other` does not have the leaves and shapes of `self`.
    #[track_caller]
    fn dot(&self, other: &Self) -> Self::Elem {
        let mut total = Self::Elem::ZERO;
        let mut copy = self.clone();
        assert_fits("Params::dot", &mut copy, other);
        copy.zip_mut(other, &mut |a, b| {
            total += a
                .data
                .iter()
                .zip(b.data)
                .fold(Self::Elem::ZERO, |s, (&x, &y)| s + x * y)
        });
        total
    }

    /// The Euclidean norm of all elements together (for gradient clipping and tests).
    fn norm(&self) -> Self::Elem {
        let mut squares = Self::Elem::ZERO;
        self.visit(&mut |t| squares += t.data.iter().fold(Self::Elem::ZERO, |s, &x| s + x * x));
        squares.sqrt()
    }
}

/// `y += alpha·x`, vectorized where the CPU allows.
fn axpy_slice<F: Float>(y: &mut [F], alpha: F, x: &[F]) {
    crate::fastmath::vectorized(
        #[inline(always)]
        || y.iter_mut().zip(x).for_each(|(y, &x)| *y += alpha * x),
    );
}

/// How two values of one [`Params`] type fail to match leaf for leaf (a `Vec` of another
/// length, a tensor of another shape), found before anything is updated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Misfit {
    /// The numbers of leaves differ.
    Count(usize, usize),
    /// Leaf `index` (in visiting order) has shape `.1` in the first value and `.2` in the other.
    Shape(usize, Vec<usize>, Vec<usize>),
}

impl Misfit {
    /// A sentence naming the first value `a` and the other `b` ("the parameters", "the gradient").
    pub(crate) fn describe(&self, a: &str, b: &str) -> String {
        match self {
            Misfit::Count(n, m) => format!("{n} leaves in {a}, {m} in {b}"),
            Misfit::Shape(i, x, y) => {
                format!("leaf {i} has shape {x:?} in {a} but {y:?} in {b}")
            }
        }
    }
}

/// The number of leaves of `p`.
pub(crate) fn leaf_count<P: Params>(p: &P) -> usize {
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
/// none yet), fails to match `a` leaf for leaf, if one does; `a` is only read. One pass
/// comparing shapes, after counting the leaves; no allocation unless something differs.
pub(crate) fn misfit<P: Params>(
    a: &mut P,
    b: &P,
    state: &[Tensor<P::Elem>],
) -> Option<(Against, Misfit)> {
    let (n, m) = (leaf_count(a), leaf_count(b));
    if n != m {
        return Some((Against::Other, Misfit::Count(n, m)));
    }
    if !state.is_empty() && state.len() != n {
        return Some((Against::State, Misfit::Count(n, state.len())));
    }
    let (mut index, mut found) = (0, None);
    a.zip_mut(b, &mut |x, y| {
        if found.is_none() {
            let shape = |against, t: &[usize]| {
                Some((against, Misfit::Shape(index, x.shape.to_vec(), t.to_vec())))
            };
            if !same_dims(x.shape, y.shape) || x.data.len() != y.data.len() {
                found = shape(Against::Other, y.shape);
            } else if let Some(s) = state.get(index).filter(|s| !same_dims(x.shape, s.shape())) {
                found = shape(Against::State, s.shape());
            }
        }
        index += 1;
    });
    found
}

/// Panics, at the caller of `op`, unless `b` matches `a` leaf for leaf.
#[track_caller]
fn assert_fits<P: Params>(op: &str, a: &mut P, b: &P) {
    if let Some((_, m)) = misfit(a, b, &[]) {
        panic!("{op}: {}", m.describe("self", "other"));
    }
}

impl<F: Float> Params for Tensor<F> {
    type Elem = F;

    fn visit(&self, f: &mut dyn FnMut(Leaf<'_, F>)) {
        f(self.leaf());
    }

    fn visit_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, F>)) {
        f(self.leaf_mut());
    }

    fn zip_mut(&mut self, other: &Self, f: &mut dyn FnMut(LeafMut<'_, F>, Leaf<'_, F>)) {
        f(self.leaf_mut(), other.leaf());
    }

    fn zeros_like(&self) -> Self {
        Tensor::zeros(self.shape())
    }

    fn unset_like(&self) -> Self {
        Tensor::unset(self.shape())
    }

    fn settle(&mut self) {
        if self.is_unset() {
            *self = self.zeros_like();
        }
    }

    fn accumulate(&mut self, other: &Self) {
        if self.is_unset() {
            *self = other.clone();
        } else {
            Params::add_assign(self, other);
        }
    }
}

impl<T: Params> Params for Vec<T> {
    type Elem = T::Elem;

    fn visit(&self, f: &mut dyn FnMut(Leaf<'_, T::Elem>)) {
        self.iter().for_each(|p| p.visit(f));
    }

    fn visit_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, T::Elem>)) {
        self.iter_mut().for_each(|p| p.visit_mut(f));
    }

    /// # Panics
    /// If the vectors have different lengths.
    #[track_caller]
    fn zip_mut(
        &mut self,
        other: &Self,
        f: &mut dyn FnMut(LeafMut<'_, T::Elem>, Leaf<'_, T::Elem>),
    ) {
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

    fn settle(&mut self) {
        self.iter_mut().for_each(Params::settle);
    }

    #[track_caller]
    fn accumulate(&mut self, other: &Self) {
        assert_fits_count(self.len(), other.len());
        self.iter_mut()
            .zip(other)
            .for_each(|(p, q)| p.accumulate(q));
    }
}

impl<T: Params, const N: usize> Params for [T; N] {
    type Elem = T::Elem;

    fn visit(&self, f: &mut dyn FnMut(Leaf<'_, T::Elem>)) {
        self.iter().for_each(|p| p.visit(f));
    }

    fn visit_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, T::Elem>)) {
        self.iter_mut().for_each(|p| p.visit_mut(f));
    }

    fn zip_mut(
        &mut self,
        other: &Self,
        f: &mut dyn FnMut(LeafMut<'_, T::Elem>, Leaf<'_, T::Elem>),
    ) {
        self.iter_mut()
            .zip(other)
            .for_each(|(p, q)| p.zip_mut(q, f));
    }

    fn zeros_like(&self) -> Self {
        self.each_ref().map(Params::zeros_like)
    }

    fn unset_like(&self) -> Self {
        self.each_ref().map(Params::unset_like)
    }

    fn settle(&mut self) {
        self.iter_mut().for_each(Params::settle);
    }

    #[track_caller]
    fn accumulate(&mut self, other: &Self) {
        assert_fits_count(self.len(), other.len());
        self.iter_mut()
            .zip(other)
            .for_each(|(p, q)| p.accumulate(q));
    }
}

/// An optional parameter (`bias: Option<Tensor>`, `offset: Option<f64>`): its leaves when it is
/// `Some`, none when it is `None`. A gradient has the parameter's shape: `None` where it is.
impl<T: Params> Params for Option<T> {
    type Elem = T::Elem;
    fn visit(&self, f: &mut dyn FnMut(Leaf<'_, T::Elem>)) {
        if let Some(t) = self {
            t.visit(f);
        }
    }
    fn visit_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, T::Elem>)) {
        if let Some(t) = self {
            t.visit_mut(f);
        }
    }
    #[track_caller]
    fn zip_mut(
        &mut self,
        other: &Self,
        f: &mut dyn FnMut(LeafMut<'_, T::Elem>, Leaf<'_, T::Elem>),
    ) {
        zip_optional(self, other, |a, b| a.zip_mut(b, f));
    }
    fn zeros_like(&self) -> Self {
        self.as_ref().map(Params::zeros_like)
    }
    fn unset_like(&self) -> Self {
        self.as_ref().map(Params::unset_like)
    }
    fn settle(&mut self) {
        if let Some(t) = self {
            t.settle();
        }
    }
    #[track_caller]
    fn accumulate(&mut self, other: &Self) {
        match (self, other) {
            (Some(a), Some(b)) => a.accumulate(b),
            // No contribution (a gradient that never reached the part).
            (_, None) => {}
            (None, Some(_)) => panic!("{}", optional_misfit(false)),
        }
    }
}

/// `zip` of the values of two optional parameters, both `Some` (or nothing, both `None`).
#[track_caller]
fn zip_optional<T>(a: &mut Option<T>, b: &Option<T>, zip: impl FnOnce(&mut T, &T)) {
    match (a, b) {
        (Some(a), Some(b)) => zip(a, b),
        (None, None) => {}
        (a, _) => panic!("{}", optional_misfit(a.is_some())),
    }
}

fn optional_misfit(present: bool) -> String {
    let (this, that) = if present {
        ("Some", "None")
    } else {
        ("None", "Some")
    };
    format!("an optional parameter that is `{this}` paired with one that is `{that}`: a gradient has the shape of its parameters")
}

/// A number is a parameter of one element (shape `[]`): `Vec<f64>`, `[f64; N]`, `Vec<[f64; 2]>`,
/// `Vec<Vec<f64>>` are parameters through the impls for `Vec` and arrays, element by element.
macro_rules! number_params {
    ($($t:ty),*) => {$(
        impl Params for $t {
            type Elem = $t;
            #[inline]
            fn visit(&self, f: &mut dyn FnMut(Leaf<'_, $t>)) {
                self.visit_leaves(f);
            }
            #[inline]
            fn visit_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, $t>)) {
                self.visit_leaves_mut(f);
            }
            #[inline]
            fn zip_mut(&mut self, other: &Self, f: &mut dyn FnMut(LeafMut<'_, $t>, Leaf<'_, $t>)) {
                self.zip_leaves(other, f);
            }
            #[inline]
            fn zeros_like(&self) -> Self {
                0.0
            }
            #[inline]
            fn accumulate(&mut self, other: &Self) {
                *self += *other;
            }
        }
    )*};
}
number_params!(f32, f64);

/// A tuple of parameters of one float type is a parameter, visited component by component.
macro_rules! tuple_params {
    ($(($($t:ident $i:tt),*))*) => {$(
        impl<E: Float, $($t: Params<Elem = E>),*> Params for ($($t,)*) {
            type Elem = E;
            fn visit(&self, f: &mut dyn FnMut(Leaf<'_, E>)) {
                $(self.$i.visit(f);)*
            }
            fn visit_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, E>)) {
                $(self.$i.visit_mut(f);)*
            }
            fn zip_mut(&mut self, other: &Self, f: &mut dyn FnMut(LeafMut<'_, E>, Leaf<'_, E>)) {
                $(self.$i.zip_mut(&other.$i, f);)*
            }
            fn zeros_like(&self) -> Self {
                ($(self.$i.zeros_like(),)*)
            }
            fn unset_like(&self) -> Self {
                ($(self.$i.unset_like(),)*)
            }
            fn settle(&mut self) {
                $(self.$i.settle();)*
            }
            fn accumulate(&mut self, other: &Self) {
                $(self.$i.accumulate(&other.$i);)*
            }
        }
    )*};
}
tuple_params! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
}

/// Panics unless a gradient of `m` parts is added into one of `n`.
#[track_caller]
fn assert_fits_count(n: usize, m: usize) {
    assert!(n == m, "a gradient of {m} parts added into one of {n}");
}

/// Numbers stored in a parameter struct's fields: a scalar, an array or a `Vec` of them, nested.
/// `#[derive(Params)]` visits such a field through this trait, one contiguous run per array or
/// `Vec` (as a [`Params`], a `Vec<f64>` is visited number by number).
#[doc(hidden)]
pub trait Leaves: Clone {
    /// The float type of the numbers.
    type Elem: Float;
    /// Calls `f` on each contiguous run of numbers.
    fn visit_leaves(&self, f: &mut dyn FnMut(Leaf<'_, Self::Elem>));
    /// Calls `f` on each contiguous run of numbers, mutably.
    fn visit_leaves_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, Self::Elem>));
    /// Calls `f` on the runs of `self` and `other` pairwise.
    fn zip_leaves(
        &mut self,
        other: &Self,
        f: &mut dyn FnMut(LeafMut<'_, Self::Elem>, Leaf<'_, Self::Elem>),
    );
    /// The same shape, every number 0.
    fn zero_leaves(&self) -> Self;
    /// `self += other`.
    #[track_caller]
    fn accumulate_leaves(&mut self, other: &Self) {
        let mut misfit = false;
        self.zip_leaves(other, &mut |a, b| {
            misfit |= a.data.len() != b.data.len();
            if !misfit {
                a.data.iter_mut().zip(b.data).for_each(|(x, &y)| *x += y);
            }
        });
        assert!(
            !misfit,
            "a gradient of numbers added into one of another shape"
        );
    }
}

impl<F: Float> Leaves for F {
    type Elem = F;
    fn visit_leaves(&self, f: &mut dyn FnMut(Leaf<'_, F>)) {
        f(Leaf {
            shape: &[],
            data: core::slice::from_ref(self),
        });
    }
    fn visit_leaves_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, F>)) {
        f(LeafMut {
            shape: &[],
            data: core::slice::from_mut(self),
        });
    }
    fn zip_leaves(&mut self, other: &Self, f: &mut dyn FnMut(LeafMut<'_, F>, Leaf<'_, F>)) {
        f(
            LeafMut {
                shape: &[],
                data: core::slice::from_mut(self),
            },
            Leaf {
                shape: &[],
                data: core::slice::from_ref(other),
            },
        );
    }
    fn zero_leaves(&self) -> Self {
        F::ZERO
    }
}

/// Implements [`Leaves`] for containers of numbers stored contiguously: one run each, whose shape,
/// elements and zero are expressions of the container `$this` (some shapes do not read it).
macro_rules! contiguous_leaves {
    ($([$($gen:tt)*] $ty:ty, $this:ident => $flat:expr, $flat_mut:expr, $shape:expr, $zero:expr;)*) => {$(
        #[allow(unused_variables)]
        impl<F: Float, $($gen)*> Leaves for $ty {
            type Elem = F;
            fn visit_leaves(&self, f: &mut dyn FnMut(Leaf<'_, F>)) {
                let $this = self;
                f(Leaf { shape: &$shape, data: $flat });
            }
            fn visit_leaves_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, F>)) {
                let shape = { let $this = &*self; $shape };
                let $this = self;
                f(LeafMut { shape: &shape, data: $flat_mut });
            }
            fn zip_leaves(&mut self, other: &Self, f: &mut dyn FnMut(LeafMut<'_, F>, Leaf<'_, F>)) {
                let theirs = { let $this = other; ($shape, $flat) };
                let shape = { let $this = &*self; $shape };
                let $this = self;
                f(LeafMut { shape: &shape, data: $flat_mut }, Leaf { shape: &theirs.0, data: theirs.1 });
            }
            fn zero_leaves(&self) -> Self {
                let $this = self;
                $zero
            }
        }
    )*};
}

contiguous_leaves! {
    [const N: usize] [F; N], a => &a[..], &mut a[..], [N], [F::ZERO; N];
    [const N: usize, const M: usize] [[F; N]; M], a => a.as_flattened(), a.as_flattened_mut(), [M, N], [[F::ZERO; N]; M];
    [] Vec<F>, v => &v[..], &mut v[..], [v.len()], vec![F::ZERO; v.len()];
    [const N: usize] Vec<[F; N]>, v => v.as_flattened(), v.as_flattened_mut(), [v.len(), N], vec![[F::ZERO; N]; v.len()];
}

/// An optional field of numbers (`Option<f64>`, `Option<[F; 2]>`): its numbers when `Some`.
impl<T: Leaves> Leaves for Option<T> {
    type Elem = T::Elem;
    fn visit_leaves(&self, f: &mut dyn FnMut(Leaf<'_, T::Elem>)) {
        if let Some(t) = self {
            t.visit_leaves(f);
        }
    }
    fn visit_leaves_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, T::Elem>)) {
        if let Some(t) = self {
            t.visit_leaves_mut(f);
        }
    }
    #[track_caller]
    fn zip_leaves(
        &mut self,
        other: &Self,
        f: &mut dyn FnMut(LeafMut<'_, T::Elem>, Leaf<'_, T::Elem>),
    ) {
        zip_optional(self, other, |a, b| a.zip_leaves(b, f));
    }
    fn zero_leaves(&self) -> Self {
        self.as_ref().map(Leaves::zero_leaves)
    }
}

impl<F: Float> Leaves for Vec<Vec<F>> {
    type Elem = F;
    fn visit_leaves(&self, f: &mut dyn FnMut(Leaf<'_, F>)) {
        self.iter().for_each(|row| row.visit_leaves(f));
    }
    fn visit_leaves_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, F>)) {
        self.iter_mut().for_each(|row| row.visit_leaves_mut(f));
    }
    #[track_caller]
    fn zip_leaves(&mut self, other: &Self, f: &mut dyn FnMut(LeafMut<'_, F>, Leaf<'_, F>)) {
        assert!(
            self.len() == other.len(),
            "zip_mut: {} and {} rows",
            self.len(),
            other.len()
        );
        self.iter_mut()
            .zip(other)
            .for_each(|(p, q)| p.zip_leaves(q, f));
    }
    fn zero_leaves(&self) -> Self {
        self.iter().map(Leaves::zero_leaves).collect()
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
