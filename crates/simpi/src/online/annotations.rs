//! What SMPI's source annotations need from the simulator: the samples of loops that
//! `SMPI_SAMPLE_GLOBAL` measures on every rank together, and the memory files
//! `SMPI_SHARED_MALLOC` gives every rank that allocates at one call site.

use simpi_wire::SharedMemory;
use std::collections::HashMap;
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd};

/// The shared state of a run's annotations.
#[derive(Default)]
pub struct Annotations {
    /// Per sampled loop: (count, sum, sum of squares) of its iterations' nanoseconds.
    samples: HashMap<String, (u64, f64, f64)>,
    /// Per call site: its memory file.
    files: HashMap<String, File>,
}

impl Annotations {
    /// Adds `sample_ns` (if any) to loop `key`'s samples; returns them, encoded as the
    /// reply to `Call::Sample` carries them.
    pub fn sample(&mut self, key: String, sample_ns: Option<u64>) -> Vec<u8> {
        let s = self.samples.entry(key).or_insert((0, 0.0, 0.0));
        if let Some(ns) = sample_ns {
            let x = ns as f64;
            *s = (s.0 + 1, s.1 + x, s.2 + x * x);
        }
        let mut out = Vec::with_capacity(24);
        out.extend(s.0.to_le_bytes());
        out.extend(s.1.to_bits().to_le_bytes());
        out.extend(s.2.to_bits().to_le_bytes());
        out
    }

    /// The memory file of call site `key`, at least `size` bytes long.
    pub fn shared(&mut self, key: String, size: u64) -> Result<SharedMemory, String> {
        let f = match self.files.get(&key) {
            Some(f) => f,
            None => {
                let name = c"simpi-shared-malloc";
                // SAFETY: a valid name; the descriptor returned is owned by the File.
                let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
                if fd < 0 {
                    return Err(format!(
                        "cannot make the memory of SMPI_SHARED_MALLOC: {}",
                        std::io::Error::last_os_error()
                    ));
                }
                // SAFETY: `fd` was just opened and nothing else owns it.
                self.files
                    .entry(key.clone())
                    .or_insert(unsafe { File::from_raw_fd(fd) })
            }
        };
        let len = f.metadata().map_err(|e| e.to_string())?.len();
        if len < size {
            f.set_len(size)
                .map_err(|e| format!("cannot size SMPI_SHARED_MALLOC's memory to {size} bytes: {e}"))?;
        }
        Ok(SharedMemory {
            pid: std::process::id(),
            fd: f.as_raw_fd() as u32,
            parts: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_accumulate_per_loop_and_files_grow_to_the_largest_request() {
        let mut a = Annotations::default();
        a.sample("x".into(), Some(3));
        let got = a.sample("x".into(), Some(5));
        assert_eq!(u64::from_le_bytes(got[..8].try_into().unwrap()), 2);
        assert_eq!(f64::from_bits(u64::from_le_bytes(got[8..16].try_into().unwrap())), 8.0);
        assert_eq!(f64::from_bits(u64::from_le_bytes(got[16..].try_into().unwrap())), 34.0);
        let other = a.sample("y".into(), None);
        assert_eq!(u64::from_le_bytes(other[..8].try_into().unwrap()), 0);
        let m = a.shared("s".into(), 100).unwrap();
        a.shared("s".into(), 4096).unwrap();
        let again = a.shared("s".into(), 10).unwrap();
        assert_eq!(m.fd, again.fd);
        assert_eq!(a.files["s"].metadata().unwrap().len(), 4096);
    }
}
