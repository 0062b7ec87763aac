//! Elementwise arithmetic with broadcasting: `+ - * /` as `std::ops` on tensors and scalars, the
//! in-place forms, and the general `map` / `zip_map` every elementwise kernel is built from.
//!
//! The common broadcasts (same shape, scalar, a row over every row, a column over every column) run
//! as plain slice loops that the compiler vectorizes; anything else goes through a strided loop.

use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use super::tile::{self, Tile};
use super::{element_count, ok, same_dims, ShapeError, Tensor};
use crate::fastmath::vectorized;
use crate::Float;

/// The shape two operands broadcast to (NumPy's rules).
pub(crate) fn broadcast_shape(
    op: &'static str,
    a: &[usize],
    b: &[usize],
) -> Result<super::Shape, ShapeError> {
    let n = a.len().max(b.len());
    let size = |s: &[usize], k: usize| {
        if k < n - s.len() {
            1
        } else {
            s[k - (n - s.len())]
        }
    };
    (0..n)
        .map(|k| match (size(a, k), size(b, k)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            (x, y) => Err(ShapeError::shapes(
                op,
                a,
                b,
                &format!("do not broadcast ({x} ≠ {y})"),
            )),
        })
        .collect()
}

/// Element strides of `shape` read as the broadcast `out`: 0 along broadcast axes.
pub(crate) fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let mut strides = vec![0; out.len()];
    let mut stride = 1;
    for (k, &n) in shape.iter().enumerate().rev() {
        strides[out.len() - shape.len() + k] = if n == 1 { 0 } else { stride };
        stride *= n;
    }
    strides
}

/// How a smaller operand lines up with an operand of the output's full shape.
pub(crate) enum Layout {
    Same,
    Scalar,
    /// One value per column, repeated down the rows.
    Row,
    /// One value per row, repeated along it.
    Column,
    General,
}

pub(crate) fn layout(small: &[usize], out: &[usize]) -> Layout {
    let (len, cols) = (element_count(small), out.last().copied().unwrap_or(1));
    // `small` broadcasts to `out`, so its last size is `cols` or 1 (it is not 0-D unless len is 1).
    let small_cols = small.last().copied().unwrap_or(1);
    if same_dims(small, out) {
        Layout::Same
    } else if len == 1 {
        Layout::Scalar
    } else if small_cols == cols && len == cols {
        Layout::Row
    } else if small_cols == 1 && cols > 0 && len == element_count(out) / cols {
        Layout::Column
    } else {
        Layout::General
    }
}

/// `f` over the broadcast of `full` (which has the output shape) and `small`; `f(full, small)`.
pub(crate) fn zip_into<F: Float>(
    full: &mut [F],
    small: &Tensor<F>,
    out: &[usize],
    f: impl Fn(F, F) -> F,
) {
    if full.is_empty() {
        return;
    }
    let s = small.data();
    let layout = layout(small.shape(), out);
    vectorized(
        #[inline(always)]
        || match layout {
            Layout::Same => full.iter_mut().zip(s).for_each(|(x, &y)| *x = f(*x, y)),
            Layout::Scalar => full.iter_mut().for_each(|x| *x = f(*x, s[0])),
            Layout::Row => match Tile::new().repeat(s, full.len()) {
                Some(tile) => tile::zip_in_place(full, tile, f),
                None => {
                    for row in full.chunks_exact_mut(s.len()) {
                        row.iter_mut().zip(s).for_each(|(x, &y)| *x = f(*x, y));
                    }
                }
            },
            Layout::Column => {
                let cols = full.len() / s.len();
                for (row, &y) in full.chunks_exact_mut(cols).zip(s) {
                    row.iter_mut().for_each(|x| *x = f(*x, y));
                }
            }
            Layout::General => strided_zip(full, small, out, f),
        },
    );
}

