//! Virtual topologies: Cartesian grids, graphs and distributed graphs. Making one is
//! a communicator split (ranks are not reordered); the topology itself is kept on
//! each rank, which computes the same one.

use crate::client::{entry, Client, Failure};
use crate::comm::make;
use simpi_wire::{abi, Call, CollKind, Collective};
use std::ffi::c_int;

/// A communicator's topology.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Topo {
    /// A Cartesian grid: extent and periodicity per dimension.
    Cart { dims: Vec<c_int>, periods: Vec<bool> },
    /// A graph: the neighbors of each node, as MPI_Graph_create's index and edges.
    Graph { index: Vec<c_int>, edges: Vec<c_int> },
    /// A distributed graph, as this rank sees it: its sources and destinations.
    DistGraph {
        sources: Vec<c_int>,
        dests: Vec<c_int>,
        weighted: bool,
    },
}

/// MPI_GRAPH, MPI_DIST_GRAPH and MPI_CART.
const GRAPH: c_int = 201;
const DIST_GRAPH: c_int = 202;
const CART: c_int = 203;

/// The `n` values at `p`.
unsafe fn ints(p: *const c_int, n: c_int) -> Result<Vec<c_int>, Failure> {
    if n < 0 {
        return Err((abi::err::ARG, format!("{n} entries")));
    }
    if n > 0 && p.is_null() {
        return Err((abi::err::ARG, "a null array".into()));
    }
    Ok((0..n as usize).map(|i| *p.add(i)).collect())
}

/// The factors of `n` in `free` dimensions, as balanced as possible, largest first.
pub fn balanced(n: u64, free: usize) -> Vec<u64> {
    if free == 0 {
        return Vec::new();
    }
    let divisors: Vec<u64> = (1..=n)
        .take_while(|d| d * d <= n)
        .filter(|d| n.is_multiple_of(*d))
        .collect();
    let mut all: Vec<u64> = divisors.iter().flat_map(|&d| [d, n / d]).collect();
    all.sort_unstable_by(|a, b| b.cmp(a));
    all.dedup();
    let mut best: Option<Vec<u64>> = None;
    let mut dims = Vec::with_capacity(free);
    split(n, free, u64::MAX, &all, &mut dims, &mut best);
    best.unwrap_or_else(|| vec![1; free])
}

/// Extends `dims` (non-increasing) with `left` more dimensions of product `n`, each at
/// most `cap`, keeping in `best` the one whose largest and smallest differ least.
fn split(n: u64, left: usize, cap: u64, divisors: &[u64], dims: &mut Vec<u64>, best: &mut Option<Vec<u64>>) {
    if left == 1 {
        if n <= cap {
            dims.push(n);
            // The smallest spread; among equal spreads, the smallest sum of squares
            // (13 x 9 x 8 x 6 rather than 13 x 12 x 6 x 6).
            let key = |d: &[u64]| {
                (
                    d[0] - d[d.len() - 1],
                    d.iter().map(|&x| x as u128 * x as u128).sum::<u128>(),
                )
            };
            if best.as_ref().is_none_or(|b| key(dims) < key(b)) {
                *best = Some(dims.clone());
            }
            dims.pop();
        }
        return;
    }
    for &d in divisors.iter().filter(|&&d| d <= cap && n.is_multiple_of(d)) {
        // The rest cannot exceed d each: d^left must reach n.
        if (d as u128).pow(left as u32) < n as u128 {
            break;
        }
        dims.push(d);
        split(n / d, left - 1, d, divisors, dims, best);
        dims.pop();
    }
}

