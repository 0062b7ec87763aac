//! What is in scope where a statement is being written: floats (and which of them depend on a
//! differentiable parameter), integers, vectors; fresh names.

use super::body::{FloatVar, Gen, IntVar, VecVar};
use super::Bug;

/// Names for floats, numbered when taken.
const FLOAT_NAMES: [&str; 10] = ["a", "b", "c", "s", "t", "u", "p", "q", "r", "g"];

impl Gen<'_> {
    pub fn declare_float(&mut self, name: &str, mutable: bool, small: bool, active: bool) {
        let f = self.frames.last_mut().unwrap();
        f.floats.retain(|v| v.name != name);
        f.floats.push(FloatVar {
            name: name.to_string(),
            mutable,
            deref: false,
            small,
            active,
        });
    }

    pub(super) fn declare_deref(&mut self, name: &str, active: bool) {
        self.frames.last_mut().unwrap().floats.push(FloatVar {
            name: name.to_string(),
            mutable: false,
            deref: true,
            small: true,
            active,
        });
    }

    /// Whether `text` reads a value that depends on a differentiable parameter.
    pub fn active(&self, text: &str) -> bool {
        let slice = self
            .slice
            .as_ref()
            .filter(|s| s.active)
            .map(|s| s.name.as_str());
        super::expr::idents(text).into_iter().any(|name| {
            Some(name) == slice
                || self.frames.iter().rev().find_map(|f| {
                    f.floats
                        .iter()
                        .rev()
                        .find(|v| v.name == name)
                        .map(|v| v.active)
                        .or_else(|| f.vecs.iter().find(|v| v.name == name).map(|v| v.active))
                }) == Some(true)
        })
    }

    /// After `target = value` (`target` a variable or `v[i]`): the target depends on what the
    /// value depends on.
    pub(super) fn assigned(&mut self, target: &str, value: &str) {
        let name = target.split('[').next().unwrap_or(target);
        if !self.active(value) {
            // A variable given a value that depends on nothing differentiable no longer does,
            // until the arm or loop around it ends (the other path may keep the old value).
            if name == target {
                for f in self.frames.iter_mut().rev() {
                    if let Some(v) = f.floats.iter_mut().rev().find(|v| v.name == name) {
                        if v.active {
                            v.active = false;
                            if let Some(log) = self.downgrades.last_mut() {
                                log.push(name.to_string());
                            }
                        }
                        return;
                    }
                }
            }
            return;
        }
        self.active_writes += 1;
        for f in self.frames.iter_mut().rev() {
            if let Some(v) = f.floats.iter_mut().rev().find(|v| v.name == name) {
                v.active = true;
                return;
            }
            if let Some(v) = f.vecs.iter_mut().find(|v| v.name == name) {
                v.active = true;
                return;
            }
        }
    }

    /// Enters an arm or a loop body: a region whose downgrades (see [`Self::assigned`]) end
    /// with it.
    pub(super) fn enter_region(&mut self) {
        self.downgrades.push(Vec::new());
    }

    pub(super) fn leave_region(&mut self) {
        for name in self.downgrades.pop().unwrap_or_default() {
            for f in self.frames.iter_mut().rev() {
                if let Some(v) = f.floats.iter_mut().rev().find(|v| v.name == name) {
                    v.active = true;
                    break;
                }
            }
        }
    }

    pub fn declare_int(&mut self, name: &str, usize_ok: bool) {
        self.frames.last_mut().unwrap().ints.push(IntVar {
            name: name.to_string(),
            usize_ok,
        });
    }

    pub(super) fn declare_vec(&mut self, name: &str, len: usize, active: bool) {
        self.frames.last_mut().unwrap().vecs.push(VecVar {
            name: name.to_string(),
            len,
            frozen: false,
            active,
        });
    }

    /// Every float in scope, the innermost declaration of each name.
    pub(super) fn floats(&self) -> Vec<FloatVar> {
        let mut out: Vec<FloatVar> = Vec::new();
        for f in self.frames.iter().rev() {
            for v in f.floats.iter().rev() {
                if !out.iter().any(|o| o.name == v.name) {
                    out.push(v.clone());
                }
            }
        }
        out
    }

    pub fn readable_floats(&self) -> Vec<FloatVar> {
        let mut v = self.floats();
        if self.no_deref {
            v.retain(|f| !f.deref);
        }
        v
    }

    pub fn small_floats(&self) -> Vec<FloatVar> {
        let mut v = self.readable_floats();
        v.retain(|f| f.small);
        v
    }

    pub(super) fn mutable_floats(&self) -> Vec<String> {
        self.floats()
            .into_iter()
            .filter(|f| f.mutable)
            .map(|f| f.name)
            .collect()
    }

    /// Integers in scope, as (name, usable as usize); only the usize ones with `index_only`.
    pub fn int_vars(&self, index_only: bool) -> Vec<(String, bool)> {
        let mut out = Vec::new();
        for f in &self.frames {
            for v in &f.ints {
                if !index_only || v.usize_ok {
                    out.push((v.name.clone(), v.usize_ok));
                }
            }
        }
        out
    }

    /// Vectors that may be read: local ones and the slice parameter, as (name, length).
    pub fn readable_vecs(&self) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = self
            .frames
            .iter()
            .flat_map(|f| f.vecs.iter().map(|v| (v.name.clone(), v.len)))
            .collect();
        if let Some(s) = &self.slice {
            out.push((s.name.clone(), s.len));
        }
        out
    }

    /// Whether a `match` can be written here: on an integer, or on a `bool` from floats (form Q).
    pub(super) fn can_match(&self) -> bool {
        !self.int_vars(false).is_empty() || self.allows(Bug::MatchOnFloatBool)
    }

    /// Local vectors that may be written here.
    pub(super) fn writable_vecs(&self) -> Vec<(String, usize)> {
        if self.loops.len() >= 2 && !self.allows(Bug::VecWriteNestedLoop) {
            return Vec::new();
        }
        // In a loop inside an arm (or after an early return, inside the rest it guards), a
        // vector that started as constants is form L.
        let loop_in_arm = self.loops.iter().any(|l| l.conds_at_entry > 0)
            || (self.returned && !self.loops.is_empty());
        let l_ok = !loop_in_arm || self.allows(Bug::VecWriteAfterIfLoop);
        self.frames
            .iter()
            .flat_map(|f| f.vecs.iter())
            .filter(|v| !v.frozen && (l_ok || v.active))
            .map(|v| (v.name.clone(), v.len))
            .collect()
    }

    pub(super) fn fresh_name(&mut self, base: Option<&str>) -> String {
        let k = self.fresh;
        self.fresh += 1;
        let base = base.unwrap_or(FLOAT_NAMES[k % FLOAT_NAMES.len()]);
        let taken = |n: &str, g: &Gen| {
            g.frames.iter().any(|f| {
                f.floats.iter().any(|v| v.name == n)
                    || f.ints.iter().any(|v| v.name == n)
                    || f.vecs.iter().any(|v| v.name == n)
            })
        };
        if !taken(base, self) && self.fresh <= FLOAT_NAMES.len() {
            return base.to_string();
        }
        let mut i = 1;
        loop {
            let n = format!("{base}{i}");
            if !taken(&n, self) && !["t1", "x1", "x2"].contains(&n.as_str()) || i > 50 {
                return n;
            }
            i += 1;
        }
    }
}
