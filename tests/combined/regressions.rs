//! Programs that `#[autodiff]` once got wrong (issue 15 and `shared/regressions/`, found by
//! random-program testing), each checked in every mode: the value of every derivative function
//! against the primal, `grad_` against the derivative worked out by hand and against central
//! finite differences, `jvp_` and `vjp_` against `grad_`, and `hvp_` against finite differences
//! of `grad_`. Three of them were silently wrong (A, B, N); the others did not compile.

// The programs are kept as they were reported, in the forms users write.
#![allow(
    clippy::assign_op_pattern,
    clippy::clone_on_copy,
    clippy::collapsible_match,
    clippy::needless_range_loop,
    clippy::useless_vec
)]

use crate::common;

use common::assert_close;
use diffx::autodiff;
use diffx::check::{central_difference, derivative};

/// One differentiable scalar: the derivative functions of `f` at `x`, where `f(x) = want.0` and
/// `f'(x) = want.1`.
struct Unary<'a> {
    f: &'a dyn Fn(f64) -> f64,
    value_and_grad: &'a dyn Fn(f64) -> (f64, f64),
    jvp: &'a dyn Fn(f64, f64) -> (f64, f64),
    vjp: &'a dyn Fn(f64, f64) -> f64,
    hvp: &'a dyn Fn(f64, f64) -> f64,
}

impl Unary<'_> {
    #[track_caller]
    fn check(&self, x: f64, want: (f64, f64)) {
        let at = format!("at x = {x}");
        assert_close((self.f)(x), want.0, 1e-12, &format!("primal {at}"));
        let (value, grad) = (self.value_and_grad)(x);
        assert_close(value, want.0, 1e-12, &format!("value_and_grad_ value {at}"));
        assert_close(grad, want.1, 1e-10, &format!("grad_ vs by hand {at}"));
        let fd = derivative(self.f, x);
        assert_close(grad, fd, 1e-6, &format!("grad_ vs finite differences {at}"));
        let (value, tangent) = (self.jvp)(x, 1.5);
        assert_close(value, want.0, 1e-12, &format!("jvp_ value {at}"));
        assert_close(tangent, 1.5 * grad, 1e-12, &format!("jvp_ {at}"));
        assert_close(
            (self.vjp)(x, -0.75),
            -0.75 * grad,
            1e-12,
            &format!("vjp_ {at}"),
        );
        let second = derivative(|x| (self.value_and_grad)(x).1, x);
        assert_close((self.hvp)(x, 1.0), second, 1e-5, &format!("hvp_ {at}"));
    }
}

macro_rules! unary {
    ($f:ident, $vg:ident, $jvp:ident, $vjp:ident, $hvp:ident $(, $c:expr)*) => {
        Unary {
            f: &|x| $f(x $(, $c)*),
            value_and_grad: &|x| $vg(x $(, $c)*),
            jvp: &|x, t| $jvp(x $(, $c)*, t),
            vjp: &|x, ct| $vjp(x $(, $c)*, ct),
            hvp: &|x, t| $hvp(x $(, $c)*, t),
        }
    };
}

// A: a `break` under a condition on integers only was dropped by every derivative function.
#[autodiff(order = 2)]
fn brk(x: f64, n: usize) -> f64 {
    let mut s = x;
    for i in 0..n {
        s *= x;
        if i >= 2 {
            break;
        }
    }
    s
}

#[autodiff(order = 2)]
fn brk_while(x: f64, n: usize) -> f64 {
    let mut s = x;
    let mut k = 0;
    while s < 100.0 {
        s *= 1.0 + x;
        k += 1;
        if k >= n {
            break;
        }
    }
    s
}

#[test]
fn a_break_on_an_integer_condition() {
    for x in [0.5_f64, 0.8, -1.2] {
        let u = unary!(brk, value_and_grad_brk, jvp_brk, vjp_brk, hvp_brk, 10);
        u.check(x, (x.powi(4), 4.0 * x.powi(3)));
        // n = 2: the loop ends before the break.
        let u = unary!(brk, value_and_grad_brk, jvp_brk, vjp_brk, hvp_brk, 2);
        u.check(x, (x.powi(3), 3.0 * x * x));
    }
    // s = x(1 + x)³: ds/dx = (1 + x)³ + 3x(1 + x)².
    for x in [0.5_f64, 0.3] {
        let u = unary!(
            brk_while,
            value_and_grad_brk_while,
            jvp_brk_while,
            vjp_brk_while,
            hvp_brk_while,
            3
        );
        let want = (
            x * (1.0 + x).powi(3),
            (1.0 + x).powi(3) + 3.0 * x * (1.0 + x).powi(2),
        );
        u.check(x, want);
    }
}