/// # Safety
/// `dims` holds `ndims` entries.
#[no_mangle]
pub unsafe extern "C" fn MPI_Dims_create(nnodes: c_int, ndims: c_int, dims: *mut c_int) -> c_int {
    entry("MPI_Dims_create", |_| {
        let mut d = ints(dims, ndims)?;
        if nnodes < 0 || d.iter().any(|&x| x < 0) {
            return Err((abi::err::DIMS, "negative dimensions".into()));
        }
        let fixed: i64 = d.iter().filter(|&&x| x > 0).map(|&x| i64::from(x)).product();
        if fixed == 0 || i64::from(nnodes) % fixed != 0 {
            return Err((
                abi::err::DIMS,
                format!("{nnodes} nodes are not a multiple of the given dimensions"),
            ));
        }
        let free = d.iter().filter(|&&x| x == 0).count();
        let mut f = balanced((i64::from(nnodes) / fixed) as u64, free).into_iter();
        if free == 0 && fixed != i64::from(nnodes) {
            return Err((abi::err::DIMS, format!("the dimensions do not make {nnodes}")));
        }
        for x in d.iter_mut().filter(|x| **x == 0) {
            *x = f.next().unwrap_or(1) as c_int;
        }
        for (i, x) in d.into_iter().enumerate() {
            *dims.add(i) = x;
        }
        Ok(())
    })
}

/// Keeps the first `n` ranks of `comm` in a new communicator with topology `t`.
fn with_topo(c: &mut Client, comm: usize, n: u64, t: Topo) -> Result<u64, Failure> {
    let cm = c.comm(comm)?;
    if n > u64::from(cm.size) {
        return Err((
            abi::err::TOPOLOGY,
            format!("a topology of {n} nodes on {} ranks", cm.size),
        ));
    }
    let color = if u64::from(cm.rank) < n { 0 } else { abi::UNDEFINED };
    let data = [color.to_le_bytes(), (cm.rank as c_int).to_le_bytes()].concat();
    let h = make(c, comm, CollKind::Split, data)?;
    if h != abi::COMM_NULL {
        c.topos.insert(h, t);
    }
    Ok(h)
}

/// # Safety
/// The arrays hold `ndims` entries; `newcomm` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Cart_create(
    comm: usize,
    ndims: c_int,
    dims: *const c_int,
    periods: *const c_int,
    _reorder: c_int,
    newcomm: *mut usize,
) -> c_int {
    entry("MPI_Cart_create", |c| {
        let d = ints(dims, ndims)?;
        let p = ints(periods, ndims)?;
        if d.iter().any(|&x| x <= 0) {
            return Err((abi::err::DIMS, format!("dimensions {d:?}")));
        }
        let n: u64 = d.iter().map(|&x| x as u64).product();
        let t = Topo::Cart {
            dims: d,
            periods: p.into_iter().map(|x| x != 0).collect(),
        };
        *newcomm = with_topo(c, comm, n, t)? as usize;
        Ok(())
    })
}

/// The Cartesian topology of `comm`, or MPI_ERR_TOPOLOGY.
fn cart(c: &Client, comm: usize) -> Result<(Vec<c_int>, Vec<bool>), Failure> {
    c.comm(comm)?;
    match c.topos.get(&(comm as u64)) {
        Some(Topo::Cart { dims, periods }) => Ok((dims.clone(), periods.clone())),
        _ => Err((abi::err::TOPOLOGY, "the communicator has no Cartesian topology".into())),
    }
}

/// The neighbors a neighborhood collective on a communicator exchanges with, in the
/// standard's order, with the tags that keep its messages apart.
pub struct Neighborhood {
    /// Where each block of the receive buffer comes from (ranks in the
    /// communicator, or MPI_PROC_NULL off a non-periodic edge), with the tag its
    /// message carries.
    pub sources: Vec<(c_int, c_int)>,
    /// Where each block of the send buffer goes, with its tag.
    pub dests: Vec<(c_int, c_int)>,
}

