//! The rows of the derivative table (see the [parent module](super) for the template language).

use super::{Deriv, OnTensors, Out, Residual, Rule, Syntax};
use crate::names;

/// A row with no residual and nothing more for tensors.
const fn row(name: &'static str, syntax: Syntax, deriv: Deriv, out: Out) -> Rule {
    Rule {
        name,
        syntax,
        deriv,
        out,
        residual: None,
        tensors: OnTensors {
            method: false,
            in_place: false,
            fused: false,
        },
    }
}

const fn infix(name: &'static str, op: &'static str, partials: &'static [&'static str]) -> Rule {
    row(
        name,
        Syntax::Infix(op),
        Deriv::Partials(partials),
        Out::Same,
    )
}

const fn method(name: &'static str, partials: &'static [&'static str]) -> Rule {
    row(name, Syntax::Method, Deriv::Partials(partials), Out::Same)
}

const fn runtime(
    name: &'static str,
    path: &'static str,
    partials: &'static [&'static str],
) -> Rule {
    row(
        name,
        Syntax::Func(path),
        Deriv::Partials(partials),
        Out::Same,
    )
}

const fn tensor(
    name: &'static str,
    out: Out,
    maps: &'static [(&'static str, &'static str)],
) -> Rule {
    row(name, Syntax::TensorMethod, Deriv::Linear(maps), out)
}

