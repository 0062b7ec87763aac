//! [`DataError`]: what went wrong reading a data file, and where.

use core::fmt;
use std::path::{Path, PathBuf};

/// A data file that could not be read: names the file, the line and column where known, and what
/// was expected, e.g. `data/iris.csv: line 7, column 3: expected a number, found "abc"`.
///
/// Where another error caused it (the operating system's reason a file cannot be read), that
/// error is its [`source`](std::error::Error::source), and `Display` does not repeat it: print
/// the chain of sources to show both, e.g. `data/iris.csv: cannot read` then `No such file or
/// directory (os error 2)`.
#[derive(Debug)]
pub struct DataError {
    path: PathBuf,
    line: Option<u64>,
    column: Option<usize>,
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl DataError {
    pub(crate) fn new(path: &Path, message: impl Into<String>) -> Self {
        DataError {
            path: path.to_path_buf(),
            line: None,
            column: None,
            message: message.into(),
            source: None,
        }
    }

    pub(crate) fn at(mut self, line: u64, column: Option<usize>) -> Self {
        self.line = Some(line);
        self.column = column;
        self
    }

    pub(crate) fn caused_by(
        mut self,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The 1-based line, for text files.
    pub fn line(&self) -> Option<u64> {
        self.line
    }

    /// The 1-based column (field), for CSV files.
    pub fn column(&self) -> Option<usize> {
        self.column
    }
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.path.display())?;
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, "line {line}, column {column}: ")?,
            (Some(line), None) => write!(f, "line {line}: ")?,
            _ => {}
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for DataError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}
