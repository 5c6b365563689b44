//! The measurements `simpi calibrate` fits, as its measurement program writes them:
//! one sample per line, `<kind> <bytes> <value>`:
//!
//! - `pingpong B s`: one-way time of a B-byte message (half a ping-pong's round trip);
//! - `send B s`: time in MPI_Send of B bytes while the receiver is late;
//! - `recv B s`: time in MPI_Recv of B bytes posted after the message had time to
//!   arrive (the receive overhead, if the message flowed before its receive);
//! - `gap B s`: time per message of a stream of back-to-back B-byte sends, at the
//!   receiver;
//! - `bidir B s`: time of an exchange of B bytes each way at once (MPI_Sendrecv);
//! - `alltoall B s`: time for every rank to send B bytes to every other and receive B
//!   from each at once, the slowest rank's;
//! - `ring B s`: time for every rank to send B bytes to the next and receive B from the
//!   one before at once, the slowest rank's;
//!
//!   both below 64 KiB: the mean of 20 such rounds in a row (each rank's next round
//!   after its last one's messages);
//! - `token B s`: time per hop of a B-byte token passed around every rank 10 times
//!   (one message in flight, the other ranks waiting for theirs);
//! - `ranks N 0`: the ranks of the run;
//! - `flops 0 r`: flop rate of one rank's compute kernel, every rank running it;
//! - `solo 0 r`: rank 0's kernel while the other ranks sleep outside MPI;
//! - `spin K r`: rank 0's kernel while the K other ranks wait inside MPI;
//! - `detached B 0`: the smallest size whose MPI_Send waited for its late receiver
//!   (found by bisection; absent if no measured size waited).
//!
//! Lines starting with `#` are comments.

use crate::Error;
use std::collections::BTreeMap;
use std::path::Path;

/// A kind of measurement.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// One-way time from a ping-pong.
    PingPong,
    /// Time in MPI_Send, receiver late.
    Send,
    /// Time in MPI_Recv of an arrived message.
    Recv,
    /// Time per message of a stream.
    Gap,
    /// Time of a simultaneous exchange, one message each way.
    Bidir,
    /// Time of every rank sending to every other at once.
    Alltoall,
    /// Time of every rank sending to the next at once.
    Ring,
    /// Time per hop of a token passed around the ranks.
    Token,
}

impl Kind {
    /// Its name in the file.
    pub fn name(self) -> &'static str {
        match self {
            Kind::PingPong => "pingpong",
            Kind::Send => "send",
            Kind::Recv => "recv",
            Kind::Gap => "gap",
            Kind::Bidir => "bidir",
            Kind::Alltoall => "alltoall",
            Kind::Ring => "ring",
            Kind::Token => "token",
        }
    }
}

/// Every sample, by kind and size.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measurements {
    /// Times in seconds by kind, then by size in bytes.
    pub times: BTreeMap<Kind, BTreeMap<u64, Vec<f64>>>,
    /// Flop rates of the compute kernel.
    pub flops: Vec<f64>,
    /// Rank 0's kernel rates with the others asleep.
    pub solo: Vec<f64>,
    /// Rank 0's kernel rates with the others waiting in MPI, and how many those are.
    pub spin: Vec<(u64, f64)>,
    /// The smallest size whose send waited for its receiver, if one did.
    pub detached: Option<u64>,
    /// The ranks of the run that measured the all-to-all (of the run, if none did).
    pub ranks: Option<u64>,
    /// Where `ranks` was read (`file:line`), for errors about it.
    pub ranks_at: Option<String>,
}

impl Measurements {
    /// Adds one time sample.
    pub fn add(&mut self, kind: Kind, bytes: u64, seconds: f64) {
        self.times
            .entry(kind)
            .or_default()
            .entry(bytes)
            .or_default()
            .push(seconds);
    }

    /// The median of each size's samples of `kind`, sorted by size.
    pub fn medians(&self, kind: Kind) -> Vec<(u64, f64)> {
        self.times
            .get(&kind)
            .map(|m| m.iter().map(|(&b, v)| (b, median(v))).collect())
            .unwrap_or_default()
    }

    /// Each size's median of `kind` with its standard error relative to it: from the
    /// samples' spread (1.4826 median absolute deviations estimate a normal standard
    /// deviation; a median's error is 1.2533 σ/√n). Sizes with fewer than three samples
    /// take the median of the others' errors (1 % if none has three); no error is
    /// taken below that median, so a size whose samples agree by chance does not
    /// outweigh the rest (nor make a breakpoint of its own).
    pub fn medians_with_errors(&self, kind: Kind) -> Vec<(u64, f64, f64)> {
        let Some(by_size) = self.times.get(&kind) else {
            return Vec::new();
        };
        let est: Vec<(u64, f64, Option<f64>)> = by_size
            .iter()
            .map(|(&b, v)| {
                let med = median(v);
                let se = (v.len() >= 3 && med > 0.0).then(|| {
                    let dev: Vec<f64> = v.iter().map(|x| (x - med).abs()).collect();
                    1.2533 * 1.4826 * median(&dev) / (v.len() as f64).sqrt() / med
                });
                (b, med, se)
            })
            .collect();
        let known: Vec<f64> = est.iter().filter_map(|e| e.2).collect();
        let typical = if known.is_empty() { 0.01 } else { median(&known) };
        let floor = typical.max(1e-6);
        est.into_iter()
            .map(|(b, m, se)| (b, m, se.unwrap_or(typical).max(floor)))
            .collect()
    }