/// `f(full, small)` over the broadcast of `full` (which has the output shape) and `small`, into a
/// new buffer: [`zip_into`] without first copying `full` (one pass instead of two).
fn zip_new<F: Float>(
    full: &[F],
    small: &Tensor<F>,
    out: &[usize],
    f: impl Fn(F, F) -> F,
) -> Vec<F> {
    let s = small.data();
    let layout = layout(small.shape(), out);
    if full.is_empty() || !matches!(layout, Layout::Row | Layout::Scalar) {
        let mut data = full.to_vec();
        zip_into(&mut data, small, out, f);
        return data;
    }
    let mut tile = Tile::new();
    vectorized(
        #[inline(always)]
        || match (layout, tile.repeat(s, full.len())) {
            (Layout::Row, Some(tile)) => tile::zip_new(full, tile, f),
            (Layout::Row, None) => full
                .chunks_exact(s.len())
                .flat_map(|row| row.iter().zip(s).map(|(&x, &y)| f(x, y)))
                .collect(),
            _ => full.iter().map(|&x| f(x, s[0])).collect(),
        },
    )
}

/// The general case of [`zip_into`]: walk the output row by row, with broadcast strides for `small`.
fn strided_zip<F: Float>(full: &mut [F], small: &Tensor<F>, out: &[usize], f: impl Fn(F, F) -> F) {
    let strides = broadcast_strides(small.shape(), out);
    for_each_row(out, &strides, |row, base, inner_stride| {
        let cols = out[out.len() - 1];
        for (j, x) in full[row * cols..(row + 1) * cols].iter_mut().enumerate() {
            *x = f(*x, small.data()[base + j * inner_stride]);
        }
    });
}

