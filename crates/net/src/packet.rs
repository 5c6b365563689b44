//! Packet-level network: each message is cut into packets that cross the links of
//! their route one by one, with virtual cut-through forwarding, finite input buffers
//! under credit-based flow control, and round-robin arbitration of each output link.
//!
//! The pieces, as simulated:
//! - A **port** is a platform link seen from its sending end: it serialises one
//!   packet at a time at the link's bandwidth (a fat-pipe link serialises any number
//!   at once) and delivers it the link's latency later.
//! - The receiving end of a port has one **input buffer** per virtual channel, a FIFO
//!   holding `buffer / mtu` packets. The sender counts the free slots (credits) and
//!   sends only into a free one. A slot is freed when the packet's tail has left the
//!   buffer on its next link, and the credit takes the link's latency to come back.
//!   Credits are counters, so an idle network costs no events for them.
//! - A packet on the `k`-th link of its route uses virtual channel `k`: a packet only
//!   ever waits for a buffer of a higher channel, so no cycle of waits (deadlock) can
//!   form, whatever the topology and routes.
//! - **Cut-through**: a packet may leave a router `router_delay` after its head
//!   arrived, but not so early that its tail would leave before arriving (when the
//!   next link is faster).
//! - **Arbitration**: an output port serves, in round-robin, the inputs whose head
//!   packet wants it: buffers of upstream links, and each message waiting to be
//!   injected at its source (so messages from one host share its link fairly, as flows
//!   do). With `transit_first`, injections get the port only when no buffer's packet
//!   can take it. A head packet that waits for its output blocks the packets behind it
//!   in the same buffer (head-of-line blocking). With a `priority`, each link has two
//!   virtual lanes with buffers of their own (InfiniBand's service levels): the port
//!   serves the high lane first, and a low-lane packet after `limit` bytes of high ones
//!   in a row while it waited.
//! - **Routing**: each packet's route is chosen when it is injected: the platform's
//!   minimal route, or on a dragonfly Valiant's detour through a random group or
//!   UGAL-L's choice between the two. Random choices are keyed by (seed, message,
//!   packet), so they do not depend on the order events happen in. Adaptive routing
//!   chooses as the packet enters each switch: among minimal routes on a fat tree or
//!   a torus (`packet::adaptive`), whether to turn to a detour on a dragonfly
//!   (`packet::progressive`).
//!
//! Every event is ordered by (time, sequence), so a run is deterministic.

mod adaptive;
mod progressive;

use crate::latency::Latencies;
use crate::model::{LinkLoad, LinkSeries, NetworkModel, Token};
use crate::packet_params::{PacketParams, Routing};
use crate::series::Bins;
use crate::Error;
use simpi_kernel::{EventQueue, IdHashMap, MixHashMap, Rng, SimTime};
use simpi_platform::{HostId, Platform, Policy};
use std::collections::VecDeque;

/// No input, port or packet.
const NONE: u32 = u32::MAX;

/// Ports beyond this many keep no use over time (bounding its memory to about 64 MB).
const MAX_SERIES_PORTS: usize = 32_768;
/// The first width of a port's bins (ps); they widen as the run grows.
const FIRST_BIN: u64 = 1_000;

/// First word of the keys of the routing's random choices (see `Rng::keyed`).
pub(crate) const DETOUR_KEY: u64 = 0x6465_746f_7572;

/// A link seen from its sending end.
struct Port {
    /// Bytes per second.
    bandwidth: f64,
    /// Link latency (ps).
    latency: u64,
    /// Serialises any number of packets at once (a fat-pipe link).
    fatpipe: bool,
    /// Serialising a packet until its `Free` event.
    busy: bool,
    /// Serialisation time of a full packet (ps), the common case.
    full_ser: u64,
    /// Inputs whose head packet waits for this port, in round-robin order.
    waiting: VecDeque<u32>,
    /// Slots of each downstream buffer (packets).
    slots: u32,
    /// The input of messages injected into this link at its sending host, by lane
    /// (`NONE` until one is; on a fat pipe each message has an input of its own
    /// instead).
    nic: [u32; 2],
    /// Bytes sent from the high-priority lane since a low-priority packet last went or
    /// last had nothing waiting (the count `Priority::limit` bounds).
    high_run: u64,
    /// The downstream buffer's input id, by virtual channel (grown on first use;
    /// with virtual output queues, `voq` holds them).
    buffers: Vec<u32>,
    /// Packets sent.
    packets: u64,
    /// Bytes sent, headers included.
    bytes: u64,
    /// Packets in the input buffers before this port that will leave on it (the
    /// queue UGAL-L looks at).
    queued: u32,
    /// Packets sent into the buffers at this port's receiving end and not yet gone
    /// on, the most at once, and the integral of their number over time (packets ·
    /// ps) up to `held_since`.
    held: u32,
    peak_held: u32,
    held_area: u128,
    held_since: u64,
    /// Time sending and packets held, over time (the first ports only).
    series: Option<Box<(Bins, Bins)>>,
}

