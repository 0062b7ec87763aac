//! `kmeans`: the k-means cost Σᵢ minⱼ ‖Cⱼ − Pᵢ‖² and the Newton direction J·H⁻¹ for the centroids,
//! from its gradient J and its Hessian H, which is diagonal.

use diffx::autodiff;
use serde::Deserialize;
use serde_json::Value;

use super::{decode, run, unknown};
use crate::protocol::{Evaluation, Runs};

/// The cost of the row-major centroids `centroids` (K rows of `d`) for the points `points`
/// (N rows of `d`): each point's squared distance to its nearest centroid, summed.
#[autodiff(order = 2, wrt(centroids))]
pub fn cost(points: &[f64], centroids: &[f64], d: usize) -> f64 {
    let n = points.len() / d;
    let k = centroids.len() / d;
    let mut total = 0.0;
    for i in 0..n {
        let mut closest = f64::INFINITY;
        for j in 0..k {
            let mut dist = 0.0;
            for e in 0..d {
                let diff = points[i * d + e] - centroids[j * d + e];
                dist += diff * diff;
            }
            closest = closest.min(dist);
        }
        total += closest;
    }
    total
}

/// The Newton direction J·H⁻¹: the Hessian of `cost` is diagonal, so one Hessian-vector product
/// with the all-ones vector gives its diagonal, and the direction is J divided by it entrywise.
/// One forward-over-reverse sweep gives both.
pub fn direction(points: &[f64], centroids: &[f64], d: usize) -> Vec<f64> {
    let ones = vec![1.0; centroids.len()];
    let (jacobian, diagonal) = grad_and_hvp_cost(points, centroids, d, &ones);
    jacobian.iter().zip(&diagonal).map(|(j, h)| j / h).collect()
}

#[derive(Deserialize)]
struct Input {
    points: Vec<Vec<f64>>,
    centroids: Vec<Vec<f64>>,
}

/// Evaluates `cost` or `dir`.
pub fn evaluate(function: &str, input: &Value, runs: Runs) -> Evaluation {
    let i: Input = decode(input)?;
    let d = i.points.first().map_or(0, Vec::len);
    if d == 0 || i.points.iter().chain(&i.centroids).any(|r| r.len() != d) {
        return Err("points and centroids must be rows of the same nonzero length".into());
    }
    let (points, centroids) = (i.points.concat(), i.centroids.concat());
    match function {
        "cost" => run(runs, || cost(&points, &centroids, d)),
        "dir" => {
            let (dir, timings) = crate::protocol::timed(runs, || direction(&points, &centroids, d));
            let rows: Vec<&[f64]> = dir.chunks(d).collect();
            Ok((crate::protocol::encode(&rows)?, timings))
        }
        _ => Err(unknown(function, &["cost", "dir"])),
    }
}