// Issue 15, 1: a `loop` whose `break` reads an integer counter hung `jvp_` and filled memory in
// `grad_`.
#[autodiff(order = 2)]
fn counted_loop(x: f64) -> f64 {
    let mut y = x;
    let mut k: i32 = 0;
    loop {
        y = y * 1.5;
        k += 1;
        if k >= 5 {
            break;
        }
    }
    y
}

#[test]
fn issue_1_loop_with_counted_break_terminates() {
    let u = unary!(
        counted_loop,
        value_and_grad_counted_loop,
        jvp_counted_loop,
        vjp_counted_loop,
        hvp_counted_loop
    );
    for x in [2.0_f64, -0.5] {
        u.check(x, (x * 1.5f64.powi(5), 1.5f64.powi(5)));
    }
}

// Issue 15, 2: a `loop` with `break` inside an `if` arm did not compile.
#[autodiff(order = 2)]
fn loop_in_arm(x: f64, y: f64) -> f64 {
    let mut t: f64 = x;
    if y > 0.0 {
        let mut c: i32 = 0;
        loop {
            t *= 1.1;
            c += 1;
            if c >= 3 {
                break;
            }
        }
    } else {
        t -= y;
    }
    t + y
}

#[test]
fn issue_2_loop_with_break_in_an_arm() {
    let k = 1.1f64.powi(3);
    for (x, y) in [(2.0, 1.0), (0.5, 3.0)] {
        assert_close(loop_in_arm(x, y), k * x + y, 1e-12, "value");
        let (v, (gx, gy)) = value_and_grad_loop_in_arm(x, y);
        assert_close(v, k * x + y, 1e-12, "value_and_grad_ value");
        assert_close(gx, k, 1e-12, "∂/∂x");
        assert_close(gy, 1.0, 1e-12, "∂/∂y");
        assert_close(jvp_loop_in_arm(x, y, 1.0, 2.0).1, k + 2.0, 1e-12, "jvp_");
        let (hx, hy) = hvp_loop_in_arm(x, y, 1.0, 1.0);
        assert_close(hx, 0.0, 1e-12, "hvp_ x");
        assert_close(hy, 0.0, 1e-12, "hvp_ y");
    }
    // The other arm: t = x − y, result x.
    let (_, (gx, gy)) = value_and_grad_loop_in_arm(2.0, -1.0);
    assert_close(gx, 1.0, 1e-12, "else ∂/∂x");
    assert_close(gy, 0.0, 1e-12, "else ∂/∂y");
    assert_close(
        jvp_loop_in_arm(2.0, -1.0, 0.0, 1.0).1,
        0.0,
        1e-12,
        "else jvp_",
    );
}

// Issue 15, 3: a local vector's element written after an early-return check lost its
// contribution in reverse mode (∂h/∂x = 4 instead of 12 at (2, 1)).
#[autodiff(order = 2)]
fn write_after_return_check(x: f64, y: f64) -> f64 {
    let mut v = vec![x, y];
    let t = x * x;
    if y > 2.5 {
        return x;
    }
    v[1] = t;
    v[0] * v[1]
}

#[autodiff]
fn sum_after_return_check(x: f64, y: f64) -> f64 {
    let mut v = vec![x, y];
    let t = x * x;
    if y > 2.5 {
        return x;
    }
    v[1] = t;
    v[0] + v[1]
}

#[test]
fn issue_3_vector_written_after_an_early_return() {
    for x in [2.0_f64, -0.7] {
        let (v, (gx, gy)) = value_and_grad_write_after_return_check(x, 1.0);
        assert_close(v, x.powi(3), 1e-12, "value");
        assert_close(gx, 3.0 * x * x, 1e-12, "∂/∂x = 3x²");
        assert_close(gy, 0.0, 1e-12, "∂/∂y");
        let t = jvp_write_after_return_check(x, 1.0, 1.0, 0.0).1;
        assert_close(t, 3.0 * x * x, 1e-12, "jvp_");
        let (hx, _) = hvp_write_after_return_check(x, 1.0, 1.0, 0.0);
        assert_close(hx, 6.0 * x, 1e-12, "hvp_ = 6x");
        let (_, (gx, _)) = value_and_grad_sum_after_return_check(x, 1.0);
        assert_close(gx, 1.0 + 2.0 * x, 1e-12, "sum ∂/∂x");
    }
    let (v, (gx, gy)) = value_and_grad_write_after_return_check(2.0, 3.0);
    assert_eq!((v, gx, gy), (2.0, 1.0, 0.0), "the early return");
}

// Issue 15, 4: the counter's increment behind an early-return guard hung the derivatives.
#[autodiff(order = 2)]
fn guarded_counter(x: f64) -> f64 {
    let mut t = x;
    let mut c = 0;
    while c < 4 && x < 3.0 {
        if x > 2.5 {
            return t;
        }
        t *= x;
        c += 1;
    }
    t
}