/// The neighborhood of this rank in `comm`'s topology, or MPI_ERR_TOPOLOGY. On a
/// Cartesian grid the neighbors are, per dimension, the rank one step down then one
/// step up; the same rank can be both (a periodic dimension of 1 or 2), so each
/// message is tagged with the block the receiver keeps it in. Graph neighbors are
/// taken in order (tag 0: several edges between two ranks match in order).
pub fn neighborhood(c: &Client, comm: usize) -> Result<Neighborhood, Failure> {
    let me = c.comm(comm)?.rank as c_int;
    match c.topos.get(&(comm as u64)) {
        Some(Topo::Cart { dims, periods }) => {
            let at = coords_of(dims, me);
            let mut list = Vec::with_capacity(2 * dims.len());
            for d in 0..dims.len() {
                for step in [-1, 1] {
                    let mut x = at.clone();
                    x[d] += step;
                    list.push(rank_at(dims, periods, &x).unwrap_or(abi::PROC_NULL));
                }
            }
            // Block 2d comes from one step down, 2d + 1 from one step up; what goes
            // down arrives at the receiver from one step up, and the other way.
            let sources = list.iter().enumerate().map(|(k, &r)| (r, k as c_int)).collect();
            let dests = list.iter().enumerate().map(|(k, &r)| (r, (k ^ 1) as c_int)).collect();
            Ok(Neighborhood { sources, dests })
        }
        Some(Topo::Graph { index, edges }) => {
            let list: Vec<(c_int, c_int)> = neighbors(index, edges, me)?.into_iter().map(|r| (r, 0)).collect();
            Ok(Neighborhood {
                sources: list.clone(),
                dests: list,
            })
        }
        Some(Topo::DistGraph { sources, dests, .. }) => Ok(Neighborhood {
            sources: sources.iter().map(|&r| (r, 0)).collect(),
            dests: dests.iter().map(|&r| (r, 0)).collect(),
        }),
        None => Err((
            abi::err::TOPOLOGY,
            format!(
                "{} has no topology: a neighborhood collective needs one",
                c.comm(comm)?.name()
            ),
        )),
    }
}

/// The coordinates of rank `r` in grid `dims` (row-major).
fn coords_of(dims: &[c_int], mut r: c_int) -> Vec<c_int> {
    let mut out = vec![0; dims.len()];
    for i in (0..dims.len()).rev() {
        out[i] = r % dims[i];
        r /= dims[i];
    }
    out
}

/// The rank at `coords` (wrapped where periodic), or `None` if off a non-periodic
/// edge.
fn rank_at(dims: &[c_int], periods: &[bool], coords: &[c_int]) -> Option<c_int> {
    let mut r = 0;
    for i in 0..dims.len() {
        let mut x = coords[i];
        if periods[i] {
            x = x.rem_euclid(dims[i]);
        } else if !(0..dims[i]).contains(&x) {
            return None;
        }
        r = r * dims[i] + x;
    }
    Some(r)
}

/// # Safety
/// `ndims` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Cartdim_get(comm: usize, ndims: *mut c_int) -> c_int {
    entry("MPI_Cartdim_get", |c| {
        *ndims = cart(c, comm)?.0.len() as c_int;
        Ok(())
    })
}

/// # Safety
/// The arrays hold `maxdims` entries.
#[no_mangle]
pub unsafe extern "C" fn MPI_Cart_get(
    comm: usize,
    maxdims: c_int,
    dims: *mut c_int,
    periods: *mut c_int,
    coords: *mut c_int,
) -> c_int {
    entry("MPI_Cart_get", |c| {
        let (d, p) = cart(c, comm)?;
        let me = coords_of(&d, c.comm(comm)?.rank as c_int);
        for i in 0..d.len().min(maxdims.max(0) as usize) {
            *dims.add(i) = d[i];
            *periods.add(i) = c_int::from(p[i]);
            *coords.add(i) = me[i];
        }
        Ok(())
    })
}

/// # Safety
/// `coords` holds the grid's dimensions; `rank` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Cart_rank(comm: usize, coords: *const c_int, rank: *mut c_int) -> c_int {
    entry("MPI_Cart_rank", |c| {
        let (d, p) = cart(c, comm)?;
        let at = ints(coords, d.len() as c_int)?;
        *rank = rank_at(&d, &p, &at).ok_or((abi::err::ARG, format!("coordinates {at:?} are off the grid")))?;
        Ok(())
    })
}

