//! From measurements to a preset: the hybrid model's thresholds, overheads and
//! piece-wise factors, and LogGOPS's parameters. The equations are the models' own
//! for one message on an idle route (docs/models.md), solved for their parameters:
//!
//! - hybrid, a detached message (`size < detached`): one-way time
//!   `os(size) + α(x)·L + x / (β(x)·B) + or(size)` with `x = size + envelope`, `L` the
//!   route's latency and `B` its narrowest bandwidth; a rendezvous message pays no
//!   overheads. `os` comes from the time in MPI_Send while the receiver is late, `or`
//!   from the time in MPI_Recv of a message already in; the rest of the one-way time
//!   is the network's, fitted per segment as `a + b·x`, so `α = a/L` and `β = 1/(b·B)`.
//! - LogGOPS, an eager message: `2o + L + (size-1)·max(O, G)` one way; the sender's
//!   CPU time `o + (size-1)·O`.

use super::measurements::{median, Kind, Measurements};
use super::segmented::{self, Bounds, Point, Segment};
use crate::preset_file::PresetFile;
use crate::Error;
use simpi_mpi::{Preset, Protocol};
use simpi_net::{FlowParams, LogGops, Piecewise};

/// A size's median time and its relative standard error.
type Median = (u64, f64, f64);

/// The route the measured pair of ranks used, as the platform describes it.
#[derive(Clone, Copy, Debug)]
pub struct Route {
    /// Sum of the route's link latencies, seconds.
    pub latency: f64,
    /// The route's narrowest link bandwidth, bytes per second.
    pub bandwidth: f64,
    /// The cores all ranks of the run share, if the platform says they run on one
    /// machine (`shared_cores`): what tells a waiting rank's claim on them.
    pub shared_cores: Option<u32>,
}

/// One fitted quantity: its measured medians and the fitted curve at each size.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    /// What was fitted (`send overhead os`, `one-way time`, ...).
    pub what: &'static str,
    /// (bytes, measured median seconds, fitted seconds).
    pub points: Vec<(u64, f64, f64)>,
    /// The sizes after which a new segment starts.
    pub breaks: Vec<u64>,
}

impl Fitted {
    /// Mean and worst |ln(fitted / measured)| over the points.
    pub fn errors(&self) -> (f64, f64) {
        let e: Vec<f64> = self
            .points
            .iter()
            .filter(|p| p.1 > 0.0 && p.2 > 0.0)
            .map(|p| (p.2 / p.1).ln().abs())
            .collect();
        if e.is_empty() {
            return (0.0, 0.0);
        }
        (
            e.iter().sum::<f64>() / e.len() as f64,
            e.iter().cloned().fold(0.0, f64::max),
        )
    }
}

/// A calibration: the preset file to write and how well each part fits.
#[derive(Clone, Debug)]
pub struct Calibration {
    /// The fitted preset.
    pub file: PresetFile,
    /// Each fit, with its residuals (the one-way time first).
    pub fits: Vec<Fitted>,
    /// What the fit could not measure and assumed instead.
    pub notes: Vec<String>,
}

/// The envelope added to every message: SMPI's, so that empty messages fall in the
/// first factor segment (SimGrid's factors apply to sizes strictly above a bound).
const ENVELOPE: u64 = 16;
/// Fewest sizes in one segment: two fix a line, the others check it.
const MIN_POINTS: usize = 4;
/// Most segments of the network's time in each protocol range, and of an overhead.
const MAX_SEGMENTS: usize = 4;
/// The largest bandwidth factor a fit may give.
const MAX_BW_FACTOR: f64 = 1.2;

