//! The CPU work of moving messages (`Protocol::stack_per_message` and `stack_per_byte`)
//! and the loss of links under converging flows (`FlowParams::converging_loss`), fitted
//! by simulating the measurement program's rings and all-to-all with simpi's own engine
//! on a machine like the measured one (`n` hosts of the measured route, sharing its
//! cores).
//!
//! A token passed around the ranks (one message in flight, the others waiting) gives
//! the delay before a waiting rank on shared cores notices its message
//! (`Protocol::wake_delay`). Rounds of 8-byte all-to-alls in a row (many small
//! messages at once, whose bytes hardly count) give the work per message
//! (`stack_per_message`); both slow both patterns, so the two are fitted in turn,
//! twice. A ring (every rank
//! sends to the next at once) converges nothing: what rings of 64 KiB to 1 MiB cost
//! beyond the network and that is the shared CPUs' work per byte. The large all-to-all
//! costs more still where `n - 1` hosts' streams converge on every port: that excess
//! gives `converging_loss`. Each is found per size by bisection on the simulated
//! time (which grows with both) and the median over sizes is taken. Simulating, rather
//! than a closed form, keeps the fit exact for whatever the engine does when CPUs and
//! links both bind.

use super::fit::{Fitted, Route};
use super::measurements::{median, Kind, Measurements};
use crate::workload::{Body, Workload};
use crate::{simulate, Error, Model, SimOptions};
use simpi_kernel::TimeUnit;
use simpi_mpi::protocol::MAX_WAKE_DELAY;
use simpi_mpi::Preset;
use simpi_platform::cluster::{cluster_platform, ClusterSpec};
use simpi_platform::{HostId, Platform};

/// How much slower than with no CPU work a ring must be to say the CPUs held it.
const CPU_BOUND: f64 = 1.05;

/// Patterns below this size are timed as rounds in a row (the measurement program's
/// `SMALL_ROUNDS`), each its mean round; from it on, as one round.
pub(crate) const SMALL_BELOW: u64 = 65536;
const ROUNDS: u32 = 20;

/// Bisection steps: the bracket shrinks 2^40-fold, far below the measurements' noise.
const STEPS: u32 = 40;

/// The largest values tried: a core moving a byte in 10 us, a message costing a
/// second, a link delivering 1/694 of its bandwidth to two hosts' flows.
const MAX_STACK: f64 = 1e-5;
const MAX_MESSAGE: f64 = 1.0;
const MAX_LOSS: f64 = 1e3;

/// The most ranks whose patterns are simulated: a small all-to-all's 20 rounds make
/// 20 n (n - 1) messages per simulation (325,000 at 128), and a fit runs about 50
/// simulations per size; ranks that share one machine's cores are far fewer.
const MAX_RANKS: u32 = 128;

/// The measured machine as the fit sees it: `n` hosts on a flat switch whose host
/// links give the measured route (its latency split over the two links), sharing the
/// measured cores.
fn machine(n: u32, route: Route) -> Result<Platform, Error> {
    let spec = ClusterSpec::flat("calibration", u64::from(n), 1e9, route.bandwidth, route.latency / 2.0);
    let mut p = cluster_platform(&spec).map_err(|e| Error::Input(format!("calibrate: {e}")))?;
    p.set_shared_cores(route.shared_cores);
    Ok(p)
}

/// The GOAL schedule of the measurement program's ring (`all` false) or all-to-all of
/// `n` ranks, `b` bytes per message, every message of a round posted at once; below
/// `SMALL_BELOW`, `ROUNDS` rounds, each after the rank's last one's messages.
fn pattern(all: bool, n: u32, b: u64) -> String {
    let mut g = format!("num_ranks {n}\n");
    let peers = if all { n - 1 } else { 1 };
    let rounds = if b < SMALL_BELOW { ROUNDS } else { 1 };
    for r in 0..n {
        g += &format!("rank {r} {{\n");
        for k in 0..rounds {
            for i in 1..=peers {
                g += &format!(
                    "s{k}_{i}: send {b}b to {} tag 0\nr{k}_{i}: recv {b}b from {} tag 0\n",
                    (r + i) % n,
                    (r + n - i) % n
                );
            }
            // A round starts once the last one's messages are done: one marker waits
            // for them, the next round's messages wait for it.
            if k + 1 < rounds {
                g += &format!("d{k}: calc 0\n");
                for i in 1..=peers {
                    g += &format!("d{k} requires s{k}_{i}\nd{k} requires r{k}_{i}\n");
                }
            }
            if k > 0 {
                for i in 1..=peers {
                    g += &format!("s{k}_{i} requires d{}\nr{k}_{i} requires d{}\n", k - 1, k - 1);
                }
            }
        }
        g += "}\n";
    }
    g
}

