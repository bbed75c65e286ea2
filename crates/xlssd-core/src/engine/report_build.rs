//! Turning the run's measurements into the report.

use super::Simulator;
use crate::report::*;
use crate::seams::Technique as _;
use crate::stats::{round3, Activity, Busy, LatencyStats};

fn op_report(s: &LatencyStats, span_ns: u64) -> OpReport {
    let secs = span_ns as f64 / 1e9;
    let per_s = |x: f64| if secs > 0.0 { round3(x / secs) } else { 0.0 };
    OpReport {
        count: s.count(),
        bytes: s.bytes(),
        iops: per_s(s.count() as f64),
        bandwidth_mbps: per_s(s.bytes() as f64 / 1e6),
        latency_us: s.summary(),
    }
}

fn breakdown(b: &Busy, simulated_ns: u64) -> BusyBreakdown {
    let busy = b.total();
    BusyBreakdown {
        host_read_ns: b.ns[Activity::HostRead as usize],
        host_write_ns: b.ns[Activity::HostWrite as usize],
        gc_ns: b.ns[Activity::Gc as usize],
        erase_ns: b.ns[Activity::Erase as usize],
        mapping_ns: b.ns[Activity::Mapping as usize],
        idle_ns: simulated_ns.saturating_sub(busy),
        utilization: if simulated_ns > 0 { round6(busy as f64 / simulated_ns as f64) } else { 0.0 },
    }
}

fn sum_busy(items: &[Busy]) -> Busy {
    let mut total = Busy::default();
    for b in items {
        for (t, x) in total.ns.iter_mut().zip(b.ns) {
            *t += x;
        }
    }
    total
}

