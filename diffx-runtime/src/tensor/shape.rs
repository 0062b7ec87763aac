//! Shape operations: reshape, transpose, broadcast and its adjoint `sum_to`.

use super::ops::{broadcast_shape, broadcast_strides, for_each_row, layout, zip_into, Layout};
use super::tile::fold_rows_into;
use super::{checked_count, element_count, ok, ShapeError, Tensor};
use crate::Float;

impl<F: Float> Tensor<F> {
    /// The same elements with another shape of the same element count.
    ///
    /// # Panics
    /// If the element counts differ; [`Tensor::try_reshape`] returns the error.
    #[track_caller]
    pub fn reshape(&self, shape: &[usize]) -> Tensor<F> {
        ok(self.try_reshape(shape))
    }

    /// [`Tensor::reshape`], returning an error if the element counts differ.
    pub fn try_reshape(&self, shape: &[usize]) -> Result<Tensor<F>, ShapeError> {
        let count = checked_count("reshape", shape)?;
        if count != self.len() {
            let what = format!("do not fit (element counts {} ≠ {count})", self.len());
            return Err(ShapeError::shapes("reshape", self.shape(), shape, &what));
        }
        Ok(Tensor::from_parts(self.data().to_vec(), shape))
    }

    /// The transpose of a 2-D tensor, materialized (0-D and 1-D tensors are returned unchanged, as
    /// PyTorch's `t()` does). [`Tensor::matmul_t`] and [`Tensor::t_matmul`] multiply by a transpose
    /// without building it.
    ///
    /// # Panics
    /// If the tensor has more than 2 axes.
    #[track_caller]
    pub fn t(&self) -> Tensor<F> {
        match *self.shape() {
            [] | [_] => self.clone(),
            [r, c] => {
                let mut out = Vec::with_capacity(self.len());
                for j in 0..c {
                    out.extend((0..r).map(|i| self.data()[i * c + j]));
                }
                Tensor::from_parts(out, &[c, r])
            }
            _ => panic!("t: expected at most 2 axes, got shape {:?}", self.shape()),
        }
    }

    /// The tensor repeated along broadcast axes to `shape` (NumPy's `broadcast_to`, materialized).
    ///
    /// # Panics
    /// If `self` does not broadcast to `shape`; [`Tensor::try_broadcast_to`] returns the error.
    #[track_caller]
    pub fn broadcast_to(&self, shape: &[usize]) -> Tensor<F> {
        ok(self.try_broadcast_to(shape))
    }

    /// [`Tensor::broadcast_to`], returning an error if `self` does not broadcast to `shape`.
    pub fn try_broadcast_to(&self, shape: &[usize]) -> Result<Tensor<F>, ShapeError> {
        check_broadcasts_to("broadcast_to", self.shape(), shape)?;
        let mut data = vec![F::ZERO; checked_count("broadcast_to", shape)?];
        zip_into(&mut data, self, shape, |_, y| y);
        Ok(Tensor::from_parts(data, shape))
    }

    /// The sum of `self` down to `shape`, over the axes along which `shape` broadcasts to the shape
    /// of `self`: the adjoint of broadcasting. For `self` of shape `[r, c]`: `sum_to(&[1, c])` and
    /// `sum_to(&[c])` sum the rows (a bias gradient), `sum_to(&[r, 1])` sums each row,
    /// `sum_to(&[])` or `sum_to(&[1])` sums everything.
    ///
    /// ```
    /// use diffx::Tensor;
    /// let g = Tensor::from_rows(&[&[1.0, 2.0], &[3.0, 4.0]]);
    /// assert_eq!(g.sum_to(&[1, 2]).data(), &[4.0, 6.0]);
    /// assert_eq!(g.sum_to(&[2, 1]).data(), &[3.0, 7.0]);
    /// ```
    ///
    /// # Panics
    /// If `shape` does not broadcast to the shape of `self`; [`Tensor::try_sum_to`] returns the error.
    #[track_caller]
    pub fn sum_to(&self, shape: &[usize]) -> Tensor<F> {
        ok(self.try_sum_to(shape))
    }

    /// [`Tensor::sum_to`], returning an error if `shape` does not broadcast to the shape of `self`.
    pub fn try_sum_to(&self, shape: &[usize]) -> Result<Tensor<F>, ShapeError> {
        check_broadcasts_to("sum_to", shape, self.shape())?;
        let mut out = vec![F::ZERO; element_count(shape)];
        if !self.is_empty() {
            self.accumulate_into(&mut out, shape);
        }
        Ok(Tensor::from_parts(out, shape))
    }

    /// `out[broadcast index] += self[index]` for every element of `self`.
    fn accumulate_into(&self, out: &mut [F], shape: &[usize]) {
        let x = self.data();
        match layout(shape, self.shape()) {
            Layout::Same => out.copy_from_slice(x),
            Layout::Scalar => out[0] = x.iter().fold(F::ZERO, |s, &v| s + v),
            Layout::Row => crate::fastmath::vectorized(
                #[inline(always)]
                || sum_rows_into(out, x),
            ),
            Layout::Column => {
                let cols = x.len() / out.len();
                for (o, row) in out.iter_mut().zip(x.chunks_exact(cols)) {
                    *o = row.iter().fold(F::ZERO, |s, &v| s + v);
                }
            }
            Layout::General => {
                let full = self.shape();
                let cols = full[full.len() - 1];
                for_each_row(full, &broadcast_strides(shape, full), |row, base, inner| {
                    for (j, &v) in x[row * cols..(row + 1) * cols].iter().enumerate() {
                        out[base + j * inner] += v;
                    }
                });
            }
        }
    }
}

/// An error unless `from` broadcasts to exactly `to`.
fn check_broadcasts_to(op: &'static str, from: &[usize], to: &[usize]) -> Result<(), ShapeError> {
    match broadcast_shape(op, from, to) {
        Ok(out) if out.as_slice() == to => Ok(()),
        _ => Err(ShapeError::shapes(
            op,
            from,
            to,
            "do not fit (the first does not broadcast to the second)",
        )),
    }
}

/// `out += Σ rows of x`, for rows of `out.len()` elements, a tile of short rows at a time.
#[inline(always)]
fn sum_rows_into<F: Float>(out: &mut [F], x: &[F]) {
    let add = |a: F, b: F| a + b;
    if fold_rows_into(out, x, F::ZERO, add).is_none() {
        for row in x.chunks_exact(out.len()) {
            out.iter_mut().zip(row).for_each(|(o, &v)| *o += v);
        }
    }
}
