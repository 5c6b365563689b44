//! Flow-level network: each message is a flow over its route. A flow first waits the
//! route latency (times the latency factor), then transfers its bytes at a rate given by
//! weighted max-min sharing of the links it crosses (times the bandwidth factor).
//! Shares are recomputed, for the affected part of the network only, whenever a flow
//! starts transferring or ends. Times are picoseconds; rates are computed in floating
//! point and each event time is rounded to the nearest picosecond here, and only here.

use crate::flow_params::FlowParams;
use crate::model::{LinkLoad, NetworkModel, Token};
use crate::Error;
use simpi_kernel::{EventQueue, IdHashMap, SimTime};
use simpi_maxmin::{CnstId, Policy as MmPolicy, System, VarId};
use simpi_platform::{HostId, Platform, PlatformError, Policy};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Links of a route kept inline: a cluster's up, backbone and down links, both ways
/// with cross-traffic, fit.
const INLINE_LINKS: usize = 8;

/// What the model needs of a route to start a transfer, in one cache line: every
/// message reads its route's, and with thousands of ranks they are rarely in cache.
#[repr(align(64))]
struct RouteInfo {
    /// The flow's max-min weight (SMPI's latency-and-bandwidth penalty, or 1).
    weight: f64,
    /// The flow's rate bound (the slowest link, or TCP's window limit).
    bound: Option<f64>,
    /// Constraint ids of the forward links, then of the backward ones (cross-traffic);
    /// if `spilled`, `links[0]` is where they start in the network's `spilled_links`.
    links: [u32; INLINE_LINKS],
    n_fwd: u8,
    n_back: u8,
    spilled: bool,
}