/// # Safety
/// `coords` holds `maxdims` entries.
#[no_mangle]
pub unsafe extern "C" fn MPI_Cart_coords(comm: usize, rank: c_int, maxdims: c_int, coords: *mut c_int) -> c_int {
    entry("MPI_Cart_coords", |c| {
        let (d, _) = cart(c, comm)?;
        if rank < 0 || rank >= c.comm(comm)?.size as c_int {
            return Err((abi::err::RANK, format!("rank {rank} is not in the grid")));
        }
        for (i, x) in coords_of(&d, rank)
            .into_iter()
            .enumerate()
            .take(maxdims.max(0) as usize)
        {
            *coords.add(i) = x;
        }
        Ok(())
    })
}

/// # Safety
/// `source` and `dest` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Cart_shift(
    comm: usize,
    direction: c_int,
    disp: c_int,
    source: *mut c_int,
    dest: *mut c_int,
) -> c_int {
    entry("MPI_Cart_shift", |c| {
        let (d, p) = cart(c, comm)?;
        let dir = usize::try_from(direction)
            .ok()
            .filter(|&k| k < d.len())
            .ok_or((abi::err::ARG, format!("direction {direction}")))?;
        let me = coords_of(&d, c.comm(comm)?.rank as c_int);
        let moved = |by: c_int| {
            let mut at = me.clone();
            at[dir] += by;
            rank_at(&d, &p, &at).unwrap_or(abi::PROC_NULL)
        };
        *source = moved(-disp);
        *dest = moved(disp);
        Ok(())
    })
}

/// # Safety
/// `remain` holds the grid's dimensions; `newcomm` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Cart_sub(comm: usize, remain: *const c_int, newcomm: *mut usize) -> c_int {
    entry("MPI_Cart_sub", |c| {
        let (d, p) = cart(c, comm)?;
        let keep: Vec<bool> = ints(remain, d.len() as c_int)?.into_iter().map(|x| x != 0).collect();
        let rank = c.comm(comm)?.rank as c_int;
        let me = coords_of(&d, rank);
        // Ranks with the same coordinates in the dropped dimensions stay together.
        let mut color = 0;
        for i in (0..d.len()).filter(|&i| !keep[i]) {
            color = color * d[i] + me[i];
        }
        let data = [color.to_le_bytes(), rank.to_le_bytes()].concat();
        let h = make(c, comm, CollKind::Split, data)?;
        let t = Topo::Cart {
            dims: (0..d.len()).filter(|&i| keep[i]).map(|i| d[i]).collect(),
            periods: (0..d.len()).filter(|&i| keep[i]).map(|i| p[i]).collect(),
        };
        c.topos.insert(h, t);
        *newcomm = h as usize;
        Ok(())
    })
}

/// # Safety
/// `status` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Topo_test(comm: usize, status: *mut c_int) -> c_int {
    entry("MPI_Topo_test", |c| {
        c.comm(comm)?;
        *status = match c.topos.get(&(comm as u64)) {
            Some(Topo::Cart { .. }) => CART,
            Some(Topo::Graph { .. }) => GRAPH,
            Some(Topo::DistGraph { .. }) => DIST_GRAPH,
            None => abi::UNDEFINED,
        };
        Ok(())
    })
}

/// # Safety
/// `index` holds `nnodes` entries, `edges` `index[nnodes - 1]`; `newcomm` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Graph_create(
    comm: usize,
    nnodes: c_int,
    index: *const c_int,
    edges: *const c_int,
    _reorder: c_int,
    newcomm: *mut usize,
) -> c_int {
    entry("MPI_Graph_create", |c| {
        let idx = ints(index, nnodes)?;
        let ne = idx.last().copied().unwrap_or(0);
        let e = ints(edges, ne)?;
        if idx.windows(2).any(|w| w[1] < w[0]) || e.iter().any(|&x| x < 0 || x >= nnodes) {
            return Err((abi::err::ARG, "a graph with bad index or edges".into()));
        }
        let t = Topo::Graph { index: idx, edges: e };
        *newcomm = with_topo(c, comm, nnodes.max(0) as u64, t)? as usize;
        Ok(())
    })
}