#[test]
fn issue_4_counter_behind_an_early_return() {
    let u = unary!(
        guarded_counter,
        value_and_grad_guarded_counter,
        jvp_guarded_counter,
        vjp_guarded_counter,
        hvp_guarded_counter
    );
    u.check(1.5, (1.5f64.powi(5), 5.0 * 1.5f64.powi(4)));
    u.check(2.7, (2.7, 1.0));
    u.check(3.5, (3.5, 1.0));
}

// Issue 15, 5: a `match` statement inside an `if` arm.
#[autodiff(order = 2)]
fn match_in_arm(x: f64, k: usize) -> f64 {
    let mut t = x;
    if x > 10.0 {
        t += 1.0;
    } else {
        match k % 2 {
            0 => {
                t *= 2.0;
            }
            _ => {
                t -= 1.0;
            }
        }
    }
    t * x
}

#[test]
fn issue_5_match_statement_in_an_arm() {
    let u = unary!(
        match_in_arm,
        value_and_grad_match_in_arm,
        jvp_match_in_arm,
        vjp_match_in_arm,
        hvp_match_in_arm,
        4
    );
    u.check(1.5, (4.5, 6.0));
    let u = unary!(
        match_in_arm,
        value_and_grad_match_in_arm,
        jvp_match_in_arm,
        vjp_match_in_arm,
        hvp_match_in_arm,
        3
    );
    u.check(1.5, (0.75, 2.0));
}

// B: an update of a constant local after an early return inside a block statement was skipped.
#[autodiff(order = 2)]
fn return_in_block(x: f64, n: usize) -> f64 {
    let mut a = -0.2;
    {
        if n > 5 {
            return -x;
        }
        a += -1.9;
    }
    if 0.5 > a {
        return a * 0.25;
    }
    x * x
}

#[test]
fn b_update_after_a_return_in_a_block() {
    let u = unary!(
        return_in_block,
        value_and_grad_return_in_block,
        jvp_return_in_block,
        vjp_return_in_block,
        hvp_return_in_block,
        1
    );
    u.check(0.5, (-0.525, 0.0));
    let u = unary!(
        return_in_block,
        value_and_grad_return_in_block,
        jvp_return_in_block,
        vjp_return_in_block,
        hvp_return_in_block,
        7
    );
    u.check(0.5, (-0.5, -1.0));
}

// C: `match` as a statement with block arms, expression arms, and a `return` in an arm.
#[autodiff(order = 2)]
fn match_block_arms(x: f64, n: usize) -> f64 {
    let mut s = x;
    match n {
        1 => {
            s += x;
        }
        _ => {
            s *= x;
        }
    }
    s
}

#[autodiff(order = 2)]
fn match_expr_arms(x: f64, n: usize) -> f64 {
    let mut s = x;
    match n {
        1 => s += x,
        _ => s *= x,
    }
    s
}

#[autodiff(order = 2)]
fn match_return_arm(x: f64, n: usize) -> f64 {
    match n % 4 {
        1 | 2 => {
            if x < -0.8 {
                return x * x;
            }
        }
        _ => {}
    }
    x
}

#[test]
fn c_match_statements() {
    for x in [0.5_f64, -1.5] {
        let u = unary!(
            match_block_arms,
            value_and_grad_match_block_arms,
            jvp_match_block_arms,
            vjp_match_block_arms,
            hvp_match_block_arms,
            1
        );
        u.check(x, (2.0 * x, 2.0));
        let u = unary!(
            match_expr_arms,
            value_and_grad_match_expr_arms,
            jvp_match_expr_arms,
            vjp_match_expr_arms,
            hvp_match_expr_arms,
            2
        );
        u.check(x, (x * x, 2.0 * x));
        let u = unary!(
            match_return_arm,
            value_and_grad_match_return_arm,
            jvp_match_return_arm,
            vjp_match_return_arm,
            hvp_match_return_arm,
            5
        );
        let want = if x < -0.8 { (x * x, 2.0 * x) } else { (x, 1.0) };
        u.check(x, want);
    }
}

// D: a block statement as the last statement of an arm, a loop body or a block.
#[autodiff(order = 2)]
fn block_last_in_arm(x: f64) -> f64 {
    let mut s = x;
    if x > 0.0 {
        {
            s *= x;
        }
    }
    s
}

#[autodiff(order = 2)]
fn block_last_in_loop(x: f64, n: usize) -> f64 {
    let mut s = x;
    for _ in 0..n {
        {
            s *= x;
        }
    }
    s
}

#[autodiff(order = 2)]
fn block_last_in_block(x: f64) -> f64 {
    let mut s = x;
    {
        {
            s *= x;
        }
    }
    s
}

