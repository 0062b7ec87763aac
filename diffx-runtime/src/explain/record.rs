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

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::value::{Partial, Value};
use super::{Role, Trace};
use crate::Float;

/// The row name and expression of element `k` of `n` of a call's result `name`: see
/// [`Recorder::split`].
fn element_name(
    name: &str,
    k: usize,
    n: usize,
    starts: &[usize],
    named: &[(usize, &str)],
) -> (String, String) {
    let Some(part) = starts.iter().rposition(|s| *s <= k) else {
        let element = format!("{name}[{k}]");
        return (element.clone(), element);
    };
    let (start, end) = (starts[part], starts.get(part + 1).copied().unwrap_or(n));
    let (whole, at) = (format!("{name}.{part}"), k - start);
    let label = named
        .iter()
        .find(|(i, _)| *i == part)
        .map_or(whole.clone(), |(_, n)| n.to_string());
    match end - start {
        1 => (label, whole),
        _ => (format!("{label}[{at}]"), format!("{whole}[{at}]")),
    }
}

/// The vector of `n` zeros but `x` at `k`: the tangent (or cotangent) of a vector that one of its
/// elements contributes.
fn one_hot<F: Float>(n: usize, k: usize, x: F) -> Value<F> {
    let mut data = vec![F::ZERO; n];
    data[k] = x;
    Value::Tensor(crate::Tensor::from_vec(data, &[n]))
}

/// A loop or an `if` arm the rows being recorded are in.
#[derive(Clone, Debug)]
enum Place {
    /// A loop: iterations so far, and the loop variables of the current one (`i = 3`).
    Loop { count: usize, label: Option<String> },
    /// The arm of an `if` that ran, as its condition (`s > 1.0`, `!(s > 1.0)`).
    Arm(String),
}

/// An operand of a recorded operation: the row it comes from (`None`: a constant), the local
/// partial derivative, the operand as the expression names it, and for a partial that is not a
/// number, what the graph labels the edge with (`matmul`, `⊙ tanh`).
#[doc(hidden)]
pub struct Operand<'a, F: Float> {
    pub from: Option<usize>,
    pub partial: Partial<'a, F>,
    pub name: Cow<'a, str>,
    pub map: &'a str,
    /// For a linear map, its tangent map applied to the operand's tangent.
    pub tangent: Option<Value<F>>,
}

impl<'a, F: Float> Operand<'a, F> {
    /// An operand whose partial is a number or a tensor (or `None`).
    pub fn new(from: Option<usize>, partial: Partial<'a, F>, name: &'a str) -> Self {
        Operand {
            from,
            partial,
            name: Cow::Borrowed(name),
            map: "",
            tangent: None,
        }
    }

    /// The same operand, its edge labelled `map` (`⊙ tanh′`) where the partial is no number.
    pub fn with_map(mut self, map: &'a str) -> Self {
        self.map = map;
        self
    }

    /// An operand `map` (`matmul`) is linear in: the tangent map applied to the operand's
    /// tangent ([`Recorder::tangent`]), and the transpose.
    pub fn linear(
        from: Option<usize>,
        name: &'a str,
        map: &'a str,
        tangent: Option<Value<F>>,
        transpose: impl Fn(&Value<F>) -> Value<F> + 'a,
    ) -> Self {
        Operand {
            from,
            partial: Partial::linear(transpose),
            name: Cow::Borrowed(name),
            map,
            tangent,
        }
    }
}

/// A trace under construction. See the [module documentation](self).
#[doc(hidden)]
pub struct Recorder<'a, F: Float> {
    trace: Trace,
    /// The value and the tangent of each row, and the partial of each edge, in `F`.
    values: Vec<Value<F>>,
    tangents: Vec<Value<F>>,
    partials: Vec<Partial<'a, F>>,
    /// The cotangent each output row starts the reverse sweep with.
    seeds: Vec<(usize, Value<F>)>,
    /// The row holding the current value of each value of the list, by its index; `None` while it
    /// does not depend on the inputs.
    rows: Vec<Option<usize>>,
    /// The rows of the elements of each vector (slice parameters and local vectors).
    elements: Vec<Vec<Option<usize>>>,
    /// The rows of the fields of parameter structs the function reads (`model.layers[0].w`).
    fields: Vec<Option<usize>>,
    /// The rows of the fields read at paths known only at run time (`model.layers[i].w`), by name.
    named_fields: BTreeMap<String, Option<usize>>,
    places: Vec<Place>,
}

