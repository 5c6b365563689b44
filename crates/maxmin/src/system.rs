//! The variables and constraints of a max-min system, and which parts changed.

use crate::solve::Solver;

/// A constraint (a link).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CnstId(pub u32);

/// A variable (a flow).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// How a constraint's capacity is shared.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Policy {
    /// `Σ a_i x_i ≤ C`: the flows share the capacity.
    Shared,
    /// `max a_i x_i ≤ C`: every flow may use the whole capacity.
    Fatpipe,
}

/// A constraint and the solver's working state for it, in one cache line: a solve
/// reads both for every constraint of the component.
#[repr(align(64))]
pub(crate) struct Constraint {
    /// Variables on this constraint: (variable, the index of this constraint in the
    /// variable's `elems`, coefficient), in insertion order. The index lets a removal
    /// fix up the variable moved into the freed place without searching its list.
    pub elems: Vec<(u32, u32, f64)>,
    pub capacity: f64,
    /// The capacity it was added with: [`System::set_capacity`] may only lower the
    /// capacity below it, so that caps computed from it stay upper bounds.
    pub nominal: f64,
    /// Solver state: load of the frozen variables, load factor of the unfrozen ones,
    /// how many are unfrozen, a version bumped at every change (stale fill events),
    /// and the solve epoch in which the component search last reached it.
    pub load: f64,
    pub factor: f64,
    pub unfrozen: u32,
    pub version: u32,
    pub seen: u32,
    pub policy: Policy,
    /// Set when something on this constraint changed since the last solve.
    pub dirty: bool,
    /// Whether it was [`Constraint::loose`] when the solver last looked at it: a loose
    /// constraint may be left out of a solve only if it was loose then too (else the
    /// values it capped must be solved again).
    pub was_loose: bool,
    /// Σ a · cap over its variables, shared or not (see [`Variable::cap`]).
    pub max_load: f64,
    /// `max_load` below this means loose: the capacity less a margin far above the
    /// rounding of `max_load` if shared; -∞ for a fat pipe, which is never loose.
    pub loose_below: f64,
}

impl Constraint {
    /// Whether it can never be a bottleneck: even with every variable at its cap, a
    /// shared constraint's load stays below its capacity (the margin is far above the
    /// rounding of `max_load`). Progressive filling then never takes it, so leaving it out
    /// of a solve changes no value.
    pub(crate) fn loose(&self) -> bool {
        self.max_load < self.loose_below
    }

    /// Marks it solved by a shortcut: clean, and looked at now.
    pub(crate) fn settle(&mut self) {
        self.dirty = false;
        self.was_loose = self.loose();
    }

    /// Whether it is loose and was when last looked at (then it may be left out of the
    /// solve); records what it is now.
    pub(crate) fn stays_loose(&mut self) -> bool {
        let loose = self.loose();
        let stays = loose && self.was_loose;
        self.was_loose = loose;
        stays
    }
}

/// A variable and the solver's marks for it, in one cache line.
#[repr(align(64))]
pub(crate) struct Variable {
    /// (constraint, this variable's slot in the constraint's `elems`, coefficient): the
    /// slot lets a removal skip searching the constraint's list (and fits in what would
    /// be padding).
    pub elems: Vec<(u32, u32, f64)>,
    pub weight: f64,
    pub bound: Option<f64>,
    pub value: f64,
    /// The solve epoch in which the component search last reached it.
    pub seen: u32,
    pub live: bool,
    pub frozen: bool,
    /// A bound of its value whatever else shares its constraints: the least
    /// capacity / coefficient of its constraints (its own `bound` aside).
    pub cap: f64,
}

/// A max-min system. See the crate documentation for the semantics.
pub struct System {
    pub(crate) cnsts: Vec<Constraint>,
    pub(crate) vars: Vec<Variable>,
    free_vars: Vec<u32>,
    pub(crate) dirty: Vec<u32>,
    /// Variables changed without any constraint (solved on their own).
    pub(crate) dirty_vars: Vec<u32>,
    /// Variables added since the last solve, and whether anything else than adding and
    /// removing variables happened (weights, bounds): what the solver's shortcut for a
    /// component with one bottleneck needs to check.
    pub(crate) added: Vec<u32>,
    pub(crate) retouched: bool,
    pub(crate) solver: Solver,
}

impl Default for System {
    fn default() -> Self {
        Self::new()
    }
}

