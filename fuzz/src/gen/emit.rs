//! Rust source for generated units: the functions, and for each one a `check::Subject` that
//! calls its derivative functions on flat vectors (differentiable components `d`, constant
//! floats `c`, integers `k`), so that one harness checks functions of every signature.

use super::unit::{Function, ParamKind, Unit};

/// The functions of `units` and `pub fn subjects() -> Vec<check::Subject>`; the includer has
/// `autodiff` and `check` in scope.
pub fn file(units: &[Unit], header: &str) -> String {
    emit(units, header).text
}

/// Generated source, and which lines belong to which unit.
pub struct Emitted {
    pub text: String,
    /// (position in `units`, first line, last line), 1-based: each unit's functions and each
    /// of its table entries.
    pub lines: Vec<(usize, usize, usize)>,
}

impl Emitted {
    /// The unit (position in `units`) that line `line` belongs to.
    pub fn unit_at(&self, line: usize) -> Option<usize> {
        self.lines
            .iter()
            .find(|(_, a, b)| (*a..=*b).contains(&line))
            .map(|l| l.0)
    }
}

pub fn emit(units: &[Unit], header: &str) -> Emitted {
    let mut e = Emitted {
        text: String::new(),
        lines: Vec::new(),
    };
    let mut count = 0;
    // Every piece ends with a newline.
    let mut push = |e: &mut Emitted, unit: Option<usize>, text: &str| {
        let first = count + 1;
        count += text.matches('\n').count();
        e.text.push_str(text);
        if let Some(u) = unit {
            e.lines.push((u, first, count));
        }
    };
    for line in header.lines() {
        push(&mut e, None, &format!("// {line}\n"));
    }
    for (i, u) in units.iter().enumerate() {
        push(&mut e, None, "\n");
        push(&mut e, Some(i), &u.source());
        if let (Some([a, b]), name) = (&u.main.fields, u.main.struct_name()) {
            // The checks read a gradient as a flat vector.
            push(
                &mut e,
                Some(i),
                &format!("impl check::Flat for {name}{} {{\n    fn flat_into(self, out: &mut Vec<f64>) {{\n        out.extend([self.{a}, self.{b}{}]);\n    }}\n}}\n", if u.main.generic { "<f64>" } else { "" }, if u.main.optional.is_some() { ".unwrap()" } else { "" }),
            );
        }
    }
    push(
        &mut e,
        None,
        "\npub fn subjects() -> Vec<check::Subject> {\n    vec![\n",
    );
    for (i, u) in units.iter().enumerate() {
        if let Some(h) = &u.helper {
            push(&mut e, Some(i), &subject(h, &h.source()));
        }
        push(&mut e, Some(i), &subject(&u.main, &u.source()));
    }
    push(&mut e, None, "    ]\n}\n");
    e
}

/// How each parameter is read from the flat vectors.
struct Args {
    /// The call's arguments.
    values: Vec<String>,
    /// One tangent argument per differentiable parameter, read from `t` (or `u`).
    tangents: Vec<String>,
    tangents_u: Vec<String>,
    dims: usize,
    consts: usize,
    ints: usize,
}

fn args(f: &Function) -> Args {
    let mut a = Args {
        values: Vec::new(),
        tangents: Vec::new(),
        tangents_u: Vec::new(),
        dims: 0,
        consts: 0,
        ints: 0,
    };
    for p in &f.params {
        let width = f.width(p);
        if p.kind == ParamKind::Usize {
            a.values.push(format!("k[{}]", a.ints));
            a.ints += 1;
            continue;
        }
        let (src, at) = if p.diff {
            ("d", a.dims)
        } else {
            ("c", a.consts)
        };
        let read = |v: &str| match (&f.fields, p.kind) {
            (Some([x, y]), ParamKind::Fields) => {
                let (some, close) = match f.optional {
                    Some(_) => ("Some(", ")"),
                    None => ("", ""),
                };
                format!(
                    "&{} {{ {x}: {v}[{at}], {y}: {some}{v}[{}]{close} }}",
                    f.struct_name(),
                    at + 1
                )
            }
            _ => read(p.kind, v, at, width),
        };
        a.values.push(read(src));
        if p.diff {
            a.tangents.push(read("t"));
            a.tangents_u.push(read("u"));
            a.dims += width;
        } else {
            a.consts += width;
        }
    }
    a
}

/// Parameter of kind `kind` read from `v[at..at + width]`.
fn read(kind: ParamKind, v: &str, at: usize, width: usize) -> String {
    let end = at + width;
    match kind {
        ParamKind::Float => format!("{v}[{at}]"),
        ParamKind::Slice => format!("&{v}[{at}..{end}]"),
        ParamKind::VecParam => format!("{v}[{at}..{end}].to_vec()"),
        ParamKind::Array(n) => format!("check::array::<{n}>(&{v}[{at}..{end}])"),
        ParamKind::Pair => format!("({v}[{at}], {v}[{}])", at + 1),
        ParamKind::Fields => unreachable!("read with the struct's name"),
        ParamKind::Usize => unreachable!(),
    }
}

fn subject(f: &Function, source: &str) -> String {
    let a = args(f);
    let name = &f.name;
    let vals = a.values.join(", ");
    let tans = a.tangents.join(", ");
    let with = |extra: &str| {
        if vals.is_empty() {
            extra.to_string()
        } else {
            format!("{vals}, {extra}")
        }
    };
    let at_t = with(&tans);
    let mut s = String::new();
    s.push_str("        check::Subject {\n");
    s.push_str(&format!("            name: \"{name}\",\n"));
    s.push_str(&format!("            source: r##\"{source}\"##,\n"));
    s.push_str(&format!(
        "            dims: {}, consts: {}, ints: {},\n",
        a.dims, a.consts, a.ints
    ));
    s.push_str(&format!("            f: |d, c, k| {name}({vals}),\n"));
    s.push_str(&format!(
        "            value_and_grad: |d, c, k| {{ let (v, g) = value_and_grad_{name}({vals}); (v, check::flat(g)) }},\n"
    ));
    s.push_str(&format!(
        "            grad: |d, c, k| check::flat(grad_{name}({vals})),\n"
    ));
    s.push_str(&format!(
        "            vjp: |d, c, k, ct| check::flat(vjp_{name}({})),\n",
        with("ct")
    ));
    s.push_str(&format!(
        "            jvp: |d, c, k, t| jvp_{name}({at_t}),\n"
    ));
    if f.hvp {
        s.push_str(&format!(
            "            hvp: Some(|d, c, k, t| check::flat(hvp_{name}({at_t}))),\n"
        ));
        s.push_str(&format!(
            "            hessian: Some(|d, c, k| hessian_{name}({vals})),\n"
        ));
    } else {
        s.push_str("            hvp: None,\n            hessian: None,\n");
    }
    if f.dhvp {
        let uv = with(&format!("{}, {tans}", a.tangents_u.join(", ")));
        s.push_str(&format!(
            "            dhvp: Some(|d, c, k, u, t| check::flat(dhvp_{name}({uv}))),\n"
        ));
    } else {
        s.push_str("            dhvp: None,\n");
    }
    if f.explain {
        s.push_str(&format!(
            "            explain: Some(|d, c, k, t| check::explained(&explain_{name}({at_t}))),\n"
        ));
    } else {
        s.push_str("            explain: None,\n");
    }
    s.push_str("        },\n");
    s
}
