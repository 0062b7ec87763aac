//! The main job: a multilayer perceptron trained on Iris, the experiment of the DiffX paper
//! (4-10-3 MLP with tanh, softmax cross-entropy, SGD with learning rate 0.05, 100 full-batch epochs,
//! stratified 80/20 split). The gradient of the loss is written by `#[autodiff]` at compile time.
//!
//! ```text
//! cargo run --release --example iris
//! cargo run --release --example iris -- --epochs 1000
//! cargo run --release --example iris -- --batch-size 1 --lr 0.1   # the DiffX code's own regime
//! cargo run --release --example iris -- --optimizer adam --lr 0.01
//! cargo run --release --example iris --features serde -- --save target/iris_model.json
//! cargo run --release --example iris --features serde -- --load target/iris_model.json
//! ```

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, ValueEnum};
use diffx::data::{self, accuracy, Batches, Dataset, Standardizer};
use diffx::nn::{Activation, Mlp};
use diffx::optim::{Adam, Momentum, Optimizer, RmsProp, Sgd};
use diffx::{autodiff, Tensor};

#[path = "shared/cli.rs"]
mod cli;

/// The mean softmax cross-entropy of a one-hidden-layer tanh network.
#[autodiff(wrt(model))]
fn loss(model: &Mlp, x: &Tensor, labels: &[usize]) -> f32 {
    let hidden = (x.matmul(&model.layers[0].w) + &model.layers[0].b).tanh();
    let logits = hidden.matmul(&model.layers[1].w) + &model.layers[1].b;
    logits.cross_entropy(labels)
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum OptimizerKind {
    Sgd,
    Momentum,
    Adam,
    Rmsprop,
}

/// Train a 4-H-3 tanh MLP on Iris with gradients written at compile time.
#[derive(Parser, Debug)]
pub struct Args {
    /// Optimizer.
    #[arg(long, value_enum, default_value = "sgd")]
    optimizer: OptimizerKind,
    /// Learning rate (a finite number > 0).
    #[arg(long, default_value_t = 0.05, allow_negative_numbers = true, value_parser = cli::learning_rate)]
    lr: f32,
    /// Number of epochs (passes over the training set), at least 1.
    #[arg(long, default_value_t = 100, allow_negative_numbers = true, value_parser = cli::at_least_one)]
    epochs: usize,
    /// Minibatch size, at least 1; without it, the whole training set (full batch).
    #[arg(long, allow_negative_numbers = true, value_parser = cli::at_least_one)]
    batch_size: Option<usize>,
    /// Hidden units, at least 1.
    #[arg(long, default_value_t = 10, allow_negative_numbers = true, value_parser = cli::at_least_one)]
    hidden: usize,
    /// Seed of the split, the initial weights and the batch order.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// An Iris CSV in scikit-learn's layout; without it, the copy bundled with diffx.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Where to write the loss curve.
    #[arg(long, default_value = "target/iris_loss.svg")]
    plot: PathBuf,
    /// After training, write the model and its standardizer to this JSON file (needs the
    /// `serde` feature).
    #[arg(long)]
    save: Option<PathBuf>,
    /// Train nothing: read a model saved by `--save` and evaluate it on the split of `--seed`.
    #[arg(long, conflicts_with = "save")]
    load: Option<PathBuf>,
}

/// What `--save` writes: the network and the statistics its inputs are standardized with.
#[derive(Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Saved {
    /// The trained network.
    pub model: Mlp,
    /// The training set's statistics, which standardize the network's inputs.
    pub scaler: Standardizer,
}

fn optimizer(args: &Args) -> Box<dyn Optimizer<Mlp>> {
    match args.optimizer {
        OptimizerKind::Sgd => Box::new(Sgd::new(args.lr)),
        OptimizerKind::Momentum => Box::new(Momentum::new(args.lr, 0.9)),
        OptimizerKind::Adam => Box::new(Adam::new(args.lr)),
        OptimizerKind::Rmsprop => Box::new(RmsProp::new(args.lr)),
    }
}

/// One epoch of minibatch steps; returns the mean loss of the epoch's forward passes.
fn epoch(
    model: &mut Mlp,
    opt: &mut dyn Optimizer<Mlp>,
    train: &Dataset,
    batch_size: Option<usize>,
    seed: u64,
) -> f32 {
    let batch_size = batch_size.unwrap_or(train.len());
    if batch_size >= train.len() {
        let (value, grad) = value_and_grad_loss(model, &train.features, &train.labels);
        opt.step(model, &grad);
        return value;
    }
    let (mut total, mut batches) = (0.0, 0);
    for (x, y) in Batches::new(train, batch_size, seed) {
        let (value, grad) = value_and_grad_loss(model, &x, &y);
        opt.step(model, &grad);
        total += value;
        batches += 1;
    }
    total / batches as f32
}

fn main() -> ExitCode {
    cli::exit_code(run(&Args::parse()).map(drop))
}

