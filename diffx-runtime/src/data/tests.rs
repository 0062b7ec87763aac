//! Tests of splitting, selection, standardization, batching and accuracy.

use super::*;

fn toy(n: usize, classes: usize) -> Dataset<f64> {
    let features = Tensor::from_vec((0..2 * n).map(|i| i as f64).collect(), &[n, 2]);
    Dataset {
        features,
        labels: (0..n).map(|i| i % classes).collect(),
    }
}

#[test]
fn select_rows_in_order() {
    let ds = toy(4, 2);
    let s = ds.select(&[3, 0, 3]);
    assert_eq!(s.features.data(), &[6.0, 7.0, 0.0, 1.0, 6.0, 7.0]);
    assert_eq!(s.labels, vec![1, 0, 1]);
    assert_eq!((ds.len(), ds.num_features(), ds.num_classes()), (4, 2, 2));
    assert_eq!(ds.select(&[]).features.shape(), &[0, 2]);
}

#[test]
#[should_panic(expected = "select: index 4 is out of range for 4 rows")]
fn select_out_of_range() {
    toy(4, 2).select(&[4]);
}

#[test]
fn stratified_split_keeps_proportions() {
    let ds = toy(150, 3);
    let (train, test) = train_test_split(&ds, 0.2, 0, true);
    assert_eq!((train.len(), test.len()), (120, 30));
    for c in 0..3 {
        assert_eq!(test.labels.iter().filter(|&&l| l == c).count(), 10);
    }
    // Every example lands in exactly one set.
    let mut firsts: Vec<f64> = train
        .features
        .data()
        .iter()
        .chain(test.features.data())
        .step_by(2)
        .copied()
        .collect();
    firsts.sort_by(f64::total_cmp);
    assert_eq!(firsts, (0..150).map(|i| 2.0 * i as f64).collect::<Vec<_>>());
    let again = train_test_split(&ds, 0.2, 0, true);
    assert_eq!((again.0, again.1), (train, test));
}

#[test]
fn plain_split_sizes() {
    let (train, test) = train_test_split(&toy(10, 2), 0.25, 1, false);
    assert_eq!((train.len(), test.len()), (7, 3));
    let (train, test) = train_test_split(&toy(10, 2), 0.0, 1, false);
    assert_eq!((train.len(), test.len()), (10, 0));
}

#[test]
#[should_panic(expected = "train_test_split: test_fraction 1.5 is not in [0, 1]")]
fn split_fraction_checked() {
    train_test_split(&toy(10, 2), 1.5, 1, false);
}

#[test]
fn standardizer_population_std() {
    let x = Tensor::from_rows(&[&[1.0_f64, 5.0], &[3.0, 5.0]]);
    let (s, z) = Standardizer::fit_transform(&x);
    assert_eq!(s.mean.data(), &[2.0, 5.0]);
    assert_eq!(s.std.data(), &[1.0, 1.0]); // ddof 0; the constant column gets 1
    assert_eq!(z.data(), &[-1.0, 0.0, 1.0, 0.0]);
    assert_eq!(
        s.transform(&Tensor::from_rows(&[&[4.0, 6.0]])).data(),
        &[2.0, 1.0]
    );
}

#[test]
fn batches_cover_every_example_once() {
    let ds = toy(10, 3);
    let batches: Vec<_> = ds.batches(4, 7).collect();
    assert_eq!(
        batches.iter().map(|b| b.1.len()).collect::<Vec<_>>(),
        vec![4, 4, 2]
    );
    assert_eq!(ds.batches(4, 7).len(), 3);
    let mut firsts: Vec<f64> = batches
        .iter()
        .flat_map(|(x, _)| x.data().iter().step_by(2).copied())
        .collect();
    assert_ne!(
        firsts,
        (0..10).map(|i| 2.0 * i as f64).collect::<Vec<_>>(),
        "not shuffled"
    );
    firsts.sort_by(f64::total_cmp);
    assert_eq!(firsts, (0..10).map(|i| 2.0 * i as f64).collect::<Vec<_>>());
    for (x, y) in &batches {
        for (row, &label) in x.data().chunks(2).zip(y) {
            assert_eq!((row[0] / 2.0) as usize % 3, label);
        }
    }
}

#[test]
fn accuracy_and_one_hot() {
    assert_eq!(accuracy(&[0, 1, 2, 2], &[0, 1, 1, 2]), 0.75);
    assert_eq!(toy(3, 3).one_hot(), one_hot::<f64>(&[0, 1, 2], 3));
}

#[test]
#[should_panic(expected = "accuracy: no predictions to score")]
fn accuracy_of_nothing() {
    accuracy(&[], &[]);
}

#[test]
#[should_panic(
    expected = "Standardizer::transform: expected an [n, 2] matrix like the data it was fit on, got shape [1, 3]"
)]
fn standardizer_checks_columns() {
    let s = Standardizer::fit(&Tensor::from_rows(&[&[1.0_f64, 2.0], &[3.0, 5.0]]));
    s.transform(&Tensor::from_rows(&[&[1.0, 2.0, 3.0]]));
}

#[test]
#[should_panic(
    expected = "Standardizer::fit: expected an [n, d] matrix with at least one row, got shape [0, 4]"
)]
fn standardizer_needs_rows() {
    Standardizer::fit(&Tensor::<f32>::zeros(&[0, 4]));
}

#[test]
#[should_panic(expected = "accuracy: 1 predictions for 2 labels")]
fn accuracy_lengths() {
    accuracy(&[0], &[0, 1]);
}
