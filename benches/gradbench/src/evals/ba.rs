//! `ba`: bundle adjustment (ADBench): the reprojection errors of observed points through cameras
//! with Rodrigues rotation and radial distortion, the weight errors 1 − w², and the sparse
//! Jacobian of both with respect to the cameras, the points and the weights.

use diffx::autodiff;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{decode, unknown};
use crate::protocol::{encode, timed, Evaluation, Runs};

/// Parameters per camera: rotation (3), centre (3), focal length, principal point (2), radial
/// distortion (2).
const CAM: usize = 11;

/// The weighted reprojection error of the point `x` (3 coordinates) seen by the camera `cam`
/// (11 parameters) at the feature `feat` (2 coordinates), with weight `w`.
#[autodiff(wrt(cam, x, w))]
pub fn reprojection_error(cam: &[f64], x: &[f64], w: f64, feat: &[f64]) -> [f64; 2] {
    // The point relative to the camera centre.
    let (p0, p1, p2) = (x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]);
    // Rotated by the angle-axis vector cam[0..3] (Rodrigues' formula; to first order at zero).
    let sqtheta = cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2];
    let (r0, r1, r2) = if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let (costheta, sintheta) = (theta.cos(), theta.sin());
        let (w0, w1, w2) = (cam[0] / theta, cam[1] / theta, cam[2] / theta);
        let tmp = (w0 * p0 + w1 * p1 + w2 * p2) * (1.0 - costheta);
        (
            p0 * costheta + (w1 * p2 - w2 * p1) * sintheta + w0 * tmp,
            p1 * costheta + (w2 * p0 - w0 * p2) * sintheta + w1 * tmp,
            p2 * costheta + (w0 * p1 - w1 * p0) * sintheta + w2 * tmp,
        )
    } else {
        (
            p0 + (cam[1] * p2 - cam[2] * p1),
            p1 + (cam[2] * p0 - cam[0] * p2),
            p2 + (cam[0] * p1 - cam[1] * p0),
        )
    };
    // Projected, distorted radially, scaled by the focal length and shifted.
    let (u, v) = (r0 / r2, r1 / r2);
    let rsq = u * u + v * v;
    let distortion = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    let proj0 = u * distortion * cam[6] + cam[7];
    let proj1 = v * distortion * cam[6] + cam[8];
    [w * (proj0 - feat[0]), w * (proj1 - feat[1])]
}

/// Zach's weight error, 1 − w².
#[autodiff]
pub fn weight_error(w: f64) -> f64 {
    1.0 - w * w
}

/// The problem, with the eval's one camera, point, weight and feature duplicated as it asks.
pub struct Problem {
    n: usize,
    m: usize,
    p: usize,
    cams: Vec<f64>,
    x: Vec<f64>,
    w: Vec<f64>,
    feats: Vec<f64>,
    /// Observation i is of point `obs[i].1` by camera `obs[i].0`.
    obs: Vec<(usize, usize)>,
}

/// The eval's input.
#[derive(Deserialize)]
struct Input {
    n: usize,
    m: usize,
    p: usize,
    cam: [f64; CAM],
    x: [f64; 3],
    w: f64,
    feat: [f64; 2],
}

impl Problem {
    /// Duplicates the input as GradBench's reference does: observation i is of point i mod m by
    /// camera i mod n.
    fn new(i: &Input) -> Problem {
        Problem {
            n: i.n,
            m: i.m,
            p: i.p,
            cams: i.cam.repeat(i.n),
            x: i.x.repeat(i.m),
            w: vec![i.w; i.p],
            feats: i.feat.repeat(i.p),
            obs: (0..i.p).map(|k| (k % i.n, k % i.m)).collect(),
        }
    }

    /// The arguments of observation `k`'s error.
    fn observation(&self, k: usize) -> (&[f64], &[f64], f64, &[f64]) {
        let (c, pt) = self.obs[k];
        let cam = &self.cams[c * CAM..(c + 1) * CAM];
        (
            cam,
            &self.x[pt * 3..pt * 3 + 3],
            self.w[k],
            &self.feats[2 * k..2 * k + 2],
        )
    }

