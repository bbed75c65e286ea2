//! Data separation (seed 003 Ch. 5-6) as schemes. Each sends host writes and cleaning's
//! copies to streams by its own prediction of when the data dies, so that blocks die
//! whole:
//!
//! - `hash`: hot or cold by hashed write counters (Ch. 5.1.3's HASH, Hsieh et al.).
//! - `pds`: the program context that wrote the data picks its update group (Ch. 5.3,
//!   Algorithm 1); data of contexts without one goes to write-once blocks; update blocks
//!   are cleaned last.
//! - `ids`: update contexts from consecutive updates, update groups from the clustering of
//!   contexts by update locality (Ch. 6.2, Eqs. 6.1-6.3, Algorithm 2), and hot archive
//!   blocks for data updated since its context wrote it.
//! - `ora`: the offline oracle (Ch. 5.1.2): buckets of each write's next update time, read
//!   from the whole workload before the run.
//!
//! All of them cost nothing where the request carries no program context: every page is
//! then written once as far as PDS and IDS can tell.

pub mod config;
pub mod hash;
pub mod ids;
pub mod ora;
pub mod pds;
pub mod report;

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};

use self::config::{SeparationConfig, UpdateVictims};
use self::hash::HotHash;
use self::ids::UpdateGroups;
use self::ora::Oracle;
use self::pds::Grouping;
use self::report::{Kind, SeparationReport};
use super::hooks::*;
use super::{SchemeInfo, TableInfo};
use crate::error::Result;
use crate::nand::Ppn;

const TABLE_NAME: &str = "separation";

const HOOKS: &[Hook] = &[Hook::Placement, Hook::Cleaning];

fn build(ctx: &super::BuildCtx, variant: fn(&SeparationConfig) -> Variant) -> Result<Box<dyn Technique>> {
    let cfg: SeparationConfig = super::table_config(ctx, TABLE_NAME)?;
    Ok(Box::new(Separator::new(&ctx.cfg.scheme.name, ctx.geo.pages_per_block, ctx.logical_pages, cfg.clone(), variant(&cfg))?))
}

fn table(raw: &serde_json::Value) -> SeparationConfig {
    serde_json::from_value(raw.clone()).unwrap_or_default()
}

pub const HASH: SchemeInfo = SchemeInfo {
    name: "hash",
    description:
        "seed 003's HASH: hot and cold blocks by hashed write counters, periodically halved, for host writes and GC copies",
    hooks: HOOKS,
    table: Some(TABLE_NAME),
    keys: &["hash_counters", "hash_functions", "hash_hot_threshold", "hash_decay_writes"],
    streams: 2,
    uses_gc_policy: true,
    extra_streams: super::no_extra_streams,
    gc_reserve: |_| 2,
    needs: super::no_needs,
    build: |ctx| {
        build(ctx, |c| Variant::Hash(HotHash::new(c.hash_counters, c.hash_functions, c.hash_hot_threshold, c.hash_decay_writes)))
    },
};

pub const PDS: SchemeInfo = SchemeInfo {
    name: "pds",
    description: "seed 003's PDS: update groups of program contexts (Algorithm 1), write-once blocks, update blocks cleaned last",
    hooks: HOOKS,
    table: Some(TABLE_NAME),
    keys: &["update_threshold", "max_groups", "update_victims"],
    streams: 1,
    uses_gc_policy: true,
    extra_streams: |t| table(t).max_groups,
    gc_reserve: |t| 1 + table(t).max_groups,
    needs: super::no_needs,
    build: |ctx| build(ctx, |c| Variant::Pds(Grouping::new(c.update_threshold))),
};

pub const IDS: SchemeInfo = SchemeInfo {
    name: "ids",
    description: "seed 003's IDS: update contexts clustered by update locality (Algorithm 2), hot archive blocks from per-context update history",
    hooks: HOOKS,
    table: Some(TABLE_NAME),
    keys: &["max_groups", "window", "consecutive_updates", "cluster_level", "recluster_updates", "update_victims"],
    streams: 2,
    uses_gc_policy: true,
    extra_streams: |t| table(t).max_groups,
    gc_reserve: |t| 2 + table(t).max_groups,
    needs: super::no_needs,
    build: |ctx| build(ctx, |c| Variant::Ids(Box::new(Ids::new(c)))),
};

