"""`xlssd reproduce redftl`: the stand-in workloads, the quick run, and the pieces of the
experiment layer it added (claims held within a factor, per-reason result columns, CDFs of
any latency summary, quick scheme overrides)."""

import json
import math

import numpy as np
import pytest
from experiments_helpers import comparison_rows, parquet_rows, quick_reproduction

from xlssd.reproduce import REGISTRY, redftl, shared_traces
from xlssd.reproduce import redftl_workloads as wl
from xlssd.reproduce.experiment import Claim, Experiment, _matches
from xlssd.report import Report

FIGURES = {"fig11-rr-time", "fig12-overhead", "fig12-replicas", "fig13-rr-service-ads", "fig13-rr-service-websearch",
           "fig13-replica-creation-ads",
           "fig21-rr-time", "fig22-lsb-share", "fig23-reads-during-rr-ads", "fig23-reads-during-rr-websearch"}


def _trace(path):
    return np.loadtxt(path, dtype=np.int64, ndmin=2)


# -- stand-in workloads ---------------------------------------------------------------------


def test_a_stand_in_has_the_seeds_read_share_a_zipf_skew_and_the_chosen_rate(tmp_path):
    t = wl.BY_NAME["tpc-h"]
    n, working, rate = 40_000, 20_000, 5_000.0
    a = _trace(wl.write_stand_in(t, tmp_path / "a.trace", n, working, rate))
    assert a.shape == (n, 5)
    reads = a[:, 4] == 1
    assert reads.mean() == pytest.approx(0.92, abs=0.01)
    assert set(a[:, 3]) == {wl.SPP} and (a[:, 2] % wl.SPP == 0).all() and a[:, 2].max() < working * wl.SPP
    assert (np.diff(a[:, 0]) >= 0).all() and a[0, 0] == 0
    assert n / (a[-1, 0] / 1e9) == pytest.approx(rate, rel=0.03)
    # Zipf 1 over 20,000 pages: the most read page takes 1/H(20,000) of the reads, and the
    # hot pages are scattered, not the first pages of the space.
    pages, counts = np.unique(a[reads, 2] // wl.SPP, return_counts=True)
    harmonic = sum(1 / k for k in range(1, working + 1))
    assert counts.max() / reads.sum() == pytest.approx(1 / harmonic, rel=0.1)
    assert pages[counts.argmax()] != 0
    # Writes are spread evenly: no page takes more than a few of them.
    _, wcounts = np.unique(a[~reads, 2], return_counts=True)
    assert wcounts.max() <= 5
    # The same arguments give the same bytes; a lower skew spreads the reads.
    again = wl.write_stand_in(t, tmp_path / "b.trace", n, working, rate)
    assert again.read_bytes() == (tmp_path / "a.trace").read_bytes()
    flat = _trace(wl.write_stand_in(t, tmp_path / "c.trace", n, working, rate, skew=0.6))
    _, fc = np.unique(flat[flat[:, 4] == 1, 2], return_counts=True)
    assert fc.max() < counts.max() / 3
    # mds's hot pages are side by side: the most read is the first, the next ones follow.
    mds = _trace(wl.write_stand_in(wl.BY_NAME["mds"], tmp_path / "d.trace", n, working, rate))
    mp, mc = np.unique(mds[mds[:, 4] == 1, 2] // wl.SPP, return_counts=True)
    assert list(mp[np.argsort(-mc)[:3]]) == [0, 1, 2]


def test_the_rate_keeps_the_dies_as_busy_as_chosen():
    # 16 dies, reads of 116.7 us and programs of 1,600 us: 30% busy with reads alone is
    # 0.3 x 16 / 116.7e-6 = 41,143 requests/s (the web-search excerpt's 413/s x 100 threads).
    assert wl.rate_per_s(1.0, 350 / 3, 1600, 16, 0.3) == pytest.approx(41_143, rel=1e-3)
    assert wl.rate_per_s(0.5, 100, 1500, 10, 0.4) == pytest.approx(0.4 * 10 / 800e-6)
    assert wl.mean_read_us([100.0, 150.0, 100.0]) == pytest.approx(350 / 3)


def test_a_trace_replayed_by_threads_keeps_each_threads_order(tmp_path):
    src = tmp_path / "src.trace"
    src.write_text("".join(f"{i * 1000} 0 {i * 16} 16 {i % 2}\n" for i in range(50)))
    out = _trace(wl.replay_by_threads(src, tmp_path / "x.trace", threads=4, seed=1))
    assert out.shape == (200, 5) and (np.diff(out[:, 0]) >= 0).all() and out[0, 0] == 0
    # Every request of the trace four times, with its own size and direction.
    lba, n = np.unique(out[:, 2], return_counts=True)
    assert (n == 4).all() and list(lba) == [i * 16 for i in range(50)]
    assert ((out[:, 2] // 16) % 2 == out[:, 4]).all()
    # Four threads at the trace's mean gap: four times its rate.
    assert (out[-1, 0] - out[0, 0]) / 1e6 == pytest.approx(49 * 1000 / 1e6, rel=0.5)
    # Passes: each thread goes through the trace again, at the same rate.
    twice = _trace(wl.replay_by_threads(src, tmp_path / "p.trace", threads=4, seed=1, passes=2))
    assert twice.shape == (400, 5) and (np.unique(twice[:, 2], return_counts=True)[1] == 8).all()
    assert (twice[-1, 0] / out[-1, 0]) == pytest.approx(2.0, rel=0.3)
    one = tmp_path / "one.trace"
    one.write_text("0 0 0 16 1\n")
    with pytest.raises(ValueError, match="fewer than two requests"):
        wl.replay_by_threads(one, tmp_path / "y.trace", threads=2)


def test_every_trace_of_the_seed_is_there_with_its_numbers():
    got = {t.name: (t.read, t.repeat, t.raf) for t in wl.TRACES}
    assert got == {"ads": (0.96, 150, 50), "mds": (0.98, 200, None), "tpc-h": (0.92, 50, 200),
                   "websearch": (1.0, 100, 100), "multi": (0.98, None, 50), "tpc-e": (0.95, None, 30),
                   "tatp": (0.83, None, 3)}
    assert wl.CH3 == ("ads", "mds", "tpc-h", "websearch")
    assert wl.CH4 == ("ads", "tpc-h", "websearch", "multi", "tpc-e", "tatp")


# -- the experiment layer -------------------------------------------------------------------


def test_a_claim_within_a_factor():
    c = Claim("Fig. 1", "x", -50.0, metric="m", bound="factor")
    assert c.within(-25.0) and c.within(-100.0) and c.within(-60.0)
    assert not c.within(-24.0) and not c.within(-101.0) and not c.within(10.0)
    assert c.paper_text() == "-50 (x2)" and c.difference_text(-75.0) == "x1.50"
    assert c.difference_text(30.0) == "opposite sign"
    below = Claim("Fig. 13", "y", 10.0, metric="m", bound="below")
    assert below.within(9.9) and not below.within(10.0) and below.paper_text() == "<10"
    three = Claim("Fig. 1", "x", 0.01, metric="m", bound="factor", factor=3.0)
    assert three.within(0.003334) and not three.within(0.0033)
    with pytest.raises(ValueError, match="bound 'factor' needs a factor above 1"):
        Claim("Fig. 1", "x", 0.0, metric="m", bound="factor")
    with pytest.raises(ValueError, match="bound 'roughly' is not one of"):
        Claim("Fig. 1", "x", 1.0, metric="m", bound="roughly")


def test_relocations_become_columns_per_reason():
    r = Report({"ftl": {"relocations": [{"reason": "gc", "started": 1, "service_us": {"p50": 2.0}},
                                        {"reason": "read_reclaim", "started": 3, "service_us": {"p50": 4.0}}],
                        "busy": [{"x": 1}]}})
    flat = dict(r.flat())
    assert flat["ftl.relocations.gc.started"] == 1 and flat["ftl.relocations.read_reclaim.service_us.p50"] == 4.0
    assert "ftl.relocations" not in flat and flat["ftl.busy"] == [{"x": 1}]
    # A list whose objects do not each have a distinct reason stays whole.
    twice = Report({"l": [{"reason": "a"}, {"reason": "a"}]})
    assert dict(twice.flat()) == {"l": [{"reason": "a"}, {"reason": "a"}]}


def test_a_key_a_row_does_not_have_does_not_rule_it_out():
    where = {"scheme.redftl.max_replicas_per_block": 15}
    assert _matches({"config.scheme.redftl.max_replicas_per_block": None}, where)
    assert _matches({"config.scheme.redftl.max_replicas_per_block": 15}, where)
    assert not _matches({"config.scheme.redftl.max_replicas_per_block": 5}, where)


def test_quick_schemes_replace_the_schemes_and_a_variant_of_the_technique_alone_has_no_baseline():
    exp = REGISTRY["redftl"]
    quick = exp.spec(quick=True, workloads={"w": "rw=randread,n=10"})
    assert quick.schemes["baseline"] == {"scheme.name": "read-reclaim", "scheme.redftl.reclaim_threshold": 380}
    assert quick.schemes["redftl+"]["scheme.redftl.max_read_count"] == 400
    assert exp.spec(workloads={"w": "rw=randread,n=10"}).schemes == {k: dict(v) for k, v in redftl.SCHEMES.items()}
    replicas = next(v for v in exp.variants if v.name == "replicas")
    spec = exp.variant_spec(replicas, quick=True, workloads={"w": "rw=randread,n=10"})
    assert list(spec.schemes) == ["redftl"] and spec.baseline is None
    points = spec.expand()
    assert sorted(p.config["scheme"]["redftl"]["max_replicas_per_block"] for p in points) == [5, 10]
    assert {p.config["scheme"]["redftl"]["reclaim_threshold"] for p in points} == {380}


def test_a_point_setting_a_technique_key_is_checked_with_the_schemes_that_use_it():
    from xlssd import ConfigError
    from xlssd.config import load_preset
    from xlssd.sweep.spec import Spec

    def spec(points):
        return Spec(name="s", description="", base=load_preset("tiny"), base_label="tiny", set={}, grid={},
                    points=points, workloads={"w": "rw=randread,n=10"},
                    schemes={"a": {"scheme.name": "read-reclaim"}, "b": {"scheme.name": "redftl"}}, seeds=None,
                    baseline=None)

    # Accepted because scheme b takes it; expanding it with scheme a is the error.
    s = spec([{"scheme.redftl.max_replicas_per_block": 5}])
    with pytest.raises(ConfigError, match="used by scheme redftl only, not by `read-reclaim`"):
        s.expand()
    # A point no scheme takes is refused when the spec is checked, with the first error.
    with pytest.raises(ConfigError, match=r"\[points\] #1: config key `gc\.no_such_key`"):
        spec([{"gc.no_such_key": 2.0}]).expand()


# -- the quick run --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return quick_reproduction(tmp_path_factory, "redftl")


_comparison = comparison_rows


def test_quick_run_prints_every_claim_beside_the_seed(quick):
    out, p = quick
    assert p.returncode == 0, p.stderr
    c = _comparison(out)
    # The real excerpt's claims need the shared traces beside the checkout.
    real = (shared_traces.folder() / f"{redftl.REAL_WEBSEARCH}.trace").is_file()
    assert list(c) == [cl.label for cl in redftl.EXPERIMENT.claims if real or cl.workload != redftl.REAL_MORE]
    kinds = [v["kind"] for v in c.values()]
    assert kinds.count("computed") == 1 and kinds.count("simulated") == len(kinds) - 1
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("simulated: "))
    # Without the traces, the real excerpt's three claims are counted as not run.
    tail = "computed: 1 of 1 within tolerance" + ("" if real else " (3 more need the full run)")
    assert line.endswith(tail), line
    # The seed's own disagreements are reported as such.
    notes = (out / "comparison.csv").read_text()
    assert "(x2)" in p.stdout
    assert "-62% (Fig. 21) vs -78% (Ch. 4.1)" in notes and "150x (Sec. 4.4) vs 237x (Ch. 4.1)" in notes
    meta = json.loads((out / "experiment.json").read_text())
    assert {f["file"].split("/")[1].removesuffix(".png") for f in meta["figures"]} == FIGURES
    for f in (out / "figures").glob("*.png"):
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_quick_run_directions(quick):
    """What holds for any reasonable stand-in: the schemes do less read-disturb work than the
    baseline, redFTL++ no better than redFTL+, a baseline reclaim takes as long as moving a
    whole block, and reads wait far less for redFTL+'s background reclaims."""
    out, p = quick
    assert p.returncode == 0, p.stderr
    c = _comparison(out)
    assert c["RR execution time, redFTL vs baseline"]["ours"] < 0
    assert c["RR execution time, redFTL+ vs baseline"]["ours"] < 0
    assert c["RR execution time, RRB vs baseline"]["ours"] < 0
    assert c["RR execution time, redFTL++ vs redFTL+"]["ours"] == pytest.approx(1.0, abs=0.2)
    assert 300 < c["longest reclaim of the baseline, ms, ads and websearch"]["ours"] < 450
    assert c["mean read response during reclaims, redFTL+ / baseline"]["ours"] < 0.1
    # A replica creation copies a few pages to other planes: milliseconds, not a block's move.
    assert 1.0 < c["median replica creation of redFTL, ms, ads and websearch"]["ours"] < 200
    assert c["share of reads from LSB pages, redFTL+ vs RRB"]["ours"] > 0
    assert c["a reclaim of a full block (192 x (100 + 1,600) us + 5 ms), ms"]["ours"] == pytest.approx(331.4)
    rows = parquet_rows(out)
    assert all(r["status"] == "ok" for r in rows)
    # The baseline reclaims on three of the four Ch. 3 stand-ins (mds, read evenly, has
    # no block read often enough in the quick run), and moves a whole block each time: no
    # writes invalidate the hot blocks' pages in between on these read-dominant workloads.
    base = [r for r in rows if r["scheme"] == "baseline" and r["workload_name"] in redftl.CH3]
    reclaimed = [r for r in base if r.get("ftl.relocations.read_reclaim.finished")]
    assert len(base) == 4 and len(reclaimed) >= 3
    assert all(r["ftl.relocations.read_reclaim.pages_per_relocation"] > 150 for r in reclaimed)
    assert all(not math.isnan(r["ftl.relocations.read_reclaim.busy_ms"]) for r in reclaimed)


def test_a_cdf_of_any_latency_summary_with_plain_log_ticks():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from xlssd.results import plots

    cdf = [[100.0, 0.05], [1_000.0, 0.5], [10_000.0, 0.9], [200_000.0, 0.99], [300_000.0, 1.0]]
    rows = [{"scheme": s, "ftl.relocations.read_reclaim.reads_on_die": n,
             "ftl.relocations.read_reclaim.reads_on_die_us.cdf": json.dumps(cdf),
             **{f"ftl.relocations.read_reclaim.reads_on_die_us.{p}": 1.0 for p, _ in plots.PERCENTILES}}
            for s, n in (("a", 10), ("b", 0))]
    fig = plots.latency_cdf(rows, histogram="ftl.relocations.read_reclaim.reads_on_die_us",
                            count="ftl.relocations.read_reclaim.reads_on_die", what="reads during reclaims")
    FigureCanvasAgg(fig).draw()
    ax = fig.axes[0]
    # Only the series with values is drawn; the log axis says 1000, not mathtext.
    assert [ln.get_label() for ln in ax.get_lines()] == ["a"]
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert "1000" in labels and not any("$" in t for t in labels)
    assert ax.get_xlabel() == "reads during reclaims (us)"
    # A summary no point has values of says so.
    empty = [{"scheme": "b", "x.n": 0, **{f"x.h.{p}": 0.0 for p, _ in plots.PERCENTILES}}]
    with pytest.raises(plots.ResultsError, match="no point has any value of x.h"):
        plots.latency_cdf(empty, histogram="x.h", count="x.n")
