//! Erase suspension: a read that reaches a die while it erases may pause the erase, run
//! first, and let the erase resume where it stopped once no read is queued on the die.
//! One erase per die is suspended at a time; the scheme's erase control says in which
//! erase loops a suspension may happen.

use super::{Ev, Simulator};
use crate::controller::die::{DieOp, Phase, SuspendedErase};
use crate::controller::txn::{OpClass, QueueClass};
use crate::techniques::{EraseControl, ErasePlan, Hook};

impl Simulator<'_> {
    /// A read was queued on `die`: suspends the erase it runs, if the rules allow.
    pub(super) fn suspend_erase(&mut self, die: u32) {
        let Some(rule) = self.timing.erase_suspend else { return };
        let now = self.now();
        let d = &self.dies[die as usize];
        if d.op.class != OpClass::Erase || d.op.phase != Phase::Array || d.suspended.is_some() {
            return;
        }
        let Some(erase) = d.erase else { return };
        let left = erase.end.saturating_sub(now);
        if left == 0 || left < rule.min_left_ns {
            return;
        }
        if self.hooks.has(Hook::Erase) {
            let plan = ErasePlan { loops: erase.loops, loop_ns: erase.loop_ns };
            if !self.scheme.may_suspend(erase.block, erase.loop_at(now), plan) {
                return;
            }
        }
        let op = d.op;
        let activity = self.txns.get(op.txns[0]).kind.activity();
        self.die_busy[die as usize].add(activity, now - op.start);
        let d = &mut self.dies[die as usize];
        // The completion event already scheduled belongs to the old generation.
        d.gen = d.gen.wrapping_add(1);
        d.suspended = Some(SuspendedErase { op, erase, left });
        d.erase = None;
        d.op.phase = Phase::Idle;
        d.suspend_penalty = rule.suspend_ns;
        self.counters.erase_suspensions += 1;
    }

    /// Resumes the suspended erase of an idle `die` once no read waits; true if it did.
    pub(super) fn resume_erase(&mut self, die: u32) -> bool {
        let now = self.now();
        let d = &mut self.dies[die as usize];
        if !d.queues[QueueClass::Read as usize].is_empty() {
            return false;
        }
        let Some(s) = d.suspended.take() else { return false };
        debug_assert!(!d.busy(), "die {die} resumes an erase while busy");
        d.op = DieOp { phase: Phase::Array, start: now, ..s.op };
        d.erase = Some(crate::controller::die::ActiveErase { end: now + s.left, ..s.erase });
        d.suspend_penalty = 0;
        self.q.schedule_in(s.left, Ev::ArrayDone(die, d.gen));
        true
    }
}
