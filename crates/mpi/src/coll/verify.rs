//! Symbolic check of a collective algorithm: runs every rank's emitted operations,
//! tracking which blocks each rank holds and which ranks' contributions they contain, and
//! checks the final state against what the operation must achieve. Used by the tests of
//! every algorithm.

use crate::coll::emit::default_layout;
use crate::coll::{Algorithm, CollSpec, Collective, Emitter, Merge, Step};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// Which ranks contributed to a block (a bit set).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Contrib(Vec<u64>);

impl Contrib {
    fn one(r: u32, n: u32) -> Contrib {
        let mut v = vec![0u64; (n as usize).div_ceil(64)];
        v[r as usize / 64] |= 1 << (r % 64);
        Contrib(v)
    }
    fn range(lo: u32, hi: u32, n: u32) -> Contrib {
        let mut c = Contrib(vec![0u64; (n as usize).div_ceil(64)]);
        for r in lo..hi {
            c.0[r as usize / 64] |= 1 << (r % 64);
        }
        c
    }
    fn overlaps(&self, o: &Contrib) -> bool {
        self.0.iter().zip(&o.0).any(|(a, b)| a & b != 0)
    }
    fn union(&mut self, o: &Contrib) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
}

enum VOp {
    Send {
        to: u32,
        tag: u32,
        blocks: Option<Vec<u32>>,
        bytes: u64,
    },
    Recv {
        from: u32,
        tag: u32,
        blocks: Option<Vec<u32>>,
        bytes: u64,
        merge: Merge,
    },
}

struct Recorder {
    sizes: Vec<u64>,
    total: Option<u64>,
    ops: Vec<(VOp, Vec<Step>)>,
    layout_error: Option<String>,
}

impl Emitter for Recorder {
    fn layout(&mut self, sizes: &[u64]) {
        if let Some(t) = self.total {
            if sizes.iter().sum::<u64>() != t {
                self.layout_error = Some(format!("layout {sizes:?} does not add up to {t} bytes"));
            }
        }
        self.sizes = sizes.to_vec();
    }
    fn block_size(&self, b: u32) -> u64 {
        self.sizes[b as usize]
    }
    fn send_sized(&mut self, to: u32, tag: u32, blocks: &[u32], bytes: u64, after: &[Step]) -> Step {
        self.ops.push((
            VOp::Send {
                to,
                tag,
                blocks: Some(blocks.to_vec()),
                bytes,
            },
            after.to_vec(),
        ));
        self.ops.len() as Step - 1
    }
    fn recv_sized(&mut self, from: u32, tag: u32, blocks: &[u32], merge: Merge, bytes: u64, after: &[Step]) -> Step {
        self.ops.push((
            VOp::Recv {
                from,
                tag,
                blocks: Some(blocks.to_vec()),
                bytes,
                merge,
            },
            after.to_vec(),
        ));
        self.ops.len() as Step - 1
    }
    fn send_sync(&mut self, to: u32, tag: u32, bytes: u64, after: &[Step]) -> Step {
        self.ops.push((
            VOp::Send {
                to,
                tag,
                blocks: None,
                bytes,
            },
            after.to_vec(),
        ));
        self.ops.len() as Step - 1
    }
    fn recv_sync(&mut self, from: u32, tag: u32, bytes: u64, after: &[Step]) -> Step {
        self.ops.push((
            VOp::Recv {
                from,
                tag,
                blocks: None,
                bytes,
                merge: Merge::Copy,
            },
            after.to_vec(),
        ));
        self.ops.len() as Step - 1
    }
}

/// What a symbolic run found.
#[derive(Debug, Default)]
pub struct VerifyReport {
    /// Messages per rank.
    pub messages: Vec<u32>,
    /// Bytes sent per rank.
    pub bytes: Vec<u64>,
}

