//! Seeing inside a derivative: the evaluation trace of an `#[autodiff]` function at one point.
//!
//! For `#[autodiff] fn f(x1: f64, x2: f64) -> f64`, the macro also writes
//! `explain_f(x1, x2, x1_dot, x2_dot) -> Trace` (with the `explain` feature of `diffx`, off by
//! default). It runs the function's Wengert list and records it as it runs: a [`Trace`] holds one
//! [`Row`] per value computed — its expression, its value, its tangent along `(x1_dot, x2_dot)` and
//! its adjoint for the seed `ȳ = 1` — one [`Edge`] per operand with its local partial derivative,
//! and the derivative code of `jvp_f` and `grad_f`, pretty-printed. `grad_f` and `jvp_f` are not
//! changed by any of this.
//!
//! Rows are appended in the order the values are computed, parameters first (a slice, `Vec` or
//! array parameter has a row per element, `x[0]`, `x[1]`, …): a loop appends its rows once per
//! executed iteration and an `if` those of the arm that ran, each with its [`Row::context`]
//! (`i = 2`, `iteration 3`, `s > 1.0`). A name may repeat: look-ups by name ([`Trace::value`], …)
//! return its last row, [`Trace::rows_named`] all of them. The tangents are forward mode and the
//! adjoints reverse mode over the recorded rows and edges, in the function's float type: the sums
//! `jvp_f` and `grad_f` compute.
//!
//! A trace prints as the evaluation-trace table of the AD textbooks (`{trace}`, or `{trace:.6}` for
//! six decimals), with a `where` column when rows are in loops or arms, and as a Graphviz graph
//! ([`Trace::to_dot`]).
//!
//! Functions of tensors and parameter structs are traced too. A parameter struct has an input row
//! per field the function reads (`model.layers[0].w`), and its tangent is a value of its type. A
//! row whose value is a tensor has its [`Row::shape`]; its `value`, `tangent` and `adjoint` are
//! Frobenius norms, which the table prints as `‖2.5‖`, and [`Trace::tensors`] gives the three
//! tensors in full. An edge whose local derivative is not a number (a tensor of elementwise
//! partials, or a linear map such as `matmul`) has no [`Edge::partial`] but an [`Edge::map`], the
//! operation the graph labels it with. A vector-valued function (`-> [f64; M]`, `-> Vec<f64>`) has an
//! output row per element, `g[0]`, `g[1]`, …, and `explain_g` takes the cotangent `ȳ` of its result
//! as last argument: the adjoints are those of `⟨ȳ, g⟩`, what `vjp_g(…, ȳ)` returns. A
//! tensor-valued function takes a tensor cotangent likewise.
//!
//! A trace can also be built by hand:
//! ```
//! use diffx::explain::Trace;
//!
//! // y = x·x at x = 3, along ẋ = 1.
//! let mut t = Trace::new("square");
//! let x = t.input("x", 3.0, 1.0);
//! let v = t.operation("v", "x * x", 9.0, 6.0);
//! t.edge(x, v, 3.0);
//! t.edge(x, v, 3.0);
//! let y = t.output("square", "v", 9.0, 6.0);
//! t.edge(v, y, 1.0);
//! t.set_adjoint(x, 6.0);
//! t.set_adjoint(v, 1.0);
//! assert_eq!(t.adjoint("x"), Some(6.0));
//! assert!(t.to_string().contains("x * x"));
//! assert!(t.to_dot().starts_with("digraph"));
//! ```

use core::fmt::{self, Write as _};
use std::path::Path;

mod record;
mod value;
#[doc(hidden)]
pub use record::{CallPartial, Operand, Recorder, ShowDisplay, ShowNothing, Shown};
#[doc(hidden)]
pub use value::{
    cast, CastNothing, CastTo, CastValue, FromValue, Partial, Probe, ProbeNothing, ProbeValue,
    ToValue, Value,
};

use crate::Tensor;

/// What a row of a trace stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A differentiable parameter, or an element of one.
    Input,
    /// A value computed by one elementary operation (or a call of another `#[autodiff]` function).
    Operation,
    /// The function's result.
    Output,
}