impl RouteInfo {
    /// Its constraint ids, forward links first, kept inline or in `spilled` (the
    /// network's `spilled_links`).
    fn links<'a>(&'a self, spilled: &'a [u32]) -> &'a [u32] {
        let n = self.n_fwd as usize + self.n_back as usize;
        if self.spilled {
            let at = self.links[0] as usize;
            &spilled[at..at + n]
        } else {
            &self.links[..n]
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Phase {
    Latency,
    Transfer,
    Done,
}

struct Flow {
    token: Token,
    phase: Phase,
    remaining: f64,
    rate: f64,
    last: u64,
    bw_factor: f64,
    /// Index into the network's route table.
    route: u32,
    var: Option<VarId>,
    /// Timed with the network's [`Group`] instead of by its own event.
    grouped: bool,
}

/// The flows of a component whose one bottleneck sets every rate (the max-min solver's
/// shortcut): each runs at `level · c` with its own constant `c` (bandwidth factor over
/// weight), so they are timed together, as processor sharing: `work` is the integral of
/// the level, and a flow ends when `work` reaches its key (`work` when it joined plus
/// its remaining bytes over `c`). A change of level then costs one event, not one per
/// flow.
struct Group {
    cnst: CnstId,
    level: f64,
    work: f64,
    /// When `work` was last brought up to date (ps).
    last: u64,
    /// (key bits, flow): keys are non-negative, so their bits order as they do.
    ends: BinaryHeap<Reverse<(u64, u32)>>,
}

impl Group {
    /// Brings `work` up to `t` at the current level.
    fn advance_to(&mut self, t: u64) {
        self.work += self.level * (t - self.last) as f64 * 1e-12;
        self.last = t;
    }
}

/// The group's entry in the event queue, in place of a flow id.
const GROUP: u32 = u32::MAX;

/// Whether event entry `(flow, version)` is current: a flow's (or the group's) entry goes
/// stale when it is re-timed.
fn is_live(version: &[u32], group_version: u32, &(f, v): &(u32, u32)) -> bool {
    if f == GROUP {
        v == group_version
    } else {
        version[f as usize] == v
    }
}

/// Picoseconds until `remaining` bytes are through at `rate` (0 if nothing is left or the
/// rate is unbounded).
fn time_left(remaining: f64, rate: f64) -> u64 {
    if remaining <= 0.0 || rate.is_infinite() {
        0
    } else {
        SimTime::from_secs_f64(remaining / rate).ps()
    }
}

/// The max-min coefficients of a flow over a route's links (`n_fwd` forward ones, then
/// backward ones): forward links carry the flow, backward ones its acknowledgements'
/// share (`cross_traffic`).
fn route_elems(links: &[u32], n_fwd: usize, cross_traffic: Option<f64>) -> impl Iterator<Item = (CnstId, f64)> + '_ {
    let back = cross_traffic.unwrap_or(0.0);
    // A cross traffic of 0 loads the reverse links with nothing: they are left out, as
    // without cross traffic (the solver takes positive coefficients only).
    let links = if back > 0.0 {
        links
    } else {
        &links[..n_fwd.min(links.len())]
    };
    links
        .iter()
        .enumerate()
        .map(move |(k, &c)| (CnstId(c), if k < n_fwd { 1.0 } else { back }))
}

/// A flow's rate per unit of its group's level: its bandwidth factor over its weight.
fn rate_per_level(fl: &Flow, routes: &[RouteInfo]) -> f64 {
    fl.bw_factor / routes[fl.route as usize].weight
}

/// A network of flows over a platform.
pub struct FlowNetwork<'p> {
    platform: &'p Platform,
    params: FlowParams,
    sys: System,
    cnst: std::collections::HashMap<u32, CnstId>,
    /// Routes by `src << 32 | dst`, computed on first use.
    /// Route index and latency by `src << 32 | dst` (the latency beside the index: a
    /// message start needs nothing else).
    routes: IdHashMap<u64, (u32, f64)>,
    /// The routes seen so far, indexed by the values of `routes`.
    route_info: Vec<RouteInfo>,
    /// Each route's max-min cap (`System::cap_of`), beside `route_info` to keep that
    /// in one cache line.
    route_cap: Vec<f64>,
    /// Links of routes too long to keep inline.
    spilled_links: Vec<u32>,
    /// Bytes sent over each route (for the links' loads).
    route_bytes: Vec<u64>,
    /// Scratch: the constraints and coefficients of a flow being added.
    elems: Vec<(CnstId, f64)>,
    /// Scratch: the variables a solve changed.
    changed: Vec<VarId>,
    flows: Vec<Flow>,
    free: Vec<u32>,
    var_flow: Vec<u32>,
    /// Flows' next events as (flow, version), in (time, when set) order. Re-timing a
    /// flow pushes a new entry and bumps its version: the old entry, now stale, is
    /// dropped when it comes up (cheaper than moving entries in a keyed heap).
    events: EventQueue<(u32, u32)>,
    /// Each flow slot's current event version.
    version: Vec<u32>,
    active: usize,
    group: Option<Group>,
    /// The group's current event version.
    group_version: u32,
    /// Whether single-bottleneck components are timed as a group.
    grouping: bool,
    /// Flows that joined the sharing since the last re-share.
    joined: Vec<u32>,
    /// Re-shares that updated a group instead of re-timing flows one by one.
    group_updates: u64,
    /// With a converging loss: each constraint's bandwidth as the platform gives it
    /// (NaN for a fat pipe, which keeps it), from how many source hosts it carries
    /// flows in transfer forward, each route's source host, and the flows in transfer
    /// by (constraint, source host).
    nominal: Vec<f64>,
    sources: Vec<u32>,
    route_src: Vec<u32>,
    from_source: IdHashMap<u64, u32>,
    /// [`NetworkModel::next_time`]'s answer until the next start or advance: the engine
    /// asks after every event, and most events do not touch the network.
    next: Option<Option<SimTime>>,
}

impl<'p> FlowNetwork<'p> {
    /// A network over `platform` with the model `params`.
    pub fn new(platform: &'p Platform, params: FlowParams) -> FlowNetwork<'p> {
        let sys = System::new();
        let cnst = std::collections::HashMap::new();
        FlowNetwork {
            platform,
            params,
            sys,
            cnst,
            routes: IdHashMap::default(),
            route_info: Vec::new(),
            route_cap: Vec::new(),
            spilled_links: Vec::new(),
            route_bytes: Vec::new(),
            elems: Vec::new(),
            changed: Vec::new(),
            flows: Vec::new(),
            free: Vec::new(),
            var_flow: Vec::new(),
            events: EventQueue::new(),
            version: Vec::new(),
            active: 0,
            group: None,
            group_version: 0,
            grouping: true,
            joined: Vec::new(),
            group_updates: 0,
            nominal: Vec::new(),
            sources: Vec::new(),
            route_src: Vec::new(),
            from_source: IdHashMap::default(),
            next: None,
        }
    }

    /// The same network with flows of a single-bottleneck component timed one by one
    /// (`false`) or as a group (`true`, the default); the tests compare both.
    pub fn with_grouping(mut self, on: bool) -> FlowNetwork<'p> {
        self.grouping = on;
        self
    }

