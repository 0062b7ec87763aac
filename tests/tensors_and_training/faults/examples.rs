//! The Iris and digits examples: clap refuses arguments that would train nothing or train wrongly,
//! and a run's errors are its Display text with the path concerned, exit code 1.

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::Parser;
use diffx::Tensor;

use super::support::{file, temp_path};

// Each example is a crate of its own with its own copy of `shared/cli.rs`; here they share one.
#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../../examples/iris.rs"]
mod iris;

#[allow(dead_code, clippy::duplicate_mod)]
#[path = "../../../examples/digits.rs"]
mod digits;

#[allow(clippy::duplicate_mod)]
#[path = "../../../examples/shared/cli.rs"]
mod cli;

/// The message clap gives for `args` of the Iris example, which must be refused as invalid.
fn iris_refuses(args: &[&str]) -> String {
    let argv = std::iter::once("iris").chain(args.iter().copied());
    let e = iris::Args::try_parse_from(argv).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ValueValidation, "{args:?}: {e}");
    e.to_string()
}

#[test]
fn arguments_are_validated() {
    for lr in [
        ["--lr", "-1"],
        ["--lr", "0"],
        ["--lr", "nan"],
        ["--lr", "inf"],
    ] {
        assert!(iris_refuses(&lr).contains("expected a finite number greater than 0"));
    }
    assert!(iris_refuses(&["--lr=-1"]).contains("expected a finite number greater than 0"));
    for flag in ["--epochs", "--hidden", "--batch-size"] {
        for value in ["0", "-3"] {
            assert!(iris_refuses(&[flag, value]).contains("expected a whole number of at least 1"));
        }
    }
    for args in [
        ["--batch-size", "0"],
        ["--momentum", "1"],
        ["--lr", "-0.1"],
        ["--epochs", "0"],
    ] {
        let e = digits::Args::try_parse_from(std::iter::once("digits").chain(args)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ValueValidation, "{args:?}");
    }
    assert!(iris::Args::try_parse_from(["iris", "--seed", "18446744073709551615"]).is_ok());
}

#[test]
fn errors_print_their_text_and_causes_with_exit_code_1() {
    let missing = "/nonexistent/iris.csv";
    let args = iris::Args::try_parse_from(["iris", "--data", missing, "--plot", &plot()]).unwrap();
    let e = iris::run(&args).unwrap_err();
    let report = cli::report(e.as_ref());
    assert!(
        report.starts_with(&format!("error: {missing}: cannot read\n  caused by: ")),
        "{report}"
    );
    assert!(!report.contains("DataError {"), "{report}");
    assert_eq!(cli::exit_code(Err(e)), ExitCode::FAILURE);
    assert_eq!(cli::exit_code(Ok(())), ExitCode::SUCCESS);
    let args = digits::Args::try_parse_from(["digits", "--mnist", "/nonexistent"]).unwrap();
    let report = cli::report(digits::run(&args).unwrap_err().as_ref());
    assert!(
        report.starts_with("error: /nonexistent/train-images-idx3-ubyte: cannot read"),
        "{report}"
    );
}

/// A plot path in the temporary directory.
fn plot() -> String {
    std::env::temp_dir()
        .join(format!("diffx-faults-{}-plot.svg", std::process::id()))
        .display()
        .to_string()
}

#[test]
fn the_plot_path_is_checked_before_training() {
    // A directory cannot be created under a file: the error names the plot's path, and comes
    // before the data (missing here) is even read.
    let blocker = file(b"");
    let bad = blocker.join("plots/loss.svg");
    let args = iris::Args::try_parse_from([
        "iris",
        "--data",
        "/nonexistent.csv",
        "--plot",
        bad.to_str().unwrap(),
    ]);
    let report = cli::report(iris::run(&args.unwrap()).unwrap_err().as_ref());
    assert!(
        report.starts_with(&format!(
            "error: cannot write the loss curve to {}\n  caused by: ",
            bad.display()
        )),
        "{report}"
    );
}

#[test]
fn any_seed_trains() {
    let out = temp_path("svg");
    let argv = [
        "iris",
        "--seed",
        "18446744073709551615",
        "--epochs",
        "3",
        "--batch-size",
        "40",
    ];
    let args =
        iris::Args::try_parse_from(argv.into_iter().chain(["--plot", out.to_str().unwrap()]));
    iris::run(&args.unwrap()).unwrap();
    assert!(std::fs::metadata(&*out).unwrap().len() > 0);
}

#[test]
fn non_finite_data_is_named_instead_of_the_learning_rate() {
    // Every feature fits in f32, but their sum does not: standardization makes them infinite.
    let mut text = String::from("30,4,a,b,c\n");
    for i in 0..30 {
        text.push_str(&format!("3e38,{i},1,2,{}\n", i % 3));
    }
    let data = file(text.as_bytes());
    let out = temp_path("svg");
    let args = iris::Args::try_parse_from([
        "iris",
        "--data",
        data.to_str().unwrap(),
        "--plot",
        out.to_str().unwrap(),
    ]);
    let report = cli::report(iris::run(&args.unwrap()).unwrap_err().as_ref());
    assert!(
        report.contains("the standardized training features are not all finite (row 0, column 0"),
        "{report}"
    );
    let nan = Tensor::from_vec(vec![1.0, f32::NAN], &[1, 2]);
    assert_eq!(cli::diverged(f32::NAN, 3, &nan), "the loss became NaN in epoch 3: the training features are not all finite (row 0, column 1 is NaN): check the data for extreme values");
    let fine = Tensor::from_vec(vec![1.0, 2.0], &[1, 2]);
    assert_eq!(
        cli::diverged(f32::INFINITY, 3, &fine),
        "the loss became inf in epoch 3: lower the learning rate"
    );
}

#[test]
fn a_saved_model_is_read_back_as_trained() {
    // `--save` then `--load`: the model and standardizer read back are the ones trained, bit for
    // bit (the serde feature; without it both flags are refused with the command to use).
    let (plot, model) = (temp_path("svg"), temp_path("json"));
    let run = |extra: [&str; 2]| {
        let argv = ["iris", "--epochs", "20", "--plot", plot.to_str().unwrap()];
        iris::run(&iris::Args::try_parse_from(argv.into_iter().chain(extra)).unwrap())
    };
    let saved = run(["--save", model.to_str().unwrap()]);
    let loaded = run(["--load", model.to_str().unwrap()]);
    if cfg!(feature = "serde") {
        let (saved, loaded) = (saved.unwrap(), loaded.unwrap());
        assert_eq!(loaded, saved);
        assert!(
            saved.model.layers[0].w
                != diffx::nn::Mlp::new(&[4, 10, 3], diffx::nn::Activation::Tanh, 0).layers[0].w
        );
    } else {
        let e = cli::report(loaded.unwrap_err().as_ref());
        assert!(e.contains("--features serde"), "{e}");
    }
}

#[test]
fn a_file_that_is_not_a_saved_model_is_named() {
    let (plot, model) = (temp_path("svg"), temp_path("json"));
    std::fs::write(&model, r#"{"model": {"layers": []}}"#).unwrap();
    let argv = [
        "iris",
        "--plot",
        plot.to_str().unwrap(),
        "--load",
        model.to_str().unwrap(),
    ];
    let e = cli::report(
        iris::run(&iris::Args::try_parse_from(argv).unwrap())
            .unwrap_err()
            .as_ref(),
    );
    let expected = if cfg!(feature = "serde") {
        "not a model saved by --save"
    } else {
        "--features serde"
    };
    assert!(e.contains(expected), "{e}");
}
