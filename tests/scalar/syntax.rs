//! The Rust that `#[autodiff]` bodies may contain, each form checked in both modes against the
//! derivative worked out by hand and against finite differences.

use crate::common;

use common::{assert_close, check_binary, check_unary};
use diffx::autodiff;

/// `let` with and without types, shadowing, `let mut` with reassignment and compound operators,
/// blocks and parentheses.
#[autodiff]
#[allow(clippy::assign_op_pattern)]
fn bindings(x: f64, y: f64) -> f64 {
    let a: f64 = x * y;
    let a = a + 1.0; // shadowing: a = xy + 1
    let mut s = a;
    s += x; // xy + 1 + x
    s *= 2.0; // 2xy + 2 + 2x
    s -= y; // 2xy + 2 + 2x − y
    s /= 2.0; // xy + 1 + x − y/2
    let b = {
        let t = s * s;
        t - (s + 1.0)
    };
    s = s + b; // s² − 1 (plain assignment)
    s
}

#[test]
fn bindings_shadowing_mutation_and_blocks() {
    let s = |x: f64, y: f64| x * y + 1.0 + x - y / 2.0;
    let f = |x: f64, y: f64| s(x, y) * s(x, y) - 1.0;
    let d = |x: f64, y: f64| [2.0 * s(x, y) * (y + 1.0), 2.0 * s(x, y) * (x - 0.5)];
    for p in [[1.0, 2.0], [-0.5, 3.0]] {
        assert_close(bindings(p[0], p[1]), f(p[0], p[1]), 1e-14, "value");
        check_binary(
            p,
            d(p[0], p[1]),
            bindings,
            grad_bindings,
            jvp_bindings,
            vjp_bindings,
        );
    }
}

/// One name bound again in sibling and nested scopes (loops, blocks, an arm, a closure's
/// parameter, a parameter shadowed): each binding is its own value, and the outer one is read
/// again where an inner one's scope ends.
#[autodiff]
#[allow(clippy::let_and_return)]
fn scoped(x: f64, y: f64) -> f64 {
    let t = x * y;
    let mut s = 0.0;
    for i in 0..2 {
        let t = t + i as f64 * x;
        s += t; // 2xy + x after the loop
    }
    for i in 0..3 {
        let y = y * i as f64;
        s += y; // + 3y
    }
    let sq = |t: f64| t * t;
    let u = {
        let t = sq(y);
        t + x // y² + x
    };
    let t = if s > 0.0 {
        let t = t * 2.0;
        t
    } else {
        t
    };
    assert!(t.is_finite(), "t = {}", t);
    t + s + u
}

#[test]
fn each_binding_of_a_name_is_its_own_value() {
    // Where s > 0: f = 2xy + (2xy + x + 3y) + (y² + x); elsewhere the first term is xy.
    for p in [[1.0, 2.0], [0.5, 3.0], [-2.0, 0.25]] {
        let [x, y] = p;
        let s = 2.0 * x * y + x + 3.0 * y;
        let k = if s > 0.0 { 2.0 } else { 1.0 };
        let f = k * x * y + s + y * y + x;
        assert_close(scoped(x, y), f, 1e-14, "value");
        let d = [k * y + 2.0 * y + 2.0, k * x + 2.0 * x + 3.0 + 2.0 * y];
        check_binary(p, d, scoped, grad_scoped, jvp_scoped, vjp_scoped);
    }
}

/// A closure reads the binding it was made with, though its name is bound again before the call
/// (`#[autodiff]` writes the closure out where it is called).
#[autodiff]
fn captured_then_bound_again(x: f64) -> f64 {
    let c = 2.0 * x;
    let scaled = |t: f64| t * c;
    let c = 5.0;
    scaled(x) + c
}

#[test]
fn a_closure_reads_the_binding_it_captured() {
    for x in [1.0, -0.5, 2.5] {
        assert_close(
            captured_then_bound_again(x),
            2.0 * x * x + 5.0,
            1e-14,
            "value",
        );
        check_unary(
            x,
            4.0 * x,
            captured_then_bound_again,
            grad_captured_then_bound_again,
            jvp_captured_then_bound_again,
            vjp_captured_then_bound_again,
        );
    }
}