/// The graph topology of `comm`, or MPI_ERR_TOPOLOGY.
fn graph(c: &Client, comm: usize) -> Result<(Vec<c_int>, Vec<c_int>), Failure> {
    c.comm(comm)?;
    match c.topos.get(&(comm as u64)) {
        Some(Topo::Graph { index, edges }) => Ok((index.clone(), edges.clone())),
        _ => Err((abi::err::TOPOLOGY, "the communicator has no graph topology".into())),
    }
}

/// # Safety
/// `nnodes` and `nedges` are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Graphdims_get(comm: usize, nnodes: *mut c_int, nedges: *mut c_int) -> c_int {
    entry("MPI_Graphdims_get", |c| {
        let (i, e) = graph(c, comm)?;
        *nnodes = i.len() as c_int;
        *nedges = e.len() as c_int;
        Ok(())
    })
}

/// # Safety
/// `index` holds `maxindex` entries and `edges` `maxedges`.
#[no_mangle]
pub unsafe extern "C" fn MPI_Graph_get(
    comm: usize,
    maxindex: c_int,
    maxedges: c_int,
    index: *mut c_int,
    edges: *mut c_int,
) -> c_int {
    entry("MPI_Graph_get", |c| {
        let (i, e) = graph(c, comm)?;
        for (k, x) in i.into_iter().enumerate().take(maxindex.max(0) as usize) {
            *index.add(k) = x;
        }
        for (k, x) in e.into_iter().enumerate().take(maxedges.max(0) as usize) {
            *edges.add(k) = x;
        }
        Ok(())
    })
}

/// The neighbors of node `r` of a graph.
fn neighbors(index: &[c_int], edges: &[c_int], r: c_int) -> Result<Vec<c_int>, Failure> {
    let r = usize::try_from(r)
        .ok()
        .filter(|&r| r < index.len())
        .ok_or((abi::err::RANK, format!("rank {r} is not a node")))?;
    let from = if r == 0 { 0 } else { index[r - 1] as usize };
    Ok(edges[from..index[r] as usize].to_vec())
}

/// # Safety
/// `n` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Graph_neighbors_count(comm: usize, rank: c_int, n: *mut c_int) -> c_int {
    entry("MPI_Graph_neighbors_count", |c| {
        let (i, e) = graph(c, comm)?;
        *n = neighbors(&i, &e, rank)?.len() as c_int;
        Ok(())
    })
}

/// # Safety
/// `out` holds `max` entries.
#[no_mangle]
pub unsafe extern "C" fn MPI_Graph_neighbors(comm: usize, rank: c_int, max: c_int, out: *mut c_int) -> c_int {
    entry("MPI_Graph_neighbors", |c| {
        let (i, e) = graph(c, comm)?;
        for (k, x) in neighbors(&i, &e, rank)?
            .into_iter()
            .enumerate()
            .take(max.max(0) as usize)
        {
            *out.add(k) = x;
        }
        Ok(())
    })
}

/// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY as the ABI defines them.
const UNWEIGHTED: usize = 4;
const WEIGHTS_EMPTY: usize = 5;

/// # Safety
/// As the MPI standard's.
#[no_mangle]
pub unsafe extern "C" fn MPI_Dist_graph_create_adjacent(
    comm: usize,
    indegree: c_int,
    sources: *const c_int,
    sourceweights: *const c_int,
    outdegree: c_int,
    dests: *const c_int,
    _destweights: *const c_int,
    _info: usize,
    _reorder: c_int,
    newcomm: *mut usize,
) -> c_int {
    entry("MPI_Dist_graph_create_adjacent", |c| {
        let size = c.comm(comm)?.size as c_int;
        let s = ints(sources, indegree)?;
        let d = ints(dests, outdegree)?;
        if s.iter().chain(&d).any(|&x| x < 0 || x >= size) {
            return Err((abi::err::RANK, "a neighbor outside the communicator".into()));
        }
        let weighted = !matches!(sourceweights as usize, UNWEIGHTED | WEIGHTS_EMPTY);
        let t = Topo::DistGraph {
            sources: s,
            dests: d,
            weighted,
        };
        *newcomm = with_topo(c, comm, size as u64, t)? as usize;
        Ok(())
    })
}

