//! Each eval's derivatives at small sizes against central finite differences of its own objective
//! (f64, step ε^⅓·max(1, |x|) ≈ 6e-6, relative tolerance 1e-5), at two points each.

use diffx::check::central_difference;
use diffx_gradbench::evals::{ba, det, gmm, kmeans, llsq, lse, lstm, ode, particle, saddle};

/// Deterministic numbers in [lo, hi) (a 64-bit LCG), so the tests need no dependency.
fn numbers(seed: u64, count: usize, lo: f64, hi: f64) -> Vec<f64> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..count)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((state >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

/// Asserts `analytic` matches `numeric` to 1e-5 relative (absolute below 1).
fn assert_close(what: &str, analytic: &[f64], numeric: &[f64]) {
    assert_eq!(analytic.len(), numeric.len(), "{what}: lengths");
    for (i, (a, n)) in analytic.iter().zip(numeric).enumerate() {
        assert!(
            (a - n).abs() <= 1e-5 * n.abs().max(1.0),
            "{what}[{i}]: {a} from #[autodiff], {n} by finite differences"
        );
    }
}

#[test]
fn lse_gradient() {
    for seed in [1, 2] {
        let x = numbers(seed, 7, -3.0, 3.0);
        let fd = central_difference(lse::logsumexp, &x);
        assert_close("lse", &lse::grad_logsumexp(&x), &fd);
    }
    // The value is the definition's, without overflow where exp(x) would.
    let big = [1000.0, 1000.0];
    assert!((lse::logsumexp(&big) - (1000.0 + 2f64.ln())).abs() < 1e-12);
}

#[test]
fn llsq_gradient() {
    for (seed, n) in [(3, 9), (4, 16)] {
        let x = numbers(seed, 5, -1.0, 1.0);
        let fd = central_difference(|x| llsq::llsq(x, n), &x);
        assert_close("llsq", &llsq::grad_llsq(&x, n), &fd);
    }
}

#[test]
fn det_value_and_gradient() {
    // A matrix with a known determinant: upper triangular times a permutation of two rows.
    let a = [0.0, 0.0, 5.0, 0.0, 2.0, 7.0, 3.0, 1.0, 4.0];
    assert!((det::det(&a, 3) - (-30.0)).abs() < 1e-12);
    for (seed, ell) in [(5, 3), (6, 4)] {
        let a = numbers(seed, ell * ell, -1.0, 1.0);
        let fd = central_difference(|a| det::det(a, ell), &a);
        assert_close("det", &det::grad_det(&a, ell), &fd);
    }
}

#[test]
fn gmm_gradient() {
    let (d, k, n, m, gamma) = (3, 2, 5, 2, 1.5);
    let lsz = d * (d - 1) / 2;
    let x = numbers(7, n * d, -1.0, 1.0);
    for seed in [8, 9] {
        let p = numbers(seed, k + 2 * k * d + k * lsz, -0.5, 0.5);
        let (alpha, rest) = p.split_at(k);
        let (mu, rest) = rest.split_at(k * d);
        let (q, l) = rest.split_at(k * d);
        let objective = |p: &[f64]| {
            let (a, rest) = p.split_at(k);
            let (mu, rest) = rest.split_at(k * d);
            let (q, l) = rest.split_at(k * d);
            gmm::log_posterior(a, mu, q, l, &x, d, gamma, m)
        };
        let fd = central_difference(objective, &p);
        let (ga, gmu, gq, gl) = gmm::grad_log_posterior(alpha, mu, q, l, &x, d, gamma, m);
        assert_close("gmm", &[ga, gmu, gq, gl].concat(), &fd);
    }
}

#[test]
fn gmm_prior_constant() {
    // ln Γ₂(3/2) = ½ ln π + ln Γ(3/2) + ln Γ(1) = ½ ln π + ln(√π / 2).
    let expected = 0.5 * std::f64::consts::PI.ln() + (std::f64::consts::PI.sqrt() / 2.0).ln();
    assert!((gmm::log_multigamma(1.5, 2) - expected).abs() < 1e-14);
}

#[test]
fn ode_gradient_of_last_component() {
    for (seed, n, s) in [(10, 4, 3), (11, 6, 5)] {
        let x = numbers(seed, n, 0.5, 1.5);
        let fd = central_difference(|x| ode::ode(x, s)[n - 1], &x);
        assert_close("ode", &ode::gradient(&x, s), &fd);
    }
}

#[test]
fn kmeans_jacobian_hessian_and_direction() {
    let (d, n, k) = (2, 12, 3);
    for seed in [12, 13] {
        let points = numbers(seed, n * d, 0.0, 1.0);
        // The last k points as centroids, as the eval does: no cluster is empty.
        let centroids = points[(n - k) * d..].to_vec();
        let fd = central_difference(|c| kmeans::cost(&points, c, d), &centroids);
        let jacobian = kmeans::grad_cost(&points, &centroids, d);
        assert_close("kmeans J", &jacobian, &fd);
        // The Hessian's diagonal: finite differences of the (checked) gradient along ones.
        let h = 1e-6;
        let shifted = |t: f64| -> Vec<f64> { centroids.iter().map(|c| c + t).collect() };
        let (up, down) = (
            kmeans::grad_cost(&points, &shifted(h), d),
            kmeans::grad_cost(&points, &shifted(-h), d),
        );
        let fd_diag: Vec<f64> = up
            .iter()
            .zip(&down)
            .map(|(u, v)| (u - v) / (2.0 * h))
            .collect();
        let ones = vec![1.0; centroids.len()];
        assert_close(
            "kmeans H",
            &kmeans::hvp_cost(&points, &centroids, d, &ones),
            &fd_diag,
        );
        let dir = kmeans::direction(&points, &centroids, d);
        let expected: Vec<f64> = jacobian.iter().zip(&fd_diag).map(|(j, h)| j / h).collect();
        assert_close("kmeans dir", &dir, &expected);
    }
}

#[test]
fn ba_jacobian_rows() {
    let feat = [0.3, -0.2];
    for (seed, zero_rotation) in [(14, false), (15, true)] {
        let mut cam = numbers(seed, 11, -0.5, 0.5);
        cam[5] = -3.0; // the camera well behind the points
        cam[6] = 1.5; // a positive focal length
        if zero_rotation {
            cam[..3].fill(0.0); // Rodrigues' first-order branch
        }
        let x = numbers(seed + 100, 3, -0.5, 0.5);
        let w = 0.8;
        let mut at = cam.clone();
        at.extend(&x);
        at.push(w);
        for (row, ct) in [[1.0, 0.0], [0.0, 1.0]].into_iter().enumerate() {
            let f = |v: &[f64]| ba::reprojection_error(&v[..11], &v[11..14], v[14], &feat)[row];
            let fd = central_difference(f, &at);
            let (dcam, dx, dw) = ba::vjp_reprojection_error(&cam, &x, w, &feat, ct);
            assert_close("ba row", &[dcam, dx, vec![dw]].concat(), &fd);
        }
    }
    let fd = central_difference(|v| ba::weight_error(v[0]), &[0.7]);
    assert_close("ba w", &[ba::grad_weight_error(0.7)], &fd);
}

#[test]
fn lstm_gradient() {
    let (layers, b, c) = (2, 3, 4);
    let state = numbers(16, 2 * layers * b, 0.0, 1.0);
    let bits: Vec<f64> = numbers(17, c * b, 0.0, 1.0)
        .iter()
        .map(|v| v.round())
        .collect();
    for seed in [18, 19] {
        let main = numbers(seed, 8 * layers * b, -0.5, 0.5);
        let extra = numbers(seed + 100, 3 * b, -0.5, 0.5);
        let split = main.len();
        let f = |p: &[f64]| lstm::loss(&p[..split], &p[split..], &state, &bits, b);
        let fd = central_difference(f, &[main.clone(), extra.clone()].concat());
        let (gm, ge) = lstm::grad_loss(&main, &extra, &state, &bits, b);
        assert_close("lstm", &[gm, ge].concat(), &fd);
    }
}

#[test]
fn particle_nested_derivatives_in_all_four_modes() {
    // The outer derivative of the miss distance, through the force −∇ₓp inside the Euler loop,
    // with the force by forward (`true`) and by reverse mode; both outer modes.
    for w in [0.0, 0.15, 0.3] {
        let fd = central_difference(|v| particle::naive_euler::<false>(v[0]), &[w]);
        for g in [
            particle::grad_naive_euler::<false>(w),
            particle::grad_naive_euler::<true>(w),
            particle::jvp_naive_euler::<false>(w, 1.0).1,
            particle::jvp_naive_euler::<true>(w, 1.0).1,
        ] {
            assert_close("particle", &[g], &fd);
        }
    }
    // The argmin every variant finds (GradBench's expected output).
    for w in [
        particle::particle::<true, true>(0.0),
        particle::particle::<true, false>(0.0),
        particle::particle::<false, true>(0.0),
        particle::particle::<false, false>(0.0),
    ] {
        assert!((w - 0.2071918746486116).abs() < 1e-9, "{w}");
    }
}

#[test]
fn saddle_nested_derivatives_in_all_four_modes() {
    // max_p f(p1, p) = p1₀² + p1₁² (the ascent reaches p ≈ 0): its gradient through the ascent
    // loop, with the inner gradient by forward (`true`) and reverse mode; both outer modes.
    let start = [1.0, 1.0];
    for p1 in [[0.5, -0.25], [1.0, 0.75]] {
        let fd = central_difference(|v| saddle::max_cost::<false>([v[0], v[1]], start), &p1);
        for inner in [false, true] {
            let g = match inner {
                true => saddle::grad_max_cost::<true>(p1, start),
                false => saddle::grad_max_cost::<false>(p1, start),
            };
            assert_close("saddle grad", &g, &fd);
            let t = match inner {
                true => saddle::jvp_max_cost::<true>(p1, start, [1.0, 0.0]).1,
                false => saddle::jvp_max_cost::<false>(p1, start, [1.0, 0.0]).1,
            };
            assert_close("saddle jvp", &[t], &fd[..1]);
        }
    }
    for r in [
        saddle::saddle::<true, true>(start),
        saddle::saddle::<true, false>(start),
        saddle::saddle::<false, true>(start),
        saddle::saddle::<false, false>(start),
    ] {
        for x in r {
            assert!((x - 8.246324826140356e-6).abs() < 1e-9, "{r:?}");
        }
    }
}