/// One value of the evaluation trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The value's name in the Wengert list: the user's variable (`v1`), a parameter (`x1`), or a
    /// generated temporary (`t5`); the output row has the function's name.
    pub name: String,
    /// How the value is computed, as Rust (`x1.ln()`); empty for inputs.
    pub expr: String,
    /// Input, operation or output: how the graph draws it.
    pub role: Role,
    /// Where the value was computed: the loop iterations (`i = 2, j = 0`, or `iteration 3` for a
    /// loop without a variable to show) and the conditions of the `if` arms that led to it;
    /// empty at the top level.
    pub context: String,
    /// The value at the point.
    pub value: f64,
    /// The tangent `v̇`: the derivative of the value along the chosen input direction.
    pub tangent: f64,
    /// The adjoint `v̄ = ∂y/∂v` for the seed `ȳ = 1`; 0 if the output does not depend on the value.
    /// (For a vector- or tensor-valued function, `∂⟨ȳ, y⟩/∂v` for the cotangent `ȳ` given.)
    pub adjoint: f64,
    /// The shape of a tensor value, `[rows, cols]`; empty for a number. For a tensor, `value`,
    /// `tangent` and `adjoint` are Frobenius norms, and [`Row::tensors`] holds them in full.
    pub shape: Vec<usize>,
    /// A tensor value, its tangent and its adjoint, in `f64`; `None` for a number.
    pub tensors: Option<Box<Tensors>>,
}

/// The tensors of a row whose value is a tensor, in `f64`: each has the value's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensors {
    /// The value at the point.
    pub value: Tensor<f64>,
    /// The tangent along the chosen direction.
    pub tangent: Tensor<f64>,
    /// The adjoint: the gradient of the output (or of `⟨ȳ, y⟩`) with respect to this value.
    pub adjoint: Tensor<f64>,
}

/// A dependency in the computation graph: row `to` is computed from row `from`.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    /// The row of the operand.
    pub from: usize,
    /// The row of the value computed from it.
    pub to: usize,
    /// The local partial derivative `∂to/∂from` at the point (`None` for an operand the operation
    /// is not differentiable in, such as a parameter the called function does not differentiate).
    pub partial: Option<f64>,
    /// The operand as `to`'s expression names it: `p` in `p * x`. The row it comes from may be
    /// called otherwise, as the value a loop cell had after the previous iteration.
    pub operand: String,
    /// For a partial that is no number, the operation the edge stands for: `matmul` for a linear
    /// map (applied to tangents, transposed for adjoints), `⊙ tanh` for elementwise partials.
    pub map: Option<String>,
}

/// The evaluation trace of a function at a point: values, tangents, adjoints, local partials and
/// the derivative code. See the [module documentation](self).
#[derive(Clone, Debug, Default)]
pub struct Trace {
    function: String,
    rows: Vec<Row>,
    edges: Vec<Edge>,
    wengert_list: String,
    forward_code: String,
    reverse_code: String,
    /// The cotangent of a vector- or tensor-valued result, as the header shows it.
    cotangent: Option<String>,
    /// What the table cannot show, printed below it.
    notes: Vec<String>,
}

impl Trace {
    /// An empty trace of the function called `function`.
    pub fn new(function: impl Into<String>) -> Self {
        Trace {
            function: function.into(),
            ..Trace::default()
        }
    }

    /// Attaches the Wengert list and the forward- and reverse-mode code the trace was computed by.
    pub fn with_code(
        mut self,
        wengert_list: impl Into<String>,
        forward_code: impl Into<String>,
        reverse_code: impl Into<String>,
    ) -> Self {
        self.wengert_list = wengert_list.into();
        self.forward_code = forward_code.into();
        self.reverse_code = reverse_code.into();
        self
    }

    fn push(&mut self, name: &str, expr: &str, role: Role, value: f64, tangent: f64) -> usize {
        self.rows.push(Row {
            name: name.to_string(),
            expr: expr.to_string(),
            role,
            context: String::new(),
            value,
            tangent,
            adjoint: 0.0,
            shape: Vec::new(),
            tensors: None,
        });
        self.rows.len() - 1
    }

    /// Appends a parameter with its value and tangent; returns its row index.
    pub fn input(&mut self, name: &str, value: impl Into<f64>, tangent: impl Into<f64>) -> usize {
        self.push(name, "", Role::Input, value.into(), tangent.into())
    }

    /// Appends a computed value; returns its row index.
    pub fn operation(
        &mut self,
        name: &str,
        expr: &str,
        value: impl Into<f64>,
        tangent: impl Into<f64>,
    ) -> usize {
        self.push(name, expr, Role::Operation, value.into(), tangent.into())
    }

