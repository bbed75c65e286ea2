//! Workloads: where host requests come from. Trace readers (one module per format) and the
//! synthetic generator all yield [`Request`]s through [`RequestSource`], one at a time, so
//! memory does not grow with the length of a trace.

pub mod alibaba;
pub mod blkparse;
pub mod config;
pub mod detect;
pub mod input;
pub mod mqsim;
pub mod msr;
pub mod prefetch;
pub mod spc;
pub mod spec;
pub mod synthetic;
pub mod systor;
pub mod trace;

use serde::{Deserialize, Serialize};

use crate::error::Result;

/// Bytes in one logical block address (sector), the unit every trace format is converted to.
pub use crate::nand::SECTOR_BYTES;

/// The latest arrival a workload may have, in simulated ns after its first request (2^62
/// ns, about 146 years): far beyond any trace, and far enough below 2^64 that the times
/// the device adds to it cannot overflow.
pub const MAX_ARRIVAL_NS: u64 = 1 << 62;

/// The largest placement handle a request may carry. Handles are counted in 16 bits (at
/// most 65,535 of them), so they run from 0 to 65534, whether a trace names them or the
/// synthetic generator assigns them.
pub const MAX_HANDLE: u16 = u16::MAX - 1;

/// An arrival `after_first_ns` after the first request, scaled by `host.time_scale` and
/// rounded as open-loop replay schedules it, or `None` beyond [`MAX_ARRIVAL_NS`].
pub fn scaled_arrival_ns(after_first_ns: u64, time_scale: f64) -> Option<u64> {
    let ns = after_first_ns as f64 * time_scale;
    (ns <= MAX_ARRIVAL_NS as f64).then(|| crate::sim::round_u64(ns))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
}

/// One host I/O request, in the units every format is converted to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Request {
    /// Arrival time in ns as the source gives it (traces: the trace's own clock; replay
    /// rebases it so that the first request arrives at time 0).
    pub arrival_ns: u64,
    /// First sector (512 B).
    pub lba: u64,
    /// Length in sectors, at least 1.
    pub sectors: u32,
    pub op: Op,
    /// The host allows the data to be stored approximately (seed 000 Sec. IV-A: a request
    /// is (LPN, size, read/write, ApproxFlag)).
    pub approx: bool,
    /// The program context that issued the request (seed 003 Ch. 5.2: the sum of the
    /// instruction counters on the call path to `write()`); 0 when the source has none.
    pub context: u32,
    /// The placement handle the host chose (NVMe Flexible Data Placement's reclaim unit
    /// handle, or a multi-stream stream id), if any; at most [`MAX_HANDLE`].
    pub handle: Option<u16>,
    /// The bit error rate the application tolerates in the data it reads (seed 002's
    /// AP_BER); 0: none, the data must come back corrected.
    pub tolerance: f32,
}

/// A stream of host requests.
pub trait RequestSource {
    /// The next request, `Ok(None)` at the end, or an error naming the file and line.
    fn next_request(&mut self) -> Result<Option<Request>>;
    /// What to call this source in messages (a file path, or "synthetic").
    fn name(&self) -> &str;
    /// Malformed lines skipped so far (only with skipping enabled).
    fn skipped_lines(&self) -> u64 {
        0
    }
    /// For closed-loop sources: how many requests to keep outstanding. `None` means the
    /// source's own arrival times are to be honoured (open loop).
    fn preferred_queue_depth(&self) -> Option<u32> {
        None
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    /// `time_ns device lba_sectors size_sectors type [approx [context [handle]]]` with type
    /// 0 = write, 1 = read.
    Mqsim,
    /// MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`,
    /// optionally followed by `Context,Handle`.
    Msr,
    /// The text output of `blkparse`.
    Blkparse,
    /// The UMass Trace Repository's SPC CSV: `ASU,LBA,Size,Opcode,Timestamp`.
    Spc,
    /// The Alibaba Cloud block traces (2020 release): `device_id,opcode,offset,length,timestamp`.
    Alibaba,
    /// The SYSTOR '17 LUN traces: `Timestamp,Response,IOType,LUN,Offset,Size`.
    Systor,
}

impl TraceFormat {
    /// Every format, in the order messages list them.
    pub const ALL: [TraceFormat; 6] = [
        TraceFormat::Mqsim,
        TraceFormat::Msr,
        TraceFormat::Blkparse,
        TraceFormat::Spc,
        TraceFormat::Alibaba,
        TraceFormat::Systor,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Mqsim => "mqsim",
            TraceFormat::Msr => "msr",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::Spc => "spc",
            TraceFormat::Alibaba => "alibaba",
            TraceFormat::Systor => "systor",
        }
    }

    pub fn parse(s: &str) -> Option<TraceFormat> {
        match s.to_ascii_lowercase().as_str() {
            "mqsim" | "ascii" => Some(TraceFormat::Mqsim),
            "msr" | "csv" => Some(TraceFormat::Msr),
            "blkparse" | "blktrace" => Some(TraceFormat::Blkparse),
            "spc" | "umass" => Some(TraceFormat::Spc),
            "alibaba" => Some(TraceFormat::Alibaba),
            "systor" => Some(TraceFormat::Systor),
            _ => None,
        }
    }
}

/// What a run replays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Workload {
    /// The synthetic generator, configured as in the config's `[workload]` section.
    Synthetic(crate::config::WorkloadConfig),
    /// A trace file.
    Trace {
        path: String,
        /// `None` detects the format from the file's first lines.
        format: Option<TraceFormat>,
        /// Skip and count malformed lines instead of stopping.
        #[serde(default)]
        skip_bad_lines: bool,
    },
}