/// Fits every model parameter to `m`, measured between two ranks joined by `route`.
pub fn fit(m: &Measurements, route: Route) -> Result<Calibration, Error> {
    let fail = |msg: String| Error::Input(format!("calibrate: {msg}"));
    if !(route.latency.is_finite() && route.latency > 0.0 && route.bandwidth.is_finite() && route.bandwidth > 0.0) {
        return Err(fail(
            "the measured route needs a positive latency and bandwidth in the platform".into(),
        ));
    }
    let ping = m.medians_with_errors(Kind::PingPong);
    let send = m.medians_with_errors(Kind::Send);
    let recv = m.medians_with_errors(Kind::Recv);
    let last = ping.last().map_or(0, |p| p.0);
    // Sends below `detached` returned before their receive; none waited: all did.
    let detached = m.detached.unwrap_or(last.saturating_add(1));
    let eager = |v: &[Median]| v.iter().copied().filter(|p| p.0 < detached).collect::<Vec<_>>();
    let (send_e, recv_e, ping_e) = (eager(&send), eager(&recv), eager(&ping));
    if send_e.len() < MIN_POINTS || recv_e.len() < MIN_POINTS {
        return Err(fail(format!(
            "{MIN_POINTS} sizes below the detached threshold ({detached} bytes) need send and recv samples; found {} and {}",
            send_e.len(),
            recv_e.len()
        )));
    }
    // A receive that takes more than half a one-way time did not find its message
    // in: it waited for the network (or, with a real MPI, for the sender's library to
    // push the data out at its next progress call). Such samples say nothing of the
    // receive overhead. If most eager sizes found their message in, eager messages
    // flow before their receive is posted (the asynchronous limit is the detached
    // one); otherwise the limit is the first size from which none did.
    // Half the quickest one-way time is the bound: a call that finds its message in
    // copies it, which no size makes as long as a trip across the network.
    let quickest = ping.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let found_in = |p: &Median| p.1 < 0.5 * quickest;
    let recv_early: Vec<Median> = recv_e.iter().copied().filter(found_in).collect();
    let async_small = if 2 * recv_early.len() >= recv_e.len() {
        detached
    } else {
        let last_in = recv_e.iter().rposition(found_in);
        last_in.map_or(0, |i| recv_e.get(i + 1).map_or(detached, |p| p.0))
    };
    let recv_early: Vec<Median> = recv_early.into_iter().filter(|p| p.0 < async_small).collect();
    // Likewise a send that took more than half a one-way time waited for something
    // (its receiver, or the network): not an overhead.
    let send_alone: Vec<Median> = send_e.iter().copied().filter(found_in).collect();
    let mut notes = Vec::new();
    let mut fits = Vec::new();
    let mut side = |v: &[Median], call: &str, what: &'static str| {
        if v.len() < MIN_POINTS {
            // On shared memory a call alone can take longer than half a ping-pong (a
            // cold cache, a wake-up): no overhead can be told from such samples.
            notes.push(format!(
                "only {} eager sizes spent less than half the quickest one-way time in {call}: its overhead is taken as 0",
                v.len()
            ));
            return Piecewise::default();
        }
        let (p, f) = overhead(v, what);
        fits.push(f);
        p
    };
    let os = side(&send_alone, "MPI_Send", "send overhead os (time in MPI_Send)");
    let or = side(
        &recv_early,
        "MPI_Recv",
        "receive overhead or (time in MPI_Recv, message in)",
    );

    // The network's part of each one-way time, in x = size + envelope.
    let protocol = Protocol {
        os,
        or,
        async_small,
        detached,
        envelope: ENVELOPE,
        eager_all: false,
        grow_test_costs: true,
        // The overheads were measured as time the MPI library spent on a CPU.
        cpu_overheads: true,
        busy_wait: spin_weight(m, route.shared_cores, &mut notes),
        stack_per_byte: 0.0,
        stack_per_message: 0.0,
        wake_delay: 0.0,
    };
    let net_time = |b: u64, t: f64| {
        // Noise can leave less than nothing: keep a sliver so relative errors exist.
        (t - overheads(&protocol, b)).max(0.01 * t)
    };
    let x = |b: u64| (b + ENVELOPE) as f64;
    // The overheads' errors are small beside the one-way time's: its error stands.
    let net_e: Vec<Point> = ping_e
        .iter()
        .map(|&(b, t, e)| (x(b), net_time(b, t), e * t / net_time(b, t)))
        .collect();
    let net_r: Vec<Point> = ping
        .iter()
        .filter(|p| p.0 >= detached)
        .map(|&(b, t, e)| (x(b), net_time(b, t), e))
        .collect();
    // A flow gets at most its narrowest link, give or take what the model misses: the
    // bandwidth factor stays at most MAX_BW_FACTOR (sizes too small to show their
    // slope reach that bound rather than an absurd one).
    let bounds = Bounds {
        a_min: 0.0,
        b_min: 1.0 / (MAX_BW_FACTOR * route.bandwidth),
    };
    let mut lat = Vec::new();
    let mut bw = Vec::new();
    let mut breaks = Vec::new();
    for (part, first_bound) in [(&net_e, 0u64), (&net_r, detached + ENVELOPE - 1)] {
        if part.is_empty() {
            continue;
        }
        let segs: Vec<Segment> = if part.len() < MIN_POINTS {
            let (a, b, _) = segmented::fit_line(part, bounds);
            vec![Segment {
                first: 0,
                last: part.len() - 1,
                a,
                b,
            }]
        } else {
            segmented::fit(part, MIN_POINTS, MAX_SEGMENTS, bounds)
        };
        for (i, s) in segs.iter().enumerate() {
            let bound = if i == 0 {
                first_bound
            } else {
                part[s.first - 1].0 as u64
            };
            if i > 0 || first_bound > 0 {
                breaks.push(bound - ENVELOPE.min(bound));
            }
            lat.push((bound, vec![s.a / route.latency]));
            bw.push((bound, vec![1.0 / (s.b * route.bandwidth)]));
        }
    }
    let network = FlowParams {
        lat_factor: Piecewise::from_segments(lat),
        bw_factor: Piecewise::from_segments(bw),
        weight_s: 0.0,
        tcp_gamma: None,
        cross_traffic: None,
        converging_loss: 0.0,
    };
    let mut preset = Preset { protocol, network };
    preset
        .validate()
        .map_err(|m| fail(format!("the fitted preset is invalid: {m}")))?;
    let model_one_way = |b: u64| {
        let p = &preset;
        let xb = b + ENVELOPE;
        overheads(&p.protocol, b)
            + p.network.lat_factor.factor(xb) * route.latency
            + xb as f64 / (p.network.bw_factor.factor(xb) * route.bandwidth)
    };
    let ping_fit = Fitted {
        what: "one-way time (half a ping-pong)",
        points: ping.iter().map(|&(b, t, _)| (b, t, model_one_way(b))).collect(),
        breaks,
    };
    // An exchange, one message each way at once: in the flow model each direction's
    // data shares its links with the other's reverse traffic, of weight c, so it takes
    // the one-way time plus c times its transfer time x / (beta B).
    let transfer = |b: u64| {
        let xb = b + ENVELOPE;
        xb as f64 / (preset.network.bw_factor.factor(xb) * route.bandwidth)
    };
    let bidir = m.medians(Kind::Bidir);
    let c = (!bidir.is_empty()).then(|| {
        let each: Vec<f64> = bidir
            .iter()
            .map(|&(b, t)| (t - model_one_way(b)) / transfer(b))
            .collect();
        median(&each).max(0.0)
    });
    let bidir_fit = c.map(|c| Fitted {
        what: "simultaneous exchange, one message each way",
        points: bidir
            .iter()
            .map(|&(b, t)| (b, t, model_one_way(b) + c * transfer(b)))
            .collect(),
        breaks: Vec::new(),
    });
    // In an all-to-all of n ranks each link carries n - 1 messages and their reverse
    // traffic: n - 1 transfer times, each longer by c, after the first's latency.
    let all_net = |b: u64, n: f64| model_one_way(b) + ((n - 1.0) * (1.0 + c.unwrap_or(0.0)) - 1.0) * transfer(b);
    let (stack, all_fit) = if m.medians(Kind::Ring).is_empty() {
        stack_work(m, route, preset.protocol.busy_wait, all_net, &mut notes)
    } else {
        (0.0, None)
    };
    preset.network.cross_traffic = c;
    preset.protocol.stack_per_byte = stack;
    // With a ring measured, the CPUs' part and the converging loss are fitted by
    // simulating both patterns (older files: the all-to-all alone, above).
    let moving = super::converging::fit(m, route, &mut preset, &mut notes)?.unwrap_or_default();

    let loggops = loggops(&send_alone, &ping_e, m, detached)?;
    let host_speed = (!m.flops.is_empty()).then(|| median(&m.flops));
    Ok(Calibration {
        file: PresetFile {
            preset,
            loggops: Some(loggops),
            host_speed,
        },
        fits: std::iter::once(ping_fit)
            .chain(fits)
            .chain(bidir_fit)
            .chain(all_fit)
            .chain(moving)
            .collect(),
        notes,
    })
}

