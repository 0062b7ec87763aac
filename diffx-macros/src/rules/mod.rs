//! The derivative table: the only calculus in the macro crate (the runtime's fused kernels, such as
//! `mul_dtanh`, hold the rest). The rows are in [`table`]; [`template`] makes them into Rust.
//!
//! Each row gives an elementary operation and the partial derivative of its result with respect to
//! each operand (or, for tensor operations that are not elementwise, its linear tangent map and the
//! transpose of that map), written as a Rust expression in
//! - `a`, `b`, `c`: the operands (for a method, `a` is the receiver),
//! - `z`: the result (so `exp` reuses its value and `tanh` is `1 - z²`),
//! - `F`: the float type of the function (`f64` or `f32`); `LN_2`, `LN_10`, `PI`: its constants;
//! - `t`, `g`: in linear maps, the operand's tangent and the result's cotangent; `Tensor`: the
//!   runtime's tensor of `F`;
//! - `r`: in a [`Residual`]'s pullback, the residual.
//!
//! Both modes read these rows: forward mode computes `ż = Σ ∂z/∂aᵢ · ȧᵢ`, reverse mode
//! `āᵢ += ∂z/∂aᵢ · z̄`. A partial is itself lowered through the same pipeline, so derivative code is
//! ordinary IR. An empty partial marks an operand that is not differentiable (an integer exponent).
//! Adding an elementary function is adding one row; adding a tensor operation is one row and its
//! runtime kernel, with the row's [`OnTensors`] flags saying what the runtime has of it. The unit
//! tests check every row: its templates parse and read only the placeholders the row binds, and
//! the integration tests check its derivatives.
//!
//! Conventions where the derivative does not exist (as in PyTorch and JAX): `abs'(0) = 0`,
//! `relu'(0) = 0`, a tie in `max`/`min` sends half of the gradient to each operand, and for
//! `x.powf(y)` the derivative in `y` is 0 at `x = 0` and the derivative in `x` is 0 at `y = 0`.

use quote::ToTokens;

pub mod table;
pub mod template;

pub use table::RULES;

/// How an operation is written in Rust.
#[derive(Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `a + b`.
    Infix(&'static str),
    /// `-a`.
    Prefix(&'static str),
    /// `a.name(b, c)`, operands after the receiver by value.
    Method,
    /// `a.name(&b)`: a tensor method, differentiable operands by reference.
    TensorMethod,
    /// `path(a)`, a function of the runtime.
    Func(&'static str),
}

/// The derivative of an operation.
#[derive(Debug)]
pub enum Deriv {
    /// Elementwise: `∂z/∂aᵢ` per operand. Forward mode multiplies it by the tangent, reverse mode
    /// by the cotangent (summed back over broadcast axes).
    Partials(&'static [&'static str]),
    /// Per operand, the tangent map (linear in the tangent `t`) and its transpose (in the
    /// cotangent `g`), as for `matmul`: `t·b` and `g·bᵀ`; for a nonlinear operation they may read
    /// the operands and `z` (`softmax`). Written with `&` where Rust needs references to tensors.
    Linear(&'static [(&'static str, &'static str)]),
}

/// What kind of value an operation returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Out {
    /// A scalar if every operand is one, else a tensor.
    Same,
    Scalar,
    Tensor,
}

/// One row of the table.
#[derive(Debug)]
pub struct Rule {
    pub name: &'static str,
    pub syntax: Syntax,
    pub deriv: Deriv,
    pub out: Out,
    /// For reverse mode: the result computed together with what its pullback needs.
    pub residual: Option<Residual>,
    pub tensors: OnTensors,
}

/// What the runtime has of a row for tensors, besides the row's own syntax (dfdx's flags on its
/// unary operations).
#[derive(Debug, Clone, Copy, Default)]
pub struct OnTensors {
    /// A float method that tensors have too, elementwise with the same partials (`x.exp()`).
    pub method: bool,
    /// The runtime also has it in place, for a tensor given by value
    /// (`diffx::__private::owned::exp`), so a tensor read for the last time lends its buffer.
    pub in_place: bool,
    /// The maps multiply the seed by the elementwise derivative in one fused kernel
    /// (`t.mul_dtanh(&z)`): `explain_` labels the edge `⊙ tanh′`, not with the map's name.
    #[cfg_attr(not(feature = "explain"), allow(dead_code))]
    pub fused: bool,
}

/// A forward computation that returns `(z, r)`, the result and a residual `r` for the pullback,
/// as JAX's `custom_vjp` forward does: reverse mode's forward sweep runs it instead of the
/// operation (outside loops and `if`s), and its backward sweep applies `vjp` (per operand, in `r`
/// and the cotangent `g`) instead of the table's transposed map. Forward mode is unchanged.
#[derive(Debug)]
pub struct Residual {
    /// `(z, r)` from the operands `a`, `b`.
    pub forward: &'static str,
    pub vjp: &'static [&'static str],
}

