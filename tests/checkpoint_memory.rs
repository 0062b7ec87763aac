//! Checkpointing bounds memory: GradBench's `ode` at its largest size (n = 100,000, s = 100
//! Runge–Kutta steps) differentiated with `checkpoint = 4`. Recording would log every element
//! each step overwrites, 5n pairs of 16 bytes a step (800 MB); with four snapshots of the five
//! vectors (4 MB each) the heap's peak stays under a tenth of that. The gradient is checked
//! against forward mode along random directions (`⟨ȳ, J v⟩ = ⟨Jᵀ ȳ, v⟩`), which keeps no record.
//! Checkpointed and recorded gradients are compared at smaller sizes in `containers/checkpoint.rs`.
//!
//! A test binary of its own: its allocator counts every allocation of the process.

#![allow(clippy::needless_range_loop)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use diffx::autodiff;

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// y(2) for the parameters `x`, by `s` Runge–Kutta steps (as `benches/gradbench/src/evals/ode.rs`).
#[autodiff(checkpoint = 4)]
fn ode(x: &[f64], s: usize) -> Vec<f64> {
    let n = x.len();
    let h = 2.0 / (s as f64);
    let mut y = vec![0.0; n];
    let mut k1 = vec![0.0; n];
    let mut k2 = vec![0.0; n];
    let mut k3 = vec![0.0; n];
    let mut k4 = vec![0.0; n];
    for _ in 0..s {
        k1[0] = x[0];
        for i in 1..n {
            k1[i] = x[i] * y[i - 1];
        }
        k2[0] = x[0];
        for i in 1..n {
            k2[i] = x[i] * (y[i - 1] + h * k1[i - 1] / 2.0);
        }
        k3[0] = x[0];
        for i in 1..n {
            k3[i] = x[i] * (y[i - 1] + h * k2[i - 1] / 2.0);
        }
        k4[0] = x[0];
        for i in 1..n {
            k4[i] = x[i] * (y[i - 1] + h * k3[i - 1]);
        }
        for i in 0..n {
            y[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
        }
    }
    y
}

#[test]
fn ode_at_its_largest_size_within_a_tenth_of_the_records() {
    let (n, s) = (100_000, 100);
    let x: Vec<f64> = (0..n)
        .map(|i| 0.5 + 0.4 * (i as f64 * 0.37).sin())
        .collect();
    let mut ct = vec![0.0; n];
    ct[n - 1] = 1.0;
    ct[n / 2] = -0.5;
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let grad = vjp_ode(&x, s, ct.clone());
    let peak = PEAK.load(Relaxed) - before;
    let recorded = s * 5 * n * 16;
    assert!(
        peak < recorded / 10,
        "the gradient's heap peaked at {peak} bytes: recording logs {recorded}"
    );
    for seed in 0..2 {
        let v: Vec<f64> = (0..n).map(|i| ((i * 7 + seed * 3) as f64).cos()).collect();
        let (_, jv) = jvp_ode(&x, s, &v);
        let forward: f64 = jv.iter().zip(&ct).map(|(a, b)| a * b).sum();
        let reverse: f64 = grad.iter().zip(&v).map(|(a, b)| a * b).sum();
        let scale = forward.abs().max(1.0);
        assert!(
            (forward - reverse).abs() <= 1e-10 * scale,
            "direction {seed}: ⟨ȳ, J v⟩ = {forward}, ⟨Jᵀ ȳ, v⟩ = {reverse}"
        );
    }
}