    /// How many re-shares updated a group of flows instead of re-timing them one by one.
    pub fn group_updates(&self) -> u64 {
        self.group_updates
    }

    /// The model's parameters.
    pub fn params(&self) -> &FlowParams {
        &self.params
    }

    fn constraint(&mut self, l: simpi_platform::LinkId) -> CnstId {
        if let Some(&c) = self.cnst.get(&l.0) {
            return c;
        }
        let policy = match self.platform.link_policy(l) {
            Policy::Shared => MmPolicy::Shared,
            Policy::Fatpipe => MmPolicy::Fatpipe,
        };
        let bandwidth = self.platform.link_bandwidth(l);
        let c = self.sys.add_constraint(bandwidth, policy);
        self.cnst.insert(l.0, c);
        if self.params.converging_loss > 0.0 {
            self.nominal.push(if policy == MmPolicy::Shared {
                bandwidth
            } else {
                f64::NAN
            });
            self.sources.push(0);
        }
        c
    }

    fn route(&mut self, src: HostId, dst: HostId) -> Result<(u32, f64), Error> {
        let key = (src.0 as u64) << 32 | dst.0 as u64;
        if let Some(&r) = self.routes.get(&key) {
            return Ok(r);
        }
        let fwd = self.platform.route(src, dst)?;
        let mut links: Vec<u32> = fwd.links.iter().map(|&l| self.constraint(l).0).collect();
        let n_fwd = links.len();
        if self.params.cross_traffic.is_some() {
            let back = self.platform.route(dst, src)?;
            let v: Vec<u32> = back.links.iter().map(|&l| self.constraint(l).0).collect();
            links.extend(v);
        }
        let p = &self.params;
        let latency = fwd.latency;
        let penalty = latency
            + fwd
                .links
                .iter()
                .map(|&l| p.weight_s / self.platform.link_bandwidth(l))
                .sum::<f64>();
        let min_bw = fwd
            .links
            .iter()
            .map(|&l| self.platform.link_bandwidth(l))
            .fold(f64::INFINITY, f64::min);
        let weight = if p.weight_s == 0.0 || latency == 0.0 {
            1.0
        } else {
            penalty
        };
        let bound = match p.tcp_gamma {
            Some(g) if latency > 0.0 => Some(min_bw.min(g / (2.0 * latency))),
            Some(_) => Some(min_bw),
            None => None,
        };
        let too_long = |n: usize| n > u8::MAX as usize;
        if too_long(n_fwd) || too_long(links.len() - n_fwd) {
            return Err(Error::Route(PlatformError::new(format!(
                "the route from host {} to host {} has more than {} links",
                src.0,
                dst.0,
                u8::MAX
            ))));
        }
        let mut info = RouteInfo {
            weight,
            bound,
            links: [0; INLINE_LINKS],
            n_fwd: n_fwd as u8,
            n_back: (links.len() - n_fwd) as u8,
            spilled: links.len() > INLINE_LINKS,
        };
        if info.spilled {
            info.links[0] = self.spilled_links.len() as u32;
            self.spilled_links.extend_from_slice(&links);
        } else {
            info.links[..links.len()].copy_from_slice(&links);
        }
        let elems: Vec<(CnstId, f64)> = route_elems(&links, n_fwd, p.cross_traffic).collect();
        self.route_cap.push(self.sys.cap_of(&elems));
        let id = (self.route_info.len() as u32, latency);
        self.route_info.push(info);
        self.route_bytes.push(0);
        if p.converging_loss > 0.0 {
            self.route_src.push(src.0);
        }
        self.routes.insert(key, id);
        Ok(id)
    }

    fn push_event(&mut self, time: u64, flow: u32) {
        let v = &mut self.version[flow as usize];
        *v = v.wrapping_add(1);
        self.events.schedule(time, (flow, *v));
        // Stale entries leave the queue when they come up; flows re-timed earlier at
        // every end (thousands sharing a link) would pile them up quadratically.
        if self.events.len() > 4 * (self.active + 1) + 4096 {
            let (version, gv) = (&self.version, self.group_version);
            self.events.retain(|e| is_live(version, gv, e));
        }
    }

