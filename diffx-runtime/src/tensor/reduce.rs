//! Reductions, row-wise softmax and the losses.
//!
//! Axis reductions keep the reduced axis with size 1 (`[r, c]` → `[1, c]` for axis 0, `[r, 1]` for
//! axis 1), so that their results broadcast back against the input. Row-wise operations work on
//! the last axis and subtract each row's maximum before exponentiating, so logits of ±1000 give
//! finite, exact results.

use super::tile::fold_rows_into;
use super::{ok, ShapeError, Tensor};
use crate::fastmath::{exp_in_place, ln_in_place, vectorized};
use crate::Float;

/// Sum of a slice with 8 independent accumulators: the compiler vectorizes it (a single running
/// sum is a dependency chain it may not reorder), and pairwise-ish summation is more accurate.
pub(crate) fn sum_slice<F: Float>(x: &[F]) -> F {
    let mut acc = [F::ZERO; 8];
    let chunks = x.chunks_exact(8);
    let tail = chunks.remainder().iter().fold(F::ZERO, |s, &v| s + v);
    for chunk in chunks {
        acc.iter_mut().zip(chunk).for_each(|(a, &v)| *a += v);
    }
    let [a, b, c, d, e, f, g, h] = acc;
    ((a + b) + (c + d)) + ((e + f) + (g + h)) + tail
}

/// The exponentials of a 2-D view `[rows, cols]`, each row shifted by its maximum (so the largest
/// is `e⁰ = 1`; an infinite or NaN maximum is not subtracted, as ∞ − ∞ = NaN), with the shifts and
/// the row sums. The exponentials are one pass over the whole buffer, not row by row: rows are
/// often short (3 classes), and a long loop is what vectorizes.
struct RowExp<F> {
    exp: Vec<F>,
    shift: Vec<F>,
    sum: Vec<F>,
}

impl<F: Float> RowExp<F> {
    fn new(x: &Tensor<F>) -> Self {
        let (rows, cols) = (x.rows(), x.cols());
        let mut exp = x.data().to_vec();
        // One shift and one sum per row, also for rows of no elements (an empty sum: 0).
        let mut shift = vec![F::ZERO; rows];
        let mut sum = vec![F::ZERO; rows];
        if cols == 0 {
            return RowExp { exp, shift, sum };
        }
        // Rows of a few classes are the common case: with the length known at compile time the
        // per-row loops unroll, where a loop of 3 would cost more than its arithmetic.
        match cols {
            2 => shift_rows::<F, 2>(&mut exp, &mut shift),
            3 => shift_rows::<F, 3>(&mut exp, &mut shift),
            4 => shift_rows::<F, 4>(&mut exp, &mut shift),
            _ => exp
                .chunks_exact_mut(cols)
                .zip(shift.iter_mut())
                .for_each(|(row, s)| *s = shift_row(row)),
        }
        exp_in_place(&mut exp);
        match cols {
            2 => sum_rows::<F, 2>(&exp, &mut sum),
            3 => sum_rows::<F, 3>(&exp, &mut sum),
            4 => sum_rows::<F, 4>(&exp, &mut sum),
            _ => exp
                .chunks_exact(cols)
                .zip(sum.iter_mut())
                .for_each(|(row, total)| *total = row.iter().fold(F::ZERO, |a, &v| a + v)),
        }
        RowExp { exp, shift, sum }
    }

    /// `ln Σ e^x` of row `i`.
    fn logsumexp(&self, i: usize) -> F {
        self.shift[i] + self.sum[i].ln()
    }
}

/// Subtracts the row's maximum from each element and returns it; an infinite or NaN maximum is
/// not subtracted (∞ − ∞ = NaN) and 0 is returned.
#[inline(always)]
fn shift_row<F: Float>(row: &mut [F]) -> F {
    // `>` skips NaN.
    let m = row
        .iter()
        .fold(F::NEG_INFINITY, |m, &v| if v > m { v } else { m });
    if m < -F::NEG_INFINITY && m > F::NEG_INFINITY {
        row.iter_mut().for_each(|v| *v -= m);
        m
    } else {
        F::ZERO
    }
}

