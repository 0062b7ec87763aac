//! Matrix products by `matrixmultiply`'s GEMM, including products with a transposed operand read
//! through strides (reverse mode needs `g·Wᵀ` and `Xᵀ·g` on every layer; building the transposes
//! would cost a copy each).

use super::{ok, ShapeError, Tensor};
use crate::Float;

/// A 2-D operand as GEMM sees it: a pointer and (row, column) strides of a possibly transposed
/// row-major matrix.
struct Operand<'a, F> {
    data: &'a [F],
    rows: usize,
    cols: usize,
    transposed: bool,
}

impl<F: Float> Operand<'_, F> {
    fn gemm_view(&self) -> (*const F, isize, isize) {
        // Row-major [rows, cols] storage; transposed, the stored matrix is [cols, rows].
        let (r, c) = (self.rows as isize, self.cols as isize);
        if self.transposed {
            (self.data.as_ptr(), 1, r)
        } else {
            (self.data.as_ptr(), c, 1)
        }
    }
}

/// Whether a product is small enough that packing its operands (what makes `matrixmultiply` fast
/// on large ones) costs more than it saves: `cargo bench -p diffx-benches --bench mlp` times both at the layer shapes.
fn is_small(m: usize, k: usize, n: usize) -> bool {
    m * k * n <= SMALL_GEMM_WORK
}

const SMALL_GEMM_WORK: usize = 64 * 64 * 64;

/// `a·b`, where `a` and `b` are views with `a.cols == b.rows` (checked by the caller).
fn gemm<F: Float>(a: &Operand<'_, F>, b: &Operand<'_, F>) -> Tensor<F> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    debug_assert_eq!(k, b.rows);
    if m == 0 || n == 0 || k == 0 {
        return Tensor::zeros(&[m, n]);
    }
    if is_small(m, k, n) && prefers_transposed_product(a, m, n) {
        return small_gemm_transposed(a, b);
    }
    let mut out = Vec::with_capacity(m * n);
    // SAFETY: `a` and `b` are whole row-major matrices of m·k and k·n elements whose strides come
    // from `gemm_view`; `out` has room for m·n elements, is row-major (strides n, 1) and is a fresh
    // allocation, so it overlaps neither input. Both kernels write every element of C without
    // reading it (nano-gemm with α = 0, matrixmultiply with β = 0, where C "does not need to be
    // initialized"), so after the call all m·n elements are initialized.
    unsafe {
        let c = (out.as_mut_ptr(), n as isize, 1);
        if is_small(m, k, n) {
            F::small_gemm(m, k, n, a.gemm_view(), b.gemm_view(), c);
        } else {
            F::gemm(m, k, n, F::ONE, a.gemm_view(), b.gemm_view(), F::ZERO, c);
        }
        out.set_len(m * n);
    }
    Tensor::from_parts(out, &[m, n])
}

/// nano-gemm vectorizes along the columns of a row-major product, which wastes most of each vector
/// on 3 or 4 columns. When `a` is read transposed (`Xᵀ·g`, a weight gradient with few outputs), its
/// columns are contiguous, so computing `Cᵀ = Bᵀ·Aᵀ` vectorizes along the `m` rows instead; the
/// transpose back is cheap while the result is small (`[10, 3]` for Iris: 2.5× faster).
fn prefers_transposed_product<F>(a: &Operand<'_, F>, m: usize, n: usize) -> bool {
    a.transposed && n < 8 && n < m && m * n <= 256
}

/// `a·b` as the transpose of `bᵀ·aᵀ`, through a row-major `[n, m]` buffer.
fn small_gemm_transposed<F: Float>(a: &Operand<'_, F>, b: &Operand<'_, F>) -> Tensor<F> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let flip = |(p, rs, cs): (*const F, isize, isize)| (p, cs, rs);
    let mut ct = Vec::with_capacity(m * n);
    // SAFETY: as in `gemm`, with the operands' transposes (the same storage, strides swapped) and
    // a fresh row-major `[n, m]` output that the kernel writes in full.
    unsafe {
        let c = (ct.as_mut_ptr(), m as isize, 1);
        F::small_gemm(n, k, m, flip(b.gemm_view()), flip(a.gemm_view()), c);
        ct.set_len(m * n);
    }
    let out = (0..m * n).map(|idx| ct[(idx % n) * m + idx / n]).collect();
    Tensor::from_parts(out, &[m, n])
}

