//! Constructs combined the way the random-program tester combines them, written by hand: jumps
//! inside `match` arms inside loops, vectors built in arms and loop bodies, `continue` and `break`
//! in nested loops, an `if` whose arm is a `loop`, arrays passed to calls inside a loop. Every
//! mode against central finite differences and against each other.

#![allow(
    clippy::assign_op_pattern,
    clippy::needless_range_loop,
    clippy::useless_vec
)]

use crate::common;
use common::assert_close;
use diffx::autodiff;
use diffx::check::derivative;

#[autodiff(order = 2)]
fn c1(x: f64, n: usize) -> f64 {
    let mut s = x;
    for i in 0..n {
        match i % 3 {
            0 => {
                if s > 2.0 {
                    continue;
                }
                s *= x;
            }
            1 => {
                let mut v = vec![0.0; 2];
                v[0] = s * x;
                v[1] = v[0] + x;
                s = v[1].sin() + s;
            }
            _ => {
                if i > 4 {
                    return s * 2.0;
                }
            }
        }
        let mut k = 0;
        while k < 2 {
            s += 0.1 * x;
            k += 1;
            if s > 10.0 {
                break;
            }
        }
    }
    s
}

#[autodiff]
fn c2(x: f64, y: f64) -> f64 {
    let mut v = vec![x, y, 0.0];
    let mut t = 0.0;
    for i in 0..3 {
        if v[i] > 0.5 {
            for j in 0..2 {
                v[j] += t * x;
                if j == i {
                    break;
                }
            }
        } else {
            t += v[i] * y;
            continue;
        }
        t = t * 0.5 + v[0];
    }
    let out = if t > 1.0 {
        v[0] * t
    } else {
        loop {
            t += y * y;
            if t > 1.0 {
                break;
            }
        }
        t
    };
    out + v[1]
}

#[autodiff]
fn c3(w: &[f64], x: f64) -> f64 {
    let mut acc = 0.0;
    for (i, &wi) in w.iter().enumerate() {
        let r = match i {
            0 => wi * x,
            1 | 2 => {
                let q = wi.tanh();
                q * q
            }
            _ => x,
        };
        {
            acc += r;
            if acc > 5.0 {
                return acc;
            }
        }
    }
    for e in w.iter() {
        if *e > x {
            acc -= *e * x;
        }
    }
    acc
}

#[autodiff]
fn helper(a: f64, b: &[f64]) -> f64 {
    a * b[0] + b[1].sin()
}

#[autodiff]
fn c4(x: f64, y: f64) -> f64 {
    let mut s = 0.0;
    let mut i = 0;
    while i < 3 {
        let v = [x * (i as f64), y];
        s += helper(s + x, &v);
        i += 1;
    }
    s
}

#[allow(clippy::type_complexity)]
fn check1(
    name: &str,
    f: &dyn Fn(f64) -> f64,
    vg: &dyn Fn(f64) -> (f64, f64),
    jvp: &dyn Fn(f64) -> (f64, f64),
    x: f64,
) {
    let (v, g) = vg(x);
    assert_close(v, f(x), 1e-12, &format!("{name} value at {x}"));
    assert_close(
        g,
        derivative(f, x),
        1e-6,
        &format!("{name} grad vs fd at {x}"),
    );
    let (v2, t) = jvp(x);
    assert_close(v2, f(x), 1e-12, &format!("{name} jvp value at {x}"));
    assert_close(t, g, 1e-10, &format!("{name} jvp vs grad at {x}"));
}

#[test]
fn combined_constructs_agree_with_finite_differences_in_every_mode() {
    for n in [0, 1, 3, 7] {
        for x in [0.3, 0.9, 1.7] {
            check1(
                "c1",
                &|x| c1(x, n),
                &|x| value_and_grad_c1(x, n),
                &|x| jvp_c1(x, n, 1.0),
                x,
            );
            let h = hvp_c1(x, n, 1.0);
            assert_close(h, derivative(|x| grad_c1(x, n), x), 1e-5, "c1 hvp");
        }
    }
    for (x, y) in [(0.3, 0.7), (0.9, 0.2), (0.6, -0.4)] {
        check1(
            "c2x",
            &|x| c2(x, y),
            &|x| {
                let (v, (g, _)) = value_and_grad_c2(x, y);
                (v, g)
            },
            &|x| jvp_c2(x, y, 1.0, 0.0),
            x,
        );
        check1(
            "c2y",
            &|y| c2(x, y),
            &|y| {
                let (v, (_, g)) = value_and_grad_c2(x, y);
                (v, g)
            },
            &|y| jvp_c2(x, y, 0.0, 1.0),
            y,
        );
        check1(
            "c4x",
            &|x| c4(x, y),
            &|x| {
                let (v, (g, _)) = value_and_grad_c4(x, y);
                (v, g)
            },
            &|x| jvp_c4(x, y, 1.0, 0.0),
            x,
        );
        check1(
            "c4y",
            &|y| c4(x, y),
            &|y| {
                let (v, (_, g)) = value_and_grad_c4(x, y);
                (v, g)
            },
            &|y| jvp_c4(x, y, 0.0, 1.0),
            y,
        );
    }
    let w = [0.4, 1.3, -0.2, 0.8];
    for x in [0.3, 0.6, 1.1] {
        check1(
            "c3x",
            &|x| c3(&w, x),
            &|x| {
                let (v, (_, g)) = value_and_grad_c3(&w, x);
                (v, g)
            },
            &|x| jvp_c3(&w, x, &[0.0; 4], 1.0),
            x,
        );
        let (_, (gw, _)) = value_and_grad_c3(&w, x);
        for k in 0..4 {
            let fd = derivative(
                |t| {
                    let mut w2 = w;
                    w2[k] = t;
                    c3(&w2, x)
                },
                w[k],
            );
            assert_close(gw[k], fd, 1e-6, &format!("c3 w{k}"));
        }
    }
}