    /// Drops stale entries (at the head of the event queue, and wherever the queue
    /// moves them); the live head's time and flow.
    fn live_head(&mut self) -> Option<(u64, u32)> {
        let (version, gv) = (&self.version, self.group_version);
        self.events
            .peek_live(|e| is_live(version, gv, e))
            .map(|(t, &(f, _))| (t, f))
    }

    /// Starts a transfer of `bytes` from `src` to `dst` at `now`.
    fn start_flow(&mut self, now: SimTime, src: HostId, dst: HostId, bytes: u64, token: Token) -> Result<(), Error> {
        let (route, latency) = self.route(src, dst)?;
        let sent = &mut self.route_bytes[route as usize];
        *sent = sent.saturating_add(bytes);
        let lat = latency * self.params.lat_factor.factor(bytes);
        let at = now
            .ps()
            .checked_add(SimTime::from_secs_f64(lat).ps())
            .ok_or(Error::TimeOverflow)?;
        let flow = Flow {
            token,
            phase: Phase::Latency,
            remaining: bytes as f64,
            rate: 0.0,
            last: now.ps(),
            bw_factor: self.params.bw_factor.factor(bytes),
            route,
            var: None,
            grouped: false,
        };
        let id = match self.free.pop() {
            Some(i) => {
                self.flows[i as usize] = flow;
                i
            }
            None => {
                self.flows.push(flow);
                self.version.push(0);
                self.flows.len() as u32 - 1
            }
        };
        self.active += 1;
        self.push_event(at, id);
        Ok(())
    }

    /// Processes everything due at `t` (the next event time).
    fn advance_to(&mut self, t: u64, done: &mut Vec<Token>) {
        let mut changed = false;
        while let Some((et, f)) = self.live_head() {
            if et != t {
                break;
            }
            self.events.pop();
            if f == GROUP {
                self.group_ends(t, done);
                changed = true;
                continue;
            }
            match self.flows[f as usize].phase {
                Phase::Latency => {
                    changed |= self.begin_transfer(f, t, done);
                }
                Phase::Transfer => {
                    self.finish(f, done);
                    changed = true;
                }
                Phase::Done => unreachable!("a finished flow has no live event"),
            }
        }
        if changed {
            self.reshare(t);
        }
    }

    /// Latency over: the flow joins the sharing (or is done, if it carries nothing).
    fn begin_transfer(&mut self, f: u32, t: u64, done: &mut Vec<Token>) -> bool {
        let p = &self.params;
        let fl = &self.flows[f as usize];
        if fl.remaining <= 0.0 {
            self.finish(f, done);
            return false;
        }
        let r = &self.route_info[fl.route as usize];
        let nf = r.n_fwd as usize;
        let ids = r.links(&self.spilled_links);
        self.elems.clear();
        self.elems.extend(route_elems(ids, nf, p.cross_traffic));
        let cap = self.route_cap[fl.route as usize];
        let var = self.sys.add_variable_capped(r.weight, r.bound, &self.elems, cap);
        if self.var_flow.len() <= var.0 as usize {
            self.var_flow.resize(var.0 as usize + 1, u32::MAX);
        }
        self.var_flow[var.0 as usize] = f;
        self.joined.push(f);
        if p.converging_loss > 0.0 {
            self.converge(fl.route, true);
        }
        let fl = &mut self.flows[f as usize];
        fl.var = Some(var);
        fl.phase = Phase::Transfer;
        fl.last = t;
        true
    }

    fn finish(&mut self, f: u32, done: &mut Vec<Token>) {
        let fl = &mut self.flows[f as usize];
        fl.phase = Phase::Done;
        fl.grouped = false;
        done.push(fl.token);
        // Invalidates the flow's pending entry, if any.
        self.version[f as usize] = self.version[f as usize].wrapping_add(1);
        if let Some(v) = fl.var.take() {
            self.sys.remove_variable(v);
            if self.params.converging_loss > 0.0 {
                let route = fl.route;
                self.converge(route, false);
            }
        }
        self.active -= 1;
        self.free.push(f);
    }

