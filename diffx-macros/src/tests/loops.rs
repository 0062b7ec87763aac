//! Loops in reverse mode: what a tape keeps, what a recording loop records and reads again,
//! undo logs of element writes, checkpointed loops, the rest after an early `return`.

use proc_macro2::TokenStream;
use quote::quote;

use super::{vjp_code, vjp_text};

#[test]
fn a_running_sum_over_a_range_needs_no_tape() {
    // The adjoint reads neither `s` (its partial in `s + t` is 1) nor a taped index: the backward
    // loop runs the range reversed.
    let text = vjp_text(quote! {
        fn rosenbrock(x: &[f64]) -> f64 {
            let mut s = 0.0;
            for i in 0..x.len() - 1 {
                let a = x[i + 1] - x[i] * x[i];
                let b = 1.0 - x[i];
                s += 100.0 * a * a + b * b;
            }
            s
        }
    });
    assert!(!text.contains("tape"), "{text}");
    assert!(text.contains("for i in range . rev ()"), "{text}");
}

#[test]
fn a_tape_keeps_only_what_the_adjoint_reads() {
    // `a = -k * x - 0.3 * v` needs x for ∂a/∂k; nothing needs v (its partials are constants).
    let text = vjp_text(quote! {
        fn spring(k: f64, x0: f64, steps: usize) -> f64 {
            let mut x = x0;
            let mut v = 0.0;
            for _ in 0..steps {
                let a = -k * x - 0.3 * v;
                x += 0.01 * v;
                v += 0.01 * a;
            }
            x * x + v
        }
    });
    assert!(text.contains("tape . push ((x_2 ,))"), "{text}");
    assert!(
        text.contains("while let :: core :: option :: Option :: Some ((x_2 ,)) = tape . pop ()"),
        "{text}"
    );
}

/// A flag set before a `break` on an integer condition is part of the forward sweep, but the
/// backward sweep replays the taped iterations and needs neither the flag nor the index.
#[test]
fn a_break_flag_is_not_taped() {
    let text = vjp_text(quote! {
        fn f(x: f64, n: usize) -> f64 {
            let mut s = x;
            for i in 0..n {
                s *= x;
                if i >= 2 {
                    break;
                }
            }
            s
        }
    });
    assert!(text.contains("let cond = i >= 2"), "{text}");
    assert!(text.contains("tape . push ((s ,))"), "{text}");
    assert!(
        text.contains("while let :: core :: option :: Option :: Some ((s ,)) = tape . pop ()"),
        "{text}"
    );
}

#[test]
fn a_loop_records_what_its_backward_sweep_reads_and_runs_no_body_again() {
    // Three nested loops, as kmeans: the distance (a loop's result) is recorded, the difference
    // (one subtraction of elements the loops do not write) computed again; the backward loop over
    // the coordinates is skipped where the distance's adjoint is zero (all but the nearest centre).
    let item = quote! {
        fn loss(p: &[f64], c: &[f64], d: usize) -> f64 {
            let mut total = 0.0;
            for i in 0..p.len() / d {
                let mut closest = f64::INFINITY;
                for j in 0..c.len() / d {
                    let mut dist = 0.0;
                    for e in 0..d {
                        let diff = p[i * d + e] - c[j * d + e];
                        dist += diff * diff;
                    }
                    closest = closest.min(dist);
                }
                total += closest;
            }
            total
        }
    };
    let (out, code) = vjp_code(quote!(wrt(c)), item);
    let backward = &code[code.find("move|").expect("a pullback closure")..];
    assert!(
        code.contains("dist_18_rec.push(::core::clone::Clone::clone(&dist_18));"),
        "{out}"
    );
    assert!(backward.contains("=dist_18_rec.pop()"), "{out}");
    // The forward sweep's loops run once: no loop of the backward sweep runs a body forward.
    assert!(!backward.contains("__iter"), "{out}");
    assert!(backward.contains("letdiff_7=(p[i*d+e])-c[j*d+e];"), "{out}");
    assert!(
        backward.contains("ifdist_18_bar_1!=0.0{foreinrange.rev()"),
        "{out}"
    );
    // Recomputing keeps no records, and runs the bodies again.
    let attr = quote!(wrt(c), loops = "recompute");
    let item = quote! {
        fn loss(p: &[f64], c: &[f64], d: usize) -> f64 {
            let mut total = 0.0;
            for i in 0..p.len() / d {
                let mut dist = 0.0;
                for e in 0..d {
                    dist += (p[i * d + e] - c[e]).powi(2);
                }
                total += dist.sqrt();
            }
            total
        }
    };
    let (out, code) = vjp_code(attr, item);
    assert!(!code.contains("_rec"), "{out}");
    let backward = &code[code.find("move|").expect("a pullback closure")..];
    assert!(backward.contains("__iter"), "{out}");
}

