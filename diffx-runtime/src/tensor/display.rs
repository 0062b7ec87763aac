//! `Display`: a shape header, then the elements as a matrix with aligned columns, eliding the middle
//! of big tensors (as NumPy and PyTorch do). Tensors of more than 2 axes print as
//! `[product of leading axes, last axis]`.
//!
//! `Debug`: one line with the shape, the float type and the first and last few elements, so that a
//! tensor in a panic message, an `assert_eq!` or a `dbg!` stays short whatever its size.

use core::fmt;

use super::Tensor;
use crate::Float;

/// Rows or columns beyond this many are elided, keeping [`EDGE`] at each end.
const MAX_SHOWN: usize = 12;
const EDGE: usize = 3;

/// The indices to show out of `n`, with `None` where the elision goes.
fn shown(n: usize) -> Vec<Option<usize>> {
    if n <= MAX_SHOWN {
        (0..n).map(Some).collect()
    } else {
        let head = (0..EDGE).map(Some);
        head.chain([None]).chain((n - EDGE..n).map(Some)).collect()
    }
}

impl<F: Float> fmt::Display for Tensor<F> {
    /// ```
    /// use diffx::Tensor;
    /// let t = Tensor::from_rows(&[&[1.0, -2.5], &[10.0, 0.25]]);
    /// assert_eq!(format!("{t:.2}"), "Tensor [2, 2]\n[[ 1.00, -2.50],\n [10.00,  0.25]]");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor {:?}", self.shape())?;
        let precision = f.precision().unwrap_or(4);
        let (rows, cols) = (shown(self.rows()), shown(self.cols()));
        let cell = |i: Option<usize>, j: Option<usize>| match (i, j) {
            (Some(i), Some(j)) => format!("{:.*}", precision, self.data()[i * self.cols() + j]),
            _ => "…".to_string(),
        };
        let cells: Vec<Vec<String>> = rows
            .iter()
            .map(|&i| cols.iter().map(|&j| cell(i, j)).collect())
            .collect();
        let width = cells
            .iter()
            .flatten()
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(0);
        f.write_str("\n[")?;
        for (k, row) in cells.iter().enumerate() {
            let sep = if k + 1 < cells.len() { ",\n " } else { "]" };
            let padded: Vec<String> = row.iter().map(|s| format!("{s:>width$}")).collect();
            write!(f, "[{}]{sep}", padded.join(", "))?;
        }
        if cells.is_empty() {
            f.write_str("]")?;
        }
        Ok(())
    }
}

/// Elements beyond this many are elided in `Debug`, keeping [`DEBUG_EDGE`] at each end.
const DEBUG_MAX_SHOWN: usize = 8;
const DEBUG_EDGE: usize = 3;

impl<F: Float> fmt::Debug for Tensor<F> {
    /// ```
    /// use diffx::Tensor;
    /// let t = Tensor::<f32>::from_vec((0..10_000).map(|i| i as f32).collect(), &[100, 100]);
    /// assert_eq!(
    ///     format!("{t:?}"),
    ///     "Tensor { shape: [100, 100], dtype: f32, data: [0.0, 1.0, 2.0, …, 9997.0, 9998.0, 9999.0] }"
    /// );
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dtype = core::any::type_name::<F>();
        write!(
            f,
            "Tensor {{ shape: {:?}, dtype: {dtype}, data: [",
            self.shape()
        )?;
        let data = self.data();
        let shown: Vec<Option<&F>> = if data.len() <= DEBUG_MAX_SHOWN {
            data.iter().map(Some).collect()
        } else {
            let (head, tail) = (&data[..DEBUG_EDGE], &data[data.len() - DEBUG_EDGE..]);
            head.iter()
                .map(Some)
                .chain([None])
                .chain(tail.iter().map(Some))
                .collect()
        };
        for (k, x) in shown.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            match x {
                Some(x) => write!(f, "{x:?}")?,
                None => f.write_str("…")?,
            }
        }
        f.write_str("] }")
    }
}
