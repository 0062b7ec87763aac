//! `serde` support for layers (feature `serde`): a layer or network is read back only if its
//! tensors fit together, so a damaged or mismatched file is an error naming the layer, not a
//! panic at the first forward pass.

use serde::Deserialize;

use super::{Activation, Linear, Mlp};
use crate::{Float, Tensor};

/// A [`Linear`] as stored, before its shapes are checked.
#[derive(Deserialize)]
#[serde(rename = "Linear", deny_unknown_fields)]
pub(super) struct StoredLinear<F: Float> {
    w: Tensor<F>,
    b: Tensor<F>,
}

impl<F: Float> TryFrom<StoredLinear<F>> for Linear<F> {
    type Error = String;

    fn try_from(s: StoredLinear<F>) -> Result<Self, String> {
        match (s.w.shape(), s.b.shape()) {
            ([_, out], [1, b]) if out == b => Ok(Linear { w: s.w, b: s.b }),
            (w, b) => Err(format!(
                "a Linear layer needs w of shape [in, out] and b of shape [1, out], found w {w:?} and b {b:?}"
            )),
        }
    }
}

/// An [`Mlp`] as stored, before its layers are checked against each other.
#[derive(Deserialize)]
#[serde(rename = "Mlp", deny_unknown_fields)]
pub(super) struct StoredMlp<F: Float> {
    layers: Vec<Linear<F>>,
    activation: Activation,
}

impl<F: Float> TryFrom<StoredMlp<F>> for Mlp<F> {
    type Error = String;

    fn try_from(s: StoredMlp<F>) -> Result<Self, String> {
        if s.layers.is_empty() {
            return Err("an Mlp needs at least one layer".into());
        }
        for (i, pair) in s.layers.windows(2).enumerate() {
            let (out, next_in) = (pair[0].w.shape()[1], pair[1].w.shape()[0]);
            if out != next_in {
                return Err(format!(
                    "layer {i} of the Mlp has {out} outputs but layer {} has {next_in} inputs",
                    i + 1
                ));
            }
        }
        Ok(Mlp {
            layers: s.layers,
            activation: s.activation,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::nn::{Activation, Mlp};

    #[test]
    fn an_mlp_round_trips() {
        let mlp: Mlp<f64> = Mlp::new(&[4, 5, 3], Activation::Relu, 9);
        let json = serde_json::to_string(&mlp).unwrap();
        let back: Mlp<f64> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, mlp);
    }

    #[test]
    fn layers_that_do_not_fit_are_an_error() {
        let mut mlp: Mlp<f32> = Mlp::new(&[4, 5, 3], Activation::Tanh, 0);
        mlp.layers.swap(0, 1);
        let e = serde_json::from_str::<Mlp<f32>>(&serde_json::to_string(&mlp).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("layer 0 of the Mlp has 3 outputs but layer 1 has 4 inputs"),
            "{e}"
        );
        let bad_bias =
            r#"{"w":{"shape":[2,3],"data":[0,0,0,0,0,0]},"b":{"shape":[1,2],"data":[0,0]}}"#;
        let e = serde_json::from_str::<crate::nn::Linear<f32>>(bad_bias).unwrap_err();
        assert!(e.to_string().contains("found w [2, 3] and b [1, 2]"), "{e}");
    }
}
