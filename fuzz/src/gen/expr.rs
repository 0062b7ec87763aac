//! Expressions and conditions. Every float expression is built so that its value stays bounded
//! however often a loop applies it: a non-expansive expression `N` (|N| ≤ the largest variable it
//! reads plus a small constant) may be stored anywhere; a bounded one `B` (|B| ≲ 1.6) is any
//! expression passed through a function with a bounded range; a factor `F` (|F| ≤ 1) is what `*=`
//! multiplies by. Elementary functions are applied only on their safe domains (`ln` of
//! `1 + b²`, `sqrt` of `b² + 0.5`, `asin` of `b / 2`, `exp` of a bounded value, …).

use super::body::Gen;
use super::{Bug, C};

/// Text with its precedence: 0 atom, call or method call; 1 unary or cast; 2 `*` `/`; 3 `+` `-`.
#[derive(Clone, Debug)]
pub struct E {
    pub s: String,
    pub prec: u8,
}

impl E {
    pub fn new(s: impl Into<String>, prec: u8) -> Self {
        E { s: s.into(), prec }
    }

    /// The text, in parentheses if its precedence is looser than `max`.
    pub fn at(&self, max: u8) -> String {
        if self.prec > max {
            format!("({})", self.s)
        } else {
            self.s.clone()
        }
    }
}

fn add(a: &E, op: &str, b: &E) -> E {
    E::new(format!("{} {op} {}", a.at(3), b.at(2)), 3)
}

fn mul(a: &E, op: &str, b: &E) -> E {
    E::new(format!("{} {op} {}", a.at(2), b.at(1)), 2)
}

fn lit(v: &str) -> E {
    E::new(v, if v.starts_with('-') { 1 } else { 0 })
}

/// `s` with `_f64` after its first float literal: `(0.5 * 0.3)` → `(0.5_f64 * 0.3)`.
fn type_first_literal(s: &str) -> String {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let start = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            if s[start..i].contains('.') && !s[i..].starts_with('_') {
                return format!("{}_f64{}", &s[..i], &s[i..]);
            }
            continue;
        }
        i += 1;
    }
    s.to_string()
}

/// The variables an expression reads: identifiers that are not methods, path segments, `as`,
/// `f64` or a literal's suffix.
pub fn idents(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                // Stop before a method call on a literal (`1.5_f64.tanh()`).
                if b[i] == b'.' && i + 1 < b.len() && b[i + 1].is_ascii_alphabetic() {
                    break;
                }
                i += 1;
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &s[start..i];
            let method = start > 0 && b[start - 1] == b'.';
            let path = s[i..].starts_with("::") || (start >= 2 && &s[start - 2..start] == "::");
            let call = s[i..].starts_with('(');
            if !method
                && !path
                && !call
                && !matches!(word, "as" | "f64" | "usize" | "i32" | "true" | "false")
            {
                out.push(word);
            }
            continue;
        }
        i += 1;
    }
    out
}

/// Whether an expression reads a variable.
pub fn has_var(s: &str) -> bool {
    !idents(s).is_empty()
}

const SMALL: [&str; 10] = [
    "0.5", "0.25", "0.75", "0.1", "0.9", "-0.5", "-0.3", "0.6", "-0.8", "0.4",
];
const CONSTS: [&str; 10] = [
    "1.5", "0.5", "2.0", "0.3", "1.0", "-1.2", "0.7", "-0.4", "1.25", "0.2",
];

/// A literal, for a parameter that must not receive a differentiable value.
pub fn constant(rng: &mut super::rng::Rng) -> String {
    rng.pick::<&str>(&CONSTS).to_string()
}

