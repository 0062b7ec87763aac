//! Dense tensors: a row-major `Vec<F>` and a shape.
//!
//! Every operation takes `&self` and returns a new tensor (inputs are never mutated), except the
//! in-place methods named as such (`add_assign`, `axpy`, `scale`, the `+=` operators). These are
//! forward kernels only: `#[autodiff]` owns every derivative rule and composes them from these ops.
//!
//! # Shapes and errors
//! One convention throughout: an operation whose operands can have incompatible shapes **panics**
//! with a message naming the operation and both shapes, e.g.
//! `matmul: shapes [2, 3] and [4, 5] do not fit (inner dimensions 3 ≠ 4)`, and has a `try_`
//! twin (`try_matmul`, `try_add`, …) that returns that message as a [`ShapeError`] instead.
//!
//! Elementwise arithmetic broadcasts by NumPy's rules: shapes are aligned at their last axis, and
//! each pair of sizes must be equal or one of them 1 (a missing axis counts as 1). So a `[c]` or
//! `[1, c]` row applies to every row of an `[r, c]` matrix, an `[r, 1]` column to every column,
//! and a 1-element tensor to every element. [`Tensor::sum_to`] is the adjoint: it sums a broadcast
//! result back down to an operand's shape.
//!
//! Row-wise operations ([`Tensor::softmax`], [`Tensor::cross_entropy`], …) treat the last axis as
//! the row: a 2-D `[r, c]` tensor is `r` rows of `c`, a 1-D `[c]` tensor is one row.
//!
//! Every panic is reported at the caller's line (`#[track_caller]` all the way down), and a
//! tensor's element count always equals the product of its shape.
//!
//! # Empty tensors
//! A shape may have axes of size 0, and every operation keeps the element count equal to the
//! product of the shape. Reductions over no elements give their identity: [`Tensor::sum`] and
//! [`Tensor::sum_axis`] 0, [`Tensor::max_axis`] −∞, [`Tensor::logsumexp`] −∞ (the logarithm of an
//! empty sum); [`Tensor::softmax`] of rows of no elements has no elements. A *mean* over no
//! elements has no value, and is an error rather than NumPy's NaN: [`Tensor::mean`],
//! [`Tensor::mean_axis`] along an axis of size 0, [`Tensor::mse`] of empty tensors and the
//! cross-entropies of logits with no rows panic (their `try_` forms return the error), as do
//! [`Tensor::argmax_rows`] of rows with no columns (no maximum to point at) and
//! [`crate::data::accuracy`] of no predictions.

mod display;
mod linalg;
mod math;
mod ops;
mod reduce;
#[cfg(feature = "serde")]
mod serialize;
mod shape;
mod tile;

use core::fmt;

use crate::rng::{seeded, Draw};
use crate::Float;

/// A dense row-major tensor of `f32` (the default) or `f64`.
///
/// ```
/// use diffx::Tensor;
/// let a = Tensor::from_rows(&[&[1.0, 2.0], &[3.0, 4.0]]);
/// let b = Tensor::from_vec(vec![10.0, 20.0], &[2]);
/// assert_eq!((&a + &b).data(), &[11.0, 22.0, 13.0, 24.0]); // b is added to every row
/// assert_eq!(a.matmul(&a).data(), &[7.0, 10.0, 15.0, 22.0]);
/// assert_eq!(a.sum(), 10.0);
/// ```
#[derive(Clone, PartialEq)]
pub struct Tensor<F: Float = f32> {
    data: Vec<F>,
    shape: Shape,
}

/// Operands whose shapes do not fit an operation; the message names the operation and both shapes.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ShapeError {
    op: &'static str,
    message: String,
}

impl ShapeError {
    pub(crate) fn new(op: &'static str, message: impl Into<String>) -> Self {
        ShapeError {
            op,
            message: message.into(),
        }
    }

    /// `"{op}: shapes {a:?} and {b:?} {what}"`, the usual form.
    pub(crate) fn shapes(op: &'static str, a: &[usize], b: &[usize], what: &str) -> Self {
        ShapeError::new(op, format!("shapes {a:?} and {b:?} {what}"))
    }

    /// The operation that failed, e.g. `"matmul"`.
    pub fn op(&self) -> &str {
        self.op
    }
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.op, self.message)
    }
}

impl std::error::Error for ShapeError {}