const fn tensor_elementwise(name: &'static str, partials: &'static [&'static str]) -> Rule {
    row(
        name,
        Syntax::TensorMethod,
        Deriv::Partials(partials),
        Out::Tensor,
    )
}

const fn with_residual(rule: Rule, residual: Residual) -> Rule {
    Rule {
        residual: Some(residual),
        ..rule
    }
}

/// A float method tensors have too ([`OnTensors::method`]).
const fn on_tensors(rule: Rule) -> Rule {
    let tensors = OnTensors {
        method: true,
        ..rule.tensors
    };
    Rule { tensors, ..rule }
}

/// A row the runtime also has in place for tensors ([`OnTensors::in_place`]).
const fn in_place(rule: Rule) -> Rule {
    let tensors = OnTensors {
        in_place: true,
        ..rule.tensors
    };
    Rule { tensors, ..rule }
}

/// A tensor row whose maps are one fused kernel ([`OnTensors::fused`]).
const fn fused(rule: Rule) -> Rule {
    let tensors = OnTensors {
        fused: true,
        ..rule.tensors
    };
    Rule { tensors, ..rule }
}

/// A constant operand (an axis, a shape, integer labels).
const CONST: (&str, &str) = ("", "");

/// The table.
pub static RULES: &[Rule] = &[
    infix("add", "+", &["1.0", "1.0"]),
    infix("sub", "-", &["1.0", "-1.0"]),
    infix("mul", "*", &["b", "a"]),
    infix("div", "/", &["1.0 / b", "-z / b"]),
    row(
        "neg",
        Syntax::Prefix("-"),
        Deriv::Partials(&["-1.0"]),
        Out::Same,
    ),
    // Powers and roots. powi's `b - i32::from(b != 0)` keeps 0·x⁻¹ (NaN at x = 0) out of x⁰, and
    // powf's exponent does the same: ∂(xʸ)/∂x is 0 where y = 0. ∂(xʸ)/∂y = xʸ·ln x reads ln 1 = 0
    // where x = 0, so it is 0 there instead of 0·(−∞) = NaN (JAX's rules, and PyTorch's for y ≥ 0);
    // both modes and the Hessian read these rows, so they agree at the edge.
    on_tensors(method(
        "powi",
        &["(b as F) * a.powi(b - i32::from(b != 0))", ""],
    )),
    method(
        "powf",
        &[
            "b * a.powf(b - F::from(b != 0.0))",
            "z * (a + F::from(a == 0.0)).ln()",
        ],
    ),
    on_tensors(in_place(method("sqrt", &["0.5 / z"]))),
    method("cbrt", &["1.0 / (3.0 * z * z)"]),
    on_tensors(method("recip", &["-z * z"])),
    in_place(tensor_elementwise("square", &["2.0 * a"])),
    // Exponentials and logarithms.
    on_tensors(in_place(method("exp", &["z"]))),
    method("exp2", &["z * LN_2"]),
    method("exp_m1", &["z + 1.0"]),
    on_tensors(in_place(method("ln", &["1.0 / a"]))),
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
    in_place(method("tanh", &["1.0 - z * z"])),
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
    // A call of a function parameter (`op(a, b)` of `op: impl Fn(f64, f64) -> f64`), written
    // by `adapt/functions.rs` with the value and partials `a` that the argument computed.
    runtime("linear1", "::diffx::__private::linear1", &["", "a.1[0]"]),
    runtime(
        "linear2",
        "::diffx::__private::linear2",
        &["", "a.1[0]", "a.1[1]"],
    ),
    in_place(runtime("sigmoid", "::diffx::sigmoid", &["z * (1.0 - z)"])),
    in_place(runtime("relu", "::diffx::relu", &["F::from(a > 0.0)"])),
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
    fused(in_place(tensor(
        "tanh",
        Out::Tensor,
        &[(
            "{ use ::diffx::__private::ScaledDerivative as _; t.mul_dtanh(&z) }",
            "{ use ::diffx::__private::ScaledDerivative as _; g.mul_dtanh(&z) }",
        )],
    ))),
    fused(in_place(tensor(
        "sigmoid",
        Out::Tensor,
        &[(
            "{ use ::diffx::__private::ScaledDerivative as _; t.mul_dsigmoid(&z) }",
            "{ use ::diffx::__private::ScaledDerivative as _; g.mul_dsigmoid(&z) }",
        )],
    ))),
    fused(in_place(tensor(
        "relu",
        Out::Tensor,
        &[(
            "{ use ::diffx::__private::ScaledDerivative as _; t.mul_drelu(&z) }",
            "{ use ::diffx::__private::ScaledDerivative as _; g.mul_drelu(&z) }",
        )],
    ))),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An integration test of the workspace, as text.
    fn test_file(path: &str) -> String {
        let full = format!("{}/../tests/{path}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&full)
            .unwrap_or_else(|e| panic!("{full}: {e} (this test runs in the diffx workspace)"))
    }

    /// Every row is tested where its kind of row is: scalar rows in both modes (`scalar/
    /// elementary.rs`) and at second order (`second_order/elementary.rs`), each against the
    /// derivative by hand and central differences; tensor rows, and the float rows tensors have
    /// too, in `tensors_and_training/tensor.rs`, against central differences in both modes.
    #[test]
    fn every_row_is_tested_in_both_modes_and_at_second_order() {
        let first = test_file("scalar/elementary.rs");
        let second = test_file("second_order/elementary.rs");
        let tensors = test_file("tensors_and_training/tensor.rs");
        let mut missing = Vec::new();
        // (The rows generated code alone reaches are tested where that code is: a function
        // parameter's call, `linear1`/`linear2`, in `ordinary_rust/functions_and_fields.rs`,
        // first order only.)
        let internal = |r: &Rule| r.name == names::TANGENT_PRODUCT || r.name.starts_with("linear");
        for rule in RULES.iter().filter(|r| !internal(r)) {
            let call = match rule.syntax {
                Syntax::Infix(_) | Syntax::Prefix(_) => format!("    {}: |", rule.name),
                Syntax::Func(_) => format!("diffx::{}(", rule.name),
                Syntax::Method | Syntax::TensorMethod => format!(".{}(", rule.name),
            };
            let on_tensors = rule.syntax == Syntax::TensorMethod || rule.tensors.method;
            let files = match rule.syntax {
                Syntax::TensorMethod => vec![("tensor.rs", &tensors)],
                _ => vec![("scalar/", &first), ("second_order/", &second)],
            };
            let extra = on_tensors && rule.syntax != Syntax::TensorMethod;
            let extra = extra.then_some(("tensor.rs", &tensors));
            for (file, text) in files.into_iter().chain(extra) {
                if !text.contains(&call) {
                    missing.push(format!("`{}` ({call}) in {file}", rule.name));
                }
            }
        }
        assert!(missing.is_empty(), "rows without a test: {missing:#?}");
    }
}
