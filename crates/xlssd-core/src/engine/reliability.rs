//! The white-box read path: every read gets its RBER from the physics models and its
//! latency and outcome from the decoder. A read whose decode fails is sensed, transferred
//! and decoded again (a read-retry step, or the next LDPC soft level), occupying the die,
//! the channel and the channel's ECC engine like any other operation.

use crate::nand::Ppn;
use rand::SeedableRng;
use rand_distr::{Binomial, Distribution};
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::{FxHashMap, FxHashSet};

use super::payload::FinalPage;
use super::{Ev, Simulator};
use crate::config::{Config, EccScheme};
use crate::controller::txn::TxnKind;
use crate::ecc::ldpc::Stage;
use crate::nand::state::{DeviceState, PageWord};
use crate::physics::read_retry::{page_normal, ReadRetryModel, RetryNeed};
use crate::physics::vth::Disturbers;
use crate::physics::{Ispp, ModelKind, PageHistory, RberModel, MAX_RBER};
use crate::seams::{
    Attempt, CodeStrength, EraseControl, Hook, Observer, Probe, ProbePage, ProgramModes, ReadRetry, RetentionClock,
    RetryReference, Verdict,
};
use crate::sim::Time;
use crate::stats::LatencyStats;

/// What a finished decode means for its read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decoded {
    Success,
    /// Sense, transfer and decode again with the next step.
    Retry,
    /// Recovered by chip-level RAID after every soft level failed.
    Raid,
    Uncorrectable,
    /// Returned without decoding: no decoder, or an approximate page read raw.
    Raw,
    /// Chip-level RAID recovery (counted when it started) has finished.
    Recovered,
}

/// Measurements of the read path.
#[derive(Default)]
pub(super) struct ReliabilityStats {
    /// RBER of each page read, in units of 1e-12, for percentiles.
    pub rber: LatencyStats,
    pub hard: u64,
    pub soft: Vec<u64>,
    pub raid: u64,
    pub uncorrectable: u64,
    pub bch_ok: u64,
    /// Reads returned without decoding.
    pub raw: u64,
    /// Extra read steps per completed read that needed any, in thousandths.
    pub retries: LatencyStats,
    /// Completed reads that needed no extra step: counted apart, as most reads are, and
    /// added to `retries` for the report.
    pub reads_without_retry: u64,
    /// Time of host page reads spent sensing, transferring, decoding and retrying, in ns.
    pub sense_ns: u64,
    pub transfer_ns: u64,
    pub decode_ns: u64,
    pub retry_ns: u64,
    pub host_page_reads: u64,
    /// With `physics.read_retry`: senses repeated inside the die before any transfer, and
    /// pages moved over the channel whose decode then failed (and their transfer time).
    pub in_die_senses: u64,
    pub failed_transfers: u64,
    pub failed_transfer_ns: u64,
    /// Completed reads by the extra steps they took (index: steps).
    pub reads_by_steps: Vec<u64>,
    /// BCH: pages encoded, the sum of their t, those whose wear and target needed more than
    /// `ecc.bch.t_max`, and decodes by the page's t (index: t).
    pub bch_programs: u64,
    pub bch_t_sum: u64,
    pub bch_over_t_max: u64,
    pub bch_decodes_by_t: Vec<u64>,
}

pub(super) struct Reliability {
    pub state: DeviceState,
    model: Box<dyn RberModel>,
    pub stats: ReliabilityStats,
    rng: Xoshiro256PlusPlus,
    /// When each channel's ECC engine is next free.
    ecc_free: Vec<Time>,
    /// With `ecc.decode_buffer_pages`: when each page handed to a channel's engine starts
    /// decoding, in order (the engine is first come, first served).
    decode_starts: Vec<std::collections::VecDeque<Time>>,
    /// Adaptive BCH t needed by (algorithm, wear in whole cycles, target UBER's bits).
    t_cache: FxHashMap<(u8, u32, u64), u32>,
    /// Host page reads in flight whose decode has failed, by (request, page), with when it
    /// first failed, to time their retries. Not by transaction id: a read that goes back to
    /// its die for another attempt is queued anew and may come back under another id.
    first_failure: FxHashMap<(u32, Ppn), Time>,
    /// Host page reads in flight that the die sensed again before their first transfer, by
    /// (request, page): their first decode comes at a later step than 0.
    resensed: FxHashSet<(u32, Ppn)>,
    /// The retry-table model, when `physics.read_retry.enabled`.
    pub retry: Option<ReadRetryModel>,
    /// The last program-time factor worked out, by (wear's bits, algorithm): blocks share
    /// a few wear values, and the factor costs a logarithm.
    program_factor: std::cell::Cell<(u32, Option<Ispp>, f64)>,
    /// Each page's RBER factor by its index in its block (`physics.page_spread`); empty
    /// when the pages of a block do not differ.
    page_factors: Vec<f32>,
    /// The page of a block that probes measure (its index), as the scheme asks.
    pub probe_page: u32,
}

