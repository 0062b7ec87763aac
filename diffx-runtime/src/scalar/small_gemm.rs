//! Small matrix products without packing, through nano-gemm's generated SIMD microkernels.
//!
//! Adapted from nano-gemm 0.2.2 by sarah-ek (<https://github.com/sarah-ek/nano-gemm>, MIT licence):
//! the `Plan` of its `src/lib.rs` (kernel choice in `new_f32_impl`/`new_f64_impl`,
//! `from_masked_impl`, `execute_unchecked`, `direct_millikernel`, `copy_millikernel` and
//! `naive_millikernel`), for `f32` and `f64` only, with the general (`is_col_major = false`)
//! strides, `α = 0`, `β = 1` and no conjugation, which is all diffx asks of it. The kernels
//! themselves come from the `nano-gemm-f32` and `nano-gemm-f64` crates; depending on those
//! directly, rather than on the `nano-gemm` facade, leaves out its complex-number kernels.
//!
//! nano-gemm is column-major: a plan computes `dst ← lhs·rhs` for an `m×n` `dst`, vectorizing down
//! its columns, `mr` rows by `nr` columns per microkernel call.

use core::mem::MaybeUninit;

use nano_gemm_core::{MicroKernel, MicroKernelData};

use crate::Float;

/// `C ← A·B` for an `m×k` `A`, a `k×n` `B` and an `m×n` `C`, each given as (pointer, row stride,
/// column stride) in elements. `C` is written without being read, so it may be uninitialized.
///
/// # Safety
/// The pointers and strides must describe valid matrices of those shapes, `C` writable and not
/// overlapping `A` or `B`.
pub(crate) unsafe fn matmul<T: Kernels>(
    m: usize,
    k: usize,
    n: usize,
    a: (*const T, isize, isize),
    b: (*const T, isize, isize),
    c: (*mut T, isize, isize),
) {
    // SAFETY: forwarded from the caller's contract.
    unsafe { matmul_with(T::plan, m, k, n, a, b, c) }
}

/// [`matmul`] with the kernels chosen by `plan` (tests choose each set of kernels in turn).
///
/// # Safety
/// As for [`matmul`], and `plan` must return plans for this CPU.
unsafe fn matmul_with<T: Kernels>(
    plan: impl FnOnce(usize, usize, usize) -> Option<Plan<T>>,
    m: usize,
    k: usize,
    n: usize,
    a: (*const T, isize, isize),
    b: (*const T, isize, isize),
    c: (*mut T, isize, isize),
) {
    if m == 0 || n == 0 {
        return;
    }
    // The kernels vectorize down the columns of a column-major product, so this computes the
    // row-major `C = A·B` as `Cᵀ = Bᵀ·Aᵀ`: the long contiguous run of `C` is a row. A transpose
    // is the same storage with the strides swapped.
    if k > 0 && c.2 == 1 {
        if let Some(plan) = plan(n, m, k) {
            // SAFETY: `Cᵀ` (unit row stride, as `execute` requires), `Bᵀ` and `Aᵀ` are the
            // caller's valid `n×m`, `n×k` and `k×m` matrices, the shapes the plan was made for.
            unsafe { plan.execute(n, m, k, c.0, c.1, (b.0, b.2, b.1), (a.0, a.2, a.1)) };
            return;
        }
    }
    for i in 0..m as isize {
        for j in 0..n as isize {
            let mut acc = T::ZERO;
            for p in 0..k as isize {
                // SAFETY: `(i, p)` and `(p, j)` are inside `A` and `B`, valid for reads.
                acc += unsafe { *a.0.offset(i * a.1 + p * a.2) * *b.0.offset(p * b.1 + j * b.2) };
            }
            // SAFETY: `(i, j)` is inside `C`, valid for writes.
            unsafe { *c.0.offset(i * c.1 + j * c.2) = acc };
        }
    }
}

/// A float type with nano-gemm microkernels.
pub(crate) trait Kernels: Float {
    /// The plan for an `m×n` column-major product of depth `k` (all three at least 1), or `None`
    /// when this CPU has none of the instruction sets the kernels are written for.
    fn plan(m: usize, n: usize, k: usize) -> Option<Plan<Self>>;
}

impl Kernels for f32 {
    fn plan(m: usize, n: usize, k: usize) -> Option<Plan<f32>> {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        {
            use nano_gemm_f32::x86::f32::{avx, avx512, f32x1, f32x2, f32x4};
            if m > 8 && std::is_x86_feature_detected!("avx512f") {
                return Some(Plan::new(&avx512::MICROKERNELS, &avx512::MASKS, m, n, k));
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                return Some(match m {
                    1 => Plan::new(&f32x1::MICROKERNELS, &[(); f32x1::N], m, n, k),
                    2 => Plan::new(&f32x2::MICROKERNELS, &[(); f32x2::N], m, n, k),
                    3 | 4 => Plan::new(&f32x4::MICROKERNELS, &f32x4::MASKS, m, n, k),
                    _ => Plan::new(&avx::MICROKERNELS, &avx::MASKS, m, n, k),
                });
            }
        }
        #[cfg(target_arch = "aarch64")]
        if std::arch::is_aarch64_feature_detected!("neon") {
            let kernels = &nano_gemm_f32::aarch64::f32::neon::MICROKERNELS;
            return Some(Plan::new(kernels, &[()], m, n, k));
        }
        _ = (m, n, k);
        None
    }
}

