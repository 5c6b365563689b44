//! `simpi platform check|show FILE`: validate and summarise a platform file.

use crate::EXIT_INPUT;
use clap::{Args, Subcommand};
use simpi::platform;
use std::path::PathBuf;

#[derive(Args)]
pub struct PlatformArgs {
    #[command(subcommand)]
    cmd: PlatformCmd,
}

#[derive(Subcommand)]
enum PlatformCmd {
    /// Check that every host can reach every other one (a sample above 10^6 pairs) and
    /// list links no route uses.
    Check {
        /// Platform file (.toml or SimGrid .xml).
        file: PathBuf,
    },
    /// Summarise hosts, links, zones and one example route.
    Show {
        /// Platform file (.toml or SimGrid .xml).
        file: PathBuf,
    },
}

pub fn run(a: PlatformArgs) -> Result<(), (u8, String)> {
    match a.cmd {
        PlatformCmd::Show { file } => {
            let p = platform::load(&file).map_err(|e| (EXIT_INPUT, e.to_string()))?;
            print!("{}", platform::check::summary(&p));
            Ok(())
        }
        PlatformCmd::Check { file } => {
            let p = platform::load(&file).map_err(|e| (EXIT_INPUT, e.to_string()))?;
            let rep = platform::check::check(&p, 1_000_000);
            println!(
                "{} hosts, {} links; {} host pairs routed",
                p.num_hosts(),
                p.num_links(),
                rep.pairs_checked
            );
            if rep.stopped {
                println!(
                    "note: stopped after {} host pairs: their routes crossed 2^26 links (the rest are unchecked)",
                    rep.pairs_checked
                );
            }
            for (a, b, why) in &rep.unreachable {
                println!("unreachable: {a} -> {b}: {why}");
            }
            if !rep.unused_links.is_empty() {
                let shown: Vec<&str> = rep.unused_links.iter().take(20).map(String::as_str).collect();
                println!(
                    "warning: {} link(s) used by no route: {}{}",
                    rep.unused_links.len(),
                    shown.join(", "),
                    if rep.unused_links.len() > 20 { ", ..." } else { "" }
                );
            }
            if rep.ok() {
                println!("ok");
                Ok(())
            } else {
                Err((
                    EXIT_INPUT,
                    format!(
                        "{}: {} host pair(s) have no route",
                        file.display(),
                        rep.unreachable_pairs
                    ),
                ))
            }
        }
    }
}
