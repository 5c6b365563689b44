//! Links the OTF2 library (`libotf2-trace-dev` on Debian; `scripts/setup` installs it)
//! statically, so that the binaries and the Python package do not need it at run time.
//! Its directory and name come from `pkg-config otf2`, else `otf2-config`. Without it
//! simpi still builds (`cfg(otf2_missing)`): everything but OTF2 works, and reading an
//! OTF2 trace is an error that says how to get the library.

use std::path::Path;
use std::process::Command;

fn run(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo::rustc-check-cfg=cfg(otf2_missing)");
    let found = run("pkg-config", &["--libs", "otf2"]).or_else(|| {
        let ld = run("otf2-config", &["--ldflags"]).unwrap_or_default();
        run("otf2-config", &["--libs"]).map(|l| format!("{ld} {l}"))
    });
    let Some(flags) = found else {
        println!(
            "cargo:warning=the OTF2 library was not found (neither `pkg-config otf2` nor \
             `otf2-config` works): simpi is built without OTF2 traces; scripts/setup installs \
             it (Debian: libotf2-trace-dev)"
        );
        println!("cargo:rustc-cfg=otf2_missing");
        return;
    };
    let mut dirs: Vec<String> = Vec::new();
    let mut libs: Vec<String> = Vec::new();
    for f in flags.split_whitespace() {
        if let Some(d) = f.strip_prefix("-L") {
            dirs.push(d.to_string());
        } else if let Some(l) = f.strip_prefix("-l") {
            libs.push(l.to_string());
        }
    }
    // pkg-config leaves out the system's own directories.
    for d in [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
        "/usr/local/lib",
    ] {
        dirs.push(d.to_string());
    }
    for d in &dirs {
        println!("cargo:rustc-link-search=native={d}");
    }
    for l in libs {
        let archive = format!("lib{l}.a");
        let kind = if dirs.iter().any(|d| Path::new(d).join(&archive).exists()) {
            "static"
        } else {
            "dylib"
        };
        println!("cargo:rustc-link-lib={kind}={l}");
    }
}
