//! The fast solver: progressive filling over the changed connected components, with a
//! queue of "level at which this constraint fills / this variable hits its bound".
//!
//! At level `t` every unfrozen variable runs at `t / w`. A shared constraint with frozen
//! load `F` and unfrozen load factor `U = Σ a/w` fills at `t = (C - F) / U`; a fat pipe at
//! `t = C / max a/w`. Freezing variables only raises these levels, so a queued event is a
//! lower bound of its constraint's level: an event found stale when taken is recomputed
//! and pushed back, instead of pushing every constraint again at every freeze.
//!
//! The per-constraint and per-variable state lives in `Constraint` and `Variable`
//! themselves (one cache line each). The component search also initialises the fill,
//! so a solve passes over the component's edges once before the filling proper.
//!
//! A shortcut skips the search and the fill for the commonest change of a busy network:
//! flows joining or leaving a component in which one constraint (an overloaded backbone)
//! carries every variable and fills first. The solve that found such a component keeps
//! the constraint and a lower bound of every other level in it; as long as the changes
//! stay on that constraint and its level stays below the bound, the full solve would
//! take that one event and freeze everyone at it, which the shortcut does directly.

use crate::events::{Event, Events, VAR};
use crate::system::{CnstId, Constraint, Policy, VarId, Variable};

/// Reusable working memory of the solver.
#[derive(Default)]
pub(crate) struct Solver {
    epoch: u32,
    stack: Vec<u32>,
    events: Events,
    /// The last solve's component with a single bottleneck: that constraint, and a lower
    /// bound of the levels of the component's other constraints and of its variables'
    /// bounds, all variables unfrozen.
    single: Option<(u32, f64)>,
    /// The shortcut is off (for tests comparing both ways).
    pub(crate) no_shortcut: bool,
    /// Solves the single-bottleneck shortcut did.
    pub(crate) shortcuts: u64,
    /// Solves of a lone variable.
    pub(crate) lone: u64,
    /// Constraints the component search went around because they cannot bind.
    pub(crate) loose_skips: u64,
    /// The last single-bottleneck shortcut's constraint and level, whose variables'
    /// values (level / weight) are not written yet: the flow network times such flows
    /// as a group and never reads them, so writing them at every join or leave of a busy
    /// backbone was wasted. [`Solver::write_pending`] writes them before anything else
    /// may need them; [`crate::System::value`] reads through.
    pub(crate) pending: Option<(u32, f64)>,
}

impl Solver {
    /// Solves the components of the `dirty` constraints and `dirty_vars`; appends their
    /// variables to `changed`, in the order the component search finds them.
    pub(crate) fn solve_dirty(
        &mut self,
        cnsts: &mut [Constraint],
        vars: &mut [Variable],
        dirty: &mut Vec<u32>,
        dirty_vars: &mut Vec<u32>,
        changed: &mut Vec<VarId>,
    ) {
        self.write_pending(cnsts, vars);
        self.single = None;
        if !self.no_shortcut && dirty_vars.is_empty() && self.solve_lone(cnsts, vars, dirty, changed) {
            return;
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            // Wrapped: clear the marks so that no old one passes for the new epoch.
            cnsts.iter_mut().for_each(|k| k.seen = 0);
            vars.iter_mut().for_each(|v| v.seen = 0);
            self.epoch = 1;
        }
        let unfrozen_vars = self.search(cnsts, vars, dirty, changed);
        for v in dirty_vars.drain(..) {
            let var = &mut vars[v as usize];
            if var.live && var.elems.is_empty() && var.seen != self.epoch {
                var.seen = self.epoch;
                var.value = var.bound.unwrap_or(f64::INFINITY);
                var.frozen = true;
                changed.push(VarId(v));
            }
        }
        self.fill(cnsts, vars, unfrozen_vars);
    }

