//! The checks run on every generated function, at random points.
//!
//! At each point drawn: the values of `value_and_grad_`, `grad_`, `jvp_`, `explain_` equal `f`'s;
//! `jvp_` along a random tangent equals ⟨∇f, t⟩; `vjp_` equals ct·∇f; `explain_`'s input
//! adjoints equal `grad_` and its output tangent `jvp_`'s; `hessian_`·t equals `hvp_`. Where
//! central differences at h and h/2 agree (the point is not within h of a branch switch or a
//! kink), also: `grad_` against central differences of `f`, `hvp_` against central differences
//! of `grad_`, `dhvp_` against central differences of `hvp_`. A function with no such point in
//! [`Options::max_draws`] draws is a failure too: it is never silently passed.
//!
//! [`run_one`] runs one function's checks in a thread under a watchdog (`watch.rs`): a derivative
//! program that does not terminate when the primal does is reported (its stage named) instead of
//! hanging the run or filling memory with its tape.
//!
//! This file and `check/watch.rs` use only `std` and `diffx`: the long-run tool includes them
//! into the crates it builds.

use std::fmt::Write as _;

#[path = "check/watch.rs"]
mod watch;
pub use watch::{live_bytes, run_one, CountingAlloc, Stage, Verdict};

type Args<'a> = (&'a [f64], &'a [f64], &'a [usize]);

/// A function of the point `(d, c, k)`.
pub type At<R> = fn(&[f64], &[f64], &[usize]) -> R;
/// A function of the point and a tangent of `d`'s shape.
pub type Along<R> = fn(&[f64], &[f64], &[usize], &[f64]) -> R;
/// `vjp_`: the point and a cotangent.
pub type Pullback = fn(&[f64], &[f64], &[usize], f64) -> Vec<f64>;
/// `dhvp_`: the point and two tangents.
pub type AlongTwo = fn(&[f64], &[f64], &[usize], &[f64], &[f64]) -> Vec<f64>;

/// A generated function and its derivative functions, on flat vectors: `d` the differentiable
/// components (scalars, then slices element by element, in parameter order), `c` the constant
/// floats, `k` the integers.
#[derive(Clone, Copy)]
pub struct Subject {
    pub name: &'static str,
    /// The function's source, with the helper it calls.
    pub source: &'static str,
    pub dims: usize,
    pub consts: usize,
    pub ints: usize,
    pub f: At<f64>,
    pub value_and_grad: At<(f64, Vec<f64>)>,
    pub grad: At<Vec<f64>>,
    pub vjp: Pullback,
    pub jvp: Along<(f64, f64)>,
    pub hvp: Option<Along<Vec<f64>>>,
    pub hessian: Option<At<Vec<Vec<f64>>>>,
    pub dhvp: Option<AlongTwo>,
    pub explain: Option<Along<Explained>>,
}

/// What a trace says: the output's value and tangent, and the inputs' adjoints in order.
#[derive(Clone, Debug)]
pub struct Explained {
    pub value: f64,
    pub tangent: f64,
    pub adjoints: Vec<f64>,
}

pub fn explained(t: &diffx::explain::Trace) -> Explained {
    let out = t.output_row();
    Explained {
        value: out.map_or(f64::NAN, |r| r.value),
        tangent: out.map_or(f64::NAN, |r| r.tangent),
        adjoints: t.inputs().map(|r| r.adjoint).collect(),
    }
}

/// A gradient of any shape, flattened: `f64`, `Vec<f64>`, arrays and tuples of them.
pub trait Flat {
    fn flat_into(self, out: &mut Vec<f64>);
}

impl Flat for f64 {
    fn flat_into(self, out: &mut Vec<f64>) {
        out.push(self);
    }
}

impl Flat for Vec<f64> {
    fn flat_into(self, out: &mut Vec<f64>) {
        out.extend(self);
    }
}

impl<const N: usize> Flat for [f64; N] {
    fn flat_into(self, out: &mut Vec<f64>) {
        out.extend(self);
    }
}