/// A waiting rank's claim on shared cores relative to a working rank's, from rank 0's
/// kernel alone (`solo`, rate `r`) and while `k` ranks wait inside MPI (`spin`, rate
/// `s`) on `c` shared cores: processor sharing gives `s = r · min(1, c / (1 + w k))`,
/// so `w = (c r / s - 1) / k`, within 0 and 1. When it cannot be measured (no samples,
/// or the ranks have a core each), 1: Open MPI and MPICH spin by default.
fn spin_weight(m: &Measurements, cores: Option<u32>, notes: &mut Vec<String>) -> f64 {
    let (Some(c), false, false) = (cores, m.solo.is_empty(), m.spin.is_empty()) else {
        notes.push(
            "a waiting rank's claim on shared CPUs was not measured (run on a platform with shared_cores and more ranks than cores): busy_wait = 1, a spinning MPI".into(),
        );
        return 1.0;
    };
    // Runs merged from several launches may hold spins with different numbers of
    // waiting ranks: the most waiting say the most.
    let most = m.spin.iter().map(|p| p.0).max().unwrap_or(0);
    let k = most as f64;
    if k + 1.0 <= c as f64 {
        notes.push(format!(
            "{} ranks had {c} cores: a waiting rank's claim on them cannot show; busy_wait = 1, a spinning MPI",
            k + 1.0
        ));
        return 1.0;
    }
    let r = median(&m.solo);
    let s = median(&m.spin.iter().filter(|p| p.0 == most).map(|p| p.1).collect::<Vec<_>>());
    let w = ((c as f64 * r / s - 1.0) / k).clamp(0.0, 1.0);
    notes.push(format!(
        "rank 0's kernel ran at {:.3} of its speed while {k} ranks waited in MPI on {c} cores: busy_wait = {w:.3}",
        s / r
    ));
    w
}

