//! A hard disk behind the SSD (`[backing]`): one head over a platter spinning at a constant
//! speed, requests served one at a time in arrival order. A request's service is the
//! controller overhead, the seek to its cylinder, the wait for its first sector to come
//! under the head, and the media transfer.
//!
//! - **Layout.** Logical sectors lie track after track from the outer edge inwards at one
//!   density (no zones): sector `s` is on cylinder fraction `s / capacity` and at angle
//!   `(s mod sectors_per_track) / sectors_per_track`, a track holding the whole sectors the
//!   media rate moves in one revolution (a sector passes under the head in a revolution's
//!   share of it).
//! - **Seek.** Over a fraction `x` of the stroke the seek takes `t2t + k sqrt(x)`
//!   (acceleration-bound seeks grow with the square root of the distance; Ruemmler and
//!   Wilkes, "An introduction to disk drive modeling", 1994), none when the head stays on its
//!   cylinder. `k` is set so that a seek between two uniformly random cylinders takes the
//!   configured average: E[sqrt|U - V|] = 8/15, so `k = (average - t2t) x 15/8`.
//! - **Rotation.** The platter turns at `rpm`; a seek ends at some angle, and the head
//!   waits for the request's first sector: on average half a revolution for random
//!   requests, nothing for a sequential one that follows its predecessor.

use serde::{Deserialize, Serialize};

use crate::config::ranges::bad;
use crate::error::Result;
use crate::host::SECTOR_BYTES;
use crate::sim::Time;

/// `[backing]`: the disk. Defaults: a 15,000 rpm enterprise disk of the Seagate Cheetah
/// 15K.5 class (its data sheet: 2.0 ms average rotational latency, 3.5 ms average read
/// seek, 0.2 ms track-to-track read seek, 73-125 MB/s sustained from inner to outer zone);
/// 300 GB.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HddConfig {
    /// Addressable bytes of the disk.
    pub capacity_bytes: u64,
    pub rpm: f64,
    /// Seek to the next cylinder, ms.
    pub track_to_track_ms: f64,
    /// Mean seek between two uniformly random cylinders, ms.
    pub average_seek_ms: f64,
    /// Media transfer rate, MB/s (10^6 bytes): the mean of the data sheet's zones.
    pub transfer_mb_s: f64,
    /// Command overhead of the disk's controller, per request, us.
    pub overhead_us: f64,
}

impl Default for HddConfig {
    fn default() -> Self {
        HddConfig {
            capacity_bytes: 300_000_000_000,
            rpm: 15_000.0,
            track_to_track_ms: 0.2,
            average_seek_ms: 3.5,
            transfer_mb_s: 99.0,
            overhead_us: 0.0,
        }
    }
}

impl HddConfig {
    /// Addressable 512-byte sectors.
    pub fn capacity_sectors(&self) -> u64 {
        self.capacity_bytes / SECTOR_BYTES
    }

    pub fn validate(&self, prefix: &str) -> Result<()> {
        let k = |name: &str| format!("{prefix}.{name}");
        if self.capacity_bytes < SECTOR_BYTES {
            return Err(bad(&k("capacity_bytes"), self.capacity_bytes, "at least one 512-byte sector"));
        }
        for (name, v, lo, hi) in [
            ("rpm", self.rpm, 1.0, 1e6),
            ("transfer_mb_s", self.transfer_mb_s, 1e-3, 1e6),
            ("track_to_track_ms", self.track_to_track_ms, 0.0, 1e4),
            ("overhead_us", self.overhead_us, 0.0, 1e7),
        ] {
            if !(v.is_finite() && (lo..=hi).contains(&v)) {
                return Err(bad(&k(name), v, &format!("a number in [{lo}, {hi}]")));
            }
        }
        if !(self.average_seek_ms.is_finite() && self.average_seek_ms >= self.track_to_track_ms && self.average_seek_ms <= 1e4) {
            return Err(bad(&k("average_seek_ms"), self.average_seek_ms, "a number from track_to_track_ms to 1e4"));
        }
        Ok(())
    }
}

