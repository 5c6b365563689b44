//! The global definitions of an OTF2 archive as simpi needs them: the clock, which
//! location is which MPI rank (the MPI paradigm's `COMM_LOCATIONS` group: rank `i` is
//! member `i`), the regions (MPI functions are the regions of the MPI paradigm, or named
//! `MPI_*`), and the communicators, mapped onto simpi's [`CommTable`]: each `Comm` over an
//! MPI `COMM_GROUP` becomes a communicator with those members (world ranks, in
//! communicator order) and its own matching contexts; the first communicator over all
//! ranks in rank order (preferring one named `MPI_COMM_WORLD`) is the world itself; a
//! `COMM_SELF` group is each rank's MPI_COMM_SELF.

use super::wire::Def;
use simpi_mpi::comm::{CommTable, Creation};
use std::collections::HashMap;
use std::sync::Arc;

/// `OTF2_PARADIGM_MPI`.
const PARADIGM_MPI: u8 = 4;
/// `OTF2_GROUP_TYPE_COMM_LOCATIONS`.
const GROUP_COMM_LOCATIONS: u8 = 4;
/// `OTF2_GROUP_TYPE_COMM_GROUP`.
const GROUP_COMM_GROUP: u8 = 5;
/// `OTF2_GROUP_TYPE_COMM_SELF`.
const GROUP_COMM_SELF: u8 = 6;

/// A region: its name and whether it is an MPI function.
#[derive(Clone, Debug)]
pub struct Region {
    /// Its name (shared by every call record of it).
    pub name: Arc<str>,
    /// An MPI function: its time is MPI time, not computation.
    pub mpi: bool,
}