/// [`shift_row`] on every row of `C` elements.
fn shift_rows<F: Float, const C: usize>(x: &mut [F], shift: &mut [F]) {
    for (row, s) in x.chunks_exact_mut(C).zip(shift) {
        let row: &mut [F; C] = row.try_into().expect("rows of C elements");
        *s = shift_row(row);
    }
}

/// The sum of every row of `C` elements.
fn sum_rows<F: Float, const C: usize>(x: &[F], sum: &mut [F]) {
    for (row, total) in x.chunks_exact(C).zip(sum) {
        let row: &[F; C] = row.try_into().expect("rows of C elements");
        *total = row.iter().fold(F::ZERO, |a, &v| a + v);
    }
}

/// Reductions over all elements or one axis.
impl<F: Float> Tensor<F> {
    /// The sum of all elements.
    pub fn sum(&self) -> F {
        sum_slice(self.data())
    }

    /// The mean of all elements.
    ///
    /// # Panics
    /// If the tensor has no elements (a mean of none is undefined; see the module's section on
    /// empty tensors).
    #[track_caller]
    pub fn mean(&self) -> F {
        if self.is_empty() {
            panic!(
                "mean: the tensor of shape {:?} has no elements to average",
                self.shape()
            );
        }
        self.sum() / F::of_f64(self.len() as f64)
    }

    /// The sum along `axis`, which is kept with size 1: `[r, c]` → `[1, c]` for axis 0, `[r, 1]` for
    /// axis 1.
    ///
    /// # Panics
    /// If `axis` is not an axis of the tensor.
    #[track_caller]
    pub fn sum_axis(&self, axis: usize) -> Tensor<F> {
        self.reduce_axis("sum_axis", axis, F::ZERO, |a, b| a + b)
    }

    /// The mean along `axis`, kept with size 1 (see [`Tensor::sum_axis`]).
    ///
    /// # Panics
    /// If `axis` is not an axis of the tensor, or has size 0 (no elements to average).
    #[track_caller]
    pub fn mean_axis(&self, axis: usize) -> Tensor<F> {
        let mut out = self.reduce_axis("mean_axis", axis, F::ZERO, |a, b| a + b);
        let n = self.shape()[axis];
        if n == 0 {
            panic!(
                "mean_axis: axis {axis} of shape {:?} has no elements to average",
                self.shape()
            );
        }
        out.scale(F::ONE / F::of_f64(n as f64));
        out
    }

    /// The maximum along `axis`, kept with size 1 (see [`Tensor::sum_axis`]).
    #[track_caller]
    pub fn max_axis(&self, axis: usize) -> Tensor<F> {
        self.reduce_axis("max_axis", axis, F::NEG_INFINITY, F::max)
    }

    /// The column index of the largest element of each row (the first on a tie; NaN is never the
    /// largest): class predictions from logits. One index per row of [`Tensor::rows`].
    ///
    /// # Panics
    /// If the rows have no columns (there is no largest element to point at).
    #[track_caller]
    pub fn argmax_rows(&self) -> Vec<usize> {
        let (rows, cols) = (self.rows(), self.cols());
        if cols == 0 && rows > 0 {
            panic!(
                "argmax_rows: the {rows} rows of shape {:?} have no columns to choose from",
                self.shape()
            );
        }
        if rows == 0 {
            return Vec::new();
        }
        self.data()
            .chunks_exact(cols)
            .map(|row| {
                row.iter()
                    .enumerate()
                    .fold(0, |b, (j, &v)| if v > row[b] { j } else { b })
            })
            .collect()
    }