    /// A flow over `route` joined (`true`) or left the sharing. Each shared link delivers
    /// its bandwidth / (1 + loss · ln m) for the `m` source hosts it carries flows from:
    /// a host's own streams queue in its own stack and lose nothing to each other; they
    /// lose where they converge with other hosts' streams (a switch's output port).
    fn converge(&mut self, route: u32, joined: bool) {
        let src = u64::from(self.route_src[route as usize]);
        let r = &self.route_info[route as usize];
        let ids = &r.links(&self.spilled_links)[..r.n_fwd as usize];
        for &c in ids {
            let bandwidth = self.nominal[c as usize];
            if bandwidth.is_nan() {
                continue;
            }
            let n = self.from_source.entry(u64::from(c) << 32 | src).or_insert(0);
            *n = if joined { *n + 1 } else { *n - 1 };
            if *n != u32::from(joined) {
                continue;
            }
            if *n == 0 {
                self.from_source.remove(&(u64::from(c) << 32 | src));
            }
            let m = &mut self.sources[c as usize];
            *m = if joined { *m + 1 } else { *m - 1 };
            let loss = 1.0 + self.params.converging_loss * f64::from((*m).max(1)).ln();
            self.sys.set_capacity(CnstId(c), bandwidth / loss);
        }
    }

    /// Re-solves the changed part of the sharing and reschedules the affected flows.
    fn reshare(&mut self, t: u64) {
        let mut changed = std::mem::take(&mut self.changed);
        if self.grouping {
            if let Some((c, level)) = self.sys.solve_grouped(&mut changed) {
                self.group_update(t, c, level);
                self.changed = changed;
                return;
            }
            // A general solve that changed grouped flows ends the group.
            let flows = &self.flows;
            let var_flow = &self.var_flow;
            if self.group.is_some() && changed.iter().any(|v| flows[var_flow[v.0 as usize] as usize].grouped) {
                self.dissolve(t);
            }
        } else {
            self.sys.solve_into(&mut changed);
        }
        self.joined.clear();
        for &var in &changed {
            let f = self.var_flow[var.0 as usize];
            let value = self.sys.value(var);
            let fl = &mut self.flows[f as usize];
            if fl.phase != Phase::Transfer || fl.var != Some(var) {
                continue;
            }
            fl.remaining -= fl.rate * (t - fl.last) as f64 * 1e-12;
            fl.last = t;
            fl.rate = value * fl.bw_factor;
            let dt = time_left(fl.remaining, fl.rate);
            self.push_event(t.saturating_add(dt), f);
        }
        self.changed = changed;
    }

    /// The solver's shortcut set every variable on `c` to `level / weight`: brings the
    /// group up to `t` with its old level, takes in the flows that joined (or forms the
    /// group from every flow on `c`), and schedules its next end.
    fn group_update(&mut self, t: u64, c: CnstId, level: f64) {
        self.group_updates += 1;
        // The group must be every flow on `c`: flows that joined it while a general solve
        // timed them one by one (the group empty or elsewhere) are not in it.
        let members = self.sys.count_on(c);
        if self
            .group
            .as_ref()
            .is_some_and(|g| g.cnst != c || g.ends.len() + self.joined.len() != members)
        {
            self.dissolve(t);
        }
        let mut joined = std::mem::take(&mut self.joined);
        if let Some(g) = self.group.as_mut() {
            g.advance_to(t);
            g.level = level;
            for &f in &joined {
                let fl = &mut self.flows[f as usize];
                let key = g.work + fl.remaining.max(0.0) / rate_per_level(fl, &self.route_info);
                fl.grouped = true;
                fl.last = t;
                g.ends.push(Reverse((key.to_bits(), f)));
            }
        } else {
            let mut g = Group {
                cnst: c,
                level,
                work: 0.0,
                last: t,
                ends: BinaryHeap::new(),
            };
            let members: Vec<u32> = self.sys.variables_on(c).map(|v| self.var_flow[v.0 as usize]).collect();
            for f in members {
                let fl = &mut self.flows[f as usize];
                let k = rate_per_level(fl, &self.route_info);
                // Joined flows have no rate yet and `last == t`: nothing to take off.
                fl.remaining -= fl.rate * (t - fl.last) as f64 * 1e-12;
                fl.last = t;
                fl.grouped = true;
                // Its own event, if any, is stale from now on.
                self.version[f as usize] = self.version[f as usize].wrapping_add(1);
                g.ends.push(Reverse(((fl.remaining.max(0.0) / k).to_bits(), f)));
            }
            self.group = Some(g);
        }
        joined.clear();
        self.joined = joined;
        self.schedule_group(t);
    }