/// Where packets wait before a port: a router's input buffer, or a message not yet
/// fully injected at its source.
struct Input {
    /// Packets in the buffer, oldest first (empty for an injection).
    fifo: VecDeque<u32>,
    /// The port that fills the buffer, or `NONE` for an injection.
    port: u32,
    /// Free slots, as the sending port counts them (credits).
    credits: u32,
    /// For an injection: its messages and the next packet of each, served in turn.
    msgs: VecDeque<(u32, u32)>,
    /// In some port's `waiting` list.
    queued: bool,
    /// Its virtual lane: 1 high priority, 0 low (0 without a `priority`).
    lane: u16,
}

impl Port {
    /// What adaptive routing reads of the port's congestion: packets in buffers
    /// waiting for it, plus the one it is sending.
    fn load(&self) -> u64 {
        self.queued as u64 + self.busy as u64
    }
}

/// A packet on its way.
#[derive(Clone, Copy)]
struct Packet {
    msg: u32,
    /// Its route (messages' packets may take different ones).
    route: u32,
    /// Index in the route of the link it crosses next (or is crossing).
    hop: u16,
    /// Bytes on the wire, header included.
    wire: u32,
    /// When its head may leave the router it is in.
    ready: u64,
}

struct Message {
    token: Token,
    /// Its minimal route; packets may take detours.
    route: u32,
    /// Number of the message among all started, for the routing's random choices.
    serial: u64,
    /// When it started (ps).
    start: u64,
    src: HostId,
    dst: HostId,
    packets: u32,
    /// Payload bytes of the message (the last packet carries the rest).
    bytes: u64,
    /// Packets not yet delivered.
    left: u32,
    /// Its virtual lane (see [`Input::lane`]).
    lane: u16,
}

#[derive(Clone, Copy)]
enum Event {
    /// The head packet of an input may leave now.
    Ready(u32),
    /// A port finished serialising.
    Free(u32),
    /// A slot of an input buffer is free again, as its sending port learns.
    Credit(u32),
    /// A packet of a message has fully arrived at its destination.
    Delivered(u32),
}

/// Slots a buffer needs so that credits never slow a stream of full packets: a slot
/// taken when a packet starts on the link comes back after the link's latency, the
/// router's delay, the packet's serialisation on the next link (at most as long as on
/// this one, when that one is not slower) and the credit's way back.
fn round_trip_slots(latency: u64, router_delay: u64, full_ser: u64) -> u32 {
    let cycle = latency
        .saturating_mul(2)
        .saturating_add(router_delay)
        .saturating_add(full_ser);
    let slots = cycle.div_ceil(full_ser.max(1)).saturating_add(1);
    slots.clamp(2, u32::MAX as u64) as u32
}

/// A network of packets over a platform.
pub struct PacketNetwork<'p> {
    platform: &'p Platform,
    params: PacketParams,
    /// Port index by platform link id.
    port_of: IdHashMap<u32, u32>,
    /// Platform link id by port index.
    link_of: Vec<u32>,
    ports: Vec<Port>,
    /// With virtual output queues: the input id of the queue of port, channel and
    /// next port.
    voq: MixHashMap<(u32, u32, u32), u32>,
    /// Route index by `src << 32 | dst`.
    routes: IdHashMap<u64, u32>,
    /// Route index of detours by source, destination and intermediate group.
    detours: MixHashMap<(u32, u32, u64), u32>,
    /// Routes with chosen ways (adaptive routing).
    chosen: adaptive::ChosenRoutes,
    /// Dragonfly routes that may turn to a detour on the way (adaptive routing).
    late: progressive::LateDetours,
    /// Messages started so far.
    started: u64,
    /// Each delivered message's time from start to its last packet.
    times: Latencies,
    /// The latest event handled (ps), where the buffers' averages end.
    last_event: u64,
    /// Whether ports keep their use over time ([`PacketNetwork::keep_series`]).
    keep_series: bool,
    /// Ports of each route, in travel order.
    route_ports: Vec<Box<[u32]>>,
    inputs: Vec<Input>,
    free_inputs: Vec<u32>,
    packets: Vec<Packet>,
    free_packets: Vec<u32>,
    messages: Vec<Message>,
    free_messages: Vec<u32>,
    in_flight: usize,
    events: EventQueue<Event>,
    /// Ports to try to start sending on, filled while handling an event.
    to_grant: Vec<u32>,
}

