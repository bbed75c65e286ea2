//! From a transaction to the flash: per-die queues, multi-plane commands, channel
//! arbitration, operation timing, and each command's completion.

use super::super::ftl::{LoopEnd, UNBOUND};
use super::super::{Ev, Simulator};
use crate::controller::die::{ActiveArray, DieOp, Phase, MAX_PLANES};
use crate::controller::txn::{OpClass, QueueClass, Txn, TxnKind, NO_OWNER};
use crate::error::Error;
use crate::nand::Ppn;
use crate::seams::{Hook, ProgramModes, ReadKind, ReadRetry};
use crate::sim::Time;
use crate::stats::Activity;

impl Simulator<'_> {
    pub(in crate::engine) fn enqueue(&mut self, mut t: Txn) {
        let die = self.geo.die_of_plane(t.plane);
        if t.kind == TxnKind::HostRead && t.step == 0 && self.die_erasing(die) {
            self.measure.erases.host_reads_meeting_erase += 1;
        }
        match t.kind.op() {
            OpClass::Program if t.ppn & UNBOUND == 0 => self.queue_deferred_loop(t.ppn),
            OpClass::Program => self.ftl.note_unbound(t.plane, true),
            OpClass::Read => {
                if let Some(rel) = &self.rel {
                    rel.state.prefetch_read(t.ppn, self.geo.block_of(t.ppn));
                }
            }
            OpClass::Erase => {}
        }
        self.ctrl.die_load[die as usize] += 1;
        if self.starts_alone(die, &t) {
            // What `start_next_command` would make of it, without the trip through the queue.
            if t.ppn & UNBOUND == 0 {
                let id = self.ctrl.txns.insert(t);
                self.launch(die, t.kind.op(), &[id]);
                return;
            }
            let Some(bound) = self.bind_at_issue(die, t) else {
                self.try_start_die(die);
                return;
            };
            self.queue_deferred_loop(bound.ppn);
            // Binding may have queued work here (an erase, cleaning's reads) or made the
            // program wait for its block's deferred erase loop.
            if self.starts_alone(die, &bound) {
                let id = self.ctrl.txns.insert(bound);
                self.launch(die, bound.kind.op(), &[id]);
                return;
            }
            t = bound;
        }
        let queue = t.kind.queue();
        self.ctrl.dies[die as usize].queues[queue as usize].push_back(t);
        if queue == QueueClass::Read && (self.timing.erase_suspend.is_some() || self.timing.program_suspend.is_some()) {
            self.suspend_for_read(die);
        }
        self.try_start_die(die);
    }

    /// The queue of `die` holding its only queued transaction, if it holds exactly one.
    #[inline]
    fn only_queued(&self, die: u32) -> Option<usize> {
        let queues = &self.ctrl.dies[die as usize].queues;
        let mut found = None;
        for (qc, q) in queues.iter().enumerate() {
            match (q.len(), found) {
                (0, _) => {}
                (1, None) => found = Some(qc),
                _ => return None,
            }
        }
        found
    }

    /// Whether `t`, arriving at `die`, is a command of its own right away: the die is idle,
    /// holds nothing suspended and has nothing queued (so nothing could go before `t` or
    /// join it in a multi-plane command), and `t` may start (a program only as its block's
    /// next page). Most transactions arrive so on a lightly loaded drive.
    #[inline]
    fn starts_alone(&self, die: u32, t: &Txn) -> bool {
        let d = &self.ctrl.dies[die as usize];
        !d.busy() && d.suspended.is_none() && d.queues.iter().all(|q| q.is_empty()) && self.startable(t)
    }

    /// Whether `t` may start now: a program only as its block's next page, since a scheme can
    /// send host writes and GC copies to one block, and their queues must not reorder its
    /// pages. A program without its page yet takes the next one when it starts.
    #[inline]
    fn startable(&self, t: &Txn) -> bool {
        t.kind.op() != OpClass::Program || t.ppn & UNBOUND != 0 || self.next_to_program(t.ppn)
    }

    /// Chooses the page of unbound program `t`, about to start on idle `die`, with the die
    /// held meanwhile; None if it was dropped, parked or sent to another die instead. The
    /// caller queues the deferred erase loop the page's block may wait for once the program
    /// is back in its queue, so that the loop goes ahead of it.
    #[cold]
    #[inline(never)]
    fn bind_at_issue(&mut self, die: u32, t: Txn) -> Option<Txn> {
        debug_assert!(!self.ctrl.dies[die as usize].busy());
        self.ctrl.dies[die as usize].op.phase = Phase::Binding;
        self.ftl.note_unbound(t.plane, false);
        let bound = self.bind_program(t);
        if let Some(b) = bound {
            self.maybe_start_gc(b.plane);
        } else {
            self.ctrl.die_load[die as usize] -= 1;
        }
        self.ctrl.dies[die as usize].op.phase = Phase::Idle;
        bound
    }

    /// Binds the unbound program at position `i` of `die`'s queue `qc`, putting it back
    /// there bound if it was not dropped, parked or moved.
    #[inline(never)]
    fn bind_queued(&mut self, die: u32, qc: usize, i: usize) {
        let Some(t) = self.ctrl.dies[die as usize].queues[qc].remove(i) else { return };
        if let Some(bound) = self.bind_at_issue(die, t) {
            let queue = &mut self.ctrl.dies[die as usize].queues[qc];
            queue.insert(i.min(queue.len()), bound);
            self.queue_deferred_loop(bound.ppn);
        }
    }

    /// Whether `die` is running an erase loop or holds one suspended.
    fn die_erasing(&self, die: u32) -> bool {
        let d = &self.ctrl.dies[die as usize];
        (d.op.class == OpClass::Erase && d.op.phase == Phase::Array) || d.suspended.is_some_and(|s| s.op.class == OpClass::Erase)
    }

    /// Starts the next command on an idle die: reads first; GC ahead of host writes only
    /// when one of the die's planes is nearly out of free blocks.
    #[inline]
    pub(in crate::engine) fn try_start_die(&mut self, die: u32) {
        // Most calls find the die busy, or idle with nothing to do: answered inline.
        let d = &self.ctrl.dies[die as usize];
        if d.busy() || (d.suspended.is_none() && d.queues.iter().all(|q| q.is_empty())) {
            return;
        }
        self.start_next_command(die);
    }

    /// [`Self::try_start_die`] on an idle die with work queued or suspended. A suspended
    /// operation resumes when no read waits; otherwise some queue holds work.
    #[inline(never)]
    fn start_next_command(&mut self, die: u32) {
        if self.resume_suspended(die) {
            return;
        }
        // A program whose page is still to be chosen is bound first, and the choice made
        // again: binding can drop, park or move it, or queue other work here.
        while !self.try_launch_queued(die) {}
    }

    /// Launches the next command from `die`'s queues; false if a program of it had to be
    /// bound first (the command must then be chosen again).
    #[inline]
    fn try_launch_queued(&mut self, die: u32) -> bool {
        if let Some(qc) = self.only_queued(die) {
            // One transaction queued in all: no order between queues, no partner to join it.
            let queue = &self.ctrl.dies[die as usize].queues[qc];
            let t = queue[0];
            if !self.startable(&t) {
                return true;
            }
            if t.kind.op() == OpClass::Program && t.ppn & UNBOUND != 0 {
                self.bind_queued(die, qc, 0);
                return false;
            }
            let id = self.ctrl.txns.insert(t);
            self.ctrl.dies[die as usize].queues[qc].pop_front();
            self.launch(die, t.kind.op(), &[id]);
            return true;
        }
        let ppd = self.geo.planes_per_die;
        let first_plane = die * ppd;
        // Whether GC goes ahead of host writes matters only when GC has work queued here.
        let foreground =
            !self.ctrl.dies[die as usize].queues[QueueClass::Gc as usize].is_empty() && self.writes_wait_for_blocks(die);
        let ahead = self.ftl.ahead_of_reads_in(first_plane..first_plane + ppd);
        let order = if ahead {
            [QueueClass::Gc, QueueClass::Read, QueueClass::Write]
        } else if foreground {
            [QueueClass::Read, QueueClass::Gc, QueueClass::Write]
        } else {
            [QueueClass::Read, QueueClass::Write, QueueClass::Gc]
        };
        let Some(qc) = order
            .into_iter()
            .find(|&qc| self.ctrl.dies[die as usize].queues[qc as usize].front().is_some_and(|t| self.startable(t)))
        else {
            return true;
        };
        // A multi-plane command: the first queued transaction of each plane, if it needs the
        // same operation as the head of the queue. Taking only each plane's first keeps the
        // program order within every block.
        // The head of the queue is startable (checked above) and always taken.
        let queue = &self.ctrl.dies[die as usize].queues[qc as usize];
        let head = &queue[0];
        let class = head.kind.op();
        let mut n = 1;
        let mut seen: u32 = 1 << (head.plane - first_plane);
        // Positions in the queue, which is scanned no further than 4 x MAX_PLANES.
        let mut taken = [0u8; MAX_PLANES];
        let scan = queue.len().min(4 * ppd as usize);
        if scan > 1 {
            for (i, t) in (1..scan).zip(queue.range(1..scan)) {
                if n == ppd as usize {
                    break;
                }
                let bit = 1u32 << (t.plane - first_plane);
                if seen & bit != 0 {
                    continue;
                }
                seen |= bit;
                if t.kind.op() == class && self.startable(t) {
                    taken[n] = i as u8;
                    n += 1;
                }
            }
        }
        if class == OpClass::Program {
            if let Some(&i) = taken[..n].iter().find(|&&i| queue[i as usize].ppn & UNBOUND != 0) {
                self.bind_queued(die, qc as usize, i as usize);
                return false;
            }
        }
        // The command's transactions move from the queue to the table of those in flight.
        let queue = &mut self.ctrl.dies[die as usize].queues[qc as usize];
        let mut txns = [0u32; MAX_PLANES];
        for (id, &i) in txns.iter_mut().zip(&taken[..n]) {
            *id = self.ctrl.txns.insert(queue[i as usize]);
        }
        for &i in taken[1..n].iter().rev() {
            queue.remove(i as usize);
        }
        queue.pop_front();
        self.launch(die, class, &txns[..n]);
        true
    }

    /// Starts the command of the transactions `txns` (in flight, of operation `class`) on
    /// idle `die`: its command and data go in over the channel first.
    #[inline(always)]
    fn launch(&mut self, die: u32, class: OpClass, txns: &[u32]) {
        let n = txns.len();
        if n > 1 {
            self.measure.counters.multiplane_ops += 1;
        }
        // Written in place: the command is the hot path's largest copy, and its slots past
        // `n` are never read.
        let op = &mut self.ctrl.dies[die as usize].op;
        (op.class, op.phase, op.start, op.n) = (class, Phase::WaitIn, self.q.now(), n);
        op.txns[..n].copy_from_slice(txns);
        let n = n as u64;
        let cmd = self.timing.cmd_ns;
        self.measure.chan_use.command_ns += cmd;
        let inbound = match class {
            OpClass::Program => cmd + n * self.ftl.unit_pages() as Time * self.timing.page_xfer_ns,
            OpClass::Read | OpClass::Erase => cmd,
        };
        self.request_channel(die, inbound, false);
    }

    /// Whether `ppn` may be programmed now: every earlier page of its block has finished,
    /// or is in the command whose completion is being handled (its pages are counted as
    /// they are handled, and a command started meanwhile comes after it).
    #[inline]
    fn next_to_program(&self, ppn: Ppn) -> bool {
        if self.awaits_deferred_loop(ppn) {
            return false;
        }
        if self.ftl.blocks().is_next_to_program(ppn) {
            return true;
        }
        let block = self.geo.block_of(ppn);
        self.ctrl.finishing.iter().any(|&q| {
            self.geo.block_of(q) == block
                && self.ftl.blocks().is_next_to_program(q)
                && self.ftl.blocks().rank(ppn) == self.ftl.blocks().rank(q) + self.ftl.unit_pages()
        })
    }

    /// Asks for the die's channel for `duration`; read data going out is served first.
    #[inline]
    fn request_channel(&mut self, die: u32, duration: Time, outbound: bool) {
        if duration == 0 {
            self.channel_phase_done(die);
            return;
        }
        let ch = self.geo.channel_of_die(die);
        let channel = &mut self.ctrl.channels[ch as usize];
        if channel.owner.is_none() {
            self.grant_channel(ch, die, duration);
        } else if outbound {
            channel.waiting_out.push_back((die, duration));
        } else {
            channel.waiting_in.push_back((die, duration));
        }
    }

    fn grant_channel(&mut self, ch: u32, die: u32, duration: Time) {
        self.ctrl.channels[ch as usize].owner = Some(die);
        // Fields, not the whole command: the command is the hot path's largest copy.
        let op = &self.ctrl.dies[die as usize].op;
        let (first, class, phase, n) = (op.txns[0], op.class, op.phase, op.n);
        let activity = self.ctrl.txns.get(first).kind.activity();
        // Read data going out may first wait, holding the channel, for room in the ECC
        // engine's buffer.
        let wait = if class == OpClass::Read && phase == Phase::WaitOut { self.ecc_wait(ch, n as u32) } else { 0 };
        self.measure.chan_use.ecc_wait_ns += wait;
        self.measure.chan_busy[ch as usize].add(activity, wait + duration);
        self.measure.energy.transfer_j += self.joules(duration as f64, self.cfg.energy.transfer_ma);
        self.q.schedule_in(wait + duration, Ev::ChannelDone(ch));
    }

    pub(in crate::engine) fn on_channel_done(&mut self, ch: u32) {
        if self.cfg.ecc.decode_buffer_pages > 0 {
            // With a bounded decode buffer, the data just moved is handed to the ECC engine
            // before the next transfer asks for room in it; the channel stays held meanwhile,
            // so that requests this makes queue behind those already waiting.
            let Some(die) = self.ctrl.channels[ch as usize].owner else { return };
            self.channel_phase_done(die);
            self.ctrl.channels[ch as usize].owner = None;
            if let Some((next, duration)) = self.ctrl.channels[ch as usize].next_waiter() {
                self.grant_channel(ch, next, duration);
            }
            return;
        }
        let Some(die) = self.ctrl.channels[ch as usize].owner.take() else { return };
        if let Some((next, duration)) = self.ctrl.channels[ch as usize].next_waiter() {
            self.grant_channel(ch, next, duration);
        }
        self.channel_phase_done(die);
    }

    fn channel_phase_done(&mut self, die: u32) {
        let phase = self.ctrl.dies[die as usize].op.phase;
        match phase {
            Phase::WaitIn => {
                let mut duration = self.array_time(die);
                let d = &mut self.ctrl.dies[die as usize];
                if d.op.class == OpClass::Read {
                    duration += std::mem::take(&mut d.suspend_penalty);
                }
                d.op.phase = Phase::Array;
                self.q.schedule_in(duration, Ev::ArrayDone(die, d.gen));
            }
            Phase::WaitOut => self.complete_op(die),
            Phase::Array | Phase::Idle | Phase::Binding => {
                self.invariant(format!("die {die}: channel finished in phase {phase:?}"))
            }
        }
    }

    /// Duration of the array operation (the slowest plane of a multi-plane command), and its
    /// energy. An erase loop or a program is recorded on the die when it may be suspended.
    fn array_time(&mut self, die: u32) -> Time {
        let (class, n) = (self.ctrl.dies[die as usize].op.class, self.ctrl.dies[die as usize].op.n);
        let e = &self.cfg.energy;
        let (ma, mut longest) = match class {
            OpClass::Read => (e.read_ma, 0),
            OpClass::Program => (e.program_ma, 0),
            OpClass::Erase => (e.erase_ma, 0),
        };
        let mut total = 0;
        // Program energy scales with time, with how high the pulses go and with the
        // algorithm's verifies.
        let mut pulse_height_ns = 0.0;
        let mut slowest: Option<ActiveArray> = None;
        // The command's transactions are read in place: nothing here changes the die's
        // command, and copying it would cost more than the loop.
        for i in 0..n {
            let id = self.ctrl.dies[die as usize].op.txns[i];
            let page_type = self.geo.page_type(self.geo.page_in_block(self.ctrl.txns.get(id).ppn));
            let t = match class {
                OpClass::Read => self.timing.read_ns(page_type),
                OpClass::Program => {
                    let ppn = self.ctrl.txns.get(id).ppn;
                    // A unit of several pages programs each of them in turn.
                    let first = self.geo.page_in_block(ppn);
                    let base: Time = if self.ftl.unit_pages() == 1 {
                        self.timing.program_ns(page_type)
                    } else {
                        (first..first + self.ftl.unit_pages()).map(|p| self.timing.program_ns(self.geo.page_type(p))).sum()
                    };
                    let factor = self.program_time_factor(ppn) * self.mode_time_factor(ppn);
                    let t = crate::sim::round_u64(base as f64 * factor);
                    let mode = self.page_program_mode(ppn);
                    if mode != crate::physics::ProgramMode::Precise {
                        pulse_height_ns += t as f64 * (self.cfg.physics.vth.pulse_height_factor(mode) - 1.0);
                    }
                    // The algorithm's verify schedule draws more or less than ISPP-SV.
                    pulse_height_ns += t as f64 * (self.algorithm_power_factor(ppn) - 1.0);
                    if self.timing.program_suspend.is_some() && slowest.is_none_or(|s| t >= s.duration) {
                        let block = self.geo.block_of(ppn);
                        slowest = Some(ActiveArray { block, index: 0, loops: 1, duration: t, end: 0 });
                    }
                    t
                }
                OpClass::Erase => {
                    let (t, block, index, loops) = self.erase_loop(self.ctrl.txns.get(id));
                    if self.timing.erase_suspend.is_some() && slowest.is_none_or(|s| t >= s.duration) {
                        slowest = Some(ActiveArray { block, index, loops, duration: t, end: 0 });
                    }
                    t
                }
            };
            longest = longest.max(t);
            total += t;
        }
        if let Some(a) = slowest {
            self.ctrl.dies[die as usize].active = Some(ActiveArray { end: self.now() + a.duration, ..a });
        }
        let j = self.joules(total as f64 + pulse_height_ns, ma);
        match class {
            OpClass::Read => self.measure.energy.read_j += j,
            OpClass::Program => self.measure.energy.program_j += j,
            OpClass::Erase => self.measure.energy.erase_j += j,
        }
        longest
    }

    /// Program-time factor of a page's program mode and step level: fewer ISPP steps for
    /// approximate modes and wider steps (the ratio the threshold-voltage window gives),
    /// times the scheme's own factor.
    fn mode_time_factor(&mut self, ppn: Ppn) -> f64 {
        let mode = self.page_program_mode(ppn);
        let level = self.scheme.step_level(ppn, mode);
        let own = self.scheme.time_factor(ppn, mode);
        if mode == crate::physics::ProgramMode::Precise && level == 0 {
            own
        } else {
            self.cfg.physics.vth.program_time_factor_at(mode, level) * own
        }
    }

    /// How a page is programmed: the scheme's mode, or the configured one.
    pub(in crate::engine) fn page_program_mode(&self, ppn: Ppn) -> crate::physics::ProgramMode {
        let own = self.scheme.mode(ppn);
        own.unwrap_or(self.cfg.physics.program_mode)
    }

    /// Energy of `ns` nanoseconds drawing `milliamps` from the supply.
    pub(in crate::engine) fn joules(&self, ns: f64, milliamps: f64) -> f64 {
        ns * 1e-9 * milliamps * 1e-3 * self.cfg.energy.voltage_v
    }

    pub(in crate::engine) fn on_array_done(&mut self, die: u32, gen: u32) {
        if gen != self.ctrl.dies[die as usize].gen {
            return; // the erase it ended was suspended; it was rescheduled on resume
        }
        let (class, n) = (self.ctrl.dies[die as usize].op.class, self.ctrl.dies[die as usize].op.n);
        if class != OpClass::Read {
            self.ctrl.dies[die as usize].active = None;
        }
        // Only a claimed read-retry hook is asked: its attempt costs the page's RBER.
        if class == OpClass::Read && self.scheme.claims(Hook::ReadRetry) {
            let op = self.ctrl.dies[die as usize].op;
            if self.retried_in_die(&op) {
                return;
            }
        }
        if class == OpClass::Read {
            self.ctrl.dies[die as usize].op.phase = Phase::WaitOut;
            self.request_channel(die, n as u64 * self.timing.page_xfer_ns, true);
        } else {
            self.complete_op(die);
        }
    }

    /// Asks the scheme, after a sense, whether each page is sensed again inside the die
    /// before its data goes out; if any is, the die senses those pages again now (no
    /// transfer, no decode) and the read goes on when that sense ends.
    fn retried_in_die(&mut self, op: &DieOp) -> bool {
        let mut again: Time = 0;
        let table = self.table_steps();
        for &id in op.txns() {
            let rber = self.page_rber(self.ctrl.txns.get(id).ppn);
            let a = self.attempt(id, rber);
            // A read at the table's last attempt goes out whatever the die predicts.
            if table > 0 && a.step >= table {
                continue;
            }
            if self.scheme.retry_in_die(&a) {
                if a.step == 0 {
                    self.note_first_sense(rber);
                    let t = self.ctrl.txns.get(id);
                    if let (TxnKind::HostRead, Some(rel)) = (t.kind, self.rel.as_mut()) {
                        rel.note_resensed(t.owner, t.ppn);
                    }
                }
                self.ctrl.txns.get_mut(id).step += 1;
                self.advance_reference(id, &a);
                if let Some(rel) = self.rel.as_mut() {
                    rel.stats.in_die_senses += 1;
                }
                again = again.max(self.timing.read_ns(self.geo.page_type(self.geo.page_in_block(a.ppn))));
            }
        }
        if again == 0 {
            return false;
        }
        self.measure.energy.read_j += self.joules(again as f64, self.cfg.energy.read_ma);
        let die = self.geo.die_of_plane(self.ctrl.txns.get(op.txns[0]).plane);
        self.q.schedule_in(again, Ev::ArrayDone(die, self.ctrl.dies[die as usize].gen));
        true
    }

    fn complete_op(&mut self, die: u32) {
        let op = self.ctrl.dies[die as usize].op;
        self.ctrl.dies[die as usize].op.phase = Phase::Idle;
        let activity = self.ctrl.txns.get(op.txns[0]).kind.activity();
        let elapsed = self.now() - op.start;
        self.measure.die_busy[die as usize].add(activity, elapsed);
        if matches!(activity, Activity::Gc | Activity::Erase) {
            self.note_relocation_busy(op.txns(), elapsed);
        }
        self.ctrl.die_load[die as usize] -= op.n as u32;
        self.ctrl.finishing.clear();
        if op.class == OpClass::Program {
            for &id in op.txns() {
                let ppn = self.ctrl.txns.get(id).ppn;
                self.ctrl.finishing.push(ppn);
            }
        }
        if op.class == OpClass::Erase {
            for &id in op.txns() {
                if let LoopEnd::Erased = self.erase_loop_done(id) {
                    self.measure.counters.flash_erases += 1;
                    let t = self.ctrl.txns.remove(id);
                    self.txn_done(t);
                }
            }
            self.try_start_die(die);
            return;
        }
        // Only for a scheme whose read path looks: filling the list for every command costs
        // about 3% of a replay without physics.
        let sensed = (op.class == OpClass::Read && self.scheme.claims(Hook::ReadPath)).then(|| {
            let mut sensed = [(0 as Ppn, TxnKind::HostRead); MAX_PLANES];
            for (i, &id) in op.txns().iter().enumerate() {
                let t = self.ctrl.txns.get(id);
                sensed[i] = (t.ppn, t.kind);
            }
            sensed
        });
        for &id in op.txns() {
            match op.class {
                OpClass::Read => self.measure.counters.flash_reads += 1,
                OpClass::Program => self.measure.counters.flash_programs += self.ftl.unit_pages() as u64,
                OpClass::Erase => {} // settled above
            }
            if op.class == OpClass::Read && self.rel.is_some() {
                let ppn = self.ctrl.txns.get(id).ppn;
                self.note_sense(ppn);
                let sense = self.timing.read_ns(self.geo.page_type(self.geo.page_in_block(ppn)));
                self.start_decode(id, sense, self.timing.page_xfer_ns);
                continue;
            }
            let t = self.ctrl.txns.remove(id);
            self.txn_done(t);
        }
        if let Some(sensed) = sensed {
            // After the reads are settled, so that a relocation starts from a quiet die.
            for &(ppn, kind) in &sensed[..op.n] {
                self.after_sense(ppn, kind);
            }
        }
        self.try_start_die(die);
    }

    pub(in crate::engine) fn txn_done(&mut self, t: Txn) {
        match t.kind {
            TxnKind::HostRead => {
                self.measure.counters.host_flash_reads += 1;
                if self.rel.is_none() && self.payload.is_some() {
                    // No read path physics: every page comes back as written.
                    if let Some(page) = self.payload_page(t.owner, t.lpn, false) {
                        self.payload_read(page, 0.0);
                    }
                }
                self.page_done(t.owner);
            }
            TxnKind::HostWrite => {
                self.measure.counters.host_flash_programs += self.ftl.unit_pages() as u64;
                self.program_finished(t.ppn);
                if self.payload.is_some() {
                    if let Some(page) = self.payload_page(t.owner, t.lpn, true) {
                        self.payload.as_mut().expect("checked").on_host_write(page);
                    }
                }
                if t.owner == NO_OWNER {
                    self.flush_finished(t.lpn);
                } else {
                    self.page_done(t.owner);
                }
            }
            TxnKind::GcWrite => self.program_finished(t.ppn),
            TxnKind::MapWrite => {
                self.measure.counters.mapping_writes += 1;
                self.program_finished(t.ppn);
                self.ctrl.translations.finish_write(self.ftl.translation_page_at(t.lpn));
            }
            TxnKind::MapRead => {
                self.measure.counters.mapping_reads += 1;
                self.map_read_done(t.lpn);
            }
            TxnKind::GcRead => self.gc_read_done(t),
            TxnKind::CopyRead => self.copy_read_done(t),
            TxnKind::CopyWrite => {
                self.program_finished(t.ppn);
                let now = self.now();
                self.measure.copy_batches.done(t.lpn, now);
            }
            TxnKind::RmwRead => self.merge_read_done(t.owner),
            TxnKind::Erase => self.erase_done(t.ppn),
        }
    }

    pub(in crate::engine) fn invariant(&mut self, message: String) {
        let e = Error::Invariant { time_ns: self.now(), message };
        self.fail(e);
    }
}

/// The hooks' name for a flash read.
pub(in crate::engine) fn read_kind(kind: TxnKind) -> ReadKind {
    match kind {
        TxnKind::GcRead | TxnKind::CopyRead => ReadKind::Relocation,
        TxnKind::MapRead => ReadKind::Mapping,
        _ => ReadKind::Host,
    }
}
