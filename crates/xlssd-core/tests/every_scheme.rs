//! Property tests over every registered scheme: random small devices, random workloads and
//! random physics, each scheme alone and joined with another, with the invariant checker
//! running during and after every run. Whatever the scheme, every request completes and is
//! counted once by kind, and a run repeated gives the same report.
//!
//! The schemes are taken from the registry, so a scheme added later is covered without
//! being named here; what a scheme needs (a physics model, a decoder, the retry-table
//! model) is what its validation error names, and the case sets it.

mod common;

use common::guarded::run_guarded;
use common::VecSource;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use xlssd_core::host::{Op, Request};
use xlssd_core::{Config, Error};

/// The knobs a case varies; the workload is drawn from `wl_seed`.
#[derive(Debug, Clone)]
struct Case {
    /// Index into the registry, and a second scheme to join with it (`+`), if any.
    scheme: usize,
    partner: Option<usize>,
    channels: u32,
    planes: u32,
    blocks_per_plane: u32,
    pages_per_block: u32,
    cell: &'static str,
    layers: u32,
    overprovisioning: f64,
    cache_pages: u64,
    cmt_entries: u64,
    occupancy: f64,
    steady_state: bool,
    physics: &'static str,
    ecc: &'static str,
    initial_pe: u32,
    data_age_h: f64,
    backing: bool,
    /// Controller and FTL knobs, each at a value a scheme might not expect.
    knobs: Knobs,
    wl_seed: u64,
    requests: usize,
    read_fraction: f64,
    hot_fraction: f64,
    closed_qd: Option<u32>,
    contexts: u32,
    approx_share: f64,
    tolerance: f32,
}

#[derive(Debug, Clone)]
struct Knobs {
    allocation: &'static str,
    gc_policy: &'static str,
    lazy_erase: bool,
    /// Static wear levelling off (it is on by default).
    no_static_wl: bool,
    write_policy: &'static str,
    unit_pages: u32,
    erase_suspend: bool,
    program_suspend: bool,
    decode_buffer_pages: u32,
    cmd_ns: u64,
    dram_ns: u64,
    interface_gbps: f64,
    backing_policy: &'static str,
    /// Requests start anywhere, not on a page, and cover any number of sectors.
    unaligned: bool,
    /// Bytes of a mapping entry: large ones make a mapping table of many translation pages.
    entry_bytes: u32,
    /// Placement handles offered (writes name them by address), and whether cleaning keeps
    /// each handle's data apart.
    handles: u32,
    same_handle_gc: bool,
    /// `gc.threshold` and `gc.stop_threshold`, or 0 for the defaults.
    gc_threshold: f64,
    gc_stop: f64,
    /// Reads of never-written pages return zeros without a flash read
    /// (`host.unmapped_reads = "zero"`; by default they read flash).
    zero_unmapped: bool,
}

fn knobs() -> impl Strategy<Value = Knobs> {
    (
        (
            prop::sample::select(vec!["static", "static", "dynamic"]),
            prop::sample::select(vec!["greedy", "cost-benefit", "fifo", "random-greedy", "cost-age-times"]),
            prop::bool::weighted(0.2),
            prop::bool::weighted(0.2),
            prop::sample::select(vec!["lazy", "eager"]),
            prop::sample::select(vec![1u32, 1, 2, 4]),
            prop::bool::weighted(0.3),
        ),
        (
            prop::bool::weighted(0.3),
            prop::sample::select(vec![0u32, 0, 2]),
            prop::sample::select(vec![0u64, 100]),
            prop::sample::select(vec![0u64, 200]),
            prop::sample::select(vec![0.0f64, 2.0]),
            prop::sample::select(vec!["write-back", "write-through", "write-around"]),
            prop::bool::weighted(0.2),
            prop::sample::select(vec![8u32, 8, 8, 1024, 4096]),
        ),
        (
            prop::sample::select(vec![0u32, 0, 0, 2, 3]),
            any::<bool>(),
            prop::sample::select(vec![0.0f64, 0.0, 0.15]),
            prop::sample::select(vec![0.0f64, 0.0, 0.25]),
            prop::bool::weighted(0.2),
        ),
    )
        .prop_map(|(a, b, c)| Knobs {
            allocation: a.0,
            gc_policy: a.1,
            lazy_erase: a.2,
            no_static_wl: a.3,
            write_policy: a.4,
            unit_pages: a.5,
            erase_suspend: a.6,
            program_suspend: b.0,
            decode_buffer_pages: b.1,
            cmd_ns: b.2,
            dram_ns: b.3,
            interface_gbps: b.4,
            backing_policy: b.5,
            unaligned: b.6,
            entry_bytes: b.7,
            handles: c.0,
            same_handle_gc: c.1,
            gc_threshold: c.2,
            gc_stop: c.3,
            zero_unmapped: c.4,
        })
}

