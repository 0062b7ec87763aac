//! CSV files of numeric features and an integer class label per row.

use std::path::Path;

use super::{DataError, Dataset};
use crate::{Float, Tensor};

/// How [`read_csv`] reads a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvOptions {
    /// Whether the first line is a header (skipped, whatever it holds).
    pub header: bool,
    /// The 0-based column of the class label; `None` means the last column.
    pub label_column: Option<usize>,
    /// The field separator.
    pub delimiter: u8,
}

impl Default for CsvOptions {
    /// A header line, the label in the last column, comma-separated.
    fn default() -> Self {
        CsvOptions {
            header: true,
            label_column: None,
            delimiter: b',',
        }
    }
}

/// Reads a CSV file whose rows are numeric features and one class label (a non-negative integer).
///
/// Never panics on bad input: a missing file, a field that is not a number, a row with another
/// number of fields than the first, or an empty file is a [`DataError`] naming the file, the
/// line and column, and what was expected. Numbers are parsed as `f64` and rounded to `F`.
///
/// ```
/// use diffx_runtime::data::{read_csv, CsvOptions, Dataset};
/// let path = std::env::temp_dir().join(format!("diffx-doc-{}.csv", std::process::id()));
/// std::fs::write(&path, "a,b,label\n1.5,2,0\n3,4.25,1\n").unwrap();
/// let ds: Dataset<f64> = read_csv(&path, &CsvOptions::default()).unwrap();
/// assert_eq!(ds.features.data(), &[1.5, 2.0, 3.0, 4.25]);
/// assert_eq!(ds.labels, vec![0, 1]);
///
/// std::fs::write(&path, "a,b,label\n1.5,x,0\n").unwrap();
/// let err = read_csv::<f32>(&path, &CsvOptions::default()).unwrap_err();
/// assert!(err.to_string().ends_with(r#"line 2, column 2: expected a number, found "x""#));
/// # std::fs::remove_file(&path).unwrap();
/// ```
pub fn read_csv<F: Float>(
    path: impl AsRef<Path>,
    opts: &CsvOptions,
) -> Result<Dataset<F>, DataError> {
    let path = path.as_ref();
    let file = std::fs::File::open(path)
        .map_err(|e| DataError::new(path, format!("cannot open: {e}")).caused_by(e))?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(opts.header)
        .delimiter(opts.delimiter)
        .flexible(true) // ragged rows are reported below, with the expected count
        .from_reader(file);
    let mut rows = Rows {
        path,
        width: None,
        features: Vec::new(),
        labels: Vec::new(),
    };
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(path, e))?;
        rows.push(&record, opts.label_column)?;
    }
    rows.finish()
}

/// The rows read so far.
struct Rows<'a, F> {
    path: &'a Path,
    width: Option<usize>,
    features: Vec<F>,
    labels: Vec<usize>,
}

