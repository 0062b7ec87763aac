//! Layers: [`Linear`], [`Activation`], and the multilayer perceptron [`Mlp`].
//!
//! Layout: a batch is a `[n, features]` tensor, one example per row, and a layer computes
//! `x·w + b` with `w` of shape `[in, out]` and `b` of shape `[1, out]` (PyTorch stores the weight
//! as `[out, in]` and computes `x·Wᵀ + b`; [`Linear::from_torch`] converts).
//!
//! Every layer is [`Params`], so its gradient is a value of its own type.

use crate::{Float, Leaf, LeafMut, Params, Tensor};

#[cfg(feature = "serde")]
mod serialize;

/// How initial weights are drawn (biases start at 0).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Init {
    /// Glorot/Xavier uniform: `U(−a, a)`, `a = √(6 / (in + out))`; suits tanh and sigmoid.
    Xavier,
    /// He/Kaiming uniform: `U(−a, a)`, `a = √(6 / in)`; suits relu.
    He,
    /// `U(−a, a)` with the given `a`.
    Uniform(f64),
}

impl Init {
    /// The half-width `a` of the uniform distribution for a layer `in → out`.
    fn bound(self, fan_in: usize, fan_out: usize) -> f64 {
        match self {
            Init::Xavier => (6.0 / (fan_in + fan_out) as f64).sqrt(),
            Init::He => (6.0 / fan_in as f64).sqrt(),
            Init::Uniform(a) => a,
        }
    }
}

/// A fully connected layer `x·w + b`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "serialize::StoredLinear<F>")
)]
pub struct Linear<F: Float = f32> {
    /// The weight, `[in, out]`.
    pub w: Tensor<F>,
    /// The bias, `[1, out]`.
    pub b: Tensor<F>,
}

impl<F: Float> Linear<F> {
    /// A layer `inputs → outputs` with weights drawn by `init` from `seed`, biases 0.
    pub fn new(inputs: usize, outputs: usize, init: Init, seed: u64) -> Self {
        Self::with_rng(inputs, outputs, init, &mut crate::rng::seeded(seed))
    }

    /// A layer `inputs → outputs` with weights drawn by `init` from `rng` (any [`rand::Rng`]),
    /// biases 0.
    ///
    /// ```
    /// use diffx::nn::{Init, Linear};
    /// use rand::SeedableRng;
    /// let mut rng = rand_pcg::Pcg64::seed_from_u64(0);
    /// let layer = Linear::<f32>::with_rng(4, 3, Init::Xavier, &mut rng);
    /// let bound = (6.0_f32 / 7.0).sqrt();
    /// assert!(layer.w.data().iter().all(|w| w.abs() <= bound));
    /// assert_eq!(layer.b.data(), &[0.0; 3]);
    /// ```
    pub fn with_rng(
        inputs: usize,
        outputs: usize,
        init: Init,
        rng: &mut (impl rand::Rng + ?Sized),
    ) -> Self {
        let a = F::of_f64(init.bound(inputs, outputs));
        Linear {
            w: Tensor::rand_uniform_with_rng(&[inputs, outputs], -a, a, rng),
            b: Tensor::zeros(&[1, outputs]),
        }
    }

    /// A layer from PyTorch's parameters: `weight` of shape `[out, in]` and `bias` of shape `[out]`
    /// (transposed and reshaped to this crate's `[in, out]` and `[1, out]`).
    ///
    /// # Panics
    /// If `weight` is not 2-D or `bias` does not have `out` elements.
    #[track_caller]
    pub fn from_torch(weight: &Tensor<F>, bias: &Tensor<F>) -> Self {
        let out = weight.shape().first().copied().unwrap_or(0);
        assert!(
            weight.ndim() == 2 && bias.len() == out,
            "from_torch: weight {:?} and bias {:?} do not fit (expected [out, in] and [out])",
            weight.shape(),
            bias.shape()
        );
        Linear {
            w: weight.t(),
            b: bias.reshape(&[1, out]),
        }
    }

