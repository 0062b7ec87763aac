//! What the training examples share on the command line: argument parsers that refuse values which
//! would train nothing or train wrongly, checks made before training starts, and error reports that
//! print each error's message (and its causes, one a line) with exit code 1.

// Each example uses part of this module.
#![allow(dead_code)]

use std::error::Error;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use diffx::Tensor;

/// A learning rate: a finite number greater than 0 (a clap value parser).
pub fn learning_rate(s: &str) -> Result<f32, String> {
    let lr = number(s)?;
    if lr.is_finite() && lr > 0.0 {
        Ok(lr)
    } else {
        Err("expected a finite number greater than 0".to_string())
    }
}

/// A momentum: a finite number in `[0, 1)` (a clap value parser).
pub fn momentum(s: &str) -> Result<f32, String> {
    let mu = number(s)?;
    if (0.0..1.0).contains(&mu) {
        Ok(mu)
    } else {
        Err("expected a number in [0, 1)".to_string())
    }
}

fn number(s: &str) -> Result<f32, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("expected a number, found {s:?}"))
}

/// A count that must be at least 1 (epochs, hidden units, batch size): a clap value parser.
pub fn at_least_one(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("expected a whole number of at least 1".to_string()),
    }
}

/// Exit code 0 for `Ok`; for an error, prints [`report`] to standard error and returns 1.
pub fn exit_code(result: Result<(), Box<dyn Error>>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}", report(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}

/// `error: ` and the error's `Display` text, then a `caused by: ` line for each of its sources.
pub fn report(e: &dyn Error) -> String {
    let mut out = format!("error: {e}");
    let mut source = e.source();
    while let Some(cause) = source {
        out.push_str(&format!("\n  caused by: {cause}"));
        source = cause.source();
    }
    out
}

/// Something that could not be done with a path the user gave: names the path; the reason is the
/// source.
#[derive(Debug)]
pub struct PathError {
    what: &'static str,
    path: PathBuf,
    source: Box<dyn Error>,
}

impl PathError {
    /// `what` (e.g. "cannot write the loss curve to") failed on `path` because of `source`.
    pub fn new(what: &'static str, path: &Path, source: impl Into<Box<dyn Error>>) -> Self {
        PathError {
            what,
            path: path.to_path_buf(),
            source: source.into(),
        }
    }
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.what, self.path.display())
    }
}

impl Error for PathError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(self.source.as_ref())
    }
}

/// Checks, before any training, that a file can be written at `path` (creating its directory),
/// so that a bad path fails at once instead of after the whole run.
pub fn check_writable(path: &Path) -> Result<(), PathError> {
    let what = "cannot write the loss curve to";
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| PathError::new(what, path, e))?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map(drop)
        .map_err(|e| PathError::new(what, path, e))
}

/// The row and column of the first NaN or infinite element of a matrix, if there is one.
pub fn first_non_finite(x: &Tensor) -> Option<(usize, usize)> {
    let cols = x.cols().max(1);
    let at = x.data().iter().position(|v| !v.is_finite())?;
    Some((at / cols, at % cols))
}

/// An error unless every feature of `x` (the `what` set, after preprocessing) is finite: a NaN or
/// infinite feature would make the loss NaN, and the run would blame the learning rate.
pub fn check_finite(x: &Tensor, what: &str) -> Result<(), String> {
    match first_non_finite(x) {
        None => Ok(()),
        Some((row, col)) => Err(format!(
            "the {what} features are not all finite (row {row}, column {col} is {}): check the \
             data for extreme values",
            x.at(row, col)
        )),
    }
}

/// Why the loss became `loss` (NaN or infinite) in `epoch`: the features of the batch, if they are
/// not finite, else the learning rate.
pub fn diverged(loss: f32, epoch: usize, features: &Tensor) -> String {
    match check_finite(features, "training") {
        Err(data) => format!("the loss became {loss} in epoch {epoch}: {data}"),
        Ok(()) => format!("the loss became {loss} in epoch {epoch}: lower the learning rate"),
    }
}
