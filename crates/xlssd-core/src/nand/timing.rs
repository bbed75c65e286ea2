use crate::config::Config;
use crate::sim::{us_to_ns, Time};

/// Operation latencies in nanoseconds, resolved from the config once.
#[derive(Debug, Clone)]
pub struct Timing {
    read_ns: Vec<Time>,
    program_ns: Vec<Time>,
    pub erase_ns: Time,
    pub cmd_ns: Time,
    pub dram_ns: Time,
    /// Channel throughput in bytes per second.
    channel_bytes_per_s: f64,
    /// Host interface throughput in bytes per second; 0 = ideal.
    host_bytes_per_s: f64,
    /// Transfer time of one page over the channel, precomputed because it is on every path.
    pub page_xfer_ns: Time,
    /// Erase suspension, when reads may suspend erases.
    pub erase_suspend: Option<EraseSuspend>,
}

/// How reads suspend erases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EraseSuspend {
    /// Added to the read that suspends an erase.
    pub suspend_ns: Time,
    /// An erase with less than this left runs to its end.
    pub min_left_ns: Time,
}

impl Timing {
    pub fn new(cfg: &Config) -> Timing {
        let types = cfg.geometry.cell.bits_per_cell();
        let read_ns = (0..types).map(|t| us_to_ns(cfg.timing.read_us.get(t))).collect();
        let program_ns = (0..types).map(|t| us_to_ns(cfg.timing.program_us.get(t))).collect();
        let channel_bytes_per_s = cfg.channel.rate_mts * 1e6 * cfg.channel.width_bits as f64 / 8.0;
        let mut t = Timing {
            read_ns,
            program_ns,
            erase_ns: us_to_ns(cfg.timing.erase_us),
            cmd_ns: cfg.timing.cmd_ns,
            dram_ns: cfg.timing.dram_ns,
            channel_bytes_per_s,
            host_bytes_per_s: cfg.host.interface_gbps * 1e9,
            page_xfer_ns: 0,
            erase_suspend: cfg.timing.erase_suspend.then(|| EraseSuspend {
                suspend_ns: us_to_ns(cfg.timing.erase_suspend_us),
                min_left_ns: us_to_ns(cfg.timing.erase_suspend_min_left_us),
            }),
        };
        t.page_xfer_ns = t.channel_xfer_ns(cfg.geometry.page_size as u64);
        t
    }

    #[inline]
    pub fn read_ns(&self, page_type: usize) -> Time {
        self.read_ns[page_type]
    }

    #[inline]
    pub fn program_ns(&self, page_type: usize) -> Time {
        self.program_ns[page_type]
    }

    /// Time to move `bytes` over a flash channel, rounded up to whole nanoseconds.
    pub fn channel_xfer_ns(&self, bytes: u64) -> Time {
        (bytes as f64 * 1e9 / self.channel_bytes_per_s).ceil() as Time
    }

    /// Time to move `bytes` over the host interface.
    pub fn host_xfer_ns(&self, bytes: u64) -> Time {
        if self.host_bytes_per_s == 0.0 {
            0
        } else {
            (bytes as f64 * 1e9 / self.host_bytes_per_s).ceil() as Time
        }
    }
}
