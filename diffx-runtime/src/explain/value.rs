//! Values of a trace that are tensors as well as numbers, and the local derivatives between them.
//!
//! A function of tensors records rows whose values are [`Tensor`]s. Its local derivatives are no
//! longer numbers: an elementwise operation (`tanh`, `*`) has a tensor of partials, multiplied
//! elementwise; `matmul`, `sum` or `cross_entropy` have a linear tangent map and its transpose, from
//! the rule table, which `explain_f` hands over as closures ([`Partial::linear`]). The recorder runs
//! forward and reverse mode over them as over numbers; [`Value::conform`] sums a contribution over
//! the axes that broadcasting added (a bias `[1, n]` receives the column sums), or broadcasts it.
//!
//! Generated code does not know whether a value is a number or a tensor (a call of another
//! `#[autodiff]` function may return either): [`ToValue`] and [`FromValue`] decide by type.

use crate::{Float, Tensor};

/// A value, tangent or adjoint of a row: a number or a tensor.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq)]
pub enum Value<F: Float> {
    Scalar(F),
    Tensor(Tensor<F>),
}

impl<F: Float> Value<F> {
    /// `x` as a value: numbers as numbers, tensors, vectors and arrays as tensors.
    pub fn of<T: ToValue<F> + ?Sized>(x: &T) -> Self {
        x.to_value()
    }

    /// The zero of the shape of `self`.
    pub fn zero_like(&self) -> Self {
        match self {
            Value::Scalar(_) => Value::Scalar(F::ZERO),
            Value::Tensor(t) => Value::Tensor(t.zeros_like()),
        }
    }

    /// The shape: empty for a number.
    pub fn shape(&self) -> &[usize] {
        match self {
            Value::Scalar(_) => &[],
            Value::Tensor(t) => t.shape(),
        }
    }

    /// `self · other`, elementwise and broadcasting.
    pub fn mul(&self, other: &Value<F>) -> Value<F> {
        match (self, other) {
            (Value::Scalar(a), Value::Scalar(b)) => Value::Scalar(*a * *b),
            (Value::Scalar(s), Value::Tensor(t)) | (Value::Tensor(t), Value::Scalar(s)) => {
                Value::Tensor(t * *s)
            }
            (Value::Tensor(a), Value::Tensor(b)) => Value::Tensor(a * b),
        }
    }

    /// `self` brought to the shape of `like`: a tensor contribution to a number is summed, one
    /// broadcast in the operation is summed over the broadcast axes (reverse mode), and one of
    /// fewer elements is broadcast (forward mode: the tangent of a bias added to a batch).
    pub fn conform(self, like: &Value<F>) -> Value<F> {
        match (self, like) {
            (Value::Scalar(s), Value::Scalar(_)) => Value::Scalar(s),
            (Value::Tensor(t), Value::Scalar(_)) => Value::Scalar(t.sum()),
            (Value::Scalar(s), Value::Tensor(l)) => Value::Tensor(Tensor::full(l.shape(), s)),
            (Value::Tensor(t), Value::Tensor(l)) if t.shape() == l.shape() => Value::Tensor(t),
            (Value::Tensor(t), Value::Tensor(l)) if t.len() > l.len() => {
                Value::Tensor(t.sum_to(l.shape()))
            }
            (Value::Tensor(t), Value::Tensor(l)) => Value::Tensor(t.broadcast_to(l.shape())),
        }
    }

    /// `self += other`, `other` conformed to the shape of `self`.
    pub fn accumulate(&mut self, other: Value<F>) {
        let other = other.conform(self);
        match (self, other) {
            (Value::Scalar(a), Value::Scalar(b)) => *a += b,
            (Value::Tensor(a), Value::Tensor(b)) => *a += &b,
            // `conform` gave `other` the kind of `self`.
            _ => {}
        }
    }

    /// Whether every entry is zero.
    pub fn is_zero(&self) -> bool {
        match self {
            Value::Scalar(s) => *s == F::ZERO,
            Value::Tensor(t) => t.data().iter().all(|x| *x == F::ZERO),
        }
    }

    /// Entry `k` of a vector (flattened), or the number itself.
    pub fn entry(&self, k: usize) -> F {
        match self {
            Value::Scalar(s) => *s,
            Value::Tensor(t) => t.data()[k],
        }
    }

    /// What a table shows of it: the number, or a tensor's Frobenius norm.
    pub fn summary(&self) -> f64 {
        match self {
            Value::Scalar(s) => s.as_f64(),
            Value::Tensor(t) => t
                .data()
                .iter()
                .map(|x| x.as_f64().powi(2))
                .sum::<f64>()
                .sqrt(),
        }
    }

    /// The tensor in `f64`, if it is one.
    pub fn tensor_f64(&self) -> Option<Tensor<f64>> {
        match self {
            Value::Scalar(_) => None,
            Value::Tensor(t) => Some(t.to_f64()),
        }
    }
}

/// What can be recorded as a row: `f32`, `f64`, tensors, and vectors and arrays of numbers (as
/// 1-D tensors).
#[doc(hidden)]
pub trait ToValue<F: Float> {
    fn to_value(&self) -> Value<F>;
}