/// How much slower than the network alone an all-to-all must be to say the CPUs held
/// it.
const CPU_BOUND: f64 = 1.05;

/// The network stack's CPU work per byte at each end of a message
/// (`Protocol::stack_per_byte`), from the all-to-all: `n` ranks on `C` shared cores
/// each send `x` bytes (size and envelope) to every other at once. In the model each
/// of the `n (n - 1)` messages gives two tasks of `k x` work, competing with the `n`
/// ranks waiting in MPI at weight `w`, so the CPUs finish them all after
/// `k x (2 n (n - 1) + n w) / C`; a message arrives when both its transfer (`net`) and
/// its tasks are done. An all-to-all slower than `net` by `CPU_BOUND` took the CPUs'
/// time: `k = T C / (x (2 n (n - 1) + n w))`, the median over such sizes. None slower:
/// the CPUs kept up; `k = 0`.
fn stack_work(
    m: &Measurements,
    route: Route,
    w: f64,
    net: impl Fn(u64, f64) -> f64,
    notes: &mut Vec<String>,
) -> (f64, Option<Fitted>) {
    // Rounds of small all-to-alls are `converging`'s; this fit takes the large blocks.
    let all: Vec<(u64, f64)> = m
        .medians(Kind::Alltoall)
        .into_iter()
        .filter(|r| r.0 >= super::converging::SMALL_BELOW)
        .collect();
    let (Some(cores), Some(n), false) = (route.shared_cores, m.ranks, all.is_empty()) else {
        notes.push(
            "moving bytes was not measured on shared CPUs (an all-to-all of more ranks than cores on a platform with shared_cores): stack_per_byte = 0".into(),
        );
        return (0.0, None);
    };
    if n <= cores as u64 {
        notes.push(format!(
            "an all-to-all of {n} ranks had {cores} cores: ranks with a core each share none, stack_per_byte = 0"
        ));
        return (0.0, None);
    }
    let nf = n as f64;
    let tasks = (2.0 * nf * (nf - 1.0) + nf * w) / cores as f64;
    let x = |b: u64| (b + ENVELOPE) as f64;
    let each: Vec<f64> = all
        .iter()
        .filter(|&&(b, t)| t > CPU_BOUND * net(b, nf))
        .map(|&(b, t)| t / (x(b) * tasks))
        .collect();
    let k = if each.is_empty() { 0.0 } else { median(&each) };
    notes.push(if each.is_empty() {
        format!("an all-to-all of {n} ranks on {cores} cores took the network's time: stack_per_byte = 0")
    } else {
        format!(
            "an all-to-all of {n} ranks on {cores} cores was held by the CPUs at {} of {} sizes: stack_per_byte = {k:.3e} s/B at each end ({:.1} MB/s of a core)",
            each.len(),
            all.len(),
            1e-6 / k
        )
    });
    let fitted = Fitted {
        what: "every rank sending to every other at once (all-to-all)",
        points: all
            .iter()
            .map(|&(b, t)| (b, t, net(b, nf).max(k * x(b) * tasks)))
            .collect(),
        breaks: Vec::new(),
    };
    (k, Some(fitted))
}

