//! Recording a trace while the function runs: what the code of `explain_f` calls.
//!
//! `#[autodiff]` writes `explain_f` as the function's own Wengert list with a call after each
//! value: [`Recorder::operation`] appends a row for each value *as it is computed*, so a loop body
//! appends its rows once per executed iteration and only the arm of an `if` that ran appends any.
//! The recorder knows, for each value of the list (by its index in the macro's list), which row
//! holds its current value: an operand's edge starts there. A loop cell written back at the end of
//! an iteration, or the output of an `if`, is not a new row: it is bound to the row of what was
//! written into it ([`Recorder::bind`]).
//!
//! Tangents and adjoints are then forward and reverse mode over the recorded rows, in the
//! function's own float type: a row's tangent is `Σ ∂v/∂u·u̇` over its edges as they are recorded,
//! and [`Recorder::finish`] sweeps the edges backwards from `ȳ = 1`, `ū += ∂v/∂u·v̄`. These are the
//! sums `jvp_f` and `grad_f` compute, in the same order.

use super::{Role, Trace};
use crate::Float;

/// A loop or an `if` arm the rows being recorded are in.
#[derive(Clone, Debug)]
enum Place {
    /// A loop: iterations so far, and the loop variables of the current one (`i = 3`).
    Loop { count: usize, label: Option<String> },
    /// The arm of an `if` that ran, as its condition (`s > 1.0`, `!(s > 1.0)`).
    Arm(String),
}

/// A trace under construction. See the [module documentation](self).
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct Recorder<F> {
    trace: Trace,
    /// The tangent of each row, and the partial of each edge (`None`: not differentiable), in `F`.
    tangents: Vec<F>,
    partials: Vec<Option<F>>,
    /// The row holding the current value of each value of the list, by its index; `None` while it
    /// does not depend on the inputs.
    rows: Vec<Option<usize>>,
    /// The rows of the elements of each vector (slice parameters and local vectors).
    elements: Vec<Vec<Option<usize>>>,
    places: Vec<Place>,
}

impl<F: Float> Recorder<F> {
    /// A recorder for a list of `values` values.
    pub fn new(trace: Trace, values: usize) -> Self {
        Recorder {
            trace,
            tangents: Vec::new(),
            partials: Vec::new(),
            rows: vec![None; values],
            elements: vec![Vec::new(); values],
            places: Vec::new(),
        }
    }

    /// The row of value `var` now.
    pub fn value(&self, var: usize) -> Option<usize> {
        self.rows[var]
    }

    /// The row of element `index` of vector `var` now.
    pub fn element(&self, var: usize, index: usize) -> Option<usize> {
        self.elements[var].get(index).copied().flatten()
    }

    /// The rows of every element of vector `var` now.
    pub fn elements(&self, var: usize) -> Vec<Option<usize>> {
        self.elements[var].clone()
    }

    fn push(&mut self, name: &str, expr: &str, role: Role, value: F, tangent: F) -> usize {
        let row = self.trace.push(name, expr, role, value.to_f64(), 0.0);
        self.trace.rows[row].context = self.context();
        self.tangents.push(tangent);
        row
    }

    /// A scalar parameter, value `var`, with its tangent.
    pub fn input(&mut self, var: usize, name: &str, value: F, tangent: F) {
        self.rows[var] = Some(self.push(name, "", Role::Input, value, tangent));
    }

    /// A slice, `Vec` or array parameter: one input row per element, `x[0]`, `x[1]`, ….
    ///
    /// # Panics
    /// If the tangent does not have one entry per element.
    pub fn input_elements(&mut self, var: usize, name: &str, values: &[F], tangents: &[F]) {
        assert_eq!(
            values.len(),
            tangents.len(),
            "the tangent of `{name}` must have one entry per element"
        );
        let rows = values
            .iter()
            .zip(tangents)
            .enumerate()
            .map(|(i, (v, t))| Some(self.push(&format!("{name}[{i}]"), "", Role::Input, *v, *t)))
            .collect();
        self.elements[var] = rows;
    }

    fn edge(&mut self, from: usize, to: usize, partial: Option<F>, operand: &str) {
        self.trace.edges.push(super::Edge {
            from,
            to,
            partial: partial.map(F::to_f64),
            operand: operand.to_string(),
        });
        self.partials.push(partial);
        if let Some(p) = partial {
            let t = p * self.tangents[from];
            self.tangents[to] += t;
        }
    }

