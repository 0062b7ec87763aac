//! CSV files of numeric features and an integer class label per row.
//!
//! The `csv` crate splits the records; the line numbers in errors are counted here, from each
//! record's byte offset, so that they are right for LF, CRLF and CR-only files and after blank
//! lines.

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
    /// The number of classes, if known: a label at or above it is an error naming its line.
    pub classes: Option<usize>,
    /// Whether features may be NaN or infinite (`nan`, `inf`, or a number too large for the float
    /// type, such as `1e39` for `f32`). By default such a field is an error naming its line and
    /// column: it would make the loss NaN without saying why.
    pub allow_non_finite: bool,
}

impl Default for CsvOptions {
    /// A header line, the label in the last column, comma-separated, any class label, finite
    /// features only.
    fn default() -> Self {
        CsvOptions {
            header: true,
            label_column: None,
            delimiter: b',',
            classes: None,
            allow_non_finite: false,
        }
    }
}

/// Reads a CSV file whose rows are numeric features and one class label (a non-negative integer).
///
/// Never panics on bad input: a missing file, a field that is not a number, a feature that is
/// not finite (unless [`CsvOptions::allow_non_finite`]), a label not below
/// [`CsvOptions::classes`], a row with another number of fields than the first, or an empty
/// file is a [`DataError`] naming the file, the line and column, and what was expected (and, for a
/// row that is one field holding another separator, the [`CsvOptions::delimiter`] to set).
/// Numbers are parsed as `f64` and rounded to `F`.
///
/// ```
/// use diffx::data::{read_csv, CsvOptions, Dataset};
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
    parse_csv(path, &read_file(path)?, opts)
}

/// The bytes of `path`, or an error naming it.
fn read_file(path: &Path) -> Result<Vec<u8>, DataError> {
    std::fs::read(path).map_err(|e| DataError::new(path, "cannot read").caused_by(e))
}

/// [`read_csv`] of text already in memory; `path` names it in errors.
fn parse_csv<F: Float>(
    path: &Path,
    bytes: &[u8],
    opts: &CsvOptions,
) -> Result<Dataset<F>, DataError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(opts.header)
        .delimiter(opts.delimiter)
        .flexible(true) // ragged rows are reported below, with the expected count
        .from_reader(bytes);
    let mut lines = Lines::new(bytes);
    let mut rows = Rows {
        path,
        opts,
        width: None,
        features: Vec::new(),
        labels: Vec::new(),
    };
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(csv_error(path, &mut lines, e)),
        }
        let line = lines.at(record.position().map_or(0, csv::Position::byte));
        rows.push(&record, line)?;
    }
    rows.finish()
}

/// Line numbers of byte offsets, for offsets visited in increasing order: counts the line ends
/// (LF, CRLF or a lone CR, as the `csv` crate splits records) since the previous offset.
struct Lines<'a> {
    bytes: &'a [u8],
    offset: usize,
    line: u64,
}

impl<'a> Lines<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Lines {
            bytes,
            offset: 0,
            line: 1,
        }
    }

    /// The 1-based line of the record whose position is `offset` (not before the previous
    /// call's). The `csv` crate's offset may point at line ends before the record (the LF of a
    /// CRLF, blank lines it skipped): the record starts after them.
    fn at(&mut self, offset: u64) -> u64 {
        let mut end = usize::try_from(offset).map_or(self.bytes.len(), |o| o.min(self.bytes.len()));
        while matches!(self.bytes.get(end), Some(b'\r' | b'\n')) {
            end += 1;
        }
        if end > self.offset {
            let ends = self.bytes[self.offset..end]
                .iter()
                .enumerate()
                .filter(|&(i, &b)| {
                    let next = self.bytes.get(self.offset + i + 1);
                    b == b'\n' || (b == b'\r' && next != Some(&b'\n'))
                })
                .count();
            self.line += ends as u64;
            self.offset = end;
        }
        self.line
    }
}

/// The rows read so far.
struct Rows<'a, F> {
    path: &'a Path,
    opts: &'a CsvOptions,
    width: Option<usize>,
    features: Vec<F>,
    labels: Vec<usize>,
}