/// What a tangent or cotangent is handed to a rule's linear map as: the type of the operand.
#[doc(hidden)]
pub trait FromValue<F: Float>: Sized {
    /// `v` as a `Self` shaped like `like`.
    fn from_value(v: &Value<F>, like: &Self) -> Self;
}

/// `v` as a value of the type of `like`: the tangent `t` or cotangent `g` of a rule's linear map.
#[doc(hidden)]
pub fn cast<F: Float, T: FromValue<F>>(v: &Value<F>, like: &T) -> T {
    T::from_value(v, like)
}

macro_rules! number_values {
    ($($t:ty),*) => {$(
        impl ToValue<$t> for $t {
            fn to_value(&self) -> Value<$t> {
                Value::Scalar(*self)
            }
        }
        impl FromValue<$t> for $t {
            fn from_value(v: &Value<$t>, like: &$t) -> $t {
                match v.clone().conform(&like.to_value()) {
                    Value::Scalar(s) => s,
                    Value::Tensor(t) => t.sum(),
                }
            }
        }
    )*};
}
number_values!(f32, f64);

// Vectors of any float type, so that a function generic over its float type (its `explain_`
// bound by `T: ToValue<T>`) records its vector values too.
impl<F: Float> ToValue<F> for [F] {
    fn to_value(&self) -> Value<F> {
        Value::Tensor(Tensor::from_vec(self.to_vec(), &[self.len()]))
    }
}

impl<F: Float> ToValue<F> for Vec<F> {
    fn to_value(&self) -> Value<F> {
        self[..].to_value()
    }
}

impl<F: Float, const N: usize> ToValue<F> for [F; N] {
    fn to_value(&self) -> Value<F> {
        self[..].to_value()
    }
}

impl<F: Float> FromValue<F> for Vec<F> {
    fn from_value(v: &Value<F>, like: &Vec<F>) -> Vec<F> {
        match v.clone().conform(&like.to_value()) {
            Value::Tensor(t) => t.into_vec(),
            Value::Scalar(s) => vec![s; like.len()],
        }
    }
}

impl<F: Float, const N: usize> FromValue<F> for [F; N] {
    fn from_value(v: &Value<F>, like: &[F; N]) -> [F; N] {
        let mut out = [F::ZERO; N];
        out.copy_from_slice(&Vec::from_value(v, &like.to_vec()));
        out
    }
}

impl<F: Float> ToValue<F> for Tensor<F> {
    fn to_value(&self) -> Value<F> {
        Value::Tensor(self.clone())
    }
}

impl<F: Float> FromValue<F> for Tensor<F> {
    fn from_value(v: &Value<F>, like: &Tensor<F>) -> Tensor<F> {
        match v.clone().conform(&Value::Tensor(like.zeros_like())) {
            Value::Tensor(t) => t,
            Value::Scalar(s) => Tensor::full(like.shape(), s),
        }
    }
}

impl<F: Float, T: ToValue<F> + ?Sized> ToValue<F> for &T {
    fn to_value(&self) -> Value<F> {
        (**self).to_value()
    }
}

/// The gradient a callee returns for a parameter it does not differentiate: no value.
impl<F: Float> ToValue<F> for crate::private::Zero {
    fn to_value(&self) -> Value<F> {
        Value::Scalar(F::ZERO)
    }
}

/// A parameter whose type the macro cannot see (`x: &T` for an alias of a tensor): a value if its
/// type is one. `(&Probe::<F, _>::new(&x)).probe()` picks [`ProbeValue`] where it applies, else
/// [`ProbeNothing`] (method resolution tries `&Probe` before `&&Probe`).
#[doc(hidden)]
pub struct Probe<'a, F, T: ?Sized>(&'a T, core::marker::PhantomData<F>);

impl<'a, F, T: ?Sized> Probe<'a, F, T> {
    pub fn new(x: &'a T) -> Self {
        Probe(x, core::marker::PhantomData)
    }
}

#[doc(hidden)]
pub trait ProbeValue<F: Float> {
    fn probe(&self) -> Option<Value<F>>;
}

impl<F: Float, T: ToValue<F> + ?Sized> ProbeValue<F> for Probe<'_, F, T> {
    fn probe(&self) -> Option<Value<F>> {
        Some(self.0.to_value())
    }
}

#[doc(hidden)]
pub trait ProbeNothing<F: Float> {
    fn probe(&self) -> Option<Value<F>>;
}

impl<F: Float, T: ?Sized> ProbeNothing<F> for &Probe<'_, F, T> {
    fn probe(&self) -> Option<Value<F>> {
        None
    }
}

/// A tangent handed to a callee as the type of its argument, `like`'s, if that type is a value:
/// `(&CastTo::<F, _>::new(&like)).cast(&t)` picks [`CastValue`] where it applies, else
/// [`CastNothing`].
#[doc(hidden)]
pub struct CastTo<'a, F, T>(&'a T, core::marker::PhantomData<F>);