/// # Safety
/// `dims` holds `ndims` entries; `newrank` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Cart_map(
    comm: usize,
    ndims: c_int,
    dims: *const c_int,
    _periods: *const c_int,
    newrank: *mut c_int,
) -> c_int {
    entry("MPI_Cart_map", |c| {
        let cm = c.comm(comm)?;
        let d = ints(dims, ndims)?;
        if d.iter().any(|&x| x <= 0) {
            return Err((abi::err::DIMS, "a dimension of no node".into()));
        }
        let nodes: i64 = d.iter().map(|&x| i64::from(x)).product();
        if nodes > i64::from(cm.size) {
            return Err((abi::err::DIMS, format!("a grid of {nodes} nodes on {} ranks", cm.size)));
        }
        // Ranks keep their order (simpi does not reorder).
        *newrank = if i64::from(cm.rank) < nodes {
            cm.rank as c_int
        } else {
            abi::UNDEFINED
        };
        Ok(())
    })
}

/// # Safety
/// `newrank` is writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Graph_map(
    comm: usize,
    nnodes: c_int,
    _index: *const c_int,
    _edges: *const c_int,
    newrank: *mut c_int,
) -> c_int {
    entry("MPI_Graph_map", |c| {
        let cm = c.comm(comm)?;
        if nnodes < 0 || nnodes as u32 > cm.size {
            return Err((abi::err::ARG, format!("a graph of {nnodes} nodes on {} ranks", cm.size)));
        }
        *newrank = if (cm.rank as c_int) < nnodes {
            cm.rank as c_int
        } else {
            abi::UNDEFINED
        };
        Ok(())
    })
}

/// Every rank's `data` on `comm`, in rank order (an allgather of the sizes, then of
/// the data).
fn gather_all(c: &mut Client, comm: usize, data: Vec<u8>) -> Result<Vec<Vec<u8>>, Failure> {
    let index = c.comm(comm)?.index;
    let call = |kind, count, recv_counts, data| {
        Call::Collective(Collective {
            kind,
            comm: index,
            root: 0,
            op: 0,
            datatype: abi::BYTE,
            count,
            send_counts: Vec::new(),
            recv_counts,
            data,
            send_at: None,
            recv_at: None,
            persistent: None,
        })
    };
    let bad = || (abi::err::INTERN, "a short reply".to_string());
    let sizes = c.call(call(
        CollKind::Allgather,
        8,
        Vec::new(),
        (data.len() as u64).to_le_bytes().to_vec(),
    ));
    let sizes = sizes.into_iter().next().ok_or_else(bad)?.data;
    let counts: Vec<u64> = sizes
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
        .collect();
    let all = c.call(call(CollKind::Allgatherv, 0, counts.clone(), data));
    let all = all.into_iter().next().ok_or_else(bad)?.data;
    let mut out = Vec::with_capacity(counts.len());
    let mut at = 0usize;
    for n in counts {
        let piece = all.get(at..at + n as usize).ok_or_else(bad)?;
        out.push(piece.to_vec());
        at += n as usize;
    }
    Ok(out)
}