impl Rule {
    /// The operator of an infix or prefix row (`+` for `add`).
    pub fn syntax_op(&self) -> &'static str {
        match self.syntax {
            Syntax::Infix(op) | Syntax::Prefix(op) => op,
            _ => "",
        }
    }

    /// The operator of an infix or prefix row as a token (`+` for `add`): each is one character.
    pub fn operator(&self) -> proc_macro2::TokenStream {
        self.operator_punct().into_token_stream()
    }

    /// [`Rule::operator`] as the one tree it is.
    pub fn operator_punct(&self) -> proc_macro2::Punct {
        let op = self.syntax_op().chars().next().unwrap_or('+');
        proc_macro2::Punct::new(op, proc_macro2::Spacing::Alone)
    }

    /// What the graph of `explain_` writes on an operand's edge: `⊙ tanh′` for an elementwise
    /// derivative (fused into one kernel on tensors or not), else the linear map's name.
    #[cfg(feature = "explain")]
    pub fn map_label(&self) -> String {
        match self.deriv {
            Deriv::Linear(_) if !self.tensors.fused => self.name.to_string(),
            _ => format!("⊙ {}′", self.name),
        }
    }

    pub fn arity(&self) -> usize {
        match &self.deriv {
            Deriv::Partials(p) => p.len(),
            Deriv::Linear(l) => l.len(),
        }
    }
}

/// Methods whose derivative is zero wherever it exists: their result is a constant.
pub const PIECEWISE_CONSTANT: &[&str] = &[
    "signum",
    "floor",
    "ceil",
    "round",
    "round_ties_even",
    "trunc",
    "is_nan",
    "is_finite",
    "is_infinite",
    "is_normal",
    "is_sign_positive",
    "is_sign_negative",
    "to_bits",
    "total_cmp",
    "partial_cmp",
    "classify",
    "relu_mask",
    "shape",
    "rows",
    "cols",
    "len",
    "argmax_rows",
];

/// Runtime functions whose result is a constant.
pub const CONSTANT_FUNCTIONS: &[&str] = &["stop_gradient"];

/// The row of the operator called `name` (`add`, `neg`, …).
pub fn find(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// The row of the method `name`; `tensor` prefers the tensor row where both exist.
pub fn find_method(name: &str, tensor: bool) -> Option<&'static Rule> {
    let is = |r: &&Rule, t: bool| {
        r.name == name
            && r.syntax
                == if t {
                    Syntax::TensorMethod
                } else {
                    Syntax::Method
                }
    };
    RULES
        .iter()
        .find(|r| is(r, tensor))
        .or_else(|| RULES.iter().find(|r| is(r, !tensor)))
}

/// The row of the runtime function `name`.
pub fn find_function(name: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .find(|r| r.name == name && matches!(r.syntax, Syntax::Func(_)))
}

/// The methods that have a row for floats (or, with `tensor`, for tensors), for error messages.
pub fn method_names(tensor: bool) -> String {
    let tensor_ok = |r: &Rule| tensor && (r.syntax == Syntax::TensorMethod || r.tensors.method);
    let names: Vec<&str> = RULES
        .iter()
        .filter(|r| {
            if tensor {
                tensor_ok(r)
            } else {
                r.syntax == Syntax::Method
            }
        })
        .map(|r| r.name)
        .collect();
    names.join(", ")
}