    /// `x·w + b` for a batch `x` of shape `[n, in]`: an `[n, out]` tensor.
    ///
    /// # Panics
    /// If `x` is not an `[n, in]` matrix, or `w` and `b` (public fields) do not fit each other.
    #[track_caller]
    pub fn forward(&self, x: &Tensor<F>) -> Tensor<F> {
        if let Some(why) = self.misfit(x.shape(), None) {
            panic!("Linear::forward: {why}");
        }
        self.apply(x)
    }

    /// `x·w + b`, the shapes checked.
    fn apply(&self, x: &Tensor<F>) -> Tensor<F> {
        let mut y = x.matmul(&self.w);
        y += &self.b;
        y
    }

    /// Why an input of shape `x` cannot go through this layer, if it cannot; `from` is the layer
    /// whose output it is (`None`: the caller's input).
    fn misfit(&self, x: &[usize], from: Option<usize>) -> Option<String> {
        let (w, b) = (self.w.shape(), self.b.shape());
        let &[inputs, outputs] = w else {
            return Some(format!("the weight has shape {w:?}, not [in, out]"));
        };
        if !matches!(*b, [1, o] | [o] if o == outputs) {
            return Some(format!(
                "the bias has shape {b:?}, which does not fit the weight {w:?} (expected [1, {outputs}])"
            ));
        }
        if !matches!(*x, [_, c] if c == inputs) {
            let what = match from {
                None => "the input".to_string(),
                Some(i) => format!("the output of layer {i}"),
            };
            return Some(format!(
                "{what} has shape {x:?}, which does not fit the weight {w:?} (expected [n, {inputs}])"
            ));
        }
        None
    }
}

impl<F: Float> Params for Linear<F> {
    type Elem = F;

    fn visit(&self, f: &mut dyn FnMut(Leaf<'_, F>)) {
        self.w.visit(f);
        self.b.visit(f);
    }

    fn visit_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, F>)) {
        self.w.visit_mut(f);
        self.b.visit_mut(f);
    }

    fn zip_mut(&mut self, other: &Self, f: &mut dyn FnMut(LeafMut<'_, F>, Leaf<'_, F>)) {
        self.w.zip_mut(&other.w, f);
        self.b.zip_mut(&other.b, f);
    }

    fn zeros_like(&self) -> Self {
        Linear {
            w: self.w.zeros_like(),
            b: self.b.zeros_like(),
        }
    }

    fn unset_like(&self) -> Self {
        Linear {
            w: Params::unset_like(&self.w),
            b: Params::unset_like(&self.b),
        }
    }

    fn settle(&mut self) {
        self.w.settle();
        self.b.settle();
    }

    fn accumulate(&mut self, other: &Self) {
        self.w.accumulate(&other.w);
        self.b.accumulate(&other.b);
    }
}

/// An elementwise nonlinearity between layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Activation {
    /// `tanh(x)`.
    Tanh,
    /// `max(x, 0)`.
    Relu,
    /// `1 / (1 + e^−x)`.
    Sigmoid,
}

impl Activation {
    /// The activation applied elementwise.
    pub fn apply<F: Float>(self, x: &Tensor<F>) -> Tensor<F> {
        match self {
            Activation::Tanh => x.tanh(),
            Activation::Relu => x.relu(),
            Activation::Sigmoid => x.sigmoid(),
        }
    }

    /// The initialization that keeps activations' variance steady through this nonlinearity:
    /// [`Init::He`] for relu, [`Init::Xavier`] otherwise.
    pub fn default_init(self) -> Init {
        match self {
            Activation::Relu => Init::He,
            Activation::Tanh | Activation::Sigmoid => Init::Xavier,
        }
    }
}

/// A multilayer perceptron: linear layers with `activation` between them; the last layer outputs
/// logits (no activation).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "serialize::StoredMlp<F>")
)]
pub struct Mlp<F: Float = f32> {
    /// The layers, input first.
    pub layers: Vec<Linear<F>>,
    /// The nonlinearity after every layer but the last.
    pub activation: Activation,
}