#[test]
fn d_block_statements_last_in_a_block() {
    for x in [0.7_f64, 1.3] {
        let u = unary!(
            block_last_in_arm,
            value_and_grad_block_last_in_arm,
            jvp_block_last_in_arm,
            vjp_block_last_in_arm,
            hvp_block_last_in_arm
        );
        u.check(x, (x * x, 2.0 * x));
        let u = unary!(
            block_last_in_loop,
            value_and_grad_block_last_in_loop,
            jvp_block_last_in_loop,
            vjp_block_last_in_loop,
            hvp_block_last_in_loop,
            3
        );
        u.check(x, (x.powi(4), 4.0 * x.powi(3)));
        let u = unary!(
            block_last_in_block,
            value_and_grad_block_last_in_block,
            jvp_block_last_in_block,
            vjp_block_last_in_block,
            hvp_block_last_in_block
        );
        u.check(x, (x * x, 2.0 * x));
    }
}

// E: loops holding `break`, `continue` or `return` as the last statement of an arm or loop body.
#[autodiff(order = 2)]
fn loop_last_in_if(x: f64) -> f64 {
    let mut s = x;
    if x > 0.0 {
        let mut k = 0;
        loop {
            k += 1;
            if k > 2 {
                break;
            }
            s *= x;
        }
    }
    s
}

#[autodiff(order = 2)]
fn break_loop_last_in_for(x: f64) -> f64 {
    let mut s = x;
    for _ in 0..2 {
        for _ in 0..3 {
            s *= x;
            if s > 5.0 {
                break;
            }
        }
    }
    s
}

#[autodiff(order = 2)]
fn continue_loop_last_in_if(x: f64) -> f64 {
    let mut s = x;
    if x > 0.0 {
        for _ in 0..2 {
            if s > 3.0 {
                continue;
            }
            s *= x;
        }
    }
    s
}

#[autodiff(order = 2)]
fn return_loop_last_in_if(x: f64) -> f64 {
    let mut s = x;
    if x > 0.0 {
        for _ in 0..2 {
            if s > 3.0 {
                return s;
            }
            s *= x;
        }
    }
    s
}

#[autodiff(order = 2)]
fn int_break_last_in_loop(y: f64, n: usize) -> f64 {
    let mut s = y;
    let mut k: usize = 0;
    loop {
        k += 1;
        if k > 3 {
            break;
        }
        s *= y;
        if n > 0 {
            break;
        }
    }
    s
}

#[test]
fn e_loops_with_jumps_last_in_a_block() {
    for x in [0.9_f64, 1.2] {
        let u = unary!(
            loop_last_in_if,
            value_and_grad_loop_last_in_if,
            jvp_loop_last_in_if,
            vjp_loop_last_in_if,
            hvp_loop_last_in_if
        );
        u.check(x, (x.powi(3), 3.0 * x * x));
        let u = unary!(
            continue_loop_last_in_if,
            value_and_grad_continue_loop_last_in_if,
            jvp_continue_loop_last_in_if,
            vjp_continue_loop_last_in_if,
            hvp_continue_loop_last_in_if
        );
        u.check(x, (x.powi(3), 3.0 * x * x));
        let u = unary!(
            return_loop_last_in_if,
            value_and_grad_return_loop_last_in_if,
            jvp_return_loop_last_in_if,
            vjp_return_loop_last_in_if,
            hvp_return_loop_last_in_if
        );
        u.check(x, (x.powi(3), 3.0 * x * x));
        // Six products, no break below 5.
        let u = unary!(
            break_loop_last_in_for,
            value_and_grad_break_loop_last_in_for,
            jvp_break_loop_last_in_for,
            vjp_break_loop_last_in_for,
            hvp_break_loop_last_in_for
        );
        u.check(x, (x.powi(7), 7.0 * x.powi(6)));
        let u = unary!(
            int_break_last_in_loop,
            value_and_grad_int_break_last_in_loop,
            jvp_int_break_last_in_loop,
            vjp_int_break_last_in_loop,
            hvp_int_break_last_in_loop,
            1
        );
        u.check(x, (x * x, 2.0 * x));
        let u = unary!(
            int_break_last_in_loop,
            value_and_grad_int_break_last_in_loop,
            jvp_int_break_last_in_loop,
            vjp_int_break_last_in_loop,
            hvp_int_break_last_in_loop,
            0
        );
        u.check(x, (x.powi(4), 4.0 * x.powi(3)));
    }
    // At 2 the inner loops break on s > 5: s = 2, 4, 8 | 16 (breaks at once).
    let u = unary!(
        break_loop_last_in_for,
        value_and_grad_break_loop_last_in_for,
        jvp_break_loop_last_in_for,
        vjp_break_loop_last_in_for,
        hvp_break_loop_last_in_for
    );
    u.check(2.0, (16.0, 32.0));
}

// K: a local vector built after an early return.
#[autodiff(order = 2)]
fn vector_after_return(x: f64) -> f64 {
    if x > 2.0 {
        return x;
    }
    let v = vec![x, 2.0 * x];
    v[0] * v[1]
}

