"""`xlssd reproduce aero`: the stand-ins, the lifetime arithmetic and the quick run."""

import json

import pytest
from experiments_helpers import comparison_rows, parquet_rows, quick_reproduction

from xlssd.reproduce import REGISTRY, aero


def test_six_msrc_and_five_alibaba_stand_ins():
    names = [s.name for s in aero.STAND_INS]
    assert len(names) == 11 and sum(n.startswith("msrc-") for n in names) == 6
    assert sum(n.startswith("ali-") for n in names) == 5
    # The MSRC volumes' reads are what their commonly reported write shares leave.
    reads = {s.name: s.reads for s in aero.MSRC}
    assert reads["msrc-hm_0"] == pytest.approx(100 - 64.5) and reads["msrc-prxy_0"] == pytest.approx(100 - 96.9)
    assert aero.spec(aero.MSRC[0]) == "rw=randrw,rwmixread=35.5,bs=16k,iodepth=0,interarrival_us=100,n=400000"
    assert aero.spec(aero.ALIBABA[4], n=10, gap_us=50) == "rw=randrw,rwmixread=70,bs=64k,iodepth=0,interarrival_us=50,n=10"


def test_stress_at_another_voltage_step_follows_from_one_run():
    # One erase of 7 ms as two 3.5 ms loops at 20 V and 20.5 V: 141.75 V x ms at 0.5 V/loop.
    point = ((1000, 7.0, 3.5 * 20.0 + 3.5 * 20.5),)
    assert aero.stress_at(point, 0.5) == [(1000.0, pytest.approx(141.75))]
    assert aero.stress_at(point, 0.0) == [(1000.0, pytest.approx(140.0))]
    assert aero.stress_at(point, 2.0) == [(1000.0, pytest.approx(3.5 * 20.0 + 3.5 * 22.0))]


def test_lifetime_spends_the_budget_along_the_stress_curve():
    flat = [(0.0, 10.0), (5000.0, 10.0)]
    assert aero.lifetime(flat, 10.0 * 3000) == pytest.approx(3000.0)
    # Stress rising from 10 to 20 over 0..1000 cycles, held at 20 beyond: the first 1000
    # cycles take 15,000; the rest of a 35,000 budget lasts 1000 more cycles.
    rising = [(0.0, 10.0), (1000.0, 20.0)]
    assert aero._cumulative(rising, 1000.0) == pytest.approx(15_000.0)
    assert aero.lifetime(rising, 35_000.0) == pytest.approx(2000.0)
    # Half the stress: half the budget lasts as many cycles; of the whole budget the first
    # 1000 cycles take 7,500 and the rest goes at 10 per cycle.
    half = [(0.0, 5.0), (1000.0, 10.0)]
    assert aero.lifetime(half, 17_500.0) == pytest.approx(2000.0)
    assert aero.lifetime(half, 35_000.0) == pytest.approx(1000.0 + 27_500.0 / 10.0)


def test_the_tail_claims_take_the_main_runs_only():
    """The eager-erase variant runs the same stand-ins under names of their own: a main
    claim must not take its rows."""
    from xlssd.reproduce.experiment import _measure

    exp = REGISTRY["aero"]

    def row(scheme, p, workload="msrc-hm_0"):
        return {"scheme": scheme, "workload_name": workload, "read_p99_99_us": p, "config.aging.initial_pe": 2500}

    rows = [row("ispe", 1000.0), row("aero", 700.0), row("aero", 100.0, "msrc-hm_0@eager"),
            row("ispe", 1000.0, "msrc-hm_0@eager")]
    by_label = {c.label: c for c in exp.claims}
    assert _measure(by_label["p99.99 read latency, AERO vs ISPE, 2.5K P/E"], exp, rows) == pytest.approx(-30.0)
    assert _measure(by_label["p99.99 read latency, AERO vs ISPE, 2.5K P/E, eager erase"], exp, rows) == pytest.approx(-90.0)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return quick_reproduction(tmp_path_factory, "aero")


def test_quick_run_measures_every_scheme_and_the_lifetime(quick):
    out, p = quick
    assert p.returncode == 0, p.stderr
    c = comparison_rows(out)
    erase_rows = [v for k, v in c.items() if k.startswith("mean erase latency, ") and k.endswith("(ms)")]
    assert len(erase_rows) == 5 and all(v["kind"] == "input" for v in erase_rows)
    assert "p99.99 read latency, AERO vs ISPE, 2.5K P/E" in c
    assert "lifetime, AERO vs ISPE (from measured erase stress)" in c
    rows = parquet_rows(out)
    assert {r["scheme"] for r in rows} == set(aero.SCHEMES)
    assert {r["workload_name"] for r in rows} == set(aero.QUICK_STAND_INS)
    for r in rows:
        assert r["status"] == "ok"
        # Lazy erase: every planned loop ran but the deferred last ones not yet needed.
        by_loops = r["nand.erase.by_loops"]
        by_loops = json.loads(by_loops) if isinstance(by_loops, str) else by_loops
        planned = sum(n * c for n, c in enumerate(by_loops))
        assert r["nand.erase.erases"] > 0
        assert r["nand.erase.loops"] == planned - r["nand.erase.erases"] + r["nand.erase.deferred_loops_run"]
        # Only AERO's two forms begin with the shallow erase.
        assert (r["aero.shallow"] > 0) == r["scheme"].startswith("aero"), r["scheme"]
        assert r["aero.lifetime_vs_ispe"] >= 1.0
    assert {f.name for f in (out / "figures").glob("*.png")} >= {"read-p99-99-25k.png", "erase-latency-25k.png", "lifetime.png"}