/// The whole run; every error names what it concerns (a file, a line, the epoch). Returns the
/// model trained (or read, with `--load`).
pub fn run(args: &Args) -> Result<Saved, Box<dyn Error>> {
    if let Some(path) = &args.load {
        return evaluate_saved(args, path);
    }
    cli::check_writable(&args.plot)?;
    let (train, test, scaler) = load(args)?;
    let mut model = Mlp::new(&[4, args.hidden, 3], Activation::Tanh, args.seed);
    let mut opt = optimizer(args);
    println!(
        "Iris: {} training and {} test rows; MLP 4-{}-3 tanh; {:?}, lr {}, {} epochs, batch {}",
        train.labels.len(),
        test.labels.len(),
        args.hidden,
        args.optimizer,
        args.lr,
        args.epochs,
        args.batch_size
            .map_or("full".to_string(), |b| b.to_string())
    );
    let mut curve = Vec::with_capacity(args.epochs);
    let mut elapsed = std::time::Duration::ZERO;
    for e in 0..args.epochs {
        // Only the training steps are timed, not the accuracy printed along the way.
        let start = Instant::now();
        let seed = args.seed.wrapping_add(e as u64);
        let l = epoch(&mut model, opt.as_mut(), &train, args.batch_size, seed);
        elapsed += start.elapsed();
        if !l.is_finite() {
            return Err(cli::diverged(l, e, &train.features).into());
        }
        curve.push(l);
        if e % (args.epochs / 10).max(1) == 0 || e + 1 == args.epochs {
            let acc = accuracy(&model.predict(&train.features), &train.labels);
            println!(
                "epoch {e:>5}  loss {l:.4}  train accuracy {:.1} %",
                100.0 * acc
            );
        }
    }
    let final_loss = loss(&model, &train.features, &train.labels);
    let train_acc = accuracy(&model.predict(&train.features), &train.labels);
    let test_acc = accuracy(&model.predict(&test.features), &test.labels);
    println!("final loss {final_loss:.4}");
    println!(
        "train accuracy {:.1} %, test accuracy {:.1} %",
        100.0 * train_acc,
        100.0 * test_acc
    );
    println!(
        "training time {:.3} ms ({} epochs)",
        elapsed.as_secs_f64() * 1e3,
        args.epochs
    );
    plot(&curve, &args.plot)
        .map_err(|e| cli::PathError::new("cannot write the loss curve to", &args.plot, e))?;
    println!("loss curve written to {}", args.plot.display());
    let trained = Saved { model, scaler };
    if let Some(path) = &args.save {
        save(&trained, path)?;
        println!("model written to {}", path.display());
    }
    Ok(trained)
}

/// `--load`: the accuracy of a saved model on the split of `--seed`, standardized by the saved
/// statistics.
fn evaluate_saved(args: &Args, path: &Path) -> Result<Saved, Box<dyn Error>> {
    let saved = read_saved(path)?;
    let (train, test) = split(args)?;
    let (model, scaler) = (&saved.model, &saved.scaler);
    let acc = |d: &Dataset| accuracy(&model.predict(&scaler.transform(&d.features)), &d.labels);
    println!("model read from {}", path.display());
    println!(
        "train accuracy {:.1} %, test accuracy {:.1} %",
        100.0 * acc(&train),
        100.0 * acc(&test)
    );
    Ok(saved)
}

#[cfg(feature = "serde")]
fn save(saved: &Saved, path: &Path) -> Result<(), Box<dyn Error>> {
    let json = serde_json::to_string(saved)?;
    std::fs::write(path, json)
        .map_err(|e| cli::PathError::new("cannot write the model to", path, e))?;
    Ok(())
}

#[cfg(feature = "serde")]
fn read_saved(path: &Path) -> Result<Saved, Box<dyn Error>> {
    let json = std::fs::read_to_string(path)
        .map_err(|e| cli::PathError::new("cannot read the model from", path, e))?;
    serde_json::from_str(&json)
        .map_err(|e| cli::PathError::new("not a model saved by --save:", path, e).into())
}

#[cfg(not(feature = "serde"))]
fn save(_: &Saved, _: &Path) -> Result<(), Box<dyn Error>> {
    Err(NEEDS_SERDE.into())
}

#[cfg(not(feature = "serde"))]
fn read_saved(_: &Path) -> Result<Saved, Box<dyn Error>> {
    Err(NEEDS_SERDE.into())
}

#[cfg(not(feature = "serde"))]
const NEEDS_SERDE: &str = "--save and --load need the serde feature: cargo run --release \
    --example iris --features serde -- …";

/// The stratified 80/20 split of `--seed`, as read.
fn split(args: &Args) -> Result<(Dataset, Dataset), Box<dyn Error>> {
    let iris: Dataset = match &args.data {
        Some(path) => data::read_iris(path)?,
        None => data::iris(),
    };
    Ok(data::train_test_split(&iris, 0.2, args.seed, true))
}

/// The split, standardized with the training set's statistics only, and those statistics.
fn load(args: &Args) -> Result<(Dataset, Dataset, Standardizer), Box<dyn Error>> {
    let (train, test) = split(args)?;
    let scaler = Standardizer::fit(&train.features);
    let standardize = |d: Dataset| Dataset {
        features: scaler.transform(&d.features),
        labels: d.labels,
    };
    let (train, test) = (standardize(train), standardize(test));
    cli::check_finite(&train.features, "standardized training")?;
    cli::check_finite(&test.features, "standardized test")?;
    Ok((train, test, scaler))
}

/// The training loss per epoch as an SVG line chart (its directory exists: see
/// [`cli::check_writable`]).
fn plot(curve: &[f32], path: &Path) -> Result<(), Box<dyn Error>> {
    use plotters::prelude::*;
    let root = SVGBackend::new(path, (640, 400)).into_drawing_area();
    root.fill(&WHITE)?;
    let top = curve.iter().cloned().fold(0.0f32, f32::max) * 1.05;
    let mut chart = ChartBuilder::on(&root)
        .caption("Iris: training loss (cross-entropy)", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0..curve.len(), 0f32..top)?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("loss")
        .draw()?;
    chart.draw_series(LineSeries::new(
        curve.iter().enumerate().map(|(i, l)| (i, *l)),
        &BLUE,
    ))?;
    root.present()?;
    Ok(())
}
