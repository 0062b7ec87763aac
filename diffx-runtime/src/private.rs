//! Support for the code that `#[autodiff]` writes. Not a public API: names may change at any time.
//!
//! Derivative functions of different `#[autodiff]` functions call each other through one uniform
//! interface, whatever the callee's constant parameters are:
//! - `__diffx_jvp_g(args…, tangents…)` takes a tangent for *every* argument; the caller passes
//!   [`Zero`] for arguments that do not depend on its inputs, and the callee ignores the tangents of
//!   its constant parameters.
//! - `__diffx_vjp_g(args…, ct)` returns `(value, (one gradient per argument))`, with [`Zero`] for the
//!   callee's constant parameters.

use core::ops::AddAssign;

pub use crate::scalar::{relu, sigmoid, softplus, stop_gradient};

/// The zero tangent or gradient of something that is constant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Zero;

/// A tangent passed to a differentiable parameter: the tangent itself or [`Zero`].
pub trait IntoTangent<T> {
    /// The tangent as a `T`.
    fn into_tangent(self) -> T;
}

macro_rules! float_tangents {
    ($($t:ty),*) => {$(
        impl IntoTangent<$t> for $t {
            #[inline(always)]
            fn into_tangent(self) -> $t {
                self
            }
        }
        impl IntoTangent<$t> for Zero {
            #[inline(always)]
            fn into_tangent(self) -> $t {
                0.0
            }
        }
        impl AddAssign<Zero> for $t {
            #[inline(always)]
            fn add_assign(&mut self, _: Zero) {}
        }
    )*};
}
float_tangents!(f32, f64);
