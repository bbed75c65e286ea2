"""Seed 003 (Ch. 3-4): read-disturb management by read reclaim (the baseline), redFTL
(replicas of read-hot pages, proactive migration) and redFTL+ (read-resistant blocks and
pages, background reclaim), with RRB (modes only) and redFTL++ (exact counts), on the
TLC device of the seed's set-up (`redftl-tlc-96g`).

Numbers compared with the seed, each the mean over the chapter's workloads (stand-ins,
redftl_workloads.py) relative to the baseline unless noted:
- Ch. 3 (Sec. 3.5), redFTL with 15 replica pages per block on ads, mds, tpc-h, websearch:
  RR execution time -50% (Fig. 11), data-migration time -78%, RR activations -60%
  (Sec. 3.1), total GC + RR time -34% (Fig. 12), worse than the baseline on websearch and
  tpc-h with 5 replica pages per block (Fig. 12), the baseline's peak RR service time
  about 332 ms (Fig. 13; 326 ms in Sec. 3.2.2).
- Ch. 4 (Sec. 4.4) on ads, tpc-h, websearch, multi, tpc-e, tatp: RR execution time -62%
  for redFTL+ (Fig. 21; -78% in Ch. 4.1) and -30% for RRB; redFTL++ no better than
  redFTL+ (Fig. 21); LSB-page reads +40% over RRB (Fig. 22); the mean read response during
  reclaims 150 times lower than the baseline's (Fig. 23; 237 times in Ch. 4.1).

RR execution time is the die time of everything read-disturb management does: reclaims,
their partner relocations, replica copies (the dies' cleaning time and erase time, less
that of garbage collection and wear levelling). Migration time is the die time of the
reclaims themselves. Reads during reclaims are the host reads sent to a die while it ran
one (those it can hold up). --quick runs a device of two channels with every read-count
threshold and every trace a hundred times smaller, which keeps the number of reclaims.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xlssd.config import load_preset
from xlssd.reproduce import redftl_workloads as wl
from xlssd.reproduce import shared_traces
from xlssd.reproduce.experiment import Claim, Experiment, Metric, Plot, Variant

NAME = "redftl"
DESCRIPTION = "seed 003: read reclaim, redFTL, RRB, redFTL+ and redFTL++ (Figs. 11-13, 21-23)"
PRESET = "redftl-tlc-96g"

SCHEMES = {
    "baseline": {"scheme.name": "read-reclaim"},
    "redftl": {"scheme.name": "redftl", "scheme.redftl.max_replicas_per_block": 15},
    "rrb": {"scheme.name": "rrb"},
    "redftl+": {"scheme.name": "redftl-plus"},
    "redftl++": {"scheme.name": "redftl-plusplus"},
    # Read reclaim on the effective disturbance of Sec. 4.2.3 (reads weighted by page type,
    # TLCbase), no modes: Sec. 4.4 evaluates every scheme on that model, and whether its
    # baseline counts reads or weighs them the seed does not say (RRB with one mode).
    "baseline-tlcbase": {"scheme.name": "rrb", "physics.read_disturbance.alpha": [1.0, 1.0, 1.0],
                         "scheme.redftl.mode_program_time": [1.0, 1.0, 1.0]},
}
CH3_SCHEMES = ("baseline", "redftl")
CH4_SCHEMES = ("baseline", "baseline-tlcbase", "rrb", "redftl+", "redftl++")

#: --quick: a hundredth of every read-count threshold and of every trace, on two channels.
QUICK_FACTOR = 100
QUICK_SET = {"geometry.channels": 2}
QUICK_SCHEMES = {
    name: {**over, "scheme.redftl.reclaim_threshold": 38_000 // QUICK_FACTOR,
           **({} if name in ("baseline", "rrb", "baseline-tlcbase") else {"scheme.redftl.max_read_count": 40_000 // QUICK_FACTOR})}
    for name, over in SCHEMES.items()
}

#: The real excerpt of the websearch trace (see shared_traces for where it is looked for).
REAL_WEBSEARCH = "wsrch-small"


def ch3_name(t: wl.Trace) -> str:
    return f"{t.name}-x{t.repeat}"


def ch4_name(t: wl.Trace) -> str:
    return f"{t.name}-raf{t.raf}"


CH3 = tuple(ch3_name(wl.BY_NAME[n]) for n in wl.CH3)
CH4 = tuple(ch4_name(wl.BY_NAME[n]) for n in wl.CH4)
#: The real excerpt replayed as Table 6 replays websearch: by 100 threads (RAF 100).
REAL_THREADS = 100
REAL = f"websearch-real-raf{REAL_THREADS}"
#: Each thread replays it this many times over in the variant: once, no block is read
#: often enough for a reclaim, and more threads would ask more than the device can serve.
REAL_PASSES = 4
REAL_MORE = f"{REAL}-x{REAL_PASSES}"


def _device(quick: bool) -> dict[str, Any]:
    cfg = load_preset(PRESET)
    if quick:
        cfg["geometry"]["channels"] = QUICK_SET["geometry.channels"]
    return cfg


def _stand_in(t: wl.Trace, times: int, folder: Path, quick: bool, skew: float | None = None,
              load: float = wl.UTILISATION, longer: int = 1) -> dict[str, Any]:
    cfg = _device(quick)
    g, timing = cfg["geometry"], cfg["timing"]
    dies = g["channels"] * g["chips_per_channel"] * g["dies_per_chip"]
    raw_pages = dies * g["planes_per_die"] * g["blocks_per_plane"] * g["pages_per_block"]
    working = int(raw_pages * wl.WORKING_SET)
    n = longer * times * wl.PASS_REQUESTS // (QUICK_FACTOR if quick else 1)
    rate = wl.rate_per_s(t.read, wl.mean_read_us(timing["read_us"]), float(timing["program_us"]), dies, load)
    tag = f"{t.name}-n{n}-w{working}-z{skew if skew is not None else 'd'}-u{load:g}" + ("-c" if t.clustered else "")
    path = folder / f"{tag}.trace"
    if not path.is_file():
        wl.write_stand_in(t, path, n, working, rate, skew)
    return {"trace": str(path), "format": "mqsim"}


def _real(folder: Path, quick: bool, passes: int = 1) -> dict[str, Any] | None:
    source = shared_traces.find(REAL_WEBSEARCH)
    if source is None:
        return None
    threads = 1 if quick else REAL_THREADS
    path = folder / f"wsrch-small-threads{threads}-passes{passes}.trace"
    if not path.is_file():
        wl.replay_by_threads(source, path, threads, passes=passes)
    return {"trace": str(path), "format": "mqsim"}


def workloads(out: Path, quick: bool) -> dict[str, Any]:
    folder = out / "traces"
    found = {ch3_name(t): _stand_in(t, t.repeat, folder, quick) for t in wl.TRACES if t.repeat}
    found.update({ch4_name(t): _stand_in(t, t.raf, folder, quick) for t in wl.TRACES if t.raf})
    real = _real(folder, quick)
    if real is not None:
        found[REAL] = real
    return found


def skew_name(name: str, skew: float) -> str:
    return f"{name}@zipf{skew:g}"


def load_name(name: str, load: float) -> str:
    return f"{name}@load{load:g}"


def _skew_workloads(chapter: int):
    def prepare(out: Path, quick: bool, _main: Any) -> dict[str, Any]:
        folder = out / "traces"
        found = {}
        for s in wl.OTHER_SKEWS:
            for t in wl.TRACES:
                times = t.repeat if chapter == 3 else t.raf
                if times and not t.clustered:
                    name = ch3_name(t) if chapter == 3 else ch4_name(t)
                    found[skew_name(name, s)] = _stand_in(t, times, folder, quick, skew=s)
        return found
    return prepare


LOAD_TRACES = ("ads", "websearch")


def _load_workloads(out: Path, quick: bool, _main: Any) -> dict[str, Any]:
    folder = out / "traces"
    return {load_name(ch4_name(wl.BY_NAME[n]), u): _stand_in(wl.BY_NAME[n], wl.BY_NAME[n].raf, folder, quick, load=u)
            for u in wl.OTHER_LOADS for n in LOAD_TRACES}


#: How much longer the `longer` variant's Ch. 4 stand-ins run.
LONGER = 4


def longer_name(name: str) -> str:
    return f"{name}@x{LONGER}"


def _longer_workloads(out: Path, quick: bool, _main: Any) -> dict[str, Any]:
    folder = out / "traces"
    return {longer_name(ch4_name(t)): _stand_in(t, t.raf, folder, quick, longer=LONGER) for t in wl.TRACES if t.raf}


def _real_more_passes(out: Path, quick: bool, _main: Any) -> dict[str, Any]:
    real = _real(out / "traces", quick, REAL_PASSES)
    return {REAL_MORE: real} if real is not None else {}


def _only(names):
    def prepare(_out: Path, _quick: bool, main: Any) -> dict[str, Any]:
        return {k: v for k, v in main.items() if k in names}
    return prepare


REPLICAS_PER_BLOCK = (5, 10)
VARIANTS = [
    # Fig. 12: redFTL with fewer replica pages per block.
    Variant("replicas", points=[{"scheme.redftl.max_replicas_per_block": r} for r in REPLICAS_PER_BLOCK],
            schemes=("redftl",), prepare=_only(CH3)),
    Variant("skew-ch3", points=[{}], schemes=CH3_SCHEMES, prepare=_skew_workloads(3)),
    Variant("skew-ch4", points=[{}], schemes=CH4_SCHEMES, prepare=_skew_workloads(4)),
    Variant("load", points=[{}], schemes=("baseline", "redftl+"), prepare=_load_workloads),
    # Fig. 21 and 22 on Ch. 4 stand-ins four times as long: more reclaims, and more of the
    # reads served by data a reclaim has placed.
    Variant("longer", points=[{}], schemes=("baseline", "baseline-tlcbase", "rrb", "redftl+"),
            prepare=_longer_workloads),
    Variant("real-more-passes", points=[{}], prepare=_real_more_passes),
]

_GC = '"nand.busy.dies_total.gc_ns"'
_ERASE = '"nand.busy.dies_total.erase_ns"'
_PAGE_TYPES = 'CAST(json_extract("read_disturb.host_reads_by_page_type", \'$\') AS DOUBLE[])'
METRICS = [
    Metric("rr_ms", f'({_GC} + {_ERASE}) / 1e6 - "ftl.relocations.gc.busy_ms" - "ftl.relocations.wear_levelling.busy_ms"',
           "RR execution time (die ms: reclaims, partners, replica copies)"),
    Metric("migration_ms", '"ftl.relocations.read_reclaim.busy_ms"', "data-migration time of reclaims (die ms)"),
    Metric("overhead_ms", f"({_GC} + {_ERASE}) / 1e6", "GC + RR execution time (die ms)"),
    Metric.key("reclaims", "ftl.relocations.read_reclaim.started", "read reclaims started"),
    Metric("rr_service_peak_ms", '"ftl.relocations.read_reclaim.service_us.max" / 1000',
           "longest reclaim, start to erase (ms)"),
    Metric.key("read_during_rr", "ftl.relocations.read_reclaim.reads_on_die_us.mean",
               "mean response of reads sent to a reclaiming die (us)"),
    Metric("read_during_rr_p50_ms", '"ftl.relocations.read_reclaim.reads_on_die_us.p50" / 1000',
           "median response of reads sent to a reclaiming die (ms)"),
    Metric.key("read_anywhere_during_rr", "ftl.relocations.read_reclaim.reads_during_us.mean",
               "mean response of reads arriving during reclaims, any die (us)"),
    Metric("lsb_share", f"{_PAGE_TYPES}[1] / NULLIF(list_sum({_PAGE_TYPES}), 0)", "share of host reads from LSB pages"),
    Metric("replication_p50_ms", '"ftl.copies.batch_service_us.p50" / 1000',
           "median replica creation (one block's copies), ask to last program (ms)"),
    Metric.key("read_rt", "host.read.latency_us.mean", "read response time (us)"),
    Metric.key("read_p9999", "host.read.latency_us.p99_99", "read response time p99.99 (us)"),
]


def _peak_formula() -> float:
    """Sec. 3.2.2: a reclaim of a full block moves its 192 pages (read 100 us, program
    1,600 us each) and erases it (5 ms); in ms."""
    return (192 * (100 + 1600) + 5000) / 1000


MAIN = {"scheme.redftl.max_replicas_per_block": 15}


def _fig21_claims(workloads: tuple[str, ...], suffix: str) -> list[Claim]:
    """Fig. 21 (and Ch. 4.1's other number) against both readings of the baseline."""
    out = []
    for base, reading in (("baseline", "baseline counts reads"), ("baseline-tlcbase", "baseline weighs reads (TLCbase)")):
        common = dict(metric="rr_ms", workloads=workloads, normalise="change", bound="factor", baseline=base,
                      assumption=reading)
        vs = "baseline" if base == "baseline" else "TLCbase baseline"
        out += [
            Claim("Fig. 21", f"RR execution time, redFTL+ vs {vs}{suffix}", -62, scheme="redftl+",
                  group=f"RR execution time, redFTL+ vs baseline{suffix}", **common),
            Claim("Ch. 4.1", f"RR execution time, redFTL+ vs {vs} (the overview's number){suffix}", -78,
                  scheme="redftl+", group=f"RR execution time, redFTL+ vs baseline (Ch. 4.1){suffix}",
                  note="the seed's own numbers disagree: -62% (Fig. 21) vs -78% (Ch. 4.1)", **common),
            Claim("Fig. 21", f"RR execution time, RRB vs {vs}{suffix}", -30, scheme="rrb",
                  group=f"RR execution time, RRB vs baseline{suffix}", **common),
        ]
    return out


def _claims() -> list[Claim]:
    ch3 = dict(workloads=CH3, normalise="change", bound="factor", where=MAIN)
    ch4 = dict(workloads=CH4, normalise="change", bound="factor")
    out = [
        Claim("Fig. 11", "RR execution time, redFTL vs baseline", -50, metric="rr_ms", scheme="redftl", **ch3),
        Claim("Sec. 3.5", "data-migration time, redFTL vs baseline", -78, metric="migration_ms", scheme="redftl", **ch3),
        Claim("Sec. 3.1", "RR activations, redFTL vs baseline", -60, metric="reclaims", scheme="redftl", **ch3),
        Claim("Fig. 12", "GC + RR execution time, redFTL vs baseline", -34, metric="overhead_ms", scheme="redftl", **ch3),
    ]
    out += [
        Claim("Fig. 12", f"GC + RR execution time, redFTL with 5 replica pages per block vs baseline, {n}", 1.0,
              metric="overhead_ms", scheme="redftl", workload=ch3_name(wl.BY_NAME[n]), normalise="ratio",
              bound="above", where={"scheme.redftl.max_replicas_per_block": 5},
              note="the seed: worse than the baseline (ratio above 1)")
        for n in ("websearch", "tpc-h")
    ]
    out += [
        Claim("Sec. 3.2.2", "a reclaim of a full block (192 x (100 + 1,600) us + 5 ms), ms", 332,
              compute=_peak_formula, rel_tol=0.05, note="Fig. 13's peak is about 332 ms, Sec. 3.2.2's 326 ms"),
        Claim("Fig. 13", "longest reclaim of the baseline, ms, ads and websearch", 332, metric="rr_service_peak_ms",
              scheme="baseline", workloads=(ch3_name(wl.BY_NAME["ads"]), ch3_name(wl.BY_NAME["websearch"])),
              bound="factor", where=MAIN),
        Claim("Fig. 13", "median replica creation of redFTL, ms, ads and websearch", 10,
              metric="replication_p50_ms", scheme="redftl",
              workloads=(ch3_name(wl.BY_NAME["ads"]), ch3_name(wl.BY_NAME["websearch"])), bound="below", where=MAIN,
              note="the seed: redFTL's RR procedures (replica creations, migrations) mostly under 10 ms"),
        *_fig21_claims(CH4, ""),
        Claim("Fig. 21", "RR execution time, redFTL++ vs redFTL+", 1.0, metric="rr_ms", scheme="redftl++",
              workloads=CH4, normalise="ratio", baseline="redftl+", abs_tol=0.15,
              note="the seed: no significant reduction"),
        Claim("Fig. 22", "share of reads from LSB pages, redFTL+ vs RRB", 40, metric="lsb_share", scheme="redftl+",
              workloads=CH4, normalise="change", baseline="rrb", bound="factor"),
        Claim("Fig. 23", "mean read response during reclaims, redFTL+ / baseline", 1 / 150, metric="read_during_rr",
              scheme="redftl+", workloads=CH4, normalise="ratio", bound="factor",
              group="read response during reclaims, redFTL+ vs baseline", assumption="Fig. 23 and Sec. 4.4: 150x"),
        Claim("Fig. 23", "median read response during reclaims, baseline, ms", 350, metric="read_during_rr_p50_ms",
              scheme="baseline", workloads=CH4, bound="above",
              note="the seed: most of the baseline's reads during reclaims take over 350 ms"),
        Claim("Ch. 4.1", "mean read response during reclaims, redFTL+ / baseline (the overview's number)", 1 / 237,
              metric="read_during_rr", scheme="redftl+", workloads=CH4, normalise="ratio", bound="factor",
              group="read response during reclaims, redFTL+ vs baseline", assumption="the overview of Ch. 4: 237x",
              note="the seed's own numbers disagree: 150x (Sec. 4.4) vs 237x (Ch. 4.1)"),
    ]
    # The claims that depend on the read skew, again at the other skews.
    for s in wl.OTHER_SKEWS:
        out += [
            Claim("Fig. 11", f"RR execution time, redFTL vs baseline, Zipf {s:g}", -50, metric="rr_ms", scheme="redftl",
                  workloads=tuple(skew_name(w, s) for w in CH3 if not w.startswith("mds")), normalise="change",
                  bound="factor", where=MAIN),
            Claim("Fig. 21", f"RR execution time, redFTL+ vs baseline, Zipf {s:g}", -62, metric="rr_ms", scheme="redftl+",
                  workloads=tuple(skew_name(w, s) for w in CH4), normalise="change", bound="factor"),
        ]
    # Fig. 21 and 22 on the longer stand-ins.
    longer = tuple(longer_name(w) for w in CH4)
    out += _fig21_claims(longer, f", stand-ins x{LONGER} as long")
    out.append(Claim("Fig. 22", f"share of reads from LSB pages, redFTL+ vs RRB, stand-ins x{LONGER} as long", 40,
                     metric="lsb_share", scheme="redftl+", workloads=longer, normalise="change", baseline="rrb",
                     bound="factor"))
    # The real web-search excerpt replayed often enough for reclaims.
    out += [
        Claim("Fig. 11", f"RR execution time, redFTL vs baseline, real web-search excerpt, {REAL_PASSES} passes per thread",
              -50, metric="rr_ms", scheme="redftl", workload=REAL_MORE, normalise="change", bound="factor", where=MAIN),
        Claim("Fig. 21", f"RR execution time, redFTL+ vs baseline, real web-search excerpt, {REAL_PASSES} passes per thread",
              -62, metric="rr_ms", scheme="redftl+", workload=REAL_MORE, normalise="change", bound="factor"),
        Claim("Fig. 21", f"RR execution time, RRB vs baseline, real web-search excerpt, {REAL_PASSES} passes per thread",
              -30, metric="rr_ms", scheme="rrb", workload=REAL_MORE, normalise="change", bound="factor"),
    ]
    # The response during reclaims depends on the load.
    for u in wl.OTHER_LOADS:
        out.append(Claim("Fig. 23", f"mean read response during reclaims, redFTL+ / baseline, {u:.0%} busy", 1 / 150,
                         metric="read_during_rr", scheme="redftl+",
                         workloads=tuple(load_name(ch4_name(wl.BY_NAME[n]), u) for n in LOAD_TRACES),
                         normalise="ratio", bound="factor", group="read response during reclaims, by load",
                         assumption=f"{u:.0%} busy"))
    return out


FIGURES = [
    Plot("bars", "fig11-rr-time", "RR execution time, Ch. 3 workloads", ref="Fig. 11", metric="rr_ms", where=MAIN,
         workloads=CH3),
    Plot("bars", "fig12-overhead", "GC + RR execution time, Ch. 3 workloads", ref="Fig. 12", metric="overhead_ms",
         where=MAIN, workloads=CH3),
    Plot("versus", "fig12-replicas", "GC + RR execution time against replica pages per block", ref="Fig. 12",
         metric="overhead_ms", x="scheme.redftl.max_replicas_per_block", scheme="redftl", workloads=CH3),
    Plot("cdf", "fig13-rr-service-ads", "reclaim service time, ads", ref="Fig. 13",
         workload=ch3_name(wl.BY_NAME["ads"]), where=MAIN, histogram="ftl.relocations.read_reclaim.service_us",
         count="ftl.relocations.read_reclaim.finished", what="reclaim service time"),
    Plot("cdf", "fig13-rr-service-websearch", "reclaim service time, websearch", ref="Fig. 13",
         workload=ch3_name(wl.BY_NAME["websearch"]), where=MAIN, histogram="ftl.relocations.read_reclaim.service_us",
         count="ftl.relocations.read_reclaim.finished", what="reclaim service time"),
    Plot("cdf", "fig13-replica-creation-ads", "redFTL's replica creations, ads", ref="Fig. 13",
         workload=ch3_name(wl.BY_NAME["ads"]), scheme="redftl", where=MAIN, histogram="ftl.copies.batch_service_us",
         count="ftl.copies.batches", what="replica creation, ask to last program"),
    Plot("bars", "fig21-rr-time", "RR execution time, Ch. 4 workloads", ref="Fig. 21", metric="rr_ms",
         workloads=CH4),
    Plot("bars", "fig22-lsb-share", "share of host reads from LSB pages, relative to RRB", ref="Fig. 22",
         metric="lsb_share", baseline="rrb", workloads=CH4),
    Plot("cdf", "fig23-reads-during-rr-ads", "read response during reclaims, ads", ref="Fig. 23",
         workload=ch4_name(wl.BY_NAME["ads"]), histogram="ftl.relocations.read_reclaim.reads_on_die_us",
         count="ftl.relocations.read_reclaim.reads_on_die", what="response of reads sent to a reclaiming die"),
    Plot("cdf", "fig23-reads-during-rr-websearch", "read response during reclaims, websearch", ref="Fig. 23",
         workload=ch4_name(wl.BY_NAME["websearch"]), histogram="ftl.relocations.read_reclaim.reads_on_die_us",
         count="ftl.relocations.read_reclaim.reads_on_die", what="response of reads sent to a reclaiming die"),
]

EXPERIMENT = Experiment(
    name=NAME,
    description=DESCRIPTION,
    paper="Seed 003, a PhD dissertation on cross-layer optimisation of high-density NAND storage, "
          "Ch. 3 (redFTL) and Ch. 4 (redFTL+)",
    preset=PRESET,
    # The working set holds data before the run (Sec. 4.4 sizes the device at seven times
    # it): its share of the logical space, which is 93% of the raw.
    set={"precondition.occupancy": round(wl.WORKING_SET / (1 - load_preset(PRESET)["ftl"]["overprovisioning"]), 6)},
    schemes=SCHEMES,
    baseline="baseline",
    workloads={},
    metrics=METRICS,
    claims=_claims(),
    figures=FIGURES,
    prepare=workloads,
    variants=VARIANTS,
    quick={"set": QUICK_SET, "schemes": QUICK_SCHEMES},
    real_traces=(REAL_WEBSEARCH,),
)
