//! Data: loading ([`read_csv`], the bundled [`iris`], [`read_iris`], [`read_digits`], [`mnist`]), splitting
//! ([`train_test_split`], [`train_test_split_with_rng`], [`Dataset::select`]), preprocessing ([`Standardizer`], [`one_hot`]),
//! minibatches ([`Batches`]) and evaluation ([`accuracy`]).
//!
//! Readers never panic on a bad file: they return a [`DataError`] that names the file, the line and
//! column where it applies, and what was expected. Everything random takes a seed and gives the
//! same result on every platform.

mod csv_file;
mod error;
mod idx;

pub use csv_file::{iris, read_csv, read_digits, read_iris, CsvOptions};
pub use error::DataError;
pub use idx::{mnist, read_idx_images, read_idx_labels, Mnist};

use crate::rng::{seeded, Draw};
use crate::{Float, Tensor};

/// Examples for classification: one row of features and one class label per example.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Dataset<F: Float = f32> {
    /// `[n, d]`: one example per row.
    pub features: Tensor<F>,
    /// `n` class labels, `0..classes`.
    pub labels: Vec<usize>,
}

impl<F: Float> Dataset<F> {
    /// The number of examples.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether there are no examples.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The number of features per example.
    pub fn num_features(&self) -> usize {
        self.features.cols()
    }

    /// The number of classes: one more than the largest label.
    pub fn num_classes(&self) -> usize {
        self.labels.iter().max().map_or(0, |&l| l + 1)
    }

    /// The examples at `indices`, in that order (repeats allowed): to reproduce a split given as
    /// row indices.
    ///
    /// # Panics
    /// If an index is not below [`Dataset::len`].
    #[track_caller]
    pub fn select(&self, indices: &[usize]) -> Dataset<F> {
        let d = self.num_features();
        let mut features = Vec::with_capacity(indices.len() * d);
        for &i in indices {
            assert!(
                i < self.len(),
                "select: index {i} is out of range for {} rows",
                self.len()
            );
            features.extend_from_slice(self.features.row(i));
        }
        let labels = indices.iter().map(|&i| self.labels[i]).collect();
        Dataset {
            features: Tensor::from_vec(features, &[indices.len(), d]),
            labels,
        }
    }

    /// The labels one-hot encoded: `[n, num_classes]`.
    pub fn one_hot(&self) -> Tensor<F> {
        one_hot(&self.labels, self.num_classes())
    }

    /// Shuffled minibatches of `batch_size` examples (see [`Batches`]).
    ///
    /// # Panics
    /// If `batch_size` is 0.
    #[track_caller]
    pub fn batches(&self, batch_size: usize, seed: u64) -> Batches<'_, F> {
        Batches::new(self, batch_size, seed)
    }

    /// Shuffled minibatches of `batch_size` examples, in an order drawn from `rng` (any
    /// [`rand::Rng`]): one generator can drive the initial weights and every epoch's order.
    ///
    /// ```
    /// use diffx::data;
    /// use rand::SeedableRng;
    /// let iris = data::iris::<f32>();
    /// let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
    /// let first: Vec<usize> = iris.batches_with_rng(150, &mut rng).next().unwrap().1;
    /// let second: Vec<usize> = iris.batches_with_rng(150, &mut rng).next().unwrap().1;
    /// assert_ne!(first, second); // each epoch draws a new order
    /// ```
    ///
    /// # Panics
    /// If `batch_size` is 0.
    #[track_caller]
    pub fn batches_with_rng(
        &self,
        batch_size: usize,
        rng: &mut (impl rand::Rng + ?Sized),
    ) -> Batches<'_, F> {
        Batches::with_rng(self, batch_size, rng)
    }
}

/// `labels` one-hot encoded: the `[n, classes]` matrix with a 1 at `(i, labels[i])`.
///
/// # Panics
/// If a label is not below `classes`.
#[track_caller]
pub fn one_hot<F: Float>(labels: &[usize], classes: usize) -> Tensor<F> {
    Tensor::one_hot(labels, classes)
}

/// Splits `data` into a training and a test set, `test_fraction` of the examples (rounded) going to
/// the test set; with `stratified`, each class is split in that proportion, so both sets keep the
/// class balance. Both sets come out shuffled (seeded).
///
/// # Panics
/// If `test_fraction` is not in `[0, 1]`.
#[track_caller]
pub fn train_test_split<F: Float>(
    data: &Dataset<F>,
    test_fraction: f64,
    seed: u64,
    stratified: bool,
) -> (Dataset<F>, Dataset<F>) {
    train_test_split_with_rng(data, test_fraction, &mut seeded(seed), stratified)
}

/// [`train_test_split`] with the shuffles drawn from `rng`, any [`rand::Rng`].
///
/// ```
/// use diffx::data;
/// use rand::SeedableRng;
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(0);
/// let (train, test) = data::train_test_split_with_rng(&data::iris::<f64>(), 0.2, &mut rng, true);
/// assert_eq!((train.len(), test.len()), (120, 30));
/// assert_eq!(test.labels.iter().filter(|&&l| l == 0).count(), 10); // stratified
/// ```
///
/// # Panics
/// If `test_fraction` is not in `[0, 1]`.
#[track_caller]
pub fn train_test_split_with_rng<F: Float>(
    data: &Dataset<F>,
    test_fraction: f64,
    rng: &mut (impl rand::Rng + ?Sized),
    stratified: bool,
) -> (Dataset<F>, Dataset<F>) {
    assert!(
        (0.0..=1.0).contains(&test_fraction),
        "train_test_split: test_fraction {test_fraction} is not in [0, 1]"
    );
    let groups: Vec<Vec<usize>> = if stratified {
        (0..data.num_classes())
            .map(|c| (0..data.len()).filter(|&i| data.labels[i] == c).collect())
            .collect()
    } else {
        vec![(0..data.len()).collect()]
    };
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for mut group in groups {
        rng.shuffle(&mut group);
        let n_test = (group.len() as f64 * test_fraction).round() as usize;
        test.extend_from_slice(&group[..n_test]);
        train.extend_from_slice(&group[n_test..]);
    }
    rng.shuffle(&mut train);
    rng.shuffle(&mut test);
    (data.select(&train), data.select(&test))
}

