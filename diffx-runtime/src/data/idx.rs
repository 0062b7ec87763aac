//! MNIST's IDX format: a big-endian header (magic number `0x0000_08NN`, where `08` means unsigned
//! bytes and `NN` is the number of dimensions, then one `u32` size per dimension), then the bytes.

use std::path::Path;

use super::{DataError, Dataset};
use crate::{Float, Tensor};

const IMAGES_MAGIC: u32 = 0x0000_0803;
const LABELS_MAGIC: u32 = 0x0000_0801;

/// Reads an IDX image file (`n` images of `rows × cols` bytes) into an `[n, rows·cols]` tensor,
/// one flattened image per row, with pixels scaled from `0..=255` to `[0, 1]`.
///
/// # Errors
/// A missing file, a wrong magic number, or a file shorter or longer than its header says.
pub fn read_idx_images<F: Float>(path: impl AsRef<Path>) -> Result<Tensor<F>, DataError> {
    let path = path.as_ref();
    let (dims, bytes) = read_idx(path, IMAGES_MAGIC, "images")?;
    let pixels = bytes
        .iter()
        .map(|&b| F::of_f64(f64::from(b) / 255.0))
        .collect();
    // `read_idx` checked that the product of all dimensions fits, so this one does too.
    Ok(Tensor::from_vec(pixels, &[dims[0], dims[1] * dims[2]]))
}

/// Reads an IDX label file (`n` bytes, one class per example).
///
/// # Errors
/// A missing file, a wrong magic number, or a file shorter or longer than its header says.
pub fn read_idx_labels(path: impl AsRef<Path>) -> Result<Vec<usize>, DataError> {
    let (_, bytes) = read_idx(path.as_ref(), LABELS_MAGIC, "labels")?;
    Ok(bytes.iter().map(|&b| usize::from(b)).collect())
}

/// MNIST's training and test sets.
#[derive(Clone, Debug, PartialEq)]
pub struct Mnist<F: Float = f32> {
    /// 60 000 images of 784 pixels in `[0, 1]`, with labels.
    pub train: Dataset<F>,
    /// 10 000 images, with labels.
    pub test: Dataset<F>,
}

/// Loads MNIST from the four standard (uncompressed) files in `dir`: `train-images-idx3-ubyte`,
/// `train-labels-idx1-ubyte`, `t10k-images-idx3-ubyte`, `t10k-labels-idx1-ubyte`.
///
/// # Errors
/// Any error of the readers, or image and label files of different lengths.
pub fn mnist<F: Float>(dir: impl AsRef<Path>) -> Result<Mnist<F>, DataError> {
    let dir = dir.as_ref();
    let pair = |images: &str, labels: &str| -> Result<Dataset<F>, DataError> {
        let features = read_idx_images(dir.join(images))?;
        let labels_path = dir.join(labels);
        let labels = read_idx_labels(&labels_path)?;
        if labels.len() != features.rows() {
            let msg = format!(
                "expected {} labels like {images}, found {}",
                features.rows(),
                labels.len()
            );
            return Err(DataError::new(&labels_path, msg));
        }
        Ok(Dataset { features, labels })
    };
    Ok(Mnist {
        train: pair("train-images-idx3-ubyte", "train-labels-idx1-ubyte")?,
        test: pair("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")?,
    })
}