/// The software overheads a one-way message of `size` bytes pays: `os + or` if its send
/// is detached, none for a rendezvous.
fn overheads(p: &Protocol, size: u64) -> f64 {
    if p.is_detached(size) {
        p.os.overhead(size) + p.or.overhead(size)
    } else {
        0.0
    }
}

/// A software overhead `a + b·size` per segment, from medians by size.
fn overhead(v: &[Median], what: &'static str) -> (Piecewise, Fitted) {
    let pts: Vec<Point> = v.iter().map(|&(b, t, e)| (b as f64, t.max(1e-12), e)).collect();
    let segs = segmented::fit(&pts, MIN_POINTS, MAX_SEGMENTS, Bounds::NON_NEGATIVE);
    let mut pieces = Vec::new();
    let mut breaks = Vec::new();
    for (i, s) in segs.iter().enumerate() {
        // The first formula applies below its bound too (SimGrid's rule for overheads).
        let bound = if i == 0 { 0 } else { v[s.first - 1].0 };
        if i > 0 {
            breaks.push(bound);
        }
        pieces.push((bound, vec![s.a, s.b]));
    }
    let p = Piecewise::from_segments(pieces);
    let fitted = Fitted {
        what,
        points: v.iter().map(|&(b, t, _)| (b, t, p.overhead(b))).collect(),
        breaks,
    };
    (p, fitted)
}

/// LogGOPS from the eager sizes: `o` and `O` from the line of the sender's time (LogGOPS
/// charges the receiver the same), `L` and `G` from the one-way line, `g` from the
/// stream (a stream's messages follow each other by `max(o, g)`, so a gap below `o`
/// does not show), `S` the largest eager size.
fn loggops(send: &[Median], ping: &[Median], m: &Measurements, detached: u64) -> Result<LogGops, Error> {
    // Lines in size - 1, the bytes LogGOPS charges per byte, on relative errors (one
    // line cannot follow every bend: no point should weigh more for being precise).
    let line = |v: &[Median]| {
        let pts: Vec<Point> = v
            .iter()
            .filter(|p| p.0 >= 1)
            .map(|&(b, t, _)| ((b - 1) as f64, t.max(1e-12), 1.0))
            .collect();
        if pts.len() < 2 {
            return None;
        }
        let (a, b, _) = segmented::fit_line(&pts, Bounds::NON_NEGATIVE);
        Some((a, b))
    };
    let too_few =
        || Error::Input("calibrate: LogGOPS needs two sizes of at least one byte below the detached threshold".into());
    // No send measurable as an overhead (see the note): no overhead.
    let (o, big_o) = line(send).unwrap_or((0.0, 0.0));
    let (pa, pb) = line(ping).ok_or_else(too_few)?;
    let l = (pa - 2.0 * o).max(0.0);
    let g = m
        .times
        .get(&Kind::Gap)
        .and_then(|by_size| by_size.iter().next())
        .map_or(o, |(_, v)| median(v));
    // Within range by the reader's bounds on sizes and times; checked all the same, as
    // a time past the clock must not become its largest value.
    let ps = |name: &str, s: f64| {
        let v = (s * 1e12).round();
        if v.is_finite() && v >= 0.0 && v < u64::MAX as f64 {
            Ok(v as u64)
        } else {
            Err(Error::Input(format!(
                "calibrate: the fitted LogGOPS {name} = {s} s is beyond simulated time's range"
            )))
        }
    };
    Ok(LogGops {
        l: ps("L", l)?,
        o: ps("o", o)?,
        g: ps("g", g)?,
        big_g: ps("G", pb)?,
        big_o: ps("O", big_o)?,
        s: detached.saturating_sub(1),
    })
}
