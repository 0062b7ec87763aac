//! Heap memory of one evaluation: an allocator that counts the bytes live and their peak, for
//! the `diffx-gradbench-memory` binary (the timing binary keeps the system allocator as it is).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting the bytes live and the most live since the last reset.
pub struct Counting {
    live: AtomicUsize,
    peak: AtomicUsize,
}

impl Counting {
    pub const fn new() -> Self {
        Counting {
            live: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// Runs `f` and returns its result with the most bytes it had live at once beyond what was
    /// live before it (its own allocations at their peak, its result's included).
    pub fn peak_during<T>(&self, f: impl FnOnce() -> T) -> (T, usize) {
        let before = self.live.load(Ordering::SeqCst);
        self.peak.store(before, Ordering::SeqCst);
        let out = f();
        (out, self.peak.load(Ordering::SeqCst) - before)
    }

    fn grew(&self, bytes: usize) {
        let live = self.live.fetch_add(bytes, Ordering::SeqCst) + bytes;
        self.peak.fetch_max(live, Ordering::SeqCst);
    }
}

impl Default for Counting {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: every call goes to `System` with the caller's arguments; the counts are bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        self.live.fetch_sub(layout.size(), Ordering::SeqCst);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            self.live.fetch_sub(layout.size(), Ordering::SeqCst);
            self.grew(new_size);
        }
        p
    }
}