pub const ORA: SchemeInfo = SchemeInfo {
    name: "ora",
    description:
        "seed 003's ORA: the offline oracle, data placed by buckets of its next update time read from the whole workload",
    hooks: HOOKS,
    table: Some(TABLE_NAME),
    keys: &["ora_buckets"],
    streams: 1,
    uses_gc_policy: true,
    extra_streams: |t| table(t).ora_buckets,
    gc_reserve: |t| 1 + table(t).ora_buckets,
    needs: super::no_needs,
    build: |ctx| build(ctx, |_| Variant::Ora(Oracle::default())),
};

pub const TABLE: TableInfo = TableInfo { name: TABLE_NAME, report_key: report::KEY, resolve, memory };

/// Per logical page: the program context of its data (4 bytes) and, for `ora`, its next
/// update time (4 bytes).
pub const LOGICAL_PAGE_BYTES: u64 = 8;

fn memory(logical_pages: u64, _pages: u64, _blocks: u64) -> Vec<crate::limits::estimate::Part> {
    vec![crate::limits::estimate::Part {
        name: "data-separation state per logical page",
        bytes: logical_pages * LOGICAL_PAGE_BYTES,
    }]
}

fn resolve(raw: &serde_json::Value, prefix: &str) -> Result<serde_json::Value> {
    super::resolve_table(raw, prefix, SeparationConfig::validate)
}

/// IDS's state beyond the update groups.
#[derive(Debug, Default)]
struct Ids {
    groups: UpdateGroups,
    /// Contexts of the most recent updates, oldest first.
    window: VecDeque<u32>,
    window_len: usize,
    /// The context of the current run of consecutive updates, and its length.
    run_pc: u32,
    run: u32,
    threshold: u32,
    update_pcs: FxHashSet<u32>,
    /// Per update context, the pages of its data that were updated (Sec. 6.2.4).
    history: FxHashMap<u32, FxHashSet<u32>>,
    since: u32,
    period: u32,
    reclusterings: u64,
}

impl Ids {
    fn new(c: &SeparationConfig) -> Ids {
        Ids {
            groups: UpdateGroups::new(c.cluster_level),
            window_len: c.window as usize,
            threshold: c.consecutive_updates,
            period: c.recluster_updates,
            ..Default::default()
        }
    }

    /// An update of `lpn`, whose data context `pc` wrote.
    fn update(&mut self, pc: u32, lpn: u32) {
        // Sec. 6.2.2: consecutive updates of one context's data make it an update context.
        if pc == self.run_pc {
            self.run += 1;
        } else {
            (self.run_pc, self.run) = (pc, 0);
        }
        if self.run > self.threshold {
            self.update_pcs.insert(pc);
        }
        if self.update_pcs.contains(&pc) {
            self.history.entry(pc).or_default().insert(lpn);
        }
        self.window.push_back(pc);
        if self.window.len() > self.window_len {
            self.window.pop_front();
        }
        self.since += 1;
        if self.since >= self.period && self.window.len() == self.window_len {
            self.since = 0;
            self.recluster();
        }
    }

    /// Clusters the window's contexts and runs Algorithm 2 for its update contexts (in
    /// ascending id, so that runs are deterministic).
    fn recluster(&mut self) {
        let window: Vec<u32> = self.window.iter().copied().collect();
        let clusters = ids::cluster(&ids::update_locality(&window));
        let mut pcs = window;
        pcs.sort_unstable();
        pcs.dedup();
        self.groups.new_clustering();
        for pc in pcs.into_iter().filter(|pc| self.update_pcs.contains(pc)) {
            self.groups.assign(pc, &clusters);
        }
        self.reclusterings += 1;
    }

    fn is_hot(&self, pc: u32, lpn: u32) -> bool {
        self.history.get(&pc).is_some_and(|h| h.contains(&lpn))
    }
}