impl Reliability {
    pub fn new(cfg: &Config, blocks: u32, pages: Ppn, channels: u32, seed: u64) -> crate::error::Result<Option<Reliability>> {
        if !crate::limits::estimate::keeps_page_physics(cfg) {
            return Ok(None);
        }
        let model: Box<dyn RberModel> = match cfg.physics.model {
            ModelKind::None => Box::new(NoErrors),
            ModelKind::PowerLaw => Box::new(crate::physics::power_law::PowerLaw::new(cfg.physics.power_law.clone())),
            ModelKind::ExpLinear => Box::new(cfg.physics.exp_linear.clone()),
            ModelKind::Vth => Box::new(crate::physics::vth_table::VthTable::new(cfg.physics.vth.clone())),
        };
        Ok(Some(Reliability {
            state: DeviceState::new(blocks, pages)?,
            model,
            stats: ReliabilityStats {
                soft: vec![0; cfg.ecc.ldpc.soft_levels as usize],
                bch_decodes_by_t: vec![0; cfg.ecc.bch.t_max as usize + 1],
                ..Default::default()
            },
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            ecc_free: vec![0; channels as usize],
            decode_starts: vec![Default::default(); channels as usize],
            t_cache: FxHashMap::default(),
            first_failure: FxHashMap::default(),
            resensed: FxHashSet::default(),
            retry: cfg.physics.read_retry.enabled.then(|| ReadRetryModel::new(cfg.physics.read_retry.clone())),
            program_factor: std::cell::Cell::new((0, None, 0.0)),
            page_factors: cfg.physics.page_spread.factors(cfg.geometry.pages_per_block, cfg.geometry.cell.bits_per_cell() as u32),
            probe_page: 0,
        }))
    }

    /// The RBER factor of page `page_in_block` of any block (1 without a spread).
    #[inline]
    fn page_factor(&self, page_in_block: u32) -> f64 {
        self.page_factors.get(page_in_block as usize).map_or(1.0, |&f| f as f64)
    }

    /// Sets the page probes measure: the first, or the one whose RBER is the largest.
    pub(super) fn choose_probe_page(&mut self, page: ProbePage) {
        self.probe_page = match page {
            ProbePage::First => 0,
            ProbePage::Worst => crate::physics::page_spread::worst_page(&self.page_factors),
        };
    }

    /// Host page read `(request, page)` is sensed again inside the die before its first
    /// transfer.
    pub(super) fn note_resensed(&mut self, request: u32, ppn: Ppn) {
        self.resensed.insert((request, ppn));
    }
}

/// A device with no bit errors, for decoders studied alone.
struct NoErrors;

impl RberModel for NoErrors {
    fn rber(&self, _page: &PageHistory) -> f64 {
        0.0
    }
}

