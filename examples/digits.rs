//! The MNIST-style task of the Andrews et al. seed, on the 8×8 digits shipped in `data/`:
//! MLP 64-128-10 with relu, softmax cross-entropy, SGD with momentum 0.9, learning rate 0.1,
//! minibatches of 32, 20 epochs. The gradient is written by `#[autodiff]` at compile time.
//!
//! ```text
//! cargo run --release --example digits
//! cargo run --release --example digits -- --mnist path/to/mnist   # the IDX files, if you have them
//! ```

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use diffx::data::{self, accuracy, Batches, Dataset};
use diffx::nn::{Activation, Mlp};
use diffx::optim::{Momentum, Optimizer};
use diffx::{autodiff, Tensor};
use indicatif::{ProgressBar, ProgressStyle};

#[path = "shared/cli.rs"]
mod cli;

/// Mean softmax cross-entropy of a one-hidden-layer relu network.
#[autodiff(wrt(model))]
fn loss(model: &Mlp, x: &Tensor, labels: &[usize]) -> f32 {
    let hidden = (x.matmul(&model.layers[0].w) + &model.layers[0].b).relu();
    let logits = hidden.matmul(&model.layers[1].w) + &model.layers[1].b;
    logits.cross_entropy(labels)
}

/// Train a relu MLP on the 8×8 digits (or on MNIST) with gradients written at compile time.
#[derive(Parser, Debug)]
pub struct Args {
    /// Epochs, at least 1.
    #[arg(long, default_value_t = 20, allow_negative_numbers = true, value_parser = cli::at_least_one)]
    epochs: usize,
    /// Learning rate (a finite number > 0).
    #[arg(long, default_value_t = 0.1, allow_negative_numbers = true, value_parser = cli::learning_rate)]
    lr: f32,
    /// Momentum, in [0, 1).
    #[arg(long, default_value_t = 0.9, allow_negative_numbers = true, value_parser = cli::momentum)]
    momentum: f32,
    /// Minibatch size, at least 1.
    #[arg(long, default_value_t = 32, allow_negative_numbers = true, value_parser = cli::at_least_one)]
    batch_size: usize,
    /// Hidden units, at least 1.
    #[arg(long, default_value_t = 128, allow_negative_numbers = true, value_parser = cli::at_least_one)]
    hidden: usize,
    /// Seed of the split, the initial weights and the batch order.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The digits CSV (scikit-learn's file).
    #[arg(long, default_value = "data/digits.csv")]
    data: PathBuf,
    /// A directory with MNIST's IDX files (train-images-idx3-ubyte, …) to train on instead.
    #[arg(long)]
    mnist: Option<PathBuf>,
}

/// Training and test sets with pixels scaled to [0, 1].
fn load(args: &Args) -> Result<(Dataset, Dataset), data::DataError> {
    if let Some(dir) = &args.mnist {
        let m = data::mnist(dir)?;
        return Ok((m.train, m.test));
    }
    let digits: Dataset = data::read_digits(&args.data)?;
    let (train, test) = data::train_test_split(&digits, 0.2, args.seed, true);
    let scale = |d: Dataset| Dataset {
        features: &d.features / 16.0,
        labels: d.labels,
    };
    Ok((scale(train), scale(test)))
}

fn main() -> ExitCode {
    cli::exit_code(run(&Args::parse()))
}

/// The whole run; every error names what it concerns (a file, a line, the epoch).
pub fn run(args: &Args) -> Result<(), Box<dyn Error>> {
    let (train, test) = load(args)?;
    cli::check_finite(&train.features, "training")?;
    let inputs = train.features.cols();
    let mut model = Mlp::new(&[inputs, args.hidden, 10], Activation::Relu, args.seed);
    let mut opt = Momentum::new(args.lr, args.momentum);
    println!(
        "{} training and {} test images of {inputs} pixels; MLP {inputs}-{}-10 relu; SGD momentum {}, lr {}, batch {}",
        train.len(),
        test.len(),
        args.hidden,
        args.momentum,
        args.lr,
        args.batch_size
    );
    let steps = args.epochs * train.len().div_ceil(args.batch_size);
    let bar = ProgressBar::new(steps as u64);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} steps, epoch {msg}",
    )?);
    let start = Instant::now();
    for epoch in 0..args.epochs {
        let mut total = 0.0;
        let seed = args.seed.wrapping_add(epoch as u64);
        for (x, y) in Batches::new(&train, args.batch_size, seed) {
            let (value, grad) = value_and_grad_loss(&model, &x, &y);
            if !value.is_finite() {
                return Err(cli::diverged(value, epoch, &x).into());
            }
            opt.step(&mut model, &grad);
            total += value * y.len() as f32;
            bar.inc(1);
        }
        bar.set_message(format!(
            "{} loss {:.4}",
            epoch + 1,
            total / train.len() as f32
        ));
    }
    bar.finish();
    let elapsed = start.elapsed();
    let test_acc = accuracy(&model.predict(&test.features), &test.labels);
    let train_acc = accuracy(&model.predict(&train.features), &train.labels);
    println!(
        "train accuracy {:.1} %, test accuracy {:.1} %",
        100.0 * train_acc,
        100.0 * test_acc
    );
    println!(
        "training time {:.1} ms ({:.2} ms per epoch)",
        elapsed.as_secs_f64() * 1e3,
        elapsed.as_secs_f64() * 1e3 / args.epochs as f64
    );
    Ok(())
}