/// Runs `alg` on every rank with the spec `spec_of(r)` and checks data movement.
pub fn verify(alg: &Algorithm, spec_of: &dyn Fn(u32) -> CollSpec) -> Result<VerifyReport, String> {
    let first = spec_of(0);
    let n = first.size;
    let coll = first.coll;
    let specs: Vec<CollSpec> = (0..n).map(spec_of).collect();
    let mut recs = Vec::new();
    for s in &specs {
        let (layout, total) = default_layout(s);
        // The verifier tracks every block, so it lists them.
        let sizes = (0..layout.len() as u32).map(|b| layout.size(b)).collect();
        let mut r = Recorder {
            sizes,
            total,
            ops: Vec::new(),
            layout_error: None,
        };
        (alg.emit)(s, &mut r);
        if let Some(e) = r.layout_error {
            return Err(format!("rank {}: {e}", s.me));
        }
        for (i, (_, after)) in r.ops.iter().enumerate() {
            if after.iter().any(|&a| a as usize >= i) {
                return Err(format!("rank {}: op {i} depends on a later op", s.me));
            }
        }
        recs.push(r);
    }
    // Initial state.
    let nb = |r: usize| recs[r].sizes.len() as u32;
    let mut state: Vec<BTreeMap<u32, Contrib>> = vec![BTreeMap::new(); n as usize];
    let root = first.root;
    for r in 0..n {
        let st = &mut state[r as usize];
        match coll {
            Collective::Bcast | Collective::Scatter | Collective::Scatterv => {
                // An empty block carries nothing: every rank holds it already (MPICH's
                // scatter for bcast sends nobody an empty piece).
                for b in 0..nb(r as usize) {
                    if r == root || recs[r as usize].sizes[b as usize] == 0 {
                        st.insert(b, Contrib::one(root, n));
                    }
                }
            }
            Collective::Reduce
            | Collective::Allreduce
            | Collective::Scan
            | Collective::Exscan
            | Collective::ReduceScatter => {
                for b in 0..nb(r as usize) {
                    st.insert(b, Contrib::one(r, n));
                }
            }
            Collective::Gather
            | Collective::Gatherv
            | Collective::Allgather
            | Collective::Allgatherv
            | Collective::Barrier => {
                st.insert(r, Contrib::one(r, n));
            }
            Collective::Alltoall | Collective::Alltoallv => {
                for d in 0..n {
                    st.insert(r * n + d, Contrib::one(r, n));
                }
            }
        }
    }
    // Run: sends fire when their dependencies are done; receives when a message waits.
    // A message: data (block, contributors), block ids, size, and the set of ranks the
    // send causally depends on (for barriers).
    type Msg = (Option<Vec<(u32, Contrib)>>, Option<Vec<u32>>, u64, Contrib);
    let mut heard: Vec<Vec<Contrib>> = recs
        .iter()
        .enumerate()
        .map(|(r, rec)| vec![Contrib::one(r as u32, n); rec.ops.len()])
        .collect();
    let mut chan: HashMap<(u32, u32, u32), VecDeque<Msg>> = HashMap::new();
    let mut done: Vec<Vec<bool>> = recs.iter().map(|r| vec![false; r.ops.len()]).collect();
    let mut report = VerifyReport {
        messages: vec![0; n as usize],
        bytes: vec![0; n as usize],
    };
    loop {
        let mut progress = false;
        for r in 0..n as usize {
            for i in 0..recs[r].ops.len() {
                if done[r][i] || !recs[r].ops[i].1.iter().all(|&a| done[r][a as usize]) {
                    continue;
                }
                let mut h = Contrib::one(r as u32, n);
                for &a in &recs[r].ops[i].1 {
                    h.union(&heard[r][a as usize]);
                }
                match &recs[r].ops[i].0 {
                    VOp::Send { to, tag, blocks, bytes } => {
                        if *to >= n {
                            return Err(format!("rank {r} sends to {to}, outside the communicator"));
                        }
                        let data = match blocks {
                            Some(bl) => {
                                let mut v = Vec::new();
                                for &b in bl {
                                    let c = state[r]
                                        .get(&b)
                                        .ok_or_else(|| format!("rank {r} sends block {b} it does not have"))?;
                                    v.push((b, c.clone()));
                                }
                                Some(v)
                            }
                            None => None,
                        };
                        chan.entry((r as u32, *to, *tag)).or_default().push_back((
                            data,
                            blocks.clone(),
                            *bytes,
                            h.clone(),
                        ));
                        report.messages[r] += 1;
                        report.bytes[r] += bytes;
                    }
                    VOp::Recv {
                        from,
                        tag,
                        blocks,
                        bytes,
                        merge,
                    } => {
                        let Some(q) = chan.get_mut(&(*from, r as u32, *tag)) else {
                            continue;
                        };
                        let Some((data, sblocks, sbytes, sheard)) = q.pop_front() else {
                            continue;
                        };
                        h.union(&sheard);
                        if sbytes != *bytes {
                            return Err(format!(
                                "rank {r} receives {bytes} bytes from {from} but {sbytes} were sent (tag {tag})"
                            ));
                        }
                        if &sblocks != blocks {
                            return Err(format!(
                                "rank {r} expects blocks {blocks:?} from {from}, got {sblocks:?}"
                            ));
                        }
                        if let Some(data) = data {
                            for (b, c) in data {
                                match merge {
                                    Merge::Copy => {
                                        state[r].insert(b, c);
                                    }
                                    Merge::Reduce => match state[r].get_mut(&b) {
                                        Some(mine) => {
                                            if mine.overlaps(&c) {
                                                return Err(format!(
                                                    "rank {r}: block {b} would count a contribution twice"
                                                ));
                                            }
                                            mine.union(&c);
                                        }
                                        None => {
                                            state[r].insert(b, c);
                                        }
                                    },
                                    Merge::Union => {
                                        state[r]
                                            .entry(b)
                                            .or_insert_with(|| Contrib(vec![0; c.0.len()]))
                                            .union(&c);
                                    }
                                }
                            }
                        }
                    }
                }
                heard[r][i] = h;
                done[r][i] = true;
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    for (r, d) in done.iter().enumerate() {
        if let Some(i) = d.iter().position(|d| !d) {
            return Err(format!("deadlock: rank {r} never completes its operation {i}"));
        }
    }
    if let Some(((s, d, t), _)) = chan.iter().find(|(_, q)| !q.is_empty()) {
        return Err(format!("a message from {s} to {d} (tag {t}) is never received"));
    }
    // Final state.
    let all = Contrib::range(0, n, n);
    let has = |r: u32, b: u32, want: &Contrib| state[r as usize].get(&b) == Some(want);
    for r in 0..n {
        let ok = match coll {
            Collective::Bcast => (0..nb(r as usize)).all(|b| has(r, b, &Contrib::one(root, n))),
            Collective::Reduce => r != root || (0..nb(r as usize)).all(|b| has(r, b, &all)),
            Collective::Allreduce => (0..nb(r as usize)).all(|b| has(r, b, &all)),
            Collective::Scan => (0..nb(r as usize)).all(|b| has(r, b, &Contrib::range(0, r + 1, n))),
            Collective::Exscan => r == 0 || (0..nb(r as usize)).all(|b| has(r, b, &Contrib::range(0, r, n))),
            Collective::ReduceScatter => has(r, r, &all),
            Collective::Gather | Collective::Gatherv => r != root || (0..n).all(|b| has(r, b, &Contrib::one(b, n))),
            Collective::Allgather | Collective::Allgatherv => (0..n).all(|b| has(r, b, &Contrib::one(b, n))),
            Collective::Scatter | Collective::Scatterv => has(r, r, &Contrib::one(root, n)),
            Collective::Alltoall | Collective::Alltoallv => (0..n).all(|s| has(r, s * n + r, &Contrib::one(s, n))),
            Collective::Barrier => {
                // Every rank's last operations must causally follow every rank's entry.
                let mut h = Contrib(vec![0; all.0.len()]);
                for c in &heard[r as usize] {
                    h.union(c);
                }
                n == 1 || h == all
            }
        };
        if !ok {
            return Err(format!(
                "rank {r} does not end with the right data: {:?}",
                state[r as usize]
            ));
        }
    }
    Ok(report)
}

/// Simulates `alg` on `n` ranks (rank `r` gets `spec_of(r)`) under LogGOPS and returns
/// every rank's end time in picoseconds: the measurement side of the closed-form tests.
pub fn loggops_end_times(
    alg: &Algorithm,
    n: u32,
    spec_of: &dyn Fn(u32) -> CollSpec,
    m: &crate::LogGopsParams,
) -> Vec<u64> {
    let mut b = crate::ScheduleBuilder::new(n);
    for r in 0..n {
        b.begin_rank(r as u64).unwrap();
        let s = spec_of(r);
        let at = crate::coll::emit::Placement {
            me: r,
            size: n,
            members: None,
            ctx: 1,
        };
        crate::coll::emit::Template::record(alg, &s)
            .unwrap()
            .instantiate(&mut b, at, None)
            .unwrap();
        b.end_rank().unwrap();
    }
    let mut sched = b.finish();
    let out = crate::run_loggops(&mut sched, m, None).expect("the collective deadlocked under LogGOPS");
    out.end_times.iter().map(|t| t.ps()).collect()
}