/// Integer constants, casts, local `const` items and paths such as `std::f64::consts::PI`.
#[autodiff]
fn constants(x: f64, n: usize, label: &str) -> f64 {
    const HALF: f64 = 0.5;
    let k = n * 2 + 1; // an integer computed from a constant parameter
    let scale = k as f64 * HALF;
    assert!(!label.is_empty(), "labels are not empty");
    scale * x.powi(2) + std::f64::consts::PI * x + 3.0
}

#[test]
fn constants_casts_and_items() {
    // (2n+1)/2 · x² + πx + 3, n = 2: 2.5x² + πx + 3, derivative 5x + π.
    let (v, d) = value_and_grad_constants(1.5, 2, "run");
    assert_close(
        v,
        2.5 * 2.25 + std::f64::consts::PI * 1.5 + 3.0,
        1e-15,
        "value",
    );
    assert_close(d, 5.0 * 1.5 + std::f64::consts::PI, 1e-15, "derivative");
    assert_eq!(jvp_constants(1.5, 2, "run", 1.0), (v, d));
    assert_eq!(vjp_constants(1.5, 2, "run", 2.0), 2.0 * d);
}

/// `println!` and `assert!` keep working and see the current values of the names they mention.
#[autodiff]
fn with_macros(x: f64) -> f64 {
    let mut y = x * x;
    y += 1.0;
    assert!(y >= 1.0, "y = {y} is x² + 1");
    println!("x = {x}, y = {}", y);
    y * x
}

#[test]
fn macros_see_current_values() {
    // x³ + x: derivative 3x² + 1.
    assert_eq!(grad_with_macros(2.0), 13.0);
    assert_eq!(jvp_with_macros(2.0, 1.0), (10.0, 13.0));
}

mod physics {
    use diffx::autodiff;

    /// Kinetic energy ½mv².
    #[autodiff]
    pub fn kinetic(m: f64, v: f64) -> f64 {
        0.5 * m * v * v
    }

    /// Potential energy mgh with a constant number of floors.
    #[autodiff]
    pub fn potential(m: f64, floors: u32, h: f64) -> f64 {
        m * 9.81 * h * floors as f64
    }
}

#[autodiff]
fn square(x: f64) -> f64 {
    x * x
}

/// Calls of other `#[autodiff]` functions, by any path, through both modes.
#[autodiff]
fn energy(m: f64, v: f64) -> f64 {
    let h = square(v) / 10.0;
    physics::kinetic(m, v) + crate::syntax::physics::potential(m, 2, h) + self::square(2.0)
}

#[test]
fn calls_are_differentiated_through() {
    // ½mv² + 2·9.81·m·v²/10 + 4: ∂/∂m = v²(½ + 1.962), ∂/∂v = 2mv(½ + 1.962).
    let c = 0.5 + 2.0 * 9.81 / 10.0;
    let f = |m: f64, v: f64| c * m * v * v + 4.0;
    for p in [[2.0, 3.0], [0.5, -1.0]] {
        let (m, v) = (p[0], p[1]);
        assert_close(energy(m, v), f(m, v), 1e-14, "value");
        check_binary(
            p,
            [c * v * v, 2.0 * c * m * v],
            energy,
            grad_energy,
            jvp_energy,
            vjp_energy,
        );
    }
}

/// Nested calls: a function of a function of a function.
#[autodiff]
fn quartic(x: f64) -> f64 {
    square(square(x))
}

#[test]
fn nested_calls() {
    for x in [0.5, -2.0] {
        check_unary(
            x,
            4.0 * x * x * x,
            quartic,
            grad_quartic,
            jvp_quartic,
            vjp_quartic,
        );
    }
}

/// `f32` throughout.
#[autodiff]
fn single(x: f32, y: f32) -> f32 {
    (x * y).sin() + x.sqrt()
}

#[test]
fn f32_functions() {
    let (x, y) = (0.7_f32, 1.3_f32);
    let (dx, dy) = grad_single(x, y);
    assert!((dx - (y * (x * y).cos() + 0.5 / x.sqrt())).abs() < 1e-6);
    assert!((dy - x * (x * y).cos()).abs() < 1e-6);
    assert!((jvp_single(x, y, 1.0, 0.0).1 - dx).abs() < 1e-6);
}