enum Variant {
    Hash(HotHash),
    Pds(Grouping),
    Ids(Box<Ids>),
    /// The oracle (each page's next update time is `Separator::next_update`).
    Ora(Oracle),
}

/// One data-separation scheme: the shared bookkeeping and its variant's prediction.
pub struct Separator {
    name: String,
    variant: Variant,
    max_groups: u32,
    buckets: u32,
    update_victims: UpdateVictims,
    pages_per_block: u32,
    logical_pages: u64,
    /// The program context that wrote each logical page's data (0: none known).
    pc: Vec<u32>,
    /// `ora`: each logical page's next update time plus one (0: never).
    next_update: Vec<u32>,
    report: SeparationReport,
}

impl Separator {
    fn new(name: &str, pages_per_block: u32, logical_pages: u64, cfg: SeparationConfig, variant: Variant) -> Result<Separator> {
        let is_ora = matches!(variant, Variant::Ora(_));
        Ok(Separator {
            name: name.to_string(),
            variant,
            max_groups: cfg.max_groups,
            buckets: cfg.ora_buckets,
            update_victims: cfg.update_victims,
            pages_per_block,
            logical_pages,
            pc: crate::limits::alloc::zeroed(logical_pages as usize, "program context per logical page")?,
            next_update: if is_ora {
                crate::limits::alloc::zeroed(logical_pages as usize, "next update time per logical page")?
            } else {
                Vec::new()
            },
            report: SeparationReport { scheme: name.to_string(), ..Default::default() },
        })
    }

    /// The logical pages a write covers (wrapping at the end of the logical space).
    fn lpns(&self, w: &HostWrite) -> impl Iterator<Item = u32> + use<> {
        let (first, n) = (w.first_lpn, self.logical_pages);
        (0..w.n_pages as u64).map(move |i| ((first + i) % n) as u32)
    }

    /// The stream a page of `lpn`'s data goes to, and what kind of block that is.
    fn stream_for(&self, lpn: u32) -> (u32, Kind) {
        let pc = self.pc[lpn as usize];
        let group = |g: Option<u32>, first: u32| match g {
            Some(g) => (first + (g - 1) % self.max_groups, Kind::Update),
            None => (0, Kind::WriteOnce),
        };
        match &self.variant {
            Variant::Hash(h) => {
                if h.is_hot(lpn) {
                    (1, Kind::Hot)
                } else {
                    (0, Kind::Cold)
                }
            }
            Variant::Pds(g) => group(g.group_of(pc), 1),
            Variant::Ids(ids) => {
                if !ids.update_pcs.contains(&pc) {
                    (0, Kind::WriteOnce)
                } else if ids.is_hot(pc, lpn) {
                    (1, Kind::HotArchive)
                } else {
                    group(ids.groups.group_of(pc), 2)
                }
            }
            Variant::Ora(o) => {
                let t = self.next_update[lpn as usize];
                let b = if t == 0 { 0 } else { o.bucket(t - 1, self.buckets) };
                (b, if b == 0 { Kind::WriteOnce } else { Kind::Bucket })
            }
        }
    }

    /// The kind of block a stream of this scheme fills.
    fn kind_of_stream(&self, stream: u32) -> Kind {
        match (&self.variant, stream) {
            (Variant::Hash(_), 0) => Kind::Cold,
            (Variant::Hash(_), _) => Kind::Hot,
            (Variant::Ids(_), 1) => Kind::HotArchive,
            (Variant::Ora(_), s) if s > 0 => Kind::Bucket,
            (_, 0) => Kind::WriteOnce,
            _ => Kind::Update,
        }
    }

    /// Streams this scheme writes to, from 0.
    fn streams(&self) -> u32 {
        match &self.variant {
            Variant::Hash(_) => 2,
            Variant::Pds(_) => 1 + self.max_groups,
            Variant::Ids(_) => 2 + self.max_groups,
            Variant::Ora(_) => 1 + self.buckets,
        }
    }

    /// Whether this scheme writes to `stream` (others are the engine's: translation pages).
    fn owns(&self, stream: u32) -> bool {
        stream < self.streams()
    }
}

