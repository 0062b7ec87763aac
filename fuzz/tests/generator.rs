//! The generator itself: deterministic per seed, every construct and elementary function over a
//! few hundred functions, known-bug forms only when allowed.

use diffx_fuzz::gen::ast::{Block, Else, Stmt};
use diffx_fuzz::gen::{self, Bug, Bugs, Config, C, CONSTRUCTS};

fn units(seed: u64, n: u64, cfg: &Config) -> Vec<gen::Unit> {
    (0..n).map(|i| gen::unit(seed, i, cfg)).collect()
}

/// How often each construct was generated over `units`.
fn used(units: &[gen::Unit]) -> Vec<u32> {
    let mut total = vec![0; C::COUNT];
    for f in units.iter().flat_map(|u| u.functions()) {
        for (t, n) in total.iter_mut().zip(&f.used) {
            *t += n;
        }
    }
    total
}

#[test]
fn a_seed_and_an_index_name_one_program() {
    let cfg = Config::default();
    let a = gen::unit(7, 12, &cfg).source();
    assert_eq!(a, gen::unit(7, 12, &cfg).source());
    // Independent of how many functions are generated before it.
    assert_eq!(a, units(7, 13, &cfg)[12].source());
    assert_ne!(a, gen::unit(7, 13, &cfg).source());
    assert_ne!(a, gen::unit(8, 12, &cfg).source());
}

#[test]
fn every_construct_appears() {
    let cfg = Config {
        bugs: Bugs::all(),
        ..Config::default()
    };
    let counts = used(&units(3, 400, &cfg));
    for (c, name, _) in CONSTRUCTS {
        assert!(
            counts[c as usize] > 0,
            "`{name}` never generated in 400 functions: {counts:?}"
        );
    }
}

#[test]
fn every_elementary_function_appears() {
    let cfg = Config {
        bugs: Bugs::all(),
        ..Config::default()
    };
    let mut seen: Vec<String> = units(4, 400, &cfg)
        .iter()
        .flat_map(|u| {
            u.functions()
                .flat_map(|f| f.methods.clone())
                .collect::<Vec<_>>()
        })
        .collect();
    seen.sort();
    seen.dedup();
    let readme = "powi powf sqrt cbrt exp exp2 exp_m1 ln ln_1p log log2 log10 recip sin cos tan asin acos \
                  atan atan2 sinh cosh tanh asinh acosh atanh abs max min hypot mul_add fract to_degrees \
                  to_radians signum floor ceil round trunc sigmoid relu softplus";
    for m in readme.split_whitespace() {
        assert!(
            seen.iter().any(|s| s == m),
            "`{m}` never generated; seen {seen:?}"
        );
    }
}

#[test]
fn known_bug_forms_only_when_allowed() {
    let none = used(&units(
        5,
        300,
        &Config {
            bugs: Bugs::none(),
            ..Config::default()
        },
    ));
    assert_eq!(
        none[C::MatchStmt as usize],
        0,
        "match statements are form C"
    );
    let all = used(&units(
        5,
        300,
        &Config {
            bugs: Bugs::all(),
            ..Config::default()
        },
    ));
    assert!(all[C::MatchStmt as usize] > 0);
    // Without form A, every `break` directly in an `if` arm is under a condition that reads a
    // differentiable value; with it, some are not.
    let breaks = |cfg: &Config| {
        let mut conds = Vec::new();
        for u in units(6, 300, cfg) {
            for f in u.functions() {
                break_conditions(&f.body, &mut conds);
            }
        }
        conds
    };
    let without = Config {
        bugs: Bugs::none(),
        ..Config::default()
    };
    assert!(breaks(&without).iter().all(|&active| active));
    let a_on = Config {
        bugs: Bugs::none().with(Bug::IntBreak),
        ..Config::default()
    };
    assert!(breaks(&a_on).iter().any(|&active| !active));
}

/// For each `if` whose arm ends with `break`, whether its condition reads a differentiable value.
fn break_conditions(b: &Block, out: &mut Vec<bool>) {
    let arm = |b: &Block, active: bool, out: &mut Vec<bool>| {
        if matches!(b.stmts.last(), Some(Stmt::Break(_))) {
            out.push(active);
        }
        break_conditions(b, out);
    };
    for s in &b.stmts {
        match s {
            Stmt::If(i) => {
                let mut i = i;
                loop {
                    arm(&i.then, i.active, out);
                    match i.els.as_deref() {
                        Some(Else::Block(e)) => {
                            arm(e, i.active, out);
                            break;
                        }
                        Some(Else::If(e)) => i = e,
                        None => break,
                    }
                }
            }
            Stmt::For { body, .. }
            | Stmt::While { body, .. }
            | Stmt::Loop { body }
            | Stmt::Block(body) => break_conditions(body, out),
            Stmt::Match { arms, .. } => arms.iter().for_each(|(_, b)| break_conditions(b, out)),
            _ => {}
        }
    }
}

#[test]
fn known_bug_forms_parse_by_letter_and_name() {
    let b = Bugs::parse("A, match_stmt,N").unwrap();
    assert!(
        b.allows(Bug::IntBreak) && b.allows(Bug::MatchStmt) && b.allows(Bug::VecWriteNestedLoop)
    );
    assert!(!b.allows(Bug::SliceToCall));
    assert_eq!(b.describe(), "A,C,N");
    assert_eq!(Bugs::parse("all").unwrap(), Bugs::all());
    assert_eq!(Bugs::parse("none").unwrap().describe(), "none");
    assert!(Bugs::parse("nope").is_err());
}

#[test]
fn the_emitted_file_maps_lines_to_units() {
    let us = units(9, 20, &Config::default());
    let e = gen::emit::emit(&us, "test");
    let lines: Vec<&str> = e.text.lines().collect();
    for (i, u) in us.iter().enumerate() {
        // `fn f3(` or, generic over its float type, `fn f3<T: diffx::Float>(`.
        let (header, generic) = (
            format!("fn {}(", u.main.name),
            format!("fn {}<", u.main.name),
        );
        let at = lines
            .iter()
            .position(|l| l.starts_with(&header) || l.starts_with(&generic))
            .unwrap()
            + 1;
        assert_eq!(e.unit_at(at), Some(i));
        let entry = format!("name: \"{}\"", u.main.name);
        let at = lines.iter().position(|l| l.contains(&entry)).unwrap() + 1;
        assert_eq!(e.unit_at(at), Some(i));
    }
}