    /// Solves the commonest component of a quiet network, a lone variable (no other on any
    /// of its constraints), if that is all that changed: every changed constraint is empty
    /// or carries only it. The full solve would take the smallest of its constraints'
    /// levels and its bound, by (level, id) with constraints before variables, and set
    /// the same value bit for bit (and the same shortcut state); this computes that
    /// minimum without the search and the event queue. Returns whether it applied.
    fn solve_lone(
        &mut self,
        cnsts: &mut [Constraint],
        vars: &mut [Variable],
        dirty: &mut Vec<u32>,
        changed: &mut Vec<VarId>,
    ) -> bool {
        let mut lone = None;
        for &c in dirty.iter() {
            match cnsts[c as usize].elems[..] {
                [] => {}
                [(v, _, _)] if lone.is_none_or(|u| u == v) => lone = Some(v),
                _ => return false,
            }
        }
        let Some(v) = lone else { return false };
        let var = &vars[v as usize];
        if var.elems.iter().any(|&(c, _, _)| cnsts[c as usize].elems.len() != 1) {
            return false;
        }
        let w = var.weight;
        // (event, constraint or None for the bound); the first is taken, the rest give
        // the shortcut's lower bound.
        let mut first: Option<(Event, Option<u32>)> = None;
        let mut others = f64::INFINITY;
        let mut take = |e: Event, c: Option<u32>, others: &mut f64| match &first {
            Some((f, _)) if !e.before(f) => *others = others.min(e.level),
            _ => {
                if let Some((f, _)) = first.replace((e, c)) {
                    *others = others.min(f.level);
                }
            }
        };
        for &(c, _, a) in &var.elems {
            let k = &cnsts[c as usize];
            let factor = add_factor(k.policy, 0.0, a / w);
            take(
                Event::new(level_of(k.policy, k.capacity, 0.0, factor), c, 0),
                Some(c),
                &mut others,
            );
        }
        if let Some(b) = var.bound {
            take(Event::new(b * w, v | VAR, 0), None, &mut others);
        }
        for c in dirty.drain(..) {
            cnsts[c as usize].settle();
        }
        let var = &mut vars[v as usize];
        var.frozen = true;
        match first {
            Some((e, Some(c))) => {
                var.value = e.level / w;
                self.single = Some((c, others));
            }
            Some((_, None)) => var.value = var.bound.unwrap(),
            // No constraint and no bound: a variable with no constraint is a dirty
            // variable, not a dirty constraint's, so this cannot happen.
            None => unreachable!("a lone variable on a changed constraint has a constraint"),
        }
        changed.push(VarId(v));
        self.lone += 1;
        true
    }

    /// The single-bottleneck shortcut (see the module documentation): solves if every change since the last
    /// solve (`dirty` constraints, `added` variables; nothing else changed) keeps the
    /// last single-bottleneck component so, with the bottleneck still filling first, and
    /// sets the values the full solve would set, bit for bit. Returns None if it did not
    /// apply, else the bottleneck and its level (None for a bottleneck left without
    /// variables): the variables that changed are those on it.
    pub(crate) fn solve_single(
        &mut self,
        cnsts: &mut [Constraint],
        vars: &mut [Variable],
        dirty: &mut Vec<u32>,
        added: &[u32],
    ) -> Option<Option<(CnstId, f64)>> {
        let (b, mut bound) = self.single?;
        if self.no_shortcut {
            return None;
        }
        let on_b = |vars: &[Variable], v: u32| vars[v as usize].elems.iter().any(|e| e.0 == b);
        // Every changed constraint is in the component (a variable on it is on the
        // bottleneck, and so are all the component's variables) or empty.
        for &c in dirty.iter() {
            if let Some(&(v, _, _)) = cnsts[c as usize].elems.first() {
                if !on_b(vars, v) {
                    return None;
                }
            }
        }
        // A new variable must be on the bottleneck, and share its other constraints only
        // with variables on it; its bound and those constraints' levels lower the bound.
        // (Leaving variables only raise levels: the bound stays a lower bound.)
        for &v in added {
            let var = &vars[v as usize];
            if !var.live {
                continue;
            }
            if !on_b(vars, v) {
                return None;
            }
            if let Some(x) = var.bound {
                bound = bound.min(x * var.weight);
            }
            for &(c, _, _) in &var.elems {
                if c == b {
                    continue;
                }
                let k = &cnsts[c as usize];
                let mut factor = 0.0f64;
                for &(u, _, a) in &k.elems {
                    if !on_b(vars, u) {
                        return None;
                    }
                    factor = add_factor(k.policy, factor, a / vars[u as usize].weight);
                }
                bound = bound.min(level_of(k.policy, k.capacity, 0.0, factor));
            }
        }
        let k = &cnsts[b as usize];
        let nonempty = !k.elems.is_empty();
        let mut factor = 0.0f64;
        for &(v, _, a) in &k.elems {
            factor = add_factor(k.policy, factor, a / vars[v as usize].weight);
        }
        let level = level_of(k.policy, k.capacity, 0.0, factor);
        // Strictly first: a tie would be broken by ids, which is left to the full solve.
        if nonempty && level >= bound {
            return None;
        }
        // The values are level / weight for every variable on `b`: left to be written
        // when needed (a shortcut before this one was on `b` too, so nothing else is
        // pending).
        debug_assert!(self.pending.is_none_or(|(p, _)| p == b));
        self.pending = nonempty.then_some((b, level));
        for c in dirty.drain(..) {
            cnsts[c as usize].settle();
        }
        self.single = nonempty.then_some((b, bound));
        self.shortcuts += 1;
        Some(nonempty.then_some((CnstId(b), level)))
    }