/// `wrt` restricts the differentiable parameters; the others are constants.
#[autodiff(wrt(w))]
fn weighted(x: f64, w: f64) -> f64 {
    (w * x).tanh()
}

#[test]
fn wrt_selects_parameters() {
    let (x, w) = (0.4, 1.5);
    let d: f64 = grad_weighted(x, w);
    assert_close(d, x * (1.0 - (w * x).tanh().powi(2)), 1e-15, "∂/∂w");
    assert_eq!(jvp_weighted(x, w, 1.0).1, d);
}

/// A function that does not depend on its input has gradient zero.
#[autodiff]
fn flat(x: f64) -> f64 {
    let _unused = x * 2.0;
    7.0
}

#[test]
fn constant_functions_have_zero_gradient() {
    assert_eq!(value_and_grad_flat(3.0), (7.0, 0.0));
    assert_eq!(jvp_flat(3.0, 1.0), (7.0, 0.0));
}

/// Destructuring assignment: `(a, b) = (b, a·x + b)` reads both parts before it assigns either;
/// `[p, q] = …` and `_` too.
#[autodiff]
fn recurrence(x: f64, y: f64) -> f64 {
    let (mut a, mut b) = (1.0, y);
    for _ in 0..3 {
        (a, b) = (b, a * x + b);
    }
    let (mut p, mut q) = (a, b);
    [p, q] = [p * y, q];
    (q, _) = (q + p, p);
    q
}

#[test]
fn destructuring_assignment_swaps() {
    // a, b: (1, y) → (y, x + y) → (x + y, xy + x + y) → (xy + x + y, x² + 2xy + x + y); the
    // result is b + a·y = x² + 3xy + xy² + x + y + y².
    let f = |x: f64, y: f64| x * x + 3.0 * x * y + x * y * y + x + y + y * y;
    let d = |x: f64, y: f64| {
        [
            2.0 * x + 3.0 * y + y * y + 1.0,
            3.0 * x + 2.0 * x * y + 1.0 + 2.0 * y,
        ]
    };
    for p in [[1.0, 2.0], [-0.5, 3.0], [0.3, -1.1]] {
        assert_close(recurrence(p[0], p[1]), f(p[0], p[1]), 1e-14, "value");
        check_binary(
            p,
            d(p[0], p[1]),
            recurrence,
            grad_recurrence,
            jvp_recurrence,
            vjp_recurrence,
        );
    }
}

// Long and deep expressions: the macro walks them by recursion on a stack of its own (a unit test
// of the macro crate expands 3,000 terms and 500 nested parentheses; these check the values).