impl Gen<'_> {
    /// `recv.name(args)`, or in path form `f64::name(recv, args)` now and then.
    fn method(&mut self, recv: &E, name: &str, args: &[&str]) -> E {
        self.used[C::Elementary as usize] += 1;
        self.note_method(name);
        let constant = !has_var(&recv.s);
        if constant && !self.cfg.bugs.allows(Bug::ConstantReceiver) {
            // A method of a constant needs its type: `(0.5_f64 * 0.3).cos()` (`f64::cos(0.5 * 0.3)`
            // is form P).
            let typed = E::new(type_first_literal(&recv.s), recv.prec);
            return E::new(format!("{}.{name}({})", typed.at(0), args.join(", ")), 0);
        }
        // `f64::floor(x)` and the other piecewise-constant functions in path form are form S.
        let piecewise = matches!(name, "signum" | "floor" | "ceil" | "round" | "trunc");
        if constant
            || (self.rng.chance(0.1)
                && (!piecewise || self.cfg.bugs.allows(Bug::PiecewisePathForm)))
        {
            let mut all = vec![recv.s.clone()];
            all.extend(args.iter().map(|a| a.to_string()));
            E::new(format!("f64::{name}({})", all.join(", ")), 0)
        } else {
            E::new(format!("{}.{name}({})", recv.at(0), args.join(", ")), 0)
        }
    }

    /// A variable, an element, a parameter, an integer cast or a constant.
    pub fn atom(&mut self) -> E {
        let floats = self.readable_floats();
        let vecs = self.readable_vecs();
        let ints = self.int_vars(false);
        let w = [
            if floats.is_empty() { 0 } else { 12 },
            if vecs.is_empty() { 0 } else { 4 },
            if ints.is_empty() { 0 } else { 1 },
            2,
        ];
        match self.rng.weighted(&w) {
            0 => {
                let v = self.rng.pick(&floats).clone();
                if v.deref {
                    E::new(format!("*{}", v.name), 1)
                } else {
                    E::new(v.name, 0)
                }
            }
            1 => {
                let (name, len) = self.rng.pick(&vecs).clone();
                let idx = self.index(len);
                self.used[C::VecRead as usize] += 1;
                E::new(format!("{name}[{idx}]"), 0)
            }
            2 => {
                let (name, _) = self.rng.pick(&ints).clone();
                self.used[C::IntToFloat as usize] += 1;
                let scale = self.rng.pick(&["0.5", "0.25", "0.1"]).to_string();
                E::new(format!("{name} as f64 * {scale}"), 2)
            }
            _ => lit(self.rng.one(&CONSTS)),
        }
    }

    /// `a.name()`, for the statements.
    pub fn method_of(&mut self, a: &E, name: &str) -> E {
        self.method(a, name, &[])
    }

    /// A variable (there is always a parameter).
    pub fn var_atom(&mut self) -> E {
        let floats = self.readable_floats();
        let v = self.rng.pick(&floats).clone();
        if v.deref {
            E::new(format!("*{}", v.name), 1)
        } else {
            E::new(v.name, 0)
        }
    }

    /// A non-expansive expression.
    pub fn float(&mut self, depth: u32) -> E {
        if depth == 0 || self.rng.chance(0.25) {
            return self.atom();
        }
        let d = depth - 1;
        let can_call = self.can_call();
        let c = &self.cfg.weights;
        let w = [
            6,                                              // N ± B
            3,                                              // 0.5 * (N + N)
            3,                                              // c * N, -N
            5,                                              // N * F
            2,                                              // N / (1 + B²)
            3,                                              // abs, max, min
            2,                                              // sqrt(N² + 0.5), ln(1 + N²)
            1,                                              // mul_add, hypot
            4,                                              // S * S
            if can_call { c[C::Call as usize] } else { 0 }, // a call
            c[C::IfExpr as usize],                          // if … { N } else { N }
            1,                                              // to_radians
        ];
        match self.rng.weighted(&w) {
            0 => {
                let a = self.float(d);
                let b = self.bounded(d);
                let op = *self.rng.pick(&["+", "-"]);
                add(&a, op, &b)
            }
            1 => {
                let a = self.float(d);
                let b = self.float(d);
                E::new(format!("0.5 * ({})", add(&a, "+", &b).s), 2)
            }
            2 => {
                let a = self.float(d);
                if self.rng.chance(0.3) {
                    E::new(format!("-{}", a.at(0)), 1)
                } else {
                    mul(&lit(self.rng.one(&SMALL)), "*", &a)
                }
            }
            3 => {
                let a = self.float(d);
                let f = self.factor(d);
                mul(&a, "*", &f)
            }
            4 => {
                let a = self.float(d);
                let b = self.bounded(d);
                E::new(
                    format!("{} / (1.0 + {} * {})", a.at(2), b.at(1), b.at(1)),
                    2,
                )
            }
            5 => {
                let a = self.float(d);
                match self.rng.below(3) {
                    0 => self.method(&a, "abs", &[]),
                    k => {
                        let b = self.float(d);
                        self.method(&a, if k == 1 { "max" } else { "min" }, &[&b.s])
                    }
                }
            }
            6 => {
                let a = self.float(d);
                let sq = E::new(format!("{} * {}", a.at(1), a.at(1)), 2);
                if self.rng.chance(0.5) {
                    let r = E::new(format!("{} + 0.5", sq.s), 3);
                    self.method(&r, "sqrt", &[])
                } else {
                    let r = E::new(format!("1.0 + {}", sq.s), 3);
                    self.method(&r, "ln", &[])
                }
            }
            7 => {
                let a = self.float(d);
                if self.rng.chance(0.5) {
                    let f = self.factor(d);
                    let b = self.bounded(d);
                    self.method(&a, "mul_add", &[&f.s, &b.s])
                } else {
                    let b = self.bounded(d);
                    self.method(&a, "hypot", &[&b.s])
                }
            }
            8 => {
                let a = self.small(d);
                let b = self.small(d);
                mul(&a, "*", &b)
            }
            9 => self.call(d),
            10 => {
                self.used[C::IfExpr as usize] += 1;
                let (cond, _) = self.cond();
                let a = self.float(d);
                let mut b = self.float(d);
                // Constant arms would leave the value's type to inference.
                if !has_var(&a.s) && !has_var(&b.s) {
                    b = self.var_atom();
                }
                E::new(format!("(if {cond} {{ {} }} else {{ {} }})", a.s, b.s), 0)
            }
            _ => {
                let a = self.float(d);
                self.method(&a, "to_radians", &[])
            }
        }
    }

    /// A parameter, an element or a bounded expression: |S| ≤ 2, so a product of two is small.
    fn small(&mut self, depth: u32) -> E {
        let params = self.small_floats();
        if !params.is_empty() && self.rng.chance(0.6) {
            let v = self.rng.pick(&params).clone();
            return if v.deref {
                E::new(format!("*{}", v.name), 1)
            } else {
                E::new(v.name, 0)
            };
        }
        self.bounded(depth)
    }

    /// A factor for `*=`: |F| ≤ 1.
    pub fn factor(&mut self, depth: u32) -> E {
        let a = self.float(depth.saturating_sub(1));
        match self.rng.below(9) {
            0 => self.method(&a, "tanh", &[]),
            1 => self.method(&a, "sin", &[]),
            2 => self.method(&a, "cos", &[]),
            3 => {
                self.note_method("sigmoid");
                E::new(format!("diffx::sigmoid({})", a.s), 0)
            }
            4 => {
                let v = self.atom();
                E::new(
                    format!("{} / (1.0 + {} * {})", v.at(2), v.at(1), v.at(1)),
                    2,
                )
            }
            5 => {
                let sq = E::new(format!("-({} * {})", a.at(1), a.at(1)), 1);
                self.method(&sq, "exp", &[])
            }
            6 => {
                let t = self.method(&a, "tanh", &[]);
                E::new(format!("0.5 + 0.4 * {}", t.s), 3)
            }
            7 => {
                let sq = E::new(format!("1.0 + {} * {}", a.at(1), a.at(1)), 3);
                self.method(&sq, "recip", &[])
            }
            _ => lit(self.rng.one(&SMALL)),
        }
    }

    /// A bounded expression, through the rest of the elementary functions.
    pub fn bounded(&mut self, depth: u32) -> E {
        if depth == 0 || self.rng.chance(0.2) {
            return self.factor(0);
        }
        let d = depth - 1;
        let w = [
            12,
            4,
            4,
            4,
            4,
            3,
            2,
            2,
            2,
            2,
            2,
            self.cfg.weights[C::PiecewiseConstant as usize],
        ];
        match self.rng.weighted(&w) {
            0 => self.factor(d),
            1 => {
                // asin, acos, atanh, asinh, tan, sinh of b/2; cosh(b) − 1; atan.
                let b = self.bounded(d);
                let half = E::new(format!("0.5 * {}", b.at(1)), 2);
                match self.rng.below(8) {
                    0 => self.method(&half, "asin", &[]),
                    1 => {
                        let m = self.method(&half, "acos", &[]);
                        add(&m, "-", &lit("1.0"))
                    }
                    2 => self.method(&half, "atanh", &[]),
                    3 => self.method(&half, "asinh", &[]),
                    4 => self.method(&half, "tan", &[]),
                    5 => self.method(&half, "sinh", &[]),
                    6 => {
                        let m = self.method(&b, "cosh", &[]);
                        add(&m, "-", &lit("1.0"))
                    }
                    _ => {
                        let a = self.float(d);
                        let m = self.method(&a, "atan", &[]);
                        mul(&lit("0.6"), "*", &m)
                    }
                }
            }
            2 => {
                // exp of bounded values.
                let b = self.bounded(d);
                match self.rng.below(3) {
                    0 => {
                        let m = self.method(&b, "exp_m1", &[]);
                        mul(&m, "*", &lit("0.5"))
                    }
                    1 => {
                        let half = E::new(format!("0.5 * {}", b.at(1)), 2);
                        let m = self.method(&half, "exp2", &[]);
                        add(&m, "-", &lit("1.0"))
                    }
                    _ => {
                        let a = self.float(d);
                        let t = self.method(&a, "tanh", &[]);
                        let s = E::new(format!("0.3 * {}", t.s), 2);
                        let m = self.method(&s, "exp", &[]);
                        add(&m, "-", &lit("1.0"))
                    }
                }
            }
            3 => {
                // Logarithms of 1 + b², 2 + b.
                let b = self.bounded(d);
                let sq = E::new(format!("1.0 + {} * {}", b.at(1), b.at(1)), 3);
                match self.rng.below(5) {
                    0 => self.method(&sq, "ln", &[]),
                    1 => self.method(&sq, "log2", &[]),
                    2 => self.method(&sq, "log10", &[]),
                    3 => {
                        let h = E::new(format!("0.5 * {} * {}", b.at(1), b.at(1)), 2);
                        self.method(&h, "ln_1p", &[])
                    }
                    _ => {
                        let s = E::new(format!("2.0 + {}", b.at(2)), 3);
                        // A literal base is form R.
                        let base = if self.cfg.bugs.allows(Bug::LogLiteralBase) {
                            "3.0".to_string()
                        } else {
                            let c = self.var_atom();
                            format!("3.0 + {} * {}", c.at(1), c.at(1))
                        };
                        let m = self.method(&s, "log", &[&base]);
                        add(&m, "-", &lit("0.5"))
                    }
                }
            }
            4 => {
                // Powers.
                let b = self.bounded(d);
                match self.rng.below(3) {
                    0 => self.method(&b, "powi", &["2"]),
                    1 => self.method(&b, "powi", &["3"]),
                    _ => {
                        let e = self.bounded(d);
                        let base = E::new(format!("1.0 + {} * {}", b.at(1), b.at(1)), 3);
                        let expo = format!("0.5 + 0.25 * {}", e.at(1));
                        let m = self.method(&base, "powf", &[&expo]);
                        add(&m, "-", &lit("1.0"))
                    }
                }
            }
            5 => {
                let a = self.bounded(d);
                let b = self.bounded(d);
                match self.rng.below(4) {
                    0 => mul(&a, "*", &b),
                    1 => self.method(&a, "max", &[&b.s]),
                    2 => self.method(&a, "min", &[&b.s]),
                    _ => self.method(&a, "abs", &[]),
                }
            }
            6 => {
                let a = self.bounded(d);
                let b = self.bounded(d);
                let y = E::new(format!("0.5 * {}", a.at(1)), 2);
                let x = format!("1.0 + {} * {}", b.at(1), b.at(1));
                self.method(&y, "atan2", &[&x])
            }
            7 => {
                let b = self.bounded(d);
                if self.rng.chance(0.5) {
                    let m = self.method(&b, "hypot", &["0.5"]);
                    add(&m, "-", &lit("0.5"))
                } else {
                    self.method(&b, "mul_add", &["0.5", "0.25"])
                }
            }
            8 => {
                let b = self.bounded(d);
                match self.rng.below(3) {
                    0 => {
                        let sq = E::new(format!("{} * {} + 0.5", b.at(1), b.at(1)), 3);
                        let m = self.method(&sq, "cbrt", &[]);
                        add(&m, "-", &lit("0.5"))
                    }
                    1 => {
                        let m = self.method(&b, "to_degrees", &[]);
                        mul(&m, "*", &lit("0.01"))
                    }
                    _ => {
                        let sq = E::new(format!("1.5 + {} * {}", b.at(1), b.at(1)), 3);
                        let m = self.method(&sq, "acosh", &[]);
                        add(&m, "-", &lit("1.0"))
                    }
                }
            }
            9 => {
                let b = self.bounded(d);
                if self.rng.chance(0.5) {
                    self.note_method("relu");
                    E::new(format!("diffx::relu({})", b.s), 0)
                } else {
                    self.note_method("softplus");
                    E::new(format!("diffx::softplus({}) - 0.5", b.s), 3)
                }
            }
            10 => {
                let a = self.float(d);
                self.method(&a, "sin", &[])
            }
            _ => {
                // Piecewise constant (derivative 0, jumps): finite differences see the jumps and
                // draw other points.
                self.used[C::PiecewiseConstant as usize] += 1;
                // `*e` of `w.iter()` in the argument is form J, as in a condition.
                let outer = self.no_deref;
                self.no_deref = !self.cfg.bugs.allows(Bug::IterDerefInCond);
                let b = self.bounded(d);
                self.no_deref = outer;
                let twice = E::new(format!("2.0 * {}", b.at(1)), 2);
                match self.rng.below(6) {
                    0 => {
                        let m = self.method(&b, "signum", &[]);
                        mul(&m, "*", &lit("0.5"))
                    }
                    1 => {
                        let m = self.method(&twice, "floor", &[]);
                        mul(&m, "*", &lit("0.25"))
                    }
                    2 => {
                        let m = self.method(&twice, "ceil", &[]);
                        mul(&m, "*", &lit("0.25"))
                    }
                    3 => {
                        let m = self.method(&twice, "round", &[]);
                        mul(&m, "*", &lit("0.25"))
                    }
                    4 => {
                        let m = self.method(&twice, "trunc", &[]);
                        mul(&m, "*", &lit("0.25"))
                    }
                    _ => {
                        let m = self.method(&twice, "fract", &[]);
                        mul(&m, "*", &lit("0.5"))
                    }
                }
            }
        }
    }

    /// A condition, and whether it reads a value that depends on a differentiable parameter.
    pub fn cond(&mut self) -> (String, bool) {
        let has_ints = !self.int_vars(false).is_empty();
        let w = [
            self.cfg.weights[C::FloatCond as usize],
            if has_ints {
                self.cfg.weights[C::IntCond as usize]
            } else {
                0
            },
            if has_ints { 2 } else { 0 },
        ];
        let text = match self.rng.weighted(&w) {
            0 => {
                let c = self.float_cond();
                if self.rng.chance(0.15) {
                    let d = self.float_cond();
                    let op = *self.rng.pick(&["&&", "||"]);
                    format!("{c} {op} {d}")
                } else if self.rng.chance(0.05) {
                    format!("!({c})")
                } else {
                    c
                }
            }
            1 => self.int_cond(),
            _ => {
                let f = self.float_cond();
                let i = self.int_cond();
                let op = *self.rng.pick(&["&&", "||"]);
                self.used[C::MixedCond as usize] += 1;
                if self.rng.chance(0.5) {
                    format!("{f} {op} {i}")
                } else {
                    format!("{i} {op} {f}")
                }
            }
        };
        let active = self.active(&text);
        (text, active)
    }

    /// A comparison of floats.
    pub fn float_cond(&mut self) -> String {
        self.used[C::FloatCond as usize] += 1;
        let a = self.cond_operand();
        let op = *self.rng.pick(&["<", ">", "<=", ">="]);
        let b = if self.rng.chance(0.6) {
            lit(self.rng.one(&CONSTS))
        } else {
            self.cond_operand()
        };
        format!("{} {op} {}", a.at(3), b.at(3))
    }

    fn cond_operand(&mut self) -> E {
        // `*e` of `w.iter()` in a condition is form J.
        let outer = self.no_deref;
        self.no_deref = !self.cfg.bugs.allows(super::Bug::IterDerefInCond);
        let e = if self.rng.chance(0.6) {
            self.atom()
        } else {
            self.float(1)
        };
        self.no_deref = outer;
        e
    }

    /// A comparison of integers (loop indices, counters, `n`).
    pub fn int_cond(&mut self) -> String {
        self.used[C::IntCond as usize] += 1;
        let ints = self.int_vars(false);
        let (a, a_ty) = self.rng.pick(&ints).clone();
        let k = self.rng.range(0, 4);
        match self.rng.below(6) {
            0 => format!("{a} % 2 == {}", k % 2),
            1 => format!("{a} >= {}", k.max(1)),
            2 => format!("{a} < {}", k.max(1)),
            3 => format!("{a} == {k}"),
            4 => {
                // Compare two integers of the same type: usize ones (loop indices, counters, n).
                let others: Vec<_> = ints
                    .iter()
                    .filter(|(n, t)| *n != a && *t && a_ty)
                    .cloned()
                    .collect();
                match others.first() {
                    Some((b, _)) if self.rng.chance(0.7) => format!("{a} + 1 < {b}"),
                    _ => format!("{a} > {k}"),
                }
            }
            _ => format!("{a} % 3 != {}", k % 3),
        }
    }

    /// A vector index below `len`: a constant or an integer variable modulo `len`.
    pub fn index(&mut self, len: usize) -> String {
        let ints: Vec<String> = self
            .int_vars(true)
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        if !ints.is_empty() && self.rng.chance(0.5) {
            let i = self.rng.pick(&ints).clone();
            if self.rng.chance(0.3) {
                format!("({i} + 1) % {len}")
            } else {
                format!("{i} % {len}")
            }
        } else {
            self.rng.below(len).to_string()
        }
    }
}