    /// Writes the values the last shortcut left pending.
    pub(crate) fn write_pending(&mut self, cnsts: &[Constraint], vars: &mut [Variable]) {
        if let Some((b, level)) = self.pending.take() {
            for &(v, _, _) in &cnsts[b as usize].elems {
                let var = &mut vars[v as usize];
                var.value = level / var.weight;
            }
        }
    }

    /// Whether the search leaves constraint `k` out (pruning on, and it cannot bind now
    /// nor could at its last look); counted.
    fn goes_around(&mut self, prune: bool, k: &mut Constraint) -> bool {
        let around = prune && k.stays_loose();
        self.loose_skips += u64::from(around);
        around
    }

    /// Finds the union of the components of the `dirty` constraints, depth first (the
    /// order of `changed` decides the order of the caller's events), and prepares the
    /// fill on the way, in the same pass: every constraint's state and first event,
    /// every variable's bound event. Returns the number of variables found.
    fn search(
        &mut self,
        cnsts: &mut [Constraint],
        vars: &mut [Variable],
        dirty: &mut Vec<u32>,
        changed: &mut Vec<VarId>,
    ) -> usize {
        let e = self.epoch;
        let prune = !self.no_shortcut;
        self.events.clear();
        self.stack.clear();
        for c in dirty.drain(..) {
            let k = &mut cnsts[c as usize];
            k.dirty = false;
            // A constraint left without variables constrains nothing: its state is reset
            // when a variable joins it again (which makes it dirty). One that can never
            // bind, and could not before this change either, caps no value: the search
            // goes around it (its variables are reached through their other
            // constraints), which splits a component held together by an idle backbone.
            if k.seen != e && !k.elems.is_empty() && !self.goes_around(prune, k) {
                k.seen = e;
                self.stack.push(c);
            }
        }
        let mut found = 0;
        while let Some(c) = self.stack.pop() {
            // Not empty: reached from a variable on it, or checked above.
            let k = &mut cnsts[c as usize];
            let from = changed.len();
            // The unfrozen load factor, Σ a/w (from 0 up, in list order) or max a/w,
            // while taking in the variables seen for the first time.
            let mut factor = 0.0f64;
            for &(v, _, a) in &k.elems {
                let var = &mut vars[v as usize];
                if var.seen != e {
                    var.seen = e;
                    var.frozen = false;
                    changed.push(VarId(v));
                    if let Some(b) = var.bound {
                        self.events.push(Event::new(b * var.weight, v | VAR, 0));
                    }
                }
                factor = add_factor(k.policy, factor, a / var.weight);
            }
            k.factor = factor;
            k.load = 0.0;
            k.unfrozen = k.elems.len() as u32;
            k.version = k.version.wrapping_add(1);
            self.events.push(Event::new(level(k), c, k.version));
            // Then the new variables' constraints, in the order of visiting each
            // variable's constraints as soon as it is found (the marks are apart).
            found += changed.len() - from;
            for &VarId(v) in &changed[from..] {
                for &(c2, _, _) in &vars[v as usize].elems {
                    let k2 = &mut cnsts[c2 as usize];
                    if k2.seen != e && !self.goes_around(prune, k2) {
                        k2.seen = e;
                        self.stack.push(c2);
                    }
                }
            }
        }
        found
    }