impl Simulator<'_> {
    /// The retention clock in hours: the data's age at the start plus simulated time,
    /// scaled.
    pub(super) fn retention_clock_h(&self) -> f64 {
        self.retention_clock().hours_at(self.now())
    }

    /// The retention clock, to be read at any simulated time.
    pub(super) fn retention_clock(&self) -> RetentionClock {
        RetentionClock { start_h: self.cfg.aging.data_age_h, scale: self.cfg.physics.retention_scale }
    }

    /// RBER of a page now: the model's wear and retention errors, plus read disturbance.
    pub(super) fn page_rber(&self, ppn: Ppn) -> f64 {
        self.page_rber_at(ppn, self.retention_clock_h())
    }

    /// The retry-table model, when `physics.read_retry` is on.
    fn retry_model(&self) -> Option<&ReadRetryModel> {
        self.rel.as_ref().and_then(|r| r.retry.as_ref())
    }

    /// Where a page's reads stand in the retry-table model (None when it is off).
    fn retry_need(&self, ppn: Ppn, rber: f64) -> Option<RetryNeed> {
        let model = self.retry_model()?;
        let state = &self.rel.as_ref()?.state;
        let block = self.geo.block_of(ppn);
        let age = state.page(ppn).age_h(self.retention_clock_h());
        let z = page_normal(state.write_key(ppn, block));
        Some(model.need(state.blocks[block as usize].wear as f64, age, z, rber))
    }

    /// The read transaction `id`'s current attempt as the schemes see it, its page's RBER
    /// being `rber`. At the first attempt a scheme with its own retry references chooses
    /// where the read starts.
    pub(super) fn attempt(&mut self, id: u32, rber: f64) -> Attempt {
        let t = *self.ctrl.txn(id);
        let need = self.retry_need(t.ppn, rber);
        let mut a = Attempt {
            ppn: t.ppn,
            step: t.step as u32,
            rber,
            kind: super::controller::read_kind(t.kind),
            reference: t.reference as u32,
            shift: need.map_or(f64::NAN, |n| n.shift),
            decodable: true,
            tolerance: if t.kind == TxnKind::HostRead { self.host.req(t.owner).tolerance as f64 } else { 0.0 },
        };
        if let Some(need) = need {
            if t.step == 0 {
                a.reference = self.scheme.first_reference(&a).min(self.table_steps());
                self.ctrl.txn_mut(id).reference = a.reference as u8;
            }
            a.decodable = self.retry_model().is_some_and(|m| m.succeeds(need, a.reference));
        }
        a
    }

    /// Entries of the retry table (0 when the model is off).
    pub(super) fn table_steps(&self) -> u32 {
        self.retry_model().map_or(0, |m| m.config().table_steps)
    }

    /// A read's attempt failed: the entry its next attempt reads at, as the scheme says
    /// (walking the table by default), within the table.
    pub(super) fn advance_reference(&mut self, id: u32, a: &Attempt) {
        if self.table_steps() == 0 {
            return;
        }
        let next = self.scheme.next_reference(a);
        self.ctrl.txn_mut(id).reference = next.min(self.table_steps()) as u8;
    }

    /// RBER of a page when the retention clock reads `clock_h`.
    fn page_rber_at(&self, ppn: Ppn, clock_h: f64) -> f64 {
        let Some(rel) = self.rel.as_ref() else { return 0.0 };
        let block = self.geo.block_of(ppn) as usize;
        let word = rel.state.page(ppn);
        let page = PageHistory {
            pe: rel.state.blocks[block].wear as f64,
            retention_h: word.age_h(clock_h),
            weighted_reads: rel.state.blocks[block].reads as f64,
            algorithm: self.algorithm_in(ppn, word),
            mode: word.mode(),
            step_level: word.step_level(),
            disturbers: if self.cfg.physics.model == ModelKind::Vth { self.disturbers(ppn) } else { Disturbers::NONE },
        };
        self.history_rber(block as u32, self.geo.page_in_block(ppn), &page)
    }

    /// The RBER of page `page_in_block` of `block` with history `page`: the model's, the
    /// page's place in its block, the erase scheme's factor, and read disturbance.
    fn history_rber(&self, block: u32, page_in_block: u32, page: &PageHistory) -> f64 {
        let Some(rel) = self.rel.as_ref() else { return 0.0 };
        let mut rber = rel.model.rber(page) * rel.page_factor(page_in_block);
        rber *= self.scheme.erased_rber_factor(block);
        if self.cfg.physics.read_disturb && self.cfg.physics.model != ModelKind::None {
            rber += self.cfg.physics.read_disturbance.rber(page.weighted_reads);
        }
        rber.min(MAX_RBER)
    }

    /// The neighbours that were programmed after a page, by direction and mode.
    fn disturbers(&self, ppn: Ppn) -> Disturbers {
        let Some(rel) = self.rel.as_ref() else { return Disturbers::NONE };
        let (y, z) = self.geo.coupled_pages(ppn);
        let mut d = Disturbers::NONE;
        for (counts, pages) in [(&mut d.y, y), (&mut d.z, z)] {
            for n in pages.into_iter().flatten() {
                if let Some(mode) = rel.state.later_program(ppn, n) {
                    counts[mode.index()] += 1;
                }
            }
        }
        d
    }

    /// A read sensed a page: its block has been disturbed once more.
    pub(super) fn note_sense(&mut self, ppn: Ppn) {
        if !self.cfg.physics.read_disturb {
            return;
        }
        let page_type = self.geo.page_type(self.geo.page_in_block(ppn));
        let block = self.geo.block_of(ppn);
        let read_mode = self.scheme.read_mode(block);
        let w = self.cfg.physics.read_disturbance.weight(page_type, read_mode) as f32;
        if let Some(rel) = self.rel.as_mut() {
            rel.state.blocks[block as usize].reads += w;
        }
    }

    /// Program-time factor of a page's programming algorithm and wear relative to the
    /// configured program latency, which is taken to be ISPP-SV's on a fresh block. (Its
    /// program mode counts separately: see `mode_time_factor`.)
    pub(super) fn program_time_factor(&self, ppn: Ppn) -> f64 {
        let Some(rel) = self.rel.as_ref() else { return 1.0 };
        if self.cfg.physics.model == ModelKind::None {
            return 1.0;
        }
        let wear = rel.state.blocks[self.geo.block_of(ppn) as usize].wear;
        let algorithm = self.page_algorithm(ppn);
        let (last_wear, last_algorithm, last) = rel.program_factor.get();
        if last_wear == wear.to_bits() && last_algorithm == Some(algorithm) {
            return last;
        }
        let speedup = self.cfg.physics.program_speedup_at_100k;
        let factor =
            crate::physics::ispp::program_us(algorithm, wear as f64, speedup) / crate::physics::Ispp::Sv.program_us_at_cycle_1();
        rel.program_factor.set((wear.to_bits(), Some(algorithm), factor));
        factor
    }

    /// Program power of a page's algorithm relative to ISPP-SV's (seed 001 Sec. 2.2), which
    /// `energy.program_ma` is taken to be; 1 without a physics model.
    pub(super) fn algorithm_power_factor(&self, ppn: Ppn) -> f64 {
        if self.rel.is_none() || self.cfg.physics.model == ModelKind::None {
            return 1.0;
        }
        self.page_algorithm(ppn).relative_power()
    }

    /// The algorithm a page's data was written with: as recorded when it was programmed, or,
    /// for a page never programmed in the run (a materialised one, written before it), the
    /// one the scheme programs it with.
    fn written_algorithm(&self, ppn: Ppn) -> crate::physics::Ispp {
        match self.rel.as_ref() {
            Some(r) => self.algorithm_in(ppn, r.state.page(ppn)),
            None => self.page_algorithm(ppn),
        }
    }

    /// [`Self::written_algorithm`] of a page whose word of state has been read.
    fn algorithm_in(&self, ppn: Ppn, word: PageWord) -> crate::physics::Ispp {
        word.algorithm().unwrap_or_else(|| self.page_algorithm(ppn))
    }

    /// The programming algorithm of a page: the scheme's, or the configured one.
    pub(super) fn page_algorithm(&self, ppn: Ppn) -> crate::physics::Ispp {
        let own = self.scheme.algorithm(ppn);
        own.unwrap_or(self.cfg.physics.algorithm)
    }

    /// Records a finished program for the retention clock.
    pub(super) fn note_program(&mut self, ppn: Ppn) {
        let clock = self.retention_clock_h();
        let (alg, mode) = (self.page_algorithm(ppn), self.page_program_mode(ppn));
        let block = self.geo.block_of(ppn);
        if let Some(rel) = self.rel.as_mut() {
            let level = self.scheme.step_level(ppn, mode);
            rel.state.on_program(ppn, block, clock, alg, mode, level);
            if self.cfg.ecc.scheme == EccScheme::Bch {
                self.note_encode(ppn);
            }
        }
    }

    /// A block was erased, adding `wear` effective cycles.
    pub(super) fn note_erase(&mut self, block: u32, wear: f32) {
        let pages = self.geo.block_pages(block);
        if let Some(rel) = self.rel.as_mut() {
            rel.state.on_erase(block, pages, wear);
        }
    }

    /// Whether a page was programmed in an approximate mode.
    fn is_approximate(&self, ppn: Ppn) -> bool {
        self.rel.as_ref().is_some_and(|r| r.state.page(ppn).mode().is_approximate())
    }

    /// Bit errors a BCH decode of a page at `rber` meets on read-retry step `step`, each
    /// step lowering the RBER by `ecc.retry_rber_factor`: drawn over the codeword's data bits.
    fn bch_errors(&mut self, rber: f64, step: u32) -> u64 {
        let bits = self.cfg.ecc.bch.data_bits();
        let effective = rber * self.cfg.ecc.retry_rber_factor.powi(step as i32);
        let rel = self.rel.as_mut().expect("reliability is on");
        if effective > 0.0 {
            Binomial::new(bits, effective.min(1.0)).map(|b| b.sample(&mut rel.rng)).unwrap_or(bits)
        } else {
            0
        }
    }

    /// The BCH correction capability a page's code needs: the scheme's, or the configured
    /// one (fixed, or sized at program time for the block's wear and the page's algorithm
    /// to meet a target UBER, seed 001 Table IV), before the hardware's cap. The block
    /// cannot have been erased since the page was programmed, so its wear now is its wear
    /// then.
    fn bch_needed_t(&mut self, ppn: Ppn) -> u32 {
        let own = self.scheme.code(ppn);
        let e = &self.cfg.ecc;
        let strength = own.unwrap_or(if e.bch_t > 0 { CodeStrength::Fixed(e.bch_t) } else { CodeStrength::Uber(e.target_uber) });
        let uber = match strength {
            CodeStrength::Fixed(t) => return t,
            CodeStrength::Uber(u) => u,
        };
        let alg = self.written_algorithm(ppn);
        let rel = self.rel.as_mut().expect("reliability is on");
        let wear = rel.state.blocks[self.geo.block_of(ppn) as usize].wear.max(0.0) as u32;
        let key = (alg as u8, wear, uber.to_bits());
        if let Some(&t) = rel.t_cache.get(&key) {
            return t;
        }
        let rber = alg.rber_written(wear as f64);
        let t = self.cfg.ecc.bch.required_t(rber, uber).unwrap_or(crate::ecc::bch::MAX_T);
        rel.t_cache.insert(key, t);
        t
    }

    /// The t a page is encoded and decoded with: what it needs, at most what the decoder
    /// implements.
    fn bch_t(&mut self, ppn: Ppn) -> u32 {
        self.bch_needed_t(ppn).min(self.cfg.ecc.bch.t_max)
    }

    /// A page was programmed under BCH: its encode's energy and its code's accounting.
    fn note_encode(&mut self, ppn: Ppn) {
        let needed = self.bch_needed_t(ppn);
        let t = needed.min(self.cfg.ecc.bch.t_max);
        self.measure.energy.ecc_j += self.cfg.ecc.bch.encode_j(t);
        let s = &mut self.rel.as_mut().expect("reliability is on").stats;
        s.bch_programs += 1;
        s.bch_t_sum += t as u64;
        s.bch_over_t_max += (needed > t) as u64;
    }

    /// A read's first sensing found its page at `rber`: each read is counted once in the
    /// RBER statistics, whether its data then goes to the controller or the die senses it
    /// again first.
    pub(super) fn note_first_sense(&mut self, rber: f64) {
        if let Some(rel) = self.rel.as_mut() {
            rel.stats.rber.record(crate::sim::round_u64(rber * 1e12), 0);
        }
    }

    /// A read's data is in the controller: decode it on the channel's ECC engine (or
    /// return it raw).
    pub(super) fn start_decode(&mut self, id: u32, sense_ns: Time, xfer_ns: Time) {
        let t = *self.ctrl.txn(id);
        let rber = self.page_rber(t.ppn);
        let step = t.step as u32;
        let mut raw = self.cfg.ecc.skip_approximate && self.is_approximate(t.ppn);
        // The attempt as the retry-table model and the read-retry hook see it, built once,
        // and only when one of them will read it (building it for every read costs about 5%
        // of a replay with the physics on).
        let table = self.table_steps() > 0 && !raw;
        let attempt = (table || (!raw && self.scheme.claims(Hook::ReadRetry))).then(|| self.attempt(id, rber));
        if let Some(a) = attempt.filter(|_| step == 0) {
            raw = !self.scheme.decode(&a);
        }
        let table = table && !raw;
        let (decode_ns, outcome) = match (self.cfg.ecc.scheme, attempt) {
            _ if raw => (0, Decoded::Raw),
            (EccScheme::None, _) => (0, Decoded::Raw),
            (EccScheme::Ldpc, Some(a)) if table => self.table_decode(&a, step),
            (EccScheme::Ldpc, _) => {
                let l = &self.cfg.ecc.ldpc;
                let stage = l.stage_for(rber);
                // The first pass is a hard decode; each later pass is a soft level whose
                // extra sensing and transfer the die and channel have just done.
                let decode_us =
                    if step == 0 { l.hard_us } else { (l.soft_us - (sense_ns + xfer_ns) as f64 / 1e3).max(l.hard_us) };
                let needed = l.soft_levels_tried(stage);
                let outcome = if step >= needed {
                    match stage {
                        Stage::Hard | Stage::Soft(_) => Decoded::Success,
                        Stage::Raid => Decoded::Raid,
                        Stage::Uncorrectable => Decoded::Uncorrectable,
                    }
                } else {
                    Decoded::Retry
                };
                (crate::sim::round_u64(decode_us * 1e3), outcome)
            }
            (EccScheme::Bch, _) => {
                let code_t = self.bch_t(t.ppn);
                self.measure.energy.ecc_j += self.cfg.ecc.bch.decode_j(code_t);
                self.rel.as_mut().expect("reliability is on").stats.bch_decodes_by_t[code_t as usize] += 1;
                let errors = self.bch_errors(rber, step);
                let outcome = if errors <= code_t as u64 {
                    Decoded::Success
                } else if step < self.cfg.ecc.retry_steps {
                    Decoded::Retry
                } else {
                    Decoded::Uncorrectable
                };
                (self.cfg.ecc.bch.decode_ns(code_t, xfer_ns), outcome)
            }
        };
        let outcome = match (outcome, attempt) {
            (Decoded::Raw, _) => Decoded::Raw,
            (_, Some(a)) => match self.scheme.after_decode(&a, outcome == Decoded::Retry) {
                Verdict::AsDecoded => outcome,
                Verdict::Raw => Decoded::Raw,
                Verdict::Retry => Decoded::Retry,
            },
            (_, None) => outcome,
        };
        if let Some(a) = attempt.filter(|a| table && !a.decodable) {
            let rel = self.rel.as_mut().expect("reliability is on");
            rel.stats.failed_transfers += 1;
            rel.stats.failed_transfer_ns += xfer_ns;
            if outcome == Decoded::Retry {
                self.advance_reference(id, &a);
            }
        }
        let now = self.now();
        let ch = self.geo.channel_of_die(self.geo.die_of_plane(t.plane)) as usize;
        if step == 0 {
            self.note_first_sense(rber);
        }
        let rel = self.rel.as_mut().expect("reliability is on");
        if t.kind == TxnKind::HostRead {
            // A read's first decode is at step 0, or later when the die sensed it again
            // before its first transfer.
            let first_decode = step == 0 || (!rel.resensed.is_empty() && rel.resensed.remove(&(t.owner, t.ppn)));
            let s = &mut rel.stats;
            if first_decode {
                s.sense_ns += sense_ns;
                s.transfer_ns += xfer_ns;
                s.decode_ns += decode_ns;
                s.host_page_reads += 1;
            }
            if outcome == Decoded::Retry {
                rel.first_failure.entry((t.owner, t.ppn)).or_insert(now);
            }
        }
        let start = rel.ecc_free[ch].max(now);
        let end = start + decode_ns;
        rel.ecc_free[ch] = end;
        if self.cfg.ecc.decode_buffer_pages > 0 && start > now {
            rel.decode_starts[ch].push_back(start);
        }
        if t.kind == TxnKind::HostRead && matches!(outcome, Decoded::Success | Decoded::Raw | Decoded::Uncorrectable) {
            // Nothing waits on a host read's last decode but its request: settle it now and
            // let the request complete at the decode's end, without an event of its own.
            self.finish_read(id, outcome, end);
        } else {
            self.q.schedule(end, Ev::Decoded(id, outcome as u8));
        }
    }

    /// A hard LDPC decode of `a` under the retry-table model: it succeeds when the attempt's
    /// reference is within the page's margin, taking longer the more errors it corrects; a
    /// failing decode runs every iteration, and the read retries while the table lasts,
    /// then goes to RAID recovery (or is uncorrectable without it).
    fn table_decode(&self, a: &Attempt, step: u32) -> (Time, Decoded) {
        let model = self.retry_model().expect("the retry model is on");
        let hard_us = self.cfg.ecc.ldpc.hard_us;
        let (us, outcome) = if a.decodable {
            let fill = (model.rber_at(a.shift, a.rber, a.reference) / model.capability()).min(1.0);
            let min_us = model.config().decode_min_us.min(hard_us);
            (min_us + (hard_us - min_us) * fill, Decoded::Success)
        } else if step < model.config().table_steps {
            (hard_us, Decoded::Retry)
        } else if self.cfg.ecc.ldpc.raid_us > 0.0 {
            (hard_us, Decoded::Raid)
        } else {
            (hard_us, Decoded::Uncorrectable)
        };
        (crate::sim::round_u64(us * 1e3), outcome)
    }

    /// How long a transfer of `pages` read pages on channel `ch` starting now must hold the
    /// channel before its data fits the ECC engine's buffer (0 without a limit).
    pub(super) fn ecc_wait(&mut self, ch: u32, pages: u32) -> Time {
        let limit = self.cfg.ecc.decode_buffer_pages as usize;
        let now = self.now();
        let Some(rel) = self.rel.as_mut().filter(|_| limit > 0) else { return 0 };
        let waiting = &mut rel.decode_starts[ch as usize];
        while waiting.front().is_some_and(|&t| t <= now) {
            waiting.pop_front();
        }
        // Room for all the pages, or for none but them when they are more than the buffer.
        let keep = limit.saturating_sub(pages as usize);
        if waiting.len() <= keep {
            return 0;
        }
        waiting[waiting.len() - keep - 1] - now
    }

    /// A decode finished with `outcome`.
    pub(super) fn on_decoded(&mut self, id: u32, outcome: u8) {
        let outcome = [Decoded::Success, Decoded::Retry, Decoded::Raid, Decoded::Uncorrectable, Decoded::Raw, Decoded::Recovered]
            [outcome as usize];
        if outcome == Decoded::Retry {
            // Back to the die, ahead of other reads: it is the oldest read there.
            let mut t = self.ctrl.take_txn(id);
            t.step += 1;
            let die = self.geo.die_of_plane(t.plane);
            self.ctrl.queue_first(die, t);
            self.try_start_die(die);
            return;
        }
        if outcome == Decoded::Raid {
            let raid = (self.cfg.ecc.ldpc.raid_us * 1e3).round() as Time;
            let rel = self.rel.as_mut().expect("reliability is on");
            rel.stats.raid += 1;
            self.q.schedule_in(raid, Ev::Decoded(id, Decoded::Recovered as u8));
            return;
        }
        self.finish_read(id, outcome, self.now());
    }

    /// A read's decoding is settled with `outcome`, its data ready at `at` (now or later).
    fn finish_read(&mut self, id: u32, outcome: Decoded, at: Time) {
        let t = *self.ctrl.txn(id);
        let scheme = self.cfg.ecc.scheme;
        let rel = self.rel.as_mut().expect("reliability is on");
        let steps = t.step as u32;
        match outcome {
            Decoded::Uncorrectable => rel.stats.uncorrectable += 1,
            Decoded::Raw => rel.stats.raw += 1,
            Decoded::Recovered => {}
            _ => match scheme {
                // Under the retry-table model every attempt is a hard decode.
                EccScheme::Ldpc if t.step == 0 || rel.retry.is_some() => rel.stats.hard += 1,
                EccScheme::Ldpc => rel.stats.soft[t.step as usize - 1] += 1,
                _ => rel.stats.bch_ok += 1,
            },
        }
        if rel.stats.reads_by_steps.len() <= steps as usize {
            rel.stats.reads_by_steps.resize(steps as usize + 1, 0);
        }
        rel.stats.reads_by_steps[steps as usize] += 1;
        // In thousandths of a step, so that the summary's three decimals keep the mean.
        if steps == 0 {
            rel.stats.reads_without_retry += 1;
        } else {
            rel.stats.retries.record(steps as u64 * 1000, 0);
        }
        // Only a host read that was retried can have a failure on record (a failed decode
        // is what moves it past its attempt).
        let key = (t.owner, t.ppn);
        let host = t.kind == TxnKind::HostRead;
        let first_failure = if host && steps > 0 { rel.first_failure.remove(&key) } else { None };
        debug_assert!(!host || steps > 0 || !rel.first_failure.contains_key(&key));
        debug_assert!(!host || !rel.resensed.contains(&key), "read {key:?} finished before its first decode");
        if let Some(first) = first_failure {
            rel.stats.retry_ns += at - first;
        }
        if t.kind == TxnKind::HostRead && self.payload.is_some() {
            // Corrected data comes back as written; anything else with its raw errors. With a
            // cache tier an uncorrectable page is served from the disk instead.
            let returned_rber =
                if matches!(outcome, Decoded::Raw | Decoded::Uncorrectable) { self.page_rber(t.ppn) } else { 0.0 };
            let from_disk = self.cfg.backing.enabled && outcome == Decoded::Uncorrectable;
            if let Some(page) = self.payload_page(t.owner, t.lpn, false).filter(|_| !from_disk) {
                self.payload_read(page, returned_rber);
            }
        }
        let t = self.ctrl.take_txn(id);
        if t.kind == TxnKind::HostRead {
            if outcome == Decoded::Uncorrectable {
                self.host.page_failed(t.owner);
            }
            self.measure.counters.host_flash_reads += 1;
            self.page_done_at(t.owner, at);
        } else {
            self.txn_done(t);
        }
    }

    /// The RBER a probe of `block` measures (see [`crate::seams::Observer::probed`]) at its
    /// reference page (the scheme's [`crate::seams::Observer::probe_page`]): after an erase,
    /// that of the page programmed now; otherwise the page's now, or `None` when it holds
    /// nothing.
    pub(super) fn probe_rber(&self, block: u32, when: Probe) -> Option<f64> {
        let rel = self.rel.as_ref()?;
        let reference = self.geo.ppn(block, rel.probe_page);
        if when != Probe::Erased && self.ftl.blocks().is_programmed(reference) {
            return Some(self.page_rber(reference));
        }
        if when == Probe::Idle {
            return None;
        }
        let page = PageHistory {
            pe: rel.state.blocks[block as usize].wear as f64,
            retention_h: 0.0,
            weighted_reads: 0.0,
            ..PageHistory::fresh(self.cfg.physics.algorithm)
        };
        Some(self.history_rber(block, rel.probe_page, &page))
    }

    /// Probes `block` and tells the scheme.
    pub(super) fn probe(&mut self, block: u32, when: Probe) {
        if let Some(rber) = self.probe_rber(block, when) {
            self.measure.counters.probes += 1;
            self.scheme.probed(block, rber, when);
        }
    }

    /// Probes every block before the first request, for a scheme that measures blocks.
    pub(super) fn probe_all(&mut self) -> crate::error::Result<()> {
        if !self.wants_probes() {
            return Ok(());
        }
        for block in 0..self.geo.blocks {
            if block % 4096 == 0 {
                crate::interrupt::poll()?;
            }
            self.probe(block, Probe::Start);
        }
        Ok(())
    }

    /// Whether the scheme measures blocks by probes (and there is a physics model to
    /// measure).
    pub(super) fn wants_probes(&self) -> bool {
        self.observed && self.rel.is_some() && self.scheme.wants_probes()
    }

    /// The payload's final read (`Payload::final_read_after_h`): every page of the range read
    /// once, after the run, through the plain read path without its timing. Each page's
    /// RBER includes the read disturbance its block took during the run; the final read
    /// itself disturbs nothing, and no scheme's read-retry policy applies.
    pub(super) fn payload_final_read(&mut self) -> crate::error::Result<()> {
        let Some(after_h) = self.payload.as_ref().and_then(|p| p.final_read_after_h) else { return Ok(()) };
        let clock_h = self.retention_clock_h() + after_h;
        let lpns = self.payload.as_ref().map(|p| p.lpns()).unwrap_or(0..0);
        for lpn in lpns {
            // The clock is read only now and then: this loop is cheap per page.
            if lpn.is_multiple_of(4096) {
                crate::interrupt::poll()?;
            }
            let on_flash = self
                .ftl
                .map()
                .get(lpn as u32)
                .filter(|&ppn| !self.ctrl.buffer().contains(lpn as u32) && self.ftl.blocks().is_programmed(ppn));
            let found = match on_flash {
                None => FinalPage { rber: None, approximate: false, raw: false },
                Some(ppn) => self.settled_read(ppn, clock_h),
            };
            if let Some(p) = self.payload.as_mut() {
                p.on_final_read(lpn, found);
            }
        }
        Ok(())
    }

    /// How a read of `ppn` at retention clock `clock_h` ends: its RBER, and whether it comes
    /// back raw (an approximate page read without decoding, no decoder, or a decode that the
    /// configured decoder would fail at its last step).
    fn settled_read(&mut self, ppn: Ppn, clock_h: f64) -> FinalPage {
        let rber = self.page_rber_at(ppn, clock_h);
        let approximate = self.is_approximate(ppn);
        let raw = match self.cfg.ecc.scheme {
            _ if approximate && self.cfg.ecc.skip_approximate => true,
            EccScheme::None => true,
            EccScheme::Ldpc => self.cfg.ecc.ldpc.stage_for(rber) == Stage::Uncorrectable,
            EccScheme::Bch => self.bch_errors(rber, self.cfg.ecc.retry_steps as u32) > self.bch_t(ppn) as u64,
        };
        FinalPage { rber: Some(rber), approximate, raw }
    }

    /// The host read a logical page: a payload page in range comes back with errors drawn at
    /// `rber`.
    pub(super) fn payload_read(&mut self, page: u64, rber: f64) {
        if let Some(p) = self.payload.as_mut() {
            p.on_read(page, rber);
        }
    }
}
