//! Binomial checkpointing: reversing a loop of `n` iterations while keeping at most `s + 1`
//! snapshots of its state, as Griewank and Walther's *revolve* does (*Evaluating Derivatives*,
//! ch. 12).
//!
//! Reverse mode needs, for the adjoint of iteration `i`, the state the loop had when `i` started.
//! Recording every iteration keeps `n` states (or what each iteration's adjoint reads); recording
//! none means running iterations `0..i` again for each `i`, `n²/2` iterations in all. With `s`
//! snapshots, the binomial schedule runs each iteration at most `t` times more, for the smallest
//! `t` with `C(s + t, s) ≥ n`: 10 snapshots reverse 1,000 iterations with each run at most 4 more
//! times, 64 snapshots a million iterations with each run at most 5 more times.
//!
//! `#[autodiff(checkpoint = s)]` drives its loops' backward sweeps with a [`Schedule`]: the
//! forward sweep runs the loop as the primal does and keeps the snapshots [`Schedule::keeps`]
//! asks for; the backward sweep then follows [`Schedule::next`] until [`Action::Done`].
//!
//! ```
//! use diffx::checkpoint::{Action, Schedule};
//!
//! // Reverse 10 iterations of `x ← x · 1.1` with 2 snapshots, keeping the state `x` by hand.
//! let mut schedule = Schedule::new(10, 2);
//! let (mut x, mut snapshots) = (1.0_f64, Vec::new());
//! for i in 0..10 {
//!     if schedule.keeps(i) {
//!         snapshots.push(x);
//!     }
//!     x *= 1.1;
//! }
//! let mut reversed = Vec::new();
//! loop {
//!     match schedule.next() {
//!         Action::Advance(from, to) => (from..to).for_each(|_| x *= 1.1),
//!         Action::Push => snapshots.push(x),
//!         Action::Restore => x = *snapshots.last().unwrap(),
//!         Action::Pop => _ = snapshots.pop(),
//!         // `x` is the state iteration `i` started from: its adjoint would run here.
//!         Action::Reverse(i) => reversed.push((i, x)),
//!         Action::Done => break,
//!     }
//! }
//! let expected: Vec<(usize, f64)> = (0..10).rev().map(|i| (i, 1.1_f64.powi(i as i32))).collect();
//! assert_eq!(reversed.len(), 10);
//! for ((i, x), (j, y)) in reversed.iter().zip(&expected) {
//!     assert_eq!(i, j);
//!     assert!((x - y).abs() < 1e-12);
//! }
//! ```

use std::collections::VecDeque;

/// What the backward sweep of a checkpointed loop does next (see [`Schedule::next`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Run iterations `from..to` on the live state, as the primal does.
    Advance(usize, usize),
    /// Keep a snapshot of the live state, on top of the others.
    Push,
    /// Set the live state to the newest snapshot.
    Restore,
    /// Drop the newest snapshot.
    Pop,
    /// The live state is the one iteration `i` started from: run iteration `i` and its adjoint.
    /// The live state is spent (the next action restores or advances it).
    Reverse(usize),
    /// Every iteration is reversed, from the last to the first.
    Done,
}

/// What is left to reverse.
#[derive(Clone, Copy, Debug)]
enum Task {
    /// Iterations `start..end`, with `free` more snapshots to use; the newest snapshot is at or
    /// before `start`.
    Segment {
        start: usize,
        end: usize,
        free: usize,
    },
    /// Drop the newest snapshot.
    Drop,
}

/// A binomial checkpointing schedule for a loop of known length (see the [module](self) docs).
#[derive(Clone, Debug)]
pub struct Schedule {
    tasks: Vec<Task>,
    /// Where each snapshot kept was taken, oldest first.
    snapshots: Vec<usize>,
    /// Where the live state is, if it is the state some iteration starts from.
    live: Option<usize>,
    queue: VecDeque<Action>,
    /// The snapshots the forward sweep takes, and how many it has taken.
    forward: Vec<usize>,
    taken: usize,
    /// The first iteration to reverse, once the forward sweep has run.
    resume: Option<usize>,
    most: usize,
}

