//! The scheme's periodic background work: at each period it names blocks to relocate, and
//! the engine starts each in its plane like a GC victim, counted under the task's reason.

use super::{Ev, Simulator};
use crate::seams::{Background, BackgroundCtx, Probe, Reason};

impl Simulator<'_> {
    /// Schedules the next background run, if the scheme has a periodic task.
    pub(super) fn schedule_background(&mut self) {
        if let Some(period) = self.scheme.period_ns(self.cfg.physics.retention_scale) {
            self.q.schedule_in(period, Ev::Background);
            self.background_pending = true;
        }
    }

    /// True when the next background run is all that is left: the run ends before it, so
    /// that a period far beyond the last request does not stretch the simulated time.
    pub(super) fn only_background_left(&self) -> bool {
        self.background_pending && self.q.len() == 1 && self.host_finished()
    }

    /// Runs the task in idle planes; looks again later while the host runs.
    pub(super) fn background(&mut self) {
        self.background_pending = false;
        let busy: Vec<bool> = (0..self.geo.planes).map(|p| self.ftl.gc_job(p).active()).collect();
        let mut moves = Vec::new();
        let ctx = BackgroundCtx {
            geo: &self.geo,
            blocks: self.ftl.blocks(),
            busy: &busy,
            host_idle_ns: self.host.idle_for(self.now()),
            now: self.now(),
            clock_h: self.retention_clock_h(),
        };
        self.scheme.run(&ctx, &mut moves);
        let mut probes = Vec::new();
        self.scheme.probes(&ctx, &mut probes);
        for m in moves {
            let idle = !self.ftl.gc_job(m.plane).active();
            if idle && self.geo.plane_of_block(m.block) == m.plane && self.closed_or_sealed(m.block) {
                self.start_relocation(m.plane, m.block, Reason::Task(m.reason));
            } else {
                self.invariant(format!("background task `{}` asked to relocate block {} of plane {}, which is neither closed nor sealable, or whose plane is busy", m.reason, m.block, m.plane));
            }
        }
        if self.wants_probes() {
            for block in probes {
                self.probe(block, Probe::Idle);
            }
        }
        if !self.host_finished() {
            self.schedule_background();
        }
    }
}
