"""`xlssd reproduce ascache`: the block-state arithmetic, the workload's parameters and the
quick run."""

import math
from statistics import NormalDist

import pytest
from experiments_helpers import comparison_rows, parquet_rows, quick_reproduction

from xlssd.reproduce import ascache, ascache_workloads


def test_levels_are_equal_intervals_of_pe_cycles_under_the_exponential_model():
    # 1e-6 x 1000^(pe / 3000): the hard limit 1e-3 at 3,000 cycles, the last soft level's
    # 1.3e-2 at 3000 x log10(13,000) / 3 = 4,113.9 cycles; six levels between.
    assert ascache.pe_of_rber(1e-3) == pytest.approx(3000.0)
    assert ascache.pe_of_rber(1.3e-2) == pytest.approx(3000.0 * math.log10(13_000) / 3)
    assert ascache.LEVEL_PE == pytest.approx((3000.0 * math.log10(13_000) / 3 - 3000.0) / 6)
    # Level 8 ends at 3,000 cycles: its centre is half a level below, level 1's (past the
    # last soft level) half a level above 4,113.9.
    assert ascache.pe_mean(7.5) == pytest.approx(3000.0)
    assert ascache.pe_mean(1.5) == pytest.approx(ascache.pe_of_rber(1.3e-2))
    assert ascache.state() == {"aging.initial_pe": pytest.approx(3557.0, abs=0.1),
                               "aging.initial_pe_spread": pytest.approx(185.7, abs=0.1)}


def test_the_failure_rate_is_the_share_of_blocks_past_the_last_soft_level():
    for f in ascache.FAILURE_RATES:
        m = ascache.mean_level_for(f, 1.0)
        # Blocks past the last soft level: continuous level below 1.5.
        assert NormalDist(m, 1.0).cdf(1.5) == pytest.approx(f)
        pe = ascache.fig6_where(f)["aging.initial_pe"]
        assert NormalDist(pe, ascache.LEVEL_PE).cdf(ascache.pe_of_rber(1.3e-2)) == pytest.approx(1 - f, abs=1e-3)


def test_the_workload_is_stated_and_keeps_a_disk_of_3_ms_reads_out_of_saturation():
    assert (ascache_workloads.VIDEOS, ascache_workloads.CLIENTS, ascache_workloads.FPS) == (32, 16, 30.0)
    assert ascache.AP_BERS[-1] > 0.011 and 0.011 in ascache.AP_BERS


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return quick_reproduction(tmp_path_factory, "ascache")


def test_quick_run_measures_both_schemes_at_every_point(quick):
    out, p = quick
    assert p.returncode == 0, p.stderr
    c = comparison_rows(out)
    assert "mean read latency, ASCache vs traditional, AP_BER 0.011" in c
    assert "read-error misses, ASCache vs traditional, failure rate 0.3" in c
    # The raw SSD read's latency comes out as the preset's sense time plus a page's transfer:
    # an input measured back, classed so; every other row is measured on the runs.
    raw = c["mean SSD read latency, ASCache (us; paper: 80 to 100)"]
    assert raw["ours"] == pytest.approx(ascache._raw_read_us(), rel=5e-3) and raw["kind"] == "input"
    assert all(v["kind"] == "simulated" for k, v in c.items() if k != "mean SSD read latency, ASCache (us; paper: 80 to 100)")
    # The disk's load beside every Fig. 5 and Fig. 6 row, for ASCache and the traditional cache.
    for k, v in c.items():
        if v["ref"] in ("paper: Fig. 5", "paper: Fig. 6") and k.startswith(("mean read latency", "read-error")):
            assert "disk utilization: ascache " in v["note"] and ", ssd-cache " in v["note"], (k, v["note"])
            assert "disk queueing (us a request): ascache " in v["note"], v["note"]
    # Fig. 7: the case study's frames come back whole from the traditional cache.
    assert c["lowest frame SSIM, traditional"]["ours"] == pytest.approx(1.0)
    for pref in ascache.PREFERENCES:
        assert 0.0 < c[f"lowest frame SSIM, ASCache, writes to the {pref} level"]["ours"] < 1.0
    rows = parquet_rows(out)
    assert {r["scheme"] for r in rows} == set(ascache.SCHEMES)
    assert len(rows) == 2 * (len(ascache.POINTS) + len(ascache.UPLOAD_POLICIES))
    for r in rows:
        assert r["status"] == "ok"
        assert r["backing.enabled"] and r["backing.reads.pages"] > 0
        # Only ASCache returns raw data; at AP_BER 0.011 and above most blocks are tolerated.
        if r["scheme"] == "ssd-cache":
            assert r["ascache.raw_reads"] == 0
        elif r["config.host.ap_ber"] >= 0.011:
            assert r["ascache.raw_reads"] > 0, r
        assert r["ascache.probes_start"] == 1024
    assert {f.name for f in (out / "figures").glob("*.png")} >= {"read-latency-vs-ap-ber.png", "read-error-misses-vs-pe.png", "frame-ssim.png"}


def test_uploads_exercise_the_three_write_policies(quick):
    out, p = quick
    assert p.returncode == 0, p.stderr
    rows = [r for r in parquet_rows(out) if r["workload_name"] == ascache.UPLOADS]
    assert sorted((r["scheme"], r["config.backing.write_policy"]) for r in rows) == sorted(
        (s, pol) for s in ascache.SCHEMES for pol in ascache.UPLOAD_POLICIES)
    for r in rows:
        policy, w = r["config.backing.write_policy"], r["backing.writes.pages"]
        assert w > 0 and r["host.write.count"] > 0, r["scheme"]
        if policy == "write-around":
            # Uploads go to the disk only.
            assert (r["backing.writes.cached"], r["backing.writes.around"]) == (0, w)
            assert r["backing.disk.writes"] > 0
        else:
            # Cached; write-through also writes the disk at once, write-back only later.
            assert (r["backing.writes.cached"], r["backing.writes.around"]) == (w, 0)
        if policy == "write-through":
            assert r["backing.disk.writes"] > 0
    # Writing every upload to the disk at once keeps it busier than absorbing them.
    util = {(r["scheme"], r["config.backing.write_policy"]): r["backing.disk.utilization"] for r in rows}
    for s in ascache.SCHEMES:
        assert util[(s, "write-through")] > util[(s, "write-back")]


def test_uploads_are_written_into_their_own_space_while_the_library_streams():
    from xlssd.reproduce import ascache_workloads as wl

    s = wl.with_uploads(3_000, uploaders=2)
    reads, writes = s["is_read"], ~s["is_read"]
    assert reads.sum() == 3_000 and writes.sum() > 0
    assert (s["time_ns"][1:] >= s["time_ns"][:-1]).all()
    library_end = wl.Layout().disk_bytes(wl.VIDEOS) // wl.SECTOR
    assert s["lba"][reads].max() < library_end <= s["lba"][writes].min()
    # Each uploader writes its frames in order, a frame time apart, never past the reads' span.
    assert s["time_ns"][writes].max() <= s["time_ns"][reads].max()
    assert len(set(s["lba"][writes].tolist())) == writes.sum()
    with pytest.raises(ValueError, match="uploaders >= 0"):
        wl.with_uploads(10, uploaders=-1)
    with pytest.raises(ValueError, match="upload_fps > 0"):
        wl.with_uploads(10, upload_fps=0.0)
