//! Suspension: a read that reaches a die while it runs an erase loop (or a program) may
//! pause it, run first, and let it go on once no read is queued on the die. One operation
//! per die is suspended at a time. An erase loop resumes where its pulse stopped, or starts
//! its pulse again (`timing.erase_resume`); the scheme's erase control says in which loops
//! a suspension may happen; `timing.erase_suspend_guard` keeps erases running while the
//! die's writes wait for free blocks.

use super::super::{Ev, Simulator};
use crate::controller::die::{ActiveArray, DieOp, Phase, Suspended};
use crate::controller::txn::{OpClass, QueueClass};
use crate::seams::EraseControl;

impl Simulator<'_> {
    /// A read was queued on `die`: suspends the erase loop or program it runs, if the rules
    /// allow.
    pub(in crate::engine) fn suspend_for_read(&mut self, die: u32) {
        let now = self.now();
        let d = &self.ctrl.dies[die as usize];
        if d.op.phase != Phase::Array || d.suspended.is_some() {
            return;
        }
        let rule = match d.op.class {
            OpClass::Erase => self.timing.erase_suspend,
            OpClass::Program => self.timing.program_suspend,
            OpClass::Read => None,
        };
        let (Some(rule), Some(active)) = (rule, d.active) else { return };
        let left = active.end.saturating_sub(now);
        if left == 0 || left < rule.min_left_ns {
            return;
        }
        let op = d.op;
        if op.class == OpClass::Erase {
            if rule.guard && self.writes_wait_for_blocks(die) {
                return;
            }
            if !self.scheme.may_suspend(active.block, active.index, active.loops) {
                return;
            }
        }
        let activity = self.ctrl.txns.get(op.txns[0]).kind.activity();
        self.measure.die_busy[die as usize].add(activity, now - op.start);
        // A restarted pulse loses what it had done.
        let left = if rule.restart {
            self.measure.erases.restart_lost_ns += active.duration - left;
            active.duration
        } else {
            left
        };
        let d = &mut self.ctrl.dies[die as usize];
        // The completion event already scheduled belongs to the old generation.
        d.gen = d.gen.wrapping_add(1);
        d.suspended = Some(Suspended { op, array: active, left });
        d.active = None;
        d.op.phase = Phase::Idle;
        d.suspend_penalty = rule.suspend_ns;
        let s = &mut self.measure.erases;
        s.suspend_ns += rule.suspend_ns;
        if op.class == OpClass::Erase {
            s.erase_suspensions += 1;
        } else {
            s.program_suspensions += 1;
        }
    }

    /// Whether a plane of `die` is short of free blocks: below the foreground threshold, or
    /// with writes parked for want of a block (cleaning then goes ahead of host writes).
    pub(in crate::engine) fn writes_wait_for_blocks(&self, die: u32) -> bool {
        let ppd = self.geo.planes_per_die;
        (die * ppd..(die + 1) * ppd).any(|p| self.ftl.short_of_blocks(p))
    }

    /// Resumes the suspended operation of an idle `die` once no read waits; true if it did.
    pub(in crate::engine) fn resume_suspended(&mut self, die: u32) -> bool {
        let now = self.now();
        let d = &mut self.ctrl.dies[die as usize];
        if !d.queues[QueueClass::Read as usize].is_empty() {
            return false;
        }
        let Some(s) = d.suspended.take() else { return false };
        debug_assert!(!d.busy(), "die {die} resumes an operation while busy");
        d.op = DieOp { phase: Phase::Array, start: now, ..s.op };
        d.active = Some(ActiveArray { end: now + s.left, ..s.array });
        d.suspend_penalty = 0;
        self.q.schedule_in(s.left, Ev::ArrayDone(die, d.gen));
        true
    }
}