macro_rules! flat_tuple {
    ($($t:ident $i:tt),+) => {
        impl<$($t: Flat),+> Flat for ($($t,)+) {
            fn flat_into(self, out: &mut Vec<f64>) {
                $(self.$i.flat_into(out);)+
            }
        }
    };
}
flat_tuple!(A 0, B 1);
flat_tuple!(A 0, B 1, C 2);
flat_tuple!(A 0, B 1, C 2, D 3);
flat_tuple!(A 0, B 1, C 2, D 3, E 4);

pub fn flat(x: impl Flat) -> Vec<f64> {
    let mut out = Vec::new();
    x.flat_into(&mut out);
    out
}

pub fn array<const N: usize>(s: &[f64]) -> [f64; N] {
    s.try_into().expect("a slice of the array's length")
}

/// How many points and how patiently.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Smooth points to check each function at.
    pub points: usize,
    /// Points drawn at most to find them.
    pub max_draws: usize,
    pub seed: u64,
    /// Per stage (one call of one derivative function, or a batch of finite differences).
    pub timeout: std::time::Duration,
    /// Live heap bytes beyond which a stage is taken to be filling memory.
    pub memory_limit: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            points: 3,
            max_draws: 12,
            seed: 0x5EED,
            timeout: std::time::Duration::from_secs(5),
            memory_limit: 1 << 30,
        }
    }
}

/// What was checked for one function.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    pub smooth_points: usize,
    pub draws: usize,
    /// Points where differences at h and h/2 disagreed: within h of a switch or a kink.
    pub nonsmooth: usize,
    pub nonfinite: usize,
    pub hvp_checked: usize,
}

/// A check that failed: its kind (`grad-fd`, `value`, `jvp`, …) and what disagreed.
#[derive(Clone, Debug)]
pub struct Failure {
    pub kind: String,
    pub message: String,
}

fn fail<T>(kind: &str, message: String) -> Result<T, Failure> {
    Err(Failure {
        kind: kind.into(),
        message,
    })
}

/// SplitMix64, as in the generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }

    fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
}

/// Relative tolerances. Values of the derivative programs equal the primal's to rounding;
/// derivatives computed two ways by AD agree to rounding; finite differences (Richardson
/// extrapolation of central differences at h and h/2) to `FD`.
const VALUE: f64 = 1e-12;
const AD: f64 = 1e-9;
const FD: f64 = 1e-5;
/// Central differences at h and h/2 closer than this (relative) mean the point is smooth.
const SMOOTH: f64 = 1e-5;

fn close(a: f64, b: f64, rel: f64, scale: f64) -> bool {
    (a - b).abs() <= rel * (scale + a.abs().max(b.abs()))
}

fn show(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|x| format!("{x:.12e}")).collect();
    format!("[{}]", items.join(", "))
}

fn point_text(d: &[f64], c: &[f64], k: &[usize]) -> String {
    let mut s = format!("d = {}", show(d));
    if !c.is_empty() {
        let _ = write!(s, ", c = {}", show(c));
    }
    if !k.is_empty() {
        let _ = write!(s, ", k = {k:?}");
    }
    s
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn inf_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// Compares two vectors component by component; the message names the first that differs.
fn same_vec(what: &str, got: &[f64], want: &[f64], rel: f64, scale: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} components, expected {}",
            got.len(),
            want.len()
        ));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if !close(*g, *w, rel, scale) {
            return Err(format!(
                "{what}: component {i} is {g:.12e}, expected {w:.12e}\n  got      {}\n  expected {}",
                show(got),
                show(want)
            ));
        }
    }
    Ok(())
}