impl Schedule {
    /// The schedule for `iterations` iterations with `snapshots` snapshots besides the one of the
    /// loop's entry state (at least 1).
    ///
    /// ```
    /// let schedule = diffx::checkpoint::Schedule::new(1000, 10);
    /// assert!(schedule.most_snapshots() <= 11);
    /// ```
    pub fn new(iterations: usize, snapshots: usize) -> Schedule {
        let mut s = Schedule {
            tasks: Vec::new(),
            snapshots: Vec::new(),
            live: Some(0),
            queue: VecDeque::new(),
            forward: Vec::new(),
            taken: 0,
            resume: None,
            most: 0,
        };
        if iterations == 0 {
            return s;
        }
        s.push();
        s.tasks.push(Task::Segment {
            start: 0,
            end: iterations,
            free: snapshots.max(1),
        });
        // The forward sweep runs the whole loop, taking the snapshots the schedule takes before
        // its first reversal.
        loop {
            match s.next() {
                Action::Push => s.forward.push(s.live.expect("a snapshot of a known state")),
                Action::Reverse(i) => {
                    s.resume = Some(i);
                    break;
                }
                _ => {}
            }
        }
        s.live = None;
        s
    }

    /// Whether the forward sweep keeps a snapshot of the state iteration `i` starts from. Asked
    /// once per iteration, in order.
    pub fn keeps(&mut self, i: usize) -> bool {
        let kept = self.forward.get(self.taken) == Some(&i);
        self.taken += usize::from(kept);
        kept
    }

    /// The most snapshots the schedule keeps at once, the entry state's included.
    pub fn most_snapshots(&self) -> usize {
        self.most
    }

    /// What the backward sweep does next, after the forward sweep has run the loop to its end.
    // (Not `Iterator`: the actions end with `Done`, and a driver matches on it.)
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Action {
        loop {
            if let Some(a) = self.queue.pop_front() {
                return a;
            }
            if let Some(i) = self.resume.take() {
                self.reverse(i);
                continue;
            }
            match self.tasks.pop() {
                None => return Action::Done,
                Some(Task::Drop) => {
                    self.snapshots.pop();
                    return Action::Pop;
                }
                Some(Task::Segment { start, end, free }) => self.segment(start, end, free),
            }
        }
    }

    fn segment(&mut self, start: usize, end: usize, free: usize) {
        let n = end - start;
        if n == 1 {
            return self.reverse(start);
        }
        if free == 0 {
            // (Not reached when `free` comes from `new`: the binomial split leaves one iteration
            // per segment when no snapshot is left. Each iteration from the newest snapshot.)
            self.tasks.extend((start..end).map(|i| Task::Segment {
                start: i,
                end: i + 1,
                free: 0,
            }));
            return;
        }
        let t = (1..).find(|&t| beta(free, t) >= n as u128).unwrap_or(1);
        let first = beta(free, t - 1).min(n as u128 - 1) as usize;
        let mid = start + first;
        self.tasks.push(Task::Segment {
            start,
            end: mid,
            free,
        });
        self.tasks.push(Task::Drop);
        self.tasks.push(Task::Segment {
            start: mid,
            end,
            free: free - 1,
        });
        self.advance_to(mid);
        self.push();
    }

    fn push(&mut self) {
        self.snapshots
            .push(self.live.expect("a snapshot of a known state"));
        self.most = self.most.max(self.snapshots.len());
        self.queue.push_back(Action::Push);
    }

    fn reverse(&mut self, i: usize) {
        self.advance_to(i);
        self.queue.push_back(Action::Reverse(i));
        self.live = None;
    }