    /// Folds `axis` with `f` from `init`, viewing the shape as `[outer, n, inner]` so that the inner
    /// loop runs over contiguous memory.
    #[track_caller]
    fn reduce_axis(&self, op: &str, axis: usize, init: F, f: impl Fn(F, F) -> F) -> Tensor<F> {
        let shape = self.shape();
        assert!(
            axis < shape.len(),
            "{op}: axis {axis} is out of range for shape {shape:?}"
        );
        let (n, inner) = (shape[axis], shape[axis + 1..].iter().product::<usize>());
        let outer = shape[..axis].iter().product::<usize>();
        let mut out = vec![init; outer * inner];
        if inner > 0 && n > 0 {
            let blocks = out
                .chunks_exact_mut(inner)
                .zip(self.data().chunks_exact(n * inner));
            vectorized(
                #[inline(always)]
                || {
                    for (o, block) in blocks {
                        if fold_rows_into(o, block, init, &f).is_none() {
                            for slab in block.chunks_exact(inner) {
                                o.iter_mut().zip(slab).for_each(|(a, &v)| *a = f(*a, v));
                            }
                        }
                    }
                },
            );
        }
        let mut out_shape = shape.to_vec();
        out_shape[axis] = 1;
        Tensor::from_parts(out, &out_shape)
    }
}

/// Row-wise functions (along the last axis).
impl<F: Float> Tensor<F> {
    /// `e^x / Σ e^x` along each row (last axis), stable for any finite logits.
    ///
    /// ```
    /// use diffx::Tensor;
    /// let p = Tensor::from_rows(&[&[1000.0_f64, 1000.0, -1000.0]]).softmax();
    /// assert_eq!(p.data(), &[0.5, 0.5, 0.0]);
    /// ```
    pub fn softmax(&self) -> Tensor<F> {
        let RowExp { mut exp, sum, .. } = RowExp::new(self);
        for (row, &total) in exp.chunks_exact_mut(self.cols().max(1)).zip(&sum) {
            let inv = F::ONE / total;
            row.iter_mut().for_each(|v| *v *= inv);
        }
        self.with_data(exp)
    }

    /// `x − logsumexp(x)` along each row (last axis), stable for any finite logits.
    pub fn log_softmax(&self) -> Tensor<F> {
        let stats = RowExp::new(self);
        let mut out = self.clone();
        for (i, row) in out
            .data_mut()
            .chunks_exact_mut(self.cols().max(1))
            .enumerate()
        {
            let (shift, log_sum) = (stats.shift[i], stats.sum[i].ln());
            row.iter_mut().for_each(|v| *v = *v - shift - log_sum);
        }
        out
    }

    /// `ln Σ e^x` along each row (last axis), kept as an axis of size 1: `[r, c]` → `[r, 1]`,
    /// `[c]` → `[1]`.
    pub fn logsumexp(&self) -> Tensor<F> {
        let stats = RowExp::new(self);
        let data = (0..stats.sum.len()).map(|i| stats.logsumexp(i)).collect();
        let mut shape = self.shape().to_vec();
        if let Some(last) = shape.last_mut() {
            *last = 1;
        }
        Tensor::from_parts(data, &shape)
    }
}

/// Losses.
impl<F: Float> Tensor<F> {
    /// The mean over rows of `−log softmax(row)[label]`: softmax cross-entropy of logits `self`
    /// (`[n, classes]`) against integer labels, as PyTorch's `cross_entropy`.
    ///
    /// ```
    /// use diffx::Tensor;
    /// let logits = Tensor::from_rows(&[&[0.0_f64, 0.0], &[1000.0, -1000.0]]);
    /// // Row 0: ln 2; row 1: the right class, certain: 0.
    /// assert_eq!(logits.cross_entropy(&[1, 0]), 2f64.ln() / 2.0);
    /// ```
    ///
    /// # Panics
    /// If `labels.len()` is not the number of rows, a label is not below the number of columns, or
    /// there are no rows (the mean over none is undefined); [`Tensor::try_cross_entropy`] returns
    /// the error.
    #[track_caller]
    pub fn cross_entropy(&self, labels: &[usize]) -> F {
        ok(self.try_cross_entropy(labels))
    }

    /// [`Tensor::cross_entropy`], returning an error for a wrong number of labels or a label out of
    /// range.
    pub fn try_cross_entropy(&self, labels: &[usize]) -> Result<F, ShapeError> {
        self.check_labels("cross_entropy", labels)?;
        self.check_has_rows("cross_entropy")?;
        let RowExp { shift, sum, .. } = RowExp::new(self);
        Ok(self.mean_row_loss(&shift, sum, labels))
    }

