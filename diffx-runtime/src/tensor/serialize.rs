//! `serde` support (feature `serde`): a tensor is written as `{ "shape": [...], "data": [...] }`
//! (row-major), and read back only if the data fills the shape, so a damaged file is an error
//! that says so rather than a panic at the first operation.

use serde::de::Error as _;
use serde::ser::SerializeStruct as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Tensor;
use crate::Float;

impl<F: Float + Serialize> Serialize for Tensor<F> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Tensor", 2)?;
        s.serialize_field("shape", self.shape())?;
        s.serialize_field("data", self.data())?;
        s.end()
    }
}

/// What a tensor is read as, before its shape is checked against its data.
#[derive(Deserialize)]
#[serde(rename = "Tensor", deny_unknown_fields)]
struct Stored<F> {
    shape: Vec<usize>,
    data: Vec<F>,
}

impl<'de, F: Float + Deserialize<'de>> Deserialize<'de> for Tensor<F> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let Stored { shape, data } = Stored::deserialize(deserializer)?;
        Tensor::try_from_vec(data, &shape).map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_shape_and_bits() {
        let t = Tensor::<f64>::randn(&[3, 2], 5);
        let json = serde_json::to_string(&t).unwrap();
        assert!(json.starts_with(r#"{"shape":[3,2],"data":["#), "{json}");
        let back: Tensor<f64> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, t);
        let scalar: Tensor<f32> = serde_json::from_str(r#"{"shape":[],"data":[2.5]}"#).unwrap();
        assert_eq!(scalar, Tensor::scalar(2.5));
    }

    #[test]
    fn data_that_does_not_fill_the_shape_is_an_error() {
        let e = serde_json::from_str::<Tensor<f32>>(r#"{"shape":[2,2],"data":[1,2,3]}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("3") && e.contains("[2, 2]"), "{e}");
        let e = serde_json::from_str::<Tensor<f32>>(r#"{"shape":[2],"data":[1,2],"x":0}"#);
        assert!(e.unwrap_err().to_string().contains("unknown field `x`"));
    }
}