/// The dimensions and the data bytes of an IDX file, checked against `magic`: the header's
/// dimensions multiply (in checked arithmetic) to the number of bytes after it.
fn read_idx(path: &Path, magic: u32, what: &str) -> Result<(Vec<usize>, Vec<u8>), DataError> {
    let bytes =
        std::fs::read(path).map_err(|e| DataError::new(path, "cannot read").caused_by(e))?;
    let word = |i: usize| {
        bytes
            .get(4 * i..4 * i + 4)
            .map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
    };
    let found =
        word(0).ok_or_else(|| DataError::new(path, "truncated: expected a 4-byte magic number"))?;
    if found != magic {
        let msg =
            format!("expected the IDX {what} magic number {magic:#010x}, found {found:#010x}");
        return Err(DataError::new(path, msg));
    }
    let ndim = (magic & 0xff) as usize;
    let dims: Vec<usize> = (1..=ndim)
        .map(|i| word(i).map(|d| d as usize))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            DataError::new(
                path,
                format!("truncated: expected {ndim} dimensions in the header"),
            )
        })?;
    let header = 4 * (ndim + 1);
    let shape = dims
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(" × ");
    let Some(expected) = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d)) else {
        let msg = format!(
            "the header's dimensions {shape} multiply to more bytes of {what} than can be addressed"
        );
        return Err(DataError::new(path, msg));
    };
    let found = bytes.len() - header;
    if found != expected {
        let kind = if found < expected {
            "truncated"
        } else {
            "too long"
        };
        let msg = format!(
            "{kind}: expected {expected} bytes of {what} ({shape}) after the header, found {found}"
        );
        return Err(DataError::new(path, msg));
    }
    Ok((dims, bytes[header..].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idx(magic: u32, dims: &[u32], data: &[u8]) -> Vec<u8> {
        let mut out = magic.to_be_bytes().to_vec();
        dims.iter().for_each(|d| out.extend(d.to_be_bytes()));
        out.extend(data);
        out
    }

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn reads_images_and_labels() {
        let dir = tempfile::tempdir().unwrap();
        let images = write(
            dir.path(),
            "i",
            &idx(IMAGES_MAGIC, &[2, 2, 2], &[0, 255, 51, 102, 0, 0, 0, 255]),
        );
        let t: Tensor<f64> = read_idx_images(&images).unwrap();
        assert_eq!(t.shape(), &[2, 4]);
        assert_eq!(t.data(), &[0.0, 1.0, 0.2, 0.4, 0.0, 0.0, 0.0, 1.0]);
        let labels = write(dir.path(), "l", &idx(LABELS_MAGIC, &[3], &[7, 0, 9]));
        assert_eq!(read_idx_labels(&labels).unwrap(), vec![7, 0, 9]);
    }

    #[test]
    fn bad_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let short = write(
            dir.path(),
            "short",
            &idx(IMAGES_MAGIC, &[2, 2, 2], &[1, 2, 3]),
        );
        let e = read_idx_images::<f32>(&short).unwrap_err().to_string();
        assert!(
            e.ends_with(
                "truncated: expected 8 bytes of images (2 × 2 × 2) after the header, found 3"
            ),
            "{e}"
        );
        let labels = write(dir.path(), "labels", &idx(LABELS_MAGIC, &[1], &[1]));
        let e = read_idx_images::<f32>(&labels).unwrap_err().to_string();
        assert!(
            e.ends_with("expected the IDX images magic number 0x00000803, found 0x00000801"),
            "{e}"
        );
        let header = write(dir.path(), "header", &IMAGES_MAGIC.to_be_bytes()[..]);
        let e = read_idx_images::<f32>(&header).unwrap_err().to_string();
        assert!(
            e.ends_with("truncated: expected 3 dimensions in the header"),
            "{e}"
        );
        let long = write(dir.path(), "long", &idx(LABELS_MAGIC, &[1], &[1, 2]));
        assert!(read_idx_labels(&long)
            .unwrap_err()
            .to_string()
            .contains("too long"));
        assert!(read_idx_labels(dir.path().join("missing"))
            .unwrap_err()
            .to_string()
            .contains("cannot read"));
    }

    #[test]
    fn huge_header_dimensions_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        // 2²² × 2³¹ × 2³¹ = 2⁸⁴ bytes: the product overflows a usize (and 2⁶⁴ would wrap to 0).
        let huge = [1 << 22, 1 << 31, 1 << 31];
        for data in [&[][..], &[1, 2, 3]] {
            let path = write(dir.path(), "huge", &idx(IMAGES_MAGIC, &huge, data));
            let e = read_idx_images::<f32>(&path).unwrap_err().to_string();
            assert!(
                e.ends_with("the header's dimensions 4194304 × 2147483648 × 2147483648 multiply to more bytes of images than can be addressed"),
                "{e}"
            );
        }
        let wraps = write(
            dir.path(),
            "wraps",
            &idx(IMAGES_MAGIC, &[1 << 16, 1 << 24, 1 << 24], &[]),
        );
        assert!(read_idx_images::<f32>(&wraps).is_err());
    }

    #[test]
    fn mnist_pairs_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(
            d,
            "train-images-idx3-ubyte",
            &idx(IMAGES_MAGIC, &[2, 1, 1], &[0, 255]),
        );
        write(
            d,
            "train-labels-idx1-ubyte",
            &idx(LABELS_MAGIC, &[2], &[3, 4]),
        );
        write(
            d,
            "t10k-images-idx3-ubyte",
            &idx(IMAGES_MAGIC, &[1, 1, 1], &[255]),
        );
        write(
            d,
            "t10k-labels-idx1-ubyte",
            &idx(LABELS_MAGIC, &[2], &[5, 6]),
        );
        let e = mnist::<f32>(d).unwrap_err().to_string();
        assert!(
            e.ends_with("expected 1 labels like t10k-images-idx3-ubyte, found 2"),
            "{e}"
        );
        write(d, "t10k-labels-idx1-ubyte", &idx(LABELS_MAGIC, &[1], &[5]));
        let m = mnist::<f32>(d).unwrap();
        assert_eq!((m.train.labels, m.test.labels), (vec![3, 4], vec![5]));
        assert_eq!(m.train.features.data(), &[0.0, 1.0]);
    }
}