/// Unwraps the result of a `try_` operation, panicking with its message (the convention of the
/// module: panics and errors say the same thing). A `match`, not `unwrap_or_else`: a panic inside
/// a closure would be reported at the closure, not at the user's call.
#[track_caller]
#[inline]
pub(crate) fn ok<T>(result: Result<T, ShapeError>) -> T {
    match result {
        Ok(value) => value,
        Err(e) => fail(e),
    }
}

/// The panic of [`ok`], out of line: the formatting code stays out of every inlined operation.
#[cold]
#[inline(never)]
#[track_caller]
fn fail(e: ShapeError) -> ! {
    panic!("{e}")
}

/// A shape, stored inline up to 4 axes: a tensor is one allocation, not two.
type Shape = smallvec::SmallVec<[usize; 4]>;

/// Whether two shapes are equal: a loop over their few axes, where `==` on slices calls `memcmp`
/// (4 % of an Iris step, comparing shapes of two axes).
#[inline(always)]
pub(crate) fn same_dims(a: &[usize], b: &[usize]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The number of elements of a valid shape (one a tensor already has).
fn element_count(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// The number of elements of a shape given by a user, or an error if it does not fit in a `usize`
/// (in a debug build the product would panic inside the library, in release it would wrap and give
/// a tensor whose shape and data disagree).
fn checked_count(op: &'static str, shape: &[usize]) -> Result<usize, ShapeError> {
    match shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)) {
        Some(n) => Ok(n),
        None => Err(ShapeError::new(
            op,
            format!("shape {shape:?} has more elements than a usize can count"),
        )),
    }
}

/// Construction.
impl<F: Float> Tensor<F> {
    /// A tensor with the given elements (row-major) and shape.
    ///
    /// # Panics
    /// If `data.len()` is not the product of `shape`; [`Tensor::try_from_vec`] returns the error.
    ///
    /// ```
    /// use diffx::Tensor;
    /// let t = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    /// assert_eq!(t.at(1, 0), 4.0);
    /// ```
    #[track_caller]
    pub fn from_vec(data: Vec<F>, shape: &[usize]) -> Self {
        ok(Self::try_from_vec(data, shape))
    }

    /// [`Tensor::from_vec`], returning an error on a length mismatch.
    pub fn try_from_vec(data: Vec<F>, shape: &[usize]) -> Result<Self, ShapeError> {
        let expected = checked_count("from_vec", shape)?;
        if data.len() != expected {
            return Err(ShapeError::new(
                "from_vec",
                format!(
                    "{} elements do not fit shape {shape:?} ({expected} elements)",
                    data.len()
                ),
            ));
        }
        Ok(Tensor {
            data,
            shape: Shape::from_slice(shape),
        })
    }