    /// Appends the result, whose adjoint is the seed `ȳ = 1`; returns its row index.
    pub fn output(
        &mut self,
        name: &str,
        expr: &str,
        value: impl Into<f64>,
        tangent: impl Into<f64>,
    ) -> usize {
        let i = self.push(name, expr, Role::Output, value.into(), tangent.into());
        self.rows[i].adjoint = 1.0;
        i
    }

    /// Records that row `to` depends on row `from`, with the local partial `∂to/∂from`.
    pub fn edge(&mut self, from: usize, to: usize, partial: impl Into<f64>) {
        self.edges.push(Edge {
            from,
            to,
            partial: Some(partial.into()),
            operand: self.name_of(from),
            map: None,
        });
    }

    /// Records that row `to` depends on row `from`, with no partial to show.
    pub fn link(&mut self, from: usize, to: usize) {
        self.edges.push(Edge {
            from,
            to,
            partial: None,
            operand: self.name_of(from),
            map: None,
        });
    }

    fn name_of(&self, row: usize) -> String {
        self.rows
            .get(row)
            .map(|r| r.name.clone())
            .unwrap_or_default()
    }

    /// Sets the adjoint of row `row`, as the reverse sweep computed it.
    pub fn set_adjoint(&mut self, row: usize, adjoint: impl Into<f64>) {
        if let Some(r) = self.rows.get_mut(row) {
            r.adjoint = adjoint.into();
        }
    }

    /// The name of the traced function.
    pub fn function(&self) -> &str {
        &self.function
    }

    /// Every value, in the order it was computed: parameters, operations, the output.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// Every dependency of the computation graph.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The last row called `name`.
    pub fn row(&self, name: &str) -> Option<&Row> {
        self.rows.iter().rev().find(|r| r.name == name)
    }

    /// Every row called `name`, in order: one per executed iteration for a value in a loop.
    pub fn rows_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Row> + 'a {
        self.rows.iter().filter(move |r| r.name == name)
    }

    /// The value called `name`.
    pub fn value(&self, name: &str) -> Option<f64> {
        self.row(name).map(|r| r.value)
    }

    /// The tangent of the value called `name` along the traced direction.
    pub fn tangent(&self, name: &str) -> Option<f64> {
        self.row(name).map(|r| r.tangent)
    }

    /// The adjoint `∂y/∂v` of the value called `name`.
    pub fn adjoint(&self, name: &str) -> Option<f64> {
        self.row(name).map(|r| r.adjoint)
    }

    /// The tensors of the last row called `name`, if its value is a tensor: value, tangent and
    /// adjoint in full (the table shows their norms).
    pub fn tensors(&self, name: &str) -> Option<&Tensors> {
        self.row(name).and_then(|r| r.tensors.as_deref())
    }

    /// The result's row (the last one, for a vector-valued result).
    pub fn output_row(&self) -> Option<&Row> {
        self.rows.iter().rev().find(|r| r.role == Role::Output)
    }

    /// The rows of the result: one, or one per element of a vector-valued result.
    pub fn outputs(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.role == Role::Output)
    }

    /// The rows of the parameters.
    pub fn inputs(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.role == Role::Input)
    }

    /// The function's Wengert list as the macro sees it: `v1 = ln(x1)`, ….
    pub fn wengert_list(&self) -> &str {
        &self.wengert_list
    }

    /// The forward-mode code `#[autodiff]` wrote (what `jvp_f` runs), formatted.
    pub fn forward_code(&self) -> &str {
        &self.forward_code
    }

    /// The reverse-mode code `#[autodiff]` wrote (what `grad_f` runs), formatted.
    pub fn reverse_code(&self) -> &str {
        &self.reverse_code
    }

    /// The computation graph in Graphviz's DOT language: parameters as ellipses, operations as
    /// boxes, the output as a double octagon, each labelled with its value and gradient (adjoint);
    /// edges labelled with the local partial derivatives. Render with `dot -Tsvg f.dot -o f.svg`.
    pub fn to_dot(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "digraph {} {{", quoted(&self.function));
        s.push_str("    rankdir=LR;\n");
        s.push_str("    node [fontname=\"Helvetica\", fontsize=11];\n");
        s.push_str("    edge [fontname=\"Helvetica\", fontsize=10];\n");
        for (i, r) in self.rows.iter().enumerate() {
            let head = match r.role {
                Role::Input => r.name.clone(),
                _ => format!("{} = {}", r.name, r.expr),
            };
            let place = if r.context.is_empty() {
                String::new()
            } else {
                format!("\n({})", r.context)
            };
            let label = if r.shape.is_empty() {
                format!(
                    "{head}{place}\nvalue {}\ngrad {}",
                    short(r.value),
                    short(r.adjoint)
                )
            } else {
                format!(
                    "{head}{place}\n{:?}\nvalue ‖{}‖\ngrad ‖{}‖",
                    r.shape,
                    short(r.value),
                    short(r.adjoint)
                )
            };
            let style = match r.role {
                Role::Input => "shape=ellipse, style=filled, fillcolor=\"#dbe9f6\"",
                Role::Operation => "shape=box",
                Role::Output => "shape=doubleoctagon, style=filled, fillcolor=\"#fde2c8\"",
            };
            let _ = writeln!(s, "    n{i} [label={}, {style}];", quoted(&label));
        }
        for e in &self.edges {
            let _ = write!(s, "    n{} -> n{}", e.from, e.to);
            let label = match (e.partial, &e.map, self.rows.get(e.to)) {
                (Some(p), _, Some(to)) => {
                    Some(format!("∂{}/∂{} = {}", to.name, e.operand, short(p)))
                }
                (None, Some(map), Some(to)) => Some(format!("∂{}/∂{}: {map}", to.name, e.operand)),
                _ => None,
            };
            match label {
                Some(label) => {
                    let _ = writeln!(s, " [label={}];", quoted(&label));
                }
                None => s.push_str(";\n"),
            }
        }
        s.push_str("}\n");
        s
    }

    /// Writes [`Trace::to_dot`] to `path`.
    pub fn write_dot(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        std::fs::write(path, self.to_dot())
    }

    /// `(x1, x2) = (2, 5)` for the given field of the input rows.
    fn inputs_line(&self, mark: &str, field: impl Fn(&Row) -> f64) -> String {
        let names: Vec<String> = self.inputs().map(|r| marked(&r.name, mark)).collect();
        let values: Vec<String> = self.inputs().map(|r| norm(r, short(field(r)))).collect();
        format!("({}) = ({})", names.join(", "), values.join(", "))
    }
}