impl<F: Float> Rows<'_, F> {
    fn push(
        &mut self,
        record: &csv::StringRecord,
        label_column: Option<usize>,
    ) -> Result<(), DataError> {
        let line = record.position().map_or(0, |p| p.line());
        let width = *self.width.get_or_insert(record.len());
        if record.len() != width {
            let msg = format!(
                "expected {width} fields like the first row, found {}",
                record.len()
            );
            return Err(DataError::new(self.path, msg).at(line, None));
        }
        let label_at = label_column.unwrap_or(width.saturating_sub(1));
        if label_at >= width {
            let msg = format!(
                "expected a label in column {}, but rows have {width} fields",
                label_at + 1
            );
            return Err(DataError::new(self.path, msg).at(line, None));
        }
        for (j, field) in record.iter().enumerate() {
            let at = |what: &str| {
                DataError::new(self.path, format!("expected {what}, found {field:?}"))
                    .at(line, Some(j + 1))
            };
            if j == label_at {
                self.labels.push(
                    field
                        .trim()
                        .parse()
                        .map_err(|_| at("a class label (an integer ≥ 0)"))?,
                );
            } else {
                let x: f64 = field.trim().parse().map_err(|_| at("a number"))?;
                self.features.push(F::from_f64(x));
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<Dataset<F>, DataError> {
        let n = self.labels.len();
        if n == 0 {
            return Err(DataError::new(self.path, "expected data rows, found none"));
        }
        let features = Tensor::from_vec(self.features, &[n, self.width.unwrap_or(1) - 1]);
        Ok(Dataset {
            features,
            labels: self.labels,
        })
    }
}

fn csv_error(path: &Path, e: csv::Error) -> DataError {
    let line = e.position().map(|p| p.line());
    let err = DataError::new(path, e.to_string());
    match line {
        Some(line) => err.at(line, None),
        None => err,
    }
    .caused_by(e)
}

/// Iris as scikit-learn ships it (`data/iris.csv`): a header line `150,4,setosa,versicolor,virginica`
/// (sample count, feature count, class names), then 150 rows of 4 features and a label 0, 1 or 2.
/// Also reads the same data with a header of column names.
///
/// # Errors
/// Any [`read_csv`] error, or a file without 4 feature columns.
pub fn iris<F: Float>(path: impl AsRef<Path>) -> Result<Dataset<F>, DataError> {
    with_features(path.as_ref(), 4)
}

/// Digits (scikit-learn's 8×8 handwritten digits, `data/digits.csv`): a header `p0,…,p63,label`,
/// then 1797 rows of 64 pixel intensities 0..=16 and a label 0..=9.
///
/// # Errors
/// Any [`read_csv`] error, or a file without 64 feature columns.
pub fn digits<F: Float>(path: impl AsRef<Path>) -> Result<Dataset<F>, DataError> {
    with_features(path.as_ref(), 64)
}

fn with_features<F: Float>(path: &Path, expected: usize) -> Result<Dataset<F>, DataError> {
    let ds = read_csv(path, &CsvOptions::default())?;
    let found = ds.features.cols();
    if found != expected {
        let msg = format!(
            "expected {expected} feature columns and a label, found {found} feature columns"
        );
        return Err(DataError::new(path, msg));
    }
    Ok(ds)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `text` to a fresh file in a temporary directory.
    fn file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    fn error(text: &str, opts: &CsvOptions) -> String {
        let (_dir, path) = file(text);
        let e = read_csv::<f32>(&path, opts).unwrap_err();
        let s = e.to_string();
        assert!(s.starts_with(&path.display().to_string()), "{s}");
        s[path.display().to_string().len() + 2..].to_string()
    }

    #[test]
    fn reads_header_and_label_column() {
        let (_dir, path) = file("x,label,y\n1,2,3\n4,0,6\n");
        let opts = CsvOptions {
            label_column: Some(1),
            ..CsvOptions::default()
        };
        let ds: Dataset<f64> = read_csv(&path, &opts).unwrap();
        assert_eq!(ds.features, Tensor::from_rows(&[&[1.0, 3.0], &[4.0, 6.0]]));
        assert_eq!(ds.labels, vec![2, 0]);
        let (_dir, path) = file("1;0\n2;1\n");
        let opts = CsvOptions {
            header: false,
            delimiter: b';',
            ..CsvOptions::default()
        };
        assert_eq!(read_csv::<f32>(&path, &opts).unwrap().labels, vec![0, 1]);
    }

    #[test]
    fn malformed_files_name_line_and_column() {
        let d = CsvOptions::default();
        let e = error("a,b,c,label\n1,2,3,0\n1,2,3,0\n1,2,abc,0\n", &d);
        assert_eq!(e, r#"line 4, column 3: expected a number, found "abc""#);
        assert_eq!(
            error("a,b,label\n1,2,0\n1,2\n", &d),
            "line 3: expected 3 fields like the first row, found 2"
        );
        assert_eq!(
            error("a,label\n1,-1\n", &d),
            r#"line 2, column 2: expected a class label (an integer ≥ 0), found "-1""#
        );
        assert_eq!(error("a,label\n", &d), "expected data rows, found none");
        let opts = CsvOptions {
            label_column: Some(5),
            ..CsvOptions::default()
        };
        assert_eq!(
            error("a,b\n1,2\n", &opts),
            "line 2: expected a label in column 6, but rows have 2 fields"
        );
    }

    #[test]
    fn missing_file() {
        let e = read_csv::<f32>("/nonexistent/diffx.csv", &CsvOptions::default()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/nonexistent/diffx.csv: cannot open: "),
            "{e}"
        );
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn shipped_iris_and_digits() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
        let iris: Dataset = iris(root.join("iris.csv")).unwrap();
        assert_eq!(iris.features.shape(), &[150, 4]);
        assert_eq!(iris.features.row(0), &[5.1, 3.5, 1.4, 0.2]);
        assert_eq!(
            (0..3)
                .map(|c| iris.labels.iter().filter(|&&l| l == c).count())
                .collect::<Vec<_>>(),
            [50; 3]
        );
        let digits: Dataset = digits(root.join("digits.csv")).unwrap();
        assert_eq!(digits.features.shape(), &[1797, 64]);
        assert_eq!(digits.num_classes(), 10);
        let e = super::digits::<f32>(root.join("iris.csv"))
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("expected 64 feature columns and a label, found 4 feature columns"),
            "{e}"
        );
    }
}
