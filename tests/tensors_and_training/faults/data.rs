//! Data files: errors that name the file, the line and the column, never a panic or a dataset
//! that trains silently wrong.

use std::error::Error;
use std::path::Path;

use diffx::data::{self, read_csv, read_idx_images, CsvOptions, DataError};

use super::support::{file, TempFile};

fn iris_error(text: &str) -> (DataError, TempFile) {
    let path = file(text.as_bytes());
    (data::read_iris::<f32>(&path).unwrap_err(), path)
}

/// The error's text after the path.
fn after_path(e: &DataError, path: &Path) -> String {
    let text = e.to_string();
    let prefix = format!("{}: ", path.display());
    assert!(text.starts_with(&prefix), "{text}");
    text[prefix.len()..].to_string()
}

const HEADER: &str = "150,4,setosa,versicolor,virginica";

#[test]
fn line_numbers_for_lf_crlf_cr_and_blank_lines() {
    for end in ["\n", "\r\n", "\r"] {
        let rows = [
            HEADER,
            "5.1,3.5,1.4,0.2,0",
            "",
            "4.9,3.0,1.4,0.2,0",
            "4.7,x,1.3,0.2,0",
        ];
        let (e, path) = iris_error(&(rows.join(end) + end));
        assert_eq!(
            after_path(&e, &path),
            r#"line 5, column 2: expected a number, found "x""#,
            "{end:?}"
        );
        assert_eq!((e.line(), e.column()), (Some(5), Some(2)));
    }
}

#[test]
fn non_finite_features_are_errors_with_an_option_to_accept_them() {
    for (field, what) in [
        ("nan", "expected a finite number"),
        ("inf", "expected a finite number"),
        ("1e400", "too large for f32"),
        ("1e39", "too large for f32"),
    ] {
        let (e, path) = iris_error(&format!(
            "{HEADER}\n5.1,3.5,1.4,0.2,0\n5.1,{field},1.4,0.2,1\n"
        ));
        let text = after_path(&e, &path);
        assert!(text.starts_with("line 3, column 2: "), "{text}");
        assert!(text.contains(what) && text.contains(field), "{text}");
        assert!(text.contains("CsvOptions::allow_non_finite"), "{text}");
    }
    let path = file(b"a,b,label\nnan,1e39,0\n");
    let opts = CsvOptions {
        allow_non_finite: true,
        ..CsvOptions::default()
    };
    let ds = read_csv::<f32>(&path, &opts).unwrap();
    assert!(ds.features.data()[0].is_nan() && ds.features.data()[1].is_infinite());
}

#[test]
fn a_label_outside_the_classes_is_an_error_at_its_line() {
    let (e, path) = iris_error(&format!("{HEADER}\n5.1,3.5,1.4,0.2,0\n5.1,3.5,1.4,0.2,7\n"));
    assert_eq!(
        after_path(&e, &path),
        r#"line 3, column 5: expected a class label below 3 (the number of classes), found "7""#
    );
    // Without classes, any label loads.
    let path = file(b"a,label\n1,7\n");
    assert_eq!(
        read_csv::<f32>(&path, &CsvOptions::default())
            .unwrap()
            .labels,
        vec![7]
    );
}

#[test]
fn a_row_of_one_field_suggests_the_delimiter() {
    let (e, path) = iris_error(&format!("{HEADER}\n5.1;3.5;1.4;0.2;0\n"));
    let text = after_path(&e, &path);
    assert!(text.starts_with(r#"line 2, column 1: expected a class label (an integer ≥ 0), found "5.1;3.5;1.4;0.2;0""#), "{text}");
    assert!(
        text.ends_with(
            "if the file's fields are separated by ';', set CsvOptions::delimiter to b';'"
        ),
        "{text}"
    );
    let (e, path) = iris_error(&format!("{HEADER}\n5.1\t3.5\t1.4\t0.2\t0\n"));
    assert!(after_path(&e, &path).ends_with(r"set CsvOptions::delimiter to b'\t'"));
}

#[test]
fn display_does_not_repeat_the_source() {
    let e = read_csv::<f32>("/nonexistent/diffx.csv", &CsvOptions::default()).unwrap_err();
    assert_eq!(e.to_string(), "/nonexistent/diffx.csv: cannot read");
    let source = e
        .source()
        .expect("the operating system's reason")
        .to_string();
    assert!(!e.to_string().contains(&source), "{e} repeats {source}");
}

/// An IDX image file: magic, dimensions, data.
fn idx(dims: &[u32], data: &[u8]) -> Vec<u8> {
    let mut out = 0x0000_0803u32.to_be_bytes().to_vec();
    dims.iter().for_each(|d| out.extend(d.to_be_bytes()));
    out.extend(data);
    out
}

#[test]
fn idx_headers_with_huge_dimensions_are_errors() {
    // 2²² × 2²¹ × 2²¹ = 2⁶⁴ wraps to 0 in unchecked arithmetic, "fitting" an empty file.
    for dims in [[1 << 22, 1 << 21, 1 << 21], [u32::MAX; 3]] {
        let path = file(&idx(&dims, &[]));
        let e = read_idx_images::<f32>(&path).unwrap_err();
        assert!(
            after_path(&e, &path)
                .contains("multiply to more bytes of images than can be addressed"),
            "{e}"
        );
    }
    let path = file(&idx(&[2, 1 << 16, 1 << 16], &[0; 4]));
    let e = read_idx_images::<f32>(&path).unwrap_err();
    assert!(
        after_path(&e, &path).starts_with("truncated: expected 8589934592 bytes of images"),
        "{e}"
    );
}