    /// The samples as the measurement program writes them.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for (kind, by_size) in &self.times {
            for (bytes, v) in by_size {
                for x in v {
                    s.push_str(&format!("{} {bytes} {x:.9e}\n", kind.name()));
                }
            }
        }
        for f in &self.flops {
            s.push_str(&format!("flops 0 {f:.9e}\n"));
        }
        for f in &self.solo {
            s.push_str(&format!("solo 0 {f:.9e}\n"));
        }
        for (k, f) in &self.spin {
            s.push_str(&format!("spin {k} {f:.9e}\n"));
        }
        if let Some(d) = self.detached {
            s.push_str(&format!("detached {d} 0\n"));
        }
        if let Some(n) = self.ranks {
            s.push_str(&format!("ranks {n} 0\n"));
        }
        s
    }

    /// Adds the samples of another run (`other`, read from `name`): a pair measured
    /// alone and a shared machine's CPUs, say. The all-to-all keeps the rank count of
    /// the run that measured it; two runs that both did must agree on it.
    pub fn merge(&mut self, other: Measurements, name: &str) -> Result<(), Error> {
        let shared = |m: &Measurements| {
            m.times.contains_key(&Kind::Alltoall)
                || m.times.contains_key(&Kind::Ring)
                || m.times.contains_key(&Kind::Token)
        };
        let (theirs, ours) = (shared(&other), shared(self));
        if theirs && ours && other.ranks != self.ranks {
            return Err(Error::Input(format!(
                "{name}: its all-to-all ran on {} ranks, another file's on {}: fit them apart",
                other.ranks.unwrap_or(0),
                self.ranks.unwrap_or(0)
            )));
        }
        if theirs || !ours && self.ranks.is_none() {
            self.ranks = other.ranks;
            self.ranks_at = other.ranks_at;
        }
        for (kind, by_size) in other.times {
            for (bytes, v) in by_size {
                self.times.entry(kind).or_default().entry(bytes).or_default().extend(v);
            }
        }
        self.flops.extend(other.flops);
        self.solo.extend(other.solo);
        self.spin.extend(other.spin);
        self.detached = self.detached.or(other.detached);
        Ok(())
    }
}

/// The median of a non-empty list (the mean of the middle two for an even count).
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// Reads a measurements file.
pub fn read(path: &Path) -> Result<Measurements, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: path.display().to_string(),
        msg: format!("cannot read the measurements: {e}"),
    })?;
    let name = path.display().to_string();
    let m = parse(&text, &name)?;
    check_fittable(&m, &name)?;
    Ok(m)
}

/// Largest message size a sample may have: 2^50 bytes (a petabyte), beyond any one MPI
/// message, so that sizes plus an envelope and fitted segment bounds stay far from
/// the 64-bit edge.
pub const MAX_BYTES: u64 = 1 << 50;

/// Longest time a sample may measure, in seconds (about 11.6 days): every time a fit
/// derives from it stays within simulated time's range (about 213 days).
pub const MAX_SECONDS: f64 = 1e6;

/// Parses a measurements file's text; `name` is the file's name in errors.
pub fn parse(text: &str, name: &str) -> Result<Measurements, Error> {
    let mut m = Measurements::default();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |msg: &str| Error::Input(format!("{name}:{}: {msg}", i + 1));
        let w: Vec<&str> = line.split_whitespace().collect();
        let [kind, bytes, value] = w.as_slice() else {
            return Err(bad("expected '<kind> <bytes> <value>'"));
        };
        let bytes: u64 = bytes.parse().map_err(|_| bad("the size is a whole number of bytes"))?;
        let value: f64 = value
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| bad("the value is a finite number >= 0"))?;
        // (A rank count or a flop rate's zero is far below it too.)
        if bytes > MAX_BYTES {
            return Err(bad("a message size is at most 2^50 bytes"));
        }
        let kind = match *kind {
            "pingpong" => Kind::PingPong,
            "send" => Kind::Send,
            "recv" => Kind::Recv,
            "gap" => Kind::Gap,
            "bidir" => Kind::Bidir,
            "alltoall" => Kind::Alltoall,
            "ring" => Kind::Ring,
            "token" => Kind::Token,
            "flops" | "solo" | "spin" => {
                if value <= 0.0 {
                    return Err(bad("a flop rate is positive"));
                }
                match *kind {
                    "flops" => m.flops.push(value),
                    "solo" => m.solo.push(value),
                    _ => m.spin.push((bytes, value)),
                }
                continue;
            }
            "detached" => {
                m.detached = Some(bytes);
                continue;
            }
            "ranks" => {
                if bytes < 2 {
                    return Err(bad("a run has at least two ranks"));
                }
                if m.ranks.is_some_and(|n| n != bytes) {
                    return Err(bad("a second rank count: one run's samples per file"));
                }
                m.ranks = Some(bytes);
                m.ranks_at = Some(format!("{name}:{}", i + 1));
                continue;
            }
            other => {
                return Err(bad(&format!(
                    "'{other}' is not a measurement: expected pingpong, send, recv, gap, bidir, alltoall, ring, token, flops, solo, spin, detached or ranks"
                )))
            }
        };
        if value > MAX_SECONDS {
            return Err(bad("a measured time is at most 1e6 s"));
        }
        m.add(kind, bytes, value);
    }
    Ok(m)
}