/// Knobs at their defaults.
fn plain_knobs() -> Knobs {
    Knobs {
        allocation: "static",
        gc_policy: "greedy",
        lazy_erase: false,
        no_static_wl: false,
        write_policy: "lazy",
        unit_pages: 1,
        erase_suspend: false,
        program_suspend: false,
        decode_buffer_pages: 0,
        cmd_ns: 0,
        dram_ns: 0,
        interface_gbps: 0.0,
        backing_policy: "write-back",
        unaligned: false,
        entry_bytes: 8,
        handles: 0,
        same_handle_gc: false,
        gc_threshold: 0.0,
        gc_stop: 0.0,
        zero_unmapped: false,
    }
}

fn scheme_names() -> Vec<String> {
    let listed = xlssd_core::techniques::describe();
    listed.as_array().expect("a list").iter().map(|s| s["name"].as_str().expect("a name").to_string()).collect()
}

fn case() -> impl Strategy<Value = Case> {
    let n = scheme_names().len();
    let device = (
        0..n,
        prop::option::weighted(0.3, 0..n),
        1u32..=2,
        1u32..=2,
        prop::sample::select(vec![48u32, 64, 96]),
        prop::sample::select(vec![8u32, 16, 32]),
        prop::sample::select(vec!["slc", "mlc", "tlc"]),
        prop::sample::select(vec![1u32, 2]),
    );
    let ftl = (
        prop::sample::select(vec![0.3f64, 0.4, 0.5]),
        prop::sample::select(vec![0u64, 0, 16]),
        prop::sample::select(vec![0u64, 0, 32, 256]),
        prop::sample::select(vec![0.0f64, 0.5, 0.9]),
        any::<bool>(),
    );
    let physics = (
        prop::sample::select(vec!["none", "power-law", "exp-linear", "vth"]),
        prop::sample::select(vec!["none", "ldpc", "bch"]),
        prop::sample::select(vec![0u32, 1_000, 4_000]),
        prop::sample::select(vec![0.0f64, 720.0, 8_760.0]),
        prop::bool::weighted(0.2),
    );
    let workload = (
        any::<u64>(),
        200usize..1200,
        prop::sample::select(vec![0.0f64, 0.5, 0.8, 1.0]),
        prop::sample::select(vec![0.0f64, 0.8]),
        prop::option::of(prop::sample::select(vec![1u32, 4, 16])),
        prop::sample::select(vec![0u32, 0, 4]),
        prop::sample::select(vec![0.0f64, 0.5]),
        prop::sample::select(vec![0.0f32, 1e-4]),
    );
    (device, ftl, physics, workload, knobs()).prop_map(|(d, f, p, w, knobs)| Case {
        scheme: d.0,
        partner: d.1,
        channels: d.2,
        planes: d.3,
        blocks_per_plane: d.4,
        pages_per_block: d.5,
        cell: d.6,
        layers: d.7,
        overprovisioning: f.0,
        cache_pages: f.1,
        cmt_entries: f.2,
        occupancy: f.3,
        steady_state: f.4,
        physics: p.0,
        ecc: p.1,
        initial_pe: p.2,
        data_age_h: p.3,
        backing: p.4,
        knobs,
        wl_seed: w.0,
        requests: w.1,
        read_fraction: w.2,
        hot_fraction: w.3,
        closed_qd: w.4,
        contexts: w.5,
        approx_share: w.6,
        tolerance: w.7,
    })
}

/// The case's scheme name: one registered scheme, or two joined.
fn scheme_name(c: &Case) -> String {
    let names = scheme_names();
    match c.partner {
        Some(p) if p != c.scheme => format!("{}+{}", names[c.scheme], names[p]),
        _ => names[c.scheme].clone(),
    }
}

