//! Errors in platform files and descriptions.

use std::fmt;
use std::path::Path;

/// A problem with a platform: where (file and line, when known) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlatformError {
    /// The file, if the platform came from one.
    pub file: Option<String>,
    /// 1-based line, 0 if unknown.
    pub line: u32,
    /// What is wrong and what was expected.
    pub msg: String,
}

impl PlatformError {
    /// An error not tied to a file.
    pub fn new(msg: impl Into<String>) -> PlatformError {
        PlatformError {
            file: None,
            line: 0,
            msg: msg.into(),
        }
    }

    /// An error at a line of a file.
    pub fn at(path: &Path, line: u32, msg: impl Into<String>) -> PlatformError {
        PlatformError {
            file: Some(path.display().to_string()),
            line,
            msg: msg.into(),
        }
    }
}

impl fmt::Display for PlatformError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(file), 0) => write!(f, "{file}: {}", self.msg),
            (Some(file), l) => write!(f, "{file}:{l}: {}", self.msg),
            (None, _) => f.write_str(&self.msg),
        }
    }
}

impl std::error::Error for PlatformError {}
