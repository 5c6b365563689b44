//! `simpi calibrate -o preset.toml --platform P -- mpirun -np 2`: measures the network
//! with the user's MPI (`simpi_tracer::calibrate`), fits the hybrid model and LogGOPS
//! to it (`simpi::calibrate`), and writes the preset file `--preset FILE` reads, with a
//! report of every fit's residuals and, on request, a plot.

use crate::{EXIT_INPUT, EXIT_USAGE};
use clap::Args;
use simpi::calibrate::{self, measurements, Measurements};
use simpi::platform::HostId;
use simpi::{preset_file, values};
use simpi_tracer::calibrate::{CalibrateConfig, Part};
use simpi_tracer::Error;
use std::path::PathBuf;

/// Arguments of `simpi calibrate`.
#[derive(Args)]
pub struct CalibrateArgs {
    /// The preset file to write (`simpi replay --preset FILE`).
    #[arg(short = 'o', long, default_value = "simpi-preset.toml")]
    output: PathBuf,
    /// The platform that describes the measured machine: the fit's factors are
    /// relative to the route between the two measuring ranks' hosts. Read after the
    /// measurement, so `simpi testbed --platform-out` in the launcher can write it.
    #[arg(long, value_parser = values::path)]
    platform: PathBuf,
    /// The hosts of ranks 0 and 1, `NAME,NAME` [default: the platform's first two].
    #[arg(long, value_delimiter = ',', num_args = 2, value_name = "A,B")]
    hosts: Vec<String>,
    /// Message sizes in bytes [default: 0, then 1 B to --max-size at four sizes per
    /// factor of two].
    #[arg(long, value_delimiter = ',', value_name = "BYTES,...")]
    sizes: Vec<u64>,
    /// Largest message of the default sizes.
    #[arg(long, default_value = "4MiB", value_parser = values::file_size)]
    max_size: u64,
    /// Samples per size and kind (fewer for sizes whose ping-pong takes long).
    #[arg(long, default_value_t = 50, value_parser = values::at_least_one)]
    repeats: u32,
    /// Fit these measurements (as `--measurements` wrote them) instead of running the
    /// program; several files are merged (a pair's and a shared machine's, say: an
    /// all-to-all keeps the rank count of its own run).
    #[arg(long, value_name = "FILE", value_parser = values::path, conflicts_with_all = ["launcher", "shared_launcher"])]
    from: Vec<PathBuf>,
    /// Ranks that share CPUs: measure what they do (a waiting rank's claim on the
    /// cores, what moving bytes costs them) with this launcher, which starts more ranks
    /// than the machine has cores, e.g. `simpi testbed --nodes 8 --`; the launcher
    /// after `--` then measures the pair alone (give it two ranks).
    #[arg(long, value_name = "WORDS", requires = "launcher")]
    shared_launcher: Option<String>,
    /// Also keep every sample here.
    #[arg(long, value_name = "FILE")]
    measurements: Option<PathBuf>,
    /// Write the report here instead of standard output.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Write an SVG of measured against fitted times.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// The MPI compiler wrapper whose MPI is measured.
    #[arg(long, default_value = "mpicc")]
    mpicc: String,
    /// The launcher's words before the program (after `--`): `mpirun -np 2`, or
    /// `simpi testbed --nodes 2 --` for the emulated cluster.
    #[arg(last = true)]
    launcher: Vec<String>,
}

/// 0, then 1 B to `max` at four sizes per factor of two.
fn default_sizes(max: u64) -> Vec<u64> {
    let mut v = vec![0];
    let mut k = 0u32;
    loop {
        let s = 2f64.powf(k as f64 / 4.0).round() as u64;
        if s > max {
            break;
        }
        v.push(s);
        k += 1;
    }
    if v.last() != Some(&max) {
        v.push(max);
    }
    v.dedup();
    v
}

fn write(path: &PathBuf, text: &str) -> Result<(), (u8, String)> {
    std::fs::write(path, text).map_err(|e| (EXIT_INPUT, format!("{}: cannot write: {e}", path.display())))
}