/// Σ_{i=1}^{200} i·x, one expression of 200 terms: the derivative is 200·201/2 = 20100.
#[autodiff]
fn long_sum(x: f64) -> f64 {
    x * 1.0
        + x * 2.0
        + x * 3.0
        + x * 4.0
        + x * 5.0
        + x * 6.0
        + x * 7.0
        + x * 8.0
        + x * 9.0
        + x * 10.0
        + x * 11.0
        + x * 12.0
        + x * 13.0
        + x * 14.0
        + x * 15.0
        + x * 16.0
        + x * 17.0
        + x * 18.0
        + x * 19.0
        + x * 20.0
        + x * 21.0
        + x * 22.0
        + x * 23.0
        + x * 24.0
        + x * 25.0
        + x * 26.0
        + x * 27.0
        + x * 28.0
        + x * 29.0
        + x * 30.0
        + x * 31.0
        + x * 32.0
        + x * 33.0
        + x * 34.0
        + x * 35.0
        + x * 36.0
        + x * 37.0
        + x * 38.0
        + x * 39.0
        + x * 40.0
        + x * 41.0
        + x * 42.0
        + x * 43.0
        + x * 44.0
        + x * 45.0
        + x * 46.0
        + x * 47.0
        + x * 48.0
        + x * 49.0
        + x * 50.0
        + x * 51.0
        + x * 52.0
        + x * 53.0
        + x * 54.0
        + x * 55.0
        + x * 56.0
        + x * 57.0
        + x * 58.0
        + x * 59.0
        + x * 60.0
        + x * 61.0
        + x * 62.0
        + x * 63.0
        + x * 64.0
        + x * 65.0
        + x * 66.0
        + x * 67.0
        + x * 68.0
        + x * 69.0
        + x * 70.0
        + x * 71.0
        + x * 72.0
        + x * 73.0
        + x * 74.0
        + x * 75.0
        + x * 76.0
        + x * 77.0
        + x * 78.0
        + x * 79.0
        + x * 80.0
        + x * 81.0
        + x * 82.0
        + x * 83.0
        + x * 84.0
        + x * 85.0
        + x * 86.0
        + x * 87.0
        + x * 88.0
        + x * 89.0
        + x * 90.0
        + x * 91.0
        + x * 92.0
        + x * 93.0
        + x * 94.0
        + x * 95.0
        + x * 96.0
        + x * 97.0
        + x * 98.0
        + x * 99.0
        + x * 100.0
        + x * 101.0
        + x * 102.0
        + x * 103.0
        + x * 104.0
        + x * 105.0
        + x * 106.0
        + x * 107.0
        + x * 108.0
        + x * 109.0
        + x * 110.0
        + x * 111.0
        + x * 112.0
        + x * 113.0
        + x * 114.0
        + x * 115.0
        + x * 116.0
        + x * 117.0
        + x * 118.0
        + x * 119.0
        + x * 120.0
        + x * 121.0
        + x * 122.0
        + x * 123.0
        + x * 124.0
        + x * 125.0
        + x * 126.0
        + x * 127.0
        + x * 128.0
        + x * 129.0
        + x * 130.0
        + x * 131.0
        + x * 132.0
        + x * 133.0
        + x * 134.0
        + x * 135.0
        + x * 136.0
        + x * 137.0
        + x * 138.0
        + x * 139.0
        + x * 140.0
        + x * 141.0
        + x * 142.0
        + x * 143.0
        + x * 144.0
        + x * 145.0
        + x * 146.0
        + x * 147.0
        + x * 148.0
        + x * 149.0
        + x * 150.0
        + x * 151.0
        + x * 152.0
        + x * 153.0
        + x * 154.0
        + x * 155.0
        + x * 156.0
        + x * 157.0
        + x * 158.0
        + x * 159.0
        + x * 160.0
        + x * 161.0
        + x * 162.0
        + x * 163.0
        + x * 164.0
        + x * 165.0
        + x * 166.0
        + x * 167.0
        + x * 168.0
        + x * 169.0
        + x * 170.0
        + x * 171.0
        + x * 172.0
        + x * 173.0
        + x * 174.0
        + x * 175.0
        + x * 176.0
        + x * 177.0
        + x * 178.0
        + x * 179.0
        + x * 180.0
        + x * 181.0
        + x * 182.0
        + x * 183.0
        + x * 184.0
        + x * 185.0
        + x * 186.0
        + x * 187.0
        + x * 188.0
        + x * 189.0
        + x * 190.0
        + x * 191.0
        + x * 192.0
        + x * 193.0
        + x * 194.0
        + x * 195.0
        + x * 196.0
        + x * 197.0
        + x * 198.0
        + x * 199.0
        + x * 200.0
}

/// 60 nested parentheses, each `(inner · 1.5 − x)`: y = x·(1.5⁶⁰ − 2·(1.5⁶⁰ − 1)) by the geometric
/// series, so y′ is that constant. The outermost parentheses are the deepest level's, kept.
#[autodiff]
#[allow(unused_parens)]
fn deep_nesting(x: f64) -> f64 {
    ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((x * 1.5 - x) * 1.5 - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
        * 1.5
        - x)
}

#[test]
fn long_and_deeply_nested_expressions() {
    for x in [-1.0, 0.5, 2.0] {
        assert_eq!(grad_long_sum(x), 20100.0);
        assert_eq!(jvp_long_sum(x, 1.0), (20100.0 * x, 20100.0));
        let slope = 1.5_f64.powi(60) - 2.0 * (1.5_f64.powi(60) - 1.0);
        let (y, dy) = jvp_deep_nesting(x, 1.0);
        assert!(
            (y - slope * x).abs() <= 1e-9 * (slope * x).abs(),
            "{y} {}",
            slope * x
        );
        assert!((grad_deep_nesting(x) - slope).abs() <= 1e-9 * slope.abs());
        assert!((dy - slope).abs() <= 1e-9 * slope.abs());
    }
}
