//! The fast solver: progressive filling over the changed connected components, with a
//! heap of "level at which this constraint fills / this variable hits its bound".
//!
//! At level `t` every unfrozen variable runs at `t / w`. A shared constraint with frozen
//! load `F` and unfrozen load factor `U = Σ a/w` fills at `t = (C - F) / U`; a fat pipe at
//! `t = C / max a/w`. Freezing variables only raises these levels, so a heap entry is a
//! lower bound of its constraint's level: an entry found stale when popped is recomputed
//! and pushed back, instead of pushing every constraint again at every freeze.

use crate::system::{Policy, System, VarId};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Reusable working memory of the solver.
#[derive(Default)]
pub(crate) struct Solver {
    epoch: u32,
    cnst_seen: Vec<u32>,
    var_seen: Vec<u32>,
    comp_cnsts: Vec<u32>,
    comp_vars: Vec<u32>,
    stack: Vec<u32>,
    frozen: Vec<bool>,
    load: Vec<f64>,
    factor: Vec<f64>,
    unfrozen: Vec<u32>,
    version: Vec<u32>,
    heap: BinaryHeap<Event>,
}

#[derive(PartialEq)]
struct Event {
    level: f64,
    /// Constraint id, or variable id with the top bit set.
    what: u32,
    version: u32,
}

const VAR: u32 = 1 << 31;

impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Event {
    /// Min-heap on level; ties broken by id so the order is deterministic.
    fn cmp(&self, o: &Self) -> Ordering {
        o.level.total_cmp(&self.level).then_with(|| o.what.cmp(&self.what))
    }
}

/// Components with more variables than this are filled in index order.
const SORT_ABOVE: usize = 4096;

impl Solver {
    pub(crate) fn solve_dirty(&mut self, sys: &mut System) -> Vec<VarId> {
        self.epoch = self.epoch.wrapping_add(1).max(1);
        let e = self.epoch;
        self.cnst_seen.resize(sys.cnsts.len(), 0);
        self.var_seen.resize(sys.vars.len(), 0);
        self.comp_cnsts.clear();
        self.comp_vars.clear();
        // The union of the components of every changed constraint.
        self.stack.clear();
        for c in sys.dirty.drain(..) {
            sys.cnsts[c as usize].dirty = false;
            if self.cnst_seen[c as usize] != e {
                self.cnst_seen[c as usize] = e;
                self.stack.push(c);
            }
        }
        while let Some(c) = self.stack.pop() {
            self.comp_cnsts.push(c);
            for &(v, _, _) in &sys.cnsts[c as usize].elems {
                if self.var_seen[v as usize] != e {
                    self.var_seen[v as usize] = e;
                    self.comp_vars.push(v);
                    for &(c2, _) in &sys.vars[v as usize].elems {
                        if self.cnst_seen[c2 as usize] != e {
                            self.cnst_seen[c2 as usize] = e;
                            self.stack.push(c2);
                        }
                    }
                }
            }
        }
        for v in sys.dirty_vars.drain(..) {
            let var = &sys.vars[v as usize];
            if var.live && var.elems.is_empty() && self.var_seen[v as usize] != e {
                self.var_seen[v as usize] = e;
                self.comp_vars.push(v);
            }
        }
        let changed = self.comp_vars.iter().map(|&v| VarId(v)).collect();
        // A large component found by the graph walk is in a scattered order; filling it
        // in index order is kinder to the caches (the result does not depend on it).
        if self.comp_vars.len() > SORT_ABOVE {
            self.comp_cnsts.sort_unstable();
            self.comp_vars.sort_unstable();
        }
        self.fill(sys);
        changed
    }