impl Placement for Separator {
    fn host_write(&mut self, w: &HostWrite) {
        for lpn in self.lpns(w) {
            let old = std::mem::replace(&mut self.pc[lpn as usize], w.context);
            if old != 0 {
                self.report.updates += 1;
                match &mut self.variant {
                    Variant::Pds(g) => {
                        g.update(old, lpn as u64);
                    }
                    Variant::Ids(ids) => ids.update(old, lpn),
                    _ => {}
                }
            }
            match &mut self.variant {
                Variant::Hash(h) => h.record(lpn),
                Variant::Ora(o) => {
                    let t = o.next_write();
                    self.next_update[lpn as usize] = if t == ora::NEVER { 0 } else { t + 1 };
                }
                _ => {}
            }
        }
    }

    fn target(&mut self, ctx: &mut PlaceCtx, lpn: u32, kind: WriteKind, plane: u32) -> Target {
        if kind == WriteKind::Mapping || lpn as u64 >= self.logical_pages {
            return ctx.default;
        }
        let want = Target { stream: self.stream_for(lpn).0, privileged: ctx.default.privileged };
        // A copy whose stream has no room takes another of the scheme's streams rather than
        // leave its victim unerasable.
        ctx.stream_with_room(plane, want, 0..self.streams())
    }

    fn placed(&mut self, ctx: &mut PlaceCtx, _lpn: u32, kind: WriteKind, ppn: Ppn, stream: u32) {
        if kind == WriteKind::Mapping || !self.owns(stream) {
            return;
        }
        let k = self.kind_of_stream(stream);
        if kind == WriteKind::Host {
            self.report.host_pages.add(k, 1);
        }
        if ppn % ctx.geo.pages_per_block as Ppn == 0 {
            self.report.blocks_opened.add(k, 1);
        }
    }

    fn wants_preview(&self) -> bool {
        matches!(self.variant, Variant::Ora(_))
    }

    fn preview(&mut self, w: &HostWrite) {
        let lpns = self.lpns(w);
        if let Variant::Ora(o) = &mut self.variant {
            for lpn in lpns {
                // The first write of a page is the next update of the data it held before
                // the run (preconditioned data).
                if self.next_update[lpn as usize] == 0 && o.writes() < ora::NEVER - 1 {
                    self.next_update[lpn as usize] = o.writes() + 1;
                }
                o.preview(lpn);
            }
        }
    }
}

impl Cleaning for Separator {
    fn victim(&mut self, ctx: &mut VictimCtx) -> Option<u32> {
        let blocks = ctx.blocks;
        let victim = match &self.variant {
            // Update blocks have the lowest victim priority (Sec. 5.3), ranked as
            // `update_victims` says.
            Variant::Pds(_) | Variant::Ids(_) if self.update_victims != UpdateVictims::Equal => {
                let update = |b: u32| {
                    let s = blocks.stream_of[b as usize] as u32;
                    self.owns(s) && self.kind_of_stream(s) == Kind::Update
                };
                let dead = |b: u32| blocks.valid[b as usize] == 0;
                let dead_first = self.update_victims == UpdateVictims::DeadFirst;
                (if dead_first { ctx.policy.select_among(ctx.plane, blocks, ctx.now, &dead) } else { None })
                    .or_else(|| ctx.policy.select_among(ctx.plane, blocks, ctx.now, &|b| !update(b)))
                    .or_else(|| ctx.policy.select(ctx.plane, blocks, ctx.now))
            }
            _ => ctx.policy.select(ctx.plane, blocks, ctx.now),
        };
        if let Some(b) = victim {
            let s = blocks.stream_of[b as usize] as u32;
            let k = if self.owns(s) { self.kind_of_stream(s) } else { Kind::Other };
            self.report.victims.add(k, 1);
            self.report.pages_copied.add(k, blocks.valid[b as usize] as u64);
        }
        victim
    }
}

impl ProgramModes for Separator {}
impl FreeBlocks for Separator {}
impl ReadPath for Separator {}
impl ReadRetry for Separator {}
impl RetryReference for Separator {}
impl EraseControl for Separator {}
impl Background for Separator {}
impl CacheTier for Separator {}

