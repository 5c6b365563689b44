//! SMPI's point-to-point protocol: which sends are detached (the sender goes on after
//! its overhead) and which wait for their receiver (rendezvous), which messages start
//! flowing before their receive is posted, the software overheads on either side, the
//! envelope added to every message, and what MPI_Test costs. A network model moves the
//! bytes; this says when and how many (seeds: smpi-hybrid-model-ethernet-tcp, section 4).

use simpi_net::Piecewise;

/// The protocol settings of an SMPI-style run.
#[derive(Clone, Debug, PartialEq)]
pub struct Protocol {
    /// Sender overhead of a detached send, `a + b·size` seconds.
    pub os: Piecewise,
    /// Receiver overhead after a message from a detached sender, `a + b·size`.
    pub or: Piecewise,
    /// Messages below this many bytes start flowing before their receive is posted.
    pub async_small: u64,
    /// Sends below this many bytes are detached: the sender continues after `os`.
    pub detached: u64,
    /// Bytes added to every message on the network (the MPI envelope).
    pub envelope: u64,
    /// Every message flows as soon as it is sent and every send is detached (the plain
    /// `flow` model).
    pub eager_all: bool,
    /// SMPI's `smpi/grow-injected-times`: every MPI_Test that finds its request not yet
    /// complete makes the next test's cost one base cost longer, until a test finds its
    /// request complete (one count for the whole simulation, as in SMPI).
    pub grow_test_costs: bool,
    /// The overheads `os`, `or` and the cost of tests are work for the rank's CPU, so
    /// ranks that share CPUs share it (a calibrated MPI over TCP). Off, they are time
    /// the rank waits, as SMPI's are (sleeps).
    pub cpu_overheads: bool,
    /// How much of a CPU a rank waiting inside MPI claims, relative to a rank that works
    /// (0 to 1): an MPI that spins in its progress loop (Open MPI, MPICH) takes a share
    /// of shared CPUs from the ranks that work; one that yields takes less; 0 is SMPI's
    /// (waiting costs nothing).
    pub busy_wait: f64,
    /// CPU work, in seconds per byte, that each end of a message between two hosts
    /// costs the CPU pool its rank shares (the kernel's network stack, and on an
    /// emulated cluster its software switch): it runs beside the transfer, and the
    /// message arrives when the transfer and the work of both ends are done. Ranks with
    /// CPUs of their own do it on spare cycles, unseen; ranks of one host exchange
    /// through memory, without it. 0 (SMPI's): none.
    pub stack_per_byte: f64,
    /// CPU work, in seconds, that each end of a message between two hosts costs its
    /// pool whatever the message's size (the stack's and the switch's fixed work and
    /// wake-ups), run as `stack_per_byte`'s is, in the same task. 0 (SMPI's): none.
    pub stack_per_message: f64,
    /// Seconds before a rank on a host with more ranks than cores notices a message
    /// that arrives while its receive is posted: the kernel has to run it among the
    /// other ranks there, which wait in MPI's progress loop. Added to such a receive's
    /// completion, and to that of a rendezvous or synchronous send waiting on it (a
    /// message that was in before its receive is found at once); ranks with CPUs of
    /// their own, and one-sided requests their NIC serves, never wait for it. 0
    /// (SMPI's): none.
    pub wake_delay: f64,
}

/// The largest [`Protocol::wake_delay`] accepted, in seconds: far above any scheduler's
/// (milliseconds), low enough that a run's sum of them stays inside the clock's range.
pub const MAX_WAKE_DELAY: f64 = 1.0;

impl Protocol {
    /// SimGrid 3.32's SMPI defaults: detached below 65536 bytes, nothing sent before its
    /// receive is posted, no overheads, a 16-byte envelope, growing test costs.
    pub fn smpi() -> Protocol {
        Protocol {
            os: Piecewise::default(),
            or: Piecewise::default(),
            async_small: 0,
            detached: 65536,
            envelope: 16,
            eager_all: false,
            grow_test_costs: true,
            cpu_overheads: false,
            busy_wait: 0.0,
            stack_per_byte: 0.0,
            stack_per_message: 0.0,
            wake_delay: 0.0,
        }
    }

    /// SMPI's thresholds without its envelope: the protocol of the uncalibrated hybrid
    /// model.
    pub fn plain() -> Protocol {
        Protocol {
            envelope: 0,
            ..Protocol::smpi()
        }
    }

    /// The plain flow model's protocol: every message flows when it is sent, every send
    /// is detached, tests cost what they say.
    pub fn flow() -> Protocol {
        Protocol {
            eager_all: true,
            grow_test_costs: false,
            ..Protocol::plain()
        }
    }

    /// True if a send of `size` bytes is detached.
    #[inline]
    pub fn is_detached(&self, size: u64) -> bool {
        self.eager_all || size < self.detached
    }

    /// True if a message of `size` bytes flows before its receive is posted.
    #[inline]
    pub fn flows_early(&self, size: u64) -> bool {
        self.eager_all || size < self.async_small
    }

    /// Checks the settings: overheads finite and not negative at every size, and the
    /// asynchronous threshold not above the detached one (as SimGrid requires).
    pub fn validate(&self) -> Result<(), String> {
        for (name, p) in [("os", &self.os), ("or", &self.or)] {
            p.check_width(2).map_err(|why| format!("{name}: {why} (a + b·size)"))?;
            if let Some(v) = p.values().find(|v| !(v.is_finite() && *v >= 0.0)) {
                return Err(format!("{name}: {v} is not a finite number >= 0"));
            }
        }
        if !(0.0..=1.0).contains(&self.busy_wait) {
            return Err(format!("busy_wait: {} is not a number from 0 to 1", self.busy_wait));
        }
        if !(self.stack_per_byte.is_finite() && self.stack_per_byte >= 0.0) {
            return Err(format!(
                "stack_per_byte: {} is not a finite number >= 0",
                self.stack_per_byte
            ));
        }
        if !(self.stack_per_message.is_finite() && self.stack_per_message >= 0.0) {
            return Err(format!(
                "stack_per_message: {} is not a finite number >= 0",
                self.stack_per_message
            ));
        }
        if !(0.0..=MAX_WAKE_DELAY).contains(&self.wake_delay) {
            return Err(format!(
                "wake_delay: {} is not a number of seconds from 0 to {MAX_WAKE_DELAY}",
                self.wake_delay
            ));
        }
        if self.async_small > self.detached {
            return Err("the asynchronous threshold must not exceed the detached one (as in SimGrid)".into());
        }
        Ok(())
    }
}