impl<F: Float> Rows<'_, F> {
    fn push(&mut self, record: &csv::StringRecord, line: u64) -> Result<(), DataError> {
        let width = *self.width.get_or_insert(record.len());
        if record.len() != width {
            let msg = format!(
                "expected {width} fields like the first row, found {}",
                record.len()
            );
            return Err(DataError::new(self.path, msg).at(line, None));
        }
        let label_at = self.opts.label_column.unwrap_or(width.saturating_sub(1));
        if label_at >= width {
            let msg = format!(
                "expected a label in column {}, but rows have {width} fields",
                label_at + 1
            );
            return Err(DataError::new(self.path, msg).at(line, None));
        }
        for (j, field) in record.iter().enumerate() {
            let parsed = if j == label_at {
                self.label(field).map(|l| self.labels.push(l))
            } else {
                self.feature(field).map(|x| self.features.push(x))
            };
            if let Err(mut msg) = parsed {
                if record.len() == 1 {
                    msg.push_str(&delimiter_hint(field, self.opts.delimiter));
                }
                return Err(DataError::new(self.path, msg).at(line, Some(j + 1)));
            }
        }
        Ok(())
    }

    /// A class label, or what is wrong with the field.
    fn label(&self, field: &str) -> Result<usize, String> {
        let Ok(label) = field.trim().parse::<usize>() else {
            return Err(format!(
                "expected a class label (an integer ≥ 0), found {field:?}"
            ));
        };
        match self.opts.classes {
            Some(classes) if label >= classes => Err(format!(
                "expected a class label below {classes} (the number of classes), found {field:?}"
            )),
            _ => Ok(label),
        }
    }

    /// A feature, or what is wrong with the field.
    fn feature(&self, field: &str) -> Result<F, String> {
        let Ok(x) = field.trim().parse::<f64>() else {
            return Err(format!("expected a number, found {field:?}"));
        };
        let rounded = F::of_f64(x);
        if self.opts.allow_non_finite || rounded.as_f64().is_finite() {
            return Ok(rounded);
        }
        let accept = "CsvOptions::allow_non_finite accepts it";
        let written = field
            .trim()
            .trim_start_matches(['+', '-'])
            .to_ascii_lowercase();
        if matches!(written.as_str(), "nan" | "inf" | "infinity") {
            Err(format!(
                "expected a finite number, found {field:?} ({accept})"
            ))
        } else {
            let float = core::any::type_name::<F>();
            Err(format!(
                "the number {field:?} is too large for {float}, where it would be infinite ({accept})"
            ))
        }
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

/// For a row read as one field: if the field holds another common separator, a hint to set it.
fn delimiter_hint(field: &str, delimiter: u8) -> String {
    let found = [
        (';', "b';'"),
        ('\t', "b'\\t'"),
        (',', "b','"),
        ('|', "b'|'"),
    ]
    .into_iter()
    .find(|&(c, _)| c as u32 != u32::from(delimiter) && field.contains(c));
    match found {
        Some((c, literal)) => format!(
            "; the row is one field: if the file's fields are separated by {c:?}, set \
             CsvOptions::delimiter to {literal}"
        ),
        None => String::new(),
    }
}

/// A `csv` error as a [`DataError`] at the line (counted by `lines`) where it applies.
fn csv_error(path: &Path, lines: &mut Lines<'_>, e: csv::Error) -> DataError {
    let line = e.position().map(|p| lines.at(p.byte()));
    let err = match e.kind() {
        csv::ErrorKind::Utf8 { err, .. } => {
            let column = err.field() + 1;
            let (line, utf8) = (line.unwrap_or(1), err.clone());
            return DataError::new(path, "expected UTF-8 text")
                .at(line, Some(column))
                .caused_by(utf8);
        }
        _ => DataError::new(path, "cannot read as CSV"),
    };
    match line {
        Some(line) => err.at(line, None),
        None => err,
    }
    .caused_by(e)
}

/// The Iris data set, bundled with the crate: no file to find. 150 flowers, 4 features (sepal
/// length and width, petal length and width, in cm) and a label 0, 1 or 2 (setosa, versicolor,
/// virginica), in the order of scikit-learn's `load_iris` (Fisher's 1936 values, as R's `iris`).
///
/// ```
/// use diffx::data;
/// let iris = data::iris::<f64>();
/// assert_eq!(iris.features.shape(), &[150, 4]);
/// assert_eq!(iris.features.data()[..4], [5.1, 3.5, 1.4, 0.2]);
/// assert_eq!(iris.num_classes(), 3);
/// ```
pub fn iris<F: Float>() -> Dataset<F> {
    let path = Path::new("iris.csv (bundled)");
    // The bundled file is checked by this crate's tests; it cannot fail to parse.
    parse_with_features(path, IRIS_CSV, 4, 3).unwrap_or_else(|e| panic!("{e}"))
}

/// scikit-learn's `iris.csv`, byte for byte: a header `150,4,setosa,versicolor,virginica`, then
/// the rows.
const IRIS_CSV: &[u8] = include_bytes!("iris.csv");

/// Iris read from a file in scikit-learn's layout (a header line `150,4,setosa,versicolor,virginica`
/// — sample count, feature count, class names — then rows of 4 features and a label 0, 1 or 2),
/// or with a header of column names. [`iris`] needs no file.
///
/// # Errors
/// Any [`read_csv`] error (a label other than 0, 1 or 2 is one), or a file without 4 feature
/// columns.
pub fn read_iris<F: Float>(path: impl AsRef<Path>) -> Result<Dataset<F>, DataError> {
    with_features(path.as_ref(), 4, 3)
}

/// Digits (scikit-learn's 8×8 handwritten digits, `data/digits.csv` in the repository): a header
/// `p0,…,p63,label`, then 1797 rows of 64 pixel intensities 0..=16 and a label 0..=9.
///
/// # Errors
/// Any [`read_csv`] error (a label above 9 is one), or a file without 64 feature columns.
pub fn read_digits<F: Float>(path: impl AsRef<Path>) -> Result<Dataset<F>, DataError> {
    with_features(path.as_ref(), 64, 10)
}

/// A dataset of `expected` features and labels below `classes`, read from `path`.
fn with_features<F: Float>(
    path: &Path,
    expected: usize,
    classes: usize,
) -> Result<Dataset<F>, DataError> {
    parse_with_features(path, &read_file(path)?, expected, classes)
}

/// [`with_features`] of text in memory.
fn parse_with_features<F: Float>(
    path: &Path,
    bytes: &[u8],
    expected: usize,
    classes: usize,
) -> Result<Dataset<F>, DataError> {
    let opts = CsvOptions {
        classes: Some(classes),
        ..CsvOptions::default()
    };
    let ds = parse_csv(path, bytes, &opts)?;
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
    fn line_numbers_for_every_line_end_and_after_blank_lines() {
        let d = CsvOptions::default();
        for end in ["\n", "\r\n", "\r"] {
            let text = ["a,label", "", "1,0", "", "", "2,1", "x,0", "3,1"].join(end) + end;
            assert_eq!(
                error(&text, &d),
                r#"line 7, column 1: expected a number, found "x""#,
                "line end {end:?}"
            );
            let ragged = ["a,b,label", "1,2,0", "", "1,2"].join(end);
            assert_eq!(
                error(&ragged, &d),
                "line 4: expected 3 fields like the first row, found 2",
                "line end {end:?}"
            );
        }
        // A quoted field spanning lines moves the next record's line on.
        let quoted = "a,label\n\"1\n\",0\n2,1\ny,0\n";
        assert_eq!(
            error(quoted, &CsvOptions::default()),
            r#"line 5, column 1: expected a number, found "y""#
        );
    }

    #[test]
    fn non_finite_and_overflowing_numbers_are_errors_unless_allowed() {
        let d = CsvOptions::default();
        let accept = "(CsvOptions::allow_non_finite accepts it)";
        for field in ["nan", "NaN", "inf", "-inf", "+Infinity"] {
            assert_eq!(
                error(&format!("a,b,label\n1,2,0\n3,{field},1\n"), &d),
                format!("line 3, column 2: expected a finite number, found {field:?} {accept}")
            );
        }
        assert_eq!(
            error("a,label\n1e400,0\n", &d),
            format!(
                r#"line 2, column 1: the number "1e400" is too large for f64, where it would be infinite {accept}"#
            )
            .replace("f64", "f32")
        );
        let (_dir, path) = file("a,label\n1e39,0\n");
        let e = read_csv::<f32>(&path, &d).unwrap_err().to_string();
        assert!(e.ends_with(&format!("line 2, column 1: the number \"1e39\" is too large for f32, where it would be infinite {accept}")), "{e}");
        assert_eq!(read_csv::<f64>(&path, &d).unwrap().features.data(), &[1e39]);
        let allow = CsvOptions {
            allow_non_finite: true,
            ..CsvOptions::default()
        };
        let (_dir, path) = file("a,b,label\nnan,1e39,0\n");
        let ds = read_csv::<f32>(&path, &allow).unwrap();
        assert!(ds.features.data()[0].is_nan() && ds.features.data()[1] == f32::INFINITY);
    }

    #[test]
    fn labels_of_a_dataset_that_knows_its_classes() {
        let opts = CsvOptions {
            classes: Some(3),
            ..CsvOptions::default()
        };
        assert_eq!(
            error("a,label\n1,2\n1,0\n1,7\n", &opts),
            r#"line 4, column 2: expected a class label below 3 (the number of classes), found "7""#
        );
        let (_dir, path) = file("a,b,c,d,label\n5.1,3.5,1.4,0.2,7\n");
        let e = read_iris::<f32>(&path).unwrap_err().to_string();
        assert!(e.ends_with(r#"line 2, column 5: expected a class label below 3 (the number of classes), found "7""#), "{e}");
    }

    #[test]
    fn a_row_of_one_field_suggests_the_delimiter() {
        let d = CsvOptions::default();
        assert_eq!(
            error("a;b;label\n5.1;3.5;0\n", &d),
            r#"line 2, column 1: expected a class label (an integer ≥ 0), found "5.1;3.5;0"; the row is one field: if the file's fields are separated by ';', set CsvOptions::delimiter to b';'"#
        );
        assert_eq!(
            error("a\tlabel\n5.1\t0\n", &d),
            r#"line 2, column 1: expected a class label (an integer ≥ 0), found "5.1\t0"; the row is one field: if the file's fields are separated by '\t', set CsvOptions::delimiter to b'\t'"#
        );
        let semi = CsvOptions {
            delimiter: b';',
            ..CsvOptions::default()
        };
        assert!(error("a,label\n1,0\n", &semi).ends_with("set CsvOptions::delimiter to b','"));
        // A one-field row that is simply wrong gets no hint.
        assert_eq!(
            error("label\nx\n", &d),
            r#"line 2, column 1: expected a class label (an integer ≥ 0), found "x""#
        );
    }

    #[test]
    fn invalid_utf8_names_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        std::fs::write(&path, b"a,label\r\n1,0\r\n2,\xff\r\n").unwrap();
        let e = read_csv::<f32>(&path, &CsvOptions::default()).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("line 3, column 2: expected UTF-8 text"),
            "{e}"
        );
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn missing_file() {
        let e = read_csv::<f32>("/nonexistent/diffx.csv", &CsvOptions::default()).unwrap_err();
        assert!(
            e.to_string() == "/nonexistent/diffx.csv: cannot read",
            "{e}"
        );
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn shipped_iris_and_digits() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
        let iris: Dataset = iris();
        assert_eq!(iris.features.shape(), &[150, 4]);
        // The bundled copy is the repository's data file.
        let file: Dataset = read_iris(root.join("iris.csv")).unwrap();
        assert_eq!(
            (&file.features, &file.labels),
            (&iris.features, &iris.labels)
        );
        assert_eq!(iris.features.row(0), &[5.1, 3.5, 1.4, 0.2]);
        assert_eq!(
            (0..3)
                .map(|c| iris.labels.iter().filter(|&&l| l == c).count())
                .collect::<Vec<_>>(),
            [50; 3]
        );
        let digits: Dataset = read_digits(root.join("digits.csv")).unwrap();
        assert_eq!(digits.features.shape(), &[1797, 64]);
        assert_eq!(digits.num_classes(), 10);
        let e = read_digits::<f32>(root.join("iris.csv"))
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with("expected 64 feature columns and a label, found 4 feature columns"),
            "{e}"
        );
    }
}