impl Observer for Separator {
    fn check(&self, _blocks: &crate::ftl::blocks::BlockManager) -> std::result::Result<(), String> {
        let (groups, group_of): (u32, &dyn Fn(u32) -> Option<u32>) = match &self.variant {
            Variant::Pds(g) => (g.groups(), &|pc| g.group_of(pc)),
            Variant::Ids(ids) => (ids.groups.groups(), &|pc| ids.groups.group_of(pc)),
            _ => return Ok(()),
        };
        // Every context's group is one that was made.
        match self.pc.iter().filter_map(|&pc| group_of(pc)).find(|&x| x == 0 || x > groups) {
            Some(g) => Err(format!("{}: a context is in group {g}, but {groups} groups were made", self.name)),
            None => Ok(()),
        }
    }
}

impl Technique for Separator {
    fn report(&self, _tasks: &TaskCounts, sections: &mut serde_json::Map<String, serde_json::Value>) {
        let mut r = self.report.clone();
        match &self.variant {
            Variant::Pds(g) => {
                (r.contexts, r.update_contexts) = g.contexts();
                r.update_groups = g.groups() as u64;
            }
            Variant::Ids(ids) => {
                r.update_contexts = ids.update_pcs.len() as u64;
                r.update_groups = ids.groups.groups() as u64;
                r.reclusterings = ids.reclusterings;
            }
            Variant::Ora(o) => r.oracle_page_writes = o.writes() as u64,
            Variant::Hash(_) => {}
        }
        r.finish(self.pages_per_block);
        sections.insert(report::KEY.to_string(), serde_json::to_value(r).expect("report serialises"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::blocks::BlockManager;
    use crate::ftl::gc::test_plane::filled;
    use crate::ftl::gc::Greedy;

    /// One plane: a write-once block (stream 0) with one invalid page of four, then a dead
    /// update block (stream 1), then an update block with one valid page.
    fn plane() -> (BlockManager, [u32; 3]) {
        let (bm, ids) = filled(2, &[(0, 3), (1, 0), (1, 1)]);
        (bm, [ids[0], ids[1], ids[2]])
    }

    fn victim(rule: UpdateVictims) -> Option<u32> {
        let cfg = SeparationConfig { update_victims: rule, ..SeparationConfig::default() };
        let mut pds = Separator::new("pds", 4, 16, cfg, Variant::Pds(Grouping::new(4))).unwrap();
        let (bm, _) = plane();
        pds.victim(&mut VictimCtx { plane: 0, blocks: &bm, now: 0, policy: &mut Greedy })
    }

    #[test]
    fn update_blocks_are_cleaned_last_but_a_dead_one_first_by_default() {
        let [write_once, dead_update, _] = plane().1;
        assert_eq!(victim(UpdateVictims::DeadFirst), Some(dead_update));
        assert_eq!(victim(UpdateVictims::Last), Some(write_once));
        // Greedy alone: the dead block too (fewest valid pages).
        assert_eq!(victim(UpdateVictims::Equal), Some(dead_update));
    }

    #[test]
    fn without_a_dead_block_the_other_blocks_go_before_update_blocks() {
        let cfg = SeparationConfig::default();
        let mut pds = Separator::new("pds", 4, 16, cfg, Variant::Pds(Grouping::new(4))).unwrap();
        let (mut bm, [write_once, dead_update, _]) = plane();
        // Revive one page of the dead update block: now no block is dead.
        bm.set_valid(dead_update as Ppn * 4, 0);
        let mut pick = |rule| {
            pds.update_victims = rule;
            pds.victim(&mut VictimCtx { plane: 0, blocks: &bm, now: 0, policy: &mut Greedy })
        };
        assert_eq!(pick(UpdateVictims::DeadFirst), Some(write_once));
        assert_eq!(pick(UpdateVictims::Last), Some(write_once));
        // Greedy alone: the update block with one valid page that was closed first.
        assert_eq!(pick(UpdateVictims::Equal), Some(dead_update));
    }
}