// M: the same, written in a loop.
#[autodiff(order = 2)]
fn vector_after_return_in_loop(x: f64, n: usize) -> f64 {
    if x > 2.0 {
        return x;
    }
    let mut v = vec![0.0_f64; 3];
    for _ in 0..n {
        v[1] += x * v[1] + x;
    }
    v[1]
}

#[test]
fn k_m_vectors_after_an_early_return() {
    for x in [0.5_f64, -1.5] {
        let u = unary!(
            vector_after_return,
            value_and_grad_vector_after_return,
            jvp_vector_after_return,
            vjp_vector_after_return,
            hvp_vector_after_return
        );
        u.check(x, (2.0 * x * x, 4.0 * x));
        // v₁ ← (1 + x)v₁ + x, twice from 0: x(2 + x).
        let u = unary!(
            vector_after_return_in_loop,
            value_and_grad_vector_after_return_in_loop,
            jvp_vector_after_return_in_loop,
            vjp_vector_after_return_in_loop,
            hvp_vector_after_return_in_loop,
            2
        );
        u.check(x, (x * (2.0 + x), 2.0 + 2.0 * x));
    }
    let u = unary!(
        vector_after_return,
        value_and_grad_vector_after_return,
        jvp_vector_after_return,
        vjp_vector_after_return,
        hvp_vector_after_return
    );
    u.check(3.0, (3.0, 1.0));
}

// L: a local vector written in a loop inside an `if` arm and again after it.
#[autodiff(order = 2)]
fn vector_loop_in_arm(x: f64, n: usize) -> f64 {
    let mut v = vec![0.0_f64; 3];
    if x > -0.1 {
        for i in 0..3 {
            v[i] += x;
        }
    }
    v[(n + 1) % 3] += x;
    v[0] * v[1] + v[2]
}

#[test]
fn l_vector_written_in_a_loop_in_an_arm() {
    for x in [0.5_f64, 1.5] {
        // n = 0: v = (x, 2x, x): 2x² + x.
        let u = unary!(
            vector_loop_in_arm,
            value_and_grad_vector_loop_in_arm,
            jvp_vector_loop_in_arm,
            vjp_vector_loop_in_arm,
            hvp_vector_loop_in_arm,
            0
        );
        u.check(x, (2.0 * x * x + x, 4.0 * x + 1.0));
    }
    // The arm skipped: v = (0, x, 0).
    let u = unary!(
        vector_loop_in_arm,
        value_and_grad_vector_loop_in_arm,
        jvp_vector_loop_in_arm,
        vjp_vector_loop_in_arm,
        hvp_vector_loop_in_arm,
        0
    );
    u.check(-0.5, (0.0, 0.0));
}

// N: a local vector written in a loop nested in another loop lost every write.
#[autodiff(order = 2)]
fn nested_vector_writes(y: f64) -> f64 {
    let mut v = vec![0.0_f64; 2];
    for _ in 0..2 {
        for _ in 0..2 {
            v[0] += y;
        }
    }
    v[0]
}

#[autodiff(order = 2)]
fn nested_vector_writes_while(y: f64) -> f64 {
    let mut v = vec![0.0_f64; 2];
    for i in 0..2 {
        let mut k = 0;
        while k < 3 {
            v[i % 2] += y * v[0] + y;
            k += 1;
        }
    }
    v[0] + v[1]
}

#[test]
fn n_vector_written_in_nested_loops() {
    for y in [0.3_f64, -0.8] {
        let u = unary!(
            nested_vector_writes,
            value_and_grad_nested_vector_writes,
            jvp_nested_vector_writes,
            vjp_nested_vector_writes,
            hvp_nested_vector_writes
        );
        u.check(y, (4.0 * y, 4.0));
        // v₀ ← (1 + y)v₀ + y three times from 0 gives (1 + y)³ − 1; then v₁ ← v₁ + y(v₀ + 1)
        // three times: f = (1 + 3y)(1 + y)³ − 1, f′ = 3(1 + y)³ + 3(1 + 3y)(1 + y)².
        let want = (
            (1.0 + 3.0 * y) * (1.0 + y).powi(3) - 1.0,
            3.0 * (1.0 + y).powi(3) + 3.0 * (1.0 + 3.0 * y) * (1.0 + y).powi(2),
        );
        let u = unary!(
            nested_vector_writes_while,
            value_and_grad_nested_vector_writes_while,
            jvp_nested_vector_writes_while,
            vjp_nested_vector_writes_while,
            hvp_nested_vector_writes_while
        );
        u.check(y, want);
    }
}

// G: a slice parameter or a local vector passed to another `#[autodiff]` function.
#[autodiff]
fn product_of_two(w: &[f64]) -> f64 {
    w[0] * w[1]
}

#[autodiff]
fn pass_slice(x: f64, w: &[f64]) -> f64 {
    product_of_two(w) * x
}