/// Laps of the measurement program's token (`TOKEN_LAPS`).
const LAPS: u32 = 10;

/// The GOAL schedule of the measurement program's token: `b` bytes passed from each of
/// `n` ranks to the next, `LAPS` times around; each rank sends once it has received
/// (rank 0 first sends, then receives).
fn token(n: u32, b: u64) -> String {
    let mut g = format!("num_ranks {n}\n");
    for r in 0..n {
        let (next, prev) = ((r + 1) % n, (r + n - 1) % n);
        g += &format!("rank {r} {{\n");
        for k in 0..LAPS {
            g += &format!("s{k}: send {b}b to {next} tag 0\nr{k}: recv {b}b from {prev} tag 0\n");
            match (r, k) {
                (0, 0) => g += "r0 requires s0\n",
                (0, _) => g += &format!("s{k} requires r{}\nr{k} requires s{k}\n", k - 1),
                (_, 0) => g += &format!("s{k} requires r{k}\n"),
                _ => g += &format!("s{k} requires r{k}\nr{k} requires s{}\n", k - 1),
            }
        }
        g += "}\n";
    }
    g
}

/// The simulated time per hop of the token, seconds.
fn hop(p: &Platform, n: u32, b: u64, preset: &Preset) -> Result<f64, Error> {
    Ok(simulated(p, n, &token(n, b), preset)? / f64::from(LAPS * n))
}

/// The slowest rank's simulated time, seconds (of one round, for a small ring).
fn measure(p: &Platform, n: u32, all: bool, b: u64, preset: &Preset) -> Result<f64, Error> {
    let t = simulated(p, n, &pattern(all, n, b), preset)?;
    Ok(if b < SMALL_BELOW { t / f64::from(ROUNDS) } else { t })
}

/// The slowest rank's simulated time, seconds.
fn simulated(p: &Platform, n: u32, goal: &str, preset: &Preset) -> Result<f64, Error> {
    let schedule = simpi_trace::read_goal(goal.as_bytes(), "calibration", TimeUnit::Ns)?;
    let mut w = Workload {
        path: "calibration".into(),
        format: None,
        unit: TimeUnit::Ns,
        body: Body::Schedule(schedule),
        options: None,
        calls: None,
        warnings: Vec::new(),
        load_seconds: 0.0,
    };
    let model = Model::Flow {
        platform: p,
        hosts: (0..n).map(HostId).collect(),
        preset: preset.clone(),
    };
    let quiet = SimOptions {
        progress: None,
        max_blocked_ranks: 8,
        record: false,
    };
    let r = simulate(&mut w, &model, quiet)?;
    Ok(r.end_times.iter().map(|t| t.as_secs_f64()).fold(0.0, f64::max))
}