    /// Value `var = expr`, computed from operands (as `expr` names them) at the rows `edges`
    /// (`None`: a constant there) with the local partial derivatives (`None`: not
    /// differentiable). A value computed from constants only is a constant itself: no row.
    pub fn operation(
        &mut self,
        var: usize,
        name: &str,
        expr: &str,
        value: F,
        edges: &[(Option<usize>, Option<F>, &str)],
    ) {
        if edges.iter().all(|(from, _, _)| from.is_none()) {
            self.rows[var] = None;
            return;
        }
        let row = self.push(name, expr, Role::Operation, value, F::ZERO);
        for (from, partial, operand) in edges {
            if let Some(from) = from {
                self.edge(*from, row, *partial, operand);
            }
        }
        self.rows[var] = Some(row);
    }

    /// The result, `expr`, at row `from`; its adjoint is the seed `ȳ = 1`.
    pub fn output(&mut self, name: &str, expr: &str, value: F, from: Option<usize>) {
        let row = self.push(name, expr, Role::Output, value, F::ZERO);
        if let Some(from) = from {
            self.edge(from, row, Some(F::ONE), expr);
        }
    }

    /// Values now held by the rows given (loop cells written back, outputs of an `if`, copies): all
    /// rows are read before any value is bound, as the write-back assigns all cells at once.
    pub fn bind(&mut self, pairs: &[(usize, Option<usize>)]) {
        for (var, row) in pairs {
            self.rows[*var] = *row;
        }
    }

    /// Vector `var` now holds elements at `rows` (a copy of another vector, or constants).
    pub fn bind_vector(&mut self, var: usize, rows: Vec<Option<usize>>) {
        self.elements[var] = rows;
    }

    /// `var[index] = ` the value at row `row`.
    pub fn set_element(&mut self, var: usize, index: usize, row: Option<usize>) {
        let elements = &mut self.elements[var];
        if elements.len() <= index {
            elements.resize(index + 1, None);
        }
        elements[index] = row;
    }

    /// A loop starts.
    pub fn enter_loop(&mut self) {
        self.places.push(Place::Loop {
            count: 0,
            label: None,
        });
    }

    /// An iteration of the innermost loop starts, with its loop variables' values where they can
    /// be shown (see [`Shown`]).
    pub fn iteration(&mut self, vars: &[(&str, Option<String>)]) {
        let shown: Vec<String> = vars
            .iter()
            .filter_map(|(n, v)| Some(format!("{n} = {}", v.as_ref()?)))
            .collect();
        if let Some(Place::Loop { count, label }) = self.places.last_mut() {
            *count += 1;
            *label = (!shown.is_empty()).then(|| shown.join(", "));
        }
    }

    /// The innermost loop has ended.
    pub fn exit_loop(&mut self) {
        self.places.pop();
    }

    /// The arm of an `if` taken because `condition` held.
    pub fn enter_arm(&mut self, condition: &str) {
        self.places.push(Place::Arm(condition.to_string()));
    }

    /// The arm has ended.
    pub fn exit_arm(&mut self) {
        self.places.pop();
    }

    /// Where a row is recorded: `i = 2, j = 0`, `iteration 3`, `s > 1.0`; empty at the top level.
    fn context(&self) -> String {
        let place = |p: &Place| match p {
            Place::Loop {
                label: Some(label), ..
            } => label.clone(),
            Place::Loop { count, .. } => format!("iteration {count}"),
            Place::Arm(condition) => condition.clone(),
        };
        self.places.iter().map(place).collect::<Vec<_>>().join(", ")
    }

    /// The trace, with the adjoints of the reverse sweep over the recorded edges. Edges are
    /// recorded with the row they lead to, so in reverse order each row's adjoint is complete
    /// before it is passed on.
    pub fn finish(mut self) -> Trace {
        let mut adjoints = vec![F::ZERO; self.tangents.len()];
        if let Some(out) = self.trace.rows.iter().rposition(|r| r.role == Role::Output) {
            adjoints[out] = F::ONE;
        }
        for (e, partial) in self.trace.edges.iter().zip(&self.partials).rev() {
            if let Some(p) = partial {
                let a = *p * adjoints[e.to];
                adjoints[e.from] += a;
            }
        }
        for ((row, t), a) in self.trace.rows.iter_mut().zip(self.tangents).zip(adjoints) {
            row.tangent = t.to_f64();
            row.adjoint = a.to_f64();
        }
        self.trace
    }
}

/// The partial derivative of a call of another `#[autodiff]` function with respect to one
/// argument: an entry of its gradient (`__diffx_vjp_g(…, 1.0)`), or [`Zero`](crate::private::Zero)
/// for a parameter it does not differentiate.
#[doc(hidden)]
pub trait CallPartial<F> {
    fn partial(&self) -> Option<F>;
}