impl<'p> PacketNetwork<'p> {
    /// A network over `platform` with `params` (checked).
    pub fn new(platform: &'p Platform, params: PacketParams) -> Result<PacketNetwork<'p>, Error> {
        params.validate()?;
        if let Err(needs) = params.routing.fits(platform) {
            return Err(Error::BadParameter(format!(
                "routing {}: the platform has {needs}; use minimal",
                params.routing.name()
            )));
        }
        Ok(PacketNetwork {
            platform,
            params,
            port_of: IdHashMap::default(),
            link_of: Vec::new(),
            ports: Vec::new(),
            voq: Default::default(),
            routes: IdHashMap::default(),
            detours: Default::default(),
            chosen: Default::default(),
            late: Default::default(),
            started: 0,
            times: Latencies::default(),
            last_event: 0,
            keep_series: false,
            route_ports: Vec::new(),
            inputs: Vec::new(),
            free_inputs: Vec::new(),
            packets: Vec::new(),
            free_packets: Vec::new(),
            messages: Vec::new(),
            free_messages: Vec::new(),
            in_flight: 0,
            events: EventQueue::new(),
            to_grant: Vec::new(),
        })
    }

    /// The model's parameters.
    pub fn params(&self) -> &PacketParams {
        &self.params
    }

    /// Keep each link's use over time for [`NetworkModel::link_series`] (off by
    /// default: it costs a third more time on large runs). Call before the first
    /// message.
    pub fn keep_series(&mut self, yes: bool) {
        self.keep_series = yes;
    }

    fn port(&mut self, l: simpi_platform::LinkId) -> Result<u32, Error> {
        if let Some(&p) = self.port_of.get(&l.0) {
            return Ok(p);
        }
        let bandwidth = self.platform.link_bandwidth(l);
        let latency = self.platform.link_latency(l);
        let bad = |what: &str, v: f64| {
            Err(Error::BadParameter(format!(
                "link {}: {what} {v} cannot carry packets",
                self.platform.link(l).name
            )))
        };
        if !(bandwidth.is_finite() && bandwidth > 0.0) {
            return bad("bandwidth", bandwidth);
        }
        if !(latency.is_finite() && latency >= 0.0) {
            return bad("latency", latency);
        }
        let id = self.ports.len() as u32;
        let latency = SimTime::from_secs_f64(latency).ps();
        let full_ser = SimTime::from_secs_f64(self.params.mtu as f64 / bandwidth).ps();
        let slots = match self.params.credits() {
            0 => round_trip_slots(latency, self.params.router_delay.ps(), full_ser),
            n => n.min(u32::MAX as u64) as u32,
        };
        self.ports.push(Port {
            bandwidth,
            latency,
            fatpipe: self.platform.link_policy(l) == Policy::Fatpipe,
            busy: false,
            full_ser,
            slots,
            nic: [NONE; 2],
            high_run: 0,
            waiting: VecDeque::new(),
            buffers: Vec::new(),
            packets: 0,
            bytes: 0,
            queued: 0,
            held: 0,
            peak_held: 0,
            held_area: 0,
            held_since: 0,
            series: (self.keep_series && self.ports.len() < MAX_SERIES_PORTS)
                .then(|| Box::new((Bins::new(FIRST_BIN), Bins::new(FIRST_BIN)))),
        });
        self.link_of.push(l.0);
        self.port_of.insert(l.0, id);
        Ok(id)
    }

    fn route(&mut self, src: HostId, dst: HostId) -> Result<u32, Error> {
        let key = (src.0 as u64) << 32 | dst.0 as u64;
        if let Some(&r) = self.routes.get(&key) {
            return Ok(r);
        }
        let links = self.platform.route(src, dst)?.links;
        let id = self.intern(src, dst, links)?;
        self.routes.insert(key, id);
        Ok(id)
    }

    /// Route `links` from `src` to `dst` as a list of ports.
    fn intern(&mut self, src: HostId, dst: HostId, links: Vec<simpi_platform::LinkId>) -> Result<u32, Error> {
        if links.len() > u16::MAX as usize {
            return Err(Error::BadParameter(format!(
                "the route from host {} to host {} has more than 65,535 links",
                src.0, dst.0
            )));
        }
        let mut ports = Vec::with_capacity(links.len());
        for l in links {
            ports.push(self.port(l)?);
        }
        let id = self.route_ports.len() as u32;
        self.route_ports.push(ports.into_boxed_slice());
        Ok(id)
    }

    /// The route through group `via` from `src` to `dst`, made on first use.
    fn detour(&mut self, src: HostId, dst: HostId, via: u64) -> Result<u32, Error> {
        if let Some(&r) = self.detours.get(&(src.0, dst.0, via)) {
            return Ok(r);
        }
        let links = self.platform.route_via_group(src, dst, via)?.links;
        let id = self.intern(src, dst, links)?;
        self.detours.insert((src.0, dst.0, via), id);
        Ok(id)
    }

    /// The route packet `k` of message `m` takes, chosen as it is injected.
    fn pick_route(&mut self, m: u32, k: u32) -> u32 {
        let msg = &self.messages[m as usize];
        let (minimal, src, dst, serial) = (msg.route, msg.src, msg.dst, msg.serial);
        match self.params.routing {
            // Adaptive routes are chosen when the message starts, then hop by hop.
            Routing::Minimal | Routing::Adaptive => return minimal,
            Routing::Valiant | Routing::Ugal => {}
        }
        let (Some(a), Some(b)) = (self.platform.dragonfly_place(src), self.platform.dragonfly_place(dst)) else {
            return minimal;
        };
        if a.dragonfly != b.dragonfly || a.group == b.group || a.groups < 3 {
            return minimal;
        }
        // A group other than the source's, uniformly.
        let draw = Rng::keyed(&[DETOUR_KEY, self.params.seed, serial, k as u64]).next_u64();
        let mut via = draw % (a.groups - 1);
        if via >= a.group {
            via += 1;
        }
        // Both ends are hosts of this dragonfly and `via` one of its groups: the
        // platform has the detour.
        let detour = self.detour(src, dst, via).expect("a detour inside one dragonfly");
        if self.params.routing == Routing::Valiant {
            return detour;
        }
        // UGAL-L: queue at the first output of the source router times hops.
        let cost = |net: &Self, r: u32| {
            let ports = &net.route_ports[r as usize];
            let q = ports.get(1).map_or(0, |&p| net.ports[p as usize].load());
            (q + 1) * ports.len() as u64
        };
        if cost(self, minimal) <= cost(self, detour) {
            minimal
        } else {
            detour
        }
    }

    /// Serialisation time of `wire` bytes on port `p` (ps).
    fn ser(&self, p: u32, wire: u32) -> u64 {
        let port = &self.ports[p as usize];
        if wire as u64 == self.params.mtu {
            port.full_ser
        } else {
            SimTime::from_secs_f64(wire as f64 / port.bandwidth).ps()
        }
    }

    /// Wire bytes of packet `k` of message `m`.
    fn wire_of(&self, m: &Message, k: u32) -> u32 {
        let payload = self.params.payload();
        let carried = if k + 1 < m.packets {
            payload
        } else {
            m.bytes - payload * (m.packets as u64 - 1)
        };
        (carried + self.params.header) as u32
    }

    /// Virtual lanes per link: 2 with a priority, else 1.
    fn lanes(&self) -> u32 {
        1 + self.params.priority.is_some() as u32
    }

    /// The input id of port `p`'s downstream buffer for channel `vc` (and, with
    /// virtual output queues, its queue for port `next`), made on first use; lane
    /// `lane` of hop class `vc / lanes`.
    fn buffer(&mut self, p: u32, vc: u32, next: u32, lane: u16) -> u32 {
        let slots = self.ports[p as usize].slots;
        let fresh = Input {
            fifo: VecDeque::new(),
            port: p,
            credits: slots,
            msgs: VecDeque::new(),
            queued: false,
            lane,
        };
        if self.params.voq {
            if let Some(&i) = self.voq.get(&(p, vc, next)) {
                return i;
            }
            let id = self.new_input(fresh);
            self.voq.insert((p, vc, next), id);
            return id;
        }
        let port = &mut self.ports[p as usize];
        if port.buffers.len() <= vc as usize {
            port.buffers.resize(vc as usize + 1, NONE);
        }
        if port.buffers[vc as usize] == NONE {
            let id = self.new_input(fresh);
            self.ports[p as usize].buffers[vc as usize] = id;
        }
        self.ports[p as usize].buffers[vc as usize]
    }

    fn new_input(&mut self, input: Input) -> u32 {
        match self.free_inputs.pop() {
            Some(i) => {
                self.inputs[i as usize] = input;
                i
            }
            None => {
                self.inputs.push(input);
                self.inputs.len() as u32 - 1
            }
        }
    }

    fn new_packet(&mut self, p: Packet) -> u32 {
        match self.free_packets.pop() {
            Some(i) => {
                self.packets[i as usize] = p;
                i
            }
            None => {
                self.packets.push(p);
                self.packets.len() as u32 - 1
            }
        }
    }

    /// The port the head packet of input `i` wants, and that packet's hop.
    fn wanted(&self, i: u32) -> (u32, u32, u16) {
        let input = &self.inputs[i as usize];
        if input.port == NONE {
            let (m, _) = *input.msgs.front().expect("a waiting injection has a message");
            let route = self.messages[m as usize].route;
            (self.route_ports[route as usize][0], m, 0)
        } else {
            let pk = &self.packets[*input.fifo.front().expect("a waiting input has a head") as usize];
            (self.route_ports[pk.route as usize][pk.hop as usize], pk.msg, pk.hop)
        }
    }

    /// Puts input `i` in line for the port its head packet wants.
    fn queue_input(&mut self, i: u32) {
        let (p, _, _) = self.wanted(i);
        self.inputs[i as usize].queued = true;
        self.ports[p as usize].waiting.push_back(i);
        self.to_grant.push(p);
    }

    /// Starts sending on port `p` if it is free and an input in line may send.
    fn grant(&mut self, p: u32, now: u64) {
        let port = &self.ports[p as usize];
        if port.busy && !port.fatpipe {
            return;
        }
        if port.waiting.is_empty() {
            return;
        }
        // With transit first, a first round offers the port to buffers only, a second
        // to injections only: a buffer that found no room in the first finds none in
        // the second (credits only go down while granting). A full round leaves the
        // line in its order. With a priority, the rounds go through the high lane
        // first, or the low one first once the high lane used up its limit while a
        // low packet waited.
        let kinds: &[Option<bool>] = if self.params.transit_first {
            &[Some(false), Some(true)]
        } else {
            &[None]
        };
        let lanes: &[Option<u16>] = match self.params.priority {
            None => &[None],
            // At least one high packet goes between low ones (a limit of 0 alternates).
            Some(q) if self.ports[p as usize].high_run > q.limit.saturating_sub(1) && self.low_waits(p) => {
                &[Some(0), Some(1)]
            }
            Some(_) => &[Some(1), Some(0)],
        };
        for &lane in lanes {
            for &only in kinds {
                for _ in 0..self.ports[p as usize].waiting.len() {
                    let i = self.ports[p as usize].waiting.pop_front().expect("counted");
                    let input = &self.inputs[i as usize];
                    let injection = input.port == NONE;
                    if only.is_some_and(|inj| inj != injection) || lane.is_some_and(|l| l != input.lane) {
                        self.ports[p as usize].waiting.push_back(i);
                        continue;
                    }
                    // An injection offers each of its messages in turn, a buffer its head.
                    let offers = if injection {
                        self.inputs[i as usize].msgs.len()
                    } else {
                        1
                    };
                    let mut into = None;
                    for _ in 0..offers {
                        into = self.room_after(p, i);
                        if into.is_some() {
                            break;
                        }
                        if offers > 1 {
                            let msgs = &mut self.inputs[i as usize].msgs;
                            msgs.rotate_left(1);
                        }
                    }
                    let Some((into, route)) = into else {
                        self.ports[p as usize].waiting.push_back(i);
                        continue;
                    };
                    let sent_before = self.ports[p as usize].bytes;
                    self.send(p, i, now, into, route);
                    if let Some(l) = lane {
                        let wire = self.ports[p as usize].bytes - sent_before;
                        let run = if l == 1 && self.low_waits(p) {
                            self.ports[p as usize].high_run.saturating_add(wire)
                        } else {
                            0
                        };
                        self.ports[p as usize].high_run = run;
                    }
                    if !self.ports[p as usize].fatpipe {
                        return;
                    }
                }
            }
        }
    }

    /// Whether an input of the low-priority lane waits for port `p`.
    fn low_waits(&self, p: u32) -> bool {
        self.ports[p as usize]
            .waiting
            .iter()
            .any(|&i| self.inputs[i as usize].lane == 0)
    }

    /// Where the head packet of input `i` goes after port `p`, with its route (chosen
    /// now for a packet still to inject): `NONE` to its destination host, a buffer
    /// with a free slot, or `None` if that buffer is full.
    fn room_after(&mut self, p: u32, i: u32) -> Option<(u32, u32)> {
        let (_, m, hop) = self.wanted(i);
        // The packet, for adaptive routing's draws: its number in the message at its
        // source, its slot after.
        let (mut route, packet) = match self.inputs[i as usize].msgs.front() {
            Some(&(m, k)) if self.inputs[i as usize].port == NONE => (self.pick_route(m, k), k),
            _ => {
                let head = *self.inputs[i as usize].fifo.front().expect("a head");
                (self.packets[head as usize].route, head)
            }
        };
        if self.params.routing == Routing::Adaptive {
            let next = hop as usize + 1;
            route = self.adapt(route, next);
            route = self.maybe_turn(route, next, self.messages[m as usize].serial, packet);
        }
        match self.route_ports[route as usize].get(hop as usize + 1) {
            Some(&next) => {
                let lane = self.messages[m as usize].lane;
                let b = self.buffer(p, hop as u32 * self.lanes() + lane as u32, next, lane);
                (self.inputs[b as usize].credits > 0).then_some((b, route))
            }
            None => Some((NONE, route)),
        }
    }

    /// Sends the head packet of input `i` on port `p` at `now`, into input buffer
    /// `into` (`NONE`: to its destination host); a packet made now takes `route`.
    fn send(&mut self, p: u32, i: u32, now: u64, into: u32, route: u32) {
        self.inputs[i as usize].queued = false;
        let (pk_id, more) = if self.inputs[i as usize].port == NONE {
            // Make the message's next packet at its source; the message then waits
            // behind the others of this injection (round-robin between messages).
            let (m, k) = self.inputs[i as usize]
                .msgs
                .pop_front()
                .expect("a waiting injection has a message");
            let wire = self.wire_of(&self.messages[m as usize], k);
            let id = self.new_packet(Packet {
                msg: m,
                route,
                hop: 0,
                wire,
                ready: now,
            });
            if k + 1 < self.messages[m as usize].packets {
                self.inputs[i as usize].msgs.push_back((m, k + 1));
            }
            let more = !self.inputs[i as usize].msgs.is_empty();
            // A host's injection into a link stays; one of a message alone (on a fat
            // pipe) goes with its last packet.
            if !more && !self.ports[p as usize].nic.contains(&i) {
                self.free_inputs.push(i);
            }
            (id, more)
        } else {
            let input = &mut self.inputs[i as usize];
            let id = input.fifo.pop_front().expect("a waiting input has a head");
            let more = !input.fifo.is_empty();
            let up = input.port;
            self.ports[p as usize].queued -= 1;
            self.hold(up, now, -1);
            // Adaptive routing may have chosen another way on from here.
            self.packets[id as usize].route = route;
            (id, more)
        };
        let pk = self.packets[pk_id as usize];
        let ser = self.ser(p, pk.wire);
        let done_sending = now.saturating_add(ser);
        {
            let port = &mut self.ports[p as usize];
            port.packets += 1;
            port.bytes += pk.wire as u64;
            if let Some(s) = &mut port.series {
                s.0.add(now, done_sending, 1.0);
            }
            if !port.fatpipe {
                port.busy = true;
                self.events.schedule(done_sending, Event::Free(p));
            }
        }
        // The slot this packet held upstream frees once its tail has left, and the
        // credit travels back over the upstream link.
        let up = self.inputs[i as usize].port;
        if up != NONE {
            let back = done_sending.saturating_add(self.ports[up as usize].latency);
            self.events.schedule(back, Event::Credit(i));
        }
        // On a fat pipe every input has a server of its own, free again once this
        // packet is out; on a shared link the port is the server.
        let next_go = if self.ports[p as usize].fatpipe {
            done_sending
        } else {
            now
        };
        if more {
            if up == NONE && next_go == now {
                self.queue_input(i);
            } else {
                let ready = match self.inputs[i as usize].fifo.front() {
                    Some(&head) => self.packets[head as usize].ready,
                    None => next_go,
                };
                self.events.schedule(ready.max(next_go), Event::Ready(i));
            }
        }
        let latency = self.ports[p as usize].latency;
        let head_there = now.saturating_add(latency);
        if into == NONE {
            self.free_packets.push(pk_id);
            self.events
                .schedule(head_there.saturating_add(ser), Event::Delivered(pk.msg));
            return;
        }
        // Into the downstream buffer of this port's channel `hop`.
        let b = into;
        self.inputs[b as usize].credits -= 1;
        let next_hop = pk.hop + 1;
        let next_port = self.route_ports[pk.route as usize][next_hop as usize];
        self.ports[next_port as usize].queued += 1;
        self.hold(p, now, 1);
        let next_ser = self.ser(next_port, pk.wire);
        let ready = head_there
            .saturating_add(self.params.router_delay.ps())
            .saturating_add(ser.saturating_sub(next_ser));
        self.packets[pk_id as usize].hop = next_hop;
        self.packets[pk_id as usize].ready = ready;
        let buf = &mut self.inputs[b as usize];
        buf.fifo.push_back(pk_id);
        if buf.fifo.len() == 1 {
            self.events.schedule(ready, Event::Ready(b));
        }
    }

    /// Port `p`'s downstream buffers gain or lose a packet at `now`.
    fn hold(&mut self, p: u32, now: u64, delta: i32) {
        let port = &mut self.ports[p as usize];
        port.held_area += port.held as u128 * now.saturating_sub(port.held_since) as u128;
        if let Some(s) = &mut port.series {
            s.1.add(port.held_since, now, port.held as f64);
        }
        port.held_since = now;
        port.held = port.held.saturating_add_signed(delta);
        port.peak_held = port.peak_held.max(port.held);
    }

    fn handle(&mut self, now: u64, e: Event, done: &mut Vec<Token>) {
        self.last_event = now;
        match e {
            Event::Ready(i) => {
                let input = &self.inputs[i as usize];
                if !input.queued && (input.port == NONE || !input.fifo.is_empty()) {
                    self.queue_input(i);
                }
            }
            Event::Free(p) => {
                self.ports[p as usize].busy = false;
                self.to_grant.push(p);
            }
            Event::Credit(i) => {
                let input = &mut self.inputs[i as usize];
                input.credits += 1;
                self.to_grant.push(input.port);
            }
            Event::Delivered(m) => {
                let msg = &mut self.messages[m as usize];
                msg.left -= 1;
                if msg.left == 0 {
                    self.times.record(now.saturating_sub(msg.start));
                    done.push(msg.token);
                    self.free_messages.push(m);
                    self.in_flight -= 1;
                }
            }
        }
        while let Some(p) = self.to_grant.pop() {
            self.grant(p, now);
        }
    }
}

impl NetworkModel for PacketNetwork<'_> {
    fn start(&mut self, now: SimTime, src: HostId, dst: HostId, bytes: u64, token: Token) -> Result<(), Error> {
        let mut route = self.route(src, dst)?;
        if self.params.routing == Routing::Adaptive {
            // On a fat tree or torus the first hop is chosen for the whole message: its
            // packets wait in one injection queue, that of the route's first link. On a
            // dragonfly packets start minimal and may turn on the way.
            let choosing = self.choosing_route(src, dst, route);
            route = if choosing == route {
                self.turning_route(src, dst, route)
            } else {
                self.adapt(choosing, 0)
            };
        }
        let packets = bytes.div_ceil(self.params.payload()).max(1);
        let lane = self.params.priority.is_some_and(|q| bytes <= q.up_to) as u16;
        let packets = u32::try_from(packets).map_err(|_| {
            Error::BadParameter(format!(
                "a message of {bytes} bytes needs more than 2^32 packets of {} bytes",
                self.params.payload()
            ))
        })?;
        let msg = Message {
            token,
            route,
            serial: self.started,
            start: now.ps(),
            src,
            dst,
            packets,
            bytes,
            left: packets,
            lane,
        };
        let m = match self.free_messages.pop() {
            Some(m) => {
                self.messages[m as usize] = msg;
                m
            }
            None => {
                self.messages.push(msg);
                self.messages.len() as u32 - 1
            }
        };
        self.in_flight += 1;
        self.started += 1;
        // Into the host's injection of its first link, or, on a fat pipe, one of its own.
        let first = self.route_ports[route as usize][0];
        let shared = !self.ports[first as usize].fatpipe;
        let i = match self.ports[first as usize].nic[lane as usize] {
            i if shared && i != NONE => i,
            _ => {
                let i = self.new_input(Input {
                    fifo: VecDeque::new(),
                    port: NONE,
                    credits: 0,
                    msgs: VecDeque::new(),
                    queued: false,
                    lane,
                });
                if shared {
                    self.ports[first as usize].nic[lane as usize] = i;
                }
                i
            }
        };
        self.inputs[i as usize].msgs.push_back((m, 0));
        if !self.inputs[i as usize].queued {
            self.queue_input(i);
        }
        while let Some(p) = self.to_grant.pop() {
            self.grant(p, now.ps());
        }
        Ok(())
    }