/// The value in `0..=max` at which `time(value)` reaches `want` (increasing in value);
/// 0 if it is reached at 0; `None` if not even `max` reaches it.
fn solve(want: f64, max: f64, mut time: impl FnMut(f64) -> Result<f64, Error>) -> Result<Option<f64>, Error> {
    if time(0.0)? >= want {
        return Ok(Some(0.0));
    }
    // Grow the bracket from a small value: most answers are far below `max`.
    let mut hi = max * 1e-6;
    while hi < max && time(hi)? < want {
        hi *= 10.0;
    }
    if hi >= max && time(max)? < want {
        return Ok(None);
    }
    let (mut lo, mut hi) = (0.0, hi.min(max));
    for _ in 0..STEPS {
        let mid = 0.5 * (lo + hi);
        if time(mid)? < want {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(Some(0.5 * (lo + hi)))
}

/// The value that makes each measured pattern (all-to-all or ring, size, time) take
/// its measured time in simulation (`time(all, size, value)`: the preset with that
/// value), the median over patterns; with `only_held`, patterns no slower than
/// `CPU_BOUND` times their time at 0 are left out. A pattern slower than `max` makes it
/// counts as `max`, and `notes` says how many did.
fn fit_each(
    rows: &[(bool, u64, f64)],
    only_held: bool,
    max: f64,
    name: &str,
    notes: &mut Vec<String>,
    time: impl Fn(bool, u64, f64) -> Result<f64, Error>,
) -> Result<Each, Error> {
    let mut each = Vec::new();
    let mut beyond = 0;
    for &(all, b, t) in rows {
        if only_held && t <= CPU_BOUND * time(all, b, 0.0)? {
            continue;
        }
        each.push(solve(t, max, |v| time(all, b, v))?.unwrap_or_else(|| {
            beyond += 1;
            max
        }));
    }
    if beyond > 0 {
        notes.push(format!(
            "{beyond} of {} patterns are slower than {name} = {max:e} (its largest) makes them: counted at that; the model cannot explain them",
            each.len()
        ));
    }
    let value = if each.is_empty() { 0.0 } else { median(&each) };
    Ok(Each {
        value,
        used: each.len(),
    })
}

/// What [`fit_each`] found.
struct Each {
    /// The median of the patterns' values.
    value: f64,
    /// How many patterns gave one.
    used: usize,
}

/// Fits `wake_delay` from the token and `stack_per_message` from the small patterns,
/// `stack_per_byte` from the large rings and then `converging_loss` from the large
/// all-to-all into `preset`, with the fits' points;
/// None if the measurements have no ring (older files: the caller fits the all-to-all
/// alone).
pub(crate) fn fit(
    m: &Measurements,
    route: Route,
    preset: &mut Preset,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<Fitted>>, Error> {
    let ring = m.medians(Kind::Ring);
    if ring.is_empty() {
        if m.times.contains_key(&Kind::Token) {
            notes.push("a token was passed but no ring was measured: wake_delay = 0".into());
        }
        return Ok(None);
    }
    let Some(n) = m.ranks else {
        notes.push("rings were measured but no `ranks` line says how many ranks ran them: stack_per_message = stack_per_byte = converging_loss = 0".into());
        return Ok(Some(Vec::new()));
    };
    let n = u32::try_from(n)
        .ok()
        .filter(|&n| (3..=MAX_RANKS).contains(&n))
        .ok_or_else(|| {
            Error::Input(format!(
                "{}: rings and all-to-alls of {n} ranks: the fit simulates 3 to {MAX_RANKS}",
                m.ranks_at.as_deref().unwrap_or("calibrate")
            ))
        })?;
    let p = machine(n, route)?;
    let all = m.medians(Kind::Alltoall);
    // (all-to-all, size, time) of one kind, sizes below SMALL_BELOW or from it on.
    let part = |v: &[(u64, f64)], kind: bool, small: bool| -> Vec<(bool, u64, f64)> {
        v.iter()
            .filter(|r| (r.0 < SMALL_BELOW) == small)
            .map(|&(b, t)| (kind, b, t))
            .collect()
    };
    let small: Vec<(bool, u64, f64)> = part(&all, true, true)
        .into_iter()
        .chain(part(&ring, false, true))
        .collect();
    let large = part(&ring, false, false);
    let large_all = part(&all, true, false);
    preset.protocol.wake_delay = 0.0;
    preset.protocol.stack_per_message = 0.0;
    preset.protocol.stack_per_byte = 0.0;
    preset.network.converging_loss = 0.0;
    let shared = route.shared_cores.is_some_and(|c| u64::from(n) > u64::from(c));
    if !shared {
        notes.push(format!(
            "rings of {n} ranks had a core each (or no shared_cores): wake_delay = stack_per_message = stack_per_byte = 0"
        ));
    } else {
        // The wake-up delay and the work per message both slow the token and the small
        // rounds: each is fitted with the other's last value, twice over (one pass left
        // the recovery test's delay 4 % off; two bring all four within 2 %), and only
        // the last pass's notes are kept. Without a token one pass is the answer.
        let tokens: Vec<(bool, u64, f64)> = m.medians(Kind::Token).into_iter().map(|(b, t)| (false, b, t)).collect();
        let passes = if tokens.is_empty() { 1 } else { 2 };
        let (mut w, mut c, mut held) = (0.0, 0.0, 0);
        for pass in 0..passes {
            let mut scratch = Vec::new();
            let said = if pass + 1 == passes { &mut *notes } else { &mut scratch };
            let base = preset.clone();
            w = fit_each(&tokens, false, MAX_WAKE_DELAY, "wake_delay", said, |_, b, w| {
                let mut q = base.clone();
                q.protocol.wake_delay = w;
                hop(&p, n, b, &q)
            })?
            .value;
            preset.protocol.wake_delay = w;
            let base = preset.clone();
            Each { value: c, used: held } =
                fit_each(&small, true, MAX_MESSAGE, "stack_per_message", said, |all, b, c| {
                    let mut q = base.clone();
                    q.protocol.stack_per_message = c;
                    measure(&p, n, all, b, &q)
                })?;
            preset.protocol.stack_per_message = c;
        }
        notes.push(match tokens.first() {
            None => "no token was passed around the ranks: wake_delay = 0".into(),
            Some(&(_, b, t)) => format!(
                "a {b}-byte token passed around {n} ranks took {:.1} us a hop: wake_delay = {:.1} us",
                t * 1e6,
                w * 1e6
            ),
        });
        notes.push(format!(
            "rounds of {n} ranks' messages below 64 KiB were held by the CPUs in {held} of {} patterns: stack_per_message = {:.3} us at each end",
            small.len(),
            c * 1e6
        ));
        let base = preset.clone();
        let Each { value: k, used: held } = fit_each(&large, true, MAX_STACK, "stack_per_byte", notes, |all, b, k| {
            let mut q = base.clone();
            q.protocol.stack_per_byte = k;
            measure(&p, n, all, b, &q)
        })?;
        preset.protocol.stack_per_byte = k;
        notes.push(format!(
            "rings of {n} ranks were held by the CPUs at {held} of {} sizes of 64 KiB and more: stack_per_byte = {k:.3e} s/B at each end",
            large.len()
        ));
    }
    let base = preset.clone();
    let loss = fit_each(&large_all, false, MAX_LOSS, "converging_loss", notes, |all, b, l| {
        let mut q = base.clone();
        q.network.converging_loss = l;
        measure(&p, n, all, b, &q)
    })?
    .value;
    preset.network.converging_loss = loss;
    notes.push(if large_all.is_empty() {
        "no all-to-all was measured: converging_loss = 0".into()
    } else {
        format!(
            "an all-to-all of {n} ranks, {} hosts converging on each port: converging_loss = {loss:.3} (each port delivers 1 / {:.3} of its bandwidth)",
            n - 1,
            1.0 + loss * f64::from(n - 1).ln()
        )
    });
    let mut fits = Vec::new();
    let tokens = m.medians(Kind::Token);
    if !tokens.is_empty() {
        let mut points = Vec::new();
        for &(b, t) in &tokens {
            points.push((b, t, hop(&p, n, b, preset)?));
        }
        fits.push(Fitted {
            what: "a token passed around the ranks (time per hop)",
            points,
            breaks: Vec::new(),
        });
    }
    for (kind, what, rows) in [
        (
            false,
            "every rank sending to the next at once (ring; below 64 KiB, one of 20 rounds)",
            &ring,
        ),
        (
            true,
            "every rank sending to every other at once (all-to-all; below 64 KiB, one of 20 rounds)",
            &all,
        ),
    ] {
        let mut points = Vec::new();
        for &(b, t) in rows.iter() {
            points.push((b, t, measure(&p, n, kind, b, preset)?));
        }
        if !points.is_empty() {
            fits.push(Fitted {
                what,
                points,
                breaks: Vec::new(),
            });
        }
    }
    Ok(Some(fits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bisection_finds_the_root_of_an_increasing_time() {
        // time(v) = 1 + 3 v reaches 4 at v = 1, 1 at 0; never reaches 1e9 within 100.
        let f = |v: f64| Ok(1.0 + 3.0 * v);
        assert!((solve(4.0, 100.0, f).unwrap().unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(solve(1.0, 100.0, f).unwrap(), Some(0.0));
        assert_eq!(solve(1e9, 100.0, f).unwrap(), None);
        // Reached exactly at the largest value: found, not refused.
        assert!((solve(301.0, 100.0, f).unwrap().unwrap() - 100.0).abs() < 1e-6);
    }

    #[test]
    fn patterns_the_largest_value_cannot_explain_are_counted_at_it_and_said() {
        // time = 1 + v: patterns of 3 and 5 s give 2 and 4; one of 1000 s is beyond 10.
        let rows = [(true, 1, 3.0), (true, 2, 5.0), (true, 3, 1000.0)];
        let mut notes = Vec::new();
        let e = fit_each(&rows, false, 10.0, "x", &mut notes, |_, _, v| Ok(1.0 + v)).unwrap();
        assert_eq!(e.used, 3);
        assert!((e.value - 4.0).abs() < 1e-9, "median of 2, 4 and 10: {}", e.value);
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0].starts_with("1 of 3 patterns are slower than x = 1e1"),
            "{}",
            notes[0]
        );
        let mut notes = Vec::new();
        fit_each(&rows[..2], false, 10.0, "x", &mut notes, |_, _, v| Ok(1.0 + v)).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn patterns_post_every_message_once() {
        let ring = pattern(false, 3, 1 << 20);
        assert!(ring.contains("rank 0 {\ns0_1: send 1048576b to 1 tag 0\nr0_1: recv 1048576b from 2 tag 0\n}"));
        assert_eq!(pattern(true, 4, 65536).matches("recv").count(), 12);
        let large = pattern(false, 3, 65536);
        assert_eq!(large.matches("send").count(), 3);
        // A small all-to-all: 20 rounds, each after the last's messages.
        let small = pattern(true, 3, 8);
        assert_eq!(small.matches("send").count(), 120);
        assert!(small.contains("d18 requires s18_2\nd18 requires r18_2\n"));
        assert!(small.contains("s19_1 requires d18\nr19_1 requires d18\n"));
        assert!(!small.contains("d19"));
    }
}
