//! The emulated network's timing: which links a frame crosses and when it leaves each of
//! them. Pure bookkeeping in nanoseconds, driven by the real-time switch in `switch.rs`.
//!
//! Every node has a full-duplex link to its cabinet's switch (an up and a down direction);
//! with several cabinets, every cabinet switch has a full-duplex uplink to a core switch.
//! A link sends one frame at a time at its rate, first come first served, then the frame
//! travels the link's latency (store and forward). A link whose backlog exceeds its queue
//! limit drops the frame, as a full switch buffer does.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One direction of a link.
#[derive(Clone, Debug)]
struct Link {
    /// Nanoseconds per byte.
    ns_per_byte: f64,
    /// Latency in nanoseconds.
    latency: u64,
    /// When the link finishes sending what it has (ns).
    free_at: f64,
    /// Largest backlog in bytes before frames are dropped.
    queue_bytes: u64,
}

/// The shape of the emulated network.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    /// Nodes.
    pub nodes: usize,
    /// Bytes per second of each node link, each direction.
    pub node_bandwidth: f64,
    /// Latency of each node link in seconds (a node-to-node path crosses two).
    pub node_latency: f64,
    /// Cabinets (nodes are split into equal consecutive blocks); 1 means one switch.
    pub cabinets: usize,
    /// Bytes per second of each cabinet uplink, each direction.
    pub uplink_bandwidth: f64,
    /// Latency of each cabinet uplink in seconds.
    pub uplink_latency: f64,
    /// Queue limit of every link in bytes.
    pub queue_bytes: u64,
}

impl Shape {
    /// The cabinet of `node`.
    pub fn cabinet_of(&self, node: usize) -> usize {
        let per = self.nodes.div_ceil(self.cabinets.max(1));
        node / per.max(1)
    }
}

/// A frame in flight: where it goes next and when it gets there.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Hop {
    /// Arrival time at the next link, or delivery time after the last (ns).
    at: u64,
    /// Sequence number: frames arriving at the same time keep their order.
    seq: u64,
    /// Index into `route` of the next link (`route.len()`: deliver).
    next: usize,
    /// The frame's slot in `frames`.
    slot: usize,
}

/// A frame in flight: its destination, route (link indices) and bytes.
type InFlight = (usize, Vec<usize>, Vec<u8>);

/// The network's state: links, frames in flight, and counters.
pub struct Fabric {
    shape: Shape,
    links: Vec<Link>,
    hops: BinaryHeap<Reverse<Hop>>,
    frames: Vec<Option<InFlight>>,
    free_slots: Vec<usize>,
    seq: u64,
    /// Frames dropped at full queues.
    pub dropped: u64,
    /// Frames delivered.
    pub delivered: u64,
}

impl Fabric {
    /// A fabric of `shape`, idle.
    pub fn new(shape: Shape) -> Fabric {
        let link = |bw: f64, lat: f64| Link {
            ns_per_byte: 1e9 / bw,
            latency: (lat * 1e9).round() as u64,
            free_at: 0.0,
            queue_bytes: shape.queue_bytes,
        };
        // Node i: up = 2i, down = 2i+1; cabinet c uplink: up = 2n+2c, down = 2n+2c+1.
        let mut links = Vec::new();
        for _ in 0..shape.nodes {
            links.push(link(shape.node_bandwidth, shape.node_latency));
            links.push(link(shape.node_bandwidth, shape.node_latency));
        }
        if shape.cabinets > 1 {
            for _ in 0..shape.cabinets {
                links.push(link(shape.uplink_bandwidth, shape.uplink_latency));
                links.push(link(shape.uplink_bandwidth, shape.uplink_latency));
            }
        }
        Fabric {
            shape,
            links,
            hops: BinaryHeap::new(),
            frames: Vec::new(),
            free_slots: Vec::new(),
            seq: 0,
            dropped: 0,
            delivered: 0,
        }
    }

    /// The links from `src` to `dst`, in order.
    pub fn route(&self, src: usize, dst: usize) -> Vec<usize> {
        let n = self.shape.nodes;
        let (cs, cd) = (self.shape.cabinet_of(src), self.shape.cabinet_of(dst));
        if self.shape.cabinets > 1 && cs != cd {
            vec![2 * src, 2 * n + 2 * cs, 2 * n + 2 * cd + 1, 2 * dst + 1]
        } else {
            vec![2 * src, 2 * dst + 1]
        }
    }

    /// A frame of `frame.len()` bytes from `src` enters the network at `now` for `dst`.
    pub fn inject(&mut self, now: u64, src: usize, dst: usize, frame: Vec<u8>) {
        let route = self.route(src, dst);
        let slot = match self.free_slots.pop() {
            Some(s) => {
                self.frames[s] = Some((dst, route, frame));
                s
            }
            None => {
                self.frames.push(Some((dst, route, frame)));
                self.frames.len() - 1
            }
        };
        self.push(now, 0, slot);
    }

    fn push(&mut self, at: u64, next: usize, slot: usize) {
        self.seq += 1;
        self.hops.push(Reverse(Hop {
            at,
            seq: self.seq,
            next,
            slot,
        }));
    }

