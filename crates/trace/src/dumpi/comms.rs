//! Communicators of a DUMPI trace. Each rank numbers its own communicators (handles
//! 4 and up; 2 is the world, 3 the rank itself, 1 none), so creations are matched
//! across ranks by order: the `k`-th creation call a rank makes on a parent is the same
//! collective call as every other member's `k`-th. The trace-wide id of what it makes
//! is `<parent>/<k>` (and `:<color>` for a split). A pre-pass over every rank's file
//! gathers the creations into a [`CommTable`]; the replay repeats the numbering to find
//! each handle's communicator.
//!
//! Groups are followed as far as MPI_Comm_create needs them: MPI_Comm_group of a
//! communicator whose members this rank knows (the world and its duplicates), then
//! MPI_Group_incl and MPI_Group_excl.

use super::record::Record;
use simpi_mpi::comm::Creation;
use std::collections::HashMap;

/// Handle of no communicator.
pub(crate) const COMM_NULL: i64 = 1;
/// Handle of MPI_COMM_WORLD.
pub(crate) const COMM_WORLD: i64 = 2;
/// Handle of MPI_COMM_SELF.
pub(crate) const COMM_SELF: i64 = 3;
/// Trace-wide id of MPI_COMM_SELF (not in the table: each rank's own).
pub(crate) const SELF: &str = "self";

/// One rank's communicator and group handles.
pub(crate) struct Tracker {
    ranks: u32,
    rank: u32,
    /// Trace-wide id of each handle this rank holds.
    local: HashMap<i64, String>,
    /// Members (world ranks) of communicators this rank knows whole.
    known: HashMap<String, Vec<u32>>,
    /// Members of each group handle (none: not known here).
    groups: HashMap<i64, Option<Vec<u32>>>,
    /// Creation calls made so far on each parent.
    made: HashMap<String, u32>,
}

impl Tracker {
    /// Rank `rank` of `ranks`, before any call.
    pub fn new(ranks: u32, rank: u32) -> Tracker {
        Tracker {
            ranks,
            rank,
            local: HashMap::new(),
            known: HashMap::from([("world".to_string(), (0..ranks).collect())]),
            groups: HashMap::new(),
            made: HashMap::new(),
        }
    }

    /// The trace-wide id of communicator handle `h`.
    pub fn id(&self, h: i64) -> Result<&str, String> {
        match h {
            COMM_WORLD => Ok("world"),
            COMM_SELF => Ok(SELF),
            COMM_NULL => Err("MPI_COMM_NULL is used as a communicator".into()),
            _ => self
                .local
                .get(&h)
                .map(String::as_str)
                .ok_or_else(|| format!("communicator {h} was never created")),
        }
    }

    /// Follows a communicator or group call; a creation is returned.
    pub fn follow(&mut self, rec: &Record) -> Result<Option<Creation>, String> {
        let name = rec.name();
        match name {
            "MPI_Comm_dup" | "MPI_Comm_split" | "MPI_Comm_create" => {
                let parent = self.id(rec.int(0)?)?.to_string();
                if parent == SELF {
                    return Err(format!("{name} of MPI_COMM_SELF is not supported"));
                }
                let k = self.made.entry(parent.clone()).or_insert(0);
                *k += 1;
                let id = format!("{parent}/{k}");
                let newh = rec.int(rec.args.len() - 1)?;
                let (creation, new) = match name {
                    "MPI_Comm_dup" => {
                        if let Some(m) = self.known.get(&parent).cloned() {
                            self.known.insert(id.clone(), m);
                        }
                        (
                            Creation::Dup {
                                parent,
                                new: id.clone(),
                            },
                            Some(id),
                        )
                    }
                    "MPI_Comm_split" => {
                        let (color, key) = (rec.int(1)?, rec.int(2)?);
                        let new = (color >= 0 && newh != COMM_NULL).then(|| format!("{id}:{color}"));
                        (
                            Creation::Split {
                                parent,
                                color,
                                key,
                                new: new.clone(),
                            },
                            new,
                        )
                    }
                    _ => {
                        let g = rec.int(1)?;
                        let members = match self.groups.get(&g) {
                            Some(Some(m)) => m.clone(),
                            Some(None) => {
                                return Err(format!(
                                    "MPI_Comm_create with group {g}, whose members this reader cannot tell \
                                     (groups of split communicators are not supported)"
                                ))
                            }
                            None => return Err(format!("MPI_Comm_create with group {g}, which was never made")),
                        };
                        let new = (newh != COMM_NULL).then(|| id.clone());
                        if new.is_some() {
                            self.known.insert(id.clone(), members.clone());
                        }
                        (
                            Creation::Create {
                                parent,
                                new: new.clone(),
                                members,
                            },
                            new,
                        )
                    }
                };
                if let Some(new) = new {
                    if newh == COMM_NULL || newh == COMM_WORLD || newh == COMM_SELF {
                        return Err(format!("{name} names the new communicator {newh}, a predefined one"));
                    }
                    self.local.insert(newh, new);
                }
                Ok(Some(creation))
            }
            "MPI_Comm_free" => {
                self.local.remove(&rec.int(0)?);
                Ok(None)
            }
            "MPI_Comm_group" => {
                let (c, g) = (rec.int(0)?, rec.int(1)?);
                let members = match c {
                    COMM_SELF => Some(vec![self.rank]),
                    _ => self.known.get(self.id(c)?).cloned(),
                };
                self.groups.insert(g, members);
                Ok(None)
            }
            "MPI_Group_incl" | "MPI_Group_excl" => {
                let (g, new) = (rec.int(0)?, rec.int(3)?);
                let picked = rec.ints(2);
                let members = match self.groups.get(&g) {
                    Some(Some(m)) => {
                        let mut keep = Vec::with_capacity(picked.len());
                        for &i in picked {
                            if i < 0 || i as usize >= m.len() {
                                return Err(format!("{name}: rank {i} is not in group {g} of {} ranks", m.len()));
                            }
                            keep.push(i as usize);
                        }
                        Some(if name == "MPI_Group_incl" {
                            keep.iter().map(|&i| m[i]).collect()
                        } else {
                            (0..m.len()).filter(|i| !keep.contains(i)).map(|i| m[i]).collect()
                        })
                    }
                    _ => None,
                };
                self.groups.insert(new, members);
                Ok(None)
            }
            "MPI_Group_free" => {
                self.groups.remove(&rec.int(0)?);
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// Number of ranks of the trace.
    pub fn ranks(&self) -> u32 {
        self.ranks
    }
}