impl System {
    /// An empty system.
    pub fn new() -> System {
        System {
            cnsts: Vec::new(),
            vars: Vec::new(),
            free_vars: Vec::new(),
            dirty: Vec::new(),
            dirty_vars: Vec::new(),
            added: Vec::new(),
            retouched: false,
            solver: Solver::default(),
        }
    }

    /// Adds a constraint of `capacity` (> 0).
    pub fn add_constraint(&mut self, capacity: f64, policy: Policy) -> CnstId {
        assert!(
            capacity > 0.0 && capacity.is_finite(),
            "constraint capacity must be positive"
        );
        self.cnsts.push(Constraint {
            elems: Vec::new(),
            capacity,
            nominal: capacity,
            load: 0.0,
            factor: 0.0,
            unfrozen: 0,
            version: 0,
            seen: 0,
            policy,
            dirty: false,
            was_loose: false,
            max_load: 0.0,
            loose_below: match policy {
                Policy::Shared => capacity * (1.0 - 1e-9),
                Policy::Fatpipe => f64::NEG_INFINITY,
            },
        });
        CnstId(self.cnsts.len() as u32 - 1)
    }

    /// Adds a variable of `weight` (> 0; a smaller weight gets a larger share), an optional
    /// upper `bound`, and coefficients on constraints. A constraint listed twice gets the
    /// sum of the coefficients if shared, their maximum if a fat pipe.
    pub fn add_variable(&mut self, weight: f64, bound: Option<f64>, elems: &[(CnstId, f64)]) -> VarId {
        let cap = self.cap_of(elems);
        self.add(weight, bound, elems, cap)
    }

    /// The cap a variable on `elems` gets: the least nominal capacity / coefficient over
    /// its constraints (capacities as added, whatever [`System::set_capacity`] did since), the coefficients of a constraint listed twice merged as
    /// [`System::add_variable`] merges them. A caller that adds many variables on the
    /// same constraints (a network, one per message over a route) computes it once.
    pub fn cap_of(&self, elems: &[(CnstId, f64)]) -> f64 {
        let mut cap = f64::INFINITY;
        for (i, &(c, _)) in elems.iter().enumerate() {
            if elems[..i].iter().any(|e| e.0 == c) {
                continue;
            }
            let k = &self.cnsts[c.0 as usize];
            let same = elems[i..].iter().filter(|e| e.0 == c).map(|e| e.1);
            let a = match k.policy {
                Policy::Shared => same.sum::<f64>(),
                Policy::Fatpipe => same.fold(0.0, f64::max),
            };
            cap = cap.min(k.nominal / a);
        }
        cap
    }

    /// [`System::add_variable`] with the cap [`System::cap_of`] gives for `elems`.
    pub fn add_variable_capped(&mut self, weight: f64, bound: Option<f64>, elems: &[(CnstId, f64)], cap: f64) -> VarId {
        debug_assert_eq!(cap.to_bits(), self.cap_of(elems).to_bits(), "cap not from cap_of");
        self.add(weight, bound, elems, cap)
    }

    fn add(&mut self, weight: f64, bound: Option<f64>, elems: &[(CnstId, f64)], cap: f64) -> VarId {
        // Two comparisons (`is_finite` compiled to many more, once per flow).
        assert!(
            weight > 0.0 && weight < f64::INFINITY,
            "variable weight must be positive"
        );
        let id = match self.free_vars.pop() {
            Some(i) => i,
            None => {
                self.vars.push(Variable {
                    elems: Vec::new(),
                    weight: 0.0,
                    bound: None,
                    value: 0.0,
                    seen: 0,
                    live: false,
                    frozen: false,
                    cap: 0.0,
                });
                self.vars.len() as u32 - 1
            }
        };
        // The slot's vector is reused (flows come and go by the million); it is empty
        // while the slot is free.
        let var = &mut self.vars[id as usize];
        debug_assert!(var.elems.is_empty());
        var.weight = weight;
        var.bound = bound;
        var.value = 0.0;
        var.live = true;
        let merged = &mut var.elems;
        for &(c, a) in elems {
            assert!(a > 0.0, "coefficients must be positive");
            let cnst = &mut self.cnsts[c.0 as usize];
            match cnst.elems.last_mut() {
                // Listed again: this variable is still last on the constraint (nothing
                // else joined it since, and a removed variable left every list), so
                // merging needs no search.
                Some(last) if last.0 == id => {
                    last.2 = match cnst.policy {
                        Policy::Shared => last.2 + a,
                        Policy::Fatpipe => last.2.max(a),
                    };
                    merged[last.1 as usize].2 = last.2;
                }
                _ => {
                    merged.push((c.0, cnst.elems.len() as u32, a));
                    cnst.elems.push((id, merged.len() as u32 - 1, a));
                    if !cnst.dirty {
                        cnst.dirty = true;
                        self.dirty.push(c.0);
                    }
                }
            }
        }
        var.cap = cap;
        for &(c, _, a) in var.elems.iter() {
            self.cnsts[c as usize].max_load += a * cap;
        }
        if var.elems.is_empty() {
            self.dirty_vars.push(id);
        }
        self.added.push(id);
        VarId(id)
    }