/// One request's service, in ns, by part.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Service {
    /// When it started (after the requests ahead of it) and finished.
    pub start: Time,
    pub end: Time,
    pub seek: Time,
    pub rotation: Time,
    pub transfer: Time,
}

/// The disk's state: where the head is and when it is free.
pub struct Hdd {
    capacity_sectors: u64,
    rev_ns: f64,
    sectors_per_track: u64,
    t2t_ns: f64,
    seek_k_ns: f64,
    /// Time a sector takes to pass under the head: a track's sectors fill a revolution.
    ns_per_sector: f64,
    overhead_ns: Time,
    /// Cylinder fraction under the head, and when the head is free.
    head: f64,
    free_at: Time,
}

impl Hdd {
    pub fn new(cfg: &HddConfig) -> Hdd {
        let rev_ns = 60e9 / cfg.rpm;
        let bytes_per_ns = cfg.transfer_mb_s * 1e6 / 1e9;
        let track_bytes = bytes_per_ns * rev_ns;
        let sectors_per_track = ((track_bytes / SECTOR_BYTES as f64).floor() as u64).max(1);
        Hdd {
            capacity_sectors: cfg.capacity_sectors(),
            rev_ns,
            sectors_per_track,
            t2t_ns: cfg.track_to_track_ms * 1e6,
            seek_k_ns: (cfg.average_seek_ms - cfg.track_to_track_ms) * 1e6 * 15.0 / 8.0,
            ns_per_sector: rev_ns / sectors_per_track as f64,
            overhead_ns: (cfg.overhead_us * 1e3).round() as Time,
            head: 0.0,
            free_at: 0,
        }
    }

    pub fn capacity_sectors(&self) -> u64 {
        self.capacity_sectors
    }

    pub fn sectors_per_track(&self) -> u64 {
        self.sectors_per_track
    }

    /// Seek time (ns) over a fraction `x` of the stroke.
    pub fn seek_ns(&self, x: f64) -> f64 {
        if x <= 0.0 {
            0.0
        } else {
            self.t2t_ns + self.seek_k_ns * x.min(1.0).sqrt()
        }
    }

    fn cylinder(&self, sector: u64) -> f64 {
        // Whole tracks: sectors of one track share its cylinder.
        let track = sector / self.sectors_per_track;
        (track * self.sectors_per_track) as f64 / self.capacity_sectors as f64
    }

    /// Angle (in revolutions, [0, 1)) of `sector` on its track.
    fn angle(&self, sector: u64) -> f64 {
        (sector % self.sectors_per_track) as f64 / self.sectors_per_track as f64
    }