/// What a case's schemes asked for beyond the case: set by [`config`] from their
/// validation errors.
#[derive(Debug, Clone, Copy, Default)]
struct Needs {
    model: Option<&'static str>,
    ecc: Option<&'static str>,
    read_retry: bool,
    /// Times the device's blocks per plane were doubled, for a scheme whose streams each
    /// keep a block open.
    doublings: u32,
    /// A mapping unit of one page, for a scheme that places single pages or a cached
    /// mapping table.
    one_page_unit: bool,
    /// No `gc.policy`, for a scheme that chooses its own victims, and no `[wl]`, for one
    /// that levels wear its own way.
    own_victims: bool,
    own_wear_levelling: bool,
    /// Eight-byte mapping entries, for a device too small for a table of large ones.
    small_entries: bool,
}

/// The case's config file, with what its schemes need.
fn config_text(c: &Case, needs: Needs) -> String {
    let entry_bytes = if needs.small_entries { 8 } else { c.knobs.entry_bytes };
    format!(
        "seed = {seed}\n\
         [geometry]\nchannels = {ch}\nchips_per_channel = 1\ndies_per_chip = 1\nplanes_per_die = {pl}\n\
         blocks_per_plane = {bpp}\npages_per_block = {ppb}\npage_size = 4096\ncell = \"{cell}\"\nlayers = {layers}\n\
         [timing]\ncmd_ns = {cmd}\ndram_ns = {dram}\nerase_suspend = {esus}\nprogram_suspend = {psus}\n\
         [host]\ninterface_gbps = {gbps}\nunmapped_reads = \"{unmapped}\"\n\
         [ftl]\noverprovisioning = {op}\nallocation = \"{alloc}\"\nplacement_handles = {handles}\nhandle_gc = \"{hgc}\"\n\
         {gc_wl}\
         [cache]\ncapacity_bytes = {cache}\nwrite_policy = \"{wp}\"\n\
         [mapping]\ncached_table_bytes = {cmt}\nentry_bytes = {entry}\nunit_bytes = {unit}\n\
         [precondition]\noccupancy = {occ}\nsteady_state = {ss}\n\
         [physics]\nmodel = \"{model}\"\nread_retry.enabled = {retry}\n\
         [ecc]\nscheme = \"{ecc}\"\ndecode_buffer_pages = {dbuf}\n\
         [aging]\ninitial_pe = {pe}\ndata_age_h = {age}\n\
         [backing]\nenabled = {backing}\nwrite_policy = \"{bwp}\"\ndisk.capacity_bytes = {disk}\n\
         [scheme]\nname = \"{scheme}\"\n",
        seed = c.wl_seed % 1000 + 1,
        ch = c.channels,
        pl = c.planes,
        bpp = c.blocks_per_plane << needs.doublings,
        ppb = c.pages_per_block,
        cell = c.cell,
        layers = c.layers,
        op = c.overprovisioning,
        cache = c.cache_pages * 4096,
        cmt = c.cmt_entries * entry_bytes as u64,
        entry = entry_bytes,
        occ = c.occupancy,
        ss = c.steady_state,
        model = needs.model.unwrap_or(c.physics),
        retry = needs.read_retry,
        ecc = needs.ecc.unwrap_or(c.ecc),
        pe = c.initial_pe,
        age = c.data_age_h,
        backing = c.backing,
        // Twice the SSD's raw bytes: the cache then misses often.
        disk = c.channels as u64
            * c.planes as u64
            * (c.blocks_per_plane << needs.doublings) as u64
            * c.pages_per_block as u64
            * 4096
            * 2,
        scheme = scheme_name(c),
        cmd = c.knobs.cmd_ns,
        dram = c.knobs.dram_ns,
        esus = c.knobs.erase_suspend,
        psus = c.knobs.program_suspend,
        gbps = c.knobs.interface_gbps,
        alloc = c.knobs.allocation,
        unmapped = if c.knobs.zero_unmapped { "zero" } else { "materialize" },
        handles = c.knobs.handles,
        hgc = if c.knobs.same_handle_gc { "same-handle" } else { "shared" },
        gc_wl = gc_and_wl(&c.knobs, needs),
        wp = c.knobs.write_policy,
        unit = if c.knobs.unit_pages > 1 && !needs.one_page_unit { c.knobs.unit_pages * 4096 } else { 0 },
        dbuf = c.knobs.decode_buffer_pages,
        bwp = c.knobs.backing_policy,
    )
}

