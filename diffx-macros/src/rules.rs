//! The derivative table: the only file with calculus in it.
//!
//! Each row gives an elementary operation and the partial derivative of its result with respect to
//! each operand (or, for tensor operations that are not elementwise, its linear tangent map and the
//! transpose of that map), written as a Rust expression in
//! - `a`, `b`, `c`: the operands (for a method, `a` is the receiver),
//! - `z`: the result (so `exp` reuses its value and `tanh` is `1 - z²`),
//! - `F`: the float type of the function (`f64` or `f32`); `LN_2`, `LN_10`, `PI`: its constants;
//! - `t`, `g`: in linear maps, the operand's tangent and the result's cotangent; `Tensor`: the
//!   runtime's tensor of `F`.
//!
//! Both modes read these rows: forward mode computes `ż = Σ ∂z/∂aᵢ · ȧᵢ`, reverse mode
//! `āᵢ += ∂z/∂aᵢ · z̄`. A partial is itself lowered through the same pipeline, so derivative code is
//! ordinary IR. An empty partial marks an operand that is not differentiable (an integer exponent).
//! Adding an elementary function is adding one row.
//!
//! Conventions where the derivative does not exist (as in PyTorch and JAX): `abs'(0) = 0`,
//! `relu'(0) = 0`, a tie in `max`/`min` sends half of the gradient to each operand, and for
//! `x.powf(y)` the derivative in `y` is 0 at `x = 0` and the derivative in `x` is 0 at `y = 0`.