/// The table: one line per row, numbers right-aligned to the formatter's precision (3 by default).
impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prec = f.precision().unwrap_or(3);
        writeln!(
            f,
            "{} at {}",
            self.function,
            self.inputs_line("", |r| r.value)
        )?;
        let y = self.output_row().map_or("y", |r| &r.name);
        let y = y.split('[').next().unwrap_or(y);
        let adjoints = match &self.cotangent {
            Some(ct) => format!("∂⟨y\u{304}, {y}⟩/∂v for y\u{304} = {ct}"),
            None => format!("∂{y}/∂v"),
        };
        writeln!(
            f,
            "tangents v\u{307} along {}; adjoints v\u{304} = {adjoints}",
            self.inputs_line("\u{307}", |r| r.tangent),
        )?;
        let tensors = self.rows.iter().any(|r| !r.shape.is_empty());
        if tensors {
            writeln!(
                f,
                "tensors show their shape and Frobenius norm ‖·‖ (all entries: trace.tensors(name))"
            )?;
        }
        // The column of loop iterations and arms only where there are any: straight-line code
        // prints the textbooks' table.
        let nested = self.rows.iter().any(|r| !r.context.is_empty());
        let mut header = vec!["v"];
        if nested {
            header.push("where");
        }
        header.push("expression");
        if tensors {
            header.push("shape");
        }
        header.extend(["value", "tangent v\u{307}", "adjoint v\u{304}"]);
        let texts = header.len() - 3;
        let mut cells: Vec<Vec<String>> = vec![header.into_iter().map(String::from).collect()];
        for r in &self.rows {
            let expr = match r.role {
                Role::Input => "input".to_string(),
                _ => r.expr.clone(),
            };
            let num = |x: f64| norm(r, format!("{:.prec$}", x + 0.0));
            let mut row = vec![r.name.clone()];
            if nested {
                row.push(r.context.clone());
            }
            row.push(expr);
            if tensors {
                row.push(if r.shape.is_empty() {
                    String::new()
                } else {
                    format!("{:?}", r.shape)
                });
            }
            row.extend([num(r.value), num(r.tangent), num(r.adjoint)]);
            cells.push(row);
        }
        let widths: Vec<usize> = (0..cells[0].len())
            .map(|c| cells.iter().map(|row| width(&row[c])).max().unwrap_or(0))
            .collect();
        for row in &cells {
            let mut line = String::new();
            for (c, cell) in row.iter().enumerate() {
                let pad = " ".repeat(widths[c] - width(cell));
                if c < texts {
                    line.push_str(&format!("{cell}{pad}  "));
                } else {
                    line.push_str(&format!("  {pad}{cell}"));
                }
            }
            writeln!(f, "{}", line.trim_end())?;
        }
        for note in &self.notes {
            writeln!(f, "note: {note}")?;
        }
        Ok(())
    }
}