/// Central differences of a vector function along direction `dir` at h and h/2: `Some`
/// (Richardson's extrapolation of the two) if they agree, `None` where the point is not smooth.
fn central(
    stage: &Stage,
    what: &'static str,
    g: &dyn Fn(&[f64]) -> Vec<f64>,
    d: &[f64],
    dir: &[f64],
    h: f64,
) -> Option<Vec<f64>> {
    stage.set(what);
    let at = |s: f64| -> Vec<f64> { d.iter().zip(dir).map(|(x, v)| x + s * v).collect() };
    let diff = |h: f64| -> Vec<f64> {
        let (p, m) = (g(&at(h)), g(&at(-h)));
        p.iter().zip(&m).map(|(a, b)| (a - b) / (2.0 * h)).collect()
    };
    let (d1, d2) = (diff(h), diff(h / 2.0));
    let scale = 1.0 + inf_norm(&d2);
    let smooth = d1
        .iter()
        .zip(&d2)
        .all(|(a, b)| a.is_finite() && b.is_finite() && (a - b).abs() <= SMOOTH * scale);
    smooth.then(|| {
        d1.iter()
            .zip(&d2)
            .map(|(a, b)| (4.0 * b - a) / 3.0)
            .collect()
    })
}

/// Checks one function; see the module documentation.
pub fn check_subject(s: &Subject, opts: &Options, stage: &Stage) -> Result<Stats, Failure> {
    let mut seed = opts.seed;
    // The points depend on the function's name, not on a suffix `_c{j}` of the reducer's copies.
    let base = s.name.split("_c").next().unwrap_or(s.name);
    for b in base.bytes() {
        seed = seed.rotate_left(7) ^ b as u64;
    }
    let mut rng = Rng(seed);
    let mut st = Stats::default();
    while st.smooth_points < opts.points && st.draws < opts.max_draws {
        st.draws += 1;
        let d = rng.vec(s.dims, -2.0, 2.0);
        let c = rng.vec(s.consts, -2.0, 2.0);
        let k: Vec<usize> = (0..s.ints).map(|_| (rng.next() % 6) as usize).collect();
        stage.set("f (the primal)");
        let y = (s.f)(&d, &c, &k);
        if !y.is_finite() {
            st.nonfinite += 1;
            continue;
        }
        let here = |m: String| Failure {
            kind: String::new(),
            message: format!("at {}, f = {y:.12e}:\n{m}", point_text(&d, &c, &k)),
        };
        let g = ad_checks(s, (&d, &c, &k), y, &mut rng, stage).map_err(|f| Failure {
            kind: f.kind,
            ..here(f.message)
        })?;
        match fd_checks(s, (&d, &c, &k), y, &g, &mut rng, stage, &mut st) {
            Ok(true) => st.smooth_points += 1,
            Ok(false) => st.nonsmooth += 1,
            Err(f) => {
                return Err(Failure {
                    kind: f.kind,
                    ..here(f.message)
                })
            }
        }
    }
    if st.smooth_points == 0 {
        return fail(
            "no-smooth-point",
            format!(
                "no smooth point in {} draws ({} not finite, {} within h of a switch or kink): the gradient was not checked against finite differences",
                st.draws, st.nonfinite, st.nonsmooth
            ),
        );
    }
    Ok(st)
}