    /// Progressive filling of the component `search` prepared, with `unfrozen_vars`
    /// variables.
    fn fill(&mut self, cnsts: &mut [Constraint], vars: &mut [Variable], mut unfrozen_vars: usize) {
        self.events.seal();
        let mut first = true;
        while unfrozen_vars > 0 {
            let Some(ev) = self.events.pop() else { break };
            let was_first = std::mem::replace(&mut first, false);
            if ev.what & VAR != 0 {
                let v = ev.what & !VAR;
                let var = &vars[v as usize];
                if !var.frozen {
                    let b = var.bound.unwrap();
                    freeze(cnsts, vars, v, b, self.epoch);
                    unfrozen_vars -= 1;
                }
                continue;
            }
            let c = ev.what as usize;
            let k = &cnsts[c];
            if k.unfrozen == 0 {
                continue;
            }
            // Levels only rise as variables freeze, so a stale event is a lower bound:
            // recompute, and put the constraint back if it now fills later.
            let level = level(k);
            if ev.version != k.version && level > ev.level * (1.0 + 1e-12) {
                self.events.push(Event::new(level, ev.what, k.version));
                continue;
            }
            if k.unfrozen as usize == unfrozen_vars {
                if was_first {
                    // One bottleneck for the whole component: the shortcut's case.
                    self.single = Some((c as u32, self.events.min_level()));
                }
                // Every variable left is on this constraint: the last freeze. Nothing
                // reads the constraints' state after it (the next solve of the component
                // starts afresh), so only the values are set.
                for &(v, _, _) in &k.elems {
                    let var = &mut vars[v as usize];
                    if !var.frozen {
                        var.value = level / var.weight;
                        var.frozen = true;
                    }
                }
                break;
            }
            // Freeze every unfrozen variable of the full constraint at this level.
            for i in 0..cnsts[c].elems.len() {
                let v = cnsts[c].elems[i].0;
                let var = &vars[v as usize];
                if !var.frozen {
                    let x = level / var.weight;
                    freeze(cnsts, vars, v, x, self.epoch);
                    unfrozen_vars -= 1;
                }
            }
        }
    }
}

/// The level at which constraint `k` fills, given what is frozen now.
fn level(k: &Constraint) -> f64 {
    level_of(k.policy, k.capacity, k.load, k.factor)
}

/// The level at which a constraint of `capacity` fills with frozen `load` and unfrozen
/// load `factor` (one formula for the fill and the shortcut: their results must agree
/// bit for bit).
#[inline]
fn level_of(policy: Policy, capacity: f64, load: f64, factor: f64) -> f64 {
    match policy {
        Policy::Shared => ((capacity - load).max(0.0)) / factor,
        Policy::Fatpipe => capacity / factor,
    }
}

/// `factor` with an unfrozen variable's `a / w` added: summed if shared, the maximum
/// if a fat pipe.
#[inline]
fn add_factor(policy: Policy, factor: f64, r: f64) -> f64 {
    match policy {
        Policy::Shared => factor + r,
        Policy::Fatpipe => factor.max(r),
    }
}

