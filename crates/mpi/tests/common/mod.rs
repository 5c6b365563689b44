//! Shared helpers of the closed-form collective tests.
//!
//! LogGOPS rules the derivations use (docs/models.md), with O = 0 and every message eager,
//! `b = size - 1` (so an empty message has b = -1 and credits one byte's G):
//! - a send starting at t occupies its CPU until t + o and its NIC until t + g + b·G;
//!   the next send of the rank starts at max(CPU, NIC); the message reaches the
//!   receiver at t + o + L;
//! - an arriving message is taken in at max(arrival, receiver CPU, receiver NIC) and
//!   occupies the CPU for o + b·G (the NIC for g + b·G, never longer since o ≥ g); the
//!   receive completes then (posted earlier or not: the CPU cost is paid on arrival);
//! - operations depending on a receive start when its CPU time is over;
//! - a rank ends when its CPU is last free.
//!
//! Times are in ns. Every golden value is computed from these rules per algorithm (the
//! derivations are in the comments), never from a run.

#![allow(dead_code)] // each test crate uses a different subset

use simpi_kernel::TimeUnit;
use simpi_mpi::coll::verify::loggops_end_times;
use simpi_mpi::coll::{find, Algorithm, CollSpec, Collective};
use simpi_net::LogGops;

/// The model parameters of one test (ns), O = 0, everything eager.
#[derive(Copy, Clone)]
pub struct P {
    pub l: i64,
    pub o: i64,
    pub g: i64,
    pub gg: i64,
}

impl P {
    pub fn model(self) -> LogGops {
        LogGops::from_units(
            TimeUnit::Ns,
            self.l as u64,
            self.o as u64,
            self.g as u64,
            self.gg as u64,
            0,
            1 << 40,
        )
    }
    /// Receiver CPU time of a message of `s` bytes: o + (s-1)·G.
    pub fn rx(self, s: u64) -> i64 {
        self.o + (s as i64 - 1) * self.gg
    }
    /// NIC time of a message of `s` bytes: g + (s-1)·G.
    pub fn nic(self, s: u64) -> i64 {
        self.g + (s as i64 - 1) * self.gg
    }
    /// Spacing of back-to-back sends of `s` bytes: max(o, g + (s-1)·G).
    pub fn gap(self, s: u64) -> i64 {
        self.o.max(self.nic(s))
    }
    /// Send start to receive done, uncontended: o + L + o + (s-1)·G.
    pub fn msg(self, s: u64) -> i64 {
        self.o + self.l + self.rx(s)
    }
}

pub const BASE: P = P {
    l: 5000,
    o: 300,
    g: 100,
    gg: 2,
};

/// Zero-byte messages with G = 0: sender o, receiver o, hop 2o + L.
pub const SYNC: P = P {
    l: 2000,
    o: 300,
    g: 100,
    gg: 0,
};

pub fn alg(coll: Collective, name: &str) -> &'static Algorithm {
    find(coll, name).unwrap_or_else(|| panic!("{coll}={name} is not registered"))
}

/// Every rank's end time (ns) of `a` on `n` ranks, rank r getting `spec(r)`.
pub fn run(a: &Algorithm, n: u32, p: P, spec: &dyn Fn(u32) -> CollSpec) -> Vec<i64> {
    loggops_end_times(a, n, spec, &p.model())
        .iter()
        .map(|&t| (t / 1000) as i64)
        .collect()
}

pub fn spec(coll: Collective, n: u32, me: u32, root: u32, bytes: u64) -> CollSpec {
    let mut s = CollSpec::new(coll, n, me, bytes);
    s.root = root;
    s
}

/// Per-rank counts, deterministic and uneven (1..=40 bytes, or with empty ones).
pub fn counts(n: u32, salt: u64, allow_zero: bool) -> Vec<u64> {
    (0..n as u64)
        .map(|i| {
            let v = (i * 7 + salt * 13 + i * i * 3) % 41;
            if allow_zero {
                v
            } else {
                v.max(1)
            }
        })
        .collect()
}