/// # Safety
/// As the MPI standard's: `sources` and `degrees` hold `n` entries, `destinations`
/// the sum of the degrees.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn MPI_Dist_graph_create(
    comm: usize,
    n: c_int,
    sources: *const c_int,
    degrees: *const c_int,
    destinations: *const c_int,
    weights: *const c_int,
    _info: usize,
    _reorder: c_int,
    newcomm: *mut usize,
) -> c_int {
    entry("MPI_Dist_graph_create", |c| {
        let cm = c.comm(comm)?;
        let size = cm.size as c_int;
        let me = cm.rank as c_int;
        let s = ints(sources, n)?;
        let deg = ints(degrees, n)?;
        if deg.iter().any(|&d| d < 0) {
            return Err((abi::err::ARG, "a negative degree".into()));
        }
        let total: c_int = deg.iter().sum();
        let d = ints(destinations, total)?;
        if s.iter().chain(&d).any(|&x| x < 0 || x >= size) {
            return Err((abi::err::RANK, "a node outside the communicator".into()));
        }
        // Each rank's edges, as (source, destination) pairs, go to every rank.
        let mut mine = Vec::with_capacity(8 * total as usize);
        let mut k = 0usize;
        for (i, &src) in s.iter().enumerate() {
            for _ in 0..deg[i] {
                mine.extend(src.to_le_bytes());
                mine.extend(d[k].to_le_bytes());
                k += 1;
            }
        }
        let all = gather_all(c, comm, mine)?;
        let (mut ins, mut outs) = (Vec::new(), Vec::new());
        for edges in &all {
            for e in edges.chunks_exact(8) {
                let src = c_int::from_le_bytes([e[0], e[1], e[2], e[3]]);
                let dst = c_int::from_le_bytes([e[4], e[5], e[6], e[7]]);
                if dst == me {
                    ins.push(src);
                }
                if src == me {
                    outs.push(dst);
                }
            }
        }
        let t = Topo::DistGraph {
            sources: ins,
            dests: outs,
            weighted: !matches!(weights as usize, UNWEIGHTED | WEIGHTS_EMPTY),
        };
        *newcomm = with_topo(c, comm, size as u64, t)? as usize;
        Ok(())
    })
}

/// The distributed graph of `comm` as this rank sees it.
fn dist(c: &Client, comm: usize) -> Result<(Vec<c_int>, Vec<c_int>, bool), Failure> {
    c.comm(comm)?;
    match c.topos.get(&(comm as u64)) {
        Some(Topo::DistGraph {
            sources,
            dests,
            weighted,
        }) => Ok((sources.clone(), dests.clone(), *weighted)),
        _ => Err((abi::err::TOPOLOGY, "the communicator has no distributed graph".into())),
    }
}

/// # Safety
/// The outputs are writable.
#[no_mangle]
pub unsafe extern "C" fn MPI_Dist_graph_neighbors_count(
    comm: usize,
    indegree: *mut c_int,
    outdegree: *mut c_int,
    weighted: *mut c_int,
) -> c_int {
    entry("MPI_Dist_graph_neighbors_count", |c| {
        let (s, d, w) = dist(c, comm)?;
        *indegree = s.len() as c_int;
        *outdegree = d.len() as c_int;
        *weighted = c_int::from(w);
        Ok(())
    })
}

/// # Safety
/// The arrays hold `maxin` and `maxout` entries (weights may be MPI_UNWEIGHTED).
#[no_mangle]
pub unsafe extern "C" fn MPI_Dist_graph_neighbors(
    comm: usize,
    maxin: c_int,
    sources: *mut c_int,
    _sourceweights: *mut c_int,
    maxout: c_int,
    dests: *mut c_int,
    _destweights: *mut c_int,
) -> c_int {
    entry("MPI_Dist_graph_neighbors", |c| {
        let (s, d, _) = dist(c, comm)?;
        for (k, x) in s.into_iter().enumerate().take(maxin.max(0) as usize) {
            *sources.add(k) = x;
        }
        for (k, x) in d.into_iter().enumerate().take(maxout.max(0) as usize) {
            *dests.add(k) = x;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_dimensions_are_as_mpi_dims_create_gives_them() {
        assert_eq!(balanced(12, 2), vec![4, 3]);
        assert_eq!(balanced(16, 3), vec![4, 2, 2]);
        assert_eq!(balanced(7, 2), vec![7, 1]);
        assert_eq!(balanced(36, 2), vec![6, 6]);
        assert_eq!(balanced(72, 2), vec![9, 8]);
        assert_eq!(balanced(5616, 4), vec![13, 9, 8, 6]);
        assert_eq!(balanced(64, 3), vec![4, 4, 4]);
        assert_eq!(balanced(1, 2), vec![1, 1]);
    }

    #[test]
    fn grid_ranks_and_coordinates_are_row_major_and_wrap_where_periodic() {
        let d = [2, 3];
        assert_eq!(coords_of(&d, 5), vec![1, 2]);
        assert_eq!(rank_at(&d, &[false, true], &[1, 3]), Some(3));
        assert_eq!(rank_at(&d, &[false, true], &[2, 0]), None);
    }
}