    /// `scale · (softmax(self) − one_hot(labels))`: the gradient of [`Tensor::cross_entropy`]'s sum
    /// over rows with respect to the logits, times `scale` (`g / rows` for its mean), in one pass
    /// and one allocation. The derivative rule of `cross_entropy` uses it in both modes.
    ///
    /// ```
    /// use diffx::Tensor;
    /// let g = Tensor::from_rows(&[&[0.0_f64, 0.0]]).cross_entropy_grad(&[1], 2.0);
    /// assert_eq!(g.data(), &[1.0, -1.0]); // 2 · ([½, ½] − [0, 1])
    /// ```
    ///
    /// # Panics
    /// As [`Tensor::cross_entropy`]; [`Tensor::try_cross_entropy_grad`] returns the error.
    #[track_caller]
    pub fn cross_entropy_grad(&self, labels: &[usize], scale: F) -> Tensor<F> {
        ok(self.try_cross_entropy_grad(labels, scale))
    }

    /// [`Tensor::cross_entropy_grad`], returning an error as [`Tensor::try_cross_entropy`] does.
    pub fn try_cross_entropy_grad(
        &self,
        labels: &[usize],
        scale: F,
    ) -> Result<Tensor<F>, ShapeError> {
        self.check_labels("cross_entropy_grad", labels)?;
        let RowExp { exp, sum, .. } = RowExp::new(self);
        Ok(self.softmax_minus_one_hot(exp, &sum, labels, scale))
    }

    /// [`Tensor::cross_entropy`] and its gradient with respect to the logits,
    /// `(softmax(self) − one_hot(labels)) / rows`, from one softmax: what reverse mode's forward
    /// sweep computes, so that the backward sweep only scales the gradient by the cotangent.
    ///
    /// ```
    /// use diffx::Tensor;
    /// let logits = Tensor::from_rows(&[&[0.0_f64, 0.0], &[1000.0, -1000.0]]);
    /// let (loss, grad) = logits.cross_entropy_with_grad(&[1, 0]);
    /// assert_eq!(loss, logits.cross_entropy(&[1, 0]));
    /// assert_eq!(grad, logits.cross_entropy_grad(&[1, 0], 0.5));
    /// ```
    ///
    /// # Panics
    /// As [`Tensor::cross_entropy`], with the same message, naming `cross_entropy` (the operation
    /// that generated code computes by this method); [`Tensor::try_cross_entropy_with_grad`]
    /// returns the error.
    #[track_caller]
    pub fn cross_entropy_with_grad(&self, labels: &[usize]) -> (F, Tensor<F>) {
        ok(self.try_cross_entropy_with_grad(labels))
    }

    /// [`Tensor::cross_entropy_with_grad`], returning an error as [`Tensor::try_cross_entropy`]
    /// does.
    pub fn try_cross_entropy_with_grad(
        &self,
        labels: &[usize],
    ) -> Result<(F, Tensor<F>), ShapeError> {
        // Reverse mode computes the `cross_entropy` a user wrote by this method: the errors name
        // that operation, not this one.
        self.check_labels("cross_entropy", labels)?;
        self.check_has_rows("cross_entropy")?;
        let scale = F::ONE / F::of_f64(self.rows() as f64);
        let RowExp { exp, shift, sum } = RowExp::new(self);
        let grad = self.softmax_minus_one_hot(exp, &sum, labels, scale);
        Ok((self.mean_row_loss(&shift, sum, labels), grad))
    }

    /// The mean over rows of `logsumexp(row) − row[label]`, from the row statistics (the sums of
    /// the exponentials are taken over for their logarithms).
    fn mean_row_loss(&self, shift: &[F], mut sum: Vec<F>, labels: &[usize]) -> F {
        // The logarithms of all rows in one vectorized pass, not a libm call per row.
        ln_in_place(&mut sum);
        let rows_iter = self.data().chunks_exact(self.cols().max(1)).zip(labels);
        let total = rows_iter
            .zip(shift.iter().zip(&sum))
            .fold(F::ZERO, |s, ((row, &l), (&m, &ln_sum))| {
                s + (m - row[l] + ln_sum)
            });
        total / F::of_f64(self.rows() as f64)
    }