    /// Removes a variable; its share is redistributed at the next solve.
    pub fn remove_variable(&mut self, v: VarId) {
        let var = &mut self.vars[v.0 as usize];
        assert!(var.live, "removing a removed variable");
        var.live = false;
        let cap = var.cap;
        let mut elems = std::mem::take(&mut var.elems);
        for &(c, slot, a) in &elems {
            let cnst = &mut self.cnsts[c as usize];
            let i = slot as usize;
            debug_assert_eq!(cnst.elems[i].0, v.0, "variable missing from its constraint");
            cnst.elems.swap_remove(i);
            // Back to exactly 0 when empty, so that rounding cannot build up.
            cnst.max_load = if cnst.elems.is_empty() {
                0.0
            } else {
                cnst.max_load - a * cap
            };
            // The variable moved into slot i now sits there: update its record of it.
            if let Some(&(moved, k, _)) = cnst.elems.get(i) {
                self.vars[moved as usize].elems[k as usize].1 = i as u32;
            }
            if !cnst.dirty {
                cnst.dirty = true;
                self.dirty.push(c);
            }
        }
        // Keep the vector for the slot's next variable; `elems` stays empty while dead.
        elems.clear();
        self.vars[v.0 as usize].elems = elems;
        self.free_vars.push(v.0);
    }

    /// Changes a variable's weight.
    pub fn set_weight(&mut self, v: VarId, weight: f64) {
        // A pending value is level / weight with the weight of the last solve.
        self.solver.write_pending(&self.cnsts, &mut self.vars);
        assert!(weight > 0.0 && weight.is_finite());
        self.vars[v.0 as usize].weight = weight;
        self.touch_var(v.0);
    }

    /// Sets a constraint's capacity, at most the capacity it was added with (a link that
    /// delivers less under load). Every variable on it is solved again at the next solve.
    pub fn set_capacity(&mut self, c: CnstId, capacity: f64) {
        let k = &self.cnsts[c.0 as usize];
        assert!(
            capacity > 0.0 && capacity <= k.nominal,
            "a constraint's capacity must be positive and at most its nominal capacity"
        );
        if capacity == k.capacity {
            return;
        }
        // A pending value is level / weight with the capacity of the last solve.
        self.solver.write_pending(&self.cnsts, &mut self.vars);
        let k = &mut self.cnsts[c.0 as usize];
        k.capacity = capacity;
        if k.policy == Policy::Shared {
            k.loose_below = capacity * (1.0 - 1e-9);
        }
        // The single-bottleneck shortcut assumes the other constraints' levels only
        // rise: a lowered capacity needs the full solve.
        self.touch(c.0);
    }

    /// Changes a variable's bound.
    pub fn set_bound(&mut self, v: VarId, bound: Option<f64>) {
        self.vars[v.0 as usize].bound = bound;
        self.touch_var(v.0);
    }

    fn touch_var(&mut self, v: u32) {
        self.retouched = true;
        let n = self.vars[v as usize].elems.len();
        if n == 0 {
            self.dirty_vars.push(v);
        }
        for k in 0..n {
            let c = self.vars[v as usize].elems[k].0;
            self.touch(c);
        }
    }

    fn touch(&mut self, c: u32) {
        self.retouched = true;
        let k = &mut self.cnsts[c as usize];
        if !k.dirty {
            k.dirty = true;
            self.dirty.push(c);
        }
    }

    /// The variable's value from the last solve (`f64::INFINITY` for an unbounded variable
    /// on no constraint; meaningless for a variable added since).
    pub fn value(&self, v: VarId) -> f64 {
        let var = &self.vars[v.0 as usize];
        match self.solver.pending {
            Some((b, level)) if var.elems.iter().any(|e| e.0 == b) => level / var.weight,
            _ => var.value,
        }
    }

    /// Number of live variables.
    pub fn num_variables(&self) -> usize {
        self.vars.len() - self.free_vars.len()
    }

    /// Number of constraints.
    pub fn num_constraints(&self) -> usize {
        self.cnsts.len()
    }