/// Runs `simpi calibrate`.
pub fn run(a: CalibrateArgs) -> Result<(), (u8, String)> {
    let input = |e: simpi::Error| (EXIT_INPUT, e.to_string());
    // Each run's samples with the name its faults are reported under.
    let runs: Vec<(String, String)> = match a.from.as_slice() {
        [_, ..] => a
            .from
            .iter()
            .map(|f| {
                std::fs::read_to_string(f)
                    .map(|t| (t, f.display().to_string()))
                    .map_err(|e| (EXIT_INPUT, format!("{}: cannot read: {e}", f.display())))
            })
            .collect::<Result<_, _>>()?,
        [] => {
            if a.max_size > i32::MAX as u64 {
                return Err((
                    EXIT_USAGE,
                    format!(
                        "--max-size: {} bytes is more than one MPI_Send of bytes can carry",
                        a.max_size
                    ),
                ));
            }
            let mut sizes = if a.sizes.is_empty() {
                default_sizes(a.max_size)
            } else {
                a.sizes.clone()
            };
            sizes.sort_unstable();
            sizes.dedup();
            let measure = |launcher: Vec<String>, part: Part| {
                let c = CalibrateConfig {
                    mpicc: a.mpicc.clone(),
                    launcher,
                    sizes: sizes.clone(),
                    repeats: a.repeats,
                    part,
                };
                simpi_tracer::calibrate::run(&c).map_err(|e| match e {
                    Error::Usage(m) => (EXIT_USAGE, m),
                    e => (EXIT_INPUT, e.to_string()),
                })
            };
            match &a.shared_launcher {
                None => vec![(
                    measure(a.launcher.clone(), Part::All)?,
                    "the measurement program".into(),
                )],
                Some(words) => {
                    let shared: Vec<String> = words.split_whitespace().map(String::from).collect();
                    if shared.is_empty() {
                        return Err((EXIT_USAGE, "--shared-launcher: no words".into()));
                    }
                    vec![
                        (
                            measure(a.launcher.clone(), Part::Pair)?,
                            "the pair's measurement".into(),
                        ),
                        (measure(shared, Part::Cpus)?, "the shared CPUs' measurement".into()),
                    ]
                }
            }
        }
    };
    let mut m = Measurements::default();
    for (text, name) in &runs {
        m.merge(measurements::parse(text, name).map_err(input)?, name)
            .map_err(input)?;
    }
    let source: Vec<&str> = runs.iter().map(|r| r.1.as_str()).collect();
    let source = source.join(" + ");
    if let Some(p) = &a.measurements {
        // One run's text as it came; several runs' samples merged (re-read as one).
        let text = match runs.as_slice() {
            [(t, _)] => t.clone(),
            _ => m.to_text(),
        };
        write(p, &text)?;
    }
    measurements::check_fittable(&m, &source).map_err(input)?;
    // The platform is read after the measurement: a testbed launcher may write it.
    let platform = simpi::platform::load(&a.platform).map_err(|e| (EXIT_INPUT, e.to_string()))?;
    let (ha, hb) = match a.hosts.as_slice() {
        [] if platform.num_hosts() >= 2 => (HostId(0), HostId(1)),
        [] => {
            return Err((
                EXIT_INPUT,
                format!(
                    "{}: the platform needs two hosts to measure between",
                    a.platform.display()
                ),
            ))
        }
        [x, y] => {
            let find = |n: &str| {
                platform.host_by_name(n).ok_or_else(|| {
                    (
                        EXIT_USAGE,
                        format!("--hosts: no host '{n}' in {}", a.platform.display()),
                    )
                })
            };
            (find(x)?, find(y)?)
        }
        _ => return Err((EXIT_USAGE, "--hosts takes two host names".into())),
    };
    let route = calibrate::route_between(&platform, ha, hb).map_err(input)?;
    let c = calibrate::fit(&m, route).map_err(input)?;
    let how = match (a.from.is_empty(), &a.shared_launcher) {
        (false, _) => format!("from the measurements in {source}"),
        (true, None) => format!("from measurements taken with: {}", a.launcher.join(" ")),
        (true, Some(s)) => format!(
            "from measurements taken with: {} (the pair) and {s} (shared CPUs)",
            a.launcher.join(" ")
        ),
    };
    let comment = format!(
        "simpi preset fitted by simpi calibrate {how}\n\
         on the route between hosts {} and {} of {} (latency {:.3} us, bandwidth {:.6e} B/s);\n\
         the factors are relative to that route. Use: simpi replay --preset FILE ...",
        platform.host_name(ha),
        platform.host_name(hb),
        a.platform.display(),
        route.latency * 1e6,
        route.bandwidth
    );
    write(&a.output, &preset_file::to_text(&c.file, &comment))?;
    let report = calibrate::report(&c);
    match &a.report {
        Some(p) => write(p, &report)?,
        None => print!("{report}"),
    }
    if let Some(p) = &a.plot {
        write(p, &calibrate::fit_plot(&c.fits))?;
    }
    eprintln!("simpi calibrate: wrote {}", a.output.display());
    Ok(())
}