    /// Progressive filling over `comp_cnsts` / `comp_vars`.
    fn fill(&mut self, sys: &mut System) {
        let nv = sys.vars.len();
        let nc = sys.cnsts.len();
        self.frozen.resize(nv, false);
        for v in [&mut self.load, &mut self.factor] {
            v.resize(nc, 0.0);
        }
        self.unfrozen.resize(nc, 0);
        self.version.resize(nc, 0);
        // The initial entries are collected first and heapified at once (linear time).
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        entries.clear();
        let mut unfrozen_vars = 0usize;
        for &v in &self.comp_vars {
            let var = &mut sys.vars[v as usize];
            self.frozen[v as usize] = false;
            if var.elems.is_empty() {
                var.value = var.bound.unwrap_or(f64::INFINITY);
                self.frozen[v as usize] = true;
                continue;
            }
            unfrozen_vars += 1;
            if let Some(b) = var.bound {
                entries.push(Event {
                    level: b * var.weight,
                    what: v | VAR,
                    version: 0,
                });
            }
        }
        for idx in 0..self.comp_cnsts.len() {
            let c = self.comp_cnsts[idx];
            let k = &sys.cnsts[c as usize];
            let ci = c as usize;
            self.load[ci] = 0.0;
            self.unfrozen[ci] = k.elems.len() as u32;
            self.version[ci] = self.version[ci].wrapping_add(1);
            self.factor[ci] = match k.policy {
                Policy::Shared => k.elems.iter().map(|&(v, _, a)| a / sys.vars[v as usize].weight).sum(),
                Policy::Fatpipe => k
                    .elems
                    .iter()
                    .map(|&(v, _, a)| a / sys.vars[v as usize].weight)
                    .fold(0.0, f64::max),
            };
            if self.unfrozen[ci] > 0 {
                entries.push(Event {
                    level: self.level(sys, c),
                    what: c,
                    version: self.version[ci],
                });
            }
        }
        self.heap = BinaryHeap::from(entries);
        // Once every variable is frozen the entries left are all no-ops.
        while unfrozen_vars > 0 {
            let Some(ev) = self.heap.pop() else { break };
            if ev.what & VAR != 0 {
                let v = ev.what & !VAR;
                if !self.frozen[v as usize] {
                    let b = sys.vars[v as usize].bound.unwrap();
                    self.freeze(sys, v, b);
                    unfrozen_vars -= 1;
                }
                continue;
            }
            let c = ev.what;
            if self.unfrozen[c as usize] == 0 {
                continue;
            }
            // Levels only rise as variables freeze, so a stale entry is a lower bound:
            // recompute, and put the constraint back if it now fills later.
            let level = self.level(sys, c);
            if ev.version != self.version[c as usize] && level > ev.level * (1.0 + 1e-12) {
                self.heap.push(Event {
                    level,
                    what: c,
                    version: self.version[c as usize],
                });
                continue;
            }
            // Freeze every unfrozen variable of the full constraint at this level.
            let n = sys.cnsts[c as usize].elems.len();
            for k in 0..n {
                let v = sys.cnsts[c as usize].elems[k].0;
                if !self.frozen[v as usize] {
                    let x = level / sys.vars[v as usize].weight;
                    self.freeze(sys, v, x);
                    unfrozen_vars -= 1;
                }
            }
        }
    }

    /// The level at which constraint `c` fills, given what is frozen now.
    fn level(&self, sys: &System, c: u32) -> f64 {
        let ci = c as usize;
        let k = &sys.cnsts[ci];
        match k.policy {
            Policy::Shared => ((k.capacity - self.load[ci]).max(0.0)) / self.factor[ci],
            Policy::Fatpipe => k.capacity / self.factor[ci],
        }
    }

    fn freeze(&mut self, sys: &mut System, v: u32, x: f64) {
        self.frozen[v as usize] = true;
        sys.vars[v as usize].value = x;
        let w = sys.vars[v as usize].weight;
        for k in 0..sys.vars[v as usize].elems.len() {
            let (c, a) = sys.vars[v as usize].elems[k];
            let ci = c as usize;
            self.unfrozen[ci] -= 1;
            self.version[ci] = self.version[ci].wrapping_add(1);
            match sys.cnsts[ci].policy {
                Policy::Shared => {
                    self.load[ci] += a * x;
                    self.factor[ci] = if self.unfrozen[ci] == 0 {
                        0.0
                    } else {
                        (self.factor[ci] - a / w).max(0.0)
                    };
                }
                Policy::Fatpipe => {
                    let frozen = &self.frozen;
                    self.factor[ci] = sys.cnsts[ci]
                        .elems
                        .iter()
                        .filter(|(u, _, _)| !frozen[*u as usize])
                        .map(|&(u, _, a)| a / sys.vars[u as usize].weight)
                        .fold(0.0, f64::max);
                }
            }
        }
    }
}
