//! Where a derivative's time goes, eval by eval (at one size each, inputs made up): the primal,
//! reverse mode's forward sweep alone (the split function, its closure dropped) and the whole
//! derivative, each the median of at least 15 runs and 0.7 s, as multiples of the primal.
//!
//! `cargo run --release -p diffx-gradbench --bin diffx-gradbench-sweeps`
use std::hint::black_box;
use std::time::{Duration, Instant};

use diffx_gradbench::evals::{ba, gmm, kmeans, llsq, lse, lstm, ode};

fn median(mut f: impl FnMut()) -> Duration {
    let mut t = Vec::new();
    let start = Instant::now();
    while t.len() < 15 || start.elapsed() < Duration::from_millis(700) {
        let s = Instant::now();
        f();
        t.push(s.elapsed());
    }
    t.sort();
    t[t.len() / 2]
}

fn report(what: &str, p: Duration, fwd: Duration, d: Duration) {
    let r = |x: Duration| x.as_secs_f64() / p.as_secs_f64();
    println!(
        "{what:<28} primal {p:>10.3?}  forward sweep {:.2}×  backward sweep {:.2}×  D/P {:.2}",
        r(fwd),
        r(d) - r(fwd),
        r(d)
    );
}

fn main() {
    let x: Vec<f64> = (0..1_280_000).map(|i| ((i * 7) as f64).sin()).collect();
    let p = median(|| _ = black_box(lse::logsumexp(black_box(&x))));
    let f = median(|| _ = black_box(lse::__diffx_split_logsumexp(black_box(&x)).0));
    let d = median(|| _ = black_box(lse::grad_logsumexp(black_box(&x))));
    report("lse n=1280000", p, f, d);

    let (n, m) = (16384, 128);
    let x: Vec<f64> = (0..m).map(|j| ((j * 7) as f64).sin() * 0.1).collect();
    let p = median(|| _ = black_box(llsq::llsq(black_box(&x), n)));
    let f = median(|| _ = black_box(llsq::__diffx_split_llsq(black_box(&x), n).0));
    let d = median(|| _ = black_box(llsq::grad_llsq(black_box(&x), n)));
    report("llsq n=16384 m=128", p, f, d);

    let (layers, b, c) = (2, 1024, 100);
    let main: Vec<f64> = (0..2 * layers * 4 * b)
        .map(|i| ((i * 13) as f64).sin() * 0.1)
        .collect();
    let extra: Vec<f64> = (0..3 * b).map(|i| ((i * 5) as f64).cos() * 0.1).collect();
    let state: Vec<f64> = (0..2 * layers * b)
        .map(|i| ((i * 3) as f64).sin() * 0.1)
        .collect();
    let seq: Vec<f64> = (0..c * b).map(|i| ((i * 11) as f64).cos() * 0.5).collect();
    let p = median(|| _ = black_box(lstm::loss(&main, &extra, &state, &seq, b)));
    let f = median(|| _ = black_box(lstm::__diffx_split_loss(&main, &extra, &state, &seq, b).0));
    let d = median(|| _ = black_box(lstm::grad_loss(&main, &extra, &state, &seq, b)));
    report("lstm l=2 c=100 b=1024", p, f, d);

    let (n, steps) = (100_000, 100);
    let x: Vec<f64> = (0..n)
        .map(|i| 0.5 + 0.4 * (i as f64 * 0.37).sin())
        .collect();
    let p = median(|| _ = black_box(ode::ode(&x, steps)));
    let f = median(|| _ = black_box(ode::__diffx_split_ode(&x, steps).0));
    let d = median(|| _ = black_box(ode::gradient(&x, steps)));
    report("ode n=100000 s=100", p, f, d);

    // One observation's two Jacobian rows, as the eval computes them: two pullbacks.
    let cam: Vec<f64> = (0..11).map(|i| 0.1 * (i as f64 + 1.0).sin()).collect();
    let (pt, feat) = ([0.3, -0.2, 4.0], [0.1, 0.2]);
    let p = median(|| {
        for _ in 0..1000 {
            black_box(ba::reprojection_error(black_box(&cam), &pt, 0.7, &feat));
        }
    });
    let f = median(|| {
        for _ in 0..1000 {
            black_box(ba::__diffx_split_reprojection_error(black_box(&cam), &pt, 0.7, &feat).0);
        }
    });
    let d = median(|| {
        for k in 0..1000 {
            let ct = if k % 2 == 0 { [1.0, 0.0] } else { [0.0, 1.0] };
            black_box(ba::vjp_reprojection_error(
                black_box(&cam),
                &pt,
                0.7,
                &feat,
                ct,
            ));
        }
    });
    report("ba one pullback (×1000)", p, f, d);

    let (k, n, d) = (100, 10000, 16);
    let pts: Vec<f64> = (0..n * d).map(|i| ((i * 7) as f64).sin()).collect();
    let cen: Vec<f64> = (0..k * d).map(|i| ((i * 3) as f64).cos()).collect();
    let p = median(|| _ = black_box(kmeans::cost(&pts, &cen, d)));
    let f = median(|| _ = black_box(kmeans::__diffx_split_cost(&pts, &cen, d).0));
    let g = median(|| _ = black_box(kmeans::grad_cost(&pts, &cen, d)));
    let dir = median(|| _ = black_box(kmeans::direction(&pts, &cen, d)));
    report("kmeans k=100 n=10000 grad", p, f, g);
    println!(
        "{:<28} dir (grad_and_hvp_) {:.2}× the primal",
        "",
        dir.as_secs_f64() / p.as_secs_f64()
    );

    let (d, k, n) = (64, 25, 1000);
    let lsz = d * (d - 1) / 2;
    let alpha: Vec<f64> = (0..k).map(|i| (i as f64).sin()).collect();
    let mu: Vec<f64> = (0..k * d).map(|i| ((i * 3) as f64).cos()).collect();
    let q: Vec<f64> = (0..k * d).map(|i| 0.1 * ((i * 5) as f64).sin()).collect();
    let l: Vec<f64> = (0..k * lsz).map(|i| 0.1 * ((i * 7) as f64).cos()).collect();
    let x: Vec<f64> = (0..n * d).map(|i| ((i * 11) as f64).sin()).collect();
    let p = median(|| _ = black_box(gmm::log_posterior(&alpha, &mu, &q, &l, &x, d, 1.0, 0)));
    let f = median(|| {
        _ = black_box(gmm::__diffx_split_log_posterior(&alpha, &mu, &q, &l, &x, d, 1.0, 0).0)
    });
    let g = median(|| _ = black_box(gmm::grad_log_posterior(&alpha, &mu, &q, &l, &x, d, 1.0, 0)));
    report("gmm d=64 K=25 n=1000", p, f, g);
}