    /// A 2-D tensor from rows of equal length.
    ///
    /// # Panics
    /// If the rows have different lengths.
    #[track_caller]
    pub fn from_rows(rows: &[&[F]]) -> Self {
        let cols = rows.first().map_or(0, |r| r.len());
        if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != cols) {
            panic!(
                "from_rows: row {i} has {} elements, row 0 has {cols}",
                r.len()
            );
        }
        Tensor {
            data: rows.concat(),
            shape: Shape::from_slice(&[rows.len(), cols]),
        }
    }

    /// A tensor of the given shape with every element `value`.
    ///
    /// # Panics
    /// If the product of `shape` overflows a `usize`.
    #[track_caller]
    pub fn full(shape: &[usize], value: F) -> Self {
        Self::filled("full", shape, value)
    }

    /// Zeros.
    ///
    /// # Panics
    /// If the product of `shape` overflows a `usize`.
    #[track_caller]
    pub fn zeros(shape: &[usize]) -> Self {
        Self::filled("zeros", shape, F::ZERO)
    }

    /// Ones.
    ///
    /// # Panics
    /// If the product of `shape` overflows a `usize`.
    #[track_caller]
    pub fn ones(shape: &[usize]) -> Self {
        Self::filled("ones", shape, F::ONE)
    }

    /// [`Tensor::full`], naming `op` if the shape is too large.
    #[track_caller]
    fn filled(op: &'static str, shape: &[usize], value: F) -> Self {
        Tensor {
            data: vec![value; ok(checked_count(op, shape))],
            shape: Shape::from_slice(shape),
        }
    }

    /// Whether `self` and `other` have the same shape.
    #[inline]
    pub fn same_shape<G: Float>(&self, other: &Tensor<G>) -> bool {
        same_dims(&self.shape, &other.shape)
    }

    /// A tensor of `shape` with no elements yet: the start of a gradient in generated code (see
    /// [`crate::Params::unset_like`]); not a valid tensor until it is assigned.
    pub(crate) fn unset(shape: &[usize]) -> Self {
        Tensor {
            data: Vec::new(),
            shape: Shape::from_slice(shape),
        }
    }

    /// Whether `self` is [`Tensor::unset`] (a shape without its elements).
    #[inline]
    pub(crate) fn is_unset(&self) -> bool {
        self.data.len() != element_count(&self.shape)
    }

    /// The elements with the shape, as [`crate::Params`] visits them.
    #[inline]
    pub(crate) fn leaf(&self) -> crate::params::Leaf<'_, F> {
        crate::params::Leaf {
            shape: &self.shape,
            data: &self.data,
        }
    }

    /// The elements, mutably, with the shape.
    #[inline]
    pub(crate) fn leaf_mut(&mut self) -> crate::params::LeafMut<'_, F> {
        crate::params::LeafMut {
            shape: &self.shape,
            data: &mut self.data,
        }
    }

    /// Zeros of the shape of `self`.
    pub fn zeros_like(&self) -> Self {
        Tensor {
            data: vec![F::ZERO; element_count(&self.shape)],
            shape: self.shape.clone(),
        }
    }

    /// A 0-dimensional tensor (shape `[]`, one element).
    pub fn scalar(value: F) -> Self {
        Tensor {
            data: vec![value],
            shape: Shape::new(),
        }
    }

    /// Samples of the standard normal distribution; the same seed gives the same tensor on every
    /// platform.
    ///
    /// # Panics
    /// If the product of `shape` overflows a `usize`.
    #[track_caller]
    pub fn randn(shape: &[usize], seed: u64) -> Self {
        Self::randn_with_rng(shape, &mut seeded(seed))
    }

    /// Samples of the standard normal distribution drawn from `rng`, any [`rand::Rng`].
    ///
    /// ```
    /// use diffx::Tensor;
    /// use rand::SeedableRng;
    /// let mut rng = rand_pcg::Pcg64::seed_from_u64(42);
    /// let a = Tensor::<f64>::randn_with_rng(&[2, 3], &mut rng);
    /// let b = Tensor::<f64>::randn_with_rng(&[2, 3], &mut rng); // the stream goes on
    /// assert_eq!(a.shape(), &[2, 3]);
    /// assert_ne!(a, b);
    /// ```
    ///
    /// # Panics
    /// If the product of `shape` overflows a `usize`.
    #[track_caller]
    pub fn randn_with_rng(shape: &[usize], rng: &mut (impl rand::Rng + ?Sized)) -> Self {
        let data = (0..ok(checked_count("randn", shape)))
            .map(|_| F::of_f64(rng.normal()))
            .collect();
        Tensor {
            data,
            shape: Shape::from_slice(shape),
        }
    }

    /// Samples of the uniform distribution on `[lo, hi)`, seeded like [`Tensor::randn`].
    ///
    /// # Panics
    /// If the product of `shape` overflows a `usize`.
    #[track_caller]
    pub fn rand_uniform(shape: &[usize], lo: F, hi: F, seed: u64) -> Self {
        Self::rand_uniform_with_rng(shape, lo, hi, &mut seeded(seed))
    }

    /// Samples of the uniform distribution on `[lo, hi)` drawn from `rng`, any [`rand::Rng`].
    ///
    /// # Panics
    /// If the product of `shape` overflows a `usize`.
    #[track_caller]
    pub fn rand_uniform_with_rng(
        shape: &[usize],
        lo: F,
        hi: F,
        rng: &mut (impl rand::Rng + ?Sized),
    ) -> Self {
        let (lo, width) = (lo.as_f64(), hi.as_f64() - lo.as_f64());
        let data = (0..ok(checked_count("rand_uniform", shape)))
            .map(|_| F::of_f64(lo + width * rng.uniform()))
            .collect();
        Tensor {
            data,
            shape: Shape::from_slice(shape),
        }
    }

    /// The `[n, classes]` matrix whose row `i` is 1 at column `labels[i]` and 0 elsewhere.
    ///
    /// # Panics
    /// If a label is `≥ classes`.
    #[track_caller]
    pub fn one_hot(labels: &[usize], classes: usize) -> Self {
        let mut t = Self::zeros(&[labels.len(), classes]);
        for (i, &label) in labels.iter().enumerate() {
            assert!(
                label < classes,
                "one_hot: label {label} at row {i} is not below {classes} classes"
            );
            t.data[i * classes + label] = F::ONE;
        }
        t
    }
}