/// The checks of AD against AD and of values against the primal; returns the gradient.
fn ad_checks(
    s: &Subject,
    (d, c, k): Args,
    y: f64,
    rng: &mut Rng,
    stage: &Stage,
) -> Result<Vec<f64>, Failure> {
    stage.set("value_and_grad_");
    let (v, g) = (s.value_and_grad)(d, c, k);
    if !close(v, y, VALUE, 1.0) {
        return fail(
            "value",
            format!("value_and_grad_ returns the value {v:.17e}, f returns {y:.17e}"),
        );
    }
    if g.len() != s.dims {
        return fail(
            "shape",
            format!(
                "value_and_grad_ returns {} gradient components, expected {}",
                g.len(),
                s.dims
            ),
        );
    }
    // Scales of the comparisons: a derivative that is 0 up to rounding may come out as 1e-17.
    let floor = 1e-4 * (1.0 + y.abs());
    let gs = inf_norm(&g) + floor;
    stage.set("grad_");
    let g2 = (s.grad)(d, c, k);
    same_vec("grad_ against value_and_grad_", &g2, &g, VALUE, gs).or_else(|m| fail("grad", m))?;
    let t = rng.vec(s.dims, -1.0, 1.0);
    stage.set("jvp_");
    let (jv, jt) = (s.jvp)(d, c, k, &t);
    if !close(jv, y, VALUE, 1.0) {
        return fail(
            "value",
            format!("jvp_ returns the value {jv:.17e}, f returns {y:.17e}"),
        );
    }
    let want = dot(&g, &t);
    let scale = g.iter().zip(&t).map(|(a, b)| (a * b).abs()).sum::<f64>() + floor;
    if !close(jt, want, AD, scale) {
        return fail(
            "jvp",
            format!(
                "jvp_ along t = {} is {jt:.12e}; ⟨value_and_grad_, t⟩ = {want:.12e}\n  gradient {}",
                show(&t),
                show(&g)
            ),
        );
    }
    let ct = rng.uniform(-2.0, 2.0);
    stage.set("vjp_");
    let vj = (s.vjp)(d, c, k, ct);
    let want: Vec<f64> = g.iter().map(|x| ct * x).collect();
    same_vec(
        &format!("vjp_ with ct = {ct}"),
        &vj,
        &want,
        AD,
        gs * ct.abs().max(1.0),
    )
    .or_else(|m| fail("vjp", m))?;
    if let Some(explain) = s.explain {
        stage.set("explain_");
        let e = explain(d, c, k, &t);
        if !close(e.value, y, VALUE, 1.0) {
            return fail(
                "explain",
                format!(
                    "explain_'s output row has the value {:.17e}, f returns {y:.17e}",
                    e.value
                ),
            );
        }
        if !close(e.tangent, jt, AD, scale) {
            return fail(
                "explain",
                format!(
                    "explain_'s output tangent along t = {} is {:.12e}, jvp_ says {jt:.12e}",
                    show(&t),
                    e.tangent
                ),
            );
        }
        same_vec(
            "explain_'s input adjoints against value_and_grad_",
            &e.adjoints,
            &g,
            AD,
            gs,
        )
        .or_else(|m| fail("explain", m))?;
    }
    if let (Some(hvp), Some(hessian)) = (s.hvp, s.hessian) {
        stage.set("hvp_");
        let hv = hvp(d, c, k, &t);
        stage.set("hessian_");
        let h = hessian(d, c, k);
        if h.len() != s.dims || h.iter().any(|r| r.len() != s.dims) {
            return fail(
                "hessian",
                format!(
                    "hessian_ is {}×{:?}, expected {}×{}",
                    h.len(),
                    h.first().map(Vec::len),
                    s.dims,
                    s.dims
                ),
            );
        }
        let ht: Vec<f64> = h.iter().map(|r| dot(r, &t)).collect();
        let scale = h.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs())) * s.dims as f64 + floor;
        same_vec(
            &format!("hvp_ along t = {} against hessian_·t", show(&t)),
            &hv,
            &ht,
            AD,
            scale,
        )
        .or_else(|m| fail("hessian", m))?;
    }
    Ok(g)
}