    /// Brings the live state to the start of iteration `i`: from where it is, or from the newest
    /// snapshot.
    fn advance_to(&mut self, i: usize) {
        let newest = *self.snapshots.last().expect("the entry state's snapshot");
        let from = match self.live {
            Some(p) if newest <= p && p <= i => p,
            _ => {
                self.queue.push_back(Action::Restore);
                newest
            }
        };
        if from < i {
            self.queue.push_back(Action::Advance(from, i));
        }
        self.live = Some(i);
    }
}

/// `C(s + t, s)`: how many iterations `s` snapshots reverse with each run at most `t` more times.
fn beta(s: usize, t: usize) -> u128 {
    let mut b: u128 = 1;
    for k in 1..=s.min(t) as u128 {
        let (n, k) = ((s.max(t) as u128) + k, k);
        b = b.saturating_mul(n) / k;
    }
    b
}

/// How many items `iter` yields: its exact size hint, else counted on a copy.
pub fn trip_count<I: Iterator + Clone>(iter: &I) -> usize {
    match iter.size_hint() {
        (low, Some(high)) if low == high => low,
        _ => iter.clone().count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the schedule on a state that is the iteration count, checking every action, and
    /// returns how often each iteration ran (forward sweep included) and the most snapshots kept.
    fn simulate(n: usize, s: usize) -> (Vec<usize>, usize) {
        let mut sched = Schedule::new(n, s);
        let mut runs = vec![0; n];
        let mut snaps = Vec::new();
        for (i, r) in runs.iter_mut().enumerate() {
            if sched.keeps(i) {
                snaps.push(i);
            }
            *r += 1;
        }
        let mut live = Some(n);
        let mut next_reversed = n;
        loop {
            match sched.next() {
                Action::Advance(a, b) => {
                    assert_eq!(live, Some(a), "advance from the live state");
                    (a..b).for_each(|i| runs[i] += 1);
                    live = Some(b);
                }
                Action::Push => snaps.push(live.expect("a known state")),
                Action::Restore => live = snaps.last().copied(),
                Action::Pop => _ = snaps.pop().expect("a snapshot"),
                Action::Reverse(i) => {
                    assert_eq!(live, Some(i), "reversed from its entry state");
                    assert_eq!(i + 1, next_reversed, "last to first");
                    next_reversed = i;
                    runs[i] += 1;
                    live = None;
                }
                Action::Done => break,
            }
        }
        assert_eq!(next_reversed.min(n), 0, "every iteration reversed");
        (runs, sched.most_snapshots())
    }

    #[test]
    fn every_iteration_is_reversed_from_its_state_within_the_snapshots() {
        for n in [0, 1, 2, 3, 7, 10, 64, 100, 1000] {
            for s in [1, 2, 3, 10, 64] {
                let (runs, most) = simulate(n, s);
                assert!(most <= s + 1, "n = {n}, s = {s}: {most} snapshots");
                let t = (0..).find(|&t| beta(s, t) >= n as u128).unwrap();
                // The forward sweep, at most `t` advances, and the reversal's own run.
                let worst = runs.iter().copied().max().unwrap_or(0);
                assert!(
                    worst <= t + 2,
                    "n = {n}, s = {s}: an iteration ran {worst} times, t = {t}"
                );
            }
        }
    }

    #[test]
    fn binomial_counts() {
        assert_eq!(beta(2, 3), 10);
        assert_eq!(beta(10, 3), 286);
        assert_eq!(beta(0, 5), 1);
        assert_eq!(beta(3, 0), 1);
    }

    #[test]
    fn many_snapshots_record_each_iteration_once_more() {
        let (runs, _) = simulate(50, 64);
        assert!(runs.iter().all(|&r| r <= 3), "{runs:?}");
    }

    #[test]
    fn trip_counts() {
        assert_eq!(trip_count(&(3..10)), 7);
        assert_eq!(trip_count(&(0..10).filter(|i| i % 2 == 0)), 5);
    }
}