/// Calls `visit(row, offset, inner_stride)` for each row (last-axis run) of the shape `out`, with
/// the offset of that row's first element in a tensor read through `strides` (from
/// [`broadcast_strides`]). `out` must have at least one axis.
pub(crate) fn for_each_row(
    out: &[usize],
    strides: &[usize],
    mut visit: impl FnMut(usize, usize, usize),
) {
    let (&inner_stride, outer_strides) = strides.split_last().expect("for_each_row: 0-D shape");
    let rows = element_count(&out[..out.len() - 1]);
    let mut index = vec![0; out.len() - 1];
    for row in 0..rows {
        let base: usize = index.iter().zip(outer_strides).map(|(i, s)| i * s).sum();
        visit(row, base, inner_stride);
        for axis in (0..index.len()).rev() {
            index[axis] += 1;
            if index[axis] < out[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
}

impl<F: Float> Tensor<F> {
    /// `f` applied to every element.
    pub fn map(&self, f: impl Fn(F) -> F) -> Tensor<F> {
        self.with_data(vectorized(
            #[inline(always)]
            || self.data().iter().map(|&x| f(x)).collect(),
        ))
    }

    /// `f` applied to every element, in place.
    pub fn map_inplace(&mut self, f: impl Fn(F) -> F) {
        let data = self.data_mut();
        vectorized(
            #[inline(always)]
            || data.iter_mut().for_each(|x| *x = f(*x)),
        );
    }

    /// `f(a, b)` for each pair of elements of the broadcast of `self` and `other`.
    ///
    /// # Panics
    /// If the shapes do not broadcast; [`Tensor::try_zip_map`] returns the error.
    #[track_caller]
    pub fn zip_map(&self, other: &Tensor<F>, f: impl Fn(F, F) -> F) -> Tensor<F> {
        ok(self.try_zip_map(other, f))
    }

    /// [`Tensor::zip_map`], returning an error if the shapes do not broadcast.
    pub fn try_zip_map(
        &self,
        other: &Tensor<F>,
        f: impl Fn(F, F) -> F,
    ) -> Result<Tensor<F>, ShapeError> {
        self.broadcast_with("zip_map", other, f)
    }

    /// `scale · (self − other)`, broadcasting, in one pass: the gradient of a squared error
    /// (`mse`'s derivative rule uses it in both modes).
    ///
    /// ```
    /// use diffx::Tensor;
    /// let a = Tensor::from_vec(vec![3.0, 5.0], &[2]);
    /// let b = Tensor::from_vec(vec![1.0, 1.0], &[2]);
    /// assert_eq!(a.scaled_difference(&b, 0.5).data(), &[1.0, 2.0]);
    /// ```
    ///
    /// # Panics
    /// If the shapes do not broadcast; [`Tensor::try_scaled_difference`] returns the error.
    #[track_caller]
    pub fn scaled_difference(&self, other: &Tensor<F>, scale: F) -> Tensor<F> {
        ok(self.try_scaled_difference(other, scale))
    }

    /// [`Tensor::scaled_difference`], returning an error if the shapes do not broadcast.
    pub fn try_scaled_difference(
        &self,
        other: &Tensor<F>,
        scale: F,
    ) -> Result<Tensor<F>, ShapeError> {
        self.broadcast_with("scaled_difference", other, |a, b| scale * (a - b))
    }

    /// The kernel behind every binary elementwise op: `op` names it in errors.
    pub(crate) fn broadcast_with(
        &self,
        op: &'static str,
        other: &Tensor<F>,
        f: impl Fn(F, F) -> F,
    ) -> Result<Tensor<F>, ShapeError> {
        if self.same_shape(other) {
            // The common case, in one pass.
            let (a, b) = (self.data(), other.data());
            let data = vectorized(
                #[inline(always)]
                || a.iter().zip(b).map(|(&a, &b)| f(a, b)).collect(),
            );
            return Ok(self.with_data(data));
        }
        let out = broadcast_shape(op, self.shape(), other.shape())?;
        if same_dims(self.shape(), &out) {
            let data = zip_new(self.data(), other, &out, f);
            Ok(Tensor::from_parts(data, &out))
        } else if same_dims(other.shape(), &out) {
            let data = zip_new(other.data(), self, &out, |y, x| f(x, y));
            Ok(Tensor::from_parts(data, &out))
        } else {
            // Both operands broadcast (e.g. [r, 1] with [1, c]): expand one, then zip the other.
            let mut data = self.try_broadcast_to(&out)?.into_vec();
            zip_into(&mut data, other, &out, f);
            Ok(Tensor::from_parts(data, &out))
        }
    }

    /// `self ← f(self, other)` where `other` broadcasts to the shape of `self`.
    pub(crate) fn broadcast_assign(
        &mut self,
        op: &'static str,
        other: &Tensor<F>,
        f: impl Fn(F, F) -> F,
    ) -> Result<(), ShapeError> {
        let out = broadcast_shape(op, self.shape(), other.shape())?;
        if out.as_slice() != self.shape() {
            let what = format!("do not fit in place (the result would be {out:?})");
            return Err(ShapeError::shapes(op, self.shape(), other.shape(), &what));
        }
        let out = super::Shape::from_slice(self.shape());
        zip_into(self.data_mut(), other, &out, f);
        Ok(())
    }

    /// `self += other` (broadcasting `other` to the shape of `self`).
    ///
    /// # Panics
    /// If `other` does not broadcast to the shape of `self`.
    #[track_caller]
    pub fn add_assign(&mut self, other: &Tensor<F>) {
        ok(self.broadcast_assign("add_assign", other, |a, b| a + b));
    }

    /// `self += alpha·x`, same shapes (BLAS's axpy; the SGD update is `p.axpy(-lr, &g)`).
    ///
    /// # Panics
    /// If the shapes differ.
    #[track_caller]
    pub fn axpy(&mut self, alpha: F, x: &Tensor<F>) {
        if !self.same_shape(x) {
            panic!("axpy: shapes {:?} and {:?} differ", self.shape(), x.shape());
        }
        let (y, x) = (self.data_mut(), x.data());
        vectorized(
            #[inline(always)]
            || y.iter_mut().zip(x).for_each(|(y, &x)| *y += alpha * x),
        );
    }

    /// `self *= alpha`.
    pub fn scale(&mut self, alpha: F) {
        self.map_inplace(|x| x * alpha);
    }
}

macro_rules! binary_op {
    ($Trait:ident, $method:ident, $Assign:ident, $assign:ident, $try:ident, $name:literal, $op:tt) => {
        impl<F: Float> Tensor<F> {
            #[doc = concat!("`self ", stringify!($op), " other` elementwise with broadcasting, or an error naming both shapes.")]
            pub fn $try(&self, other: &Tensor<F>) -> Result<Tensor<F>, ShapeError> {
                self.broadcast_with($name, other, |a, b| a $op b)
            }
        }
        impl<F: Float> $Trait<&Tensor<F>> for &Tensor<F> {
            type Output = Tensor<F>;
            #[track_caller]
            fn $method(self, rhs: &Tensor<F>) -> Tensor<F> {
                ok(self.$try(rhs))
            }
        }
        impl<F: Float> $Trait<&Tensor<F>> for Tensor<F> {
            type Output = Tensor<F>;
            /// Reuses the buffer of `self` when the result has its shape.
            #[track_caller]
            fn $method(mut self, rhs: &Tensor<F>) -> Tensor<F> {
                match self.broadcast_assign($name, rhs, |a, b| a $op b) {
                    Ok(()) => self,
                    Err(_) => ok(self.$try(rhs)),
                }
            }
        }
        impl<F: Float> $Trait<Tensor<F>> for Tensor<F> {
            type Output = Tensor<F>;
            #[track_caller]
            fn $method(self, rhs: Tensor<F>) -> Tensor<F> {
                self $op &rhs
            }
        }
        impl<F: Float> $Trait<Tensor<F>> for &Tensor<F> {
            type Output = Tensor<F>;
            /// Reuses the buffer of `rhs` when the result has its shape.
            #[track_caller]
            fn $method(self, mut rhs: Tensor<F>) -> Tensor<F> {
                match rhs.broadcast_assign($name, self, |b, a| a $op b) {
                    Ok(()) => rhs,
                    Err(_) => ok(self.$try(&rhs)),
                }
            }
        }
        impl<F: Float> $Trait<F> for &Tensor<F> {
            type Output = Tensor<F>;
            fn $method(self, rhs: F) -> Tensor<F> {
                self.map(|a| a $op rhs)
            }
        }
        impl<F: Float> $Trait<F> for Tensor<F> {
            type Output = Tensor<F>;
            fn $method(mut self, rhs: F) -> Tensor<F> {
                self.map_inplace(|a| a $op rhs);
                self
            }
        }
        impl<F: Float> $Assign<&Tensor<F>> for Tensor<F> {
            /// In place, broadcasting `rhs` to the shape of `self`.
            #[track_caller]
            fn $assign(&mut self, rhs: &Tensor<F>) {
                ok(self.broadcast_assign(concat!($name, "_assign"), rhs, |a, b| a $op b));
            }
        }
        impl<F: Float> $Assign<Tensor<F>> for Tensor<F> {
            /// In place, broadcasting `rhs` to the shape of `self`.
            #[track_caller]
            fn $assign(&mut self, rhs: Tensor<F>) {
                ok(self.broadcast_assign(concat!($name, "_assign"), &rhs, |a, b| a $op b));
            }
        }
        impl<F: Float> $Assign<F> for Tensor<F> {
            fn $assign(&mut self, rhs: F) {
                self.map_inplace(|a| a $op rhs);
            }
        }
        scalar_lhs!($Trait, $method, $op, f32);
        scalar_lhs!($Trait, $method, $op, f64);
    };
}

/// `scalar op tensor` needs one impl per concrete float type (a generic `impl<F> Add<&Tensor<F>>
/// for F` is not allowed by the orphan rules).
macro_rules! scalar_lhs {
    ($Trait:ident, $method:ident, $op:tt, $t:ty) => {
        impl $Trait<&Tensor<$t>> for $t {
            type Output = Tensor<$t>;
            fn $method(self, rhs: &Tensor<$t>) -> Tensor<$t> {
                rhs.map(|b| self $op b)
            }
        }
        impl $Trait<Tensor<$t>> for $t {
            type Output = Tensor<$t>;
            fn $method(self, mut rhs: Tensor<$t>) -> Tensor<$t> {
                rhs.map_inplace(|b| self $op b);
                rhs
            }
        }
    };
}

binary_op!(Add, add, AddAssign, add_assign, try_add, "add", +);
binary_op!(Sub, sub, SubAssign, sub_assign, try_sub, "sub", -);
binary_op!(Mul, mul, MulAssign, mul_assign, try_mul, "mul", *);
binary_op!(Div, div, DivAssign, div_assign, try_div, "div", /);

impl<F: Float> Neg for &Tensor<F> {
    type Output = Tensor<F>;
    fn neg(self) -> Tensor<F> {
        self.map(|x| -x)
    }
}

impl<F: Float> Neg for Tensor<F> {
    type Output = Tensor<F>;
    fn neg(mut self) -> Tensor<F> {
        self.map_inplace(|x| -x);
        self
    }
}
