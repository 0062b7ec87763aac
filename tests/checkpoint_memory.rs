//! Checkpointing bounds memory: GradBench's `ode` at its largest size (n = 100,000, s = 100
//! Runge–Kutta steps) differentiated with `checkpoint = 4`. Recording logs every element each
//! step overwrites, 5n values of 8 bytes a step (400 MB; its heap peaks at about 750 MB with the
//! logs' growth); with five snapshots of the five vectors (4 MB each) and one step's logs, the
//! checkpointed gradient's peak stays under a tenth of those logs. The gradient is checked
//! against forward mode along random directions (`⟨ȳ, J v⟩ = ⟨Jᵀ ȳ, v⟩`), which keeps no record.
//! Checkpointed and recorded gradients are compared at smaller sizes in `containers/checkpoint.rs`.
//!
//! A test binary of its own: its allocator counts every allocation of the process.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

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

#[path = "common/ode.rs"]
mod ode;

crate::ode_fn!(ode, checkpoint = 4);

#[test]
fn ode_at_its_largest_size_within_a_tenth_of_the_logs() {
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
    let logged = s * 5 * n * 8;
    assert!(
        peak < logged / 10,
        "the gradient's heap peaked at {peak} bytes: recording logs {logged}"
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
