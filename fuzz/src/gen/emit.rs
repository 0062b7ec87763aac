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
    let name = format!("{}{}", f.path(), f.name);
    let path = f.path();
    let fname = &f.name;
    let vals = a.values.join(", ");
    let tans = a.tangents.join(", ");
    // A function with an output takes it after its parameters; the checks read the value and
    // tangent written there (the value against the function's, as any value).
    let (out, out_dot, open, close) = match f.output {
        true => ("&mut o", "&mut od", "{ let mut o = f64::NAN; ", " }"),
        false => ("", "", "", ""),
    };
    let at = |extra: &str| {
        let parts: Vec<&str> = [vals.as_str(), out, extra]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect();
        parts.join(", ")
    };
    let value_of = |call: String| match f.output {
        true => format!("{open}{call}; o{close}"),
        false => call,
    };
    let mut s = String::new();
    s.push_str("        check::Subject {\n");
    s.push_str(&format!("            name: \"{fname}\",\n"));
    s.push_str(&format!("            source: r##\"{source}\"##,\n"));
    s.push_str(&format!(
        "            dims: {}, consts: {}, ints: {},\n",
        a.dims, a.consts, a.ints
    ));
    s.push_str(&format!(
        "            f: |d, c, k| {},\n",
        value_of(format!("{name}({})", at("")))
    ));
    let value_and_grad = match f.output {
        true => format!(
            "{open}let (_, g) = {path}value_and_grad_{fname}({}); (o, check::flat(g)){close}",
            at("")
        ),
        false => format!(
            "{{ let (v, g) = {path}value_and_grad_{fname}({}); (v, check::flat(g)) }}",
            at("")
        ),
    };
    s.push_str(&format!(
        "            value_and_grad: |d, c, k| {value_and_grad},\n"
    ));
    s.push_str(&format!(
        "            grad: |d, c, k| {open}check::flat({path}grad_{fname}({})){close},\n",
        at("")
    ));
    s.push_str(&format!(
        "            vjp: |d, c, k, ct| {open}check::flat({path}vjp_{fname}({})){close},\n",
        at("ct")
    ));
    let jvp = match f.output {
        true => {
            let tangents = [tans.as_str(), out_dot]
                .iter()
                .filter(|p| !p.is_empty())
                .copied()
                .collect::<Vec<_>>()
                .join(", ");
            format!(
                "{{ let (mut o, mut od) = (f64::NAN, f64::NAN); {path}jvp_{fname}({}); (o, od) }}",
                at(&tangents)
            )
        }
        false => format!("{path}jvp_{fname}({})", at(&tans)),
    };
    s.push_str(&format!("            jvp: |d, c, k, t| {jvp},\n"));
    if f.hvp {
        s.push_str(&format!(
            "            hvp: Some(|d, c, k, t| {open}check::flat({path}hvp_{fname}({})){close}),\n",
            at(&tans)
        ));
        s.push_str(&format!(
            "            hessian: Some(|d, c, k| {open}{path}hessian_{fname}({}){close}),\n",
            at("")
        ));
    } else {
        s.push_str("            hvp: None,\n            hessian: None,\n");
    }
    if f.dhvp {
        let uv = format!("{}, {tans}", a.tangents_u.join(", "));
        s.push_str(&format!(
            "            dhvp: Some(|d, c, k, u, t| {open}check::flat({path}dhvp_{fname}({})){close}),\n",
            at(&uv)
        ));
    } else {
        s.push_str("            dhvp: None,\n");
    }
    if f.explain {
        s.push_str(&format!(
            "            explain: Some(|d, c, k, t| {open}check::explained(&{path}explain_{fname}({})){close}),\n",
            at(&tans)
        ));
    } else {
        s.push_str("            explain: None,\n");
    }
    s.push_str("        },\n");
    s
}
