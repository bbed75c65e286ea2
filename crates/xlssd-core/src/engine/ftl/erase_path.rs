//! Erases as loops. A block's erase follows its plan (the scheme's erase control, or one
//! loop of `timing.erase_us`): each erase-and-verify loop is a command of its own on the
//! die, so reads and writes queued meanwhile run between loops. With `gc.lazy_erase` the
//! last loop is deferred until the block's first program is queued, and programs to the
//! block wait for it. Erase statistics for the report.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::super::Simulator;
use crate::controller::txn::{QueueClass, Txn, TxnKind, NO_OWNER};
use crate::nand::Ppn;
use crate::seams::{EraseControl, EraseCtx, ErasePlan, MAX_ERASE_LOOPS};
use crate::sim::Time;

/// `Txn::step` of the transaction running a block's deferred last loop; other erase
/// transactions carry the index of the loop they run.
const DEFERRED_LOOP: u8 = u8::MAX;

/// The erase a plane's cleaning job runs.
#[derive(Debug, Clone, Copy)]
struct EraseRun {
    block: u32,
    plan: ErasePlan,
    /// Loops run before the block goes back to the free blocks (all of them, or all but the
    /// deferred last one).
    now: u32,
}

/// A last loop deferred to the block's first program.
#[derive(Debug, Clone, Copy)]
struct DeferredLoop {
    ns: Time,
    index: u32,
    loops: u32,
    issued: bool,
}

/// What happened when an erase transaction's loop finished.
pub(in crate::engine) enum LoopEnd {
    /// Another loop of the erase was queued in its place.
    Continues,
    /// A deferred last loop finished: the block may be programmed.
    DeferredDone,
    /// The erase's loops run before the block is freed are done.
    Erased,
}

#[derive(Default)]
pub(in crate::engine) struct Erases {
    /// By plane: cleaning erases one block per plane at a time.
    runs: Vec<Option<EraseRun>>,
    deferred: FxHashMap<u32, DeferredLoop>,
}

/// What erases did, for the report (kept with the measurements).
#[derive(Clone, Default)]
pub(in crate::engine) struct EraseStats {
    /// Erases whose plan finished (a deferred last loop included in its figures).
    pub erases: u64,
    /// Loop commands run, a deferred last loop counted when it runs.
    pub loops: u64,
    /// Erases by number of loops in their plan.
    pub by_loops: [u64; MAX_ERASE_LOOPS + 1],
    /// Erases by total array time (us).
    pub by_latency_us: BTreeMap<u64, u64>,
    pub latency_ns: u64,
    /// The same, as a latency distribution (for its percentiles and sampled CDF).
    pub latency: crate::stats::LatencyStats,
    pub stress_v_ms: f64,
    pub deferred_loops_run: u64,
    /// Host reads that arrived at a die running (or holding suspended) an erase loop.
    pub host_reads_meeting_erase: u64,
    pub erase_suspensions: u64,
    pub program_suspensions: u64,
    /// Time the suspending reads spent suspending (the suspend time, summed).
    pub suspend_ns: u64,
    /// Array time restarted erase loops lost.
    pub restart_lost_ns: u64,
}

impl Erases {
    pub(in crate::engine) fn new(planes: u32) -> Erases {
        Erases { runs: vec![None; planes as usize], ..Default::default() }
    }
}