pub(super) fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// Rounds energies to the nanojoule so that summation order cannot show in the report.
fn round_j(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

impl Simulator<'_> {
    /// The channels' time split by what it carried; failed read data is counted by the read
    /// path, per page moved.
    fn erase_report(&self) -> crate::report::EraseReport {
        let s = &self.measure.erases;
        let n = s.erases.max(1) as f64;
        let last = s.by_loops.iter().rposition(|&c| c > 0).map_or(0, |i| i + 1);
        crate::report::EraseReport {
            erases: s.erases,
            loops: s.loops,
            by_loops: s.by_loops[..last].to_vec(),
            latency_ms: crate::report::EraseLatencyReport {
                mean: round6(s.latency_ns as f64 / 1e6 / n),
                max: s.by_latency_us.keys().next_back().map_or(0.0, |&us| us as f64 / 1e3),
                histogram: s.by_latency_us.iter().map(|(&us, &c)| (us as f64 / 1e3, c)).collect(),
            },
            latency_us: s.latency.summary(),
            stress_v_ms: round6(s.stress_v_ms),
            stress_per_erase_v_ms: round6(s.stress_v_ms / n),
            deferred_loops_run: s.deferred_loops_run,
            host_reads_meeting_erase: s.host_reads_meeting_erase,
            host_reads_meeting_erase_share: round6(
                s.host_reads_meeting_erase as f64 / self.measure.counters.host_flash_reads.max(1) as f64,
            ),
        }
    }

    fn suspension_report(&self) -> crate::report::SuspensionReport {
        let s = &self.measure.erases;
        crate::report::SuspensionReport {
            erase: s.erase_suspensions,
            program: s.program_suspensions,
            suspend_us: round6(s.suspend_ns as f64 / 1e3),
            restart_lost_us: round6(s.restart_lost_ns as f64 / 1e3),
        }
    }

    fn channel_use(&self, total: &Busy, simulated_ns: u64) -> ChannelUseReport {
        let busy = total.total();
        let failed = self.rel.as_ref().map_or(0, |r| r.stats.failed_transfer_ns);
        let u = self.measure.chan_use;
        debug_assert!(u.command_ns + u.ecc_wait_ns + failed <= busy, "channel time parts exceed its busy time");
        ChannelUseReport {
            command_ns: u.command_ns,
            data_ns: busy.saturating_sub(u.command_ns + u.ecc_wait_ns + failed),
            failed_data_ns: failed,
            ecc_wait_ns: u.ecc_wait_ns,
            idle_ns: (simulated_ns * self.measure.chan_busy.len() as u64).saturating_sub(busy),
        }
    }

    fn reliability_report(&self) -> ReliabilityReport {
        let Some(rel) = self.rel.as_ref() else { return ReliabilityReport::default() };
        let s = &rel.stats;
        let rber = s.rber.summary();
        // The RBER histogram is in units of 1e-12; its summary divided by 1e3 (us from ns).
        let scale = |x: f64| x * 1e3 / 1e12;
        let per_read = |ns: u64| if s.host_page_reads > 0 { round3(ns as f64 / s.host_page_reads as f64 / 1e3) } else { 0.0 };
        let mut retries = s.retries.clone();
        retries.record_n(0, s.reads_without_retry);
        let retries = retries.summary();
        ReliabilityReport {
            enabled: true,
            rber: RberReport { mean: scale(rber.mean), p99: scale(rber.p99), max: scale(rber.max) },
            decode: DecodeReport {
                hard: s.hard,
                soft: s.soft.clone(),
                raid: s.raid,
                uncorrectable: s.uncorrectable,
                bch: s.bch_ok,
                raw: s.raw,
            },
            read_retries: RetryReport {
                mean: retries.mean,
                max: retries.max.round() as u64,
                reads_by_steps: s.reads_by_steps.clone(),
                in_die_senses: s.in_die_senses,
                failed_transfers: s.failed_transfers,
                failed_transfer_us: round3(s.failed_transfer_ns as f64 / 1e3),
            },
            uncorrectable_reads: s.uncorrectable,
            probes: self.measure.counters.probes,
            read_breakdown_us: ReadBreakdown {
                sense: per_read(s.sense_ns),
                transfer: per_read(s.transfer_ns),
                decode: per_read(s.decode_ns),
                retry: per_read(s.retry_ns),
            },
            bch: BchReport {
                programs: s.bch_programs,
                mean_t: if s.bch_programs > 0 { round6(s.bch_t_sum as f64 / s.bch_programs as f64) } else { 0.0 },
                programs_over_t_max: s.bch_over_t_max,
                decodes_by_t: s.bch_decodes_by_t.iter().enumerate().filter(|e| *e.1 > 0).map(|(t, &n)| (t as u32, n)).collect(),
            },
        }
    }

    fn payload_report(&self) -> PayloadReport {
        let Some(p) = self.payload.as_ref() else { return PayloadReport::default() };
        let s = p.stats;
        PayloadReport {
            enabled: true,
            pages: p.pages(),
            pages_read: s.pages_read,
            pages_returned_with_errors: s.pages_returned_with_errors,
            bits_flipped: s.bits_flipped,
            final_read: match p.final_read_after_h {
                None => FinalReadReport::default(),
                Some(after_h) => {
                    let f = p.final_stats;
                    FinalReadReport {
                        enabled: true,
                        after_h,
                        pages: f.pages,
                        host_written: f.host_written,
                        from_flash: f.from_flash,
                        approximate: f.approximate,
                        raw: f.raw,
                        with_errors: f.with_errors,
                        bits_flipped: f.bits_flipped,
                        rber_mean: if f.from_flash > 0 { f.rber_sum / f.from_flash as f64 } else { 0.0 },
                    }
                }
            },
        }
    }

    pub(super) fn build_report(&self, setup_s: f64, wall_s: f64, workload: serde_json::Value) -> Report {
        let simulated_ns = self.q.now();
        let span_ns = self.host.span_ns();
        let c = &self.measure.counters;
        let ec = &self.ftl.blocks().erase_count;
        let n = ec.len() as f64;
        let mean = ec.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = ec.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n;
        let e = &self.measure.energy;
        let events = self.q.processed();
        let waf = if c.host_pages_written > 0 { c.flash_programs as f64 / c.host_pages_written as f64 } else { 0.0 };
        let ch_total = sum_busy(&self.measure.chan_busy);
        let die_total = sum_busy(&self.measure.die_busy);
        Report {
            schema: SCHEMA_VERSION,
            version: crate::VERSION.to_string(),
            config: self.cfg.to_json_value(),
            workload,
            host: HostReport {
                read: op_report(&self.measure.lat[0], span_ns),
                write: op_report(&self.measure.lat[1], span_ns),
                all: op_report(&self.measure.lat[0].joined(&self.measure.lat[1]), span_ns),
                span_ns,
            },
            backing: self.backing_report(simulated_ns),
            ftl: FtlReport {
                logical_pages: self.ftl.logical_pages(),
                physical_pages: self.geo.pages as u64,
                host_pages_read: c.host_pages_read,
                host_pages_written: c.host_pages_written,
                flash_pages_programmed: c.flash_programs,
                waf: round6(waf),
                gc: GcReport {
                    invocations: c.gc_invocations,
                    dead_victims: c.gc_dead_victims,
                    pages_moved: c.gc_pages_moved,
                    blocks_erased: c.gc_blocks_erased,
                },
                wl: WlReport { invocations: c.wl_invocations, pages_moved: c.wl_pages_moved, blocks_erased: c.wl_blocks_erased },
                buffer: BufferReport {
                    capacity_pages: self.cfg.cache.capacity_bytes / self.geo.page_size as u64,
                    read_hits: c.buffer_read_hits,
                    write_hits: c.buffer_write_hits,
                    flushed_pages: c.buffer_flushes,
                    inflight_read_hits: c.inflight_read_hits,
                },
                mapping: MappingReport {
                    cached: self.ctrl.cmt().is_some(),
                    capacity_entries: self
                        .ctrl
                        .cmt()
                        .map_or(0, |_| self.cfg.mapping.cached_table_bytes / self.cfg.mapping.entry_bytes as u64),
                    hits: c.cmt_hits,
                    misses: c.cmt_misses,
                    flash_reads: c.mapping_reads,
                    flash_writes: c.mapping_writes,
                },
                unmapped_reads: c.unmapped_reads,
                unmapped_zero_reads: c.unmapped_zero_reads,
                materialized_pages: c.materialized_pages,
                blocked_writes: c.blocked_writes,
                binding: BindingReport {
                    at: self.cfg.ftl.page_binding.name().into(),
                    superseded_writes: c.superseded_writes,
                    stale_gc_copies: c.gc_copies_dropped,
                },
                rmw: RmwReport { reads: c.rmw_reads, bytes: c.rmw_reads * self.geo.page_size as u64 },
                sealed: SealedReport { blocks: c.sealed_blocks, unused_pages: c.sealed_unused_pages },
                relocations: self.measure.relocs.report(),
                copies: self.copies_report(),
                placement: self.ftl.handles().report(),
            },
            nand: NandReport {
                reads: c.flash_reads,
                programs: c.flash_programs,
                erases: c.flash_erases,
                multiplane_ops: c.multiplane_ops,
                erase_suspensions: self.measure.erases.erase_suspensions,
                erase: self.erase_report(),
                suspensions: self.suspension_report(),
                erase_count: EraseCountReport {
                    min: ec.iter().copied().min().unwrap_or(0) as u64,
                    mean: round6(mean),
                    max: ec.iter().copied().max().unwrap_or(0) as u64,
                    stddev: round6(var.sqrt()),
                },
                effective_wear: {
                    let w = &self.ftl.blocks().effective_wear;
                    let total: f64 = w.iter().map(|&x| x as f64).sum();
                    EffectiveWearReport {
                        total: round6(total),
                        mean: round6(total / w.len().max(1) as f64),
                        max: round6(w.iter().copied().fold(0.0f32, f32::max) as f64),
                    }
                },
                busy: BusyReport {
                    channels_total: breakdown(&ch_total, simulated_ns * self.measure.chan_busy.len() as u64),
                    channel_use: self.channel_use(&ch_total, simulated_ns),
                    dies_total: breakdown(&die_total, simulated_ns * self.measure.die_busy.len() as u64),
                    channels: self.measure.chan_busy.iter().map(|b| breakdown(b, simulated_ns)).collect(),
                    dies: self.measure.die_busy.iter().map(|b| breakdown(b, simulated_ns)).collect(),
                },
            },
            energy: EnergyReport {
                total_j: round_j(e.total_j()),
                read_j: round_j(e.read_j),
                program_j: round_j(e.program_j),
                erase_j: round_j(e.erase_j),
                transfer_j: round_j(e.transfer_j),
                dram_j: round_j(e.dram_j),
                ecc_j: round_j(e.ecc_j),
                per_flash_op_uj: {
                    let ops = c.flash_reads + c.flash_programs;
                    if ops > 0 {
                        round6(e.total_j() * 1e6 / ops as f64)
                    } else {
                        0.0
                    }
                },
            },
            reliability: self.reliability_report(),
            payload: self.payload_report(),
            techniques: {
                // Only the sections of the schemes that ran: an absent section means its
                // scheme was off.
                let mut sections = serde_json::Map::new();
                self.scheme.report(&self.measure.tasks, &mut sections);
                sections
            },
            sim: SimReport {
                simulated_ns,
                events,
                requests: self.host.completed(),
                skipped_lines: self.host.skipped_lines(),
                setup_s: round6(setup_s),
                wall_s: round6(wall_s),
                requests_per_s: if wall_s > 0.0 { (self.host.completed() as f64 / wall_s).round() } else { 0.0 },
                events_per_s: if wall_s > 0.0 { (events as f64 / wall_s).round() } else { 0.0 },
            },
        }
    }
}
