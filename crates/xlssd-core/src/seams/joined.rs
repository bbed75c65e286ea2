//! Schemes joined with `+`: each hook goes to the part that claims it, and to the baseline
//! when none does; observation and the report go to every part.
//!
//! This is the one owner of the seams: the engine calls every hook unguarded, and a hook
//! nobody claims runs the trait's default through [`Baseline`], called statically (no
//! virtual call, inlined where the engine calls it), so each default behaviour is written
//! once, in the trait.

use super::baseline::Baseline;
use super::hooks::*;
use crate::ftl::blocks::BlockManager;
use crate::ftl::policy::WearLeveler;
use crate::host::Request;
use crate::nand::Ppn;
use crate::physics::{Ispp, ProgramMode};
use crate::sim::Time;

pub struct Joined {
    parts: Vec<Box<dyn Technique>>,
    /// Index into `parts` of the part that claims each hook (by `Hook as usize`).
    owner: [Option<u8>; Hook::ALL.len()],
}

impl Joined {
    /// Parts with the hooks each claims (checked disjoint by the registry).
    pub fn new(parts: Vec<(Box<dyn Technique>, &'static [Hook])>) -> Joined {
        let mut owner = [None; Hook::ALL.len()];
        for (i, (_, hooks)) in parts.iter().enumerate() {
            for &h in hooks.iter() {
                debug_assert!(owner[h as usize].is_none(), "hook {} claimed twice", h.name());
                owner[h as usize] = Some(i as u8);
            }
        }
        Joined { parts: parts.into_iter().map(|(p, _)| p).collect(), owner }
    }

    /// Whether a part claims `hook` (without one, the baseline's default runs).
    pub fn claims(&self, hook: Hook) -> bool {
        self.owner[hook as usize].is_some()
    }

    /// Whether any part observes (the baseline has nothing to observe).
    pub fn observed(&self) -> bool {
        !self.parts.is_empty()
    }
}

/// Calls `method` on the part claiming `hook`, or statically on the baseline.
macro_rules! route {
    ($self:ident, $hook:ident, $method:ident($($arg:expr),*)) => {
        match $self.owner[Hook::$hook as usize] {
            Some(i) => $self.parts[i as usize].$method($($arg),*),
            None => Baseline.$method($($arg),*),
        }
    };
}

impl Placement for Joined {
    #[inline]
    fn host_write(&mut self, w: &HostWrite) {
        route!(self, Placement, host_write(w))
    }
    #[inline]
    fn target(&mut self, ctx: &mut PlaceCtx, lpn: u32, kind: WriteKind, plane: u32) -> Target {
        route!(self, Placement, target(ctx, lpn, kind, plane))
    }
    #[inline]
    fn placed(&mut self, ctx: &mut PlaceCtx, lpn: u32, kind: WriteKind, ppn: Ppn, stream: u32) {
        route!(self, Placement, placed(ctx, lpn, kind, ppn, stream))
    }
    #[inline]
    fn wants_preview(&self) -> bool {
        route!(self, Placement, wants_preview())
    }
    #[inline]
    fn preview(&mut self, w: &HostWrite) {
        route!(self, Placement, preview(w))
    }
}

impl ProgramModes for Joined {
    #[inline]
    fn mode(&self, ppn: Ppn) -> Option<ProgramMode> {
        route!(self, ProgramMode, mode(ppn))
    }
    #[inline]
    fn algorithm(&self, ppn: Ppn) -> Option<Ispp> {
        route!(self, ProgramMode, algorithm(ppn))
    }
    #[inline]
    fn code(&self, ppn: Ppn) -> Option<CodeStrength> {
        route!(self, ProgramMode, code(ppn))
    }
    #[inline]
    fn step_level(&self, ppn: Ppn, mode: ProgramMode) -> u8 {
        route!(self, ProgramMode, step_level(ppn, mode))
    }
    #[inline]
    fn time_factor(&mut self, ppn: Ppn, mode: ProgramMode) -> f64 {
        route!(self, ProgramMode, time_factor(ppn, mode))
    }
    #[inline]
    fn read_mode(&self, block: u32) -> usize {
        route!(self, ProgramMode, read_mode(block))
    }
}

impl Cleaning for Joined {
    #[inline]
    fn victim(&mut self, ctx: &mut VictimCtx) -> Option<u32> {
        route!(self, Cleaning, victim(ctx))
    }
    #[inline]
    fn copy_order(&mut self, map: &crate::ftl::mapping::Mapping, pages: &mut [Ppn]) {
        route!(self, Cleaning, copy_order(map, pages))
    }
}

impl FreeBlocks for Joined {
    #[inline]
    fn wear_leveler(&mut self) -> Option<Box<dyn WearLeveler>> {
        route!(self, FreeBlocks, wear_leveler())
    }
}

impl ReadPath for Joined {
    #[inline]
    fn read_copy(&mut self, lpn: u32, ppn: Ppn) -> Ppn {
        route!(self, ReadPath, read_copy(lpn, ppn))
    }
    #[inline]
    fn sensed(&mut self, ctx: &SenseCtx, ppn: Ppn, kind: ReadKind, actions: &mut Vec<ReadAction>) {
        route!(self, ReadPath, sensed(ctx, ppn, kind, actions))
    }
}

impl ReadRetry for Joined {
    #[inline]
    fn decode(&mut self, a: &Attempt) -> bool {
        route!(self, ReadRetry, decode(a))
    }
    #[inline]
    fn retry_in_die(&mut self, a: &Attempt) -> bool {
        route!(self, ReadRetry, retry_in_die(a))
    }
    #[inline]
    fn after_decode(&mut self, a: &Attempt, decoder_retries: bool) -> Verdict {
        route!(self, ReadRetry, after_decode(a, decoder_retries))
    }
}

impl RetryReference for Joined {
    #[inline]
    fn first_reference(&mut self, a: &Attempt) -> u32 {
        route!(self, RetryReference, first_reference(a))
    }
    #[inline]
    fn next_reference(&mut self, a: &Attempt) -> u32 {
        route!(self, RetryReference, next_reference(a))
    }
}

impl EraseControl for Joined {
    #[inline]
    fn erase_plan(&mut self, ctx: &EraseCtx) -> ErasePlan {
        route!(self, Erase, erase_plan(ctx))
    }
    #[inline]
    fn erase_wear(&mut self, block: u32) -> f32 {
        route!(self, Erase, erase_wear(block))
    }
    #[inline]
    fn may_suspend(&mut self, block: u32, index: u32, loops: u32) -> bool {
        route!(self, Erase, may_suspend(block, index, loops))
    }
    #[inline]
    fn erased_rber_factor(&self, block: u32) -> f64 {
        route!(self, Erase, erased_rber_factor(block))
    }
}

impl Background for Joined {
    #[inline]
    fn period_ns(&self, retention_scale: f64) -> Option<Time> {
        route!(self, Background, period_ns(retention_scale))
    }
    #[inline]
    fn run(&mut self, ctx: &BackgroundCtx, moves: &mut Vec<Move>) {
        route!(self, Background, run(ctx, moves))
    }
    #[inline]
    fn probes(&mut self, ctx: &BackgroundCtx, blocks: &mut Vec<u32>) {
        route!(self, Background, probes(ctx, blocks))
    }
}

impl CacheTier for Joined {
    #[inline]
    fn route(&mut self, r: &Request, now: Time) -> Route {
        route!(self, CacheTier, route(r, now))
    }
}

impl Observer for Joined {
    fn validity(&mut self, ppn: Ppn, valid: bool) {
        for p in &mut self.parts {
            p.validity(ppn, valid);
        }
    }
    fn erased(&mut self, block: u32) {
        for p in &mut self.parts {
            p.erased(block);
        }
    }
    fn copy_made(&mut self, lpn: u32, ppn: Ppn) {
        for p in &mut self.parts {
            p.copy_made(lpn, ppn);
        }
    }
    fn copy_abandoned(&mut self, lpn: u32) {
        for p in &mut self.parts {
            p.copy_abandoned(lpn);
        }
    }
    fn copy_dropped(&mut self, lpn: u32, ppn: Ppn) {
        for p in &mut self.parts {
            p.copy_dropped(lpn, ppn);
        }
    }
    fn materialized(&mut self, lpn: u32, ppn: Ppn) {
        for p in &mut self.parts {
            p.materialized(lpn, ppn);
        }
    }
    fn preconditioned(&mut self, blocks: &BlockManager, map: &crate::ftl::mapping::Mapping) {
        for p in &mut self.parts {
            p.preconditioned(blocks, map);
        }
    }
    fn wants_probes(&self) -> bool {
        self.parts.iter().any(|p| p.wants_probes())
    }
    /// The first part that measures blocks says which page.
    fn probe_page(&self) -> ProbePage {
        self.parts.iter().find(|p| p.wants_probes()).map_or(ProbePage::First, |p| p.probe_page())
    }
    fn probed(&mut self, block: u32, rber: f64, when: Probe) {
        for p in &mut self.parts {
            p.probed(block, rber, when);
        }
    }
    fn check(&self, blocks: &BlockManager) -> Result<(), String> {
        self.parts.iter().try_for_each(|p| p.check(blocks))
    }
}

impl Technique for Joined {
    fn set_up(&mut self, ctx: &mut SetupCtx) {
        for p in &mut self.parts {
            p.set_up(ctx);
        }
    }
    fn report(&self, tasks: &TaskCounts, sections: &mut serde_json::Map<String, serde_json::Value>) {
        for p in &self.parts {
            p.report(tasks, sections);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part that overrides one hook and records what it was asked.
    struct Part {
        stream: u32,
        erase_wear: f32,
        validity_seen: u32,
    }
    impl Placement for Part {
        fn target(&mut self, ctx: &mut PlaceCtx, _lpn: u32, _kind: WriteKind, _plane: u32) -> Target {
            Target { stream: self.stream, ..ctx.default }
        }
    }
    impl EraseControl for Part {
        fn erase_wear(&mut self, _block: u32) -> f32 {
            self.erase_wear
        }
        // Never in the last loop: a part that decides where an erase may be suspended.
        fn may_suspend(&mut self, _block: u32, index: u32, loops: u32) -> bool {
            index + 1 < loops
        }
    }
    impl Observer for Part {
        fn validity(&mut self, _ppn: Ppn, _valid: bool) {
            self.validity_seen += 1;
        }
        fn check(&self, _blocks: &BlockManager) -> Result<(), String> {
            if self.validity_seen == 2 {
                Err(format!("part with stream {} saw two changes", self.stream))
            } else {
                Ok(())
            }
        }
    }
    impl ProgramModes for Part {}
    impl Cleaning for Part {}
    impl FreeBlocks for Part {}
    impl ReadPath for Part {}
    impl ReadRetry for Part {}
    impl RetryReference for Part {}
    impl Background for Part {}
    impl CacheTier for Part {}
    impl Technique for Part {}

    #[test]
    fn each_hook_goes_to_its_part_and_observation_to_all() {
        let placing = Box::new(Part { stream: 7, erase_wear: 9.0, validity_seen: 0 });
        let erasing = Box::new(Part { stream: 8, erase_wear: 0.5, validity_seen: 0 });
        let mut j = Joined::new(vec![(placing, &[Hook::Placement]), (erasing, &[Hook::Erase])]);
        let geo = crate::nand::Geometry::new(&crate::nand::config::GeometryConfig::one_plane(4, 8, 2));
        let mut blocks = BlockManager::new(&geo, 2).unwrap();
        let mut picker = crate::ftl::wear::EraseCountLeveler::new(false, false, 0);
        let mut ctx = PlaceCtx::plain(&geo, &mut blocks, &mut picker);
        assert_eq!(j.target(&mut ctx, 0, WriteKind::Host, 0), Target { stream: 7, privileged: true });
        assert_eq!(j.erase_wear(0), 0.5);
        assert!(j.may_suspend(0, 2, 4));
        assert!(!j.may_suspend(0, 3, 4), "the erase part decides where an erase may be suspended");
        // Hooks nobody claims are the baseline's.
        assert_eq!(
            j.erase_plan(&EraseCtx { block: 0, pe: 0, base_ns: 1_000, program_ns: 0, read_ns: 0 }),
            ErasePlan::single(1_000)
        );
        assert_eq!(j.erased_rber_factor(0), 1.0);
        assert_eq!(j.read_copy(3, 42), 42);
        j.validity(1, true);
        assert!(j.check(&blocks).is_ok());
        j.validity(1, false);
        assert_eq!(j.check(&blocks).unwrap_err(), "part with stream 7 saw two changes");
    }
}