impl<'a, F, T> CastTo<'a, F, T> {
    pub fn new(like: &'a T) -> Self {
        CastTo(like, core::marker::PhantomData)
    }
}

#[doc(hidden)]
pub trait CastValue<F: Float> {
    type Out;
    fn cast(&self, v: &Value<F>) -> Option<Self::Out>;
}

impl<F: Float, T: FromValue<F>> CastValue<F> for CastTo<'_, F, T> {
    type Out = T;
    fn cast(&self, v: &Value<F>) -> Option<T> {
        Some(T::from_value(v, self.0))
    }
}

#[doc(hidden)]
pub trait CastNothing<F: Float> {
    type Out;
    fn cast(&self, v: &Value<F>) -> Option<Self::Out>;
}

impl<F: Float, T> CastNothing<F> for &CastTo<'_, F, T> {
    type Out = T;
    fn cast(&self, _: &Value<F>) -> Option<T> {
        None
    }
}

/// The transpose of a linear map: the cotangent of a row to the cotangent of an operand.
#[doc(hidden)]
pub type Transpose<'a, F> = Box<dyn Fn(&Value<F>) -> Value<F> + 'a>;

/// The local derivative of a row with respect to one operand.
#[doc(hidden)]
pub enum Partial<'a, F: Float> {
    /// Not differentiable in this operand.
    None,
    /// A number, or a tensor of elementwise partials: the tangent and the cotangent are multiplied
    /// by it.
    Elementwise(Value<F>),
    /// A linear map: its transpose, which takes the row's cotangent to the operand's. Its tangent
    /// map is applied as the row is recorded.
    Linear(Transpose<'a, F>),
}

impl<'a, F: Float> Partial<'a, F> {
    /// The partial `p` (a number or a tensor), multiplied elementwise.
    pub fn elementwise<T: ToValue<F> + ?Sized>(p: &T) -> Self {
        Partial::Elementwise(p.to_value())
    }

    /// A linear map given by its transpose `transpose`, from cotangents of the row to cotangents of
    /// the operand.
    pub fn linear(transpose: impl Fn(&Value<F>) -> Value<F> + 'a) -> Self {
        Partial::Linear(Box::new(transpose))
    }

    /// The partial as a number, for the table and the graph; `None` for a linear map, a tensor or
    /// no derivative.
    pub(crate) fn number(&self) -> Option<F> {
        match self {
            Partial::Elementwise(Value::Scalar(p)) => Some(*p),
            _ => None,
        }
    }

    /// The contribution of the cotangent `g` of the row to the operand's.
    pub(crate) fn pull(&self, g: &Value<F>) -> Option<Value<F>> {
        match self {
            Partial::None => None,
            Partial::Elementwise(p) => Some(p.mul(g)),
            Partial::Linear(transpose) => Some(transpose(g)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contributions_take_the_shape_of_what_they_flow_into() {
        let batch = Value::Tensor(Tensor::<f64>::ones(&[3, 2]));
        let bias = Value::Tensor(Tensor::<f64>::zeros(&[1, 2]));
        // The cotangent of a batch flowing into a bias: the column sums.
        assert_eq!(batch.clone().conform(&bias).shape(), [1, 2]);
        assert_eq!(batch.clone().conform(&bias).summary(), 18.0_f64.sqrt());
        // A bias's tangent in a batch: broadcast.
        assert_eq!(bias.clone().conform(&batch).shape(), [3, 2]);
        assert_eq!(
            batch.clone().conform(&Value::Scalar(0.0)),
            Value::Scalar(6.0)
        );
        let mut acc = Value::Scalar(1.0);
        acc.accumulate(Value::Scalar(2.0));
        assert_eq!(acc, Value::Scalar(3.0));
    }

    #[test]
    fn types_decide_what_a_value_is() {
        assert_eq!(Value::<f64>::of(&2.0), Value::Scalar(2.0));
        assert_eq!(Value::<f32>::of(&[1.0_f32, 2.0]).shape(), [2]);
        let like = [0.0; 2];
        assert_eq!(cast(&Value::<f64>::of(&vec![1.0, 2.0]), &like), [1.0, 2.0]);
        let t = cast(&Value::Scalar(0.0), &Tensor::<f64>::ones(&[2, 2]));
        assert_eq!(t, Tensor::zeros(&[2, 2]));
        assert_eq!(Partial::<f64>::elementwise(&2.0).number(), Some(2.0));
    }

    #[test]
    #[allow(clippy::needless_borrow)]
    fn probes_tell_values_from_other_types() {
        struct Model;
        let t = Tensor::<f64>::ones(&[1, 2]);
        assert_eq!((&Probe::<f64, _>::new(&&t)).probe(), Some(Value::Tensor(t)));
        assert_eq!((&Probe::<f64, _>::new(&Model)).probe(), None);
        assert!((&CastTo::<f64, _>::new(&Model))
            .cast(&Value::Scalar(1.0))
            .is_none());
        assert_eq!(
            (&CastTo::<f64, _>::new(&0.0)).cast(&Value::Scalar(1.0)),
            Some(1.0)
        );
    }
}