impl<F: Float> Tensor<F> {
    /// The `[rows, cols]` of two 2-D tensors, or an error naming the op and both shapes.
    #[allow(clippy::type_complexity)]
    fn matrix_dims(
        &self,
        op: &'static str,
        other: &Tensor<F>,
    ) -> Result<((usize, usize), (usize, usize)), ShapeError> {
        match (self.shape(), other.shape()) {
            (&[r, c], &[r2, c2]) => Ok(((r, c), (r2, c2))),
            _ => Err(ShapeError::shapes(
                op,
                self.shape(),
                other.shape(),
                "do not fit (both must be 2-D)",
            )),
        }
    }

    fn operand(&self, rows: usize, cols: usize, transposed: bool) -> Operand<'_, F> {
        Operand {
            data: self.data(),
            rows,
            cols,
            transposed,
        }
    }

    /// The matrix product `self·other` of `[m, k]` and `[k, n]`: an `[m, n]` tensor.
    ///
    /// ```
    /// use diffx::Tensor;
    /// let x = Tensor::from_rows(&[&[1.0, 2.0, 3.0]]); // [1, 3]
    /// let w = Tensor::from_rows(&[&[1.0, 0.0], &[0.0, 1.0], &[1.0, 1.0]]); // [3, 2]
    /// assert_eq!(x.matmul(&w).data(), &[4.0, 5.0]);
    /// ```
    ///
    /// # Panics
    /// If an operand is not 2-D or the inner dimensions differ, e.g.
    /// `matmul: shapes [2, 3] and [4, 5] do not fit (inner dimensions 3 ≠ 4)`;
    /// [`Tensor::try_matmul`] returns the error.
    #[track_caller]
    pub fn matmul(&self, other: &Tensor<F>) -> Tensor<F> {
        ok(self.try_matmul(other))
    }

    /// [`Tensor::matmul`], returning an error if the shapes do not fit.
    pub fn try_matmul(&self, other: &Tensor<F>) -> Result<Tensor<F>, ShapeError> {
        let ((m, k), (k2, n)) = self.matrix_dims("matmul", other)?;
        inner("matmul", self, other, k, k2)?;
        Ok(gemm(
            &self.operand(m, k, false),
            &other.operand(k2, n, false),
        ))
    }

    /// `self·otherᵀ` of `[m, k]` and `[n, k]`: an `[m, n]` tensor, without building the transpose
    /// (the input gradient `g·Wᵀ` of a layer `x·W`).
    ///
    /// # Panics
    /// If an operand is not 2-D or the column counts differ; [`Tensor::try_matmul_t`] returns the
    /// error.
    #[track_caller]
    pub fn matmul_t(&self, other: &Tensor<F>) -> Tensor<F> {
        ok(self.try_matmul_t(other))
    }

    /// [`Tensor::matmul_t`], returning an error if the shapes do not fit.
    pub fn try_matmul_t(&self, other: &Tensor<F>) -> Result<Tensor<F>, ShapeError> {
        let ((m, k), (n, k2)) = self.matrix_dims("matmul_t", other)?;
        inner("matmul_t", self, other, k, k2)?;
        Ok(gemm(
            &self.operand(m, k, false),
            &other.operand(k2, n, true),
        ))
    }

    /// `selfᵀ·other` of `[k, m]` and `[k, n]`: an `[m, n]` tensor, without building the transpose
    /// (the weight gradient `xᵀ·g` of a layer `x·W`).
    ///
    /// # Panics
    /// If an operand is not 2-D or the row counts differ; [`Tensor::try_t_matmul`] returns the error.
    #[track_caller]
    pub fn t_matmul(&self, other: &Tensor<F>) -> Tensor<F> {
        ok(self.try_t_matmul(other))
    }

    /// [`Tensor::t_matmul`], returning an error if the shapes do not fit.
    pub fn try_t_matmul(&self, other: &Tensor<F>) -> Result<Tensor<F>, ShapeError> {
        let ((k, m), (k2, n)) = self.matrix_dims("t_matmul", other)?;
        inner("t_matmul", self, other, k, k2)?;
        Ok(gemm(
            &self.operand(m, k, true),
            &other.operand(k2, n, false),
        ))
    }
}

fn inner<F: Float>(
    op: &'static str,
    a: &Tensor<F>,
    b: &Tensor<F>,
    k: usize,
    k2: usize,
) -> Result<(), ShapeError> {
    if k == k2 {
        return Ok(());
    }
    Err(ShapeError::shapes(
        op,
        a.shape(),
        b.shape(),
        &format!("do not fit (inner dimensions {k} ≠ {k2})"),
    ))
}
