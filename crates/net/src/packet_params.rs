//! Parameters of the packet network: how messages are cut into packets, how much a
//! router can buffer, and how long it takes to forward. Link bandwidths and latencies
//! come from the platform. The equations are in `docs/models.md`.

use crate::Error;
use simpi_kernel::SimTime;

/// How the packet network cuts, buffers and forwards.
#[derive(Clone, Debug, PartialEq)]
pub struct PacketParams {
    /// Largest packet on the wire, headers included (bytes).
    pub mtu: u64,
    /// Header bytes of every packet (counted on the wire, not in the payload).
    pub header: u64,
    /// Input buffer of each virtual channel at the receiving end of a link (bytes).
    /// Its credits are whole packets: `buffer / mtu`. 0 sizes each link's buffers to
    /// its round trip, so that credits never slow an idle path.
    pub buffer: u64,
    /// From a packet's head reaching a router to the router forwarding it.
    pub router_delay: SimTime,
    /// Each input buffer keeps one queue per output (virtual output queues), so a
    /// packet waiting for a busy output does not hold up packets behind it bound
    /// elsewhere; `false` keeps one FIFO per buffer (head-of-line blocking).
    pub voq: bool,
    /// Output ports serve packets already in the network before new ones from hosts
    /// (round-robin within each kind), as torus routers commonly do; `false` serves
    /// every input in one round-robin.
    pub transit_first: bool,
    /// How each packet's route is chosen.
    pub routing: Routing,
    /// Seed of the routing's random choices.
    pub seed: u64,
    /// Adaptive routing on a fat tree or torus leaves the way a packet's route has
    /// (d-mod-k's port, dimension order) only for one with more than this many packets
    /// fewer queued or in service. With 0, a packet took other up-links on the
    /// momentary queues of an all-to-all on a non-blocking fat tree, where d-mod-k's
    /// routes never meet, and ended 14 % later; 4 keeps d-mod-k's time there (see
    /// `docs/models.md`).
    pub adaptive_threshold: u32,
    /// InfiniBand's service levels as two virtual lanes with a high- and a
    /// low-priority arbitration table (`None`: one lane, every input in the port's
    /// round-robin).
    pub priority: Option<Priority>,
}

/// Two virtual lanes per link, as InfiniBand's VL arbitration serves them: messages of
/// at most `up_to` bytes travel on the high-priority lane, the others on the low one.
/// Each lane has buffers (and credits) of its own at every hop. An output port sends
/// from the high lane whenever one of its packets may go, except that after `limit`
/// bytes of high-priority packets in a row, while a low-priority packet waited, one
/// low-priority packet goes first (InfiniBand's LimitOfHighPriority); round-robin
/// within each lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Priority {
    /// The largest message (payload bytes) that travels on the high-priority lane.
    pub up_to: u64,
    /// Bytes of high-priority packets a port may send in a row while a low-priority
    /// packet waits (`u64::MAX`: no limit; 0: the lanes alternate).
    pub limit: u64,
}

/// How the packet network routes: the platform's static routes, detours where the
/// topology offers them (a dragonfly's groups), or choices among minimal routes (a fat
/// tree's parent ports, a torus's dimensions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routing {
    /// The platform's own (minimal) route for every packet.
    Minimal,
    /// Valiant: each packet goes through a random group other than its source's, then
    /// to its destination (minimal when that group is the destination's).
    Valiant,
    /// UGAL-L: each packet takes its minimal route or one random Valiant detour,
    /// whichever has the smaller product of hops and packets queued for its first
    /// output at the source router.
    Ugal,
    /// Adaptive: on a fat tree each climb takes the least loaded parent port of its
    /// switch, on a torus each hop the least loaded of the dimensions left to correct
    /// (packets queued for the port or in service), decided as the packet enters the
    /// switch; on a dragonfly, progressive adaptive routing: a packet starts minimal
    /// and may turn to a random Valiant detour at each router of its source group
    /// (UGAL-L's rule at each).
    Adaptive,
}

impl Routing {
    /// The routings' names, as [`Routing::by_name`] takes them.
    pub const NAMES: [&'static str; 4] = ["minimal", "valiant", "ugal", "adaptive"];

    /// A routing by name.
    pub fn by_name(name: &str) -> Option<Routing> {
        match name {
            "minimal" => Some(Routing::Minimal),
            "valiant" => Some(Routing::Valiant),
            "ugal" => Some(Routing::Ugal),
            "adaptive" => Some(Routing::Adaptive),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Routing::Minimal => "minimal",
            Routing::Valiant => "valiant",
            Routing::Ugal => "ugal",
            Routing::Adaptive => "adaptive",
        }
    }

    /// Whether it draws random numbers (from the seed): detours, and adaptive
    /// routing's on a dragonfly.
    pub fn draws(self) -> bool {
        matches!(self, Routing::Valiant | Routing::Ugal | Routing::Adaptive)
    }

    /// Refuses a routing that has no choice to make on `platform`, saying what the
    /// platform lacks (`has no ...`).
    pub fn fits(self, platform: &simpi_platform::Platform) -> Result<(), &'static str> {
        let (ok, needs) = match self {
            Routing::Minimal => (true, ""),
            Routing::Valiant | Routing::Ugal => (
                platform.has_detours(),
                "no dragonfly, the only topology with detours (fat trees and tori have adaptive)",
            ),
            Routing::Adaptive => (
                platform.has_minimal_choices() || platform.has_detours(),
                "no fat tree, torus or dragonfly, the topologies adaptive routing is built for",
            ),
        };
        if ok {
            Ok(())
        } else {
            Err(needs)
        }
    }
}