    /// Serves `sectors` from `sector` (wrapped into the disk), arriving at `now`, after
    /// the requests ahead of it.
    pub fn serve(&mut self, now: Time, sector: u64, sectors: u32) -> Service {
        let sector = sector % self.capacity_sectors;
        let start = now.max(self.free_at);
        let target = self.cylinder(sector);
        let seek = self.seek_ns((target - self.head).abs()).round() as Time;
        let at = start + self.overhead_ns + seek;
        // The platter's angle under the head at `at` (angle 0 passes at every whole turn).
        let turn = (at as f64 / self.rev_ns).fract();
        let wait = (self.angle(sector) - turn).rem_euclid(1.0) * self.rev_ns;
        // Within a nanosecond of the sector (either side) is on time: the times are whole ns.
        let rotation = if wait < 1.0 || self.rev_ns - wait < 1.0 { 0 } else { wait.round() as Time };
        let transfer = (sectors as f64 * self.ns_per_sector).round() as Time;
        let end = at + rotation + transfer;
        // The head ends on the cylinder of the request's last sector.
        self.head = self.cylinder((sector + sectors.max(1) as u64 - 1) % self.capacity_sectors);
        self.free_at = end;
        Service { start, end, seek, rotation, transfer }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disk() -> Hdd {
        Hdd::new(&HddConfig::default())
    }

    #[test]
    fn seek_grows_with_the_square_root_and_averages_as_configured() {
        let d = disk();
        assert_eq!(d.seek_ns(0.0), 0.0);
        // Full stroke: t2t + (average - t2t) x 15/8 = 0.2 + 3.3 x 1.875 = 6.3875 ms.
        assert!((d.seek_ns(1.0) - 6.3875e6).abs() < 1.0);
        assert!((d.seek_ns(0.25) - (0.2e6 + 3.3e6 * 1.875 * 0.5)).abs() < 1.0);
        // The mean over uniformly random pairs of cylinders is the configured 3.5 ms
        // (midpoint sums over a 400 x 400 grid).
        let n = 400;
        let mut sum = 0.0;
        for i in 0..n {
            for j in 0..n {
                let (u, v) = ((i as f64 + 0.5) / n as f64, (j as f64 + 0.5) / n as f64);
                sum += d.seek_ns((u - v).abs());
            }
        }
        let mean = sum / (n * n) as f64;
        assert!((mean - 3.5e6).abs() < 0.02e6, "{mean}");
    }

    #[test]
    fn geometry_follows_the_rotation_speed_and_media_rate() {
        let d = disk();
        // 15,000 rpm: 4 ms a turn; 99 MB/s moves 396,000 bytes in it: 773 sectors a track.
        assert_eq!(d.rev_ns, 4e6);
        assert_eq!(d.sectors_per_track(), 773);
        assert_eq!(d.capacity_sectors(), 300_000_000_000 / 512);
    }

    #[test]
    fn a_request_waits_for_the_head_its_sector_and_the_transfer() {
        let mut d = disk();
        // Sector 100 of the first track, at time 0: no seek (the head starts there), the
        // platter turns 100/773 of a revolution, 8 sectors move at 99 MB/s.
        let s = d.serve(0, 100, 8);
        assert_eq!(s.seek, 0);
        assert_eq!(s.rotation, (100.0 / 773.0 * 4e6_f64).round() as Time);
        // (At 4 ms / 773 a sector: the media rate the track's whole sectors give, 98.9 MB/s.)
        assert_eq!(s.transfer, (8.0 * 4e6 / 773.0_f64).round() as Time);
        assert_eq!(s.end, s.rotation + s.transfer);
        // The next sectors follow at once: no seek, no rotation.
        let next = d.serve(s.end, 108, 8);
        assert_eq!((next.seek, next.rotation), (0, 0));
        // Arriving together, the second waits for the first (one head, in order).
        let mut d = disk();
        let a = d.serve(0, 5_000_000, 8);
        let b = d.serve(0, 200_000_000, 8);
        assert_eq!(b.start, a.end);
        assert!(a.seek > 0 && b.seek > 0);
        // A seek half the stroke away.
        let mut d = disk();
        let half = d.capacity_sectors() / 2 / d.sectors_per_track() * d.sectors_per_track();
        let s = d.serve(0, half, 1);
        let x = half as f64 / d.capacity_sectors() as f64;
        assert_eq!(s.seek, d.seek_ns(x).round() as Time);
    }

    #[test]
    fn random_reads_over_a_small_region_take_about_three_milliseconds() {
        // Seed 002's disk averages about 3 ms a read over its 20 GiB. Random 4 KiB
        // reads over 20 GiB of this disk: short seeks (about 1 ms) and half a turn (2 ms).
        let mut d = disk();
        let span = (20u64 << 30) / 512 / 8;
        let mut x = 12345u64;
        let (mut t, mut total) = (0, 0);
        let n = 20_000;
        for _ in 0..n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let s = d.serve(t, (x >> 33) % span * 8, 8);
            total += s.end - s.start;
            t = s.end + 10_000_000; // idle between reads: no queueing
        }
        let mean_ms = total as f64 / n as f64 / 1e6;
        assert!((2.7..3.5).contains(&mean_ms), "{mean_ms} ms");
    }

    #[test]
    fn bad_parameters_are_named() {
        let mut c = HddConfig::default();
        c.average_seek_ms = 0.1;
        assert!(c.validate("backing").unwrap_err().to_string().contains("backing.average_seek_ms"));
        let mut c = HddConfig::default();
        c.rpm = 0.0;
        assert!(c.validate("backing").unwrap_err().to_string().contains("backing.rpm"));
        assert!(HddConfig::default().validate("backing").is_ok());
    }
}