    /// `scale · (softmax − one_hot(labels))`, in the buffer of the exponentials.
    fn softmax_minus_one_hot(
        &self,
        mut exp: Vec<F>,
        sum: &[F],
        labels: &[usize],
        scale: F,
    ) -> Tensor<F> {
        let cols = self.cols().max(1);
        for ((row, &total), &label) in exp.chunks_exact_mut(cols).zip(sum).zip(labels) {
            let factor = scale / total;
            row.iter_mut().for_each(|v| *v *= factor);
            row[label] -= scale;
        }
        self.with_data(exp)
    }

    /// An error unless there is at least one row: a loss is a mean over the rows.
    fn check_has_rows(&self, op: &'static str) -> Result<(), ShapeError> {
        if self.rows() > 0 {
            return Ok(());
        }
        let msg = format!(
            "logits of shape {:?} have no rows, and the mean loss over no rows is undefined",
            self.shape()
        );
        Err(ShapeError::new(op, msg))
    }

    /// One label per row, each below the number of columns.
    fn check_labels(&self, op: &'static str, labels: &[usize]) -> Result<(), ShapeError> {
        let (rows, cols) = (self.rows(), self.cols());
        if labels.len() != rows {
            let msg = format!(
                "{} labels for the {rows} rows of logits {:?}",
                labels.len(),
                self.shape()
            );
            return Err(ShapeError::new(op, msg));
        }
        // A vectorized maximum first: the search for the culprit runs only on bad input.
        let largest = vectorized(
            #[inline(always)]
            || labels.iter().fold(0, |m, &l| m.max(l)),
        );
        if largest < cols {
            return Ok(());
        }
        if let Some((i, &l)) = labels.iter().enumerate().find(|&(_, &l)| l >= cols) {
            let msg = format!(
                "label {l} at row {i} is not below the {cols} columns of logits {:?}",
                self.shape()
            );
            return Err(ShapeError::new(op, msg));
        }
        Ok(())
    }

    /// The mean over rows of `−Σ target·log softmax(row)`: cross-entropy against one-hot (or any
    /// probability) targets of the same shape as the logits.
    ///
    /// # Panics
    /// If the shapes differ; [`Tensor::try_cross_entropy_onehot`] returns the error.
    #[track_caller]
    pub fn cross_entropy_onehot(&self, targets: &Tensor<F>) -> F {
        ok(self.try_cross_entropy_onehot(targets))
    }

    /// [`Tensor::cross_entropy_onehot`], returning an error if the shapes differ.
    pub fn try_cross_entropy_onehot(&self, targets: &Tensor<F>) -> Result<F, ShapeError> {
        same_shape("cross_entropy_onehot", self, targets)?;
        self.check_has_rows("cross_entropy_onehot")?;
        let products = self.log_softmax().zip_map(targets, |l, t| t * l);
        Ok(-products.sum() / F::of_f64(self.rows() as f64))
    }

    /// The mean of `(self − target)²` over all elements.
    ///
    /// # Panics
    /// If the shapes differ or the tensors have no elements; [`Tensor::try_mse`] returns the
    /// error.
    #[track_caller]
    pub fn mse(&self, target: &Tensor<F>) -> F {
        ok(self.try_mse(target))
    }

    /// [`Tensor::mse`], returning an error if the shapes differ or the tensors have no elements.
    pub fn try_mse(&self, target: &Tensor<F>) -> Result<F, ShapeError> {
        same_shape("mse", self, target)?;
        if self.is_empty() {
            let what = "have no elements, and the mean of no squared errors is undefined";
            return Err(ShapeError::shapes(
                "mse",
                self.shape(),
                target.shape(),
                what,
            ));
        }
        let squares = self.zip_map(target, |a, b| (a - b) * (a - b));
        Ok(squares.sum() / F::of_f64(self.len() as f64))
    }
}

fn same_shape<F: Float>(op: &'static str, a: &Tensor<F>, b: &Tensor<F>) -> Result<(), ShapeError> {
    if a.same_shape(b) {
        Ok(())
    } else {
        Err(ShapeError::shapes(op, a.shape(), b.shape(), "differ"))
    }
}