impl CallPartial<f64> for f64 {
    fn partial(&self) -> Option<f64> {
        Some(*self)
    }
}

impl CallPartial<f32> for f32 {
    fn partial(&self) -> Option<f32> {
        Some(*self)
    }
}

impl<F> CallPartial<F> for crate::private::Zero {
    fn partial(&self) -> Option<F> {
        None
    }
}

/// A loop variable, shown in the trace if it implements `Display` (`i = 3`), and counted as an
/// iteration otherwise: `(&Shown(&i)).shown()` picks [`ShowDisplay`] where it applies, else
/// [`ShowNothing`] (method resolution tries `&Shown` before `&&Shown`).
#[doc(hidden)]
pub struct Shown<'a, T: ?Sized>(pub &'a T);

#[doc(hidden)]
pub trait ShowDisplay {
    fn shown(&self) -> Option<String>;
}

impl<T: core::fmt::Display + ?Sized> ShowDisplay for Shown<'_, T> {
    fn shown(&self) -> Option<String> {
        Some(self.0.to_string())
    }
}

#[doc(hidden)]
pub trait ShowNothing {
    fn shown(&self) -> Option<String>;
}

impl<T: ?Sized> ShowNothing for &Shown<'_, T> {
    fn shown(&self) -> Option<String> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// y = x·x, then s = s + y twice in a loop (s starting as a constant).
    #[test]
    fn loops_bind_cells_and_sweep_back() {
        let mut r = Recorder::<f64>::new(Trace::new("f"), 4);
        r.input(0, "x", 3.0, 1.0);
        r.operation(
            1,
            "y",
            "x * x",
            9.0,
            &[(r.value(0), Some(3.0), "x"), (r.value(0), Some(3.0), "x")],
        );
        r.bind(&[(2, None)]);
        r.enter_loop();
        for i in 0..2 {
            r.iteration(&[("i", Some(i.to_string()))]);
            r.operation(
                3,
                "s_1",
                "s + y",
                9.0 * (i + 1) as f64,
                &[(r.value(2), Some(1.0), "s"), (r.value(1), Some(1.0), "y")],
            );
            r.bind(&[(2, r.value(3))]);
        }
        r.exit_loop();
        r.output("f", "s", 18.0, r.value(2));
        let t = r.finish();
        let rows: Vec<(&str, &str, f64, f64)> = t
            .rows()
            .iter()
            .map(|r| (r.name.as_str(), r.context.as_str(), r.tangent, r.adjoint))
            .collect();
        assert_eq!(
            rows,
            [
                ("x", "", 1.0, 12.0),
                ("y", "", 6.0, 2.0),
                ("s_1", "i = 0", 6.0, 1.0),
                ("s_1", "i = 1", 12.0, 1.0),
                ("f", "", 12.0, 1.0)
            ]
        );
        // The first iteration reads s as a constant: no edge from it.
        assert_eq!(t.edges().len(), 6);
    }

    #[test]
    fn constants_are_no_rows_and_elements_are_inputs() {
        let mut r = Recorder::<f32>::new(Trace::new("g"), 3);
        r.input_elements(0, "x", &[1.0, 2.0], &[0.0, 1.0]);
        r.operation(1, "c", "2.0 * 3.0", 6.0, &[(None, Some(2.0), "")]);
        assert_eq!(r.value(1), None);
        r.set_element(2, 1, r.element(0, 1));
        r.operation(
            1,
            "t",
            "v[1] * 2.0",
            4.0,
            &[(r.element(2, 1), Some(2.0), "v[1]")],
        );
        r.output("g", "t", 4.0, r.value(1));
        let t = r.finish();
        assert_eq!(t.adjoint("x[1]"), Some(2.0));
        assert_eq!(t.adjoint("x[0]"), Some(0.0));
        assert_eq!(t.tangent("g"), Some(2.0));
    }

    #[test]
    // The generated code's form: the `&` is what lets a type without `Display` fall through.
    #[allow(clippy::needless_borrow)]
    fn loop_variables_show_if_they_can() {
        use super::{ShowDisplay as _, ShowNothing as _};
        struct Opaque;
        assert_eq!((&Shown(&3_usize)).shown(), Some("3".to_string()));
        assert_eq!((&Shown(&Opaque)).shown(), None);
        let mut r = Recorder::<f64>::new(Trace::new("h"), 1);
        r.enter_loop();
        r.iteration(&[]);
        r.iteration(&[]);
        assert_eq!(r.context(), "iteration 2");
        r.enter_arm("x > 0.0");
        assert_eq!(r.context(), "iteration 2, x > 0.0");
    }
}