    /// The reprojection errors (2 per observation) and the weight errors.
    pub fn objective(&self) -> (Vec<f64>, Vec<f64>) {
        let mut reproj = Vec::with_capacity(2 * self.p);
        for k in 0..self.p {
            let (cam, x, w, feat) = self.observation(k);
            reproj.extend(reprojection_error(cam, x, w, feat));
        }
        (reproj, self.w.iter().map(|&w| weight_error(w)).collect())
    }

    /// The Jacobian in compressed rows: each observation's two rows (by two pullbacks of the
    /// reprojection error), then one row per weight (by the weight error's gradient).
    pub fn jacobian(&self) -> SparseMat {
        let nnz = (CAM + 3 + 1) * 2 * self.p + self.p;
        let mut jac = SparseMat {
            rows: Vec::with_capacity(3 * self.p + 1),
            cols: Vec::with_capacity(nnz),
            vals: Vec::with_capacity(nnz),
        };
        jac.rows.push(0);
        let (x_col, w_col) = (CAM * self.n, CAM * self.n + 3 * self.m);
        for k in 0..self.p {
            let (cam, x, w, feat) = self.observation(k);
            let (c, pt) = self.obs[k];
            for ct in [[1.0, 0.0], [0.0, 1.0]] {
                let (dcam, dx, dw) = vjp_reprojection_error(cam, x, w, feat, ct);
                jac.cols.extend((0..CAM).map(|e| CAM * c + e));
                jac.cols.extend((0..3).map(|e| x_col + 3 * pt + e));
                jac.cols.push(w_col + k);
                jac.vals.extend(dcam);
                jac.vals.extend(dx);
                jac.vals.push(dw);
                jac.rows.push(jac.cols.len());
            }
        }
        for k in 0..self.p {
            jac.cols.push(w_col + k);
            jac.vals.push(grad_weight_error(self.w[k]));
            jac.rows.push(jac.cols.len());
        }
        jac
    }
}

/// A sparse matrix in compressed rows: row r's entries are `cols`/`vals[rows[r]..rows[r + 1]]`.
pub struct SparseMat {
    /// Where each row starts, and the end.
    pub rows: Vec<usize>,
    /// Each entry's column.
    pub cols: Vec<usize>,
    /// Each entry's value.
    pub vals: Vec<f64>,
}

/// What the eval checks of the Jacobian: its first 30 entries (the first observation's two rows)
/// and its last, of each list.
#[derive(Serialize)]
struct JacobianOutput {
    rows: Vec<usize>,
    cols: Vec<usize>,
    vals: Vec<f64>,
}

/// The first 30 elements and the last.
fn head_and_last<T: Copy>(v: &[T]) -> Vec<T> {
    let mut out = v[..v.len().min(30)].to_vec();
    out.extend(v.last());
    out
}

/// Evaluates `objective` or `jacobian`.
pub fn evaluate(function: &str, input: &Value, runs: Runs) -> Evaluation {
    let i: Input = decode(input)?;
    if i.n == 0 || i.m == 0 || i.p == 0 {
        return Err("n, m and p must be at least 1".into());
    }
    let problem = Problem::new(&i);
    match function {
        "objective" => {
            let ((reproj, w_err), timings) = timed(runs, || problem.objective());
            let output = json!({
                "reproj_error": { "elements": &reproj[..2], "repeated": reproj.len() / 2 },
                "w_err": { "element": w_err[0], "repeated": w_err.len() },
            });
            Ok((output, timings))
        }
        "jacobian" => {
            let (jac, timings) = timed(runs, || problem.jacobian());
            let output = JacobianOutput {
                rows: head_and_last(&jac.rows),
                cols: head_and_last(&jac.cols),
                vals: head_and_last(&jac.vals),
            };
            Ok((encode(&output)?, timings))
        }
        _ => Err(unknown(function, &["objective", "jacobian"])),
    }
}
