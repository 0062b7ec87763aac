//! Gradients and optimizer state that do not match the parameters: a panic at the caller's `step`
//! naming the optimizer, the tensor and both shapes, and nothing updated.

use diffx::nn::{Activation, Mlp};
use diffx::optim::{Adam, Momentum, Optimizer, RmsProp, Sgd};
use diffx::{Params, Tensor};

type T = Tensor<f64>;

/// A parameter struct of the user's own.
#[derive(Clone, Debug, PartialEq, Params)]
struct Affine {
    w: T,
    b: T,
}

fn affine(n: usize) -> Affine {
    Affine {
        w: T::ones(&[n, 2]),
        b: T::ones(&[1, 2]),
    }
}

/// An optimizer and the name its panics give.
type Named<P> = (&'static str, Box<dyn Optimizer<P>>);

/// The four optimizers, each with its name, fresh.
fn optimizers<P: Params<Elem = f64>>() -> Vec<Named<P>> {
    vec![
        ("Sgd::step", Box::new(Sgd::new(0.1))),
        ("Momentum::step", Box::new(Momentum::new(0.1, 0.9))),
        ("Adam::step", Box::new(Adam::new(0.1))),
        ("RmsProp::step", Box::new(RmsProp::new(0.1))),
    ]
}

#[test]
fn a_gradient_of_another_shape_is_refused_before_any_update() {
    // The case of the issue: 6 parameters and a gradient of 2 updated only the overlap.
    for (name, mut opt) in optimizers::<T>() {
        let mut p = T::ones(&[6]);
        let msg = panics_here!(
            opt.step(&mut p, &T::ones(&[2])),
            name,
            "the gradient does not match the parameters",
            "[6]",
            "[2]"
        );
        assert!(
            msg.contains("leaf 0 has shape [6] in the parameters but [2] in the gradient"),
            "{msg}"
        );
        assert_eq!(p, T::ones(&[6]), "{name} updated part of the parameters");
    }
    for (name, mut opt) in optimizers::<Vec<T>>() {
        let mut p = vec![T::ones(&[2, 3]), T::ones(&[3])];
        let g = vec![T::ones(&[2, 3]), T::ones(&[4])];
        panics_here!(
            opt.step(&mut p, &g),
            name,
            "leaf 1 has shape [3] in the parameters but [4] in the gradient"
        );
        panics_here!(
            opt.step(&mut p, &vec![T::ones(&[2, 3])]),
            name,
            "2 leaves in the parameters, 1 in the gradient"
        );
        assert_eq!(p, vec![T::ones(&[2, 3]), T::ones(&[3])], "{name}");
    }
}

#[test]
fn a_model_gradient_with_other_layer_widths_is_refused() {
    for (name, mut opt) in optimizers::<Mlp<f64>>() {
        let mut model = Mlp::new(&[4, 10, 3], Activation::Tanh, 0);
        let before = model.clone();
        let other = Mlp::new(&[4, 12, 3], Activation::Tanh, 0);
        panics_here!(
            opt.step(&mut model, &other),
            name,
            "leaf 0 has shape [4, 10] in the parameters but [4, 12] in the gradient"
        );
        let deeper = Mlp::new(&[4, 10, 10, 3], Activation::Tanh, 0);
        panics_here!(
            opt.step(&mut model, &deeper),
            name,
            "4 leaves in the parameters, 6 in the gradient"
        );
        assert_eq!(model, before, "{name}");
    }
    for (name, mut opt) in optimizers::<Affine>() {
        let mut p = affine(3);
        panics_here!(
            opt.step(&mut p, &affine(5)),
            name,
            "leaf 0 has shape [3, 2] in the parameters but [5, 2] in the gradient"
        );
        assert_eq!(p, affine(3), "{name}");
    }
}

#[test]
fn reusing_a_stateful_optimizer_on_another_model_is_refused() {
    let stateful: Vec<Named<Mlp<f64>>> = optimizers().into_iter().skip(1).collect();
    for (name, mut opt) in stateful {
        let mut first = Mlp::new(&[4, 10, 3], Activation::Tanh, 0);
        let g = first.clone();
        opt.step(&mut first, &g);
        let mut second = Mlp::new(&[4, 16, 3], Activation::Tanh, 1);
        let (before, g2) = (second.clone(), second.clone());
        let msg = panics_here!(
            opt.step(&mut second, &g2),
            name,
            "the optimizer's state was made on another model",
            "create a new one"
        );
        assert!(
            msg.contains("leaf 0 has shape [4, 16] in the parameters but [4, 10] in the state"),
            "{msg}"
        );
        assert_eq!(second, before, "{name}");
        // The first model still trains with it.
        opt.step(&mut first, &g);
    }
}

#[test]
fn the_state_is_sized_by_the_parameters_and_updates_every_element() {
    // Momentum's second step moves every element by the same amount: no stale state of 2.
    let mut opt = Momentum::new(0.1, 0.9);
    let mut p = T::zeros(&[6]);
    opt.step(&mut p, &T::ones(&[6]));
    opt.step(&mut p, &T::ones(&[6]));
    assert!(p.data().iter().all(|&v| (v + 0.29).abs() < 1e-12), "{p:?}");
}