/// A number of row `r` as the table shows it: a tensor's norm as `‖2.5‖`.
fn norm(r: &Row, number: String) -> String {
    if r.shape.is_empty() {
        number
    } else {
        format!("‖{number}‖")
    }
}

/// The width of `s` on screen: combining marks (the dot of `v̇`) take no column.
fn width(s: &str) -> usize {
    s.chars()
        .filter(|c| !('\u{300}'..='\u{36f}').contains(c))
        .count()
}

/// `x1` with a combining `mark` on its first letter: `ẋ1`, `ẋ[0]`, `ṁodel.w`.
fn marked(name: &str, mark: &str) -> String {
    let split = name.chars().next().map_or(0, char::len_utf8);
    format!("{}{mark}{}", &name[..split], &name[split..])
}

/// A number with at most three decimals and no trailing zeros: `0.693`, `5.5`, `2`.
pub(crate) fn short(x: f64) -> String {
    let s = format!("{:.3}", x + 0.0);
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        &s
    };
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// A DOT string literal.
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_never_negative_zero() {
        assert_eq!(short(0.123_456), "0.123");
        assert_eq!(short(5.5), "5.5");
        assert_eq!(short(2.0), "2");
        assert_eq!(short(-0.0), "0");
        assert_eq!(short(-0.0001), "0");
        assert_eq!(short(-0.958_924), "-0.959");
    }

    #[test]
    fn marks_sit_on_the_letter() {
        assert_eq!(marked("x1", "\u{307}"), "x\u{307}1");
        assert_eq!(marked("a", "\u{307}"), "a\u{307}");
        assert_eq!(marked("x[10]", "\u{307}"), "x\u{307}[10]");
        assert_eq!(marked("model.w", "\u{307}"), "m\u{307}odel.w");
        assert_eq!(width("tangent v\u{307}"), 9);
    }

    #[test]
    fn labels_are_escaped() {
        assert_eq!(quoted("a \"b\"\nc\\"), "\"a \\\"b\\\"\\nc\\\\\"");
    }

    #[test]
    fn columns_line_up() {
        let mut t = Trace::new("f");
        t.input("x", 2.0, 1.0);
        t.operation("long_name", "x.sin()", -12.25, 1.5);
        let text = format!("{t:.2}");
        let lines: Vec<&str> = text.lines().skip(2).collect();
        assert_eq!(lines[0].find("expression"), lines[1].find("input"));
        assert!(lines[2].ends_with("-12.25       1.50       0.00"), "{text}");
        assert_eq!(width(lines[0]), width(lines[2]));
    }

    #[test]
    fn iterations_get_a_column_and_a_line_in_the_graph() {
        let mut r = Recorder::<f64>::new(Trace::new("p"), 3);
        r.input(0, "x", 2.0, 1.0);
        r.bind(&[(1, r.value(0))]);
        r.enter_loop();
        for k in 0..2 {
            r.iteration(&[("_", None)]);
            let p = r.value(1);
            r.operation(
                2,
                "p_1",
                "p * x",
                4.0 * f64::from(k + 1),
                &[(p, Some(2.0), "p"), (r.value(0), Some(2.0), "x")],
            );
            r.bind(&[(1, r.value(2))]);
        }
        r.exit_loop();
        r.output("p", "p", 8.0, r.value(1));
        let t = r.finish();
        let text = t.to_string();
        let lines: Vec<&str> = text.lines().skip(2).collect();
        assert!(
            lines[0].starts_with("v    where        expression"),
            "{text}"
        );
        assert!(lines[2].starts_with("p_1  iteration 1  p * x"), "{text}");
        assert!(lines[4].starts_with("p                 p "), "{text}");
        let dot = t.to_dot();
        assert!(
            dot.contains("p_1 = p * x\\n(iteration 2)\\nvalue 8"),
            "{dot}"
        );
        // The second step's edge from the first is ∂p_1/∂p: p is what the first step wrote.
        assert!(dot.contains("n1 -> n2 [label=\"∂p_1/∂p = 2\"]"), "{dot}");
    }
}
