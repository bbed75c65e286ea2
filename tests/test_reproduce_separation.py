"""`xlssd reproduce data-separation`: the stand-ins of seed 003's Table 7 traces and the
quick run."""

import numpy as np
import pytest
from experiments_helpers import comparison_rows, parquet_rows, quick_reproduction

from xlssd.reproduce import REGISTRY, separation
from xlssd.reproduce import separation_workloads as wl


def test_every_trace_of_table_7_is_there_with_its_counts():
    got = {t.name: (t.writes, t.updates) for t in wl.TRACES}
    assert got == {"cscope": (17_575, 15_398), "gcc": (10_394, 3_840), "viewperf": (7_003, 119),
                   "tpc-h": (23_522, 20_910), "tpc-r": (21_897, 18_803), "multi1": (28_400, 19_428),
                   "multi2": (35_719, 20_106)}


@pytest.mark.parametrize("hot", [wl.HOT_SHARE, *wl.OTHER_HOT_SHARES])
def test_a_stand_in_has_table_7s_writes_and_updates_exactly(hot):
    for t in wl.TRACES:
        s = wl.stats(*wl.generate(t, hot))
        assert (s["writes"], s["updates"], s["unique"]) == (t.writes, t.updates, t.unique), t
        assert s["contexts"] == wl.UPDATING + wl.WRITE_ONCE
        # Zipf 1.5 over 64 contexts: the top five take about 75% of the updates; viewperf's
        # 119 updates are all the top contexts'.
        assert s["top5_update_share"] == pytest.approx(1.0 if t.name == "viewperf" else 0.75, abs=0.03)


def test_a_stand_in_trace_file(tmp_path):
    t = wl.scaled(wl.BY_NAME["gcc"], 10)
    got = wl.write_stand_in(t, tmp_path / "a.trace", offset_pages=100)
    a = np.loadtxt(tmp_path / "a.trace", dtype=np.int64, ndmin=2)
    assert a.shape == (t.writes, 8) and got["writes"] == t.writes and got["updates"] == t.updates
    assert (np.diff(a[:, 0]) == wl.GAP_NS).all() and (a[:, 3] == wl.SPP).all() and (a[:, 4] == 0).all()
    assert a[:, 2].min() == 100 * wl.SPP and (a[:, 6] > 0).all()
    # The host-driven baseline's handles: 0 for write-once contexts, 1 to 7 for the others.
    once = a[:, 6] >= wl.WRITE_ONCE_BASE
    assert (a[once, 7] == 0).all() and set(a[~once, 7]) <= set(range(1, wl.HANDLES))
    assert (a[~once, 7] == 1 + (a[~once, 6] - wl.CONTEXT_BASE) % (wl.HANDLES - 1)).all()
    # Seeded: the same bytes again.
    wl.write_stand_in(t, tmp_path / "b.trace", offset_pages=100)
    assert (tmp_path / "a.trace").read_bytes() == (tmp_path / "b.trace").read_bytes()


def test_device_sizes():
    t = wl.BY_NAME["cscope"]
    # Ch. 5.4: logical space 10x the distinct pages (20% over-provisioning), 90% prefilled.
    assert separation.ch5_blocks(t) == 213
    logical = 213 * 128 * 8 // 10
    assert logical >= 10 * t.unique and separation.ch5_offset(t) + t.unique <= logical
    # Table 9 set-up: 2x the distinct pages in blocks + 20.
    assert separation.ch6_blocks(t) == 2 * 18 + 20
    p = separation.device_point("ch6", t)
    assert p["timing.program_us"] == 1600.0 and p["gc.policy"] == "greedy" and p["precondition.occupancy"] == 0.0
    assert int(56 * 128 * (1 - p["ftl.overprovisioning"])) >= t.unique


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return quick_reproduction(tmp_path_factory, "data-separation")


def test_quick_run_has_every_claim_row_and_its_kind(quick):
    out, p = quick
    assert p.returncode == 0, p.stderr
    c = comparison_rows(out)
    exp = REGISTRY["data-separation"]
    labels = [cl.label for cl in exp.claims]
    assert set(c) <= set(labels)
    # The generator's counts are input rows, every one of them exact.
    for t in wl.TRACES:
        for what in ("page writes", "updates"):
            row = c[f"{t.name}: {what} of the stand-in"]
            assert row["kind"] == "input" and row["within_tolerance"]
    assert all(v["kind"] == cl.row_kind for cl in exp.claims for k, v in c.items() if k == cl.label)
    simulated = [k for k, v in c.items() if v["kind"] == "simulated"]
    assert "GC time, IDS / PDS (IDS <= PDS)" in simulated
    assert "update_threshold of PDS's lowest GC time, tpc-h" in simulated
    line = next(ln for ln in p.stdout.splitlines() if ln.startswith("simulated: "))
    assert "input: 14 of 14 within tolerance" in line and "need the full run" in line
    rows = parquet_rows(out)
    assert rows and all(r["status"] == "ok" for r in rows)
    # Every run wrote its stand-in's pages, and the separation schemes counted its updates.
    for r in rows:
        name = r["workload_name"].split("-tenth@")[0]
        t = wl.scaled(wl.BY_NAME[name], separation.QUICK_DIVISOR)
        assert r["ftl.host_pages_written"] == t.writes
        if r["scheme"] in ("pds", "ids", "ora", "hash"):
            assert r["separation.updates"] == t.updates
    assert "handles" not in {r["scheme"] for r in rows}, "the handle baseline runs in the full run only"
    # Fig. 31's sweep ran on PDS.
    assert {r["config.scheme.separation.update_threshold"] for r in rows if r["scheme"] == "pds"} == set(
        separation.THRESHOLDS)
    assert {f.name for f in (out / "figures").glob("*.png")} >= {"fig31-update-threshold.png"}


def test_the_headline_uses_pds_main_runs_only():
    """Fig. 31's sweep and the victim-rule variant run PDS on the headline's own workloads:
    the headline must take the main runs (threshold 4, dead blocks first) alone."""
    from xlssd.reproduce.experiment import _measure

    exp = REGISTRY["data-separation"]
    w = separation.wname("gcc", "ch5")
    th, vr = "config." + separation.THRESHOLD_KEY, "config." + separation.VICTIMS_KEY

    def row(scheme, gc, threshold=None, rule=None):
        return {"scheme": scheme, "workload_name": w, "gc_ms": gc, th: threshold, vr: rule}

    rows = [row("hash", 100.0), row("pds", 50.0, 4, "dead-first"), row("pds", 500.0, 1, "dead-first"),
            row("pds", 900.0, 4, "last")]
    by_label = {c.label: c for c in exp.claims}
    assert _measure(by_label["GC time, PDS / HASH (PDS <= HASH)"], exp, rows) == pytest.approx(0.5)
    assert _measure(by_label["GC time, PDS vs HASH, update_victims last"], exp, rows) == pytest.approx(800.0)
    assert _measure(by_label["update_threshold of PDS's lowest GC time, gcc"], exp,
                    [{**r, "best_threshold": 4} for r in rows]) == 4


def test_a_stand_in_with_fewer_updating_contexts_keeps_table_7s_counts():
    for t in wl.TRACES:
        pages, contexts = wl.generate(t, updating=8)
        s = wl.stats(pages, contexts)
        assert (s["writes"], s["updates"]) == (t.writes, t.updates), t
        assert s["contexts"] == 8 + wl.WRITE_ONCE
    with pytest.raises(ValueError, match="updating contexts"):
        wl.generate(wl.BY_NAME["gcc"], updating=0)
