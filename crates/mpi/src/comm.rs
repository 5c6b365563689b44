//! Communicators: `world` plus those a program creates with `comm_split`, `comm_dup`
//! and `comm_create`, with their members in communicator order and their matching
//! contexts (point-to-point and collective traffic never match each other, nor traffic
//! of another communicator). A trace names communicators with trace-wide ids; the
//! table is built from every rank's creation calls at once ([`CommTable::build`]).

use std::collections::HashMap;

/// A communicator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comm {
    /// Its id in the trace.
    pub id: String,
    /// World ranks of the members, in communicator rank order.
    pub members: Vec<u32>,
    /// (world rank, communicator rank) of the members, by world rank.
    by_world: Vec<(u32, u32)>,
}

impl Comm {
    fn new(id: String, members: Vec<u32>) -> Comm {
        let mut by_world: Vec<(u32, u32)> = members.iter().enumerate().map(|(i, &m)| (m, i as u32)).collect();
        by_world.sort_unstable();
        Comm { id, members, by_world }
    }

    /// The communicator rank of world rank `r`, if it is a member (a search, not a scan:
    /// every member of a communicator of 100,000 ranks asks).
    pub fn rank_of(&self, r: u32) -> Option<u32> {
        let i = self.by_world.binary_search_by_key(&r, |&(w, _)| w).ok()?;
        Some(self.by_world[i].1)
    }
}

/// One creation call seen on one rank.
#[derive(Clone, Debug, PartialEq)]
pub enum Creation {
    /// `MPI_Comm_split(parent, color, key)`: the new communicator `new` (none: this rank
    /// passed `MPI_UNDEFINED`) holds the ranks of `parent` with the same color, ordered
    /// by key then by their rank in `parent`.
    Split {
        /// The parent's id.
        parent: String,
        /// The color.
        color: i64,
        /// The key.
        key: i64,
        /// The new communicator's id.
        new: Option<String>,
    },
    /// `MPI_Comm_dup(parent)`.
    Dup {
        /// The parent's id.
        parent: String,
        /// The new communicator's id.
        new: String,
    },
    /// `MPI_Comm_create(parent, group)` with the group's world ranks.
    Create {
        /// The parent's id.
        parent: String,
        /// The new communicator's id (none: this rank is not in the group).
        new: Option<String>,
        /// The group's members, in communicator order, as world ranks.
        members: Vec<u32>,
    },
}

/// All communicators, `world` first (index 0).
#[derive(Clone, Debug)]
pub struct CommTable {
    comms: Vec<Comm>,
    by_id: HashMap<String, usize>,
}

/// Non-blocking collective calls of one communicator that may be in flight together,
/// each in a matching context of its own ([`CommTable::icoll_context`]).
pub const ICOLL_SLOTS: u64 = 512;

/// The first communicator index of those contexts: communicators of traces number far
/// below it.
const ICOLL_BASE: u64 = 1 << 29;

/// One rank's count of the non-blocking collectives it started on each communicator:
/// gives each call its context ([`CommTable::icoll_context`]).
#[derive(Clone, Debug, Default)]
pub struct IcollContexts(HashMap<usize, u64>);

impl IcollContexts {
    /// The context of the rank's next non-blocking collective on communicator `index`.
    pub fn next(&mut self, index: usize) -> u32 {
        let k = self.0.entry(index).or_insert(0);
        *k += 1;
        CommTable::icoll_context(index, *k - 1)
    }
}