/// Z-scoring: `(x − mean) / std` per feature, with the statistics of the data it was fit on (the
/// training set), applied unchanged to other data.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Standardizer<F: Float = f32> {
    /// `[1, d]`: the mean of each column.
    pub mean: Tensor<F>,
    /// `[1, d]`: the population standard deviation (ddof 0) of each column; a constant column gets 1,
    /// so it maps to 0 instead of NaN.
    pub std: Tensor<F>,
}

impl<F: Float> Standardizer<F> {
    /// The statistics of the columns of `x` (`[n, d]`).
    ///
    /// # Panics
    /// If `x` is not 2-D or has no rows (no statistics to take).
    #[track_caller]
    pub fn fit(x: &Tensor<F>) -> Self {
        if x.ndim() != 2 || x.rows() == 0 {
            panic!(
                "Standardizer::fit: expected an [n, d] matrix with at least one row, got shape {:?}",
                x.shape()
            );
        }
        let mean = x.mean_axis(0);
        let variance = (x - &mean).square().mean_axis(0);
        let std = variance.map(|v| if v > F::ZERO { v.sqrt() } else { F::ONE });
        Standardizer { mean, std }
    }

    /// `(x − mean) / std`, column by column.
    ///
    /// # Panics
    /// If `x` does not have as many columns as the data the standardizer was fit on.
    #[track_caller]
    pub fn transform(&self, x: &Tensor<F>) -> Tensor<F> {
        let columns = self.mean.cols();
        if x.ndim() != 2 || x.cols() != columns {
            panic!(
                "Standardizer::transform: expected an [n, {columns}] matrix like the data it was fit on, got shape {:?}",
                x.shape()
            );
        }
        (x - &self.mean) / &self.std
    }

    /// [`Standardizer::fit`] then [`Standardizer::transform`] on the same data.
    ///
    /// # Panics
    /// As [`Standardizer::fit`].
    #[track_caller]
    pub fn fit_transform(x: &Tensor<F>) -> (Self, Tensor<F>) {
        let s = Self::fit(x);
        let z = s.transform(x);
        (s, z)
    }
}

/// Shuffled minibatches: yields `(features, labels)` of `batch_size` examples each, the last batch
/// holding the remainder. The order is a seeded permutation; use a different seed per epoch.
///
/// ```
/// use diffx::data::Dataset;
/// use diffx::Tensor;
/// let ds = Dataset { features: Tensor::<f32>::zeros(&[5, 2]), labels: vec![0, 1, 0, 1, 0] };
/// let sizes: Vec<usize> = ds.batches(2, 0).map(|(x, y)| { assert_eq!(x.rows(), y.len()); y.len() }).collect();
/// assert_eq!(sizes, vec![2, 2, 1]);
/// ```
#[derive(Clone, Debug)]
pub struct Batches<'a, F: Float = f32> {
    data: &'a Dataset<F>,
    order: Vec<usize>,
    batch_size: usize,
    next: usize,
}

impl<'a, F: Float> Batches<'a, F> {
    /// Batches of `data` in an order shuffled by `seed`.
    ///
    /// # Panics
    /// If `batch_size` is 0.
    #[track_caller]
    pub fn new(data: &'a Dataset<F>, batch_size: usize, seed: u64) -> Self {
        Self::with_rng(data, batch_size, &mut seeded(seed))
    }

    /// Batches of `data` in an order drawn from `rng`, any [`rand::Rng`].
    ///
    /// # Panics
    /// If `batch_size` is 0.
    #[track_caller]
    pub fn with_rng(
        data: &'a Dataset<F>,
        batch_size: usize,
        rng: &mut (impl rand::Rng + ?Sized),
    ) -> Self {
        assert!(batch_size > 0, "Batches::new: batch_size must be positive");
        let mut order: Vec<usize> = (0..data.len()).collect();
        rng.shuffle(&mut order);
        Batches {
            data,
            order,
            batch_size,
            next: 0,
        }
    }
}

impl<F: Float> Iterator for Batches<'_, F> {
    type Item = (Tensor<F>, Vec<usize>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.order.len() {
            return None;
        }
        let end = (self.next + self.batch_size).min(self.order.len());
        let batch = self.data.select(&self.order[self.next..end]);
        self.next = end;
        Some((batch.features, batch.labels))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.order.len() - self.next).div_ceil(self.batch_size);
        (n, Some(n))
    }
}

impl<F: Float> ExactSizeIterator for Batches<'_, F> {}

/// The fraction of `predicted` equal to `labels`.
///
/// # Panics
/// If the lengths differ, or there are none (a mean over no examples is undefined, as for
/// [`Tensor::mean`]).
#[track_caller]
pub fn accuracy(predicted: &[usize], labels: &[usize]) -> f64 {
    assert!(
        predicted.len() == labels.len(),
        "accuracy: {} predictions for {} labels",
        predicted.len(),
        labels.len()
    );
    assert!(
        !labels.is_empty(),
        "accuracy: no predictions to score (the accuracy of none is undefined)"
    );
    let correct = predicted.iter().zip(labels).filter(|(p, l)| p == l).count();
    correct as f64 / labels.len() as f64
}

#[cfg(test)]
mod tests;