/// What a communicator reference stands for.
#[derive(Clone, Debug)]
pub enum CommDef {
    /// A communicator of the table (0: the world), with its members in communicator
    /// order (world ranks); `global`: events name partners by world rank.
    Table {
        /// Index in the [`CommTable`].
        index: usize,
        /// World ranks of the members.
        members: Arc<[u32]>,
        /// Partners in events are world ranks, not communicator ranks.
        global: bool,
    },
    /// MPI_COMM_SELF (each rank alone).
    OwnSelf,
    /// An intercommunicator, or a communicator of another paradigm: not modelled.
    Unmodelled(&'static str),
}

/// The definitions, checked.
#[derive(Debug)]
pub struct Defs {
    /// Timer ticks per second.
    pub resolution: u64,
    /// The location of each rank.
    pub ranks: Vec<u64>,
    /// Regions by reference.
    pub regions: HashMap<u32, Region>,
    /// Communicators by reference.
    pub comms: HashMap<u32, CommDef>,
    /// The communicators as simpi's table.
    pub table: Arc<CommTable>,
}

struct Group {
    kind: u8,
    paradigm: u8,
    global: bool,
    members: Vec<u64>,
}

/// Checks the global definitions and builds [`Defs`]; an error says what is wrong.
pub fn build(defs: Vec<Def>) -> Result<Defs, String> {
    let mut clock = None;
    let mut strings: HashMap<u32, String> = HashMap::new();
    let mut locations: HashMap<u64, ()> = HashMap::new();
    let mut regions_raw: Vec<(u32, u32, u8)> = Vec::new();
    let mut groups: HashMap<u32, Group> = HashMap::new();
    let mut group_order: Vec<u32> = Vec::new();
    let mut comms_raw: Vec<(u32, u32, u32)> = Vec::new();
    let mut inter: Vec<u32> = Vec::new();
    for d in defs {
        match d {
            Def::Clock { resolution, .. } => {
                if clock.replace(resolution).is_some() {
                    return Err("the clock properties are defined twice".into());
                }
            }
            Def::String { id, text } => {
                strings.insert(id, text);
            }
            Def::Location { id, .. } => {
                if locations.insert(id, ()).is_some() {
                    return Err(format!("location {id} is defined twice"));
                }
            }
            Def::Region { id, name, paradigm, .. } => regions_raw.push((id, name, paradigm)),
            Def::Group {
                id,
                kind,
                paradigm,
                global,
                members,
            } => {
                let g = Group {
                    kind,
                    paradigm,
                    global,
                    members,
                };
                if groups.insert(id, g).is_some() {
                    return Err(format!("group {id} is defined twice"));
                }
                group_order.push(id);
            }
            Def::Comm { id, name, group } => comms_raw.push((id, name, group)),
            Def::InterComm { id } => inter.push(id),
        }
    }
    let resolution = clock.ok_or("the trace has no clock properties (timer resolution)")?;
    if resolution == 0 {
        return Err("the timer resolution is 0 ticks per second".into());
    }
    let string = |id: u32| strings.get(&id).map(String::as_str).unwrap_or("");

    // The ranks: the MPI paradigm's locations group.
    let mut rank_groups = group_order
        .iter()
        .filter(|id| groups[id].kind == GROUP_COMM_LOCATIONS && groups[id].paradigm == PARADIGM_MPI);
    let world_group = *rank_groups.next().ok_or(
        "the trace defines no MPI locations group (a Group of type COMM_LOCATIONS, paradigm MPI): \
         it is not a trace of an MPI program",
    )?;
    if rank_groups.next().is_some() {
        return Err("the trace defines two MPI locations groups".into());
    }
    let ranks = groups[&world_group].members.clone();
    if ranks.is_empty() {
        return Err("the MPI locations group has no member: the trace has no rank".into());
    }
    if ranks.len() > u32::MAX as usize - 1 {
        return Err(format!("the trace has {} ranks, too many", ranks.len()));
    }
    let p = ranks.len() as u32;
    let mut seen = HashMap::new();
    for (r, &l) in ranks.iter().enumerate() {
        if !locations.contains_key(&l) {
            return Err(format!("rank {r} is location {l}, which is not defined"));
        }
        if let Some(first) = seen.insert(l, r) {
            return Err(format!("location {l} is both rank {first} and rank {r}"));
        }
    }

    let mut regions = HashMap::new();
    for (id, name, paradigm) in regions_raw {
        let n = string(name);
        let mpi = paradigm == PARADIGM_MPI || n.starts_with("MPI_");
        let r = Region {
            name: Arc::from(n),
            mpi,
        };
        if regions.insert(id, r).is_some() {
            return Err(format!("region {id} is defined twice"));
        }
    }

    // Communicators: members as world ranks, then the table.
    let mut comms = HashMap::new();
    let mut creations: Vec<Vec<(Creation, u32)>> = vec![Vec::new(); p as usize];
    let mut pending: Vec<(u32, Vec<u32>, bool)> = Vec::new();
    // A communicator over every rank in rank order named MPI_COMM_WORLD is the world;
    // else the first such communicator.
    let is_world = |m: &[u32]| m.len() == p as usize && m.iter().enumerate().all(|(i, &x)| x == i as u32);
    let mut named_world = None;
    for &(id, name, group) in &comms_raw {
        let g = groups
            .get(&group)
            .ok_or_else(|| format!("communicator {id} names group {group}, which is not defined"))?;
        if g.paradigm != PARADIGM_MPI {
            let prev = comms.insert(id, CommDef::Unmodelled("a communicator of another paradigm than MPI"));
            if prev.is_some() {
                return Err(format!("communicator {id} is defined twice"));
            }
            continue;
        }
        let members: Vec<u32> = match g.kind {
            GROUP_COMM_SELF => {
                if comms.insert(id, CommDef::OwnSelf).is_some() {
                    return Err(format!("communicator {id} is defined twice"));
                }
                continue;
            }
            GROUP_COMM_LOCATIONS => (0..p).collect(),
            GROUP_COMM_GROUP => {
                let mut v = Vec::with_capacity(g.members.len());
                for &m in &g.members {
                    if m >= p as u64 {
                        return Err(format!(
                            "group {group} of communicator {id} names rank {m}: the trace has {p} ranks"
                        ));
                    }
                    v.push(m as u32);
                }
                let mut sorted = v.clone();
                sorted.sort_unstable();
                if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                    return Err(format!("group {group} of communicator {id} lists rank {} twice", w[0]));
                }
                v
            }
            k => {
                return Err(format!(
                    "communicator {id} is over group {group} of type {k}, not an MPI group"
                ))
            }
        };
        if named_world.is_none() && string(name) == "MPI_COMM_WORLD" && is_world(&members) {
            named_world = Some(id);
        }
        if comms.contains_key(&id) || pending.iter().any(|(c, _, _)| *c == id) {
            return Err(format!("communicator {id} is defined twice"));
        }
        pending.push((id, members, g.global));
    }
    let world_id = named_world.or_else(|| pending.iter().find(|(_, m, _)| is_world(m)).map(|(c, _, _)| *c));
    let mut index = 1usize;
    let mut order: Vec<(u32, Option<usize>)> = Vec::new();
    for (id, members, _) in &pending {
        if Some(*id) == world_id {
            order.push((*id, Some(0)));
            continue;
        }
        if members.is_empty() {
            order.push((*id, None));
            continue;
        }
        creations[members[0] as usize].push((
            Creation::Create {
                parent: "world".into(),
                new: Some(format!("otf2-{id}")),
                members: members.clone(),
            },
            0,
        ));
        order.push((*id, Some(index)));
        index += 1;
    }
    let table = CommTable::build(p, &creations).map_err(|(_, _, m)| m)?;
    for ((id, members, global), (_, at)) in pending.into_iter().zip(order) {
        let def = match at {
            None => CommDef::Unmodelled("an empty communicator"),
            Some(0) => CommDef::Table {
                index: 0,
                members: members.into(),
                global,
            },
            Some(_) => {
                let (i, _) = table.get(&format!("otf2-{id}")).expect("created above");
                CommDef::Table {
                    index: i,
                    members: members.into(),
                    global,
                }
            }
        };
        comms.insert(id, def);
    }
    for id in inter {
        if comms
            .insert(id, CommDef::Unmodelled("an intercommunicator (not modelled)"))
            .is_some()
        {
            return Err(format!("communicator {id} is defined twice"));
        }
    }
    Ok(Defs {
        resolution,
        ranks,
        regions,
        comms,
        table: Arc::new(table),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(p: u64) -> Vec<Def> {
        let mut d = vec![
            Def::Clock {
                resolution: 1000,
                offset: 0,
                length: 0,
            },
            Def::String {
                id: 0,
                text: "MPI_COMM_WORLD".into(),
            },
            Def::String {
                id: 1,
                text: "MPI_Send".into(),
            },
            Def::String {
                id: 2,
                text: "main".into(),
            },
            Def::Region {
                id: 0,
                name: 1,
                role: 0,
                paradigm: 0,
            },
            Def::Region {
                id: 1,
                name: 2,
                role: 0,
                paradigm: 0,
            },
        ];
        for l in 0..p {
            d.push(Def::Location {
                id: 10 + l,
                name: 2,
                events: 0,
            });
        }
        d.push(Def::Group {
            id: 0,
            kind: GROUP_COMM_LOCATIONS,
            paradigm: PARADIGM_MPI,
            global: false,
            members: (0..p).map(|l| 10 + l).collect(),
        });
        d
    }

    fn comm_group(id: u32, members: Vec<u64>) -> Def {
        Def::Group {
            id,
            kind: GROUP_COMM_GROUP,
            paradigm: PARADIGM_MPI,
            global: false,
            members,
        }
    }

    #[test]
    fn ranks_regions_and_communicators() {
        let mut d = base(4);
        d.push(comm_group(1, vec![0, 1, 2, 3]));
        d.push(comm_group(2, vec![3, 1]));
        d.push(Def::Group {
            id: 3,
            kind: GROUP_COMM_SELF,
            paradigm: PARADIGM_MPI,
            global: false,
            members: vec![],
        });
        // A duplicate of the world defined first, then the world by name.
        d.push(Def::Comm {
            id: 5,
            name: 2,
            group: 1,
        });
        d.push(Def::Comm {
            id: 6,
            name: 0,
            group: 1,
        });
        d.push(Def::Comm {
            id: 7,
            name: 2,
            group: 2,
        });
        d.push(Def::Comm {
            id: 8,
            name: 2,
            group: 3,
        });
        let defs = build(d).unwrap();
        assert_eq!(defs.ranks, vec![10, 11, 12, 13]);
        assert!(defs.regions[&0].mpi, "named MPI_*");
        assert!(!defs.regions[&1].mpi);
        let index = |c: u32| match &defs.comms[&c] {
            CommDef::Table { index, members, .. } => (*index, members.to_vec()),
            other => panic!("{other:?}"),
        };
        assert_eq!(index(6), (0, vec![0, 1, 2, 3]));
        let (dup, _) = index(5);
        let (sub, m) = index(7);
        assert!(dup > 0 && sub > 0 && dup != sub);
        assert_eq!(m, vec![3, 1]);
        assert_eq!(defs.table.comm(sub).members, vec![3, 1]);
        assert!(matches!(defs.comms[&8], CommDef::OwnSelf));
    }

    #[test]
    fn broken_definitions_are_refused() {
        let cases: Vec<(Vec<Def>, &str)> = vec![
            (
                base(2)
                    .into_iter()
                    .filter(|d| !matches!(d, Def::Clock { .. }))
                    .collect(),
                "no clock",
            ),
            (
                base(2)
                    .into_iter()
                    .filter(|d| !matches!(d, Def::Group { .. }))
                    .collect(),
                "no MPI locations group",
            ),
            (
                {
                    let mut d = base(2);
                    d.push(comm_group(1, vec![0, 2]));
                    d.push(Def::Comm {
                        id: 0,
                        name: 0,
                        group: 1,
                    });
                    d
                },
                "names rank 2",
            ),
            (
                {
                    let mut d = base(2);
                    d.push(comm_group(1, vec![1, 1]));
                    d.push(Def::Comm {
                        id: 0,
                        name: 0,
                        group: 1,
                    });
                    d
                },
                "twice",
            ),
            (
                {
                    let mut d = base(2);
                    d.push(Def::Comm {
                        id: 0,
                        name: 0,
                        group: 9,
                    });
                    d
                },
                "not defined",
            ),
            (
                {
                    let mut d = base(2);
                    d.push(Def::Location {
                        id: 10,
                        name: 0,
                        events: 0,
                    });
                    d
                },
                "defined twice",
            ),
        ];
        for (d, want) in cases {
            let e = build(d).unwrap_err();
            assert!(e.contains(want), "{e} should say {want}");
        }
    }
}
