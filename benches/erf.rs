//! The cost of a gradient of scalar code with branches and calls: an error function written the
//! way statrs writes its own (`statrs::function::erf`), a chain of rational approximations chosen
//! by `if`/`else if` on the argument, each the ratio of two calls of a polynomial helper over a
//! constant table of coefficients, and a recursive call for negative arguments. Primal, reverse
//! mode (`grad_`), forward mode (`jvp_`) and the closed-form derivative 2/√π·e^(−x²), over the same
//! 1,000 points in [−3, 3], measured in one run so that their ratios are meaningful.
//!
//! ```text
//! cargo bench -p diffx-benches --bench erf
//! ```
//!
//! The coefficients are least-squares rational fits of degree (5, 5) on each interval (error
//! below 1e-9), not statrs' own tables: what is measured is the shape of the code.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use diffx::autodiff;

/// The polynomial with coefficients `coeffs` (constant term first) at `z`, by Horner's rule.
#[autodiff(wrt(z))]
fn polynomial(z: f64, coeffs: &[f64]) -> f64 {
    let n = coeffs.len();
    let mut sum = coeffs[n - 1];
    for i in (0..n - 1).rev() {
        sum = coeffs[i] + z * sum;
    }
    sum
}

/// The error function: odd, one rational approximation per interval of [0, 6), 1 beyond.
#[autodiff]
fn erf(x: f64) -> f64 {
    if x < 0.0 {
        return -erf(-x);
    }
    if x < 0.5 {
        let z = x * x;
        x * polynomial(z, N0) / polynomial(z, D0)
    } else if x < 0.75 {
        let t = x - 0.5;
        polynomial(t, N1) / polynomial(t, D1)
    } else if x < 1.25 {
        let t = x - 0.75;
        polynomial(t, N2) / polynomial(t, D2)
    } else if x < 2.25 {
        let t = x - 1.25;
        polynomial(t, N3) / polynomial(t, D3)
    } else if x < 3.5 {
        let t = x - 2.25;
        polynomial(t, N4) / polynomial(t, D4)
    } else if x < 6.0 {
        let t = x - 3.5;
        polynomial(t, N5) / polynomial(t, D5)
    } else {
        1.0
    }
}

fn by_hand(x: f64) -> f64 {
    std::f64::consts::FRAC_2_SQRT_PI * (-x * x).exp()
}

fn benches(c: &mut Criterion) {
    let points: Vec<f64> = (0..1000).map(|i| -3.0 + 6.0 * i as f64 / 999.0).collect();
    // The approximation and its derivative, checked where the bench runs.
    for &x in &points {
        assert!((grad_erf(x) - by_hand(x)).abs() < 1e-6, "erf'({x})");
    }
    let mut g = c.benchmark_group("erf");
    let sum = |f: &dyn Fn(f64) -> f64| points.iter().map(|&x| f(black_box(x))).sum::<f64>();
    g.bench_function("primal", |b| b.iter(|| sum(&erf)));
    g.bench_function("grad (reverse)", |b| b.iter(|| sum(&grad_erf)));
    g.bench_function("jvp (forward)", |b| b.iter(|| sum(&|x| jvp_erf(x, 1.0).1)));
    g.bench_function("closed form", |b| b.iter(|| sum(&by_hand)));
    g.finish();
}

criterion_group!(erf_benches, benches);
criterion_main!(erf_benches);

// Numerators (N) and denominators (D) per interval, constant term first; the first in x².
const N0: &[f64] = &[
    1.1283791670955148,
    -0.16205995890895286,
    0.01845930477647737,
    0.000464345092076132,
    0.0008885865555993207,
    0.00010786477805063143,
];

const D0: &[f64] = &[
    1.0,
    0.1897114342106122,
    -0.02040372235679814,
    -0.0015513449117510692,
    0.0021980501614587856,
    0.0003769398693171268,
];

const N1: &[f64] = &[
    0.5204998778130484,
    0.8235616086272859,
    -0.3174010232619988,
    0.2334661705606344,
    -0.005656759679259137,
    -0.005434521665138645,
];

const D1: &[f64] = &[
    1.0,
    -0.10609218687943667,
    0.4134914164660166,
    -0.05774276131208729,
    0.05408777738897933,
    -0.010903304000400222,
];

const N2: &[f64] = &[
    0.7111556336532037,
    0.5473968938700832,
    -0.3354972913237231,
    0.229521020713488,
    -0.05665106724680987,
    -0.011905523347160924,
];

const D2: &[f64] = &[
    1.0,
    -0.13433652336961652,
    0.3277343640629725,
    -0.10230576463644281,
    0.028222247400258364,
    -0.020649718538148995,
];

const N3: &[f64] = &[
    0.9229001282309361,
    0.8317835551253477,
    0.40407405250954775,
    0.3245696684305353,
    0.0679306153136886,
    0.01846280640682771,
];

const D3: &[f64] = &[
    1.0,
    0.6449911648322944,
    0.5928827448538363,
    0.2248293166992918,
    0.09552254289950224,
    0.015259336054237516,
];

const N4: &[f64] = &[
    0.9985372832995333,
    2.110906711653227,
    2.495894563628361,
    2.008930322981258,
    1.1191232641232145,
    0.49101405030501677,
];

const D4: &[f64] = &[
    1.0,
    2.1068460947707965,
    2.500575202394524,
    2.006129789346108,
    1.1199926886313099,
    0.49090211163531444,
];

const N5: &[f64] = &[
    0.999999257424387,
    4.463004296895503,
    11.586518051380564,
    10.362530072509314,
    27.566257038950962,
    19.409054982760797,
];

const D5: &[f64] = &[
    1.0,
    4.4630022667307045,
    11.586520266689035,
    10.362528869882999,
    27.566257363085313,
    19.409054948110366,
];