/// The `[gc]` and `[wl]` tables of `knobs`, with only the keys off their defaults: a
/// scheme that chooses victims or free blocks its own way refuses those keys set at all.
fn gc_and_wl(k: &Knobs, needs: Needs) -> String {
    let mut gc = String::new();
    let policy = if needs.own_victims { "greedy" } else { k.gc_policy };
    if policy != "greedy" || k.lazy_erase {
        gc.push_str(&format!("policy = \"{policy}\"\nlazy_erase = {}\n", k.lazy_erase));
    }
    if k.gc_threshold > 0.0 {
        gc.push_str(&format!("threshold = {}\n", k.gc_threshold));
    }
    if k.gc_stop > 0.0 {
        gc.push_str(&format!("stop_threshold = {}\n", k.gc_stop));
    }
    let mut t = if gc.is_empty() { gc } else { format!("[gc]\n{gc}") };
    if k.no_static_wl && !needs.own_wear_levelling {
        t.push_str("[wl]\nstatic = false\n");
    }
    t
}

/// `needs` with what a config error at `key` asks for (its message names the key and the
/// value), or `None` when it asks for nothing a case can give, or for a decoder other than
/// one already asked for.
fn with_need(mut needs: Needs, key: &str, message: &str) -> Option<Needs> {
    // A mapping table of large entries takes as many pages as the data: small entries.
    if key == "ftl.overprovisioning" && message.contains("translation pages") && !needs.small_entries {
        needs.small_entries = true;
        return Some(needs);
    }
    // Too small for the blocks the scheme keeps open or in reserve: a larger device, up to
    // four times the case's.
    if key == "ftl.overprovisioning" && message.contains("blocks per plane that cannot hold them") {
        needs.doublings += 1;
        return (needs.doublings <= 2).then_some(needs);
    }
    // A unit of several pages where single pages are wanted, or a victim policy or wear
    // levelling settings where the scheme decides them: the case runs without the knob.
    if key == "mapping.unit_bytes" && !needs.one_page_unit {
        needs.one_page_unit = true;
        return Some(needs);
    }
    if key == "gc.policy" && message.contains("chooses its own GC victims") && !needs.own_victims {
        needs.own_victims = true;
        return Some(needs);
    }
    if key == "wl" && message.contains("levels wear its own way") && !needs.own_wear_levelling {
        needs.own_wear_levelling = true;
        return Some(needs);
    }
    let before = (needs.model, needs.ecc, needs.read_retry);
    let mut ecc = |want: &'static str| match needs.ecc {
        Some(had) if had != want => None,
        _ => {
            needs.ecc = Some(want);
            Some(())
        }
    };
    if message.contains("\"bch\"") {
        ecc("bch")?;
    } else if message.contains("\"ldpc\"") || message.contains("read_retry") {
        // The retry-table model decodes with LDPC.
        ecc("ldpc")?;
    }
    if message.contains("physics model") || message.contains("physics.model") {
        needs.model.get_or_insert("power-law");
    }
    if message.contains("read_retry.enabled = true") {
        needs.read_retry = true;
    }
    (before != (needs.model, needs.ecc, needs.read_retry)).then_some(needs)
}

/// The case's config with what its schemes need set, or `None` when it is refused for a
/// reason the case cannot mend (a device too small for the streams a scheme opens even at
/// four times its blocks, two
/// schemes claiming one hook or wanting different decoders): a user would see that
/// refusal, and the case is not run.
fn config(c: &Case) -> Option<Config> {
    let mut needs = Needs::default();
    for _ in 0..12 {
        let text = config_text(c, needs);
        let cfg = match xlssd_core::config_from_toml(&text) {
            Ok(cfg) => cfg,
            Err(Error::Config { key, message }) => {
                needs = with_need(needs, &key, &message)?;
                continue;
            }
            Err(e) => panic!("the generated config is not read: {e}\n{text}"),
        };
        // A scheme's needs are checked with the config's own: a config that reads sets up.
        if let Err(e) = xlssd_core::simulator(&cfg, Box::new(VecSource::open(Vec::new())), None) {
            panic!("an accepted config is refused at set-up: {e}\n{text}");
        }
        return Some(cfg);
    }
    None
}

/// What the workload sent, counted as it is generated.
#[derive(Debug, Default, PartialEq)]
struct Sent {
    reads: u64,
    writes: u64,
    read_bytes: u64,
    write_bytes: u64,
}

