//! The watchdog: each function's checks run in a thread of their own; the caller waits for them
//! with a deadline per stage and a ceiling on live heap memory (counted by [`CountingAlloc`], which
//! the binary installs as its global allocator). A derivative program that loops when the primal
//! does not, or fills memory with its tape, comes back as [`Verdict::Hang`] naming the stage. Its
//! thread cannot be stopped: the caller reports and exits.

use std::alloc::{GlobalAlloc, Layout, System};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, Once};
use std::thread;
use std::time::{Duration, Instant};

use super::{check_subject, Failure, Options, Stats, Subject};

static LIVE: AtomicUsize = AtomicUsize::new(0);
/// Allocations fail past this (the watchdog stops the run long before, at its own limit).
const HARD_LIMIT: usize = 6 << 30;

/// The system allocator, counting live bytes.
pub struct CountingAlloc;

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size() > HARD_LIMIT {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            return std::ptr::null_mut();
        }
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let more = new_size - layout.size();
            if LIVE.fetch_add(more, Ordering::Relaxed) + more > HARD_LIMIT {
                LIVE.fetch_sub(more, Ordering::Relaxed);
                return std::ptr::null_mut();
            }
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        System.realloc(ptr, layout, new_size)
    }
}

/// Live heap bytes, if [`CountingAlloc`] is the global allocator (0 otherwise).
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// What a check thread is doing, and since when.
#[derive(Clone)]
pub struct Stage(Arc<Mutex<(&'static str, Instant)>>);

impl Stage {
    pub(crate) fn new() -> Self {
        Stage(Arc::new(Mutex::new(("start", Instant::now()))))
    }

    pub fn set(&self, what: &'static str) {
        *self.0.lock().unwrap() = (what, Instant::now());
    }

    fn get(&self) -> (&'static str, Instant) {
        *self.0.lock().unwrap()
    }
}

/// How one function's checks ended.
#[derive(Debug)]
pub enum Verdict {
    Pass(Stats),
    Fail(Failure),
    /// A stage ran past the deadline or the memory limit; its thread is still running.
    Hang {
        stage: &'static str,
        reason: String,
    },
}

static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);
static QUIET: Once = Once::new();

/// Panics in check threads are reported as failures: keep their location, print nothing.
fn quiet_panics() {
    QUIET.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if thread::current().name() == Some("diffx-fuzz-check") {
                *LAST_PANIC.lock().unwrap() = Some(info.to_string());
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `s`'s checks under the watchdog.
pub fn run_one(s: &Subject, opts: &Options) -> Verdict {
    quiet_panics();
    let (tx, rx) = mpsc::channel();
    let stage = Stage::new();
    let (subject, o, st) = (*s, *opts, stage.clone());
    let spawned = thread::Builder::new()
        .name("diffx-fuzz-check".into())
        .stack_size(64 << 20)
        .spawn(move || {
            let r = panic::catch_unwind(AssertUnwindSafe(|| check_subject(&subject, &o, &st)));
            let _ = tx.send(r.map_err(|_| LAST_PANIC.lock().unwrap().take().unwrap_or_default()));
        });
    if let Err(e) = spawned {
        return Verdict::Fail(Failure {
            kind: "harness".into(),
            message: format!("cannot start a thread: {e}"),
        });
    }
    loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            Ok(Ok(Ok(stats))) => return Verdict::Pass(stats),
            Ok(Ok(Err(f))) => return Verdict::Fail(f),
            Ok(Err(panic)) => {
                let (at, _) = stage.get();
                let primal = at == "f (the primal)" || at == "finite differences of f";
                let kind = if primal { "primal-panic" } else { "panic" };
                return Verdict::Fail(Failure {
                    kind: kind.into(),
                    message: format!("panic in {at}: {panic}"),
                });
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let (at, since) = stage.get();
                if since.elapsed() > opts.timeout {
                    return Verdict::Hang {
                        stage: at,
                        reason: format!("still running after {:?}", opts.timeout),
                    };
                }
                if live_bytes() > opts.memory_limit {
                    return Verdict::Hang {
                        stage: at,
                        reason: format!(
                            "{} MB of live heap (the limit is {} MB)",
                            live_bytes() >> 20,
                            opts.memory_limit >> 20
                        ),
                    };
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Verdict::Fail(Failure {
                    kind: "harness".into(),
                    message: "the check thread ended without a result".into(),
                })
            }
        }
    }
}