#[autodiff]
fn pass_vec(x: f64) -> f64 {
    let mut v = vec![0.0; 3];
    v[0] = x;
    v[1] = x * x;
    product_of_two(&v)
}

#[test]
fn g_vectors_passed_to_calls() {
    let (x, w) = (1.5, [2.0, -3.0]);
    let (value, (gx, gw)) = value_and_grad_pass_slice(x, &w);
    assert_close(value, -9.0, 1e-12, "value");
    assert_close(gx, -6.0, 1e-12, "∂/∂x = w₀w₁");
    assert_eq!(gw, vec![x * w[1], x * w[0]], "∂/∂w");
    let (v, t) = jvp_pass_slice(x, &w, 0.5, &[1.0, -1.0]);
    assert_close(v, -9.0, 1e-12, "jvp_ value");
    assert_close(t, 0.5 * gx + gw[0] - gw[1], 1e-12, "jvp_");
    let (vx, vw) = vjp_pass_slice(x, &w, 2.0);
    assert_close(vx, 2.0 * gx, 1e-12, "vjp_ x");
    assert_eq!(vw, vec![2.0 * gw[0], 2.0 * gw[1]], "vjp_ w");
    for x in [0.5_f64, -1.25] {
        let (value, g) = value_and_grad_pass_vec(x);
        assert_close(value, x.powi(3), 1e-12, "value x³");
        assert_close(g, 3.0 * x * x, 1e-12, "3x²");
        assert_close(g, derivative(pass_vec, x), 1e-6, "finite differences");
        assert_close(jvp_pass_vec(x, -2.0).1, -2.0 * g, 1e-12, "jvp_");
    }
}

// H: an array argument to a function with a `[f64; 3]` parameter.
#[autodiff]
fn weighted3(q: [f64; 3]) -> f64 {
    q[0] * q[1] + q[2]
}

#[autodiff]
fn calls_with_array(x: f64) -> f64 {
    weighted3([x, x * x, 2.0])
}

#[autodiff]
fn passes_array_on(q: [f64; 3], x: f64) -> f64 {
    weighted3(q) * x
}

#[test]
fn h_arrays_passed_to_calls() {
    for x in [0.5_f64, -2.0] {
        let (value, g) = value_and_grad_calls_with_array(x);
        assert_close(value, x.powi(3) + 2.0, 1e-12, "value");
        assert_close(g, 3.0 * x * x, 1e-12, "3x²");
        assert_close(
            g,
            derivative(calls_with_array, x),
            1e-6,
            "finite differences",
        );
        assert_close(jvp_calls_with_array(x, 1.0).1, g, 1e-12, "jvp_");
        assert_close(vjp_calls_with_array(x, 0.5), 0.5 * g, 1e-12, "vjp_");
    }
    let q = [1.0, 2.0, 3.0];
    let (gq, gx) = grad_passes_array_on(q, 2.0);
    assert_eq!(gq, [4.0, 2.0, 2.0], "∂/∂q = x·(q₁, q₀, 1)");
    assert_close(gx, 5.0, 1e-12, "∂/∂x = q₀q₁ + q₂");
    let t = jvp_passes_array_on(q, 2.0, [1.0, 0.0, 0.0], 0.0).1;
    assert_close(t, 4.0, 1e-12, "jvp_ along q₀");
}

// I: `.tanh()` and `diffx::relu` of a call's result in a function with a slice parameter.
#[autodiff]
fn times(x: f64, y: f64) -> f64 {
    x * y
}

#[autodiff]
fn tanh_of_call(w: &[f64], x: f64) -> f64 {
    let a = times(x, x).tanh();
    a + w[0]
}

#[autodiff]
fn relu_of_call(w: &[f64], x: f64) -> f64 {
    let mut a = times(x, x);
    a -= diffx::relu(a);
    a + w[0]
}

#[test]
fn i_methods_of_a_call_in_a_slice_function() {
    let w = [0.25];
    for x in [0.5_f64, -1.5] {
        let (v, (gw, gx)) = value_and_grad_tanh_of_call(&w, x);
        assert_close(v, (x * x).tanh() + 0.25, 1e-12, "value");
        assert_eq!(gw, vec![1.0]);
        let want = 2.0 * x * (1.0 - (x * x).tanh().powi(2));
        assert_close(gx, want, 1e-12, "∂/∂x");
        let t = jvp_tanh_of_call(&w, x, &[0.0], 1.0).1;
        assert_close(t, want, 1e-12, "jvp_");
        // x² ≥ 0: relu takes all of it, a − relu(a) = 0.
        let (v, (_, gx)) = value_and_grad_relu_of_call(&w, x);
        assert_close(v, 0.25, 1e-12, "relu value");
        assert_close(gx, 0.0, 1e-12, "relu ∂/∂x");
    }
}

