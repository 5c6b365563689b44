//! Checks that the emulated network behaves as configured: TCP ping-pong latency and bulk
//! throughput between nodes 0 and 1, measured from sockets opened inside their namespaces.

use super::netns::on_thread_in;
use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the check measured.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    /// Median one-way time of a 1-byte TCP message (half a round trip), seconds.
    pub latency: f64,
    /// The same with the switch passing frames straight through: the hosts' own share.
    pub host_latency: f64,
    /// Bulk TCP goodput, bytes per second.
    pub bandwidth: f64,
}

const PORT: u16 = 47_123;
/// Round trips per repeat, half with the switch bypassed and half through the network,
/// alternating one by one so that both halves see the same machine state.
const ROUNDS: usize = 200;
const WARM_UP: usize = 20;
/// Repeats of the interleaved ping-pong; the quietest counts (noise from other processes
/// only ever adds time).
const REPEATS: usize = 5;
const BULK: usize = 8 << 20;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median half round trips of 1-byte messages on `s`, (host-only, through the network):
/// round trips alternate between the bypassed switch and the emulated network, after a
/// warm-up.
fn ping_pong(s: &mut TcpStream, bypass: &AtomicBool) -> Result<(f64, f64), String> {
    let mut byte = [7u8; 1];
    let (mut host, mut net) = (Vec::with_capacity(ROUNDS / 2), Vec::with_capacity(ROUNDS / 2));
    for i in 0..ROUNDS + WARM_UP {
        let bypassed = i % 2 == 0;
        bypass.store(bypassed, Ordering::SeqCst);
        let t = Instant::now();
        s.write_all(&byte).map_err(|e| e.to_string())?;
        s.read_exact(&mut byte).map_err(|e| e.to_string())?;
        let rtt = t.elapsed().as_secs_f64();
        if i >= WARM_UP {
            if bypassed { &mut host } else { &mut net }.push(rtt);
        }
    }
    bypass.store(false, Ordering::SeqCst);
    Ok((median(&mut host) / 2.0, median(&mut net) / 2.0))
}

/// Keeps every CPU busy at the lowest priority while it lives, so that no wake-up pays
/// for leaving an idle state (as during an MPI run, whose ranks poll).
struct Busy {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Busy {
    fn start() -> Busy {
        let stop = Arc::new(AtomicBool::new(false));
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let threads = (0..cpus)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    // SAFETY: changes only this thread's scheduling policy.
                    unsafe {
                        let p = libc::sched_param { sched_priority: 0 };
                        libc::sched_setscheduler(0, libc::SCHED_IDLE, &p);
                    }
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        Busy { stop, threads }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Measures between the namespaces `a` (client) and `b` (server at `b_addr`): round trips
/// alternately with the switch bypassed (`bypass` set) and through the emulated network,
/// then bulk throughput through the network.
pub fn measure(a: &str, b: &str, b_addr: Ipv4Addr, bypass: Arc<AtomicBool>) -> Result<Measured, String> {
    let _busy = Busy::start();
    let io = |e: std::io::Error| e.to_string();
    let server = on_thread_in(b, move || {
        let l = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, PORT)).map_err(io)?;
        let (mut s, _) = l.accept().map_err(io)?;
        s.set_nodelay(true).map_err(io)?;
        let mut byte = [0u8; 1];
        for _ in 0..REPEATS * (ROUNDS + WARM_UP) {
            s.read_exact(&mut byte).map_err(io)?;
            s.write_all(&byte).map_err(io)?;
        }
        let mut buf = vec![0u8; 1 << 16];
        let mut got = 0;
        while got < BULK {
            let r = s.read(&mut buf).map_err(io)?;
            if r == 0 {
                return Err("the bulk transfer ended early".into());
            }
            got += r;
        }
        s.write_all(&[1]).map_err(io)?;
        Ok(())
    });
    let client = on_thread_in(a, move || {
        let addr = SocketAddrV4::new(b_addr, PORT);
        let start = Instant::now();
        let mut s = loop {
            match TcpStream::connect_timeout(&addr.into(), Duration::from_secs(2)) {
                Ok(s) => break s,
                Err(e) if start.elapsed() > Duration::from_secs(10) => return Err(format!("connect: {e}")),
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        };
        s.set_nodelay(true).map_err(io)?;
        // Host and network figures come from the same repeat, so that their difference is
        // the network's share of one machine state.
        let (mut host_latency, mut latency) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..REPEATS {
            let (h, l) = ping_pong(&mut s, &bypass)?;
            if l < latency {
                (host_latency, latency) = (h, l);
            }
        }
        let mut byte = [0u8; 1];
        let chunk = vec![0u8; 1 << 16];
        let t = Instant::now();
        let mut sent = 0;
        while sent < BULK {
            let k = chunk.len().min(BULK - sent);
            s.write_all(&chunk[..k]).map_err(io)?;
            sent += k;
        }
        s.read_exact(&mut byte).map_err(io)?;
        let bandwidth = BULK as f64 / t.elapsed().as_secs_f64();
        Ok(Measured {
            latency,
            host_latency,
            bandwidth,
        })
    });
    let m = client.join().map_err(|_| "the client thread panicked".to_string())??;
    server.join().map_err(|_| "the server thread panicked".to_string())??;
    Ok(m)
}