/// Fixes variable `v` at `x` and takes it out of its constraints' unfrozen factors.
fn freeze(cnsts: &mut [Constraint], vars: &mut [Variable], v: u32, x: f64, epoch: u32) {
    let var = &mut vars[v as usize];
    var.frozen = true;
    var.value = x;
    let var = &vars[v as usize];
    let w = var.weight;
    for &(c, _, a) in &var.elems {
        let k = &mut cnsts[c as usize];
        // A loose constraint the search went around takes no part in this fill.
        if k.seen != epoch {
            continue;
        }
        k.unfrozen -= 1;
        k.version = k.version.wrapping_add(1);
        match k.policy {
            Policy::Shared => {
                k.load += a * x;
                k.factor = if k.unfrozen == 0 {
                    0.0
                } else {
                    (k.factor - a / w).max(0.0)
                };
            }
            Policy::Fatpipe => {
                k.factor = k
                    .elems
                    .iter()
                    .filter(|(u, _, _)| !vars[*u as usize].frozen)
                    .map(|&(u, _, a)| a / vars[u as usize].weight)
                    .fold(0.0, f64::max);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Policy, System};

    #[test]
    fn marks_from_before_an_epoch_wrap_do_not_hide_a_constraint() {
        // x and x2 are solved in epoch 1 (two variables: the full search, not the lone
        // variable's shortcut), which leaves their constraint marked 1. The epoch is then
        // moved to the end of its range; the solve after the wrap is in epoch 1 again and
        // must still find the constraint when y joins it: x, x2 and y split 12.
        let mut s = System::new();
        let l = s.add_constraint(12.0, Policy::Shared);
        let other = s.add_constraint(10.0, Policy::Shared);
        let x = s.add_variable(1.0, None, &[(l, 1.0)]);
        let x2 = s.add_variable(1.0, None, &[(l, 1.0)]);
        s.solve();
        assert_eq!(s.solver.epoch, 1);
        s.solver.epoch = u32::MAX - 1;
        s.add_variable(1.0, None, &[(other, 1.0)]);
        s.add_variable(1.0, None, &[(other, 1.0)]);
        s.solve();
        assert_eq!(s.solver.epoch, u32::MAX);
        let y = s.add_variable(1.0, None, &[(l, 1.0)]);
        let changed = s.solve();
        assert_eq!(s.solver.epoch, 1);
        assert!(changed.contains(&x) && changed.contains(&x2) && changed.contains(&y));
        assert_eq!((s.value(x), s.value(x2), s.value(y)), (4.0, 4.0, 4.0));
    }

    #[test]
    fn a_lone_variable_takes_its_tightest_constraint_or_its_bound() {
        // One variable alone on its links (the lone-variable shortcut), against the
        // full solve of the same system with a second, far-away variable in the same
        // solve (which turns the shortcut off). Weight 2: the level is twice the value.
        // Links of 10 and 6 (coefficient 1) and 3 (coefficient 0.5, so 6 as well):
        // the tie at 6 goes to the smaller constraint id; a bound of 4 wins over both.
        for bound in [None, Some(7.0), Some(4.0)] {
            let mut lone = System::new();
            let mut full = System::new();
            let mut v = None;
            for s in [&mut lone, &mut full] {
                let a = s.add_constraint(10.0, Policy::Shared);
                let b = s.add_constraint(6.0, Policy::Fatpipe);
                let c = s.add_constraint(3.0, Policy::Shared);
                v = Some(s.add_variable(2.0, bound, &[(a, 1.0), (b, 1.0), (c, 0.5)]));
            }
            let far = full.add_constraint(1.0, Policy::Shared);
            full.add_variable(1.0, None, &[(far, 1.0)]);
            let v = v.unwrap();
            assert_eq!(lone.solve(), vec![v]);
            assert!(full.solve().contains(&v));
            let want = bound.map_or(6.0, |b: f64| b.min(6.0));
            assert_eq!(lone.value(v), want, "bound {bound:?}");
            assert_eq!(full.value(v).to_bits(), lone.value(v).to_bits());
            assert_eq!(lone.solver.single.is_some(), bound != Some(4.0));
        }
    }
}