impl PacketParams {
    /// A generic network: 2 KiB packets without headers, buffers sized to each link's
    /// round trip with virtual output queues, routers that forward at once (so an idle
    /// path takes the flow model's time plus the pipelining of packets) and serve
    /// transit packets before injected ones.
    pub fn generic() -> PacketParams {
        PacketParams {
            mtu: 2048,
            header: 0,
            buffer: 0,
            router_delay: SimTime::ZERO,
            voq: true,
            transit_first: true,
            routing: Routing::Minimal,
            seed: 0,
            adaptive_threshold: 4,
            priority: None,
        }
    }

    /// InfiniBand as the LogGOPSim + InfiniBand thesis simulated it: 2,176-byte
    /// packets carrying 20 bytes of headers (LRH and BTH), 4 packets of buffer per
    /// virtual lane in one FIFO each, 100 ns through a switch, one round-robin over
    /// all inputs.
    pub fn ib() -> PacketParams {
        PacketParams {
            mtu: 2176,
            header: 20,
            buffer: 4 * 2176,
            router_delay: SimTime(100_000),
            voq: false,
            transit_first: false,
            routing: Routing::Minimal,
            seed: 0,
            adaptive_threshold: 4,
            priority: None,
        }
    }

    /// A dragonfly as CODES's synthetic dragonfly configuration (TraceR's network layer)
    /// sets it up: 512-byte packets without modelled headers, 4,096 bytes of buffer per
    /// virtual channel (CODES gives global links 8,192: one size here), one FIFO per
    /// channel, one round-robin over all inputs. Link bandwidths come from the platform
    /// (CODES's are 5.25 GiB/s local and terminal, 4.7 GiB/s global); CODES routes
    /// adaptively there, here `--routing` chooses.
    pub fn dragonfly() -> PacketParams {
        PacketParams {
            mtu: 512,
            header: 0,
            buffer: 4096,
            router_delay: SimTime::ZERO,
            voq: false,
            transit_first: false,
            routing: Routing::Minimal,
            seed: 0,
            adaptive_threshold: 4,
            priority: None,
        }
    }

    /// The presets' names, as [`PacketParams::by_name`] takes them.
    pub const NAMES: [&'static str; 3] = ["generic", "ib", "dragonfly"];

    /// A preset by name: `generic`, `ib` or `dragonfly`.
    pub fn by_name(name: &str) -> Option<PacketParams> {
        match name {
            "generic" => Some(PacketParams::generic()),
            "ib" => Some(PacketParams::ib()),
            "dragonfly" => Some(PacketParams::dragonfly()),
            _ => None,
        }
    }

    /// Payload bytes a full packet carries.
    pub fn payload(&self) -> u64 {
        self.mtu - self.header
    }

    /// Credits of one virtual channel's buffer (whole packets); 0 for buffers sized
    /// to each link's round trip.
    pub fn credits(&self) -> u64 {
        self.buffer / self.mtu
    }

    /// Checks that a packet carries at least one byte of payload and that a buffer
    /// (unless sized automatically) holds at least one packet.
    pub fn validate(&self) -> Result<(), Error> {
        let bad = |m: String| Err(Error::BadParameter(m));
        if self.mtu == 0 || self.mtu > u32::MAX as u64 {
            return bad(format!("packet size: {} bytes is not between 1 and 2^32-1", self.mtu));
        }
        if self.header >= self.mtu {
            return bad(format!(
                "packet header: {} bytes leaves no payload in a {}-byte packet",
                self.header, self.mtu
            ));
        }
        if self.buffer != 0 && self.buffer < self.mtu {
            return bad(format!(
                "packet buffer: {} bytes cannot hold one {}-byte packet",
                self.buffer, self.mtu
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_valid_and_carry_the_thesis_figures() {
        let ib = PacketParams::ib();
        ib.validate().unwrap();
        PacketParams::generic().validate().unwrap();
        // 2,176 B packets, 20 B of headers: 2,156 B of payload (the thesis's example:
        // a 10,000 B message leaves 7,844 B after its first packet).
        assert_eq!(ib.payload(), 2156);
        assert_eq!(10_000 - ib.payload(), 7844);
        assert_eq!(ib.credits(), 4);
        // CODES's synthetic dragonfly: 4,096-byte channels of 512-byte packets.
        let df = PacketParams::by_name("dragonfly").unwrap();
        df.validate().unwrap();
        assert_eq!((df.payload(), df.credits()), (512, 8));
    }

    #[test]
    fn packets_without_payload_or_buffers_without_room_are_refused() {
        let base = PacketParams::generic();
        let cases = [
            PacketParams { mtu: 0, ..base.clone() },
            PacketParams {
                header: 2048,
                ..base.clone()
            },
            PacketParams {
                buffer: 2047,
                ..base.clone()
            },
            PacketParams {
                mtu: 4096,
                buffer: 4095,
                ..base.clone()
            },
        ];
        for p in cases {
            assert!(matches!(p.validate(), Err(Error::BadParameter(_))), "{p:?}");
        }
    }
}