fn workload(c: &Case, logical_sectors: u64) -> (Vec<Request>, Sent) {
    const SPP: u64 = 8;
    let logical_pages = logical_sectors / SPP;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(c.wl_seed);
    let hot_pages = (logical_pages / 10).clamp(1, logical_pages);
    let mut t = 5_000_000u64;
    let mut sent = Sent::default();
    let reqs = (0..c.requests)
        .map(|_| {
            let pages = rng.gen_range(1..=4u64).min(logical_pages);
            let region = if rng.gen_bool(c.hot_fraction) { hot_pages } else { logical_pages }.max(pages);
            let lpn = rng.gen_range(0..=region - pages);
            let op = if rng.gen_bool(c.read_fraction) { Op::Read } else { Op::Write };
            if c.closed_qd.is_none() {
                t += rng.gen_range(0..=40_000u64);
            }
            let (lba, sectors) = if c.knobs.unaligned {
                let start = lpn * SPP + rng.gen_range(0..SPP);
                let end = ((lpn + pages) * SPP).min(logical_sectors);
                (start, rng.gen_range(1..=end - start))
            } else {
                (lpn * SPP, pages * SPP)
            };
            let bytes = sectors * 512;
            match op {
                Op::Read => (sent.reads += 1, sent.read_bytes += bytes),
                Op::Write => (sent.writes += 1, sent.write_bytes += bytes),
            };
            // Contexts are those of the writes (seed 003's program contexts); the
            // approximate flag and the tolerated error rate follow the address.
            let context = if op == Op::Write && c.contexts > 0 { 1 + (lpn % c.contexts as u64) as u32 } else { 0 };
            let approx = ((lpn.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64) < c.approx_share;
            let handle = (op == Op::Write && c.knobs.handles > 0).then(|| (lpn % c.knobs.handles as u64) as u16);
            Request { arrival_ns: t, lba, sectors: sectors as u32, op, approx, context, handle, tolerance: c.tolerance }
        })
        .collect();
    (reqs, sent)
}

fn check_case(c: &Case) -> Result<(), TestCaseError> {
    let Some(cfg) = config(c) else { return Ok(()) };
    let (reqs, sent) = workload(c, cfg.logical_sectors());
    let n = reqs.len() as u64;
    let scheme = scheme_name(c);
    let describe = || format!("scheme {scheme}:\n{}", cfg.to_json_value());
    let mut first =
        run_guarded(&cfg, reqs.clone(), c.closed_qd, true).map_err(|e| TestCaseError::fail(format!("{e}\n{}", describe())))?;
    prop_assert_eq!(first.sim.requests, n, "{}", describe());
    prop_assert_eq!(first.host.all.count, n, "{}", describe());
    let got = Sent {
        reads: first.host.read.count,
        writes: first.host.write.count,
        read_bytes: first.host.read.bytes,
        write_bytes: first.host.write.bytes,
    };
    prop_assert_eq!(got, sent, "{}", describe());
    // The report carries the section of each technique that ran, and no other.
    let mut sections: Vec<&str> = first.techniques.keys().map(String::as_str).collect();
    sections.sort_unstable();
    let mut expected = xlssd_core::techniques::report_keys(&cfg.scheme).unwrap();
    expected.sort_unstable();
    prop_assert_eq!(sections, expected, "{}", describe());
    let mut again = run_guarded(&cfg, reqs, c.closed_qd, false)
        .map_err(|e| TestCaseError::fail(format!("the second run: {e}\n{}", describe())))?;
    first.clear_wall_clock();
    again.clear_wall_clock();
    prop_assert!(first.to_json() == again.to_json(), "a run repeated gave another report\n{}", describe());
    Ok(())
}

fn fixed(cases: u32) -> ProptestConfig {
    common::fixed_cases(cases, 0x5c4e_3e5)
}

proptest! {
    #![proptest_config(fixed(96))]

    #[test]
    fn every_scheme_on_random_devices_keeps_every_invariant(c in case()) {
        check_case(&c)?;
    }
}

/// More cases with fresh random seeds (`-- --ignored` to run; about 20 seconds).
#[test]
#[ignore = "long: 2,000 random cases"]
fn many_random_scheme_cases() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 2_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    if let Err(e) = runner.run(&case(), |c| check_case(&c)) {
        panic!("{e}");
    }
}

