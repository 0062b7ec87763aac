//! Random draws (initial weights, splits, shuffles) from any [`rand::Rng`], and the one seeded
//! generator behind the crate's seed-taking conveniences.
//!
//! PCG (`Pcg64Mcg`) produces the same bits on every platform, and the conversions below are written
//! out here rather than borrowed from a distribution crate, so a seed means the same numbers forever,
//! whatever the versions of the dependencies.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The generator of a seed-taking function (`Tensor::randn(shape, seed)`, `Mlp::new(…, seed)`).
pub(crate) fn seeded(seed: u64) -> Pcg64Mcg {
    Pcg64Mcg::seed_from_u64(seed)
}

/// SplitMix64's increment, ⌊2⁶⁴/φ⌋: the state advances by it between outputs.
pub(crate) const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function (Steele, Lea and Flood 2014): a bijection of `u64` that scatters
/// nearby inputs, so `splitmix64(seed + k·GOLDEN_GAMMA)` for k = 1, 2, … are independent seeds.
pub(crate) fn splitmix64(x: u64) -> u64 {
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The draws the crate makes, from any generator: the user's (`&mut impl rand::Rng`) or
/// [`seeded`]'s.
pub(crate) trait Draw: Rng {
    /// Uniform in `[0, 1)`, with 53 random bits.
    fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Standard normal, by the Box–Muller transform (one of the pair is used: simple, and the cost
    /// is irrelevant next to training).
    fn normal(&mut self) -> f64 {
        // 1 − u is in (0, 1], so the logarithm is finite.
        let radius = (-2.0 * (1.0 - self.uniform()).ln()).sqrt();
        radius * (core::f64::consts::TAU * self.uniform()).cos()
    }

    /// Uniform in `0..n` (`n > 0`), unbiased (Lemire's multiply-and-reject).
    fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let threshold = n.wrapping_neg() % n;
        loop {
            let wide = u128::from(self.next_u64()) * u128::from(n);
            if (wide as u64) >= threshold {
                return (wide >> 64) as usize;
            }
        }
    }

    /// Fisher–Yates shuffle.
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}

impl<R: Rng + ?Sized> Draw for R {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_means_the_same_numbers() {
        // Pinned: the seed-taking functions' numbers must not change with the dependencies.
        let mut r = seeded(7);
        let bits: Vec<u64> = (0..4).map(|_| r.uniform().to_bits()).collect();
        assert_eq!(
            bits,
            [
                4604389262984645409,
                4602250656664224654,
                4598548873279571758,
                4606560785192996184
            ]
        );
    }

    #[test]
    fn same_seed_same_numbers() {
        let (mut a, mut b) = (seeded(7), seeded(7));
        for _ in 0..100 {
            assert_eq!(a.uniform().to_bits(), b.uniform().to_bits());
        }
    }

    #[test]
    fn moments_are_plausible() {
        let mut rng = seeded(1);
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
    fn splitmix64_reference_values() {
        // The first outputs of SplitMix64 seeded with 0 (the generator of Java's SplittableRandom
        // and of xoshiro's seeding): state k·γ through the output function.
        assert_eq!(splitmix64(GOLDEN_GAMMA), 0xE220_A839_7B1D_CDAF);
        assert_eq!(
            splitmix64(GOLDEN_GAMMA.wrapping_mul(2)),
            0x6E78_9E6A_A1B9_65F4
        );
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut v: Vec<usize> = (0..50).collect();
        seeded(3).shuffle(&mut v);
        assert_ne!(v, (0..50).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..50).collect::<Vec<_>>());
    }
}
