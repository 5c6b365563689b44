//! Calibration: fit the hybrid model (thresholds, overheads, piece-wise latency and
//! bandwidth factors) and LogGOPS to measurements of a real network, as `simpi
//! calibrate` does. The measurements come from a program run with the user's MPI
//! (`simpi_tracer::calibrate`); this module only reads and fits them, so a fit can be
//! checked on data whose answer is known.

mod converging;
pub mod fit;
pub mod measurements;
mod plot;
pub mod segmented;

pub use fit::{fit, Calibration, Fitted, Route};
pub use measurements::{Kind, Measurements};
pub use plot::fit_plot;

/// A report of a calibration: the fitted parameters, then each fit's points with their
/// residuals and its mean and worst |ln(fitted/measured)|.
pub fn report(c: &Calibration) -> String {
    let p = &c.file.preset;
    let mut s: String = c.notes.iter().map(|n| format!("note: {n}\n")).collect();
    if let Some(f) = c.fits.first() {
        let (mean, worst) = f.errors();
        if mean > 0.05 || worst > 0.25 {
            s.push_str(&format!(
                "warning: the fitted model misses the measured {} by {mean:.3} on average and {worst:.3} at worst \
                 (|ln|): the overheads measured alone may not add up to the one-way times (see the tables)\n",
                f.what
            ));
        }
    }
    s.push_str(&format!(
        "thresholds: detached below {} bytes, flowing before the receive below {} bytes\n",
        p.protocol.detached, p.protocol.async_small
    ));
    let seg = |pw: &simpi_net::Piecewise, unit: &str| {
        pw.segments()
            .iter()
            .map(|(b, v)| match v.as_slice() {
                [a, k] => format!("  > {b} B: {:.3} us + {:.4} ns/B\n", a * 1e6, k * 1e9),
                [f] => format!("  > {b} B: {f:.4}{unit}\n"),
                _ => String::new(),
            })
            .collect::<String>()
    };
    s.push_str(&format!("send overhead os:\n{}", seg(&p.protocol.os, "")));
    s.push_str(&format!("receive overhead or:\n{}", seg(&p.protocol.or, "")));
    s.push_str(&format!(
        "latency factor (size + {} B envelope):\n{}",
        p.protocol.envelope,
        seg(&p.network.lat_factor, "")
    ));
    s.push_str(&format!("bandwidth factor:\n{}", seg(&p.network.bw_factor, "")));
    if let Some(c) = p.network.cross_traffic {
        s.push_str(&format!(
            "cross-traffic (weight of the reverse traffic, from the exchanges): {c:.4}\n"
        ));
    }
    if let Some(l) = &c.file.loggops {
        s.push_str(&format!(
            "LogGOPS: L={:.3} us o={:.3} us g={:.3} us G={:.4} ns/B O={:.4} ns/B S={} B\n",
            l.l as f64 * 1e-6,
            l.o as f64 * 1e-6,
            l.g as f64 * 1e-6,
            l.big_g as f64 * 1e-3,
            l.big_o as f64 * 1e-3,
            l.s
        ));
    }
    if let Some(v) = c.file.host_speed {
        s.push_str(&format!("host speed: {:.4} Gflop/s per rank\n", v * 1e-9));
    }
    for f in &c.fits {
        let (mean, worst) = f.errors();
        s.push_str(&format!(
            "\n{}: mean |ln(fitted/measured)| {mean:.4}, worst {worst:.4}\n{:>10} {:>13} {:>13} {:>8}\n",
            f.what, "bytes", "measured us", "fitted us", "ln"
        ));
        for &(b, m, t) in &f.points {
            let ln = if m > 0.0 && t > 0.0 {
                format!("{:+.4}", (t / m).ln())
            } else {
                "-".into()
            };
            s.push_str(&format!("{b:>10} {:>13.3} {:>13.3} {ln:>8}\n", m * 1e6, t * 1e6));
        }
    }
    s
}

/// The route from host `a` to host `b` of `platform` as the fit needs it: the sum of
/// its latencies and its narrowest bandwidth.
pub fn route_between(
    platform: &simpi_platform::Platform,
    a: simpi_platform::HostId,
    b: simpi_platform::HostId,
) -> Result<Route, crate::Error> {
    let r = platform.route(a, b)?;
    let bandwidth = r
        .links
        .iter()
        .map(|&l| platform.link_bandwidth(l))
        .fold(f64::INFINITY, f64::min);
    Ok(Route {
        latency: r.latency,
        bandwidth,
        shared_cores: platform.shared_cores(),
    })
}