/// A small device (one channel, one plane of 48 blocks of 8 SLC pages, 30% spare) running
/// `scheme` with the physics off and every knob at its default: the regression cases below
/// change what their search found.
fn plain_case(scheme: &str) -> Case {
    let index = |name: &str| scheme_names().iter().position(|n| n == name).unwrap_or_else(|| panic!("no scheme {name}"));
    Case {
        scheme: index(scheme),
        partner: None,
        channels: 1,
        planes: 1,
        blocks_per_plane: 48,
        pages_per_block: 8,
        cell: "slc",
        layers: 1,
        overprovisioning: 0.3,
        cache_pages: 0,
        cmt_entries: 0,
        occupancy: 0.0,
        steady_state: false,
        physics: "none",
        ecc: "none",
        initial_pe: 0,
        data_age_h: 0.0,
        backing: false,
        knobs: plain_knobs(),
        wl_seed: 0,
        requests: 200,
        read_fraction: 0.0,
        hot_fraction: 0.0,
        closed_qd: None,
        contexts: 0,
        approx_share: 0.0,
        tolerance: 0.0,
    }
}

fn regression(c: Case) {
    assert!(config(&c).is_some(), "the case is refused: {c:?}");
    if let Err(e) = check_case(&c) {
        panic!("{e}");
    }
}

#[test]
fn regression_a_retried_read_keeps_its_first_failure_under_another_transaction_id() {
    // A read that failed its decode went back to its die and was queued anew under another
    // transaction id; its first failure was kept under the old one, where a later read
    // found it (a debug assertion) and the retried read lost it.
    regression(Case { initial_pe: 1_000, data_age_h: 8_760.0, read_fraction: 0.8, ..plain_case("retry") });
}

#[test]
fn regression_a_cache_tier_read_served_at_once_knows_its_page() {
    // With no DRAM latency and no host link, the SSD read of a dirty page the cache evicts
    // finished within its issue, before its disk page was on record: a panic.
    regression(Case { backing: true, requests: 493, ..plain_case("read-reclaim") });
}

#[test]
fn regression_read_hotness_ignores_translation_pages() {
    // redFTL+'s per-logical-page hotness was indexed with the page numbers of the cached
    // mapping table's translation pages (past the logical pages) when a reclaim or a sample
    // met one: out of bounds.
    regression(Case {
        pages_per_block: 16,
        cmt_entries: 32,
        occupancy: 0.5,
        steady_state: true,
        backing: true,
        wl_seed: 5_296_904_206_467_492_230,
        requests: 822,
        hot_fraction: 0.8,
        closed_qd: Some(1),
        ..plain_case("redftl-plus")
    });
}

#[test]
fn regression_cleaning_copies_of_several_streams_find_blocks() {
    // Schemes whose cleaning copies go to several streams stalled with the device far from
    // full: a victim's last pages needed a block in a stream that had none, no block was
    // free, and host writes had taken the room of blocks cleaning had opened.
    for c in [
        Case { occupancy: 0.9, requests: 257, hot_fraction: 0.8, ..plain_case("access-modes") },
        Case {
            pages_per_block: 16,
            occupancy: 0.9,
            steady_state: true,
            initial_pe: 1_000,
            wl_seed: 431_589_546_938_527_391,
            ..plain_case("access-modes")
        },
        Case { channels: 2, blocks_per_plane: 64, requests: 515, ..plain_case("hash") },
        Case {
            occupancy: 0.9,
            knobs: Knobs { gc_policy: "fifo", ..plain_knobs() },
            wl_seed: 11_602_971_202_506_887_778,
            requests: 254,
            ..plain_case("hash")
        },
        // Dynamic allocation chose a plane by room its host write could not take.
        Case {
            planes: 2,
            overprovisioning: 0.4,
            ecc: "bch",
            backing: true,
            knobs: Knobs {
                allocation: "dynamic",
                gc_policy: "random-greedy",
                interface_gbps: 2.0,
                backing_policy: "write-through",
                ..plain_knobs()
            },
            wl_seed: 4_608_342_057_339_581_144,
            requests: 527,
            read_fraction: 0.8,
            closed_qd: Some(16),
            ..plain_case("hash")
        },
    ] {
        regression(c);
    }
}

#[test]
fn every_registered_scheme_gets_a_config_it_accepts() {
    // The mending of a case's config must reach every scheme, or the property above would
    // skip it silently: each alone, on a roomy device with the physics off.
    for name in scheme_names() {
        let c = Case {
            channels: 2,
            planes: 2,
            blocks_per_plane: 96,
            pages_per_block: 16,
            cell: "tlc",
            layers: 2,
            overprovisioning: 0.5,
            occupancy: 0.5,
            contexts: 4,
            ..plain_case(&name)
        };
        assert!(config(&c).is_some(), "no config found for scheme {name}");
    }
}