    /// When the next thing happens, if anything is in flight.
    pub fn next_time(&self) -> Option<u64> {
        self.hops.peek().map(|h| h.0.at)
    }

    /// Moves every frame whose next event is due by `now`; returns the frames delivered
    /// (destination node, bytes, when it was due), in delivery order.
    pub fn advance(&mut self, now: u64) -> Vec<(usize, Vec<u8>, u64)> {
        let mut out = Vec::new();
        while let Some(Reverse(h)) = self.hops.peek().cloned() {
            if h.at > now {
                break;
            }
            self.hops.pop();
            let (dst, len, link) = {
                let (dst, route, frame) = self.frames[h.slot].as_ref().expect("a frame in flight");
                (*dst, frame.len(), route.get(h.next).copied())
            };
            match link {
                None => {
                    let (_, _, frame) = self.frames[h.slot].take().expect("a frame in flight");
                    self.free_slots.push(h.slot);
                    self.delivered += 1;
                    out.push((dst, frame, h.at));
                }
                Some(l) => {
                    let link = &mut self.links[l];
                    let start = link.free_at.max(h.at as f64);
                    if (start - h.at as f64) / link.ns_per_byte > link.queue_bytes as f64 {
                        self.frames[h.slot] = None;
                        self.free_slots.push(h.slot);
                        self.dropped += 1;
                        continue;
                    }
                    let end = start + len as f64 * link.ns_per_byte;
                    link.free_at = end;
                    let at = end.ceil() as u64 + link.latency;
                    self.push(at, h.next + 1, h.slot);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(nodes: usize, cabinets: usize) -> Shape {
        Shape {
            nodes,
            node_bandwidth: 12.5e6, // 100 Mbit/s: 80 ns per byte
            node_latency: 50e-6,
            cabinets,
            uplink_bandwidth: 12.5e6,
            uplink_latency: 0.0,
            queue_bytes: 1 << 20,
        }
    }

    fn run(f: &mut Fabric) -> Vec<(u64, usize, usize)> {
        let mut out = Vec::new();
        while let Some(t) = f.next_time() {
            for (d, fr, due) in f.advance(t) {
                assert_eq!(due, t);
                out.push((t, d, fr.len()));
            }
        }
        out
    }

    #[test]
    fn one_frame_crosses_two_links() {
        // 1000 bytes: 80 us on the up link, 50 us latency, 80 us on the down link, 50 us.
        let mut f = Fabric::new(shape(2, 1));
        f.inject(0, 0, 1, vec![0; 1000]);
        assert_eq!(run(&mut f), vec![(260_000, 1, 1000)]);
    }

    #[test]
    fn a_burst_is_paced_by_the_link_rate() {
        // Three back-to-back frames leave the up link every 80 us; the down link is idle
        // when each arrives, so they are delivered 80 us apart after the first.
        let mut f = Fabric::new(shape(2, 1));
        for _ in 0..3 {
            f.inject(0, 0, 1, vec![0; 1000]);
        }
        let t: Vec<u64> = run(&mut f).iter().map(|x| x.0).collect();
        assert_eq!(t, vec![260_000, 340_000, 420_000]);
    }

    #[test]
    fn two_senders_share_the_receiver_link() {
        // Nodes 0 and 1 each send one 1000-byte frame to node 2 at time 0: both reach
        // node 2's down link at 130 us; it sends them one after the other (80 us each).
        let mut f = Fabric::new(shape(3, 1));
        f.inject(0, 0, 2, vec![0; 1000]);
        f.inject(0, 1, 2, vec![1; 1000]);
        let out = run(&mut f);
        assert_eq!(out.iter().map(|x| x.0).collect::<Vec<_>>(), vec![260_000, 340_000]);
        assert_eq!(f.delivered, 2);
    }

    #[test]
    fn cabinets_share_their_uplinks() {
        // 4 nodes, 2 cabinets: 0,1 | 2,3. 0->2 and 1->3 both cross cabinet 0's uplink.
        // Both node up links finish at 80 us and reach the uplink at 130 us; it serves
        // them at 130..210 and 210..290 (latency 0), cabinet 1's downlink at 210..290 and
        // 290..370, the node down links at 290..370 and 370..450, +50 us: 420 and 500.
        let mut f = Fabric::new(shape(4, 2));
        assert_eq!(f.route(0, 2).len(), 4);
        assert_eq!(f.route(0, 1).len(), 2);
        f.inject(0, 0, 2, vec![0; 1000]);
        f.inject(0, 1, 3, vec![0; 1000]);
        let t: Vec<u64> = run(&mut f).iter().map(|x| x.0).collect();
        assert_eq!(t, vec![420_000, 500_000]);
    }

    #[test]
    fn full_queues_drop() {
        let mut s = shape(2, 1);
        s.queue_bytes = 2500;
        let mut f = Fabric::new(s);
        // The 4th frame would wait 3000 bytes' time: more than the 2500-byte queue.
        for _ in 0..4 {
            f.inject(0, 0, 1, vec![0; 1000]);
        }
        assert_eq!(run(&mut f).len(), 3);
        assert_eq!(f.dropped, 1);
    }
}