#[test]
fn elements_of_written_vectors_are_read_again_where_no_write_comes_between() {
    // An LSTM cell: `h` and `c` are read, used, and only then their elements overwritten; the
    // backward sweep undoes the writes before it needs them, and reads them from the vector.
    // `before` is used after a write of the vector: it is recorded.
    let item = quote! {
        fn loss(x: &[f64], n: usize) -> f64 {
            let b = x.len();
            let mut st = vec![0.5; 2 * b];
            let mut total = 0.0;
            for _ in 0..n {
                for i in 0..b {
                    let h = st[i];
                    let c = st[b + i];
                    let next = c * (h * x[i]).tanh();
                    st[b + i] = next;
                    st[i] = next.sin();
                }
                let before = st[0];
                st[0] = before * 0.5;
                total += before * before;
            }
            total
        }
    };
    let (out, code) = vjp_code(TokenStream::new(), item);
    let backward = &code[code.find("move|").expect("a pullback closure")..];
    // `h` is read again; `c` is recorded all the same, since the product `c * tanh(…)`, which
    // the backward sweep computes again at the start of the iteration (before any undo), reads it.
    assert!(!code.contains("h_2_rec"), "{out}");
    assert!(code.contains("c_5_rec.push("), "{out}");
    assert!(code.contains("before_2_rec.push("), "{out}");
    // Read again after the undo of both writes, right before the first adjoint that needs it.
    let undo = backward.find("st_2[i]=__old;").expect("the undo of st[i]");
    let read = backward.find("leth_2=st_2[i];").expect("h read again");
    assert!(undo < read, "{out}");
}

#[test]
fn element_writes_undone_where_their_index_is_known_log_values_alone() {
    // A vector rewritten in a loop: each write's adjoint knows its index, so its log keeps the old
    // value alone and the undo restores that element.
    let item = quote! {
        fn loss(x: &[f64], n: usize) -> f64 {
            let mut v = vec![0.0; x.len()];
            for _ in 0..n {
                for i in 0..x.len() {
                    v[i] = v[i] * 0.5 + x[i];
                }
            }
            v[0] * v[1]
        }
    };
    let (out, code) = vjp_code(TokenStream::new(), item);
    assert!(code.contains("v_1_log.push(v_1[__k]);"), "{out}");
    assert!(
        code.contains("iflet::core::option::Option::Some(__old)=v_1_log.pop(){v_1[i]=__old;}"),
        "{out}"
    );
    // Shared with a push, the log keeps indices (undoing the push pops the element).
    let item = quote! {
        fn loss(x: &[f64], n: usize) -> f64 {
            let mut v = vec![x[0]];
            for i in 0..n {
                v[0] = v[0] * x[1];
                v.push(v[i] * 0.5);
            }
            v[n]
        }
    };
    let (out, code) = vjp_code(TokenStream::new(), item);
    assert!(code.contains("log.push((__k,"), "{out}");
    assert!(code.contains("Restore::restore"), "{out}");
}

#[test]
fn a_checkpointed_loop_runs_the_primal_forward_and_follows_the_schedule_backward() {
    let item = quote! {
        fn loss(x: &[f64], n: usize) -> f64 {
            let mut s = 0.5;
            for _ in 0..n {
                s = (s * x[0]).sin().exp() + x[1];
            }
            s
        }
    };
    let (out, code) = vjp_code(quote!(checkpoint = 3), item);
    let backward = &code[code.find("move|").expect("a pullback closure")..];
    let forward = &code[..code.find("move|").expect("a pullback closure")];
    // The forward sweep: the primal loop and the snapshots, no tape and no records.
    assert!(
        forward.contains("::diffx::__private::Schedule::new("),
        "{out}"
    );
    assert!(forward.contains(",3usize)"), "{out}");
    assert!(forward.contains(".keeps(__j)"), "{out}");
    assert!(!forward.contains("_rec"), "{out}");
    assert!(!forward.contains("tape"), "{out}");
    // The backward sweep: the schedule's actions, and one recorded iteration at a time.
    for action in [
        "Advance(",
        "Push=>",
        "Restore=>",
        "Pop=>",
        "Reverse(__step)",
        "Done=>break",
    ] {
        assert!(backward.contains(action), "{action}: {out}");
    }
    assert!(backward.contains("::core::iter::once("), "{out}");
    assert!(backward.contains("_rec.pop()"), "{out}");
    // Without the argument, the loop records.
    let item = quote! {
        fn loss(x: &[f64], n: usize) -> f64 {
            let mut s = 0.5;
            for _ in 0..n {
                s = (s * x[0]).sin().exp() + x[1];
            }
            s
        }
    };
    let (out, code) = vjp_code(TokenStream::new(), item);
    assert!(!code.contains("Schedule"), "{out}");
}

#[test]
fn the_rest_after_an_early_return_records_and_keeps_its_calls_pullbacks() {
    // The loop after the `return` is in the `if` the return makes; that `if` records: its
    // backward arm runs no loop forward and makes no call again, but pops the call's pullback.
    let item = quote! {
        fn loss(x: &[f64], n: usize) -> f64 {
            if n == 0 {
                return x[0];
            }
            let mut s = 0.0;
            for i in 0..x.len() {
                s += g(x[i], s);
            }
            s * s
        }
    };
    let (out, code) = vjp_code(quote!(), item.clone());
    let backward = &code[code.find("move|").expect("a pullback closure")..];
    assert!(!backward.contains("__iter"), "{out}");
    assert!(!backward.contains("__diffx_split_g("), "{out}");
    assert!(!backward.contains("__diffx_vjp_g("), "{out}");
    assert!(code.contains("t5_calls.push("), "{out}");
    assert!(backward.contains("=t5_calls.pop()"), "{out}");
    // Recomputing, the backward arm runs the loop again, splitting the call there.
    let (out, code) = vjp_code(quote!(loops = "recompute"), item);
    let backward = &code[code.find("move|").expect("a pullback closure")..];
    assert!(backward.contains("__iter"), "{out}");
    assert!(!code.contains("_rec"), "{out}");
}
