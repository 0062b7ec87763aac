//! The derivative table: the only file with calculus in it.
//!
//! Each row gives an elementary operation and the partial derivative of its result with respect to
//! each operand, written as a Rust expression in
//! - `a`, `b`, `c`: the operands (for a method, `a` is the receiver),
//! - `z`: the result (so `exp` reuses its value and `tanh` is `1 - z²`),
//! - `F`: the float type of the function (`f64` or `f32`); `LN_2`, `LN_10`: its constants.
//!
//! Both modes read these rows: forward mode computes `ż = Σ ∂z/∂aᵢ · ȧᵢ`, reverse mode
//! `āᵢ += ∂z/∂aᵢ · z̄`. A partial is itself lowered through the same pipeline, so derivative code is
//! ordinary IR. An empty partial marks an operand that is not differentiable (an integer exponent).
//! Adding an elementary function is adding one row.
//!
//! Conventions where the derivative does not exist (as in PyTorch and JAX): `abs'(0) = 0`,
//! `relu'(0) = 0`, and a tie in `max`/`min` sends half of the gradient to each operand.

/// How an operation is written in Rust.
#[derive(Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `a + b`.
    Infix(&'static str),
    /// `-a`.
    Prefix(&'static str),
    /// `a.name(b, c)`.
    Method,
    /// `path(a)`, a function of the runtime.
    Func(&'static str),
}

/// One row of the table.
#[derive(Debug)]
pub struct Rule {
    pub name: &'static str,
    pub syntax: Syntax,
    /// One partial derivative per operand.
    pub partials: &'static [&'static str],
}

impl Rule {
    pub fn arity(&self) -> usize {
        self.partials.len()
    }
}

const fn infix(name: &'static str, op: &'static str, partials: &'static [&'static str]) -> Rule {
    Rule {
        name,
        syntax: Syntax::Infix(op),
        partials,
    }
}

const fn method(name: &'static str, partials: &'static [&'static str]) -> Rule {
    Rule {
        name,
        syntax: Syntax::Method,
        partials,
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
        partials,
    }
}

/// The table.
pub static RULES: &[Rule] = &[
    infix("add", "+", &["1.0", "1.0"]),
    infix("sub", "-", &["1.0", "-1.0"]),
    infix("mul", "*", &["b", "a"]),
    infix("div", "/", &["1.0 / b", "-z / b"]),
    Rule {
        name: "neg",
        syntax: Syntax::Prefix("-"),
        partials: &["-1.0"],
    },
    // Powers and roots. powi's `b - i32::from(b != 0)` keeps 0·x⁻¹ (NaN at x = 0) out of x⁰.
    method("powi", &["(b as F) * a.powi(b - i32::from(b != 0))", ""]),
    method("powf", &["b * a.powf(b - 1.0)", "z * a.ln()"]),
    method("sqrt", &["0.5 / z"]),
    method("cbrt", &["1.0 / (3.0 * z * z)"]),
    method("recip", &["-z * z"]),
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
    method("hypot", &["a / z", "b / z"]),
    method("mul_add", &["b", "a", "1.0"]),
    method("fract", &["1.0"]),
    // The runtime's activations.
    runtime("sigmoid", "::diffx::sigmoid", &["z * (1.0 - z)"]),
    runtime("relu", "::diffx::relu", &["F::from(a > 0.0)"]),
    runtime("softplus", "::diffx::softplus", &["::diffx::sigmoid(a)"]),
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
];

/// Runtime functions whose result is a constant.
pub const CONSTANT_FUNCTIONS: &[&str] = &["stop_gradient"];

/// The row of a binary operator or method or runtime function called `name`.
pub fn find(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// The methods that have a row, for error messages.
pub fn method_names() -> String {
    let names: Vec<&str> = RULES
        .iter()
        .filter(|r| r.syntax == Syntax::Method)
        .map(|r| r.name)
        .collect();
    names.join(", ")
}
