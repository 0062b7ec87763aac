//! `if`/`else` in `#[autodiff]` functions: statements and expressions, `else if` chains, conditions
//! on differentiable values and on constants, nested branches; both modes against the derivative
//! worked out by hand and against finite differences on both sides of every branch.

use crate::common;

use common::{check_binary, check_unary};
use diffx::autodiff;

/// A piecewise function with a branch on the differentiable input.
#[autodiff]
fn piecewise(x: f64) -> f64 {
    if x < 1.0 {
        x * x
    } else {
        2.0 * x.ln() + 1.0
    }
}

#[test]
fn piecewise_on_both_sides() {
    for x in [-2.0, 0.5, 0.99] {
        check_unary(
            x,
            2.0 * x,
            piecewise,
            grad_piecewise,
            jvp_piecewise,
            vjp_piecewise,
        );
    }
    for x in [1.01, 2.0, 7.5] {
        check_unary(
            x,
            2.0 / x,
            piecewise,
            grad_piecewise,
            jvp_piecewise,
            vjp_piecewise,
        );
    }
}

/// An `else if` chain; an arm that does not depend on the input; a statement `if` that rebinds.
#[autodiff]
fn chain(x: f64, y: f64) -> f64 {
    let mut s = x * y;
    if s > 4.0 {
        s = s.sqrt();
    }
    let t = if x < 0.0 {
        -x * y
    } else if x < 2.0 {
        x.sin() * y
    } else {
        3.0
    };
    s + t
}

fn chain_grad(x: f64, y: f64) -> [f64; 2] {
    let p = x * y;
    let (ds_dx, ds_dy) = if p > 4.0 {
        (0.5 * y / p.sqrt(), 0.5 * x / p.sqrt())
    } else {
        (y, x)
    };
    let (dt_dx, dt_dy) = if x < 0.0 {
        (-y, -x)
    } else if x < 2.0 {
        (x.cos() * y, x.sin())
    } else {
        (0.0, 0.0)
    };
    [ds_dx + dt_dx, ds_dy + dt_dy]
}

#[test]
fn else_if_chains_and_rebinding() {
    for p in [
        [-1.0, 0.5],
        [-3.0, -2.0],
        [0.5, 1.5],
        [1.5, 3.0],
        [2.5, 1.0],
        [3.0, 4.0],
    ] {
        check_binary(
            p,
            chain_grad(p[0], p[1]),
            chain,
            grad_chain,
            jvp_chain,
            vjp_chain,
        );
    }
}

/// Branches on a constant parameter, nested branches, and a branch whose arms rebind different
/// variables.
#[autodiff]
fn nested(x: f64, mode: u8) -> f64 {
    let mut a = x;
    let mut b = 1.0;
    if mode == 0 {
        a *= 3.0;
    } else {
        if x > 0.0 {
            b = x.exp();
        } else {
            a = -a;
        }
        a += b;
    }
    a * b
}

#[test]
fn nested_branches_and_constant_conditions() {
    // mode 0: 3x, derivative 3.
    assert_eq!(value_and_grad_nested(2.0, 0), (6.0, 3.0));
    assert_eq!(jvp_nested(2.0, 0, 1.0), (6.0, 3.0));
    // mode 1, x > 0: (x + eˣ)·eˣ, derivative (1 + eˣ)eˣ + (x + eˣ)eˣ.
    let x: f64 = 0.7;
    let d = (1.0 + x.exp()) * x.exp() + (x + x.exp()) * x.exp();
    assert!((grad_nested(x, 1) - d).abs() < 1e-12);
    assert!((jvp_nested(x, 1, 1.0).1 - d).abs() < 1e-12);
    // mode 1, x ≤ 0: (−x + 1)·1, derivative −1.
    assert_eq!(grad_nested(-0.5, 1), -1.0);
    assert_eq!(jvp_nested(-0.5, 1, 1.0).1, -1.0);
}

/// `max` written as a branch agrees with the rule table's `max` away from the tie.
#[autodiff]
fn branch_max(x: f64, y: f64) -> f64 {
    if x > y {
        x
    } else {
        y
    }
}

#[test]
fn a_branch_can_return_an_input_itself() {
    assert_eq!(grad_branch_max(3.0, 1.0), (1.0, 0.0));
    assert_eq!(grad_branch_max(1.0, 3.0), (0.0, 1.0));
    assert_eq!(jvp_branch_max(1.0, 3.0, 0.25, 0.5), (3.0, 0.5));
}

/// `match` on an integer and on a `bool`, as a value and with guards.
#[autodiff]
fn by_mode(x: f64, mode: u8, flip: bool) -> f64 {
    let y = match mode {
        0 => x * x,
        1 | 2 => x.sin(),
        m if m > 100 => 0.0,
        _ => x.exp(),
    };
    match flip {
        true => -y,
        false => y,
    }
}

#[test]
fn match_on_integers_and_bools() {
    let x: f64 = 0.6;
    for (mode, flip, d) in [
        (0, false, 2.0 * x),
        (1, false, x.cos()),
        (2, true, -x.cos()),
        (200, false, 0.0),
        (7, true, -x.exp()),
    ] {
        assert!(
            (grad_by_mode(x, mode, flip) - d).abs() < 1e-15,
            "mode {mode}"
        );
        assert!(
            (jvp_by_mode(x, mode, flip, 1.0).1 - d).abs() < 1e-15,
            "mode {mode}"
        );
    }
}

/// Recursion through `#[autodiff]` functions: xⁿ = x·xⁿ⁻¹.
#[autodiff]
fn pow_rec(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * pow_rec(x, n - 1)
    }
}

#[test]
fn recursion() {
    for n in 0..6 {
        let x: f64 = 1.3;
        let d = if n == 0 {
            0.0
        } else {
            n as f64 * x.powi(n as i32 - 1)
        };
        assert!((pow_rec(x, n) - x.powi(n as i32)).abs() < 1e-12);
        assert!((grad_pow_rec(x, n) - d).abs() < 1e-12, "n = {n}");
        assert!((jvp_pow_rec(x, n, 1.0).1 - d).abs() < 1e-12, "n = {n}");
    }
}