/// The checks against finite differences; `Ok(false)` if the point is not smooth.
#[allow(clippy::too_many_arguments)]
fn fd_checks(
    s: &Subject,
    (d, c, k): Args,
    y: f64,
    g: &[f64],
    rng: &mut Rng,
    stage: &Stage,
    st: &mut Stats,
) -> Result<bool, Failure> {
    let n = s.dims;
    let mut fd = vec![0.0; n];
    for i in 0..n {
        let mut e = vec![0.0; n];
        e[i] = 1.0;
        let h = 1e-5 * d[i].abs().max(1.0);
        let f = |p: &[f64]| vec![(s.f)(p, c, k)];
        match central(stage, "finite differences of f", &f, d, &e, h) {
            Some(v) => fd[i] = v[0],
            None => return Ok(false),
        }
    }
    let scale = 1e-2 * (y.abs() + inf_norm(g)) + 1e-2;
    same_vec("grad_ against central differences of f", g, &fd, FD, scale)
        .or_else(|m| fail("grad-fd", m))?;
    let Some(hvp) = s.hvp else { return Ok(true) };
    let t = rng.vec(n, -1.0, 1.0);
    let h = 1e-5 * inf_norm(d).max(1.0);
    stage.set("hvp_");
    let hv = hvp(d, c, k, &t);
    let grad = |p: &[f64]| (s.grad)(p, c, k);
    let Some(want) = central(stage, "finite differences of grad_", &grad, d, &t, h) else {
        return Ok(true);
    };
    st.hvp_checked += 1;
    let scale = 1e-2 * (inf_norm(&want) + inf_norm(g)) + 1e-2;
    same_vec(
        &format!(
            "hvp_ along t = {} against central differences of grad_",
            show(&t)
        ),
        &hv,
        &want,
        FD,
        scale,
    )
    .or_else(|m| fail("hvp-fd", m))?;
    let Some(dhvp) = s.dhvp else { return Ok(true) };
    let u = rng.vec(n, -1.0, 1.0);
    stage.set("dhvp_");
    let got = dhvp(d, c, k, &u, &t);
    let hvp_t = |p: &[f64]| hvp(p, c, k, &t);
    let Some(want) = central(stage, "finite differences of hvp_", &hvp_t, d, &u, h) else {
        return Ok(true);
    };
    let scale = 1e-2 * (inf_norm(&want) + inf_norm(&hv)) + 1e-2;
    same_vec(
        &format!(
            "dhvp_ along u = {}, t = {} against central differences of hvp_",
            show(&u),
            show(&t)
        ),
        &got,
        &want,
        FD,
        scale,
    )
    .or_else(|m| fail("dhvp-fd", m))?;
    Ok(true)
}

/// The scratch binaries of the long-run tool: checks `subjects[after..]` and prints one record per
/// function for the tool to read (`@@ pass name points nonsmooth hvp`, or `@@ fail name kind` /
/// `@@ hang name stage` followed by the message and `@@ end`). After a hang it exits with status
/// 3: the tool starts it again after that function.
pub fn serve(subjects: &[Subject], opts: &Options, after: usize) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    for s in subjects.iter().skip(after) {
        match run_one(s, opts) {
            Verdict::Pass(st) => {
                let _ = writeln!(
                    out,
                    "@@ pass {} {} {} {}",
                    s.name, st.smooth_points, st.nonsmooth, st.hvp_checked
                );
            }
            Verdict::Fail(f) => {
                let _ = writeln!(
                    out,
                    "@@ fail {} {}\n{}\n@@ end",
                    s.name,
                    f.kind,
                    f.message.trim_end()
                );
            }
            Verdict::Hang { stage, reason } => {
                // A primal that does not terminate is the generator's fault.
                let kind = if stage == "f (the primal)" || stage == "finite differences of f" {
                    "primal-hang"
                } else {
                    "hang"
                };
                let _ = writeln!(
                    out,
                    "@@ {kind} {} {stage}\n{stage}: {reason}\n@@ end",
                    s.name
                );
                let _ = out.flush();
                std::process::exit(3);
            }
        }
        let _ = out.flush();
    }
}

#[cfg(test)]
mod tests {
    //! The checks on hand-written subjects: right derivatives pass, each kind of wrong one is
    //! caught, a derivative program that does not end is stopped.

    use super::*;

    // f(x, y) = x·y + sin x: ∇f = (y + cos x, x), H = [[−sin x, 1], [1, 0]].
    fn f(d: &[f64], _: &[f64], _: &[usize]) -> f64 {
        d[0] * d[1] + d[0].sin()
    }
    fn grad(d: &[f64], _: &[f64], _: &[usize]) -> Vec<f64> {
        vec![d[1] + d[0].cos(), d[0]]
    }
    fn hess(d: &[f64], _: &[f64], _: &[usize]) -> Vec<Vec<f64>> {
        vec![vec![-d[0].sin(), 1.0], vec![1.0, 0.0]]
    }

