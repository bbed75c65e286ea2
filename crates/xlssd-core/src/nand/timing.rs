use crate::config::ranges::{duration_ns, transfer_ns, Zero, MAX_DURATION_NS};
use crate::controller::config::ChannelConfig;
use crate::error::{Error, Result};
use crate::nand::config::{GeometryConfig, TimingConfig};
use crate::sim::Time;

/// The sections of the configuration the timing is resolved from.
#[derive(Clone, Copy)]
pub struct TimingSections<'a> {
    pub geometry: &'a GeometryConfig,
    pub timing: &'a TimingConfig,
    pub channel: &'a ChannelConfig,
    /// Flash pages per mapping unit (`mapping.unit_bytes`): a multi-plane program moves a
    /// unit for every plane of its die.
    pub unit_pages: u32,
    /// `host.interface_gbps`.
    pub host_interface_gbps: f64,
}

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
    pub erase_suspend: Option<Suspension>,
    /// Program suspension, when reads may suspend programs.
    pub program_suspend: Option<Suspension>,
}

/// How reads suspend an erase loop or a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Suspension {
    /// Added to the read that suspends the operation.
    pub suspend_ns: Time,
    /// An operation with less than this left runs to its end.
    pub min_left_ns: Time,
    /// The suspended operation starts again from the beginning on resuming.
    pub restart: bool,
    /// `timing.erase_suspend_guard`.
    pub guard: bool,
}

/// The largest request a source can produce: its length is a `u32` count of sectors.
const MAX_REQUEST_BYTES: u64 = u32::MAX as u64 * crate::nand::SECTOR_BYTES;

impl Timing {
    /// The timing of a validated config (its validation runs [`Timing::checked`]).
    pub fn new(cfg: TimingSections) -> Timing {
        Self::checked(cfg).unwrap_or_else(|e| panic!("Timing::new on a config that does not validate: {e}"))
    }