impl Simulator<'_> {
    /// Plans the erase of cleaned `block` and queues its first loop.
    pub(in crate::engine) fn start_erase(&mut self, plane: u32, block: u32) {
        let ctx = EraseCtx {
            block,
            pe: self.ftl.blocks.erase_count[block as usize],
            base_ns: self.timing.erase_ns,
            program_ns: self.timing.program_ns(self.geo.page_type(0)),
            read_ns: self.timing.read_ns(self.geo.page_type(0)),
        };
        let plan = self.scheme.erase_plan(&ctx);
        if plan.loops() == 0 {
            self.invariant(format!("the erase plan of block {block} has no loop"));
            return;
        }
        let now = if self.cfg.gc.lazy_erase { plan.loops() - 1 } else { plan.loops() };
        self.ftl.erases.runs[plane as usize] = Some(EraseRun { block, plan, now });
        // With every loop deferred, a command of no array time still stands for the erase
        // (the authors' simulator's empty first loop), so that the block is freed in turn.
        let ppn = self.geo.ppn(block, 0);
        self.enqueue(Txn { kind: TxnKind::Erase, ppn, lpn: 0, owner: NO_OWNER, plane, step: 0, reference: 0 });
    }

    /// The erase loop transaction `t` runs: (array time, block, loop index, loops).
    pub(in crate::engine) fn erase_loop(&self, t: &Txn) -> (Time, u32, u32, u32) {
        let block = self.geo.block_of(t.ppn);
        if t.step == DEFERRED_LOOP {
            let d = self.ftl.erases.deferred[&block];
            return (d.ns, block, d.index, d.loops);
        }
        let Some(run) = self.ftl.erases.runs[t.plane as usize] else { return (0, block, 0, 1) };
        let i = t.step as u32;
        let ns = if i < run.now { run.plan.loop_ns(i) } else { 0 };
        (ns, block, i, run.plan.loops())
    }

    /// Erase transaction `id`'s loop finished: queues the next loop, or settles the erase.
    pub(in crate::engine) fn erase_loop_done(&mut self, id: u32) -> LoopEnd {
        let t = *self.ctrl.txn(id);
        let block = self.geo.block_of(t.ppn);
        if t.step == DEFERRED_LOOP {
            self.ftl.erases.deferred.remove(&block);
            self.measure.erases.loops += 1;
            self.measure.erases.deferred_loops_run += 1;
            self.ctrl.take_txn(id);
            return LoopEnd::DeferredDone;
        }
        let Some(run) = self.ftl.erases.runs[t.plane as usize] else {
            self.invariant(format!("erase of block {block} finished a loop with no erase planned"));
            return LoopEnd::Erased;
        };
        if run.block != block {
            self.invariant(format!("plane {} erases block {} but a loop of block {block} finished", t.plane, run.block));
            return LoopEnd::Erased;
        }
        let i = t.step as u32;
        if i < run.now {
            self.measure.erases.loops += 1;
        }
        if i + 1 < run.now {
            let mut next = self.ctrl.take_txn(id);
            next.step += 1;
            self.queue_loop(next);
            return LoopEnd::Continues;
        }
        self.ftl.erases.runs[t.plane as usize] = None;
        let loops = run.plan.loops();
        if run.now < loops {
            let last = loops - 1;
            let d = DeferredLoop { ns: run.plan.loop_ns(last), index: last, loops, issued: false };
            self.ftl.erases.deferred.insert(block, d);
        }
        self.note_erase_plan(&run.plan);
        LoopEnd::Erased
    }

    fn note_erase_plan(&mut self, plan: &ErasePlan) {
        let stress_cfg = &self.cfg.physics.erase;
        let stress: f64 = (0..plan.loops()).map(|i| stress_cfg.pulse_stress(plan.loop_ns(i) as f64 / 1e6, plan.level(i))).sum();
        let s = &mut self.measure.erases;
        s.erases += 1;
        s.by_loops[plan.loops() as usize] += 1;
        let total = plan.total_ns();
        *s.by_latency_us.entry((total + 500) / 1_000).or_insert(0) += 1;
        s.latency_ns += total;
        s.latency.record_n(total, 1);
        s.stress_v_ms += stress;
    }

    /// Queues erase loop transaction `t` on the die of its plane: ahead of other cleaning
    /// work, behind reads.
    fn queue_loop(&mut self, t: Txn) {
        let die = self.geo.die_of_plane(t.plane);
        debug_assert_eq!(t.kind.queue(), QueueClass::Gc);
        self.ctrl.queue_first(die, t);
    }

    /// A program of `ppn` is being queued: if its block's last erase loop was deferred and
    /// has not been queued, queue it first.
    #[inline]
    pub(in crate::engine) fn queue_deferred_loop(&mut self, ppn: Ppn) {
        if self.ftl.erases.deferred.is_empty() {
            return;
        }
        let block = self.geo.block_of(ppn);
        let Some(d) = self.ftl.erases.deferred.get_mut(&block) else { return };
        if d.issued {
            return;
        }
        d.issued = true;
        let plane = self.geo.plane_of_block(block);
        let t = Txn {
            kind: TxnKind::Erase,
            ppn: self.geo.ppn(block, 0),
            lpn: 0,
            owner: NO_OWNER,
            plane,
            step: DEFERRED_LOOP,
            reference: 0,
        };
        self.queue_loop(t);
    }

    /// Whether `ppn`'s block still waits for its deferred last erase loop.
    #[inline]
    pub(in crate::engine) fn awaits_deferred_loop(&self, ppn: Ppn) -> bool {
        !self.ftl.erases.deferred.is_empty() && self.ftl.erases.deferred.contains_key(&self.geo.block_of(ppn))
    }
}