/// Times of a sequence of blocking send-receives, where in step `i` (1-based) every
/// rank r sends `send(r, i)` bytes and receives, from `from(r, i)`, the message that
/// rank sent in the same step (`recv(r, i)` bytes). `start[r]` is when r's first step
/// begins. Per step: receive done = max(partner's send + o + L, own send + o) + o + b·G;
/// the next step begins at max(that, own send + g + b_send·G) (CPU and NIC). Returns
/// every rank's time when its last receive is done. It assumes that every partner's
/// message arrives after the rank's own send of that step has started (ranks less than
/// o + L apart); otherwise the CPU would take that message in first and delay the send
/// (the non-power-of-two cases below that meet this are derived by hand).
pub fn sendrecv_steps(
    p: P,
    n: u32,
    steps: u32,
    start: Vec<i64>,
    from: &dyn Fn(u32, u32) -> u32,
    send: &dyn Fn(u32, u32) -> u64,
    recv: &dyn Fn(u32, u32) -> u64,
) -> Vec<i64> {
    sendrecv_steps_full(p, n, steps, start, from, send, recv).0
}

/// [`sendrecv_steps`], also returning when each rank could start its next step.
pub fn sendrecv_steps_full(
    p: P,
    n: u32,
    steps: u32,
    start: Vec<i64>,
    from: &dyn Fn(u32, u32) -> u32,
    send: &dyn Fn(u32, u32) -> u64,
    recv: &dyn Fn(u32, u32) -> u64,
) -> (Vec<i64>, Vec<i64>) {
    let mut t = start;
    let mut done = t.clone();
    for i in 1..=steps {
        let d: Vec<i64> = (0..n)
            .map(|r| {
                let f = from(r, i) as usize;
                (t[f] + p.o + p.l).max(t[r as usize] + p.o) + p.rx(recv(r, i))
            })
            .collect();
        t = (0..n)
            .map(|r| d[r as usize].max(t[r as usize] + p.nic(send(r, i))))
            .collect();
        done = d;
    }
    (done, t)
}

/// End times (by rank, root 0) of the binomial broadcast of `s` bytes. A message of s
/// bytes from an idle sender is received after m = o + L + o + (s-1)G. A rank sends to its
/// children one after the other, every c = max(o, g + (s-1)G), largest subtree first, so
/// the k-th child (from 0) of a rank that received at T has it at T + k·c + m. A rank
/// ends when its CPU is idle: at T without children, else o after its last send starts.
pub fn binomial_bcast_ends(p: P, n: u32, s: u64) -> Vec<i64> {
    let m = p.msg(s);
    let c = p.gap(s);
    let mut t = vec![0i64; n as usize];
    let mut end = vec![0i64; n as usize];
    // Ranks in increasing order: parents before children.
    for v in 0..n {
        let low = subtree_span(v, n);
        let children: Vec<u32> = (0..32)
            .rev()
            .map(|k| 1u32 << k)
            .filter(|&b| b < low && v + b < n)
            .collect();
        for (k, &b) in children.iter().enumerate() {
            t[(v + b) as usize] = t[v as usize] + k as i64 * c + m;
        }
        end[v as usize] = match children.len() {
            0 => t[v as usize],
            k => t[v as usize] + (k as i64 - 1) * c + p.o,
        };
    }
    end
}

/// In a binomial tree over relative ranks 0..n rooted at 0, how many ranks rank `v`'s
/// subtree could span: its lowest set bit (the next power of two for the root). Its
/// children are v + 2^j for the powers of two 2^j below that, with v + 2^j < n.
pub fn subtree_span(v: u32, n: u32) -> u32 {
    if v == 0 {
        n.next_power_of_two()
    } else {
        v & v.wrapping_neg()
    }
}
