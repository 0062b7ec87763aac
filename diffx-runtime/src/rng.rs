//! The one seeded random generator behind every random thing in the crate (initial weights, splits,
//! shuffles).
//!
//! PCG (`Pcg64Mcg`) produces the same bits on every platform, and the conversions below are written
//! out here rather than borrowed from a distribution crate, so a seed means the same numbers forever,
//! whatever the versions of the dependencies.

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub(crate) struct Rng(Pcg64Mcg);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(Pcg64Mcg::seed_from_u64(seed))
    }

    /// Uniform in `[0, 1)`, with 53 random bits.
    pub(crate) fn uniform(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Standard normal, by the Box–Muller transform (one of the pair is used: simple, and the cost
    /// is irrelevant next to training).
    pub(crate) fn normal(&mut self) -> f64 {
        // 1 − u is in (0, 1], so the logarithm is finite.
        let radius = (-2.0 * (1.0 - self.uniform()).ln()).sqrt();
        radius * (core::f64::consts::TAU * self.uniform()).cos()
    }

    /// Uniform in `0..n` (`n > 0`), unbiased (Lemire's multiply-and-reject).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let threshold = n.wrapping_neg() % n;
        loop {
            let wide = u128::from(self.0.next_u64()) * u128::from(n);
            if (wide as u64) >= threshold {
                return (wide >> 64) as usize;
            }
        }
    }

    /// Fisher–Yates shuffle.
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_numbers() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..100 {
            assert_eq!(a.uniform().to_bits(), b.uniform().to_bits());
        }
    }

    #[test]
    fn moments_are_plausible() {
        let mut rng = Rng::new(1);
        let xs: Vec<f64> = (0..100_000).map(|_| rng.normal()).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        assert!(
            mean.abs() < 0.02 && (var - 1.0).abs() < 0.02,
            "{mean} {var}"
        );
        let mut counts = [0usize; 3];
        (0..30_000).for_each(|_| counts[rng.below(3)] += 1);
        assert!(
            counts.iter().all(|&c| (9_500..10_500).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut v: Vec<usize> = (0..50).collect();
        Rng::new(3).shuffle(&mut v);
        assert_ne!(v, (0..50).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..50).collect::<Vec<_>>());
    }
}