    /// Resolves every time and rate to nanoseconds, refusing, with the key named, a time
    /// that does not fit in a year or rounds to 0 ns where the device cannot take no time:
    /// a sense, a program, an erase, a channel's transfer of the pages of one command, and
    /// the host interface's transfer of the largest request.
    pub fn checked(cfg: TimingSections) -> Result<Timing> {
        let types = cfg.geometry.cell.bits_per_cell();
        let t = &cfg.timing;
        let per_type = |key: &str, v: &crate::nand::config::PerPageType| {
            (0..types).map(|i| duration_ns(key, v.get(i), Zero::Refused)).collect::<Result<Vec<Time>>>()
        };
        let read_ns = per_type("timing.read_us", &t.read_us)?;
        let program_ns = per_type("timing.program_us", &t.program_us)?;
        let erase_ns = duration_ns("timing.erase_us", t.erase_us, Zero::Refused)?;
        let suspend = Suspension {
            suspend_ns: duration_ns("timing.erase_suspend_us", t.erase_suspend_us, Zero::Allowed)?,
            min_left_ns: duration_ns("timing.erase_suspend_min_left_us", t.erase_suspend_min_left_us, Zero::Allowed)?,
            restart: t.erase_resume == crate::nand::config::EraseResume::Restart,
            guard: t.erase_suspend_guard,
        };
        let program_suspend = Suspension {
            suspend_ns: duration_ns("timing.program_suspend_us", t.program_suspend_us, Zero::Allowed)?,
            min_left_ns: duration_ns("timing.program_suspend_min_left_us", t.program_suspend_min_left_us, Zero::Allowed)?,
            restart: false,
            guard: false,
        };

        let ch = &cfg.channel;
        let channel_bytes_per_s = ch.rate_mts * 1e6 * ch.width_bits as f64 / 8.0;
        let page_bytes = cfg.geometry.page_size as u64;
        let page_xfer_ns =
            transfer_ns("channel.rate_mts", ch.rate_mts, "one page over a channel", page_bytes, channel_bytes_per_s)?;
        // A multi-plane program moves a unit of pages for every plane of its die at once.
        let pages_per_command = cfg.geometry.planes_per_die as u64 * cfg.unit_pages as u64;
        if page_xfer_ns as f64 * pages_per_command as f64 > MAX_DURATION_NS {
            return Err(Error::Config {
                key: "channel.rate_mts".into(),
                message: format!(
                    "value {} is out of range: a command's {pages_per_command} pages take {} ns over the channel, longer than a year; expected a faster channel",
                    ch.rate_mts,
                    page_xfer_ns as f64 * pages_per_command as f64
                ),
            });
        }

        let gbps = cfg.host_interface_gbps;
        let host_bytes_per_s = gbps * 1e9;
        if gbps != 0.0 {
            transfer_ns(
                "host.interface_gbps",
                gbps,
                "the largest request over the host interface",
                MAX_REQUEST_BYTES,
                host_bytes_per_s,
            )?;
            transfer_ns(
                "host.interface_gbps",
                gbps,
                "one sector over the host interface",
                crate::nand::SECTOR_BYTES,
                host_bytes_per_s,
            )?;
        }

        Ok(Timing {
            read_ns,
            program_ns,
            erase_ns,
            cmd_ns: t.cmd_ns,
            dram_ns: t.dram_ns,
            channel_bytes_per_s,
            host_bytes_per_s,
            page_xfer_ns,
            erase_suspend: t.erase_suspend.then_some(suspend),
            program_suspend: t.program_suspend.then_some(program_suspend),
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn err(set: impl FnOnce(&mut Config)) -> (String, String) {
        let mut cfg = Config::default();
        set(&mut cfg);
        match cfg.validate() {
            Err(Error::Config { key, message }) => (key, message),
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn the_default_timing_is_unchanged() {
        let t = Timing::new(Config::default().timing_sections());
        assert_eq!((t.read_ns(0), t.program_ns(1), t.erase_ns, t.page_xfer_ns), (50_000, 600_000, 3_000_000, 10_240));
        assert_eq!(t.host_xfer_ns(4096), 0);
    }

    #[test]
    fn operation_times_that_overflow_or_vanish_are_refused() {
        use crate::config::PerPageType;
        for us in [2e16, 1e-12, 3.3e13] {
            let (key, message) = err(|c| c.timing.read_us = PerPageType::Same(us));
            assert_eq!(key, "timing.read_us", "{us}: {message}");
            let (key, _) = err(|c| c.timing.program_us = PerPageType::PerType(vec![600.0, us]));
            assert_eq!(key, "timing.program_us");
            let (key, _) = err(|c| c.timing.erase_us = us);
            assert_eq!(key, "timing.erase_us");
        }
        let (key, message) = err(|c| c.timing.read_us = PerPageType::Same(1e-4));
        assert_eq!(key, "timing.read_us");
        assert!(message.contains("rounds to 0 ns"), "{message}");
        let (key, _) = err(|c| {
            c.timing.erase_suspend = true;
            c.timing.erase_suspend_us = 1e14;
        });
        assert_eq!(key, "timing.erase_suspend_us");
    }

    #[test]
    fn rates_whose_transfers_overflow_or_vanish_are_refused() {
        for rate in [1e-300, 1e-10, 1e303] {
            let (key, message) = err(|c| c.channel.rate_mts = rate);
            assert_eq!(key, "channel.rate_mts", "{rate}: {message}");
        }
        for rate in [1e-300, 1e-8] {
            let (key, message) = err(|c| c.host.interface_gbps = rate);
            assert_eq!(key, "host.interface_gbps", "{message}");
            assert!(message.contains("largest request"), "{message}");
        }
        let (key, message) = err(|c| c.host.interface_gbps = 1e300);
        assert_eq!(key, "host.interface_gbps");
        assert!(message.contains("no time at all"), "{message}");
        let mut cfg = Config::default();
        cfg.host.interface_gbps = 1e-3;
        cfg.channel.rate_mts = 0.01;
        cfg.validate().unwrap();
    }
}
