//! Errors the simulator reports to its user. Each says what went wrong and where: the config
//! key, or the file and line of a trace.

use thiserror::Error;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum Error {
    /// A config key is unknown, of the wrong type, or out of range.
    #[error("config key `{key}`: {message}")]
    Config { key: String, message: String },

    /// A trace line could not be parsed.
    #[error("{file}:{line}: {message}: `{text}`")]
    Trace { file: String, line: u64, text: String, message: String },

    /// A file could not be opened or read.
    #[error("{path}: {message}")]
    Io { path: String, message: String },

    /// A request addresses space the device does not have.
    #[error("{source_name}: request {index} addresses sectors {first}..{end}, beyond the logical capacity of {capacity} sectors (to fold addresses into the device, set host.address_mode = \"wrap\" or pass --address-mode wrap)")]
    Address { source_name: String, index: u64, first: u64, end: u64, capacity: u64 },

    /// The invariant checker found the FTL state inconsistent: a bug, not a user error.
    #[error("invariant violated at t={time_ns} ns: {message}")]
    Invariant { time_ns: u64, message: String },

    /// The run was stopped by its caller (for example Ctrl-C).
    #[error("interrupted")]
    Interrupted,

    /// The simulation cannot proceed (for example, the device is full of valid data).
    #[error("simulation stalled: {0}")]
    Stalled(String),
}