impl Kernels for f64 {
    fn plan(m: usize, n: usize, k: usize) -> Option<Plan<f64>> {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        {
            use nano_gemm_f64::x86::f64::{avx, avx512, f64x1, f64x2};
            if m > 4 && std::is_x86_feature_detected!("avx512f") {
                return Some(Plan::new(&avx512::MICROKERNELS, &avx512::MASKS, m, n, k));
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                return Some(match m {
                    1 => Plan::new(&f64x1::MICROKERNELS, &[(); f64x1::N], m, n, k),
                    2 => Plan::new(&f64x2::MICROKERNELS, &[(); f64x2::N], m, n, k),
                    _ => Plan::new(&avx::MICROKERNELS, &avx::MASKS, m, n, k),
                });
            }
        }
        #[cfg(target_arch = "aarch64")]
        if std::arch::is_aarch64_feature_detected!("neon") {
            let kernels = &nano_gemm_f64::aarch64::f64::neon::MICROKERNELS;
            return Some(Plan::new(kernels, &[()], m, n, k));
        }
        _ = (m, n, k);
        None
    }
}

/// The four microkernels of one product, `[last row block][last column block]` (a last block
/// may be partial), and the masks of the rows a vector covers.
pub(crate) struct Plan<T: 'static> {
    microkernels: [[MicroKernel<T>; 2]; 2],
    mr: usize,
    nr: usize,
    full_mask: *const (),
    last_mask: *const (),
}

impl<T: Kernels> Plan<T> {
    /// nano-gemm's `from_masked_impl`. `kernels[d][r][c]` handles `min(d + 1, k)` steps of depth
    /// (the last one any depth) on `r + 1` vectors of rows by `c + 1` columns; `masks[i]` keeps the
    /// first `i` rows of a vector (all of them for `i = 0`) and has one entry per lane. Kernels
    /// without masks (one vector of a single length, or neon's single lanes) ignore them.
    ///
    /// The caller must have checked that this CPU has the kernels' target features.
    fn new<const MR_DIV_N: usize, const NR: usize, const N: usize, Mask>(
        kernels: &'static [[[MicroKernel<T>; NR]; MR_DIV_N]; 17],
        masks: &'static [Mask; N],
        m: usize,
        n: usize,
        k: usize,
    ) -> Self {
        let kernels = &kernels[Ord::min(k - 1, 16)];
        let last_rows = (m - 1) / N % MR_DIV_N;
        let last_cols = (n - 1) % NR;
        let mask = |i: usize| (&masks[i] as *const Mask).cast::<()>();
        Self {
            microkernels: [
                [
                    kernels[MR_DIV_N - 1][NR - 1],
                    kernels[MR_DIV_N - 1][last_cols],
                ],
                [kernels[last_rows][NR - 1], kernels[last_rows][last_cols]],
            ],
            mr: MR_DIV_N * N,
            nr: NR,
            full_mask: mask(0),
            last_mask: mask(m % N),
        }
    }