impl<'a, F: Float> Recorder<'a, F> {
    /// A recorder for a list of `values` values.
    pub fn new(trace: Trace, values: usize) -> Self {
        Recorder {
            trace,
            values: Vec::new(),
            tangents: Vec::new(),
            partials: Vec::new(),
            seeds: Vec::new(),
            rows: vec![None; values],
            elements: vec![Vec::new(); values],
            fields: Vec::new(),
            named_fields: BTreeMap::new(),
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

    /// The row of field `index` of the parameter structs, in the order [`Recorder::input_field`]
    /// recorded them.
    pub fn field(&self, index: usize) -> Option<usize> {
        self.fields.get(index).copied().flatten()
    }

    /// The tangent of row `row`, if there is one.
    pub fn tangent(&self, row: Option<usize>) -> Option<&Value<F>> {
        self.tangents.get(row?)
    }

    fn push(&mut self, name: &str, expr: &str, role: Role, value: Value<F>) -> usize {
        let row = self.trace.push(name, expr, role, value.summary(), 0.0);
        self.trace.rows[row].context = self.context();
        self.trace.rows[row].shape = value.shape().to_vec();
        self.tangents.push(value.zero_like());
        self.values.push(value);
        row
    }

    fn push_input(&mut self, name: &str, value: Value<F>, tangent: Value<F>) -> usize {
        let row = self.push(name, "", Role::Input, value);
        // A field first read in a loop is an input all the same, not a value of the iteration.
        self.trace.rows[row].context.clear();
        self.tangents[row].accumulate(tangent);
        row
    }

    /// A scalar parameter, value `var`, with its tangent.
    pub fn input(&mut self, var: usize, name: &str, value: F, tangent: F) {
        let row = self.push_input(name, Value::Scalar(value), Value::Scalar(tangent));
        self.rows[var] = Some(row);
    }

    /// A tensor parameter, value `var`, with its tangent.
    pub fn input_value(&mut self, var: usize, name: &str, value: Value<F>, tangent: Value<F>) {
        self.rows[var] = Some(self.push_input(name, value, tangent));
    }

    /// The next field of a parameter struct the function reads, `model.layers[0].w`, with the
    /// same field of the struct's tangent: a row if it is a value (not a nested struct).
    pub fn input_field(&mut self, name: &str, value: Option<Value<F>>, tangent: Option<Value<F>>) {
        let row = match (value, tangent) {
            (Some(v), Some(t)) => Some(self.push_input(name, v, t)),
            _ => {
                self.not_a_value(name);
                None
            }
        };
        self.fields.push(row);
    }

    /// The field `name` read at a path known only at run time (`model.layers[1].w`), with its
    /// tangent: an input row the first time it is read.
    pub fn touch_field(
        &mut self,
        name: String,
        value: impl FnOnce() -> Option<Value<F>>,
        tangent: impl FnOnce() -> Option<Value<F>>,
    ) {
        if self.named_fields.contains_key(&name) {
            return;
        }
        let row = match (value(), tangent()) {
            (Some(v), Some(t)) => Some(self.push_input(&name, v, t)),
            _ => {
                self.not_a_value(&name);
                None
            }
        };
        self.named_fields.insert(name, row);
    }

    /// The row of the field `name` recorded by [`Recorder::touch_field`].
    pub fn field_named(&self, name: &str) -> Option<usize> {
        self.named_fields.get(name).copied().flatten()
    }

    /// A differentiable parameter (or field) `name` that is no number or tensor: a struct the
    /// function reads by no field. It has no row, which the trace says.
    pub fn not_a_value(&mut self, name: &str) {
        self.trace
            .notes
            .push(format!("`{name}` is no number or tensor: it has no row"));
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
            .map(|(i, (v, t))| {
                let (v, t) = (Value::Scalar(*v), Value::Scalar(*t));
                Some(self.push_input(&format!("{name}[{i}]"), v, t))
            })
            .collect();
        self.elements[var] = rows;
    }

    /// Edge `from → to`: its tangent contribution now, its partial kept for the reverse sweep.
    fn edge(&mut self, to: usize, operand: Operand<'a, F>) {
        let Some(from) = operand.from else { return };
        // A map between numbers (a call of a function of numbers) is a number: its transpose at 1.
        let number = match (&operand.partial, &self.values[from], &self.values[to]) {
            (Partial::Linear(_), Value::Scalar(_), Value::Scalar(_)) => {
                match operand.partial.pull(&Value::Scalar(F::ONE)) {
                    Some(Value::Scalar(p)) => Some(p),
                    _ => None,
                }
            }
            (partial, _, _) => partial.number(),
        };
        self.trace.edges.push(super::Edge {
            from,
            to,
            partial: number.map(F::as_f64),
            operand: operand.name.to_string(),
            map: (number.is_none() && !operand.map.is_empty()).then(|| operand.map.to_string()),
        });
        let t = match (&operand.partial, operand.tangent) {
            (_, Some(t)) => Some(t),
            (Partial::Elementwise(p), None) => Some(p.mul(&self.tangents[from])),
            _ => None,
        };
        if let Some(t) = t {
            self.tangents[to].accumulate(t);
        }
        self.partials.push(operand.partial);
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
        edges: &[(Option<usize>, Option<F>, &'a str)],
    ) {
        let operands = edges
            .iter()
            .map(|(from, partial, operand)| {
                let p = partial.map_or(Partial::None, |p| Partial::Elementwise(Value::Scalar(p)));
                Operand::new(*from, p, operand)
            })
            .collect();
        self.operation_value(var, name, expr, Value::Scalar(value), operands);
    }

    /// [`Recorder::operation`] of a value that may be a tensor, with partials that may be tensors
    /// or linear maps.
    pub fn operation_value(
        &mut self,
        var: usize,
        name: &str,
        expr: &str,
        value: Value<F>,
        operands: Vec<Operand<'a, F>>,
    ) {
        if operands.iter().all(|o| o.from.is_none()) {
            self.rows[var] = None;
            return;
        }
        let row = self.push(name, expr, Role::Operation, value);
        for operand in operands {
            self.edge(row, operand);
        }
        self.rows[var] = Some(row);
    }

    /// Vector `var` as one row, `name` (`[v[0], v[1]]`), from the rows of its elements: what a
    /// call reads of a vector passed whole (`norm(&v)`). `None` if no element has a row.
    pub fn gather(&mut self, var: usize, name: &str, value: Value<F>) -> Option<usize> {
        let rows = self.elements[var].clone();
        if rows.iter().all(Option::is_none) {
            return None;
        }
        let n = value.shape().iter().product::<usize>();
        let names: Vec<String> = (0..n).map(|j| format!("{name}[{j}]")).collect();
        let row = self.push(
            name,
            &format!("[{}]", names.join(", ")),
            Role::Operation,
            value,
        );
        for (j, (from, operand)) in rows.into_iter().zip(names).enumerate() {
            let Some(from) = from else { continue };
            let tangent = one_hot(n, j, self.tangents[from].entry(0));
            let pick = move |g: &Value<F>| Value::Scalar(g.entry(j));
            let mut edge = Operand::linear(Some(from), "", "stack", Some(tangent), pick);
            edge.name = Cow::Owned(operand);
            self.edge(row, edge);
        }
        Some(row)
    }

    /// The elements of vector `var`, whose value is a row (a call's vector result): a row each,
    /// which is what the function's code reads. For a tuple (`starts` holds where each part
    /// begins) they are named by part, `p[0]` or `s` for the parts the code names in `named`
    /// (`let (p, s) = …`), else `name.1[0]`; for a vector, `name[0]`, `name[1]`, ….
    pub fn split(&mut self, var: usize, name: &str, starts: &[usize], named: &[(usize, &str)]) {
        let Some(row) = self.rows[var] else {
            self.elements[var] = Vec::new();
            return;
        };
        let value = self.values[row].clone();
        let n = value.shape().iter().product::<usize>();
        self.elements[var] = (0..n)
            .map(|k| {
                let (element, expr) = element_name(name, k, n, starts, named);
                let tangent = Value::Scalar(self.tangents[row].entry(k));
                let spread = move |g: &Value<F>| one_hot(n, k, g.entry(0));
                let mut edge = Operand::linear(Some(row), "", "[·]", Some(tangent), spread);
                edge.name = Cow::Owned(name.to_string());
                let at = self.push(
                    &element,
                    &expr,
                    Role::Operation,
                    Value::Scalar(value.entry(k)),
                );
                self.edge(at, edge);
                Some(at)
            })
            .collect();
    }

    /// The result, `expr`, at row `from`; its adjoint is the seed `ȳ = 1`.
    pub fn output(&mut self, name: &str, expr: &str, value: F, from: Option<usize>) {
        self.output_value(
            name,
            expr,
            Value::Scalar(value),
            from,
            Value::Scalar(F::ONE),
        );
    }

    /// The result (or one element of it), `expr`, at row `from`, and the cotangent `seed` the
    /// reverse sweep starts from there.
    pub fn output_value(
        &mut self,
        name: &str,
        expr: &str,
        value: Value<F>,
        from: Option<usize>,
        seed: Value<F>,
    ) {
        let row = self.push(name, expr, Role::Output, value);
        if let Some(from) = from {
            self.trace.edges.push(super::Edge {
                from,
                to: row,
                partial: Some(1.0),
                operand: expr.to_string(),
                map: None,
            });
            self.partials
                .push(Partial::Elementwise(Value::Scalar(F::ONE)));
            let t = self.tangents[from].clone();
            self.tangents[row].accumulate(t);
        }
        self.seeds.push((row, seed));
    }

    /// A vector-valued result: an output row per element, `g[0]`, `g[1]`, …, each seeded with
    /// its entry of the cotangent `ct`.
    ///
    /// # Panics
    /// If the cotangent does not have one entry per element.
    pub fn output_elements(&mut self, name: &str, values: &[F], rows: &[Option<usize>], ct: &[F]) {
        assert_eq!(
            values.len(),
            ct.len(),
            "the cotangent of `{name}` must have one entry per element"
        );
        self.trace.cotangent = Some(list(ct));
        for (i, (v, c)) in values.iter().zip(ct).enumerate() {
            let from = rows.get(i).copied().flatten();
            let expr = from.map_or(String::new(), |r| self.trace.rows[r].name.clone());
            let (v, c) = (Value::Scalar(*v), Value::Scalar(*c));
            self.output_value(&format!("{name}[{i}]"), &expr, v, from, c);
        }
    }

    /// A tensor-valued result, seeded with the cotangent `ct`.
    pub fn output_tensor(
        &mut self,
        name: &str,
        expr: &'a str,
        value: Value<F>,
        from: Option<usize>,
        ct: Value<F>,
    ) {
        self.trace.cotangent = Some(format!(
            "a tensor {:?} of norm {}",
            ct.shape(),
            super::short(ct.summary())
        ));
        self.output_value(name, expr, value, from, ct);
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

    /// The trace, with the adjoints of the reverse sweep over the recorded edges from the seeds.
    /// Edges are recorded with the row they lead to, so in reverse order each row's adjoint is
    /// complete before it is passed on.
    pub fn finish(mut self) -> Trace {
        let mut adjoints: Vec<Value<F>> = self.values.iter().map(Value::zero_like).collect();
        for (row, seed) in std::mem::take(&mut self.seeds) {
            adjoints[row].accumulate(seed);
        }
        for (e, partial) in self.trace.edges.iter().zip(&self.partials).rev() {
            // A row whose adjoint is zero passes nothing on (as the reverse code, which has no
            // adjoint for a value the result does not read): not `0·NaN` of a partial at a
            // point where an unused value is not finite.
            if adjoints[e.to].is_zero() {
                continue;
            }
            if let Some(a) = partial.pull(&adjoints[e.to]) {
                adjoints[e.from].accumulate(a);
            }
        }
        let all = self.values.into_iter().zip(self.tangents).zip(adjoints);
        for (row, ((v, t), a)) in self.trace.rows.iter_mut().zip(all) {
            row.tangent = t.summary();
            row.adjoint = a.summary();
            if let (Some(value), Some(tangent), Some(adjoint)) =
                (v.tensor_f64(), t.tensor_f64(), a.tensor_f64())
            {
                row.tensors = Some(Box::new(super::Tensors {
                    value,
                    tangent,
                    adjoint,
                }));
            }
        }
        self.trace
    }
}

/// `(1, 0, 2)`.
fn list<F: Float>(xs: &[F]) -> String {
    let items: Vec<String> = xs.iter().map(|x| super::short(x.as_f64())).collect();
    format!("({})", items.join(", "))
}
/// The partial derivative of a call of another `#[autodiff]` function with respect to one
/// argument: an entry of its gradient (`__diffx_vjp_g(…, 1.0)`), or [`Zero`](crate::private::Zero)
/// for a parameter it does not differentiate.
#[doc(hidden)]
pub trait CallPartial<F> {
    fn partial(&self) -> Option<F>;
}

impl<F: Float> CallPartial<F> for F {
    fn partial(&self) -> Option<F> {
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
