//! Measurement programs simpi ships as C source (`simpi bench`, `simpi calibrate`):
//! compiled on first use with the user's MPI compiler wrapper and kept in the cache,
//! one build per source and wrapper.

use crate::{cache_root, fnv, tempdir, Error};
use std::path::PathBuf;
use std::process::Command;

/// Builds (or finds in the cache) the program `stem` from `source` with `mpicc`.
pub fn build(stem: &str, source: &str, mpicc: &str) -> Result<PathBuf, Error> {
    let root = cache_root();
    let dir = root.join(format!("{stem}-{:016x}", fnv(&[source, mpicc])));
    let exe = dir.join(stem);
    if exe.exists() {
        return Ok(exe);
    }
    std::fs::create_dir_all(&root).map_err(crate::io("create", &root))?;
    let work = tempdir(&root)?;
    let src = work.join(format!("{stem}.c"));
    std::fs::write(&src, source).map_err(crate::io("write", &src))?;
    let out = Command::new(mpicc)
        .args(["-O2", "-Wall", "-o", stem])
        .arg(&src)
        .current_dir(&work)
        .output()
        .map_err(|error| Error::NoMpicc {
            mpicc: mpicc.to_string(),
            error,
        })?;
    if !out.status.success() {
        return Err(Error::Build {
            sources: work,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    // Another process may have built it meanwhile: either copy is the same program.
    let _ = std::fs::rename(&work, &dir);
    let _ = std::fs::remove_dir_all(&work);
    if exe.exists() {
        Ok(exe)
    } else {
        Err(Error::Io {
            action: "find the built program",
            path: exe,
            error: std::io::Error::from(std::io::ErrorKind::NotFound),
        })
    }
}
