//! Kernels for a short row broadcast over many rows (a bias of 3 or 10 over a batch) and its
//! transpose, the sum of many rows (the bias gradient): rows of 16 or more are summed one chunk of
//! columns at a time with the accumulator in a register, shorter ones as rows of a whole tile.
//!
//! A loop over a row of 3 or 10 elements is too short to vectorize, and a loop over a tile of a
//! few rows still ends in a scalar remainder that costs more than the vector part. So the row is
//! repeated into a tile whose length is a whole number of [`LANES`]-element chunks, and the data
//! is walked in such chunks, each a fixed-size array operation the compiler turns into one or two
//! vector instructions; only the last partial chunk of the whole buffer is scalar.

use core::mem::MaybeUninit;

use crate::Float;

/// Elements per chunk: one AVX-512 vector of `f32`, two of `f64`.
const LANES: usize = 16;

/// The largest tile (the row repeated), in elements.
const MAX_TILE: usize = 256;

/// A row repeated into a whole number of chunks, on the stack.
pub(crate) struct Tile<F> {
    buf: [MaybeUninit<F>; MAX_TILE],
}

impl<F: Float> Tile<F> {
    /// Room for a tile; nothing is written until [`Tile::repeat`] or [`Tile::fill`].
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Tile {
            buf: [MaybeUninit::uninit(); MAX_TILE],
        }
    }

    /// `row` repeated the fewest times that fill whole chunks, for use along `total` elements; or
    /// `None` if that takes more than [`MAX_TILE`] elements (a row that long vectorizes by itself)
    /// or `total` is less than two tiles (building the tile would cost more than it saves: a batch
    /// of one row).
    #[inline(always)]
    pub(crate) fn repeat(&mut self, row: &[F], total: usize) -> Option<&[F]> {
        let len = Self::len_for(row.len()).filter(|&len| total >= 2 * len)?;
        for (slot, &v) in self.buf[..len].iter_mut().zip(row.iter().cycle()) {
            slot.write(v);
        }
        Some(self.init(len))
    }

    /// A tile for rows of `cols` elements, every element `value`, under the conditions of
    /// [`Tile::repeat`].
    #[inline(always)]
    fn fill(&mut self, cols: usize, value: F, total: usize) -> Option<&mut [F]> {
        let len = Self::len_for(cols).filter(|&len| total >= 2 * len)?;
        self.buf[..len].iter_mut().for_each(|slot| {
            slot.write(value);
        });
        // SAFETY: the first `len` elements were written just above.
        Some(unsafe { core::slice::from_raw_parts_mut(self.buf.as_mut_ptr().cast::<F>(), len) })
    }

    fn len_for(cols: usize) -> Option<usize> {
        let len = cols.checked_mul(LANES / gcd(cols, LANES))?;
        (cols > 0 && len <= MAX_TILE).then_some(len)
    }

    /// The first `len` elements, which the caller has written.
    fn init(&self, len: usize) -> &[F] {
        // SAFETY: every caller writes `buf[..len]` first; `MaybeUninit<F>` has `F`'s layout.
        unsafe { core::slice::from_raw_parts(self.buf.as_ptr().cast::<F>(), len) }
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// `x ← f(x, tile)` with the tile repeated along `x` (whose length is a multiple of the row's).
#[inline(always)]
pub(crate) fn zip_in_place<F: Float>(x: &mut [F], t: &[F], f: impl Fn(F, F) -> F) {
    let mut chunks = x.chunks_exact_mut(LANES);
    let mut at = 0;
    for chunk in &mut chunks {
        let chunk: &mut [F; LANES] = chunk.try_into().expect("whole chunks");
        let row: &[F; LANES] = t[at..at + LANES].try_into().expect("whole chunks");
        for (x, &y) in chunk.iter_mut().zip(row) {
            *x = f(*x, y);
        }
        at = if at + LANES == t.len() { 0 } else { at + LANES };
    }
    for (x, &y) in chunks.into_remainder().iter_mut().zip(&t[at..]) {
        *x = f(*x, y);
    }
}

/// `f(x, tile)` with the tile repeated along `x`, into a new buffer.
#[inline(always)]
pub(crate) fn zip_new<F: Float>(x: &[F], t: &[F], f: impl Fn(F, F) -> F) -> Vec<F> {
    let mut out = Vec::with_capacity(x.len());
    let spare = &mut out.spare_capacity_mut()[..x.len()];
    let mut outs = spare.chunks_exact_mut(LANES);
    let mut chunks = x.chunks_exact(LANES);
    let mut at = 0;
    for (o, chunk) in (&mut outs).zip(&mut chunks) {
        let chunk: &[F; LANES] = chunk.try_into().expect("whole chunks");
        let row: &[F; LANES] = t[at..at + LANES].try_into().expect("whole chunks");
        let mut result = [F::ZERO; LANES];
        for ((r, &x), &y) in result.iter_mut().zip(chunk).zip(row) {
            *r = f(x, y);
        }
        // One array store, which vectorizes where sixteen `MaybeUninit::write`s do not.
        // SAFETY: `o` is `LANES` slots of `F`, and an array of `F` has the alignment of `F`.
        unsafe { o.as_mut_ptr().cast::<[F; LANES]>().write(result) };
        at = if at + LANES == t.len() { 0 } else { at + LANES };
    }
    let rest = outs.into_remainder().iter_mut().zip(chunks.remainder());
    for ((o, &x), &y) in rest.zip(&t[at..]) {
        o.write(f(x, y));
    }
    // SAFETY: every one of the first `x.len()` elements was written above.
    unsafe { out.set_len(x.len()) };
    out
}

/// `out ← fold(out, each row of x)` elementwise, for rows of `out.len()` elements, with `init`
/// the fold's identity; `None` (nothing done) if the rows are short and too few to fill two tiles.
#[inline(always)]
pub(crate) fn fold_rows_into<F: Float>(
    out: &mut [F],
    x: &[F],
    init: F,
    f: impl Fn(F, F) -> F + Copy,
) -> Option<()> {
    let cols = out.len();
    if cols >= LANES {
        fold_wide_rows_into(out, x, init, f);
        return Some(());
    }
    // Rows of a whole tile are rows of whole chunks: fold those first, then the rest of the rows
    // and the tile's own rows into `out`.
    let mut tile = Tile::new();
    let acc = tile.fill(cols, init, x.len())?;
    let whole = x.len() - x.len() % acc.len();
    fold_wide_rows_into(acc, &x[..whole], init, f);
    let rows = x[whole..].chunks_exact(cols);
    for row in rows.chain(acc.chunks_exact(cols)) {
        out.iter_mut().zip(row).for_each(|(o, &v)| *o = f(*o, v));
    }
    Some(())
}

/// `out ← fold(out, each row of x)` for rows of at least [`LANES`] elements: one chunk of columns at
/// a time down all the rows, its accumulator a register. (Left to itself, LLVM vectorized the
/// row-by-row loop across rows, with gathers: 8× slower on a `[32, 128]` bias gradient.)
#[inline(always)]
fn fold_wide_rows_into<F: Float>(out: &mut [F], x: &[F], init: F, f: impl Fn(F, F) -> F + Copy) {
    let cols = out.len();
    let whole = cols - cols % LANES;
    for (start, o) in (0..whole).step_by(LANES).zip(out.chunks_exact_mut(LANES)) {
        let mut acc = [init; LANES];
        for row in x.chunks_exact(cols) {
            let chunk: &[F; LANES] = row[start..start + LANES].try_into().expect("a chunk");
            for (a, &v) in acc.iter_mut().zip(chunk) {
                *a = f(*a, v);
            }
        }
        o.iter_mut().zip(acc).for_each(|(o, a)| *o = f(*o, a));
    }
    for row in x.chunks_exact(cols) {
        let rest = out[whole..].iter_mut().zip(&row[whole..]);
        rest.for_each(|(o, &v)| *o = f(*o, v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_are_whole_chunks_of_whole_rows() {
        for cols in 1..=40 {
            let row: Vec<f32> = (0..cols).map(|i| i as f32).collect();
            match Tile::new().repeat(&row, usize::MAX) {
                Some(t) => {
                    assert_eq!(t.len() % LANES, 0, "{cols}");
                    assert_eq!(t.len() % cols, 0, "{cols}");
                    assert!(t.chunks_exact(cols).all(|r| r == row.as_slice()));
                }
                None => assert!(cols * LANES / gcd(cols, LANES) > MAX_TILE, "{cols}"),
            }
        }
    }

    #[test]
    fn kernels_match_row_by_row_loops() {
        for (rows, cols) in [
            (120, 3),
            (120, 10),
            (32, 16),
            (33, 5),
            (24, 12),
            (32, 128),
            (9, 40),
        ] {
            let row: Vec<f64> = (0..cols).map(|j| j as f64 + 0.5).collect();
            let x: Vec<f64> = (0..rows * cols).map(|i| (i * 7 % 13) as f64).collect();
            let want: Vec<f64> = x
                .chunks_exact(cols)
                .flat_map(|r| r.iter().zip(&row).map(|(a, b)| a * 2.0 - b))
                .collect();
            let mut tile = Tile::new();
            let tile = tile.repeat(&row, x.len()).expect("short rows tile");
            assert_eq!(zip_new(&x, tile, |a, b| a * 2.0 - b), want);
            let mut y = x.clone();
            zip_in_place(&mut y, tile, |a, b| a * 2.0 - b);
            assert_eq!(y, want);
            let mut sums = vec![1.0; cols];
            fold_rows_into(&mut sums, &x, 0.0, |a, b| a + b).expect("short rows tile");
            for (j, s) in sums.iter().enumerate() {
                let col: f64 = (0..rows).map(|i| x[i * cols + j]).sum();
                assert_eq!(*s, 1.0 + col, "{rows}x{cols} column {j}");
            }
        }
    }
}