impl<F: Float> Mlp<F> {
    /// An MLP with the given layer sizes (`sizes[0]` inputs, `sizes.last()` outputs), initialized
    /// by [`Activation::default_init`]. Each layer draws its weights from its own stream, a seed
    /// mixed from `seed` and the layer's index by SplitMix64, so the layers of one network and
    /// those of networks with neighbouring seeds are unrelated.
    ///
    /// ```
    /// use diffx::nn::{Activation, Mlp};
    /// use diffx::{Params, Tensor};
    /// let mlp: Mlp = Mlp::new(&[4, 10, 3], Activation::Tanh, 0);
    /// assert_eq!(mlp.num_params(), 4 * 10 + 10 + 10 * 3 + 3);
    /// let x = Tensor::randn(&[5, 4], 1);
    /// assert_eq!(mlp.forward(&x).shape(), &[5, 3]);
    /// assert_eq!(mlp.predict(&x).len(), 5);
    /// ```
    ///
    /// # Panics
    /// If fewer than two sizes are given.
    #[track_caller]
    pub fn new(sizes: &[usize], activation: Activation, seed: u64) -> Self {
        Self::with_init(sizes, activation, activation.default_init(), seed)
    }

    /// [`Mlp::new`] with an explicit initialization.
    ///
    /// # Panics
    /// If fewer than two sizes are given, or a size is 0.
    #[track_caller]
    pub fn with_init(sizes: &[usize], activation: Activation, init: Init, seed: u64) -> Self {
        check_sizes(sizes);
        let layers = sizes
            .windows(2)
            .enumerate()
            .map(|(i, w)| Linear::new(w[0], w[1], init, layer_seed(seed, i)))
            .collect();
        Mlp { layers, activation }
    }

    /// An MLP whose layers draw their weights, input layer first, from `rng` (any
    /// [`rand::Rng`]) by `init` ([`Activation::default_init`] is what [`Mlp::new`] uses).
    ///
    /// ```
    /// use diffx::nn::{Activation, Mlp};
    /// use rand::SeedableRng;
    /// let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
    /// let act = Activation::Tanh;
    /// let a: Mlp = Mlp::with_rng(&[4, 10, 3], act, act.default_init(), &mut rng);
    /// let b: Mlp = Mlp::with_rng(&[4, 10, 3], act, act.default_init(), &mut rng);
    /// assert_ne!(a, b); // the generator moved on
    /// ```
    ///
    /// # Panics
    /// If fewer than two sizes are given, or a size is 0.
    #[track_caller]
    pub fn with_rng(
        sizes: &[usize],
        activation: Activation,
        init: Init,
        rng: &mut (impl rand::Rng + ?Sized),
    ) -> Self {
        check_sizes(sizes);
        let layers = sizes
            .windows(2)
            .map(|w| Linear::with_rng(w[0], w[1], init, rng))
            .collect();
        Mlp { layers, activation }
    }

    /// The logits for a batch `x` of shape `[n, sizes[0]]`: an `[n, outputs]` tensor.
    ///
    /// # Panics
    /// If `x` does not have `sizes[0]` columns, or the layers (public fields) do not fit each
    /// other.
    #[track_caller]
    pub fn forward(&self, x: &Tensor<F>) -> Tensor<F> {
        if let Some(why) = self.misfit(x) {
            panic!("Mlp::forward: {why}");
        }
        let last = self.layers.len() - 1;
        let mut h = self.layers[0].apply(x);
        for layer in &self.layers[1..] {
            h = layer.apply(&self.activation.apply(&h));
        }
        debug_assert_eq!(h.cols(), self.layers[last].b.len());
        h
    }

    /// Why `x` cannot go through the network, if it cannot: checked layer by layer before any
    /// arithmetic, so a panic names the layer.
    fn misfit(&self, x: &Tensor<F>) -> Option<String> {
        let Some(first) = self.layers.first() else {
            return Some("the network has no layers".to_string());
        };
        if let Some(why) = first.misfit(x.shape(), None) {
            return Some(format!("layer 0: {why}"));
        }
        let rows = x.shape()[0];
        for (i, pair) in self.layers.windows(2).enumerate() {
            let h = [rows, pair[0].w.shape()[1]];
            if let Some(why) = pair[1].misfit(&h, Some(i)) {
                return Some(format!("layer {}: {why}", i + 1));
            }
        }
        None
    }

    /// The predicted class (argmax of the logits) of each row of `x`.
    #[track_caller]
    pub fn predict(&self, x: &Tensor<F>) -> Vec<usize> {
        self.forward(x).argmax_rows()
    }
}