    /// `dst ← lhs·rhs` (nano-gemm's `copy_millikernel` with `α = 0`, `β = 1`): `dst` is `m×n`
    /// with unit row stride, `lhs` and `rhs` are (pointer, row stride, column stride). A `lhs`
    /// without unit row stride is copied, 64×64 blocks at a time, into one that has it.
    ///
    /// # Safety
    /// The plan was made for `m`, `n`, `k`, and the pointers and strides describe valid
    /// matrices, `dst` writable and not overlapping the others.
    #[allow(clippy::too_many_arguments)]
    unsafe fn execute(
        &self,
        m: usize,
        n: usize,
        k: usize,
        dst: *mut T,
        dst_cs: isize,
        lhs: (*const T, isize, isize),
        rhs: (*const T, isize, isize),
    ) {
        let (lhs, lhs_rs, lhs_cs) = lhs;
        if lhs_rs == 1 {
            // SAFETY: forwarded from the caller's contract, with `lhs`'s unit row stride.
            unsafe {
                self.direct(
                    m,
                    n,
                    k,
                    dst,
                    dst_cs,
                    (lhs, lhs_cs),
                    rhs,
                    T::ZERO,
                    self.last_mask,
                )
            };
            return;
        }
        // A multiple of every kernel's `mr`, so every row block but the last is whole.
        const BS: usize = 64;
        let mut packed = [MaybeUninit::<T>::uninit(); BS * BS];
        for depth in (0..k).step_by(BS) {
            let depth_bs = BS.min(k - depth);
            for i in (0..m).step_by(BS) {
                let i_bs = BS.min(m - i);
                let block = lhs.wrapping_offset(lhs_rs * i as isize + lhs_cs * depth as isize);
                for ii in 0..i_bs {
                    for p in 0..depth_bs {
                        let offset = lhs_rs * ii as isize + lhs_cs * p as isize;
                        // SAFETY: `(i + ii, depth + p)` is inside `lhs`, valid for reads.
                        packed[ii + BS * p].write(unsafe { *block.offset(offset) });
                    }
                }
                let last_mask = if i + i_bs == m {
                    self.last_mask
                } else {
                    self.full_mask
                };
                // The first depth block overwrites `dst`, the others add to it.
                let alpha = if depth == 0 { T::ZERO } else { T::ONE };
                let rhs_block = (rhs.0.wrapping_offset(rhs.1 * depth as isize), rhs.1, rhs.2);
                let lhs_block = (packed.as_ptr().cast::<T>(), BS as isize);
                // SAFETY: rows `i..i + i_bs` of `dst` are valid for writes (and were written by
                // the first depth block when `alpha` is 1); `packed` holds the `i_bs×depth_bs`
                // block of `lhs` with row stride 1, `rhs` points at its row `depth`.
                unsafe {
                    let dst = dst.add(i);
                    self.direct(
                        i_bs, n, depth_bs, dst, dst_cs, lhs_block, rhs_block, alpha, last_mask,
                    )
                };
            }
        }
    }