    /// Puts the group's next end in the event queue (the previous entry goes stale).
    fn schedule_group(&mut self, t: u64) {
        self.group_version = self.group_version.wrapping_add(1);
        let Some(g) = &self.group else { return };
        let Some(&Reverse((key, _))) = g.ends.peek() else {
            return;
        };
        let left = (f64::from_bits(key) - g.work).max(0.0) / g.level;
        let at = t.saturating_add(SimTime::from_secs_f64(left).ps());
        self.events.schedule(at, (GROUP, self.group_version));
    }

    /// The group's event is due at `t`: the flow it was set for ends, and so does every
    /// other whose end rounds to the same picosecond.
    fn group_ends(&mut self, t: u64, done: &mut Vec<Token>) {
        let mut ending = Vec::new();
        if let Some(g) = self.group.as_mut() {
            g.advance_to(t);
            if let Some(Reverse((_, f))) = g.ends.pop() {
                ending.push(f);
            }
            while let Some(&Reverse((key, f))) = g.ends.peek() {
                if (f64::from_bits(key) - g.work) / g.level * 1e12 >= 0.5 {
                    break;
                }
                g.ends.pop();
                ending.push(f);
            }
        }
        for f in ending {
            self.finish(f, done);
        }
    }

    /// Ends the group at `t`: every member gets back its remaining bytes, its rate and
    /// its own event.
    fn dissolve(&mut self, t: u64) {
        let Some(mut g) = self.group.take() else { return };
        self.group_version = self.group_version.wrapping_add(1);
        g.advance_to(t);
        for Reverse((key, f)) in g.ends.into_vec() {
            // Members leave the heap only when they end: every entry is a member.
            let fl = &mut self.flows[f as usize];
            debug_assert!(fl.grouped);
            let k = rate_per_level(fl, &self.route_info);
            fl.grouped = false;
            fl.remaining = (f64::from_bits(key) - g.work) * k;
            fl.last = t;
            fl.rate = g.level * k;
            let dt = time_left(fl.remaining, fl.rate);
            self.push_event(t.saturating_add(dt), f);
        }
    }
}

/// Event times saturate at the clock's end instead of wrapping: an event at
/// `u64::MAX` is a run past the end of simulated time, which the engine reports.
impl NetworkModel for FlowNetwork<'_> {
    fn start(&mut self, now: SimTime, src: HostId, dst: HostId, bytes: u64, token: Token) -> Result<(), Error> {
        self.next = None;
        self.start_flow(now, src, dst, bytes, token)
    }

    #[inline]
    fn next_time(&mut self) -> Option<SimTime> {
        if let Some(t) = self.next {
            return t;
        }
        let t = self.live_head().map(|(t, _)| SimTime(t));
        self.next = Some(t);
        t
    }

    fn advance(&mut self, now: SimTime, done: &mut Vec<Token>) {
        self.next = None;
        self.advance_to(now.ps(), done);
    }

    fn in_flight(&self) -> usize {
        self.active
    }

    /// Every link a route used, in the order the links were first used; a link is busy
    /// for its bytes at its full bandwidth.
    fn link_loads(&self) -> Vec<LinkLoad> {
        let n = self.cnst.values().map(|c| c.0 as usize + 1).max().unwrap_or(0);
        let mut link_of = vec![0u32; n];
        for (&l, c) in &self.cnst {
            link_of[c.0 as usize] = l;
        }
        let mut bytes = vec![0u64; n];
        for (info, &sent) in self.route_info.iter().zip(&self.route_bytes) {
            for &c in &info.links(&self.spilled_links)[..info.n_fwd as usize] {
                bytes[c as usize] = bytes[c as usize].saturating_add(sent);
            }
        }
        bytes
            .iter()
            .zip(&link_of)
            .filter(|(&b, _)| b > 0)
            .map(|(&b, &l)| {
                let link = self.platform.link(simpi_platform::LinkId(l));
                LinkLoad {
                    peak_queue: 0,
                    mean_queue: 0.0,
                    busy: SimTime::from_secs_f64(b as f64 / link.bandwidth),
                    link: link.name,
                    bytes: b,
                    packets: 0,
                }
            })
            .collect()
    }
}