    /// The live variables, in id order.
    pub fn variables(&self) -> impl Iterator<Item = VarId> + '_ {
        self.vars
            .iter()
            .enumerate()
            .filter(|(_, v)| v.live)
            .map(|(i, _)| VarId(i as u32))
    }

    /// Recomputes the values of the variables whose connected component changed since
    /// the last solve. Returns the variables whose value may have changed.
    pub fn solve(&mut self) -> Vec<VarId> {
        let mut changed = Vec::new();
        self.solve_into(&mut changed);
        changed
    }

    /// [`System::solve`] writing the variables whose value may have changed into
    /// `changed` (cleared first), so that a caller solving often reuses one vector.
    pub fn solve_into(&mut self, changed: &mut Vec<VarId>) {
        if let Some((c, _)) = self.solve_grouped(changed) {
            changed.extend(self.cnsts[c.0 as usize].elems.iter().map(|e| VarId(e.0)));
        }
    }

    /// [`System::solve_into`], except when the single-bottleneck shortcut solves: then
    /// `changed` stays empty and the constraint and its level are returned. Every
    /// variable on that constraint (and no other variable) may have changed, and each
    /// now has the value level / weight; callers that follow those variables as a group
    /// need not visit them one by one.
    pub fn solve_grouped(&mut self, changed: &mut Vec<VarId>) -> Option<(CnstId, f64)> {
        changed.clear();
        let retouched = std::mem::take(&mut self.retouched);
        if !retouched && self.dirty_vars.is_empty() {
            if let Some(level) = self
                .solver
                .solve_single(&mut self.cnsts, &mut self.vars, &mut self.dirty, &self.added)
            {
                self.added.clear();
                return level;
            }
        }
        self.added.clear();
        self.solver.solve_dirty(
            &mut self.cnsts,
            &mut self.vars,
            &mut self.dirty,
            &mut self.dirty_vars,
            changed,
        );
        None
    }

    /// How many variables are on constraint `c`.
    pub fn count_on(&self, c: CnstId) -> usize {
        self.cnsts[c.0 as usize].elems.len()
    }

    /// The variables on constraint `c`.
    pub fn variables_on(&self, c: CnstId) -> impl Iterator<Item = VarId> + '_ {
        self.cnsts[c.0 as usize].elems.iter().map(|e| VarId(e.0))
    }

    /// Turns the solver's shortcuts off or on (on by default): the one for components
    /// with a single bottleneck, the one for a lone variable, and going around
    /// constraints that cannot bind. They must give the same values, bit for bit, which
    /// the tests check by comparing two systems.
    pub fn set_shortcuts(&mut self, on: bool) {
        self.solver.no_shortcut = !on;
    }

    /// How many solves the single-bottleneck shortcut did.
    pub fn shortcut_solves(&self) -> u64 {
        self.solver.shortcuts
    }

    /// How many solves were of a lone variable (the other shortcut).
    pub fn lone_variable_solves(&self) -> u64 {
        self.solver.lone
    }

    /// How many times a solve went around a constraint that cannot bind (a shared link
    /// whose variables, each at its cap, stay below its capacity) instead of solving
    /// everything it connects.
    pub fn loose_skips(&self) -> u64 {
        self.solver.loose_skips
    }

    /// Recomputes every variable from scratch (for comparison with [`System::solve`]).
    pub fn solve_all(&mut self) {
        for c in 0..self.cnsts.len() as u32 {
            self.touch(c);
        }
        let free: Vec<u32> = (0..self.vars.len() as u32)
            .filter(|&v| self.vars[v as usize].live && self.vars[v as usize].elems.is_empty())
            .collect();
        self.dirty_vars.extend(free);
        self.solve();
    }

    /// The coefficient of `v` on `c`, if it crosses it.
    pub fn coefficient(&self, v: VarId, c: CnstId) -> Option<f64> {
        self.vars[v.0 as usize].elems.iter().find(|e| e.0 == c.0).map(|e| e.2)
    }

    /// Weight, bound and constraints of a live variable (for the reference solver).
    pub fn describe(&self, v: VarId) -> (f64, Option<f64>, Vec<(CnstId, f64)>) {
        let var = &self.vars[v.0 as usize];
        (
            var.weight,
            var.bound,
            var.elems.iter().map(|&(c, _, a)| (CnstId(c), a)).collect(),
        )
    }

    /// Capacity and policy of a constraint.
    pub fn constraint(&self, c: CnstId) -> (f64, Policy) {
        let k = &self.cnsts[c.0 as usize];
        (k.capacity, k.policy)
    }
}