    /// `dst ← α·dst + lhs·rhs` (nano-gemm's `direct_millikernel`), `dst` and `lhs` with unit row
    /// strides, the last row block's rows masked by `last_mask`.
    ///
    /// # Safety
    /// As for [`Plan::execute`], with `lhs` given as (pointer, column stride) and `dst`
    /// initialized unless `alpha` is 0; `m` and `k` may be smaller than the plan's if the row
    /// blocks before the last are whole and the plan's `k` was over 16.
    #[allow(clippy::too_many_arguments)]
    unsafe fn direct(
        &self,
        m: usize,
        n: usize,
        k: usize,
        dst: *mut T,
        dst_cs: isize,
        lhs: (*const T, isize),
        rhs: (*const T, isize, isize),
        alpha: T,
        last_mask: *const (),
    ) {
        let mut data = MicroKernelData {
            alpha,
            beta: T::ONE,
            conj_lhs: false,
            conj_rhs: false,
            k,
            dst_cs,
            lhs_cs: lhs.1,
            rhs_rs: rhs.1,
            rhs_cs: rhs.2,
            last_mask,
        };
        for i in (0..m).step_by(self.mr) {
            let last_rows = i + self.mr > m;
            data.last_mask = if last_rows { last_mask } else { self.full_mask };
            for j in (0..n).step_by(self.nr) {
                let kernel = self.microkernels[last_rows as usize][(j + self.nr > n) as usize];
                let j = j as isize;
                // SAFETY: the kernel's target features were detected when the plan was made;
                // it reads and writes the rows `i..min(i + mr, m)` and columns
                // `j..min(j + nr, n)` of `dst`, `lhs` and `rhs` that its mask and size allow,
                // which are inside the caller's matrices.
                unsafe {
                    kernel(
                        &data,
                        dst.offset(i as isize + j * dst_cs),
                        lhs.0.add(i),
                        rhs.0.offset(j * rhs.2),
                    )
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use core::ops::RangeInclusive;

    use super::*;

    /// `matmul_with(plan)` against a naive triple loop, with every combination of row-major and
    /// transposed (column-major) `A` and `B`, for `C` written over NaNs. The entries are small
    /// integers, so both sums are exact whatever their order.
    fn check<T: Kernels>(
        plan: impl Fn(usize, usize, usize) -> Option<Plan<T>>,
        m: usize,
        k: usize,
        n: usize,
    ) {
        let value = |i: usize| T::of_f64((i * 7 % 9) as f64 - 4.0);
        let a: Vec<T> = (0..m * k).map(value).collect();
        let b: Vec<T> = (0..k * n).map(|i| value(i + 5)).collect();
        for (a_t, b_t) in [(false, false), (true, false), (false, true), (true, true)] {
            let strides = |t: bool, rows: usize, cols: usize| {
                let (rs, cs) = if t { (1, rows) } else { (cols, 1) };
                (rs as isize, cs as isize)
            };
            let (a_rs, a_cs) = strides(a_t, m, k);
            let (b_rs, b_cs) = strides(b_t, k, n);
            let mut c = vec![T::nan(); m * n];
            // SAFETY: `a`, `b` and `c` hold m·k, k·n and m·n elements, indexed by these strides;
            // the callers' plans are for this CPU.
            unsafe {
                matmul_with(
                    &plan,
                    m,
                    k,
                    n,
                    (a.as_ptr(), a_rs, a_cs),
                    (b.as_ptr(), b_rs, b_cs),
                    (c.as_mut_ptr(), n as isize, 1),
                )
            };
            for i in 0..m {
                for j in 0..n {
                    let expected = (0..k)
                        .map(|p| {
                            a[i * a_rs as usize + p * a_cs as usize]
                                * b[p * b_rs as usize + j * b_cs as usize]
                        })
                        .fold(T::ZERO, |acc, x| acc + x);
                    assert!(
                        c[i * n + j] == expected,
                        "{m}×{k}·{k}×{n} (A transposed: {a_t}, B transposed: {b_t}) at ({i}, {j}): {} ≠ {}",
                        c[i * n + j].as_f64(),
                        expected.as_f64()
                    );
                }
            }
        }
    }

    /// Every `m`, `k`, `n` in 1..=17 with `n` (the kernels' vectorized dimension) in `widths`, then
    /// larger shapes: past one 64-row or 64-deep block of the copy of a transposed `B`, the depth
    /// loop and the widest kernels; and k = 0.
    fn check_all<T: Kernels>(
        plan: impl Fn(usize, usize, usize) -> Option<Plan<T>> + Copy,
        widths: RangeInclusive<usize>,
    ) {
        for m in 1..=17 {
            for k in 1..=17 {
                for n in (1..=17).filter(|n| widths.contains(n)) {
                    check(plan, m, k, n);
                }
            }
        }
        let larger = [
            (70, 3, 2),
            (5, 130, 66),
            (1, 200, 1),
            (33, 65, 40),
            (3, 64, 130),
            (66, 70, 4),
            (4, 0, 5),
        ];
        for (m, k, n) in larger.into_iter().filter(|(_, _, n)| widths.contains(n)) {
            check(plan, m, k, n);
        }
    }

    #[test]
    fn matches_naive_f32() {
        check_all(f32::plan, 1..=usize::MAX);
    }

    #[test]
    fn matches_naive_f64() {
        check_all(f64::plan, 1..=usize::MAX);
    }

    /// Each x86 kernel set this CPU can run, also those `plan` passes over when AVX-512 is there.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[test]
    fn each_x86_kernel_set() {
        use nano_gemm_f32::x86::f32::{avx as avx_f32, avx512 as avx512_f32, f32x1, f32x2, f32x4};
        use nano_gemm_f64::x86::f64::{avx as avx_f64, avx512 as avx512_f64, f64x1, f64x2};
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            check_all(
                |m, n, k| Some(Plan::new(&f32x1::MICROKERNELS, &[(); f32x1::N], m, n, k)),
                1..=1,
            );
            check_all(
                |m, n, k| Some(Plan::new(&f32x2::MICROKERNELS, &[(); f32x2::N], m, n, k)),
                2..=2,
            );
            check_all(
                |m, n, k| Some(Plan::new(&f32x4::MICROKERNELS, &f32x4::MASKS, m, n, k)),
                1..=4,
            );
            check_all(
                |m, n, k| Some(Plan::new(&avx_f32::MICROKERNELS, &avx_f32::MASKS, m, n, k)),
                1..=usize::MAX,
            );
            check_all(
                |m, n, k| Some(Plan::new(&f64x1::MICROKERNELS, &[(); f64x1::N], m, n, k)),
                1..=1,
            );
            check_all(
                |m, n, k| Some(Plan::new(&f64x2::MICROKERNELS, &[(); f64x2::N], m, n, k)),
                2..=2,
            );
            check_all(
                |m, n, k| Some(Plan::new(&avx_f64::MICROKERNELS, &avx_f64::MASKS, m, n, k)),
                1..=usize::MAX,
            );
        }
        if std::is_x86_feature_detected!("avx512f") {
            check_all(
                |m, n, k| {
                    Some(Plan::new(
                        &avx512_f32::MICROKERNELS,
                        &avx512_f32::MASKS,
                        m,
                        n,
                        k,
                    ))
                },
                1..=usize::MAX,
            );
            check_all(
                |m, n, k| {
                    Some(Plan::new(
                        &avx512_f64::MICROKERNELS,
                        &avx512_f64::MASKS,
                        m,
                        n,
                        k,
                    ))
                },
                1..=usize::MAX,
            );
        }
        // No kernels: the scalar loop.
        check_all(|_, _, _| None::<Plan<f32>>, 1..=usize::MAX);
        check_all(|_, _, _| None::<Plan<f64>>, 1..=usize::MAX);
    }
}