    fn next_time(&mut self) -> Option<SimTime> {
        self.events.peek_time().map(SimTime)
    }

    fn advance(&mut self, now: SimTime, done: &mut Vec<Token>) {
        while self.events.peek_time() == Some(now.ps()) {
            let e = self.events.pop().expect("peeked").event;
            self.handle(now.ps(), e, done);
        }
    }

    fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Every link that carried a packet, in the order the links were first used.
    fn link_loads(&self) -> Vec<LinkLoad> {
        self.ports
            .iter()
            .zip(&self.link_of)
            .filter(|(p, _)| p.packets > 0)
            .map(|(p, &l)| LinkLoad {
                link: self.platform.link(simpi_platform::LinkId(l)).name,
                bytes: p.bytes,
                busy: SimTime::from_secs_f64(p.bytes as f64 / p.bandwidth),
                packets: p.packets,
                peak_queue: p.peak_held,
                mean_queue: {
                    let end = self.last_event.max(p.held_since);
                    let area = p.held_area + p.held as u128 * (end - p.held_since) as u128;
                    if end == 0 {
                        0.0
                    } else {
                        area as f64 / end as f64
                    }
                },
            })
            .collect()
    }

    fn message_times(&self) -> Option<Latencies> {
        Some(self.times.clone())
    }

    /// The ports that carried the most bytes (ties: the first used), among those that
    /// keep their use over time.
    fn link_series(&self, n: usize) -> Vec<LinkSeries> {
        let mut order: Vec<usize> = (0..self.ports.len())
            .filter(|&p| self.ports[p].packets > 0 && self.ports[p].series.is_some())
            .collect();
        order.sort_by_key(|&p| std::cmp::Reverse(self.ports[p].bytes));
        order
            .into_iter()
            .take(n)
            .map(|p| {
                let port = &self.ports[p];
                let (mut busy, mut held) = port.series.as_deref().expect("filtered").clone();
                // The packets still held until the last event; both series to the end
                // of the run, on one width.
                let end = self.last_event.max(port.held_since);
                held.add(port.held_since, end, port.held as f64);
                busy.extend_to(end);
                held.extend_to(end);
                while busy.width < held.width {
                    busy.coarsen();
                }
                while held.width < busy.width {
                    held.coarsen();
                }
                LinkSeries {
                    link: self.platform.link(simpi_platform::LinkId(self.link_of[p])).name,
                    width: SimTime(busy.width),
                    busy: busy.means(),
                    queue: held.means(),
                }
            })
            .collect()
    }
}
