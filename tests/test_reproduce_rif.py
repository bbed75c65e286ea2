"""`xlssd reproduce rif`: the stand-ins of seed 004's eight traces and the quick run."""

import pytest
from experiments_helpers import comparison_rows, parquet_rows, quick_reproduction

from xlssd.reproduce import REGISTRY, rif


def test_eight_stand_ins_six_alicloud_two_systor_all_read_dominant():
    names = [s.name for s in rif.STAND_INS]
    assert len(names) == 8 and sum(n.startswith("ali-") for n in names) == 6
    assert sum(n.startswith("systor-") for n in names) == 2
    assert all(s.reads > 50 and s.kib % 16 == 0 for s in rif.STAND_INS)
    assert rif.spec(rif.STAND_INS[0]) == "rw=randread,bs=16k,iodepth=256,span=0.4,n=40000"
    assert rif.spec(rif.STAND_INS[5], qd=64, n=10) == "rw=randrw,rwmixread=70,bs=128k,iodepth=64,span=0.4,n=10"


def test_the_headline_takes_the_main_runs_only():
    """The host-link and aging variants run the same workloads: the headline must take the
    rows at the main settings alone."""
    from xlssd.reproduce.experiment import _measure

    exp = REGISTRY["rif"]
    main = {f"config.{k}": v for k, v in rif.MAIN.items()}

    def row(scheme, bw, **over):
        return {"scheme": scheme, "workload_name": "ali-a", "bandwidth": bw, **main,
                **{f"config.{k}": v for k, v in over.items()}}

    rows = [row("senc", 1000.0), row("rif", 1500.0), row("rif", 9000.0, **{"host.interface_gbps": 15.75}),
            row("senc", 100.0, **{"aging.initial_pe": 3000})]
    by_label = {c.label: c for c in exp.claims}
    assert _measure(by_label["I/O bandwidth, RiF vs SENC"], exp, rows) == pytest.approx(50.0)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return quick_reproduction(tmp_path_factory, "rif")


def test_quick_run_has_its_rows_and_every_scheme(quick):
    out, p = quick
    assert p.returncode == 0, p.stderr
    c = comparison_rows(out)
    assert "I/O bandwidth, RiF vs SENC" in c and "I/O bandwidth, RiF vs SWR" in c
    assert all(v["kind"] == "simulated" for v in c.values())
    rows = parquet_rows(out)
    assert {r["scheme"] for r in rows} == set(rif.SCHEMES)
    assert {r["workload_name"] for r in rows} == set(rif.QUICK_STAND_INS)
    for r in rows:
        assert r["status"] == "ok"
        # The channel-use parts add up to the channels' whole time.
        parts = sum(r[p] for p in rif.USE_PARTS)
        assert parts == r["sim.simulated_ns"] * r["config.geometry.channels"], r["scheme"]
        # Only RiF senses again inside the die; the ideal SSD never retries.
        assert (r["reliability.read_retries.in_die_senses"] > 0) == r["scheme"].startswith("rif"), r["scheme"]
        if r["scheme"] == "ideal":
            assert r["reliability.read_retries.failed_transfers"] == 0
    by = {(r["scheme"], r["workload_name"]): r for r in rows}
    for w in rif.QUICK_STAND_INS:
        # RiF moves far fewer pages in vain than the conventional walk (only its
        # mispredictions, 1.3% of its predictions).
        assert by["rif", w]["reliability.read_retries.failed_transfers"] < 0.1 * by["retry", w][
            "reliability.read_retries.failed_transfers"]
    assert {f.name for f in (out / "figures").glob("*.png")} >= {"bandwidth-vs-senc.png", "channel-use-rif.png"}