impl CommTable {
    /// Builds the table from each rank's creation calls (`calls[r]`, in program order,
    /// with their line numbers). An error names the rank and the line.
    pub fn build(ranks: u32, calls: &[Vec<(Creation, u32)>]) -> Result<CommTable, (u32, u32, String)> {
        let mut t = CommTable {
            comms: vec![Comm::new("world".into(), (0..ranks).collect())],
            by_id: HashMap::from([("world".to_string(), 0)]),
        };
        // Gather, for every new id, who declared it and how.
        let mut decl: HashMap<String, Vec<(u32, &Creation, u32)>> = HashMap::new();
        let mut order: Vec<String> = Vec::new();
        for (r, list) in calls.iter().enumerate() {
            for (c, line) in list {
                let new = match c {
                    Creation::Split { new, .. } | Creation::Create { new, .. } => new.clone(),
                    Creation::Dup { new, .. } => Some(new.clone()),
                };
                if let Some(id) = new {
                    if id == "world" {
                        return Err((
                            r as u32,
                            *line,
                            "'world' is MPI_COMM_WORLD and cannot be created".into(),
                        ));
                    }
                    if !decl.contains_key(&id) {
                        order.push(id.clone());
                    }
                    let ds = decl.entry(id.clone()).or_default();
                    // A rank names each communicator once; the tracer may see the same
                    // unknown communicator twice (`comm_known`), which changes nothing.
                    // Ranks come in order: this rank's earlier entry would be the last.
                    match ds.last().filter(|d| d.0 == r as u32) {
                        Some(&(_, first, _)) if first == c => continue,
                        Some(&(_, _, first_line)) => {
                            return Err((
                                r as u32,
                                *line,
                                format!("communicator '{id}' is created a second time by rank {r} (first at line {first_line})"),
                            ));
                        }
                        None => ds.push((r as u32, c, *line)),
                    }
                }
            }
        }
        // Resolve parents first, repeatedly. Scratch by world rank, set for one
        // communicator at a time (a scan per member was quadratic for communicators of
        // 100,000 ranks): position in the parent, membership of the new one.
        let mut at = vec![u32::MAX; ranks as usize];
        let mut member = vec![false; ranks as usize];
        let mut pending = order;
        while !pending.is_empty() {
            let before = pending.len();
            let mut still = Vec::new();
            for id in pending {
                let ds = &decl[&id];
                let parent = match ds[0].1 {
                    Creation::Split { parent, .. } | Creation::Dup { parent, .. } | Creation::Create { parent, .. } => {
                        parent
                    }
                };
                let Some(&pi) = t.by_id.get(parent) else {
                    still.push(id);
                    continue;
                };
                let pmembers = t.comms[pi].members.clone();
                for (i, &m) in pmembers.iter().enumerate() {
                    at[m as usize] = i as u32;
                }
                let pos = |r: u32| Some(at[r as usize]).filter(|&i| i != u32::MAX);
                let members = match ds[0].1 {
                    Creation::Split { color: first_color, .. } => {
                        let mut v: Vec<(i64, usize, u32)> = Vec::new();
                        for (r, c, line) in ds {
                            let Creation::Split { key, color, .. } = c else {
                                return Err((
                                    *r,
                                    *line,
                                    format!("communicator '{id}' is created by different calls on different ranks"),
                                ));
                            };
                            if color != first_color {
                                return Err((
                                    *r,
                                    *line,
                                    format!("ranks split into communicator '{id}' with different colors"),
                                ));
                            }
                            let p = pos(*r).ok_or((
                                *r,
                                *line,
                                format!("rank {r} splits '{parent}' but is not a member of it"),
                            ))?;
                            v.push((*key, p as usize, *r));
                        }
                        v.sort();
                        v.into_iter().map(|(_, _, r)| r).collect()
                    }
                    Creation::Dup { .. } => pmembers.clone(),
                    Creation::Create { members, .. } => {
                        if let Some(m) = members.iter().find(|&&m| m >= ranks) {
                            let (r, _, line) = ds[0];
                            return Err((
                                r,
                                line,
                                format!("world rank {m} is out of range: the trace has {ranks} ranks"),
                            ));
                        }
                        let mut sorted = members.clone();
                        sorted.sort_unstable();
                        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                            let (r, _, line) = ds[0];
                            return Err((
                                r,
                                line,
                                format!("world rank {} is listed twice in communicator '{id}'", w[0]),
                            ));
                        }
                        members.clone()
                    }
                };
                for &m in &pmembers {
                    at[m as usize] = u32::MAX;
                }
                for &m in &members {
                    member[m as usize] = true;
                }
                let outsider = ds.iter().find(|(r, _, _)| !member[*r as usize]);
                for &m in &members {
                    member[m as usize] = false;
                }
                if let Some((r, _, line)) = outsider {
                    return Err((
                        *r,
                        *line,
                        format!("rank {r} is not a member of the communicator '{id}' it names"),
                    ));
                }
                t.by_id.insert(id.clone(), t.comms.len());
                t.comms.push(Comm::new(id, members));
            }
            if still.len() == before {
                let id = &still[0];
                let (r, _, line) = decl[id][0];
                return Err((r, line, format!("communicator '{id}' has an unknown parent")));
            }
            pending = still;
        }
        Ok(t)
    }

    /// The communicator `id` and its index.
    pub fn get(&self, id: &str) -> Option<(usize, &Comm)> {
        self.by_id.get(id).map(|&i| (i, &self.comms[i]))
    }

    /// The communicator at `index`.
    pub fn comm(&self, index: usize) -> &Comm {
        &self.comms[index]
    }

    /// Number of communicators, `world` included.
    pub fn len(&self) -> usize {
        self.comms.len()
    }

    /// Always false: `world` is always there.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The matching context of point-to-point traffic on communicator `index`.
    pub fn p2p_context(index: usize) -> u32 {
        2 * index as u32
    }

    /// The matching context of collective traffic on communicator `index`.
    pub fn coll_context(index: usize) -> u32 {
        2 * index as u32 + 1
    }

    /// The matching context of the `k`-th non-blocking collective call on communicator
    /// `index` (counted from 0 on each rank; MPI has every rank start them in the same
    /// order). The algorithms' messages use fixed tags, so two calls in flight at once
    /// could take each other's messages: MPI keeps them apart, and so does this, with
    /// [`ICOLL_SLOTS`] contexts per communicator reused in turn, above every
    /// communicator's own. Past 2^19 communicators, the communicator's collective
    /// context.
    pub fn icoll_context(index: usize, k: u64) -> u32 {
        let at = ICOLL_BASE + index as u64 * ICOLL_SLOTS + k % ICOLL_SLOTS;
        if at < 1 << 30 {
            Self::coll_context(at as usize)
        } else {
            Self::coll_context(index)
        }
    }

    /// The matching context of one-sided traffic on communicator `index` (a window's):
    /// from origin to target, or (`back`) from target to origin. These lie above every
    /// point-to-point and collective context (communicators number below 2^30).
    pub fn rma_context(index: usize, back: bool) -> u32 {
        (1 << 31) + 2 * index as u32 + back as u32
    }
}