    fn subject() -> Subject {
        Subject {
            name: "f",
            source: "x * y + x.sin()",
            dims: 2,
            consts: 0,
            ints: 0,
            f,
            value_and_grad: |d, c, k| (f(d, c, k), grad(d, c, k)),
            grad,
            vjp: |d, c, k, ct| grad(d, c, k).iter().map(|g| ct * g).collect(),
            jvp: |d, c, k, t| (f(d, c, k), dot(&grad(d, c, k), t)),
            hvp: Some(|d, c, k, t| hess(d, c, k).iter().map(|r| dot(r, t)).collect()),
            hessian: Some(hess),
            dhvp: None,
            explain: Some(|d, c, k, t| Explained {
                value: f(d, c, k),
                tangent: dot(&grad(d, c, k), t),
                adjoints: grad(d, c, k),
            }),
        }
    }

    fn kind(s: Subject) -> String {
        match check_subject(&s, &Options::default(), &Stage::new()) {
            Ok(_) => "pass".into(),
            Err(f) => f.kind,
        }
    }

    #[test]
    fn right_derivatives_pass() {
        let st = check_subject(&subject(), &Options::default(), &Stage::new()).unwrap();
        assert_eq!(st.smooth_points, 3);
        assert_eq!(st.hvp_checked, 3);
    }

    #[test]
    fn each_wrong_derivative_is_caught() {
        // A gradient wrong in every mode alike: only finite differences see it.
        let mut s = subject();
        s.value_and_grad = |d, c, k| (f(d, c, k), vec![d[1], d[0]]);
        s.grad = |d, _, _| vec![d[1], d[0]];
        s.vjp = |d, _, _, ct| vec![ct * d[1], ct * d[0]];
        s.jvp = |d, c, k, t| (f(d, c, k), d[1] * t[0] + d[0] * t[1]);
        s.explain = None;
        assert_eq!(kind(s), "grad-fd");
        let mut s = subject();
        s.value_and_grad = |d, c, k| (f(d, c, k) + 1e-6, grad(d, c, k));
        assert_eq!(kind(s), "value");
        let mut s = subject();
        s.jvp = |d, c, k, t| (f(d, c, k), dot(&grad(d, c, k), t) + 0.5);
        assert_eq!(kind(s), "jvp");
        let mut s = subject();
        s.vjp = |d, c, k, _| grad(d, c, k);
        assert_eq!(kind(s), "vjp");
        let mut s = subject();
        s.hvp = Some(|_, _, _, t| t.to_vec());
        s.hessian = Some(|_, _, _| vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
        assert_eq!(kind(s), "hvp-fd");
        let mut s = subject();
        s.explain = Some(|d, c, k, t| Explained {
            value: f(d, c, k),
            tangent: dot(&grad(d, c, k), t),
            adjoints: vec![0.0, 0.0],
        });
        assert_eq!(kind(s), "explain");
    }

    #[test]
    fn a_jump_within_h_is_not_smooth() {
        let step = |p: &[f64]| vec![if p[0] > 0.0 { p[0] } else { 1.0 - p[0] }];
        let stage = Stage::new();
        assert!(central(&stage, "test", &step, &[3e-6], &[1.0], 1e-5).is_none());
        let d = central(&stage, "test", &step, &[0.5], &[1.0], 1e-5).unwrap();
        assert!((d[0] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_derivative_program_that_does_not_end_is_stopped() {
        let mut s = subject();
        s.jvp = |_, _, _, _| loop {
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        let opts = Options {
            timeout: std::time::Duration::from_millis(300),
            ..Options::default()
        };
        match run_one(&s, &opts) {
            Verdict::Hang { stage, .. } => assert_eq!(stage, "jvp_"),
            v => panic!("expected a hang, got {v:?}"),
        }
    }
}