/// Access.
impl<F: Float> Tensor<F> {
    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of axes.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The number of rows: the first axis of a 2-D tensor, 1 for a 1-D or 0-D tensor.
    pub fn rows(&self) -> usize {
        match self.shape.len() {
            0 | 1 => 1,
            n => self.shape[..n - 1].iter().product(),
        }
    }

    /// The number of columns: the size of the last axis (1 for a 0-D tensor).
    pub fn cols(&self) -> usize {
        self.shape.last().copied().unwrap_or(1)
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The elements, row-major.
    pub fn data(&self) -> &[F] {
        &self.data
    }

    /// The elements, row-major, writable (the shape cannot change).
    pub fn data_mut(&mut self) -> &mut [F] {
        &mut self.data
    }

    /// The elements, row-major.
    pub fn into_vec(self) -> Vec<F> {
        self.data
    }

    /// The element at a multi-index, or `None` if the index has the wrong length or is out of range.
    pub fn get(&self, index: &[usize]) -> Option<F> {
        if index.len() != self.shape.len() {
            return None;
        }
        let mut flat = 0;
        for (&i, &n) in index.iter().zip(&self.shape) {
            if i >= n {
                return None;
            }
            flat = flat * n + i;
        }
        Some(self.data[flat])
    }

    /// The element at row `i`, column `j` of a 2-D tensor.
    ///
    /// # Panics
    /// If the tensor is not 2-D or the index is out of range.
    #[track_caller]
    pub fn at(&self, i: usize, j: usize) -> F {
        match self.get(&[i, j]) {
            Some(x) => x,
            None => panic!("at: index [{i}, {j}] is outside shape {:?}", self.shape),
        }
    }

    /// Row `i` of a 2-D tensor (or of the last axis in general), as a slice.
    ///
    /// # Panics
    /// If `i` is not below [`Tensor::rows`].
    #[track_caller]
    pub fn row(&self, i: usize) -> &[F] {
        let (rows, c) = (self.rows(), self.cols());
        if i >= rows {
            panic!(
                "row: index {i} is out of range for the {rows} rows of shape {:?}",
                self.shape
            );
        }
        &self.data[i * c..(i + 1) * c]
    }

    /// The only element of a 1-element tensor (any shape).
    ///
    /// # Panics
    /// If the tensor does not have exactly one element.
    #[track_caller]
    pub fn item(&self) -> F {
        assert!(
            self.data.len() == 1,
            "item: shape {:?} has {} elements, not 1",
            self.shape,
            self.data.len()
        );
        self.data[0]
    }

    /// The same tensor in another float type (rounding for `f64 → f32`).
    pub fn cast<G: Float>(&self) -> Tensor<G> {
        let data = self.data.iter().map(|&x| G::of_f64(x.as_f64())).collect();
        Tensor {
            data,
            shape: self.shape.clone(),
        }
    }

    /// The same tensor in `f64` (exact).
    pub fn to_f64(&self) -> Tensor<f64> {
        self.cast()
    }

    /// The same tensor in `f32` (rounded).
    pub fn to_f32(&self) -> Tensor<f32> {
        self.cast()
    }

    /// A tensor of the same shape with new data (crate-internal: the length is known to match).
    pub(crate) fn with_data(&self, data: Vec<F>) -> Self {
        debug_assert_eq!(data.len(), self.data.len());
        Tensor {
            data,
            shape: self.shape.clone(),
        }
    }

    /// A tensor from parts known to agree (crate-internal).
    pub(crate) fn from_parts(data: Vec<F>, shape: &[usize]) -> Self {
        debug_assert_eq!(data.len(), element_count(shape));
        Tensor {
            data,
            shape: Shape::from_slice(shape),
        }
    }
}

#[cfg(test)]
mod tests;