/// Panics, at the caller, unless `sizes` has an input and an output size, none of them 0.
#[track_caller]
fn check_sizes(sizes: &[usize]) {
    if sizes.len() < 2 || sizes.contains(&0) {
        panic!(
            "Mlp::new: expected at least an input and an output size, each at least 1, got {sizes:?}"
        );
    }
}

/// The seed of layer `i` of a network seeded with `seed`: the `i`-th output of SplitMix64 started
/// at `seed`, so that no two layers, of one network or of networks with nearby seeds, share a
/// stream (with `seed + i`, layer 1 of seed 0 was layer 0 of seed 1).
fn layer_seed(seed: u64, i: usize) -> u64 {
    crate::rng::splitmix64(seed.wrapping_add((i as u64 + 1).wrapping_mul(crate::rng::GOLDEN_GAMMA)))
}

impl<F: Float> Params for Mlp<F> {
    type Elem = F;

    fn visit(&self, f: &mut dyn FnMut(Leaf<'_, F>)) {
        self.layers.visit(f);
    }

    fn visit_mut(&mut self, f: &mut dyn FnMut(LeafMut<'_, F>)) {
        self.layers.visit_mut(f);
    }

    fn zip_mut(&mut self, other: &Self, f: &mut dyn FnMut(LeafMut<'_, F>, Leaf<'_, F>)) {
        self.layers.zip_mut(&other.layers, f);
    }

    fn zeros_like(&self) -> Self {
        Mlp {
            layers: self.layers.zeros_like(),
            activation: self.activation,
        }
    }

    fn unset_like(&self) -> Self {
        Mlp {
            layers: self.layers.unset_like(),
            activation: self.activation,
        }
    }

    fn settle(&mut self) {
        self.layers.settle();
    }

    fn accumulate(&mut self, other: &Self) {
        self.layers.accumulate(&other.layers);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_forward_known_values() {
        let layer = Linear {
            w: Tensor::from_rows(&[&[1.0_f64, 0.0], &[0.0, 1.0], &[1.0, 1.0]]),
            b: Tensor::from_rows(&[&[0.5, -0.5]]),
        };
        let x = Tensor::from_rows(&[&[1.0, 2.0, 3.0], &[0.0, 0.0, 0.0]]);
        assert_eq!(layer.forward(&x).data(), &[4.5, 4.5, 0.5, -0.5]);
    }

    #[test]
    fn from_torch_transposes() {
        let weight = Tensor::from_rows(&[&[1.0_f64, 2.0, 3.0], &[4.0, 5.0, 6.0]]); // [out 2, in 3]
        let layer = Linear::from_torch(&weight, &Tensor::from_vec(vec![1.0, 2.0], &[2]));
        assert_eq!(layer.w.shape(), &[3, 2]);
        assert_eq!(layer.b.shape(), &[1, 2]);
        let x = Tensor::from_rows(&[&[1.0, 1.0, 1.0]]);
        assert_eq!(layer.forward(&x).data(), &[7.0, 17.0]);
    }

    #[test]
    #[should_panic(expected = "from_torch: weight [2, 3] and bias [3] do not fit")]
    fn from_torch_checks_bias() {
        Linear::<f32>::from_torch(&Tensor::zeros(&[2, 3]), &Tensor::zeros(&[3]));
    }

    #[test]
    fn init_bounds_and_seeds() {
        let layer = Linear::<f64>::new(4, 10, Init::Xavier, 3);
        let a = (6.0 / 14.0_f64).sqrt();
        assert!(layer.w.data().iter().all(|w| w.abs() <= a));
        assert!(layer.w.data().iter().any(|w| w.abs() > a / 2.0));
        assert_eq!(layer, Linear::new(4, 10, Init::Xavier, 3));
        assert_ne!(layer, Linear::new(4, 10, Init::Xavier, 4));
        assert_eq!(layer.b, Tensor::zeros(&[1, 10]));
        let he = Linear::<f64>::new(6, 2, Init::He, 0);
        assert!(he.w.data().iter().all(|w| w.abs() <= 1.0));
    }

    #[test]
    fn mlp_forward_composes_layers() {
        let mlp = Mlp::<f64>::new(&[3, 5, 2], Activation::Relu, 7);
        let x = Tensor::randn(&[4, 3], 8);
        let by_hand = mlp.layers[1].forward(&mlp.layers[0].forward(&x).relu());
        assert_eq!(mlp.forward(&x), by_hand);
        assert_eq!(mlp.predict(&x), by_hand.argmax_rows());
        let sizes: Vec<_> = mlp.layers.iter().map(|l| l.w.shape().to_vec()).collect();
        assert_eq!(sizes, vec![vec![3, 5], vec![5, 2]]);
    }

    /// The correlation of two equally long samples.
    fn correlation(a: &[f64], b: &[f64]) -> f64 {
        let n = a.len() as f64;
        let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
        let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
        let var = |v: &[f64], m: f64| v.iter().map(|x| (x - m) * (x - m)).sum::<f64>();
        cov / (var(a, ma) * var(b, mb)).sqrt()
    }

    #[test]
    fn layers_of_neighbouring_seeds_are_unrelated() {
        // With `seed + i`, layer 1 of seed 0 was layer 0 of seed 1 (correlation 1). Every pair of
        // weight matrices among the layers of seeds 0..4 must now be uncorrelated: 400 samples
        // each, so |r| has a standard deviation of 0.05.
        let weights: Vec<Vec<f64>> = (0..4)
            .flat_map(|seed| Mlp::<f64>::new(&[20, 20, 20, 20], Activation::Tanh, seed).layers)
            .map(|layer| layer.w.into_vec())
            .collect();
        for i in 0..weights.len() {
            for j in 0..i {
                let r = correlation(&weights[i], &weights[j]);
                assert!(r.abs() < 0.25, "layers {i} and {j}: correlation {r}");
            }
        }
        // The same seed still gives the same network.
        let net = |seed| Mlp::<f32>::new(&[4, 10, 3], Activation::Tanh, seed);
        assert_eq!(net(5), net(5));
        assert_ne!(net(5).layers[1], net(6).layers[0].clone());
    }

    #[test]
    #[should_panic(
        expected = "Linear::forward: the input has shape [2, 5], which does not fit the weight [3, 2] (expected [n, 3])"
    )]
    fn linear_checks_its_input() {
        Linear::<f32>::new(3, 2, Init::Xavier, 0).forward(&Tensor::zeros(&[2, 5]));
    }

    #[test]
    #[should_panic(
        expected = "Mlp::forward: layer 1: the output of layer 0 has shape [2, 5], which does not fit the weight [4, 3] (expected [n, 4])"
    )]
    fn mlp_names_the_layer_that_does_not_fit() {
        let mut mlp = Mlp::<f32>::new(&[3, 5, 3], Activation::Relu, 0);
        mlp.layers[1] = Linear::new(4, 3, Init::He, 1);
        mlp.forward(&Tensor::zeros(&[2, 3]));
    }

    #[test]
    #[should_panic(
        expected = "Mlp::new: expected at least an input and an output size, each at least 1, got [4, 0, 3]"
    )]
    fn mlp_sizes_are_positive() {
        Mlp::<f32>::new(&[4, 0, 3], Activation::Tanh, 0);
    }

    #[test]
    fn activations() {
        let x = Tensor::from_vec(vec![-1.0_f64, 0.0, 2.0], &[3]);
        assert_eq!(Activation::Relu.apply(&x).data(), &[0.0, 0.0, 2.0]);
        assert_eq!(Activation::Tanh.apply(&x), x.tanh());
        assert_eq!(Activation::Sigmoid.apply(&x).data()[1], 0.5);
        assert_eq!(Activation::Relu.default_init(), Init::He);
    }

    #[test]
    fn params_visit_in_order() {
        let mlp = Mlp::<f32>::new(&[2, 3, 1], Activation::Tanh, 0);
        let mut shapes = Vec::new();
        mlp.visit(&mut |t| shapes.push(t.shape.to_vec()));
        assert_eq!(shapes, vec![vec![2, 3], vec![1, 3], vec![3, 1], vec![1, 1]]);
        assert_eq!(mlp.from_flat(&mlp.to_flat_vec()), mlp);
    }
}