/// Checks that `m` (read from `name`) has what every fit needs: ping-pong samples.
pub fn check_fittable(m: &Measurements, name: &str) -> Result<(), Error> {
    if m.times.get(&Kind::PingPong).is_none_or(|p| p.is_empty()) {
        return Err(Error::Input(format!("{name}: no pingpong sample: nothing to fit")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_are_grouped_and_medians_taken() {
        let m = parse(
            "# c\npingpong 8 3e-5\npingpong 8 1e-5\npingpong 8 2e-5\npingpong 1 4e-5\npingpong 1 1e-5\nflops 0 1e9\ndetached 65536 0\nranks 8 0\nalltoall 262144 0.03\n",
            "m.txt",
        )
        .unwrap();
        assert_eq!(m.medians(Kind::PingPong), vec![(1, 2.5e-5), (8, 2e-5)]);
        assert_eq!(
            (m.flops.clone(), m.detached, m.ranks),
            (vec![1e9], Some(65536), Some(8))
        );
        assert_eq!(m.medians(Kind::Alltoall), vec![(262144, 0.03)]);
        let mut again = parse(&m.to_text(), "again").unwrap();
        assert_eq!(again.ranks_at.as_deref(), Some("again:9"));
        again.ranks_at.clone_from(&m.ranks_at);
        assert_eq!(again, m);
    }

    #[test]
    fn faults_are_named_with_their_line() {
        let e = parse("pingpong 8 1e-5\nping 8 1\n", "m.txt").unwrap_err().to_string();
        assert!(e.starts_with("m.txt:2: 'ping' is not"), "{e}");
        let e = parse("pingpong 8 1e-5\npingpong 18446744073709551615 1e-3\n", "m.txt")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "m.txt:2: a message size is at most 2^50 bytes");
        let e = parse("pingpong 8 1e-5\ndetached 1125899906842625 0\n", "m.txt")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "m.txt:2: a message size is at most 2^50 bytes");
        let e = parse("pingpong 8 1e10\n", "m.txt").unwrap_err().to_string();
        assert_eq!(e, "m.txt:1: a measured time is at most 1e6 s");
        assert!(parse("pingpong 1125899906842624 1e6\n", "m.txt").is_ok());
        let e = parse("pingpong 8 -1\n", "m.txt").unwrap_err().to_string();
        assert!(e.starts_with("m.txt:1:"), "{e}");
        let m = parse("send 8 1e-6\n", "m.txt").unwrap();
        let e = check_fittable(&m, "m.txt").unwrap_err().to_string();
        assert!(e.contains("no pingpong"), "{e}");
        let e = parse("ranks 2 0\nranks 8 0\n", "m.txt").unwrap_err().to_string();
        assert!(e.starts_with("m.txt:2:"), "{e}");
    }

    #[test]
    fn runs_merge_with_the_all_to_all_keeping_its_rank_count() {
        let pair = parse("ranks 2 0\npingpong 8 1e-5\nspin 1 2e9\n", "pair").unwrap();
        let cpus = parse("ranks 8 0\nalltoall 65536 0.1\nspin 7 1e9\nflops 0 1e9\n", "cpus").unwrap();
        let mut a = pair.clone();
        a.merge(cpus.clone(), "cpus").unwrap();
        let mut b = cpus.clone();
        b.merge(pair, "pair").unwrap();
        for m in [&a, &b] {
            assert_eq!(m.ranks, Some(8));
            assert_eq!(m.medians(Kind::PingPong), vec![(8, 1e-5)]);
            assert_eq!(m.spin.len(), 2);
        }
        let other = parse("ranks 4 0\nalltoall 65536 0.1\n", "four").unwrap();
        let e = a.merge(other, "four").unwrap_err().to_string();
        assert!(e.starts_with("four: its all-to-all ran on 4 ranks"), "{e}");
    }
}