use crate::names;

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
    /// The operator of an infix row (`+` for `add`).
    pub fn syntax_op(&self) -> &'static str {
        match self.syntax {
            Syntax::Infix(op) | Syntax::Prefix(op) => op,
            _ => "",
        }
    }

    /// What the graph of `explain_` writes on an operand's edge: `⊙ tanh′` for an elementwise
    /// derivative (fused into one kernel on tensors or not), else the linear map's name.
    #[cfg(feature = "explain")]
    pub fn map_label(&self) -> String {
        match self.deriv {
            Deriv::Linear(_) if !FUSED_ELEMENTWISE.contains(&self.name) => self.name.to_string(),
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

const fn infix(name: &'static str, op: &'static str, partials: &'static [&'static str]) -> Rule {
    Rule {
        name,
        syntax: Syntax::Infix(op),
        deriv: Deriv::Partials(partials),
        out: Out::Same,
        residual: None,
    }
}

const fn method(name: &'static str, partials: &'static [&'static str]) -> Rule {
    Rule {
        name,
        syntax: Syntax::Method,
        deriv: Deriv::Partials(partials),
        out: Out::Same,
        residual: None,
    }
}

const fn runtime(
    name: &'static str,
    path: &'static str,
    partials: &'static [&'static str],
) -> Rule {
    Rule {
        name,
        syntax: Syntax::Func(path),
        deriv: Deriv::Partials(partials),
        out: Out::Same,
        residual: None,
    }
}

const fn tensor(
    name: &'static str,
    out: Out,
    maps: &'static [(&'static str, &'static str)],
) -> Rule {
    Rule {
        name,
        syntax: Syntax::TensorMethod,
        deriv: Deriv::Linear(maps),
        out,
        residual: None,
    }
}

const fn tensor_elementwise(name: &'static str, partials: &'static [&'static str]) -> Rule {
    Rule {
        name,
        syntax: Syntax::TensorMethod,
        deriv: Deriv::Partials(partials),
        out: Out::Tensor,
        residual: None,
    }
}

const fn with_residual(rule: Rule, residual: Residual) -> Rule {
    Rule {
        residual: Some(residual),
        ..rule
    }
}

/// Tensor rows whose maps multiply the seed by an elementwise derivative, in one fused kernel.
#[cfg(feature = "explain")]
const FUSED_ELEMENTWISE: &[&str] = &["tanh", "sigmoid", "relu"];

/// A constant operand (an axis, a shape, integer labels).
const CONST: (&str, &str) = ("", "");

/// The table.
pub static RULES: &[Rule] = &[
    infix("add", "+", &["1.0", "1.0"]),
    infix("sub", "-", &["1.0", "-1.0"]),
    infix("mul", "*", &["b", "a"]),
    infix("div", "/", &["1.0 / b", "-z / b"]),
    Rule {
        name: "neg",
        syntax: Syntax::Prefix("-"),
        deriv: Deriv::Partials(&["-1.0"]),
        out: Out::Same,
        residual: None,
    },
    // Powers and roots. powi's `b - i32::from(b != 0)` keeps 0·x⁻¹ (NaN at x = 0) out of x⁰, and
    // powf's exponent does the same: ∂(xʸ)/∂x is 0 where y = 0. ∂(xʸ)/∂y = xʸ·ln x reads ln 1 = 0
    // where x = 0, so it is 0 there instead of 0·(−∞) = NaN (JAX's rules, and PyTorch's for y ≥ 0);
    // both modes and the Hessian read these rows, so they agree at the edge.
    method("powi", &["(b as F) * a.powi(b - i32::from(b != 0))", ""]),
    method(
        "powf",
        &[
            "b * a.powf(b - F::from(b != 0.0))",
            "z * (a + F::from(a == 0.0)).ln()",
        ],
    ),
    method("sqrt", &["0.5 / z"]),
    method("cbrt", &["1.0 / (3.0 * z * z)"]),
    method("recip", &["-z * z"]),
    tensor_elementwise("square", &["2.0 * a"]),
    // Exponentials and logarithms.
    method("exp", &["z"]),
    method("exp2", &["z * LN_2"]),
    method("exp_m1", &["z + 1.0"]),
    method("ln", &["1.0 / a"]),
    method("ln_1p", &["1.0 / (1.0 + a)"]),
    method("log", &["1.0 / (a * b.ln())", "-z / (b * b.ln())"]),
    method("log2", &["1.0 / (a * LN_2)"]),
    method("log10", &["1.0 / (a * LN_10)"]),
    // Trigonometry.
    method("sin", &["a.cos()"]),
    method("cos", &["-a.sin()"]),
    method("tan", &["1.0 + z * z"]),
    method("asin", &["1.0 / (1.0 - a * a).sqrt()"]),
    method("acos", &["-1.0 / (1.0 - a * a).sqrt()"]),
    method("atan", &["1.0 / (1.0 + a * a)"]),
    method("atan2", &["b / (a * a + b * b)", "-a / (a * a + b * b)"]),
    method("sinh", &["a.cosh()"]),
    method("cosh", &["a.sinh()"]),
    method("tanh", &["1.0 - z * z"]),
    method("asinh", &["1.0 / (a * a + 1.0).sqrt()"]),
    method("acosh", &["1.0 / (a * a - 1.0).sqrt()"]),
    method("atanh", &["1.0 / (1.0 - a * a)"]),
    method("to_degrees", &["180.0 / PI"]),
    method("to_radians", &["PI / 180.0"]),
    // Piecewise smooth.
    method("abs", &["F::from(a > 0.0) - F::from(a < 0.0)"]),
    method(
        "max",
        &[
            "F::from(a > b) + 0.5 * F::from(a == b)",
            "F::from(b > a) + 0.5 * F::from(a == b)",
        ],
    ),
    method(
        "min",
        &[
            "F::from(a < b) + 0.5 * F::from(a == b)",
            "F::from(b < a) + 0.5 * F::from(a == b)",
        ],
    ),
    // At the origin, where hypot has no derivative, 0 (a subgradient) rather than 0/0.
    method(
        "hypot",
        &["a / (z + F::from(z == 0.0))", "b / (z + F::from(z == 0.0))"],
    ),
    method("mul_add", &["b", "a", "1.0"]),
    method("fract", &["1.0"]),
    // The runtime's activations, as functions of scalars and as methods of tensors.
    runtime("sigmoid", "::diffx::sigmoid", &["z * (1.0 - z)"]),
    runtime("relu", "::diffx::relu", &["F::from(a > 0.0)"]),
    runtime("softplus", "::diffx::softplus", &["::diffx::sigmoid(a)"]),
    // Forward mode over reverse mode multiplies each partial `a` by a tangent `b` with this
    // product, in which an exact zero tangent gives 0 even where the partial is infinite (JAX's
    // symbolic zero): `hessian_` of `ln` at 0 is −∞, not NaN from the cotangent's zero tangent.
    runtime(
        names::TANGENT_PRODUCT,
        names::TANGENT_PRODUCT_PATH,
        &["b", "a"],
    ),
    // On tensors, the derivative times the tangent or cotangent is one fused kernel (one pass
    // instead of three): the same partials as the scalar rows, `1 − z²`, `z·(1 − z)` and `z > 0`.
    // A field of a parameter struct may be a number, which the macro cannot see: numbers have the
    // same methods through `ScaledDerivative`.
    tensor(
        "tanh",
        Out::Tensor,
        &[(
            "{ use ::diffx::__private::ScaledDerivative as _; t.mul_dtanh(&z) }",
            "{ use ::diffx::__private::ScaledDerivative as _; g.mul_dtanh(&z) }",
        )],
    ),
    tensor(
        "sigmoid",
        Out::Tensor,
        &[(
            "{ use ::diffx::__private::ScaledDerivative as _; t.mul_dsigmoid(&z) }",
            "{ use ::diffx::__private::ScaledDerivative as _; g.mul_dsigmoid(&z) }",
        )],
    ),
    tensor(
        "relu",
        Out::Tensor,
        &[(
            "{ use ::diffx::__private::ScaledDerivative as _; t.mul_drelu(&z) }",
            "{ use ::diffx::__private::ScaledDerivative as _; g.mul_drelu(&z) }",
        )],
    ),
    // Tensors: linear maps and their transposes.
    tensor(
        "matmul",
        Out::Tensor,
        &[
            ("t.matmul(&b)", "g.matmul_t(&b)"),
            ("a.matmul(&t)", "a.t_matmul(&g)"),
        ],
    ),
    tensor("t", Out::Tensor, &[("t.t()", "g.t()")]),
    tensor(
        "reshape",
        Out::Tensor,
        &[("t.reshape(b)", "g.reshape(a.shape())"), CONST],
    ),
    tensor(
        "sum",
        Out::Scalar,
        &[("t.sum()", "Tensor::full(a.shape(), g)")],
    ),
    tensor(
        "mean",
        Out::Scalar,
        &[("t.mean()", "Tensor::full(a.shape(), g / a.len() as F)")],
    ),
    tensor(
        "sum_axis",
        Out::Tensor,
        &[("t.sum_axis(b)", "g.broadcast_to(a.shape())"), CONST],
    ),
    tensor(
        "mean_axis",
        Out::Tensor,
        &[
            (
                "t.mean_axis(b)",
                "g.broadcast_to(a.shape()) / a.shape()[b] as F",
            ),
            CONST,
        ],
    ),
    // Along the last axis of a [rows, classes] tensor; z is the result.
    tensor(
        "softmax",
        Out::Tensor,
        &[(
            "&z * &(&t - &(&z * &t).sum_axis(1))",
            "&z * &(&g - &(&g * &z).sum_axis(1))",
        )],
    ),
    tensor(
        "log_softmax",
        Out::Tensor,
        &[(
            "&t - &(&z.exp() * &t).sum_axis(1)",
            "&g - &(&z.exp() * &g.sum_axis(1))",
        )],
    ),
    tensor(
        "logsumexp",
        Out::Tensor,
        &[(
            "(&(&a - &z).exp() * &t).sum_axis(1)",
            "&(&a - &z).exp() * &g",
        )],
    ),
    // Losses: the mean over rows of −log softmax(a)[label], whose gradient is
    // (softmax(a) − one_hot(b)) / rows (`cross_entropy_grad`, one fused kernel); the mean of (a − b)².
    // Reverse mode takes the softmax once, for the value and the gradient together.
    with_residual(
        tensor(
            "cross_entropy",
            Out::Scalar,
            &[
                (
                    "(&a.cross_entropy_grad(b, 1.0 / a.rows() as F) * &t).sum()",
                    "a.cross_entropy_grad(b, g / a.rows() as F)",
                ),
                CONST,
            ],
        ),
        Residual {
            forward: "a.cross_entropy_with_grad(b)",
            vjp: &["::diffx::__private::scaled(r, g)", ""],
        },
    ),
    tensor(
        "cross_entropy_onehot",
        Out::Scalar,
        &[
            (
                "(&a.softmax().scaled_difference(&b, 1.0 / a.rows() as F) * &t).sum()",
                "a.softmax().scaled_difference(&b, g / a.rows() as F)",
            ),
            (
                "-(&a.log_softmax() * &t).sum() / a.rows() as F",
                "&a.log_softmax() * (-g / a.rows() as F)",
            ),
        ],
    ),
    // (`scaled_difference(&b, s)` is s·(a − b): a method, so `b` may be a `&Tensor` constant.)
    tensor(
        "mse",
        Out::Scalar,
        &[
            (
                "(&a.scaled_difference(&b, 2.0 / a.len() as F) * &t).sum()",
                "a.scaled_difference(&b, g * 2.0 / a.len() as F)",
            ),
            (
                "(&a.scaled_difference(&b, -2.0 / a.len() as F) * &t).sum()",
                "a.scaled_difference(&b, -g * 2.0 / a.len() as F)",
            ),
        ],
    ),
];

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
    let tensor_ok = |r: &Rule| {
        tensor
            && (r.syntax == Syntax::TensorMethod
                || matches!(
                    r.name,
                    "exp" | "ln" | "sqrt" | "powi" | "abs" | "square" | "recip"
                ))
    };
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