// J: `*e` of an element of `w.iter()` in a condition.
#[autodiff]
fn deref_in_condition(w: &[f64], x: f64) -> f64 {
    let mut s = x;
    for e in w.iter() {
        if *e <= x {
            s += x * *e;
        }
    }
    s
}

#[test]
fn j_dereferenced_elements_in_conditions() {
    let w = [0.5, 2.0, -1.0];
    let x = 1.0;
    // Elements 0.5 and −1 are ≤ 1: s = x + x(0.5 − 1).
    let (v, (gw, gx)) = value_and_grad_deref_in_condition(&w, x);
    assert_close(v, 0.5, 1e-12, "value");
    assert_eq!(gw, vec![1.0, 0.0, 1.0], "∂/∂w");
    assert_close(gx, 0.5, 1e-12, "∂/∂x");
    let t = jvp_deref_in_condition(&w, x, &[1.0, 1.0, 1.0], 1.0).1;
    assert_close(t, 2.5, 1e-12, "jvp_");
}

// Found by the random-program tester: a `break` inside the right side of an assignment leaves
// the variable as it was (the desugared code assigned a placeholder, read after the loop).
#[autodiff(order = 2)]
fn break_in_assigned_value(x: f64, n: usize) -> f64 {
    let mut b = x;
    let mut k = 0;
    loop {
        k += 1;
        b = if k < n {
            b * x
        } else {
            if k >= n {
                break;
            }
            0.0
        };
    }
    b + x
}

// A block value with nothing differentiable in it, holding a `for` with a `break`, is kept as
// written.
#[autodiff(order = 2)]
fn constant_block_with_break(x: f64, n: usize) -> f64 {
    let c = {
        let mut k = 0;
        for i in 0..n {
            if i > 2 {
                break;
            }
            k += 1;
        }
        k as f64
    };
    x * c
}

#[test]
fn jumps_inside_values_and_constant_blocks() {
    for x in [0.5_f64, 1.5] {
        // b = x·x^(n−1) = x³ for n = 3, then + x.
        let u = unary!(
            break_in_assigned_value,
            value_and_grad_break_in_assigned_value,
            jvp_break_in_assigned_value,
            vjp_break_in_assigned_value,
            hvp_break_in_assigned_value,
            3
        );
        u.check(x, (x.powi(3) + x, 3.0 * x * x + 1.0));
        let u = unary!(
            constant_block_with_break,
            value_and_grad_constant_block_with_break,
            jvp_constant_block_with_break,
            vjp_constant_block_with_break,
            hvp_constant_block_with_break,
            10
        );
        u.check(x, (3.0 * x, 3.0));
    }
}

// A block whose value is a local array copied from another and written in a loop over its own
// length did not compile: the `let` gave the block's array its own name after the loop's range
// (`0..out.len()`, kept as written) had named it, and rustc found no `out`.
#[autodiff(order = 2)]
fn block_copy_written(src: &[f64; 3], k: f64) -> f64 {
    let arr = {
        let mut out = *src;
        for i in 0..out.len() {
            out[i] = k * src[i] * src[i];
        }
        out
    };
    arr[0] + arr[1] * arr[2]
}

#[autodiff(order = 2)]
fn block_clone_written(src: &[f64; 3], k: f64) -> f64 {
    let arr = {
        let mut out = src.clone();
        for i in 0..out.len() {
            out[i] = k * src[i] * src[i];
        }
        out
    };
    arr[0] + arr[1] * arr[2]
}

#[autodiff(order = 2)]
fn block_local_written(src: &[f64; 3], k: f64) -> f64 {
    let arr = {
        let mut out = [0.0; 3];
        for i in 0..out.len() {
            out[i] = k * src[i] * src[i];
        }
        out
    };
    arr[0] + arr[1] * arr[2]
}

type OfSrc<'a, R> = &'a dyn Fn(&[f64; 3], f64) -> R;
type Grad3 = ([f64; 3], f64);
type AlongSrc<'a, R> = &'a dyn Fn(&[f64; 3], f64, &[f64; 3], f64) -> R;

/// The derivative functions of `k s₀² + k² s₁² s₂²` at `p = (s₀, s₁, s₂, k)`.
struct BlockCase<'a> {
    f: OfSrc<'a, f64>,
    value_and_grad: OfSrc<'a, (f64, Grad3)>,
    jvp: AlongSrc<'a, (f64, f64)>,
    vjp: &'a dyn Fn(&[f64; 3], f64, f64) -> Grad3,
    hvp: AlongSrc<'a, Grad3>,
}

