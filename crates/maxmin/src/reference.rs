//! A slow, obviously correct max-min solver, written independently of `solve.rs`, to
//! test it on random systems: it raises the common level step by step, recomputing every
//! constraint's and bound's fill level from scratch at each step.

use crate::system::{CnstId, Policy, System, VarId};

/// Weight, bound and constraints of a variable.
type VarDesc = (f64, Option<f64>, Vec<(CnstId, f64)>);

/// Values of every live variable of `sys`, solved from scratch (O(n² · m)).
pub fn solve_reference(sys: &System) -> Vec<(VarId, f64)> {
    let vars: Vec<VarId> = sys.variables().collect();
    let desc: Vec<VarDesc> = vars.iter().map(|&v| sys.describe(v)).collect();
    let mut value: Vec<Option<f64>> = vec![None; vars.len()];
    for (i, d) in desc.iter().enumerate() {
        if d.2.is_empty() {
            value[i] = Some(d.1.unwrap_or(f64::INFINITY));
        }
    }
    loop {
        let open: Vec<usize> = (0..vars.len()).filter(|&i| value[i].is_none()).collect();
        if open.is_empty() {
            break;
        }
        // Candidate levels: each bound, each constraint's fill level.
        let mut best = f64::INFINITY;
        for &i in &open {
            if let Some(b) = desc[i].1 {
                best = best.min(b * desc[i].0);
            }
        }
        let mut full_at: Vec<(CnstId, f64)> = Vec::new();
        for c in 0..sys.num_constraints() as u32 {
            let c = CnstId(c);
            let (cap, policy) = sys.constraint(c);
            let mut frozen_load = 0.0;
            let mut open_factor = 0.0f64;
            let mut any_open = false;
            for (i, d) in desc.iter().enumerate() {
                if let Some(&(_, a)) = d.2.iter().find(|e| e.0 == c) {
                    match value[i] {
                        Some(x) => match policy {
                            Policy::Shared => frozen_load += a * x,
                            Policy::Fatpipe => {}
                        },
                        None => {
                            any_open = true;
                            match policy {
                                Policy::Shared => open_factor += a / d.0,
                                Policy::Fatpipe => open_factor = open_factor.max(a / d.0),
                            }
                        }
                    }
                }
            }
            if any_open {
                let level = match policy {
                    Policy::Shared => (cap - frozen_load).max(0.0) / open_factor,
                    Policy::Fatpipe => cap / open_factor,
                };
                full_at.push((c, level));
                best = best.min(level);
            }
        }
        // Freeze what stops at `best`: bounds first, then full constraints.
        let tol = 1e-12 * best.abs().max(1.0);
        let mut froze = false;
        for &i in &open {
            if let Some(b) = desc[i].1 {
                if b * desc[i].0 <= best + tol {
                    value[i] = Some(b);
                    froze = true;
                }
            }
        }
        if froze {
            continue;
        }
        for &(c, level) in &full_at {
            if level <= best + tol {
                for &i in &open {
                    if value[i].is_none() && desc[i].2.iter().any(|e| e.0 == c) {
                        value[i] = Some(level / desc[i].0);
                    }
                }
            }
        }
    }
    vars.into_iter().zip(value.into_iter().map(|v| v.unwrap())).collect()
}
