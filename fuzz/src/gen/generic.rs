//! A generated function rewritten generic over its float type, as numeric crates write it:
//! `fn f<T: diffx::Float>(x: T, v: &[T]) -> T` with constants `T::from_f64(0.5).unwrap()` and
//! counts `T::from(i).unwrap()`. The checks call it at `f64`, so every check of the function
//! applies unchanged to the generic one.

/// `source` (one `#[autodiff]` function at `f64`) generic over `T`.
pub fn rewrite(source: &str) -> String {
    let with_let = source
        .lines()
        .map(|l| match l.trim_start().strip_prefix("const ") {
            // A `const` cannot depend on `T`.
            Some(rest) => format!("{}let {rest}", &l[..l.len() - l.trim_start().len()]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    // A `let` is named in snake case.
    let consts: Vec<String> = source
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("const "))
        .filter_map(|r| r.split(':').next().map(|n| n.trim().to_string()))
        .collect();
    let mut out = tokens(&compound_assignments_spelled_out(&with_let), &consts);
    if source.ends_with('\n') {
        out.push('\n');
    }
    // The first `(` after `fn name` opens the parameters.
    let at = out
        .find("fn ")
        .and_then(|f| out[f..].find('(').map(|p| f + p));
    match at {
        Some(p) => format!("{}<T: diffx::Float>{}", &out[..p], &out[p..]),
        None => out,
    }
}

/// `v[0] /= 1.0 + v[1];` as `v[0] = v[0] / (1.0 + v[1]);`: for `T` the operator is a method
/// borrowing `v[0]` mutably while the right side reads `v`, which rustc rejects.
fn compound_assignments_spelled_out(source: &str) -> String {
    source
        .lines()
        .map(|l| {
            let indent = &l[..l.len() - l.trim_start().len()];
            let Some(stmt) = l.trim().strip_suffix(';') else {
                return l.to_string();
            };
            for op in ["+", "-", "*", "/"] {
                if let Some((lhs, rhs)) = stmt.split_once(&format!(" {op}= ")) {
                    let element = lhs.ends_with(']')
                        && lhs.split('[').next().is_some_and(|n| {
                            !n.is_empty() && n.chars().all(|c| c.is_alphanumeric() || c == '_')
                        });
                    if element {
                        return format!("{indent}{lhs} = {lhs} {op} ({rhs});");
                    }
                }
            }
            l.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Rewrites `f64` to `T`, float literals to `T::from_f64(…).unwrap()` and `e as f64` to
/// `T::from(e).unwrap()`, leaving strings alone.
fn tokens(s: &str, consts: &[String]) -> String {
    let b: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '"' {
            let end = (i + 1..b.len())
                .find(|&j| b[j] == '"' && b[j - 1] != '\\')
                .unwrap_or(b.len() - 1);
            out.extend(&b[i..=end]);
            i = end + 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let end = (i..b.len())
                .find(|&j| !(b[j].is_ascii_alphanumeric() || b[j] == '_'))
                .unwrap_or(b.len());
            let word: String = b[i..end].iter().collect();
            i = end;
            if word == "as" && s_at(&b, i) == " f64" {
                // `operand as f64`: the operand is the last identifier or group written.
                let trimmed = out.trim_end().len();
                let start = operand_start(&out[..trimmed]);
                let operand = out[start..trimmed].to_string();
                out.truncate(start);
                out.push_str(&format!("T::from({operand}).unwrap()"));
                i += 4;
            } else if word == "f64" && !out.ends_with("fn ") && !s_at(&b, i).starts_with('(') {
                // Not the function `f64` (unit 64) or a call of it.
                out.push('T');
            } else if consts.contains(&word) {
                // `K1` as `c_k1`: in snake case, and not a name the generator gives (its counter
                // `k1` once shadowed the constant: s8080-f183).
                out.push_str(&format!("c_{}", word.to_lowercase()));
            } else {
                out.push_str(&word);
            }
        } else if c.is_ascii_digit() {
            let (text, end, float) = number(&b, i);
            i = end;
            if float {
                out.push_str(&format!("T::from_f64({text}).unwrap()"));
            } else {
                out.push_str(&text);
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn s_at(b: &[char], i: usize) -> String {
    b[i..(i + 4).min(b.len())].iter().collect()
}

/// Where the operand ending `text` starts: an identifier (with `.field`s) or a parenthesized group.
fn operand_start(text: &str) -> usize {
    let b: Vec<char> = text.chars().collect();
    let mut i = b.len();
    if i > 0 && b[i - 1] == ')' {
        let mut depth = 0;
        while i > 0 {
            i -= 1;
            match b[i] {
                ')' => depth += 1,
                '(' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    while i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == '_' || b[i - 1] == '.') {
        i -= 1;
    }
    b[..i].iter().collect::<String>().len()
}

/// The number starting at `i`: its text without a float suffix, where it ends, and whether it is a
/// float (`0.5`, `1e-3`, `2.0_f64`; not `3`, `0..n`, `2_usize`).
fn number(b: &[char], i: usize) -> (String, usize, bool) {
    let digits = |j: usize| {
        (j..b.len())
            .find(|&k| !(b[k].is_ascii_digit() || b[k] == '_'))
            .unwrap_or(b.len())
    };
    let mut end = digits(i);
    let mut float = false;
    if end + 1 < b.len() && b[end] == '.' && b[end + 1].is_ascii_digit() {
        end = digits(end + 1);
        float = true;
    }
    if end < b.len() && (b[end] == 'e' || b[end] == 'E') {
        let sign = usize::from(end + 1 < b.len() && (b[end + 1] == '-' || b[end + 1] == '+'));
        if end + 1 + sign < b.len() && b[end + 1 + sign].is_ascii_digit() {
            end = digits(end + 1 + sign);
            float = true;
        }
    }
    let text: String = b[i..end]
        .iter()
        .collect::<String>()
        .trim_end_matches('_')
        .to_string();
    let rest: String = b[end..(end + 5).min(b.len())].iter().collect();
    for suffix in ["_f64", "f64"] {
        if rest.starts_with(suffix) {
            return (text, end + suffix.len(), true);
        }
    }
    (text, end, float)
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn rewrites_types_literals_and_casts() {
        let src = "#[autodiff(order = 2)]\nfn f3(x: f64, v: &[f64], n: usize) -> f64 {\n    const C: f64 = 0.5;\n    let mut s = 0.0_f64;\n    for i in 0..n {\n        s += v[i] * (i as f64 * 0.25) + f64::max(x, 1e-3);\n    }\n    assert!(s.is_finite(), \"s = 1.5\");\n    s * C + x.powi(2)\n}\n";
        let want = "#[autodiff(order = 2)]\nfn f3<T: diffx::Float>(x: T, v: &[T], n: usize) -> T {\n    let c_c: T = T::from_f64(0.5).unwrap();\n    let mut s = T::from_f64(0.0).unwrap();\n    for i in 0..n {\n        s += v[i] * (T::from(i).unwrap() * T::from_f64(0.25).unwrap()) + T::max(x, T::from_f64(1e-3).unwrap());\n    }\n    assert!(s.is_finite(), \"s = 1.5\");\n    s * c_c + x.powi(2)\n}\n";
        assert_eq!(rewrite(src), want);
    }

    #[test]
    fn keeps_the_function_f64_and_spells_out_element_assignments() {
        let src = "#[autodiff]\nfn f64(v: Vec<f64>) -> f64 {\n    v[0] /= 1.0 + v[1];\n    h64(v[0]) + f64(v)\n}\n";
        let want = "#[autodiff]\nfn f64<T: diffx::Float>(v: Vec<T>) -> T {\n    v[0] = v[0] / (T::from_f64(1.0).unwrap() + v[1]);\n    h64(v[0]) + f64(v)\n}\n";
        assert_eq!(rewrite(src), want);
    }
}