impl BlockCase<'_> {
    #[track_caller]
    fn check(&self, p: [f64; 4]) {
        let ([s0, s1, s2, k], src) = (p, [p[0], p[1], p[2]]);
        let at = format!("at {p:?}");
        let want = k * s0 * s0 + k * k * s1 * s1 * s2 * s2;
        let by_hand = [
            2.0 * k * s0,
            2.0 * k * k * s1 * s2 * s2,
            2.0 * k * k * s1 * s1 * s2,
            s0 * s0 + 2.0 * k * s1 * s1 * s2 * s2,
        ];
        assert_close((self.f)(&src, k), want, 1e-12, &format!("primal {at}"));
        let (value, (gs, gk)) = (self.value_and_grad)(&src, k);
        assert_close(value, want, 1e-12, &format!("value_and_grad_ value {at}"));
        let grad = [gs[0], gs[1], gs[2], gk];
        let fd = central_difference(|v| (self.f)(&[v[0], v[1], v[2]], v[3]), &p);
        for i in 0..4 {
            assert_close(grad[i], by_hand[i], 1e-12, &format!("∂{i} by hand {at}"));
            assert_close(
                grad[i],
                fd[i],
                1e-6,
                &format!("∂{i} finite differences {at}"),
            );
        }
        let t = [0.5, -1.0, 2.0, 0.25];
        let (value, tangent) = (self.jvp)(&src, k, &[t[0], t[1], t[2]], t[3]);
        let along: f64 = grad.iter().zip(t).map(|(g, t)| g * t).sum();
        assert_close(value, want, 1e-12, &format!("jvp_ value {at}"));
        assert_close(tangent, along, 1e-12, &format!("jvp_ {at}"));
        let (vs, vk) = (self.vjp)(&src, k, -0.75);
        for (i, v) in [vs[0], vs[1], vs[2], vk].into_iter().enumerate() {
            assert_close(v, -0.75 * grad[i], 1e-12, &format!("vjp_ {i} {at}"));
        }
        let (hs, hk) = (self.hvp)(&src, k, &[t[0], t[1], t[2]], t[3]);
        let hv = [hs[0], hs[1], hs[2], hk];
        for (i, h) in hv.into_iter().enumerate() {
            let gi = |v: &[f64]| {
                let (_, (gs, gk)) = (self.value_and_grad)(&[v[0], v[1], v[2]], v[3]);
                [gs[0], gs[1], gs[2], gk][i]
            };
            let row = central_difference(gi, &p);
            let want: f64 = row.iter().zip(t).map(|(h, t)| h * t).sum();
            assert_close(h, want, 1e-5, &format!("hvp_ {i} {at}"));
        }
    }
}

macro_rules! block_case {
    ($f:ident, $vg:ident, $jvp:ident, $vjp:ident, $hvp:ident) => {
        BlockCase {
            f: &|s, k| $f(s, k),
            value_and_grad: &|s, k| $vg(s, k),
            jvp: &|s, k, ts, tk| $jvp(s, k, ts, tk),
            vjp: &|s, k, ct| $vjp(s, k, ct),
            hvp: &|s, k, ts, tk| $hvp(s, k, ts, tk),
        }
    };
}

#[test]
fn a_block_valued_array_written_in_a_loop_over_its_length() {
    let cases = [
        block_case!(
            block_copy_written,
            value_and_grad_block_copy_written,
            jvp_block_copy_written,
            vjp_block_copy_written,
            hvp_block_copy_written
        ),
        block_case!(
            block_clone_written,
            value_and_grad_block_clone_written,
            jvp_block_clone_written,
            vjp_block_clone_written,
            hvp_block_clone_written
        ),
        block_case!(
            block_local_written,
            value_and_grad_block_local_written,
            jvp_block_local_written,
            vjp_block_local_written,
            hvp_block_local_written
        ),
    ];
    for case in &cases {
        for p in [
            [0.7, -1.3, 2.1, 1.5],
            [1.0, 0.5, -0.25, -2.0],
            [-0.4, 2.0, 1.2, 0.3],
        ] {
            case.check(p);
        }
    }
}

/// Settings in a local struct of constants, changed by field in an `if` and a loop: code kept as
/// written, as before values of the user's types could be written by field.
#[derive(Clone, Copy)]
struct Settings {
    n: usize,
    w: f64,
}

#[autodiff]
fn with_settings(x: f64, k: usize) -> f64 {
    let mut settings = Settings { n: 1, w: 0.5 };
    if k > 2 {
        settings.n = 3;
        settings.w = 2.0;
    }
    for _ in 0..k {
        settings.w *= 0.5;
    }
    let mut s = x;
    for _ in 0..settings.n {
        s = s * x * settings.w;
    }
    s
}

#[test]
fn constant_structs_changed_by_field() {
    // k = 3: n = 3, w = 0.25, s = x⁴·w³; k = 1: n = 1, w = 0.25, s = x²·w.
    let x = 1.5;
    let (w3, w1): (f64, f64) = (0.25f64.powi(3), 0.25);
    assert!((grad_with_settings(x, 3) - 4.0 * x.powi(3) * w3).abs() < 1e-14);
    assert!((grad_with_settings(x, 1) - 2.0 * x * w1).abs() < 1e-14);
}
